//! Streamed dragonflies against the in-memory model (`dragonfly:A,P,H[,G]` as
//! `liquid_topology` builds it) and the model crate's validator: links, names, routes,
//! loads and Λ are the model's; the streamed schedule, written as YAML and validated as it
//! is made, is the in-memory closed-form schedule frame for frame and liquid for the model
//! crate's validator; a dragonfly without one is refused, naming why; a wrong frame is
//! caught.

mod common;

use liquid_stream::dragonfly::DragonflyStream;
use liquid_topology::dragonfly::Dragonfly;

fn machine(rest: &str) -> Dragonfly {
    Dragonfly::parse(&format!("dragonfly:{rest}"), rest).expect("valid")
}

/// Links, names, routes, loads, Λ and the analysis are the in-memory model's, with one
/// global link per pair of groups and with parallel ones (`G < A·H + 1`).
#[test]
fn streamed_dragonflies_are_the_in_memory_dragonflies() {
    for rest in [
        "4,2,2", "2,2,2,3", "4,1,2,5", "3,2,2", "1,2,3", "4,2,2,3", "5,1,1",
    ] {
        let traffic = machine(rest).traffic().expect("builds");
        let d = DragonflyStream::new(rest).expect("streams");
        common::same_model(rest, &d, &traffic);
        common::same_analysis(rest, &d, &traffic);
    }
}

/// The streamed schedule validates (streaming validator, and the model crate's on the
/// YAML file it wrote), is liquid, and equals the in-memory closed form frame for frame.
#[test]
fn streamed_schedules_are_liquid_and_the_in_memory_ones() {
    for rest in ["4,2,2", "2,1,1", "3,1,1", "4,1,1", "8,2,2"] {
        let m = machine(rest);
        let traffic = m.traffic().expect("builds");
        let d = DragonflyStream::new(rest).expect("streams");
        let frames = m.schedule().expect("builds").expect("a closed form");
        common::solved_as_in_memory(rest, &d, &traffic, &frames);
    }
}

/// A dragonfly without the closed form is analysed but not solved; one whose frames are
/// altered is rejected by the streaming validator.
#[test]
fn refusals_and_a_wrong_frame() {
    for rest in ["6,1,1", "4,2,2,5", "4,2,1", "6,3,3"] {
        let d = DragonflyStream::new(rest).expect("parses");
        common::refused_saying(rest, &d, "prime power");
    }
    for bad in ["4,2", "0,2,2", "4,2,2,4", "1000,1000,1000"] {
        assert!(DragonflyStream::new(bad).is_err(), "{bad}");
    }
    // Two transfers of frame 4 sent to one host: the validator names the conflict.
    let d = DragonflyStream::new("4,2,2").expect("streams");
    common::wrong_frame_caught(&d);
}
