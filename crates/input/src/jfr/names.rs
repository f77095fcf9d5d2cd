//! The two kinds of text in `jfr print --json` output that need decoding:
//! class names, which the JVM writes in its internal form, and timestamps,
//! which Java's `OffsetDateTime.toString` writes in several shapes.

/// A class name as a Java user reads it (`Class.getName`, with arrays as
/// in source code). JFR writes the JVM's internal form:
///
/// | JFR writes | shown as |
/// |---|---|
/// | `java/lang/String` | `java.lang.String` |
/// | `java/util/ArrayList$Itr` | `java.util.ArrayList$Itr` |
/// | `[B`, `[I`, `[[J` | `byte[]`, `int[]`, `long[][]` |
/// | `[Ljava/lang/String;` | `java.lang.String[]` |
///
/// Hidden classes (lambdas) come already dotted, with a suffix after a
/// slash (`pkg.Main$$Lambda+0x0000000800c03000/1457410641`), and are kept.
/// A name that is not in that form (already dotted, or holding characters
/// no internal name has, like `<` or spaces) is kept as written, so odd or
/// hostile names reach the page as the text the profile holds.
pub fn java_class_name(name: &str) -> String {
    let element = name.trim_start_matches('[');
    let dims = name.len() - element.len();
    if dims == 0 {
        return dotted(name);
    }
    let base = match element {
        "B" => "byte".to_string(),
        "C" => "char".to_string(),
        "D" => "double".to_string(),
        "F" => "float".to_string(),
        "I" => "int".to_string(),
        "J" => "long".to_string(),
        "S" => "short".to_string(),
        "Z" => "boolean".to_string(),
        _ => match element
            .strip_prefix('L')
            .and_then(|e| e.strip_suffix(';'))
            .filter(|e| is_internal_name(e))
        {
            Some(class) => class.replace('/', "."),
            None => return name.to_string(),
        },
    };
    format!("{base}{}", "[]".repeat(dims))
}

/// `pkg/Class` → `pkg.Class` when `name` is an internal name; otherwise
/// `name` unchanged.
fn dotted(name: &str) -> String {
    if name.contains('/') && is_internal_name(name) {
        name.replace('/', ".")
    } else {
        name.to_string()
    }
}

/// True for `a/b/C`: non-empty segments between slashes, none holding a
/// character that the JVM forbids in names (`.`, `;`, `[`) or that no
/// compiler emits (`<`, `>`, spaces, controls).
fn is_internal_name(name: &str) -> bool {
    name.split('/').all(|segment| {
        !segment.is_empty()
            && segment
                .chars()
                .all(|c| !c.is_whitespace() && !c.is_control() && !".;[<>".contains(c))
    })
}

/// An instant as whole seconds since 1970-01-01T00:00Z and nanoseconds;
/// ordered by time.
pub type Instant = (i64, u32);

/// Parses an ISO-8601 date-time with offset as `OffsetDateTime.toString`
/// writes it: `2024-09-17T19:51:05.608398375+01:00`, and the shorter
/// shapes it uses when trailing parts are zero (`…T19:51:05.608Z`,
/// `…T19:51:05Z`, `…T19:51Z`), offsets `Z`, `±HH:MM` or `±HH:MM:SS`.
/// Strings of different shapes or offsets compare correctly only once
/// parsed, hence this. `None` for anything else.
pub fn parse_instant(text: &str) -> Option<Instant> {
    let (date, rest) = text.split_once('T')?;
    let mut ymd = date.splitn(3, '-');
    let year: i64 = digits(ymd.next()?, 4)?;
    let month: i64 = digits(ymd.next()?, 2)?;
    let day: i64 = digits(ymd.next()?, 2)?;
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let zone_at = rest.find(['Z', '+', '-'])?;
    let (clock, zone) = rest.split_at(zone_at);
    let (hms, fraction) = match clock.split_once('.') {
        Some((hms, f)) => (hms, Some(f)),
        None => (clock, None),
    };
    let mut parts = hms.split(':');
    let hour: i64 = digits(parts.next()?, 2)?;
    let minute: i64 = digits(parts.next()?, 2)?;
    let second: i64 = match parts.next() {
        Some(s) => digits(s, 2)?,
        None if fraction.is_none() => 0,
        None => return None,
    };
    if parts.next().is_some() || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let nanos = match fraction {
        Some(f) if !f.is_empty() && f.len() <= 9 && f.bytes().all(|b| b.is_ascii_digit()) => {
            f.parse::<u32>().ok()? * 10u32.pow(9 - f.len() as u32)
        }
        Some(_) => return None,
        None => 0,
    };
    let offset = zone_seconds(zone)?;
    let days = days_from_civil(year, month, day);
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset;
    Some((seconds, nanos))
}

/// `Z` → 0, `+01:00` → 3600, `-05:30:15` → −19815.
fn zone_seconds(zone: &str) -> Option<i64> {
    if zone == "Z" {
        return Some(0);
    }
    let sign = match zone.as_bytes().first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let mut parts = zone[1..].split(':');
    let hours: i64 = digits(parts.next()?, 2)?;
    let minutes: i64 = digits(parts.next()?, 2)?;
    let seconds: i64 = match parts.next() {
        Some(s) => digits(s, 2)?,
        None => 0,
    };
    if parts.next().is_some() || hours > 18 || minutes > 59 || seconds > 59 {
        return None;
    }
    Some(sign * (hours * 3600 + minutes * 60 + seconds))
}

/// Exactly `len` ASCII digits as a number.
fn digits(text: &str, len: usize) -> Option<i64> {
    if text.len() != len || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_class_names_read_as_java_names() {
        for (jfr, java) in [
            ("java/lang/String", "java.lang.String"),
            ("java/util/ArrayList$Itr", "java.util.ArrayList$Itr"),
            ("[B", "byte[]"),
            ("[I", "int[]"),
            ("[[J", "long[][]"),
            ("[Z", "boolean[]"),
            ("[Ljava/lang/String;", "java.lang.String[]"),
            (
                "[Ljava/util/concurrent/ConcurrentHashMap$Node;",
                "java.util.concurrent.ConcurrentHashMap$Node[]",
            ),
            ("[[Lshapes/Box;", "shapes.Box[][]"),
            // Hidden classes (lambdas) come dotted, with a `/suffix`.
            (
                "jdk.jfr.internal.PlatformRecorder$$Lambda+0x000001c39a042338/1457410641",
                "jdk.jfr.internal.PlatformRecorder$$Lambda+0x000001c39a042338/1457410641",
            ),
            ("Alloc", "Alloc"),
            ("java.lang.String", "java.lang.String"),
            ("byte[]", "byte[]"),
            // Not internal names: kept as written.
            ("[X", "[X"),
            ("[Ljava/lang/String", "[Ljava/lang/String"),
            ("[", "["),
            ("a//b", "a//b"),
            (
                "</script><svg onload=alert(1)>",
                "</script><svg onload=alert(1)>",
            ),
            ("", ""),
        ] {
            assert_eq!(java_class_name(jfr), java, "{jfr}");
        }
    }

    #[test]
    fn timestamps_of_every_shape_compare_as_instants() {
        let t = |s: &str| parse_instant(s).unwrap_or_else(|| panic!("{s}"));
        assert_eq!(t("1970-01-01T00:00Z"), (0, 0));
        assert_eq!(t("1970-01-01T01:00+01:00"), (0, 0));
        assert_eq!(
            t("2024-09-17T19:51:05.608398375+01:00"),
            (1_726_599_065, 608_398_375)
        );
        assert_eq!(t("2024-09-17T18:51:05.608Z"), (1_726_599_065, 608_000_000));
        assert_eq!(t("2024-09-17T18:51:05Z"), (1_726_599_065, 0));
        assert_eq!(t("2024-02-29T00:00:00-00:30:15"), (1_709_166_615, 0));
        // Text order and time order differ across offsets and shapes.
        assert!(t("2024-09-17T19:51:05+01:00") < t("2024-09-17T18:51:05.5Z"));
        assert!(t("2024-09-17T18:51Z") < t("2024-09-17T18:51:00.000000001Z"));
        for bad in [
            "",
            "2024-09-17",
            "2024-09-17T18:51:05",
            "2024-13-17T18:51:05Z",
            "2024-09-17T24:00Z",
            "2024-09-17T18:51:05.Z",
            "2024-09-17T18:51:05.1234567890Z",
            "2024-09-17T18:51.5Z",
            "2024-09-17T18:51:05+1:00",
            "+12024-09-17T18:51:05Z",
            "2024-09-17T18:51:05Zjunk",
            "２０２４-09-17T18:51:05Z",
        ] {
            assert_eq!(parse_instant(bad), None, "{bad}");
        }
    }
}
