//! The closed-form liquid schedules of the machines' all-to-alls, behind one entry point:
//! [`Machine::closed_form`] gives the frames of the construction (with its name and
//! parameters) or says why the machine has none.
//!
//! | machine | construction | when |
//! | --- | --- | --- |
//! | dragonfly `dragonfly:A,P,H[,G]` | [`Dragonfly::schedule`]: the affine plane over GF(A·P), each group a line | `H = P`, `A ≥ 2P`, `G = A·H + 1`, `A·P` a prime power |
//! | Dragonfly+ `dragonfly-plus:L,S,P,H[,G]` | [`DragonflyPlus::schedule`]: frames `(a, b, c, e)` over `Z_L × Z_P × Z_L × Z_P` | `L = S`, `P = H ≤ L`, `G = S·H + 1` |
//! | rail-optimised `rail:S,G[,K][,pxn]` | [`Rail::schedule`]: shifts `(Δs, Δj)` | PXN, or `K = S` |
//! | HyperX `hyperx:S1x...,T` | [`HyperX::schedule`]: multipliers `λ_u` per dimension | every `Si` a prime power above `T` or with its smallest prime factor above `T` |
//!
//! A [`Machine`] comes from a spec ([`Machine::parse`]) or from a traffic
//! ([`Machine::recognise`]): the model name a generator gives (`dragonfly-8-4-4-33`) names
//! the machine, and every transfer of the traffic must then take that machine's route, in
//! the generator's order, for the traffic to be recognised. A closed form is not checked
//! here: callers validate it with the model's validator (`liquid_model::validate`, the
//! engines' gate), like every schedule.

use liquid_model::{Schedule, Traffic};
use thiserror::Error;

use crate::dragonfly::{Dragonfly, DragonflyPlus};
use crate::fabric::{self, Fabric, PairFrames};
use crate::hyperx::HyperX;
use crate::network_spec::within;
use crate::rail::Rail;
use crate::{Generated, TopologyError};

/// A machine of the families with closed-form all-to-all schedules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Machine {
    /// A dragonfly ([`crate::dragonfly`]).
    Dragonfly(Dragonfly),
    /// A Dragonfly+ ([`crate::dragonfly`]).
    DragonflyPlus(DragonflyPlus),
    /// A rail-optimised fat-tree ([`crate::rail`]).
    Rail(Rail),
    /// A HyperX ([`crate::hyperx`]).
    HyperX(HyperX),
}

/// A closed-form schedule of a machine's all-to-all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClosedForm {
    /// The construction in words, with the machine's parameters.
    pub construction: String,
    /// The machine's hosts, `N`.
    pub hosts: usize,
    /// The timeframes, as `(sender, receiver)` host numbers.
    pub frames: PairFrames,
}

impl ClosedForm {
    /// The frames as a schedule of the machine's traffic (the generator's transfer order,
    /// sender-major: [`fabric::pairs_schedule`]). Not validated here.
    pub fn schedule(&self) -> Schedule {
        fabric::pairs_schedule(self.hosts, &self.frames)
    }

    /// The number of timeframes.
    pub fn len(&self) -> usize {
        self.frames.len()
    }

    /// Whether there is no timeframe (never for a machine of two hosts or more).
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }
}

/// Why a machine has no closed-form schedule.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum NoClosedForm {
    /// The machine is outside the conditions of its family's construction.
    #[error("no closed-form schedule for {spec}: {conditions}")]
    Conditions {
        /// The machine's spec.
        spec: String,
        /// When the family has one.
        conditions: &'static str,
    },
    /// The machine cannot be built (a parameter out of range).
    #[error(transparent)]
    Machine(#[from] TopologyError),
}

/// Why a traffic is not recognised as a machine's all-to-all.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum NotRecognised {
    /// Its name is not one a generator of these families gives.
    #[error(
        "{name:?} is not the model name of a generated dragonfly, Dragonfly+, rail-optimised \
         fat-tree or HyperX"
    )]
    Name {
        /// The traffic's name.
        name: String,
    },
    /// The time limit came before every route was checked ([`Machine::recognise_until`]).
    #[error("the time limit came before every route of {name:?} was checked")]
    TimeLimit {
        /// The traffic's name.
        name: String,
    },
    /// The name is a machine's, the transfers are not its all-to-all.
    #[error("{name:?} is not the all-to-all of {spec} under its routing: {why}")]
    Routes {
        /// The traffic's name.
        name: String,
        /// The machine the name gives.
        spec: String,
        /// The first difference.
        why: String,
    },
}

/// The conditions under which each family has a closed form.
const DRAGONFLY_WHEN: &str = "a dragonfly has one when it has as many global links as hosts \
     per router, at least twice as many routers per group, the default number of groups, and a \
     prime power of hosts per group";
const PLUS_WHEN: &str = "a Dragonfly+ has one when it has as many spines as leaves, as many \
     global links per spine as hosts per leaf, no more hosts per leaf than leaves, and the \
     default number of groups";
const RAIL_WHEN: &str =
    "a rail-optimised fat-tree has one with pxn or with as many spines as servers";
const HYPERX_WHEN: &str = "a HyperX has one when every dimension is a prime power above the \
     hosts per router, or has its smallest prime factor above them";

impl Machine {
    /// The machine a spec names (`dragonfly:`, `dragonfly-plus:`, `rail:`, `hyperx:`);
    /// `Ok(None)` for any other argument (another family, or not a spec).
    pub fn parse(spec: &str) -> Result<Option<Machine>, TopologyError> {
        let Some((kind, rest)) = spec.split_once(':') else {
            return Ok(None);
        };
        let m = match kind {
            "dragonfly" => Machine::Dragonfly(Dragonfly::parse(spec, rest)?),
            "dragonfly-plus" => Machine::DragonflyPlus(DragonflyPlus::parse(spec, rest)?),
            "rail" => Machine::Rail(Rail::parse(spec, rest)?),
            "hyperx" => Machine::HyperX(HyperX::parse(spec, rest)?),
            _ => return Ok(None),
        };
        // Parameters out of range are the spec's error, as `spec::parse` reports them.
        m.check().map_err(|e| within(spec, e))?;
        Ok(Some(m))
    }

    /// The machine whose generated model is called `name` (`dragonfly-8-4-4-33`,
    /// `dragonfly-plus-2-2-2-2-5`, `rail-32-8-32`, `rail-32-8-8-pxn`, `hyperx-16x16-4`:
    /// what its generator names it, the defaults written out); `None` for any other name.
    pub fn of_name(name: &str) -> Option<Machine> {
        let numbers = |s: &str, n: usize| -> Option<Vec<usize>> {
            let v: Vec<usize> = s
                .split('-')
                .map(|x| x.parse().ok())
                .collect::<Option<_>>()?;
            (v.len() == n).then_some(v)
        };
        let m = if let Some(rest) = name.strip_prefix("dragonfly-plus-") {
            let v = numbers(rest, 5)?;
            Machine::DragonflyPlus(DragonflyPlus {
                leaves: v[0],
                spines: v[1],
                hosts_per_leaf: v[2],
                global_per_spine: v[3],
                groups: Some(v[4]),
            })
        } else if let Some(rest) = name.strip_prefix("dragonfly-") {
            let v = numbers(rest, 4)?;
            Machine::Dragonfly(Dragonfly {
                routers: v[0],
                hosts_per_router: v[1],
                global_per_router: v[2],
                groups: Some(v[3]),
            })
        } else if let Some(rest) = name.strip_prefix("rail-") {
            let (rest, pxn) = match rest.strip_suffix("-pxn") {
                Some(r) => (r, true),
                None => (rest, false),
            };
            let v = numbers(rest, 3)?;
            Machine::Rail(Rail {
                servers: v[0],
                gpus: v[1],
                spines: Some(v[2]),
                pxn,
            })
        } else if let Some(rest) = name.strip_prefix("hyperx-") {
            let (dims, t) = rest.rsplit_once('-')?;
            let dims: Vec<usize> = dims
                .split('x')
                .map(|d| d.parse().ok())
                .collect::<Option<_>>()?;
            Machine::HyperX(HyperX {
                dims,
                hosts_per_router: t.parse().ok()?,
            })
        } else {
            return None;
        };
        // Only the canonical spelling: the name the generator gives this machine.
        (m.name().ok()? == name).then_some(m)
    }

    /// The machine whose all-to-all `traffic` is: named by [`Machine::of_name`], and every
    /// transfer taking that machine's route (links, ends, order) as its generator builds it.
    /// O(total path length).
    pub fn recognise(traffic: &Traffic) -> Result<Machine, NotRecognised> {
        Machine::recognise_until(traffic, None)
    }

    /// [`Machine::recognise`] until `deadline` (the clock read every 1,024 transfers):
    /// past it, [`NotRecognised::TimeLimit`].
    pub fn recognise_until(
        traffic: &Traffic,
        deadline: Option<std::time::Instant>,
    ) -> Result<Machine, NotRecognised> {
        let name = traffic.name();
        let m = Machine::of_name(name).ok_or_else(|| NotRecognised::Name {
            name: name.to_string(),
        })?;
        let routes = |why: String| NotRecognised::Routes {
            name: name.to_string(),
            spec: m.spec(),
            why,
        };
        let same = match &m {
            Machine::Dragonfly(d) => d
                .build()
                .map(|f| fabric::same_traffic(&f, traffic, deadline)),
            Machine::DragonflyPlus(d) => d
                .build()
                .map(|f| fabric::same_traffic(&f, traffic, deadline)),
            Machine::Rail(r) => r
                .build()
                .map(|f| fabric::same_traffic(&f, traffic, deadline)),
            Machine::HyperX(x) => x
                .build()
                .map(|f| fabric::same_traffic(&f, traffic, deadline)),
        };
        match same {
            Ok(Ok(true)) => Ok(m),
            Ok(Ok(false)) => Err(NotRecognised::TimeLimit {
                name: name.to_string(),
            }),
            Ok(Err(why)) => Err(routes(why)),
            Err(e) => Err(routes(e.to_string())),
        }
    }

    /// The machine's spec, every parameter written out
    /// (`dragonfly:8,4,4,33`, `rail:32,8,32,pxn`, `hyperx:16x16,4`).
    pub fn spec(&self) -> String {
        let opt = |g: Option<usize>| g.map(|g| format!(",{g}")).unwrap_or_default();
        match self {
            Machine::Dragonfly(d) => format!(
                "dragonfly:{},{},{}{}",
                d.routers,
                d.hosts_per_router,
                d.global_per_router,
                opt(d.groups)
            ),
            Machine::DragonflyPlus(d) => format!(
                "dragonfly-plus:{},{},{},{}{}",
                d.leaves,
                d.spines,
                d.hosts_per_leaf,
                d.global_per_spine,
                opt(d.groups)
            ),
            Machine::Rail(r) => format!(
                "rail:{},{}{}{}",
                r.servers,
                r.gpus,
                opt(r.spines),
                if r.pxn { ",pxn" } else { "" }
            ),
            Machine::HyperX(x) => {
                let d: Vec<String> = x.dims.iter().map(usize::to_string).collect();
                format!("hyperx:{},{}", d.join("x"), x.hosts_per_router)
            }
        }
    }

    /// Checks the parameters (builds the machine's numbering, no routes).
    fn check(&self) -> Result<(), TopologyError> {
        self.name().map(|_| ())
    }

    /// The generated model's name.
    fn name(&self) -> Result<String, TopologyError> {
        Ok(match self {
            Machine::Dragonfly(d) => d.build()?.name(),
            Machine::DragonflyPlus(d) => d.build()?.name(),
            Machine::Rail(r) => r.build()?.name(),
            Machine::HyperX(x) => x.build()?.name(),
        })
    }

    /// The all-to-all traffic, built directly (as `liquid_topology::spec::traffic`).
    pub fn traffic(&self) -> Result<Traffic, TopologyError> {
        match self {
            Machine::Dragonfly(d) => d.traffic(),
            Machine::DragonflyPlus(d) => d.traffic(),
            Machine::Rail(r) => r.traffic(),
            Machine::HyperX(x) => x.traffic(),
        }
    }

    /// The network form with its all-to-all.
    pub fn generated(&self) -> Result<Generated, TopologyError> {
        match self {
            Machine::Dragonfly(d) => d.generated(),
            Machine::DragonflyPlus(d) => d.generated(),
            Machine::Rail(r) => r.generated(),
            Machine::HyperX(x) => x.generated(),
        }
    }

    /// The closed-form liquid schedule of the machine's all-to-all (see the module docs),
    /// with its construction, or why there is none. Not validated here.
    pub fn closed_form(&self) -> Result<ClosedForm, NoClosedForm> {
        let none = |conditions| NoClosedForm::Conditions {
            spec: self.spec(),
            conditions,
        };
        let (frames, hosts, construction) = match self {
            Machine::Dragonfly(d) => {
                let n = d.routers * d.hosts_per_router;
                (
                    d.schedule()?.ok_or_else(|| none(DRAGONFLY_WHEN))?,
                    d.build()?.host_count(),
                    format!(
                        "dragonfly rounds (affine plane): {} inter-group frames, the points of \
                         the affine plane over GF({n}) with each group a line, then {} frames \
                         within the groups",
                        n * n,
                        n - 1
                    ),
                )
            }
            Machine::DragonflyPlus(d) => {
                let m = d.leaves * d.hosts_per_leaf;
                (
                    d.schedule()?.ok_or_else(|| none(PLUS_WHEN))?,
                    d.build()?.host_count(),
                    format!(
                        "Dragonfly+ rounds: {} inter-group frames (a, b, c, e) over Z_{} × Z_{} \
                         × Z_{} × Z_{} (up through spine l + k + a, port k + b; down to leaf \
                         s' + κ' + c, host κ' + e), then {} frames within the groups",
                        m * m,
                        d.leaves,
                        d.hosts_per_leaf,
                        d.leaves,
                        d.hosts_per_leaf,
                        m - 1
                    ),
                )
            }
            Machine::Rail(r) => {
                let frames = r.schedule()?.ok_or_else(|| none(RAIL_WHEN))?;
                // The shifts make G·(S − 1) frames; where NVLink is the bottleneck (PXN
                // with more GPUs than servers, or one server) its shifts need more.
                let construction = format!(
                    "rail shifts: {} frames: {} cross-server shifts (Δs, Δj), GPU j of server \
                     x to GPU j + Δj of server x + Δs, with the NVLink shifts within the \
                     servers laid into frames {} (frames of their own where NVLink is the \
                     bottleneck)",
                    frames.len(),
                    r.gpus * (r.servers - 1),
                    if r.pxn {
                        "of the same rail (PXN)"
                    } else {
                        "that do not use NVLink"
                    }
                );
                (frames, r.build()?.host_count(), construction)
            }
            Machine::HyperX(x) => {
                let net = x.build()?;
                (
                    x.schedule()?.ok_or_else(|| none(HYPERX_WHEN))?,
                    net.host_count(),
                    format!(
                        "HyperX multipliers: {} frames (τ, k), host u of router x to host u + τ \
                         of router x + λ_u·k, over GF(q) or Z_S in each dimension",
                        net.host_count() - 1
                    ),
                )
            }
        };
        Ok(ClosedForm {
            construction,
            hosts,
            frames,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_give_back_their_machines() {
        for spec in [
            "dragonfly:4,2,2",
            "dragonfly:4,1,2,5",
            "dragonfly-plus:2,2,2,2",
            "dragonfly-plus:4,2,2,2",
            "rail:4,2",
            "rail:4,2,2,pxn",
            "hyperx:3x2,2",
            "hyperx:5,1",
        ] {
            let m = Machine::parse(spec).expect("valid").expect("a machine");
            let t = m.traffic().expect("builds");
            let back = Machine::recognise(&t).expect("recognised");
            assert_eq!(back.traffic().expect("builds").transfers(), t.transfers());
            // The network form's expansion is recognised too.
            let e = m.generated().expect("builds").expand().expect("expands");
            assert_eq!(Machine::recognise(&e).expect("recognised"), back, "{spec}");
        }
    }

    #[test]
    fn other_names_and_spellings_are_not_machines() {
        for name in [
            "fat-tree-4-3",
            "dragonfly-4-2-2",
            "dragonfly-04-2-2-9",
            "dragonfly-4-2-2-9-1",
            "dragonfly-plus-2-2-2-2",
            "rail-4-2",
            "rail-4-2-4-pxx",
            "hyperx-3x2",
            "hyperx-3x2-+2",
            "dragonfly-4-0-2-9",
            "",
        ] {
            assert_eq!(Machine::of_name(name), None, "{name}");
        }
        assert!(Machine::of_name("dragonfly-4-2-2-9").is_some());
    }

    #[test]
    fn a_traffic_with_a_machines_name_but_other_routes_is_not_recognised() {
        let t = Machine::parse("rail:2,2")
            .expect("valid")
            .expect("a machine")
            .traffic()
            .expect("builds");
        // The same name, the transfers of another machine (PXN routes).
        let other = Machine::parse("rail:2,2,2,pxn")
            .expect("valid")
            .expect("a machine")
            .traffic()
            .expect("builds");
        let paths: Vec<(String, Vec<String>)> = other
            .transfers()
            .iter()
            .map(|x| {
                let p = x.path.iter().map(|&l| other.link_name(l).to_string());
                (x.id.clone(), p.collect())
            })
            .collect();
        let forged = Traffic::from_paths(t.name(), &paths).expect("valid");
        let e = Machine::recognise(&forged).expect_err("other routes");
        assert!(
            matches!(&e, NotRecognised::Routes { spec, .. } if spec == "rail:2,2,2"),
            "{e}"
        );
        // Fewer transfers.
        let forged = Traffic::from_paths(t.name(), &paths[1..]).expect("valid");
        assert!(matches!(
            Machine::recognise(&forged),
            Err(NotRecognised::Routes { .. })
        ));
    }

    #[test]
    fn closed_forms_are_valid_and_liquid() {
        for spec in [
            "dragonfly:4,2,2",
            "dragonfly-plus:2,2,2,2",
            "rail:4,3",
            "rail:4,3,1,pxn",
            "hyperx:3x4,2",
        ] {
            let m = Machine::parse(spec).expect("valid").expect("a machine");
            let t = m.traffic().expect("builds");
            let form = m.closed_form().expect("has one");
            let r = liquid_model::validate(&t, &form.schedule()).expect("valid");
            assert_eq!(
                (r.length, form.len()),
                (t.duration(), t.duration()),
                "{spec}"
            );
            assert!(!form.construction.is_empty());
        }
    }

    #[test]
    fn machines_without_one_say_why() {
        for (spec, why) in [
            ("rail:4,3,2", "pxn"),
            ("hyperx:6x3,2", "prime power"),
            ("dragonfly:6,1,1", "prime power"),
            ("dragonfly-plus:4,2,2,2", "as many spines as leaves"),
        ] {
            let m = Machine::parse(spec).expect("valid").expect("a machine");
            let e = m.closed_form().expect_err(spec);
            assert!(
                matches!(&e, NoClosedForm::Conditions { .. }) && e.to_string().contains(why),
                "{spec}: {e}"
            );
        }
        assert_eq!(Machine::parse("fat-tree:4,2").expect("ok"), None);
        assert!(Machine::parse("rail:4,3,5").is_err());
    }
}
