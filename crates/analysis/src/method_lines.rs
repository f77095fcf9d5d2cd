//! Which methods a source diff touched: the line range of a method known
//! from profiles, and whether a diff changed a line inside it.
//!
//! Profiles give a method's file, sometimes its declared start line (pprof
//! `Function.start_line`, a `.cpuprofile` call frame), and the lines its
//! samples executed (py-spy, pprof). The range is found, in order:
//!
//! 1. **Python** (`.py`, `.pyw`) with the source: from the start line (else
//!    the smallest sampled line) upwards to the nearest `def NAME(` /
//!    `async def NAME(` indented less than that line (or that line itself),
//!    with the decorators right above it, down to the last line before the
//!    next non-blank, non-comment line indented no deeper than the `def`.
//! 2. **Brace languages** with the source: from the start line, else the
//!    nearest line at or above the smallest sampled line that names the
//!    method followed by `(`, the block from the first `{` to its matching
//!    `}` (strings, characters and comments skipped; in JavaScript and
//!    TypeScript also regular expressions and template strings, see
//!    [`js_braces`]). The block must hold every sampled line, else the
//!    next rule applies.
//! 3. Without usable source: from the start line to the largest sampled line
//!    (`DeclaredStart`), or from the smallest to the largest sampled line
//!    (`SampledLines`).
//!
//! A Python body spans triple-quoted strings and bracketed continuation
//! lines whatever their indentation; a declared start on a decorator line
//! finds the `def` below it. A brace search passes by lines that name the
//! method but whose block does not hold the sampled lines (a recursive
//! call).
//!
//! Limits: with sampled lines only (rule 3) a change in lines no sample ever
//! executed, before the first or after the last, is missed; a nested
//! function's lines count for the enclosing function too; two functions of
//! the same name in one file are told apart only by the sampled lines;
//! code at module level (`<module>`, `(root)`, `(program)`) is never a
//! method. A method counts as modified when an added line falls inside its
//! range in the newer version, or lines were removed inside it (for Python,
//! also an indented statement removed right after its last line).

use serde::Serialize;

use vcs::{DiffLine, FileDiff, FileStatus, LineKind};

mod js_braces;

/// A method as the profiles know it, in one version.
#[derive(Debug, Clone, PartialEq)]
pub struct MethodSite {
    /// Repository path (already mapped).
    pub file: String,
    /// Method name as profiled: `Markdown.convert`, `(*conn).serve`.
    pub name: String,
    pub start_line: Option<u32>,
    /// Sorted, unique, 1-based.
    pub sampled_lines: Vec<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RangeRule {
    PythonDef,
    BraceBlock,
    DeclaredStart,
    SampledLines,
}

/// Lines `first..=last` (1-based) of a method, and the rule that found them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LineRange {
    pub first: u32,
    pub last: u32,
    pub rule: RangeRule,
}

/// Lines a diff puts in a method's popup.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MethodDiff {
    pub lines: Vec<DiffLine>,
    pub truncated: bool,
}

const MODULE_LEVEL: [&str; 4] = ["<module>", "(root)", "(program)", "(anonymous)"];
const BRACE_EXTENSIONS: [&str; 19] = [
    ".go", ".java", ".kt", ".scala", ".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx", ".c", ".h",
    ".cc", ".cpp", ".cxx", ".hpp", ".rs", ".cs", ".swift",
];
/// Brace languages whose braces are matched by [`js_braces`]: regular
/// expressions and template strings hide braces and quotes.
const JS_EXTENSIONS: [&str; 6] = [".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx"];
/// How far up from a sampled line a definition is looked for.
const SCAN_UP: usize = 400;

/// The method's line range in `source` (its file at the version judged),
/// or from the profile alone without source. `None` when nothing is known
/// or the frame is module-level code.
pub fn method_range(site: &MethodSite, source: Option<&str>) -> Option<LineRange> {
    let name = site.name.trim();
    if MODULE_LEVEL.contains(&name) && (name != "(anonymous)" || site.start_line.is_none()) {
        return None;
    }
    let anchor = site
        .start_line
        .or_else(|| site.sampled_lines.first().copied())?;
    if let Some(text) = source {
        let lines: Vec<&str> = text.lines().collect();
        let short = short_name(name);
        let short = short.as_str();
        let found = if is_python(&site.file) {
            python_def(&lines, anchor, short)
        } else if BRACE_EXTENSIONS.iter().any(|e| site.file.ends_with(e)) {
            let scan = if JS_EXTENSIONS.iter().any(|e| site.file.ends_with(e)) {
                js_braces::closing_brace
            } else {
                closing_brace
            };
            brace_block(
                &lines,
                site.start_line,
                anchor,
                short,
                &site.sampled_lines,
                scan,
            )
        } else {
            None
        };
        if let Some(r) = found.filter(|r| covers(r, &site.sampled_lines)) {
            return Some(r);
        }
    }
    let last = site.sampled_lines.last().copied().unwrap_or(anchor);
    Some(match site.start_line {
        Some(start) => LineRange {
            first: start,
            last: last.max(start),
            rule: RangeRule::DeclaredStart,
        },
        None => LineRange {
            first: anchor,
            last,
            rule: RangeRule::SampledLines,
        },
    })
}

fn is_python(file: &str) -> bool {
    file.ends_with(".py") || file.ends_with(".pyw")
}

fn covers(range: &LineRange, sampled: &[u32]) -> bool {
    sampled
        .iter()
        .all(|l| *l >= range.first && *l <= range.last)
}

/// `Markdown.convert` → `convert`, `p.(*conn).serve` → `serve`,
/// `Vec<T>::push` → `push`, `String.indexOf(I)I` → `indexOf`,
/// `run.<locals>.inner` → `inner`.
fn short_name(name: &str) -> String {
    // Go receivers: drop `(…)` groups followed by a dot.
    let mut plain = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(open) = rest.find('(') {
        let close = rest[open..].find(')').map(|c| open + c);
        match close {
            Some(c) if rest[c + 1..].starts_with('.') => {
                plain.push_str(&rest[..open]);
                rest = &rest[c + 1..];
            }
            _ => break,
        }
    }
    plain.push_str(rest);
    let plain = plain.split('(').next().unwrap_or("");
    let plain = plain.rsplit("::").next().unwrap_or(plain);
    let plain = plain.rsplit('.').find(|p| !p.is_empty()).unwrap_or(plain);
    plain.split('<').next().unwrap_or(plain).to_string()
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// Whether `line` is `def NAME(` or `async def NAME(` (any indentation).
fn is_def_of(line: &str, name: &str) -> bool {
    let t = line.trim_start();
    let t = t.strip_prefix("async ").map(str::trim_start).unwrap_or(t);
    match t.strip_prefix("def ") {
        Some(rest) => {
            let rest = rest.trim_start();
            rest.strip_prefix(name)
                .is_some_and(|after| after.trim_start().starts_with('('))
        }
        None => false,
    }
}

fn python_def(lines: &[&str], anchor: u32, name: &str) -> Option<LineRange> {
    if name.is_empty() || anchor == 0 || anchor as usize > lines.len() {
        return None;
    }
    let mut at = anchor as usize - 1;
    // A declared start may be the first decorator (`co_firstlineno`).
    while lines[at].trim_start().starts_with('@') && at + 1 < lines.len() {
        at += 1;
    }
    let anchor_indent = indent(lines[at]);
    let lowest = at.saturating_sub(SCAN_UP);
    let def = (lowest..=at)
        .rev()
        .find(|&i| is_def_of(lines[i], name) && (i == at || indent(lines[i]) < anchor_indent))?;
    let def_indent = indent(lines[def]);
    let mut first = def;
    while first > 0 {
        let above = lines[first - 1];
        if above.trim_start().starts_with('@') && indent(above) == def_indent {
            first -= 1;
        } else {
            break;
        }
    }
    // The body ends before the next code line indented no deeper than the
    // def (multi-line signatures are inside parentheses, so skip to `:`).
    let mut last = def;
    let mut i = def + 1;
    let mut depth = paren_balance(lines[def]);
    while i < lines.len() && depth > 0 {
        depth += paren_balance(lines[i]);
        last = i;
        i += 1;
    }
    // Lines inside a triple-quoted string or an open bracket belong to the
    // statement that opened it, whatever their indentation.
    let mut in_string: Option<&str> = None;
    let mut brackets = 0i32;
    while i < lines.len() {
        let t = lines[i].trim();
        let continued = in_string.is_some() || brackets > 0;
        in_string = triple_quote_state(lines[i], in_string);
        if !continued {
            if t.is_empty() || t.starts_with('#') {
                i += 1;
                continue;
            }
            if indent(lines[i]) <= def_indent {
                break;
            }
        }
        if in_string.is_none() {
            brackets = (brackets + paren_balance(lines[i])).max(0);
        }
        if !t.is_empty() {
            last = i;
        }
        i += 1;
    }
    Some(LineRange {
        first: first as u32 + 1,
        last: last as u32 + 1,
        rule: RangeRule::PythonDef,
    })
}

/// Whether a triple-quoted string is open after `line`, given whether one
/// was open before it (and with which quotes).
fn triple_quote_state<'q>(line: &str, mut open: Option<&'q str>) -> Option<&'q str> {
    let mut rest = line;
    loop {
        match open {
            Some(q) => match rest.find(q) {
                Some(i) => {
                    rest = &rest[i + 3..];
                    open = None;
                }
                None => return open,
            },
            None => {
                let next = ["\"\"\"", "'''"]
                    .into_iter()
                    .filter_map(|q| rest.find(q).map(|i| (i, q)))
                    .min();
                match next {
                    Some((i, q)) if !rest[..i].contains('#') => {
                        rest = &rest[i + 3..];
                        open = Some(q);
                    }
                    _ => return None,
                }
            }
        }
    }
}

fn paren_balance(line: &str) -> i32 {
    line.chars().fold(0, |n, c| match c {
        '(' | '[' | '{' => n + 1,
        ')' | ']' | '}' => n - 1,
        _ => n,
    })
}

fn brace_block(
    lines: &[&str],
    start: Option<u32>,
    anchor: u32,
    name: &str,
    sampled: &[u32],
    closing_brace: fn(&[&str], usize) -> Option<usize>,
) -> Option<LineRange> {
    let block = |head: usize| -> Option<LineRange> {
        let close_line = closing_brace(lines, head)?;
        Some(LineRange {
            first: head as u32 + 1,
            last: close_line as u32 + 1,
            rule: RangeRule::BraceBlock,
        })
    };
    match start {
        Some(s) if s >= 1 && (s as usize) <= lines.len() => block(s as usize - 1),
        Some(_) => None,
        None => {
            if name.is_empty() || anchor == 0 || anchor as usize > lines.len() {
                return None;
            }
            let at = anchor as usize - 1;
            // The nearest line naming the method whose block holds every
            // sampled line: a recursive call inside the body is passed by.
            (at.saturating_sub(SCAN_UP)..=at)
                .rev()
                .filter(|&i| names_call(lines[i], name))
                .filter_map(block)
                .find(|r| covers(r, sampled))
        }
    }
}

/// `name(` or `name (` as a whole word in `line`.
fn names_call(line: &str, name: &str) -> bool {
    let bytes = line.as_bytes();
    line.match_indices(name).any(|(i, _)| {
        let before_ok = i == 0 || {
            let b = bytes[i - 1];
            !(b.is_ascii_alphanumeric() || b == b'_')
        };
        let after = line[i + name.len()..].trim_start();
        before_ok && after.starts_with('(')
    })
}

/// The line of the `}` matching the first `{` at or after `head`,
/// skipping string and character literals and comments.
fn closing_brace(lines: &[&str], head: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_block_comment = false;
    let mut quote: Option<char> = None;
    for (i, line) in lines.iter().enumerate().skip(head) {
        let chars: Vec<char> = line.chars().collect();
        let mut k = 0;
        while k < chars.len() {
            let c = chars[k];
            let next = chars.get(k + 1).copied();
            if in_block_comment {
                if c == '*' && next == Some('/') {
                    in_block_comment = false;
                    k += 1;
                }
            } else if let Some(q) = quote {
                if c == '\\' {
                    k += 1;
                } else if c == q {
                    quote = None;
                }
            } else if c == '/' && next == Some('/') {
                break;
            } else if c == '/' && next == Some('*') {
                in_block_comment = true;
                k += 1;
            } else if c == '"' || c == '`' || (c == '\'' && is_char_literal(&chars, k)) {
                quote = Some(c);
            } else if c == '{' {
                depth += 1;
            } else if c == '}' && depth > 0 {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            k += 1;
        }
        // Template strings span lines; other quotes end with the line.
        if quote != Some('`') {
            quote = None;
        }
    }
    None
}

/// A `'` that opens a character or string literal (not a Rust lifetime).
fn is_char_literal(chars: &[char], k: usize) -> bool {
    matches!(
        (chars.get(k + 1), chars.get(k + 2)),
        (Some('\\'), _) | (Some(_), Some('\''))
    )
}

/// New-side positions the diff changed: each added line's number, and for
/// each run of removed lines the new-side number of the line that follows it
/// in the hunk (the insertion point). Sorted, unique.
pub fn changed_positions(file: &FileDiff) -> Vec<u32> {
    let mut out = Vec::new();
    for hunk in &file.hunks {
        let mut next_new = hunk.new_start.max(1);
        let mut pending_removal = false;
        for line in &hunk.lines {
            match line.kind {
                LineKind::Added => {
                    let n = line.new_line.unwrap_or(next_new);
                    out.push(n);
                    if pending_removal {
                        out.push(n);
                        pending_removal = false;
                    }
                    next_new = n + 1;
                }
                LineKind::Context => {
                    let n = line.new_line.unwrap_or(next_new);
                    if pending_removal {
                        out.push(n);
                        pending_removal = false;
                    }
                    next_new = n + 1;
                }
                LineKind::Removed => pending_removal = true,
            }
        }
        if pending_removal {
            out.push(next_new);
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Whether the diff changes the method's code: a line added inside the
/// range, or lines removed from it, other than in whitespace alone (a
/// file re-indented by a formatter or a bundler's new wrapper changes no
/// method's code). An added file's methods are all modified.
pub fn is_modified(range: &LineRange, file: &FileDiff) -> bool {
    if file.status == FileStatus::Added {
        return true;
    }
    // No change at all is the same text too.
    let (removed, added) = changed_text(range, file);
    !same_but_whitespace(&removed, &added)
}

/// The text the diff removes from the range and adds to it, line by line.
fn changed_text<'a>(range: &LineRange, file: &'a FileDiff) -> (Vec<&'a str>, Vec<&'a str>) {
    let (mut removed, mut added) = (Vec::new(), Vec::new());
    for h in &file.hunks {
        let mut next_new = h.new_start.max(1);
        // The run of removed lines being read.
        let mut run: Vec<&str> = Vec::new();
        let close_run = |run: &mut Vec<&'a str>, at: u32, removed: &mut Vec<&'a str>| {
            if run
                .first()
                .is_some_and(|first| removal_inside(range, at, first))
            {
                removed.append(run);
            }
            run.clear();
        };
        for l in &h.lines {
            match l.kind {
                LineKind::Added | LineKind::Context => {
                    let n = l.new_line.unwrap_or(next_new);
                    next_new = n + 1;
                    let inside = n >= range.first && n <= range.last;
                    if l.kind == LineKind::Added && inside {
                        // Lines replaced by lines of the range were its own.
                        removed.append(&mut run);
                        added.push(l.text.as_str());
                    }
                    close_run(&mut run, n, &mut removed);
                }
                LineKind::Removed => run.push(l.text.as_str()),
            }
        }
        close_run(&mut run, next_new, &mut removed);
    }
    (removed, added)
}

/// Whether two runs of lines hold the same text once all whitespace is
/// taken out.
fn same_but_whitespace(a: &[&str], b: &[&str]) -> bool {
    let strip = |lines: &[&str]| -> String {
        lines
            .iter()
            .flat_map(|l| l.chars())
            .filter(|c| !c.is_whitespace())
            .collect()
    };
    strip(a) == strip(b)
}

/// Whether lines removed just before new line `p`, the first of them
/// `first_removed`, were inside the range. A Python body ends at its last
/// statement, so an indented statement removed right after it was its last
/// one (a blank line, a comment or a new `def`, `class` or decorator starts
/// something else); a brace block ends at `}`.
fn removal_inside(range: &LineRange, p: u32, first_removed: &str) -> bool {
    if p > range.first && p <= range.last {
        return true;
    }
    let t = first_removed.trim_start();
    range.rule == RangeRule::PythonDef
        && p == range.last + 1
        && first_removed.starts_with([' ', '\t'])
        && !(t.is_empty()
            || t.starts_with('#')
            || t.starts_with('@')
            || t.starts_with("def ")
            || t.starts_with("async def ")
            || t.starts_with("class "))
}

/// The diff lines that fall in the range, with up to two context lines
/// around each change, at most `max_lines`.
pub fn method_diff(range: &LineRange, file: &FileDiff, max_lines: usize) -> MethodDiff {
    let mut out = MethodDiff::default();
    for hunk in &file.hunks {
        // New-side position of each line (removed lines take the next one).
        let mut positions = Vec::with_capacity(hunk.lines.len());
        let mut next_new = hunk.new_start.max(1);
        for l in &hunk.lines {
            match l.new_line {
                Some(n) => {
                    positions.push(n);
                    next_new = n + 1;
                }
                None => positions.push(next_new),
            }
        }
        let inside = |i: usize| positions[i] >= range.first && positions[i] <= range.last;
        let changed: Vec<usize> = (0..hunk.lines.len())
            .filter(|&i| hunk.lines[i].kind != LineKind::Context && inside(i))
            .collect();
        let mut keep = vec![false; hunk.lines.len()];
        for &c in &changed {
            keep[c.saturating_sub(2)..(c + 3).min(hunk.lines.len())].fill(true);
        }
        for (i, line) in hunk.lines.iter().enumerate() {
            if !keep[i] {
                continue;
            }
            if out.lines.len() >= max_lines {
                out.truncated = true;
                return out;
            }
            out.lines.push(line.clone());
        }
    }
    out
}

#[cfg(test)]
mod git_tests;
#[cfg(test)]
mod tests;
