//! Progress of a build for whoever watches it: stages ("reading inputs",
//! "writing pages") with a count of their steps. The stages call
//! [`stage`] and [`advance`]; the command line installs a [`Sink`] (a
//! progress bar on a terminal) or none, in which case both do nothing.
//! Like timings, progress never changes what a build writes.

use std::sync::OnceLock;

/// Shows progress: one stage at a time, each with its number of steps
/// (0 when unknown).
pub trait Sink: Send + Sync {
    fn stage(&self, name: &str, steps: u64);
    fn advance(&self, steps: u64);
    /// The build is over (done or failed): clear what is shown.
    fn finish(&self);
}

static SINK: OnceLock<Box<dyn Sink>> = OnceLock::new();

/// Sends progress to `sink` from now on; once per process (later calls are
/// ignored).
pub fn install(sink: Box<dyn Sink>) {
    let _ = SINK.set(sink);
}

/// A stage begins, of `steps` steps (0 when their number is unknown).
pub fn stage(name: &str, steps: usize) {
    if let Some(sink) = SINK.get() {
        sink.stage(name, steps as u64);
    }
}

/// `steps` more steps of the current stage are done.
pub fn advance(steps: usize) {
    if let Some(sink) = SINK.get() {
        sink.advance(steps as u64);
    }
}

/// The build is over.
pub fn finish() {
    if let Some(sink) = SINK.get() {
        sink.finish();
    }
}
