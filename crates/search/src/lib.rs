//! Native scheduling engines of liquid.
//!
//! - [`dsatur`]: Brélaz's DSatur greedy colouring, as the annex of paper 003 describes it.
//!
//! Every engine returns a [`liquid_model::Outcome`]; its schedule must be validated with
//! [`liquid_model::validate`] before it is reported.
#![forbid(unsafe_code)]

pub mod dsatur;
