use super::*;
use serde::Deserialize;

fn props(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Whether `filter` (which must parse) matches `pairs`.
fn matches(filter: &str, pairs: &[(&str, &str)]) -> bool {
    parse(filter).unwrap().matches(&props(pairs))
}

/// The error message, with its column, for a filter that must not parse.
fn parse_error(text: &str) -> String {
    parse(text).unwrap_err().to_string()
}

fn text(filter: &str) -> String {
    parse(filter).unwrap().text()
}

/// Table 1 of the paper: four example properties.
fn table_1() -> BTreeMap<String, String> {
    props(&[
        ("java.version", "1.4.1 01"),
        ("user.id", "nXrPEQ7zq8w5JY9FAfThrFn"),
        ("os.name", "Linux"),
        ("os.version", "2.4.18-18.8.0"),
    ])
}

/// `(a = 1 or b = 1 and (…))` nested `levels` times: two groups a level.
fn alternating(levels: usize) -> String {
    (0..levels).fold("a = 1".to_string(), |inner, _| {
        format!("a = 1 or b = 1 and ({inner})")
    })
}

#[test]
fn and_binds_tighter_than_or() {
    let filter = "a=1 or b=2 and c=3";
    assert!(matches(filter, &[("a", "1")]));
    assert!(!matches(filter, &[("b", "2")]));
    assert!(matches(filter, &[("b", "2"), ("c", "3")]));
    assert!(!matches(filter, &[("c", "3")]));
    assert_eq!(text(filter), "(a = 1 or (b = 2 and c = 3))");
    assert_eq!(text("a=1 and b=2 or c=3"), "((a = 1 and b = 2) or c = 3)");
}

#[test]
fn parentheses_override_precedence() {
    let filter = "(a=1 or b=2) and c=3";
    assert!(!matches(filter, &[("a", "1")]));
    assert!(matches(filter, &[("a", "1"), ("c", "3")]));
    assert!(matches(filter, &[("b", "2"), ("c", "3")]));
    assert_eq!(text(filter), "((a = 1 or b = 2) and c = 3)");
    assert_eq!(parse("((((a = 1))))"), parse("a = 1"));
}

#[test]
fn chains_of_one_keyword_form_one_group() {
    assert_eq!(text("a=1 and b=2 and c=3"), "(a = 1 and b = 2 and c = 3)");
    assert_eq!(
        text("(a=1 and b=2) and c=3"),
        "((a = 1 and b = 2) and c = 3)"
    );
    assert!(matches(
        "a=1 and b=2 and c=3",
        &[("a", "1"), ("b", "2"), ("c", "3")]
    ));
    assert!(!matches("a=1 and b=2 and c=3", &[("a", "1"), ("b", "2")]));
    assert!(matches("a=1 or b=2 or c=3", &[("c", "3")]));
}

#[test]
fn keywords_are_case_insensitive() {
    assert_eq!(parse("a=1 AND b=2 Or c=3"), parse("a=1 and b=2 or c=3"));
    assert_eq!(text("a=1 AnD b=2"), "(a = 1 and b = 2)");
}

#[test]
fn numbers_compare_as_numbers_when_both_sides_are_numbers() {
    assert!(!matches("version >= 10", &[("version", "9")]));
    assert!(
        !matches("version >= \"10\"", &[("version", "9")]),
        "quotes change nothing"
    );
    assert!(matches("version >= 10", &[("version", "10.0")]));
    assert!(matches("version = 10", &[("version", "1e1")]));
    assert!(matches("x > -1", &[("x", "-0.5")]));
    assert!(matches("x = -0", &[("x", "0")]));
    assert!(matches("x = .5", &[("x", "+0.50")]));
    assert!(matches("x = 1e400", &[("x", "2e400")]), "both infinite");
}

#[test]
fn other_values_compare_as_strings_in_byte_order() {
    assert!(matches("os.name = Linux", &[("os.name", "Linux")]));
    assert!(!matches("os.name = Linux", &[("os.name", "linux")]));
    assert!(matches("name < b", &[("name", "B")]));
    assert!(matches(
        "os.version < 2.6",
        &[("os.version", "2.4.18-18.8.0")]
    ));
    assert!(!matches("x = 0x10", &[("x", "16")]), "no hexadecimal");
    assert!(matches("x = inf", &[("x", "inf")]), "no infinity words");
    assert!(!matches("x = 12", &[("x", " 12")]), "no spaces");
    assert!(
        !matches("x < \"\u{ff5e}\"", &[("x", "\u{1f600}")]),
        "code point order"
    );
}

#[test]
fn neither_order_is_version_order() {
    assert!(matches("v < 1.9", &[("v", "1.10")]), "as numbers");
    assert!(matches("v < 1.9.0", &[("v", "1.10.0")]), "as strings");
}

#[test]
fn decimal_numbers_are_recognised_strictly() {
    for yes in [
        "0", "-1", "+2.5", "5.", ".5", "1e3", "1E-3", "2.5e+10", "007",
    ] {
        assert!(number(yes).is_some(), "{yes}");
    }
    for no in [
        "", ".", "-", "e3", "1e", "1e+", "1.2.3", "inf", "NaN", "0x10", " 1", "1_0",
    ] {
        assert_eq!(number(no), None, "{no}");
    }
}

#[test]
fn unicode_operators_mean_the_ascii_ones() {
    assert_eq!(parse("a ≠ 1"), parse("a != 1"));
    assert_eq!(parse("a ≤ 1"), parse("a <= 1"));
    assert_eq!(parse("a ≥ 1"), parse("a >= 1"));
    assert_eq!(
        text("a≠1 and b≤2 and c≥3"),
        "(a != 1 and b <= 2 and c >= 3)"
    );
    assert!(matches("a ≠ 1", &[("a", "2")]));
    assert!(matches("a ≤ 1", &[("a", "1")]));
    assert!(!matches("a ≥ 1", &[("a", "0.5")]));
}

#[test]
fn every_operator_compares_as_its_name_says() {
    let cases = [
        ("=", [false, true, false]),
        ("!=", [true, false, true]),
        ("<", [true, false, false]),
        (">", [false, false, true]),
        ("<=", [true, true, false]),
        (">=", [false, true, true]),
    ];
    for (op, expected) in cases {
        for (actual, want) in ["1", "2", "3"].iter().zip(expected) {
            assert_eq!(
                matches(&format!("x {op} 2"), &[("x", actual)]),
                want,
                "{actual} {op} 2"
            );
        }
    }
}

#[test]
fn quoted_values_keep_spaces_quotes_and_backslashes() {
    assert!(matches(
        "java.version = \"1.4.1 01\"",
        &[("java.version", "1.4.1 01")]
    ));
    let escaped = r#"msg = "say \"hi\" \\ bye""#;
    assert!(matches(escaped, &[("msg", r#"say "hi" \ bye"#)]));
    assert!(matches(r"x = 'it\'s'", &[("x", "it's")]));
    assert!(matches("x = \"\"", &[("x", "")]));
    assert!(matches("a = \"or\"", &[("a", "or")]));
    assert!(matches("a = and_b", &[("a", "and_b")]));
    assert!(matches("path = /usr/lib:x", &[("path", "/usr/lib:x")]));
}

#[test]
fn a_missing_property_makes_its_predicate_false() {
    for op in ["=", "!=", "<", ">", "<=", ">="] {
        assert!(!matches(&format!("os.name {op} Linux"), &[]), "{op}");
    }
    assert!(!matches("x = \"\"", &[]));
    assert!(matches("os.name != Linux or a = 1", &[("a", "1")]));
    assert!(!matches("os.name != Linux and a = 1", &[("a", "1")]));
}

#[test]
fn text_quotes_only_what_must_be_quoted_and_parses_back() {
    let filter = r#"a = "x y" or b = "" or c = "AND" or d = "q\"\\" or e = 'plain' or f = "é""#;
    let normal = text(filter);
    assert_eq!(
        normal,
        r#"(a = "x y" or b = "" or c = "AND" or d = "q\"\\" or e = plain or f = "é")"#
    );
    assert_eq!(parse(&normal), parse(filter));
    assert_eq!(parse(filter).unwrap().to_string(), normal);
}

#[test]
fn to_js_is_a_small_json_ast() {
    let js = parse("os.name = Linux or v ≥ 2 and w != \"x y\"")
        .unwrap()
        .to_js();
    assert_eq!(
        js,
        json!({ "or": [
            { "property": "os.name", "op": "=", "value": "Linux" },
            { "and": [
                { "property": "v", "op": ">=", "value": "2" },
                { "property": "w", "op": "!=", "value": "x y" },
            ] },
        ] })
    );
}

#[test]
fn syntax_errors_say_what_was_expected_and_where() {
    let cases = [
        ("", "column 1: the filter is empty"),
        (" \t\n ", "column 1: the filter is empty"),
        ("os.name    Linux", "column 12: expected an operator (=, !=, <, >, <=, >=) after \"os.name\""),
        ("a and b", "column 3: expected an operator (=, !=, <, >, <=, >=) after \"a\""),
        ("os.name =", "column 10: expected a value after \"=\" but found the end of the filter"),
        ("a == 1", "column 4: expected a value after \"=\" but found \"=\""),
        ("a ≠", "column 4: expected a value after \"≠\" but found the end of the filter"),
        ("a = (1)", "column 5: expected a value after \"=\" but found \"(\""),
        ("os.name = and", "column 11: expected a value after \"=\" but found the keyword \"and\" (quote it to compare with the word)"),
        ("and = 1", "column 1: expected a property name but found the keyword \"and\""),
        ("a = 1 or OR = 2", "column 10: expected a property name but found the keyword \"OR\""),
        ("\"os.name\" = Linux", "column 1: expected a property name or \"(\" but found a quoted string"),
        ("= 1", "column 1: expected a property name or \"(\" but found \"=\""),
        ("a = 1 and", "column 10: expected a property name or \"(\" but found the end of the filter"),
        ("()", "column 2: expected a property name or \"(\" but found \")\""),
        ("(a = 1", "column 1: \"(\" is never closed"),
        ("((a = 1) or (b = 2)", "column 1: \"(\" is never closed"),
        ("a = 1)", "column 6: \")\" has no matching \"(\""),
        ("(a = 1))", "column 8: \")\" has no matching \"(\""),
        ("a = 1 b = 2", "column 7: expected \"and\", \"or\" or the end of the filter but found \"b\" (quote a value that has spaces)"),
        ("a = 1 (b = 2)", "column 7: expected \"and\", \"or\" or the end of the filter but found \"(\""),
        ("(a = 1 b)", "column 8: expected \"and\", \"or\" or \")\" but found \"b\" (quote a value that has spaces)"),
        ("(a = 1 = 2)", "column 8: expected \"and\", \"or\" or \")\" but found \"=\""),
        ("a = \"abc", "column 5: unterminated string (no closing \")"),
        ("a = 'abc", "column 5: unterminated string (no closing ')"),
        ("a = \"x\\", "column 5: unterminated string (no closing \")"),
        ("a = \"x\\n\"", "column 7: unknown escape \"\\n\" in a string (only \\\", \\' and \\\\)"),
        ("a % 1", "column 3: unexpected character \"%\" (U+0025)"),
        ("a ! 1", "column 3: \"!\" must be followed by \"=\""),
    ];
    for (text, expected) in cases {
        assert_eq!(parse_error(text), expected, "for {text:?}");
    }
}

#[test]
fn columns_count_characters_not_bytes() {
    assert_eq!(
        parse_error("city = Zürich"),
        "column 9: unexpected character \"ü\" (U+00FC)"
    );
    assert_eq!(
        parse_error("a = \"é\" and b"),
        "column 14: expected an operator (=, !=, <, >, <=, >=) after \"b\""
    );
    assert_eq!(parse("a = \"\u{1f600}\" b").unwrap_err().column, 9);
    assert_eq!(parse("a ≠ 1 and ≥").unwrap_err().column, 11);
    assert_eq!(
        parse_error("a\u{a0}= 1"),
        "column 2: unexpected character \"\u{a0}\" (U+00A0)"
    );
    assert_eq!(
        parse_error("\u{1f600} = 1"),
        "column 1: unexpected character \"\u{1f600}\" (U+1F600)"
    );
}

#[test]
fn parentheses_nested_deeper_than_100_levels_are_rejected() {
    let parens = |n: usize| format!("{}a = 1{}", "(".repeat(n), ")".repeat(n));
    assert!(matches(&parens(100), &[("a", "1")]));
    assert_eq!(
        parse_error(&parens(101)),
        "column 101: parentheses nest deeper than 100 levels"
    );
    let err = parse(&"(".repeat(100_000)).unwrap_err();
    assert_eq!(err.column, 101, "no stack overflow: {err}");
}

#[test]
fn groups_nested_deeper_than_100_levels_are_rejected() {
    let deepest = parse(&alternating(50)).unwrap();
    assert_eq!(deepest.root.height(), 100);
    assert_eq!(parse(&deepest.text()).as_ref(), Ok(&deepest));
    assert!(deepest.matches(&props(&[("a", "1")])));
    assert_eq!(
        parse_error(&alternating(51)),
        "column 16: \"and\"/\"or\" groups nest deeper than 100 levels"
    );
}

#[test]
fn long_chains_are_one_group_not_deep_nesting() {
    let chain = vec!["a = 1"; 10_000].join(" and ");
    let filter = parse(&chain).unwrap();
    assert!(filter.matches(&props(&[("a", "1")])));
    assert_eq!(parse(&filter.text()), Ok(filter));
}

/// Section 2.4: the example filter, single quotes and `≠` as printed,
/// on the properties of Table 1.
#[test]
fn the_papers_example_filter_selects_linux_without_java_1_3_0() {
    let filter = parse("(java.version ≠ '1.3.0') and (os.name = 'Linux')").unwrap();
    assert_eq!(filter.text(), "(java.version != 1.3.0 and os.name = Linux)");
    assert!(filter.matches(&table_1()));
    let mut java_1_3_0 = table_1();
    java_1_3_0.insert("java.version".into(), "1.3.0".into());
    assert!(!filter.matches(&java_1_3_0));
    let mut windows = table_1();
    windows.insert("os.name".into(), "Windows".into());
    assert!(!filter.matches(&windows));
}

/// Table 2: a predicate list is a predicate or a parenthesised
/// `list op list`; each such filter parses, and `text()` writes Table 2's
/// form back.
#[test]
fn table_2_filters_parse_and_text_writes_table_2_form() {
    let cases = [
        ("os.name = Linux", "os.name = Linux", true),
        (
            "(os.name = Linux and os.version = 2.4.18-18.8.0)",
            "(os.name = Linux and os.version = 2.4.18-18.8.0)",
            true,
        ),
        (
            "(user.id != nXrPEQ7zq8w5JY9FAfThrFn or os.name = Linux)",
            "(user.id != nXrPEQ7zq8w5JY9FAfThrFn or os.name = Linux)",
            true,
        ),
        (
            "((java.version < '1.4') or (os.version >= '2.6'))",
            "(java.version < 1.4 or os.version >= 2.6)",
            false,
        ),
        (
            "((java.version <= '1.4.1 01' and os.name = Linux) or os.name > Linux)",
            "((java.version <= \"1.4.1 01\" and os.name = Linux) or os.name > Linux)",
            true,
        ),
    ];
    for (written, normal, expected) in cases {
        let filter = parse(written).unwrap();
        assert_eq!(filter.text(), normal, "{written}");
        assert_eq!(filter.matches(&table_1()), expected, "{written}");
        assert_eq!(parse(normal), Ok(filter), "{normal}");
    }
}

#[test]
fn table_1_values_with_spaces_must_be_quoted() {
    assert_eq!(
        parse_error("java.version = 1.4.1 01"),
        "column 22: expected \"and\", \"or\" or the end of the filter but found \"01\" (quote a value that has spaces)"
    );
    assert!(parse("java.version = \"1.4.1 01\"")
        .unwrap()
        .matches(&table_1()));
}

#[test]
fn group_by_makes_equivalence_classes_sorted_by_key() {
    let runs = [
        props(&[
            ("java.version", "1.4.2"),
            ("user.id", "u1"),
            ("os.name", "Linux"),
        ]),
        props(&[
            ("java.version", "1.4.1"),
            ("user.id", "u2"),
            ("os.name", "Linux"),
        ]),
        props(&[
            ("java.version", "1.4.2"),
            ("user.id", "u1"),
            ("os.name", "SunOS"),
        ]),
        props(&[("user.id", "u1"), ("os.name", "Linux")]),
    ];
    let refs: Vec<&BTreeMap<String, String>> = runs.iter().collect();
    // The paper's summarizer "java.version, user.id".
    let keys = ["java.version".to_string(), "user.id".to_string()];
    let groups = group_by(&refs, &keys);
    let summary: Vec<(Vec<Option<&str>>, Vec<usize>)> = groups
        .iter()
        .map(|g| {
            (
                g.key.iter().map(Option::as_deref).collect(),
                g.members.clone(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (vec![None, Some("u1")], vec![3]),
            (vec![Some("1.4.1"), Some("u2")], vec![1]),
            (vec![Some("1.4.2"), Some("u1")], vec![0, 2]),
        ]
    );
    assert_eq!(
        groups[2].common,
        props(&[("java.version", "1.4.2"), ("user.id", "u1")])
    );
    assert_eq!(groups[0].common, runs[3], "one member: all its properties");
}

#[test]
fn group_by_without_keys_is_one_group_and_without_executions_none() {
    let runs = [
        props(&[("a", "1"), ("b", "2")]),
        props(&[("a", "1"), ("b", "3")]),
    ];
    let refs: Vec<&BTreeMap<String, String>> = runs.iter().collect();
    let groups = group_by(&refs, &[]);
    assert_eq!(groups.len(), 1);
    assert_eq!(groups[0].key, Vec::<Option<String>>::new());
    assert_eq!(groups[0].members, [0, 1]);
    assert_eq!(groups[0].common, props(&[("a", "1")]));
    assert!(group_by(&[], &["a".to_string()]).is_empty());
}

#[test]
fn common_properties_keeps_pairs_every_execution_shares() {
    let runs = [
        props(&[("a", "1"), ("b", "2"), ("c", "3")]),
        props(&[("a", "1"), ("b", "x")]),
        props(&[("a", "1"), ("b", "2"), ("c", "3")]),
    ];
    assert_eq!(common_properties(&runs), props(&[("a", "1")]));
    assert_eq!(common_properties(&runs[..1]), runs[0]);
    assert_eq!(common_properties(&runs[..0]), BTreeMap::new());
}

#[test]
fn view_config_reads_from_toml_and_validate_names_the_view() {
    let view: ViewConfig = toml::from_str(
        "name = \"linux\"\nfilter = \"os.name = Linux\"\ngroup_by = [\"java.version\"]",
    )
    .unwrap();
    assert_eq!(view.group_by, ["java.version"]);
    assert_eq!(
        check_view(&view),
        Ok(Some(parse("os.name = Linux").unwrap()))
    );
    let bare: ViewConfig = toml::from_str("name = \"all\"").unwrap();
    assert_eq!((bare.filter.as_deref(), bare.group_by.len()), (None, 0));
    assert_eq!(check_view(&bare), Ok(None));
    assert!(toml::from_str::<ViewConfig>("name = \"x\"\nfliter = \"a = 1\"").is_err());

    let broken = ViewConfig {
        filter: Some("os.name Linux".into()),
        ..view.clone()
    };
    assert_eq!(
        check_view(&broken).unwrap_err(),
        "view \"linux\": filter \"os.name Linux\": column 9: \
         expected an operator (=, !=, <, >, <=, >=) after \"os.name\""
    );
    let unnamed = ViewConfig {
        name: " ".into(),
        ..view.clone()
    };
    assert_eq!(
        check_view(&unnamed).unwrap_err(),
        "a view has an empty name"
    );
    let empty_key = ViewConfig {
        group_by: vec![String::new()],
        ..view
    };
    assert_eq!(
        check_view(&empty_key).unwrap_err(),
        "view \"linux\": group_by has an empty property name"
    );
}

// ------------------------------------------------ agreement with the JS twin

/// One row of `tests/fixtures/filter_cases.json`: a filter that parses
/// with properties and whether they match, or one that does not parse.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    filter: String,
    #[serde(default)]
    properties: BTreeMap<String, String>,
    matches: Option<bool>,
    error: Option<ExpectedError>,
}

#[derive(Deserialize, Serialize, Debug, PartialEq)]
struct ExpectedError {
    column: usize,
    message: String,
}

/// What the JavaScript said about one case.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct JsAnswer {
    error: Option<ExpectedError>,
    /// Whether its AST equals Rust's `to_js` (compared in JavaScript:
    /// ASTs nest deeper than serde_json reads by default).
    same_ast: bool,
    /// `matches` on its own AST.
    matches: Option<bool>,
    /// `matches` on Rust's `to_js` AST.
    matches_rust_ast: Option<bool>,
}

const JS_HARNESS: &str = r#"
    var api = require(process.argv[1]);
    var cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));
    function same(a, b) {
      if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return a === b;
      var keys = Object.keys(a).sort();
      if (Array.isArray(a) !== Array.isArray(b) || keys.join() !== Object.keys(b).sort().join()) return false;
      return keys.every(function (k) { return same(a[k], b[k]); });
    }
    process.stdout.write(JSON.stringify(cases.map(function (c) {
      var parsed = api.parse(c.filter);
      return {
        error: parsed.ok ? null : parsed.error,
        same_ast: parsed.ok ? same(parsed.ast, c.rust_ast) : c.rust_ast === null,
        matches: parsed.ok ? api.matches(parsed.ast, c.properties) : null,
        matches_rust_ast: c.rust_ast ? api.matches(c.rust_ast, c.properties) : null
      };
    })));
"#;

fn fixture_cases() -> Vec<Case> {
    let path = concat!(
        concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
        "/tests/fixtures/filter_cases.json"
    );
    let text = std::fs::read_to_string(path).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Runs the harness over the cases with each Rust AST; None when `node`
/// is not installed.
fn run_node(cases: &[Case]) -> Option<Vec<JsAnswer>> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let input: Vec<Value> = cases
        .iter()
        .map(|c| {
            let rust_ast = parse(&c.filter).ok().map(|f| f.to_js());
            json!({ "filter": c.filter, "properties": c.properties, "rust_ast": rust_ast })
        })
        .collect();
    let script = concat!(
        concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
        "/crates/render/templates/assets/field-filter.js"
    );
    let spawned = Command::new("node")
        .args(["-e", JS_HARNESS, script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
        Err(e) if std::env::var_os("CI").is_some() => panic!("node is needed under CI: {e}"),
        Err(e) => {
            eprintln!("note: node not runnable ({e}); the JavaScript half is skipped");
            return None;
        }
    };
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(&serde_json::to_vec(&input).unwrap())
        .unwrap();
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "node failed: {}", output.status);
    Some(serde_json::from_slice(&output.stdout).unwrap())
}

/// Where Rust disagrees with the expected answer of `case`.
fn rust_disagreement(case: &Case) -> Option<String> {
    let got = parse(&case.filter)
        .map(|filter| filter.matches(&case.properties))
        .map_err(|e| ExpectedError {
            column: e.column,
            message: e.message,
        });
    let agrees = match (&case.error, case.matches) {
        (Some(error), None) => got.as_ref().err() == Some(error),
        (None, Some(expected)) => got.as_ref().ok() == Some(&expected),
        _ => return Some("the case needs exactly one of matches and error".into()),
    };
    (!agrees).then(|| format!("rust: {got:?}"))
}

/// Where JavaScript disagrees with the expected answer of `case` or
/// with Rust's AST.
fn js_disagreement(case: &Case, js: &JsAnswer) -> Option<String> {
    let agrees = match (&case.error, case.matches) {
        (Some(error), _) => js.error.as_ref() == Some(error),
        (None, expected) => {
            js.error.is_none()
                && js.same_ast
                && js.matches == expected
                && js.matches_rust_ast == expected
        }
    };
    (!agrees).then(|| format!("javascript: {js:?}"))
}

#[test]
fn rust_and_javascript_agree_with_the_case_table() {
    let cases = fixture_cases();
    assert!(cases.len() >= 40, "{} cases", cases.len());
    let js = run_node(&cases);
    let mut failures = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let js_answer = js.as_ref().and_then(|answers| answers.get(i));
        let problems = [
            rust_disagreement(case),
            js_answer.and_then(|answer| js_disagreement(case, answer)),
            js.as_ref()
                .filter(|_| js_answer.is_none())
                .map(|_| "javascript: no answer".to_string()),
        ];
        for problem in problems.into_iter().flatten() {
            failures.push(format!("case {i} {:?}: {problem}", case.filter));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
