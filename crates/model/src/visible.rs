//! Untrusted text made visible: names and file names from profiles and from
//! the input directory can carry control characters (a NUL, an escape
//! sequence, a newline inside a JSON name) and Unicode bidirectional
//! overrides that reorder the text around them on screen ("Trojan Source").
//! Escaping keeps them from running as markup; this makes them visible as
//! what they are, once, when they enter the model, so every page kind, the
//! tooltips and the embedded JSON show the same thing.

use std::borrow::Cow;

/// `text` with C0/DEL controls shown as their Unicode control pictures
/// (`␀`, `␊`, `␛`…) and C1 controls and bidirectional / invisible format
/// characters shown as `[U+202E]`. Anything else is kept.
pub fn visible(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_picture) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\u{0}'..='\u{1f}' => out.push(char::from_u32(0x2400 + c as u32).unwrap_or('\u{FFFD}')),
            '\u{7f}' => out.push('\u{2421}'),
            c if needs_picture(c) => out.push_str(&format!("[U+{:04X}]", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

fn needs_picture(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{1f}'
        | '\u{7f}'..='\u{9f}'
        | '\u{061c}'            // Arabic letter mark
        | '\u{200b}'..='\u{200f}' // zero-width space/joiners, LRM, RLM
        | '\u{2028}' | '\u{2029}' // line / paragraph separators
        | '\u{202a}'..='\u{202e}' // embeddings and overrides
        | '\u{2066}'..='\u{2069}' // isolates
        | '\u{feff}'            // zero-width no-break space
        | '\u{fffe}' | '\u{ffff}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_bidi_overrides_become_visible() {
        assert_eq!(visible("main"), "main");
        assert!(matches!(visible("naïve::λ"), Cow::Borrowed(_)));
        assert_eq!(visible("a\u{0}b\nc\u{1b}[31m"), "a␀b␊c␛[31m");
        assert_eq!(
            visible("user\u{202e}gnp.exe"),
            "user[U+202E]gnp.exe",
            "an override cannot reorder the rest of the line"
        );
        assert_eq!(
            visible("x\u{2066}y\u{2069}\u{85}"),
            "x[U+2066]y[U+2069][U+0085]"
        );
    }
}
