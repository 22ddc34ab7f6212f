//! Native scheduling engines of liquid.
//!
//! - [`teams`]: full simultaneities and full teams by the ancestor technique of paper 004.
//! - [`liquid`]: the liquid schedule search of paper 003 (depth-first over full teams).
//! - [`exact`]: exact optimal length (chromatic number) by DSATUR branch and bound.
//! - [`baseline`]: round-robin and seeded random-order schedules.
//! - [`fit`]: first fit, 64 frames per word, shared by the baselines and the repair search.
//! - [`structured`]: liquid schedules of all-to-all traffics from orbits of a group.
//! - [`ports`]: liquid schedules from link-disjoint parts and from ports (König's edge
//!   colouring), a stage of `structured`.
//! - [`classes`]: liquid schedules by rounds of interchangeable transfers (dominated
//!   links removed), a stage of `structured` after the ports.
//! - [`cover`]: a liquid schedule as an exact cover of the bottleneck transfers by full
//!   teams (bitsets, minimum remaining values, Luby restarts), orbit schedules of the
//!   traffic's automorphisms ([`symmetry`], by bliss) first: a stage of `native`.
//! - [`dsatur`]: Brélaz's DSatur greedy colouring, as the annex of paper 003 describes it.
//! - [`tabu`]: tabu search (TabuCol) that shortens a valid schedule.
//! - [`repair`]: a schedule of exactly k timeframes by a partial-colouring tabu search
//!   with ejection chains (PartialCol), for traffics of a million transfers.
//! - [`kcolour`]: a complete colouring search with propagation, and refutation traces
//!   (RUP lemmas over the SAT encoding's variables) when no colouring exists.
//! - [`chromatic`], [`cliques`], [`components`]: exact colouring (the branch and bound of
//!   `exact`), greedy cliques and independent components, shared by the engines.
//!
//! Every engine returns a [`liquid_model::Answer`]; its schedule must be validated with
//! [`liquid_model::validate`] before it is reported.
#![forbid(unsafe_code)]

mod anchored;
pub mod baseline;
pub mod chromatic;
pub mod classes;
pub mod cliques;
pub mod components;
pub mod cover;
pub mod dsatur;
pub mod exact;
pub mod fit;
pub mod kcolour;
pub mod liquid;
pub mod native;
pub mod ports;
pub mod repair;
pub mod structured;
pub mod symmetry;
pub mod tabu;
pub mod team_list;
pub mod teams;
#[cfg(test)]
pub(crate) mod test_support;
