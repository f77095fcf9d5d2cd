use super::*;
use crate::hierarchy::Hierarchy;
use crate::profile_facts::profile_facts;
use crate::scope::Scope;
use input::test_support::history_from_folded;
use model::History;

fn facts(history: &History, h: &Hierarchy) -> Vec<ProfileFacts> {
    history
        .profiles
        .iter()
        .map(|p| profile_facts(&p.profile, h, 0))
        .collect()
}

/// Frames are `name (file:line)` so components are file-based:
/// package `app`, classes `a.py` and `b.py`.
const V1_R1: &str = "main (app/a.py:1);work (app/a.py:5);parse (app/b.py:3) 60\n\
                     main (app/a.py:1);work (app/a.py:5) 20\n\
                     main (app/a.py:1);tiny (app/b.py:9) 1\n\
                     main (app/a.py:1) 19\n";
const V1_R2: &str = "main (app/a.py:1);work (app/a.py:5);parse (app/b.py:3) 40\n\
                     main (app/a.py:1);work (app/a.py:5) 20\n\
                     main (app/a.py:1) 40\n";
const V2_R1: &str = "main (app/a.py:1);work (app/a.py:5);parse (app/b.py:3) 150\n\
                     main (app/a.py:1) 50\n";

struct Fixture {
    history: History,
    hierarchy: Hierarchy,
    facts: Vec<ProfileFacts>,
}

fn fixture() -> Fixture {
    let history = history_from_folded(&[
        ("1.0", "bench", 1, V1_R1),
        ("1.0", "bench", 2, V1_R2),
        ("2.0", "bench", 1, V2_R1),
    ]);
    let hierarchy = Hierarchy::plain(&history.frames, "proj");
    let facts = facts(&history, &hierarchy);
    Fixture {
        history,
        hierarchy,
        facts,
    }
}

fn row<'a>(m: &'a Matrix, h: &Hierarchy, name: &str) -> &'a Row {
    m.rows
        .iter()
        .find(|r| h.get(r.comp).name == name)
        .unwrap_or_else(|| panic!("no row {name}"))
}

#[test]
fn method_time_is_the_mean_over_repetitions_with_min_and_max() {
    let f = fixture();
    let scope = Scope::new(&f.history, "bench", &["bench".to_string()]);
    let m = build(&scope, &f.hierarchy, &f.facts, &[None, None], 2.0);
    let parse = row(&m, &f.hierarchy, "parse");
    let c = parse.cells[0].as_ref().unwrap();
    assert_eq!((c.mean, c.min, c.max, c.reps), (50.0, 40.0, 60.0, 2));
    // 2.0 has 150: Δ = (150 − 50) / 50.
    assert_eq!(parse.cells[1].as_ref().unwrap().delta, Some(2.0));
    assert_eq!(c.delta, None);
    assert_eq!(m.totals, vec![Some(100.0), Some(200.0)]);
}

#[test]
fn a_container_takes_its_most_expensive_method_not_the_sum() {
    let f = fixture();
    let scope = Scope::new(&f.history, "bench", &["bench".to_string()]);
    let m = build(&scope, &f.hierarchy, &f.facts, &[None, None], 0.0);
    // Class a.py holds main (100) and work (70): its time is main's 100,
    // not 170; class b.py holds parse (50) and tiny (0.5).
    let a = row(&m, &f.hierarchy, "a.py");
    assert_eq!(a.cells[0].as_ref().unwrap().mean, 100.0);
    let b = row(&m, &f.hierarchy, "b.py");
    let cell = b.cells[0].as_ref().unwrap();
    assert_eq!(cell.mean, 50.0);
    assert_eq!(f.hierarchy.get(cell.via).name, "parse");
    assert_eq!(m.rows[0].cells[1].as_ref().unwrap().mean, 200.0);
}

#[test]
fn rows_sort_by_largest_move_then_share_and_small_ones_hide_with_a_count() {
    let f = fixture();
    let scope = Scope::new(&f.history, "bench", &["bench".to_string()]);
    let m = build(&scope, &f.hierarchy, &f.facts, &[None, None], 2.0);
    let names: Vec<&str> = m
        .rows
        .iter()
        .map(|r| f.hierarchy.get(r.comp).name.as_str())
        .collect();
    // parse moved from 50% to 75% of the total, work from 70% to 75%,
    // main stayed at 100%: b.py (parse's 25 points) before a.py (work's
    // 5), and in a.py work before main; inside b.py parse before tiny
    // (absent in 2.0, so it did not move).
    assert_eq!(
        names,
        ["proj", "app", "b.py", "parse", "tiny", "a.py", "work", "main"]
    );
    // tiny: 0.5 of 100 = 0.5% < 2%, absent in 2.0.
    let tiny = row(&m, &f.hierarchy, "tiny");
    assert!(!tiny.visible);
    assert!(tiny.cells[1].is_none());
    assert_eq!(m.hidden, 1);
    // The tallest glyph is the project's 200.
    assert_eq!(m.max_time, 200.0);
    let all_shown = build(&scope, &f.hierarchy, &f.facts, &[None, None], 0.0);
    assert_eq!(all_shown.hidden, 0);
}

#[test]
fn modified_methods_count_per_container_and_unknown_stays_unknown() {
    let f = fixture();
    let scope = Scope::new(&f.history, "bench", &["bench".to_string()]);
    let method = |n: &str| {
        f.hierarchy
            .comps
            .iter()
            .position(|c| c.name == n)
            .map(|i| CompId(i as u32))
            .unwrap()
    };
    let changed: BTreeSet<CompId> = [method("parse"), method("work")].into();
    let m = build(&scope, &f.hierarchy, &f.facts, &[None, Some(changed)], 2.0);
    let count = |n: &str, v: usize| row(&m, &f.hierarchy, n).cells[v].as_ref().unwrap().modified;
    assert_eq!(count("parse", 1), Some(1));
    assert_eq!(count("main", 1), Some(0));
    assert_eq!(count("b.py", 1), Some(1));
    assert_eq!(count("app", 1), Some(2));
    assert_eq!(count("proj", 1), Some(2));
    assert_eq!(count("parse", 0), None);
    assert_eq!(m.changes_known, vec![false, true]);
}

#[test]
fn glyph_steps_follow_the_paper() {
    let steps = [5, 10];
    let got: Vec<u8> = [0, 1, 4, 5, 9, 10, 250]
        .iter()
        .map(|&c| modified_step(c, steps))
        .collect();
    assert_eq!(got, [0, 1, 1, 2, 2, 3, 3]);
    assert_eq!(delta_step(0.0), 0);
    assert_eq!(delta_step(1.0), 5); // twice as slow
    assert_eq!(delta_step(-0.5), -5); // twice as fast
    assert_eq!(delta_step(5.0), 5);
    assert_eq!(delta_step(-1.0), -5);
    assert_eq!(delta_step(0.15), 1); // log2(1.15) * 5 = 1.01
    assert_eq!(delta_step(0.05), 0);
}

#[test]
fn a_benchmark_missing_in_a_version_compares_with_the_one_before() {
    let history = history_from_folded(&[
        ("1", "b", 1, "main (m/x.py:1) 10\n"),
        ("2", "other", 1, "main (m/x.py:1) 99\n"),
        ("3", "b", 1, "main (m/x.py:1) 15\n"),
    ]);
    let h = Hierarchy::plain(&history.frames, "p");
    let facts = facts(&history, &h);
    let scope = Scope::new(&history, "b", &["b".to_string()]);
    let m = build(&scope, &h, &facts, &[], 2.0);
    let main = row(&m, &h, "main");
    assert!(main.cells[1].is_none());
    assert_eq!(main.cells[2].as_ref().unwrap().delta, Some(0.5));
}

#[test]
fn the_row_cap_keeps_the_largest_rows_with_their_ancestors() {
    let f = fixture();
    let scope = Scope::new(&f.history, "bench", &["bench".to_string()]);
    let mut m = build(&scope, &f.hierarchy, &f.facts, &[None, None], 0.0);
    let visible_before = m.rows.iter().filter(|r| r.visible).count();
    assert!(visible_before > 5, "{visible_before}");
    cap_visible_rows(&mut m, 5);
    let kept: Vec<&str> = m
        .rows
        .iter()
        .filter(|r| r.visible)
        .map(|r| f.hierarchy.get(r.comp).name.as_str())
        .collect();
    // main (100% in every version) and its ancestors come first.
    assert_eq!(kept.len(), 5, "{kept:?}");
    for r in m.rows.iter().filter(|r| r.visible) {
        if let Some(p) = r.parent {
            assert!(m.rows[p].visible, "a kept row's parent is kept");
        }
    }
    assert!(kept.contains(&"main"), "{kept:?}");
    assert_eq!(m.capped, visible_before - 5);
    assert_eq!(m.hidden, m.rows.len() - 5);
    // Caps at or above the visible count change nothing.
    let mut again = build(&scope, &f.hierarchy, &f.facts, &[None, None], 0.0);
    cap_visible_rows(&mut again, visible_before);
    assert_eq!(again.capped, 0);
    assert_eq!(again.hidden, 0);
}

#[test]
fn the_largest_moves_are_the_methods_whose_share_changed_not_the_entry_point() {
    let f = fixture();
    let scope = Scope::new(&f.history, "bench", &["bench".to_string()]);
    let m = build(&scope, &f.hierarchy, &f.facts, &[None, None], 2.0);
    // main holds all of both versions (no move); parse goes from 50 of 100
    // to 150 of 200, work from 70 of 100 to 150 of 200; tiny did not run
    // in 2.0 (no move to tell).
    let moves: Vec<(String, f64, f64)> = m
        .largest_moves(10, 0.02)
        .iter()
        .map(|x| {
            (
                f.hierarchy.get(m.rows[x.row].comp).name.clone(),
                x.from,
                x.to,
            )
        })
        .collect();
    assert_eq!(
        moves,
        vec![
            ("parse".to_string(), 0.5, 0.75),
            ("work".to_string(), 0.7, 0.75)
        ]
    );
    assert_eq!(m.largest_moves(1, 0.02).len(), 1);
    assert!(m.largest_moves(10, 0.3).is_empty());
}

/// A profile as V8 writes one for a benchmark script driving an installed
/// library: the bench script outside the install, the runtime's own
/// loader, the library's methods, a regular expression one of them ran
/// and the garbage collector, both without a file.
const HARNESSED_V1: &str = "\
(anonymous) (node:internal/main/run_main_module:1);(anonymous) (/w/bench.js:3);lex (/w/1.0/node_modules/lib/Lexer.js:10);tokens (/w/1.0/node_modules/lib/Lexer.js:40);RegExp: ^a+ 30
(anonymous) (node:internal/main/run_main_module:1);(anonymous) (/w/bench.js:3);lex (/w/1.0/node_modules/lib/Lexer.js:10);tokens (/w/1.0/node_modules/lib/Lexer.js:40) 10
(anonymous) (node:internal/main/run_main_module:1);(anonymous) (/w/bench.js:3);lex (/w/1.0/node_modules/lib/Lexer.js:10);list (/w/1.0/node_modules/lib/Tokenizer.js:5) 40
(garbage collector) 20
";
const HARNESSED_V2: &str = "\
(anonymous) (node:internal/main/run_main_module:1);(anonymous) (/w/bench.js:3);lex (/w/2.0/node_modules/lib/Lexer.js:10);tokens (/w/2.0/node_modules/lib/Lexer.js:40);RegExp: ^a+ 30
(anonymous) (node:internal/main/run_main_module:1);(anonymous) (/w/bench.js:3);lex (/w/2.0/node_modules/lib/Lexer.js:10);tokens (/w/2.0/node_modules/lib/Lexer.js:40) 10
(anonymous) (node:internal/main/run_main_module:1);(anonymous) (/w/bench.js:3);lex (/w/2.0/node_modules/lib/Lexer.js:10);list (/w/2.0/node_modules/lib/Tokenizer.js:5) 140
(garbage collector) 20
";

#[test]
fn the_program_comes_before_the_harness_and_engine_frames_count_for_their_caller() {
    let history = history_from_folded(&[
        ("1.0", "bench", 1, HARNESSED_V1),
        ("2.0", "bench", 1, HARNESSED_V2),
    ]);
    let rules = model::PathRules::of_history(&history, &[]);
    let ids = model::FunctionIds::of_frames(&history.frames, &rules);
    let h = Hierarchy::new(&history.frames, &ids, "proj");
    let facts = facts(&history, &h);
    let scope = Scope::new(&history, "bench", &["bench".to_string()]);
    let m = build(&scope, &h, &facts, &[None, None], 0.0);
    let packages: Vec<String> = m
        .rows
        .iter()
        .filter(|r| r.level == Level::Package)
        .map(|r| h.path_name(r.comp))
        .collect();
    // lib (the installed library) first; then the bench script's
    // directory and the runtime (the harness); the garbage collector,
    // which no function of the program ran, last.
    assert_eq!(packages[0], "lib");
    assert_eq!(packages.last().map(String::as_str), Some("(no package)"));
    let origin = |name: &str| h.get(row(&m, &h, name).comp).origin;
    assert_eq!(origin("lib"), crate::origin::Origin::Program);
    assert_eq!(origin("/w"), crate::origin::Origin::Harness);
    assert_eq!(origin("(no package)"), crate::origin::Origin::Engine);
    // The regular expression is tokens's work: tokens holds its 30
    // samples, and it has no row of its own.
    let tokens = row(&m, &h, "tokens");
    assert_eq!(tokens.cells[0].as_ref().map(|c| c.mean), Some(40.0));
    assert!(m
        .rows
        .iter()
        .all(|r| !h.get(r.comp).name.starts_with("RegExp")
            && h.get(r.comp).name != crate::hierarchy::REGEXPS));
    // In lib, Tokenizer.js (list: 40% → 70% of the total) before
    // Lexer.js, though lex, its caller, is larger.
    let classes: Vec<&str> = m
        .rows
        .iter()
        .filter(|r| r.level == Level::Class)
        .map(|r| h.get(r.comp).name.as_str())
        .take(2)
        .collect();
    assert_eq!(classes, ["Tokenizer.js", "Lexer.js"]);
}
