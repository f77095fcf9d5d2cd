//! Hostile input, end to end: a fixture directory built at test time with
//! the malformed, cyclic, huge and malicious files issue 9 lists (most cut
//! or bent from real profiles), read by the `perfatlas` binary. What a user
//! relies on: every bad file is named with its place and reason on stderr
//! and on the index, the good files are still built, the exit code tells
//! "built with problems" (1) from "refused" (2), nothing panics, no name
//! reaches a page as live markup or as an invisible control character, and
//! the input directory is left exactly as it was.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

mod common;
use common::{build, read_tree, sample_data};

/// A name that would run script if any page wrote it raw.
const SCRIPT_NAME: &str = "</script><script>document.title='pwned'</script>";
const ATTR_NAME: &str = "\"onmouseover=\"alert(2)";
/// A right-to-left override and a terminal escape: invisible or reordering
/// unless made visible.
const BIDI_NAME: &str = "evil\u{202E}gnp.exe";
const ESC_NAME: &str = "esc\u{1b}[31mred";

/// One hostile file and what the skipped-inputs list must say about it.
struct Case {
    file: &'static str,
    bytes: Vec<u8>,
    /// Substrings of the `perfatlas: skipped: FILE: …` line; empty when the
    /// file must be read without complaint.
    says: &'static [&'static str],
}

fn go_cpu_profile() -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/pprof/go-demo/1.0/demo.cpu.pb.gz");
    fs::read(path).expect("the real Go CPU profile fixture")
}

fn gunzip(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_end(&mut out)
        .unwrap();
    out
}

/// A real speedscope file from the sample data (py-spy's output).
fn real_speedscope() -> Vec<u8> {
    fs::read(sample_data().join("3.6/convert-extensions.1.speedscope.json")).unwrap()
}

/// Deterministic bytes that are no format at all.
fn garbage(n: usize) -> Vec<u8> {
    let mut x: u32 = 0x2545_f491;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x >> 24) as u8
        })
        .collect()
}

// A minimal protobuf writer, enough for hand-made pprof profiles.
fn varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}
fn field_varint(field: u32, v: u64, out: &mut Vec<u8>) {
    varint(u64::from(field) << 3, out);
    varint(v, out);
}
fn field_bytes(field: u32, bytes: &[u8], out: &mut Vec<u8>) {
    varint((u64::from(field) << 3) | 2, out);
    varint(bytes.len() as u64, out);
    out.extend_from_slice(bytes);
}
fn message(fields: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut m = Vec::new();
    fields(&mut m);
    m
}

/// A pprof profile: one sample type (`samples`/`count`), one function
/// `main` at location 1, and one sample at `sample_location`.
fn pprof(type_string: u64, sample_location: u64, function_of_location: u64) -> Vec<u8> {
    message(|p| {
        field_bytes(
            1,
            &message(|vt| {
                field_varint(1, type_string, vt);
                field_varint(2, 2, vt);
            }),
            p,
        );
        field_bytes(
            2,
            &message(|s| {
                field_bytes(1, &message(|ids| varint(sample_location, ids)), s);
                field_bytes(2, &message(|vals| varint(7, vals)), s);
            }),
            p,
        );
        field_bytes(
            4,
            &message(|l| {
                field_varint(1, 1, l);
                field_bytes(
                    4,
                    &message(|line| field_varint(1, function_of_location, line)),
                    l,
                );
            }),
            p,
        );
        field_bytes(
            5,
            &message(|f| {
                field_varint(1, 1, f);
                field_varint(2, 3, f);
            }),
            p,
        );
        for s in ["", "samples", "count", "main"] {
            field_bytes(6, s.as_bytes(), p);
        }
    })
}

fn deep_stack(depth: usize) -> Vec<u8> {
    let mut line = (0..depth)
        .map(|i| format!("f{i}"))
        .collect::<Vec<_>>()
        .join(";");
    line.push_str(" 5\n");
    line.into_bytes()
}

/// `stacks` lines of `depth` frames, every frame distinct.
fn distinct_frames(stacks: usize, depth: usize) -> Vec<u8> {
    let mut out = String::new();
    for s in 0..stacks {
        let frames: Vec<String> = (0..depth).map(|i| format!("s{s}_{i}")).collect();
        out.push_str(&frames.join(";"));
        out.push_str(" 1\n");
    }
    out.into_bytes()
}

fn cases() -> Vec<Case> {
    let gz = go_cpu_profile();
    let raw = gunzip(&gz);
    let speedscope = real_speedscope();
    // A real trace (headless chromium's startup trace of a busy page).
    let chrome_trace = gunzip(
        &fs::read(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/chrome-trace/busy-page.trace.json.gz"),
        )
        .unwrap(),
    );
    let markup = format!(
        "main;{SCRIPT_NAME};{ATTR_NAME} 4\nmain;{BIDI_NAME} 3\nmain;{ESC_NAME};nul\u{0}byte 2\n"
    );
    let mut bad_utf8 = b"main;caf\xe9;\xff\xfe 6\n".to_vec();
    bad_utf8.extend_from_slice(b"main;ok 1\n");
    let frames = serde_json::json!([{ "function": ATTR_NAME }, { "function": "make" }]);
    let sites = serde_json::json!([
        { "node": 1, "class": SCRIPT_NAME, "count": 3, "bytes": 48 },
        { "node": 1, "class": BIDI_NAME, "count": 2, "bytes": 32 },
        { "node": 0, "class": ESC_NAME, "count": 1, "bytes": 16 },
    ]);
    let allocation = format!(
        "{{\"perfatlas\":1,\"metrics\":[{{\"name\":\"alloc_objects\",\"unit\":\"objects\"}}],\"frames\":{frames},\
         \"nodes\":[{{\"frame\":0,\"parent\":null,\"self\":[1]}},{{\"frame\":1,\"parent\":0,\"self\":[5]}}],\
         \"allocations\":{{\"sites\":{sites}}}}}"
    );
    vec![
        Case {
            file: "markup-alloc.json",
            bytes: allocation.into_bytes(),
            says: &[],
        },
        Case {
            file: "good.folded",
            bytes: b"main;work 10\nmain 2\n".to_vec(),
            says: &[],
        },
        Case {
            file: "truncated.cpu.pb.gz",
            bytes: gz[..gz.len() / 2].to_vec(),
            says: &["corrupt or truncated gzip data"],
        },
        Case {
            file: "truncated.cpu.pb",
            bytes: raw[..raw.len() * 2 / 3].to_vec(),
            says: &["not a valid pprof profile"],
        },
        Case {
            file: "garbage.bin",
            bytes: garbage(4096),
            says: &["unrecognised format"],
        },
        Case {
            file: "empty.folded",
            bytes: Vec::new(),
            says: &["the file is empty"],
        },
        Case {
            file: "wrong-shape.cpuprofile",
            bytes: br#"{"nodes": "not a list", "startTime": 0, "endTime": 1}"#.to_vec(),
            says: &["line 1", "expected a sequence"],
        },
        Case {
            file: "string-index.pb",
            bytes: pprof(9, 1, 1),
            says: &["sample_type[0].type", "string index 9 is out of range"],
        },
        Case {
            file: "location-nowhere.pb",
            bytes: pprof(1, 99, 1),
            says: &["sample[0].location_id[0]", "location id 99 does not exist"],
        },
        Case {
            file: "function-nowhere.pb",
            bytes: pprof(1, 1, 42),
            says: &["location[0].line[0].function_id", "function id 42 does not exist"],
        },
        Case {
            file: "self-cycle.cpuprofile",
            bytes: br#"{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":"","lineNumber":-1,"columnNumber":-1},"children":[1]}],"startTime":0,"endTime":10,"samples":[1],"timeDeltas":[10]}"#.to_vec(),
            says: &["$.nodes[0].children[0]", "lists itself as its child"],
        },
        Case {
            file: "unknown-child.cpuprofile",
            bytes: br#"{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":"","lineNumber":-1,"columnNumber":-1},"children":[42]}],"startTime":0,"endTime":10,"samples":[1],"timeDeltas":[10]}"#.to_vec(),
            says: &["$.nodes[0].children[0]", "42"],
        },
        Case {
            file: "frame-index.speedscope.json",
            bytes: br#"{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"sampled","name":"p","unit":"none","startValue":0,"endValue":2,"samples":[[0,99]],"weights":[1]}]}"#.to_vec(),
            says: &["$.profiles[0].samples[0][1]", "frame index 99 is out of range"],
        },
        Case {
            file: "truncated.speedscope.json",
            bytes: speedscope[..speedscope.len() / 2].to_vec(),
            says: &["line ", "EOF"],
        },
        Case {
            file: "negative-weight.speedscope.json",
            bytes: br#"{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"sampled","name":"p","unit":"none","startValue":0,"endValue":2,"samples":[[0],[0]],"weights":[1,-3]}]}"#.to_vec(),
            says: &["$.profiles[0].weights[1]", "weight is not a non-negative number"],
        },
        Case {
            file: "truncated.trace.json",
            bytes: chrome_trace[..chrome_trace.len() / 2].to_vec(),
            says: &["line ", "EOF"],
        },
        Case {
            file: "sample-nowhere.trace.json",
            bytes: br#"{"traceEvents":[{"name":"Profile","ph":"P","pid":1,"tid":1,"id":"0x1","args":{"data":{"startTime":0}}},{"name":"ProfileChunk","ph":"P","pid":1,"tid":2,"id":"0x1","args":{"data":{"cpuProfile":{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"}}],"samples":[1,77]},"timeDeltas":[1,1]}}}]}"#.to_vec(),
            says: &["$.traceEvents[1].args.data.cpuProfile.samples[1]", "node id 77"],
        },
        Case {
            file: "counts.folded",
            bytes: b"a;b 18446744073709551615\na;b 18446744073709551615\na;c NaN\na;c -5\na;c lots\na;d 1e400\n".to_vec(),
            says: &["line 3:", "NaN", "line 4:", "-5"],
        },
        Case {
            file: "markup.folded",
            bytes: markup.into_bytes(),
            says: &[],
        },
        Case {
            file: "bad-utf8.folded",
            bytes: bad_utf8,
            says: &[],
        },
        Case {
            file: "deep.folded",
            bytes: deep_stack(100_000),
            says: &[],
        },
        // Past the documented limits: refused with the limit named, before
        // memory runs out (2,000,000 distinct frames took 4.2 GB before).
        Case {
            file: "too-many-frames.folded",
            bytes: distinct_frames(10_001, 100),
            says: &["more than 1,000,000 distinct frames, the limit for one file"],
        },
        // Deeper than the depth limit: cut there, with a warning.
        Case {
            file: "too-deep.folded",
            bytes: format!("{} 1\n", vec!["r"; 1_000_001].join(";")).into_bytes(),
            says: &["stacks deeper than 100,000 frames, the limit, were cut there"],
        },
    ]
}

/// The fixture: version `1.0` with every case, version `1.1` with the good
/// file, a file named with markup, and a symbolic link loop.
fn hostile_input(dir: &Path) -> PathBuf {
    let input = dir.join("in");
    let v1 = input.join("1.0");
    fs::create_dir_all(&v1).unwrap();
    for case in cases() {
        fs::write(v1.join(case.file), &case.bytes).unwrap();
    }
    let v2 = input.join("1.1");
    fs::create_dir_all(&v2).unwrap();
    fs::write(v2.join("good.folded"), b"main;work 12\nmain 2\n").unwrap();
    fs::write(
        v2.join(format!("{}.folded", "<img src=x onerror=alert(3)>")),
        b"a;b 1\n",
    )
    .unwrap();
    std::os::unix::fs::symlink("..", v2.join("loop")).unwrap();
    // A file name that is not UTF-8 (Linux allows any bytes but `/`).
    let name =
        <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(b"bad-\xff\xfe.folded");
    fs::write(v2.join(name), b"main;x 2\n").unwrap();
    input
}

fn skipped_lines(stderr: &str, file: &str) -> Vec<String> {
    let prefix = format!("perfatlas: skipped: {file}: ");
    stderr
        .lines()
        .filter(|l| l.starts_with(&prefix))
        .map(str::to_string)
        .collect()
}

#[test]
fn every_hostile_file_is_reported_and_the_rest_is_built() {
    let dir = tempfile::tempdir().unwrap();
    let input = hostile_input(dir.path());
    let before = read_tree(&input);
    let out = dir.path().join("site");
    let o = build(&input, &out, &[]);
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(1), "built, with problems:\n{stderr}");
    assert!(
        !stderr.contains("panicked") && !stderr.contains("internal error"),
        "{stderr}"
    );

    let index = fs::read_to_string(out.join("index.html")).unwrap();
    for case in cases() {
        let file = format!("1.0/{}", case.file);
        let lines = skipped_lines(&stderr, &file);
        if case.says.is_empty() {
            assert!(lines.is_empty(), "{file} must be read cleanly: {lines:?}");
            continue;
        }
        assert!(!lines.is_empty(), "{file} is not reported:\n{stderr}");
        let all = lines.join("\n");
        for expected in case.says {
            assert!(
                all.contains(expected),
                "{file}: expected {expected:?} in\n{all}"
            );
        }
        assert!(
            index.contains(&format!("<code>{file}</code>")),
            "{file} is not listed on the index"
        );
    }
    let looped = skipped_lines(&stderr, "1.1/loop");
    assert!(
        looped.len() == 1 && looped[0].contains("symbolic link loop"),
        "{stderr}"
    );

    // The file named with invalid UTF-8 is read; its benchmark is shown
    // with U+FFFD.
    assert!(
        index.contains("bad-\u{FFFD}\u{FFFD}"),
        "the non-UTF-8 file name is listed"
    );
    assert!(
        !stderr.contains("bad-\u{FFFD}"),
        "and not skipped:\n{stderr}"
    );
    // Nothing lost: the readable files have pages, including the partly
    // bad one and the ones named with markup and invalid UTF-8.
    let tree = read_tree(&out);
    for bench in ["good", "counts", "markup", "bad-utf8", "deep"] {
        assert!(
            tree.keys()
                .any(|k| k.starts_with(&format!("profiles/{bench}/1.0/"))),
            "no profile page for {bench}"
        );
    }
    // u64::MAX twice is summed without wrapping: the counts profile's total
    // is 2^65 samples to the 15 digits an f64 holds, not a wrapped number.
    let counts = String::from_utf8_lossy(&tree["profiles/counts/1.0/r1.html"]);
    assert!(
        counts.contains(">36,893,488,147,419,100,000 samples<"),
        "{}",
        first_match(&counts, "total")
    );
    // The 100,000-deep stack: pages stay bounded and the matrix says why.
    let html_pages = tree.keys().filter(|k| k.ends_with(".html")).count();
    assert!(html_pages < 5_000, "{html_pages} pages");
    let deep = String::from_utf8_lossy(&tree["matrix/b/deep/index.html"]);
    assert!(deep.contains("id=\"pa-capped\""));

    assert_names_are_inert(&tree);
    assert_eq!(read_tree(&input), before, "the input directory changed");
}

/// Whether `needle` occurs between a `<` and its `>` (in a tag, where it
/// would be an attribute), not in text or script data.
fn inside_a_tag(text: &str, needle: &str) -> bool {
    text.match_indices(needle).any(|(at, _)| {
        let before = &text[..at];
        before.rfind('<') > before.rfind('>')
    })
}

fn first_match<'a>(text: &'a str, what: &str) -> &'a str {
    let at = text.find(what).unwrap_or(0);
    &text[at..(at + 300).min(text.len())]
}

/// No page, SVG or script data carries a hostile name as live markup or an
/// invisible control character; the names are there as visible text.
fn assert_names_are_inert(tree: &std::collections::BTreeMap<String, Vec<u8>>) {
    let mut seen_bidi = false;
    let mut seen_script_text = false;
    for (path, bytes) in tree {
        let text = String::from_utf8_lossy(bytes);
        for raw in [SCRIPT_NAME, "<script>document.title", "<img src=x"] {
            assert!(!text.contains(raw), "{path} contains raw {raw:?}");
        }
        // Quotes are harmless in text; inside a tag they would end an
        // attribute value and start an `onmouseover` handler.
        assert!(
            !inside_a_tag(&text, "onmouseover=\"alert"),
            "{path}: a name broke out of an attribute"
        );
        for c in ['\u{202E}', '\u{1b}', '\u{0}'] {
            assert!(!text.contains(c), "{path} contains U+{:04X}", c as u32);
        }
        seen_bidi |= text.contains("evil[U+202E]gnp.exe");
        seen_script_text |= text.contains("&lt;/script&gt;&lt;script&gt;document.title");
    }
    assert!(seen_bidi, "the override is shown as [U+202E]");
    assert!(seen_script_text, "the markup name is shown as text");
    let markup_page = String::from_utf8_lossy(&tree["profiles/markup/1.0/r1.html"]);
    assert!(
        markup_page.contains("esc␛[31mred"),
        "the escape is shown as ␛"
    );
    assert!(markup_page.contains("nul␀byte"));
    // Class names on the allocation page: text in the list and the tree.
    let alloc = String::from_utf8_lossy(&tree["alloc/markup-alloc/1.0.html"]);
    assert!(alloc.contains("evil[U+202E]gnp.exe"));
    assert!(alloc.contains("esc␛[31mred"));
    assert!(alloc.contains("<span class=\"al-name\">&lt;/script&gt;&lt;script&gt;document.title"));
    let utf8_page = String::from_utf8_lossy(&tree["profiles/bad-utf8/1.0/r1.html"]);
    assert!(
        utf8_page.contains("caf\u{FFFD}"),
        "invalid UTF-8 becomes U+FFFD"
    );
}

#[test]
fn strict_refuses_and_keeps_the_previous_site() {
    let dir = tempfile::tempdir().unwrap();
    let input = hostile_input(dir.path());
    let out = dir.path().join("site");
    let first = build(&input, &out, &[]);
    assert_eq!(first.status.code(), Some(1));
    let site = read_tree(&out);
    let o = build(&input, &out, &["--strict"]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--strict"), "{stderr}");
    assert!(
        !stderr.contains("panicked") && !stderr.contains("internal error"),
        "{stderr}"
    );
    assert_eq!(read_tree(&out), site, "the previous site is untouched");
}

#[test]
fn outputs_inside_or_around_the_input_are_refused_even_with_force() {
    let dir = tempfile::tempdir().unwrap();
    let input = hostile_input(dir.path());
    let before = read_tree(&input);
    let inside = input.join("site");
    let zip = input.join("1.0/report.zip");
    let attempts: [(&Path, Vec<&str>, &str); 4] = [
        (&inside, vec![], "is inside the input directory"),
        (&input, vec!["--force"], "is the input directory"),
        (dir.path(), vec!["--force"], "contains the input directory"),
        (
            &dir.path().join("elsewhere"),
            vec!["--zip", zip.to_str().unwrap()],
            "is inside the input directory",
        ),
    ];
    for (out, extra, says) in attempts {
        let o = build(&input, out, &extra);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{}: {stderr}", out.display());
        assert!(stderr.contains(says), "{stderr}");
    }
    assert_eq!(read_tree(&input), before, "the input directory changed");
    assert!(!dir.path().join("elsewhere").exists());

    // A --zip path holding someone's file is refused before any work, and
    // replaced only with --force; perfatlas's own zip is replaced freely.
    let notes = dir.path().join("notes.txt");
    fs::write(&notes, "keep me").unwrap();
    let site = dir.path().join("site");
    let o = build(&input, &site, &["--zip", notes.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("use --force"));
    assert_eq!(fs::read_to_string(&notes).unwrap(), "keep me");
    assert!(!site.exists(), "refused before building");
    let zip = dir.path().join("report.zip");
    for _ in 0..2 {
        let o = build(&input, &site, &["--zip", zip.to_str().unwrap()]);
        assert_eq!(
            o.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

#[test]
fn source_pages_show_hostile_source_text_inert() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    fs::create_dir_all(input.join("1.0")).unwrap();
    fs::write(
        input.join("1.0/b.folded"),
        "main (app.py:1);evil (app.py:2) 5\n",
    )
    .unwrap();
    let sources = dir.path().join("src");
    fs::create_dir_all(&sources).unwrap();
    // A "Trojan Source" line: the override would reorder what follows.
    fs::write(
        sources.join("app.py"),
        "def main():\n    x = \"</script><script>alert(1)</script><img src=x onerror=alert(2)>\"\n\tif ok:\u{202E} } \u{2066}// x\u{1b}[31m\n",
    )
    .unwrap();
    let out = dir.path().join("site");
    let o = build(&input, &out, &["--sources", sources.to_str().unwrap()]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let page = fs::read_to_string(out.join("source/1.0/app.py.html")).unwrap();
    assert!(!page.contains("<img src=x") && !page.contains("<script>alert"));
    assert!(page.contains("&lt;img src=x onerror=alert(2)&gt;"));
    for c in ['\u{202E}', '\u{2066}', '\u{1b}'] {
        assert!(!page.contains(c), "U+{:04X} reached the page", c as u32);
    }
    assert!(
        page.contains("    if ok:[U+202E] } [U+2066]// x␛[31m"),
        "tab as spaces, the rest as marks"
    );
}

/// A 50 MB function name (issue 42: it made a 1 GB site) is shown
/// shortened, its tooltip cut too, and told apart from a name that differs
/// only past the cut by a hash: the site stays far smaller than its input.
#[test]
fn a_50_mb_function_name_makes_no_page_larger_than_its_profile() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("input");
    let long = "f".repeat(50 << 20);
    for version in ["1.0", "1.1"] {
        fs::create_dir_all(input.join(version)).unwrap();
        fs::write(
            input.join(version).join("cpu.folded"),
            format!("main;{long}a;leaf 10\nmain;{long}b 4\nmain;other 5\n"),
        )
        .unwrap();
    }
    let site = dir.path().join("site");
    let out = build(&input, &site, &[]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let tree = read_tree(&site);
    let total: usize = tree.values().map(Vec::len).sum();
    let largest = tree.iter().max_by_key(|(_, b)| b.len()).unwrap();
    assert!(total < 2 << 20, "the site is {total} bytes");
    assert!(
        largest.1.len() < 256 << 10,
        "{} is {} bytes",
        largest.0,
        largest.1.len()
    );
    // The two long names stay two functions, each with its size and hash.
    let page = String::from_utf8_lossy(&tree["profiles/cpu/1.1/r1.html"]).into_owned();
    let marks: std::collections::BTreeSet<&str> = page
        .match_indices("… [52428801 bytes, #")
        .map(|(i, _)| &page[i..i + page[i..].find(']').unwrap()])
        .collect();
    assert_eq!(marks.len(), 2, "{marks:?}");
}

/// An uploaded history must not read the system (issue 42): with
/// `--no-follow-links` a version folder linked to `/etc` and a file
/// linked to `/etc/passwd` are skipped, saying why; links inside the
/// input still work. Links that point at each other are called a loop.
#[test]
fn no_follow_links_keeps_an_upload_from_reading_the_system() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("input");
    let sample = sample_data().join("3.2.2/convert-basic.1.folded");
    for v in ["1.0", "2.0"] {
        fs::create_dir_all(input.join(v)).unwrap();
        fs::copy(&sample, input.join(v).join("cpu.folded")).unwrap();
    }
    symlink("/etc", input.join("etc")).unwrap();
    symlink("/etc/passwd", input.join("2.0/passwd.folded")).unwrap();
    symlink("../1.0/cpu.folded", input.join("2.0/inside.folded")).unwrap();
    symlink("b", input.join("1.0/a")).unwrap();
    symlink("a", input.join("1.0/b")).unwrap();
    let site = dir.path().join("site");
    let out = build(&input, &site, &["--no-follow-links"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let refused = "a symbolic link out of the input directory; not followed (--no-follow-links)";
    assert!(
        stderr.contains(&format!("skipped: etc: {refused}")),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("skipped: 2.0/passwd.folded: {refused}")),
        "{stderr}"
    );
    assert!(
        stderr.contains("1.0/a: a symbolic link loop (the links point at each other)"),
        "{stderr}"
    );
    assert!(!stderr.contains("dangling"), "{stderr}");
    let tree = read_tree(&site);
    assert!(!tree.keys().any(|k| k.contains("etc")), "no page of /etc");
    assert!(
        tree.keys().any(|k| k.contains("inside")),
        "a link inside the input is read"
    );
    let all: String = tree.values().map(|b| String::from_utf8_lossy(b)).collect();
    assert!(!all.contains("root:x:0:0"), "nothing of /etc/passwd");
}
