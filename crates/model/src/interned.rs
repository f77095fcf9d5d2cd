//! Strings that millions of records repeat (a measurement's unit, note and
//! file), held once for the life of the process and shared as plain
//! `&'static str`.
//!
//! A shared `Arc<str>` costs an atomic increment per copy and an atomic
//! decrement per drop, and on x86 each is a full memory barrier: at
//! 2,000 benchmarks × 1,000 versions the three counted copies per entry
//! were most of the time spent gathering a history's measurements, and
//! two threads dropping points that share one unit fought over its count.
//! Interned strings are copied as pointers.
//!
//! What is interned is never freed. Only strings of which an input holds a
//! few thousand distinct ones are interned (units, notes, file paths), and
//! the same string read again is found, not added: a process that reads
//! one history, or the same history again, holds each once.

use std::sync::{LazyLock, Mutex, PoisonError};

use rustc_hash::FxHashSet;

/// Every string interned so far.
static TABLE: LazyLock<Mutex<FxHashSet<&'static str>>> = LazyLock::new(Default::default);

/// `text`, held once for the life of the process.
pub fn intern(text: &str) -> &'static str {
    let mut table = TABLE.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(&held) = table.get(text) {
        return held;
    }
    let held: &'static str = Box::leak(text.into());
    table.insert(held);
    held
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_text_is_held_once() {
        let a = intern("ops/s");
        let b = intern(&String::from("ops/s"));
        assert!(std::ptr::eq(a, b));
        assert_eq!(a, "ops/s");
        assert!(!std::ptr::eq(intern("s"), intern("ms")));
        assert_eq!(intern(""), "");
    }
}
