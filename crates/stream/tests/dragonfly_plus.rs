//! Streamed Dragonfly+ against the in-memory model (`dragonfly-plus:L,S,P,H[,G]` as
//! `liquid_topology` builds it) and the model crate's validator: links, names, routes,
//! loads and Λ are the model's; the streamed schedule, written as YAML and validated as it
//! is made, is the in-memory closed-form schedule frame for frame and liquid for the model
//! crate's validator; a Dragonfly+ without one is refused, naming why; a wrong frame is
//! caught.

mod common;

use liquid_stream::dragonfly::DragonflyPlusStream;
use liquid_topology::dragonfly::DragonflyPlus;

fn machine(rest: &str) -> DragonflyPlus {
    DragonflyPlus::parse(&format!("dragonfly-plus:{rest}"), rest).expect("valid")
}

/// Links, names, routes, loads, Λ and the analysis are the in-memory model's, with one
/// global link per pair of groups and with parallel ones (`G < S·H + 1`), more leaves
/// than spines and fewer.
#[test]
fn streamed_dragonfly_plus_are_the_in_memory_ones() {
    for rest in [
        "2,2,2,2",
        "3,3,2,2",
        "2,3,2,2",
        "3,2,3,1",
        "2,2,2,2,3",
        "2,4,2,2,5",
        "1,1,2,1",
        "4,4,2,2",
        "3,2,2,3,4",
        "3,3,1,1",
    ] {
        let traffic = machine(rest).traffic().expect("builds");
        let d = DragonflyPlusStream::new(rest).expect("streams");
        common::same_model(rest, &d, &traffic);
        common::same_analysis(rest, &d, &traffic);
    }
}

/// The streamed schedule validates (streaming validator, and the model crate's on the
/// YAML file it wrote), is liquid, and equals the in-memory closed form frame for frame.
#[test]
fn streamed_schedules_are_liquid_and_the_in_memory_ones() {
    for rest in [
        "1,1,1,1", "2,2,1,1", "2,2,2,2", "3,3,2,2", "4,4,4,4", "5,5,3,3",
    ] {
        let m = machine(rest);
        let traffic = m.traffic().expect("builds");
        let d = DragonflyPlusStream::new(rest).expect("streams");
        let frames = m.schedule().expect("builds").expect("a closed form");
        common::solved_as_in_memory(rest, &d, &traffic, &frames);
    }
}

/// A Dragonfly+ without the closed form is analysed but not solved; one whose frames are
/// altered is rejected by the streaming validator.
#[test]
fn refusals_and_a_wrong_frame() {
    for rest in ["2,2,3,3", "4,2,2,2", "2,2,2,1", "2,2,2,2,3", "3,3,2,2,4"] {
        let d = DragonflyPlusStream::new(rest).expect("parses");
        common::refused_saying(rest, &d, "L = S");
    }
    for bad in ["2,2,2", "0,2,2,2", "2,2,2,2,4", "1000,1000,1000,1000"] {
        assert!(DragonflyPlusStream::new(bad).is_err(), "{bad}");
    }
    // Links no route uses: the in-memory model leaves them out, the stream refuses.
    for (rest, cabled) in [("2,4,1,2,5", 140), ("2,2,1,1,2", 28), ("1,3,1,2,3", 42)] {
        let err = DragonflyPlusStream::new(rest).expect_err("refused");
        assert!(err.to_string().contains("carry no transfer"), "{err}");
        let traffic = machine(rest).traffic().expect("builds");
        assert!(traffic.num_links() < cabled, "{rest}");
    }
    // Two transfers of frame 4 sent to one host: the validator names the conflict.
    let d = DragonflyPlusStream::new("2,2,2,2").expect("streams");
    common::wrong_frame_caught(&d);
}
