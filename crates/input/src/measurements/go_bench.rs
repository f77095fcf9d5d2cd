//! The text that `go test -bench` prints (the Go benchmark data format
//! that benchstat reads):
//!
//! ```text
//! goos: linux
//! goarch: amd64
//! pkg: example.com/benchfmt/fib
//! cpu: AMD EPYC
//! BenchmarkFib/n=10-2   242499   245.9 ns/op   0 B/op   0 allocs/op
//! BenchmarkHash-2         5203   15427 ns/op   265.50 MB/s   0 B/op   0 allocs/op
//! PASS
//! ok   example.com/benchfmt/fib   2.217s
//! ```
//!
//! A result line is a name starting with `Benchmark`, the iteration count,
//! then value–unit pairs. Configuration lines (`key: value`, the key in
//! lower case) set what follows; only `pkg` is used. Every other line
//! (`PASS`, `ok`, test logs) is not data and is passed over.
//!
//! Each result line is one run with one sample: with `-count N` a
//! benchmark has N lines, N runs (in one test process, like Google
//! Benchmark's repetitions, so a benchmark with several is
//! `in_process = false`). `ns/op` is the benchmark's time, converted to
//! seconds. Every other unit — `-benchmem`'s `B/op` and `allocs/op`,
//! `b.SetBytes`'s `MB/s`, `b.ReportMetric`'s own units — is a benchmark of
//! its own, `NAME (UNIT)`, so it is a series of its own rather than mixed
//! with the times (`B/op` in unit `bytes`, the others as written).
//!
//! Names are kept as printed less the `-N` GOMAXPROCS suffix, so a series
//! survives a change of machine; the suffix stays when one file ran the
//! same benchmark at several `-cpu` values. A name that two packages of
//! the file share is prefixed with its package (`example.com/a.BenchmarkX`).

use model::error::{ParseError, Place};

use super::{Collected, Measured};

pub(super) const NAME: &str = "go-test-bench";

/// A result line in the first kilobytes, or the configuration header that
/// `go test` prints before its first result.
pub(super) fn sniff(head: &str) -> bool {
    let mut os_arch = (false, false);
    for line in head.lines() {
        if result_line(line).is_ok_and(|r| r.is_some()) {
            return true;
        }
        os_arch.0 |= line.starts_with("goos: ");
        os_arch.1 |= line.starts_with("goarch: ");
    }
    os_arch == (true, true)
}

/// One result line, as read.
#[derive(Debug)]
struct Line<'a> {
    number: usize,
    package: &'a str,
    /// The name less its GOMAXPROCS suffix.
    base: &'a str,
    /// The name as printed.
    full: &'a str,
    metrics: Vec<(&'a str, f64)>,
}

pub(super) fn read(text: &str, out: &mut Collected) -> Result<(), ParseError> {
    let mut package = "";
    let mut lines = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let number = i + 1;
        let line = line.strip_suffix('\r').unwrap_or(line);
        if let Some(value) = config_value(line, "pkg") {
            package = value;
            continue;
        }
        match result_line(line) {
            Ok(Some((full, metrics))) => lines.push(Line {
                number,
                package,
                base: without_procs(full),
                full,
                metrics,
            }),
            Ok(None) => {}
            Err(why) => out.warn_at(
                Place::Line(number),
                format!("not a benchmark result ({why}); the line is left out"),
            ),
        }
    }
    if lines.is_empty() {
        return Err(ParseError::whole(
            "no benchmark result lines (`BenchmarkName  N  value unit …`): \
             did the benchmarks run (`go test -run '^$' -bench .`), or was the output cut off?",
        ));
    }
    let names = Names::of(&lines);
    collect(&lines, &names, out);
    Ok(())
}

/// The value of the configuration line `key: value`, if `line` is one.
fn config_value<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let rest = line.strip_prefix(key)?.strip_prefix(':')?;
    (rest.is_empty() || rest.starts_with([' ', '\t'])).then(|| rest.trim())
}

/// A result line's name as printed and its value–unit pairs.
type ResultLine<'a> = (&'a str, Vec<(&'a str, f64)>);

/// A result line's name and value–unit pairs; `Ok(None)` when the line is
/// not one (it does not start with a benchmark name followed by more
/// fields); `Err` when it starts like one but the rest does not fit.
fn result_line(line: &str) -> Result<Option<ResultLine<'_>>, String> {
    let mut fields = line.split_whitespace();
    let Some(name) = fields.next().filter(|n| is_benchmark_name(n)) else {
        return Ok(None);
    };
    let Some(iterations) = fields.next() else {
        // `go test -v` prints a benchmark's name alone before its result.
        return Ok(None);
    };
    if iterations.parse::<u64>().is_err() {
        return Err(format!("{iterations:?} is not an iteration count"));
    }
    let rest: Vec<&str> = fields.collect();
    if rest.is_empty() || !rest.len().is_multiple_of(2) {
        return Err("expected value–unit pairs after the iteration count".to_string());
    }
    let mut metrics = Vec::with_capacity(rest.len() / 2);
    for pair in rest.chunks_exact(2) {
        let value: f64 = pair[0]
            .parse()
            .map_err(|_| format!("{:?} is not a number", pair[0]))?;
        metrics.push((pair[1], value));
    }
    Ok(Some((name, metrics)))
}

/// `Benchmark`, then the end of the name or a character that is not a
/// lower-case letter (`BenchmarkFib`, `Benchmark/x`; not `Benchmarks`).
fn is_benchmark_name(field: &str) -> bool {
    field
        .strip_prefix("Benchmark")
        .is_some_and(|rest| !rest.starts_with(|c: char| c.is_lowercase()))
}

/// `name` less a trailing `-N` (GOMAXPROCS, which `go test` appends when
/// it is not 1).
fn without_procs(name: &str) -> &str {
    match name.rsplit_once('-') {
        Some((base, procs))
            if !base.is_empty()
                && !procs.is_empty()
                && procs.bytes().all(|b| b.is_ascii_digit()) =>
        {
            base
        }
        _ => name,
    }
}

/// How each line's benchmark is named: which names keep their GOMAXPROCS
/// suffix and which get their package.
struct Names {
    /// Package and base name of benchmarks run at several GOMAXPROCS.
    several_procs: rustc_hash::FxHashSet<(String, String)>,
    /// Names that more than one package has.
    shared: rustc_hash::FxHashSet<String>,
}

impl Names {
    fn of(lines: &[Line]) -> Names {
        let mut procs: rustc_hash::FxHashMap<(&str, &str), &str> = Default::default();
        let mut several_procs = rustc_hash::FxHashSet::default();
        for l in lines {
            let first = *procs.entry((l.package, l.base)).or_insert(l.full);
            if first != l.full {
                several_procs.insert((l.package.to_string(), l.base.to_string()));
            }
        }
        let mut names = Names {
            several_procs,
            shared: Default::default(),
        };
        let mut package_of: rustc_hash::FxHashMap<String, &str> = Default::default();
        for l in lines {
            let name = names.unqualified(l).to_string();
            let first = *package_of.entry(name.clone()).or_insert(l.package);
            if first != l.package {
                names.shared.insert(name);
            }
        }
        names
    }

    fn unqualified<'a>(&self, l: &Line<'a>) -> &'a str {
        let key = (l.package.to_string(), l.base.to_string());
        if self.several_procs.contains(&key) {
            l.full
        } else {
            l.base
        }
    }

    fn of_line(&self, l: &Line) -> String {
        let name = self.unqualified(l);
        if self.shared.contains(name) && !l.package.is_empty() {
            format!("{}.{name}", l.package)
        } else {
            name.to_string()
        }
    }
}

/// The benchmark (name and unit) a metric of a line belongs to, and the
/// factor its values are divided by.
fn series(name: &str, unit: &str) -> (String, String, f64) {
    match unit {
        "ns/op" => (name.to_string(), "s".to_string(), 1e9),
        "sec/op" => (name.to_string(), "s".to_string(), 1.0),
        "B/op" => (format!("{name} (B/op)"), "bytes".to_string(), 1.0),
        other => (format!("{name} ({other})"), other.to_string(), 1.0),
    }
}

/// Groups the lines' metrics into benchmarks, in the order they first
/// appear.
fn collect(lines: &[Line], names: &Names, out: &mut Collected) {
    let mut index: rustc_hash::FxHashMap<(String, String), usize> = Default::default();
    // First line, unit as printed, and the benchmark.
    let mut groups: Vec<(usize, &str, Measured)> = Vec::new();
    for l in lines {
        let name = names.of_line(l);
        for &(printed, value) in &l.metrics {
            let (benchmark, unit, per) = series(&name, printed);
            let Some(v) = usable(value, per, l.number, out) else {
                continue;
            };
            let g = *index
                .entry((benchmark.clone(), unit.clone()))
                .or_insert_with(|| {
                    let m = Measured {
                        name: benchmark,
                        unit,
                        runs: Vec::new(),
                        in_process: false,
                        note: String::new(),
                        interval: None,
                    };
                    groups.push((l.number, printed, m));
                    groups.len() - 1
                });
            groups[g].2.runs.push(vec![v]);
        }
    }
    for (line, printed, mut m) in groups {
        let several = m.runs.len() > 1;
        m.in_process = !several;
        m.note = note(printed, several);
        out.benchmark_at(Place::Line(line), m);
    }
}

/// A value divided by `per`, or `None` (with a warning at the line) when
/// it is not finite or negative.
fn usable(value: f64, per: f64, line: usize, out: &mut Collected) -> Option<f64> {
    let v = value / per;
    if !v.is_finite() {
        out.warn_at(
            Place::Line(line),
            format!("{value} is out of range; the value is left out"),
        );
        None
    } else if v < 0.0 {
        out.warn_at(
            Place::Line(line),
            format!("{value} is negative; the value is left out"),
        );
        None
    } else {
        Some(v + 0.0)
    }
}

/// Which figure was taken: the unit as `go test` printed it.
fn note(printed_unit: &str, several: bool) -> String {
    if several {
        format!("go test -bench {printed_unit}; one run per result line (-count)")
    } else {
        format!("go test -bench {printed_unit}; a single result line (-count N gives N runs)")
    }
}

#[cfg(test)]
mod tests {
    use super::super::{fixture, sniff_and_parse, MeasurementFile};
    use super::*;

    fn parse(text: &str) -> Result<MeasurementFile, ParseError> {
        sniff_and_parse("bench.txt", text.as_bytes()).expect("sniffed as go test -bench")
    }

    /// A printed result line: package, name as printed, `(value, unit)`s.
    type Printed = (String, String, Vec<(f64, String)>);

    /// The fixture's result lines, split independently of the reader.
    fn printed(file: &str) -> Vec<Printed> {
        let text = String::from_utf8(fixture(file)).unwrap();
        let mut package = String::new();
        let mut out = Vec::new();
        for line in text.lines() {
            if let Some(p) = line.strip_prefix("pkg: ") {
                package = p.to_string();
            }
            let f: Vec<&str> = line.split_whitespace().collect();
            if f.len() >= 4 && f[0].starts_with("Benchmark") {
                let pairs = f[2..]
                    .chunks(2)
                    .map(|p| (p[0].parse().unwrap(), p[1].to_string()))
                    .collect();
                out.push((package.clone(), f[0].to_string(), pairs));
            }
        }
        out
    }

    /// The values in `unit` of the printed lines of `package` named `name`.
    fn column(file: &str, package: &str, name: &str, unit: &str) -> Vec<f64> {
        printed(file)
            .into_iter()
            .filter(|(p, n, _)| p.ends_with(package) && n == name)
            .flat_map(|(_, _, pairs)| pairs.into_iter().filter(|(_, u)| u == unit))
            .map(|(v, _)| v)
            .collect()
    }

    fn runs(file: &MeasurementFile, name: &str) -> Vec<f64> {
        let b = file
            .benchmarks
            .iter()
            .find(|b| b.name == name)
            .unwrap_or_else(|| panic!("{name} not in {:?}", names(file)));
        b.runs
            .iter()
            .map(|r| {
                assert_eq!(r.len(), 1);
                r[0]
            })
            .collect()
    }

    fn names(file: &MeasurementFile) -> Vec<&str> {
        file.benchmarks.iter().map(|b| b.name.as_str()).collect()
    }

    #[test]
    fn reads_every_line_as_a_run_and_every_unit_as_a_benchmark() {
        let file = sniff_and_parse("out.txt", &fixture("go-bench.txt"))
            .unwrap()
            .unwrap();
        assert_eq!(file.format, "go-test-bench");
        assert!(file.warnings.is_empty(), "{:?}", file.warnings);
        // Two packages each have a BenchmarkJoin: those two are qualified.
        assert_eq!(
            names(&file),
            [
                "BenchmarkFib/n=10",
                "BenchmarkFib/n=10 (B/op)",
                "BenchmarkFib/n=10 (allocs/op)",
                "BenchmarkFib/n=15",
                "BenchmarkFib/n=15 (B/op)",
                "BenchmarkFib/n=15 (allocs/op)",
                "example.com/benchfmt/fib.BenchmarkJoin",
                "example.com/benchfmt/fib.BenchmarkJoin (B/op)",
                "example.com/benchfmt/fib.BenchmarkJoin (allocs/op)",
                "BenchmarkHash",
                "BenchmarkHash (MB/s)",
                "BenchmarkHash (B/op)",
                "BenchmarkHash (allocs/op)",
                "example.com/benchfmt/sorting.BenchmarkJoin",
                "example.com/benchfmt/sorting.BenchmarkJoin (B/op)",
                "example.com/benchfmt/sorting.BenchmarkJoin (allocs/op)",
                "BenchmarkSort",
                "BenchmarkSort (swaps/op)",
                "BenchmarkSort (B/op)",
                "BenchmarkSort (allocs/op)",
            ]
        );
        // -count 5: five runs of one sample each, the printed values.
        for (name, package, printed_name) in [
            ("BenchmarkFib/n=10", "fib", "BenchmarkFib/n=10-2"),
            ("BenchmarkFib/n=15", "fib", "BenchmarkFib/n=15-2"),
            ("BenchmarkHash", "fib", "BenchmarkHash-2"),
            ("BenchmarkSort", "sorting", "BenchmarkSort-2"),
            (
                "example.com/benchfmt/sorting.BenchmarkJoin",
                "sorting",
                "BenchmarkJoin-2",
            ),
        ] {
            let ns = column("go-bench.txt", package, printed_name, "ns/op");
            assert_eq!(ns.len(), 5, "{name}");
            let seconds: Vec<f64> = ns.iter().map(|v| v / 1e9).collect();
            assert_eq!(runs(&file, name), seconds, "{name}");
            let b = file.benchmarks.iter().find(|b| b.name == name).unwrap();
            assert_eq!((b.unit.as_str(), b.in_process), ("s", false));
            assert!(
                b.note.contains("ns/op; one run per result line"),
                "{}",
                b.note
            );
        }
        // The -benchmem columns and custom metrics, as printed.
        let joined = |b: &str| format!("example.com/benchfmt/sorting.BenchmarkJoin ({b})");
        assert_eq!(runs(&file, &joined("B/op")), [264.0; 5]);
        assert_eq!(runs(&file, &joined("allocs/op")), [9.0; 5]);
        assert_eq!(
            runs(&file, "BenchmarkHash (MB/s)"),
            column("go-bench.txt", "fib", "BenchmarkHash-2", "MB/s")
        );
        assert_eq!(
            runs(&file, "BenchmarkSort (swaps/op)"),
            column("go-bench.txt", "sorting", "BenchmarkSort-2", "swaps/op")
        );
        let unit = |n: &str| {
            let b = file.benchmarks.iter().find(|b| b.name == n).unwrap();
            b.unit.clone()
        };
        assert_eq!(unit(&joined("B/op")), "bytes");
        let b = file
            .benchmarks
            .iter()
            .find(|b| b.name == joined("B/op"))
            .unwrap();
        assert_eq!(
            b.note,
            "go test -bench B/op; one run per result line (-count)"
        );
        assert_eq!(unit(&joined("allocs/op")), "allocs/op");
        assert_eq!(unit("BenchmarkHash (MB/s)"), "MB/s");
        // What benchstat would print as the centre of BenchmarkFib/n=15:
        // the mean of its five ns/op lines is fib(15) well above fib(10).
        let mean = |v: Vec<f64>| v.iter().sum::<f64>() / v.len() as f64;
        let ratio = mean(runs(&file, "BenchmarkFib/n=15")) / mean(runs(&file, "BenchmarkFib/n=10"));
        assert!(ratio > 5.0 && ratio < 40.0, "{ratio}");
    }

    #[test]
    fn one_line_says_so_and_one_package_is_not_qualified() {
        let text = String::from_utf8(fixture("go-bench.txt")).unwrap();
        let header = text.lines().take_while(|l| !l.starts_with("Benchmark"));
        let join = text
            .lines()
            .find(|l| l.starts_with("BenchmarkJoin-2"))
            .unwrap();
        let one: String = header.chain([join]).map(|l| format!("{l}\n")).collect();
        let file = parse(&one).unwrap();
        assert_eq!(
            names(&file),
            [
                "BenchmarkJoin",
                "BenchmarkJoin (B/op)",
                "BenchmarkJoin (allocs/op)"
            ]
        );
        let ns: f64 = join.split_whitespace().nth(2).unwrap().parse().unwrap();
        assert_eq!(file.benchmarks[0].runs, vec![vec![ns / 1e9]]);
        assert_eq!(file.benchmarks[1].runs, vec![vec![48.0]]);
        assert!(file.benchmarks[0].in_process);
        assert!(
            file.benchmarks[0].note.contains("a single result line"),
            "{}",
            file.benchmarks[0].note
        );
    }

    #[test]
    fn several_cpu_values_keep_the_suffix() {
        let file = parse(
            "BenchmarkA      10   5 ns/op\nBenchmarkA-4   10   3 ns/op\n\
             BenchmarkB/size-1024-8   10   7 ns/op\nBenchmarkC-8   10   1 ns/op\n",
        )
        .unwrap();
        assert_eq!(
            names(&file),
            [
                "BenchmarkA",
                "BenchmarkA-4",
                "BenchmarkB/size-1024",
                "BenchmarkC"
            ]
        );
    }

    #[test]
    fn odd_lines_are_warnings_with_their_line() {
        let file = parse(
            "goos: linux\ngoarch: amd64\npkg: x\r\n\
             BenchmarkA-2   \t  100\t  12.5 ns/op\t  3 B/op\r\n\
             BenchmarkA-2\n\
             BenchmarkA-2   many   12 ns/op\n\
             BenchmarkA-2   100   12 ns/op   4\n\
             BenchmarkA-2   100   twelve ns/op\n\
             BenchmarkA-2   100   -1 ns/op   1e999 B/op\n\
             Benchmarks are below\n\
             --- FAIL: BenchmarkB\n\
             BenchmarkA-2   100   14 ns/op\n\
             PASS\n",
        )
        .unwrap();
        assert_eq!(names(&file), ["BenchmarkA", "BenchmarkA (B/op)"]);
        assert_eq!(file.benchmarks[0].runs, vec![vec![12.5e-9], vec![14e-9]]);
        assert_eq!(file.benchmarks[1].runs, vec![vec![3.0]]);
        let warnings: Vec<String> = file.warnings.iter().map(|w| w.to_string()).collect();
        assert_eq!(
            warnings,
            [
                "line 6: not a benchmark result (\"many\" is not an iteration count); the line is left out",
                "line 7: not a benchmark result (expected value–unit pairs after the iteration count); the line is left out",
                "line 8: not a benchmark result (\"twelve\" is not a number); the line is left out",
                "line 9: -1 is negative; the value is left out",
                "line 9: inf is out of range; the value is left out",
            ]
        );
    }

    #[test]
    fn truncated_and_empty_output() {
        let real = String::from_utf8(fixture("go-bench.txt")).unwrap();
        // Cut inside a result line: the lines before it are read, the cut
        // one is a warning at its line.
        let cut = &real[..real.find("BenchmarkFib/n=15-2").unwrap() + 40];
        let file = parse(cut).unwrap();
        assert_eq!(runs(&file, "BenchmarkFib/n=10").len(), 5);
        assert_eq!(file.warnings.len(), 1, "{:?}", file.warnings);
        assert_eq!(file.warnings[0].place, Place::Line(10));
        // Only the header: a clear error.
        let header = &real[..real.find("BenchmarkFib").unwrap()];
        let e = parse(header).unwrap_err();
        assert_eq!(e.place, Place::Whole);
        assert!(e.message.contains("no benchmark result lines"), "{e}");
        // Every value unusable: no benchmark, the first problem named.
        let e = parse("BenchmarkA 1 -5 ns/op\n").unwrap_err();
        assert_eq!(e.place, Place::Line(1));
        assert!(e.message.contains("no usable measurements"), "{e}");
    }

    #[test]
    fn other_text_is_not_go_output() {
        for text in [
            "main;BenchmarkA 10\n",
            "BenchmarkA 10\n",
            "Benchmarks 10 5 ns/op\n",
            "goos: linux\n",
            "cpu: AMD EPYC\nruntime: node v20.20.2 (x64-linux)\n",
            "perf 123 [000] 1.0: cycles:\n\tffff main (/bin/x)\n",
        ] {
            assert!(
                sniff_and_parse("x.txt", text.as_bytes()).is_none(),
                "{text}"
            );
        }
    }
}
