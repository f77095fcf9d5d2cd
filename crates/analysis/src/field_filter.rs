//! Filters and summarizers over field executions (Gammatella, section 2.4):
//! each execution carries properties, string pairs such as
//! `os.name = Linux` or `java.version = 1.4.1`, and a user narrows the
//! executions shown with a filter (`os.name = Linux and java.version !=
//! 1.3.0`) and groups them with a summarizer (a list of property names).
//!
//! This module owns the filter grammar, its error messages (with the
//! 1-based character column they point at), evaluation, and grouping. It
//! reads no files and renders nothing; it never panics on any input.
//! `templates/assets/field-filter.js` is its JavaScript twin for the page's
//! filter box: the same grammar, the same messages and columns, the same
//! evaluation; `tests/fixtures/filter_cases.json` holds the cases both must
//! agree on.
//!
//! Grammar, `and` binding tighter than `or`, ASCII spaces, tabs and line
//! breaks between tokens (other characters, U+00A0 among them, are errors):
//!
//! ```text
//! filter      = disjunction
//! disjunction = conjunction ("or" conjunction)*
//! conjunction = primary ("and" primary)*
//! primary     = "(" disjunction ")" | property op value
//! op          = "=" | "!=" | "≠" | "<" | ">" | "<=" | "≤" | ">=" | "≥"
//! property    = word                 (not "and" or "or")
//! value       = word | string        (a bare value may not be "and" or "or")
//! word        = [A-Za-z0-9._:/-]+
//! string      = '"' ... '"' | "'" ... "'"   (escapes \" \' \\ only)
//! ```
//!
//! `and` and `or` are keywords in any letter case. Table 2 of the paper,
//! where every `and`/`or` is in parentheses, is a subset; its single-quoted
//! values (`'1.3.0'`) are accepted as written.
//!
//! Semantics: a comparison is numeric when both the property's value and
//! the filter's value are decimal numbers (`5`, `-0.5`, `.5`, `5.`, `1e3`;
//! not `inf`, `0x10` or ` 5`), quoted or not: quotes never change the
//! meaning. Otherwise it compares the strings in byte (code point) order.
//! A predicate on a property the execution lacks is false, whatever its
//! operator: `os.name != Linux` does not match an execution without
//! `os.name`. Neither order is version order: `1.10 < 1.9` as numbers and
//! `1.10.0 < 1.9.0` as strings.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

pub use config::ViewConfig;
use serde_json::{json, Value};

/// Deepest nesting accepted, both of parentheses and of `and`/`or` groups
/// (so [`Filter::text`], which parenthesises every group, parses again).
pub const MAX_DEPTH: usize = 100;

/// The operators as listed in error messages.
const OPERATORS: &str = "=, !=, <, >, <=, >=";

/// A parsed filter.
#[derive(Debug, Clone, PartialEq)]
pub struct Filter {
    root: Node,
}

/// Why a filter text was rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilterError {
    /// 1-based character (not byte) column in the filter text.
    pub column: usize,
    pub message: String,
}

impl fmt::Display for FilterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "column {}: {}", self.column, self.message)
    }
}

impl std::error::Error for FilterError {}

/// Parses `text`; see the module docs for the grammar.
pub fn parse(text: &str) -> Result<Filter, FilterError> {
    let tokens = tokenize(text)?;
    if tokens.len() == 1 {
        return Err(error(1, "the filter is empty".into()));
    }
    let mut parser = Parser {
        tokens,
        pos: 0,
        parens: 0,
    };
    let root = parser.disjunction()?;
    parser.end()?;
    Ok(Filter { root })
}

impl Filter {
    /// Whether an execution with these properties passes the filter.
    pub fn matches(&self, properties: &BTreeMap<String, String>) -> bool {
        self.root.matches(properties)
    }

    /// The filter as the JSON the page's JavaScript evaluates
    /// (`PerfatlasFieldFilter.matches`): `{"property", "op", "value"}` for a
    /// predicate (`op` one of `= != < > <= >=`), `{"and": [...]}` and
    /// `{"or": [...]}` for groups. The JavaScript parser builds the same.
    pub fn to_js(&self) -> Value {
        self.root.to_js()
    }

    /// The filter normalised: every `and`/`or` group in parentheses,
    /// keywords in lower case, ASCII operators, single spaces, values quoted
    /// only when they must be. Parses back to an equal filter.
    pub fn text(&self) -> String {
        let mut out = String::new();
        self.root.write(&mut out);
        out
    }
}

impl fmt::Display for Filter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text())
    }
}

fn error(column: usize, message: String) -> FilterError {
    FilterError { column, message }
}

// ---------------------------------------------------------------- syntax tree

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Eq,
    Ne,
    Lt,
    Gt,
    Le,
    Ge,
}

impl Op {
    fn ascii(self) -> &'static str {
        match self {
            Op::Eq => "=",
            Op::Ne => "!=",
            Op::Lt => "<",
            Op::Gt => ">",
            Op::Le => "<=",
            Op::Ge => ">=",
        }
    }

    /// Whether `actual` compared with the filter's value as `ordering`
    /// satisfies the operator.
    fn accepts(self, ordering: Ordering) -> bool {
        match self {
            Op::Eq => ordering == Ordering::Equal,
            Op::Ne => ordering != Ordering::Equal,
            Op::Lt => ordering == Ordering::Less,
            Op::Gt => ordering == Ordering::Greater,
            Op::Le => ordering != Ordering::Greater,
            Op::Ge => ordering != Ordering::Less,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bool {
    And,
    Or,
}

impl Bool {
    fn keyword(self) -> &'static str {
        match self {
            Bool::And => "and",
            Bool::Or => "or",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Node {
    Predicate {
        property: String,
        op: Op,
        value: String,
    },
    /// Two or more operands, as written (parentheses make a new group).
    Group(Bool, Vec<Node>),
}

impl Node {
    fn matches(&self, properties: &BTreeMap<String, String>) -> bool {
        match self {
            Node::Predicate {
                property,
                op,
                value,
            } => properties
                .get(property)
                .is_some_and(|actual| op.accepts(compare(actual, value))),
            Node::Group(Bool::And, operands) => operands.iter().all(|n| n.matches(properties)),
            Node::Group(Bool::Or, operands) => operands.iter().any(|n| n.matches(properties)),
        }
    }

    /// Groups nested along the deepest path; 0 for a predicate.
    fn height(&self) -> usize {
        match self {
            Node::Predicate { .. } => 0,
            Node::Group(_, operands) => 1 + operands.iter().map(Node::height).max().unwrap_or(0),
        }
    }

    fn to_js(&self) -> Value {
        match self {
            Node::Predicate {
                property,
                op,
                value,
            } => json!({ "property": property, "op": op.ascii(), "value": value }),
            Node::Group(kind, operands) => {
                let operands: Vec<Value> = operands.iter().map(Node::to_js).collect();
                json!({ kind.keyword(): operands })
            }
        }
    }

    fn write(&self, out: &mut String) {
        match self {
            Node::Predicate {
                property,
                op,
                value,
            } => {
                out.push_str(property);
                out.push(' ');
                out.push_str(op.ascii());
                out.push(' ');
                write_value(value, out);
            }
            Node::Group(kind, operands) => {
                out.push('(');
                for (i, operand) in operands.iter().enumerate() {
                    if i > 0 {
                        out.push(' ');
                        out.push_str(kind.keyword());
                        out.push(' ');
                    }
                    operand.write(out);
                }
                out.push(')');
            }
        }
    }
}

/// A value bare when it reads back as the same word, else double-quoted.
fn write_value(value: &str, out: &mut String) {
    if !value.is_empty() && value.chars().all(is_word_char) && keyword(value).is_none() {
        out.push_str(value);
        return;
    }
    out.push('"');
    for c in value.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
}

/// How a property's value compares with a filter's value: as numbers when
/// both are decimal numbers, else as strings in byte order.
fn compare(actual: &str, wanted: &str) -> Ordering {
    match (number(actual), number(wanted)) {
        // Never NaN: `number` reads no "nan".
        (Some(a), Some(b)) => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
        _ => actual.cmp(wanted),
    }
}

/// The value of a decimal number `[+-](digits[.digits]|.digits)[(e|E)[+-]digits]`
/// (no "inf", "nan", hex or spaces, so JavaScript reads exactly the same).
fn number(text: &str) -> Option<f64> {
    if is_decimal(text.as_bytes()) {
        text.parse().ok()
    } else {
        None
    }
}

fn is_decimal(bytes: &[u8]) -> bool {
    let mut i = usize::from(matches!(bytes.first(), Some(b'+' | b'-')));
    let whole = digits(&bytes[i..]);
    i += whole;
    let mut fraction = 0;
    if bytes.get(i) == Some(&b'.') {
        fraction = digits(&bytes[i + 1..]);
        i += 1 + fraction;
    }
    if whole + fraction == 0 {
        return false;
    }
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        i += 1;
        i += usize::from(matches!(bytes.get(i), Some(b'+' | b'-')));
        let exponent = digits(bytes.get(i..).unwrap_or_default());
        if exponent == 0 {
            return false;
        }
        i += exponent;
    }
    i == bytes.len()
}

fn digits(bytes: &[u8]) -> usize {
    bytes.iter().take_while(|b| b.is_ascii_digit()).count()
}

// ---------------------------------------------------------------- tokens

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Word,
    Keyword(Bool),
    Str,
    Op(Op),
    Open,
    Close,
    End,
}

/// A token with its 1-based character column; `text` is the source as
/// written, except for a string: its value, quotes and escapes removed.
#[derive(Debug, Clone)]
struct Token {
    kind: Kind,
    column: usize,
    text: String,
}

/// The filter's tokens, always ending with one `End` token.
fn tokenize(text: &str) -> Result<Vec<Token>, FilterError> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        if is_space(c) {
            i += 1;
            continue;
        }
        let (token, len) = read_token(&chars, i)?;
        tokens.push(token);
        i += len;
    }
    tokens.push(Token {
        kind: Kind::End,
        column: chars.len() + 1,
        text: String::new(),
    });
    Ok(tokens)
}

fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\u{b}' | '\u{c}')
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | ':' | '/')
}

/// `and` or `or` in any letter case.
fn keyword(word: &str) -> Option<Bool> {
    if word.eq_ignore_ascii_case("and") {
        Some(Bool::And)
    } else if word.eq_ignore_ascii_case("or") {
        Some(Bool::Or)
    } else {
        None
    }
}

/// The token starting at `chars[start]` (not a space) and how many
/// characters it spans.
fn read_token(chars: &[char], start: usize) -> Result<(Token, usize), FilterError> {
    let column = start + 1;
    let first = chars[start];
    let token = |kind, len: usize| {
        let text = chars[start..start + len].iter().collect();
        Ok((token_at(kind, column, text), len))
    };
    match first {
        '(' => token(Kind::Open, 1),
        ')' => token(Kind::Close, 1),
        '"' | '\'' => read_string(chars, start),
        c if is_word_char(c) => {
            let len = chars[start..]
                .iter()
                .take_while(|&&c| is_word_char(c))
                .count();
            let word: String = chars[start..start + len].iter().collect();
            let kind = keyword(&word).map_or(Kind::Word, Kind::Keyword);
            Ok((token_at(kind, column, word), len))
        }
        _ => {
            let (op, len) = read_operator(chars, start)?;
            token(Kind::Op(op), len)
        }
    }
}

fn token_at(kind: Kind, column: usize, text: String) -> Token {
    Token { kind, column, text }
}

/// The operator starting at `chars[start]` and its length in characters.
fn read_operator(chars: &[char], start: usize) -> Result<(Op, usize), FilterError> {
    let equals_next = chars.get(start + 1) == Some(&'=');
    let first = chars[start];
    Ok(match first {
        '=' => (Op::Eq, 1),
        '≠' => (Op::Ne, 1),
        '≤' => (Op::Le, 1),
        '≥' => (Op::Ge, 1),
        '!' if equals_next => (Op::Ne, 2),
        '<' if equals_next => (Op::Le, 2),
        '>' if equals_next => (Op::Ge, 2),
        '<' => (Op::Lt, 1),
        '>' => (Op::Gt, 1),
        '!' => return Err(error(start + 1, "\"!\" must be followed by \"=\"".into())),
        c => {
            return Err(error(
                start + 1,
                format!("unexpected character \"{c}\" (U+{:04X})", u32::from(c)),
            ))
        }
    })
}

/// The quoted string starting at `chars[start]` (its quote), decoded, and
/// its length in characters with both quotes.
fn read_string(chars: &[char], start: usize) -> Result<(Token, usize), FilterError> {
    let quote = chars[start];
    let unterminated = || {
        error(
            start + 1,
            format!("unterminated string (no closing {quote})"),
        )
    };
    let mut value = String::new();
    let mut i = start + 1;
    loop {
        match chars.get(i) {
            None => return Err(unterminated()),
            Some(&c) if c == quote => break,
            Some('\\') => match chars.get(i + 1) {
                Some(&escaped @ ('"' | '\'' | '\\')) => {
                    value.push(escaped);
                    i += 2;
                }
                Some(&other) => {
                    return Err(error(
                        i + 1,
                        format!(
                            "unknown escape \"\\{other}\" in a string (only \\\", \\' and \\\\)"
                        ),
                    ))
                }
                None => return Err(unterminated()),
            },
            Some(&c) => {
                value.push(c);
                i += 1;
            }
        }
    }
    Ok((token_at(Kind::Str, start + 1, value), i + 1 - start))
}

// ---------------------------------------------------------------- parser

/// A recursive-descent parser; recursion is bounded by `MAX_DEPTH`
/// parentheses.
struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    parens: usize,
}

impl Parser {
    fn peek(&self) -> &Token {
        &self.tokens[self.pos]
    }

    /// The next token; stays on `End` once there.
    fn next(&mut self) -> Token {
        let token = self.peek().clone();
        if token.kind != Kind::End {
            self.pos += 1;
        }
        token
    }

    fn disjunction(&mut self) -> Result<Node, FilterError> {
        self.chain(Bool::Or)
    }

    fn conjunction(&mut self) -> Result<Node, FilterError> {
        self.chain(Bool::And)
    }

    /// Operands joined by the keyword `kind`: conjunctions for `or`,
    /// primaries for `and`. One operand is returned as it is.
    fn chain(&mut self, kind: Bool) -> Result<Node, FilterError> {
        let operand = match kind {
            Bool::Or => Self::conjunction,
            Bool::And => Self::primary,
        };
        let first = operand(self)?;
        if self.peek().kind != Kind::Keyword(kind) {
            return Ok(first);
        }
        let keyword_column = self.peek().column;
        let mut operands = vec![first];
        while self.peek().kind == Kind::Keyword(kind) {
            self.next();
            operands.push(operand(self)?);
        }
        let group = Node::Group(kind, operands);
        if group.height() > MAX_DEPTH {
            return Err(error(
                keyword_column,
                format!("\"and\"/\"or\" groups nest deeper than {MAX_DEPTH} levels"),
            ));
        }
        Ok(group)
    }

    fn primary(&mut self) -> Result<Node, FilterError> {
        let token = self.next();
        match token.kind {
            Kind::Open => self.parenthesised(&token),
            Kind::Word => self.predicate(token),
            Kind::Keyword(_) => Err(error(
                token.column,
                format!(
                    "expected a property name but found the keyword \"{}\"",
                    token.text
                ),
            )),
            _ => Err(error(
                token.column,
                format!(
                    "expected a property name or \"(\" but found {}",
                    found(&token)
                ),
            )),
        }
    }

    /// `open` has been read: the group inside and its `)`.
    fn parenthesised(&mut self, open: &Token) -> Result<Node, FilterError> {
        if self.parens >= MAX_DEPTH {
            return Err(error(
                open.column,
                format!("parentheses nest deeper than {MAX_DEPTH} levels"),
            ));
        }
        self.parens += 1;
        let inner = self.disjunction();
        self.parens -= 1;
        let inner = inner?;
        self.close(open)?;
        Ok(inner)
    }

    /// Reads the `)` closing `open`.
    fn close(&mut self, open: &Token) -> Result<(), FilterError> {
        let token = self.next();
        match token.kind {
            Kind::Close => Ok(()),
            Kind::End => Err(error(open.column, "\"(\" is never closed".into())),
            _ => Err(self.unexpected_after_operand(&token, "\")\"")),
        }
    }

    /// `property` has been read: its operator and value.
    fn predicate(&mut self, property: Token) -> Result<Node, FilterError> {
        let op_token = self.next();
        let Kind::Op(op) = op_token.kind else {
            return Err(error(
                op_token.column,
                format!(
                    "expected an operator ({OPERATORS}) after \"{}\"",
                    property.text
                ),
            ));
        };
        let value = self.next();
        match value.kind {
            Kind::Word | Kind::Str => Ok(Node::Predicate {
                property: property.text,
                op,
                value: value.text,
            }),
            Kind::Keyword(_) => Err(error(
                value.column,
                format!(
                    "expected a value after \"{}\" but found the keyword \"{}\" \
                     (quote it to compare with the word)",
                    op_token.text, value.text
                ),
            )),
            _ => Err(error(
                value.column,
                format!(
                    "expected a value after \"{}\" but found {}",
                    op_token.text,
                    found(&value)
                ),
            )),
        }
    }

    /// Checks that the whole filter has been read.
    fn end(&mut self) -> Result<(), FilterError> {
        let token = self.next();
        match token.kind {
            Kind::End => Ok(()),
            Kind::Close => Err(error(token.column, "\")\" has no matching \"(\"".into())),
            _ => Err(self.unexpected_after_operand(&token, "the end of the filter")),
        }
    }

    /// `token` follows a complete operand where `and`, `or` or `closer` was
    /// expected. A word right after a value suggests a value with spaces.
    fn unexpected_after_operand(&self, token: &Token, closer: &str) -> FilterError {
        let previous = self.pos.checked_sub(2).map(|i| self.tokens[i].kind);
        let hint = if token.kind == Kind::Word && matches!(previous, Some(Kind::Word | Kind::Str)) {
            " (quote a value that has spaces)"
        } else {
            ""
        };
        error(
            token.column,
            format!(
                "expected \"and\", \"or\" or {closer} but found {}{hint}",
                found(token)
            ),
        )
    }
}

/// A token as error messages name it.
fn found(token: &Token) -> String {
    match token.kind {
        Kind::End => "the end of the filter".into(),
        Kind::Str => "a quoted string".into(),
        Kind::Keyword(_) => format!("the keyword \"{}\"", token.text),
        _ => format!("\"{}\"", token.text),
    }
}

// ---------------------------------------------------------------- summarizers

/// One equivalence class of a summarizer: the executions whose summarizer
/// properties have the same values.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Group {
    /// The value of each summarizer property, in the summarizer's order;
    /// None when the members lack it.
    pub key: Vec<Option<String>>,
    /// Indices into the executions, ascending.
    pub members: Vec<usize>,
    /// The properties every member has with the same value (the key's
    /// present values among them).
    pub common: BTreeMap<String, String>,
}

/// Groups executions by the values of `keys` (a summarizer such as
/// `java.version, user.id`), groups sorted by key (a missing value before
/// any present one). No keys: one group of all executions; no executions:
/// no groups.
pub fn group_by(executions: &[&BTreeMap<String, String>], keys: &[String]) -> Vec<Group> {
    let mut classes: BTreeMap<Vec<Option<String>>, Vec<usize>> = BTreeMap::new();
    for (index, properties) in executions.iter().enumerate() {
        let key = keys.iter().map(|k| properties.get(k).cloned()).collect();
        classes.entry(key).or_default().push(index);
    }
    classes
        .into_iter()
        .map(|(key, members)| {
            let common = common_properties(members.iter().map(|&i| executions[i]));
            Group {
                key,
                members,
                common,
            }
        })
        .collect()
}

/// The properties all the executions have with the same value: all of
/// them for one execution, none for no executions. What a band standing
/// for several executions shows (the paper's Figure 7(b)).
pub fn common_properties<'a, I>(executions: I) -> BTreeMap<String, String>
where
    I: IntoIterator<Item = &'a BTreeMap<String, String>>,
{
    let mut executions = executions.into_iter();
    let Some(first) = executions.next() else {
        return BTreeMap::new();
    };
    let mut common = first.clone();
    for properties in executions {
        common.retain(|name, value| properties.get(name) == Some(value));
        if common.is_empty() {
            break;
        }
    }
    common
}

// ---------------------------------------------------------------- named views

/// Checks a named view (`[[field.views]]`) and parses its filter; the
/// error names the view, e.g. `view "linux": filter "os.name Linux": column
/// 9: expected an operator (=, !=, <, >, <=, >=) after "os.name"`.
pub fn check_view(view: &ViewConfig) -> Result<Option<Filter>, String> {
    if view.name.trim().is_empty() {
        return Err("a view has an empty name".into());
    }
    if view.group_by.iter().any(|key| key.trim().is_empty()) {
        return Err(format!(
            "view {:?}: group_by has an empty property name",
            view.name
        ));
    }
    view.filter
        .as_deref()
        .map(|text| parse(text).map_err(|e| format!("view {:?}: filter {text:?}: {e}", view.name)))
        .transpose()
}

#[cfg(test)]
mod tests;
