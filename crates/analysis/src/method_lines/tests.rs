use super::*;
use vcs::PathMap;
use vcs::{DiffLine, FileDiff, FileStatus, Hunk, LineKind};

fn site(file: &str, name: &str, start: Option<u32>, sampled: &[u32]) -> MethodSite {
    MethodSite {
        file: file.into(),
        name: name.into(),
        start_line: start,
        sampled_lines: sampled.to_vec(),
    }
}

// Shaped like Python-Markdown's treeprocessors.py: a decorated method in a
// class, a nested function, an async def.
const PY: &str = "\
import re                                   
                                            
class InlineProcessor(Treeprocessor):       
    \"\"\"Doc.\"\"\"                          
                                            
    @property                                
    @staticmethod                            
    def helper(                              
        x,                                   
    ):                                       
        return x                             
                                            
    def run(self, tree, ancestors=None):     
        def inner(a):                        
            return a + 1                     
        # a comment at body depth            
        stack = [tree]                       
                                            
        return inner(stack)                  
                                            
async def fetch(url):                       
    await go(url)                            
x = 1                                        
";

#[test]
fn python_methods_are_their_def_blocks_with_decorators() {
    let r = method_range(
        &site("m/t.py", "InlineProcessor.helper", None, &[11]),
        Some(PY),
    )
    .unwrap();
    assert_eq!((r.first, r.last, r.rule), (6, 11, RangeRule::PythonDef));
    // Sampled inside the nested function: the enclosing def is `run`, found
    // by name, and the block runs to its last statement.
    let r = method_range(
        &site("m/t.py", "InlineProcessor.run", None, &[15, 19]),
        Some(PY),
    )
    .unwrap();
    assert_eq!((r.first, r.last), (13, 19));
    let r = method_range(
        &site("m/t.py", "InlineProcessor.run.<locals>.inner", None, &[15]),
        Some(PY),
    )
    .unwrap();
    assert_eq!((r.first, r.last), (14, 15));
    let r = method_range(&site("m/t.py", "fetch", None, &[22]), Some(PY)).unwrap();
    assert_eq!((r.first, r.last), (21, 22));
    // Module-level code is never a method.
    assert_eq!(
        method_range(&site("m/t.py", "<module>", None, &[23]), Some(PY)),
        None
    );
}

#[test]
fn without_source_the_profile_alone_gives_the_range() {
    let r = method_range(&site("m/t.py", "f", None, &[30, 12, 20]), None);
    // sampled lines are given sorted by the caller
    assert!(r.is_some());
    let r = method_range(&site("m/t.py", "f", None, &[12, 20, 30]), None).unwrap();
    assert_eq!((r.first, r.last, r.rule), (12, 30, RangeRule::SampledLines));
    let r = method_range(&site("a.go", "main.f", Some(10), &[12]), None).unwrap();
    assert_eq!(
        (r.first, r.last, r.rule),
        (10, 12, RangeRule::DeclaredStart)
    );
    assert_eq!(method_range(&site("a.go", "main.f", None, &[]), None), None);
}

const GO: &str = r#"package main

// f does things; "}" in a comment
func (p *parser) parseExpr(x int) int {
	s := "{ not a brace }"
	c := '}'
	/* } */
	if x > 0 {
		return 1
	}
	return 0
}

func other() {}
"#;

#[test]
fn brace_blocks_skip_strings_comments_and_char_literals() {
    let r = method_range(
        &site("p/a.go", "p.(*parser).parseExpr", Some(4), &[9]),
        Some(GO),
    )
    .unwrap();
    assert_eq!((r.first, r.last, r.rule), (4, 12, RangeRule::BraceBlock));
    // Without a start line the definition is found above the sampled line.
    let r = method_range(
        &site("p/a.go", "p.(*parser).parseExpr", None, &[9]),
        Some(GO),
    )
    .unwrap();
    assert_eq!((r.first, r.last), (4, 12));
    let js = "function a() {\n  const s = `}`;\n  return 1;\n}\nfunction b() { return 2; }\n";
    let r = method_range(&site("x.js", "a", Some(1), &[3]), Some(js)).unwrap();
    assert_eq!((r.first, r.last), (1, 4));
}

fn line(kind: LineKind, old: Option<u32>, new: Option<u32>, text: &str) -> DiffLine {
    DiffLine {
        kind,
        old_line: old,
        new_line: new,
        text: text.into(),
    }
}

/// A hunk from a unified diff written as ` text`, `+text`, `-text`.
fn hunk(old_start: u32, new_start: u32, body: &[&str]) -> Hunk {
    let (mut o, mut n) = (old_start, new_start);
    let lines: Vec<DiffLine> = body
        .iter()
        .map(|l| {
            let (k, t) = l.split_at(1);
            match k {
                "+" => {
                    n += 1;
                    line(LineKind::Added, None, Some(n - 1), t)
                }
                "-" => {
                    o += 1;
                    line(LineKind::Removed, Some(o - 1), None, t)
                }
                _ => {
                    o += 1;
                    n += 1;
                    line(LineKind::Context, Some(o - 1), Some(n - 1), t)
                }
            }
        })
        .collect();
    Hunk {
        old_start,
        old_lines: o - old_start,
        new_start,
        new_lines: n - new_start,
        header: String::new(),
        lines,
    }
}

fn file(status: FileStatus, hunks: Vec<Hunk>) -> FileDiff {
    FileDiff {
        old_path: Some("a.py".into()),
        new_path: Some("a.py".into()),
        status,
        binary: false,
        hunks,
    }
}

/// marked 4.0.5's bundle re-indented every line of lib/marked.cjs (its
/// UMD wrapper gone): 4,577 changed lines, no method's code changed.
#[test]
fn a_change_in_whitespace_alone_modifies_no_method() {
    let range = LineRange {
        first: 10,
        last: 14,
        rule: RangeRule::BraceBlock,
    };
    let reindented = file(
        FileStatus::Modified,
        vec![hunk(
            10,
            10,
            &[
                "-    list(src) {",
                "-      let cap = this.rules.block.list.exec(src);",
                "-    }",
                "+  list(src) {",
                "+    let cap = this.rules.block.list.exec(src);",
                "+  }",
            ],
        )],
    );
    assert!(!is_modified(&range, &reindented));
    let changed = file(
        FileStatus::Modified,
        vec![hunk(
            10,
            10,
            &[
                "-    list(src) {",
                "-      let cap = this.rules.block.list.exec(src);",
                "+  list(src) {",
                "+    const cap = this.rules.block.list.exec(src);",
            ],
        )],
    );
    assert!(is_modified(&range, &changed));
}

#[test]
fn additions_and_removals_inside_the_range_modify_the_method() {
    let range = LineRange {
        first: 10,
        last: 20,
        rule: RangeRule::PythonDef,
    };
    // An added line at the range's first line.
    let f = file(
        FileStatus::Modified,
        vec![hunk(8, 8, &[" a", " b", "+def f():", " c"])],
    );
    assert_eq!(changed_positions(&f), vec![10]);
    assert!(is_modified(&range, &f));
    // A pure deletion inside the body (between new lines 14 and 15).
    let f = file(
        FileStatus::Modified,
        vec![hunk(12, 12, &[" a", " b", "-gone", " c"])],
    );
    assert_eq!(changed_positions(&f), vec![14]);
    assert!(is_modified(&range, &f));
    // A deletion just before the def (insertion point = the def line) is the
    // previous code's change, not this method's.
    let f = file(
        FileStatus::Modified,
        vec![hunk(7, 7, &[" a", " b", "-gone", " def f():"])],
    );
    assert_eq!(changed_positions(&f), vec![9]);
    let at_def = LineRange { first: 9, ..range };
    assert!(!is_modified(&at_def, &f));
    // A change after the range.
    let f = file(FileStatus::Modified, vec![hunk(20, 20, &[" z", "+after"])]);
    assert!(!is_modified(&range, &f));
    // Every method of an added file is new.
    assert!(is_modified(&range, &file(FileStatus::Added, vec![])));
}

#[test]
fn method_diff_keeps_changes_in_range_with_context_and_a_bound() {
    let range = LineRange {
        first: 3,
        last: 6,
        rule: RangeRule::SampledLines,
    };
    let f = file(
        FileStatus::Modified,
        vec![hunk(
            1,
            1,
            &[
                " l1", " l2", " l3", "-old4", "+new4", " l5", " l6", " l7", " l8", "+l9",
            ],
        )],
    );
    let d = method_diff(&range, &f, 100);
    let texts: Vec<&str> = d.lines.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(texts, ["l2", "l3", "old4", "new4", "l5", "l6"]);
    assert!(!d.truncated);
    let d = method_diff(&range, &f, 3);
    assert_eq!(d.lines.len(), 3);
    assert!(d.truncated);
}

#[test]
fn path_map_applies_rules_then_the_longest_unique_suffix() {
    let repo = vec![
        "docs/core.py".to_string(),
        "markdown/core.py".to_string(),
        "markdown/extensions/toc.py".to_string(),
        "src/util.go".to_string(),
        "vendor/x/util.go".to_string(),
    ];
    let m = PathMap::new(vec![("/build/".into(), "src/".into())], repo);
    assert_eq!(
        m.map("/tmp/venv/lib/python3.11/site-packages/markdown/core.py")
            .as_deref(),
        Some("markdown/core.py")
    );
    assert_eq!(
        m.map("markdown/extensions/toc.py").as_deref(),
        Some("markdown/extensions/toc.py")
    );
    assert_eq!(
        m.map("file://./markdown/core.py").as_deref(),
        Some("markdown/core.py")
    );
    assert_eq!(
        m.map("C:\\work\\markdown\\core.py").as_deref(),
        Some("markdown/core.py")
    );
    // A rule wins over suffix matching; an ambiguous suffix maps to nothing.
    assert_eq!(m.map("/build/util.go").as_deref(), Some("src/util.go"));
    assert_eq!(m.map("/elsewhere/util.go"), None);
    assert_eq!(m.map("core.py"), None);
    assert_eq!(m.map("/nowhere/missing.py"), None);
}

#[test]
fn removing_a_python_functions_last_statement_modifies_it() {
    let range = LineRange {
        first: 10,
        last: 12,
        rule: RangeRule::PythonDef,
    };
    // Old: body lines 11–13; line 13 removed; new line 13 is blank.
    let f = file(
        FileStatus::Modified,
        vec![hunk(
            11,
            11,
            &[
                "     a = 1",
                "     return a",
                "-    log(a)",
                " ",
                " ",
                " def next():",
            ],
        )],
    );
    assert!(is_modified(&range, &f));
    // Removing the next function right after the body (blank first) is not.
    let g = file(
        FileStatus::Modified,
        vec![hunk(
            11,
            11,
            &[
                "     a = 1",
                "     return a",
                "-",
                "-",
                "-def gone():",
                "-    pass",
                " ",
                " ",
                " def next():",
            ],
        )],
    );
    assert!(!is_modified(&range, &g));
    // The same removal after a brace block's `}` belongs to what follows.
    let brace = LineRange {
        rule: RangeRule::BraceBlock,
        ..range
    };
    assert!(!is_modified(&brace, &f));
}

#[test]
fn python_bodies_span_dedented_strings_and_brackets_and_decorator_starts() {
    let src = "\
@decorator
def f(x):
    doc = \"\"\"
text at column 0
\"\"\"
    data = [
1, 2,
]
    return doc, data


def g():
    pass
";
    // Declared start on the decorator (co_firstlineno).
    let r = method_range(&site("a.py", "f", Some(1), &[9]), Some(src)).unwrap();
    assert_eq!((r.first, r.last, r.rule), (1, 9, RangeRule::PythonDef));
    let r = method_range(&site("a.py", "g", None, &[13]), Some(src)).unwrap();
    assert_eq!((r.first, r.last), (12, 13));
}

#[test]
fn a_recursive_call_above_the_sample_is_passed_by() {
    let go = "\
func fact(n int) int {
\tif n > 1 {
\t\tr := fact(n - 1)
\t\treturn n * r
\t}
\treturn 1
}
";
    let r = method_range(&site("a.go", "main.fact", None, &[4, 6]), Some(go)).unwrap();
    assert_eq!((r.first, r.last, r.rule), (1, 7, RangeRule::BraceBlock));
    // Module-level code gives no range, even with a start line.
    assert_eq!(
        method_range(&site("a.js", "(program)", Some(3), &[4]), Some(go)),
        None
    );
    assert!(method_range(&site("a.js", "(anonymous)", Some(1), &[2]), None).is_some());
}

/// A file of tests/fixtures/js-sources: real library sources from npm
/// packages (the README there says which), with a short header.
fn js_source(name: &str) -> String {
    let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/fixtures/js-sources")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// (first, last, rule) of `name` in fixture `file`.
fn js_range(file: &str, name: &str, start: Option<u32>, sampled: &[u32]) -> (u32, u32, RangeRule) {
    let text = js_source(file);
    let r = method_range(&site(file, name, start, sampled), Some(&text)).unwrap();
    (r.first, r.last, r.rule)
}

#[test]
fn js_regex_literals_holding_backticks_do_not_open_template_strings() {
    // marked@4.0.10 src/Tokenizer.js: line 44 matches /^(\s+)(?:```)/; the
    // three backticks used to open a template string that ran to line 189,
    // so the function's block never closed where it does.
    let f = "marked-Tokenizer.js";
    let want = (43, 69, RangeRule::BraceBlock);
    assert_eq!(js_range(f, "indentCodeCompensation", Some(43), &[55]), want);
    assert_eq!(js_range(f, "indentCodeCompensation", None, &[55]), want);
    // Before it, a regex with an escaped bracket and strings with `$1`.
    assert_eq!(
        js_range(f, "outputLink", None, &[18]),
        (15, 41, RangeRule::BraceBlock)
    );
    // After it: class methods, by name; `fences` calls the function above.
    assert_eq!(
        js_range(f, "Tokenizer.fences", None, &[108]),
        (104, 117, RangeRule::BraceBlock)
    );
    assert_eq!(
        js_range(f, "Tokenizer.code", None, &[92]),
        (89, 102, RangeRule::BraceBlock)
    );
    // `list`: template strings with `${…}` between `{0,` and `}` of a
    // regex quantifier (line 234), regexes with quantifier braces, arrow
    // functions with block bodies.
    assert_eq!(
        js_range(f, "list", Some(171), &[196, 234, 330]),
        (171, 334, RangeRule::BraceBlock)
    );
}

#[test]
fn js_single_quoted_strings_holding_braces_and_comment_marks_are_skipped() {
    // lodash@4.17.21 template.js: 'with (obj) {\n' (line 232) and
    // 'function(' + … + ') {\n' (line 246) hold an opening brace each; the
    // old scan took `'w` for a Rust lifetime and counted them.
    assert_eq!(
        js_range("lodash-template.js", "template", None, &[205, 262]),
        (161, 276, RangeRule::BraceBlock)
    );
    // lodash@4.17.21 _insertWrapDetails.js: '{\n/* [wrapped with ' (line
    // 26) holds a brace and a comment opener.
    assert_eq!(
        js_range(
            "lodash-insertWrapDetails.js",
            "insertWrapDetails",
            None,
            &[26]
        ),
        (18, 27, RangeRule::BraceBlock)
    );
}

#[test]
fn js_template_strings_nest_through_their_expressions() {
    // @babel/code-frame@7.18.6 lib/index.js, line 131:
    // ` ${maybeHighlight(defs.gutter, gutter)}${line.length > 0 ? ` ${line}` : ""}`
    // inside the arrow function given to `.map` (lines 109–133), inside
    // codeFrameColumns (91–144), whose head has a default `opts = {}`;
    // line 136 has a string inside `${…}`.
    let f = "babel-code-frame.js";
    assert_eq!(
        js_range(f, "codeFrameColumns", None, &[131, 136]),
        (91, 144, RangeRule::BraceBlock)
    );
    assert_eq!(
        js_range(f, "(anonymous)", Some(109), &[131]),
        (109, 133, RangeRule::BraceBlock)
    );
    // Before and after: destructuring braces, a message string with
    // backticks in double quotes (line 149).
    assert_eq!(
        js_range(f, "getMarkerLines", None, &[60]),
        (28, 89, RangeRule::BraceBlock)
    );
    assert_eq!(
        js_range(f, "_default", None, &[149, 167]),
        (146, 168, RangeRule::BraceBlock)
    );
}

#[test]
fn js_regex_literals_holding_braces_are_skipped() {
    // handlebars@4.7.7 lib/handlebars/compiler/helpers.js: `id` tests
    // /^\[.*\]$/, `stripComment` strips /^\{\{~?!-?-?/ and /-?-?~?\}\}$/,
    // `prepareMustache` compares with '{' and tests /\*/.
    let f = "handlebars-helpers.js";
    assert_eq!(
        js_range(f, "id", None, &[35]),
        (33, 39, RangeRule::BraceBlock)
    );
    assert_eq!(
        js_range(f, "stripComment", None, &[49]),
        (48, 50, RangeRule::BraceBlock)
    );
    assert_eq!(
        js_range(f, "prepareMustache", Some(87), &[92]),
        (87, 102, RangeRule::BraceBlock)
    );
}

#[test]
fn js_braces_hidden_in_regexes_templates_and_strings() {
    let js = r#"function a(s) {
  if (/\{/.test(s)) return s.replace(/[{"'`]/g, '');
  const t = `x ${ s.map(v => { return `{${v}`; }) } '"`;
  const u = s / 2 / 3; // a division, not a regex: {
  /* { */ const w = "}" + '{' + `\`{`;
  return String(t) / u;
}
function b() { return 2; }
"#;
    let r = method_range(&site("x.ts", "a", None, &[6]), Some(js)).unwrap();
    assert_eq!((r.first, r.last, r.rule), (1, 7, RangeRule::BraceBlock));
    // A `/` after `)` divides (as a regex it would end inside the
    // template string and leave its closing backtick open).
    let js = "function c(x) {\n  const y = (x) / 2 + `/{`.length;\n  return y;\n}\n";
    let r = method_range(&site("x.mjs", "c", Some(1), &[3]), Some(js)).unwrap();
    assert_eq!((r.first, r.last, r.rule), (1, 4, RangeRule::BraceBlock));
    // First on its line a `/` starts a regex, but one that does not end
    // on its line was a division: the line is read again after it, and
    // its `{` counts.
    let js = "function d(x) {\n  let y = x\n    / 2; if (y) { y = 0;\n  }\n  return y;\n}\n";
    let r = method_range(&site("x.jsx", "d", Some(1), &[5]), Some(js)).unwrap();
    assert_eq!((r.first, r.last, r.rule), (1, 6, RangeRule::BraceBlock));
    // Object literals and patterns among the parameters are not the body,
    // nor is a TypeScript return type.
    let ts = "function e({ a, b } = {}, c = { d: {} }): { x: number } {\n  return a;\n}\n";
    let r = method_range(&site("x.ts", "e", None, &[2]), Some(ts)).unwrap();
    assert_eq!((r.first, r.last, r.rule), (1, 3, RangeRule::BraceBlock));
    // Other brace languages keep their scan: a Rust lifetime is no quote.
    let rs = "fn f<'a>(x: &'a str) -> &'a str {\n    x\n}\n";
    let r = method_range(&site("x.rs", "f", Some(1), &[2]), Some(rs)).unwrap();
    assert_eq!((r.first, r.last), (1, 3));
}
