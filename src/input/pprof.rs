//! pprof input (to be implemented).

use super::{Format, Input, Parsed};
use crate::error::ParseError;

pub struct Pprof;

impl Format for Pprof {
    fn name(&self) -> &'static str {
        "pprof"
    }

    fn sniff(&self, _input: &Input) -> bool {
        false
    }

    fn parse(&self, _input: &Input) -> Result<Parsed, ParseError> {
        Err(ParseError::whole("pprof input is not implemented yet"))
    }
}
