//! The check as Markdown, for a GitHub job summary or one pull-request
//! comment kept up to date: a hidden marker line (by which a workflow finds
//! its earlier comment and edits it instead of adding one), the verdict
//! line, a table of benchmarks, and the details folded away.
//!
//! Names come from the input (benchmark folders, file names): they are
//! written as HTML-escaped text, with `|` escaped, so a name cannot break
//! the table, open a tag or fold the rest of the comment.

use super::{details, plural, status, BenchmarkCheck, CheckReport, FailOn};
use analysis::regression::Verdict;
use render::format::{measured, p_value, signed_percent};

/// The first line of every Markdown report: a comment GitHub does not
/// show, by which a workflow recognises the comment it posted before.
pub const MARKER: &str = "<!-- perfatlas-check -->";

impl CheckReport {
    /// The report as Markdown; `site` is the published report's address,
    /// to which the benchmarks link.
    pub fn markdown(&self, site: Option<&str>) -> String {
        let site = site.map(|s| s.trim_end_matches('/'));
        let mut out = format!("{MARKER}\n### {}\n\n", self.verdict_line());
        out.push_str(&format!("{}.", text(&self.headline())));
        if let Some(site) = site {
            out.push_str(&format!(
                " [Full report]({})",
                link(&format!("{site}/index.html"))
            ));
        }
        out.push_str("\n\n");
        out.push_str(&format!(
            "| | benchmark | {} → {} | Δ | p | verdict |\n|---|---|---|---|---|---|\n",
            cell(&self.baseline),
            cell(&self.newest)
        ));
        for b in &self.benchmarks {
            out.push_str(&row(b, site));
        }
        out.push_str(&self.folded_details());
        out
    }

    /// "perfatlas check failed: 1 major regression" or "… passed"; never
    /// "passed" when no benchmark could be judged.
    fn verdict_line(&self) -> String {
        let failing = self.failures().count();
        let unjudged = || {
            format!(
                "{} of {} benchmark{} could not be judged",
                self.unjudged,
                self.benchmarks.len(),
                plural(self.benchmarks.len())
            )
        };
        match (self.failed, self.fail_on) {
            (true, _) if failing == 0 => format!("perfatlas check failed: {}", unjudged()),
            (true, FailOn::Major) => format!(
                "perfatlas check failed: {failing} major regression{}",
                plural(failing)
            ),
            (true, _) => format!(
                "perfatlas check failed: {failing} regression{}",
                plural(failing)
            ),
            (false, _) if self.judged == 0 => {
                format!("perfatlas check: no verdict: {}", unjudged())
            }
            (false, FailOn::Never) => "perfatlas check: regressions do not fail it".to_string(),
            (false, FailOn::Major) => "perfatlas check passed: no major regression".to_string(),
            (false, FailOn::Minor) => "perfatlas check passed: no regression".to_string(),
        }
    }

    /// How the verdicts were reached, the intervals, and what was skipped,
    /// in a `<details>` block.
    fn folded_details(&self) -> String {
        let mut out = String::from("\n<details><summary>How this was judged</summary>\n\n");
        let windowed = self.benchmarks.iter().any(|b| b.window.is_some());
        out.push_str(&format!(
            "{}{} at {}% confidence; figures from {}. ",
            text(self.test),
            if windowed {
                "; a single new value against the prediction interval of the values before it (since the last change point)"
            } else {
                ""
            },
            self.confidence * 100.0,
            text(&self.figures_sources())
        ));
        out.push_str(match self.fail_on {
            FailOn::Major => "Fails on a major regression (`--fail-on major`).\n\n",
            FailOn::Minor => "Fails on any regression (`--fail-on minor`).\n\n",
            FailOn::Never => "Never fails (`--fail-on never`).\n\n",
        });
        for b in &self.benchmarks {
            out.push_str(&format!("- {}: {}", code(&b.benchmark), text(&details(b))));
            if let Some((lo, hi)) = b.interval {
                out.push_str(&format!(
                    "; {}% interval of the difference: {} to {}",
                    self.confidence * 100.0,
                    text(&signed(lo, &b.unit)),
                    text(&signed(hi, &b.unit))
                ));
            }
            out.push('\n');
        }
        if !self.skipped.is_empty() {
            out.push_str(&format!(
                "\n{} input{} skipped:\n\n",
                self.skipped.len(),
                plural(self.skipped.len())
            ));
            for s in &self.skipped {
                out.push_str(&format!("- {}\n", text(&s.to_string())));
            }
        }
        out.push_str("\n</details>\n");
        out
    }
}

/// One benchmark's row.
fn row(b: &BenchmarkCheck, site: Option<&str>) -> String {
    let mean = |m: Option<f64>| {
        m.map(|m| measured(m, &b.unit))
            .unwrap_or_else(|| "—".into())
    };
    let name = match site {
        Some(site) => format!(
            "[{}]({})",
            code(&b.benchmark),
            link(&format!(
                "{site}/{}",
                render::paths::benchmark_page(&b.benchmark)
            ))
        ),
        None => code(&b.benchmark),
    };
    let p = b
        .p_value
        .map(|p| p_value(p).trim_start_matches("p = ").replace("p < ", "< "))
        .unwrap_or_default();
    format!(
        "| {} | {name} | {} → {} | {} | {} | {} |\n",
        match status(&b.verdict) {
            "MAJOR" => "**MAJOR**",
            other => other,
        },
        cell(&match b.window {
            // A single new value: against the mean of the values before it.
            Some(n) => format!("{} (mean of {n} before)", mean(b.reference_mean)),
            None => mean(b.baseline_mean),
        }),
        cell(&mean(b.newest_mean)),
        b.relative.map(signed_percent).unwrap_or_default(),
        cell(&p),
        cell(&category(&b.verdict))
    )
}

/// The verdict in words, with the reason when there is none.
fn category(v: &Verdict) -> String {
    match v {
        Verdict::NotEnoughData { reason } => format!("not enough data: {reason}"),
        v => super::category(v).to_string(),
    }
}

/// A difference with its sign, in the benchmark's unit.
fn signed(v: f64, unit: &str) -> String {
    match v < 0.0 {
        true => format!("−{}", measured(-v, unit)),
        false => format!("+{}", measured(v, unit)),
    }
}

/// Text from the input, safe in Markdown and HTML: no tag, no entity,
/// no line break.
fn text(s: &str) -> String {
    render::svg::escape_text(&s.replace(['\n', '\r'], " "))
}

/// Text in a table cell: `|` would end the cell.
fn cell(s: &str) -> String {
    text(s).replace('|', "\\|")
}

/// A name in code type; `<code>` rather than backticks, in which escaped
/// characters would show as entities.
fn code(s: &str) -> String {
    format!("<code>{}</code>", cell(s))
}

/// A link destination in angle brackets, which allow parentheses; what
/// would end it is percent-encoded.
fn link(url: &str) -> String {
    let mut out = String::from("<");
    for c in url.chars() {
        match c {
            '<' => out.push_str("%3C"),
            '>' => out.push_str("%3E"),
            ' ' => out.push_str("%20"),
            '|' => out.push_str("%7C"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out.push('>');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_cannot_open_tags_break_cells_or_end_links() {
        assert_eq!(
            code("a|b</details><script>"),
            "<code>a\\|b&lt;/details&gt;&lt;script&gt;</code>"
        );
        assert_eq!(text("x\ny & z"), "x y &amp; z");
        assert_eq!(
            link("https://e.org/a b/(c)|<d>"),
            "<https://e.org/a%20b/(c)%7C%3Cd%3E>"
        );
    }
}
