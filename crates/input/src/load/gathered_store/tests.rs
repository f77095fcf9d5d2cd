use super::*;

fn entry(
    version: usize,
    source: &str,
    means: &[f64],
    interval: Option<(f64, f64)>,
) -> MeasurementEntry {
    MeasurementEntry {
        version,
        unit: intern("s"),
        run_means: RunMeans::from(means.to_vec()),
        samples: means.len() as u64 * 3,
        in_process: version == 0,
        multi_sample: true,
        source: intern(source),
        format: "hyperfine",
        note: intern(if version == 1 { "median" } else { "" }),
        interval: interval
            .and_then(|(l, h)| Interval::new(l, h))
            .map(Box::new),
    }
}

fn history() -> Vec<MeasuredBenchmark> {
    let b = |name: &str, entries| MeasuredBenchmark {
        name: Arc::from(name),
        entries,
    };
    vec![
        b(
            "a",
            vec![
                entry(0, "v0/t.json", &[1.0, 2.0], None),
                entry(1, "v1/t.json", &[3.0], Some((2.5, 3.5))),
            ],
        ),
        b("b", vec![entry(1, "v1/t.json", &[4.0, 5.0, 6.0], None)]),
    ]
}

fn covered(version: usize, relative: &str) -> CoveredFile<'_> {
    CoveredFile {
        version,
        relative,
        key: format!("key-{relative}"),
        format: "hyperfine",
        taken: false,
        in_base: false,
    }
}

fn written(dir: &Path) -> Previous {
    let files = [covered(0, "v0/t.json"), covered(1, "v1/t.json")];
    write(&Plan::Base(dir.join(FILE)), &files, &history()).unwrap();
    Previous::open(dir).expect("the file just written opens")
}

fn all_taken(previous: &Previous) -> FxHashMap<u32, (usize, &'static str)> {
    ["v0/t.json", "v1/t.json"]
        .iter()
        .enumerate()
        .map(|(v, f)| {
            let at = previous.covers(f, &format!("key-{f}")).unwrap();
            (at, (v, intern(f)))
        })
        .collect()
}

#[test]
fn entries_read_back_as_written_with_their_versions_in_this_build() {
    let dir = tempfile::tempdir().unwrap();
    let previous = written(dir.path());
    assert_eq!(previous.covers("v0/t.json", "another key"), None);
    let taken = previous
        .entries(&all_taken(&previous), &FxHashMap::default())
        .unwrap();
    assert_eq!(taken.base, history());
    assert_eq!((taken.base_used, taken.base_unused), (3, 0));
    // Only the files taken, at the version they are in now.
    let v1 = previous.covers("v1/t.json", "key-v1/t.json").unwrap();
    let only: FxHashMap<u32, (usize, &'static str)> =
        std::iter::once((v1, (7, intern("w/t.json")))).collect();
    let taken = previous.entries(&only, &FxHashMap::default()).unwrap();
    let got: Vec<(&str, usize, &str, Vec<f64>)> = taken
        .base
        .iter()
        .flat_map(|b| {
            b.entries
                .iter()
                .map(|e| (&*b.name, e.version, e.source, e.run_means.to_vec()))
        })
        .collect();
    assert_eq!(
        got,
        [
            ("a", 7, "w/t.json", vec![3.0]),
            ("b", 7, "w/t.json", vec![4.0, 5.0, 6.0])
        ]
    );
    assert_eq!(taken.base_unused, 1);
}

#[test]
fn a_damaged_or_cut_file_is_not_used() {
    let dir = tempfile::tempdir().unwrap();
    let previous = written(dir.path());
    let taken = all_taken(&previous);
    let path = dir.path().join(FILE);
    let bytes = std::fs::read(&path).unwrap();
    // A chunk's byte: the header opens, the entries do not check out.
    let mut damaged = bytes.clone();
    damaged[9] ^= 0x40;
    std::fs::write(&path, &damaged).unwrap();
    let previous = Previous::open(dir.path()).unwrap();
    assert!(previous.entries(&taken, &FxHashMap::default()).is_none());
    // Cut short, or of another perfatlas: not opened.
    std::fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
    assert!(Previous::open(dir.path()).is_none());
    std::fs::write(&path, b"PAGATHR\n").unwrap();
    assert!(Previous::open(dir.path()).is_none());
}

#[test]
fn the_base_is_kept_while_most_entries_come_from_it() {
    let dir = tempfile::tempdir().unwrap();
    let previous = written(dir.path());
    let taken = previous
        .entries(&all_taken(&previous), &FxHashMap::default())
        .unwrap();
    let target = |name: &str| Some(dir.path().join(name));
    // 3 of 4 entries from the base: the rest is written beside it.
    assert!(matches!(
        Plan::of(4, Some(&taken), target, || true),
        Some(Plan::Since(_))
    ));
    // ... unless the base cannot be kept.
    assert!(matches!(
        Plan::of(4, Some(&taken), target, || false),
        Some(Plan::Base(_))
    ));
    // 3 of 6: a new base.
    assert!(matches!(
        Plan::of(6, Some(&taken), target, || true),
        Some(Plan::Base(_))
    ));
    assert!(matches!(
        Plan::of(3, None, target, || true),
        Some(Plan::Base(_))
    ));
}
