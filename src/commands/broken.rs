//! Deliberately wrong engines, hidden from `--help`. They exist so that tests can show
//! that the checks catch wrong answers: `solve` must refuse them (exit 3) and `crosscheck`
//! must report them as contradictions. Never use them for anything else.

use liquid_model::{LowerBound, Outcome, Verdict, Witness};

/// DSatur's schedule with its first transfer dropped, presented as DSatur's answer.
pub fn drop_transfer(traffic: &liquid_model::Traffic) -> Outcome {
    let mut o = liquid_search::dsatur::solve(traffic);
    if let Some(s) = &mut o.schedule {
        if let Some(frame) = s.frames.iter_mut().find(|f| !f.is_empty()) {
            frame.remove(0);
        }
        s.frames.retain(|f| !f.is_empty());
    }
    o.engine = "test-drop-transfer".to_string();
    o
}

/// Claims, without any search, that the traffic has no liquid schedule.
pub fn false_non_liquid(traffic: &liquid_model::Traffic) -> Outcome {
    Outcome {
        engine: "test-false-non-liquid".to_string(),
        verdict: Verdict::NonLiquid,
        schedule: None,
        lower_bound: LowerBound {
            value: traffic.duration() + 1,
            witness: Witness::Exhaustion {
                engine: "test-false-non-liquid".to_string(),
                nodes: 0,
            },
        },
        stats: Vec::new(),
    }
}
