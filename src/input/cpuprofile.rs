//! cpuprofile input (to be implemented).

use super::{Format, Input, Parsed};
use crate::error::ParseError;

pub struct CpuProfile;

impl Format for CpuProfile {
    fn name(&self) -> &'static str {
        "cpuprofile"
    }

    fn sniff(&self, _input: &Input) -> bool {
        false
    }

    fn parse(&self, _input: &Input) -> Result<Parsed, ParseError> {
        Err(ParseError::whole("cpuprofile input is not implemented yet"))
    }
}
