//! The evolution matrix at 100 versions × 2,000 visible components:
//! generates a history of folded profiles (deterministic, never committed),
//! builds the site with the release binary, and opens the matrix page in
//! Debian's headless chromium over file:// to read how long the first
//! render and the load take. Prints page sizes and times; asserts nothing.
//!
//!     cargo bench --bench matrix_scale
//!     VERSIONS=100 PACKAGES=20 CLASSES=10 METHODS=9 cargo bench --bench matrix_scale
//!
//! Components: PACKAGES × (1 + CLASSES × (1 + METHODS)) + 1 rows (2,021 with
//! the defaults), all shown (`--min-share 0`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

mod chrome_timing;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A small fixed-seed generator (xorshift), so every run sees the same data.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// One folded profile per version: `main` calls one entry method per
/// class, which calls the class's other methods; costs drift per version.
fn generate(dir: &Path, versions: usize, packages: usize, classes: usize, methods: usize) {
    let mut rng = Rng(0x9e3779b97f4a7c15);
    let mut base: Vec<u64> = (0..packages * classes * methods)
        .map(|_| 50 + rng.below(400))
        .collect();
    for v in 0..versions {
        let vdir = dir.join(format!("1.{v}"));
        std::fs::create_dir_all(&vdir).expect("version dir");
        let mut out = String::new();
        for (i, cost) in base.iter_mut().enumerate() {
            // A random walk, with a rare large step (a "regression").
            let step = rng.below(21) as i64 - 10 + if rng.below(200) == 0 { 300 } else { 0 };
            *cost = (*cost as i64 + step).clamp(1, 5000) as u64;
            let (p, rest) = (i / (classes * methods), i % (classes * methods));
            let (c, m) = (rest / methods, rest % methods);
            let entry = format!("com.example.p{p}.C{c}.run");
            if m == 0 {
                let _ = writeln!(out, "Main.main;{entry} {cost}");
            } else {
                let _ = writeln!(out, "Main.main;{entry};com.example.p{p}.C{c}.m{m} {cost}");
            }
        }
        std::fs::write(vdir.join("bench.folded"), out).expect("write profile");
    }
}

fn main() {
    // `cargo bench` passes `--bench`; nothing else to parse.
    let versions = env_usize("VERSIONS", 100);
    let (packages, classes, methods) = (
        env_usize("PACKAGES", 20),
        env_usize("CLASSES", 10),
        env_usize("METHODS", 9),
    );
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("matrix-scale");
    let _ = std::fs::remove_dir_all(&root);
    let data = root.join("data");
    let site = root.join("site");
    generate(&data, versions, packages, classes, methods);

    let status = Command::new("cargo")
        .args(["build", "--release", "--quiet"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .expect("cargo build --release");
    assert!(status.success());
    let bin = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/release/perfatlas");
    let t = Instant::now();
    let out = Command::new(&bin)
        .arg("build")
        .arg(&data)
        .arg("-o")
        .arg(&site)
        .args(["--min-share", "0"])
        .output()
        .expect("run perfatlas");
    let build = t.elapsed();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page = site.join("matrix/b/bench/index.html");
    let size = std::fs::metadata(&page).expect("matrix page").len();
    let svg = std::fs::metadata(site.join("matrix/b/bench/index.svg")).map_or(0, |m| m.len());
    let (files, bytes) = dir_size(&site);
    println!(
        "matrix_scale: {versions} versions × {} components",
        packages * (1 + classes * (1 + methods)) + 1
    );
    println!(
        "  build (release, whole site): {:.2} s",
        build.as_secs_f64()
    );
    println!("  site: {files} files, {:.1} MB", bytes as f64 / 1e6);
    println!(
        "  matrix page: {:.2} MB html, {:.2} MB standalone svg",
        size as f64 / 1e6,
        svg as f64 / 1e6
    );

    let Some(browser) = chrome_timing::launch(&root.join("chrome-profile")) else {
        println!("  chromium not found: no render timings");
        return;
    };
    let tab = browser.new_tab().expect("tab");
    tab.set_default_timeout(Duration::from_secs(120));
    let runs: Vec<_> = (0..3)
        .filter_map(|_| chrome_timing::time_page(&tab, &page))
        .collect();
    match chrome_timing::median(&runs) {
        Some(t) => println!(
            "  chromium, median of {}: first contentful paint {:.0} ms, interactive {:.0} ms, load end {:.0} ms",
            runs.len(),
            t.first_paint,
            t.interactive,
            t.loaded
        ),
        None => println!("  chromium: no timings"),
    }
}

fn dir_size(dir: &Path) -> (usize, u64) {
    let mut files = 0;
    let mut bytes = 0;
    for entry in walkdir::WalkDir::new(dir).into_iter().flatten() {
        if entry.file_type().is_file() {
            files += 1;
            bytes += entry.metadata().map_or(0, |m| m.len());
        }
    }
    (files, bytes)
}
