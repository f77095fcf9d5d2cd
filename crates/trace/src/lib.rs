//! What every stage may call to be watched: phase timings on standard
//! error ([`timings`]) and the pause points fault tests stop a build at
//! ([`pause`]). Neither changes what a build writes.

pub mod pause;
pub mod timings;
