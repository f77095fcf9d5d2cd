use super::*;

/// r1 → r2 → … → r6.
fn linear() -> Dag {
    Dag::from_edges(&[
        ("r1", &[]),
        ("r2", &["r1"]),
        ("r3", &["r2"]),
        ("r4", &["r3"]),
        ("r5", &["r4"]),
        ("r6", &["r5"]),
    ])
    .unwrap()
}

fn at(dag: &Dag, name: &str) -> usize {
    dag.index_of(name).unwrap()
}

fn names(dag: &Dag, indices: &[usize]) -> Vec<String> {
    indices
        .iter()
        .map(|&i| dag.commit(i).unwrap().oid.clone())
        .collect()
}

/// Bisects good → bad with a judge that calls a probe slower when its
/// level is above the good commit's; returns the responsible commit and
/// the probes.
fn run_levels(dag: &Dag, good: &str, bad: &str, level: &[(&str, u32)]) -> (String, Vec<String>) {
    let level: HashMap<String, u32> = level.iter().map(|(n, l)| (n.to_string(), *l)).collect();
    let level_of = |i: usize| level[&dag.commit(i).unwrap().oid];
    let mut judge = |g: usize, p: usize| -> Result<Judgement, ()> {
        Ok(if level_of(p) > level_of(g) {
            Judgement::Slower
        } else {
            Judgement::NotSlower
        })
    };
    let outcome = bisect(dag, at(dag, good), at(dag, bad), &mut judge).unwrap();
    let probes: Vec<usize> = outcome.steps.iter().map(|s| s.probe).collect();
    (
        dag.commit(outcome.responsible).unwrap().oid.clone(),
        names(dag, &probes),
    )
}

fn levels(values: [u32; 6]) -> Vec<(&'static str, u32)> {
    ["r1", "r2", "r3", "r4", "r5", "r6"]
        .into_iter()
        .zip(values)
        .collect()
}

#[test]
fn linear_history_weights_and_probes_follow_the_paper() {
    let dag = linear();
    let (r1, r3, r4, r6) = (
        at(&dag, "r1"),
        at(&dag, "r3"),
        at(&dag, "r4"),
        at(&dag, "r6"),
    );
    assert_eq!(
        names(&dag, &filtered(&dag, r1, r6)),
        ["r2", "r3", "r4", "r5", "r6"]
    );
    // N = 5; ancestors r2..r6 = 0..4; weights min(a+1, 5-(a+1)).
    let w: Vec<usize> = weights(&dag, r1, r6).iter().map(|w| w.weight).collect();
    assert_eq!(w, [1, 2, 2, 1, 0]);
    assert_eq!(
        next_probe(&dag, r1, r6),
        Some(r3),
        "r3 and r4 tie; r3 has fewer ancestors"
    );
    assert_eq!(next_probe(&dag, r3, r6), Some(r4));
    assert_eq!(next_probe(&dag, r4, r6), Some(at(&dag, "r5")));
    assert_eq!(next_probe(&dag, at(&dag, "r5"), r6), None);
}

#[test]
fn a_simple_regression_is_found_in_three_probes() {
    let (responsible, probes) =
        run_levels(&linear(), "r1", "r6", &levels([10, 10, 10, 10, 20, 20]));
    assert_eq!(responsible, "r5");
    assert_eq!(probes, ["r3", "r4", "r5"]);
}

#[test]
fn an_improvement_before_the_regression_is_not_taken_for_it() {
    let (responsible, probes) = run_levels(&linear(), "r1", "r6", &levels([10, 10, 5, 20, 20, 20]));
    assert_eq!(responsible, "r4");
    assert_eq!(probes, ["r3", "r4"]);
}

#[test]
fn a_regression_partly_undone_later_is_still_found() {
    let (responsible, probes) =
        run_levels(&linear(), "r1", "r6", &levels([10, 10, 10, 20, 15, 15]));
    assert_eq!(responsible, "r4");
    assert_eq!(probes, ["r3", "r4"]);
}

#[test]
fn an_oscillation_reports_the_first_slowdown_the_probes_meet() {
    // r3 slower, r4 back to normal, r5 slower again: the first probe r3
    // is slower, so the search stays in (r1, r3) and never sees r5.
    let (responsible, probes) =
        run_levels(&linear(), "r1", "r6", &levels([10, 10, 20, 10, 20, 20]));
    assert_eq!(responsible, "r3");
    assert_eq!(probes, ["r3", "r2"]);
}

/// ```text
/// A ─ B ─ C ─┐
///  \         M ─ F ─ G
///   D ─ E ──┘
/// ```
fn merged() -> Dag {
    Dag::from_edges(&[
        ("A", &[]),
        ("B", &["A"]),
        ("C", &["B"]),
        ("D", &["A"]),
        ("E", &["D"]),
        ("M", &["C", "E"]),
        ("F", &["M"]),
        ("G", &["F"]),
    ])
    .unwrap()
}

#[test]
fn a_regression_on_a_merged_side_branch_is_found() {
    let dag = merged();
    let (a, c, e, g) = (at(&dag, "A"), at(&dag, "C"), at(&dag, "E"), at(&dag, "G"));
    // (A, G): N = 7. Ancestors in the set: B 0, C 1, D 0, E 1,
    // M 4 (B C D E), F 5, G 6. Weights min(a+1, 7-(a+1)):
    // B 1, C 2, D 1, E 2, M 2, F 1, G 0. C, E and M tie at 2; C and E
    // have one ancestor each; C is older (listed first) → C.
    let by_name: HashMap<String, (usize, usize)> = weights(&dag, a, g)
        .iter()
        .map(|w| {
            (
                dag.commit(w.commit).unwrap().oid.clone(),
                (w.ancestors, w.weight),
            )
        })
        .collect();
    let expected = [
        ("B", (0, 1)),
        ("C", (1, 2)),
        ("D", (0, 1)),
        ("E", (1, 2)),
        ("M", (4, 2)),
        ("F", (5, 1)),
        ("G", (6, 0)),
    ];
    assert_eq!(by_name.len(), expected.len());
    for (name, aw) in expected {
        assert_eq!(by_name[name], aw, "{name}");
    }
    assert_eq!(next_probe(&dag, a, g), Some(c));
    // (C, G): the set is D E M F G, N = 5; ancestors D 0, E 1, M 2
    // (D E), F 3, G 4; weights 1 2 2 1 0; E beats M on ancestors → E.
    let w: Vec<usize> = weights(&dag, c, g).iter().map(|w| w.weight).collect();
    assert_eq!(
        names(&dag, &filtered(&dag, c, g)),
        ["D", "E", "M", "F", "G"]
    );
    assert_eq!(w, [1, 2, 2, 1, 0]);
    assert_eq!(next_probe(&dag, c, g), Some(e));
    // (C, E): D E, N = 2; D weighs min(1, 1) = 1 → D.
    assert_eq!(next_probe(&dag, c, e), Some(at(&dag, "D")));

    let slow = [
        ("A", 1),
        ("B", 1),
        ("C", 1),
        ("D", 4),
        ("E", 4),
        ("M", 4),
        ("F", 4),
        ("G", 4),
    ];
    let (responsible, probes) = run_levels(&dag, "A", "G", &slow);
    assert_eq!(responsible, "D");
    assert_eq!(probes, ["C", "E", "D"]);
}

#[test]
fn commits_come_in_topological_order_and_bad_graphs_are_errors() {
    // Listed child-first: the graph still puts parents first.
    let dag = Dag::from_edges(&[("y", &["x"]), ("x", &[])]).unwrap();
    assert_eq!(names(&dag, &[0, 1]), ["x", "y"]);
    assert!(Dag::from_edges(&[("a", &["b"]), ("b", &["a"])]).is_err());
    assert!(Dag::from_edges(&[("a", &["nope"])]).is_err());
    assert!(Dag::from_edges(&[("a", &[]), ("a", &[])]).is_err());
}

#[test]
fn out_of_range_and_degenerate_pairs_have_no_probe() {
    let dag = linear();
    assert!(filtered(&dag, 0, 99).is_empty());
    assert_eq!(next_probe(&dag, 99, 0), None);
    assert_eq!(next_probe(&dag, 3, 3), None, "good == bad");
    assert_eq!(next_probe(&dag, 5, 0), None, "bad is an ancestor of good");
}

#[test]
fn weights_on_a_wide_graph_match_a_plain_ancestor_count() {
    // Many branches merged one by one: the bitsets (over 64 commits, so
    // several words) against a direct count.
    let mut edges: Vec<(String, Vec<String>)> = vec![("root".into(), vec![])];
    let mut tip = "root".to_string();
    for i in 0..40 {
        let side = format!("s{i}");
        let merge = format!("m{i}");
        edges.push((side.clone(), vec!["root".into()]));
        edges.push((merge.clone(), vec![tip.clone(), side.clone()]));
        tip = merge;
    }
    let parent_refs: Vec<Vec<&str>> = edges
        .iter()
        .map(|(_, ps)| ps.iter().map(String::as_str).collect())
        .collect();
    let nodes: Vec<(&str, &[&str])> = edges
        .iter()
        .zip(&parent_refs)
        .map(|((n, _), ps)| (n.as_str(), ps.as_slice()))
        .collect();
    let dag = Dag::from_edges(&nodes).unwrap();
    let (good, bad) = (at(&dag, "root"), at(&dag, &tip));
    let kept = filtered(&dag, good, bad);
    assert_eq!(kept.len(), 80);
    for w in weights(&dag, good, bad) {
        let mut stop = vec![false; dag.len()];
        stop[good] = true;
        let direct = ancestors_inclusive(&dag, w.commit, &stop)
            .iter()
            .filter(|&&b| b)
            .count()
            - 1;
        assert_eq!(w.ancestors, direct);
    }
}

/// Commits `parents` → a new commit with an empty tree at `time`.
fn git_commit(
    repo: &git2::Repository,
    message: &str,
    time: i64,
    parents: &[git2::Oid],
) -> git2::Oid {
    let tree = repo
        .find_tree(repo.treebuilder(None).unwrap().write().unwrap())
        .unwrap();
    let sig = git2::Signature::new("t", "t@invalid", &git2::Time::new(time, 120)).unwrap();
    let parents: Vec<git2::Commit> = parents
        .iter()
        .map(|&p| repo.find_commit(p).unwrap())
        .collect();
    let parents: Vec<&git2::Commit> = parents.iter().collect();
    repo.commit(None, &sig, &sig, message, &tree, &parents)
        .unwrap()
}

#[test]
fn a_repository_graph_keeps_good_and_what_is_not_below_it() {
    // c1 ─ c2 (good) ─ c3 ─ m (bad)
    //   └─ s1 ───────────┘
    let dir = tempfile::tempdir().unwrap();
    let repo = git2::Repository::init(dir.path()).unwrap();
    let c1 = git_commit(&repo, "c1", 1_000, &[]);
    let c2 = git_commit(&repo, "c2", 2_000, &[c1]);
    let s1 = git_commit(&repo, "side", 2_500, &[c1]);
    let c3 = git_commit(&repo, "c3", 3_000, &[c2]);
    let m = git_commit(&repo, "merge", 4_000, &[c3, s1]);
    let dag = Dag::from_repo(&repo, c2, m).unwrap();
    let order: Vec<&str> = dag.commits().iter().map(|c| c.summary.as_str()).collect();
    assert_eq!(order, ["c2", "side", "c3", "merge"], "c1 is below good");
    let (good, bad) = (
        dag.index_of(&c2.to_string()).unwrap(),
        dag.index_of(&m.to_string()).unwrap(),
    );
    assert!(dag.commit(good).unwrap().parents.is_empty());
    assert_eq!(dag.commit(bad).unwrap().parents.len(), 2);
    assert_eq!(dag.commit(bad).unwrap().short, m.to_string()[..10]);
    assert_eq!(filtered(&dag, good, bad).len(), 3);
    // N = 3: side and c3 weigh min(1, 2) = 1; side is older.
    assert_eq!(next_probe(&dag, good, bad), dag.index_of(&s1.to_string()));

    let not_below = Dag::from_repo(&repo, s1, c3).unwrap_err().to_string();
    assert!(not_below.contains("not an ancestor"), "{not_below}");
    assert!(Dag::from_repo(&repo, m, m)
        .unwrap_err()
        .to_string()
        .contains("same commit"));

    let opened = Repo::open(dir.path()).unwrap();
    let (dag, good, bad) = opened
        .bisect_graph(&c2.to_string()[..7], &m.to_string())
        .unwrap();
    assert_eq!((dag.len(), good, bad), (4, 0, 3));
    let e = opened
        .bisect_graph("no-such-rev", &m.to_string())
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("\"no-such-rev\" does not name a commit"),
        "{e}"
    );
}

#[test]
fn dates_are_in_the_committer_s_time_zone() {
    let mut commit = DagCommit {
        oid: String::new(),
        short: String::new(),
        summary: String::new(),
        time: 1_600_000_000, // 2020-09-13T12:26:40Z
        offset_minutes: 0,
        parents: vec![],
    };
    assert_eq!(commit.date(), "2020-09-13");
    commit.offset_minutes = 12 * 60;
    assert_eq!(commit.date(), "2020-09-14");
    commit.time = 0;
    commit.offset_minutes = -60;
    assert_eq!(commit.date(), "1969-12-31");
    commit.time = 951_782_400; // 2000-02-29
    commit.offset_minutes = 0;
    assert_eq!(commit.date(), "2000-02-29");
}
