//! The memory the parallel reads of input files hold at once: each read
//! takes its file's cost (its size, or for gzip data the size it says it
//! expands to) from one budget ([`READ_BUDGET`]) before it starts, and
//! gives it back when done. A read that does not fit waits for others to
//! end; one bigger than the whole budget runs alone. So a build's memory
//! follows the inputs' sizes, not `-j` times the per-file limit.
//!
//! The waiting is done by the thread that hands out the reads, which runs
//! reads already handed out while it waits: a read never waits for the
//! budget itself, so reads that use every core inside (a big folded file,
//! a file read in parts) cannot block each other.

use std::path::Path;
use std::sync::{Condvar, Mutex};
use std::time::Duration;

use model::limits::READ_BUDGET;

/// `run` of every job on every core, each holding `cost(job)` bytes of
/// the budget while it runs; the results in the jobs' order.
pub(crate) fn map_within_budget<J: Sync, T: Send>(
    jobs: &[J],
    cost: impl Fn(&J) -> u64 + Sync,
    run: impl Fn(&J) -> T + Sync,
) -> Vec<T> {
    let budget = Budget::new(READ_BUDGET);
    let slots: Vec<Mutex<Option<T>>> = jobs.iter().map(|_| Mutex::new(None)).collect();
    let (budget, slots_ref, run) = (&budget, &slots, &run);
    rayon::scope(|s| {
        for (i, job) in jobs.iter().enumerate() {
            let cost = budget.take(cost(job));
            s.spawn(move |_| {
                let out = run(job);
                *lock(&slots_ref[i]) = Some(out);
                budget.give_back(cost);
            });
        }
    });
    // Every job ran (the scope returns only once all have); were a result
    // missing, its job would run again here.
    slots
        .into_iter()
        .zip(jobs)
        .map(|(slot, job)| {
            slot.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .unwrap_or_else(|| run(job))
        })
        .collect()
}

/// What a read of the file at `path` holds in memory, as far as can be
/// told without reading it: its size, plus what gzip data says it
/// expands to (bounded by the gzip limit). 0 for what cannot be looked at
/// (the read will say why).
pub(crate) fn read_cost(path: &Path) -> u64 {
    use std::io::{Read, Seek, SeekFrom};
    let Ok(meta) = std::fs::metadata(path) else {
        return 0;
    };
    if !meta.is_file() {
        return 0;
    }
    let size = meta.len();
    let mut head = [0u8; 2];
    let mut trailer = [0u8; 4];
    let gzip = std::fs::File::open(path).is_ok_and(|mut f| {
        f.read_exact(&mut head).is_ok()
            && crate::text::is_gzip(&head)
            && size >= 4
            && f.seek(SeekFrom::Start(size - 4)).is_ok()
            && f.read_exact(&mut trailer).is_ok()
    });
    match gzip {
        true => size + crate::text::stated_gzip_size(trailer).min(crate::text::gzip_limit()),
        false => size,
    }
}

/// Bytes held out of a total.
struct Budget {
    total: u64,
    held: Mutex<u64>,
    freed: Condvar,
}

impl Budget {
    fn new(total: u64) -> Budget {
        Budget {
            total,
            held: Mutex::new(0),
            freed: Condvar::new(),
        }
    }

    /// Takes `cost` bytes (at most the whole budget), once they are free
    /// or nothing is held; meanwhile runs reads already handed out, or
    /// waits for one to end. Returns what was taken.
    fn take(&self, cost: u64) -> u64 {
        let cost = cost.min(self.total);
        loop {
            let mut held = lock(&self.held);
            if *held == 0 || *held + cost <= self.total {
                *held += cost;
                return cost;
            }
            drop(held);
            if let Some(rayon::Yield::Executed) = rayon::yield_now() {
                continue;
            }
            held = lock(&self.held);
            if *held != 0 && *held + cost > self.total {
                // Bounded: a wake-up missed between the two locks costs
                // this much at most.
                let _ = self.freed.wait_timeout(held, Duration::from_millis(20));
            }
        }
    }

    fn give_back(&self, cost: u64) {
        let mut held = lock(&self.held);
        *held = held.saturating_sub(cost);
        self.freed.notify_all();
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    #[test]
    fn reads_hold_at_most_the_budget_and_a_bigger_one_runs_alone() {
        let held = AtomicU64::new(0);
        let peak = AtomicU64::new(0);
        let third = READ_BUDGET / 3;
        // Six reads of a third of the budget, then one twice its size.
        let mut costs = vec![third; 6];
        costs.push(READ_BUDGET * 2);
        costs.extend([third; 3]);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(8)
            .build()
            .unwrap();
        let out = pool.install(|| {
            map_within_budget(
                &costs,
                |&c| c,
                |&c| {
                    let now = held.fetch_add(c, Ordering::SeqCst) + c;
                    peak.fetch_max(now, Ordering::SeqCst);
                    std::thread::sleep(Duration::from_millis(30));
                    held.fetch_sub(c, Ordering::SeqCst);
                    c
                },
            )
        });
        assert_eq!(out, costs, "results in the jobs' order");
        let peak = peak.load(Ordering::SeqCst);
        assert!(
            peak <= READ_BUDGET || peak == READ_BUDGET * 2,
            "{peak} bytes held at once, over the budget"
        );
        assert!(peak >= 2 * third, "reads ran side by side");
    }

    #[test]
    fn one_thread_is_enough() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let costs = vec![READ_BUDGET; 5];
        let out = pool.install(|| map_within_budget(&costs, |&c| c, |&c| c / 2));
        assert_eq!(out, vec![READ_BUDGET / 2; 5]);
    }

    #[test]
    fn gzip_files_cost_what_they_expand_to() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("a.folded");
        std::fs::write(&plain, vec![b'x'; 1000]).unwrap();
        assert_eq!(read_cost(&plain), 1000);
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(&vec![b'x'; 100_000]).unwrap();
        let gz = enc.finish().unwrap();
        let packed = dir.path().join("a.folded.gz");
        std::fs::write(&packed, &gz).unwrap();
        assert_eq!(read_cost(&packed), gz.len() as u64 + 100_000);
        assert_eq!(read_cost(&dir.path().join("missing")), 0);
    }
}
