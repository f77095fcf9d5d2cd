//! The build's progress on a terminal: one line on standard error with the
//! elapsed time, the stage and its count (`reading inputs 120/480`), drawn
//! by `indicatif` at a bounded rate and cleared when the build ends. Shown
//! only when standard error is a terminal and `--quiet` is not given, so
//! logs and pipes get the same lines as before.

use std::io::IsTerminal;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// The line shown, one bar per stage, and when the build began.
static BAR: OnceLock<(Mutex<ProgressBar>, Instant)> = OnceLock::new();

/// Shows progress from now on when standard error is a terminal and the
/// user did not ask for quiet.
pub fn install(quiet: bool) {
    if quiet || !std::io::stderr().is_terminal() {
        return;
    }
    if BAR
        .set((Mutex::new(ProgressBar::hidden()), Instant::now()))
        .is_ok()
    {
        instrument::progress::install(Box::new(Sink));
        instrument::progress::stage("starting", 0);
    }
}

/// Prints `line` on standard error above the bar, if one is shown.
pub fn say(line: &str) {
    match BAR.get().and_then(|(bar, _)| bar.lock().ok()) {
        Some(bar) => bar.suspend(|| eprintln!("{line}")),
        None => eprintln!("{line}"),
    }
}

struct Sink;

impl instrument::progress::Sink for Sink {
    /// A new bar, made whole before it is shown (a bar changed piece by
    /// piece flashes the old stage's count under the new name).
    fn stage(&self, name: &str, steps: u64) {
        let Some((bar, start)) = BAR.get() else {
            return;
        };
        let template = match steps {
            0 => "{elapsed:>4} {spinner} {msg}",
            _ => "{elapsed:>4} {msg} [{bar:30}] {pos}/{len}",
        };
        let next = ProgressBar::hidden()
            .with_elapsed(start.elapsed())
            .with_message(name.to_string());
        next.set_length(steps);
        if let Ok(style) = ProgressStyle::with_template(template) {
            next.set_style(style.progress_chars("=> "));
        }
        next.set_draw_target(ProgressDrawTarget::stderr_with_hz(8));
        next.enable_steady_tick(Duration::from_millis(125));
        if let Ok(mut shown) = bar.lock() {
            shown.finish_and_clear();
            // Drawn at once: a stage shorter than the first tick (reading
            // inputs that all come from the build cache) is still named.
            next.force_draw();
            *shown = next;
        }
    }

    fn advance(&self, steps: u64) {
        if let Some(bar) = BAR.get().and_then(|(bar, _)| bar.lock().ok()) {
            bar.inc(steps);
        }
    }

    fn finish(&self) {
        if let Some(bar) = BAR.get().and_then(|(bar, _)| bar.lock().ok()) {
            bar.finish_and_clear();
        }
    }
}
