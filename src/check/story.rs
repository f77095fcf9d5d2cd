//! A changed benchmark's story in `check`: the version responsible, what
//! found the change, the function in the call trees that explains it, and
//! the site's pages that show it. For the default baseline it is the very
//! change the site's index lists (same root cause, same pages); for another
//! baseline the root cause of that pair, without pages.

use serde::Serialize;

use analysis::regression::Direction;
use analysis::regression_report::{BenchmarkReport, RegressionReport};
use analysis::report::CauseFinder;
use analysis::root_cause::RootCause;
use config::Config;
use model::History;

/// What a regression or improvement of the newest version is, and why.
#[derive(Debug, Clone, Serialize)]
pub struct ChangeStory {
    /// Label of the last version before the change.
    pub since: String,
    /// Label of the version responsible for it.
    pub responsible: String,
    /// Versions between the two without figures: the responsible version
    /// is one of them or `responsible` (`perfatlas bisect` narrows it).
    pub unmeasured_between: usize,
    /// What found the change, in words: a test between the two versions'
    /// runs, a change point, the newest value against the ones before it.
    pub found_by: String,
    /// The function whose own change explains most of the difference.
    pub root_cause: Option<CauseStory>,
    /// Why there is no root cause, when there is none.
    pub no_root_cause: Option<String>,
    /// The change's page, relative to the site's root (`site_url`).
    pub page: Option<String>,
    /// The differential flame graph of the two versions, likewise.
    pub flame_diff: Option<String>,
}

/// The root cause in a few words' worth of fields.
#[derive(Debug, Clone, Serialize)]
pub struct CauseStory {
    pub function: String,
    pub file: Option<String>,
    /// Share of the profile's difference its own change explains, 0 to 1
    /// (above 1 when other functions moved the other way).
    pub share: f64,
    /// Whether a version after `since` up to `responsible` modified its
    /// code (● on the site).
    pub modified: bool,
    /// The profiled benchmark whose call trees were compared.
    pub profiled: String,
    /// The profile metric compared.
    pub metric: String,
}

impl CauseStory {
    fn of(cause: &RootCause) -> Option<CauseStory> {
        let f = cause.main_function()?;
        Some(CauseStory {
            function: f.name.clone(),
            file: f.file.clone(),
            share: f.share,
            modified: f.modified,
            profiled: cause.benchmark.clone(),
            metric: cause.metric.clone(),
        })
    }

    /// "`list` (src/Tokenizer.js) explains 83% of the difference,
    /// modified ●", plain text.
    pub fn words(&self) -> String {
        format!(
            "{}{} explains {:.0}% of the difference{}",
            self.function,
            self.file
                .as_deref()
                .map(|f| format!(" ({f})"))
                .unwrap_or_default(),
            self.share * 100.0,
            if self.modified { ", modified ●" } else { "" }
        )
    }
}

/// What the stories are told from.
pub struct Teller<'a> {
    pub history: &'a History,
    pub config: &'a Config,
    pub finder: &'a CauseFinder,
    pub site: &'a RegressionReport,
    /// The site's differential flame-graph pages.
    pub diff_pages: &'a [render::flame_plan::DiffPlan],
    pub baseline: usize,
    pub newest: usize,
}

impl Teller<'_> {
    /// The story of `bench`'s change in `direction` between the baseline
    /// and the newest version.
    pub fn story(&self, bench: &BenchmarkReport, direction: Direction) -> ChangeStory {
        let name = &bench.series.benchmark;
        let listed = self.site.changes.iter().enumerate().find(|(_, c)| {
            &c.benchmark == name && c.after == self.newest && c.direction == direction
        });
        let label = |v: usize| self.history.versions[v].label.clone();
        let version = |v: usize| self.history.versions[v].name.as_str();
        match listed {
            Some((i, c)) if c.before == self.baseline || self.baseline + 1 == self.newest => {
                let cause = self.site.causes[i].as_ref();
                ChangeStory {
                    since: label(c.before),
                    responsible: label(c.after),
                    unmeasured_between: match c.method {
                        analysis::regression::Method::Adjacent => 0,
                        analysis::regression::Method::Gap { unmeasured } => unmeasured,
                    },
                    found_by: render::verdict_words::found_by(self.history, c)
                        .unwrap_or_else(|| self.test_words()),
                    root_cause: cause.and_then(CauseStory::of),
                    no_root_cause: no_cause(cause, bench),
                    page: Some(render::paths::change_page(
                        c,
                        version(c.before),
                        version(c.after),
                    )),
                    flame_diff: cause.and_then(|x| self.diff_page(&x.benchmark, c.before, c.after)),
                }
            }
            _ => self.direct_story(bench, direction),
        }
    }

    /// A pair the site does not list as a change (another baseline, or a
    /// verdict the site reached by other means): its root cause, computed
    /// here, and the flame diff when the site has one.
    fn direct_story(&self, bench: &BenchmarkReport, direction: Direction) -> ChangeStory {
        let pair = (self.baseline, self.newest);
        let cause = bench.explained_by.as_ref().map(|(profiled, _)| {
            self.finder
                .cause(self.history, self.config, profiled, pair, direction)
        });
        ChangeStory {
            since: self.history.versions[pair.0].label.clone(),
            responsible: self.history.versions[pair.1].label.clone(),
            unmeasured_between: 0,
            found_by: self.test_words(),
            root_cause: cause.as_ref().and_then(CauseStory::of),
            no_root_cause: no_cause(cause.as_ref(), bench),
            page: None,
            flame_diff: cause
                .as_ref()
                .and_then(|x| self.diff_page(&x.benchmark, pair.0, pair.1)),
        }
    }

    fn test_words(&self) -> String {
        format!(
            "{} between the two versions' runs",
            self.site.settings.test.label()
        )
    }

    fn diff_page(&self, benchmark: &str, old: usize, new: usize) -> Option<String> {
        self.diff_pages
            .iter()
            .find(|p| p.benchmark == benchmark && p.old == old && p.new == new)
            .map(|p| p.path.clone())
    }
}

/// Why a change has no root cause.
fn no_cause(cause: Option<&RootCause>, bench: &BenchmarkReport) -> Option<String> {
    match cause {
        Some(c) if c.main_function().is_some() => None,
        Some(c) => Some(c.none.clone().unwrap_or_else(|| {
            "no function's own change is significant in the change's direction".into()
        })),
        None if bench.explained_by.is_none() => Some(
            "no profiles explain this benchmark: profile it under the same name, or name its profiles in `[[benchmarks]]`".into(),
        ),
        None => None,
    }
}
