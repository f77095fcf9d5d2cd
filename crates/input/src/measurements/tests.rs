//! Tests of what the measurement readers share: sniffing (never a profile,
//! never claimed by a profile reader), the JSON helpers, odd input.

use std::path::{Path, PathBuf};

use super::*;
use crate::{Format, Input, FORMATS};
use model::error::Place;

/// Every measurement fixture that is a measurement file.
const FIXTURES: [(&str, &str); 17] = [
    ("hyperfine.json", "hyperfine"),
    ("hyperfine-exit-codes.json", "hyperfine"),
    ("criterion/fib/fib 20/new/sample.json", "criterion"),
    ("criterion/fib/fib 20/base/sample.json", "criterion"),
    ("criterion/fib-param/fib/10/new/sample.json", "criterion"),
    ("google-benchmark.json", "google-benchmark"),
    ("google-benchmark-one-repetition.json", "google-benchmark"),
    ("google-benchmark-aggregates-only.json", "google-benchmark"),
    ("pytest-benchmark.json", "pytest-benchmark"),
    ("go-bench.txt", "go-test-bench"),
    ("bmf-tatami.json", "bencher-metric-format"),
    ("jmh/jmh-jcasbin.json", "jmh"),
    ("jmh/jmh-sample-pg-client.json", "jmh"),
    (
        "benchmarkdotnet/needlr-TypeRegistrationBenchmarks-report-full-compressed.json",
        "benchmarkdotnet",
    ),
    (
        "benchmarkdotnet/fantomas-codeprinter-report-full.json",
        "benchmarkdotnet",
    ),
    ("benchmarktools/mlogit-results.json", "benchmarktools"),
    ("benchmarktools/pioran-output.json", "benchmarktools"),
];

/// The format `sniff_and_parse` picks, read or broken.
fn sniffed_format(path: &str, bytes: &[u8]) -> Option<&'static str> {
    let head = text::decode_text(crate::head(bytes, HEAD));
    let head = head.trim_start_matches('\u{feff}').trim_start();
    let _read = sniff_and_parse(path, bytes)?;
    let json = READERS.iter().map(|r| (r.name, r.sniff));
    let text = TEXT_READERS.iter().map(|r| (r.name, r.sniff));
    json.chain(text)
        .find(|(_, sniff)| sniff(head))
        .map(|(name, _)| name)
}

#[test]
fn every_fixture_is_sniffed_as_its_format() {
    for (file, format) in FIXTURES {
        assert_eq!(sniffed_format(file, &fixture(file)), Some(format), "{file}");
    }
    let saved = fixture("pytest-benchmark-saved-without-data.json");
    assert_eq!(
        sniffed_format("0001_nodata.json", &saved),
        Some("pytest-benchmark")
    );
}

/// No reader but a fixture's own sniffs it, whatever the sniffing order:
/// the new readers claim none of the older formats' files, and the older
/// readers none of theirs.
#[test]
fn only_its_own_reader_sniffs_each_fixture() {
    for (file, format) in FIXTURES {
        let bytes = fixture(file);
        let head = text::decode_text(crate::head(&bytes, HEAD));
        let head = head.trim_start_matches('\u{feff}').trim_start();
        let opener = head.chars().next();
        let json = READERS
            .iter()
            .filter(|r| Some(r.opener) == opener)
            .map(|r| (r.name, r.sniff));
        let text = TEXT_READERS.iter().map(|r| (r.name, r.sniff));
        let claims: Vec<&str> = json
            .chain(text)
            .filter(|(_, sniff)| sniff(head))
            .map(|(name, _)| name)
            .collect();
        assert_eq!(claims, [format], "{file}");
    }
}

#[test]
fn no_profile_reader_claims_a_measurement_fixture() {
    for (file, _) in FIXTURES {
        let bytes = fixture(file);
        let input = Input {
            file_name: file,
            bytes: &bytes,
        };
        for format in FORMATS {
            assert!(!format.sniff(&input), "{} claims {file}", format.name());
        }
    }
}

/// Every file under `dir`, recursively, gzip undone.
fn files_under(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for entry in walkdir::WalkDir::new(dir).into_iter().flatten() {
        if !entry.file_type().is_file() {
            continue;
        }
        let Ok(bytes) = std::fs::read(entry.path()) else {
            continue;
        };
        let bytes = if text::is_gzip(&bytes) {
            text::gunzip(&bytes).unwrap_or_default()
        } else {
            bytes
        };
        out.push((entry.path().to_path_buf(), bytes));
    }
    out
}

#[test]
fn no_profile_is_sniffed_as_measurements() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let mut dirs = vec![root.join("sample-data"), root.join("tests/fixtures/pprof")];
    let corpus = root.join("../shared/corpus");
    if corpus.is_dir() {
        dirs.push(corpus);
    } else {
        eprintln!("note: ../shared/corpus not found; only the repository's profiles checked");
    }
    let mut checked = 0;
    for dir in dirs {
        for (path, bytes) in files_under(&dir) {
            let rel = path
                .strip_prefix(root)
                .unwrap_or(&path)
                .to_string_lossy()
                .into_owned();
            // The sample data's hyperfine files are the only measurements
            // there, and they must be recognised.
            let is_timings = rel.starts_with("sample-data/")
                && path.file_name().is_some_and(|n| {
                    let n = n.to_string_lossy();
                    n.starts_with("timings.")
                        || (rel.starts_with("sample-data/moment/")
                            && n.starts_with("bench.")
                            && n.ends_with(".json"))
                });
            assert_eq!(
                sniff_and_parse(&rel, &bytes).is_some(),
                is_timings,
                "{rel}: sniffed as measurements: {}",
                !is_timings
            );
            checked += 1;
        }
    }
    assert!(checked > 40, "only {checked} files checked");
    // The profile formats' own shapes, written out.
    let native_profile = crate::native::to_json(
        &crate::folded::Folded
            .parse(&Input {
                file_name: "x.folded",
                bytes: b"a;b 1\n",
            })
            .unwrap(),
    );
    for text in [
        native_profile.as_str(),
        r#"{"$schema": "https://www.speedscope.app/file-format-schema.json", "shared": {"frames": [{"name": "results"}]}, "profiles": [{"type": "sampled", "name": "benchmarks", "unit": "seconds", "samples": [[0]], "weights": [1]}]}"#,
        r#"{"shared": {"frames": []}, "profiles": [], "results": [{"command": "x", "times": [1]}]}"#,
        r#"{"nodes": [{"id": 1, "callFrame": {"functionName": "iters"}}], "startTime": 0, "samples": [1], "timeDeltas": [1]}"#,
        r#"{"traceEvents": [], "context": {}, "benchmarks": []}"#,
        r#"{"perfatlas": 1, "results": [{"command": "x", "times": [1]}]}"#,
        "main;parse;iters 10\nmain;times 5\n",
        "[{\"ph\": \"X\", \"ts\": 1}]",
        "",
        "{}",
    ] {
        assert!(
            sniff_and_parse("p.json", text.as_bytes()).is_none(),
            "{text}"
        );
    }
}

#[test]
fn keys_must_be_keys() {
    assert!(has_key(r#"{"results" : []}"#, "results"));
    assert!(has_key("{\"results\"\n:[]}", "results"));
    assert!(!has_key(r#"{"name": "results"}"#, "results"));
    assert!(!has_key(r#"{"name": "\"results\": 1"}"#, "results"));
    assert!(!has_key(r#"{"results_x": 1}"#, "results"));
}

#[test]
fn non_finite_tokens_become_null_outside_strings_only() {
    assert_eq!(
        non_finite_as_null(r#"[NaN, -NaN, Infinity, -Infinity, "NaN \" Infinity", 1]"#),
        r#"[null, null, null, null, "NaN \" Infinity", 1]"#
    );
    assert!(matches!(non_finite_as_null("[1, 2]"), Cow::Borrowed(_)));
    // Lines stay where they were.
    assert_eq!(non_finite_as_null("[\nNaN,\n\"é\"]"), "[\nnull,\n\"é\"]");
}

#[test]
fn utf16_and_bom_are_read() {
    let text = "{\"perfatlas_measurements\": 1, \"benchmarks\": [{\"name\": \"é\", \"unit\": \"s\", \"runs\": [1]}]}";
    let mut utf16 = vec![0xFF, 0xFE];
    utf16.extend(text.encode_utf16().flat_map(|u| u.to_le_bytes()));
    let mut bom = vec![0xEF, 0xBB, 0xBF];
    bom.extend(text.as_bytes());
    for bytes in [utf16, bom] {
        let file = sniff_and_parse("m.json", &bytes).unwrap().unwrap();
        assert_eq!(file.benchmarks[0].name, "é");
    }
}

#[test]
fn never_panics_on_odd_input() {
    let deep = format!(
        "{{\"results\": {}{}}}",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let mut odd = vec![
        deep,
        "{\"results\": [{\"command\": \"a\", \"times\": [1e400]}]}".to_string(),
        "{\"iters\": [1e-320], \"times\": [1e308]}".to_string(),
        "{\"iters\"".to_string(),
        "{\"machine_info\": 1}".to_string(),
        "{\"context\": 1, \"benchmarks\": [null, 1, \"x\", []]}".to_string(),
        "{\"perfatlas_measurements\": 18446744073709551617}".to_string(),
        "{\"perfatlas_measurements\": 1, \"benchmarks\": [{\"name\": \"a\", \"unit\": \"s\", \"runs\": [[[[1]]]]}]}".to_string(),
        "{\"results\": [{\"command\": \"\\ud800\", \"times\": [1]}]}".to_string(),
        "{\"results\": [NaN".to_string(),
        "{\"results\": \"Infinit".to_string(),
    ];
    for (file, _) in FIXTURES {
        let real = String::from_utf8(fixture(file)).unwrap();
        for cut in [1, real.len() / 3, real.len() - 1] {
            odd.push(real[..cut].to_string());
        }
    }
    for text in &odd {
        for path in ["fuzz", "criterion/g/f/new/sample.json", ""] {
            let _ = sniff_and_parse(path, text.as_bytes());
            let _ = is_tool_byproduct(path);
        }
    }
    // Criterion's 1e308 ns in 1e-320 iterations is out of range: a warning.
    let e = sniff_and_parse("g/f/new/sample.json", odd[2].as_bytes())
        .unwrap()
        .unwrap_err();
    assert_eq!(e.place, Place::Json("$.times[0]".into()), "{e}");
}

#[test]
fn warnings_stop_at_a_hundred_and_count_the_rest() {
    let times: Vec<&str> = std::iter::once("1")
        .chain(std::iter::repeat_n("-1", 250))
        .collect();
    let text = format!(
        "{{\"results\": [{{\"command\": \"a\", \"times\": [{}]}}]}}",
        times.join(",")
    );
    let file = sniff_and_parse("h.json", text.as_bytes()).unwrap().unwrap();
    assert_eq!(file.benchmarks[0].runs, vec![vec![1.0]]);
    assert_eq!(file.warnings.len(), MAX_WARNINGS + 1);
    assert_eq!(
        file.warnings[99].place,
        Place::Json("$.results[0].times[100]".into())
    );
    assert_eq!(
        file.warnings[100].to_string(),
        "150 more problem(s) not listed (250 in all)"
    );
    let text = text.replacen("[1,", "[", 1);
    let e = sniff_and_parse("h.json", text.as_bytes())
        .unwrap()
        .unwrap_err();
    assert!(
        e.message
            .contains("(251 problem(s); the first: -1 is negative"),
        "{e}"
    );
}
