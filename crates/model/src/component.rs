//! Components: the package → class → method hierarchy derived from a frame.
//!
//! The rules are language-aware (Java `pkg.Class.method`, Go
//! `pkg/path.Type.Method`, Rust and C++ `a::b::Type::method`, JavaScript and
//! Python file-based) with a fallback of directory → file → function. The
//! same frame always gives the same component, so a component's identity is
//! stable across versions.

use serde::Serialize;

use super::frame::Frame;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    Java,
    Go,
    /// Rust and C++ share the `::` path syntax.
    Native,
    /// JavaScript, Python and anything else named by its file.
    FileBased,
    /// No rule matched and the frame has no file.
    Unknown,
}

/// Where a frame sits in the package → class → method hierarchy.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Component {
    pub language: Language,
    pub package: String,
    pub class: String,
    pub method: String,
}

const NO_PACKAGE: &str = "(no package)";
const NO_CLASS: &str = "(no class)";

/// Derives the component of `frame`.
pub fn component_path(frame: &Frame) -> Component {
    let name = strip_offset(frame.function.trim());
    let file = frame.file.as_deref().unwrap_or("");
    let no_file_or = |ext: &[&str]| file.is_empty() || ext.iter().any(|e| file.ends_with(e));
    if file.ends_with(".java")
        || file.ends_with(".kt")
        || file.ends_with(".scala")
        || (no_file_or(&[]) && looks_like_java(name))
    {
        if let Some(c) = java_component(name) {
            return c;
        }
    }
    if file.ends_with(".go") || (no_file_or(&[".go"]) && looks_like_go(name)) {
        if let Some(c) = go_component(name) {
            return c;
        }
    }
    if name.contains("::") {
        if let Some(c) = native_component(name) {
            return c;
        }
    }
    if !file.is_empty() {
        return file_component(name, file);
    }
    Component {
        language: Language::Unknown,
        package: NO_PACKAGE.into(),
        class: NO_CLASS.into(),
        method: name.to_string(),
    }
}

/// Drops a `+0x1f3` offset as perf writes it after symbol names.
fn strip_offset(name: &str) -> &str {
    match name.rfind("+0x") {
        Some(i) if name[i + 3..].chars().all(|c| c.is_ascii_hexdigit()) && i > 0 => &name[..i],
        _ => name,
    }
}

/// Removes balanced `<…>` and `(…)` groups (templates, generics, parameters).
fn strip_groups(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut depth = 0usize;
    for ch in name.chars() {
        match ch {
            '<' | '(' => depth += 1,
            '>' | ')' if depth > 0 => depth -= 1,
            _ if depth == 0 => out.push(ch),
            _ => {}
        }
    }
    out
}

/// `a/b/pkg.Func`, `pkg.(*T).M`, or a bare `pkg.func` with a lower-case
/// package (only consulted for frames without a non-Go file).
fn looks_like_go(name: &str) -> bool {
    if name.contains("::") || name.contains(' ') || name.contains(';') {
        return false;
    }
    if name.contains(".(*") || (name.contains('/') && name.contains('.')) {
        return true;
    }
    match name.split_once('.') {
        Some((pkg, rest)) => {
            !pkg.is_empty()
                && pkg
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
                && rest
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_alphabetic() || c == '_')
        }
        None => false,
    }
}

/// `github.com/x/y/pkg.(*Type).Method`, `runtime.mallocgc`, `main.main`.
fn go_component(name: &str) -> Option<Component> {
    let last_slash = name.rfind('/').map_or(0, |i| i + 1);
    let rest = &name[last_slash..];
    let dot = rest.find('.')?;
    let package = format!("{}{}", &name[..last_slash], &rest[..dot]);
    let member = &rest[dot + 1..];
    let (class, method) = match member.find(").") {
        Some(i) if member.starts_with("(") => (
            member[1..i].trim_start_matches('*').to_string(),
            member[i + 2..].to_string(),
        ),
        _ => match member.split_once('.') {
            Some((t, m)) if t.chars().next().is_some_and(|c| c.is_uppercase()) => {
                (t.to_string(), m.to_string())
            }
            _ => (NO_CLASS.to_string(), member.to_string()),
        },
    };
    Some(Component {
        language: Language::Go,
        package,
        class,
        method,
    })
}

/// `pkg.Class.method` with lower-case package parts and an upper-case
/// class; in the slash spelling the class follows the last `/`.
fn looks_like_java(name: &str) -> bool {
    let plain = name.split('(').next().unwrap_or(name);
    if plain.starts_with('L') && plain.contains(";::") {
        return true;
    }
    if plain.contains("::") || plain.contains(' ') {
        return false;
    }
    let starts_upper = |s: &str| s.chars().next().is_some_and(|c| c.is_ascii_uppercase());
    if let Some(i) = plain.rfind('/') {
        let tail = &plain[i + 1..];
        return starts_upper(tail) && tail.contains('.') && !plain[..i].contains('.');
    }
    let parts: Vec<&str> = plain.split('.').collect();
    parts.len() >= 3
        && starts_upper(parts[parts.len() - 2])
        && parts[..parts.len() - 2]
            .iter()
            .all(|p| p.chars().next().is_some_and(|c| c.is_ascii_lowercase()))
}

/// `java.lang.String.indexOf`, `java/lang/String.indexOf(I)I`,
/// `Ljava/io/PrintStream;::println` (perf-map-agent).
fn java_component(name: &str) -> Option<Component> {
    let plain = name.split('(').next().unwrap_or(name);
    let (qualified, method) = if let Some((class, method)) = plain.split_once(";::") {
        (
            class.trim_start_matches('L').replace('/', "."),
            method.to_string(),
        )
    } else {
        let dotted = plain.replace('/', ".");
        let (q, m) = dotted.rsplit_once('.')?;
        (q.to_string(), m.to_string())
    };
    let (package, class) = match qualified.rsplit_once('.') {
        Some((p, c)) => (p.to_string(), c.to_string()),
        None => (NO_PACKAGE.to_string(), qualified),
    };
    Some(Component {
        language: Language::Java,
        package,
        class,
        method,
    })
}

/// `std::locale::_Impl::_Impl`, `core::ptr::drop_in_place<T>`,
/// `alloc::vec::Vec<T>::push::h0123456789abcdef`.
fn native_component(name: &str) -> Option<Component> {
    let stripped = strip_groups(name);
    let plain = stripped.rsplit(' ').next().unwrap_or(&stripped);
    let mut parts: Vec<&str> = plain.split("::").filter(|p| !p.is_empty()).collect();
    if parts.last().is_some_and(|h| {
        h.len() == 17 && h.starts_with('h') && h[1..].chars().all(|c| c.is_ascii_hexdigit())
    }) {
        parts.pop();
    }
    let method = parts.pop()?.to_string();
    let class = parts.pop().map_or(NO_CLASS.to_string(), str::to_string);
    let package = if parts.is_empty() {
        NO_PACKAGE.to_string()
    } else {
        parts.join("::")
    };
    Some(Component {
        language: Language::Native,
        package,
        class,
        method,
    })
}

/// The part of a source path that stays the same across the environments
/// of different versions: for installed packages, the path after
/// `site-packages/`, `dist-packages/` or `node_modules/`.
pub fn stable_path(file: &str) -> &str {
    let path = file.strip_prefix("file://").unwrap_or(file);
    ["site-packages/", "dist-packages/", "node_modules/"]
        .iter()
        .filter_map(|m| path.rfind(m).map(|i| &path[i + m.len()..]))
        .next()
        .unwrap_or(path)
}

/// JavaScript, Python and the fallback: directory → file → function.
fn file_component(name: &str, file: &str) -> Component {
    let path = stable_path(file);
    let (dir, base) = match path.rfind(['/', '\\']) {
        Some(i) => (&path[..i], &path[i + 1..]),
        None => ("", path),
    };
    let package = if dir.is_empty() {
        NO_PACKAGE.to_string()
    } else {
        dir.to_string()
    };
    let method = if name.is_empty() {
        "(anonymous)".to_string()
    } else {
        name.to_string()
    };
    Component {
        language: Language::FileBased,
        package,
        class: base.to_string(),
        method,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(f: &Frame) -> (Language, String, String, String) {
        let c = component_path(f);
        (c.language, c.package, c.class, c.method)
    }

    fn named(s: &str) -> (Language, String, String, String) {
        parts(&Frame::named(s))
    }

    fn owned(l: Language, p: &str, c: &str, m: &str) -> (Language, String, String, String) {
        (l, p.into(), c.into(), m.into())
    }

    // Names below are copied from ../shared/corpus (inferno go-stacks.txt,
    // java-inline.txt, cpp-stacks-std-function.txt; speedscope perf-vertx,
    // sucrase.cpuprofile, rust-mangled.linux-perf.txt after demangling).
    #[test]
    fn go_names_from_perf() {
        assert_eq!(
            named("text/template.addValueFuncs+0x1f3"),
            owned(Language::Go, "text/template", NO_CLASS, "addValueFuncs")
        );
        assert_eq!(
            named("cmd/go/internal/cfg.init"),
            owned(Language::Go, "cmd/go/internal/cfg", NO_CLASS, "init")
        );
        assert_eq!(
            named("runtime.mapassign_faststr"),
            owned(Language::Go, "runtime", NO_CLASS, "mapassign_faststr")
        );
        assert_eq!(
            named("net/http.(*conn).serve"),
            owned(Language::Go, "net/http", "conn", "serve")
        );
    }

    #[test]
    fn java_names_in_three_spellings() {
        assert_eq!(
            named("Ljava/io/PrintStream;::println"),
            owned(Language::Java, "java.io", "PrintStream", "println")
        );
        assert_eq!(
            named("io/vertx/core/net/impl/VertxHandler.channelRead"),
            owned(
                Language::Java,
                "io.vertx.core.net.impl",
                "VertxHandler",
                "channelRead"
            )
        );
        assert_eq!(
            named("java.lang.String.indexOf(I)I"),
            owned(Language::Java, "java.lang", "String", "indexOf")
        );
    }

    #[test]
    fn cpp_and_rust_paths() {
        assert_eq!(
            named("std::locale::_Impl::_Impl"),
            owned(Language::Native, "std::locale", "_Impl", "_Impl")
        );
        assert_eq!(
            named("std::__timepunct<wchar_t>::_M_initialize_timepunct"),
            owned(
                Language::Native,
                "std",
                "__timepunct",
                "_M_initialize_timepunct"
            )
        );
        assert_eq!(
            named("oopDesc* PSPromotionManager::copy_to_survivor_space<false>"),
            owned(
                Language::Native,
                NO_PACKAGE,
                "PSPromotionManager",
                "copy_to_survivor_space"
            )
        );
        assert_eq!(
            named(
                "<rand_chacha::chacha::ChaCha12Core as rand_core::block::BlockRngCore>::generate"
            ),
            owned(Language::Native, NO_PACKAGE, NO_CLASS, "generate")
        );
        assert_eq!(
            named("std::rt::lang_start::h1a2b3c4d5e6f7a8b"),
            owned(Language::Native, "std", "rt", "lang_start")
        );
    }

    #[test]
    fn javascript_and_python_by_file() {
        let js = Frame {
            function: "parseIdentifier".into(),
            file: Some("/Users/jlfwong/code/sucrase/dist/parser/traverser/expression.js".into()),
            line: Some(10),
            module: None,
            start_line: None,
            start_column: None,
            source_hash: None,
            full_name: None,
        };
        assert_eq!(
            parts(&js),
            owned(
                Language::FileBased,
                "/Users/jlfwong/code/sucrase/dist/parser/traverser/expression.js"
                    .rsplit_once('/')
                    .unwrap()
                    .0,
                "expression.js",
                "parseIdentifier"
            )
        );
        let py = Frame {
            function: "convert".into(),
            file: Some("markdown/core.py".into()),
            line: Some(250),
            module: None,
            start_line: None,
            start_column: None,
            source_hash: None,
            full_name: None,
        };
        assert_eq!(
            parts(&py),
            owned(Language::FileBased, "markdown", "core.py", "convert")
        );
        assert_eq!(
            named("main"),
            owned(Language::Unknown, NO_PACKAGE, NO_CLASS, "main")
        );
        let venv = Frame {
            function: "convert".into(),
            file: Some(
                "/tmp/pa-venv/markdown-3.7/lib/python3.11/site-packages/markdown/core.py".into(),
            ),
            line: Some(1),
            module: None,
            start_line: None,
            start_column: None,
            source_hash: None,
            full_name: None,
        };
        assert_eq!(
            parts(&venv),
            owned(Language::FileBased, "markdown", "core.py", "convert")
        );
    }
}
