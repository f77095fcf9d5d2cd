//! Number formatting shared by every page: fixed rules, so the same value
//! always prints the same way.

use crate::model::Unit;

/// `1234567` → `1,234,567`; non-integers get up to 2 decimals.
/// The decimal digits of `int` (= `value` truncated). Beyond 2^53 an `f64`
/// holds only about 15 significant digits, so the rest are shown as zeros
/// rather than as digits the value never had.
fn significant_digits(int: u128, value: f64) -> String {
    if int < 1 << 53 {
        return int.to_string();
    }
    let sci = format!("{value:.14e}");
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exponent: usize = exponent.parse().unwrap_or(0);
    let mut digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    while digits.len() < exponent + 1 {
        digits.push('0');
    }
    digits.truncate(exponent + 1);
    digits
}

pub fn grouped(v: f64) -> String {
    if !v.is_finite() {
        return "—".to_string();
    }
    let neg = v < 0.0;
    let rounded = (v.abs() * 100.0).round() / 100.0;
    let int = rounded.trunc() as u128;
    let frac = ((rounded - rounded.trunc()) * 100.0).round() as u32;
    let digits = significant_digits(int, rounded);
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    if frac > 0 {
        let f = format!("{frac:02}");
        out.push('.');
        out.push_str(f.trim_end_matches('0'));
    }
    if neg && out != "0" {
        format!("-{out}")
    } else {
        out
    }
}

/// A value with its unit, scaled to a readable size:
/// `1.53 s`, `12.4 MiB`, `1,234 samples`.
pub fn with_unit(v: f64, unit: &Unit) -> String {
    match unit {
        Unit::Nanoseconds => scaled(v, &[(1e9, "s"), (1e6, "ms"), (1e3, "µs")], "ns"),
        Unit::Bytes => scaled(
            v,
            &[
                (1024.0 * 1024.0 * 1024.0, "GiB"),
                (1024.0 * 1024.0, "MiB"),
                (1024.0, "KiB"),
            ],
            "B",
        ),
        Unit::Samples => format!("{} samples", grouped(v)),
        Unit::Objects => format!("{} objects", grouped(v)),
        Unit::Count => grouped(v),
        Unit::Other(u) => format!("{} {u}", grouped(v)),
    }
}

fn scaled(v: f64, steps: &[(f64, &str)], base: &str) -> String {
    for (factor, name) in steps {
        if v.abs() >= *factor {
            return format!("{} {name}", three_significant(v / factor));
        }
    }
    format!("{} {base}", grouped(v))
}

fn three_significant(v: f64) -> String {
    let a = v.abs();
    let s = if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    };
    s
}

/// A measured value in a series' unit (`s` for times, in seconds).
pub fn measured(v: f64, unit: &str) -> String {
    if unit == "s" {
        with_unit(v * 1e9, &Unit::Nanoseconds)
    } else {
        with_unit(v, &Unit::parse(unit))
    }
}

/// A signed relative change as `+12.3%` / `−4.0%`.
pub fn signed_percent(relative: f64) -> String {
    let p = relative * 100.0;
    let digits = if p.abs() >= 10.0 { 1 } else { 2 };
    if p >= 0.0 {
        format!("+{p:.digits$}%")
    } else {
        format!("−{:.digits$}%", -p)
    }
}

/// A p-value: `p < 0.0001` below that, else four decimals.
pub fn p_value(p: f64) -> String {
    if p < 1e-4 {
        "p < 0.0001".to_string()
    } else {
        format!("p = {p:.4}")
    }
}

/// Share of `part` in `total` as `12.34%`.
pub fn percent(part: f64, total: f64) -> String {
    if total == 0.0 {
        return "0%".to_string();
    }
    format!("{:.2}%", 100.0 * part / total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_the_same_everywhere() {
        assert_eq!(grouped(1234567.0), "1,234,567");
        assert_eq!(grouped(12.5), "12.5");
        assert_eq!(grouped(0.004), "0");
        assert_eq!(grouped(-1000.0), "-1,000");
        assert_eq!(with_unit(1_530_000_000.0, &Unit::Nanoseconds), "1.53 s");
        assert_eq!(with_unit(13_000_000.0, &Unit::Bytes), "12.4 MiB");
        assert_eq!(with_unit(999.0, &Unit::Nanoseconds), "999 ns");
        assert_eq!(with_unit(1234.0, &Unit::Samples), "1,234 samples");
        assert_eq!(percent(1.0, 3.0), "33.33%");
    }

    #[test]
    fn huge_counts_show_only_the_digits_an_f64_holds() {
        // Two samples of u64::MAX each (folded counts are read as f64).
        let sum = 2.0 * u64::MAX as f64;
        assert_eq!(grouped(sum), "36,893,488,147,419,100,000");
        assert_eq!(grouped(9_007_199_254_740_991.0), "9,007,199,254,740,991");
        assert_eq!(grouped(1e300).len(), 301 + 100, "no overflow, no panic");
        assert_eq!(grouped(f64::NAN), "—");
    }
}
