//! Number formatting shared by every page: fixed rules, so the same value
//! always prints the same way.

use model::Unit;

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
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
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

/// A change of at least 1.5× as a factor read at once, in the words of
/// its unit: "10.8× slower" (times, samples), "2.1× less memory" (bytes),
/// "3.0× higher" (anything else); `None` for smaller changes.
pub fn factor_words(relative: f64, unit: &str) -> Option<String> {
    let ratio = 1.0 + relative;
    if !(ratio.is_finite() && ratio > 0.0) {
        return None;
    }
    let factor = ratio.max(1.0 / ratio);
    if factor < 1.5 {
        return None;
    }
    let (more, less) = match unit {
        "s" | "ms" | "us" | "µs" | "ns" | "samples" | "sample" => ("slower", "faster"),
        "bytes" | "B" | "KiB" | "MiB" | "GiB" | "KB" | "MB" | "GB" => {
            ("more memory", "less memory")
        }
        _ => ("higher", "lower"),
    };
    Some(format!(
        "{factor:.1}× {}",
        if ratio > 1.0 { more } else { less }
    ))
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
    let mut out = String::with_capacity(8);
    push_fixed2(&mut out, 100.0 * part / total);
    out.push('%');
    out
}

/// `|v|` rounded to two decimals, in whole hundredths: the digits
/// `format!("{:.2}", v)` prints (which rounds the exact binary value),
/// when they are certain without that exact expansion: `v` finite, under
/// 10^7 in size, and `100·|v|` not within 10^-6 of a rounding tie (the
/// product's rounding error is below 2·10^-7 there). `None` otherwise,
/// for callers to fall back on `format!`.
pub fn hundredths(v: f64) -> Option<u64> {
    let scaled = v.abs() * 100.0;
    if scaled.is_nan() || scaled >= 1e9 {
        return None;
    }
    let frac = scaled - scaled.floor();
    if (frac - 0.5).abs() < 1e-6 {
        return None;
    }
    Some(scaled.round() as u64)
}

/// Appends `format!("{:.2}", v)` without the float formatting machinery
/// in the common case.
pub fn push_fixed2(out: &mut String, v: f64) {
    let Some(n) = hundredths(v) else {
        use std::fmt::Write as _;
        let _ = write!(out, "{v:.2}");
        return;
    };
    if v.is_sign_negative() {
        out.push('-');
    }
    push_digits(out, n / 100);
    out.push('.');
    out.push(digit(n / 10 % 10));
    out.push(digit(n % 10));
}

/// Appends the decimal digits of `n`.
pub fn push_digits(out: &mut String, mut n: u64) {
    let mut buf = [0u8; 20];
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &b in &buf[at..] {
        out.push(b as char);
    }
}

/// The character of decimal digit `d` (0–9).
pub fn digit(d: u64) -> char {
    char::from(b'0' + (d % 10) as u8)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Values around every kind of rounding case, both signs.
    pub(crate) fn awkward_values() -> Vec<f64> {
        let mut values = vec![
            0.0,
            -0.0,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1e7,
            1e300,
        ];
        for k in 0..20_000u32 {
            let k = f64::from(k);
            for v in [
                k / 100.0,
                k / 1000.0,
                k / 8.0,
                k * 0.005,
                k / 100.0 + 0.005,
                k * 1.234_567,
                k * 7919.0 / 37.0,
                f64::from_bits((k / 100.0).to_bits() + 1),
                f64::from_bits((k / 1000.0 + 0.005).to_bits() - 1),
            ] {
                values.push(v);
                values.push(-v);
            }
        }
        values
    }

    #[test]
    fn fixed_point_digits_match_format() {
        for v in awkward_values() {
            let mut fast = String::new();
            push_fixed2(&mut fast, v);
            assert_eq!(fast, format!("{v:.2}"), "{v:e}");
        }
    }

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
