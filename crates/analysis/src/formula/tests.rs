use super::*;

const PPROF_ALLOC: [&str; 4] = [
    "alloc_objects",
    "alloc_space",
    "inuse_objects",
    "inuse_space",
];

/// Parses, binds to `names` and evaluates on `values`.
fn eval(text: &str, names: &[&str], values: &[f64]) -> Result<f64, EvalError> {
    parse(text).unwrap().bind(names).unwrap().eval(values)
}

fn abc(text: &str, a: f64, b: f64, c: f64) -> f64 {
    eval(text, &["a", "b", "c"], &[a, b, c]).unwrap()
}

/// The error message, with its column, for a formula that must not parse.
fn parse_error(text: &str) -> String {
    parse(text).unwrap_err().to_string()
}

#[test]
fn bytes_per_object_divides_space_by_objects() {
    let values = [409_600.0, 52_428_800.0, 1_024.0, 131_072.0];
    assert_eq!(
        eval("alloc_space / alloc_objects", &PPROF_ALLOC, &values),
        Ok(128.0)
    );
    assert_eq!(
        eval("inuse_space/inuse_objects", &PPROF_ALLOC, &values),
        Ok(128.0)
    );
}

#[test]
fn nanoseconds_scale_to_milliseconds() {
    assert_eq!(
        eval("cpu / 1e6", &["samples", "cpu"], &[250.0, 2.5e9]),
        Ok(2500.0)
    );
}

#[test]
fn multiplication_binds_tighter_than_addition() {
    assert_eq!(abc("a + b * 2", 1.0, 3.0, 0.0), 7.0);
    assert_eq!(abc("a * 2 + b", 1.0, 3.0, 0.0), 5.0);
    assert_eq!(abc("a - b / 2", 10.0, 4.0, 0.0), 8.0);
    assert_eq!(abc("(a + b) * 2 - c", 1.0, 3.0, 5.0), 3.0);
}

#[test]
fn binary_operators_are_left_associative() {
    assert_eq!(abc("a - b - c", 10.0, 3.0, 2.0), 5.0);
    assert_eq!(abc("a / b / c", 24.0, 4.0, 2.0), 3.0);
    assert_eq!(abc("a - b + c", 10.0, 3.0, 2.0), 9.0);
    assert_eq!(abc("a / b * c", 24.0, 4.0, 2.0), 12.0);
}

#[test]
fn unary_minus_negates_its_operand() {
    assert_eq!(abc("-a", 3.0, 0.0, 0.0), -3.0);
    assert_eq!(abc("-a * 2", 3.0, 0.0, 0.0), -6.0);
    assert_eq!(abc("a - -b", 3.0, 4.0, 0.0), 7.0);
    assert_eq!(abc("--a", 3.0, 0.0, 0.0), 3.0);
    assert_eq!(abc("-(a + b)", 3.0, 4.0, 0.0), -7.0);
    assert_eq!(abc("b - (a - c)", 3.0, 10.0, 1.0), 8.0);
}

#[test]
fn numbers_take_decimals_and_exponents() {
    assert_eq!(abc("a * 1e6", 2.0, 0.0, 0.0), 2e6);
    assert_eq!(abc("a * 2.5E-3", 2.0, 0.0, 0.0), 0.005);
    assert_eq!(abc("a * 1e+2", 2.0, 0.0, 0.0), 200.0);
    assert_eq!(abc("a + 0.5", 2.0, 0.0, 0.0), 2.5);
    assert_eq!(abc("a * 007", 2.0, 0.0, 0.0), 14.0);
}

#[test]
fn whitespace_is_allowed_anywhere_and_not_required() {
    assert_eq!(abc(" \t( a+b )\n*2 ", 1.0, 3.0, 0.0), 8.0);
    assert_eq!(abc("(a+b)*2-c", 1.0, 3.0, 5.0), 3.0);
}

#[test]
fn names_may_contain_dots_digits_and_underscores() {
    let names = ["wall.time", "samples", "_x2"];
    assert_eq!(
        eval("wall.time / samples + _x2", &names, &[9.0, 3.0, 1.0]),
        Ok(4.0)
    );
}

#[test]
fn nan_and_infinite_values_propagate() {
    assert!(abc("a / b", f64::NAN, 2.0, 0.0).is_nan());
    assert!(abc("a / b", 1.0, f64::NAN, 0.0).is_nan());
    assert_eq!(abc("a / b", 1.0, f64::INFINITY, 0.0), 0.0);
    assert_eq!(abc("a * 2", f64::NEG_INFINITY, 0.0, 0.0), f64::NEG_INFINITY);
    assert!(abc("a - b", f64::INFINITY, f64::INFINITY, 0.0).is_nan());
}

#[test]
fn a_missing_value_counts_as_nan() {
    assert!(eval("a + b", &["a", "b"], &[1.0]).unwrap().is_nan());
}

#[test]
fn a_zero_denominator_is_named_as_written() {
    let result = eval("a / (b - c)", &["a", "b", "c"], &[1.0, 2.0, 2.0]);
    let expected = EvalError::DivisionByZero {
        denominator: "(b - c)".into(),
    };
    assert_eq!(result, Err(expected.clone()));
    assert_eq!(expected.to_string(), "division by zero: (b - c) is 0");
    assert_eq!(abc("a / (b - c)", 1.0, 3.0, 2.0), 1.0);
}

#[test]
fn a_zero_metric_denominator_is_an_error_naming_the_metric() {
    let values = [0.0, 0.0, 0.0, 0.0];
    let err = eval("alloc_space / alloc_objects", &PPROF_ALLOC, &values).unwrap_err();
    assert_eq!(err.to_string(), "division by zero: alloc_objects is 0");
    let negative_zero = eval("a / -b", &["a", "b"], &[1.0, 0.0]).unwrap_err();
    assert_eq!(negative_zero.to_string(), "division by zero: -b is 0");
}

#[test]
fn metric_names_lists_each_name_once_in_first_use_order() {
    let formula = parse("b + a * b - (c / a) + 2").unwrap();
    assert_eq!(formula.metric_names(), ["b", "a", "c"]);
    assert!(parse("1 + 2").unwrap().metric_names().is_empty());
}

#[test]
fn linear_formulas_are_additive_and_ratios_are_not() {
    let additive = |text: &str| parse(text).unwrap().is_additive();
    for linear in [
        "a",
        "a + b",
        "a / 1e6",
        "2 * (a - b)",
        "-a",
        "(a - b) * 2 / 3",
        "a * (1 + 2)",
    ] {
        assert!(additive(linear), "{linear} should be additive");
    }
    for other in [
        "a / b",
        "a * b",
        "a / (b + 1)",
        "a + 1",
        "2",
        "-(1 + a)",
        "a * a / 2",
    ] {
        assert!(!additive(other), "{other} should not be additive");
    }
}

#[test]
fn an_unknown_name_is_named_with_the_known_ones() {
    let formula = parse("alloc_space / alloc_spac").unwrap();
    let err = formula.bind(&PPROF_ALLOC).unwrap_err();
    assert_eq!(
        err.to_string(),
        "column 15: unknown metric \"alloc_spac\" \
         (this profile has: alloc_objects, alloc_space, inuse_objects, inuse_space)"
    );
    let empty = parse("cpu").unwrap().bind(&[]).unwrap_err();
    assert_eq!(
        empty.to_string(),
        "column 1: unknown metric \"cpu\" (this profile has no metrics)"
    );
}

#[test]
fn columns_count_characters_not_bytes() {
    let err = parse("a\u{a0}+\u{a0}zz").unwrap().bind(&["a"]).unwrap_err();
    assert_eq!(err.column, 5);
    assert_eq!(parse_error("a + « b"), "column 5: unexpected character '«'");
}

#[test]
fn syntax_errors_say_what_was_expected_and_where() {
    let cases = [
        (
            "a b",
            "column 3: expected an operator or the end of the formula but found 'b'",
        ),
        (
            "a +",
            "column 4: expected a metric name, a number or '(' but found the end of the formula",
        ),
        (
            "a + * b",
            "column 5: expected a metric name, a number or '(' but found '*'",
        ),
        ("(a", "column 1: '(' is never closed"),
        ("((a)", "column 1: '(' is never closed"),
        (
            "(a b)",
            "column 4: expected an operator or ')' but found 'b'",
        ),
        ("a)", "column 2: ')' has no matching '('"),
        (
            "()",
            "column 2: expected a metric name, a number or '(' but found ')'",
        ),
        ("", "column 1: the formula is empty"),
        (" \t ", "column 1: the formula is empty"),
        ("a % b", "column 3: unexpected character '%'"),
        ("a * 1.2.3", "column 5: malformed number '1.2.3'"),
        ("2x", "column 1: malformed number '2x'"),
        ("a / 1e", "column 5: malformed number '1e'"),
    ];
    for (text, expected) in cases {
        assert_eq!(parse_error(text), expected, "for {text:?}");
    }
}

#[test]
fn a_constant_zero_denominator_is_rejected_when_parsing() {
    assert_eq!(
        parse_error("a / 0"),
        "column 5: division by zero: the denominator `0` is always 0"
    );
    assert_eq!(
        parse_error("a / (2-2)"),
        "column 5: division by zero: the denominator `(2-2)` is always 0"
    );
    assert_eq!(
        parse_error("a / -0.0"),
        "column 5: division by zero: the denominator `-0.0` is always 0"
    );
    assert!(parse("a / (2-1)").is_ok());
    assert!(
        parse("a / (b - b)").is_ok(),
        "not constant, so only an evaluation error"
    );
}

#[test]
fn nesting_deeper_than_64_levels_is_rejected() {
    let parens = |n: usize| format!("{}a{}", "(".repeat(n), ")".repeat(n));
    assert_eq!(abc(&parens(64), 5.0, 0.0, 0.0), 5.0);
    assert_eq!(
        parse_error(&parens(65)),
        "column 65: parentheses and unary minus nest deeper than 64 levels"
    );
    assert_eq!(abc(&format!("{}a", "-".repeat(64)), 5.0, 0.0, 0.0), 5.0);
    assert_eq!(
        parse_error(&format!("{}a", "-".repeat(65))),
        "column 65: parentheses and unary minus nest deeper than 64 levels"
    );
}

#[test]
fn formulas_longer_than_1000_characters_are_rejected() {
    let longest = format!("a{} ", "+a".repeat(499));
    assert_eq!(longest.chars().count(), 1000);
    assert_eq!(abc(&longest, 1.0, 0.0, 0.0), 500.0);
    let too_long = format!("{longest} ");
    assert_eq!(
        parse_error(&too_long),
        "column 1001: the formula is longer than 1000 characters"
    );
}
