//! Streamed HyperX against the in-memory model (`hyperx:S1xS2x...,T` as `liquid_topology`
//! builds it) and the model crate's validator: links, names, dimension-order routes,
//! every link's load and Λ are the model's (one to four dimensions, even and odd sizes,
//! one to four hosts a router); the streamed schedule, written as YAML and validated as it
//! is made, is the in-memory closed-form schedule frame for frame (prime-power dimensions
//! over GF(q), the others over the integers mod S) and liquid for the model crate's
//! validator; a HyperX without one is refused, naming why; a wrong frame is caught.

mod common;

use liquid_stream::hyperx::HyperXStream;
use liquid_stream::Structured;
use liquid_topology::hyperx::HyperX;

fn machine(rest: &str) -> HyperX {
    HyperX::parse(&format!("hyperx:{rest}"), rest).expect("valid")
}

/// Links, names, routes, loads (counted in memory, link by link), Λ and the analysis are
/// the in-memory model's.
#[test]
fn streamed_hyperx_are_the_in_memory_ones() {
    let mut count = 0;
    for dims in [
        "2", "5", "2x2", "3x4", "4x3", "2x3x4", "4x2x3", "3x3x3", "2x2x2x2", "7x5", "6x2",
    ] {
        for t in 1..=4 {
            let rest = format!("{dims},{t}");
            let traffic = machine(&rest).traffic().expect("builds");
            let d = HyperXStream::new(&rest).expect("streams");
            common::same_model(&rest, &d, &traffic);
            common::same_analysis(&rest, &d, &traffic);
            assert_eq!(d.spec(), format!("hyperx:{rest}"));
            count += 1;
        }
    }
    assert_eq!(count, 44);
}

/// The streamed schedule validates (streaming validator, and the model crate's on the
/// YAML file it wrote), is liquid, and equals the in-memory closed form frame for frame.
#[test]
fn streamed_schedules_are_liquid_and_the_in_memory_ones() {
    for rest in [
        "3,2",
        "5x3,2",
        "7x5,4",
        "3x3x3,2",
        "4x4,3",
        "8x9,5",
        "6x2,1",
        "12,1",
        "2x2x2x2,1",
        "4x4x2,1",
        "9x2,1",
        "16,7",
    ] {
        let m = machine(rest);
        let traffic = m.traffic().expect("builds");
        let d = HyperXStream::new(rest).expect("streams");
        let frames = m.schedule().expect("builds").expect("a closed form");
        common::solved_as_in_memory(rest, &d, &traffic, &frames);
    }
}

/// A HyperX without the closed form is analysed but not solved; bad specs and machines
/// too large are refused; a frame whose transfers are altered is rejected by the
/// streaming validator.
#[test]
fn refusals_and_a_wrong_frame() {
    for rest in ["5x7,5", "4x4,4", "6x3,2", "2x2,2"] {
        let d = HyperXStream::new(rest).expect("parses");
        common::refused_saying(rest, &d, "prime power");
    }
    for bad in [
        "4x4",
        "1x4,1",
        "4x4,0",
        "x,1",
        "2048x2048,1",
        "64x64x64x64,1",
        "4x4,1,2",
    ] {
        assert!(HyperXStream::new(bad).is_err(), "{bad}");
    }
    // Two transfers of frame 4 sent to one host: the validator names the conflict.
    let d = HyperXStream::new("4x4,2").expect("streams");
    common::wrong_frame_caught(&d);
}
