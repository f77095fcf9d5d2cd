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
