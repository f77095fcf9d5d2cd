//! Derived-metric formulas: parsing a formula a user wrote in
//! `perfatlas.toml` (e.g. `bytes_per_object = "alloc_space / alloc_objects"`),
//! binding its metric names to a profile's metrics, and evaluating it.
//!
//! This module owns the formula grammar, its error messages (with the
//! 1-based character column they point at), whether a formula may be drawn
//! as a flame graph ([`Formula::is_additive`]), and evaluation. It reads no
//! configuration and renders nothing; it never panics on any input.
//!
//! Grammar, usual precedence, binary operators left-associative, whitespace
//! anywhere:
//!
//! ```text
//! expression = term (("+" | "-") term)*
//! term       = unary (("*" | "/") unary)*
//! unary      = "-" unary | primary
//! primary    = number | name | "(" expression ")"
//! number     = digits ["." digits] [("e" | "E") ["+" | "-"] digits]
//! name       = [A-Za-z_][A-Za-z0-9_.]*
//! ```

use std::fmt;

/// Longest formula accepted, in characters.
const MAX_CHARS: usize = 1000;
/// Deepest nesting of parentheses and unary minus accepted.
const MAX_DEPTH: usize = 64;

/// A parsed formula.
#[derive(Debug, Clone, PartialEq)]
pub struct Formula {
    root: Node<Name>,
}

/// Why a formula text was rejected, or a name in it could not be bound.
#[derive(Debug, Clone, PartialEq)]
pub struct FormulaError {
    /// 1-based character (not byte) column in the formula text.
    pub column: usize,
    pub message: String,
}

impl fmt::Display for FormulaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "column {}: {}", self.column, self.message)
    }
}

impl std::error::Error for FormulaError {}

/// A formula whose metric names are resolved to metric indices.
#[derive(Debug, Clone, PartialEq)]
pub struct Bound {
    root: Node<usize>,
}

/// Why evaluating a bound formula on some values failed.
#[derive(Debug, Clone, PartialEq)]
pub enum EvalError {
    /// The right side of a `/` evaluated to 0; `denominator` is that
    /// sub-expression's text as the user wrote it (trimmed), e.g.
    /// "alloc_objects".
    DivisionByZero { denominator: String },
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EvalError::DivisionByZero { denominator } => {
                write!(f, "division by zero: {denominator} is 0")
            }
        }
    }
}

impl std::error::Error for EvalError {}

/// Parses `text`; see the module docs for the grammar. Rejects a division
/// by a constant expression that is 0 (`x / 0`, `x / (2-2)`).
pub fn parse(text: &str) -> Result<Formula, FormulaError> {
    if text.chars().count() > MAX_CHARS {
        return Err(error(
            MAX_CHARS + 1,
            format!("the formula is longer than {MAX_CHARS} characters"),
        ));
    }
    let tokens = tokenize(text)?;
    if tokens.len() == 1 {
        return Err(error(1, "the formula is empty".into()));
    }
    let mut parser = Parser {
        text,
        tokens,
        pos: 0,
        depth: 0,
    };
    let root = parser.expression()?;
    parser.end()?;
    Ok(Formula { root })
}

impl Formula {
    /// Metric names used, in first-use order, each once.
    pub fn metric_names(&self) -> Vec<&str> {
        let mut leaves = Vec::new();
        self.root.leaves(&mut leaves);
        let mut names: Vec<&str> = Vec::new();
        for leaf in leaves {
            if !names.contains(&leaf.text.as_str()) {
                names.push(&leaf.text);
            }
        }
        names
    }

    /// True when the formula is linear in the metrics: a sum of terms each
    /// a metric times (or divided by) a constant, built from `+`, `-`
    /// (binary and unary), and `*` or `/` where at least one side (for `/`:
    /// the right side) contains no metric. A constant term (`a + 1`, or a
    /// formula without metrics) makes it not additive, since summing it over
    /// the call tree's nodes would count it once per node. Additive formulas
    /// can be drawn as flame graphs; others (ratios of metrics) are shown
    /// only as table columns.
    pub fn is_additive(&self) -> bool {
        self.root.is_linear()
    }

    /// Resolves names against the profile's metric names (the first match
    /// wins when a name repeats). An unknown name is an error naming it and
    /// listing the known names; its column points at the name.
    pub fn bind(&self, metric_names: &[&str]) -> Result<Bound, FormulaError> {
        let root = self.root.try_map(&mut |name: &Name| {
            metric_names
                .iter()
                .position(|known| *known == name.text)
                .ok_or_else(|| unknown_metric(name, metric_names))
        })?;
        Ok(Bound { root })
    }
}

impl Bound {
    /// Evaluates with `values[i]` the value of metric i (as given to
    /// [`Formula::bind`]); a missing value counts as NaN. NaN and infinite
    /// values propagate; only a denominator equal to 0 is an error.
    pub fn eval(&self, values: &[f64]) -> Result<f64, EvalError> {
        self.root
            .eval(&|&i: &usize| values.get(i).copied().unwrap_or(f64::NAN))
    }
}

fn error(column: usize, message: String) -> FormulaError {
    FormulaError { column, message }
}

fn unknown_metric(name: &Name, known: &[&str]) -> FormulaError {
    let listing = if known.is_empty() {
        "this profile has no metrics".to_string()
    } else {
        format!("this profile has: {}", known.join(", "))
    };
    error(
        name.column,
        format!("unknown metric \"{}\" ({listing})", name.text),
    )
}

// ---------------------------------------------------------------- syntax tree

/// A metric name as written, with its column for error messages.
#[derive(Debug, Clone, PartialEq)]
struct Name {
    text: String,
    column: usize,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Op {
    Add,
    Sub,
    Mul,
}

/// An expression whose metrics are `L`: names when parsed, indices when
/// bound.
#[derive(Debug, Clone, PartialEq)]
enum Node<L> {
    Number(f64),
    Metric(L),
    Neg(Box<Node<L>>),
    Binary(Op, Box<Node<L>>, Box<Node<L>>),
    /// Kept apart from `Binary` to remember the denominator's source text.
    Div {
        numerator: Box<Node<L>>,
        denominator: Box<Node<L>>,
        text: String,
    },
}

impl<L> Node<L> {
    /// Appends the metrics in source (left-to-right) order.
    fn leaves<'a>(&'a self, out: &mut Vec<&'a L>) {
        match self {
            Node::Number(_) => {}
            Node::Metric(leaf) => out.push(leaf),
            Node::Neg(inner) => inner.leaves(out),
            Node::Binary(_, left, right) => {
                left.leaves(out);
                right.leaves(out);
            }
            Node::Div {
                numerator,
                denominator,
                ..
            } => {
                numerator.leaves(out);
                denominator.leaves(out);
            }
        }
    }

    fn is_constant(&self) -> bool {
        let mut leaves = Vec::new();
        self.leaves(&mut leaves);
        leaves.is_empty()
    }

    /// A sum of metric-times-constant terms, without a constant term.
    fn is_linear(&self) -> bool {
        match self {
            Node::Number(_) => false,
            Node::Metric(_) => true,
            Node::Neg(inner) => inner.is_linear(),
            Node::Binary(Op::Add | Op::Sub, left, right) => left.is_linear() && right.is_linear(),
            Node::Binary(Op::Mul, left, right) => {
                (left.is_constant() && right.is_linear())
                    || (right.is_constant() && left.is_linear())
            }
            Node::Div {
                numerator,
                denominator,
                ..
            } => denominator.is_constant() && numerator.is_linear(),
        }
    }

    /// The same tree with each metric replaced by `f` of it; the first error
    /// in source order stops the mapping.
    fn try_map<M, E>(&self, f: &mut impl FnMut(&L) -> Result<M, E>) -> Result<Node<M>, E> {
        Ok(match self {
            Node::Number(value) => Node::Number(*value),
            Node::Metric(leaf) => Node::Metric(f(leaf)?),
            Node::Neg(inner) => Node::Neg(Box::new(inner.try_map(f)?)),
            Node::Binary(op, left, right) => {
                Node::Binary(*op, Box::new(left.try_map(f)?), Box::new(right.try_map(f)?))
            }
            Node::Div {
                numerator,
                denominator,
                text,
            } => Node::Div {
                numerator: Box::new(numerator.try_map(f)?),
                denominator: Box::new(denominator.try_map(f)?),
                text: text.clone(),
            },
        })
    }

    fn eval(&self, value: &impl Fn(&L) -> f64) -> Result<f64, EvalError> {
        Ok(match self {
            Node::Number(number) => *number,
            Node::Metric(leaf) => value(leaf),
            Node::Neg(inner) => -inner.eval(value)?,
            Node::Binary(op, left, right) => {
                let (l, r) = (left.eval(value)?, right.eval(value)?);
                match op {
                    Op::Add => l + r,
                    Op::Sub => l - r,
                    Op::Mul => l * r,
                }
            }
            Node::Div {
                numerator,
                denominator,
                text,
            } => {
                let n = numerator.eval(value)?;
                let d = denominator.eval(value)?;
                if d == 0.0 {
                    return Err(EvalError::DivisionByZero {
                        denominator: text.clone(),
                    });
                }
                n / d
            }
        })
    }
}

// ---------------------------------------------------------------- tokens

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Number(f64),
    Name,
    Plus,
    Minus,
    Star,
    Slash,
    Open,
    Close,
    End,
}

/// A token with its 1-based character column and its byte range in the text.
#[derive(Debug, Clone, Copy)]
struct Token {
    kind: Kind,
    column: usize,
    start: usize,
    end: usize,
}

/// The formula's tokens, always ending with one `End` token.
fn tokenize(text: &str) -> Result<Vec<Token>, FormulaError> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while let Some(&(start, c)) = chars.get(i) {
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let len = token_len(c, &chars[i..])
            .ok_or_else(|| error(i + 1, format!("unexpected character '{c}'")))?;
        let end = chars.get(i + len).map_or(text.len(), |&(byte, _)| byte);
        let word = &text[start..end];
        let kind = token_kind(c, word)
            .ok_or_else(|| error(i + 1, format!("malformed number '{word}'")))?;
        tokens.push(Token {
            kind,
            column: i + 1,
            start,
            end,
        });
        i += len;
    }
    tokens.push(Token {
        kind: Kind::End,
        column: chars.len() + 1,
        start: text.len(),
        end: text.len(),
    });
    Ok(tokens)
}

/// How many characters the token starting with `first` spans, or None when
/// no token starts with it.
fn token_len(first: char, chars: &[(usize, char)]) -> Option<usize> {
    match first {
        '0'..='9' | '.' => Some(number_len(chars)),
        '+' | '-' | '*' | '/' | '(' | ')' => Some(1),
        c if is_name_start(c) => Some(run_len(chars, is_name_char)),
        _ => None,
    }
}

/// A number's digits and dots, an exponent, and any letters glued to it
/// (so `2x` or `1.2.3` is reported as one malformed number).
fn number_len(chars: &[(usize, char)]) -> usize {
    let mut n = run_len(chars, |c| c.is_ascii_digit() || c == '.');
    if matches!(chars.get(n), Some((_, 'e' | 'E'))) {
        n += 1;
        if matches!(chars.get(n), Some((_, '+' | '-'))) {
            n += 1;
        }
    }
    n + run_len(&chars[n..], is_name_char)
}

fn run_len(chars: &[(usize, char)], accept: impl Fn(char) -> bool) -> usize {
    chars.iter().take_while(|&&(_, c)| accept(c)).count()
}

fn is_name_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.'
}

/// The kind of the token `word` starting with `first`; None for a malformed
/// number.
fn token_kind(first: char, word: &str) -> Option<Kind> {
    Some(match first {
        '+' => Kind::Plus,
        '-' => Kind::Minus,
        '*' => Kind::Star,
        '/' => Kind::Slash,
        '(' => Kind::Open,
        ')' => Kind::Close,
        c if is_name_start(c) => Kind::Name,
        _ => Kind::Number(word.parse().ok()?),
    })
}

// ---------------------------------------------------------------- parser

/// A recursive-descent parser; recursion is bounded by `MAX_DEPTH`.
struct Parser<'a> {
    text: &'a str,
    tokens: Vec<Token>,
    pos: usize,
    depth: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Token {
        self.tokens[self.pos]
    }

    /// The next token; stays on `End` once there.
    fn next(&mut self) -> Token {
        let token = self.peek();
        if token.kind != Kind::End {
            self.pos += 1;
        }
        token
    }

    fn source(&self, token: Token) -> &str {
        &self.text[token.start..token.end]
    }

    fn found(&self, token: Token) -> String {
        match token.kind {
            Kind::End => "the end of the formula".into(),
            _ => format!("'{}'", self.source(token)),
        }
    }

    fn expression(&mut self) -> Result<Node<Name>, FormulaError> {
        let mut left = self.term()?;
        loop {
            let op = match self.peek().kind {
                Kind::Plus => Op::Add,
                Kind::Minus => Op::Sub,
                _ => return Ok(left),
            };
            self.next();
            left = Node::Binary(op, Box::new(left), Box::new(self.term()?));
        }
    }

    fn term(&mut self) -> Result<Node<Name>, FormulaError> {
        let mut left = self.unary()?;
        loop {
            left = match self.peek().kind {
                Kind::Star => {
                    self.next();
                    Node::Binary(Op::Mul, Box::new(left), Box::new(self.unary()?))
                }
                Kind::Slash => {
                    self.next();
                    self.division(left)?
                }
                _ => return Ok(left),
            };
        }
    }

    /// `numerator /` has been read: reads the denominator, keeps its text,
    /// and rejects a constant denominator that is 0.
    fn division(&mut self, numerator: Node<Name>) -> Result<Node<Name>, FormulaError> {
        let first = self.peek();
        let denominator = self.unary()?;
        let text = &self.text[first.start..self.tokens[self.pos - 1].end];
        if denominator.is_constant() && is_zero(&denominator) {
            return Err(error(
                first.column,
                format!("division by zero: the denominator `{text}` is always 0"),
            ));
        }
        Ok(Node::Div {
            numerator: Box::new(numerator),
            denominator: Box::new(denominator),
            text: text.to_string(),
        })
    }

    fn unary(&mut self) -> Result<Node<Name>, FormulaError> {
        if self.peek().kind != Kind::Minus {
            return self.primary();
        }
        let minus = self.next();
        let inner = self.nested(minus, Self::unary)?;
        Ok(Node::Neg(Box::new(inner)))
    }

    fn primary(&mut self) -> Result<Node<Name>, FormulaError> {
        let token = self.next();
        match token.kind {
            Kind::Number(value) => Ok(Node::Number(value)),
            Kind::Name => Ok(Node::Metric(Name {
                text: self.source(token).to_string(),
                column: token.column,
            })),
            Kind::Open => {
                let inner = self.nested(token, Self::expression)?;
                self.close(token)?;
                Ok(inner)
            }
            _ => Err(error(
                token.column,
                format!(
                    "expected a metric name, a number or '(' but found {}",
                    self.found(token)
                ),
            )),
        }
    }

    /// Runs `parse` one nesting level deeper than `opener` (a `(` or unary
    /// `-`), refusing to go past `MAX_DEPTH`.
    fn nested(
        &mut self,
        opener: Token,
        parse: fn(&mut Self) -> Result<Node<Name>, FormulaError>,
    ) -> Result<Node<Name>, FormulaError> {
        if self.depth >= MAX_DEPTH {
            return Err(error(
                opener.column,
                format!("parentheses and unary minus nest deeper than {MAX_DEPTH} levels"),
            ));
        }
        self.depth += 1;
        let result = parse(self);
        self.depth -= 1;
        result
    }

    /// Reads the `)` closing `open`.
    fn close(&mut self, open: Token) -> Result<(), FormulaError> {
        let token = self.next();
        match token.kind {
            Kind::Close => Ok(()),
            Kind::End => Err(error(open.column, "'(' is never closed".into())),
            _ => Err(error(
                token.column,
                format!(
                    "expected an operator or ')' but found {}",
                    self.found(token)
                ),
            )),
        }
    }

    /// Checks that the whole formula has been read.
    fn end(&mut self) -> Result<(), FormulaError> {
        let token = self.next();
        match token.kind {
            Kind::End => Ok(()),
            Kind::Close => Err(error(token.column, "')' has no matching '('".into())),
            _ => Err(error(
                token.column,
                format!(
                    "expected an operator or the end of the formula but found {}",
                    self.found(token)
                ),
            )),
        }
    }
}

/// Whether a constant expression evaluates to 0 (either sign).
fn is_zero(constant: &Node<Name>) -> bool {
    constant.eval(&|_: &Name| f64::NAN) == Ok(0.0)
}

#[cfg(test)]
mod tests;
