//! Where each page lives in the site, as relative paths: every URL of the
//! site is made here. File names are derived from untrusted names, so they
//! are sanitised here.

use crate::flame_plan::Shape;
use analysis::evolution::{MatrixUrls, ScopePlan};
use analysis::hierarchy::{CompId, Hierarchy, Level};
use analysis::regression::{Change, Direction};

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

/// The last component of a site path (links between pages of one folder).
pub fn file_name(path: &str) -> String {
    path.rsplit('/').next().unwrap_or(path).to_string()
}

/// A link from the page at `page` to the site path `target`: its file
/// name when both are in one folder, else from the site root.
pub fn link_from(page: &str, target: &str) -> String {
    let dir = |p: &str| p.rsplit_once('/').map_or("", |(d, _)| d).to_string();
    match dir(page) == dir(target) {
        true => file_name(target),
        false => format!("{}{target}", root_of(page)),
    }
}

/// The prefix that leads from a page at `path` back to the site root.
pub fn root_of(path: &str) -> String {
    "../".repeat(path.matches('/').count())
}

/// Directory of a benchmark's profile pages for one version.
pub fn profile_dir(benchmark: &str, version: &str) -> String {
    format!("profiles/{}/{}", slug(benchmark), slug(version))
}

/// A profile's page: every metric and shape of one repetition (the page's
/// script switches between them; see [`profile_view`]). `repetition` is
/// `r1`, `r1-2`, … as the profile plan names them.
pub fn profile_page(dir: &str, repetition: &str) -> String {
    format!("{dir}/{repetition}.html")
}

/// A link to one view (metric and shape) of a profile page or a
/// differential page: the page, and the view in its fragment when it is
/// not the page's default (its first metric, top-down), which is the one
/// shown without JavaScript.
pub fn profile_view(page: &str, metric: Option<&str>, shape: Shape) -> String {
    let mut parts = Vec::new();
    if let Some(m) = metric {
        parts.push(format!("metric={}", slug(m)));
    }
    if shape != Shape::TopDown {
        parts.push(format!("shape={}", shape.name()));
    }
    match parts.is_empty() {
        true => page.to_string(),
        false => format!("{page}#{}", parts.join("&")),
    }
}

/// A link to a repetition's views on its version's aggregate page (see
/// `profile_page::shown_in_aggregates`): the page, the repetition in its
/// fragment, and the metric when it is not the first.
pub fn repetition_view(aggregate: &str, repetition: &str, metric: Option<&str>) -> String {
    match metric {
        Some(m) => format!("{aggregate}#rep={repetition}&metric={}", slug(m)),
        None => format!("{aggregate}#rep={repetition}"),
    }
}

/// Stem of the standalone SVG files of one view (`--svg-files`), e.g.
/// `profiles/b/1.0/r1.samples.bottom-up`.
pub fn view_svg_stem(dir: &str, repetition: &str, metric: &str, shape: Shape) -> String {
    format!("{dir}/{repetition}.{}{}", slug(metric), shape.suffix())
}

/// The page of a configured aggregate (`[[flame.aggregates]]`), every
/// metric a view.
pub fn aggregate_set_page(set: &str) -> String {
    format!("aggregates/{}.html", slug(set))
}

/// The page of a version's repetitions merged, every metric a view.
pub fn aggregate_page(benchmark: &str, version: &str) -> String {
    format!("{}/all.html", profile_dir(benchmark, version))
}

/// A differential flame-graph page (every metric and shape of the pair).
pub fn flame_diff_page(benchmark: &str, old: &str, new: &str) -> String {
    let prefix = flame_diff_prefix(benchmark, old, new);
    format!("{}.html", prefix.trim_end_matches('.'))
}

/// A benchmark's compare page: any two of its versions or repetitions,
/// compared in the page.
pub fn compare_page(benchmark: &str) -> String {
    format!("compare/{}.html", slug(benchmark))
}

/// A benchmark's compare page opened on a pair (`new` and `old` are a
/// version's name, or `NAME/rN` for one of its repetitions; without `old`
/// the page picks the version before).
pub fn compare_view(benchmark: &str, old: Option<&str>, new: &str) -> String {
    let old = old.map_or(String::new(), |o| format!("old={}&", query_value(o)));
    format!("{}?{old}new={}", compare_page(benchmark), query_value(new))
}

/// `text` as a URL query value: unreserved characters kept, the others
/// percent-encoded as UTF-8 bytes.
fn query_value(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The data script of a benchmark's version for its compare page.
pub fn compare_data(benchmark: &str, version: &str) -> String {
    format!("compare/{}/{}.js", slug(benchmark), slug(version))
}

/// What the paths of the differential page of `benchmark` from `old` to
/// `new` and of its standalone SVGs start with.
pub fn flame_diff_prefix(benchmark: &str, old: &str, new: &str) -> String {
    format!(
        "flamediff/{}/{}--{}.",
        slug(benchmark),
        slug(old),
        slug(new)
    )
}

/// The id of a benchmark's row on the index, which breadcrumbs link to.
pub fn benchmark_anchor(benchmark: &str) -> String {
    format!("b-{}", slug(benchmark))
}

/// The id of a version's row on a benchmark page, which the chart's
/// points link to.
pub fn version_anchor(version: &str) -> String {
    format!("v-{}", slug(version))
}

/// The page of a benchmark's series and changes.
pub fn benchmark_page(benchmark: &str) -> String {
    format!("benchmarks/{}.html", slug(benchmark))
}

/// A regression's page.
pub fn regression_page(benchmark: &str, before: &str, after: &str) -> String {
    format!(
        "regressions/{}/{}--{}.html",
        slug(benchmark),
        slug(before),
        slug(after)
    )
}

/// The page of a change: under `regressions/` or `improvements/`.
pub fn change_page(c: &Change, before: &str, after: &str) -> String {
    match c.direction {
        Direction::Regression => regression_page(&c.benchmark, before, after),
        Direction::Improvement => format!(
            "improvements/{}/{}--{}.html",
            slug(&c.benchmark),
            slug(before),
            slug(after)
        ),
    }
}

/// The field page of a version: every execution.
pub fn field_page(version: &str) -> String {
    format!("field/{}/index.html", slug(version))
}

/// The field page of a configured view of a version's executions.
pub fn field_view_page(version: &str, view: &str) -> String {
    format!("field/{}/view-{}.html", slug(version), slug(view))
}

/// The field page of one source file in a version.
pub fn field_file_page(version: &str, file: &str) -> String {
    format!("field/{}/files/{}.html", slug(version), slug(file))
}

/// Site path of the page of `benchmark` in `version`.
pub fn allocation_page(benchmark: &str, version: &str) -> String {
    format!("alloc/{}/{}.html", slug(benchmark), slug(version))
}

/// Site path of a source page.
pub fn source_page(version: &str, shown_path: &str) -> String {
    let parts: Vec<String> = shown_path
        .split('/')
        .filter(|p| !p.is_empty())
        .map(slug)
        .collect();
    format!("source/{}/{}.html", slug(version), parts.join("/"))
}

/// Where the page of what changed in a version is.
pub fn version_page(version_name: &str) -> String {
    format!("versions/{}.html", slug(version_name))
}

/// Where a version's full source diff is.
pub fn source_diff_page(version_name: &str) -> String {
    format!("diffs/{}.html", slug(version_name))
}

/// The pages of the evolution matrices.
pub struct MatrixPages;

impl MatrixUrls for MatrixPages {
    fn scope_dir(&self, benchmark: Option<&str>) -> String {
        match benchmark {
            Some(b) => format!("matrix/b/{}", slug(b)),
            None => "matrix/all".into(),
        }
    }

    fn memory_dir(&self, dir: &str) -> String {
        format!("{dir}/memory")
    }

    fn component_page(&self, dir: &str, hierarchy: &Hierarchy, comp: CompId) -> String {
        component_page(dir, hierarchy, comp)
    }
}

/// Where a component is shown. A method is a section of its class's page
/// (`<class page>#m-<name>`, see [`method_anchor`]), so a history writes
/// one file per class, package and the project, not one per method.
fn component_page(dir: &str, hierarchy: &Hierarchy, comp: CompId) -> String {
    let c = hierarchy.get(comp);
    match (c.level, c.parent) {
        (Level::Method, Some(class)) => format!(
            "{}#{}",
            component_file(dir, hierarchy, class),
            method_anchor(&c.name)
        ),
        _ => component_file(dir, hierarchy, comp),
    }
}

/// `DIR/c/<level>-<readable part>-<hash of the key>.html`: stable across
/// builds and distinct for distinct components.
fn component_file(dir: &str, hierarchy: &Hierarchy, comp: CompId) -> String {
    let c = hierarchy.get(comp);
    let readable: String = c
        .name
        .chars()
        .map(|ch| {
            if ch.is_ascii_alphanumeric() || ch == '-' || ch == '_' {
                ch
            } else {
                '_'
            }
        })
        .take(40)
        .collect();
    let level = match c.level {
        Level::Project => "project",
        Level::Package => "pkg",
        Level::Class => "class",
        Level::Method => "m",
    };
    format!(
        "{dir}/c/{level}-{readable}-{:016x}.html",
        fnv1a(c.key.as_bytes())
    )
}

/// The id of a method's section on its class's page: `m-` and the slug
/// of its name (the methods of one class have distinct names, and
/// [`slug`] keeps distinct names apart).
pub fn method_anchor(name: &str) -> String {
    format!("m-{}", slug(name))
}

/// The id of a version's section on a component page: `v-<version>` for
/// the page's own component, `<method anchor>#v-<version>` inside a
/// method's section. The `#` is what the matrix's script puts between a
/// row's link and `v-<version>` when a glyph is clicked, so the id is the
/// whole fragment of that link (an id may hold any character but
/// whitespace); [`fragment_href`] writes links to it.
pub fn version_section_id(method: Option<&str>, version_name: &str) -> String {
    let v = version_anchor(version_name);
    match method {
        Some(anchor) => format!("{anchor}#{v}"),
        None => v,
    }
}

/// A same-page link to the element with id `id`: a `#` inside the id is
/// written `%23`, which browsers decode when they look the id up.
pub fn fragment_href(id: &str) -> String {
    format!("#{}", id.replace('#', "%23"))
}

/// The page of a matrix and of its timeline at one version.
pub trait ScopePaths {
    fn matrix_path(&self) -> String;
    fn timeline_path(&self, version_name: &str) -> String;
}

impl ScopePaths for ScopePlan {
    fn matrix_path(&self) -> String {
        format!("{}/index.html", self.dir)
    }

    fn timeline_path(&self, version_name: &str) -> String {
        format!("{}/timeline/{}.html", self.dir, slug(version_name))
    }
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

    #[test]
    fn a_method_is_a_section_of_its_class_page() {
        let mut frames = model::FrameTable::default();
        let frame = |function: &str| model::Frame {
            function: function.into(),
            file: Some("markdown/core.py".into()),
            ..model::Frame::default()
        };
        let convert = frames.intern(frame("Markdown.convert"));
        let evil = frames.intern(frame("</script>#x"));
        let h = Hierarchy::plain(&frames, "proj");
        let (convert, evil) = (h.method_of(convert), h.method_of(evil));
        let class = h.at_level(convert, Level::Class);
        let dir = "matrix/b/x";
        let class_page = MatrixPages.component_page(dir, &h, class);
        assert!(class_page.starts_with("matrix/b/x/c/class-core_py-"));
        assert!(class_page.ends_with(".html"));
        assert_eq!(
            MatrixPages.component_page(dir, &h, convert),
            format!("{class_page}#m-Markdown.convert")
        );
        // Any name gives an id of safe characters, distinct from others.
        let anchor = MatrixPages
            .component_page(dir, &h, evil)
            .strip_prefix(&format!("{class_page}#"))
            .map(str::to_string)
            .unwrap();
        assert!(anchor.starts_with("m-__script__x-"), "{anchor}");
        assert!(anchor
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c)));
        // Version sections: the page's own, and a method's, which a glyph
        // click reaches as `<method link>#v-<version>`.
        assert_eq!(version_section_id(None, "3.7"), "v-3.7");
        assert_eq!(
            version_section_id(Some("m-Markdown.convert"), "3.7"),
            "m-Markdown.convert#v-3.7"
        );
        assert_eq!(
            fragment_href("m-Markdown.convert#v-3.7"),
            "#m-Markdown.convert%23v-3.7"
        );
        let package = h.at_level(convert, Level::Package);
        assert!(MatrixPages
            .component_page(dir, &h, package)
            .starts_with("matrix/b/x/c/pkg-markdown-"));
    }
}
