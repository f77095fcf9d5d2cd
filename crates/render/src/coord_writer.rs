//! A quick writer of chart coordinates, which long series print by the
//! thousand: the text of [`super::svg::coord`], appended to a buffer
//! without an allocation per number. It rounds with integer arithmetic
//! when the value is clearly away from a rounding tie and falls back to
//! `coord` otherwise, so the bytes are the same (tested against it below).

use std::fmt::Write as _;

/// How close to a tie (in units of the last digit) integer rounding is not
/// trusted.
const TIE_MARGIN: f64 = 1e-6;

/// Appends `coord(v)`: at most two decimals, trailing zeros and a
/// trailing point dropped, `-0` written `0`.
pub fn push_coord(out: &mut String, v: f64) {
    let scaled = v * 100.0;
    let in_range = scaled.abs() < 1e15; // false for NaN
    if !in_range || near_tie(scaled) {
        out.push_str(&super::svg::coord(v));
        return;
    }
    let hundredths = scaled.round() as i64;
    if hundredths < 0 {
        out.push('-');
    }
    let abs = hundredths.unsigned_abs();
    let (whole, frac) = (abs / 100, abs % 100);
    let _ = write!(out, "{whole}");
    match frac {
        0 => {}
        f if f % 10 == 0 => {
            let _ = write!(out, ".{}", f / 10);
        }
        f => {
            let _ = write!(out, ".{f:02}");
        }
    }
}

/// True when `x` is within [`TIE_MARGIN`] of a half-integer.
fn near_tie(x: f64) -> bool {
    ((x - x.trunc()).abs() - 0.5).abs() < TIE_MARGIN
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fixed spread of values: every magnitude, ties, negatives, zero.
    fn values() -> Vec<f64> {
        let mut out = vec![0.0, -0.0, 0.005, 0.015, 0.125, 1.005, 2.675, -0.004, -0.005];
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for i in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let unit = (x >> 11) as f64 / (1u64 << 53) as f64;
            let magnitude = 10f64.powi((i % 24) - 12);
            let sign = if i % 5 == 0 { -1.0 } else { 1.0 };
            out.push(sign * unit * magnitude * 10.0);
            // Values on a grid of hundredths and their neighbours.
            let grid = (x % 100_000) as f64 / 200.0;
            out.extend([grid, grid + 1e-9, grid - 1e-9]);
        }
        out
    }

    #[test]
    fn coordinates_match_svg_coord() {
        for v in values() {
            let mut s = String::new();
            push_coord(&mut s, v);
            assert_eq!(s, super::super::svg::coord(v), "{v:e}");
        }
    }
}
