use super::*;
use model::{Frame, FrameId, Metric, Profile, Unit};

#[test]
fn digest_parts_do_not_run_into_each_other() {
    let ab_c = KeyHasher::new("k").str("ab").str("c").finish();
    let a_bc = KeyHasher::new("k").str("a").str("bc").finish();
    assert_ne!(ab_c, a_bc);
    assert_ne!(KeyHasher::new("k").finish(), KeyHasher::new("l").finish());
}

/// A one-path profile of `main → work` in a frame table where `order`
/// decides which frame is interned first.
fn profile(frames: &mut FrameTable, order: [&str; 2], work_self: f64) -> ProfileEntry {
    for name in order {
        frames.intern(Frame::named(name));
    }
    let ids: Vec<FrameId> = ["main", "work"]
        .iter()
        .map(|n| frames.intern(Frame::named(*n)))
        .collect();
    let mut p = Profile::new(vec![Metric {
        name: "samples".into(),
        unit: Unit::Count,
    }]);
    let node = p.tree.path(ids);
    p.tree.add_self(node, 0, work_self);
    ProfileEntry {
        version: 0,
        benchmark: "b".into(),
        repetition: 1,
        source: "v/b.folded".into(),
        format: "folded",
        profile: p,
    }
}

#[test]
fn profile_digests_follow_content_not_frame_ids() {
    let (mut one, mut two) = (FrameTable::default(), FrameTable::default());
    let a = profile(&mut one, ["main", "work"], 5.0);
    let b = profile(&mut two, ["work", "main"], 5.0);
    assert_ne!(one.iter().next().unwrap().1, two.iter().next().unwrap().1);
    let digest = |entry: &ProfileEntry, frames: &FrameTable| {
        let ids = model::FunctionIds::of_frames(frames, &Default::default());
        let shape = ShapeFrames::new(frames, &ids);
        profile_digest(entry, &frame_digests(frames, &shape))
    };
    assert_eq!(digest(&a, &one), digest(&b, &two));
    let mut three = FrameTable::default();
    let c = profile(&mut three, ["main", "work"], 6.0);
    assert_ne!(digest(&a, &one), digest(&c, &three), "a value changed");
}

/// The nodes' digest is that of their words written out whole (as the
/// previous version hashed them, so its page keys still match): over
/// many of the hashed pieces, with one metric and with three.
#[test]
fn nodes_are_hashed_as_their_words_written_out_whole() {
    for metrics in [1, 3] {
        let mut frames = FrameTable::default();
        let ids: Vec<FrameId> = (0..50)
            .map(|i| frames.intern(Frame::named(format!("f{i}"))))
            .collect();
        let metric = |i| Metric {
            name: format!("m{i}"),
            unit: Unit::Count,
        };
        let mut p = Profile::new((0..metrics).map(metric).collect());
        for i in 0..3_000usize {
            let path = [ids[i % 50], ids[(i / 50) % 50], ids[(i / 7) % 50]];
            let node = p.tree.path(path);
            p.tree.add_self(node, metrics - 1, i as f64 * 0.5);
        }
        let digests: Vec<u64> = (0..frames.len() as u64).map(|i| i * 7919 + 3).collect();
        let tree = &p.tree;
        let mut bytes = Vec::new();
        for node in tree.node_ids() {
            let parent = tree.parent(node).map_or(u64::MAX, |p| p.index() as u64);
            bytes.extend_from_slice(&parent.to_le_bytes());
            let frame = tree.frame(node).map_or(0, |f| digests[f.0 as usize]);
            bytes.extend_from_slice(&frame.to_le_bytes());
            for m in 0..metrics {
                bytes.extend_from_slice(&tree.self_value(node, m).to_bits().to_le_bytes());
            }
        }
        assert!(bytes.len() > 4 * DIGEST_WORDS * 8);
        assert_eq!(
            nodes_digest(tree, &digests, 0..tree.len()),
            xxhash_rust::xxh3::xxh3_128(&bytes),
            "{metrics} metrics"
        );
    }
}
