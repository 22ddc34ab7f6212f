//! Mean message latency in heterogeneous multi-cluster systems (paper 002, Javadi et
//! al.): the system is a [`MultiCluster`] of m-port n_i-trees joined by an m-port
//! n_c-tree; nodes send fixed-length messages of `M` flits to uniformly chosen
//! destinations with wormhole flow control.
//!
//! [`Timing`] holds the message and channel parameters that the analytical model and the
//! flit-level simulator share (002 section 3: `M`, `L_m`, `α_net`, `α_sw`, `β_net`).
//!
//! [`model`] is 002's analytical model (eqs. 1-36): mean latency per cluster and overall
//! against the offered traffic, its components, and the saturation point.
#![forbid(unsafe_code)]

pub mod model;

pub use liquid_topology::multi_cluster::MultiCluster;
pub use model::{Model, Prediction, Queue, Saturation};

use thiserror::Error;

/// Why a latency question was refused.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum LatencyError {
    /// A parameter out of range.
    #[error("{name}: {why}")]
    BadParameter {
        /// The parameter's name as the user gave it.
        name: String,
        /// What is wrong with it.
        why: String,
    },
    /// The offered traffic is at or beyond the model's saturation: a queue's utilisation
    /// is 1 or more, where the M/G/1 waiting times have no meaning.
    #[error(
        "offered traffic {rate} is beyond saturation: {queue} has utilisation {utilisation:.4} (≥ 1)"
    )]
    Saturated {
        /// The offered traffic `λ_g` asked for.
        rate: f64,
        /// The busiest queue there.
        queue: Queue,
        /// Its utilisation.
        utilisation: f64,
    },
}

/// Message and channel parameters (002 section 3.1.2 and section 4). Times are in the
/// paper's abstract time unit; bandwidth in bytes per time unit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timing {
    /// Message length in flits, `M`.
    pub flits: u32,
    /// Flit length in bytes, `L_m`.
    pub flit_bytes: f64,
    /// Channel bandwidth in bytes per time unit (`1/β_net`).
    pub bandwidth: f64,
    /// Network latency `α_net`.
    pub net_latency: f64,
    /// Switch latency `α_sw`.
    pub switch_latency: f64,
}

impl Timing {
    /// 002 section 4's setting: bandwidth 500 bytes per time unit, `α_net` = 0.02,
    /// `α_sw` = 0.01, with the given message length (32 or 64 flits in 002) and flit
    /// length (256 or 512 bytes).
    pub fn paper(flits: u32, flit_bytes: f64) -> Timing {
        Timing {
            flits,
            flit_bytes,
            bandwidth: 500.0,
            net_latency: 0.02,
            switch_latency: 0.01,
        }
    }

    /// Checks that every parameter is usable (positive and finite, latencies not negative).
    pub fn check(&self) -> Result<(), LatencyError> {
        let bad = |name: &str, why: String| {
            Err(LatencyError::BadParameter {
                name: name.to_string(),
                why,
            })
        };
        if self.flits == 0 {
            return bad("flits", "a message has at least one flit".into());
        }
        for (name, v) in [
            ("flit bytes", self.flit_bytes),
            ("bandwidth", self.bandwidth),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return bad(name, format!("{v} is not a positive number"));
            }
        }
        for (name, v) in [
            ("net latency", self.net_latency),
            ("switch latency", self.switch_latency),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return bad(name, format!("{v} is not a number ≥ 0"));
            }
        }
        // A message's time on one channel, M·max(t_cn, t_cs), must be a number: 1e308
        // bytes a flit, a bandwidth of 1e-320, or a latency of 1e308 make it infinite.
        // The option named is the one whose term overflows: the transmission time first,
        // then each latency with it.
        let flits = self.flits as f64;
        let transmission = self.flit_bytes * self.beta();
        if !(flits * transmission).is_finite() {
            return bad(
                "flit bytes",
                format!(
                    "{} bytes at {} bytes per time unit: a message's time on a channel overflows",
                    self.flit_bytes, self.bandwidth
                ),
            );
        }
        for (name, v, t) in [
            ("net latency", self.net_latency, self.t_cn()),
            ("switch latency", self.switch_latency, self.t_cs()),
        ] {
            if !(flits * t).is_finite() {
                return bad(
                    name,
                    format!(
                        "{}: a message of {} flits takes {} per flit on a channel, which \
                         overflows",
                        // Shortest form: 1e308, not 309 digits.
                        if format!("{v:e}").len() < format!("{v}").len() {
                            format!("{v:e}")
                        } else {
                            format!("{v}")
                        },
                        self.flits,
                        if name == "net latency" {
                            "half this latency plus its transmission time"
                        } else {
                            "this latency plus its transmission time"
                        }
                    ),
                );
            }
        }
        Ok(())
    }

    /// Transmission time of one byte, `β_net = 1/bandwidth`.
    pub fn beta(&self) -> f64 {
        1.0 / self.bandwidth
    }

    /// Time for one flit on a node-to-switch or switch-to-node channel,
    /// `t_cn = α_net/2 + L_m·β_net` (002 eq. 14).
    pub fn t_cn(&self) -> f64 {
        0.5 * self.net_latency + self.flit_bytes * self.beta()
    }

    /// Time for one flit on a switch-to-switch channel, `t_cs = α_sw + L_m·β_net`
    /// (002 eq. 15).
    pub fn t_cs(&self) -> f64 {
        self.switch_latency + self.flit_bytes * self.beta()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn channel_times_of_the_paper_setting() {
        let t = Timing::paper(32, 256.0);
        assert!(t.check().is_ok());
        assert!((t.t_cn() - (0.01 + 0.512)).abs() < 1e-12);
        assert!((t.t_cs() - (0.01 + 0.512)).abs() < 1e-12);
        let t = Timing::paper(64, 512.0);
        assert!((t.t_cs() - 1.034).abs() < 1e-12);
    }

    #[test]
    fn bad_parameters_are_named() {
        let mut t = Timing::paper(32, 256.0);
        t.bandwidth = 0.0;
        assert!(
            matches!(t.check(), Err(LatencyError::BadParameter { name, .. }) if name == "bandwidth")
        );
        let mut t = Timing::paper(32, 256.0);
        t.bandwidth = 1e-320;
        assert!(
            matches!(t.check(), Err(LatencyError::BadParameter { name, .. }) if name == "flit bytes")
        );
        for (net, switch, name) in [
            (1e308, 1e308, "net latency"),
            (1e308, 0.01, "net latency"),
            (0.02, 1e308, "switch latency"),
        ] {
            let mut t = Timing::paper(32, 256.0);
            (t.net_latency, t.switch_latency) = (net, switch);
            assert!(
                matches!(t.check(), Err(LatencyError::BadParameter { name: n, .. }) if n == name),
                "{net} {switch}: {:?}",
                t.check()
            );
        }
        let mut t = Timing::paper(32, 256.0);
        t.flits = 0;
        assert!(
            matches!(t.check(), Err(LatencyError::BadParameter { name, .. }) if name == "flits")
        );
    }
}
