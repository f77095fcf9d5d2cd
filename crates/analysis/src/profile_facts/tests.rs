use super::*;
use model::{Frame, FrameTable, Metric, Timeline, TimelineSample, Unit};

fn setup(names: &[&str]) -> (FrameTable, Vec<model::FrameId>) {
    let mut frames = FrameTable::new();
    let ids = names
        .iter()
        .map(|n| {
            frames.intern(Frame {
                function: n.to_string(),
                file: Some("pkg/mod.py".into()),
                ..Frame::default()
            })
        })
        .collect();
    (frames, ids)
}

#[test]
fn recursion_counts_once_and_edges_exclude_self_calls() {
    let (frames, ids) = setup(&["main", "f", "g"]);
    let (main, f, g) = (ids[0], ids[1], ids[2]);
    let mut p = Profile::new(vec![Metric::new("samples", Unit::Samples)]);
    p.tree.add_stack([main, f, g, f], &[3.0]);
    p.tree.add_stack([main, f], &[2.0]);
    p.tree.add_stack([main, g], &[5.0]);
    let h = Hierarchy::plain(&frames, "p");
    let facts = profile_facts(&p, &h, 0);
    let time = |fr| {
        let c = h.method_of(fr);
        facts.method_time.get(c).unwrap()[0]
    };
    assert_eq!(time(main), 10.0);
    // f: outermost f covers 3 + 2; the inner f adds nothing.
    assert_eq!(time(f), 5.0);
    // g: under f (3) and under main (5).
    assert_eq!(time(g), 8.0);
    let edge = |a, b| {
        let k = (h.method_of(a), h.method_of(b));
        facts.edges[0].get(k).map(|v| v[0])
    };
    assert_eq!(edge(main, f), Some(5.0));
    assert_eq!(edge(f, g), Some(3.0));
    assert_eq!(edge(g, f), Some(3.0));
    assert_eq!(edge(main, g), Some(5.0));
    // All in one class and package: no class or package edges.
    assert!(facts.edges[1].is_empty() && facts.edges[2].is_empty());
    assert_eq!(facts.totals, vec![10.0]);
}

#[test]
fn timeline_shares_split_samples_across_frames() {
    let (frames, ids) = setup(&["main", "a", "b"]);
    let mut p = Profile::new(vec![Metric::new("time", Unit::Nanoseconds)]);
    let na = p.tree.add_stack([ids[0], ids[1]], &[30.0]);
    let nb = p.tree.add_stack([ids[0], ids[2]], &[10.0]);
    // a runs 0..30, b 30..40: with 4 frames of 10, a fills frames 0–2.
    p.timeline = Some(Timeline {
        samples: vec![
            TimelineSample {
                start_ns: 0.0,
                duration_ns: 30.0,
                node: na,
            },
            TimelineSample {
                start_ns: 30.0,
                duration_ns: 10.0,
                node: nb,
            },
        ],
    });
    let h = Hierarchy::plain(&frames, "p");
    let facts = profile_facts(&p, &h, 4);
    let tl = facts.timeline.unwrap();
    let of = |f| &tl.iter().find(|(c, _)| *c == h.method_of(f)).unwrap().1;
    assert_eq!(of(ids[0]), &vec![1.0, 1.0, 1.0, 1.0]);
    assert_eq!(of(ids[1]), &vec![1.0, 1.0, 1.0, 0.0]);
    assert_eq!(of(ids[2]), &vec![0.0, 0.0, 0.0, 1.0]);
}

/// A profile of two metrics (samples, time) with 400 stacks of 1–7 of
/// `ids` in a fixed pseudo-random order, integer values.
fn random_stacks(ids: &[model::FrameId]) -> Profile {
    profile_of_stacks(&random_stack_list(ids))
}

/// The stacks of [`random_stacks`], with their two values.
fn random_stack_list(ids: &[model::FrameId]) -> Vec<(Vec<model::FrameId>, [f64; 2])> {
    let mut x = 7u64;
    (0..400)
        .map(|_| {
            let depth = 1 + (x % 7) as usize;
            let stack: Vec<_> = (0..depth)
                .map(|d| {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    ids[((x >> 33) as usize + d) % ids.len()]
                })
                .collect();
            (stack, [(x % 5 + 1) as f64, (x % 1000) as f64])
        })
        .collect()
}

/// A profile of two metrics (samples, time) of `stacks`, added in order.
fn profile_of_stacks(stacks: &[(Vec<model::FrameId>, [f64; 2])]) -> Profile {
    let mut p = Profile::new(vec![
        Metric::new("samples", Unit::Samples),
        Metric::new("time", Unit::Nanoseconds),
    ]);
    for (stack, values) in stacks {
        p.tree.add_stack(stack.iter().copied(), values);
    }
    p
}

/// Walked in two halves, a tree gives the facts of one walk: methods,
/// edges at every level, recursion counted once (integer values, so
/// the sums are exact either way).
#[test]
fn two_halves_give_the_facts_of_one_walk() {
    let names: Vec<String> = (0..12).map(|i| format!("f{i}")).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let (frames, ids) = setup(&refs);
    let p = random_stacks(&ids);
    assert!(p.tree.children(NodeId::ROOT).len() >= 2);
    let h = Hierarchy::plain(&frames, "p");
    let walked = |parallel_nodes: usize| {
        let inputs = WalkInputs::grouped(&p.tree, &h, parallel_nodes);
        facts_walked_from(&p, (&h, &inputs), 0, Counted::EVERYTHING)
    };
    let (one, two) = (walked(usize::MAX), walked(0));
    assert_eq!(WalkInputs::grouped(&p.tree, &h, 0).groups.len(), 2);
    assert_eq!(WalkInputs::grouped(&p.tree, &h, usize::MAX).groups.len(), 1);
    // The subtree sizes found for the halves are kept for the page.
    let halves = WalkInputs::grouped(&p.tree, &h, 0).into_columns();
    assert_eq!(halves.sizes.as_deref(), Some(&p.tree.subtree_sizes()));
    let whole = WalkInputs::grouped(&p.tree, &h, usize::MAX).into_columns();
    assert!(whole.sizes.is_none());
    assert_eq!(one.method_time, two.method_time);
    assert_eq!(one.edges, two.edges);
    assert!(!one.edges[0].is_empty());
}

/// The same stacks added in sorted order (ids a preorder: walked in id
/// order) and in an order that is not (walked through the child lists)
/// give the same facts, in one walk and in two halves.
#[test]
fn facts_walked_in_id_order_are_those_of_the_child_lists() {
    let names: Vec<String> = (0..9).map(|i| format!("f{i}")).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let (frames, ids) = setup(&refs);
    let mut x = 11u64;
    let mut stacks: Vec<(Vec<model::FrameId>, f64)> = (0..300)
        .map(|i| {
            let depth = 1 + (x % 9) as usize;
            let stack = (0..depth)
                .map(|_| {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    ids[(x >> 33) as usize % ids.len()]
                })
                .collect();
            (stack, (i % 4 + 1) as f64)
        })
        .collect();
    let profile_of = |stacks: &[(Vec<model::FrameId>, f64)]| {
        let mut p = Profile::new(vec![Metric::new("samples", Unit::Samples)]);
        for (stack, value) in stacks {
            p.tree.add_stack(stack.iter().copied(), &[*value]);
        }
        p
    };
    let unsorted = profile_of(&stacks);
    stacks.sort_by(|a, b| a.0.cmp(&b.0));
    let sorted = profile_of(&stacks);
    let in_id_order = |p: &Profile| p.tree.walk_in_id_order(0..p.tree.len(), |_| true);
    assert!(in_id_order(&sorted) && !in_id_order(&unsorted));
    let h = Hierarchy::plain(&frames, "p");
    for parallel_nodes in [usize::MAX, 0] {
        let walked = |p: &Profile| {
            let inputs = WalkInputs::grouped(&p.tree, &h, parallel_nodes);
            facts_walked_from(p, (&h, &inputs), 0, Counted::EVERYTHING)
        };
        let (a, b) = (walked(&sorted), walked(&unsorted));
        assert_eq!(a.method_time, b.method_time);
        assert_eq!(a.edges, b.edges);
        assert!(!a.edges[0].is_empty());
    }
}

/// Counted apart, the facts without edges and the edges around some
/// components are those of one walk that counts everything: every
/// edge that touches a wanted component at its level, none other, with
/// the same values. The same stacks sorted make a tree whose ids are a
/// preorder, which the edges' own walk takes.
#[test]
fn edges_around_wanted_components_are_those_of_the_whole_walk() {
    let mut frames = FrameTable::new();
    let ids: Vec<model::FrameId> = (0..24)
        .map(|i| {
            frames.intern(Frame {
                function: format!("C{}.f{i}", i % 4),
                file: Some(format!("pkg{}/mod{}.py", i % 3, i % 2)),
                ..Frame::default()
            })
        })
        .collect();
    let mut stacks = random_stack_list(&ids);
    let unsorted = profile_of_stacks(&stacks);
    stacks.sort_by(|a, b| a.0.cmp(&b.0));
    let sorted = profile_of_stacks(&stacks);
    assert!(sorted.tree.walk_in_id_order(0..sorted.tree.len(), |_| true));
    assert!(!unsorted
        .tree
        .walk_in_id_order(0..unsorted.tree.len(), |_| true));
    for p in [unsorted, sorted] {
        edges_around_wanted_components_of(&p, &frames, &ids);
    }
}

fn edges_around_wanted_components_of(p: &Profile, frames: &FrameTable, ids: &[model::FrameId]) {
    let h = Hierarchy::plain(frames, "p");
    let all = profile_facts(p, &h, 0);
    let methods = method_facts(p, (&h, &WalkInputs::new(&p.tree, &h)), 0);
    assert_eq!(methods.method_time, all.method_time);
    assert!(methods.edges.iter().all(Keyed::is_empty));

    let method = h.method_of(ids[0]);
    let class = h.at_level(h.method_of(ids[5]), Level::Class);
    let package = h.at_level(h.method_of(ids[10]), Level::Package);
    assert_eq!(h.get(class).level, Level::Class);
    assert_eq!(h.get(package).level, Level::Package);
    let wanted_comps = [method, class, package];
    let wanted = WantedCalls::new(&h, wanted_comps);
    let around = Counted {
        methods: false,
        calls: Calls::Touching(&wanted),
    };
    for parallel_nodes in [usize::MAX, 0] {
        let inputs = WalkInputs::grouped(&p.tree, &h, parallel_nodes);
        let edges = facts_walked_from(p, (&h, &inputs), 0, around).edges;
        for (l, level) in EDGE_LEVELS.iter().enumerate() {
            let listed = |k: &Keyed<Edge>| -> Vec<(Edge, Vec<f64>)> {
                k.iter().map(|(e, v)| (e, v.to_vec())).collect()
            };
            let expected: Vec<(Edge, Vec<f64>)> = listed(&all.edges[l])
                .into_iter()
                .filter(|((a, b), _)| wanted_comps.contains(a) || wanted_comps.contains(b))
                .collect();
            assert!(!expected.is_empty(), "{level:?}");
            assert!(expected.len() < all.edges[l].len(), "{level:?}");
            assert_eq!(listed(&edges[l]), expected, "{level:?}");
        }
    }
}
