#![no_main]
//! Any bytes as an asv result file (beside the real `benchmarks.json` of
//! the fixture), and as `benchmarks.json` (beside a real result file): the
//! reader must give a history or an error, never panic, with and without a
//! commit order; whatever it reads writes as native measurements that are
//! recognised again.
use libfuzzer_sys::fuzz_target;
use perfatlas::input::imports::asv::{read, Results, SourceFile};
use perfatlas::input::measurements::{sniff_and_parse, write_native};

const BENCHMARKS: &[u8] = include_bytes!("../../tests/fixtures/history/asv/results/benchmarks.json");
const RESULT: &[u8] = include_bytes!(
    "../../tests/fixtures/history/asv/results/fixture-box/0689280a-existing-py_tmp_perfatlas-asv-capture_venv_bin_python.json"
);

fn file(name: &str, bytes: &[u8]) -> SourceFile {
    SourceFile {
        name: name.to_string(),
        bytes: bytes.to_vec(),
    }
}

fuzz_target!(|data: &[u8]| {
    let cases = [
        (BENCHMARKS, data),
        (data, RESULT),
    ];
    for (benchmarks, result) in cases {
        let results = Results {
            machine: "fuzz".into(),
            benchmarks: file("benchmarks.json", benchmarks),
            files: vec![file("fuzz/a.json", result), file("fuzz/b.json", RESULT)],
        };
        let order = ["0689280ab90e3a3999d6c45aac3b2ec25f5aceb0".to_string()];
        let _ = read(&results, Some(&order));
        if let Ok(history) = read(&results, None) {
            for version in &history.versions {
                let json = write_native(&version.benchmarks);
                assert!(sniff_and_parse("again.json", json.as_bytes()).is_some());
            }
        }
    }
});
