//! Gathers the measurements of every file into the history's entries:
//! names, units, notes and file paths shared rather than copied (a long
//! benchmark history has millions of entries and a few thousand distinct
//! strings), and the entries made once, straight in (benchmark, version,
//! file) order: where each one goes is worked out first, on small
//! records, by counting the entries of every name.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::measurements::Reduced;
use model::{visible, MeasurementEntry};

/// One file's measurements: its version, its path relative to the input
/// directory, and what it held.
pub(super) type MeasuredFile<'a> = (usize, &'a str, Reduced);

/// The entries of every file in (benchmark, version, file) order, and the
/// (format, file) of every file that gave measurements, sorted. `files`
/// come in (version, file) order.
pub(super) fn gather(
    files: Vec<MeasuredFile>,
) -> (Vec<MeasurementEntry>, Vec<(&'static str, String)>) {
    let mut names = Names::default();
    let ids: Vec<Vec<usize>> = names_of_files(&files, &mut names);
    let places = places_of(&files, &ids, &names.shown);
    let mut sources: Vec<(&'static str, String)> = files
        .iter()
        .filter(|(_, _, read)| !read.benchmarks.is_empty())
        .map(|(_, file, read)| (read.format, file.to_string()))
        .collect();
    sources.sort_unstable();
    sources.dedup();
    let mut strings = Strings::default();
    let mut entries = Slots::new(places.len(), names.shown.len());
    // File by file, each file's benchmarks moved into their entries and
    // freed: the files' benchmarks and the entries are never held whole
    // at once (at 2,000 benchmarks x 1,000 versions the two were most of
    // a build's memory).
    let mut place = places.into_iter();
    for (f, ((version, file, read), of_file)) in files.into_iter().zip(ids).enumerate() {
        let here = strings.of_file(file, &read);
        for ((b, id), at) in read.benchmarks.into_iter().zip(of_file).zip(&mut place) {
            let entry = MeasurementEntry {
                version,
                benchmark: names.shown[id].clone(),
                unit: here.units[b.unit as usize].clone(),
                run_means: b.means,
                samples: b.samples,
                in_process: b.in_process,
                multi_sample: b.multi_sample,
                source: here.source.clone(),
                format: read.format,
                note: here.notes[b.note as usize].clone(),
                interval: b.interval.map(Box::new),
            };
            entries.put(id, at as usize, entry);
        }
        if f % RELEASE_EVERY == RELEASE_EVERY - 1 {
            crate::memory::release_free();
        }
    }
    crate::memory::release_free();
    (entries.filled(), sources)
}

/// How many files' benchmarks are freed between two returns of free
/// memory to the system.
const RELEASE_EVERY: usize = 64;

/// Entries of one benchmark held back before they are written to their
/// places together.
const BATCH: usize = 8;

/// The entries being put in their places: a vector of their final length
/// whose slots are written in any order, each once. A benchmark's entries
/// are written a few at a time, near each other (its range, version
/// after version): one file's entries go to every benchmark's range, and
/// written one by one, each would land on a page of its own. (Pushing
/// them in file order and then moving them into place, a cycle-following
/// permutation of 160-byte entries over hundreds of megabytes, took half
/// of the gathering at 2,000 x 1,000: 0.27–0.32 s.)
struct Slots {
    slots: Vec<std::mem::MaybeUninit<MeasurementEntry>>,
    written: Vec<bool>,
    count: usize,
    /// Per benchmark, entries not written yet and their places.
    held: Vec<Vec<(usize, MeasurementEntry)>>,
}

impl Slots {
    fn new(len: usize, benchmarks: usize) -> Slots {
        let mut slots = Vec::with_capacity(len);
        slots.resize_with(len, std::mem::MaybeUninit::uninit);
        Slots {
            slots,
            written: vec![false; len],
            count: 0,
            held: (0..benchmarks).map(|_| Vec::new()).collect(),
        }
    }

    /// Puts `entry` of benchmark `id` at `at`.
    fn put(&mut self, id: usize, at: usize, entry: MeasurementEntry) {
        let Some(held) = self.held.get_mut(id) else {
            self.write(at, entry);
            return;
        };
        held.push((at, entry));
        if held.len() == BATCH {
            self.flush(id);
        }
    }

    fn flush(&mut self, id: usize) {
        let mut held = std::mem::take(&mut self.held[id]);
        for (at, entry) in held.drain(..) {
            self.write(at, entry);
        }
        self.held[id] = held;
    }

    /// Writes `entry` at `at`; a slot already written keeps its entry (the
    /// places are a permutation: none is).
    fn write(&mut self, at: usize, entry: MeasurementEntry) {
        let (Some(slot), Some(written)) = (self.slots.get_mut(at), self.written.get_mut(at)) else {
            return;
        };
        if !*written {
            slot.write(entry);
            *written = true;
            self.count += 1;
        }
    }

    /// The entries in their places, once every slot is written; else
    /// (never: the places are a permutation) those written, in order.
    fn filled(mut self) -> Vec<MeasurementEntry> {
        for id in 0..self.held.len() {
            self.flush(id);
        }
        let Slots {
            slots,
            written,
            count,
            held: _,
        } = self;
        if count == slots.len() {
            let mut slots = std::mem::ManuallyDrop::new(slots);
            let (ptr, len, capacity) = (slots.as_mut_ptr(), slots.len(), slots.capacity());
            // SAFETY: every one of the `len` slots was written (`count`
            // counts first writes only), and `MaybeUninit<T>` has `T`'s
            // size and alignment, so the allocation holds `len`
            // initialized entries laid out as a `Vec<T>` of this capacity.
            return unsafe { Vec::from_raw_parts(ptr.cast::<MeasurementEntry>(), len, capacity) };
        }
        slots
            .into_iter()
            .zip(written)
            .filter(|(_, w)| *w)
            // SAFETY: a slot marked written holds an initialized entry.
            .map(|(slot, _)| unsafe { slot.assume_init() })
            .collect()
    }
}

/// Where each entry goes, by its position in file order (the files one
/// after another, each in its own order): the entries end in (benchmark
/// name, version, file) order ([`in_entry_order`]).
fn places_of(files: &[MeasuredFile], ids: &[Vec<usize>], shown: &[Arc<str>]) -> Vec<u32> {
    let mut first_of_file = Vec::with_capacity(ids.len());
    let mut total = 0usize;
    for of_file in ids {
        first_of_file.push(total);
        total += of_file.len();
    }
    let mut places = vec![0u32; total];
    for (place, (f, b)) in in_entry_order(files, ids, shown).into_iter().enumerate() {
        places[first_of_file[f as usize] + b as usize] = place as u32;
    }
    places
}

/// Where every entry comes from, as (file, benchmark) positions, in
/// (benchmark name, version, file) order: a counting sort by the rank of
/// the name (stable, so each name's entries stay in version order), then
/// several files of one version ordered by path.
fn in_entry_order(
    files: &[MeasuredFile],
    ids: &[Vec<usize>],
    shown: &[Arc<str>],
) -> Vec<(u32, u32)> {
    let mut by_name: Vec<usize> = (0..shown.len()).collect();
    by_name.sort_unstable_by(|&a, &b| shown[a].cmp(&shown[b]));
    let mut rank = vec![0; shown.len()];
    for (r, &id) in by_name.iter().enumerate() {
        rank[id] = r;
    }
    let mut next = vec![0usize; shown.len() + 1];
    for &id in ids.iter().flatten() {
        next[rank[id] + 1] += 1;
    }
    for r in 1..next.len() {
        next[r] += next[r - 1];
    }
    let starts = next.clone();
    let mut origins = vec![(0u32, 0u32); next[shown.len()]];
    for (f, of_file) in ids.iter().enumerate() {
        for (b, &id) in of_file.iter().enumerate() {
            origins[next[rank[id]]] = (f as u32, b as u32);
            next[rank[id]] += 1;
        }
    }
    let place = |&(f, _): &(u32, u32)| (files[f as usize].0, files[f as usize].1);
    for w in starts.windows(2) {
        origins[w[0]..w[1]].sort_by(|a, b| place(a).cmp(&place(b)));
    }
    origins
}

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

/// Units and notes, shared across files.
#[derive(Default)]
struct Strings {
    units: FxHashMap<String, Arc<str>>,
    notes: FxHashMap<String, Arc<str>>,
}

/// One file's path, units and notes, shared.
struct FileStrings {
    source: Arc<str>,
    units: Vec<Arc<str>>,
    notes: Vec<Arc<str>>,
}

impl Strings {
    fn of_file(&mut self, file: &str, read: &Reduced) -> FileStrings {
        FileStrings {
            source: Arc::from(file),
            units: read
                .units
                .iter()
                .map(|u| shared(&mut self.units, u))
                .collect(),
            notes: read
                .notes
                .iter()
                .map(|n| shared(&mut self.notes, n))
                .collect(),
        }
    }
}

/// `value` from `table`, added when new.
fn shared(table: &mut FxHashMap<String, Arc<str>>, value: &str) -> Arc<str> {
    if let Some(known) = table.get(value) {
        return known.clone();
    }
    let new: Arc<str> = Arc::from(value);
    table.insert(value.to_string(), new.clone());
    new
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

    fn order(entries: &[MeasurementEntry]) -> Vec<String> {
        entries
            .iter()
            .map(|e| format!("{} {} {}", e.benchmark, e.version, e.source))
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
        let (entries, _) = gather(vec![
            (0, "1.0/t.json", file(&["x\u{1}", "x\u{2401}"], "s")),
            (1, "2.0/t.json", file(&["x\u{1}"], "s")),
        ]);
        assert_eq!(entries.len(), 3);
        assert!(entries
            .iter()
            .all(|e| Arc::ptr_eq(&e.benchmark, &entries[0].benchmark)));
        assert!(entries
            .iter()
            .all(|e| Arc::ptr_eq(&e.unit, &entries[0].unit)));
        assert!(Arc::ptr_eq(&entries[0].source, &entries[1].source));
        assert_eq!(
            entries.iter().map(|e| e.version).collect::<Vec<_>>(),
            [0, 0, 1]
        );
    }
}
