//! Catch2's XML reporter output with benchmarks (`./tests -r xml`, built
//! with `CATCH_CONFIG_ENABLE_BENCHMARKING`):
//!
//! ```text
//! <Catch name="fib_bench">
//!   <Group name="fib_bench">
//!     <TestCase name="Fibonacci" tags="[bench]" filename="fib_bench.cpp" line="7">
//!       <BenchmarkResults name="fib 10" samples="20" resamples="100000" iterations="316" …>
//!         <!--All values in nano seconds-->
//!         <mean value="70.1752" lowerBound="70.0487" upperBound="70.6502" ci="0.95"/>
//!         <standardDeviation value="0.508334" …/>
//! ```
//!
//! Catch2 writes each benchmark's mean over its samples with the bounds of
//! its bootstrapped confidence interval (`ci`, 95% by default), in
//! nanoseconds, and not the samples themselves. So a file is one run of
//! one value per benchmark, in seconds, and the bounds are the value's
//! interval, as asv's confidence intervals are. A benchmark is named by
//! its `name`; when two test cases of the file hold benchmarks of the same
//! name, each is prefixed with its test case (`Fibonacci/fib 10`).

use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};

use model::error::{ParseError, Place};
use model::Interval;

use super::{Collected, Measured};

pub(super) const NAME: &str = "catch2-xml";

/// Catch2's XML root and a benchmark result in the first kilobytes.
pub(super) fn sniff(head: &str) -> bool {
    head.contains("<Catch") && head.contains("<BenchmarkResults")
}

/// One benchmark as read: where, its test case, name and mean.
struct Found {
    line: usize,
    case: String,
    name: String,
    mean: Option<(f64, Option<Interval>)>,
}

pub(super) fn read(text: &str, out: &mut Collected) -> Result<(), ParseError> {
    let mut reader = Reader::from_str(text);
    let line_at = |pos: u64| {
        let end = (pos as usize).min(text.len());
        text.as_bytes()[..end]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1
    };
    let (mut case, mut found) = (String::new(), Vec::<Found>::new());
    let mut open: Option<Found> = None;
    loop {
        let start = reader.buffer_position();
        let event = reader.read_event().map_err(|e| {
            ParseError::line(
                line_at(reader.error_position()),
                format!("not well-formed XML: {e}"),
            )
        })?;
        match event {
            Event::Start(e) | Event::Empty(e) => match e.name().as_ref() {
                "TestCase" => case = attribute(&e, "name").unwrap_or_default(),
                "BenchmarkResults" => {
                    open = Some(Found {
                        line: line_at(start),
                        case: case.clone(),
                        name: attribute(&e, "name").unwrap_or_default(),
                        mean: None,
                    })
                }
                "mean" => {
                    if let Some(b) = open.as_mut() {
                        b.mean = mean_of(&e);
                    }
                }
                _ => {}
            },
            Event::End(e) if e.name().as_ref() == "BenchmarkResults" => {
                found.extend(open.take());
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if found.is_empty() {
        return Err(ParseError::whole(
            "no <BenchmarkResults> in Catch2's XML: were the benchmarks built with \
             CATCH_CONFIG_ENABLE_BENCHMARKING and not skipped (--skip-benchmarks)?",
        ));
    }
    add_all(found, out);
    Ok(())
}

/// The mean's value in seconds and its confidence interval, or `None`
/// when the value is not a number of nanoseconds.
fn mean_of(e: &BytesStart) -> Option<(f64, Option<Interval>)> {
    let number = |key: &str| {
        attribute(e, key)?
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)
            .map(|v| v / 1e9)
    };
    let value = number("value")?;
    let interval = number("lowerBound")
        .zip(number("upperBound"))
        .and_then(|(low, high)| Interval::new(low, high));
    Some((value, interval))
}

fn attribute(e: &BytesStart, key: &str) -> Option<String> {
    let attr = e.try_get_attribute(key).ok()??;
    let value = attr.normalized_value(XmlVersion::Implicit1_0).ok()?;
    Some(value.into_owned())
}

fn add_all(found: Vec<Found>, out: &mut Collected) {
    let shared = |f: &Found| found.iter().any(|g| g.name == f.name && g.case != f.case);
    for f in &found {
        let Some((value, interval)) = f.mean else {
            out.warn_at(
                Place::Line(f.line),
                format!(
                    "benchmark `{}` has no <mean value=…> in nanoseconds; it is left out",
                    f.name
                ),
            );
            continue;
        };
        let name = match shared(f) {
            true => format!("{}/{}", f.case, f.name),
            false => f.name.clone(),
        };
        out.benchmark_at(
            Place::Line(f.line),
            Measured::one_value(
                name,
                (value, "s"),
                "Catch2's mean over its samples, its confidence interval's bounds \
                 (lowerBound, upperBound) as the interval",
                interval,
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::super::{fixture, sniff_and_parse, MeasurementFile};
    use super::*;

    fn parse(text: &str) -> Result<MeasurementFile, ParseError> {
        sniff_and_parse("bench.xml", text.as_bytes()).expect("sniffed as measurements")
    }

    #[test]
    fn reads_each_benchmarks_mean_and_interval() {
        let file = sniff_and_parse("bench.xml", &fixture("catch2-bench.xml"))
            .unwrap()
            .unwrap();
        assert_eq!(file.format, "catch2-xml");
        assert!(file.warnings.is_empty(), "{:?}", file.warnings);
        let names: Vec<&str> = file.benchmarks.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, ["fib 10", "fib 15"]);
        // As written: <mean value="70.1752" lowerBound="70.0487"
        // upperBound="70.6502"/> and fib 15's 828.499 (824.896–841.581).
        let fib10 = &file.benchmarks[0];
        let near = |a: f64, b: f64| (a - b).abs() < 1e-18;
        assert!(near(fib10.runs[0][0], 70.1752e-9), "{:?}", fib10.runs);
        assert_eq!(fib10.runs.len(), 1);
        let i = fib10.interval.expect("the bounds");
        assert!(near(i.low, 70.0487e-9) && near(i.high, 70.6502e-9), "{i:?}");
        assert!(near(file.benchmarks[1].runs[0][0], 828.499e-9));
    }

    #[test]
    fn shared_names_missing_means_and_broken_xml() {
        let file = parse(
            "<Catch name=\"t\"><Group name=\"t\">\n\
             <TestCase name=\"A\"><BenchmarkResults name=\"x\"><mean value=\"10\"/></BenchmarkResults></TestCase>\n\
             <TestCase name=\"B\"><BenchmarkResults name=\"x\"><mean value=\"20\"/></BenchmarkResults>\n\
             <BenchmarkResults name=\"y\"><mean value=\"NaN\"/></BenchmarkResults></TestCase>\n\
             </Group></Catch>",
        )
        .unwrap();
        let names: Vec<&str> = file.benchmarks.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, ["A/x", "B/x"]);
        assert_eq!(file.warnings.len(), 1);
        assert_eq!(file.warnings[0].place, Place::Line(4));
        let real = String::from_utf8(fixture("catch2-bench.xml")).unwrap();
        let cut = &real[..real.find("fib 15").unwrap()];
        // A file cut inside an element is an error at its line.
        let e = parse(cut).unwrap_err();
        assert!(e.to_string().contains("attribute value not closed"), "{e}");
        assert!(matches!(e.place, Place::Line(_)), "{e}");
        let e =
            parse("<Catch><BenchmarkResults name=\"a\"><mean value=\"1\"></Catch>").unwrap_err();
        assert!(e.to_string().contains("not well-formed XML"), "{e}");
    }
}
