//! The check as JUnit XML, the test-report format GitLab, Jenkins, Azure
//! DevOps and GitHub's test-report actions read: one test case per
//! benchmark, a failure for each regression at or above `--fail-on`, a
//! skipped case for each benchmark without enough data, and the inputs
//! that could not be read in the suite's `system-err`.

use super::{category, details, CheckReport};
use analysis::regression::Verdict;
// The project's XML escaping: characters XML forbids (from the input's
// names) become U+FFFD.
use render::svg::{escape_attribute as attr, escape_text as text};

/// The class name of every test case: CI systems group cases by it.
const CLASS: &str = "perfatlas.check";

impl CheckReport {
    /// The report as a JUnit XML document, ending in a newline.
    pub fn junit(&self) -> String {
        let tests = self.benchmarks.len();
        let failures = self.failures().count();
        let skipped = self
            .benchmarks
            .iter()
            .filter(|b| matches!(b.verdict, Verdict::NotEnoughData { .. }))
            .count();
        let counts =
            format!(r#"tests="{tests}" failures="{failures}" errors="0" skipped="{skipped}""#);
        let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        out.push_str(&format!("<testsuites name=\"perfatlas check\" {counts}>\n"));
        out.push_str(&format!(
            "  <testsuite name=\"{}\" {counts}>\n",
            attr(&format!(
                "perfatlas check: {} against {}",
                self.newest, self.baseline
            ))
        ));
        out.push_str("    <properties>\n");
        for (name, value) in [
            ("baseline", self.baseline.clone()),
            ("newest", self.newest.clone()),
            ("test", self.test.to_string()),
            ("confidence", self.confidence.to_string()),
            ("fail_on", format!("{:?}", self.fail_on).to_lowercase()),
        ] {
            out.push_str(&format!(
                "      <property name=\"{name}\" value=\"{}\"/>\n",
                attr(&value)
            ));
        }
        out.push_str("    </properties>\n");
        let failing: Vec<&str> = self.failures().map(|b| b.benchmark.as_str()).collect();
        for b in &self.benchmarks {
            let name = attr(&b.benchmark);
            let what = match self.story_words(b) {
                Some(story) => format!("{}: {}; {story}", category(&b.verdict), details(b)),
                None => format!("{}: {}", category(&b.verdict), details(b)),
            };
            out.push_str(&format!(
                "    <testcase name=\"{name}\" classname=\"{CLASS}\">\n"
            ));
            if failing.contains(&b.benchmark.as_str()) {
                out.push_str(&format!(
                    "      <failure type=\"{}\" message=\"{}\">{}</failure>\n",
                    category(&b.verdict),
                    attr(&what),
                    text(&format!("{what}\nfigures from {}", b.figures))
                ));
            } else if let Verdict::NotEnoughData { reason } = &b.verdict {
                out.push_str(&format!(
                    "      <skipped message=\"{}\"/>\n",
                    attr(&format!("not enough data: {reason}"))
                ));
            } else {
                out.push_str(&format!("      <system-out>{}</system-out>\n", text(&what)));
            }
            out.push_str("    </testcase>\n");
        }
        if !self.skipped.is_empty() {
            let lines: Vec<String> = self
                .skipped
                .iter()
                .map(|s| format!("skipped: {s}"))
                .collect();
            out.push_str(&format!(
                "    <system-err>{}</system-err>\n",
                text(&lines.join("\n"))
            ));
        }
        out.push_str("  </testsuite>\n</testsuites>\n");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_escaped_and_characters_xml_forbids_replaced() {
        assert_eq!(
            attr("a\"<b>&\u{1}c\nd"),
            "a&quot;&lt;b&gt;&amp;\u{FFFD}c&#10;d"
        );
        assert_eq!(text("x\u{FFFE}y\u{0}z"), "x\u{FFFD}y\u{FFFD}z");
    }
}
