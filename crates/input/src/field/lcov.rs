//! LCOV tracefiles (`.info`), as geninfo/lcov, coverage.py (`coverage
//! lcov`), llvm-cov (`export -format=lcov`), grcov and others write them:
//!
//! ```text
//! TN:<test name>
//! SF:<source file>
//! VER:<version id>
//! FN:<start line>,[<end line>,]<name>        FNDA:<count>,<name>
//! FNL:<index>,<start line>[,<end line>]      FNA:<index>,<count>,<name>   (lcov 2.2+)
//! FNF:… FNH:…
//! BRDA:<line>,[e|f|U]<block>,<branch>,<taken or ->   BRF:… BRH:…
//! MCDC:… MCF:… MCH:…                                  (lcov 2.2+)
//! DA:<line>,<count>[,<checksum>]
//! LF:… LH:…
//! end_of_record
//! ```
//!
//! This module owns reading one such file into [`FileCoverage`]s: every
//! `DA` line's count and every function's count, summed when a source file
//! has several sections (lcov writes one per object file, so a header
//! included twice appears twice; concatenated tracefiles repeat every file).
//! Branch (`BRDA`) and MC/DC records are checked but not kept; the summary
//! records (`FNF`, `LH`, …) and `TN`/`VER` are ignored, as are `#` comments.
//!
//! A line that cannot be read is skipped with a warning naming its line
//! number; a file that never names a source file (`SF`) is an error.

use rustc_hash::FxHashMap;

use super::tally::{count, excerpt, line_number, Tally, Warnings};
use super::FileCoverage;
use crate::text;
use model::error::ParseError;

/// Reads an LCOV tracefile: the coverage of every source file it names
/// (sorted by path), and the lines that were skipped.
pub fn parse(bytes: &[u8]) -> Result<(Vec<FileCoverage>, Vec<ParseError>), ParseError> {
    let data = text::decode_text(bytes);
    if data.trim().is_empty() {
        return Err(ParseError::whole("the file is empty"));
    }
    let mut reader = Reader::default();
    let mut last = 0;
    for (i, line) in data.lines().enumerate() {
        last = i + 1;
        reader.line(last, line.trim());
    }
    reader.finish(last)
}

/// The reading state: the section being read, and everything read so far.
#[derive(Default)]
struct Reader {
    tally: Tally,
    section: Option<Section>,
    /// True once any `SF` record was seen, even a bad one.
    saw_source: bool,
    warnings: Warnings,
}

/// One `SF` … `end_of_record` section. Functions are resolved at its end:
/// `FNDA` names a function that `FN` placed.
struct Section {
    /// `None` for a section whose `SF` was unusable: its records are dropped.
    path: Option<String>,
    /// The line of its `SF` record.
    start: usize,
    /// `FN` records: name → (start line, end line), the first one kept.
    placed: FxHashMap<String, (u32, Option<u32>)>,
    /// `FN` names in the order given.
    order: Vec<String>,
    /// `FNDA` records: (name, count, line of the record).
    calls: Vec<(String, u64, usize)>,
    /// `FNL` records: index → (start line, end line).
    leaders: FxHashMap<u64, (u32, Option<u32>)>,
    /// `DA` records: (line, count).
    lines: Vec<(u32, u64)>,
    /// `FNA` records resolved: (name, start line, end line, count).
    aliases: Vec<(String, u32, Option<u32>, u64)>,
}

impl Section {
    fn new(path: Option<String>, start: usize) -> Section {
        Section {
            path,
            start,
            placed: FxHashMap::default(),
            order: Vec::new(),
            calls: Vec::new(),
            leaders: FxHashMap::default(),
            lines: Vec::new(),
            aliases: Vec::new(),
        }
    }
}

impl Reader {
    /// Reads one line (already trimmed); `n` is its 1-based number.
    fn line(&mut self, n: usize, line: &str) {
        if line.is_empty() || line.starts_with('#') {
            return;
        }
        if line == "end_of_record" {
            self.end_of_record(n);
            return;
        }
        let Some((key, value)) = line.split_once(':') else {
            self.warn(n, format!("expected KEY:VALUE, found `{}`", excerpt(line)));
            return;
        };
        let result = match key {
            "TN" | "VER" | "FNF" | "FNH" | "BRF" | "BRH" | "LF" | "LH" | "MCF" | "MCH" | "MCDC" => {
                Ok(())
            }
            "SF" => {
                self.source_file(n, value);
                Ok(())
            }
            "DA" => self.in_section(key, |s| line_count(s, value)),
            "FN" => self.in_section(key, |s| function_place(s, value)),
            "FNDA" => self.in_section(key, |s| function_call(s, value, n)),
            "FNL" => self.in_section(key, |s| function_leader(s, value)),
            "FNA" => self.in_section(key, |s| function_alias(s, value)),
            "BRDA" => self.in_section(key, |_| branch(value)),
            _ => Err(format!("unknown record `{}`; skipped", excerpt(key))),
        };
        if let Err(message) = result {
            self.warn(n, message);
        }
    }

    /// `SF:<path>` opens a section (closing one left open, with a warning).
    fn source_file(&mut self, n: usize, path: &str) {
        self.saw_source = true;
        if let Some(open) = self.section.take() {
            self.warn(
                n,
                format!(
                    "the section of {} (line {}) has no end_of_record; it ends here",
                    describe(&open),
                    open.start
                ),
            );
            self.close(open);
        }
        let path = path.trim();
        if path.is_empty() {
            self.warn(n, "SF names no file; the section is skipped");
        }
        let path = (!path.is_empty()).then(|| path.to_string());
        self.section = Some(Section::new(path, n));
    }

    fn end_of_record(&mut self, n: usize) {
        match self.section.take() {
            Some(section) => self.close(section),
            None => self.warn(n, "end_of_record outside a section (no SF before it)"),
        }
    }

    /// Runs `read` on the open section; a record outside any section, or in
    /// a skipped one, is not read.
    fn in_section(
        &mut self,
        key: &str,
        read: impl FnOnce(&mut Section) -> Result<(), String>,
    ) -> Result<(), String> {
        match &mut self.section {
            None => Err(format!("{key} outside a section (no SF before it)")),
            Some(section) if section.path.is_some() => {
                read(section).map_err(|e| format!("{key}: {e}"))
            }
            Some(_) => Ok(()),
        }
    }

    /// Adds a section's lines and functions to the tally: each `FN` with
    /// the sum of its `FNDA` counts (0 when none); an `FNDA` without an
    /// `FN` is a warning.
    fn close(&mut self, section: Section) {
        let Some(path) = &section.path else {
            return;
        };
        let mut calls: FxHashMap<&str, u64> = FxHashMap::default();
        for (name, count, n) in &section.calls {
            if section.placed.contains_key(name) {
                let sum = calls.entry(name).or_insert(0);
                *sum = sum.saturating_add(*count);
            } else {
                self.warn(
                    *n,
                    format!(
                        "FNDA: no FN record places the function `{}`; skipped",
                        excerpt(name)
                    ),
                );
            }
        }
        let file = self.tally.file(path);
        for &(line, count) in &section.lines {
            file.add_line(line, count);
        }
        for (name, line, end, count) in &section.aliases {
            file.add_function(name, *line, *end, *count);
        }
        for name in &section.order {
            let (line, end) = section.placed[name];
            let count = calls.get(name.as_str()).copied().unwrap_or(0);
            file.add_function(name, line, end, count);
        }
    }

    fn warn(&mut self, n: usize, message: impl Into<String>) {
        self.warnings.push(ParseError::line(n, message));
    }

    /// The coverage read; a section left open at the end of the file (a
    /// truncated file) is kept with a warning at the last line `n`.
    fn finish(mut self, n: usize) -> Result<(Vec<FileCoverage>, Vec<ParseError>), ParseError> {
        if let Some(open) = self.section.take() {
            self.warn(
                n,
                format!(
                    "the file ends inside the section of {} (line {}) without end_of_record (truncated?); what it holds is kept",
                    describe(&open),
                    open.start
                ),
            );
            self.close(open);
        }
        if !self.saw_source {
            let first = self
                .warnings
                .first()
                .map(|w| format!("; the first problem: {w}"))
                .unwrap_or_default();
            return Err(ParseError::whole(format!(
                "no SF record: not an LCOV tracefile{first}"
            )));
        }
        Ok((self.tally.finish(), self.warnings.finish()))
    }
}

/// `DA:<line>,<count>[,<checksum>]`.
fn line_count(section: &mut Section, value: &str) -> Result<(), String> {
    let mut fields = value.split(',');
    let (Some(line), Some(calls), _checksum, None) =
        (fields.next(), fields.next(), fields.next(), fields.next())
    else {
        return Err(expected("<line>,<count>[,<checksum>]", value));
    };
    section.lines.push((line_number(line)?, count(calls)?));
    Ok(())
}

/// `FN:<line>,[<end line>,]<name>`. The name may hold commas (demangled
/// C++): a second field is the end line only when it is all digits and
/// more follows.
fn function_place(section: &mut Section, value: &str) -> Result<(), String> {
    let Some((line, rest)) = value.split_once(',') else {
        return Err(expected("<line>,[<end line>,]<name>", value));
    };
    let line = line_number(line)?;
    let (end, name) = match rest.split_once(',') {
        Some((end, name)) if !end.is_empty() && end.bytes().all(|b| b.is_ascii_digit()) => {
            (Some(line_number(end)?), name)
        }
        _ => (None, rest),
    };
    let name = function_name(name)?;
    if !section.placed.contains_key(name) {
        section.placed.insert(name.to_string(), (line, end));
        section.order.push(name.to_string());
    }
    Ok(())
}

/// `FNDA:<count>,<name>`, kept until the section ends.
fn function_call(section: &mut Section, value: &str, n: usize) -> Result<(), String> {
    let Some((calls, name)) = value.split_once(',') else {
        return Err(expected("<count>,<name>", value));
    };
    let calls = count(calls)?;
    let name = function_name(name)?;
    section.calls.push((name.to_string(), calls, n));
    Ok(())
}

/// `FNL:<index>,<start line>[,<end line>]`.
fn function_leader(section: &mut Section, value: &str) -> Result<(), String> {
    let fields: Vec<&str> = value.split(',').collect();
    if !(2..=3).contains(&fields.len()) {
        return Err(expected("<index>,<start line>[,<end line>]", value));
    }
    let index = function_index(fields[0])?;
    let line = line_number(fields[1])?;
    let end = fields.get(2).map(|e| line_number(e)).transpose()?;
    section.leaders.insert(index, (line, end));
    Ok(())
}

/// `FNA:<index>,<count>,<name>`: one name of the function `FNL` placed.
fn function_alias(section: &mut Section, value: &str) -> Result<(), String> {
    let mut fields = value.splitn(3, ',');
    let (Some(index), Some(calls), Some(name)) = (fields.next(), fields.next(), fields.next())
    else {
        return Err(expected("<index>,<count>,<name>", value));
    };
    let index = function_index(index)?;
    let calls = count(calls)?;
    let name = function_name(name)?;
    let Some(&(line, end)) = section.leaders.get(&index) else {
        return Err(format!("no FNL record with index {index} before it"));
    };
    section.aliases.push((name.to_string(), line, end, calls));
    Ok(())
}

/// `BRDA:<line>,[e|f|U]<block>,<branch>,<taken>`: checked, not kept. The
/// branch may be any text, commas included (coverage.py writes `jump to
/// line 9`); `<taken>` is `-` when the branch was never evaluated.
fn branch(value: &str) -> Result<(), String> {
    let shape = "<line>,<block>,<branch>,<taken or ->";
    let (Some((line, rest)), Some((_, taken))) = (value.split_once(','), value.rsplit_once(','))
    else {
        return Err(expected(shape, value));
    };
    let Some((block, branch)) = rest
        .rsplit_once(',')
        .and_then(|(head, _)| head.split_once(','))
    else {
        return Err(expected(shape, value));
    };
    line_number(line)?;
    let block = block.trim_start_matches(['e', 'f', 'U']);
    if block.is_empty() || !block.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("the block `{}` is not a number", excerpt(block)));
    }
    if branch.is_empty() {
        return Err(expected(shape, value));
    }
    if taken.trim() != "-" {
        count(taken)?;
    }
    Ok(())
}

fn function_index(text: &str) -> Result<u64, String> {
    text.trim()
        .parse()
        .map_err(|_| format!("the function index `{}` is not a number", excerpt(text)))
}

fn function_name(name: &str) -> Result<&str, String> {
    let name = name.trim();
    if name.is_empty() {
        Err("the function has no name".to_string())
    } else {
        Ok(name)
    }
}

fn expected(shape: &str, found: &str) -> String {
    format!("expected {shape}, found `{}`", excerpt(found))
}

/// A section's source file, for messages.
fn describe(section: &Section) -> String {
    match &section.path {
        Some(path) => format!("`{}`", excerpt(path)),
        None => "an unnamed file".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture;
    use super::*;
    use model::error::Place;

    fn read(text: &str) -> (Vec<FileCoverage>, Vec<ParseError>) {
        parse(text.as_bytes()).unwrap()
    }

    fn fixture_text(name: &str) -> String {
        String::from_utf8(fixture(name)).unwrap()
    }

    /// The `DA` records of the one section of `path`, read without the
    /// parser: the figures as the file writes them.
    fn da_records(text: &str, path: &str) -> Vec<(u32, u64)> {
        let sections: Vec<&str> = text
            .split("end_of_record")
            .filter(|s| s.lines().any(|l| l == format!("SF:{path}")))
            .collect();
        assert_eq!(sections.len(), 1, "{path} is in one section");
        sections[0]
            .lines()
            .filter_map(|l| l.strip_prefix("DA:"))
            .map(|v| {
                let (line, count) = v.split_once(',').unwrap();
                (line.parse().unwrap(), count.parse().unwrap())
            })
            .collect()
    }

    fn file<'a>(files: &'a [FileCoverage], suffix: &str) -> &'a FileCoverage {
        files.iter().find(|f| f.path.ends_with(suffix)).unwrap()
    }

    const C_DIR: &str = "/tmp/perfatlas-field-fixtures/c/";

    #[test]
    fn a_geninfo_capture_sums_the_header_two_objects_include() {
        // lcov --capture writes counter.h once per object file that
        // includes it: DA:2,4 (from parse.o) and DA:2,1 (from counter.o).
        let text = fixture_text("geninfo-ok.info");
        assert_eq!(
            text.matches("SF:/tmp/perfatlas-field-fixtures/c/counter.h")
                .count(),
            2
        );
        let (files, warnings) = parse(text.as_bytes()).unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                format!("{C_DIR}counter.c"),
                format!("{C_DIR}counter.h"),
                format!("{C_DIR}parse.c")
            ]
        );
        let header = file(&files, "counter.h");
        assert_eq!(header.lines.len(), 6);
        assert_eq!(header.lines[0], (2, 5));
        assert_eq!(header.lines[5], (8, 4));
        let clamp = &header.functions[0];
        assert_eq!(
            (clamp.name.as_str(), clamp.line, clamp.end_line, clamp.count),
            ("clamp", 2, None, 5)
        );
        // `lcov -a` of the same capture is lcov's own sum: one section each.
        let merged = fixture_text("geninfo-ok.merged.info");
        for f in &files {
            assert_eq!(f.lines, da_records(&merged, &f.path), "{}", f.path);
        }
        // Lines that never ran are kept, with 0.
        let parse_c = file(&files, "parse.c");
        assert_eq!(parse_c.lines.len(), 9);
        assert!(parse_c.lines.contains(&(11, 0)));
        assert_eq!(parse_c.functions[0].name, "parse_all");
        assert_eq!(parse_c.functions[0].count, 1);
    }

    #[test]
    fn counts_above_32_bits_from_a_real_run() {
        // `counter spin 4294967301`: the loop condition ran 2^32 + 6 times.
        let (files, warnings) = parse(&fixture("geninfo-spin.info")).unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        let main = file(&files, "counter.c");
        let count = |line| main.lines.iter().find(|(l, _)| *l == line).unwrap().1;
        assert_eq!(count(13), 4_294_967_302);
        assert_eq!(count(14), 4_294_967_301);
        assert_eq!(count(12), 1);
        assert_eq!(
            main.lines,
            da_records(&fixture_text("geninfo-spin.info"), &main.path)
        );
    }

    #[test]
    fn coverage_py_writes_fn_with_end_lines_and_text_branches() {
        // coverage.py: no TN, FN:<start>,<end>,<name>, BRDA branches named
        // `jump to line 9`, and 0/1 counts (it records lines, not counts).
        let text = fixture_text("coveragepy-ok.info");
        let (files, warnings) = parse(text.as_bytes()).unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(files.len(), 1);
        let f = &files[0];
        assert_eq!(f.path, "wordstat.py");
        assert_eq!(f.lines.len(), text.matches("\nDA:").count());
        assert_eq!(f.lines.len(), 21); // LF:21
        assert_eq!(f.lines, da_records(&text, "wordstat.py"));
        assert!(f.lines.contains(&(9, 0)) && f.lines.contains(&(10, 1)));
        let functions: Vec<(&str, u32, Option<u32>, u64)> = f
            .functions
            .iter()
            .map(|x| (x.name.as_str(), x.line, x.end_line, x.count))
            .collect();
        assert_eq!(
            functions,
            [
                ("check", 7, Some(10), 1),
                ("count", 13, Some(18), 1),
                ("report", 21, Some(25), 1),
                ("main", 28, Some(30), 1)
            ]
        );
        // The failing run: BRDA with `-` for branches never reached.
        let failed = fixture_text("coveragepy-valueerror.info");
        assert!(failed.contains(",-\n"));
        let (files, warnings) = parse(failed.as_bytes()).unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        assert!(files[0].lines.contains(&(9, 1)) && files[0].lines.contains(&(18, 0)));
        assert_eq!(files[0].functions[2].count, 0); // FNDA:0,report
    }

    #[test]
    fn concatenated_tracefiles_sum_every_line() {
        let ok = fixture_text("coveragepy-ok.info");
        let failed = fixture_text("coveragepy-valueerror.info");
        let (files, warnings) = read(&format!("{ok}{failed}"));
        assert!(warnings.is_empty(), "{warnings:?}");
        let (a, b) = (
            da_records(&ok, "wordstat.py"),
            da_records(&failed, "wordstat.py"),
        );
        let summed: Vec<(u32, u64)> = a.iter().zip(&b).map(|(x, y)| (x.0, x.1 + y.1)).collect();
        assert_eq!(files[0].lines, summed);
        assert!(files[0].lines.contains(&(9, 1)) && files[0].lines.contains(&(4, 2)));
        assert_eq!(files[0].functions[0].count, 2);
    }

    #[test]
    fn lcov_2_2_function_leaders_and_aliases() {
        // As geninfo(1) of lcov 2.2 describes it: FNL places a function,
        // each FNA names one alias (C++ constructors have two).
        let (files, warnings) = read(
            "TN:\nSF:/src/widget.cpp\nVER:4f2a\n\
             FNL:0,4,9\nFNA:0,3,Widget::Widget()\nFNA:0,2,Widget::Widget(int, int)\n\
             FNL:1,12\nFNA:1,0,helper\nFNA:7,1,nowhere\nFNF:2\nFNH:1\n\
             DA:4,5\nDA:12,0\nLF:2\nLH:1\nend_of_record\n",
        );
        let functions: Vec<(&str, u32, Option<u32>, u64)> = files[0]
            .functions
            .iter()
            .map(|x| (x.name.as_str(), x.line, x.end_line, x.count))
            .collect();
        assert_eq!(
            functions,
            [
                ("Widget::Widget()", 4, Some(9), 3),
                ("Widget::Widget(int, int)", 4, Some(9), 2),
                ("helper", 12, None, 0)
            ]
        );
        assert_eq!(warnings.len(), 1);
        assert_eq!(
            warnings[0].to_string(),
            "line 9: FNA: no FNL record with index 7 before it"
        );
    }

    #[test]
    fn fn_names_may_hold_commas_and_fnda_counts_may_be_floats() {
        let (files, warnings) = read(
            "SF:a.cpp\nFN:3,std::map<int, int>::find\nFN:5,9,main\nFN:20,30,helper\n\
             FNDA:2.6,std::map<int, int>::find\nFNDA:1.0,main\nFNDA:1,main\nFNDA:4,lost\n\
             end_of_record\n",
        );
        let f = &files[0].functions;
        assert_eq!(f[0].name, "std::map<int, int>::find");
        assert_eq!((f[0].line, f[0].end_line, f[0].count), (3, None, 3));
        assert_eq!(
            (f[1].name.as_str(), f[1].end_line, f[1].count),
            ("main", Some(9), 2)
        );
        assert_eq!((f[2].name.as_str(), f[2].count), ("helper", 0));
        assert_eq!(warnings.len(), 1);
        assert_eq!(
            warnings[0].to_string(),
            "line 8: FNDA: no FN record places the function `lost`; skipped"
        );
    }

    #[test]
    fn u64_max_counts_and_saturating_sums() {
        let (files, warnings) = read(
            "SF:a.c\nDA:1,18446744073709551615\nDA:2,18446744073709551616\nDA:3,1,abcdEF==\nend_of_record\n\
             SF:a.c\nDA:1,7\nDA:3,2\nFN:1,f\nFNDA:18446744073709551615,f\nend_of_record\n\
             SF:a.c\nFN:1,f\nFNDA:1,f\nend_of_record\n",
        );
        assert_eq!(files[0].lines, vec![(1, u64::MAX), (3, 3)]);
        assert_eq!(files[0].functions[0].count, u64::MAX);
        assert_eq!(warnings.len(), 1);
        assert_eq!(
            warnings[0].to_string(),
            "line 3: DA: the count `18446744073709551616` is beyond 2^64−1"
        );
    }

    #[test]
    fn a_malformed_line_of_a_real_file_is_skipped_and_named() {
        let text = fixture_text("coveragepy-ok.info");
        let mut lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[10..12], ["DA:17,1", "DA:18,1"]);
        lines[10] = "DA:17;1";
        lines[11] = "DA:18,-3";
        lines.insert(3, "XX:1");
        let (files, warnings) = read(&lines.join("\n"));
        let messages: Vec<String> = warnings.iter().map(|w| w.to_string()).collect();
        assert_eq!(
            messages,
            [
                "line 4: unknown record `XX`; skipped",
                "line 12: DA: expected <line>,<count>[,<checksum>], found `17;1`",
                "line 13: DA: the count `-3` is negative",
            ]
        );
        assert_eq!(files[0].lines.len(), 19);
        assert!(!files[0].lines.iter().any(|(l, _)| *l == 17 || *l == 18));
    }

    #[test]
    fn records_out_of_place_are_warnings() {
        let (files, warnings) = read(
            "DA:1,1\nend_of_record\nSF:\nDA:1,1\nend_of_record\nSF:b.c\nDA:0,1\nDA:2\n\
             BRDA:2,0,1\nBRDA:2,x,1,1\nBRDA:2,e0,0,-\nBRDA:2,0,a, b,c,5\nBRDA:2,0,1,x\nnonsense\n\
             SF:c.c\nDA:1,1\nend_of_record\n",
        );
        let messages: Vec<String> = warnings.iter().map(|w| w.to_string()).collect();
        assert_eq!(
            messages,
            [
                "line 1: DA outside a section (no SF before it)",
                "line 2: end_of_record outside a section (no SF before it)",
                "line 3: SF names no file; the section is skipped",
                "line 7: DA: line number 0 (lines count from 1)",
                "line 8: DA: expected <line>,<count>[,<checksum>], found `2`",
                "line 9: BRDA: expected <line>,<block>,<branch>,<taken or ->, found `2,0,1`",
                "line 10: BRDA: the block `x` is not a number",
                "line 13: BRDA: the count `x` is not a number",
                "line 14: expected KEY:VALUE, found `nonsense`",
                "line 15: the section of `b.c` (line 6) has no end_of_record; it ends here",
            ]
        );
        let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["b.c", "c.c"]);
        assert!(files[0].lines.is_empty());
    }

    #[test]
    fn a_truncated_file_keeps_what_it_read() {
        let text = fixture_text("geninfo-ok.info");
        let cut = text.find("DA:7,1").unwrap() + 4; // `DA:7` of counter.h (line 30)
        let (files, warnings) = parse(&text.as_bytes()[..cut]).unwrap();
        let last = text[..cut].lines().count();
        let messages: Vec<String> = warnings.iter().map(|w| w.to_string()).collect();
        assert_eq!(
            messages,
            [
                format!("line {last}: DA: expected <line>,<count>[,<checksum>], found `7`"),
                format!("line {last}: the file ends inside the section of `{C_DIR}counter.h` (line 19) without end_of_record (truncated?); what it holds is kept"),
            ]
        );
        assert_eq!(files.len(), 2);
        let header = file(&files, "counter.h");
        assert_eq!(header.lines, vec![(2, 4), (4, 4), (5, 0), (6, 4)]);
        assert_eq!(header.functions[0].count, 4);
        assert_eq!(file(&files, "parse.c").lines.len(), 9);
    }

    #[test]
    fn crlf_bom_and_invalid_utf8_are_read() {
        let text = fixture_text("coveragepy-ok.info");
        let (plain, _) = read(&text);
        let crlf = format!("\u{feff}{}", text.replace('\n', "\r\n"));
        let (files, warnings) = read(&crlf);
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(files, plain);
        let (files, _) = parse(b"SF:caf\xe9.c\nDA:1,1\nend_of_record\n").unwrap();
        assert_eq!(files[0].path, "caf\u{fffd}.c");
    }

    #[test]
    fn a_file_without_sf_is_an_error() {
        let e = parse(b"").unwrap_err();
        assert_eq!(e, ParseError::whole("the file is empty"));
        let e = parse(b"TN:x\nDA:1,1\n").unwrap_err();
        assert_eq!(e.place, Place::Whole);
        assert_eq!(
            e.message,
            "no SF record: not an LCOV tracefile; the first problem: line 2: DA outside a section (no SF before it)"
        );
        let e = parse(&fixture("coveragepy-ok.xml")).unwrap_err();
        assert!(e.message.starts_with("no SF record"), "{e}");
        let e = parse(&[0x1f, 0x8b, 0, 0xff, 0xfe]).unwrap_err();
        assert!(e.message.starts_with("no SF record"), "{e}");
    }

    #[test]
    fn warnings_are_capped() {
        let mut text = String::from("SF:a.c\n");
        for _ in 0..1000 {
            text.push_str("DA:x,1\n");
        }
        let (_, warnings) = read(&text);
        assert_eq!(warnings.len(), super::super::tally::MAX_WARNINGS + 1);
        assert!(warnings.last().unwrap().message.contains("(1001 in all)"));
    }
}
