//! Gathers the measurements of every file into each benchmark's entries:
//! names shared, and units, notes and file paths interned, rather than
//! copied (a long benchmark history has millions of entries and a few
//! thousand distinct strings), and each benchmark's entries made once,
//! straight into a vector of their number, in (version, file) order.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use rayon::prelude::*;

use super::gathered_store::{CoveredFile, Previous, Taken};
use super::reuse::Reuse;
use crate::measurements::Reduced;
use crate::walk::InputFile;
use model::{intern, visible, MeasuredBenchmark, MeasurementEntry};

/// One file's measurements: its version, its path relative to the input
/// directory, and what it held.
pub(super) type MeasuredFile<'a> = (usize, &'a str, Reduced);

/// The entries of every benchmark, in name order, each benchmark's in
/// (version, file) order, and the (format, file) of every file that gave
/// measurements, sorted.
pub(super) fn gather(
    mut files: Vec<MeasuredFile>,
) -> (Vec<MeasuredBenchmark>, Vec<(&'static str, String)>) {
    // Stable: a file's benchmarks keep their order.
    files.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
    let mut names = Names::default();
    let ids: Vec<Vec<usize>> = names_of_files(&files, &mut names);
    let mut sources: Vec<(&'static str, String)> = files
        .iter()
        .filter(|(_, _, read)| !read.benchmarks.is_empty())
        .map(|(_, file, read)| (read.format, file.to_string()))
        .collect();
    sources.sort_unstable();
    sources.dedup();
    let mut counts = vec![0usize; names.shown.len()];
    for &id in ids.iter().flatten() {
        counts[id] += 1;
    }
    let mut measured: Vec<MeasuredBenchmark> = names
        .shown
        .iter()
        .zip(counts)
        .map(|(name, count)| MeasuredBenchmark {
            name: name.clone(),
            entries: Vec::with_capacity(count),
        })
        .collect();
    // Some files at a time, each block's benchmarks copied into their
    // entries and freed: the files' benchmarks and the entries are never
    // held whole at once (at 2,000 benchmarks x 1,000 versions the two
    // were most of a build's memory). The entries are filled in two
    // halves at once, by benchmark: each half writes its own benchmarks'
    // entries (fresh memory, a few hundred MB over a long history, most of
    // the time being the first touch of its pages), in file order.
    let half = measured.len() / 2;
    let (low, high) = measured.split_at_mut(half);
    let mut files = files.into_iter().zip(ids);
    loop {
        let block: Vec<(MeasuredFile, Vec<usize>)> = files.by_ref().take(RELEASE_EVERY).collect();
        if block.is_empty() {
            break;
        }
        let strings: Vec<FileStrings> = block
            .iter()
            .map(|((_, file, read), _)| FileStrings::of(file, read))
            .collect();
        rayon::join(
            || fill_entries(low, 0, &block, &strings),
            || fill_entries(high, half, &block, &strings),
        );
        drop(block);
        instrument::memory::release_free();
    }
    measured.sort_unstable_by(|a, b| a.name.cmp(&b.name));
    (measured, sources)
}

/// The measurement files whose entries are taken from the previous
/// build's gathered measurements, and those the new ones cover.
#[derive(Default)]
pub(super) struct Kept<'a> {
    /// (version, file, path inside its version, index among the previous
    /// build's gathered files) of each file taken from there.
    pub taken: Vec<(usize, &'a InputFile, &'a str, u32)>,
    /// The files this build's gathered measurements cover.
    pub files: Vec<CoveredFile<'a>>,
}

impl<'a> Kept<'a> {
    /// Notes what a measurement file gave: true when its entries are
    /// taken from the previous build's gathered measurements (`read` is
    /// then empty).
    pub fn note(
        &mut self,
        (version, file, inside): (usize, &'a InputFile, &'a str),
        read: &Reduced,
        noted: Reuse,
        in_base: impl Fn(u32) -> bool,
    ) -> bool {
        let Some(key) = noted.key else {
            return false;
        };
        let mut covered = CoveredFile {
            version,
            relative: &file.relative,
            key,
            format: read.format,
            taken: false,
            in_base: false,
        };
        if let Some(at) = noted.taken {
            covered.taken = true;
            covered.in_base = in_base(at);
            self.taken.push((version, file, inside, at));
            self.files.push(covered);
            return true;
        }
        if super::reuse::gatherable(read) {
            self.files.push(covered);
        }
        false
    }

    /// The entries of the files taken, and their (format, file) as
    /// [`gather`] gives them; `None` when there are none or the previous
    /// build's gathered measurements cannot be read. Each benchmark has
    /// room for its entries in `fresh`.
    pub fn taken_entries(
        &self,
        previous: Option<&Previous>,
        fresh: &[MeasuredBenchmark],
    ) -> Option<(Taken, Vec<(&'static str, String)>)> {
        let previous = previous.filter(|_| !self.taken.is_empty())?;
        let taken: FxHashMap<u32, (usize, &'static str)> = self
            .taken
            .iter()
            .map(|(version, file, _, at)| (*at, (*version, intern(&file.relative))))
            .collect();
        let extra: FxHashMap<&str, usize> =
            fresh.iter().map(|b| (&*b.name, b.entries.len())).collect();
        let entries = previous.entries(&taken, &extra)?;
        let sources = self
            .taken
            .iter()
            .filter_map(|(_, file, _, at)| Some((previous.format_of(*at)?, file.relative.clone())))
            .collect();
        Some((entries, sources))
    }
}

/// `taken` and `fresh`, each in name order, as one list in name order; a
/// benchmark in both has its entries in (version, file) order, as
/// [`gather`] gives them.
pub(super) fn merge(
    taken: Vec<MeasuredBenchmark>,
    fresh: Vec<MeasuredBenchmark>,
) -> Vec<MeasuredBenchmark> {
    if taken.is_empty() {
        return fresh;
    }
    let mut merged = Vec::with_capacity(taken.len().max(fresh.len()));
    let (mut taken, mut fresh) = (taken.into_iter().peekable(), fresh.into_iter().peekable());
    loop {
        let next = match (taken.peek(), fresh.peek()) {
            (Some(a), Some(b)) => match a.name.cmp(&b.name) {
                std::cmp::Ordering::Less => taken.next(),
                std::cmp::Ordering::Greater => fresh.next(),
                std::cmp::Ordering::Equal => {
                    let (a, b) = (taken.next(), fresh.next());
                    a.zip(b).map(|(mut a, b)| {
                        a.entries.extend(b.entries);
                        a
                    })
                }
            },
            (Some(_), None) => taken.next(),
            (None, Some(_)) => fresh.next(),
            (None, None) => break,
        };
        merged.extend(next);
    }
    merged
        .par_iter_mut()
        .for_each(|b| in_file_order(&mut b.entries));
    merged
}

/// Sorts `entries` by (version, file) unless they are already: taken
/// entries come first, and a version's new file, or versions now ordered
/// otherwise, put them out of order.
fn in_file_order(entries: &mut [MeasurementEntry]) {
    let key = |e: &MeasurementEntry| (e.version, e.source);
    if !entries.is_sorted_by(|a, b| key(a) <= key(b)) {
        entries.sort_by(|a, b| key(a).cmp(&key(b)));
    }
}

/// Appends to `part` (the benchmarks from id `first` on) the entries of
/// its benchmarks in `block`'s files, in file order.
fn fill_entries(
    part: &mut [MeasuredBenchmark],
    first: usize,
    block: &[(MeasuredFile, Vec<usize>)],
    strings: &[FileStrings],
) {
    let end = first + part.len();
    for (((version, _, read), of_file), here) in block.iter().zip(strings) {
        for (b, &id) in read.benchmarks.iter().zip(of_file) {
            if !(first..end).contains(&id) {
                continue;
            }
            part[id - first].entries.push(MeasurementEntry {
                version: *version,
                unit: here.units[b.unit as usize],
                run_means: b.means.clone(),
                samples: b.samples,
                in_process: b.in_process,
                multi_sample: b.multi_sample,
                source: here.source,
                format: read.format,
                note: here.notes[b.note as usize],
                interval: b.interval.map(Box::new),
            });
        }
    }
}

/// How many files' benchmarks are freed between two returns of free
/// memory to the system.
const RELEASE_EVERY: usize = 64;

/// The name id of every benchmark of every file. Consecutive files mostly
/// list the same names in the same order, so a name is first compared
/// with the one at its place in the file before, and looked up only when
/// it differs.
fn names_of_files(files: &[MeasuredFile], names: &mut Names) -> Vec<Vec<usize>> {
    let mut previous: Vec<(&str, usize)> = Vec::new();
    let mut ids = Vec::with_capacity(files.len());
    for (_, _, read) in files {
        let mut these = Vec::with_capacity(read.benchmarks.len());
        for (at, b) in read.benchmarks.iter().enumerate() {
            let name = read.name_of(b);
            let id = match previous.get(at) {
                Some(&(before, id)) if before == name => id,
                _ => names.id(name),
            };
            these.push((name, id));
        }
        ids.push(these.iter().map(|&(_, id)| id).collect());
        if !these.is_empty() {
            previous = these;
        }
    }
    ids
}

/// Benchmark names: as shown ([`visible`]), shared, with an id each.
/// Names read differently but shown alike are one benchmark.
#[derive(Default)]
struct Names {
    /// By id.
    shown: Vec<Arc<str>>,
    /// Name as shown → its id.
    ids: FxHashMap<Arc<str>, usize>,
    /// Name as read → its id.
    read: FxHashMap<String, usize>,
}

impl Names {
    fn id(&mut self, read: &str) -> usize {
        if let Some(&id) = self.read.get(read) {
            return id;
        }
        let shown: Arc<str> = Arc::from(visible(read));
        let id = match self.ids.get(&shown) {
            Some(&id) => id,
            None => {
                self.shown.push(shown.clone());
                self.ids.insert(shown, self.shown.len() - 1);
                self.shown.len() - 1
            }
        };
        self.read.insert(read.to_string(), id);
        id
    }
}

/// One file's path, units and notes, interned.
struct FileStrings {
    source: &'static str,
    units: Vec<&'static str>,
    notes: Vec<&'static str>,
}

impl FileStrings {
    fn of(file: &str, read: &Reduced) -> FileStrings {
        FileStrings {
            source: intern(file),
            units: read.units.iter().map(|u| intern(u)).collect(),
            notes: read.notes.iter().map(|n| intern(n)).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measurements::{Measured, MeasurementFile};

    fn file(names: &[&str], unit: &str) -> Reduced {
        Reduced::of(MeasurementFile {
            format: "hyperfine",
            benchmarks: names
                .iter()
                .map(|name| Measured {
                    name: name.to_string(),
                    unit: unit.to_string(),
                    runs: vec![vec![1.0], vec![2.0]],
                    in_process: false,
                    note: String::new(),
                    interval: None,
                })
                .collect(),
            warnings: Vec::new(),
        })
    }

    fn order(measured: &[MeasuredBenchmark]) -> Vec<String> {
        measured
            .iter()
            .flat_map(|b| {
                b.entries
                    .iter()
                    .map(|e| format!("{} {} {}", b.name, e.version, e.source))
            })
            .collect()
    }

    #[test]
    fn entries_come_out_by_benchmark_then_version_then_file() {
        let (entries, files) = gather(vec![
            (0, "1.0/z.json", file(&["b", "a"], "s")),
            (0, "1.0/m.json", file(&["b"], "s")),
            (1, "2.0/a.json", file(&["a", "c"], "s")),
            (1, "2.0/b.json", file(&[], "s")),
        ]);
        assert_eq!(
            order(&entries),
            [
                "a 0 1.0/z.json",
                "a 1 2.0/a.json",
                "b 0 1.0/m.json",
                "b 0 1.0/z.json",
                "c 1 2.0/a.json",
            ]
        );
        // A file without benchmarks gave no measurements.
        let files: Vec<&str> = files.iter().map(|(_, f)| f.as_str()).collect();
        assert_eq!(files, ["1.0/m.json", "1.0/z.json", "2.0/a.json"]);
    }

    /// Many versions (each benchmark's entries are written some at a
    /// time), two files a version listed out of path order, names in
    /// different orders and a benchmark that comes and goes.
    #[test]
    fn a_long_history_comes_out_in_order() {
        let mut files = Vec::new();
        let mut expected = Vec::new();
        for v in 0..37 {
            let names: &[&str] = match v % 3 {
                0 => &["c", "a", "b"],
                1 => &["a", "b"],
                _ => &["b", "c", "a"],
            };
            files.push((v, format!("{v}/z.json"), names.to_vec()));
            files.push((v, format!("{v}/m.json"), vec!["b"]));
        }
        for (v, path, names) in &files {
            for n in names {
                expected.push((n.to_string(), *v, path.clone()));
            }
        }
        expected.sort();
        let expected: Vec<String> = expected
            .iter()
            .map(|(n, v, p)| format!("{n} {v} {p}"))
            .collect();
        let input = files
            .iter()
            .map(|(v, path, names)| (*v, path.as_str(), file(names, "s")))
            .collect();
        let (entries, _) = gather(input);
        assert_eq!(order(&entries), expected);
    }

    #[test]
    fn strings_are_shared_and_names_shown_alike_are_one_benchmark() {
        let (measured, _) = gather(vec![
            (0, "1.0/t.json", file(&["x\u{1}", "x\u{2401}"], "s")),
            (1, "2.0/t.json", file(&["x\u{1}"], "s")),
        ]);
        assert_eq!(measured.len(), 1);
        let entries = &measured[0].entries;
        assert_eq!(entries.len(), 3);
        assert!(entries
            .iter()
            .all(|e| std::ptr::eq(e.unit, entries[0].unit)));
        assert!(std::ptr::eq(entries[0].source, entries[1].source));
        assert_eq!(
            entries.iter().map(|e| e.version).collect::<Vec<_>>(),
            [0, 0, 1]
        );
    }
}
