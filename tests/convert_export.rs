//! `perfatlas convert --to pprof|speedscope` on real profiles of every kind
//! perfatlas reads (a `.cpuprofile`, folded stacks, speedscope, Go's pprof
//! CPU and heap profiles, `perf script`, a V8 heap profile):
//!
//! - pprof: `go tool pprof -top` reads the exported file and gives, for
//!   every metric, the total and the flat value of each function it lists
//!   that perfatlas computes from the original profile (functions grouped
//!   by name, as pprof's default granularity does), and perfatlas's five
//!   heaviest functions are among pprof's;
//! - speedscope: perfatlas reads the exported file back with the same
//!   metrics, totals, and the same ten heaviest functions (by self value)
//!   with the same values.
//!
//! `go` comes from Debian's golang-go. When it is missing the pprof part
//! is skipped with a note, except under `CI`, where it fails.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::pprof_text::*;
use perfatlas::input::Parsed;

/// Rows asked of pprof.
const NODECOUNT: usize = 10;

fn inputs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    [
        "sample-data/moment/2.17.1/cpu.1.cpuprofile",
        "sample-data/moment/2.17.1/heap.1.heapprofile",
        "sample-data/python-markdown/3.7/convert-basic.1.folded",
        "sample-data/python-markdown/3.7/convert-extensions.1.speedscope.json",
        "tests/fixtures/pprof/go-demo/1.0/demo.cpu.pb.gz",
        "tests/fixtures/pprof/go-demo/1.0/demo-heap.heap.pb.gz",
        "tests/fixtures/cpp-perf/prog.perf.txt",
        "tests/fixtures/cpp-perf/prog.folded",
        "tests/fixtures/chrome-trace/busy-page.trace.json.gz",
    ]
    .iter()
    .map(|rel| root.join(rel))
    .collect()
}

/// Runs `perfatlas convert INPUT --to TO -o OUT`, which must succeed.
fn convert(input: &Path, to: &str, out: &Path) {
    let output = common::perfatlas(&[
        "convert".as_ref(),
        input.as_os_str(),
        "--to".as_ref(),
        to.as_ref(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    assert!(
        output.status.success(),
        "convert {} --to {to} failed:\n{}",
        input.display(),
        String::from_utf8_lossy(&output.stderr)
    );
}

fn read(path: &Path) -> Parsed {
    perfatlas::convert::read_file(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Self value of metric `m` per function name, as pprof groups them.
fn flat_by_name(parsed: &Parsed, m: usize) -> BTreeMap<String, f64> {
    let tree = &parsed.profile.tree;
    let mut flat = BTreeMap::new();
    for node in tree.node_ids() {
        if let Some(frame) = tree.frame(node) {
            let name = &parsed.frames.get(frame).function;
            *flat.entry(name.clone()).or_insert(0.0) += tree.self_value(node, m);
        }
    }
    flat
}

/// The `n` heaviest entries of `flat`, heaviest first (ties by name).
fn heaviest(flat: &BTreeMap<String, f64>, n: usize) -> Vec<(String, f64)> {
    let mut rows: Vec<(String, f64)> = flat.iter().map(|(k, &v)| (k.clone(), v)).collect();
    rows.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    rows.truncate(n);
    rows
}

/// An exact value as a quantity (pprof's side carries the rounding).
fn exact(value: f64) -> Quantity {
    Quantity {
        value,
        tolerance: 0.0,
    }
}

#[test]
fn go_tool_pprof_reads_every_metric_with_perfatlas_totals_and_top_functions() {
    if !go_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut problems = Vec::new();
    let mut compared = 0;
    for (i, input) in inputs().iter().enumerate() {
        let parsed = read(input);
        let out = dir.path().join(format!("{i}.pb.gz"));
        convert(input, "pprof", &out);
        let name = input.file_name().unwrap().to_string_lossy();
        for (m, metric) in parsed.profile.metrics.iter().enumerate() {
            let label = format!("{name} {}", metric.name);
            let text = run_pprof_top(&out, &metric.name, NODECOUNT, dir.path());
            let top = parse_pprof_top(&text);
            let total = parsed.profile.tree.total(m);
            if !agree(exact(total), top.total) {
                problems.push(format!("{label}: total {total}, pprof {}", top.total));
            }
            let flat = flat_by_name(&parsed, m);
            for row in top.rows.iter().filter(|r| r.flat.value != 0.0) {
                match flat.get(&row.name) {
                    Some(&v) if agree(exact(v), row.flat) => compared += 1,
                    other => problems.push(format!(
                        "{label}: {}: perfatlas self {other:?}, pprof flat {}",
                        row.name, row.flat
                    )),
                }
            }
            // perfatlas's heaviest functions, clearly above pprof's last
            // row, are listed by pprof, unless pprof may have dropped them:
            // it drops nodes whose cumulative value is at most its
            // "Dropped … (cum <= X)", and a function's self value is a
            // lower bound of its cumulative one.
            let last = top.rows.last().map(|r| r.flat);
            for (f, v) in heaviest(&flat, 5) {
                let kept = top
                    .dropped_at_most
                    .is_none_or(|d| clearly_above(exact(v), d));
                let above = kept && last.map_or(v > 0.0, |l| clearly_above(exact(v), l));
                if above && !top.rows.iter().any(|r| r.name == f) {
                    problems.push(format!("{label}: {f} (self {v}) is not in pprof's top"));
                }
            }
            eprintln!("{label}: total {total} = pprof {}", top.total_text);
        }
    }
    assert!(
        problems.is_empty(),
        "the exported pprof files and perfatlas disagree:\n{}",
        problems.join("\n")
    );
    assert!(compared >= 50, "only {compared} functions compared");
}

#[test]
fn speedscope_export_reads_back_with_the_same_totals_and_top_functions() {
    let dir = tempfile::tempdir().unwrap();
    for (i, input) in inputs().iter().enumerate() {
        let parsed = read(input);
        let out = dir.path().join(format!("{i}.speedscope.json"));
        convert(input, "speedscope", &out);
        let (format, back) =
            perfatlas::input::load::read_and_parse(&out).unwrap_or_else(|e| panic!("{e}"));
        let label = input.file_name().unwrap().to_string_lossy();
        assert_eq!(format, "speedscope", "{label}");
        let names = |p: &Parsed| -> Vec<String> {
            p.profile.metrics.iter().map(|m| m.name.clone()).collect()
        };
        assert_eq!(names(&back), names(&parsed), "{label}");
        for m in 0..parsed.profile.metrics.len() {
            let (a, b) = (parsed.profile.tree.total(m), back.profile.tree.total(m));
            assert!(close(a, b), "{label} metric {m}: total {a}, read back {b}");
            let top = |p: &Parsed| heaviest(&flat_by_name(p, m), 10);
            let (a, b) = (top(&parsed), top(&back));
            let same =
                a.len() == b.len() && a.iter().zip(&b).all(|(x, y)| x.0 == y.0 && close(x.1, y.1));
            assert!(
                same,
                "{label} metric {m}: top functions\n{a:?}\nread back\n{b:?}"
            );
        }
    }
}

/// Equal but for float summation order.
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

/// `perfatlas convert … | head`: the reader leaves after one line; the
/// converter exits quietly (0, nothing on stderr), as Unix tools do, not
/// with "error: <stdout>: Broken pipe" (issue 39).
#[test]
fn a_reader_that_leaves_early_is_no_error() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("big.folded");
    // Far more than a pipe holds (64 KiB), so the writer meets the closed
    // pipe.
    let lines: String = (0..50_000)
        .map(|i| format!("main;work_{i};leaf_{i} {}\n", i + 1))
        .collect();
    std::fs::write(&input, lines).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_perfatlas"))
        .args(["convert"])
        .arg(&input)
        .args(["--to", "folded"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("main;"), "{first}");
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

/// A real callgrind profile (tests/fixtures/callgrind, valgrind 3.19.0)
/// was misread as folded stacks: 3,340 "line skipped" messages and junk
/// stacks (`0`, `totals:`), and `build --strict` counted each line as an
/// input file (issue 39). It is now read as callgrind: stacks through
/// libc's start (sort has no symbols), and `build --strict` succeeds.
#[test]
fn a_callgrind_file_is_read_not_misread_as_folded_stacks() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/callgrind/sort-readme.callgrind.out.gz");
    let out = common::convert_to_folded(&fixture);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("line skipped"), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.lines().any(|l| l.contains(";__libc_start_main")),
        "{stdout}"
    );
    assert!(!stdout
        .lines()
        .any(|l| l.starts_with("0 ") || l.starts_with("totals")));
    // In a build with --strict: read, nothing skipped.
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("input");
    std::fs::create_dir_all(input.join("1.0")).unwrap();
    std::fs::copy(&fixture, input.join("1.0/callgrind.out.gz")).unwrap();
    std::fs::write(input.join("1.0/cpu.folded"), "main;work 5\n").unwrap();
    let out = common::build(&input, &dir.path().join("site"), &["--strict"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
}

/// A text file that is no profile (the project's changelog) is one line:
/// "unrecognised format", what it looks like and the text formats only,
/// not every format perfatlas reads (issue 39).
#[test]
fn a_text_file_that_is_no_profile_gets_one_line_naming_the_text_formats() {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("CHANGELOG.md");
    let out = common::perfatlas(&["convert".as_ref(), file.as_os_str()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("CHANGELOG.md: unrecognised format: text that no text format reads"),
        "{stderr}"
    );
    assert!(stderr.contains("callgrind, gprof, folded"), "{stderr}");
    assert!(!stderr.contains("speedscope"), "{stderr}");
}

/// `perf record`'s binary perf.data is answered with what to run, not
/// "unrecognised format" (issue 39).
#[test]
fn a_perf_data_file_gets_the_command_that_makes_it_readable() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("perf.data");
    // The header's magic, as perf 6.1 writes it, then the rest of a header.
    let mut bytes = b"PERFILE2".to_vec();
    bytes.extend_from_slice(&104u64.to_le_bytes());
    bytes.resize(4096, 0);
    std::fs::write(&file, bytes).unwrap();
    let out = common::perfatlas(&[
        "convert".as_ref(),
        file.as_os_str(),
        "--to".as_ref(),
        "folded".as_ref(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("run `perf script -i FILE > FILE.perf`"),
        "{stderr}"
    );
}

/// Issue 39: a pprof round trip (`pprof → perfatlas → pprof`) shows the
/// same `go tool pprof -top`, line for line (all but the `File:` line,
/// the export's name), with and without `-sample_index`: figures, order
/// and the `(inline)` marks of functions pprof records as inlined.
#[test]
fn a_pprof_round_trip_shows_the_same_top_with_its_inline_marks() {
    if !go_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pprof/go-demo/1.0");
    for (name, indices) in [("demo.cpu.pb.gz", 2), ("demo-heap.heap.pb.gz", 4)] {
        let input = fixtures.join(name);
        let out = dir.path().join(format!("{name}.out.pb.gz"));
        convert(&input, "pprof", &out);
        let top = |file: &Path, extra: &[&str]| -> String {
            run_pprof_top_with(file, 100_000, extra, dir.path())
                .lines()
                .filter(|l| !l.starts_with("File:"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        let choices: Vec<String> = std::iter::once(String::new())
            .chain((0..indices).map(|i| format!("-sample_index={i}")))
            .collect();
        let mut marks = 0;
        for choice in &choices {
            let extra: Vec<&str> = Some(choice.as_str())
                .filter(|c| !c.is_empty())
                .into_iter()
                .collect();
            let original = top(&input, &extra);
            assert_eq!(top(&out, &extra), original, "{name} {choice}");
            marks += original.matches("(inline)").count();
        }
        assert!(marks > 0, "{name}: the fixture has inlined functions");
    }
}

/// `go tool pprof`'s header lines (the sample type it opens on, when and
/// for how long the profile was taken) of `file`, shown without asking
/// for a sample type.
fn pprof_header(file: &Path, tmp: &Path) -> Vec<String> {
    run_pprof_top_with(file, 1, &[], tmp)
        .lines()
        .filter(|l| {
            ["Type:", "Time:", "Duration:"]
                .iter()
                .any(|k| l.starts_with(k))
        })
        // "Duration: 2.02s, Total samples = …": the total is checked above.
        .map(|l| l.split(", Total").next().unwrap_or(l).to_string())
        .collect()
}

/// Issue 39: an export opens where the original opens. A pprof file's
/// export keeps the sample type pprof shows first, its time and its
/// duration; any other profile's opens on perfatlas's first metric (CPU
/// time for a `.cpuprofile`, not its sample count, which pprof would pick
/// as the last sample type).
#[test]
fn exported_pprof_opens_on_the_original_s_sample_type_time_and_duration() {
    if !go_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for (i, input) in inputs().iter().enumerate() {
        let out = dir.path().join(format!("{i}.pb.gz"));
        convert(input, "pprof", &out);
        let exported = pprof_header(&out, dir.path());
        let name = input.display().to_string();
        if name.contains(".pb") {
            let original = pprof_header(input, dir.path());
            assert!(original.len() >= 2, "{name}: {original:?}");
            assert_eq!(exported, original, "{name}");
        } else {
            let first = &read(input).profile.metrics[0].name;
            assert_eq!(exported.first(), Some(&format!("Type: {first}")), "{name}");
        }
    }
}
