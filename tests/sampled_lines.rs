//! One box per function for every format whose frames carry the line a
//! sample was taken at (issue 39 item 3, issue 43's line costs): a Go
//! pprof profile, py-spy's folded and speedscope output and a JFR
//! recording, all written by the real tools, read with one frame per
//! function and their lines in the profile's line table.
//!
//! For each: `convert --to folded` writes as many distinct labels as the
//! file has functions (for Go, as many as `go tool pprof -top` lists), and
//! the native JSON's per-line self values are the file's own, line for
//! line, adding up to each function's self value. For Go, the source page
//! puts `main.fib`'s own time on the lines `go tool pprof -lines` does,
//! and the function's code links land on its hottest line. `--lines`
//! gives one label per sampled line back, as `go tool pprof -lines` lists.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsStr;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::pprof_text::go_available;

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn convert(file: &Path, to: &str) -> String {
    convert_with(file, to, &[])
}

fn convert_with(file: &Path, to: &str, extra: &[&str]) -> String {
    let mut args = vec![
        OsStr::new("convert"),
        file.as_os_str(),
        OsStr::new("--to"),
        OsStr::new(to),
    ];
    args.extend(extra.iter().map(OsStr::new));
    let out = common::perfatlas(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The distinct frame labels of folded text.
fn labels(folded: &str) -> BTreeSet<String> {
    folded
        .lines()
        .filter_map(|l| l.rsplit_once(' '))
        .flat_map(|(stack, _)| stack.split(';').map(str::to_string))
        .filter(|label| !label.is_empty())
        .collect()
}

/// A label's function name: the label without its ` (file:line)`.
fn function_of(label: &str) -> &str {
    label.rsplit_once(" (").map_or(label, |(name, _)| name)
}

/// Self values per (function, line) in the native JSON of a file, for
/// metric `m`; and checks every node's lines add up to its self value.
fn json_lines(file: &Path, m: usize) -> BTreeMap<(String, u32), f64> {
    let doc: serde_json::Value = serde_json::from_str(&convert(file, "json")).unwrap();
    let frames = doc["frames"].as_array().unwrap();
    let mut out = BTreeMap::new();
    let mut with_lines = 0;
    for node in doc["nodes"].as_array().unwrap() {
        let Some(lines) = node["lines"].as_array() else {
            continue;
        };
        with_lines += 1;
        let frame = &frames[node["frame"].as_u64().unwrap() as usize];
        let function = frame["function"].as_str().unwrap().to_string();
        let own = node["self"][m].as_f64().unwrap();
        let mut sum = 0.0;
        for l in lines {
            let (line, v) = (l[0].as_u64().unwrap() as u32, l[1 + m].as_f64().unwrap());
            sum += v;
            *out.entry((function.clone(), line)).or_default() += v;
        }
        assert!(
            (sum - own).abs() <= 1e-6 * own.abs().max(1.0),
            "{}: {function}'s lines add up to {sum}, its self value is {own}",
            file.display()
        );
    }
    assert!(with_lines > 0, "{}: no line table", file.display());
    out
}

/// A value per (function, line).
type ByLine = BTreeMap<(String, u32), f64>;

fn without_zeros(map: ByLine) -> ByLine {
    map.into_iter().filter(|(_, v)| *v != 0.0).collect()
}

fn go_pprof(args: &[&str], file: &Path) -> String {
    let out = Command::new("go")
        .args(["tool", "pprof", "-symbolize=none"])
        .args(args)
        .arg(file)
        .env("PPROF_TMPDIR", std::env::temp_dir())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The rows of `go tool pprof -top` (after its header), split in fields.
fn pprof_rows(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .skip_while(|l| !l.trim_start().starts_with("flat"))
        .skip(1)
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect()
}

#[test]
fn a_go_cpu_profile_is_one_label_per_function_with_pprofs_lines() {
    let file = repo("tests/fixtures/pprof/go-demo/1.0/demo.cpu.pb.gz");
    let labels = labels(&convert(&file, "folded"));
    let functions: BTreeSet<&str> = labels.iter().map(|l| function_of(l)).collect();
    assert_eq!(labels.len(), functions.len(), "a function has one label");
    let fib = labels
        .iter()
        .filter(|l| l.starts_with("main.fib (perfatlas/capture/main.go:"));
    assert_eq!(fib.count(), 1, "{labels:?}");
    let lines = without_zeros(json_lines(&file, 0));
    if !go_available() {
        return;
    }
    let top = pprof_rows(&go_pprof(
        &["-top", "-nodecount=100000", "-sample_index=samples"],
        &file,
    ));
    assert_eq!(
        labels.len(),
        top.len(),
        "as many as go tool pprof -top lists"
    );
    // -lines: flat samples per (function, file:line), inlined marked.
    let by_line = pprof_rows(&go_pprof(
        &[
            "-top",
            "-lines",
            "-nodecount=100000",
            "-sample_index=samples",
        ],
        &file,
    ));
    assert!(by_line.len() > top.len() + 50, "{}", by_line.len());
    let mut expected = BTreeMap::new();
    for row in &by_line {
        let flat: f64 = row[0].parse().unwrap();
        let at = &row[6];
        let line: u32 = at.rsplit_once(':').unwrap().1.parse().unwrap();
        if flat != 0.0 {
            *expected.entry((row[5].clone(), line)).or_default() += flat;
        }
    }
    assert_eq!(lines, expected);
    assert_eq!(
        lines[&("main.fib".to_string(), 40)],
        13.0,
        "the fixture's hottest line of fib"
    );
}

#[test]
fn a_go_source_page_shows_pprofs_line_costs_and_links_land_on_the_hottest() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    let sources = repo("tests/fixtures/pprof/capture");
    let out = common::build(
        &repo("tests/fixtures/pprof/go-demo"),
        &site,
        &["--sources", sources.to_str().unwrap()],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page = fs::read_to_string(site.join("source/1.0/main.go.html")).unwrap();
    // fib's own samples: 13 on line 40, 9 on 44, 3 on 42 of 177 (go tool
    // pprof -lines on the fixture); the page gives self / total shares.
    for (line, share) in [(40, "7.34%"), (44, "5.08%"), (42, "1.69%")] {
        let row = page
            .split(&format!("<tr id=\"L{line}\""))
            .nth(1)
            .unwrap_or_else(|| panic!("no row {line}"));
        let row = &row[..row.find("</tr>").unwrap()];
        let cost = row.split("class=\"pa-cost\"").nth(1).unwrap();
        let cost = &cost[cost.find('>').unwrap() + 1..cost.find("</td>").unwrap()];
        assert!(cost.trim_start().starts_with(share), "line {line}: {cost}");
    }
    let profile_page = fs::read_to_string(site.join("profiles/demo/1.0/r1.html")).unwrap();
    assert!(
        profile_page.contains("source/1.0/main.go.html#L40"),
        "main.fib links to its hottest line"
    );
    assert!(
        !profile_page.contains("main.go.html#L44"),
        "no box at another line"
    );
}

/// Self values per label of folded text (the leaf's count).
fn leaf_values(folded: &str) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    for (stack, count) in folded.lines().filter_map(|l| l.rsplit_once(' ')) {
        let leaf = stack.rsplit(';').next().unwrap().to_string();
        *out.entry(leaf).or_default() += count.parse::<f64>().unwrap();
    }
    out
}

#[test]
fn lines_switch_gives_go_tool_pprofs_lines_labels_and_flat_values() {
    let file = repo("tests/fixtures/pprof/go-demo/1.0/demo.cpu.pb.gz");
    let by_function = labels(&convert(&file, "folded"));
    let folded = convert_with(&file, "folded", &["--lines", "--metric", "samples"]);
    let by_line = labels(&folded);
    assert!(
        by_line.len() > by_function.len() + 50,
        "{} labels by line, {} by function",
        by_line.len(),
        by_function.len()
    );
    let fib_lines = by_line
        .iter()
        .filter(|l| function_of(l) == "main.fib")
        .count();
    assert!(fib_lines >= 3, "fib at 40, 42 and 44: {by_line:?}");
    if !go_available() {
        return;
    }
    // Every `-lines` row is a label, with its flat samples as leaf value.
    let rows = pprof_rows(&go_pprof(
        &[
            "-top",
            "-lines",
            "-nodecount=100000",
            "-sample_index=samples",
        ],
        &file,
    ));
    assert_eq!(by_line.len(), rows.len(), "as many as -top -lines lists");
    let leaves = leaf_values(&folded);
    for row in rows {
        let flat: f64 = row[0].parse().unwrap();
        let label = by_line
            .iter()
            .find(|l| function_of(l) == row[5] && l.ends_with(&format!("{})", row[6])))
            .unwrap_or_else(|| panic!("no label for {} {}", row[5], row[6]));
        assert_eq!(leaves.get(label).copied().unwrap_or(0.0), flat, "{label}");
    }
}

#[test]
fn lines_switch_draws_a_box_per_line_on_the_profile_page() {
    let tmp = tempfile::tempdir().unwrap();
    let page_of = |name: &str, extra: &[&str]| {
        let site = tmp.path().join(name);
        common::build_ok(&repo("tests/fixtures/pprof/go-demo"), &site, extra);
        fs::read_to_string(site.join("profiles/demo/1.0/r1.html")).unwrap()
    };
    // The tree table's rows (readable without JS) give each box's
    // location: fib's own time is on lines 40, 42 and 44, its calls on 44.
    let fib_rows = |page: &str| -> BTreeSet<String> {
        page.split("<tr>")
            .filter_map(|row| row.strip_prefix("<td style=\"--d:"))
            .filter_map(|row| row.split_once(">main.fib <code>"))
            .filter_map(|(_, rest)| rest.split_once("</code>"))
            .map(|(at, _)| at.to_string())
            .collect()
    };
    let by_function = fib_rows(&page_of("functions", &[]));
    let by_line = fib_rows(&page_of("lines", &["--lines"]));
    assert_eq!(
        by_function.len(),
        1,
        "one box per function: {by_function:?}"
    );
    for line in [40, 42, 44] {
        let at = format!("perfatlas/capture/main.go:{line}");
        assert!(by_line.contains(&at), "{at} with --lines: {by_line:?}");
    }
}

/// py-spy's `name (file:line)` frames, leaf counts per (name, line).
fn py_spy_leaves(folded: &Path) -> (BTreeSet<(String, String)>, ByLine) {
    let mut functions = BTreeSet::new();
    let mut leaves = BTreeMap::new();
    for line in common::read_folded(folded) {
        for frame in &line.frames {
            let (name, at) = frame.rsplit_once(" (").unwrap();
            let file = at.trim_end_matches(')').rsplit_once(':').unwrap().0;
            functions.insert((name.to_string(), file.to_string()));
        }
        let Some(leaf) = line.frames.last() else {
            continue; // samples without a stack
        };
        let (name, at) = leaf.rsplit_once(" (").unwrap();
        let number: u32 = at
            .trim_end_matches(')')
            .rsplit_once(':')
            .unwrap()
            .1
            .parse()
            .unwrap();
        *leaves.entry((name.to_string(), number)).or_default() += line.count as f64;
    }
    (functions, leaves)
}

#[test]
fn py_spy_folded_output_is_one_label_per_function_with_its_lines() {
    let file = repo("sample-data/python-markdown/3.7/convert-basic.1.folded");
    let (functions, leaves) = py_spy_leaves(&file);
    let labels = labels(&convert(&file, "folded"));
    assert_eq!(labels.len(), functions.len());
    let convert_labels = labels
        .iter()
        .filter(|l| function_of(l) == "Markdown.convert")
        .count();
    assert_eq!(convert_labels, 1, "{labels:?}");
    assert_eq!(without_zeros(json_lines(&file, 0)), leaves);
}

#[test]
fn py_spy_speedscope_output_is_one_label_per_function_with_its_lines() {
    let file = repo("sample-data/python-markdown/3.7/convert-extensions.1.speedscope.json");
    let doc: serde_json::Value = serde_json::from_slice(&fs::read(&file).unwrap()).unwrap();
    let frames = doc["shared"]["frames"].as_array().unwrap();
    let key = |f: &serde_json::Value| (f["name"].to_string(), f["file"].to_string());
    let functions: BTreeSet<_> = frames.iter().map(key).collect();
    assert!(frames.len() > functions.len() + 50, "py-spy splits by line");
    let labels = labels(&convert(&file, "folded"));
    assert_eq!(labels.len(), functions.len());
    // Leaf samples per (function, line), weighted as the file says.
    let mut leaves: BTreeMap<(String, u32), f64> = BTreeMap::new();
    for profile in doc["profiles"].as_array().unwrap() {
        let weights = profile["weights"].as_array().unwrap();
        for (stack, w) in profile["samples"].as_array().unwrap().iter().zip(weights) {
            let Some(leaf) = stack.as_array().unwrap().last() else {
                continue;
            };
            let f = &frames[leaf.as_u64().unwrap() as usize];
            let at = (
                f["name"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap() as u32,
            );
            *leaves.entry(at).or_default() += w.as_f64().unwrap();
        }
    }
    // Metric 0 is time in nanoseconds, py-spy's weights in seconds.
    let lines = without_zeros(json_lines(&file, 0));
    assert_eq!(lines.len(), leaves.len());
    for (at, seconds) in leaves {
        let ns = lines[&at];
        assert!(
            (ns - seconds * 1e9).abs() < 1.0,
            "{at:?}: {ns} vs {seconds}"
        );
    }
}

#[test]
fn a_jfr_recording_is_one_label_per_method_with_its_allocation_lines() {
    let file = repo("tests/fixtures/jfr/alloc.json.gz");
    let mut text = String::new();
    flate2::read::GzDecoder::new(fs::File::open(&file).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut methods = BTreeSet::new();
    let mut leaves: BTreeMap<(String, u32), f64> = BTreeMap::new();
    let mut positions = 0;
    for event in doc["recording"]["events"].as_array().unwrap() {
        if event["type"] != "jdk.ObjectAllocationSample" {
            continue;
        }
        let frames = event["values"]["stackTrace"]["frames"].as_array().unwrap();
        let name = |f: &serde_json::Value| {
            let class = f["method"]["type"]["name"]
                .as_str()
                .unwrap()
                .replace('/', ".");
            format!("{class}.{}", f["method"]["name"].as_str().unwrap())
        };
        for f in frames {
            methods.insert(name(f));
            positions += 1;
        }
        let leaf = &frames[0];
        let line = leaf["lineNumber"].as_u64().unwrap() as u32;
        *leaves.entry((name(leaf), line)).or_default() += 1.0;
    }
    assert!(positions > methods.len());
    let labels = labels(&convert(&file, "folded"));
    let functions: BTreeSet<&str> = labels.iter().map(|l| function_of(l)).collect();
    assert_eq!(labels.len(), functions.len(), "a method has one label");
    assert_eq!(functions.len(), methods.len());
    // Metric 0 counts samples: one per event, on the allocating line.
    assert_eq!(without_zeros(json_lines(&file, 0)), leaves);
}
