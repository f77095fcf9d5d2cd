// perfatlas field-execution filters: the JavaScript twin of
// src/analysis/field_filter.rs for the page's filter box. The same grammar,
// the same error messages and 1-based character columns, the same
// evaluation; tests/fixtures/filter_cases.json holds the cases both must
// agree on. Plain ES5, no dependencies.
//
//   PerfatlasFieldFilter.parse(text)
//     -> {ok: true, ast: ...} | {ok: false, error: {column, message}}
//   PerfatlasFieldFilter.matches(ast, properties) -> boolean
//
// The AST is what Filter::to_js writes: {property, op, value} for a
// predicate (op one of = != < > <= >=), {and: [...]} and {or: [...]} for
// groups. A predicate on a property the execution lacks is false, whatever
// its operator. Values compare as numbers when both sides are decimal
// numbers, else as strings in code point order.
(function (root) {
  'use strict';

  var MAX_DEPTH = 100;
  var OPERATORS = '=, !=, <, >, <=, >=';
  var DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

  function error(column, message) {
    return { column: column, message: message };
  }

  // ---- characters -------------------------------------------------------

  // The text as an array of characters (code points), so that columns count
  // characters as Rust does, not UTF-16 units.
  function characters(text) {
    var out = [];
    for (var i = 0; i < text.length; i++) {
      var unit = text.charCodeAt(i);
      var next = text.charCodeAt(i + 1);
      if (unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        out.push(text.charAt(i) + text.charAt(i + 1));
        i++;
      } else {
        out.push(text.charAt(i));
      }
    }
    return out;
  }

  function codePoint(c) {
    if (c.length === 2) {
      return (c.charCodeAt(0) - 0xd800) * 0x400 + (c.charCodeAt(1) - 0xdc00) + 0x10000;
    }
    return c.charCodeAt(0);
  }

  function isSpace(c) {
    return c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\u000b' || c === '\u000c';
  }

  function isWordChar(c) {
    return /^[A-Za-z0-9._:\/-]$/.test(c);
  }

  function keyword(word) {
    var lower = word.toLowerCase();
    return lower === 'and' || lower === 'or' ? lower : null;
  }

  function hex(n) {
    var s = n.toString(16).toUpperCase();
    while (s.length < 4) s = '0' + s;
    return s;
  }

  // ---- tokens -----------------------------------------------------------

  // Tokens {kind, column, text, op?}; kind is word, keyword, string, op,
  // open, close or end. text is the source as written, except for a
  // string: its value. Throws an error object on a lexical error.
  function tokenize(text) {
    var chars = characters(text);
    var tokens = [];
    var i = 0;
    while (i < chars.length) {
      if (isSpace(chars[i])) {
        i++;
        continue;
      }
      var read = readToken(chars, i);
      tokens.push(read.token);
      i += read.length;
    }
    tokens.push({ kind: 'end', column: chars.length + 1, text: '' });
    return tokens;
  }

  function readToken(chars, start) {
    var c = chars[start];
    var column = start + 1;
    if (c === '(' || c === ')') {
      return { token: { kind: c === '(' ? 'open' : 'close', column: column, text: c }, length: 1 };
    }
    if (c === '"' || c === "'") return readString(chars, start);
    if (isWordChar(c)) {
      var end = start;
      while (end < chars.length && isWordChar(chars[end])) end++;
      var word = chars.slice(start, end).join('');
      var kind = keyword(word) ? 'keyword' : 'word';
      return { token: { kind: kind, column: column, text: word }, length: end - start };
    }
    var op = readOperator(chars, start);
    var source = chars.slice(start, start + op.length).join('');
    return { token: { kind: 'op', column: column, text: source, op: op.op }, length: op.length };
  }

  function readOperator(chars, start) {
    var c = chars[start];
    var equalsNext = chars[start + 1] === '=';
    if (c === '=') return { op: '=', length: 1 };
    if (c === '\u2260') return { op: '!=', length: 1 };
    if (c === '\u2264') return { op: '<=', length: 1 };
    if (c === '\u2265') return { op: '>=', length: 1 };
    if ((c === '!' || c === '<' || c === '>') && equalsNext) return { op: c + '=', length: 2 };
    if (c === '<' || c === '>') return { op: c, length: 1 };
    if (c === '!') throw error(start + 1, '"!" must be followed by "="');
    throw error(start + 1, 'unexpected character "' + c + '" (U+' + hex(codePoint(c)) + ')');
  }

  function readString(chars, start) {
    var quote = chars[start];
    var unterminated = error(start + 1, 'unterminated string (no closing ' + quote + ')');
    var value = '';
    var i = start + 1;
    for (;;) {
      if (i >= chars.length) throw unterminated;
      var c = chars[i];
      if (c === quote) break;
      if (c === '\\') {
        if (i + 1 >= chars.length) throw unterminated;
        var escaped = chars[i + 1];
        if (escaped !== '"' && escaped !== "'" && escaped !== '\\') {
          throw error(i + 1, 'unknown escape "\\' + escaped + '" in a string (only \\", \\\' and \\\\)');
        }
        value += escaped;
        i += 2;
      } else {
        value += c;
        i++;
      }
    }
    return { token: { kind: 'string', column: start + 1, text: value }, length: i + 1 - start };
  }

  // ---- parser -----------------------------------------------------------

  function found(token) {
    if (token.kind === 'end') return 'the end of the filter';
    if (token.kind === 'string') return 'a quoted string';
    if (token.kind === 'keyword') return 'the keyword "' + token.text + '"';
    return '"' + token.text + '"';
  }

  function height(node) {
    var list = node.and || node.or;
    if (!list) return 0;
    var max = 0;
    for (var i = 0; i < list.length; i++) max = Math.max(max, height(list[i]));
    return 1 + max;
  }

  function Parser(tokens) {
    this.tokens = tokens;
    this.pos = 0;
    this.parens = 0;
  }

  Parser.prototype.peek = function () {
    return this.tokens[this.pos];
  };

  Parser.prototype.next = function () {
    var token = this.tokens[this.pos];
    if (token.kind !== 'end') this.pos++;
    return token;
  };

  Parser.prototype.isKeyword = function (token, word) {
    return token.kind === 'keyword' && keyword(token.text) === word;
  };

  // Operands joined by `word`: conjunctions for "or", primaries for "and".
  Parser.prototype.chain = function (word) {
    var self = this;
    function operand() {
      return word === 'or' ? self.chain('and') : self.primary();
    }
    var first = operand();
    if (!this.isKeyword(this.peek(), word)) return first;
    var keywordColumn = this.peek().column;
    var operands = [first];
    while (this.isKeyword(this.peek(), word)) {
      this.next();
      operands.push(operand());
    }
    var group = {};
    group[word] = operands;
    if (height(group) > MAX_DEPTH) {
      throw error(keywordColumn, '"and"/"or" groups nest deeper than ' + MAX_DEPTH + ' levels');
    }
    return group;
  };

  Parser.prototype.primary = function () {
    var token = this.next();
    if (token.kind === 'open') return this.parenthesised(token);
    if (token.kind === 'word') return this.predicate(token);
    if (token.kind === 'keyword') {
      throw error(token.column, 'expected a property name but found the keyword "' + token.text + '"');
    }
    throw error(token.column, 'expected a property name or "(" but found ' + found(token));
  };

  Parser.prototype.parenthesised = function (open) {
    if (this.parens >= MAX_DEPTH) {
      throw error(open.column, 'parentheses nest deeper than ' + MAX_DEPTH + ' levels');
    }
    this.parens++;
    var inner;
    try {
      inner = this.chain('or');
    } finally {
      this.parens--;
    }
    this.close(open);
    return inner;
  };

  Parser.prototype.close = function (open) {
    var token = this.next();
    if (token.kind === 'close') return;
    if (token.kind === 'end') throw error(open.column, '"(" is never closed');
    throw this.unexpectedAfterOperand(token, '")"');
  };

  Parser.prototype.predicate = function (property) {
    var opToken = this.next();
    if (opToken.kind !== 'op') {
      throw error(opToken.column, 'expected an operator (' + OPERATORS + ') after "' + property.text + '"');
    }
    var value = this.next();
    if (value.kind === 'word' || value.kind === 'string') {
      return { property: property.text, op: opToken.op, value: value.text };
    }
    if (value.kind === 'keyword') {
      throw error(value.column, 'expected a value after "' + opToken.text + '" but found the keyword "' +
        value.text + '" (quote it to compare with the word)');
    }
    throw error(value.column, 'expected a value after "' + opToken.text + '" but found ' + found(value));
  };

  Parser.prototype.end = function () {
    var token = this.next();
    if (token.kind === 'end') return;
    if (token.kind === 'close') throw error(token.column, '")" has no matching "("');
    throw this.unexpectedAfterOperand(token, 'the end of the filter');
  };

  Parser.prototype.unexpectedAfterOperand = function (token, closer) {
    var previous = this.pos >= 2 ? this.tokens[this.pos - 2].kind : null;
    var hint = token.kind === 'word' && (previous === 'word' || previous === 'string') ?
      ' (quote a value that has spaces)' : '';
    return error(token.column, 'expected "and", "or" or ' + closer + ' but found ' + found(token) + hint);
  };

  function parse(text) {
    try {
      var tokens = tokenize(String(text));
      if (tokens.length === 1) throw error(1, 'the filter is empty');
      var parser = new Parser(tokens);
      var ast = parser.chain('or');
      parser.end();
      return { ok: true, ast: ast };
    } catch (e) {
      if (e && typeof e.column === 'number' && typeof e.message === 'string') {
        return { ok: false, error: { column: e.column, message: e.message } };
      }
      throw e;
    }
  }

  // ---- evaluation -------------------------------------------------------

  function number(text) {
    return DECIMAL.test(text) ? Number(text) : null;
  }

  // Strings in code point order (Rust's byte order on UTF-8), not UTF-16's.
  function compareStrings(a, b) {
    var ca = characters(a);
    var cb = characters(b);
    var n = Math.min(ca.length, cb.length);
    for (var i = 0; i < n; i++) {
      var x = codePoint(ca[i]);
      var y = codePoint(cb[i]);
      if (x !== y) return x < y ? -1 : 1;
    }
    return ca.length === cb.length ? 0 : ca.length < cb.length ? -1 : 1;
  }

  function compare(actual, wanted) {
    var a = number(actual);
    var b = number(wanted);
    if (a !== null && b !== null) return a < b ? -1 : a > b ? 1 : 0;
    return compareStrings(actual, wanted);
  }

  function accepts(op, ordering) {
    switch (op) {
      case '=': return ordering === 0;
      case '!=': return ordering !== 0;
      case '<': return ordering < 0;
      case '>': return ordering > 0;
      case '<=': return ordering <= 0;
      case '>=': return ordering >= 0;
      default: return false;
    }
  }

  // properties: an object of strings; a property that is absent, null or
  // undefined is missing, any other value is compared as String(value).
  function matches(ast, properties) {
    if (!ast || typeof ast !== 'object') return false;
    var i;
    if (ast.and) {
      for (i = 0; i < ast.and.length; i++) if (!matches(ast.and[i], properties)) return false;
      return true;
    }
    if (ast.or) {
      for (i = 0; i < ast.or.length; i++) if (matches(ast.or[i], properties)) return true;
      return false;
    }
    if (!properties || !Object.prototype.hasOwnProperty.call(properties, ast.property)) return false;
    var actual = properties[ast.property];
    if (actual === null || actual === undefined) return false;
    return accepts(ast.op, compare(String(actual), String(ast.value)));
  }

  var api = { parse: parse, matches: matches };
  root.PerfatlasFieldFilter = api;
  if (typeof module === 'object' && module && module.exports) module.exports = api;
})(typeof window !== 'undefined' ? window : this);
