//! The commands of the `perfatlas` binary, one module each: its
//! arguments (clap) and how it reports on the terminal. The work itself is
//! the library's (`perfatlas::build`, `check`, `bisect`, …).

pub mod bisect;
pub mod build;
pub mod check;
pub mod convert;
pub mod digest;
pub mod import;
mod notes;

/// `1 profile`, `3 profiles`.
fn counted(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}
