//! Tests of the `perf script` reader: header and frame lines, sniffing,
//! metrics per event, bad blocks, and the files of the shared corpus.

use super::*;
use model::error::Place;

fn parse(text: &str) -> Parsed {
    PerfScript
        .parse(&Input {
            file_name: "x.perf",
            bytes: text.as_bytes(),
        })
        .unwrap()
}

fn sniff(text: &str) -> bool {
    PerfScript.sniff(&Input {
        file_name: "x",
        bytes: text.as_bytes(),
    })
}

/// Reads a corpus file: the absolute path, else relative to the crate;
/// `None` (with a note) when neither exists.
use crate::test_support::corpus;

fn parse_corpus(rel: &str) -> Option<Parsed> {
    let bytes = corpus(rel)?;
    let input = Input {
        file_name: rel,
        bytes: &bytes,
    };
    assert!(PerfScript.sniff(&input), "{rel} not sniffed as perf-script");
    let (format, parsed) = super::super::parse_bytes(rel, &bytes).unwrap();
    assert_eq!(format, "perf-script", "{rel}");
    Some(parsed)
}

fn metric(p: &Parsed, name: &str) -> Option<usize> {
    p.profile.metrics.iter().position(|m| m.name == name)
}

/// Distinct names of the root's children.
fn roots(p: &Parsed) -> Vec<String> {
    let tree = &p.profile.tree;
    let mut names: Vec<String> = tree
        .children(NodeId::ROOT)
        .iter()
        .filter_map(|&n| tree.frame(n))
        .map(|f| p.frames.get(f).function.clone())
        .collect();
    names.sort();
    names
}

#[test]
fn header_variants() {
    let h = parse_header("java 10488  9962.502413:   10101010 cpu-clock: ").unwrap();
    assert_eq!(
        (h.comm, h.time_ns, h.period, h.event, h.inline_frame),
        (
            "java",
            9_962_502_413_000,
            Some(10101010.0),
            Some("cpu-clock"),
            None
        )
    );
    let h = parse_header("go  6157  1224.147545:     250000 cpu-clock:uhH: ").unwrap();
    assert_eq!(
        (h.comm, h.event, h.period),
        ("go", Some("cpu-clock"), Some(250000.0))
    );
    let h = parse_header("V8 WorkerThread 24636/25607 [000] 94564.109216: cycles:").unwrap();
    assert_eq!(
        (h.comm, h.event, h.period),
        ("V8 WorkerThread", Some("cycles"), None)
    );
    let h = parse_header("Thread 2 12688/12764 6544038.708352: cpu-clock:").unwrap();
    assert_eq!(h.comm, "Thread 2");
    let h = parse_header("           false 39654 19115.489713:          1 cycles:u:  ffffffff9b201293 [unknown] ([unknown])").unwrap();
    assert_eq!(
        (h.comm, h.event, h.inline_frame),
        (
            "false",
            Some("cycles"),
            Some("ffffffff9b201293 [unknown] ([unknown])")
        )
    );
    let h = parse_header("perf 1 [001] 5.000000001: sched:sched_switch: prev_comm=perf").unwrap();
    assert_eq!(
        (h.event, h.period, h.time_ns),
        (Some("sched:sched_switch"), None, 5_000_000_001)
    );
    assert!(
        parse_header("\t    7f89e341d84f __GI___libc_write+0x4f (/usr/lib/libc-2.28.so)").is_none()
    );
    assert!(parse_header("a;b 1").is_none());
    assert!(parse_header("java 12 99999999999999999999.5: cycles:").is_none());
}

#[test]
fn frame_lines() {
    assert_eq!(
        parse_frame("\t    7f89e341d84f __GI___libc_write+0x4f (/usr/lib/libc-2.28.so)"),
        Some(("__GI___libc_write+0x4f", Some("/usr/lib/libc-2.28.so")))
    );
    assert_eq!(
        parse_frame(
            "\t 55d std::function<int (int, int)>::operator() (/home/user/genperf/perf_stacks)"
        ),
        Some((
            "std::function<int (int, int)>::operator()",
            Some("/home/user/genperf/perf_stacks")
        ))
    );
    assert_eq!(
        parse_frame("\t7f1e2215d058  (/lib/libc-2.15.so)"),
        Some(("", Some("/lib/libc-2.15.so")))
    );
    assert_eq!(
        parse_frame("  4004f4 main (/tmp/a.out (deleted))"),
        Some(("main", Some("/tmp/a.out (deleted)")))
    );
    assert_eq!(parse_frame("  4004f4 foo(int)"), Some(("foo(int)", None)));
    assert_eq!(parse_frame("  not-hex main (x)"), None);
    assert_eq!(strip_offset("main+0x1f"), "main");
    assert_eq!(strip_offset("a+0xzz"), "a+0xzz");
    assert_eq!(strip_offset("+0x10"), "+0x10");
    assert_eq!(module_of("/usr/lib/libc-2.28.so"), Some("libc-2.28.so"));
    assert_eq!(module_of("[kernel.kallsyms]"), Some("[kernel.kallsyms]"));
    assert_eq!(module_of("[unknown]"), None);
}

#[test]
fn sniffs_perf_script_only() {
    assert!(sniff(
        "# ========\n# captured on: x\n#\njava 1 1.5: 1 cycles: \n\t  7f main+0x1 (/a/b)\n"
    ));
    assert!(sniff("   false 39654 19115.489713:          1 cycles:u:  ffffffff9b201293 [unknown] ([unknown])\n"));
    assert!(!sniff("a;b 1\na;c 2\n"));
    assert!(!sniff("java 1 1.5: 1 cycles: \n"));
    assert!(!sniff("java 1 1.5: 1 cycles: \nmain 3\n"));
    assert!(!sniff("{\"perfatlas\": 1}"));
}

#[test]
fn builds_root_first_stacks_with_comm_metrics_and_timeline() {
    let p = parse(
        "app 7 [000] 10.000000: 1000 cpu-clock:\n\
         \t  3 leaf+0x1 (/usr/lib/libx.so)\n\
         \t  2 mid (/bin/app)\n\
         \t  1 [unknown] ([unknown])\n\
         \n\
         app 7 [001] 10.000500: 3000 cpu-clock:\n\
         \t  2 mid+0x3 (/bin/app)\n\
         \t  1 [unknown] ([unknown])\n",
    );
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    let names: Vec<_> = p
        .profile
        .metrics
        .iter()
        .map(|m| (m.name.as_str(), m.unit.clone()))
        .collect();
    assert_eq!(
        names,
        vec![("samples", Unit::Samples), ("cpu-clock", Unit::Nanoseconds)]
    );
    assert_eq!(p.profile.totals(), vec![2.0, 4000.0]);
    let folded = crate::convert::to_folded(&p, 1);
    assert_eq!(
        folded,
        "app;[unknown];mid 3000\napp;[unknown];mid;leaf 1000\n"
    );
    let tl = &p.profile.timeline.as_ref().unwrap().samples;
    assert_eq!(tl.len(), 2);
    assert_eq!((tl[0].start_ns, tl[1].start_ns), (0.0, 500_000.0));
    let leaf = p.profile.tree.frame(tl[0].node).unwrap();
    assert_eq!(
        p.frames.get(leaf),
        &Frame {
            function: "leaf".into(),
            file: None,
            line: None,
            module: Some("libx.so".into()),
            start_line: None,
            start_column: None,
            source_hash: None,
            full_name: None,
        }
    );
    assert_eq!(
        p.frames
            .get(p.profile.tree.frame(tl[1].node).unwrap())
            .function,
        "mid"
    );
}

#[test]
fn events_without_periods_or_mixed_get_their_own_metrics() {
    let p = parse(
        "a 1 1.0: 10 cycles:u:\n\t1 f (x)\n\n\
         a 1 2.0: 5 instructions:u:\n\t1 f (x)\n\n\
         a 1 3.0: 7 cycles:u:\n\t1 g (x)\n\n\
         a 1 4.0: page-faults:\n\t1 g (x)\n",
    );
    let names: Vec<_> = p.profile.metrics.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, vec!["samples", "cycles", "instructions"]);
    assert_eq!(p.profile.totals(), vec![4.0, 17.0, 5.0]);
    assert_eq!(p.profile.metrics[1].unit, Unit::Count);
}

#[test]
fn bad_blocks_are_skipped_with_line_numbers() {
    let p = parse(
        "a 1 1.0: 1 cycles:\n\t1 f (x)\n\n\
         garbage here\n\t1 f (x)\n\n\
         a 1 2.0: 1 cycles:\n\t1 f (x)\n\tnot a frame\n\t2 g (x)\n\n\
         a 1 3.0: 1 cycles:\n\t1 g (x)\n",
    );
    let places: Vec<_> = p.warnings.iter().map(|w| w.place.clone()).collect();
    assert_eq!(places, vec![Place::Line(4), Place::Line(9)]);
    assert!(
        p.warnings[1].message.contains("sample of line 7 skipped"),
        "{}",
        p.warnings[1]
    );
    assert_eq!(p.profile.totals()[0], 2.0);
    assert_eq!(p.profile.timeline.as_ref().unwrap().samples.len(), 2);
}

#[test]
fn no_valid_block_is_an_error() {
    let e = PerfScript
        .parse(&Input {
            file_name: "x",
            bytes: b"nothing here\n\t1 f (x)\n",
        })
        .unwrap_err();
    assert_eq!(e.place, Place::Line(1));
    let e = PerfScript
        .parse(&Input {
            file_name: "x",
            bytes: b"# only comments\n\n",
        })
        .unwrap_err();
    assert_eq!(e.place, Place::Whole);
}

#[test]
fn never_panics_on_odd_bytes() {
    let inputs: [&[u8]; 8] = [
        b"a 1 1.\xff: 1 c:\n\t1 f (x)\n",
        b"a 1 1.0: 1 c:\n\t1 f ((((x)\n\t1 ) (\n\t1 ()\n",
        b"a 1 1.0:\n\t0x (x)\n\t\xf0\x9f\x92\xa9 \xe2\x80\x94 (\xc3\xa9)\n",
        b"\xfe\xff\x00a",
        b"a 1/ 1.0: c:\n",
        b"a 1 [] 1.0: +0x c:\n\t1 +0x (x)\n",
        b"x 1 0.0:",
        b"\t1 f+0x (x)\n\n1 1 1.1:",
    ];
    for bytes in inputs {
        let _ = PerfScript.sniff(&Input {
            file_name: "x",
            bytes,
        });
        let _ = PerfScript.parse(&Input {
            file_name: "x",
            bytes,
        });
    }
    // Deep stacks are handled without recursion.
    let mut deep = String::from("a 1 1.0: 1 c:\n");
    for i in 0..100_000 {
        deep.push_str(&format!("\t{i:x} f{} (x)\n", i % 7));
    }
    assert_eq!(parse(&deep).profile.tree.len(), 100_002);
}

// Independent sample counts, from the shell:
//   grep -cE '^\s*\S.* [0-9]+(/[0-9]+)? +(\[[0-9]+\] +)?[0-9]+\.[0-9]+:' FILE
// (the same as `grep -cE '^\S.*[0-9]+\.[0-9]+:' FILE` except for
// single-line-stacks.txt, whose headers start with blanks).
// Root names (first header word; no command name here has a space):
//   grep -E 'HEADER_RE' FILE | awk '{print $1}' | sort -u
// Period sums (the number after the timestamp):
//   grep -E 'HEADER_RE' FILE | sed -E 's/.*[0-9]+\.[0-9]+: +//' | awk '{s += $1} END {printf "%d", s}'
// where HEADER_RE is the pattern of the first command.
#[test]
fn corpus_inferno_collapse_perf() {
    // (file, samples, root names, (event metric, summed period))
    type Case<'a> = (&'a str, f64, &'a [&'a str], Option<(&'a str, f64)>);
    let cases: [Case; 6] = [
        (
            "inferno/collapse-perf/go-stacks.txt",
            5.0,
            &["go"],
            Some(("cpu-clock", 1_250_000.0)),
        ),
        (
            "inferno/collapse-perf/java-inline.txt",
            22.0,
            &["java"],
            Some(("cpu-clock", 222_222_220.0)),
        ),
        (
            "inferno/collapse-perf/cpp-stacks-std-function.txt",
            46.0,
            &["perf_stacks"],
            Some(("cycles", 80_567_950.0)),
        ),
        (
            "inferno/collapse-perf/single-line-stacks.txt",
            2.0,
            &["false"],
            Some(("cycles", 2.0)),
        ),
        (
            "inferno/collapse-perf/empty-line.txt",
            2.0,
            &["inline-counter"],
            Some(("cpu-clock", 500_000.0)),
        ),
        (
            "inferno/collapse-perf/single-event.txt",
            1.0,
            &["boa_cli"],
            Some(("cpu-clock", 10_101_010.0)),
        ),
    ];
    for (file, samples, comms, period) in cases {
        let Some(p) = parse_corpus(file) else {
            continue;
        };
        assert!(p.warnings.is_empty(), "{file}: {:?}", p.warnings);
        assert_eq!(p.profile.totals()[0], samples, "{file}");
        assert_eq!(roots(&p), comms.to_vec(), "{file}");
        if let Some((name, total)) = period {
            let m = metric(&p, name).unwrap_or_else(|| panic!("{file}: no metric {name}"));
            assert_eq!(p.profile.tree.total(m), total, "{file}");
        }
        assert_eq!(
            p.profile.timeline.as_ref().unwrap().samples.len() as f64,
            samples,
            "{file}"
        );
    }
}

#[test]
fn corpus_empty_line_keeps_the_frames_after_the_blank() {
    let Some(p) = parse_corpus("inferno/collapse-perf/empty-line.txt") else {
        return;
    };
    let folded = crate::convert::to_folded(&p, 0);
    assert_eq!(folded, "inline-counter;main 2\n");
}

#[test]
fn corpus_go_stacks_frames() {
    let Some(p) = parse_corpus("inferno/collapse-perf/go-stacks.txt") else {
        return;
    };
    let folded = crate::convert::to_folded(&p, 0);
    // First block of the file, root first.
    assert!(folded.lines().any(|l| l
        == "go;[unknown];x_cgo_notify_runtime_init_done;runtime.main;main.init;cmd/go/internal/base.init;\
            cmd/go/internal/cfg.init;go/build.init;go/doc.init;text/template.init;text/template.init.ializers;\
            text/template.createValueFuncs;text/template.addValueFuncs;runtime.mapassign_faststr 1"));
    let modules: std::collections::BTreeSet<_> = p
        .frames
        .iter()
        .filter_map(|(_, f)| f.module.clone())
        .collect();
    assert!(modules.contains("go"), "{modules:?}");
}

#[test]
fn corpus_speedscope_linux_perf() {
    let cases: [(&str, f64, &[&str], &str, f64); 5] = [
        (
            "speedscope/linux-perf/simple.linux-perf.txt",
            1.0,
            &["simple-terminat"],
            "cpu-clock",
            1_001_001.0,
        ),
        (
            "speedscope/linux-perf/one-sample.linux-perf.txt",
            1.0,
            &["simple-terminat"],
            "cpu-clock",
            1_001_001.0,
        ),
        (
            "speedscope/linux-perf/simple-with-header.linux-perf.txt",
            136.0,
            &["simple-terminat"],
            "cpu-clock",
            136.0 * 1_001_001.0,
        ),
        (
            "speedscope/linux-perf/forks.linux-perf.txt",
            561.0,
            &["forks", "swapper"],
            "cpu-clock",
            561.0 * 1_001_001.0,
        ),
        (
            "speedscope/linux-perf/rust-mangled.linux-perf.txt",
            96.0,
            &["trace"],
            "task-clock",
            96.0 * 16_949_152.0,
        ),
    ];
    for (file, samples, comms, event, total) in cases {
        let Some(p) = parse_corpus(file) else {
            continue;
        };
        assert!(p.warnings.is_empty(), "{file}: {:?}", p.warnings);
        assert_eq!(p.profile.totals()[0], samples, "{file}");
        assert_eq!(roots(&p), comms.to_vec(), "{file}");
        let m = metric(&p, event).unwrap();
        assert_eq!(p.profile.metrics[m].unit, Unit::Nanoseconds);
        assert_eq!(p.profile.tree.total(m), total, "{file}");
    }
}

#[test]
fn corpus_rust_symbols_are_demangled_and_timeline_starts_at_zero() {
    let Some(p) = parse_corpus("speedscope/linux-perf/rust-mangled.linux-perf.txt") else {
        return;
    };
    assert!(p
        .frames
        .iter()
        .any(|(_, f)| f.function == "std::rt::lang_start::<()>"));
    assert!(!p.frames.iter().any(|(_, f)| f.function.starts_with("_R")));
    let tl = &p.profile.timeline.as_ref().unwrap().samples;
    assert_eq!(tl[0].start_ns, 0.0);
    // 150521.008480 - 150520.991529 s
    assert_eq!(tl[1].start_ns, 16_951_000.0);
    assert!(tl
        .iter()
        .all(|s| s.start_ns >= 0.0 && p.profile.tree.frame(s.node).is_some()));
}

/// tests/fixtures/perf-srcline: `perf script -F +srcline` of a C program
/// whose `mix` is sampled on four lines (see the README there).
#[test]
fn srclines_give_files_and_line_costs_with_one_frame_per_function() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/perf-srcline/prog.perf.txt"
    );
    let text = std::fs::read_to_string(path).unwrap();
    // The leaf's (function, line) of every sample, read from the text.
    let mut expected: std::collections::BTreeMap<(String, u32), f64> = Default::default();
    let lines: Vec<&str> = text.lines().collect();
    for (i, l) in lines.iter().enumerate() {
        if !l.contains("cpu-clock") {
            continue;
        }
        let symbol = lines[i + 1].split_whitespace().nth(1).unwrap();
        let function = symbol.split("+0x").next().unwrap().to_string();
        let line = lines[i + 2]
            .trim()
            .rsplit_once(':')
            .unwrap()
            .1
            .parse()
            .unwrap();
        *expected.entry((function, line)).or_default() += 1.0;
    }
    assert_eq!(expected.keys().filter(|(f, _)| f == "mix").count(), 4);
    let p = parse(&text);
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    let names: Vec<&str> = p.frames.iter().map(|(_, f)| f.function.as_str()).collect();
    let mut distinct = names.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(
        names.len(),
        distinct.len(),
        "one frame per function: {names:?}"
    );
    let samples = metric(&p, "samples").unwrap();
    let table = p.profile.line_self.as_ref().expect("a line table");
    let mut read: std::collections::BTreeMap<(String, u32), f64> = Default::default();
    for (node, line, values) in table.iter() {
        let frame = p.frames.get(p.profile.tree.frame(node).unwrap());
        assert_eq!(
            p.profile.tree.self_value(node, samples),
            table.lines_of(node).map(|(_, v)| v[samples]).sum::<f64>()
        );
        if values[samples] != 0.0 {
            *read.entry((frame.function.clone(), line)).or_default() += values[samples];
        }
    }
    assert_eq!(read, expected);
    let mix = p
        .frames
        .iter()
        .find(|(_, f)| f.function == "mix")
        .unwrap()
        .1;
    // No start line: mix stands at the line it spends most on (9).
    let heaviest = expected
        .iter()
        .filter(|((f, _), _)| f == "mix")
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map(|((_, line), _)| *line);
    assert_eq!((mix.file.as_deref(), mix.line), (Some("prog.c"), heaviest));
}
