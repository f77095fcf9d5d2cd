//! The callgrind format's lines, read into per-function and per-call
//! costs ([`Costs`]); [`super`] turns those into a profile.
//!
//! The reader keeps the state the format's compression relies on: the
//! names defined by `(id) name` (one table for objects, one for files, one
//! for functions), the current object, file and function, the previous
//! value of each subposition (for `+N`, `-N`, `*`), and the call whose
//! inclusive cost the next cost line is.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use model::error::ParseError;

/// One function: `(file, name)` as callgrind_annotate keys it, its
/// object, its own cost per event and per line of its file.
#[derive(Debug, Clone, PartialEq)]
pub struct Function {
    pub name: String,
    pub file: Option<String>,
    pub object: Option<String>,
    /// Cost per event of the cost lines written under it (not calls).
    pub own: Vec<i128>,
    /// The same per line of `file` (lines of other files, inlined code,
    /// are in `own` only).
    pub lines: BTreeMap<u32, Vec<i128>>,
}

/// All calls from one function into another: how many, and their
/// inclusive cost per event.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub caller: usize,
    pub callee: usize,
    pub count: u64,
    pub cost: Vec<i128>,
}

/// A callgrind file as read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Costs {
    pub events: Vec<String>,
    pub functions: Vec<Function>,
    pub calls: Vec<Call>,
    /// `summary:`, with its line.
    pub summary: Option<(usize, Vec<i128>)>,
    /// `totals:`, which callgrind writes last, with its line.
    pub totals: Option<(usize, Vec<i128>)>,
    /// Lines skipped, with their place.
    pub warnings: Vec<ParseError>,
}

/// Name tables of the three kinds of compressed names.
#[derive(Clone, Copy)]
enum Kind {
    Object = 0,
    File = 1,
    Function = 2,
}

/// A call being read: `calls=` was seen, its cost line comes next.
struct PendingCall {
    line: usize,
    callee: usize,
    count: u64,
}

/// The reader's state between lines.
#[derive(Default)]
pub struct Reader {
    costs: Costs,
    names: [FxHashMap<u64, String>; 3],
    index: FxHashMap<(Option<String>, String), usize>,
    /// Subpositions per cost line (`positions:`), and which is the line.
    positions: usize,
    line_position: Option<usize>,
    previous: Vec<i128>,
    events_line: Option<usize>,
    object: Option<String>,
    /// The file of `fl=`, `fi=` or `fe=`, whichever came last.
    file: Option<String>,
    function: Option<usize>,
    call_object: Option<String>,
    call_file: Option<Option<String>>,
    callee: Option<usize>,
    pending: Option<PendingCall>,
    /// The next cost-shaped line is a jump's source position.
    jump_position: bool,
    calls_at: FxHashMap<(usize, usize), usize>,
}

impl Reader {
    pub fn new() -> Reader {
        Reader {
            positions: 1,
            line_position: Some(0),
            previous: vec![0],
            ..Reader::default()
        }
    }

    /// Reads line `n` (1-based).
    pub fn line(&mut self, n: usize, line: &str) -> Result<(), ParseError> {
        let line = line.trim_end_matches(['\r', ' ', '\t']);
        if line.trim_start().is_empty() || line.starts_with('#') {
            return Ok(());
        }
        if line.starts_with(|c: char| c.is_ascii_digit() || matches!(c, '+' | '-' | '*')) {
            return self.cost_line(n, line);
        }
        if let Some(p) = &self.pending {
            return Err(ParseError::line(
                n,
                format!(
                    "expected the cost line of the call on line {}, found `{}`",
                    p.line,
                    shown(line)
                ),
            ));
        }
        if let Some((key, value)) = split_key(line, '=') {
            return self.assignment(n, key, value);
        }
        if let Some((key, value)) = split_key(line, ':') {
            return self.header(n, key, value.trim());
        }
        Err(ParseError::line(
            n,
            format!(
                "expected a cost line, `key=value` or `key: value`, found `{}`",
                shown(line)
            ),
        ))
    }

    /// The costs read, once the file has ended at line `last`.
    pub fn finish(self, last: usize) -> Result<Costs, ParseError> {
        if let Some(p) = &self.pending {
            return Err(ParseError::line(
                last,
                format!(
                    "the file ends before the cost line of the call on line {}: it is truncated",
                    p.line
                ),
            ));
        }
        if self.events_line.is_none() {
            return Err(ParseError::whole(
                "no `events:` line: a callgrind file names its events before its costs",
            ));
        }
        Ok(self.costs)
    }

    fn header(&mut self, n: usize, key: &str, value: &str) -> Result<(), ParseError> {
        match key {
            "events" => self.events(n, value),
            "positions" => self.positions(n, value),
            "summary" => {
                let costs = self.counts(n, value.split_whitespace())?;
                self.costs.summary = Some((n, costs));
                Ok(())
            }
            "totals" => {
                let costs = self.counts(n, value.split_whitespace())?;
                self.costs.totals = Some((n, costs));
                Ok(())
            }
            // version, creator, pid, cmd, part, desc, thread, event, …:
            // nothing the costs depend on.
            _ => Ok(()),
        }
    }

    fn events(&mut self, n: usize, value: &str) -> Result<(), ParseError> {
        let events: Vec<String> = value.split_whitespace().map(str::to_string).collect();
        if events.is_empty() {
            return Err(ParseError::line(n, "`events:` names no event"));
        }
        if let Some(first) = self.events_line {
            if events != self.costs.events {
                return Err(ParseError::line(
                    n,
                    format!("a second `events:` line with other events than line {first}'s"),
                ));
            }
        }
        self.events_line = Some(n);
        self.costs.events = events;
        Ok(())
    }

    fn positions(&mut self, n: usize, value: &str) -> Result<(), ParseError> {
        let names: Vec<&str> = value.split_whitespace().collect();
        let known = names.iter().all(|p| matches!(*p, "line" | "instr"));
        if names.is_empty() || !known || self.events_line.is_some() {
            return Err(ParseError::line(
                n,
                format!(
                    "expected `positions:` of `instr` and `line`, before `events:`; found `{}`",
                    shown(value)
                ),
            ));
        }
        self.positions = names.len();
        self.line_position = names.iter().position(|p| *p == "line");
        self.previous = vec![0; names.len()];
        Ok(())
    }

    fn assignment(&mut self, n: usize, key: &str, value: &str) -> Result<(), ParseError> {
        match key {
            "ob" => self.object = Some(self.name(n, Kind::Object, value)?),
            "fl" | "fi" | "fe" => self.file = file_name(self.name(n, Kind::File, value)?),
            "fn" => self.function = Some(self.define_function(n, value)?),
            "cob" => self.call_object = Some(self.name(n, Kind::Object, value)?),
            "cfi" | "cfl" => self.call_file = Some(file_name(self.name(n, Kind::File, value)?)),
            "cfn" => self.callee = Some(self.call_target(n, value)?),
            "calls" => self.calls(n, value)?,
            "jump" | "jcnd" => self.jump_position = true,
            // Jump targets: only their names matter, for later references.
            "jfi" => drop(self.name(n, Kind::File, value)?),
            "jfn" => drop(self.name(n, Kind::Function, value)?),
            _ => self.costs.warnings.push(ParseError::line(
                n,
                format!("unknown line `{}`, skipped", shown(key)),
            )),
        }
        Ok(())
    }

    /// A name, defined (`(id) name`), referred to (`(id)`) or given plainly.
    fn name(&mut self, n: usize, kind: Kind, value: &str) -> Result<String, ParseError> {
        let value = value.trim();
        let Some(rest) = value.strip_prefix('(') else {
            return Ok(value.to_string());
        };
        let bad = || {
            ParseError::line(
                n,
                format!(
                    "expected a name `(id) name` or `(id)`, found `{}`",
                    shown(value)
                ),
            )
        };
        let (id, name) = rest.split_once(')').ok_or_else(bad)?;
        let id: u64 = id.trim().parse().map_err(|_| bad())?;
        let table = &mut self.names[kind as usize];
        let name = name.trim();
        if !name.is_empty() {
            table.insert(id, name.to_string());
            return Ok(name.to_string());
        }
        table.get(&id).cloned().ok_or_else(|| {
            ParseError::line(n, format!("the name ({id}) is used before it is defined"))
        })
    }

    /// `fn=`: the function the next cost lines belong to.
    fn define_function(&mut self, n: usize, value: &str) -> Result<usize, ParseError> {
        let name = self.name(n, Kind::Function, value)?;
        let i = self.function_index(self.file.clone(), name);
        // Where a function is written, its object is known for sure.
        if self.object.is_some() {
            self.costs.functions[i].object = self.object.clone();
        }
        Ok(i)
    }

    /// `cfn=`: the function the next call goes to, in the file of `cfi=`
    /// (else the current file) and the object of `cob=` (else the
    /// current one); both apply to this call only.
    fn call_target(&mut self, n: usize, value: &str) -> Result<usize, ParseError> {
        let name = self.name(n, Kind::Function, value)?;
        let file = self.call_file.take().unwrap_or_else(|| self.file.clone());
        let object = self.call_object.take().or_else(|| self.object.clone());
        let i = self.function_index(file, name);
        let f = &mut self.costs.functions[i];
        if f.object.is_none() {
            f.object = object;
        }
        Ok(i)
    }

    fn function_index(&mut self, file: Option<String>, name: String) -> usize {
        let events = self.costs.events.len();
        let functions = &mut self.costs.functions;
        *self
            .index
            .entry((file.clone(), name.clone()))
            .or_insert_with(|| {
                functions.push(Function {
                    name,
                    file,
                    object: None,
                    own: vec![0; events],
                    lines: BTreeMap::new(),
                });
                functions.len() - 1
            })
    }

    /// `calls=COUNT TARGET-POSITION`: the next cost line is the calls'
    /// inclusive cost.
    fn calls(&mut self, n: usize, value: &str) -> Result<(), ParseError> {
        let count = value.split_whitespace().next().unwrap_or("");
        let count: u64 = parse_number(count)
            .and_then(|c| u64::try_from(c).ok())
            .ok_or_else(|| {
                ParseError::line(
                    n,
                    format!(
                        "expected `calls=COUNT POSITION`, found `calls={}`",
                        shown(value)
                    ),
                )
            })?;
        let callee = self
            .callee
            .ok_or_else(|| ParseError::line(n, "`calls=` without a `cfn=` before it"))?;
        self.pending = Some(PendingCall {
            line: n,
            callee,
            count,
        });
        Ok(())
    }

    fn cost_line(&mut self, n: usize, line: &str) -> Result<(), ParseError> {
        let mut words = line.split_whitespace();
        let mut at = Vec::with_capacity(self.positions);
        for i in 0..self.positions {
            let word = words.next().unwrap_or("");
            let value = self.subposition(i, word).ok_or_else(|| {
                ParseError::line(
                    n,
                    format!(
                        "expected a position (a number, `+N`, `-N` or `*`), found `{}`",
                        shown(word)
                    ),
                )
            })?;
            at.push(value);
        }
        self.previous = at;
        if std::mem::take(&mut self.jump_position) {
            return Ok(());
        }
        if self.events_line.is_none() {
            return Err(ParseError::line(n, "a cost line before the `events:` line"));
        }
        let costs = self.counts(n, words)?;
        match self.pending.take() {
            Some(call) => self.add_call(call, costs),
            None => self.add_own(n, costs),
        }
    }

    /// Subposition `i` of a cost line, from its word and the previous one.
    fn subposition(&self, i: usize, word: &str) -> Option<i128> {
        let previous = self.previous.get(i).copied().unwrap_or(0);
        if word == "*" {
            return Some(previous);
        }
        if let Some(d) = word.strip_prefix('+') {
            return previous.checked_add(parse_number(d)?);
        }
        if let Some(d) = word.strip_prefix('-') {
            return previous.checked_sub(parse_number(d)?);
        }
        parse_number(word)
    }

    /// Event counts: at most one per event, missing ones 0.
    fn counts<'a>(
        &self,
        n: usize,
        words: impl Iterator<Item = &'a str>,
    ) -> Result<Vec<i128>, ParseError> {
        let mut out = vec![0; self.costs.events.len()];
        for (i, word) in words.enumerate() {
            let slot = out.get_mut(i).ok_or_else(|| {
                ParseError::line(
                    n,
                    format!(
                        "more costs than the {} event(s) of the `events:` line",
                        self.costs.events.len()
                    ),
                )
            })?;
            *slot = signed_number(word).ok_or_else(|| {
                ParseError::line(
                    n,
                    format!("expected a cost (a number), found `{}`", shown(word)),
                )
            })?;
        }
        Ok(out)
    }

    fn add_own(&mut self, n: usize, costs: Vec<i128>) -> Result<(), ParseError> {
        let f = self
            .function
            .ok_or_else(|| ParseError::line(n, "a cost line before any `fn=` line"))?;
        let line = self.current_line();
        let function = &mut self.costs.functions[f];
        add(&mut function.own, &costs);
        if let Some(line) = line.filter(|_| function.file == self.file) {
            let slot = function
                .lines
                .entry(line)
                .or_insert_with(|| vec![0; costs.len()]);
            add(slot, &costs);
        }
        Ok(())
    }

    fn add_call(&mut self, call: PendingCall, costs: Vec<i128>) -> Result<(), ParseError> {
        let caller = self
            .function
            .ok_or_else(|| ParseError::line(call.line, "a call before any `fn=` line"))?;
        let key = (caller, call.callee);
        let calls = &mut self.costs.calls;
        let at = *self.calls_at.entry(key).or_insert_with(|| {
            calls.push(Call {
                caller,
                callee: call.callee,
                count: 0,
                cost: vec![0; costs.len()],
            });
            calls.len() - 1
        });
        let c = &mut calls[at];
        c.count = c.count.saturating_add(call.count);
        add(&mut c.cost, &costs);
        Ok(())
    }

    /// The source line of the last cost line, when positions have lines
    /// and it is one (line 0 is "unknown").
    fn current_line(&self) -> Option<u32> {
        let v = *self.previous.get(self.line_position?)?;
        u32::try_from(v).ok().filter(|l| *l > 0)
    }
}

/// `key` and the rest of `line` when it starts with a key (letters) and
/// `sep`.
fn split_key(line: &str, sep: char) -> Option<(&str, &str)> {
    let (key, value) = line.split_once(sep)?;
    let is_key = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    is_key.then_some((key, value))
}

/// `???` is callgrind's unknown file.
fn file_name(name: String) -> Option<String> {
    (name != "???" && !name.is_empty()).then_some(name)
}

/// A decimal or `0x` hexadecimal number.
fn parse_number(word: &str) -> Option<i128> {
    match word.strip_prefix("0x").or_else(|| word.strip_prefix("0X")) {
        Some(hex) if !hex.is_empty() => u64::from_str_radix(hex, 16).ok().map(i128::from),
        Some(_) => None,
        None if word.bytes().all(|b| b.is_ascii_digit()) && !word.is_empty() => {
            word.parse::<u64>().ok().map(i128::from)
        }
        None => None,
    }
}

/// A number that may be negative (Xdebug writes memory freed so).
fn signed_number(word: &str) -> Option<i128> {
    match word.strip_prefix('-') {
        Some(rest) => parse_number(rest).map(|v| -v),
        None => parse_number(word),
    }
}

fn add(sum: &mut Vec<i128>, costs: &[i128]) {
    if sum.len() < costs.len() {
        sum.resize(costs.len(), 0);
    }
    for (s, c) in sum.iter_mut().zip(costs) {
        *s = s.saturating_add(*c);
    }
}

/// A piece of a line for a message: at most 80 characters.
fn shown(text: &str) -> String {
    match text.char_indices().nth(80) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}
