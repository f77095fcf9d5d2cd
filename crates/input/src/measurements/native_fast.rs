//! The quick reading of a well-formed native measurement file: straight
//! from the text into benchmarks, without building a JSON tree or a JSON
//! path for every sample (a history of 1,000 versions × 2,000 benchmarks
//! holds ten million samples).
//!
//! It gives up (`None`) at the first thing the full reader in `native.rs`
//! would reject or warn about — a wrong shape, a bad or negative sample, an
//! empty run, a repeated key, a `NaN` or `Infinity` token anywhere — and
//! the full reader then reads the file and names the place. So whenever
//! this reading succeeds, it gives exactly the benchmarks the full reader
//! would, with no warnings.

use std::fmt;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

use super::native::VERSION;
use super::Measured;

/// The benchmarks of `data`, every one in file order (the `i`th at the
/// JSON path `$.benchmarks[i]`); `None` when the full reader must look at
/// the file.
pub(super) fn read(data: &str) -> Option<Vec<Measured>> {
    if data.contains("NaN") || data.contains("Infinity") {
        return None;
    }
    let doc: Doc = serde_json::from_str(data).ok()?;
    Some(doc.0)
}

struct Doc(Vec<Measured>);

/// A benchmark as the full reader would keep it.
struct Benchmark(Measured);

/// One run: one sample, or an array of them.
struct Run(Vec<f64>);

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "snake_case")]
enum DocKey {
    PerfatlasMeasurements,
    Benchmarks,
    #[serde(other)]
    Other,
}

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "snake_case")]
enum BenchmarkKey {
    Name,
    Unit,
    InProcess,
    Note,
    Runs,
    Interval,
    #[serde(other)]
    Other,
}

/// Sets `slot` once; a second value for the same key is an error (the full
/// reader keeps the last one, and says nothing: let it decide).
fn once<T, E: de::Error>(slot: &mut Option<T>, value: T) -> Result<(), E> {
    if slot.replace(value).is_some() {
        return Err(E::custom("repeated key"));
    }
    Ok(())
}

impl<'de> Deserialize<'de> for Doc {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Doc, D::Error> {
        d.deserialize_map(DocVisitor)
    }
}

struct DocVisitor;

impl<'de> Visitor<'de> for DocVisitor {
    type Value = Doc;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a native measurement file")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Doc, A::Error> {
        let (mut version, mut benchmarks) = (None, None);
        while let Some(key) = map.next_key()? {
            match key {
                DocKey::PerfatlasMeasurements => once(&mut version, map.next_value::<u64>()?)?,
                DocKey::Benchmarks => once(&mut benchmarks, map.next_value::<Vec<Benchmark>>()?)?,
                DocKey::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        match (version, benchmarks) {
            (Some(VERSION), Some(b)) => Ok(Doc(b.into_iter().map(|b| b.0).collect())),
            _ => Err(de::Error::custom("not a complete file of this version")),
        }
    }
}

impl<'de> Deserialize<'de> for Benchmark {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Benchmark, D::Error> {
        d.deserialize_map(BenchmarkVisitor)
    }
}

struct BenchmarkVisitor;

impl<'de> Visitor<'de> for BenchmarkVisitor {
    type Value = Benchmark;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a benchmark")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Benchmark, A::Error> {
        let (mut name, mut unit, mut in_process, mut note, mut runs, mut interval) =
            (None, None, None, None, None, None);
        while let Some(key) = map.next_key()? {
            match key {
                BenchmarkKey::Name => once(&mut name, map.next_value::<String>()?)?,
                BenchmarkKey::Unit => once(&mut unit, map.next_value::<String>()?)?,
                BenchmarkKey::InProcess => once(&mut in_process, map.next_value::<bool>()?)?,
                BenchmarkKey::Note => once(&mut note, map.next_value::<String>()?)?,
                BenchmarkKey::Runs => once(&mut runs, map.next_value::<Vec<Run>>()?)?,
                BenchmarkKey::Interval => once(&mut interval, map.next_value::<[f64; 2]>()?)?,
                BenchmarkKey::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let missing = || de::Error::custom("missing key");
        let (name, unit, runs) = (name.ok_or_else(missing)?, unit.ok_or_else(missing)?, runs);
        let runs = runs.ok_or_else(missing)?;
        if unit.trim().is_empty() || runs.is_empty() {
            return Err(de::Error::custom("left to the full reader"));
        }
        let per_second = super::per_second(&unit);
        let runs = runs
            .into_iter()
            .map(|run| in_seconds(run.0, per_second.unwrap_or(1.0)))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| de::Error::custom("a sample the full reader warns about"))?;
        let interval = match interval {
            None => None,
            Some([low, high]) => Some(
                model::Interval::new(low, high)
                    .and_then(|i| i.scaled(1.0 / per_second.unwrap_or(1.0)))
                    .ok_or_else(|| de::Error::custom("an interval the full reader warns about"))?,
            ),
        };
        // A unit scaled to seconds is written "s" in the unit's own string.
        let mut unit = unit;
        if per_second.is_some() {
            unit.clear();
            unit.push('s');
        }
        Ok(Benchmark(Measured {
            name,
            unit,
            runs,
            in_process: in_process.unwrap_or(false),
            note: note.unwrap_or_default(),
            interval,
        }))
    }
}

/// A run's samples divided by `per_second`, as the full reader computes
/// them; `None` for an empty run or a sample it would leave out.
fn in_seconds(mut samples: Vec<f64>, per_second: f64) -> Option<Vec<f64>> {
    if samples.is_empty() {
        return None;
    }
    for s in &mut samples {
        let seconds = *s / per_second;
        if !seconds.is_finite() || seconds < 0.0 {
            return None;
        }
        // -0 is 0.
        *s = seconds + 0.0;
    }
    Some(samples)
}

impl<'de> Deserialize<'de> for Run {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Run, D::Error> {
        d.deserialize_any(RunVisitor)
    }
}

struct RunVisitor;

impl<'de> Visitor<'de> for RunVisitor {
    type Value = Run;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a number or an array of numbers")
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Run, E> {
        Ok(Run(vec![v as f64]))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Run, E> {
        Ok(Run(vec![v as f64]))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Run, E> {
        Ok(Run(vec![v]))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Run, A::Error> {
        let mut samples = Vec::with_capacity(seq.size_hint().unwrap_or(4));
        while let Some(s) = seq.next_element::<f64>()? {
            samples.push(s);
        }
        Ok(Run(samples))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{native, parse_with, MeasurementFile, Reader};
    use model::error::ParseError;

    /// The file read with and without the quick reading.
    fn both(text: &str) -> [Result<MeasurementFile, ParseError>; 2] {
        [Some(super::read as _), None].map(|fast| {
            let reader = Reader {
                name: native::NAME,
                label: "perfatlas measurement JSON",
                opener: '{',
                sniff: native::sniff,
                read: native::read,
                fast,
            };
            parse_with(&reader, "m.json", text.as_bytes())
        })
    }

    fn doc(benchmarks: &str) -> String {
        format!("{{\"perfatlas_measurements\": 1, \"extra\": {{\"a\": [1, {{}}]}}, \"benchmarks\": [{benchmarks}]}}")
    }

    #[test]
    fn well_formed_files_read_the_same_both_ways() {
        for benchmarks in [
            r#"{"name": "parse", "unit": "ms", "runs": [12.1, 12.3, [11.9, 12.0]]}"#,
            r#"{"runs": [[1500000, 1500020]], "note": "perf", "in_process": true, "unit": "instructions", "name": "r"}"#,
            r#"{"name": "z", "unit": "ns", "runs": [-0, -0.0, 0, 1e-3, 18446744073709551615, 1e300, 5e-324]}"#,
            r#"{"name": "a", "unit": "us", "runs": [1]}, {"name": "a", "unit": "us", "runs": [[2, 3]]}"#,
            r#"{"name": "a", "unit": "us", "runs": [1]}, {"name": "a", "unit": "bytes", "runs": [2]}"#,
            r#"{"name": "\u00e9\"<x>", "unit": "seconds", "other": null, "runs": [0.5]}"#,
            r#"{"name": "asv", "unit": "us", "runs": [378.3], "interval": [-369.4, 393.0]}"#,
        ] {
            let text = doc(benchmarks);
            assert!(super::read(&text).is_some(), "{text}");
            let [fast, full] = both(&text);
            assert_eq!(fast, full, "{text}");
        }
        let [fast, full] = both(&doc(""));
        assert_eq!(fast, full);
        assert!(fast.is_err());
    }

    #[test]
    fn anything_the_full_reader_questions_is_left_to_it() {
        for benchmarks in [
            r#"{"name": "a", "unit": "s", "runs": [NaN]}"#,
            r#"{"name": "NaN-free", "unit": "s", "runs": [-1]}"#,
            r#"{"name": "a", "unit": "s", "runs": [[]]}"#,
            r#"{"name": "a", "unit": "s", "runs": []}"#,
            r#"{"name": "a", "unit": "s", "runs": [[1, [2]]]}"#,
            r#"{"name": "a", "unit": "s", "runs": [null]}"#,
            r#"{"name": "a", "unit": "s", "runs": ["1"]}"#,
            r#"{"name": "a", "name": "b", "unit": "s", "runs": [1]}"#,
            r#"{"name": "a", "unit": " ", "runs": [1]}"#,
            r#"{"name": "a", "unit": "s", "in_process": 1, "runs": [1]}"#,
            r#"{"name": "a", "unit": "s", "note": null, "runs": [1]}"#,
            r#"{"name": "a", "runs": [1]}"#,
            r#"{"name": "a", "unit": "s", "runs": [1e400]}"#,
            r#"{"name": "a", "unit": "s", "runs": [1], "interval": [2, 1]}"#,
            r#"{"name": "a", "unit": "s", "runs": [1], "interval": [1]}"#,
            r#"{"name": "a", "unit": "s", "runs": [1], "interval": null}"#,
        ] {
            let text = doc(benchmarks);
            assert!(super::read(&text).is_none(), "{text}");
            let [fast, full] = both(&text);
            assert_eq!(fast, full, "{text}");
        }
        for text in [
            r#"{"perfatlas_measurements": 2, "benchmarks": []}"#,
            r#"{"perfatlas_measurements": 1.0, "benchmarks": []}"#,
            r#"{"perfatlas_measurements": 1}"#,
            r#"{"perfatlas_measurements": 1, "benchmarks": [], "benchmarks": []}"#,
            r#"{"perfatlas_measurements": 1, "benchmarks": []} x"#,
        ] {
            assert!(super::read(text).is_none(), "{text}");
            let [fast, full] = both(text);
            assert_eq!(fast, full, "{text}");
        }
    }
}
