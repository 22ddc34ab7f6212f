//! Streamed rail-optimised fat-trees against the in-memory model (`rail:S,G[,K][,pxn]` as
//! `liquid_topology` builds it) and the model crate's validator: links (only those some
//! route uses, as the in-memory model declares them), names, routes, every link's load
//! and Λ are the model's on every machine up to 6 servers of 5 GPUs, any spine count,
//! with and without PXN (one server, one GPU a server, spines not dividing the servers);
//! the streamed schedule, written as YAML and validated as it is made, is the in-memory
//! closed-form schedule frame for frame and liquid for the model crate's validator; a
//! machine without one is refused, naming why; a wrong frame is caught.

mod common;

use liquid_stream::rail::RailStream;
use liquid_stream::Structured;
use liquid_topology::rail::Rail;

fn machine(rest: &str) -> Rail {
    Rail::parse(&format!("rail:{rest}"), rest).expect("valid")
}

/// Every machine of up to 6 servers of up to 5 GPUs, every spine count, with and
/// without PXN: the in-memory model's links, names, loads (counted there, link by link),
/// Λ, routes and analysis.
#[test]
fn streamed_rails_are_the_in_memory_rails() {
    let mut count = 0;
    for s in 1..=6 {
        for g in 1..=5 {
            if s * g < 2 {
                continue;
            }
            for k in 1..=s {
                for pxn in ["", ",pxn"] {
                    let rest = format!("{s},{g},{k}{pxn}");
                    let traffic = machine(&rest).traffic().expect("builds");
                    let d = RailStream::new(&rest).expect("streams");
                    common::same_model(&rest, &d, &traffic);
                    common::same_analysis(&rest, &d, &traffic);
                    count += 1;
                }
            }
        }
    }
    assert_eq!(count, 2 * (5 * 21 - 1));
    // The default spine count, and larger machines.
    for rest in ["4,8", "4,8,pxn", "8,4,3", "7,6,pxn", "12,2,5"] {
        let traffic = machine(rest).traffic().expect("builds");
        let d = RailStream::new(rest).expect("streams");
        common::same_model(rest, &d, &traffic);
        common::same_analysis(rest, &d, &traffic);
        assert_eq!(d.spec(), format!("rail:{rest}"));
    }
}

/// The streamed schedule validates (streaming validator, and the model crate's on the
/// YAML file it wrote), is liquid, and equals the in-memory closed form frame for frame:
/// with PXN (any spine count) and without it when `K = S`, NVLink shifts within the
/// cross-server frames or in frames of their own.
#[test]
fn streamed_schedules_are_liquid_and_the_in_memory_ones() {
    for rest in [
        "2,2",
        "4,4",
        "3,5",
        "5,3",
        "1,4",
        "4,1",
        "5,3,pxn",
        "3,5,1,pxn",
        "2,6,pxn",
        "1,3,pxn",
        "6,2,4,pxn",
        "4,8",
        "4,8,2,pxn",
    ] {
        let m = machine(rest);
        let traffic = m.traffic().expect("builds");
        let d = RailStream::new(rest).expect("streams");
        let frames = m.schedule().expect("builds").expect("a closed form");
        common::solved_as_in_memory(rest, &d, &traffic, &frames);
    }
}

/// A machine without the closed form (no PXN, fewer spines than servers) is analysed
/// but not solved; bad specs and machines too large are refused; a frame whose
/// transfers are altered is rejected by the streaming validator.
#[test]
fn refusals_and_a_wrong_frame() {
    for rest in ["4,4,2", "5,3,1", "3,2,2"] {
        let d = RailStream::new(rest).expect("parses");
        common::refused_saying(rest, &d, "K = S");
    }
    for bad in [
        "4",
        "0,8",
        "4,0",
        "4,8,0",
        "4,8,5",
        "1,1",
        "4,8,pxn,2",
        "x,8",
        "3000,3000",
    ] {
        assert!(RailStream::new(bad).is_err(), "{bad}");
    }
    // Two transfers of frame 4 sent to one GPU: the validator names the conflict.
    let d = RailStream::new("4,4").expect("streams");
    common::wrong_frame_caught(&d);
}
