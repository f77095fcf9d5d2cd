//! Build-cache entries of the profiles a build parsed, encoded after the
//! history is loaded instead of by the file's reading job: encoding a large
//! profile (tens of MB of postcard) then runs beside the analysis, on a
//! core the analysis leaves idle, instead of on the load's critical path.
//!
//! An entry is encoded from the history's profile and the ids the history
//! gave the file's frames, in the file's order: the history holds each of
//! them as the file's table did (interning keeps a frame as it is once it
//! is shown as written), so no copy of the file's table is kept aside.
//! Its bytes are those [`records::encode`] gives for the profile as
//! parsed.

use std::collections::HashMap;

use rayon::prelude::*;

use crate::records::{self, ProfileParts};
use model::error::ParseError;
use model::{FrameId, History};

/// The profiles whose entries are still to be encoded.
#[derive(Debug, Default)]
pub struct Deferred {
    profiles: Vec<DeferredProfile>,
}

/// One parsed profile: its cache key, the file it came from (its
/// `ProfileEntry::source`), and what its entry needs besides the profile.
#[derive(Debug)]
pub(super) struct DeferredProfile {
    pub key: String,
    pub source: String,
    pub format: &'static str,
    /// The history's id of each of `frames`.
    pub global: Vec<FrameId>,
    /// Metrics the parser gave (derived metrics come after them).
    pub metrics: usize,
    pub warnings: Vec<ParseError>,
}

impl Deferred {
    pub(super) fn push(&mut self, profile: DeferredProfile) {
        self.profiles.push(profile);
    }

    /// Encodes every entry and hands it, with its key, to `write`, in
    /// parallel; stops at the first error `write` returns.
    pub fn encode_each<E: Send>(
        self,
        history: &History,
        write: impl Fn(&str, &dyn Fn(&mut std::fs::File) -> std::io::Result<()>) -> Result<(), E> + Sync,
    ) -> Result<(), E> {
        let by_source: HashMap<&str, usize> = history
            .profiles
            .iter()
            .enumerate()
            .map(|(i, p)| (p.source.as_str(), i))
            .collect();
        let frame_count = history.frames.len();
        self.profiles.into_par_iter().try_for_each(|d| {
            let Some(&at) = by_source.get(d.source.as_str()) else {
                return Ok(());
            };
            let local = local_ids(&d.global, frame_count);
            let parts = ProfileParts {
                format: d.format,
                frames: d.global.iter().map(|&g| history.frames.get(g)).collect(),
                profile: &history.profiles[at].profile,
                metrics: d.metrics,
                warnings: &d.warnings,
            };
            write(&d.key, &|file| {
                records::write_profile(&parts, |f| local[f.0 as usize], file)
            })
        })
    }
}

/// The inverse of `global` (file frame → history frame; injective, since
/// a frame table holds each frame once): the file's id of each history
/// frame it names.
fn local_ids(global: &[FrameId], frame_count: usize) -> Vec<u32> {
    let mut local = vec![0; frame_count];
    for (l, g) in global.iter().enumerate() {
        local[g.0 as usize] = l as u32;
    }
    local
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};
    use std::sync::Mutex;

    use crate::load::{load_history_cached, read_and_parse, ParseCache};
    use crate::Loaded;

    /// A cache that defers every profile and keys a file by its path in
    /// its version.
    #[derive(Default)]
    struct Deferring {
        put: Mutex<Vec<String>>,
    }

    impl ParseCache for Deferring {
        fn enabled(&self) -> bool {
            true
        }
        fn key(&self, within_version: &str, _: &str, _: &[u8]) -> String {
            within_version.to_string()
        }
        fn key_of_reader(
            &self,
            within_version: &str,
            _: &str,
            _: &mut dyn std::io::Read,
        ) -> std::io::Result<String> {
            Ok(within_version.to_string())
        }
        fn get(&self, _: &str) -> Option<Loaded> {
            None
        }
        fn put(&self, key: &str, _: &Loaded) {
            self.put.lock().unwrap().push(key.to_string());
        }
        fn defers_profiles(&self) -> bool {
            true
        }
    }

    fn fixture(path: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures")
            .join(path)
    }

    /// Real profiles of several formats in two versions, so the history's
    /// frame ids differ from each file's own, and with a metric added after
    /// loading: every deferred entry is the bytes the file's reading job
    /// would have encoded.
    #[test]
    fn deferred_entries_equal_what_the_reading_job_would_encode() {
        let files = [
            "pstats/workload-py311.prof",
            "pstats/workload-py38.prof",
            "cpp-perf/prog.folded",
            "heapprofile/alloc.heapprofile",
        ];
        let input = tempfile::tempdir().unwrap();
        for version in ["1.0", "2.0"] {
            let dir = input.path().join(version);
            std::fs::create_dir(&dir).unwrap();
            for f in files {
                let name = Path::new(f).file_name().unwrap();
                std::fs::copy(fixture(f), dir.join(name)).unwrap();
            }
        }
        let cache = Deferring::default();
        let config = config::Config::default();
        let (mut history, deferred) = load_history_cached(input.path(), &config, &cache).unwrap();
        // A derived metric added after loading is not the file's.
        for entry in &mut history.profiles {
            let ones = vec![1.0; entry.profile.tree.len()];
            entry.profile.tree.push_metric(&ones);
            entry
                .profile
                .metrics
                .push(model::Metric::new("derived", model::Unit::Count));
        }
        assert!(
            cache.put.lock().unwrap().is_empty(),
            "profiles are deferred"
        );
        assert_eq!(history.profiles.len(), 8);
        let entries = Mutex::new(Vec::new());
        let kept = |key: &str, write: &dyn Fn(&mut std::fs::File) -> std::io::Result<()>| {
            let mut file = tempfile::tempfile().unwrap();
            write(&mut file).unwrap();
            let mut bytes = Vec::new();
            std::io::Seek::rewind(&mut file).unwrap();
            std::io::Read::read_to_end(&mut file, &mut bytes).unwrap();
            entries.lock().unwrap().push((key.to_string(), bytes));
            Ok::<(), ()>(())
        };
        deferred.encode_each(&history, kept).unwrap();
        let entries = entries.into_inner().unwrap();
        assert_eq!(entries.len(), 8);
        for (key, bytes) in entries {
            let path = history
                .profiles
                .iter()
                .find(|p| p.source.ends_with(&key))
                .map(|p| input.path().join(&p.source))
                .unwrap();
            let (format, parsed) = read_and_parse(&path).unwrap();
            let direct = crate::records::encode(&Loaded::Profile(format, Box::new(parsed)));
            assert!(bytes == direct, "{key}: the deferred entry differs");
        }
    }
}
