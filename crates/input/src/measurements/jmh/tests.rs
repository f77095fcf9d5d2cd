use super::super::{fixture, sniff_and_parse, MeasurementFile};
use super::*;
use model::error::Place;

fn parse(text: &str) -> Result<MeasurementFile, ParseError> {
    sniff_and_parse("jmh-result.json", text.as_bytes()).expect("sniffed as JMH")
}

fn benchmark<'a>(file: &'a MeasurementFile, name: &str) -> &'a Measured {
    file.benchmarks
        .iter()
        .find(|b| b.name == name)
        .unwrap_or_else(|| panic!("{name} not in {:?}", names(file)))
}

fn names(file: &MeasurementFile) -> Vec<&str> {
    file.benchmarks.iter().map(|b| b.name.as_str()).collect()
}

/// A line of `jmh_summary.py`'s output: what JMH reports of a result,
/// read by Python's json module.
struct Summary {
    benchmark: String,
    mode: String,
    params: String,
    forks: usize,
    iterations: Vec<usize>,
    samples: usize,
    score: f64,
    unit: String,
}

fn summaries(file: &str) -> Vec<Summary> {
    let text = String::from_utf8(fixture(file)).unwrap();
    text.lines()
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f.len(), 9, "{line}");
            Summary {
                benchmark: f[0].to_string(),
                mode: f[1].to_string(),
                params: f[2].to_string(),
                forks: f[3].parse().unwrap(),
                iterations: f[4].split(',').map(|n| n.parse().unwrap()).collect(),
                samples: f[5].parse().unwrap(),
                score: f[6].parse().unwrap(),
                unit: f[7].to_string(),
            }
        })
        .collect()
}

/// The name a summary line's result must have: `Class.method(params)`.
fn expected_name(s: &Summary) -> String {
    let parts: Vec<&str> = s.benchmark.split('.').collect();
    let short = parts[parts.len() - 2..].join(".");
    match s.params.as_str() {
        "-" => short,
        params => format!("{short}({params})"),
    }
}

/// A value of `unit` from perfatlas's seconds, as JMH printed it.
fn as_printed(seconds: f64, unit: &str) -> f64 {
    match unit {
        "ops/ms" => 1.0 / (seconds * 1e3),
        "ms/op" => seconds * 1e3,
        "s/op" => seconds,
        other => panic!("unit {other} not in the fixtures"),
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs()
}

/// Every result of both real files: one run per fork, one sample per
/// iteration (per sampled invocation in `sample` mode), and JMH's own
/// score is the mean of the samples read back in its unit.
#[test]
fn every_fork_and_iteration_of_the_real_files() {
    for (file, summary, count) in [
        ("jmh/jmh-jcasbin.json", "jmh/jmh-jcasbin.summary.txt", 37),
        (
            "jmh/jmh-sample-pg-client.json",
            "jmh/jmh-sample-pg-client.summary.txt",
            2,
        ),
    ] {
        let read = sniff_and_parse("jmh-result.json", &fixture(file))
            .unwrap()
            .unwrap();
        assert_eq!(read.format, "jmh");
        assert!(read.warnings.is_empty(), "{file}: {:?}", read.warnings);
        let summaries = summaries(summary);
        assert_eq!(summaries.len(), count);
        // Sample mode's percentile rows are not benchmarks.
        assert_eq!(read.benchmarks.len(), count, "{:?}", names(&read));
        for s in &summaries {
            let b = benchmark(&read, &expected_name(s));
            assert_eq!((b.unit.as_str(), b.in_process), ("s", true));
            assert_eq!(b.runs.len(), s.forks, "{}", b.name);
            let iterations: Vec<usize> = b.runs.iter().map(Vec::len).collect();
            if s.mode == "sample" {
                assert_eq!(iterations.iter().sum::<usize>(), s.samples);
            } else {
                assert_eq!(iterations, s.iterations, "{}", b.name);
            }
            let printed: Vec<f64> = b
                .runs
                .iter()
                .flatten()
                .map(|&v| as_printed(v, &s.unit))
                .collect();
            let mean = printed.iter().sum::<f64>() / printed.len() as f64;
            assert!(close(mean, s.score), "{}: {mean} vs {}", b.name, s.score);
        }
    }
}

#[test]
fn samples_are_the_raw_values_converted() {
    let bytes = fixture("jmh/jmh-jcasbin.json");
    let read = sniff_and_parse("r.json", &bytes).unwrap().unwrap();
    let doc: Value = serde_json::from_slice(&bytes).unwrap();
    // thrpt in ops/ms: seconds per operation, 1 / value.
    let raw = doc[0]["primaryMetric"]["rawData"][0].as_array().unwrap();
    let first = benchmark(
        &read,
        "BenchmarkEnforce.enforce(dataScale=small, modelType=rbac, useCache=false)",
    );
    let expected: Vec<f64> = raw
        .iter()
        .map(|v| 1.0 / (v.as_f64().unwrap() * 1e3))
        .collect();
    assert_eq!(first.runs, vec![expected]);
    assert!(
        first.note.contains(
            "thrpt score per measurement iteration (ops/ms as seconds per operation, 1 / value"
        ),
        "{}",
        first.note
    );
    assert!(first.note.contains("a single fork"), "{}", first.note);
    // ss in ms/op: seconds.
    assert_eq!(doc[30]["mode"], "ss");
    let raw = doc[30]["primaryMetric"]["rawData"][0].as_array().unwrap();
    let memory = benchmark(&read, "BenchmarkMemory.measureMemory(scenario=ACL)");
    let expected: Vec<f64> = raw.iter().map(|v| v.as_f64().unwrap() / 1e3).collect();
    assert_eq!(memory.runs, vec![expected]);
    assert_eq!(
        memory.note,
        "JMH ss score per measurement iteration (ms/op); a single fork, its iterations as samples (-f N gives N runs)"
    );
    // Sample mode: every histogram entry, in s/op, fork by fork.
    let bytes = fixture("jmh/jmh-sample-pg-client.json");
    let read = sniff_and_parse("r.json", &bytes).unwrap().unwrap();
    let doc: Value = serde_json::from_slice(&bytes).unwrap();
    let forks = doc[1]["primaryMetric"]["rawDataHistogram"]
        .as_array()
        .unwrap();
    let expected: Vec<Vec<f64>> = forks
        .iter()
        .map(|fork| {
            let its = fork.as_array().unwrap();
            its.iter()
                .flat_map(|it| it.as_array().unwrap())
                .flat_map(|pair| {
                    let n = pair[1].as_u64().unwrap() as usize;
                    std::iter::repeat_n(pair[0].as_f64().unwrap(), n)
                })
                .collect()
        })
        .collect();
    let b = &read.benchmarks[1];
    assert!(b
        .name
        .starts_with("ClientBenchmark.reactiveBurstQuery(connectUri=postgres://"));
    assert!(b
        .name
        .ends_with(", count=5000, pipelining=1, sql=SELECT NOW())"));
    assert_eq!(b.runs, expected);
    assert_eq!(
        b.note,
        "JMH sample sampled invocation times (s/op); one run per fork (2), its iterations as samples"
    );
}

/// One JMH result in the shape JMH writes (`rawData` per fork).
fn result(benchmark: &str, mode: &str, unit: &str, raw: &str, extra: &str) -> String {
    format!(
        r#"{{"jmhVersion": "1.37", "benchmark": "{benchmark}", "mode": "{mode}",
            "threads": 1, "forks": 2{extra},
            "primaryMetric": {{"score": 1, "scoreError": "NaN", "scoreUnit": "{unit}",
                               "rawData": {raw}}}}}"#
    )
}

fn file_of(results: &[String]) -> String {
    format!("[\n{}\n]\n", results.join(",\n"))
}

#[test]
fn units_become_seconds_and_rates_their_inverse() {
    let cases = [
        ("avgt", "ns/op", 250.0, 250e-9),
        ("avgt", "us/op", 2.5, 2.5e-6),
        ("sample", "ms/op", 4.0, 4e-3),
        ("ss", "s/op", 1.5, 1.5),
        ("avgt", "min/op", 2.0, 120.0),
        ("thrpt", "ops/s", 4.0, 0.25),
        ("thrpt", "ops/ms", 2.0, 1.0 / 2e3),
        ("thrpt", "ops/us", 8.0, 1.0 / 8e6),
        ("thrpt", "ops/ns", 0.5, 1.0 / 0.5e9),
        ("thrpt", "ops/hr", 7200.0, 0.5),
    ];
    let results: Vec<String> = cases
        .iter()
        .enumerate()
        .map(|(i, (mode, unit, v, _))| {
            result(
                &format!("p.B.m{i}"),
                mode,
                unit,
                &format!("[[{v}], [{v}]]"),
                "",
            )
        })
        .collect();
    let read = parse(&file_of(&results)).unwrap();
    assert!(read.warnings.is_empty(), "{:?}", read.warnings);
    for (i, (_, unit, _, seconds)) in cases.iter().enumerate() {
        let b = &read.benchmarks[i];
        assert_eq!(b.name, format!("B.m{i}"));
        assert_eq!(b.unit, "s", "{unit}");
        assert_eq!(b.runs, vec![vec![*seconds]; 2], "{unit}");
        assert!(b.note.contains("one run per fork (2)"), "{}", b.note);
        assert_eq!(
            b.note.contains("1 / value"),
            unit.starts_with("ops/"),
            "{unit}"
        );
    }
    // A unit JMH does not write is kept as it is.
    let read = parse(&file_of(&[result(
        "p.B.m",
        "avgt",
        "frames/op",
        "[[3]]",
        "",
    )]))
    .unwrap();
    assert_eq!(
        (read.benchmarks[0].unit.as_str(), &read.benchmarks[0].runs),
        ("frames/op", &vec![vec![3.0]])
    );
}

#[test]
fn secondary_metrics_are_benchmarks_of_their_own() {
    let gc = r#", "params": {"size": "10"}, "secondaryMetrics": {
        "·gc.alloc.rate": {"score": 812.5, "scoreUnit": "MB/sec", "rawData": [[800, 825], [810, 815]]},
        "·gc.alloc.rate.norm": {"score": 96.0, "scoreUnit": "B/op", "rawData": [[96.0, 96.0], [96.0, 96.0]]},
        "·gc.count": {"score": 3.0, "scoreUnit": "counts", "rawData": [[1, 2], []]},
        "·gc.time": {"score": 4.0, "scoreUnit": "ms", "rawData": [[4], [4]]},
        "asm": {"score": "NaN", "scoreUnit": "---", "rawData": [[], []]}}"#;
    let text = file_of(&[result(
        "org.example.Parse.json",
        "avgt",
        "ns/op",
        "[[5, 6], [7, 8]]",
        gc,
    )]);
    let read = parse(&text).unwrap();
    assert_eq!(
        names(&read),
        [
            "Parse.json(size=10)",
            "Parse.json(size=10) (gc.alloc.rate)",
            "Parse.json(size=10) (gc.alloc.rate.norm)",
            "Parse.json(size=10) (gc.count)",
            "Parse.json(size=10) (gc.time)",
        ]
    );
    let unit = |n: &str| benchmark(&read, n).unit.clone();
    assert_eq!(unit("Parse.json(size=10) (gc.alloc.rate)"), "MB/sec");
    assert_eq!(unit("Parse.json(size=10) (gc.alloc.rate.norm)"), "bytes");
    assert_eq!(unit("Parse.json(size=10) (gc.count)"), "counts");
    assert_eq!(unit("Parse.json(size=10) (gc.time)"), "s");
    let norm = benchmark(&read, "Parse.json(size=10) (gc.alloc.rate.norm)");
    assert_eq!(norm.runs, vec![vec![96.0, 96.0]; 2]);
    assert_eq!(
        norm.note,
        "JMH secondary metric gc.alloc.rate.norm per measurement iteration (B/op); one run per fork (2), its iterations as samples"
    );
    assert_eq!(
        benchmark(&read, "Parse.json(size=10) (gc.time)").runs,
        vec![vec![4e-3]; 2]
    );
    // A fork without a value of the metric is a run left out.
    assert_eq!(
        benchmark(&read, "Parse.json(size=10) (gc.count)")
            .runs
            .len(),
        1
    );
    let warnings: Vec<String> = read.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(
        warnings,
        [
            "$[0].secondaryMetrics[\"asm\"].rawData: asm: no values (a profiler that reports text, such as perfasm?); left out",
            "$[0].secondaryMetrics[\"·gc.count\"].rawData[1]: no usable samples; the run is left out",
        ]
    );
}

#[test]
fn names_stay_unique() {
    let raw = "[[1]]";
    let read = parse(&file_of(&[
        result("a.Bench.run", "avgt", "ns/op", raw, ""),
        result("b.Bench.run", "avgt", "ns/op", raw, ""),
        result("c.Other.run", "avgt", "ns/op", raw, ""),
        result("c.Other.run", "thrpt", "ops/s", raw, ""),
        result(
            "c.Other.walk",
            "avgt",
            "ns/op",
            raw,
            r#", "params": {"n": "1"}"#,
        ),
        result(
            "c.Other.walk",
            "avgt",
            "ns/op",
            raw,
            r#", "params": {"n": "2"}"#,
        ),
        result("main", "ss", "s/op", raw, r#", "params": {}"#),
    ]))
    .unwrap();
    assert_eq!(
        names(&read),
        [
            "a.Bench.run",
            "b.Bench.run",
            "Other.run [avgt]",
            "Other.run [thrpt]",
            "Other.walk(n=1)",
            "Other.walk(n=2)",
            "main",
        ]
    );
}

#[test]
fn histograms_are_expanded_by_count() {
    let sample = |histogram: &str| {
        format!(
            r#"[{{"jmhVersion": "1.37", "benchmark": "p.B.m", "mode": "sample", "forks": 1,
                 "primaryMetric": {{"score": 1, "scoreUnit": "us/op",
                                    "rawDataHistogram": {histogram}}},
                 "secondaryMetrics": {{"m·p0.50": {{"score": 1, "scoreUnit": "us/op", "rawData": [[1]]}}}}}}]"#
        )
    };
    let read = parse(&sample("[[[[1.5, 3], [2.0, 1]], [[4.0, 2]]]]")).unwrap();
    assert_eq!(names(&read), ["B.m"]);
    assert_eq!(
        read.benchmarks[0].runs,
        vec![vec![1.5e-6, 1.5e-6, 1.5e-6, 2e-6, 4e-6, 4e-6]]
    );
    // Counts past the limit: the mean of each iteration.
    let read = parse(&sample("[[[[1.0, 999999], [4.0, 1]], [[2.0, 1]]]]")).unwrap();
    assert_eq!(read.benchmarks[0].runs.len(), 1);
    let r = &read.benchmarks[0].runs[0];
    assert_eq!(r.len(), 2);
    assert!(close(r[0], (999_999.0 + 4.0) / 1e6 / 1e6), "{r:?}");
    assert_eq!(
        read.warnings[0].to_string(),
        "$[0].primaryMetric.rawDataHistogram: 1000001 sampled invocations, more than 1000000: each iteration is read as one sample, its mean"
    );
    // Odd counts and values are warnings at their place.
    let read = parse(&sample(
        "[[[[1.0, -1], [2.0, 1.5], [\"NaN\", 1], [3.0, 18446744073709551615]]], [[[5.0, 1]]]]",
    ))
    .unwrap();
    let places: Vec<String> = read.warnings.iter().map(|w| w.place.to_string()).collect();
    assert_eq!(
        places,
        [
            "$[0].primaryMetric.rawDataHistogram[0][0][0][1]",
            "$[0].primaryMetric.rawDataHistogram[0][0][1][1]",
            "$[0].primaryMetric.rawDataHistogram[0][0][2][0]",
            "$[0].primaryMetric.rawDataHistogram",
        ]
    );
    // Too many invocations to expand: every iteration its mean.
    assert_eq!(read.benchmarks[0].runs, vec![vec![3e-6], vec![5e-6]]);
    let e = parse(&sample("[[[[1.0]]]]")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "$[0].primaryMetric.rawDataHistogram[0][0][0]: expected a [value, count] pair"
    );
}

#[test]
fn odd_values_are_warnings_with_their_path() {
    let read = parse(&file_of(&[
        result("p.B.a", "avgt", "ns/op", r#"[[1, "NaN", -2, 3], []]"#, ""),
        result("p.B.b", "thrpt", "ops/s", "[[0, 1e-320, 2]]", ""),
        result("p.B.c", "avgt", "ns/op", "[]", ""),
    ]))
    .unwrap();
    assert_eq!(read.benchmarks[0].runs, vec![vec![1e-9, 3e-9]]);
    assert_eq!(read.benchmarks[1].runs, vec![vec![0.5]]);
    let warnings: Vec<String> = read.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(
        warnings,
        [
            "$[0].primaryMetric.rawData[0][1]: expected a number, found a string; the sample is left out",
            "$[0].primaryMetric.rawData[0][2]: -2 is negative; the sample is left out",
            "$[0].primaryMetric.rawData[1]: no usable samples; the run is left out",
            "$[1].primaryMetric.rawData[0][0]: a throughput of 0 has no finite time per operation; the sample is left out",
            "$[1].primaryMetric.rawData[0][1]: a throughput of 1e-320 has no finite time per operation; the sample is left out",
            "$[2]: B.c: no usable runs; the benchmark is left out",
        ]
    );
}

#[test]
fn wrong_shapes_and_cut_files_are_errors_with_a_place() {
    let base = r#"[{"jmhVersion": "1.37", "benchmark": "p.B.m", "primaryMetric": "#;
    for (text, place, message) in [
        (
            r#"[{"jmhVersion": "1.37", "benchmark": 7}]"#,
            "$[0].benchmark",
            "expected a string, found a number",
        ),
        (
            r#"[{"jmhVersion": "1.37", "benchmark": "p.B.m"}]"#,
            "$[0].primaryMetric",
            "missing: the benchmark's measurements",
        ),
        (
            &format!(r#"{base}{{"scoreUnit": "ns/op"}}}}]"#),
            "$[0].primaryMetric.rawData",
            "missing: the score of each measurement iteration, per fork (rawDataHistogram in sample mode)",
        ),
        (
            &format!(r#"{base}{{"rawData": [[1]]}}}}]"#),
            "$[0].primaryMetric.scoreUnit",
            "missing: the unit of the scores",
        ),
        (
            &format!(r#"{base}{{"scoreUnit": "ns/op", "rawData": [1, 2]}}}}]"#),
            "$[0].primaryMetric.rawData[0]",
            "expected an array, found a number",
        ),
        (
            &format!(r#"{base}{{"scoreUnit": "ns/op", "rawData": [[1]]}}, "params": [1]}}]"#),
            "$[0].params",
            "expected an object, found an array",
        ),
        (
            &format!(r#"{base}{{"scoreUnit": "ns/op", "rawData": [[1]]}}}}, 5]"#),
            "$[1]",
            "expected an object, found a number",
        ),
        (
            &format!(r#"{base}{{"scoreUnit": "ns/op", "rawData": [[1]]}}, "secondaryMetrics": {{"x": 1}}}}]"#),
            "$[0].secondaryMetrics[\"x\"]",
            "expected an object, found a number",
        ),
    ] {
        let e = parse(text).unwrap_err();
        assert_eq!(e.place, Place::Json(place.into()), "{text}: {e}");
        assert_eq!(e.message, message, "{text}");
    }
    let real = String::from_utf8(fixture("jmh/jmh-jcasbin.json")).unwrap();
    for cut in [real.len() / 2, real.len() - 10] {
        let e = parse(&real[..cut]).unwrap_err();
        assert!(matches!(e.place, Place::Line(_)), "{e}");
    }
}

#[test]
fn only_arrays_of_jmh_results_are_jmh() {
    for text in [
        "[]",
        "[1, 2]",
        r#"[{"benchmark": "p.B.m"}]"#,
        r#"[{"ph": "X", "ts": 1, "args": {"jmhVersion": "1.37"}}]"#,
        r#"[{"name": "jmhVersion", "ph": "B", "ts": 0}]"#,
        r#"{"jmhVersion": "1.37", "benchmark": "p.B.m", "primaryMetric": {}}"#,
        r#"[["jmhVersion"]]"#,
    ] {
        assert!(
            sniff_and_parse("x.json", text.as_bytes()).is_none(),
            "{text}"
        );
    }
    // Older JMH wrote no jmhVersion.
    let old = r#"[{"benchmark": "p.B.m", "mode": "avgt", "params": {"a": "}]"},
                   "primaryMetric": {"score": 1, "scoreUnit": "ns/op", "rawData": [[1]]}}]"#;
    assert_eq!(parse(old).unwrap().benchmarks[0].name, "B.m(a=}])");
    assert!(is_percentile("run·p0.999"));
    assert!(!is_percentile("·gc.alloc.rate") && !is_percentile("run·p") && !is_percentile("·pool"));
}
