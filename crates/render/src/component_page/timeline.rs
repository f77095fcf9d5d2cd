//! A component page section's execution timeline: the shares of each
//! time frame the page stores for its script, and the drawing perfatlas
//! makes of them for `--svg-files` and the parity test.

use analysis::hierarchy::CompId;

use super::PageContext;
use crate::timeline_svg;

/// A section's execution timeline: its shares as the page stores them,
/// the Rust drawing (test hook only), and its notes.
pub(super) struct Timeline {
    pub shares: Option<String>,
    pub svg: Option<String>,
    pub from: String,
    pub missing: String,
}

/// The digits of a share the page keeps: ten-thousandths, below the
/// hundredth of a pixel of a 48-pixel bar and the whole percent of its
/// title. The Rust drawing draws the kept value too, so that the script,
/// reading it, draws the same bytes.
fn kept_share(s: f64) -> f64 {
    (s.clamp(0.0, 1.0) * 1e4).round() / 1e4
}

/// `shares` as `data-s` holds them: space-separated, shortest form,
/// without the leading zero (".25").
fn shares_attribute(shares: &[f64]) -> String {
    let text: Vec<String> = shares
        .iter()
        .map(|s| {
            let t = kept_share(*s).to_string();
            match t.strip_prefix("0.") {
                Some(rest) => format!(".{rest}"),
                None => t,
            }
        })
        .collect();
    text.join(" ")
}

pub(super) fn timeline_of(
    cx: &PageContext,
    comp: CompId,
    v: usize,
    previous: Option<usize>,
) -> Timeline {
    let sp = cx.scope;
    let Some(t) = &sp.timelines[v] else {
        let formats: std::collections::BTreeSet<&str> = sp
            .scope
            .entries(v)
            .map(|(e, _)| cx.history.profiles[e].format)
            .collect();
        let formats: Vec<&str> = formats.into_iter().collect();
        return Timeline {
            shares: None,
            svg: None,
            from: String::new(),
            missing: format!(
                "No execution timeline: {} input records no time order.",
                formats.join(", ")
            ),
        };
    };
    let frames = cx.config.timeline_frames;
    let zero = vec![0.0; frames];
    let kept = |shares: &Vec<f64>| -> Vec<f64> { shares.iter().map(|s| kept_share(*s)).collect() };
    let now = t.shares.get(&comp).unwrap_or(&zero);
    let svg = cx.renderer.ship_derived().then(|| {
        let before = previous
            .and_then(|p| sp.timelines[p].as_ref())
            .map(|b| kept(b.shares.get(&comp).unwrap_or(&zero)));
        timeline_svg::timeline(
            &kept(now),
            before.as_deref(),
            (frames * 18) as f64,
            48.0,
            &format!("execution timeline of {}", cx.plan.hierarchy.get(comp).name),
        )
    });
    Timeline {
        shares: Some(shares_attribute(now)),
        svg,
        from: format!("from {} of {} profiles", t.with_order, t.profiles),
        missing: String::new(),
    }
}
