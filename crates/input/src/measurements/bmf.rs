//! Bencher Metric Format (BMF) JSON, which Bencher's adapters produce and
//! harnesses such as tatami-ng write (`run({reporter: bmf, file})`):
//!
//! ```text
//! {"fib(10)": {"latency":    {"value": 596.08, "lower_value": …, "upper_value": …},
//!              "throughput": {"value": 1909120.1, …}},
//!  "my_binary": {"file-size": {"value": 42}}}
//! ```
//!
//! Each benchmark holds measures (by slug), each ONE value: a single
//! sample, one run. `lower_value` and `upper_value` are bounds the tool
//! chose (tatami-ng writes mean ± standard deviation, which can go below
//! zero), not samples: they are kept as the value's interval, by which two
//! versions are told apart where there are too few runs for a test and too
//! short a history for change points. One file per version gives a single
//! run per benchmark, judged by the history's change points; several files
//! in a version (one per run) give several runs, judged by a test.
//!
//! Units come from Bencher's built-in measures: `latency` is nanoseconds
//! (converted to seconds) and keeps the benchmark's own name; every other
//! measure is a benchmark of its own, `NAME (MEASURE)`: `throughput` in
//! `ops/s`, `build-time` in seconds, `file-size` in bytes, and any other
//! measure (Iai's `instructions`, custom ones) in a unit named after it,
//! since BMF does not say a custom measure's unit. Benchmarks come in name
//! order.

use serde_json::{Map, Value};

use super::{object, required, Collected, Measured};
use model::error::ParseError;

pub(super) const NAME: &str = "bencher-metric-format";

pub(super) fn read(doc: &Value, _path: &str, out: &mut Collected) -> Result<(), ParseError> {
    let root = object(doc, "$")?;
    for (name, measures) in root {
        let path = format!("$[{}]", quoted(name));
        for (slug, measure) in object(measures, &path)? {
            let place = format!("{path}[{}]", quoted(slug));
            read_measure(name, slug, object(measure, &place)?, &place, out)?;
        }
    }
    Ok(())
}

/// A JSON string literal of `key`, for paths.
fn quoted(key: &str) -> String {
    Value::String(key.to_string()).to_string()
}

fn read_measure(
    name: &str,
    slug: &str,
    measure: &Map<String, Value>,
    path: &str,
    out: &mut Collected,
) -> Result<(), ParseError> {
    let value = required(measure, path, "value", "the measure's value")?;
    let (benchmark, unit, per) = series(name, slug);
    let mut runs = Vec::new();
    if let Some(v) = out.sample(value, &format!("{path}.value"), per) {
        runs.push(vec![v]);
    }
    let bound = |key: &str| measure.get(key).and_then(Value::as_f64);
    let interval = bound("lower_value")
        .zip(bound("upper_value"))
        .and_then(|(low, high)| model::Interval::new(low / per, high / per));
    out.benchmark(
        path,
        Measured {
            name: benchmark,
            unit: unit.to_string(),
            runs,
            in_process: true,
            note: match interval {
                Some(_) => format!(
                    "Bencher Metric Format {slug} value, with lower_value and upper_value as its interval; one value per file (a single run)"
                ),
                None => format!("Bencher Metric Format {slug} value; one value per file (a single run)"),
            },
            interval,
        },
    );
    Ok(())
}

/// The benchmark a measure is, its unit, and the factor its value is
/// divided by.
fn series(name: &str, slug: &str) -> (String, String, f64) {
    let unit = match slug {
        "latency" => return (name.to_string(), "s".to_string(), 1e9),
        "build-time" => "s",
        "throughput" => "ops/s",
        "file-size" => "bytes",
        other => other,
    };
    (format!("{name} ({slug})"), unit.to_string(), 1.0)
}

/// The shape of BMF in the head of a file: an object whose members are
/// objects whose members are objects holding a numeric `value` and only
/// numbers (or strings, or `null`) besides; as far as the head goes, and
/// at least one whole measure.
pub(super) fn sniff(head: &str) -> bool {
    Shape { rest: head }.document()
}

/// A scan of the start of a JSON text. Each step says `Some(true)` when
/// the shape holds, `Some(false)` when it does not, and `None` when the
/// text ended first.
struct Shape<'a> {
    rest: &'a str,
}

impl<'a> Shape<'a> {
    fn document(&mut self) -> bool {
        let mut measures = 0;
        let shape = self.object(|s, _| {
            s.object(|s, _| {
                let ok = s.measure()?;
                measures += usize::from(ok);
                Some(ok)
            })
        });
        // `None`: the head ended inside the document, the shape held so far.
        shape.unwrap_or(true) && measures > 0
    }

    /// An object whose every member passes `member` (given its key).
    fn object(
        &mut self,
        mut member: impl FnMut(&mut Self, &'a str) -> Option<bool>,
    ) -> Option<bool> {
        if !self.eat('{')? {
            return Some(false);
        }
        if self.eat('}')? {
            return Some(true);
        }
        loop {
            let Some(key) = self.string()? else {
                return Some(false);
            };
            if !self.eat(':')? || !member(self, key)? {
                return Some(false);
            }
            if !self.eat(',')? {
                return self.eat('}');
            }
        }
    }

    /// `{"value": number, …}` with numbers, strings or `null` besides.
    fn measure(&mut self) -> Option<bool> {
        let mut has_value = false;
        let shape = self.object(|s, key| {
            let scalar = s.scalar()?;
            has_value |= key == "value" && matches!(scalar, Scalar::Number | Scalar::Null);
            Some(match scalar {
                Scalar::Number | Scalar::Null => true,
                Scalar::String => key != "value",
                Scalar::Other => false,
            })
        })?;
        Some(shape && has_value)
    }

    fn skip_ws(&mut self) {
        self.rest = self.rest.trim_start_matches([' ', '\t', '\n', '\r']);
    }

    /// Skips whitespace, then takes `c` if it is next.
    fn eat(&mut self, c: char) -> Option<bool> {
        self.skip_ws();
        let found = self.rest.starts_with(c);
        if found {
            self.rest = &self.rest[c.len_utf8()..];
        }
        (found || !self.rest.is_empty()).then_some(found)
    }

    /// A string literal's content (escapes left as written); `Some(None)`
    /// when something else is next.
    fn string(&mut self) -> Option<Option<&'a str>> {
        self.skip_ws();
        let Some(body) = self.rest.strip_prefix('"') else {
            return (!self.rest.is_empty()).then_some(None);
        };
        let mut escaped = false;
        for (i, c) in body.char_indices() {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => {
                    self.rest = &body[i + 1..];
                    return Some(Some(&body[..i]));
                }
                _ => {}
            }
        }
        None
    }

    /// What value is next; a number or string is passed over.
    fn scalar(&mut self) -> Option<Scalar> {
        self.skip_ws();
        if self.rest.starts_with('"') {
            return self.string().map(|_| Scalar::String);
        }
        // The tokens `parse_json` reads as `null`.
        for token in ["null", "NaN", "-NaN", "Infinity", "-Infinity"] {
            if let Some(rest) = self.rest.strip_prefix(token) {
                self.rest = rest;
                return Some(Scalar::Null);
            }
            if token.starts_with(self.rest) {
                return None;
            }
        }
        let end = self
            .rest
            .find(|c: char| !(c.is_ascii_digit() || matches!(c, '-' | '+' | '.' | 'e' | 'E')))?;
        let (number, rest) = self.rest.split_at(end);
        if number.parse::<f64>().is_ok() {
            self.rest = rest;
            Some(Scalar::Number)
        } else {
            Some(Scalar::Other)
        }
    }
}

enum Scalar {
    Number,
    String,
    Null,
    Other,
}

#[cfg(test)]
mod tests {
    use super::super::{fixture, sniff_and_parse, MeasurementFile};
    use super::*;
    use model::error::Place;

    fn parse(text: &str) -> Option<Result<MeasurementFile, ParseError>> {
        sniff_and_parse("bmf.json", text.as_bytes())
    }

    /// tatami-ng's printed table: per benchmark, the average time per
    /// iteration in nanoseconds and the iterations per second, as shown.
    fn printed() -> Vec<(String, f64, f64)> {
        let text = String::from_utf8(fixture("bmf-tatami-stdout.txt")).unwrap();
        text.lines()
            .filter(|l| l.starts_with("fib("))
            .map(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                let scale = match f[2] {
                    "ns" => 1.0,
                    "µs" => 1e3,
                    "ms" => 1e6,
                    other => panic!("unit {other}"),
                };
                let time: f64 = f[1].parse().unwrap();
                (f[0].to_string(), time * scale, f[6].parse().unwrap())
            })
            .collect()
    }

    #[test]
    fn reads_tatami_ng_and_matches_its_printed_table() {
        let file = parse(&String::from_utf8(fixture("bmf-tatami.json")).unwrap())
            .unwrap()
            .unwrap();
        assert_eq!(file.format, "bencher-metric-format");
        assert!(file.warnings.is_empty(), "{:?}", file.warnings);
        let names: Vec<&str> = file.benchmarks.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "fib(10)",
                "fib(10) (throughput)",
                "fib(15)",
                "fib(15) (throughput)"
            ]
        );
        let table = printed();
        assert_eq!(table.len(), 2);
        for (i, (name, nanos, per_second)) in table.iter().enumerate() {
            let latency = &file.benchmarks[2 * i];
            let throughput = &file.benchmarks[2 * i + 1];
            assert_eq!(&latency.name, name);
            // One value: one run of one sample, in seconds.
            let [run] = &latency.runs[..] else {
                panic!("{:?}", latency.runs)
            };
            let [seconds] = run[..] else {
                panic!("{run:?}")
            };
            assert_eq!(latency.unit, "s");
            // The table shows 3 significant digits (536.64 ns, 5.53 µs).
            let shown = nanos.abs().log10().floor();
            let step = 10f64.powf(shown - 2.0);
            assert!(
                (seconds * 1e9 - nanos).abs() <= step,
                "{name}: {seconds} vs {nanos}"
            );
            assert_eq!(throughput.unit, "ops/s");
            assert_eq!(throughput.runs[0][0].round(), *per_second, "{name}");
            assert!(latency.in_process);
            assert!(
                latency.note.contains("one value per file"),
                "{}",
                latency.note
            );
        }
        // The values are BMF's `value`s exactly; the bounds are their
        // interval, converted as the value is (tatami-ng's mean ± sd goes
        // below zero for fib(10)'s latency).
        let doc: Value = serde_json::from_slice(&fixture("bmf-tatami.json")).unwrap();
        let value = doc["fib(15)"]["latency"]["value"].as_f64().unwrap();
        assert_eq!(file.benchmarks[2].runs, vec![vec![value / 1e9]]);
        let bound = |b: &str, m: &str, k: &str| doc[b][m][k].as_f64().unwrap();
        assert_eq!(
            file.benchmarks[0].interval,
            model::Interval::new(
                bound("fib(10)", "latency", "lower_value") / 1e9,
                bound("fib(10)", "latency", "upper_value") / 1e9
            )
        );
        assert!(file.benchmarks[0].interval.unwrap().low < 0.0);
        assert_eq!(
            file.benchmarks[1].interval,
            model::Interval::new(
                bound("fib(10)", "throughput", "lower_value"),
                bound("fib(10)", "throughput", "upper_value")
            )
        );
    }

    #[test]
    fn units_by_measure() {
        let file = parse(
            r#"{"b": {"build-time": {"value": 87.0}, "file-size": {"value": 42},
                      "instructions": {"value": 1200, "lower_value": 1100, "upper_value": 1300},
                      "latency": {"value": 88.0, "lower_value": 87.42, "upper_value": 88.88}}}"#,
        )
        .unwrap()
        .unwrap();
        let got: Vec<(&str, &str, f64)> = file
            .benchmarks
            .iter()
            .map(|b| (b.name.as_str(), b.unit.as_str(), b.runs[0][0]))
            .collect();
        assert_eq!(
            got,
            [
                ("b (build-time)", "s", 87.0),
                ("b (file-size)", "bytes", 42.0),
                ("b (instructions)", "instructions", 1200.0),
                ("b", "s", 88e-9),
            ]
        );
    }

    #[test]
    fn only_the_bmf_shape_is_claimed() {
        for text in [
            r#"{"a": {"latency": {"value": "88"}}}"#,
            r#"{"a": {"latency": {"lower_value": 1}}}"#,
            r#"{"a": {"latency": [1]}}"#,
            r#"{"a": {"latency": {"value": 1, "extra": {}}}}"#,
            r#"{"a": {"latency": {"value": 1}}, "version": 2}"#,
            r#"{"a": {"latency": {"value": 1}, "note": "x"}}"#,
            r#"{"a": {}}"#,
            r#"{}"#,
            r#"{"recording": {"events": [{"type": "jdk.CPULoad"}]}}"#,
            r#"{"a": {"b": {"value": tru"#,
        ] {
            assert!(parse(text).is_none(), "{text}");
        }
        // Cut by the 8 KiB head: the shape so far is enough.
        let many: Vec<String> = (0..400)
            .map(|i| format!(r#""bench {i}": {{"latency": {{"value": {i}.5}}}}"#))
            .collect();
        let text = format!("{{{}}}", many.join(", "));
        assert!(text.len() > 8192);
        let file = parse(&text).unwrap().unwrap();
        assert_eq!(file.benchmarks.len(), 400);
        // Other measurement formats' keys come first: this is hyperfine's
        // (of the wrong shape), not a benchmark "results".
        let hyperfine = r#"{"results": {"command": {"value": 1}}}"#;
        let e = parse(hyperfine).unwrap().unwrap_err();
        assert_eq!(
            e.to_string(),
            "$.results: expected an array, found an object"
        );
    }

    #[test]
    fn bad_values_warn_and_wrong_shapes_past_the_head_are_errors() {
        let file = parse(
            r#"{"a": {"latency": {"value": -1}}, "b": {"latency": {"value": null}},
                "c": {"latency": {"value": NaN}}, "d": {"latency": {"value": 2}}}"#,
        )
        .unwrap()
        .unwrap();
        assert_eq!(file.benchmarks.len(), 1);
        assert_eq!(file.benchmarks[0].runs, vec![vec![2e-9]]);
        let places: Vec<String> = file.warnings.iter().map(|w| w.place.to_string()).collect();
        assert_eq!(
            places,
            [
                r#"$["a"]["latency"].value"#,
                r#"$["b"]["latency"].value"#,
                r#"$["c"]["latency"].value"#,
                r#"$["a"]["latency"]"#,
                r#"$["b"]["latency"]"#,
                r#"$["c"]["latency"]"#,
            ]
        );
        // Past the head, a measure that is not an object is an error at
        // its path; one without a value too.
        let pad: Vec<String> = (0..400)
            .map(|i| format!(r#""a{i:03}": {{"latency": {{"value": 1}}}}"#))
            .collect();
        let e = parse(&format!(r#"{{{}, "z": {{"latency": 5}}}}"#, pad.join(", ")))
            .unwrap()
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            r#"$["z"]["latency"]: expected an object, found a number"#
        );
        let e = parse(&format!(
            r#"{{{}, "z": {{"latency": {{}}}}}}"#,
            pad.join(", ")
        ))
        .unwrap()
        .unwrap_err();
        assert_eq!(e.place, Place::Json(r#"$["z"]["latency"].value"#.into()));
        // Truncated: a syntax error with its line.
        let real = String::from_utf8(fixture("bmf-tatami.json")).unwrap();
        let e = parse(&real[..real.len() - 40]).unwrap().unwrap_err();
        assert!(matches!(e.place, Place::Line(1)), "{e}");
    }
}
