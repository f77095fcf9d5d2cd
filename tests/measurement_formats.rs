//! End to end: a history whose versions hold only measurement files of the
//! formats read as a whole history's figures (`go test -bench` text,
//! Bencher Metric Format, JMH) builds, and the index lists their benchmarks
//! with the verdict their runs allow.

use std::fs;
use std::path::Path;

mod common;

fn fixture(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/measurements")
        .join(name);
    fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The page's text: tags and scripts left out, entities undone for `&`,
/// `<`, `>` and quotes.
fn text_of(page: &str) -> String {
    let mut out = String::new();
    let mut rest = page;
    while let Some(start) = rest.find("<script") {
        out.push_str(&rest[..start]);
        rest = rest[start..]
            .find("</script>")
            .map_or("", |end| &rest[start + end..]);
    }
    out.push_str(rest);
    let mut text = String::new();
    let mut in_tag = false;
    for c in out.chars() {
        match c {
            '<' => in_tag = true,
            '>' => {
                in_tag = false;
                text.push(' ');
            }
            _ if !in_tag => text.push(c),
            _ => {}
        }
    }
    let text = text
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&");
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn go_bench_and_bmf_versions_build_and_list_their_benchmarks() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("history");
    for version in ["1.0", "2.0"] {
        let v = input.join(version);
        fs::create_dir_all(&v).unwrap();
        fs::write(v.join("go-bench.txt"), fixture("go-bench.txt")).unwrap();
        fs::write(v.join("bmf.json"), fixture("bmf-tatami.json")).unwrap();
    }
    let site = dir.path().join("site");
    let out = common::build(&input, &site, &[]);
    assert!(
        out.status.success(),
        "exit {:?}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    let index = text_of(&fs::read_to_string(site.join("index.html")).unwrap());
    assert!(
        index.contains("4 measurement files of 24 benchmarks in 2 versions"),
        "{index}"
    );
    // Go: five runs per version, so a verdict; the -benchmem columns and
    // custom metrics are series of their own; BenchmarkJoin of the two
    // packages apart.
    for name in [
        "BenchmarkFib/n=10 mean of each of 2 versions",
        "BenchmarkFib/n=10 (allocs/op)",
        "BenchmarkHash (MB/s)",
        "BenchmarkSort (swaps/op)",
        "example.com/benchfmt/fib.BenchmarkJoin (B/op)",
        "example.com/benchfmt/sorting.BenchmarkJoin mean",
    ] {
        assert!(index.contains(name), "{name} not on the index:\n{index}");
    }
    let row = |name: &str| {
        let at = index
            .find(&format!("{name} mean of each"))
            .unwrap_or_else(|| panic!("{name}"));
        index[at..]
            .split(" measurements (")
            .next()
            .unwrap()
            .to_string()
    };
    assert!(
        row("BenchmarkFib/n=15").contains("no significant change"),
        "{}",
        row("BenchmarkFib/n=15")
    );
    assert!(index.contains("measurements (go-test-bench)"));
    // BMF: one value per file is one run: too few for a test between two
    // versions, and two versions are too few for change points; tatami-ng
    // recorded lower_value and upper_value, and the same file in both
    // versions has the same interval: no change, and the page says how.
    for name in ["fib(10)", "fib(15) (throughput)"] {
        assert!(
            row(name).contains("no change (the recorded intervals overlap)"),
            "{}",
            row(name)
        );
    }
    // Without the bounds, what would be enough is said.
    for version in ["1.0", "2.0"] {
        let bare = String::from_utf8(fixture("bmf-tatami.json"))
            .unwrap()
            .replace("lower_value", "lower")
            .replace("upper_value", "upper");
        fs::write(input.join(version).join("bmf.json"), bare).unwrap();
    }
    let out = common::build(&input, &site, &["-q"]);
    assert!(out.status.success());
    let index = text_of(&fs::read_to_string(site.join("index.html")).unwrap());
    let at = index.find("fib(10) mean of each").unwrap();
    assert!(
        index[at..].contains("not enough data: 2 versions of one value each: change-point detection needs at least 6 versions, or 3 runs in each of two versions"),
        "{}",
        &index[at..at + 300]
    );
    assert!(index.contains("measurements (bencher-metric-format)"));
}

#[test]
fn jmh_versions_build_and_list_their_benchmarks() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("history");
    for version in ["1.0", "2.0"] {
        let v = input.join(version);
        fs::create_dir_all(&v).unwrap();
        fs::write(
            v.join("jmh-result.json"),
            fixture("jmh/jmh-sample-pg-client.json"),
        )
        .unwrap();
        fs::write(v.join("casbin.json"), fixture("jmh/jmh-jcasbin.json")).unwrap();
    }
    let site = dir.path().join("site");
    let out = common::build(&input, &site, &[]);
    assert!(
        out.status.success(),
        "exit {:?}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    let index = text_of(&fs::read_to_string(site.join("index.html")).unwrap());
    assert!(
        index.contains("4 measurement files of 39 benchmarks in 2 versions"),
        "{index}"
    );
    assert!(index.contains("measurements (jmh)"), "{index}");
    for name in [
        "BenchmarkMemory.measureMemory(scenario=ACL) mean of each of 2 versions",
        "BenchmarkEnforce.enforce(dataScale=large, modelType=rbac, useCache=true)",
        "ClientBenchmark.jdbcBurstQuery(connectUri=postgres://postgres:postgres@localhost:5432/postgres, count=5000, pipelining=1, sql=SELECT NOW())",
    ] {
        assert!(index.contains(name), "{name} not on the index:\n{index}");
    }
    // One fork per version is one independent run; two forks are two.
    let row = |name: &str| {
        let at = index
            .find(&format!("{name} mean of each"))
            .unwrap_or_else(|| panic!("{name}"));
        index[at..]
            .split(" measurements (")
            .next()
            .unwrap()
            .to_string()
    };
    let memory = row("BenchmarkMemory.measureMemory(scenario=ACL)");
    assert!(
        memory.contains("not enough data: 2 versions of one value each"),
        "{memory}"
    );
    let sample = row("ClientBenchmark.jdbcBurstQuery(connectUri=postgres://postgres:postgres@localhost:5432/postgres, count=5000, pipelining=1, sql=SELECT NOW())");
    assert!(
        sample.contains("not enough data: 2 versions, most with fewer than 3 independent runs (the newest has 2)"),
        "{sample}"
    );
}

/// pyperf files of two versions (captured with `capture/pyperf_suite.py`
/// and `pyperf_suite_v2.py`, which sorts a list twice as long): each
/// worker process is a run, so sort-2000's 10 runs per version give a
/// verdict, and it is the regression the change makes.
#[test]
fn pyperf_versions_build_and_the_longer_sort_is_a_regression() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("history");
    for (version, file) in [
        ("1.0", "pyperf-suite.json"),
        ("2.0", "pyperf-suite-v2.json"),
    ] {
        let v = input.join(version);
        fs::create_dir_all(&v).unwrap();
        fs::write(v.join("bench.json"), fixture(file)).unwrap();
    }
    let site = dir.path().join("site");
    let out = common::build(&input, &site, &[]);
    assert!(
        out.status.code() == Some(0) || out.status.code() == Some(1),
        "exit {:?}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    let index = text_of(&fs::read_to_string(site.join("index.html")).unwrap());
    assert!(index.contains("measurements (pyperf)"), "{index}");
    let at = index.find("sort-2000").expect("sort-2000 on the index");
    let row = &index[at..at + 400.min(index.len() - at)];
    assert!(row.to_lowercase().contains("regression"), "{row}");
}

/// `Measurements[].Nanoseconds` (BenchmarkDotNet) or a trial's `times`
/// (BenchmarkTools.jl) of a real file, multiplied by `factor`: a second
/// version of the same benchmarks, `factor` times slower.
fn scaled(rel: &str, factor: f64) -> Vec<u8> {
    fn scale(value: &mut serde_json::Value, factor: f64) {
        match value {
            serde_json::Value::Object(map) => {
                for (key, v) in map.iter_mut() {
                    match (key.as_str(), v) {
                        ("Nanoseconds", serde_json::Value::Number(n)) => {
                            *n = serde_json::Number::from_f64(n.as_f64().unwrap() * factor).unwrap()
                        }
                        ("times", serde_json::Value::Array(times)) => {
                            for t in times {
                                *t = (t.as_f64().unwrap() * factor).into();
                            }
                        }
                        (_, v) => scale(v, factor),
                    }
                }
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(|v| scale(v, factor)),
            _ => {}
        }
    }
    let mut doc: serde_json::Value = serde_json::from_slice(&fixture(rel)).unwrap();
    scale(&mut doc, factor);
    serde_json::to_vec(&doc).unwrap()
}

#[test]
fn benchmarkdotnet_and_benchmarktools_versions_build_with_their_units() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("history");
    let bdn = "benchmarkdotnet/needlr-TypeRegistrationBenchmarks-report-full-compressed.json";
    let julia = "benchmarktools/mlogit-results.json";
    for (version, factor) in [("1.0", 1.0), ("2.0", 2.0)] {
        let v = input.join(version);
        fs::create_dir_all(&v).unwrap();
        fs::write(
            v.join("Needlr-report-full-compressed.json"),
            scaled(bdn, factor),
        )
        .unwrap();
        fs::write(v.join("results.json"), scaled(julia, factor)).unwrap();
    }
    let site = dir.path().join("site");
    common::build_ok(&input, &site, &[]);
    let index = text_of(&fs::read_to_string(site.join("index.html")).unwrap());
    assert!(index.contains("measurements (benchmarkdotnet)"), "{index}");
    assert!(index.contains("measurements (benchmarktools)"), "{index}");
    let prefix = "NexusLabs.Needlr.Benchmarks.Benchmarks.TypeRegistrationBenchmarks.";
    for name in [
        format!("{prefix}ManualDI_RegisterTypes mean of each of 2 versions"),
        format!("{prefix}Needlr_SourceGen_RegisterTypes (B/op)"),
        "mlogit mean of each of 2 versions".to_string(),
        "mlogit (memory)".to_string(),
    ] {
        assert!(index.contains(&name), "{name} not on the index:\n{index}");
    }
    // The benchmarks' pages say their unit: ManualDI's mean, 94.84 ns in
    // BenchmarkDotNet's own table, and its double in 2.0; mlogit's in ms.
    let pages: Vec<(String, String)> = walk(&site)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "html"))
        .map(|p| {
            let text = text_of(&fs::read_to_string(&p).unwrap());
            (p.display().to_string(), text)
        })
        .collect();
    let shows = |name: &str, figure: &str| {
        pages
            .iter()
            .any(|(_, text)| text.contains(name) && text.contains(figure))
    };
    let manual = format!("{prefix}ManualDI_RegisterTypes");
    let listed: Vec<&str> = pages
        .iter()
        .filter(|(p, _)| p.contains("ManualDI_Regis"))
        .map(|(_, t)| &t[..t.len().min(1500)])
        .collect();
    // 1.5x the first version's mean bounds its first category.
    assert!(shows(&manual, "below 142.26 ns"), "{listed:?}");
    assert!(
        shows(&manual, "94.84 ns") || shows(&manual, "94.8 ns"),
        "{listed:?}"
    );
    assert!(
        shows(&manual, "189.68 ns") || shows(&manual, "189.7 ns"),
        "{listed:?}"
    );
    assert!(shows("mlogit", " ms"), "{listed:?}");
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}
