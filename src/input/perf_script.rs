//! perf-script input (to be implemented).

use super::{Format, Input, Parsed};
use crate::error::ParseError;

pub struct PerfScript;

impl Format for PerfScript {
    fn name(&self) -> &'static str {
        "perf-script"
    }

    fn sniff(&self, _input: &Input) -> bool {
        false
    }

    fn parse(&self, _input: &Input) -> Result<Parsed, ParseError> {
        Err(ParseError::whole(
            "perf-script input is not implemented yet",
        ))
    }
}
