//! `version.toml`: one version's label, date and revision, read as teams'
//! scripts write it. Release scripts add keys of their own (`tag`,
//! `node_version`, a `[build]` table) and write dates as RFC 3339
//! date-times; neither may cost the version its date and revision. So the
//! three known keys are read one by one: a key perfatlas does not use is a
//! note (all of them listed once, with their lines), a known key with a
//! value it cannot use is skipped alone, and only text that is not TOML at
//! all loses the file.

use std::collections::BTreeMap;
use std::path::Path;

use toml::{Spanned, Value};

use model::error::BuildError;

/// Settings from a version's `version.toml`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VersionConfig {
    pub label: Option<String>,
    /// The release or capture day, `YYYY-MM-DD` (of a date-time, its day
    /// as written).
    pub date: Option<String>,
    pub revision: Option<String>,
}

/// What reading a `version.toml` had to say besides its values.
#[derive(Debug, Clone, PartialEq)]
pub struct Remark {
    /// 1-based line the remark is about.
    pub line: usize,
    pub message: String,
    /// A value that was not used (a key perfatlas reads, with a value it
    /// cannot use), rather than a note about a file read whole.
    pub skipped: bool,
}

/// The keys perfatlas reads, as the unknown-keys note lists them.
const KNOWN: [&str; 3] = ["label", "date", "revision"];

impl VersionConfig {
    /// Reads `path`; remarks as [`VersionConfig::parse`] gives them.
    pub fn read(path: &Path) -> Result<(VersionConfig, Vec<Remark>), BuildError> {
        VersionConfig::parse(&super::read_text(path)?, path)
    }

    /// Parses the text of a `version.toml` read from `path`: an error only
    /// when the text is not TOML; keys perfatlas does not read and values
    /// it cannot use are remarks.
    pub fn parse(text: &str, path: &Path) -> Result<(VersionConfig, Vec<Remark>), BuildError> {
        let table: BTreeMap<Spanned<String>, Spanned<Value>> =
            toml::from_str(text).map_err(|e| BuildError::Config {
                path: path.to_path_buf(),
                message: super::toml_message(text, &e),
            })?;
        let line_of = |at: usize| text.get(..at).unwrap_or(text).matches('\n').count() + 1;
        let mut config = VersionConfig::default();
        let mut remarks = Vec::new();
        let mut unknown = Vec::new();
        for (key, value) in &table {
            let line = line_of(key.span().start);
            let read = match key.get_ref().as_str() {
                "label" => text_value(value.get_ref()).map(|v| config.label = Some(v)),
                "revision" => text_value(value.get_ref()).map(|v| config.revision = Some(v)),
                "date" => date_value(value.get_ref()).map(|v| config.date = Some(v)),
                other => {
                    unknown.push((line, other.to_string()));
                    continue;
                }
            };
            if let Err(why) = read {
                remarks.push(Remark {
                    line,
                    message: format!("`{}` {why}; not used", key.get_ref()),
                    skipped: true,
                });
            }
        }
        if let Some(note) = unknown_keys_note(unknown) {
            remarks.push(note);
        }
        remarks.sort_by_key(|r| r.line);
        Ok((config, remarks))
    }
}

/// Keys a note names before it counts the rest.
const KEYS_NAMED: usize = 8;

/// One note naming the keys perfatlas does not read, in line order: the
/// first [`KEYS_NAMED`] (each cut to 60 characters), the rest counted, so
/// a file of 10,000 keys is one short line.
fn unknown_keys_note(mut unknown: Vec<(usize, String)>) -> Option<Remark> {
    unknown.sort();
    let (first, _) = *unknown.first()?;
    let mut listed: Vec<String> = unknown
        .iter()
        .take(KEYS_NAMED)
        .map(|(line, key)| {
            let key: String = match key.chars().count() > 60 {
                true => key.chars().take(59).chain(['…']).collect(),
                false => key.clone(),
            };
            format!("`{key}` (line {line})")
        })
        .collect();
    if unknown.len() > KEYS_NAMED {
        listed.push(format!("and {} more", unknown.len() - KEYS_NAMED));
    }
    let s = if unknown.len() == 1 { "" } else { "s" };
    Some(Remark {
        line: first,
        message: format!(
            "{} key{s} perfatlas does not read, kept in the file only: {}; perfatlas reads {}",
            unknown.len(),
            listed.join(", "),
            KNOWN.join(", ")
        ),
        skipped: false,
    })
}

/// A label or revision: text, or a number or date written without quotes.
fn text_value(value: &Value) -> Result<String, String> {
    match value {
        Value::String(s) => Ok(s.clone()),
        Value::Integer(_) | Value::Float(_) | Value::Datetime(_) => Ok(value.to_string()),
        other => Err(format!("is {}, not text", a_type(other))),
    }
}

/// "an array", "a table", … for a value of the wrong kind.
fn a_type(value: &Value) -> String {
    let kind = value.type_str();
    match kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
        true => format!("an {kind}"),
        false => format!("a {kind}"),
    }
}

/// A date: `YYYY-MM-DD` or an RFC 3339 date-time, quoted or as a TOML
/// date; kept as its day.
fn date_value(value: &Value) -> Result<String, String> {
    let written = match value {
        Value::String(s) => s.trim().to_string(),
        Value::Datetime(d) => d.to_string(),
        other => return Err(format!("is {}, not a date", a_type(other))),
    };
    day_of(&written).ok_or_else(|| {
        format!("{written:?} is not a date (YYYY-MM-DD, or an RFC 3339 date-time such as 2024-04-19T05:13:02Z)")
    })
}

/// The day of `YYYY-MM-DD` or of an RFC 3339 date-time
/// (`YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`, `T` or a space, the offset
/// optional as TOML allows).
fn day_of(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| {
        b.get(r.clone())
            .is_some_and(|d| d.iter().all(u8::is_ascii_digit))
    };
    let number = |r: std::ops::Range<usize>| s.get(r).and_then(|t| t.parse::<u32>().ok());
    if !(digits(0..4)
        && b.get(4) == Some(&b'-')
        && digits(5..7)
        && b.get(7) == Some(&b'-')
        && digits(8..10))
    {
        return None;
    }
    let (month, day) = (number(5..7)?, number(8..10)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    if b.len() > 10 && !s.get(11..).is_some_and(|rest| is_time_of_day(rest, b[10])) {
        return None;
    }
    Some(s[..10].to_string())
}

/// `HH:MM[:SS[.frac]][Z|±HH:MM]` after a `T`, `t` or space.
fn is_time_of_day(rest: &str, separator: u8) -> bool {
    if !matches!(separator, b'T' | b't' | b' ') {
        return false;
    }
    let two = |t: &str, max: u32| t.len() == 2 && t.parse::<u32>().is_ok_and(|v| v <= max);
    let (clock, offset) = match rest.find(['Z', 'z', '+', '-']) {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    let (clock, fraction) = match clock.split_once('.') {
        Some((clock, fraction)) => (clock, Some(fraction)),
        None => (clock, None),
    };
    let fraction_ok =
        !fraction.is_some_and(|f| f.is_empty() || !f.bytes().all(|d| d.is_ascii_digit()));
    let parts: Vec<&str> = clock.split(':').collect();
    let clock_ok = matches!(parts.len(), 2 | 3)
        && two(parts[0], 23)
        && two(parts[1], 59)
        && parts.get(2).is_none_or(|s| two(s, 60));
    let offset_ok = match offset {
        "" | "Z" | "z" => true,
        o => {
            o.is_ascii()
                && o.len() == 6
                && two(&o[1..3], 23)
                && &o[3..4] == ":"
                && two(&o[4..6], 59)
        }
    };
    fraction_ok && clock_ok && offset_ok
}

/// (year, month, day) of a day number counted from 1970-01-01 (Howard
/// Hinnant's `civil_from_days`): for dates perfatlas writes from
/// timestamps (commit times, imported histories).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> (VersionConfig, Vec<Remark>) {
        VersionConfig::parse(text, Path::new("1.0/version.toml")).unwrap()
    }

    #[test]
    fn a_release_script_s_file_keeps_its_date_and_revision_and_lists_every_other_key() {
        let (config, remarks) = parse(
            "# written by release.sh\nlabel = \"v2.30.1\"\ntag = \"v2.30.1\"\nnode_version = \"20.11.1\"\n\
             date = \"2024-04-19T05:13:02Z\"\nrevision = \"a1b2c3d\"\nbenchmark = \"parse\"\n\n[build]\nflags = \"-O2\"\n",
        );
        assert_eq!(
            config,
            VersionConfig {
                label: Some("v2.30.1".into()),
                date: Some("2024-04-19".into()),
                revision: Some("a1b2c3d".into()),
            }
        );
        assert_eq!(remarks.len(), 1, "{remarks:?}");
        let note = &remarks[0];
        assert!(!note.skipped);
        assert_eq!(note.line, 3);
        assert!(
            note.message == (
                "4 keys perfatlas does not read, kept in the file only: `tag` (line 3), `node_version` (line 4), `benchmark` (line 7), `build` (line 9); perfatlas reads label, date, revision"
            ),
            "{}",
            note.message
        );
    }

    #[test]
    fn dates_may_be_days_date_times_or_toml_dates() {
        for (written, day) in [
            ("\"2024-04-19\"", "2024-04-19"),
            ("\"2024-04-19T05:13:02Z\"", "2024-04-19"),
            ("\"2024-04-19T05:13:02.123+02:00\"", "2024-04-19"),
            ("\"2024-04-19 05:13\"", "2024-04-19"),
            ("2024-04-19", "2024-04-19"),
            ("2024-04-19T05:13:02-07:00", "2024-04-19"),
        ] {
            let (config, remarks) = parse(&format!("date = {written}\n"));
            assert_eq!(config.date.as_deref(), Some(day), "{written}");
            assert!(remarks.is_empty(), "{written}: {remarks:?}");
        }
    }

    #[test]
    fn a_value_that_cannot_be_used_is_skipped_alone_with_its_line() {
        for bad in [
            "\"2024-04-19T05:13+0é00\"",
            "\"2024-04-19é05:13\"",
            "\"2020/01/01\"",
            "\"2024-13-01\"",
            "\"2024-04-19T25:00Z\"",
            "\"yesterday\"",
            "[1]",
        ] {
            let (config, remarks) = parse(&format!("revision = \"v1\"\ndate = {bad}\n"));
            assert_eq!(config.revision.as_deref(), Some("v1"), "{bad}");
            assert_eq!(config.date, None, "{bad}");
            assert_eq!(remarks.len(), 1, "{bad}: {remarks:?}");
            assert!(
                remarks[0].skipped && remarks[0].line == 2,
                "{bad}: {remarks:?}"
            );
            assert!(remarks[0].message.starts_with("`date` "), "{remarks:?}");
        }
        let (config, remarks) = parse("label = [\"a\"]\nrevision = 1234\n");
        assert_eq!(config.revision.as_deref(), Some("1234"));
        assert_eq!(
            remarks[0].message,
            "`label` is an array, not text; not used"
        );
    }

    #[test]
    fn no_date_text_panics() {
        // Every cut and every character swapped for a two-byte one, where
        // slicing by bytes would split it.
        let date = "2024-04-19T05:13:02.123+02:00";
        for end in 0..=date.len() {
            for at in 0..end {
                let mut t = date[..end].to_string();
                t.replace_range(at..at + 1, "é");
                let _ = day_of(&t);
                let _ = day_of(&date[..end]);
            }
        }
    }

    #[test]
    fn text_that_is_not_toml_names_its_line() {
        let e = VersionConfig::parse(
            "date = \"2024-01-01\"\nlabel = \n",
            Path::new("v/version.toml"),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("v/version.toml") && e.contains("line 2"), "{e}");
    }

    #[test]
    fn ten_thousand_unknown_keys_make_one_short_note() {
        let keys: Vec<(usize, String)> = (0..10_000)
            .map(|i| (i + 1, format!("key{i}")))
            .chain([(10_001, "k".repeat(5_000))])
            .collect();
        let note = unknown_keys_note(keys).unwrap();
        assert!(note.message.len() < 400, "{}", note.message.len());
        assert!(note
            .message
            .starts_with("10001 keys perfatlas does not read"));
        assert!(note.message.contains("and 9993 more"), "{}", note.message);
    }
}
