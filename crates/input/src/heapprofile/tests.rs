use super::*;
use crate::test_support::corpus;
use model::error::Place;
use model::ClassSource;

fn parse(text: &str) -> Result<Parsed, ParseError> {
    HeapProfile.parse(&Input {
        file_name: "x.heapprofile",
        bytes: text.as_bytes(),
    })
}

fn function(p: &Parsed, node: NodeId) -> &str {
    &p.frames.get(p.profile.tree.frame(node).unwrap()).function
}

/// (sum of selfSize, number of nodes, the function with the largest
/// summed selfSize) computed from the JSON independently of the reader.
fn facts_of(json: &[u8]) -> (f64, usize, String) {
    let v: serde_json::Value = serde_json::from_slice(json).unwrap();
    let mut stack = vec![&v["head"]];
    let (mut total, mut count) = (0.0, 0);
    let mut by_function: std::collections::BTreeMap<String, f64> = Default::default();
    while let Some(n) = stack.pop() {
        let size = n["selfSize"].as_f64().unwrap();
        total += size;
        count += 1;
        let name = n["callFrame"]["functionName"].as_str().unwrap();
        let name = if name.is_empty() { "(anonymous)" } else { name };
        *by_function.entry(name.to_string()).or_default() += size;
        stack.extend(n["children"].as_array().unwrap());
    }
    let top = by_function
        .iter()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map(|(k, _)| k.clone())
        .unwrap();
    (total, count, top)
}

/// Bytes per allocating function, from the parsed allocation sites.
fn top_site(p: &Parsed) -> (String, f64) {
    let alloc = p.profile.allocations.as_ref().unwrap();
    let mut by_class = vec![0.0; alloc.classes.len()];
    for s in &alloc.sites {
        by_class[s.class as usize] += s.bytes;
    }
    let (i, bytes) = by_class
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .unwrap();
    (alloc.classes[i].clone(), *bytes)
}

#[test]
fn chrome_69_heap_profile() {
    let Some(bytes) = corpus("speedscope/Chrome/69/Heap-20181005T144546.heapprofile") else {
        return;
    };
    let (name, p) = crate::parse_bytes("Heap.heapprofile", &bytes).unwrap();
    assert_eq!(name, "heapprofile");
    let (total, count, top) = facts_of(&bytes);
    // python3: walk d["head"] summing selfSize → 10030888 bytes, 543 nodes;
    // by functionName: (anonymous) 3506144, (V8 API) 1894920, s_$e 426672.
    assert_eq!((total, count), (10_030_888.0, 543));
    assert_eq!(top, "(anonymous)");
    assert_eq!(
        p.profile.metrics,
        vec![Metric::new("alloc_space", Unit::Bytes)]
    );
    assert_eq!(p.profile.tree.total(0), total);
    // (root) is the tree's root; every other node is a context (equal
    // sibling frames merge, so there can be fewer).
    assert!(p.profile.tree.len() <= count, "{}", p.profile.tree.len());
    let alloc = p.profile.allocations.as_ref().unwrap();
    assert_eq!(alloc.class_source, ClassSource::AllocatingFunction);
    assert_eq!(alloc.count_kind, CountKind::Unknown);
    assert!(!alloc.call_order);
    assert_eq!(alloc.totals().1, total);
    assert_eq!(top_site(&p), (top, 3_506_144.0));
    assert!(p.warnings.is_empty());
}

#[test]
fn node_10_heap_profile() {
    let Some(bytes) = corpus("speedscope/node/10.11.0/Heap-20181003T105432.heapprofile") else {
        return;
    };
    let (name, p) = crate::parse_bytes("Heap.heapprofile", &bytes).unwrap();
    assert_eq!(name, "heapprofile");
    let (total, count, top) = facts_of(&bytes);
    // python3: 525704 bytes in 80 nodes; pmessageHandler 164072 is the
    // heaviest function, then (anonymous) 65600 and cloneArray 65568.
    assert_eq!((total, count), (525_704.0, 80));
    assert_eq!(p.profile.tree.total(0), total);
    assert_eq!(top_site(&p), (top, 164_072.0));
    assert_eq!(p.profile.allocations.as_ref().unwrap().totals().1, total);
    let roots = p.profile.tree.children(NodeId::ROOT);
    assert!(roots.iter().all(|&r| function(&p, r) != "(root)"));
}

fn fixture(name: &str) -> std::path::PathBuf {
    std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/fixtures/heapprofile")
        .join(name)
}

/// Bytes and samples of the allocation site of function `name`.
fn site_of(p: &Parsed, name: &str) -> Option<(f64, f64)> {
    let alloc = p.profile.allocations.as_ref()?;
    let class = alloc.classes.iter().position(|c| c == name)? as u32;
    Some(
        alloc
            .sites
            .iter()
            .filter(|s| s.class == class)
            .fold((0.0, 0.0), |(b, c), s| (b + s.bytes, c + s.count)),
    )
}

/// tests/fixtures/heapprofile/alloc.heapprofile, a node 20 capture (see
/// the README there for the command and the figures).
#[test]
fn node_20_capture_names_both_allocating_functions() {
    let bytes = std::fs::read(fixture("alloc.heapprofile")).unwrap();
    let (name, p) = crate::parse_bytes("alloc.heapprofile", &bytes).unwrap();
    assert_eq!(name, "heapprofile");
    let (total, count, top) = facts_of(&bytes);
    assert_eq!(
        (total, count, top.as_str()),
        (14_660_424.0, 52, "makeArrays")
    );
    // 439 samples, 6 of them (the newest ordinals) naming node 74, past
    // the tree's largest id 73: allocations made while V8 wrote the
    // profile, 243,696 bytes in all (python3: the sum of their `size`).
    // Counted in a note, not a warning.
    assert_eq!(p.profile.totals(), vec![total, 433.0]);
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    assert_eq!(p.profile.notes.len(), 1);
    assert!(
        p.profile.notes[0].starts_with("6 samples (238 KiB) name nodes that V8 created"),
        "{:?}",
        p.profile.notes
    );
    assert_eq!(site_of(&p, "makeArrays"), Some((10_642_496.0, 322.0)));
    assert_eq!(site_of(&p, "makeStrings"), Some((1_751_016.0, 42.0)));
    assert_eq!(site_of(&p, "repeat"), Some((1_966_944.0, 60.0)));
    // Its allocations were all collected, and V8 forgot their samples.
    assert_eq!(site_of(&p, "makeGarbage"), None);
    let alloc = p.profile.allocations.as_ref().unwrap();
    assert_eq!(alloc.count_kind, CountKind::Samples);
    assert_eq!(alloc.class_source, ClassSource::AllocatingFunction);
    // node 20 gives the main script's frames no url and line -1.
    let frame = p
        .profile
        .tree
        .node_ids()
        .find(|&n| n != NodeId::ROOT && function(&p, n) == "makeArrays")
        .and_then(|n| p.profile.tree.frame(n))
        .map(|f| p.frames.get(f).clone())
        .unwrap();
    assert_eq!((frame.file, frame.line), (None, None));
}

/// A fresh capture of the same script, when node is installed.
#[test]
fn node_capture_at_test_time() {
    let dir = tempfile::tempdir().unwrap();
    let script = fixture("alloc.js");
    let run = std::process::Command::new("node")
        .current_dir(dir.path())
        .args([
            "--heap-prof",
            "--heap-prof-interval=4096",
            "--heap-prof-name=t.heapprofile",
        ])
        .arg(&script)
        .output();
    match run {
        Ok(out) if out.status.success() => {}
        Ok(out) => panic!("node failed: {}", String::from_utf8_lossy(&out.stderr)),
        Err(e) => {
            eprintln!("note: node not runnable ({e}); test skipped");
            return;
        }
    }
    let bytes = std::fs::read(dir.path().join("t.heapprofile")).unwrap();
    let (name, p) = crate::parse_bytes("t.heapprofile", &bytes).unwrap();
    assert_eq!(name, "heapprofile");
    assert_eq!(p.profile.tree.total(0), facts_of(&bytes).0);
    let (arrays, strings) = (site_of(&p, "makeArrays"), site_of(&p, "makeStrings"));
    assert!(
        arrays.is_some_and(|(b, c)| b > 1e6 && c > 0.0),
        "{arrays:?}"
    );
    assert!(
        strings.is_some_and(|(b, c)| b > 1e5 && c > 0.0),
        "{strings:?}"
    );
}

#[test]
fn samples_give_a_count_metric_and_sampled_sites() {
    let p = parse(
        r#"{"head":{"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"selfSize":0,"id":1,"children":[
            {"callFrame":{"functionName":"main","scriptId":"3","url":"file:///a.js","lineNumber":4,"columnNumber":0},"selfSize":100,"id":2,"children":[
              {"callFrame":{"functionName":"","scriptId":"3","url":"file:///a.js","lineNumber":9,"columnNumber":2},"selfSize":300,"id":3,"children":[]}]}]},
          "samples":[{"size":50,"nodeId":2,"ordinal":1},{"size":20,"nodeId":3,"ordinal":2},{"size":20,"nodeId":3,"ordinal":3},{"size":8,"nodeId":99,"ordinal":4},{"size":8,"nodeId":0,"ordinal":5},{"size":8,"ordinal":6}]}"#,
    )
    .unwrap();
    assert_eq!(
        p.profile.metrics,
        vec![
            Metric::new("alloc_space", Unit::Bytes),
            Metric::new("alloc_samples", Unit::Samples)
        ]
    );
    assert_eq!(p.profile.totals(), vec![400.0, 3.0]);
    let main = p.profile.tree.children(NodeId::ROOT)[0];
    let f = p.frames.get(p.profile.tree.frame(main).unwrap());
    assert_eq!(
        (f.function.as_str(), f.file.as_deref(), f.line),
        ("main", Some("file:///a.js"), Some(5))
    );
    let anon = p.profile.tree.children(main)[0];
    assert_eq!(function(&p, anon), "(anonymous)");
    // lineNumber 9, columnNumber 2 (0-based) is line 10, column 3.
    let frame = p.frames.get(p.profile.tree.frame(anon).unwrap());
    assert_eq!((frame.start_line, frame.start_column), (Some(10), Some(3)));
    let alloc = p.profile.allocations.as_ref().unwrap();
    assert_eq!(alloc.count_kind, CountKind::Samples);
    assert_eq!(alloc.classes, ["main", "(anonymous)"]);
    assert_eq!(alloc.sites[1].node, anon);
    assert_eq!((alloc.sites[1].count, alloc.sites[1].bytes), (2.0, 300.0));
    // Node 99, past the tree's largest id, is a sample V8 took while
    // writing the profile: not placed, and noted, not warned about.
    // Node 0 is inside the tree's range but absent, and the last sample
    // names no node: skipped with one warning at the first of them.
    assert_eq!(
        p.profile.notes,
        [
            "1 sample (8 B) names a node that V8 created after it wrote the call tree \
             (allocations sampled while it wrote the profile): it is not placed, and no \
             figure counts it."
        ]
    );
    assert_eq!(p.warnings.len(), 1);
    assert_eq!(
        p.warnings[0].place,
        Place::Json("$.samples[4].nodeId".into())
    );
    let message = &p.warnings[0].message;
    assert!(
        message.contains("node id 0") && message.contains("1 more"),
        "{message}"
    );
}

#[test]
fn malformed_profiles_are_errors_with_their_place() {
    let at = |text: &str| {
        let e = parse(text).unwrap_err();
        (e.place.clone(), e.message)
    };
    let (place, message) = at(r#"{"samples":[]}"#);
    assert_eq!(place, Place::Json("$".into()));
    assert!(message.contains("head"), "{message}");
    let (place, message) = at(
        r#"{"head":{"callFrame":{},"selfSize":0,"children":[{"callFrame":{"functionName":7},"selfSize":1}]}}"#,
    );
    assert_eq!(
        place,
        Place::Json("$.head.children[0].callFrame.functionName".into())
    );
    assert!(
        message.contains("expected a string, found a number"),
        "{message}"
    );
    let (place, message) = at(
        r#"{"head":{"callFrame":{},"selfSize":0,"children":[{"callFrame":{},"selfSize":1},{"callFrame":{},"selfSize":-5}]}}"#,
    );
    assert_eq!(place, Place::Json("$.head.children[1].selfSize".into()));
    assert!(message.contains("-5"), "{message}");
    let (place, _) = at(r#"{"head":{"callFrame":{},"selfSize":"big"}}"#);
    assert_eq!(place, Place::Json("$.head.selfSize".into()));
    let (place, message) = at(r#"{"head":{"callFrame":{},"children":[]}}"#);
    assert_eq!(place, Place::Json("$.head".into()));
    assert!(message.contains("selfSize"), "{message}");
    let (place, _) = at(r#"{"head":{"callFrame":{},"selfSize":0,"children":[3]}}"#);
    assert_eq!(place, Place::Json("$.head.children[0]".into()));
    let (place, _) = at(r#"{"head":{"callFrame":{},"selfSize":0},"samples":[{"nodeId":"a"}]}"#);
    assert_eq!(place, Place::Json("$.samples[0].nodeId".into()));
    let (place, message) = at(
        r#"{"head":{"callFrame":{},"selfSize":0,"id":1,"children":[{"callFrame":{},"selfSize":0,"id":1}]}}"#,
    );
    assert_eq!(place, Place::Json("$.head.children[0].id".into()));
    assert!(message.contains("used twice"), "{message}");
    let (place, _) = at("[]");
    assert_eq!(place, Place::Json("$".into()));
    let (place, message) = at(r#"{"head":{"callFrame":{},"selfSize":0}} x"#);
    assert_eq!(place, Place::Line(1));
    assert!(message.contains("after the end"), "{message}");
}

#[test]
fn a_truncated_file_is_an_error_with_its_line_and_column() {
    let Some(bytes) = corpus("speedscope/node/10.11.0/Heap-20181003T105432.heapprofile") else {
        return;
    };
    for cut in [bytes.len() / 2, bytes.len() - 1, 7] {
        let e = parse(std::str::from_utf8(&bytes[..cut]).unwrap()).unwrap_err();
        assert!(matches!(e.place, Place::Line(_)), "{e}");
        assert!(e.message.contains("truncated"), "{e}");
    }
}

#[test]
fn hostile_names_are_kept_as_visible_text() {
    let p = parse(
        r#"{"head":{"callFrame":{"functionName":"(root)"},"selfSize":0,"children":[
            {"callFrame":{"functionName":"</script><svg onload=alert(1)>","url":"x\u0000\u202e.js"},"selfSize":64,"children":[]}]}}"#,
    )
    .unwrap();
    let n = p.profile.tree.children(NodeId::ROOT)[0];
    let f = p.frames.get(p.profile.tree.frame(n).unwrap());
    assert_eq!(f.function, "</script><svg onload=alert(1)>");
    assert_eq!(f.file.as_deref(), Some("x␀[U+202E].js"));
    let alloc = p.profile.allocations.as_ref().unwrap();
    assert_eq!(alloc.classes, ["</script><svg onload=alert(1)>"]);
}

/// A generated 100,000-frame chain: read without recursion, every
/// frame a context, and the error path of a bad node deep down stays
/// short.
#[test]
fn a_100000_deep_profile_parses_without_overflowing() {
    let n = 100_000;
    let mut s = String::from(r#"{"head":"#);
    for i in 0..n {
        s.push_str(&format!(
            r#"{{"callFrame":{{"functionName":"f{i}","url":"deep.js","lineNumber":{i}}},"selfSize":{},"id":{i},"children":["#,
            if i == n - 1 { 16 } else { 0 }
        ));
    }
    for _ in 0..n {
        s.push_str("]}");
    }
    s.push_str(&format!(
        r#","samples":[{{"size":16,"nodeId":{},"ordinal":1}}]}}"#,
        n - 1
    ));
    let (name, p) = crate::parse_bytes("deep.heapprofile", s.as_bytes()).unwrap();
    assert_eq!(name, "heapprofile");
    assert_eq!(p.profile.tree.len(), n + 1);
    assert_eq!(p.profile.totals(), vec![16.0, 1.0]);
    let alloc = p.profile.allocations.as_ref().unwrap();
    assert_eq!(alloc.classes, [format!("f{}", n - 1)]);
    let bad = s.replacen(r#""selfSize":16"#, r#""selfSize":-1"#, 1);
    let e = parse(&bad).unwrap_err();
    match &e.place {
        Place::Json(path) => {
            assert!(path.len() < 400, "{path}");
            assert!(path.ends_with(".children[0].selfSize"), "{path}");
            assert!(path.contains("99983 levels"), "{path}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn sniffing_tells_heap_profiles_from_cpu_profiles() {
    let yes = |s: &str| {
        HeapProfile.sniff(&Input {
            file_name: "x",
            bytes: s.as_bytes(),
        })
    };
    assert!(yes(
        r#"{"head":{"callFrame":{"functionName":"nodes"},"selfSize":0,"children":[]}}"#
    ));
    assert!(yes(
        "\u{feff} {\"head\" : {\"callFrame\" : {}, \"selfSize\" : 0}}"
    ));
    // Old cpuprofile (nested head with hitCount) and the new one.
    assert!(!yes(
        r#"{"head":{"callFrame":{},"hitCount":0,"selfSize":0}}"#
    ));
    assert!(!yes(
        r#"{"nodes":[{"id":1,"callFrame":{},"selfSize":0}],"head":{}}"#
    ));
    assert!(!yes("a;b 1\n"));
    // Both routes through parse_bytes.
    let heap = r#"{"head":{"callFrame":{"functionName":"nodes"},"selfSize":5,"children":[]}}"#;
    assert_eq!(
        crate::parse_bytes("x", heap.as_bytes()).unwrap().0,
        "heapprofile"
    );
    let cpu = r#"{"nodes":[{"id":1,"callFrame":{"functionName":"selfSize"},"hitCount":1}],"startTime":0}"#;
    assert_eq!(
        crate::parse_bytes("x", cpu.as_bytes()).unwrap().0,
        "cpuprofile"
    );
}

#[test]
fn garbage_never_panics() {
    for s in [
        "{",
        "{}",
        "null",
        r#"{"head":null}"#,
        r#"{"head":{}}"#,
        r#"{"head":{"selfSize":1e400}}"#,
        r#"{"head":{"selfSize":1,"id":1.5}}"#,
        r#"{"head":{"selfSize":1,"children":[{"selfSize":1,"children":[{"#,
        r#"{"head":{"selfSize":1},"samples":[1]}"#,
        r#"{"head":{"selfSize":1},"samples":[{"nodeId":1e300}]}"#,
        r#"{"head":{"selfSize":1},"head":{"selfSize":1}}"#,
    ] {
        let _ = parse(s);
    }
}
