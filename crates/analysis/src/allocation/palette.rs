//! One colour per class across every page and version of a site (the
//! paper's "unique color by class"): classes are ranked over the whole
//! history by what each page ranks its class list by
//! ([`super::AllocTree::rank_amount`]: objects, or allocated bytes where
//! the input has sampled weights or no counts), most first, ties by name,
//! and the first get the distinct colours of a fixed categorical palette;
//! the rest get a colour derived from a hash of the name, so it does not
//! depend on which page asks. The palette starts with Okabe and Ito's eight colours, which
//! stay distinguishable for the common colour-vision deficiencies.

use std::collections::{BTreeMap, HashMap};

/// Okabe–Ito (without black), then further well-separated colours.
const PALETTE: [&str; 20] = [
    "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#999999",
    "#8C564B", "#17BECF", "#BCBD22", "#9467BD", "#FF9DA7", "#6B8E23", "#4B0082", "#B8860B",
    "#20B2AA", "#A0522D", "#708090", "#DA70D6",
];

/// Class name → colour.
#[derive(Debug, Clone, Default)]
pub struct Palette {
    colours: HashMap<String, String>,
}

impl Palette {
    /// The palette for classes with the given totals over the history.
    pub fn new(totals: &BTreeMap<String, f64>) -> Palette {
        let mut ranked: Vec<(&String, f64)> = totals.iter().map(|(k, &v)| (k, v)).collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(b.0)));
        let colours = ranked
            .into_iter()
            .enumerate()
            .map(|(i, (name, _))| {
                let colour = PALETTE
                    .get(i)
                    .map_or_else(|| hashed_colour(name), |c| c.to_string());
                (name.clone(), colour)
            })
            .collect();
        Palette { colours }
    }

    /// The colour of `class` (a hashed one for a class the palette was
    /// not built with).
    pub fn colour(&self, class: &str) -> String {
        self.colours
            .get(class)
            .cloned()
            .unwrap_or_else(|| hashed_colour(class))
    }
}

/// A mid-saturation colour from the FNV-1a hash of `name`.
fn hashed_colour(name: &str) -> String {
    let hash = name.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    let hue = (hash % 360) as f64;
    let lightness = 0.45 + ((hash >> 16) % 20) as f64 / 100.0;
    hsl_hex(hue, 0.55, lightness)
}

/// `#rrggbb` of an HSL colour (hue in degrees, saturation and lightness
/// in 0..=1).
fn hsl_hex(hue: f64, s: f64, l: f64) -> String {
    let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
    let h = hue / 60.0;
    let x = c * (1.0 - (h % 2.0 - 1.0).abs());
    let (r, g, b) = match h as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = l - c / 2.0;
    let byte = |v: f64| ((v + m) * 255.0).round().clamp(0.0, 255.0) as u8;
    format!("#{:02X}{:02X}{:02X}", byte(r), byte(g), byte(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frequent_classes_get_distinct_palette_colours_and_others_a_stable_hash() {
        let mut totals: BTreeMap<String, f64> =
            (0..30).map(|i| (format!("C{i:02}"), i as f64)).collect();
        totals.insert("Tie".into(), 29.0);
        let p = Palette::new(&totals);
        // Most objects first; the tie goes to the name that sorts first.
        assert_eq!(p.colour("C29"), PALETTE[0]);
        assert_eq!(p.colour("Tie"), PALETTE[1]);
        assert_eq!(p.colour("C28"), PALETTE[2]);
        let first: Vec<String> = ["C29", "Tie"]
            .iter()
            .chain(&[""; 0])
            .map(|c| p.colour(c))
            .collect();
        assert_ne!(first[0], first[1]);
        // Past the palette, a colour from the name alone.
        assert_eq!(p.colour("C00"), hashed_colour("C00"));
        assert_eq!(
            hashed_colour("java.lang.String"),
            hashed_colour("java.lang.String")
        );
        assert!(hashed_colour("x").starts_with('#') && hashed_colour("x").len() == 7);
    }

    #[test]
    fn hsl_conversion_matches_known_colours() {
        assert_eq!(hsl_hex(0.0, 1.0, 0.5), "#FF0000");
        assert_eq!(hsl_hex(120.0, 1.0, 0.5), "#00FF00");
        assert_eq!(hsl_hex(240.0, 1.0, 0.25), "#000080");
    }
}
