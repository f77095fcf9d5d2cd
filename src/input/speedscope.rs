//! speedscope input (to be implemented).

use super::{Format, Input, Parsed};
use crate::error::ParseError;

pub struct Speedscope;

impl Format for Speedscope {
    fn name(&self) -> &'static str {
        "speedscope"
    }

    fn sniff(&self, _input: &Input) -> bool {
        false
    }

    fn parse(&self, _input: &Input) -> Result<Parsed, ParseError> {
        Err(ParseError::whole("speedscope input is not implemented yet"))
    }
}
