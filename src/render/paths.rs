//! Where each page lives in the site, as relative paths. File names are
//! derived from untrusted names, so they are sanitised here.

/// A file-name-safe form of `name`: ASCII letters, digits, `.`, `_`, `-`
/// kept; anything else becomes `_`. When anything was changed a short hash
/// of the original is appended, so two names never share a slug.
pub fn slug(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let changed = s != name || s.is_empty() || s.starts_with('.') || s.len() > 80;
    if s.starts_with('.') {
        s.insert(0, '_');
    }
    s.truncate(80);
    if changed {
        s.push_str(&format!("-{:08x}", fnv1a(name.as_bytes()) as u32));
    }
    s
}

/// 64-bit FNV-1a: small, fixed, and the same on every machine.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf29ce484222325u64, |h, b| {
        (h ^ *b as u64).wrapping_mul(0x100000001b3)
    })
}

/// The prefix that leads from a page at `path` back to the site root.
pub fn root_of(path: &str) -> String {
    "../".repeat(path.matches('/').count())
}

/// Directory of a benchmark's profile pages for one version.
pub fn profile_dir(benchmark: &str, version: &str) -> String {
    format!("profiles/{}/{}", slug(benchmark), slug(version))
}

/// The page of a version's repetitions merged, for one metric.
pub fn aggregate_page(benchmark: &str, version: &str, metric: &str) -> String {
    format!(
        "{}/all.{}.html",
        profile_dir(benchmark, version),
        slug(metric)
    )
}

/// A differential flame-graph page; `shape` is "" (top-down),
/// ".bottom-up" or ".flat".
pub fn flame_diff_page(benchmark: &str, old: &str, new: &str, metric: &str, shape: &str) -> String {
    format!(
        "flamediff/{}/{}--{}.{}{shape}.html",
        slug(benchmark),
        slug(old),
        slug(new),
        slug(metric)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_safe_and_distinct() {
        assert_eq!(slug("convert-basic"), "convert-basic");
        assert_eq!(slug("3.4.4"), "3.4.4");
        let a = slug("a/b");
        let b = slug("a_b");
        assert_ne!(a, b);
        assert!(a.starts_with("a_b-"));
        assert!(!slug("..").contains('/'));
        assert!(slug("..").starts_with("_"));
        assert!(slug("<script>")
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c)));
        assert_eq!(root_of("profiles/a/b/x.html"), "../../../");
        assert_eq!(root_of("index.html"), "");
    }
}
