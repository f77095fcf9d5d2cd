//! What every stage may call to be watched or kept small: phase timings
//! on standard error ([`timings`]), progress for a terminal
//! ([`progress`]), the pause points fault tests stop a build at
//! ([`pause`]) and freed memory given back to the system ([`memory`]).
//! None changes what a build writes.

pub mod memory;
pub mod pause;
pub mod progress;
pub mod timings;
