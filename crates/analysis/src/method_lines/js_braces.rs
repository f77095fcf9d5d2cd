//! The brace scan of JavaScript and TypeScript sources (`.js .mjs .cjs
//! .jsx .ts .tsx`): the line of the `}` that closes a method's body, with
//! the literals and comments in which a brace or a quote is only text
//! skipped.
//!
//! Skipped: `//` and `/* */` comments; `'` and `"` strings (with escapes;
//! an unterminated one ends with its line, as JavaScript says); template
//! strings, which span lines and hold `${ … }` expressions, themselves
//! scanned as code (braces, strings and templates nested to any depth);
//! and regular-expression literals, with their escapes and character
//! classes (`/[{"]/`).
//!
//! A `/` starts a regular expression where an operand is expected: after
//! one of `( , = : [ ! & | ? { } ; + - * % < > ~ ^`, after a keyword that
//! takes an expression (`return`, `typeof`, `case`, …), or first on its
//! line; after a name, a number, a literal, `)` or `]` it divides. A
//! "regular expression" that does not end on its own line was a division
//! after all: the scan goes back to just after its `/`.
//!
//! The body is the first block opened after a `)`, a `=>` or a name: a
//! `{` right after `=`, `(`, `,`, `:` or `[` opens an object literal or
//! pattern among the parameters (`opts = {}`, `({ a, b })`, a TypeScript
//! type `): { x: number } {`), which is passed over.
//!
//! Limits: a regular expression right after the `)` of `if (…)` or
//! `while (…)` is read as a division (found again by the rule above only
//! when no `/` follows on its line); JSX text is scanned as code.

/// Keywords after which an expression, so possibly a regular expression,
/// follows.
const BEFORE_EXPRESSION: [&str; 15] = [
    "return",
    "typeof",
    "case",
    "in",
    "of",
    "new",
    "delete",
    "void",
    "throw",
    "instanceof",
    "yield",
    "await",
    "do",
    "else",
    "extends",
];

/// Divisions read as regular expressions per line, after which every `/`
/// of the line divides (bounds the work on long minified lines).
const MAX_REREADS: usize = 16;

/// Characters after which a `/` starts a regular expression.
const BEFORE_REGEX: &str = "(,=:[!&|?{};+-*%<>~^";

enum State {
    Code,
    BlockComment,
    /// Inside a `'` or `"` string.
    Quoted(char),
    /// Inside the text of a template string.
    Template,
    /// Inside a regular expression that began at this char index of the
    /// current line; `true` inside a character class.
    Regex(usize, bool),
}

/// The line (an index into `lines`) of the `}` matching the first `{` at or
/// after line `head`, `None` when the text ends first.
pub(super) fn closing_brace(lines: &[&str], head: usize) -> Option<usize> {
    let mut depth = 0usize;
    // Open braces of object literals and patterns before the body (default
    // values `opts = {}`, destructured parameters `({ a, b })`).
    let mut before_body = 0usize;
    // The last character of code that is not white space.
    let mut last = ' ';
    // For each `${` being read, the brace depth its `}` returns to.
    let mut templates: Vec<usize> = Vec::new();
    let mut state = State::Code;
    for (i, line) in lines.iter().enumerate().skip(head) {
        let chars: Vec<char> = line.chars().collect();
        // A `/` first on its line starts a regular expression.
        let mut regex_allowed = true;
        // The line ends inside a string with a `\` (a continued string).
        let mut continued = false;
        // Divisions taken for regular expressions: each costs a second
        // read of the rest of the line, so a line gets a few.
        let mut rereads = 0;
        let mut k = 0;
        while k < chars.len() {
            let c = chars[k];
            let next = chars.get(k + 1).copied();
            match state {
                State::BlockComment => {
                    if c == '*' && next == Some('/') {
                        state = State::Code;
                        k += 1;
                    }
                }
                State::Quoted(q) => {
                    if c == '\\' {
                        continued = next.is_none();
                        k += 1;
                    } else if c == q {
                        state = State::Code;
                        regex_allowed = false;
                    }
                }
                State::Template => {
                    if c == '\\' {
                        k += 1;
                    } else if c == '`' {
                        state = State::Code;
                        regex_allowed = false;
                    } else if c == '$' && next == Some('{') {
                        templates.push(depth);
                        state = State::Code;
                        regex_allowed = true;
                        k += 1;
                    }
                }
                State::Regex(start, class) => {
                    if c == '\\' {
                        k += 1;
                    } else if class {
                        if c == ']' {
                            state = State::Regex(start, false);
                        }
                    } else if c == '[' {
                        state = State::Regex(start, true);
                    } else if c == '/' {
                        state = State::Code;
                        regex_allowed = false;
                    }
                }
                State::Code => {
                    if c == '/' && next == Some('/') {
                        break;
                    } else if c == '/' && next == Some('*') {
                        state = State::BlockComment;
                        k += 1;
                    } else if c == '/' && regex_allowed && rereads < MAX_REREADS {
                        state = State::Regex(k, false);
                    } else if c == '\'' || c == '"' {
                        state = State::Quoted(c);
                    } else if c == '`' {
                        state = State::Template;
                    } else if c == '{' {
                        let literal = matches!(last, '=' | '(' | ',' | ':' | '[');
                        if depth == 0 && (before_body > 0 || literal) {
                            before_body += 1;
                        } else {
                            depth += 1;
                        }
                        regex_allowed = true;
                    } else if c == '}' {
                        regex_allowed = true;
                        if templates.last() == Some(&depth) {
                            templates.pop();
                            state = State::Template;
                        } else if depth == 0 && before_body > 0 {
                            before_body -= 1;
                        } else if depth > 0 {
                            depth -= 1;
                            if depth == 0 {
                                return Some(i);
                            }
                        }
                    } else if is_word_char(c) {
                        let start = k;
                        while chars.get(k + 1).copied().is_some_and(is_word_char) {
                            k += 1;
                        }
                        let word: String = chars[start..=k].iter().collect();
                        regex_allowed = BEFORE_EXPRESSION.contains(&word.as_str());
                    } else if c == '/' || BEFORE_REGEX.contains(c) {
                        regex_allowed = true;
                    } else if !c.is_whitespace() {
                        // `)`, `]`, `.`, `#`, `@` …: an operand ends or a
                        // name follows.
                        regex_allowed = false;
                    }
                    if !c.is_whitespace() && !matches!(state, State::BlockComment) {
                        last = chars[k];
                    }
                }
            }
            k += 1;
            // A regular expression never spans lines: this one was a
            // division, read again from just after it.
            if k >= chars.len() {
                if let State::Regex(start, _) = state {
                    state = State::Code;
                    regex_allowed = true;
                    rereads += 1;
                    k = start + 1;
                }
            }
        }
        if matches!(state, State::Quoted(_)) && !continued {
            state = State::Code;
        }
    }
    None
}

/// A character of a name, keyword or number.
fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}
