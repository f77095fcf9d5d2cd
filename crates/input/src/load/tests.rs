//! Tests of the loader: whole directories, files changed while read,
//! big pprof profiles read split or again.

use super::*;

#[cfg(unix)]
#[test]
fn parted_reads_give_the_whole_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big");
    let bytes: Vec<u8> = (0..3_000_001u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(&path, &bytes).unwrap();
    assert_eq!(read_in_parts(&path, bytes.len()).unwrap(), bytes);
    // A file longer or shorter than the size first seen.
    assert_eq!(read_in_parts(&path, 1000).unwrap(), bytes);
    assert_eq!(read_in_parts(&path, 4_000_000).unwrap(), bytes);
}

/// Go's demo CPU profile, gzipped as Go writes it.
fn demo_cpu() -> Vec<u8> {
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/pprof/go-demo/1.0/demo.cpu.pb.gz"
    );
    std::fs::read(fixture).unwrap()
}

/// [`big_pprof`] written as `cpu.pb` in a new directory (kept while the
/// returned handle lives), with its bytes.
fn big_pprof_file() -> (tempfile::TempDir, std::path::PathBuf, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cpu.pb");
    let (bytes, _) = big_pprof();
    std::fs::write(&path, &bytes).unwrap();
    (dir, path, bytes)
}

/// [`demo_cpu`] with its samples repeated past
/// [`reread::REREAD_BYTES`], and how many times they are there.
fn big_pprof() -> (Vec<u8>, usize) {
    use prost::Message;
    let raw = crate::text::gunzip(&demo_cpu()).unwrap();
    let mut profile = crate::pprof::pb::Profile::decode(&*raw).unwrap();
    let samples = std::mem::take(&mut profile.sample);
    let per_copy: usize = samples
        .iter()
        .map(|s| prost::encoding::message::encoded_len(2, s))
        .sum();
    let copies = reread::REREAD_BYTES / per_copy + 1;
    for _ in 0..copies {
        profile.sample.extend(samples.iter().cloned());
    }
    (profile.encode_to_vec(), copies)
}

#[cfg(unix)]
#[test]
fn a_big_pprof_profile_read_again_for_its_samples_reads_as_in_one_piece() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cpu.pb");
    let (bytes, copies) = big_pprof();
    assert!(bytes.len() >= reread::REREAD_BYTES);
    std::fs::write(&path, &bytes).unwrap();
    let (read, _) = read_input(&path, "1.0", &NoCache).unwrap();
    let in_one_piece = crate::load_bytes("1.0", "cpu.pb", &bytes).unwrap();
    assert_eq!(format!("{read:?}"), format!("{in_one_piece:?}"));
    // The same for `convert`, which reads the one file.
    let converted = read_and_parse(&path).unwrap();
    let parsed_in_one_piece = crate::parse_bytes("cpu.pb", &bytes).unwrap();
    assert_eq!(format!("{converted:?}"), format!("{parsed_in_one_piece:?}"));
    // Gzipped (decompressed again from the file, on each thread).
    let gz_path = dir.path().join("cpu.pb.gz");
    std::fs::write(&gz_path, gzipped(&bytes)).unwrap();
    let (unzipped, _) = read_input(&gz_path, "1.0", &NoCache).unwrap();
    assert_eq!(format!("{unzipped:?}"), format!("{in_one_piece:?}"));
    let converted = read_and_parse(&gz_path).unwrap();
    assert_eq!(format!("{converted:?}"), format!("{parsed_in_one_piece:?}"));
    // The samples are all there: each copy's count.
    let Loaded::Profile("pprof", parsed) = read else {
        panic!("not read as pprof")
    };
    let (_, one) = crate::parse_bytes("demo.cpu.pb.gz", &demo_cpu()).unwrap();
    let one = one.profile.totals()[0];
    assert_eq!(parsed.profile.totals()[0], one * copies as f64);
}

/// A cache keyed by the file's whole bytes (their length and a sum),
/// that hands back a stand-in for what it was given under a key.
#[derive(Default)]
struct WholeBytesCache {
    kept: std::sync::Mutex<Vec<(String, String)>>,
}

impl WholeBytesCache {
    fn key_of(bytes: &[u8]) -> String {
        let sum = bytes
            .iter()
            .fold(0u64, |s, &b| s.wrapping_mul(31).wrapping_add(u64::from(b)));
        format!("{}-{sum}", bytes.len())
    }
}

impl ParseCache for WholeBytesCache {
    fn enabled(&self) -> bool {
        true
    }
    fn key(&self, _: &str, _: &str, bytes: &[u8]) -> String {
        WholeBytesCache::key_of(bytes)
    }
    fn key_of_reader(
        &self,
        _: &str,
        _: &str,
        reader: &mut dyn std::io::Read,
    ) -> std::io::Result<String> {
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes)?;
        Ok(WholeBytesCache::key_of(&bytes))
    }
    fn get(&self, key: &str) -> Option<Loaded> {
        let kept = self.kept.lock().unwrap();
        kept.iter().find(|(k, _)| k == key)?;
        // A stand-in, told apart from the profile read.
        crate::load_bytes("1.0", "kept.folded", b"kept 1\n").ok()
    }
    fn put(&self, key: &str, loaded: &Loaded) {
        let what = match loaded {
            Loaded::Profile(format, _) => format.to_string(),
            Loaded::Measurements(_) => "measurements".to_string(),
        };
        self.kept.lock().unwrap().push((key.to_string(), what));
    }
}

/// A big pprof file read split is keyed in the build cache by its
/// whole bytes, as one read whole: a rebuild finds it, and an entry
/// written by a build that read it whole.
#[cfg(unix)]
#[test]
fn a_big_pprof_profile_read_split_is_cached_under_its_whole_bytes_key() {
    let (_dir, path, bytes) = big_pprof_file();
    let cache = WholeBytesCache::default();
    let (first, _) = read_input(&path, "1.0", &cache).unwrap();
    assert!(matches!(first, Loaded::Profile("pprof", _)));
    let kept = cache.kept.lock().unwrap().clone();
    assert_eq!(
        kept,
        vec![(WholeBytesCache::key_of(&bytes), "pprof".to_string())]
    );
    // Read again: from the cache (the stand-in it hands back).
    let (again, _) = read_input(&path, "1.0", &cache).unwrap();
    assert!(
        matches!(again, Loaded::Profile("folded", _)),
        "not taken from the cache"
    );
}

/// A big raw or gzipped pprof file is read split (its bytes never held
/// whole); one that does not read so (cut short) is read whole, and
/// fails as it always has.
#[cfg(unix)]
#[test]
fn a_big_pprof_profile_is_read_split_and_a_broken_one_whole() {
    let dir = tempfile::tempdir().unwrap();
    let (bytes, _) = big_pprof();
    let gzipped = gzipped(&bytes);
    for (name, file) in [("cpu.pb", &bytes), ("cpu.pb.gz", &gzipped)] {
        let path = dir.path().join(name);
        std::fs::write(&path, file).unwrap();
        let before = Stamp::of_path(&path).unwrap();
        let big = split_read::BigPprof::open(&path, Some("1.0"), name);
        let read = big.and_then(|big| big.read(&path, before));
        assert!(read.is_some(), "{name} is read split");
    }
    // Cut inside its string table, at the end.
    let path = dir.path().join("cut.pb");
    let cut = &bytes[..bytes.len() - 3];
    std::fs::write(&path, cut).unwrap();
    let before = Stamp::of_path(&path).unwrap();
    let big = split_read::BigPprof::open(&path, Some("1.0"), "cut.pb").unwrap();
    assert!(big.read(&path, before).is_none());
    let Err(e) = read_input(&path, "1.0", &NoCache) else {
        panic!("read a cut profile")
    };
    let Err(whole) = crate::load_bytes("1.0", "cut.pb", cut) else {
        panic!("read a cut profile whole")
    };
    assert_eq!(e.message, whole.message);
    assert!(e.message.contains("(at byte "), "{}", e.message);
    // Measurements and other formats are not taken for pprof.
    let json = dir.path().join("timings.json");
    let mut measured = br#"{"perfatlas_measurements": 1, "benchmarks": ["#.to_vec();
    measured.resize(reread::REREAD_BYTES + 10, b' ');
    measured.extend(b"]}");
    std::fs::write(&json, &measured).unwrap();
    assert!(split_read::BigPprof::open(&json, Some("1.0"), "timings.json").is_none());
}

#[cfg(unix)]
#[test]
fn a_profile_changed_before_its_samples_are_read_again_is_refused() {
    let (_dir, path, bytes) = big_pprof_file();
    let before = Stamp::of_path(&path).unwrap();
    let staged = crate::load_bytes_staged("1.0", "cpu.pb", &bytes).unwrap();
    assert!(matches!(staged, StagedLoad::PprofSamples(_)));
    // The profiler writes the file again meanwhile.
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    let Err(e) = reread::samples(&path, before, (bytes.len(), false), staged) else {
        panic!("read a changed file")
    };
    assert!(
        e.message.starts_with("changed while it was read"),
        "{}",
        e.message
    );
}

/// A folded profile a little over [`folded::stream::STREAMED_BYTES`]:
/// C++-like names in stacks of 3 to 12 frames.
fn big_folded() -> Vec<u8> {
    let least = crate::folded::stream::STREAMED_BYTES as usize + 1000;
    let mut text = String::with_capacity(least + 200);
    let mut i = 0u64;
    while text.len() < least {
        text.push_str("main");
        for depth in 0..3 + i % 10 {
            let f = (i * 7 + depth * 131) % 5_000;
            text.push_str(&format!(";ns{}::Class{f}::method_{}", f % 40, depth % 3));
        }
        text.push_str(&format!(" {}\n", 1 + i % 9));
        i += 1;
    }
    text.into_bytes()
}

/// A cache keyed as [`WholeBytesCache`], that computes keys as the bytes
/// pass and holds nothing yet (a first build).
#[derive(Default)]
struct FirstBuildCache {
    inner: WholeBytesCache,
}

/// [`WholeBytesCache::key_of`] as the bytes pass.
struct SumKey(u64, u64);

impl KeyHasher for SumKey {
    fn update(&mut self, bytes: &[u8]) {
        self.0 += bytes.len() as u64;
        self.1 = bytes.iter().fold(self.1, |s, &b| {
            s.wrapping_mul(31).wrapping_add(u64::from(b))
        });
    }
    fn finish(self: Box<Self>) -> String {
        format!("{}-{}", self.0, self.1)
    }
}

impl ParseCache for FirstBuildCache {
    fn enabled(&self) -> bool {
        true
    }
    fn key(&self, v: &str, n: &str, bytes: &[u8]) -> String {
        self.inner.key(v, n, bytes)
    }
    fn key_of_reader(
        &self,
        _: &str,
        _: &str,
        _: &mut dyn std::io::Read,
    ) -> std::io::Result<String> {
        panic!("the file was read for its key before it was parsed")
    }
    fn key_hasher(&self, _: &str, _: &str) -> Option<Box<dyn KeyHasher>> {
        Some(Box::new(SumKey(0, 0)))
    }
    fn may_hold_entries(&self) -> bool {
        false
    }
    fn get(&self, key: &str) -> Option<Loaded> {
        self.inner.get(key)
    }
    fn put(&self, key: &str, loaded: &Loaded) {
        self.inner.put(key, loaded)
    }
}

/// A big folded file is parsed as it is read, a chunk at a time (its
/// bytes never held whole), into the profile its bytes give read whole;
/// its cache key is its whole bytes', computed before the parse or, by a
/// first build, while it.
#[test]
fn a_big_folded_file_is_parsed_as_it_is_read_into_the_profile_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cpu.folded");
    let bytes = big_folded();
    std::fs::write(&path, &bytes).unwrap();
    assert!(folded_read::BigFolded::open(&path, Some("1.0"), "cpu.folded").is_some());
    let (read, _) = read_input(&path, "1.0", &NoCache).unwrap();
    let whole = crate::load_bytes("1.0", "cpu.folded", &bytes).unwrap();
    assert_eq!(format!("{read:?}"), format!("{whole:?}"));
    let converted = read_and_parse(&path).unwrap();
    let parsed_whole = crate::parse_bytes("cpu.folded", &bytes).unwrap();
    assert_eq!(format!("{converted:?}"), format!("{parsed_whole:?}"));
    // Keyed by its whole bytes, before the parse and while it.
    let key = WholeBytesCache::key_of(&bytes);
    let cache = WholeBytesCache::default();
    read_input(&path, "1.0", &cache).unwrap();
    assert_eq!(
        *cache.kept.lock().unwrap(),
        vec![(key.clone(), "folded".into())]
    );
    let first = FirstBuildCache::default();
    let (read, _) = read_input(&path, "1.0", &first).unwrap();
    assert_eq!(format!("{read:?}"), format!("{whole:?}"));
    assert_eq!(
        *first.inner.kept.lock().unwrap(),
        vec![(key, "folded".into())]
    );
    // Read again: from the cache (the stand-in it hands back).
    let (again, _) = read_input(&path, "1.0", &cache).unwrap();
    assert_ne!(
        format!("{again:?}"),
        format!("{whole:?}"),
        "not taken from the cache"
    );
}

/// A big file whose first line is longer than the sniffing window reads
/// as folded only when its last line does: the file's, not that of the
/// first bytes looked at.
#[test]
fn a_big_file_is_taken_for_folded_by_its_own_last_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("odd.txt");
    let deep: Vec<String> = (0..2_000).map(|i| format!("frame{i}")).collect();
    let mut bytes = format!("{} 1\n", deep.join(";")).into_bytes();
    bytes.extend(big_folded());
    std::fs::write(&path, &bytes).unwrap();
    assert!(folded_read::BigFolded::open(&path, Some("1.0"), "odd.txt").is_some());
    bytes.extend(b"this is not a stack\n");
    std::fs::write(&path, &bytes).unwrap();
    assert!(folded_read::BigFolded::open(&path, Some("1.0"), "odd.txt").is_none());
    let Err(e) = read_input(&path, "1.0", &NoCache) else {
        panic!("read as folded")
    };
    let Err(whole) = crate::load_bytes("1.0", "odd.txt", &bytes) else {
        panic!("read whole as folded")
    };
    assert_eq!(e.message, whole.message);
}

/// `bytes` gzipped, fast.
fn gzipped(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut encoder, bytes).unwrap();
    encoder.finish().unwrap()
}
