//! The identity rules on paths real profilers wrote.

use super::*;

fn rules(versions: &[&str]) -> PathRules {
    PathRules::new(versions.iter().copied(), &[])
}

fn stable(r: &PathRules, path: &str) -> String {
    r.stable_file(path).0.into_owned()
}

#[test]
fn py_spy_virtualenvs_keep_the_package_path() {
    // sample-data/python-markdown, py-spy 0.4.3 speedscope output.
    let r = rules(&["3.5.2", "3.6"]);
    let (s, n) =
        r.stable_file("/tmp/pa-venv/markdown-3.6/lib/python3.11/site-packages/markdown/core.py");
    assert_eq!(s, "markdown/core.py");
    assert_eq!(n.unwrap().rule, Rule::InstalledPackage);
    // The harness outside the virtualenvs is left alone.
    assert_eq!(stable(&r, "/tmp/pa-venv/bench.py"), "/tmp/pa-venv/bench.py");
    // The interpreter's own library names Python's version, not ours.
    assert_eq!(
        stable(
            &r,
            "/root/.pyenv/versions/3.11.7/lib/python3.11/html/parser.py"
        ),
        "/root/.pyenv/versions/3.11.7/lib/python3.11/html/parser.py"
    );
}

#[test]
fn node_harness_installed_beside_each_release() {
    // `node --cpu-prof` urls of a harness copied into each install dir.
    let r = rules(&["2.29.3", "2.29.4"]);
    let (s, n) = r.stable_file("file:///tmp/pa-js/install/2.29.4/bench.mjs");
    assert_eq!(s, "bench.mjs");
    let n = n.unwrap();
    assert_eq!(n.rule, Rule::VersionDirectory);
    assert_eq!(n.removed, "/tmp/pa-js/install/2.29.4/");
    assert_eq!(
        stable(
            &r,
            "file:///tmp/pa-js/install/2.29.3/node_modules/moment/moment.js"
        ),
        "moment/moment.js"
    );
    // Node's own modules have no directory to strip.
    assert_eq!(
        stable(&r, "node:internal/modules/cjs/loader"),
        "node:internal/modules/cjs/loader"
    );
}

#[test]
fn version_suffixes_and_go_module_cache() {
    let r = rules(&["1.4.0", "1.5.0", "main"]);
    // Go's module cache (`go tool pprof` file names).
    assert_eq!(
        stable(&r, "/root/go/pkg/mod/github.com/acme/parser@v1.5.0/lex.go"),
        "lex.go"
    );
    assert_eq!(stable(&r, "/opt/app-1.4.0/lib/app/x.py"), "lib/app/x.py");
    assert_eq!(stable(&r, "/srv/builds/v1.4.0/src/main.rs"), "src/main.rs");
    // A word version only as a whole segment.
    assert_eq!(stable(&r, "/w/main/src/lib.rs"), "src/lib.rs");
    assert_eq!(stable(&r, "/w/domain/src/lib.rs"), "/w/domain/src/lib.rs");
    // 1.4.0 is not a suffix of 11.4.0.
    assert_eq!(stable(&r, "/opt/app-11.4.0/x.py"), "/opt/app-11.4.0/x.py");
    // The longest version wins: 1.10 is not 1.1 + "0".
    let r = rules(&["1.1", "1.10"]);
    assert_eq!(stable(&r, "/i/1.10/a.js"), "a.js");
}

#[test]
fn temporary_directories() {
    let r = rules(&["a"]);
    assert_eq!(stable(&r, "/tmp/tmpa8f3k2x_/pkg/mod.py"), "pkg/mod.py");
    assert_eq!(
        stable(&r, "/tmp/pytest-of-root/pytest-12/test_x0/m.py"),
        "test_x0/m.py"
    );
    assert_eq!(stable(&r, "/tmp/tmp/x.py"), "/tmp/tmp/x.py");
}

#[test]
fn configured_rewrites_with_a_version_placeholder() {
    let r = PathRules::new(
        ["r10", "r11"],
        &[(
            "/builds/{version}/checkout/".to_string(),
            "src/".to_string(),
        )],
    );
    let (s, n) = r.stable_file("/builds/r11/checkout/core/a.c");
    assert_eq!(s, "src/core/a.c");
    assert_eq!(
        n.unwrap(),
        Normalised {
            rule: Rule::Configured,
            removed: "/builds/r11/checkout/".into()
        }
    );
    // A path the rewrite does not match falls through to the other rules.
    assert_eq!(stable(&r, "/x/r10/a.c"), "a.c");
}

mod same_names {
    use super::*;
    use crate::{Metric, Profile, ProfileEntry, Unit, Version};

    fn frame(name: &str, file: &str, start: u32) -> Frame {
        Frame {
            function: name.into(),
            file: Some(file.into()),
            line: Some(start),
            start_line: Some(start),
            ..Frame::default()
        }
    }

    fn add(h: &mut History, version: usize, frames: &[Frame]) {
        let mut p = Profile::new(vec![Metric::new("cpu", Unit::Nanoseconds)]);
        for f in frames {
            let id = h.frames.intern(f.clone());
            p.tree.add_stack([id], &[1.0]);
        }
        h.profiles.push(ProfileEntry {
            version,
            benchmark: "b".into(),
            repetition: 1,
            source: format!("{version}/b"),
            format: "test",
            profile: p,
        });
    }

    #[test]
    fn two_lists_of_one_bundle_stay_apart_and_match_across_versions() {
        let mut h = History::default();
        for v in ["4.0.0", "4.1.0"] {
            h.versions.push(Version {
                name: v.into(),
                label: v.into(),
                ..Version::default()
            });
        }
        let bundle = |v: &str| format!("/i/{v}/node_modules/marked/lib/marked.cjs");
        add(
            &mut h,
            0,
            &[
                frame("list", &bundle("4.0.0"), 459),
                frame("list", &bundle("4.0.0"), 1959),
                frame("lex", &bundle("4.0.0"), 90),
            ],
        );
        add(
            &mut h,
            1,
            &[
                frame("list", &bundle("4.1.0"), 470),
                frame("list", &bundle("4.1.0"), 2001),
                frame("lex", &bundle("4.1.0"), 97),
            ],
        );
        let ids = FunctionIds::new(&h, &PathRules::of_history(&h, &[]));
        let name = |i: u32| ids.get(FrameId(i)).unwrap().function.clone();
        let file = |i: u32| ids.get(FrameId(i)).unwrap().file.clone().unwrap();
        assert_eq!([name(0), name(1), name(2)], ["list#1", "list#2", "lex"]);
        assert_eq!([name(3), name(4), name(5)], ["list#1", "list#2", "lex"]);
        assert_eq!(file(0), "marked/lib/marked.cjs");
        assert_eq!(
            ids.get(FrameId(2)),
            ids.get(FrameId(5)),
            "lex: one function whatever its line"
        );
        assert_eq!(
            ids.notes.split,
            [("list".to_string(), "marked/lib/marked.cjs".to_string(), 2)]
        );
    }

    #[test]
    fn a_function_that_moved_is_not_split() {
        let mut h = History::default();
        add(&mut h, 0, &[frame("lex", "/a/Lexer.js", 90)]);
        add(&mut h, 1, &[frame("lex", "/a/Lexer.js", 97)]);
        let ids = FunctionIds::new(&h, &PathRules::default());
        assert_eq!(ids.get(FrameId(0)).unwrap().function, "lex");
        assert_eq!(ids.get(FrameId(0)), ids.get(FrameId(1)));
        assert!(ids.notes.split.is_empty());
    }
}

mod moves {
    use super::*;
    use crate::{Metric, Profile, ProfileEntry, Unit, Version};

    fn at(name: &str, file: &str, start: u32) -> Frame {
        Frame {
            function: name.into(),
            file: Some(file.into()),
            line: Some(start),
            start_line: Some(start),
            ..Frame::default()
        }
    }

    /// A version whose profile samples each stack (outermost first).
    fn version(h: &mut History, v: usize, stacks: &[&[Frame]]) -> Vec<Vec<FrameId>> {
        h.versions.push(Version {
            name: format!("1.{v}.0"),
            label: format!("1.{v}.0"),
            ..Version::default()
        });
        let mut p = Profile::new(vec![Metric::new("cpu", Unit::Nanoseconds)]);
        let mut ids = Vec::new();
        for stack in stacks {
            let s: Vec<FrameId> = stack.iter().map(|f| h.frames.intern(f.clone())).collect();
            p.tree.add_stack(s.iter().copied(), &[1.0]);
            ids.push(s);
        }
        h.profiles.push(ProfileEntry {
            version: v,
            benchmark: "b".into(),
            repetition: 1,
            source: format!("{v}/b"),
            format: "test",
            profile: p,
        });
        ids
    }

    fn ids(h: &History) -> FunctionIds {
        FunctionIds::new(h, &PathRules::of_history(h, &[]))
    }

    #[test]
    fn functions_that_move_into_a_bundle_keep_their_identity() {
        let mut h = History::default();
        let main = at("main", "bench.mjs", 1);
        let before = version(
            &mut h,
            0,
            &[
                &[main.clone(), at("parse", "/w/src/parse.js", 3)],
                &[
                    main.clone(),
                    at("parse", "/w/src/parse.js", 3),
                    at("tokenize", "/w/src/tokenize.js", 9),
                ],
            ],
        );
        let after = version(
            &mut h,
            1,
            &[
                &[main.clone(), at("parse", "/w/lib/kit.esm.js", 40)],
                &[
                    main.clone(),
                    at("parse", "/w/lib/kit.esm.js", 40),
                    at("tokenize", "/w/lib/kit.esm.js", 12),
                ],
            ],
        );
        let ids = ids(&h);
        let id = |f: FrameId| ids.get(f).unwrap().clone();
        assert_eq!(id(after[1][1]), id(before[1][1]), "parse");
        assert_eq!(id(after[1][2]), id(before[1][2]), "tokenize");
        assert_eq!(id(after[1][2]).file.as_deref(), Some("/w/src/tokenize.js"));
        assert_eq!(ids.notes.moved.len(), 2, "{:?}", ids.notes.moved);
        let note = ids.notes.moved[0].note(&h).text;
        assert!(
            note.starts_with("from 1.1.0 on, 1 function (parse) sampled in `/w/lib/kit.esm.js` is matched by name to `/w/src/parse.js`"),
            "{note}"
        );
    }

    #[test]
    fn same_named_functions_of_a_bundle_are_told_apart_by_their_callers() {
        // Tokenizer's and Renderer's `list`, each in its own file, then
        // both in one bundle (numbered by start line there).
        let mut h = History::default();
        let before = version(
            &mut h,
            0,
            &[
                &[
                    at("lex", "/s/lexer.js", 1),
                    at("list", "/s/tokenizer.js", 5),
                    at("item", "/s/tokenizer.js", 20),
                ],
                &[
                    at("render", "/s/render.js", 1),
                    at("list", "/s/renderer.js", 8),
                    at("cell", "/s/renderer.js", 30),
                ],
            ],
        );
        let after = version(
            &mut h,
            1,
            &[
                &[
                    at("lex", "/b/all.js", 1),
                    at("list", "/b/all.js", 500),
                    at("item", "/b/all.js", 520),
                ],
                &[
                    at("render", "/b/all.js", 900),
                    at("list", "/b/all.js", 1200),
                    at("cell", "/b/all.js", 1230),
                ],
            ],
        );
        let ids = ids(&h);
        let id = |f: FrameId| ids.get(f).unwrap().clone();
        assert_eq!(id(after[0][1]), id(before[0][1]), "the tokenizer's list");
        assert_eq!(id(after[1][1]), id(before[1][1]), "the renderer's list");
        assert_ne!(id(after[0][1]), id(after[1][1]));
        assert!(
            ids.notes.moved.iter().any(|m| m.by_callers),
            "{:?}",
            ids.notes.moved
        );
    }

    #[test]
    fn one_common_name_or_a_generic_one_is_no_move() {
        let mut h = History::default();
        let before = version(
            &mut h,
            0,
            &[&[
                at("<module>", "/p/a.py", 1),
                at("main", "/p/a.py", 3),
                at("helper", "/p/a.py", 9),
            ]],
        );
        let after = version(
            &mut h,
            1,
            &[&[at("<module>", "/p/b.py", 1), at("main", "/p/b.py", 3)]],
        );
        let ids = ids(&h);
        let id = |f: FrameId| ids.get(f).unwrap().clone();
        assert_ne!(id(after[0][1]), id(before[0][1]));
        assert_ne!(id(after[0][0]), id(before[0][0]));
        assert!(ids.notes.moved.is_empty(), "{:?}", ids.notes.moved);
    }
}
