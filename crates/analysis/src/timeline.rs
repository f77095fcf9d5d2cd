//! Execution timelines of a scope's components (Performance Evolution
//! Matrix, section III-D): each component's share of every fixed time frame
//! of the run, averaged over the profiles that record time order. A
//! container's timeline is the frame-by-frame maximum of its methods'.

use std::collections::HashMap;

use super::hierarchy::{CompId, Hierarchy};
use super::profile_facts::ProfileFacts;
use super::scope::Scope;

/// The timelines of one version.
#[derive(Debug, Clone, Default)]
pub struct VersionTimelines {
    /// Profiles of the version with a time order, and all of them.
    pub with_order: usize,
    pub profiles: usize,
    /// Share (0–1) per time frame of every component that runs.
    pub shares: HashMap<CompId, Vec<f64>>,
}

/// Timelines of version `v` of `scope`; `None` when no profile of it has a
/// time order.
pub fn version_timelines(
    scope: &Scope,
    hierarchy: &Hierarchy,
    facts: &[ProfileFacts],
    v: usize,
) -> Option<VersionTimelines> {
    let entries: Vec<usize> = scope.entries(v).map(|(e, _)| e).collect();
    let with: Vec<&Vec<(CompId, Vec<f64>)>> = entries
        .iter()
        .filter_map(|&e| facts[e].timeline.as_ref())
        .collect();
    if with.is_empty() {
        return None;
    }
    let n = with.len() as f64;
    let mut methods: HashMap<CompId, Vec<f64>> = HashMap::new();
    for timeline in &with {
        for (comp, shares) in timeline.iter() {
            let slot = methods
                .entry(*comp)
                .or_insert_with(|| vec![0.0; shares.len()]);
            for (a, s) in slot.iter_mut().zip(shares) {
                *a += s / n;
            }
        }
    }
    let mut shares: HashMap<CompId, Vec<f64>> = HashMap::new();
    for (method, values) in &methods {
        let mut at = Some(*method);
        while let Some(c) = at {
            let slot = shares.entry(c).or_insert_with(|| vec![0.0; values.len()]);
            for (a, s) in slot.iter_mut().zip(values) {
                *a = a.max(*s);
            }
            at = hierarchy.get(c).parent;
        }
    }
    Some(VersionTimelines {
        with_order: with.len(),
        profiles: entries.len(),
        shares,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile_facts::profile_facts;
    use model::{Frame, FrameTable, Metric, Profile, Timeline, TimelineSample, Unit};
    use model::{History, ProfileEntry, Version};

    #[test]
    fn containers_take_the_frame_maximum_and_repetitions_average() {
        let mut frames = FrameTable::new();
        let f = |n: &str| Frame {
            function: n.into(),
            file: Some("pkg/c.py".into()),
            ..Frame::default()
        };
        let (main, a, b) = (
            frames.intern(f("main")),
            frames.intern(f("a")),
            frames.intern(f("b")),
        );
        let mut history = History {
            versions: vec![Version::default()],
            ..History::default()
        };
        // Repetition 1: a in the first half, b in the second.
        // Repetition 2: a throughout.
        for (rep, second) in [(1, b), (2, a)] {
            let mut p = Profile::new(vec![Metric::new("time", Unit::Nanoseconds)]);
            let n1 = p.tree.add_stack([main, a], &[10.0]);
            let n2 = p.tree.add_stack([main, second], &[10.0]);
            p.timeline = Some(Timeline {
                samples: vec![
                    TimelineSample {
                        start_ns: 0.0,
                        duration_ns: 10.0,
                        node: n1,
                    },
                    TimelineSample {
                        start_ns: 10.0,
                        duration_ns: 10.0,
                        node: n2,
                    },
                ],
            });
            history.profiles.push(ProfileEntry {
                version: 0,
                benchmark: "x".into(),
                repetition: rep,
                source: String::new(),
                format: "test",
                profile: p,
            });
        }
        history.frames = frames;
        let h = Hierarchy::plain(&history.frames, "p");
        let facts: Vec<ProfileFacts> = history
            .profiles
            .iter()
            .map(|p| profile_facts(&p.profile, &h, 2))
            .collect();
        let scope = Scope::new(&history, "x", &["x".into()]);
        let t = version_timelines(&scope, &h, &facts, 0).unwrap();
        assert_eq!((t.with_order, t.profiles), (2, 2));
        assert_eq!(t.shares[&h.method_of(a)], vec![1.0, 0.5]);
        assert_eq!(t.shares[&h.method_of(b)], vec![0.0, 0.5]);
        let class = h.get(h.method_of(a)).parent.unwrap();
        // max(main, a, b) per frame: main is 1 everywhere.
        assert_eq!(t.shares[&class], vec![1.0, 1.0]);
    }
}
