use super::*;
use model::{Frame, FrameTable, Metric, ProfileEntry, Version};

#[test]
fn a_recursive_line_counts_its_samples_once() {
    let mut frames = FrameTable::new();
    let at = |frames: &mut FrameTable, line| {
        frames.intern(Frame {
            function: "f".into(),
            file: Some("a.py".into()),
            line: Some(line),
            ..Frame::default()
        })
    };
    let (l1, l2) = (at(&mut frames, 1), at(&mut frames, 2));
    let mut profile = Profile::new(vec![Metric::new("samples", Unit::Samples)]);
    profile.tree = CallTree::new(1);
    profile.tree.add_stack([l1, l1, l2], &[3.0]);
    profile.tree.add_stack([l1], &[1.0]);
    let mut totals = FxHashMap::default();
    add_frame_totals(&profile.tree, 0, 0.5, &mut totals);
    let mut selfs = SelfCosts::default();
    add_self_costs(&profile, 0, 0.5, &mut selfs);
    assert_eq!((totals[&l1], selfs.own[&l1]), (2.0, 0.5));
    assert_eq!((totals[&l2], selfs.own[&l2]), (1.5, 1.5));
    assert!(selfs.on_lines.is_empty());
}

/// One version of benchmark `b` with one profile of `cpu` and `samples`:
/// `main` (a.js:1) calls `f` (a.js:10), which has self values
/// `f_self` and the line table `lines` (line, cpu, samples).
fn history(f_self: [f64; 2], lines: &[(u32, f64, f64)]) -> (History, FrameId, FrameId) {
    let mut h = History {
        versions: vec![Version::default()],
        ..History::default()
    };
    let at = |name: &str, line| Frame {
        function: name.into(),
        file: Some("a.js".into()),
        line: Some(line),
        start_line: Some(line),
        ..Frame::default()
    };
    let main = h.frames.intern(at("main", 1));
    let f = h.frames.intern(at("f", 10));
    let mut profile = Profile::new(vec![
        Metric::new("cpu", Unit::Nanoseconds),
        Metric::new("samples", Unit::Samples),
    ]);
    profile.tree = CallTree::new(2);
    profile.tree.add_stack([main], &[100.0, 1.0]);
    let node = profile.tree.add_stack([main, f], &f_self);
    let entries = lines.iter().map(|&(l, cpu, s)| (node, l, [cpu, s]));
    profile.line_self = Some(LineSelf::from_entries(2, entries));
    h.profiles.push(ProfileEntry {
        version: 0,
        benchmark: "b".into(),
        repetition: 1,
        source: "0/b.cpuprofile".into(),
        format: "cpuprofile",
        profile,
    });
    (h, main, f)
}

fn self_on(costs: &VersionCosts, line: u32) -> f64 {
    costs.files["a.js"]
        .get(&line)
        .map_or(0.0, |c| c[0].self_value)
}

#[test]
fn self_goes_to_the_table_lines_and_total_stays_on_the_function_line() {
    // 900 ns of f's own cpu: 600 on line 12, 200 on 15, and 100 the table
    // does not place (samples V8 counted after its ticks).
    let (h, main, f) = history([900.0, 9.0], &[(12, 600.0, 6.0), (15, 200.0, 2.0)]);
    let costs = version_costs(&h, 0);
    assert_eq!(costs.benchmarks[0].1, "cpu");
    assert_eq!(self_on(&costs, 12), 600.0);
    assert_eq!(self_on(&costs, 15), 200.0);
    assert_eq!(self_on(&costs, 10), 100.0, "the rest stays on f's line");
    assert_eq!(costs.files["a.js"][&10][0].total, 900.0);
    // No total is known on line 12 but its self.
    assert_eq!(costs.files["a.js"][&12][0].total, 600.0);
    assert_eq!(self_on(&costs, 1), 100.0);
    let hottest = hottest_lines(&h, 0);
    assert_eq!(hottest.get(f), Some(12));
    assert_eq!(hottest.get(main), None, "main has no line self values");
}

#[test]
fn a_table_holding_more_than_the_self_value_is_scaled_down() {
    let (h, _, f) = history([300.0, 3.0], &[(12, 400.0, 4.0), (15, 200.0, 2.0)]);
    let costs = version_costs(&h, 0);
    assert_eq!(self_on(&costs, 12), 200.0);
    assert_eq!(self_on(&costs, 15), 100.0);
    assert_eq!(self_on(&costs, 10), 0.0);
    assert_eq!(hottest_lines(&h, 0).get(f), Some(12));
}

#[test]
fn the_function_line_is_the_hottest_when_it_holds_the_most() {
    let (h, _, f) = history([900.0, 9.0], &[(12, 300.0, 3.0), (15, 100.0, 1.0)]);
    assert_eq!(hottest_lines(&h, 0).get(f), Some(10));
}

#[test]
fn a_metric_the_table_has_no_values_for_keeps_self_on_the_function_line() {
    let (mut h, _, _) = history([900.0, 9.0], &[(12, 600.0, 6.0)]);
    // A derived metric appended after parsing: the table has two metrics.
    let profile = &mut h.profiles[0].profile;
    profile.tree = profile
        .tree
        .remetric(3, &[(0, 0, 1.0), (1, 1, 1.0), (0, 2, 2.0)]);
    let mut selfs = SelfCosts::default();
    add_self_costs(profile, 2, 1.0, &mut selfs);
    assert!(selfs.on_lines.is_empty());
    let f_own: f64 = selfs.own.values().sum();
    assert_eq!(f_own, 2000.0);
}
