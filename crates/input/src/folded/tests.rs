//! Tests of the folded-stacks reader: merging, chunked parsing, bad lines,
//! py-spy frames, and telling async-profiler allocation output from CPU
//! stacks.

use super::*;
use model::{ClassSource, CountKind};

fn parse(text: &str) -> Parsed {
    Folded
        .parse(&Input {
            file_name: "x.folded",
            bytes: text.as_bytes(),
        })
        .unwrap()
}

// First lines of ../shared/corpus/speedscope/stackcollapse/simple.txt
#[test]
fn merges_paths_and_counts_samples() {
    let p = parse("a;b;c 1\r\na;b;c 1\na;b;d 4\na;b;c 3\na;b 5\n");
    assert_eq!(p.profile.tree.total(0), 14.0);
    let a = p.profile.tree.children(NodeId::ROOT)[0];
    assert_eq!(p.frames.get(p.profile.tree.frame(a).unwrap()).function, "a");
    assert_eq!(p.profile.tree.inclusive(0)[a.index()], 14.0);
    assert!(p.warnings.is_empty());
}

#[test]
fn chunked_parsing_gives_the_same_profile_and_line_numbers() {
    let mut text = String::new();
    for i in 0..3_000 {
        text.push_str(&format!("main;f{};g{} {}\n", i % 17, i % 5, 1 + i % 3));
        if i == 2_500 {
            text.push_str("not a count\n");
        }
    }
    let whole = parse(&text);
    let (whole_tree, whole_frames) = (&whole.profile.tree, &whole.frames);
    let chunks = split_chunks(&text, 4096);
    assert!(chunks.len() > 5);
    let chunked = parse_chunks(&chunks, Mode::Samples).unwrap();
    assert_eq!(tree_paths(&chunked), tree_paths(&whole));
    assert_eq!(chunked.profile.tree.total(0), whole_tree.total(0));
    assert_eq!(chunked.profile.tree.len(), whole_tree.len());
    assert_eq!(chunked.frames.len(), whole_frames.len());
    let lines = |p: &Parsed| {
        p.warnings
            .iter()
            .map(|w| w.place.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(lines(&chunked), lines(&whole));
    assert_eq!(lines(&whole), vec![model::error::Place::Line(2_502)]);
}

/// Each chunk names the frames in another order, with names (`file:line`
/// ones among them) that a later chunk sees first or again: the frames
/// found by their text in the chunks before are those interning finds,
/// in the same order.
#[test]
fn frames_of_later_chunks_are_found_by_their_text() {
    let mut text = String::new();
    for i in 0..4_000usize {
        let (a, b) = ((i * 7) % 23, (i * 13 + i / 500) % 31);
        let leaf = match i % 3 {
            0 => format!("lib.py:{}", i % 11),
            _ => format!("leaf{}", (i / 300) % 19),
        };
        text.push_str(&format!("main;f{a};g{b};{leaf} {}\n", 1 + i % 4));
    }
    let whole = parse(&text);
    let chunks = split_chunks(&text, 2048);
    assert!(chunks.len() > 20);
    let chunked = parse_chunks(&chunks, Mode::Samples).unwrap();
    let names =
        |p: &Parsed| -> Vec<String> { p.frames.iter().map(|(_, f)| format!("{f:?}")).collect() };
    assert_eq!(names(&chunked), names(&whole));
    assert_eq!(tree_paths(&chunked), tree_paths(&whole));
}

/// Two chunks of 600,000 distinct frames each: neither is past the limit
/// for one file, the file is, and is refused with it.
#[test]
fn frames_past_the_limit_across_chunks_refuse_the_file() {
    let mut text = String::new();
    for i in 0..1_200_000 {
        text.push_str(&format!("f{i} 1\n"));
    }
    let chunks = split_chunks(&text, text.len() / 2);
    assert_eq!(chunks.len(), 2);
    let error = parse_chunks(&chunks, Mode::Samples).err().unwrap();
    assert!(
        error.to_string().contains("1,000,000 distinct frames"),
        "{error}"
    );
}

#[test]
fn bad_lines_are_skipped_with_their_line_number() {
    let p = parse("a;b 1\nnot a count\na;c -3\n 7\na;b 2\n");
    let lines: Vec<_> = p.warnings.iter().map(|w| w.place.clone()).collect();
    use model::error::Place::Line;
    assert_eq!(lines, vec![Line(2), Line(3)]);
    // ` 7` is py-spy's sample without frames: it counts at the root.
    assert_eq!(p.profile.tree.total(0), 10.0);
    assert_eq!(p.profile.tree.self_value(NodeId::ROOT, 0), 7.0);
}

#[test]
fn py_spy_frames_keep_file_and_line() {
    let f = frame_from_text("convert (markdown/core.py:250)");
    assert_eq!(
        (f.function.as_str(), f.file.as_deref(), f.line),
        ("convert", Some("markdown/core.py"), Some(250))
    );
    assert_eq!(
        frame_from_text("<module> (bench.py:3)").function,
        "<module>"
    );
    assert_eq!(frame_from_text("f (x)").function, "f (x)");
}

fn fixture(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/fixtures/async-profiler")
        .join(name);
    std::fs::read(path).unwrap()
}

/// Every node as (parent, frame name, self values), in node order.
fn tree_paths(p: &Parsed) -> Vec<(Option<NodeId>, String, Vec<f64>)> {
    let tree = &p.profile.tree;
    tree.node_ids()
        .map(|n| {
            let values = (0..tree.metric_count()).map(|m| tree.self_value(n, m));
            (tree.parent(n), name_of(p, n).to_string(), values.collect())
        })
        .collect()
}

#[test]
fn frames_shared_with_the_previous_stack_are_found_by_bytes() {
    // Unsorted, with empty frames, prefixes of frames and a frame that
    // ends where the previous stack ends.
    let text = "a;b;c 1
a;b;cd 2
a;;b;c 3
a;b 4
a;b;c;d 5
ab;c 6
a;b;c 7
 8
a 9
";
    let p = parse(text);
    let mut expected = vec![];
    for line in text.lines() {
        let (stack, count) = line.rsplit_once(' ').unwrap();
        let names: Vec<&str> = stack.split(';').filter(|f| !f.is_empty()).collect();
        expected.push((names.join(";"), count.parse::<f64>().unwrap()));
    }
    // Each stack's node holds its count (`a;;b;c` is `a;b;c`).
    let tree = &p.profile.tree;
    let mut found = vec![];
    for n in tree.node_ids() {
        let names: Vec<&str> = tree
            .stack_of(n)
            .iter()
            .map(|f| p.frames.get(*f).function.as_str())
            .collect();
        if tree.self_value(n, 0) > 0.0 {
            found.push((names.join(";"), tree.self_value(n, 0)));
        }
    }
    found.sort_by(|a, b| a.0.cmp(&b.0));
    let mut merged: Vec<(String, f64)> = vec![];
    expected.sort_by(|a, b| a.0.cmp(&b.0));
    for (s, c) in expected {
        match merged.last_mut() {
            Some((t, v)) if *t == s => *v += c,
            _ => merged.push((s, c)),
        }
    }
    assert_eq!(found, merged);
    // The root, a, b, c, cd, d (under c), ab and the c under ab.
    assert_eq!(tree.len(), 8);
    assert_eq!(common_prefix(b"abcdefghij;x", b"abcdefghij;y"), 11);
    assert_eq!(common_prefix(b"abc", b"abcdef"), 3);
}

fn name_of(p: &Parsed, node: NodeId) -> &str {
    match p.profile.tree.frame(node) {
        Some(f) => &p.frames.get(f).function,
        None => "(root)",
    }
}

/// (allocating method, class, count) of every site, in order.
fn sites(p: &Parsed) -> Vec<(String, String, f64)> {
    let alloc = p.profile.allocations.as_ref().unwrap();
    alloc
        .sites
        .iter()
        .map(|s| {
            (
                name_of(p, s.node).to_string(),
                alloc.classes[s.class as usize].clone(),
                s.count,
            )
        })
        .collect()
}

/// tests/fixtures/async-profiler/alloc-collapsed.txt (hand-written in
/// async-profiler's format; see the README there).
#[test]
fn async_profiler_alloc_output_puts_classes_at_their_allocating_methods() {
    let bytes = fixture("alloc-collapsed.txt");
    let (name, p) = crate::parse_bytes("alloc-collapsed.txt", &bytes).unwrap();
    assert_eq!(name, "folded");
    assert_eq!(
        p.profile.metrics,
        vec![
            Metric::new("alloc_samples", Unit::Samples),
            Metric::new("alloc_samples_outside_tlab", Unit::Samples)
        ]
    );
    // awk '{s+=$NF} /_\[k\] [0-9]+$/{k+=$NF} END{print s, k}' → 154 12
    assert_eq!(p.profile.totals(), vec![154.0, 12.0]);
    let alloc = p.profile.allocations.as_ref().unwrap();
    assert_eq!(alloc.count_kind, CountKind::Samples);
    assert!(!alloc.bytes_known);
    assert_eq!(alloc.class_source, ClassSource::Recorded);
    assert!(!alloc.call_order);
    assert_eq!(alloc.totals(), (154.0, 0.0));
    let s = |m: &str, c: &str, n: f64| (m.to_string(), c.to_string(), n);
    assert_eq!(
        sites(&p),
        vec![
            s("java/lang/StringLatin1.newString", "java.lang.String", 41.0),
            s("java/util/Arrays.copyOfRange", "byte[]", 40.0),
            s("java/util/Arrays.copyOf", "java.lang.Object[]", 9.0),
            s("com/example/Parser.parse", "com.example.Token", 17.0),
            s(
                "com/example/Server$Handler.lambda$run$0",
                "com.example.Server$Handler$$Lambda+0x00007f3a1c00b2d8",
                2.0
            ),
            s("java/nio/file/Files.readAllBytes", "byte[]", 7.0),
            s("java/util/HashMap.newNode", "java.util.HashMap$Node", 25.0),
            s("java/util/HashMap.resize", "java.util.HashMap$Node[]", 2.0),
            s("java/lang/Long.valueOf", "java.lang.Long", 11.0),
        ]
    );
    // The class leaves are gone from the tree; the allocating methods
    // hold the samples as self values, `_[k]` ones in the second metric.
    for node in p.profile.tree.node_ids().skip(1) {
        let f = name_of(&p, node);
        assert!(!f.ends_with("_[i]") && !f.ends_with("_[k]"), "{f}");
    }
    let copy_of = p
        .profile
        .tree
        .node_ids()
        .find(|&n| name_of(&p, n) == "java/util/Arrays.copyOf")
        .unwrap();
    assert_eq!(p.profile.tree.self_value(copy_of, 0), 9.0);
    assert_eq!(p.profile.tree.self_value(copy_of, 1), 3.0);
}

#[test]
fn without_outside_tlab_leaves_there_is_one_metric() {
    let p = parse("Main.main;Foo.bar;java.lang.String_[i] 3\nMain.main;byte[]_[i] 2\n");
    assert_eq!(
        p.profile.metrics,
        vec![Metric::new("alloc_samples", Unit::Samples)]
    );
    assert_eq!(p.profile.totals(), vec![5.0]);
    assert_eq!(
        sites(&p),
        vec![
            ("Foo.bar".into(), "java.lang.String".into(), 3.0),
            ("Main.main".into(), "byte[]".into(), 2.0)
        ]
    );
}

#[test]
fn pseudo_frames_and_class_only_stacks_in_allocation_output() {
    let p = parse(
        "[frame_buffer_overflow] 5\nMain.main;Work.run;Foo_[i] 2\njava.lang.String_[k] 4\nMain.main;Work.run;int[][]_[i] 1\n",
    );
    assert_eq!(p.profile.totals(), vec![12.0, 4.0]);
    assert_eq!(
        sites(&p),
        vec![
            ("Work.run".into(), "Foo".into(), 2.0),
            ("(root)".into(), "java.lang.String".into(), 4.0),
            ("Work.run".into(), "int[][]".into(), 1.0),
        ]
    );
    let first = p.profile.tree.children(NodeId::ROOT)[0];
    assert_eq!(name_of(&p, first), "[frame_buffer_overflow]");
    assert_eq!(p.profile.tree.self_value(first, 0), 5.0);
    // Only default-package classes (which kernel symbols resemble): not
    // allocation output.
    let p = parse("Main.main;Foo_[i] 2\nMain.main;SyS_write_[k] 1\n");
    assert_eq!(p.profile.metrics[0].name, "samples");
    assert!(p.profile.allocations.is_none());
}

/// FlameGraph's stackcollapse-perf --all output of a Java CPU profile:
/// kernel leaves end in `_[k]`. Read exactly as plain folded stacks.
#[test]
fn the_vertx_cpu_profile_is_not_taken_for_allocations() {
    let Some(bytes) = crate::test_support::corpus(
        "speedscope/stackcollapse/perf-vertx-stacks-01-collapsed-all.txt",
    ) else {
        return;
    };
    let data = text::decode_text(&bytes);
    assert_eq!(survey(data.split('\n')), Mode::Samples);
    let (name, p) = crate::parse_bytes("vertx.txt", &bytes).unwrap();
    assert_eq!(name, "folded");
    assert_eq!(
        p.profile.metrics,
        vec![Metric::new("samples", Unit::Samples)]
    );
    assert_eq!(p.profile.tree.total(0), 285.0); // as tests/corpus.rs
    assert!(p.profile.allocations.is_none());
    let plain = parse_chunks(&[&data], Mode::Samples).unwrap();
    assert_eq!(p.profile.tree.len(), plain.profile.tree.len());
    assert_eq!(p.frames.len(), plain.frames.len());
    let kernel = p
        .profile
        .tree
        .node_ids()
        .find(|&n| name_of(&p, n) == "tcp_rtt_estimator_[k]");
    assert!(kernel.is_some_and(|n| p.profile.tree.children(n).is_empty()));
}

#[test]
fn a_mixed_file_reads_as_plain_folded_stacks() {
    for text in [
        // One leaf is a kernel symbol.
        "Main.main;java.lang.String_[i] 3\nMain.main;do_syscall_64_[k] 1\n",
        // One leaf has no suffix.
        "Main.main;java.lang.String_[i] 3\nMain.main;Foo.bar 1\n",
        // One leaf is a method frame (inlined, in a CPU profile).
        "Main.main;java.lang.String_[i] 3\nMain.main;java/lang/String.hashCode_[i] 1\n",
        // Markup is not a class name.
        "Main.main;java.lang.String_[i] 3\nMain.main;</script><svg onload=alert(1)>_[i] 1\n",
    ] {
        let p = parse(text);
        assert_eq!(
            p.profile.metrics,
            vec![Metric::new("samples", Unit::Samples)],
            "{text}"
        );
        assert!(p.profile.allocations.is_none(), "{text}");
        assert_eq!(p.profile.tree.total(0), 4.0);
        let main = p.profile.tree.children(NodeId::ROOT)[0];
        let leaf = p.profile.tree.children(main)[0];
        assert_eq!(name_of(&p, leaf), "java.lang.String_[i]");
    }
    let p =
        parse("Main.main;java.lang.String_[i] 3\nMain.main;</script><svg onload=alert(1)>_[i] 1\n");
    let main = p.profile.tree.children(NodeId::ROOT)[0];
    assert_eq!(
        name_of(&p, p.profile.tree.children(main)[1]),
        "</script><svg onload=alert(1)>_[i]"
    );
}

#[test]
fn hostile_method_names_before_a_class_stay_visible_text() {
    let p = parse("</script><svg onload=alert(1)>;x\u{202e}y;java.lang.String_[i] 2\n");
    assert_eq!(
        sites(&p),
        vec![("x[U+202E]y".into(), "java.lang.String".into(), 2.0)]
    );
    let top = p.profile.tree.children(NodeId::ROOT)[0];
    assert_eq!(name_of(&p, top), "</script><svg onload=alert(1)>");
}

#[test]
fn class_shapes() {
    use Shape::*;
    for (name, shape) in [
        ("java.lang.String", Dotted),
        ("java.util.HashMap$Node", Dotted),
        ("scala.collection.immutable.$colon$colon", Dotted),
        ("com.example.Foo$$Lambda$14/0x0000000800c02a00", Dotted),
        ("com.example.Foo$$Lambda+0x00007f6fdda4bac0", Dotted),
        ("byte[]", Dotted),
        ("long[][]", Dotted),
        ("java.lang.Object[]", Dotted),
        ("Foo[]", Dotted),
        ("Foo", Simple),
        ("SyS_write", Simple),
        ("Ünïcode.Wörld", Dotted),
        ("tcp_rtt_estimator", NotAClass),
        ("finish_task_switch.isra.0", NotAClass),
        ("do_syscall_64", NotAClass),
        ("java/lang/String.hashCode", NotAClass),
        ("java.lang.String.hashCode", NotAClass),
        ("io/netty/channel/nio/NioEventLoop:.run", NotAClass),
        ("std::vector<int>::push_back", NotAClass),
        ("main.(*T).Method", NotAClass),
        ("bytes[]x", NotAClass),
        ("[]", NotAClass),
        ("a..B", NotAClass),
        (".Foo", NotAClass),
        ("Foo/bar", NotAClass),
        ("", NotAClass),
    ] {
        assert_eq!(class_shape(name), shape, "{name}");
    }
    assert_eq!(class_leaf("byte[]_[k]"), Some(("byte[]", true)));
    assert_eq!(
        class_leaf("java.lang.String_[i]"),
        Some(("java.lang.String", false))
    );
    assert_eq!(class_leaf("java.lang.String_[j]"), None);
    assert_eq!(class_leaf("tcp_ack_[k]"), None);
    assert_eq!(split_leaf("a;b;c;"), ("a;b", "c"));
    assert_eq!(split_leaf("c"), ("", "c"));
}

#[test]
fn chunked_allocation_output_gives_the_same_sites() {
    // The first chunk holds no class leaf at all.
    let mut text = "[frame_buffer_overflow] 1\n".repeat(400);
    for i in 0..3_000 {
        text.push_str(&format!(
            "Main.main;app/M{}.run;java.lang.C{}{} {}\n",
            i % 13,
            i % 7,
            if i % 5 == 0 { "_[k]" } else { "_[i]" },
            1 + i % 3
        ));
    }
    let whole = parse(&text);
    let mode = survey(text.split('\n'));
    assert_eq!(mode, Mode::Allocations { outside_tlab: true });
    let chunks = split_chunks(&text, 4096);
    assert!(chunks.len() > 5 && !chunks[0].contains("_["));
    let chunked = parse_chunks(&chunks, mode).unwrap();
    assert_eq!(chunked.profile.totals(), whole.profile.totals());
    assert_eq!(chunked.profile.tree.len(), whole.profile.tree.len());
    assert_eq!(sites(&chunked), sites(&whole));
    assert_eq!(sites(&whole).len(), 13 * 7);
}

#[test]
fn file_without_any_stack_is_an_error() {
    let e = Folded
        .parse(&Input {
            file_name: "x",
            bytes: b"garbage\n",
        })
        .unwrap_err();
    assert_eq!(e.place, model::error::Place::Line(1));
}

#[test]
fn chunks_are_cut_after_newlines_whatever_characters_sit_at_the_cut() {
    // Multi-byte characters across every byte offset near the nominal cut:
    // cutting there on a byte count alone panicked on big files.
    let line = "main;関数::読み込み;数据::处理;λ 3\n";
    let text = line.repeat(400);
    for size in 1000..1040 {
        let chunks = split_chunks(&text, size);
        assert!(chunks.len() > 5, "size {size}");
        assert_eq!(chunks.concat(), text);
        assert!(chunks.iter().all(|c| c.ends_with('\n')), "size {size}");
        let bytes = utf8_chunks(text.as_bytes(), size).expect("valid UTF-8");
        assert_eq!(bytes, chunks);
    }
    let chunked = parse_chunks(&split_chunks(&text, 1000), Mode::Samples).unwrap();
    assert_eq!(tree_paths(&chunked), tree_paths(&parse(&text)));
}

#[test]
fn text_that_is_not_utf8_is_decoded_whole_before_it_is_cut() {
    let mut bytes = "main;a 1\n".repeat(300).into_bytes();
    bytes.extend_from_slice(b"main;caf\xe9 2\n");
    bytes.extend("main;b 1\n".repeat(300).into_bytes());
    assert_eq!(utf8_chunks(&bytes, 512), None);
    let mut bom = "\u{feff}".as_bytes().to_vec();
    bom.extend("main;a 1\n".repeat(300).into_bytes());
    assert_eq!(utf8_chunks(&bom, 512), None);
    let p = Folded
        .parse(&Input {
            file_name: "latin1.folded",
            bytes: &bytes,
        })
        .unwrap();
    assert_eq!(p.profile.tree.total(0), 602.0);
}

/// `text` read in chunks of about `chunk` bytes twice: folded while its
/// tree is built (the reader's way), and built as a tree of lines then
/// folded (the way of the readers that see no whole stacks).
fn folded_both_ways(text: &str, chunk: usize) -> (Parsed, Parsed) {
    let chunks = split_chunks(text, chunk);
    let mode = survey(chunks.iter().flat_map(|c| c.split('\n')));
    let read = |on| parse_chunks_folding(&chunks, mode, model::FoldWhileBuilding::folding(on));
    (read(true).unwrap(), crate::fold_lines(read(false).unwrap()))
}

/// Everything of a parsed profile a page can show: the frame table, every
/// node (parent, frame id, children, self values), the cut nodes, the line
/// table, the allocation sites and the warnings.
fn everything(p: &Parsed) -> String {
    let tree = &p.profile.tree;
    let frames: Vec<_> = p.frames.iter().collect();
    let nodes: Vec<_> = tree
        .node_ids()
        .map(|n| {
            let values: Vec<f64> = (0..tree.metric_count())
                .map(|m| tree.self_value(n, m))
                .collect();
            (
                tree.parent(n),
                tree.frame(n),
                tree.children(n).to_vec(),
                values,
            )
        })
        .collect();
    let lines: Option<Vec<_>> = p.profile.line_self.as_ref().map(|l| l.iter().collect());
    // The sites and classes (not the index to them, a hash map).
    let sites = p
        .profile
        .allocations
        .as_ref()
        .map(|a| (&a.sites, &a.classes));
    format!(
        "{frames:?}\n{nodes:?}\n{:?}\n{lines:?}\n{sites:?}\n{:?}",
        tree.cut_nodes(),
        p.warnings
    )
}

#[test]
fn the_fold_while_building_gives_what_folding_the_tree_of_lines_gives() {
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../sample-data"));
    let mut files: Vec<_> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "folded"))
        .map(|e| e.path().to_path_buf())
        .collect();
    files.sort();
    assert!(
        files.len() >= 10,
        "py-spy profiles of sample-data: {files:?}"
    );
    let mut texts: Vec<(String, String)> = files
        .iter()
        .map(|f| (f.display().to_string(), std::fs::read_to_string(f).unwrap()))
        .collect();
    // A function at several lines and in recursion, a line with a zero
    // count, fractions, a sample without frames, and frames without lines.
    texts.push((
        "mixed".into(),
        "main (m.py:1);work (w.py:7);work (w.py:9) 3\nmain (m.py:1);work (w.py:9) 0\n\
         main (m.py:2);helper 5\nmain (m.py:1);work (w.py:7) 2.5\n 4\n\
         main (m.py:2);work (w.py:9);work (w.py:7);helper 0.25\n"
            .into(),
    ));
    // Allocation output whose methods carry lines, some outside TLABs.
    texts.push((
        "allocations".into(),
        "Main.run (Main.java:10);Main.make (Main.java:20);java.lang.String_[i] 3\n\
         Main.run (Main.java:11);Main.make (Main.java:21);byte[]_[k] 2\n\
         Main.run (Main.java:10);Main.make (Main.java:21);java.lang.String_[i] 4\n"
            .into(),
    ));
    // A stack past the depth limit whose frame there is on no other
    // stack: no node of the tree of lines names it, so it has no function
    // id, and the functions after it get theirs one lower. Lines 4 and 5
    // of `r` weigh the same but for the cut node, which holds the samples
    // below the limit under the frame above it (line 5): it decides.
    let mut deep = (0..MAX_DEPTH as usize)
        .map(|i| format!("r (r.py:{})", 4 + i % 2))
        .collect::<Vec<_>>()
        .join(";");
    deep.push_str(";only_here (o.py:5);below (b.py:1) 2\nlater (l.py:3) 1\nr (r.py:6) 1\n");
    texts.push(("deep".into(), deep));
    for (name, text) in &texts {
        for chunk in [256, usize::MAX / 4] {
            let (built, after) = folded_both_ways(text, chunk);
            assert_eq!(
                everything(&built),
                everything(&after),
                "{name}, chunks of {chunk}"
            );
        }
    }
    // Not equal by doing nothing: every one of them has a line table.
    for (name, text) in &texts {
        let (built, _) = folded_both_ways(text, usize::MAX / 4);
        assert!(built.profile.line_self.is_some(), "{name}");
    }
    let (deep, _) = folded_both_ways(&texts.last().unwrap().1, usize::MAX / 4);
    assert!(!deep.frames.iter().any(|(_, f)| f.function == "only_here"));
    let r = deep
        .frames
        .iter()
        .find(|(_, f)| f.function == "r")
        .unwrap()
        .1;
    assert_eq!(r.line, Some(5));
    assert_eq!(deep.profile.tree.cut_nodes().len(), 1);
}
