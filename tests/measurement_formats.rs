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
