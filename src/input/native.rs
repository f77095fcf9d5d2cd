//! native input (to be implemented).

use super::{Format, Input, Parsed};
use crate::error::ParseError;

pub struct Native;

impl Format for Native {
    fn name(&self) -> &'static str {
        "native"
    }

    fn sniff(&self, _input: &Input) -> bool {
        false
    }

    fn parse(&self, _input: &Input) -> Result<Parsed, ParseError> {
        Err(ParseError::whole("native input is not implemented yet"))
    }
}

/// Serialises a parsed profile as native JSON (to be implemented).
pub fn to_json(_parsed: &Parsed) -> String {
    String::from("{}")
}
