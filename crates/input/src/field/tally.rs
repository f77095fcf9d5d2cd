//! What the two coverage readers share: reading a count or a line number
//! as the files write them, the capped list of one file's warnings, and the
//! [`Tally`] that sums everything a coverage file says about each source
//! file into [`FileCoverage`]s.
//!
//! Counts are `u64` and every sum saturates at 2^64−1. A count written as
//! a float (`1.0`, `2.5e3`; converters between coverage formats do) is
//! rounded to the nearest integer.

use std::collections::BTreeMap;

use super::{FileCoverage, FunctionCoverage};
use model::error::ParseError;

/// Most warnings listed for one file; the rest are counted in one more.
/// A file of millions of bad lines must not become millions of messages.
pub(super) const MAX_WARNINGS: usize = 100;

/// An execution count: a whole number in 0..=2^64−1, or a finite,
/// non-negative float in that range, rounded.
pub(super) fn count(text: &str) -> Result<u64, String> {
    let text = text.trim();
    if let Ok(n) = text.parse::<u64>() {
        return Ok(n);
    }
    let value: f64 = text
        .parse()
        .map_err(|_| format!("the count `{text}` is not a number"))?;
    // 2^64 is the first float past u64::MAX.
    const TWO_TO_64: f64 = 18_446_744_073_709_551_616.0;
    if !value.is_finite() {
        Err(format!("the count `{text}` is not a finite number"))
    } else if value < 0.0 {
        Err(format!("the count `{text}` is negative"))
    } else if value.round() >= TWO_TO_64 {
        Err(format!("the count `{text}` is beyond 2^64−1"))
    } else {
        Ok(value.round() as u64)
    }
}

/// A source line number: a whole number from 1 to 2^32−1.
pub(super) fn line_number(text: &str) -> Result<u32, String> {
    match text.trim().parse::<u32>() {
        Ok(0) => Err("line number 0 (lines count from 1)".to_string()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("the line number `{}` is not valid", text.trim())),
    }
}

/// At most 80 characters of `text`, for messages.
pub(super) fn excerpt(text: &str) -> String {
    const MAX: usize = 80;
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

/// One file's warnings: the first [`MAX_WARNINGS`] listed, the rest counted.
#[derive(Debug, Default)]
pub(super) struct Warnings {
    listed: Vec<ParseError>,
    unlisted: usize,
}

impl Warnings {
    pub(super) fn push(&mut self, warning: ParseError) {
        if self.listed.len() < MAX_WARNINGS {
            self.listed.push(warning);
        } else {
            self.unlisted += 1;
        }
    }

    pub(super) fn first(&self) -> Option<&ParseError> {
        self.listed.first()
    }

    /// The listed warnings, and one more counting those not listed.
    pub(super) fn finish(mut self) -> Vec<ParseError> {
        if self.unlisted > 0 {
            let all = self.listed.len() + self.unlisted;
            self.listed.push(ParseError::whole(format!(
                "{} more problem(s) not listed ({all} in all)",
                self.unlisted
            )));
        }
        self.listed
    }
}

/// The coverage of every source file a coverage file names, summed over
/// all its mentions (an LCOV file may list one source file in several
/// sections; a Cobertura file in several classes).
#[derive(Debug, Default)]
pub(super) struct Tally {
    files: BTreeMap<String, FileTally>,
}

/// One source file's lines and functions while they are summed.
#[derive(Debug, Default)]
pub(super) struct FileTally {
    lines: BTreeMap<u32, u64>,
    /// Keyed by (start line, name); the first end line given is kept.
    functions: BTreeMap<(u32, String), (Option<u32>, u64)>,
}

impl Tally {
    /// The tally of `path`, created empty on first mention.
    pub(super) fn file(&mut self, path: &str) -> &mut FileTally {
        self.files.entry(path.to_string()).or_default()
    }

    /// Every source file, sorted by path; lines sorted by number; functions
    /// sorted by start line, then name.
    pub(super) fn finish(self) -> Vec<FileCoverage> {
        self.files
            .into_iter()
            .map(|(path, file)| file.finish(path))
            .collect()
    }
}

impl FileTally {
    /// Adds `count` executions of `line`.
    pub(super) fn add_line(&mut self, line: u32, count: u64) {
        let sum = self.lines.entry(line).or_insert(0);
        *sum = sum.saturating_add(count);
    }

    /// Adds `count` calls of the function `name` starting at `line`.
    pub(super) fn add_function(&mut self, name: &str, line: u32, end: Option<u32>, count: u64) {
        let key = (line, name.to_string());
        let (known_end, sum) = self.functions.entry(key).or_insert((end, 0));
        *known_end = known_end.or(end);
        *sum = sum.saturating_add(count);
    }

    fn finish(self, path: String) -> FileCoverage {
        FileCoverage {
            path,
            lines: self.lines.into_iter().collect(),
            functions: self
                .functions
                .into_iter()
                .map(|((line, name), (end_line, count))| FunctionCoverage {
                    name,
                    line,
                    end_line,
                    count,
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_u64_floats_round_and_the_rest_is_refused() {
        assert_eq!(count("0"), Ok(0));
        assert_eq!(count("18446744073709551615"), Ok(u64::MAX));
        assert_eq!(count(" 4294967302 "), Ok(4_294_967_302));
        assert_eq!(count("1.0"), Ok(1));
        assert_eq!(count("2.5"), Ok(3));
        assert_eq!(count("1e3"), Ok(1000));
        assert_eq!(count("-0.0"), Ok(0));
        assert_eq!(
            count("18446744073709551616").unwrap_err(),
            "the count `18446744073709551616` is beyond 2^64−1"
        );
        assert_eq!(count("-1").unwrap_err(), "the count `-1` is negative");
        assert!(count("NaN").unwrap_err().contains("not a finite number"));
        assert!(count("inf").unwrap_err().contains("not a finite number"));
        assert!(count("-").unwrap_err().contains("not a number"));
        assert!(count("").unwrap_err().contains("not a number"));
    }

    #[test]
    fn line_numbers_start_at_one() {
        assert_eq!(line_number("7"), Ok(7));
        assert_eq!(line_number("4294967295"), Ok(u32::MAX));
        assert!(line_number("0").unwrap_err().contains("from 1"));
        assert!(line_number("4294967296").is_err());
        assert!(line_number("x").is_err());
    }

    #[test]
    fn sums_saturate_and_functions_keep_the_first_end_line() {
        let mut tally = Tally::default();
        tally.file("b.c").add_line(3, u64::MAX);
        tally.file("b.c").add_line(3, 5);
        tally.file("a.c").add_function("f", 2, None, 1);
        tally.file("a.c").add_function("f", 2, Some(9), 2);
        tally.file("a.c").add_function("f", 2, Some(8), u64::MAX);
        let files = tally.finish();
        assert_eq!(files[0].path, "a.c");
        assert_eq!(files[0].functions[0].end_line, Some(9));
        assert_eq!(files[0].functions[0].count, u64::MAX);
        assert_eq!(files[1].lines, vec![(3, u64::MAX)]);
    }

    #[test]
    fn warnings_beyond_the_cap_are_counted() {
        let mut w = Warnings::default();
        for i in 0..MAX_WARNINGS + 5 {
            w.push(ParseError::line(i + 1, "bad"));
        }
        let list = w.finish();
        assert_eq!(list.len(), MAX_WARNINGS + 1);
        assert_eq!(
            list[MAX_WARNINGS].message,
            "5 more problem(s) not listed (105 in all)"
        );
    }
}
