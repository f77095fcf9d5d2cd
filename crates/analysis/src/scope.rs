//! A scope: the benchmarks one matrix covers (one benchmark, or all of
//! them), which profiles of each version belong to it, and which metric
//! stands for execution time in each of them.

use std::collections::BTreeMap;

use model::{History, Unit};

/// The profiles of one benchmark in one version.
#[derive(Debug, Clone)]
pub struct Repetitions {
    pub benchmark: String,
    /// Indices into `History::profiles`, with the metric used in each.
    pub entries: Vec<(usize, usize)>,
}

#[derive(Debug, Clone)]
pub struct Scope {
    /// Display name: the benchmark's, or "all benchmarks".
    pub name: String,
    pub benchmarks: Vec<String>,
    /// The metric's name and unit (of the first profile when units agree).
    pub metric: String,
    pub unit: Unit,
    /// False when the profiles have no time metric in common, so the first
    /// metric of each is used and sums mix units.
    pub units_agree: bool,
    /// Per version, per benchmark with profiles there.
    pub versions: Vec<Vec<Repetitions>>,
}

/// Preference for "execution time": a time unit, else sample counts, else
/// plain counts.
const TIME_LIKE: [Unit; 3] = [Unit::Nanoseconds, Unit::Samples, Unit::Count];

impl Scope {
    /// The scope over `benchmarks` in `history`, measured in execution time.
    pub fn new(history: &History, name: &str, benchmarks: &[String]) -> Scope {
        Scope::preferring(history, name, benchmarks, &TIME_LIKE)
    }

    /// The scope measured in bytes allocated, when every profile in it has
    /// a bytes metric (allocation data) and execution time is not already
    /// bytes; `None` otherwise.
    pub fn memory(history: &History, name: &str, benchmarks: &[String]) -> Option<Scope> {
        let time = Scope::new(history, name, benchmarks);
        let memory = Scope::preferring(history, name, benchmarks, &[Unit::Bytes]);
        (memory.units_agree && time.unit != Unit::Bytes).then_some(memory)
    }

    /// The scope over every benchmark that has, in all its profiles, the
    /// time-like metric (name and unit) that the most of `benchmarks`
    /// share, measured in it: what the matrix over all benchmarks adds up,
    /// so that CPU samples are never added to allocation samples, nor
    /// seconds to bytes. Ties go to the preferred unit ([`TIME_LIKE`]),
    /// then the name. `None` when fewer than two benchmarks share one.
    pub fn comparable(history: &History, name: &str, benchmarks: &[String]) -> Option<Scope> {
        let shared = |b: &String| -> Vec<(String, Unit)> {
            let mut profiles = history.profiles.iter().filter(|p| &p.benchmark == b);
            let Some(first) = profiles.next() else {
                return Vec::new();
            };
            let mut keys: Vec<(String, Unit)> = first
                .profile
                .metrics
                .iter()
                .filter(|m| TIME_LIKE.contains(&m.unit))
                .map(|m| (m.name.clone(), m.unit.clone()))
                .collect();
            for p in profiles {
                keys.retain(|(n, u)| {
                    p.profile
                        .metrics
                        .iter()
                        .any(|m| &m.name == n && &m.unit == u)
                });
            }
            keys
        };
        let keys: Vec<Vec<(String, Unit)>> = benchmarks.iter().map(shared).collect();
        let mut candidates: Vec<&(String, Unit)> = keys.iter().flatten().collect();
        candidates.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.name().cmp(b.1.name())));
        candidates.dedup();
        let rank = |u: &Unit| {
            TIME_LIKE
                .iter()
                .position(|t| t == u)
                .unwrap_or(TIME_LIKE.len())
        };
        let (key, members) = candidates
            .into_iter()
            .map(|k| {
                let members: Vec<String> = benchmarks
                    .iter()
                    .zip(&keys)
                    .filter(|(_, ks)| ks.contains(k))
                    .map(|(b, _)| b.clone())
                    .collect();
                (k, members)
            })
            .min_by(|(a, ma), (b, mb)| {
                mb.len()
                    .cmp(&ma.len())
                    .then(rank(&a.1).cmp(&rank(&b.1)))
                    .then(a.0.cmp(&b.0))
            })?;
        (members.len() > 1).then(|| Scope::measured_in(history, name, &members, key))
    }

    /// The scope over `benchmarks`, each profile measured in the metric
    /// named `key.0` in unit `key.1` (which every one of them has).
    fn measured_in(
        history: &History,
        name: &str,
        benchmarks: &[String],
        key: &(String, Unit),
    ) -> Scope {
        let mut scope = Scope::preferring(history, name, benchmarks, std::slice::from_ref(&key.1));
        let metric_of = |i: usize| {
            history.profiles[i]
                .profile
                .metrics
                .iter()
                .position(|m| m.name == key.0 && m.unit == key.1)
                .unwrap_or(0)
        };
        for reps in scope.versions.iter_mut().flatten() {
            for entry in &mut reps.entries {
                entry.1 = metric_of(entry.0);
            }
        }
        scope.metric = key.0.clone();
        scope.unit = key.1.clone();
        scope.units_agree = true;
        scope
    }

    /// The scope using, in every profile, the first of `units` that all
    /// profiles have (else each profile's first metric).
    fn preferring(history: &History, name: &str, benchmarks: &[String], units: &[Unit]) -> Scope {
        let in_scope: Vec<usize> = (0..history.profiles.len())
            .filter(|&i| benchmarks.contains(&history.profiles[i].benchmark))
            .collect();
        let unit = units.iter().find(|u| {
            in_scope.iter().all(|&i| {
                history.profiles[i]
                    .profile
                    .metrics
                    .iter()
                    .any(|m| &m.unit == *u)
            })
        });
        let metric_of = |i: usize| -> usize {
            let metrics = &history.profiles[i].profile.metrics;
            unit.and_then(|u| metrics.iter().position(|m| &m.unit == u))
                .unwrap_or(0)
        };
        let (metric, unit_value) = in_scope
            .first()
            .and_then(|&i| history.profiles[i].profile.metrics.get(metric_of(i)))
            .map(|m| (m.name.clone(), m.unit.clone()))
            .unwrap_or_else(|| ("samples".into(), Unit::Samples));
        let mut versions: Vec<BTreeMap<String, Vec<(usize, usize)>>> =
            vec![BTreeMap::new(); history.versions.len()];
        for &i in &in_scope {
            let p = &history.profiles[i];
            versions[p.version]
                .entry(p.benchmark.clone())
                .or_default()
                .push((i, metric_of(i)));
        }
        Scope {
            name: name.to_string(),
            benchmarks: benchmarks.to_vec(),
            metric,
            unit: unit_value,
            units_agree: unit.is_some(),
            versions: versions
                .into_iter()
                .map(|by| {
                    by.into_iter()
                        .map(|(benchmark, entries)| Repetitions { benchmark, entries })
                        .collect()
                })
                .collect(),
        }
    }

    /// Whether version `v` has any profile in this scope.
    pub fn has(&self, v: usize) -> bool {
        !self.versions[v].is_empty()
    }

    /// The closest earlier version with profiles in this scope.
    pub fn previous(&self, v: usize) -> Option<usize> {
        (0..v).rev().find(|&u| self.has(u))
    }

    /// Every (profile index, metric index) of version `v`.
    pub fn entries(&self, v: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.versions[v]
            .iter()
            .flat_map(|r| r.entries.iter().copied())
    }
}
