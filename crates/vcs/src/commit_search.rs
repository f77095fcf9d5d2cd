//! Bisection of a performance regression over the commit graph (PRCA,
//! section 4.1), as a pure algorithm: no measuring, no checkout.
//!
//! This module owns the commit graph between a good and a bad commit
//! ([`Dag`]), the filtered set of a pair ([`filtered`]), the weights of its
//! commits ([`weights`]), the choice of the next commit to measure
//! ([`next_probe`]) and the loop that narrows the pair down ([`bisect`]),
//! which asks a caller-supplied judge whether a probe is slower.
//!
//! Given a pair (good, bad), the filtered set holds the ancestors of bad
//! (bad included) that are neither good nor an ancestor of good. For each
//! commit `c` of the set, `a` is the number of its ancestors inside the set
//! (itself excluded) and its weight is `min(a + 1, N - (a + 1))` with `N` the
//! size of the set: the number of set commits a "slower" or a "not slower"
//! answer rules out, whichever is smaller. The probe is the commit of
//! highest weight. Ties break by, in order: fewer ancestors in the set (the
//! probe nearer the good end), older committer time, smaller oid — so on a
//! linear history `r1..r6` with good `r1` and bad `r6` the probes are `r3`,
//! then `r4`, then `r5`.
//!
//! Ancestor sets are bitsets over the filtered set, built in topological
//! order (`reach(c) = {c} ∪ reach(parents of c in the set)`); a commit's set
//! is dropped as soon as its last child in the set has used it.

use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, HashMap};

use super::{Repo, VcsError};

/// One commit of a [`Dag`].
#[derive(Debug, Clone, PartialEq)]
pub struct DagCommit {
    /// 40 lower-case hex digits (a node's name in [`Dag::from_edges`]).
    pub oid: String,
    /// The first 10 hex digits of `oid`.
    pub short: String,
    /// The subject line (lossily decoded).
    pub summary: String,
    /// Committer time, seconds since the Unix epoch.
    pub time: i64,
    /// The committer's time-zone offset, minutes east of UTC.
    pub offset_minutes: i32,
    /// Indices of the parents that are in the graph.
    pub parents: Vec<usize>,
}

impl DagCommit {
    /// The committer date, `YYYY-MM-DD`, in the committer's time zone (as
    /// `git log --date=short` shows it).
    pub fn date(&self) -> String {
        let local = self.time + i64::from(self.offset_minutes) * 60;
        let (y, m, d) = config::civil_from_days(local.div_euclid(86_400));
        format!("{y:04}-{m:02}-{d:02}")
    }
}

/// The commits that can matter to a bisection between good and bad: the
/// ancestors of bad (bad included) that are not ancestors of good, plus good
/// itself (without parents). Commits are in a topological order, parents
/// before children; among commits free to come next, the older committer
/// time first, then the smaller oid. Indices into the graph follow that
/// order.
#[derive(Debug, Clone)]
pub struct Dag {
    commits: Vec<DagCommit>,
    index: HashMap<String, usize>,
}

/// How one commit of a filtered set weighs as a probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Weight {
    /// Index of the commit in the [`Dag`].
    pub commit: usize,
    /// Its ancestors inside the filtered set, itself excluded.
    pub ancestors: usize,
    /// `min(ancestors + 1, N - (ancestors + 1))`.
    pub weight: usize,
}

/// The judge's answer on a probe compared with the current good commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Judgement {
    /// Significantly slower: the regression is at or before the probe.
    Slower,
    /// No significant difference, or faster: the regression is after it.
    NotSlower,
}

impl std::fmt::Display for Judgement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Judgement::Slower => "slower",
            Judgement::NotSlower => "not slower",
        })
    }
}

/// One step of a bisection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// The pair (good, bad) before the step.
    pub good: usize,
    pub bad: usize,
    /// The commit measured, and its weight in the pair's filtered set.
    pub probe: usize,
    pub weight: usize,
    /// Size of the pair's filtered set.
    pub candidates: usize,
    /// The probe compared with `good`.
    pub judgement: Judgement,
}

/// The result of a bisection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The commit that introduced the regression: the last bad commit.
    pub responsible: usize,
    /// Every probe, in order.
    pub steps: Vec<Step>,
}

impl Dag {
    /// The graph between `good` and `bad` in `repo`: walks the ancestors of
    /// `bad`, hiding `good` and its ancestors. `good` must be a proper
    /// ancestor of `bad`.
    pub fn from_repo(
        repo: &git2::Repository,
        good: git2::Oid,
        bad: git2::Oid,
    ) -> Result<Dag, VcsError> {
        let place = repo.workdir().unwrap_or(repo.path()).to_path_buf();
        let error = |commit: git2::Oid, message: String| VcsError::Commit {
            repo: place.clone(),
            commit: commit.to_string(),
            message,
        };
        let git_error = |commit: git2::Oid, e: git2::Error| error(commit, e.message().into());
        if good == bad {
            return Err(error(good, "good and bad are the same commit".into()));
        }
        if !repo
            .graph_descendant_of(bad, good)
            .map_err(|e| git_error(bad, e))?
        {
            return Err(error(
                good,
                format!("the good commit is not an ancestor of the bad commit {bad}"),
            ));
        }
        let mut walk = repo.revwalk().map_err(|e| git_error(bad, e))?;
        walk.push(bad).map_err(|e| git_error(bad, e))?;
        walk.hide(good).map_err(|e| git_error(good, e))?;
        let mut oids = vec![good];
        for oid in walk {
            oids.push(oid.map_err(|e| git_error(bad, e))?);
        }
        let position: HashMap<git2::Oid, usize> =
            oids.iter().enumerate().map(|(i, &oid)| (oid, i)).collect();
        let mut commits = Vec::with_capacity(oids.len());
        for (i, &oid) in oids.iter().enumerate() {
            let commit = repo.find_commit(oid).map_err(|e| git_error(oid, e))?;
            commits.push(dag_commit(&commit, i == 0, &position));
        }
        Dag::new(commits)
    }

    /// A graph from named nodes and their parents' names, for tests and
    /// examples. A node's oid, short id and summary are its name; its time
    /// is its position in `nodes`, so earlier nodes count as older.
    pub fn from_edges(nodes: &[(&str, &[&str])]) -> Result<Dag, VcsError> {
        let mut position = HashMap::new();
        for (i, (name, _)) in nodes.iter().enumerate() {
            if position.insert(*name, i).is_some() {
                return Err(VcsError::Graph(format!("node {name} is listed twice")));
            }
        }
        let mut commits = Vec::with_capacity(nodes.len());
        for (i, (name, parents)) in nodes.iter().enumerate() {
            let parents = parents
                .iter()
                .map(|p| {
                    position
                        .get(p)
                        .copied()
                        .ok_or_else(|| VcsError::Graph(format!("node {name}: unknown parent {p}")))
                })
                .collect::<Result<Vec<usize>, VcsError>>()?;
            commits.push(DagCommit {
                oid: name.to_string(),
                short: name.to_string(),
                summary: name.to_string(),
                time: i as i64,
                offset_minutes: 0,
                parents,
            });
        }
        Dag::new(commits)
    }

    /// Puts `commits` (parents as indices into `commits`) in topological
    /// order and renumbers the parents.
    fn new(commits: Vec<DagCommit>) -> Result<Dag, VcsError> {
        let order = topological_order(&commits)?;
        let mut renumber = vec![0; commits.len()];
        for (new, &old) in order.iter().enumerate() {
            renumber[old] = new;
        }
        let mut slots: Vec<Option<DagCommit>> = commits.into_iter().map(Some).collect();
        let mut sorted = Vec::with_capacity(order.len());
        for &old in &order {
            if let Some(mut commit) = slots[old].take() {
                commit.parents.iter_mut().for_each(|p| *p = renumber[*p]);
                sorted.push(commit);
            }
        }
        let index = sorted
            .iter()
            .enumerate()
            .map(|(i, c)| (c.oid.clone(), i))
            .collect();
        Ok(Dag {
            commits: sorted,
            index,
        })
    }

    /// Number of commits.
    pub fn len(&self) -> usize {
        self.commits.len()
    }

    pub fn is_empty(&self) -> bool {
        self.commits.is_empty()
    }

    /// The commit at `index`.
    pub fn commit(&self, index: usize) -> Option<&DagCommit> {
        self.commits.get(index)
    }

    /// The index of the commit with that oid (or node name).
    pub fn index_of(&self, oid: &str) -> Option<usize> {
        self.index.get(oid).copied()
    }

    /// All commits, in topological order.
    pub fn commits(&self) -> &[DagCommit] {
        &self.commits
    }
}

impl Repo {
    /// The graph between the revisions `good` and `bad` (any revspec,
    /// peeled to a commit) with the indices of good and bad in it.
    pub fn bisect_graph(&self, good: &str, bad: &str) -> Result<(Dag, usize, usize), VcsError> {
        let good = self.commit_of(good)?.id();
        let bad = self.commit_of(bad)?.id();
        let dag = Dag::from_repo(&self.repo, good, bad)?;
        let index = |oid: git2::Oid| {
            dag.index_of(&oid.to_string())
                .ok_or_else(|| VcsError::Commit {
                    repo: self.path.clone(),
                    commit: oid.to_string(),
                    message: "missing from its own commit graph".into(),
                })
        };
        let (good, bad) = (index(good)?, index(bad)?);
        Ok((dag, good, bad))
    }
}

/// The graph's view of one git commit; `is_good` drops its parents.
fn dag_commit(
    commit: &git2::Commit<'_>,
    is_good: bool,
    position: &HashMap<git2::Oid, usize>,
) -> DagCommit {
    let oid = commit.id().to_string();
    let parents = if is_good {
        Vec::new()
    } else {
        commit
            .parent_ids()
            .filter_map(|p| position.get(&p).copied())
            .collect()
    };
    DagCommit {
        short: oid.chars().take(10).collect(),
        oid,
        summary: commit
            .summary_bytes()
            .map(|s| String::from_utf8_lossy(s).into_owned())
            .unwrap_or_default(),
        time: commit.committer().when().seconds(),
        offset_minutes: commit.committer().when().offset_minutes(),
        parents,
    }
}

/// Kahn's algorithm: a commit comes once all its parents came; among those
/// ready, the older one first, then the smaller oid. A cycle is an error.
fn topological_order(commits: &[DagCommit]) -> Result<Vec<usize>, VcsError> {
    let mut waiting_parents: Vec<usize> = commits.iter().map(|c| c.parents.len()).collect();
    let mut children = vec![Vec::new(); commits.len()];
    for (i, commit) in commits.iter().enumerate() {
        for &p in &commit.parents {
            children[p].push(i);
        }
    }
    let key = |i: usize| Reverse((commits[i].time, commits[i].oid.as_str(), i));
    let mut ready: BinaryHeap<_> = (0..commits.len())
        .filter(|&i| waiting_parents[i] == 0)
        .map(key)
        .collect();
    let mut order = Vec::with_capacity(commits.len());
    while let Some(Reverse((_, _, i))) = ready.pop() {
        order.push(i);
        for &child in &children[i] {
            waiting_parents[child] -= 1;
            if waiting_parents[child] == 0 {
                ready.push(key(child));
            }
        }
    }
    if order.len() < commits.len() {
        return Err(VcsError::Graph(format!(
            "{} commit(s) are on a cycle of parents",
            commits.len() - order.len()
        )));
    }
    Ok(order)
}

/// The filtered set of the pair (good, bad): ancestors of `bad` (itself
/// included) that are neither `good` nor an ancestor of `good`, as indices
/// in topological order. Empty when an index is out of range.
pub fn filtered(dag: &Dag, good: usize, bad: usize) -> Vec<usize> {
    if good >= dag.len() || bad >= dag.len() {
        return Vec::new();
    }
    let excluded = ancestors_inclusive(dag, good, &vec![false; dag.len()]);
    let kept = ancestors_inclusive(dag, bad, &excluded);
    (0..dag.len()).filter(|&i| kept[i]).collect()
}

/// `start` and its ancestors, not entering commits marked in `stop`.
fn ancestors_inclusive(dag: &Dag, start: usize, stop: &[bool]) -> Vec<bool> {
    let mut seen = vec![false; dag.len()];
    if stop[start] {
        return seen;
    }
    seen[start] = true;
    let mut pending = vec![start];
    while let Some(c) = pending.pop() {
        for &p in &dag.commits[c].parents {
            if !seen[p] && !stop[p] {
                seen[p] = true;
                pending.push(p);
            }
        }
    }
    seen
}

/// The weight of every commit of the pair's filtered set, in topological
/// order.
pub fn weights(dag: &Dag, good: usize, bad: usize) -> Vec<Weight> {
    let kept = filtered(dag, good, bad);
    let n = kept.len();
    let mut slot = vec![None; dag.len()];
    for (s, &c) in kept.iter().enumerate() {
        slot[c] = Some(s);
    }
    let parent_slots = |c: usize| dag.commits[c].parents.iter().filter_map(|&p| slot[p]);
    let mut children_to_come = vec![0usize; n];
    for &c in &kept {
        parent_slots(c).for_each(|p| children_to_come[p] += 1);
    }
    let mut reach: Vec<Option<Bits>> = vec![None; n];
    let mut out = Vec::with_capacity(n);
    for (s, &c) in kept.iter().enumerate() {
        let mut bits = Bits::new(n);
        bits.set(s);
        for p in parent_slots(c) {
            if let Some(parent_reach) = &reach[p] {
                bits.union_with(parent_reach);
            }
            children_to_come[p] -= 1;
            if children_to_come[p] == 0 {
                reach[p] = None;
            }
        }
        let ancestors = bits.count() - 1;
        out.push(Weight {
            commit: c,
            ancestors,
            weight: (ancestors + 1).min(n - (ancestors + 1)),
        });
        if children_to_come[s] > 0 {
            reach[s] = Some(bits);
        }
    }
    out
}

/// The commit to measure next for the pair (good, bad), with its weight
/// and the size of the filtered set; `None` when nothing lies strictly
/// between good and bad. See the module documentation for ties.
pub fn next_probe_weighed(dag: &Dag, good: usize, bad: usize) -> Option<(Weight, usize)> {
    let all = weights(dag, good, bad);
    let n = all.len();
    let best = all
        .into_iter()
        .filter(|w| w.commit != bad)
        .min_by(|a, b| probe_order(dag, a, b))?;
    Some((best, n))
}

/// The commit to measure next for the pair (good, bad); `None` when
/// nothing lies strictly between them.
pub fn next_probe(dag: &Dag, good: usize, bad: usize) -> Option<usize> {
    next_probe_weighed(dag, good, bad).map(|(w, _)| w.commit)
}

/// Better probe first: higher weight, fewer ancestors, older, smaller oid.
fn probe_order(dag: &Dag, a: &Weight, b: &Weight) -> Ordering {
    let (ca, cb) = (&dag.commits[a.commit], &dag.commits[b.commit]);
    b.weight
        .cmp(&a.weight)
        .then(a.ancestors.cmp(&b.ancestors))
        .then(ca.time.cmp(&cb.time))
        .then_with(|| ca.oid.cmp(&cb.oid))
}

/// Narrows (good, bad) down to the commit that made things slower.
///
/// `judge(good, probe)` compares a probe with the current good commit:
/// [`Judgement::Slower`] continues with (good, probe), otherwise with
/// (probe, bad). Stops when nothing lies strictly between good and bad and
/// reports bad. The judge's error stops the bisection and is returned.
/// The caller is expected to have checked that bad is slower than good.
pub fn bisect<E>(
    dag: &Dag,
    good: usize,
    bad: usize,
    judge: &mut dyn FnMut(usize, usize) -> Result<Judgement, E>,
) -> Result<Outcome, E> {
    let (mut good, mut bad) = (good, bad);
    let mut steps = Vec::new();
    while let Some((probe, candidates)) = next_probe_weighed(dag, good, bad) {
        let judgement = judge(good, probe.commit)?;
        steps.push(Step {
            good,
            bad,
            probe: probe.commit,
            weight: probe.weight,
            candidates,
            judgement,
        });
        match judgement {
            Judgement::Slower => bad = probe.commit,
            Judgement::NotSlower => good = probe.commit,
        }
    }
    Ok(Outcome {
        responsible: bad,
        steps,
    })
}

/// A fixed-size set of small integers.
#[derive(Debug, Clone)]
struct Bits(Vec<u64>);

impl Bits {
    fn new(size: usize) -> Bits {
        Bits(vec![0; size.div_ceil(64)])
    }

    fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }

    fn union_with(&mut self, other: &Bits) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= b;
        }
    }

    fn count(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }
}

#[cfg(test)]
mod tests;
