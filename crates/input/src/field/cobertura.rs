//! Cobertura XML coverage (`.xml`), as coverage.py (`coverage xml`), gcovr
//! (`--cobertura`), Cobertura itself, JaCoCo converters, istanbul and
//! coverlet write it:
//!
//! ```text
//! <coverage …>
//!   <sources><source>/abs/dir</source></sources>
//!   <packages><package name="…"><classes>
//!     <class name="…" filename="src/a.py">
//!       <methods><method name="f" signature="…" [hits="3"]>
//!         <lines><line number="4" hits="3"/>…</lines>
//!       </method></methods>
//!       <lines><line number="4" hits="3" [branch="true" condition-coverage="…"]/>…</lines>
//!     </class>
//!   </classes></package></packages>
//! </coverage>
//! ```
//!
//! This module owns reading one such file into [`FileCoverage`]s. A file's
//! path is the class's `filename` as written: it is not joined with
//! `<sources>` (coverage.py and gcovr write paths relative to a source
//! root, the same paths their LCOV output names). Line counts are the
//! class's own `lines`; the `lines` inside a method repeat some of them and
//! only place the method: it starts at its first line, ends at its last,
//! and its count is the method's `hits` when given, else its first line's.
//! A file named by several classes (inner classes) has their lines summed.
//! Branch details (`condition-coverage`, `conditions`) are not kept.
//!
//! An element that cannot be read (a `line` without `hits`, a class
//! without `filename`) is skipped with a warning naming its line. Broken
//! XML, a truncated file or a root other than `<coverage>` is an error: a
//! document cut short cannot be trusted the way a line-based file can.

use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};

use super::tally::{count, excerpt, line_number, Tally, Warnings};
use super::FileCoverage;
use crate::text;
use model::error::ParseError;

/// Reads a Cobertura XML file: the coverage of every source file its
/// classes name (sorted by path), and the elements that were skipped.
pub fn parse(bytes: &[u8]) -> Result<(Vec<FileCoverage>, Vec<ParseError>), ParseError> {
    let data = text::decode_text(bytes);
    let data = data.trim_start_matches('\u{feff}');
    if data.trim().is_empty() {
        return Err(ParseError::whole("the file is empty"));
    }
    let mut reader = Reader::from_str(data);
    let mut lines = LineCounter::new(data);
    let mut doc = Document::default();
    loop {
        let start = reader.buffer_position();
        let event = reader.read_event().map_err(|e| {
            let at = lines.line_at(reader.error_position());
            ParseError::line(at, format!("not well-formed XML: {e}"))
        })?;
        let line = lines.line_at(start);
        match event {
            Event::Start(element) => doc.open(&element, line)?,
            Event::Empty(element) => {
                doc.open(&element, line)?;
                doc.close();
            }
            Event::End(_) => doc.close(),
            Event::Eof => break,
            _ => {}
        }
    }
    doc.finish(lines.line_at(data.len() as u64))
}

/// Byte offsets to 1-based line numbers, for offsets that only grow.
struct LineCounter<'a> {
    data: &'a str,
    offset: usize,
    line: usize,
}

impl<'a> LineCounter<'a> {
    fn new(data: &'a str) -> LineCounter<'a> {
        LineCounter {
            data,
            offset: 0,
            line: 1,
        }
    }

    /// The line holding byte `offset` (an offset behind the last one asked
    /// for gives the last line).
    fn line_at(&mut self, offset: u64) -> usize {
        let offset = usize::try_from(offset)
            .unwrap_or(usize::MAX)
            .min(self.data.len());
        if offset > self.offset {
            let passed = &self.data.as_bytes()[self.offset..offset];
            self.line += passed.iter().filter(|&&b| b == b'\n').count();
            self.offset = offset;
        }
        self.line
    }
}

/// The elements perfatlas reads; everything else is [`Tag::Other`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tag {
    Coverage,
    Classes,
    Class,
    Methods,
    Method,
    Lines,
    Line,
    Other,
}

impl Tag {
    fn of(name: &str) -> Tag {
        match name {
            "coverage" => Tag::Coverage,
            "classes" => Tag::Classes,
            "class" => Tag::Class,
            "methods" => Tag::Methods,
            "method" => Tag::Method,
            "lines" => Tag::Lines,
            "line" => Tag::Line,
            _ => Tag::Other,
        }
    }
}

/// The reading state: open elements, the class and method being read, and
/// everything read so far.
#[derive(Default)]
struct Document {
    open: Vec<Tag>,
    /// The class being read: `Some(None)` when its `filename` was unusable.
    class: Option<Option<String>>,
    method: Option<Method>,
    /// True once any `class` element was seen, even a bad one.
    saw_class: bool,
    tally: Tally,
    warnings: Warnings,
}

/// A method while its lines are read.
struct Method {
    name: String,
    hits: Option<u64>,
    /// (first line, its hits, last line), once a line was read.
    span: Option<(u32, u64, u32)>,
}

impl Document {
    fn open(&mut self, element: &BytesStart, line: usize) -> Result<(), ParseError> {
        let name = element.local_name();
        let tag = Tag::of(name.as_ref());
        let parent = self.open.last().copied();
        match (parent, tag) {
            (None, Tag::Coverage) => {}
            (None, _) => {
                return Err(ParseError::line(
                    line,
                    format!(
                        "not Cobertura XML: the root element is <{}>, expected <coverage>",
                        excerpt(name.as_ref())
                    ),
                ))
            }
            (Some(Tag::Classes), Tag::Class) => self.start_class(element, line),
            (Some(Tag::Methods), Tag::Method) if self.class.is_some() => {
                self.start_method(element, line)
            }
            (Some(Tag::Lines), Tag::Line) => self.line(element, line),
            _ => {}
        }
        self.open.push(tag);
        Ok(())
    }

    fn close(&mut self) {
        match self.open.pop() {
            Some(Tag::Class) => self.class = None,
            Some(Tag::Method) => self.end_method(),
            _ => {}
        }
    }

    fn start_class(&mut self, element: &BytesStart, line: usize) {
        self.saw_class = true;
        let problem = match attribute(element, "filename") {
            Ok(Some(path)) if !path.trim().is_empty() => {
                self.class = Some(Some(path));
                return;
            }
            Ok(Some(_)) => "an empty filename".to_string(),
            Ok(None) => "no filename".to_string(),
            Err(e) => format!("a bad filename ({e})"),
        };
        self.warn(
            line,
            format!("<class> has {problem}; its lines are skipped"),
        );
        self.class = Some(None);
    }

    fn start_method(&mut self, element: &BytesStart, line: usize) {
        let name = match attribute(element, "name") {
            Ok(Some(name)) => name,
            Ok(None) => return self.warn(line, "<method> has no name; skipped"),
            Err(e) => return self.warn(line, format!("<method> has a bad name ({e}); skipped")),
        };
        let hits = match attribute(element, "hits").and_then(|h| h.map(|h| count(&h)).transpose()) {
            Ok(hits) => hits,
            Err(e) => {
                self.warn(
                    line,
                    format!("<method> hits: {e}; its first line's are used"),
                );
                None
            }
        };
        self.method = Some(Method {
            name,
            hits,
            span: None,
        });
    }

    /// A method's end adds it as a function, when one of its lines placed it.
    fn end_method(&mut self) {
        let (Some(method), Some(Some(path))) = (self.method.take(), &self.class) else {
            return;
        };
        if let Some((first, first_hits, last)) = method.span {
            let calls = method.hits.unwrap_or(first_hits);
            self.tally
                .file(path)
                .add_function(&method.name, first, Some(last), calls);
        }
    }

    /// `<line number="…" hits="…">`: a class's line count, or a line that
    /// places the method around it.
    fn line(&mut self, element: &BytesStart, line: usize) {
        let owner = self.open.iter().rev().nth(1).copied();
        if !matches!(owner, Some(Tag::Class | Tag::Method)) {
            return;
        }
        let (number, hits) = match line_figures(element) {
            Ok(figures) => figures,
            Err(e) => return self.warn(line, format!("<line>: {e}; skipped")),
        };
        match (owner, &self.class, &mut self.method) {
            (Some(Tag::Class), Some(Some(path)), _) => {
                self.tally.file(path).add_line(number, hits);
            }
            (Some(Tag::Method), _, Some(method)) => {
                method.span = Some(match method.span {
                    None => (number, hits, number),
                    Some((first, _, last)) if number < first => (number, hits, last),
                    Some((first, first_hits, last)) => (first, first_hits, last.max(number)),
                });
            }
            _ => {}
        }
    }

    fn warn(&mut self, line: usize, message: impl Into<String>) {
        self.warnings.push(ParseError::line(line, message));
    }

    /// The coverage read, unless the document was cut short or held no
    /// class at all.
    fn finish(self, last_line: usize) -> Result<(Vec<FileCoverage>, Vec<ParseError>), ParseError> {
        if !self.open.is_empty() {
            return Err(ParseError::line(
                last_line,
                format!(
                    "the file ends inside {} open element(s) (truncated?)",
                    self.open.len()
                ),
            ));
        }
        if !self.saw_class {
            return Err(ParseError::whole(
                "no <class> element: the file holds no coverage (or is not Cobertura XML)",
            ));
        }
        Ok((self.tally.finish(), self.warnings.finish()))
    }
}

/// A `<line>`'s `number` and `hits`.
fn line_figures(element: &BytesStart) -> Result<(u32, u64), String> {
    let number = attribute(element, "number").map_err(|e| format!("number: {e}"))?;
    let hits = attribute(element, "hits").map_err(|e| format!("hits: {e}"))?;
    let (Some(number), Some(hits)) = (number, hits) else {
        return Err("needs both number and hits".to_string());
    };
    Ok((line_number(&number)?, count(&hits)?))
}

/// The value of attribute `key`, entities resolved; `None` when absent.
fn attribute(element: &BytesStart, key: &str) -> Result<Option<String>, String> {
    let Some(attr) = element.try_get_attribute(key).map_err(|e| e.to_string())? else {
        return Ok(None);
    };
    let value = attr
        .normalized_value(XmlVersion::Implicit1_0)
        .map_err(|e| e.to_string())?;
    Ok(Some(value.into_owned()))
}

#[cfg(test)]
mod tests {
    use super::super::{fixture, lcov};
    use super::*;
    use model::error::Place;

    fn read(text: &str) -> Result<(Vec<FileCoverage>, Vec<ParseError>), ParseError> {
        parse(text.as_bytes())
    }

    fn wrap(classes: &str) -> String {
        format!("<?xml version=\"1.0\" ?>\n<coverage>\n<packages><package><classes>\n{classes}\n</classes></package></packages>\n</coverage>\n")
    }

    #[test]
    fn coverage_py_xml_gives_the_line_counts_of_its_lcov() {
        for run in ["coveragepy-ok", "coveragepy-valueerror"] {
            let (xml, warnings) = parse(&fixture(&format!("{run}.xml"))).unwrap();
            assert!(warnings.is_empty(), "{warnings:?}");
            let (info, _) = lcov::parse(&fixture(&format!("{run}.info"))).unwrap();
            assert_eq!(xml.len(), 1);
            // The same path (`filename`, not joined with <source>) and the
            // same counts; coverage.py writes <methods/> empty.
            assert_eq!(xml[0].path, info[0].path);
            assert_eq!(xml[0].lines, info[0].lines, "{run}");
            assert!(xml[0].functions.is_empty());
        }
        let (xml, _) = parse(&fixture("coveragepy-valueerror.xml")).unwrap();
        assert_eq!(xml[0].lines.len(), 21); // lines-valid="21"
        assert!(xml[0].lines.contains(&(9, 1)) && xml[0].lines.contains(&(18, 0)));
    }

    #[test]
    fn gcovr_xml_gives_the_counts_of_lcov_from_the_same_counters() {
        // gcovr read the .gcda files lcov read: its counter.h is already
        // summed over both objects, like `lcov -a`. Method lines repeat
        // the class's lines and are not counted twice.
        let (xml, warnings) = parse(&fixture("gcovr-ok.xml")).unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        let (info, _) = lcov::parse(&fixture("geninfo-ok.merged.info")).unwrap();
        let paths: Vec<&str> = xml.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["counter.c", "counter.h", "parse.c"]);
        for (x, i) in xml.iter().zip(&info) {
            assert!(i.path.ends_with(&format!("/{}", x.path)));
            assert_eq!(x.lines, i.lines, "{}", x.path);
            // A method starts at its first line, whose hits are the calls
            // lcov's FNDA counts.
            let xf: Vec<(&str, u32, u64)> = x
                .functions
                .iter()
                .map(|f| (f.name.as_str(), f.line, f.count))
                .collect();
            let lf: Vec<(&str, u32, u64)> = i
                .functions
                .iter()
                .map(|f| (f.name.as_str(), f.line, f.count))
                .collect();
            assert_eq!(xf, lf, "{}", x.path);
        }
        let clamp = &xml[1].functions[0];
        assert_eq!((clamp.line, clamp.end_line, clamp.count), (2, Some(8), 5));
    }

    #[test]
    fn methods_take_their_hits_or_their_first_line() {
        let (files, warnings) = read(&wrap(
            r#"<class name="A" filename="a.js"><methods>
                 <method name="f" hits="7"><lines><line number="5" hits="2"/><line number="3" hits="1"/></lines></method>
                 <method name="g"><lines><line number="9" hits="4"/><line number="11" hits="0"/></lines></method>
                 <method name="empty"/>
               </methods><lines><line number="3" hits="1"/><line number="9" hits="4"/></lines></class>
               <class name="A$Inner" filename="a.js"><lines><line number="9" hits="1"/><line number="20" hits="2"/></lines></class>"#,
        ))
        .unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(files.len(), 1);
        // Two classes of one file: summed.
        assert_eq!(files[0].lines, vec![(3, 1), (9, 5), (20, 2)]);
        let f: Vec<(&str, u32, Option<u32>, u64)> = files[0]
            .functions
            .iter()
            .map(|f| (f.name.as_str(), f.line, f.end_line, f.count))
            .collect();
        assert_eq!(f, [("f", 3, Some(5), 7), ("g", 9, Some(11), 4)]);
    }

    #[test]
    fn bad_elements_are_warnings_at_their_line() {
        let (files, warnings) = read(&wrap(
            "<class name=\"A\" filename=\"a.c\"><lines>\n\
             <line number=\"1\" hits=\"3\"/>\n\
             <line number=\"2\"/>\n\
             <line number=\"0\" hits=\"1\"/>\n\
             <line number=\"4\" hits=\"-2\"/>\n\
             <line number=\"5\" hits=\"18446744073709551615\"/>\n\
             <line number=\"6\" hits=\"2.0\"/>\n\
             <line number=\"7\" hits=\"&bogus;\"/>\n\
             </lines></class>\n\
             <class name=\"B\"><lines><line number=\"1\" hits=\"1\"/></lines></class>\n\
             <class name=\"C\" filename=\"c&amp;d.c\"><lines><line number=\"1\" hits=\"1\"/></lines></class>",
        ))
        .unwrap();
        let messages: Vec<String> = warnings.iter().map(|w| w.to_string()).collect();
        assert_eq!(messages.len(), 5, "{messages:?}");
        assert_eq!(
            messages[0],
            "line 6: <line>: needs both number and hits; skipped"
        );
        assert_eq!(
            messages[1],
            "line 7: <line>: line number 0 (lines count from 1); skipped"
        );
        assert_eq!(
            messages[2],
            "line 8: <line>: the count `-2` is negative; skipped"
        );
        assert_eq!(
            messages[3],
            "line 11: <line>: hits: at 1..6: unrecognized entity `bogus`; skipped"
        );
        assert_eq!(
            messages[4],
            "line 13: <class> has no filename; its lines are skipped"
        );
        assert_eq!(files[0].path, "a.c");
        assert_eq!(files[0].lines, vec![(1, 3), (5, u64::MAX), (6, 2)]);
        assert_eq!(files[1].path, "c&d.c");
    }

    #[test]
    fn broken_truncated_or_foreign_xml_is_an_error_with_a_line() {
        let real = String::from_utf8(fixture("coveragepy-ok.xml")).unwrap();
        let cut = &real[..real.find("<line number=\"13\"").unwrap() + 10];
        let e = read(cut).unwrap_err();
        assert!(matches!(e.place, Place::Line(n) if n > 10), "{e}");
        assert!(e.message.starts_with("not well-formed XML"), "{e}");
        let closed = &real[..real.find("</lines>").unwrap()];
        let e = read(closed).unwrap_err();
        assert!(e.message.contains("truncated"), "{e}");
        let e =
            read("<?xml version=\"1.0\"?>\n<report><class filename=\"a\"/></report>").unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 2: not Cobertura XML: the root element is <report>, expected <coverage>"
        );
        let e = read("<coverage><packages/></coverage>").unwrap_err();
        assert!(e.message.starts_with("no <class> element"), "{e}");
        let e = read("<coverage><a></b></coverage>").unwrap_err();
        assert_eq!(e.place, Place::Line(1));
        let e = parse(&fixture("geninfo-ok.info")).unwrap_err();
        assert!(e.message.contains("no <class> element"), "{e}");
        assert_eq!(parse(b" \n").unwrap_err().message, "the file is empty");
    }

    #[test]
    fn doctype_entities_are_not_expanded() {
        let text = "<?xml version=\"1.0\"?>\n<!DOCTYPE coverage [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;\">]>\n\
                    <coverage><packages><package><classes><class filename=\"&b;\"><lines><line number=\"1\" hits=\"1\"/></lines></class></classes></package></packages></coverage>";
        let (files, warnings) = read(text).unwrap();
        assert!(files.is_empty());
        assert_eq!(warnings.len(), 1);
        assert_eq!(warnings[0].place, Place::Line(3));
        assert!(warnings[0].message.starts_with("<class> has a bad filename (at 1..2: unrecognized entity `b`); its lines are skipped"), "{:?}", warnings[0]);
    }
}
