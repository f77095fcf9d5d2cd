//! Conformance on real profiles from public projects (`../shared/corpus/`):
//! every file is either parsed, with its totals equal to figures computed
//! independently, or rejected with a clear error naming the file. A corpus
//! file without an expectation here fails the test, so new files get one.
//!
//! How the expected figures were computed (outside perfatlas):
//! - folded: `python3` summing the last field of each non-empty line
//!   (decoding UTF-16 by its BOM); lines without a numeric count counted as
//!   invalid;
//! - perf script: `grep -cE '^\S.*\s[0-9]+\.[0-9]+:' FILE` (sample headers);
//! - cpuprofile: `python3 -c "import json;print(len(json.load(open(F))['samples']))"`;
//! - heapprofile: python3 summing `selfSize` over the nested `head` tree;
//! - speedscope: python summing `weights` per sampled profile (unit seconds →
//!   ns), and `endValue - startValue` for the evented one;
//! - pprof: a hand-written protobuf decoder in python and `go tool pprof -raw`
//!   (Debian golang-go), both giving 150 samples and 1.5 s of cpu.
//! - jfr: `jfr print --json --stack-depth 2048 --events
//!   jdk.ObjectAllocationSample` (Debian's JDK 17), then python counting the
//!   events and summing their `weight`.

use std::path::{Path, PathBuf};

use perfatlas::input::load::read_and_parse;

enum Expect {
    /// Parsed by `format`; per metric name its total; and how many parts
    /// were skipped with a warning.
    Parsed {
        format: &'static str,
        totals: &'static [(&'static str, f64)],
        warnings: usize,
    },
    /// Rejected; the message contains this text.
    Rejected(&'static str),
}

use Expect::{Parsed, Rejected};

const UNRECOGNISED: &str = "unrecognised format";

fn expectation(rel: &str) -> Option<Expect> {
    let folded = |total| Parsed {
        format: "folded",
        totals: leak(vec![("samples", total)]),
        warnings: 0,
    };
    Some(match rel {
        "speedscope/stackcollapse/alternating.txt" => folded(182.0),
        "speedscope/stackcollapse/perf-vertx-stacks-01-collapsed-all.txt" => folded(285.0),
        "speedscope/stackcollapse/recursion.txt" => folded(10.0),
        "speedscope/stackcollapse/simple-crlf.txt" => folded(14.0),
        "speedscope/stackcollapse/simple-utf16-be.txt" => folded(14.0),
        "speedscope/stackcollapse/simple-utf16-le.txt" => folded(14.0),
        "speedscope/stackcollapse/simple.txt" => folded(14.0),
        "speedscope/stackcollapse/tall.txt" => folded(1.0),
        "speedscope/stackcollapse/simple-with-invalids.txt" => Parsed {
            format: "folded",
            totals: &[("samples", 14.0)],
            warnings: 3,
        },
        "speedscope/pprof/simple.prof" => Parsed {
            format: "pprof",
            totals: &[("samples", 150.0), ("cpu", 1.5e9)],
            warnings: 0,
        },
        // The format manual's example: main's inclusive cost, 820, is
        // the total (its text says so).
        "speedscope/callgrind/callgrind.example.log" => Parsed {
            format: "callgrind",
            totals: &[("Instructions", 820.0)],
            warnings: 0,
        },
        // Xdebug's events: time in units of 10 ns, memory in bytes; the
        // cost lines outside calls= add up to 820 and 38,000.
        "speedscope/callgrind/callgrind.multiple-event-types.log" => Parsed {
            format: "callgrind",
            totals: &[("Time", 8200.0), ("Memory", 38000.0)],
            warnings: 0,
        },
        // Not supported yet (later issues): rejected, never misread.
        "speedscope/haskell/simple.prof"
        | "inferno/collapse-dtrace/java.txt"
        | "inferno/collapse-dtrace/rust-names.txt" => Rejected(UNRECOGNISED),
        _ => return more_expectations(rel),
    })
}

/// Formats added by later merges keep their expectations here.
fn more_expectations(rel: &str) -> Option<Expect> {
    Some(match rel {
        // cpu = endTime - startTime - timeDeltas[0] (each sample lasts until
        // the next; the last until endTime), in µs → ns.
        "speedscope/Chrome/65/simple.cpuprofile" => Parsed {
            format: "cpuprofile",
            totals: &[("samples", 29.0), ("cpu", 36_317_000.0)],
            warnings: 0,
        },
        "speedscope/Chrome/65/sucrase.cpuprofile" => Parsed {
            format: "cpuprofile",
            totals: &[("samples", 17_138.0), ("cpu", 22_003_906_000.0)],
            warnings: 0,
        },
        // Node 10's older format: cpu = timestamps[-1] - timestamps[0].
        "speedscope/node/10.11.0/example.cpuprofile" => Parsed {
            format: "cpuprofile",
            totals: &[("samples", 29.0), ("cpu", 45_920_000.0)],
            warnings: 0,
        },
        // A binary recording, read through the JDK's `jfr` tool.
        "speedscope/java-flight-recorder/heavy.jfr" => Parsed {
            format: "jfr",
            totals: &[("alloc_samples", 25.0), ("alloc_weight", 878_277_960.0)],
            warnings: 0,
        },
        // alloc_space = selfSize summed over the whole `head` tree (python3
        // walking the nested children); these old files have no `samples`.
        "speedscope/Chrome/69/Heap-20181005T144546.heapprofile" => Parsed {
            format: "heapprofile",
            totals: &[("alloc_space", 10_030_888.0)],
            warnings: 0,
        },
        "speedscope/node/10.11.0/Heap-20181003T105432.heapprofile" => Parsed {
            format: "heapprofile",
            totals: &[("alloc_space", 525_704.0)],
            warnings: 0,
        },
        // Chrome 116's Performance panel export: one V8 profile in 1,600
        // samples; cpu from its chunks' timeDeltas with python3 (each
        // sample until the next, the last one the mean interval).
        "speedscope/Chrome/116/Trace-20230603T221323.json" => Parsed {
            format: "chrome-trace",
            totals: &[("samples", 1600.0), ("cpu", 265_304_815.509_693_6)],
            warnings: 0,
        },
        // Hermes: `samples` (8, each of weight 1) and `stackFrames`.
        "speedscope/trace-event/multi-thread-with-samples.json" => Parsed {
            format: "chrome-trace",
            totals: &[("samples", 8.0)],
            warnings: 0,
        },
        "speedscope/speedscope/0.0.1/simple.speedscope.json" => Parsed {
            format: "speedscope",
            totals: &[("samples", 14.0)],
            warnings: 0,
        },
        "speedscope/speedscope/0.1.2/simple-sampled.speedscope.json" => Parsed {
            format: "speedscope",
            totals: &[("time", 14e9), ("samples", 5.0)],
            warnings: 0,
        },
        "speedscope/speedscope/0.6.0/two-sampled.speedscope.json" => Parsed {
            format: "speedscope",
            totals: &[("time", 28e9), ("samples", 10.0)],
            warnings: 0,
        },
        "speedscope/speedscope/invalid/incomplete-trace.json" => {
            Rejected("$.profiles[0].events[0]")
        }
        "speedscope/speedscope/invalid/out-of-order-events.json" => {
            Rejected("$.profiles[0].events[")
        }
        // perf script: samples = sample headers; periods summed with awk over
        // the number after the timestamp.
        "inferno/collapse-perf/go-stacks.txt" => perf(5.0, Some(("cpu-clock", 1_250_000.0))),
        "inferno/collapse-perf/java-inline.txt" => perf(22.0, Some(("cpu-clock", 222_222_220.0))),
        "inferno/collapse-perf/cpp-stacks-std-function.txt" => {
            perf(46.0, Some(("cycles", 80_567_950.0)))
        }
        // Headers indented by spaces, frame on the header line.
        "inferno/collapse-perf/single-line-stacks.txt" => perf(2.0, Some(("cycles", 2.0))),
        "inferno/collapse-perf/empty-line.txt" => perf(2.0, Some(("cpu-clock", 500_000.0))),
        "inferno/collapse-perf/single-event.txt" => perf(1.0, Some(("cpu-clock", 10_101_010.0))),
        "speedscope/linux-perf/simple.linux-perf.txt"
        | "speedscope/linux-perf/one-sample.linux-perf.txt" => {
            perf(1.0, Some(("cpu-clock", 1_001_001.0)))
        }
        "speedscope/linux-perf/simple-with-header.linux-perf.txt" => {
            perf(136.0, Some(("cpu-clock", 136_136_136.0)))
        }
        "speedscope/linux-perf/forks.linux-perf.txt" => {
            perf(561.0, Some(("cpu-clock", 561_561_561.0)))
        }
        "speedscope/linux-perf/rust-mangled.linux-perf.txt" => {
            perf(96.0, Some(("task-clock", 1_627_118_592.0)))
        }
        _ => return None,
    })
}

fn perf(samples: f64, period: Option<(&'static str, f64)>) -> Expect {
    let mut totals = vec![("samples", samples)];
    totals.extend(period);
    Parsed {
        format: "perf-script",
        totals: leak(totals),
        warnings: 0,
    }
}

fn leak(v: Vec<(&'static str, f64)>) -> &'static [(&'static str, f64)] {
    Box::leak(v.into_boxed_slice())
}

fn corpus_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    dir.is_dir().then_some(dir)
}

#[test]
fn every_corpus_file_is_parsed_with_known_totals_or_rejected_clearly() {
    let Some(dir) = corpus_dir() else {
        if std::env::var_os("CI").is_some() {
            panic!("../shared/corpus is missing in CI");
        }
        eprintln!("note: ../shared/corpus not found; corpus test skipped");
        return;
    };
    let mut checked = 0;
    let mut problems = Vec::new();
    for entry in walkdir::WalkDir::new(&dir).sort_by_file_name() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy();
        if !entry.file_type().is_file() || name.starts_with("LICENSE") || name.ends_with(".md") {
            continue;
        }
        let rel = entry
            .path()
            .strip_prefix(&dir)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let Some(expect) = expectation(&rel) else {
            problems.push(format!("{rel}: no expectation in tests/corpus.rs"));
            continue;
        };
        checked += 1;
        let result = read_and_parse(entry.path());
        match (expect, result) {
            (
                Parsed {
                    format,
                    totals,
                    warnings,
                },
                Ok((got_format, parsed)),
            ) => {
                if got_format != format {
                    problems.push(format!("{rel}: read as {got_format}, expected {format}"));
                }
                for (metric, want) in totals {
                    let m = parsed
                        .profile
                        .metrics
                        .iter()
                        .position(|m| m.name == *metric);
                    match m.map(|m| parsed.profile.tree.total(m)) {
                        Some(got) if (got - want).abs() <= 1e-6 * want.abs().max(1.0) => {}
                        got => {
                            problems.push(format!("{rel}: {metric} total {got:?}, expected {want}"))
                        }
                    }
                }
                if parsed.warnings.len() != warnings {
                    problems.push(format!(
                        "{rel}: {} warnings, expected {warnings}: {:?}",
                        parsed.warnings.len(),
                        parsed.warnings
                    ));
                }
            }
            (Parsed { .. }, Err(e)) => problems.push(format!("{rel}: rejected: {e}")),
            (Rejected(text), Ok((f, _))) => {
                problems.push(format!("{rel}: parsed as {f}, expected rejection ({text})"))
            }
            (Rejected(text), Err(e)) => {
                if !e.to_string().contains(text) {
                    problems.push(format!("{rel}: error {e:?} does not say {text:?}"));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} of {checked} corpus files wrong:\n{}",
        problems.len(),
        problems.join("\n")
    );
    assert!(checked >= 30, "only {checked} corpus files checked");
}

#[test]
fn a_bad_corpus_file_in_a_build_is_listed_with_its_name() {
    let Some(dir) = corpus_dir() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("in");
    std::fs::create_dir_all(input.join("v1")).unwrap();
    std::fs::copy(
        dir.join("speedscope/stackcollapse/simple-with-invalids.txt"),
        input.join("v1/simple.txt"),
    )
    .unwrap();
    // The manual's callgrind example cut after its first calls= line.
    let callgrind =
        std::fs::read_to_string(dir.join("speedscope/callgrind/callgrind.example.log")).unwrap();
    let cut: Vec<&str> = callgrind.lines().take(8).collect();
    assert_eq!(cut[7], "calls=1 50");
    std::fs::write(input.join("v1/cg.log"), cut.join("\n")).unwrap();
    let out = tmp.path().join("site");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_perfatlas"))
        .args([
            "build",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(index.contains("v1/cg.log"), "callgrind file not listed");
    assert!(
        index.contains("v1/simple.txt") && index.contains("line "),
        "bad folded lines not listed with their line"
    );
}
