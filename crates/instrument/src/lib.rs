//! What every stage may call to be watched: phase timings on standard
//! error ([`timings`]), progress for a terminal ([`progress`]) and the
//! pause points fault tests stop a build at ([`pause`]). None changes what
//! a build writes.

pub mod pause;
pub mod progress;
pub mod timings;
