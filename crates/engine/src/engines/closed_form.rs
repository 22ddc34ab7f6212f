//! `closed-form`: the liquid schedule of a generated machine's all-to-all from its
//! construction ([`liquid_topology::closed_form`]): dragonflies, Dragonfly+,
//! rail-optimised fat-trees and HyperX that have one. The traffic must be that machine's
//! all-to-all route for route ([`Machine::recognise`]: the generator's model name, then
//! every transfer's route checked); any other traffic is refused as outside the engine's
//! domain, saying why. Its answer is `liquid` (length Λ, the bound a bottleneck link), and
//! like every answer it is validated by the gate: a construction that were wrong would be
//! reported as a wrong answer, never passed on.

use std::sync::atomic::AtomicU64;
use std::time::Instant;

use liquid_model::{Answer, LowerBound, Outcome, Schedule, StatValue, Traffic, Verdict};
use liquid_topology::closed_form::{Machine, NoClosedForm, NotRecognised};
use thiserror::Error;

use crate::{Checked, Engine, EngineError, Request, Run, SolveError};

/// The engine's name (`--engine closed-form`, the portfolio's `decided_by`).
pub const NAME: &str = "closed-form";

/// The closed-form engine.
pub struct ClosedForm;

/// A closed-form schedule of a traffic (not yet validated: the gate does that).
#[derive(Debug, Clone)]
pub struct Form {
    /// The machine, as its spec with every parameter written out.
    pub machine: String,
    /// The construction in words.
    pub construction: String,
    /// The schedule.
    pub schedule: Schedule,
}

impl Form {
    /// The statistics an answer by this form carries: the machine and the construction.
    pub fn stats(&self) -> Vec<(String, StatValue)> {
        vec![
            ("machine".into(), StatValue::Text(self.machine.clone())),
            (
                "construction".into(),
                StatValue::Text(self.construction.clone()),
            ),
        ]
    }
}

/// Why a traffic has no closed-form schedule.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum NoForm {
    /// It is not the all-to-all of a generated machine of these families.
    #[error("{0}")]
    NotAMachine(#[from] NotRecognised),
    /// It is, and that machine has no closed form.
    #[error("{0}")]
    NoClosedForm(#[from] NoClosedForm),
    /// The time limit came first (while the routes were checked or the frames made).
    #[error("the time limit came before the closed form was made")]
    TimeLimit,
}

/// The closed-form schedule of `traffic` when it is the all-to-all of a machine that has
/// one; why not otherwise. O(total path length).
pub fn closed_form(traffic: &Traffic) -> Result<Form, NoForm> {
    closed_form_until(traffic, None)
}

/// [`closed_form`] until `deadline`: the clock is read every 1,024 routes checked and
/// between the steps (routes, frames, schedule); past it, [`NoForm::TimeLimit`].
pub fn closed_form_until(traffic: &Traffic, deadline: Option<Instant>) -> Result<Form, NoForm> {
    let past = || deadline.is_some_and(|d| Instant::now() >= d);
    let machine = match Machine::recognise_until(traffic, deadline) {
        Err(NotRecognised::TimeLimit { .. }) => return Err(NoForm::TimeLimit),
        m => m?,
    };
    if past() {
        return Err(NoForm::TimeLimit);
    }
    let form = machine.closed_form()?;
    if past() {
        return Err(NoForm::TimeLimit);
    }
    Ok(Form {
        machine: machine.spec(),
        construction: form.construction.clone(),
        schedule: form.schedule(),
    })
}

/// The answer a closed form gives: `liquid` with its schedule, claimed as such (the gate
/// checks the length against Λ and every frame).
pub(crate) fn answer(engine: &str, form: Form) -> Answer {
    let stats = form.stats();
    let mut a = Answer::new(
        engine,
        Outcome::Liquid {
            schedule: form.schedule,
        },
    );
    a.stats = stats;
    a
}

/// A machine's all-to-all with its closed-form schedule, run through the gate as the
/// `closed-form` engine (`liquid generate ... --schedule-out`): the traffic, built
/// directly, and the checked answer. A machine that cannot be built or has no closed form
/// is an input error saying why.
pub fn solve_machine(machine: &Machine) -> Result<(Traffic, Checked), SolveError> {
    let traffic = machine
        .traffic()
        .map_err(|e| SolveError::Input(e.to_string()))?;
    let checked = crate::solve(
        &traffic,
        &ClosedForm,
        &Request::default(),
        None,
        &AtomicU64::new(0),
    )?;
    Ok((traffic, checked))
}

impl Engine for ClosedForm {
    fn name(&self) -> &'static str {
        NAME
    }
    fn about(&self) -> &'static str {
        "the closed-form liquid schedule of a generated dragonfly, Dragonfly+, rail-optimised \
         fat-tree or HyperX all-to-all (recognised route by route), in one pass; refuses \
         every other traffic"
    }
    fn verdicts(&self) -> &'static [Verdict] {
        // Unknown when the time limit comes first.
        &[Verdict::Liquid, Verdict::Unknown]
    }
    fn accepts_every_traffic(&self) -> bool {
        // The all-to-alls of machines with a closed form only.
        false
    }
    fn in_crosscheck(&self) -> bool {
        // It refuses every other traffic; the portfolio runs it first.
        false
    }
    fn run(&self, t: &Traffic, req: &Request, _: &AtomicU64) -> Result<Run, EngineError> {
        let form = match closed_form_until(t, req.limits.deadline()) {
            Ok(form) => form,
            Err(NoForm::TimeLimit) => {
                let mut a = Answer::new(
                    NAME,
                    Outcome::Unknown {
                        best: None,
                        bound: LowerBound::duration(t),
                    },
                );
                a.stats = vec![(
                    "stopped".into(),
                    StatValue::Text(NoForm::TimeLimit.to_string()),
                )];
                return Ok(a.into());
            }
            Err(e) => return Err(EngineError::Input(format!("closed-form: {e}"))),
        };
        Ok(answer(NAME, form).into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn machine(spec: &str) -> Traffic {
        liquid_topology::spec::traffic(spec)
            .expect("valid")
            .expect("a spec")
    }

    fn gate(t: &Traffic, e: &dyn Engine) -> Result<crate::Checked, SolveError> {
        crate::solve(t, e, &Request::default(), None, &AtomicU64::new(0))
    }

    #[test]
    fn the_machines_with_a_closed_form_are_liquid_through_the_gate() {
        for spec in [
            "dragonfly:4,2,2",
            "dragonfly-plus:2,2,2,2",
            "rail:4,3,2,pxn",
            "hyperx:4x4,2",
        ] {
            let t = machine(spec);
            let c = gate(&t, &ClosedForm).expect("checked");
            assert_eq!(c.verdict(), Verdict::Liquid, "{spec}");
            assert_eq!(c.length(), Some(t.duration()), "{spec}");
            let construction = c.stats().iter().find(|(k, _)| k == "construction");
            assert!(construction.is_some(), "{spec}: {:?}", c.stats());
        }
    }

    #[test]
    fn other_traffics_are_refused_saying_why() {
        for (t, why) in [
            (liquid_model::examples::odd_cycle(), "not the model name"),
            (machine("fat-tree:4,2"), "not the model name"),
            (machine("rail:4,3,2"), "no closed-form schedule for rail:4,3,2"),
            (machine("dragonfly:4,2,2,3"), "no closed-form schedule"),
        ] {
            match gate(&t, &ClosedForm) {
                Err(SolveError::Input(m)) => assert!(m.contains(why), "{m}"),
                other => panic!("{}: {other:?}", t.name()),
            }
        }
    }

    /// The stage reads the clock: a deadline in the past stops it (the routes are not
    /// all checked, no frame is made), the engine answers `unknown` through the gate, and
    /// the portfolio says so and answers `unknown` at once (no later stage runs).
    #[test]
    fn a_deadline_in_the_past_stops_the_closed_form() {
        let t = machine("dragonfly:4,2,2");
        let past = Some(Instant::now());
        assert!(matches!(
            closed_form_until(&t, past),
            Err(NoForm::TimeLimit)
        ));
        assert!(matches!(
            Machine::recognise_until(&t, past),
            Err(NotRecognised::TimeLimit { .. })
        ));
        assert!(closed_form_until(&t, None).is_ok());
        let zero = Request {
            limits: liquid_model::Limits {
                time: Some(std::time::Duration::ZERO),
                nodes: None,
            },
            ..Default::default()
        };
        let c = crate::solve(&t, &ClosedForm, &zero, None, &AtomicU64::new(0)).expect("checked");
        assert_eq!(c.verdict(), Verdict::Unknown);
        assert!(c.stats().iter().any(|(k, _)| k == "stopped"), "{:?}", c.stats());
        let p = crate::find("portfolio").expect("portfolio");
        let c = crate::solve(&t, p, &zero, None, &AtomicU64::new(0)).expect("checked");
        let said = c
            .stats()
            .iter()
            .find(|(k, _)| k == "closed_form")
            .map(|(_, v)| format!("{v:?}"));
        assert!(
            said.as_deref().is_some_and(|v| v.contains("time limit")),
            "{:?}",
            c.stats()
        );
        assert_eq!(c.verdict(), Verdict::Unknown);
        assert!(!c.stats().iter().any(|(k, _)| k == "repair_length"), "{:?}", c.stats());
    }

    /// How a test spoils a closed-form schedule.
    type Forgery = fn(&mut Schedule);

    /// A closed form gone wrong, as a bug in a construction would give it.
    struct Forged(Forgery);

    impl Engine for Forged {
        fn name(&self) -> &'static str {
            NAME
        }
        fn about(&self) -> &'static str {
            "a closed form, forged (tests)"
        }
        fn verdicts(&self) -> &'static [Verdict] {
            &[Verdict::Liquid]
        }
        fn run(&self, t: &Traffic, _: &Request, _: &AtomicU64) -> Result<Run, EngineError> {
            let mut form = closed_form(t).expect("a closed form");
            (self.0)(&mut form.schedule);
            Ok(answer(NAME, form).into())
        }
    }

    #[test]
    fn a_wrong_closed_form_is_caught_by_the_gate() {
        let t = machine("dragonfly:4,2,2");
        let forgeries: [(Forgery, &str); 3] = [
            // Two transfers swapped between the first two frames: each now shares its
            // sender's host link with the frame's own transfer from that host.
            (
                |s| {
                    let x = s.frames[0][0];
                    s.frames[0][0] = s.frames[1][0];
                    s.frames[1][0] = x;
                },
                "congest",
            ),
            // A transfer left out.
            (
                |s| {
                    s.frames[0].pop();
                },
                "in no timeframe",
            ),
            // Valid, one frame longer than Λ, still claimed liquid.
            (
                |s| {
                    let half = s.frames[0].split_off(1);
                    s.frames.push(half);
                },
                "",
            ),
        ];
        for (forge, why) in forgeries {
            match gate(&t, &Forged(forge)) {
                Err(SolveError::Wrong { engine, reason }) => {
                    assert_eq!(engine, NAME);
                    assert!(reason.contains(why), "{reason}");
                }
                other => panic!("a forged closed form passed the gate: {other:?}"),
            }
        }
    }
}
