//! Derived metrics from `[metrics]` in `perfatlas.toml`, applied to the
//! profiles whose metrics they name. Additive formulas (sums, differences
//! and constant factors, see [`Formula::is_additive`]) become real metrics
//! of the profile, with flame graphs of their own; the others (ratios of
//! metrics, such as bytes per object) are evaluated per node on inclusive
//! and on exclusive values and shown as tree-table columns, since their
//! values do not add up along a call path.

use std::collections::BTreeMap;

use super::formula::{self, Bound, EvalError, Formula};
use model::{CallTree, History, Metric, Profile, Unit};

/// One `[metrics]` entry, parsed.
#[derive(Debug, Clone)]
pub struct DerivedMetric {
    pub name: String,
    pub text: String,
    pub formula: Formula,
}

/// Parses every entry; the error names the entry and the column.
pub fn parse_all(entries: &BTreeMap<String, String>) -> Result<Vec<DerivedMetric>, String> {
    entries
        .iter()
        .map(|(name, text)| {
            let formula =
                formula::parse(text).map_err(|e| format!("[metrics] {name} = {text:?}: {e}"))?;
            Ok(DerivedMetric {
                name: name.clone(),
                text: text.clone(),
                formula,
            })
        })
        .collect()
}

fn names(profile: &Profile) -> Vec<&str> {
    profile.metrics.iter().map(|m| m.name.as_str()).collect()
}

/// Checks that each derived metric applies to at least one profile and
/// does not reuse a metric's name, then appends the additive ones to the
/// profiles they apply to.
pub fn apply(history: &mut History, derived: &[DerivedMetric]) -> Result<(), String> {
    for d in derived {
        check_applies(history, d)?;
    }
    for entry in &mut history.profiles {
        for d in derived.iter().filter(|d| d.formula.is_additive()) {
            let Ok(bound) = d.formula.bind(&names(&entry.profile)) else {
                continue;
            };
            append_metric(&mut entry.profile, &d.name, &bound);
        }
    }
    Ok(())
}

fn check_applies(history: &History, d: &DerivedMetric) -> Result<(), String> {
    let mut first_error = None;
    for entry in &history.profiles {
        let names = names(&entry.profile);
        if names.contains(&d.name.as_str()) {
            return Err(format!(
                "[metrics] {}: {} already has a metric of that name",
                d.name, entry.source
            ));
        }
        match d.formula.bind(&names) {
            Ok(_) => return Ok(()),
            Err(e) => {
                first_error.get_or_insert(format!("{} ({e})", entry.source));
            }
        }
    }
    Err(format!(
        "[metrics] {} = {:?} applies to no profile: {}",
        d.name,
        d.text,
        first_error.unwrap_or_else(|| "there are no profiles".to_string())
    ))
}

/// Adds `bound` evaluated on every node's self values as a new metric.
fn append_metric(profile: &mut Profile, name: &str, bound: &Bound) {
    let tree = &profile.tree;
    let metrics = tree.metric_count();
    let mut row = vec![0.0; metrics];
    let values: Vec<f64> = tree
        .node_ids()
        .map(|n| {
            for (m, v) in row.iter_mut().enumerate() {
                *v = tree.self_value(n, m);
            }
            // Additive formulas divide only by non-zero constants.
            bound.eval(&row).unwrap_or(f64::NAN)
        })
        .collect();
    profile.tree.push_metric(&values);
    profile.metrics.push(Metric::new(name, Unit::Count));
}

/// A non-additive derived metric evaluated on one tree: per node, the
/// formula over inclusive values and over self values; `None` where it
/// divides by zero.
pub struct Evaluated {
    pub name: String,
    pub text: String,
    pub inclusive: Vec<Option<f64>>,
    pub exclusive: Vec<Option<f64>>,
    /// The first division by zero met, for the page's note.
    pub zero_division: Option<EvalError>,
}

/// The non-additive derived metrics that apply to `profile`, evaluated
/// per node of a tree with `nodes` nodes whose per-metric inclusive and
/// exclusive values (in the profile's metric order) are given.
pub fn evaluate<V: AsRef<[f64]>>(
    profile: &Profile,
    derived: &[DerivedMetric],
    inclusive: &[V],
    exclusive: &[V],
) -> Vec<Evaluated> {
    let names = names(profile);
    let nodes = inclusive.first().map_or(0, |v| v.as_ref().len());
    derived
        .iter()
        .filter(|d| !d.formula.is_additive())
        .filter_map(|d| Some((d, d.formula.bind(&names).ok()?)))
        .map(|(d, bound)| {
            let mut zero_division = None;
            let mut column = |values: &[V]| -> Vec<Option<f64>> {
                let mut row = vec![0.0; values.len()];
                (0..nodes)
                    .map(|n| {
                        for (m, v) in row.iter_mut().enumerate() {
                            *v = values[m].as_ref()[n];
                        }
                        match bound.eval(&row) {
                            Ok(v) => Some(v),
                            Err(e) => {
                                zero_division.get_or_insert(e);
                                None
                            }
                        }
                    })
                    .collect()
            };
            let (inclusive, exclusive) = (column(inclusive), column(exclusive));
            Evaluated {
                name: d.name.clone(),
                text: d.text.clone(),
                inclusive,
                exclusive,
                zero_division,
            }
        })
        .collect()
}

/// Inclusive and self values of every metric of `tree`, for [`evaluate`].
pub fn tree_values(tree: &CallTree) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
    let metrics = tree.metric_count();
    let inclusive = (0..metrics).map(|m| tree.inclusive(m)).collect();
    let exclusive = (0..metrics)
        .map(|m| tree.node_ids().map(|n| tree.self_value(n, m)).collect())
        .collect();
    (inclusive, exclusive)
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::{FrameTable, NodeId};

    fn heap_profile() -> Profile {
        let mut frames = FrameTable::new();
        let (main, alloc) = (frames.intern_name("main"), frames.intern_name("alloc"));
        let mut p = Profile::new(vec![
            Metric::new("alloc_objects", Unit::Objects),
            Metric::new("alloc_space", Unit::Bytes),
        ]);
        p.tree.add_stack([main, alloc], &[4.0, 4096.0]);
        p.tree.add_stack([main], &[0.0, 0.0]);
        p
    }

    fn metrics(entries: &[(&str, &str)]) -> Vec<DerivedMetric> {
        let map: BTreeMap<String, String> = entries
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        parse_all(&map).unwrap()
    }

    #[test]
    fn ratios_are_evaluated_on_inclusive_and_on_self_values() {
        let p = heap_profile();
        let d = metrics(&[("bytes_per_object", "alloc_space / alloc_objects")]);
        let (inc, exc) = tree_values(&p.tree);
        let e = evaluate(&p, &d, &inc, &exc);
        assert_eq!(e.len(), 1);
        let main = p.tree.children(NodeId::ROOT)[0];
        assert_eq!(e[0].inclusive[main.index()], Some(1024.0));
        // main allocates nothing itself: 0 / 0.
        assert_eq!(e[0].exclusive[main.index()], None);
        assert_eq!(
            e[0].zero_division.as_ref().map(|z| z.to_string()),
            Some("division by zero: alloc_objects is 0".to_string())
        );
    }

    #[test]
    fn additive_formulas_become_metrics_with_their_own_values() {
        let mut p = heap_profile();
        let d = metrics(&[("alloc_kib", "alloc_space / 1024")]);
        let bound = d[0].formula.bind(&names(&p)).unwrap();
        append_metric(&mut p, "alloc_kib", &bound);
        assert_eq!(p.metrics[2].name, "alloc_kib");
        assert_eq!(p.tree.total(2), 4.0);
        assert_eq!(p.tree.total(1), 4096.0);
    }

    #[test]
    fn a_formula_no_profile_can_use_is_an_error_naming_the_metric() {
        let mut h = History::default();
        h.profiles.push(model::ProfileEntry {
            benchmark: "b".into(),
            version: 0,
            repetition: 1,
            source: "1.0/b.heap.pb.gz".into(),
            format: "pprof",
            profile: heap_profile(),
        });
        let d = metrics(&[("bpo", "alloc_spac / alloc_objects")]);
        let err = apply(&mut h, &d).unwrap_err();
        assert!(err.contains("[metrics] bpo"), "{err}");
        assert!(err.contains("unknown metric \"alloc_spac\""), "{err}");
        assert!(err.contains("1.0/b.heap.pb.gz"), "{err}");
        let bad = parse_all(
            &[("x".to_string(), "a / 0".to_string())]
                .into_iter()
                .collect(),
        )
        .unwrap_err();
        assert!(bad.contains("division by zero"), "{bad}");
    }
}
