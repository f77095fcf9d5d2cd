//! `perfatlas.toml` (the history's settings) and `version.toml` (one
//! version's label, date and revision).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use model::error::BuildError;

mod version;
pub use version::{civil_from_days, Remark, VersionConfig};

/// Settings from `perfatlas.toml`. Every field is optional.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Report title; defaults to the input directory's name.
    pub title: Option<String>,
    /// Explicit version order (directory names). Versions found but not
    /// listed come after, in natural order.
    #[serde(default)]
    pub versions: Vec<String>,
    /// Flame-graph settings.
    #[serde(default)]
    pub flame: FlameConfig,
    /// Evolution-matrix settings.
    #[serde(default)]
    pub matrix: MatrixConfig,
    /// How versions map to a git repository's revisions and paths.
    #[serde(default)]
    pub vcs: VcsConfig,
    /// Metrics: a derived metric is a name and a formula over a profile's
    /// metrics (`bytes_per_object = "alloc_space / alloc_objects"`); a
    /// table says more of a metric, unit or benchmark (`[metrics."MB/s"]
    /// direction = "higher"`), see [`MetricSetting`].
    #[serde(default)]
    pub metrics: std::collections::BTreeMap<String, MetricSetting>,
    /// Regression detection (PRCA).
    #[serde(default)]
    pub regressions: RegressionConfig,
    /// Field executions: named views.
    #[serde(default)]
    pub field: FieldConfig,
    /// What makes two frames of different versions the same function.
    #[serde(default)]
    pub identity: IdentityConfig,
    /// How input files are read: which names are repetitions.
    #[serde(default)]
    pub input: InputConfig,
    /// Measured benchmarks: display names and the profiles that explain
    /// them (`[[benchmarks]]`).
    #[serde(default)]
    pub benchmarks: Vec<BenchmarkConfig>,
}

/// One `[metrics]` entry: a derived metric's formula, or a table with an
/// optional formula and the direction in which the metric improves.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum MetricSetting {
    Formula(String),
    Table(MetricTable),
}

/// `[metrics.NAME]`: NAME is a derived metric, a profile metric, a unit
/// (`"MB/s"`, `"score"`) or a benchmark as read.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MetricTable {
    /// A derived metric's formula.
    #[serde(default)]
    pub formula: Option<String>,
    /// `"lower"` or `"higher"`: which way the metric improves (default:
    /// from its format or unit, else lower).
    #[serde(default)]
    pub direction: Option<String>,
}

impl Config {
    /// The derived metrics: name → formula.
    pub fn formulas(&self) -> std::collections::BTreeMap<String, String> {
        self.metrics
            .iter()
            .filter_map(|(name, setting)| match setting {
                MetricSetting::Formula(f) => Some((name.clone(), f.clone())),
                MetricSetting::Table(t) => Some((name.clone(), t.formula.clone()?)),
            })
            .collect()
    }

    /// The configured direction of the first of `names` (a metric, unit
    /// or benchmark) that has one.
    pub fn direction_of<'a>(
        &self,
        names: impl IntoIterator<Item = &'a str>,
    ) -> Option<model::Better> {
        names
            .into_iter()
            .find_map(|name| match self.metrics.get(name)? {
                MetricSetting::Table(t) => model::Better::parse(t.direction.as_deref()?),
                MetricSetting::Formula(_) => None,
            })
    }

    /// Directions that are neither `lower` nor `higher`, as messages.
    pub fn direction_errors(&self) -> Vec<String> {
        self.metrics
            .iter()
            .filter_map(|(name, setting)| match setting {
                MetricSetting::Table(MetricTable {
                    direction: Some(d), ..
                }) if model::Better::parse(d).is_none() => Some(format!(
                    "[metrics.{name:?}] direction = {d:?}: expected \"lower\" or \"higher\""
                )),
                _ => None,
            })
            .collect()
    }
}

/// `[input]`: how file names map to benchmarks and repetitions.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct InputConfig {
    pub repetitions: Repetitions,
    /// Symbolic links that lead out of the input directory are not
    /// followed (a version folder linked in, a file linked to): for a
    /// history from an untrusted upload, which must not read the system.
    /// Set by the command line (`--no-follow-links`) only, never by the
    /// input's own `perfatlas.toml`, which the upload would write.
    #[serde(skip)]
    pub no_outside_links: bool,
}

/// Which file names are repetitions of one benchmark.
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Repetitions {
    /// `NAME.N.ext`, and also `NAME-N.ext`, `NAME_N.ext` and `NAME/N.ext`
    /// when a name's numbers across the history are 1…k or 0…k−1 (more
    /// than one of them for `NAME-N` and `NAME_N`, so that `fib-30` alone,
    /// or `fib-10` beside `fib-20`, stay benchmarks of their own).
    #[default]
    Auto,
    /// Only `NAME.N.ext`.
    Dot,
}

/// `[identity]`: file-path rewrites the built-in rules miss (see
/// [`model::identity`]).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct IdentityConfig {
    /// Prefix rewrites; `{version}` in `from` stands for any version's name
    /// or label.
    pub path_map: Vec<PathRule>,
}

impl IdentityConfig {
    pub fn rewrites(&self) -> Vec<(String, String)> {
        self.path_map
            .iter()
            .map(|r| (r.from.clone(), r.to.clone()))
            .collect()
    }
}

/// `[[benchmarks]]`: one measured benchmark.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BenchmarkConfig {
    /// The benchmark as read (a hyperfine command or `--command-name`, a
    /// file's benchmark name).
    pub name: String,
    /// The name shown instead.
    #[serde(default)]
    pub display: Option<String>,
    /// The profiled benchmark whose call trees explain its changes.
    #[serde(default)]
    pub profiles: Option<String>,
}

/// `[field]`: named views of the field executions, each a page.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FieldConfig {
    pub views: Vec<ViewConfig>,
}

/// `[regressions]`: how versions are compared and what counts as major.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RegressionConfig {
    /// Confidence of every test and interval (0.99 as in PRCA).
    pub confidence: f64,
    /// `welch` (default) or `anova`.
    pub test: String,
    /// Fewest independent runs per version for a verdict.
    pub min_runs: usize,
    /// Fewest profile repetitions per version for a call-tree root cause.
    pub min_repetitions: usize,
    /// Categories from fastest to slowest, each with the value it stays
    /// below (the last has none). Empty: derived from the first version.
    pub categories: Vec<CategoryBand>,
    /// Without `categories`: the factors of the first version's mean where
    /// the derived categories change.
    pub auto_bands: Vec<f64>,
    /// The profile metric whose total stands in for a measurement when a
    /// benchmark has no measurement file (default: the first metric).
    pub metric: Option<String>,
    /// Most version rows in a benchmark page's table; the versions beyond
    /// are summed up in a line per run left out. 0: a row per version.
    pub table_rows: usize,
    /// Benjamini–Hochberg control of the false-discovery rate over every
    /// version-to-version comparison of a build, at 1 − `confidence`
    /// (default on); `false`: each comparison at `confidence` alone.
    pub fdr: bool,
    /// The smallest relative change reported, however small its p-value:
    /// 0.02 reports changes of 2% of the earlier value or more.
    pub min_change: f64,
    /// Series with one value per version (most CI histories) are judged
    /// by change points; a level must hold for this many versions on each
    /// side of a change to be reported.
    pub min_segment: usize,
    /// `check` of a single new value: how many of the values before it
    /// (since the series' last change point) make the window it is
    /// judged against.
    pub window: usize,
}

impl Default for RegressionConfig {
    fn default() -> RegressionConfig {
        RegressionConfig {
            confidence: 0.99,
            test: "welch".into(),
            min_runs: 3,
            min_repetitions: 2,
            categories: Vec::new(),
            auto_bands: vec![1.5, 3.0],
            metric: None,
            table_rows: 60,
            fdr: true,
            min_change: 0.02,
            min_segment: 3,
            window: 30,
        }
    }
}

/// One configured category: a name and the value it stays below, e.g.
/// `{ name = "fast", below = "10ms" }` (a bare number is in the
/// benchmark's own unit, seconds for times).
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CategoryBand {
    pub name: String,
    pub below: Option<Threshold>,
}

/// A category edge: a number, or a time with its unit (`"10ms"`).
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum Threshold {
    Number(f64),
    Text(String),
}

impl Threshold {
    /// The edge as a number: times in seconds.
    pub fn value(&self) -> Result<f64, String> {
        match self {
            Threshold::Number(x) => Ok(*x),
            Threshold::Text(text) => parse_duration(text),
        }
    }
}

/// `"10ms"`, `"2.5 s"`, `"1500us"` → seconds.
pub fn parse_duration(text: &str) -> Result<f64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == '-' || c == '+'))
        .unwrap_or(t.len());
    let (number, unit) = (t[..split].trim(), t[split..].trim());
    let factor = match unit {
        "ns" => 1e-9,
        "us" | "µs" => 1e-6,
        "ms" => 1e-3,
        "s" | "" => 1.0,
        _ => {
            return Err(format!(
                "{text:?}: unknown time unit {unit:?} (ns, us, ms or s)"
            ))
        }
    };
    match number.parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x * factor),
        _ => Err(format!("{text:?}: expected a time such as \"10ms\"")),
    }
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct MatrixConfig {
    /// Components whose time share stays below this percentage in every
    /// version are hidden (with a count and a way to show them).
    pub min_share: f64,
    /// Levels shown unfolded (and without JavaScript): 1 project, 2
    /// packages, 3 classes, 4 methods.
    pub depth: u8,
    /// Modified-method counts at which the top box grows from small to
    /// medium and from medium to large (the paper's 5 and 10).
    pub modified_steps: [u32; 2],
    /// Fixed time frames of an execution timeline.
    pub timeline_frames: usize,
    /// Most source-diff lines shown in one popup.
    pub diff_popup_lines: usize,
    /// Most callers and callees drawn on each side of a call graph.
    pub call_graph_edges: usize,
    /// Most visible rows (and so component pages) per matrix; the largest
    /// components by peak share are kept.
    pub max_rows: usize,
}

impl Default for MatrixConfig {
    fn default() -> MatrixConfig {
        MatrixConfig {
            min_share: 2.0,
            depth: 4,
            modified_steps: [5, 10],
            timeline_frames: 20,
            diff_popup_lines: 40,
            call_graph_edges: 12,
            max_rows: 2_000,
        }
    }
}

/// One prefix rewrite from the paths profiles hold to repository paths.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PathRule {
    pub from: String,
    #[serde(default)]
    pub to: String,
}

#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct VcsConfig {
    /// Tag names tried for a version without a `revision`, after the
    /// version's own name and `v` + name; `{version}` is replaced.
    pub tag_patterns: Vec<String>,
    /// Prefix rewrites applied to profile file paths before they are looked
    /// up in the repository (then the longest unique suffix match).
    pub path_map: Vec<PathRule>,
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FlameConfig {
    /// Most frames drawn in one flame graph; narrower frames are merged.
    pub max_frames: usize,
    /// Frames narrower than this many pixels at the default width are merged.
    pub min_width_px: f64,
    /// Version pairs `[old, new]` to diff besides consecutive versions.
    pub diffs: Vec<[String; 2]>,
    /// Differential views compare shares of each profile's total instead
    /// of amounts.
    pub diff_normalise: bool,
    /// Editor link for a source location; `{path}` is the file as the
    /// profile names it, `{line}` the line. Empty: no editor links.
    pub editor: String,
    /// Sets of profiles merged into aggregate pages (threads, snapshots…).
    pub aggregates: Vec<AggregateSet>,
}

/// A named set of profiles for an aggregate page.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AggregateSet {
    pub name: String,
    /// Benchmark names; `*` matches any run of characters.
    pub benchmarks: Vec<String>,
    /// Version directory names; all versions when empty.
    #[serde(default)]
    pub versions: Vec<String>,
}

impl Default for FlameConfig {
    fn default() -> FlameConfig {
        FlameConfig {
            // The largest page at this budget is interactive in under
            // a second in headless Chromium (README, "Performance").
            max_frames: 12_000,
            min_width_px: 0.1,
            diffs: Vec::new(),
            diff_normalise: false,
            editor: "vscode://file/{path}:{line}".to_string(),
            aggregates: Vec::new(),
        }
    }
}

fn read_text(path: &Path) -> Result<String, BuildError> {
    std::fs::read_to_string(path).map_err(|e| BuildError::io(path, e))
}

/// Parses `text`, errors naming `path` (where the text came from).
fn parse_toml<T: for<'de> Deserialize<'de>>(text: &str, path: &Path) -> Result<T, BuildError> {
    toml::from_str(text).map_err(|e| BuildError::Config {
        path: path.to_path_buf(),
        message: toml_message(text, &e),
    })
}

/// The TOML error with its line and column instead of a byte span.
fn toml_message(text: &str, e: &toml::de::Error) -> String {
    let msg = e.message().trim().to_string();
    match e.span() {
        Some(span) => {
            let before = text.get(..span.start).unwrap_or(text);
            let line = before.matches('\n').count() + 1;
            let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            format!("line {line}, column {col}: {msg}")
        }
        None => msg,
    }
}

impl Config {
    /// Reads `path`.
    pub fn read(path: &Path) -> Result<Config, BuildError> {
        Config::parse(&read_text(path)?, path)
    }

    /// Parses and checks the text of `perfatlas.toml` read from `path`.
    pub fn parse(text: &str, path: &Path) -> Result<Config, BuildError> {
        let config: Config = parse_toml(text, path)?;
        let m = &config.matrix;
        let bad = if !is_percentage(m.min_share) {
            Some("matrix.min_share must be a percentage from 0 to 100")
        } else if !(1..=4).contains(&m.depth) {
            Some("matrix.depth must be 1 (project) to 4 (methods)")
        } else if m.modified_steps[0] == 0 || m.modified_steps[0] > m.modified_steps[1] {
            Some("matrix.modified_steps must be two increasing counts, e.g. [5, 10]")
        } else if !(1..=1000).contains(&m.timeline_frames) {
            Some("matrix.timeline_frames must be from 1 to 1000")
        } else if m.max_rows == 0 {
            Some("matrix.max_rows must be at least 1")
        } else {
            config.regressions.problem()
        };
        if let Some(message) = bad {
            return Err(BuildError::Config {
                path: path.to_path_buf(),
                message: message.into(),
            });
        }
        if config.flame.max_frames == 0 {
            return Err(BuildError::Config {
                path: path.to_path_buf(),
                message: "flame.max_frames must be at least 1".into(),
            });
        }
        if let Some(message) = config.direction_errors().into_iter().next() {
            return Err(BuildError::Config {
                path: path.to_path_buf(),
                message,
            });
        }
        Ok(config)
    }
}

/// A share in percent: `matrix.min_share` and its override `--min-share`.
pub fn is_percentage(value: f64) -> bool {
    (0.0..=100.0).contains(&value)
}

impl RegressionConfig {
    /// What is wrong with these settings, if anything.
    fn problem(&self) -> Option<&'static str> {
        let r = self;
        if !(r.confidence > 0.5 && r.confidence < 1.0) {
            Some("regressions.confidence must be between 0.5 and 1, e.g. 0.99")
        } else if Test::parse(&r.test).is_none() {
            Some("regressions.test must be \"welch\" or \"anova\"")
        } else if r.min_runs < 2 || r.min_repetitions < 2 {
            Some("regressions.min_runs and min_repetitions must be at least 2")
        } else if r.auto_bands.windows(2).any(|w| w[0] >= w[1])
            || r.auto_bands.iter().any(|f| !(f.is_finite() && *f > 1.0))
        {
            Some("regressions.auto_bands must be increasing factors above 1, e.g. [1.5, 3.0]")
        } else if !(r.min_change.is_finite() && (0.0..1.0).contains(&r.min_change)) {
            Some("regressions.min_change must be a fraction from 0 to below 1, e.g. 0.02 for 2%")
        } else if r.min_segment < 2 {
            Some("regressions.min_segment must be at least 2")
        } else if r.window < 3 {
            Some("regressions.window must be at least 3")
        } else if !self.categories_in_order() {
            Some("regressions.categories must rise (each `below` larger than the one before, a valid time such as \"10ms\") and only the last may omit `below`")
        } else {
            None
        }
    }

    fn categories_in_order(&self) -> bool {
        let n = self.categories.len();
        let mut last = f64::NEG_INFINITY;
        for (i, band) in self.categories.iter().enumerate() {
            match &band.below {
                Some(t) => match t.value() {
                    Ok(v) if v > last => last = v,
                    _ => return false,
                },
                None if i + 1 == n => {}
                None => return false,
            }
        }
        true
    }
}

/// A named view of the field executions: a filter and a summarizer, e.g.
///
/// ```toml
/// name = "linux by JVM"
/// filter = "os.name = Linux and java.version >= 1.4"
/// group_by = ["java.version"]
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ViewConfig {
    pub name: String,
    /// A filter text (see the module docs); none shows every execution.
    #[serde(default)]
    pub filter: Option<String>,
    /// Summarizer property names; empty shows executions one by one.
    #[serde(default)]
    pub group_by: Vec<String>,
}

/// Which test decides whether two versions differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Test {
    /// Welch's unequal-variances t-test.
    #[default]
    Welch,
    /// One-way analysis of variance (for two groups, equivalent to
    /// Student's pooled-variance t-test).
    Anova,
    /// Change-point detection over a history of one value per version:
    /// Welch's t-test between the levels on the two sides of a step, its
    /// p-value corrected for the search (never chosen in the settings).
    #[serde(rename = "change_point")]
    ChangePoint,
    /// One new value against the prediction interval of the values
    /// before it (never chosen in the settings).
    #[serde(rename = "prediction_interval")]
    PredictionInterval,
}

impl Test {
    pub fn parse(name: &str) -> Option<Test> {
        match name {
            "welch" => Some(Test::Welch),
            "anova" => Some(Test::Anova),
            _ => None,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Test::Welch => "Welch's t-test",
            Test::Anova => "one-way ANOVA",
            Test::ChangePoint => "change-point detection (Welch's t-test between the levels)",
            Test::PredictionInterval => "prediction interval of recent history",
        }
    }
}

/// The embedded themes, in the order the theme menu lists them (the render
/// stage holds their style sheets in this order).
pub const THEMES: [&str; 3] = ["light", "dark", "colorblind"];

/// `--theme`'s help, naming [`THEMES`].
pub const THEME_HELP: &str =
    "Theme: light, dark, colorblind (the embedded themes), or a directory holding theme.css";

/// Which theme the site starts in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ThemeChoice {
    /// One of the embedded [`THEMES`].
    Builtin(String),
    /// A directory holding a `theme.css`.
    Dir(PathBuf),
}

impl Default for ThemeChoice {
    fn default() -> ThemeChoice {
        ThemeChoice::Builtin(THEMES[0].into())
    }
}

impl ThemeChoice {
    /// `--theme`: an embedded theme's name, else an existing directory.
    pub fn parse(text: &str) -> Result<ThemeChoice, String> {
        if THEMES.contains(&text) {
            return Ok(ThemeChoice::Builtin(text.to_string()));
        }
        if Path::new(text).is_dir() {
            return Ok(ThemeChoice::Dir(PathBuf::from(text)));
        }
        Err(format!(
            "--theme {text:?}: not a theme ({}) and not a directory holding theme.css",
            THEMES.join(", ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_theme_is_an_embedded_name_or_a_directory() {
        assert_eq!(
            ThemeChoice::parse("dark"),
            Ok(ThemeChoice::Builtin("dark".into()))
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().to_str().unwrap();
        assert_eq!(
            ThemeChoice::parse(path),
            Ok(ThemeChoice::Dir(dir.path().to_path_buf()))
        );
        assert!(THEMES.iter().all(|t| THEME_HELP.contains(t)));
        let e = ThemeChoice::parse("drak").unwrap_err();
        assert!(
            e.contains("\"drak\"") && e.contains("light, dark, colorblind"),
            "{e}"
        );
    }

    #[test]
    fn unknown_keys_are_reported_with_the_line() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("perfatlas.toml");
        std::fs::write(&p, "title = \"x\"\nversoins = [\"1\"]\n").unwrap();
        let e = Config::read(&p).unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("versoins"), "{e}");
    }
}
