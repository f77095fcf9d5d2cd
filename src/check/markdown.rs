//! The check as Markdown, for a GitHub job summary or one pull-request
//! comment kept up to date: a hidden marker line (by which a workflow finds
//! its earlier comment and edits it instead of adding one), a hidden line
//! of counts (by which it decides whether to comment at all), the verdict
//! line, a table of what changed (regressions first, each with its root
//! cause and its pages on the site), the rest counted in one line and
//! listed in a folded block. The whole stays under a length limit (GitHub
//! refuses a comment over 65,536 characters): what does not fit is counted
//! ("… and 212 more, see the report"), never cut mid-row.
//!
//! Names come from the input (benchmark folders, file names): they are
//! written as HTML-escaped text, with `|` escaped, so a name cannot break
//! the table, open a tag or fold the rest of the comment.

use super::{details, plural, status, BenchmarkCheck, CheckReport, FailOn};
use analysis::regression::{Direction, Severity, Verdict};
use render::format::{factor_words, measured, p_value, signed_percent};

/// The first line of every Markdown report: a comment GitHub does not
/// show, by which a workflow recognises the comment it posted before.
pub const MARKER: &str = "<!-- perfatlas-check -->";

/// Below GitHub's limit on a comment's length (65,536 characters), with
/// room for what a workflow adds (its marker's id).
pub const COMMENT_LIMIT: usize = 65_000;

impl CheckReport {
    /// The report as Markdown of at most `limit` characters (the table and
    /// the folded list end with a count of what did not fit).
    pub fn markdown(&self, limit: usize) -> String {
        let site = self.site_url.as_deref().map(|s| s.trim_end_matches('/'));
        let head = self.markdown_head(site);
        let (changed, rest) = self.changed_first();
        let tail = self.folded_details(&rest, site);
        let mut out = head;
        // The changes come first: the folded list gets what they leave.
        let budget = limit.saturating_sub(out.chars().count() + FOLD_MIN.min(tail.chars().count()));
        out.push_str(&changes_table(&changed, site, budget));
        out.push_str(&self.rest_line(&rest));
        let left = limit.saturating_sub(out.chars().count());
        out.push_str(&fit_lines(&tail, left, site));
        out
    }

    /// The marker, the counts, the verdict and the headline.
    fn markdown_head(&self, site: Option<&str>) -> String {
        let regressions = self
            .benchmarks
            .iter()
            .filter(|b| direction(b) == Some(Direction::Regression))
            .count();
        let improvements = self
            .benchmarks
            .iter()
            .filter(|b| direction(b) == Some(Direction::Improvement))
            .count();
        let mut out = format!(
            "{MARKER}\n<!-- perfatlas-findings regressions={regressions} improvements={improvements} failed={} -->\n### {}\n\n",
            self.failed,
            self.verdict_line()
        );
        out.push_str(&format!("{}.", text(&self.headline())));
        if let Some(site) = site {
            out.push_str(&format!(
                " [Full report]({})",
                link(&format!("{site}/index.html"))
            ));
        }
        out.push_str("\n\n");
        out
    }

    /// The benchmarks that changed (regressions, major first and largest
    /// first, then improvements), and the others (those without enough
    /// data first).
    fn changed_first(&self) -> (Vec<&BenchmarkCheck>, Vec<&BenchmarkCheck>) {
        let (mut changed, mut rest): (Vec<&BenchmarkCheck>, Vec<&BenchmarkCheck>) =
            self.benchmarks.iter().partition(|b| direction(b).is_some());
        changed.sort_by_key(|b| {
            let major = matches!(
                b.verdict,
                Verdict::Change {
                    severity: Severity::Major,
                    ..
                }
            );
            let size = b.relative.map_or(i64::MAX, |r| (r.abs() * 1e6) as i64);
            (
                direction(b) != Some(Direction::Regression),
                !major,
                std::cmp::Reverse(size),
            )
        });
        rest.sort_by_key(|b| match b.verdict {
            Verdict::NotEnoughData { .. } => 0,
            Verdict::HeldBack { .. } => 1,
            Verdict::Negligible { .. } => 2,
            _ => 3,
        });
        (changed, rest)
    }

    /// "212 benchmarks without a change, 2 without enough data (listed
    /// below)."
    fn rest_line(&self, rest: &[&BenchmarkCheck]) -> String {
        if rest.is_empty() {
            return String::new();
        }
        let unjudged = rest
            .iter()
            .filter(|b| matches!(b.verdict, Verdict::NotEnoughData { .. }))
            .count();
        let quiet = rest.len() - unjudged;
        let mut parts = Vec::new();
        if quiet > 0 {
            parts.push(format!(
                "{quiet} benchmark{} without a change",
                plural(quiet)
            ));
        }
        if unjudged > 0 {
            parts.push(format!(
                "{unjudged} benchmark{} without enough data to judge",
                plural(unjudged)
            ));
        }
        format!("{} (listed below).\n", parts.join(", "))
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

    /// How the verdicts were reached, how each change was found, the
    /// benchmarks the table leaves out and what was skipped, in a
    /// `<details>` block; one item per line, so it can be cut at a line.
    fn folded_details(&self, rest: &[&BenchmarkCheck], site: Option<&str>) -> String {
        let mut out = format!(
            "\n<details><summary>How this was judged{}</summary>\n\n",
            match rest.len() {
                0 => String::new(),
                n => format!(", and the {n} benchmark{} not in the table", plural(n)),
            }
        );
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
        for b in rest {
            out.push_str(&self.detail_item(b, site));
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
        out.push_str(CLOSE);
        out
    }

    /// One benchmark in the folded list: its figures and its interval.
    fn detail_item(&self, b: &BenchmarkCheck, site: Option<&str>) -> String {
        let mut out = format!("- {}: {}", name_link(&b.benchmark, site), text(&details(b)));
        if let Some((lo, hi)) = b.interval {
            out.push_str(&format!(
                "; {}% interval of the difference: {} to {}",
                self.confidence * 100.0,
                text(&signed(lo, &b.unit)),
                text(&signed(hi, &b.unit))
            ));
        }
        out.push('\n');
        out
    }
}

/// The end of the folded block.
const CLOSE: &str = "\n</details>\n";

/// What the folded block needs at least to say something (its summary,
/// the method and a count of what does not fit).
const FOLD_MIN: usize = 1_000;

/// The direction of a benchmark's change, when it changed.
fn direction(b: &BenchmarkCheck) -> Option<Direction> {
    match b.verdict {
        Verdict::Change { direction, .. } => Some(direction),
        _ => None,
    }
}

/// The table of changes in at most `budget` characters, the rows that do
/// not fit counted in its last line; a line saying so when nothing changed.
fn changes_table(changed: &[&BenchmarkCheck], site: Option<&str>, budget: usize) -> String {
    if changed.is_empty() {
        return "No benchmark changed.\n\n".to_string();
    }
    let mut out = String::from(
        "| | benchmark | before → after | change | root cause | see |\n|---|---|---|---|---|---|\n",
    );
    let more_line = |n: usize| {
        format!(
            "\n… and {n} more change{}, see the {}.\n",
            plural(n),
            match site {
                Some(site) => format!("[report]({})", link(&format!("{site}/index.html"))),
                None => "report".to_string(),
            }
        )
    };
    let reserve = more_line(changed.len()).chars().count() + 2;
    let mut used = out.chars().count();
    for (i, b) in changed.iter().enumerate() {
        let row = row(b, site);
        let n = row.chars().count();
        if used + n + reserve > budget {
            out.push_str(&more_line(changed.len() - i));
            out.push('\n');
            return out;
        }
        used += n;
        out.push_str(&row);
    }
    out.push('\n');
    out
}

/// The folded block in at most `left` characters: whole lines, the ones
/// that do not fit counted before it closes.
fn fit_lines(block: &str, left: usize, site: Option<&str>) -> String {
    if block.chars().count() <= left {
        return block.to_string();
    }
    let lines: Vec<&str> = block.split_inclusive('\n').collect();
    let see = match site {
        Some(site) => format!("[report]({})", link(&format!("{site}/index.html"))),
        None => "report".to_string(),
    };
    let reserve = 120 + see.len() + CLOSE.len();
    let mut out = String::new();
    let mut used = 0;
    for (i, line) in lines.iter().enumerate() {
        let n = line.chars().count();
        if used + n + reserve > left {
            let items = lines[i..].iter().filter(|l| l.starts_with("- ")).count();
            if used + reserve <= left {
                out.push_str(&format!("- … and {items} more, see the {see}.\n{CLOSE}"));
            } else if !out.is_empty() {
                out.push_str(CLOSE);
            }
            return out;
        }
        used += n;
        out.push_str(line);
    }
    out
}

/// One changed benchmark's row.
fn row(b: &BenchmarkCheck, site: Option<&str>) -> String {
    let mean = |m: Option<f64>| {
        m.map(|m| measured(m, &b.unit))
            .unwrap_or_else(|| "—".into())
    };
    let change = match b.relative {
        Some(r) => match factor_words(r, &b.unit) {
            Some(words) => format!("{} ({words})", signed_percent(r)),
            None => signed_percent(r),
        },
        None => String::new(),
    };
    let mut p = b.p_value.map(p_value).unwrap_or_default();
    // What found the change, when it is not the test the block names.
    if let Some(story) = b
        .change
        .as_ref()
        .filter(|s| !s.found_by.ends_with("versions' runs"))
    {
        p = match p.is_empty() {
            true => story.found_by.clone(),
            false => format!("{p}; {}", story.found_by),
        };
    }
    format!(
        "| {} | {} | {} → {} | {}{} | {} | {} |\n",
        match status(&b.verdict) {
            "MAJOR" => "**MAJOR**",
            other => other,
        },
        name_link(&b.benchmark, site),
        cell(&match b.window {
            // A single new value: against the mean of the values before it.
            Some(n) => format!("{} (mean of {n} before)", mean(b.reference_mean)),
            None => mean(b.baseline_mean),
        }),
        cell(&mean(b.newest_mean)),
        cell(&change),
        if p.is_empty() {
            String::new()
        } else {
            format!(", {}", cell(&p))
        },
        cause_cell(b),
        pages_cell(b, site)
    )
}

/// The root cause in a few words, or why there is none.
fn cause_cell(b: &BenchmarkCheck) -> String {
    let Some(story) = &b.change else {
        return String::new();
    };
    match (&story.root_cause, &story.no_root_cause) {
        (Some(c), _) => format!(
            "{}{} explains {:.0}%{}",
            code(&c.function),
            c.file
                .as_deref()
                .map(|f| format!(" ({})", cell(f)))
                .unwrap_or_default(),
            c.share * 100.0,
            if c.modified { ", modified ●" } else { "" }
        ),
        // A table cell says it in a few words; the reason is in the other
        // formats and on the change's page.
        (None, Some(why)) if why.starts_with("no profiles") => "— (no profiles)".into(),
        (None, Some(_)) => "— (no function's own change is significant)".into(),
        (None, None) => String::new(),
    }
}

/// Links to the change's page and flame diff on the site.
fn pages_cell(b: &BenchmarkCheck, site: Option<&str>) -> String {
    let (Some(story), Some(site)) = (&b.change, site) else {
        return String::new();
    };
    let page_word = match direction(b) {
        Some(Direction::Improvement) => "improvement",
        _ => "regression",
    };
    [
        story.page.as_ref().map(|p| (page_word, p)),
        story.flame_diff.as_ref().map(|p| ("flame diff", p)),
    ]
    .into_iter()
    .flatten()
    .map(|(word, path)| format!("[{word}]({})", link(&format!("{site}/{path}"))))
    .collect::<Vec<_>>()
    .join(" · ")
}

/// A benchmark's name, linked to its page when the site is known.
fn name_link(name: &str, site: Option<&str>) -> String {
    match site {
        Some(site) => format!(
            "[{}]({})",
            code(name),
            link(&format!("{site}/{}", render::paths::benchmark_page(name)))
        ),
        None => code(name),
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
