//! Cases whose simulated times are known in closed form.

use std::path::PathBuf;

use liquid_model::yaml::{load_model, load_schedule};
use liquid_sim::{
    from_schedule, simulate, Link, MappedTraffic, Message, Mode, Options, Plan, Platform, SimError,
    Step,
};

fn models() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../models")
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1e-12)
}

fn platform(links: &[(f64, f64)]) -> Platform {
    Platform::new(
        links
            .iter()
            .enumerate()
            .map(|(i, &(bandwidth, latency))| Link {
                name: format!("l{i}"),
                bandwidth,
                latency,
            })
            .collect(),
    )
    .expect("valid platform")
}

fn msg(route: &[u32], bytes: f64) -> Message {
    Message {
        route: route.to_vec(),
        bytes,
        transfer: None,
    }
}

fn one_step(messages: Vec<Message>) -> Plan {
    Plan {
        steps: vec![Step {
            messages,
            ..Default::default()
        }],
    }
}

#[test]
fn a_liquid_schedule_in_frames_takes_the_sum_over_frames_of_latency_overhead_and_size() {
    let traffic = load_model(&models().join("paper-fig1.yaml")).expect("model");
    let schedule = load_schedule(&models().join("paper-fig1-liquid-schedule.yaml"), &traffic)
        .expect("schedule");
    let bandwidth = 100e6;
    // Every link a different latency, so the frame's slowest route matters.
    let latency = |name: &str| {
        let i: f64 = name
            .trim_start_matches('l')
            .parse()
            .expect("numbered links");
        i * 1e-5
    };
    let mapped =
        MappedTraffic::new(&traffic, |name| Some((bandwidth, latency(name)))).expect("maps");
    let size = 1e6;
    let overhead = 3e-5;
    let sizes = vec![size; traffic.len()];
    let plan =
        from_schedule(&traffic, &mapped.routes, &sizes, &schedule, Mode::Frames).expect("plan");
    let run = simulate(
        &mapped.platform,
        &plan,
        &Options {
            overhead,
            trace: false,
        },
    )
    .expect("runs");
    let mut expected = 0.0;
    for frame in &schedule.frames {
        let worst = frame
            .iter()
            .map(|&t| {
                traffic
                    .transfer(t)
                    .path
                    .iter()
                    .map(|&l| latency(traffic.link_name(l)))
                    .sum::<f64>()
            })
            .fold(0.0, f64::max);
        let start = expected;
        expected += worst + overhead + size / bandwidth;
        let f = run.steps[plan
            .steps
            .iter()
            .position(|s| s.group == Some(start_index(&schedule, frame)))
            .expect("step")];
        assert!(
            close(f.start, start),
            "frame starts at {} not {start}",
            f.start
        );
        assert!(
            close(f.end, expected),
            "frame ends at {} not {expected}",
            f.end
        );
    }
    assert_eq!(run.steps.len(), schedule.frames.len());
    assert!(
        close(run.makespan, expected),
        "{} vs {expected}",
        run.makespan
    );
}

fn start_index(schedule: &liquid_model::Schedule, frame: &Vec<liquid_model::TransferId>) -> usize {
    schedule
        .frames
        .iter()
        .position(|f| std::ptr::eq(f, frame))
        .expect("frame of the schedule")
}

#[test]
fn two_flows_on_one_link_each_get_half_of_it() {
    let p = platform(&[(10.0, 0.0)]);
    let run = simulate(
        &p,
        &one_step(vec![msg(&[0], 10.0), msg(&[0], 10.0)]),
        &Options::default(),
    )
    .expect("runs");
    assert!(close(run.delivered[0][0], 2.0));
    assert!(close(run.delivered[0][1], 2.0));
    // A shorter flow leaves, and the longer one gets the whole link: 10 bytes at 5 B/s,
    // then the last 10 at 10 B/s.
    let run = simulate(
        &p,
        &one_step(vec![msg(&[0], 10.0), msg(&[0], 20.0)]),
        &Options::default(),
    )
    .expect("runs");
    assert!(close(run.delivered[0][0], 2.0));
    assert!(close(run.delivered[0][1], 3.0));
    assert!(close(run.makespan, 3.0));
}

#[test]
fn max_min_with_a_bottleneck_elsewhere() {
    // Link 0: 10 B/s, shared by A (links 0 and 1) and B (link 0). Link 1: 2 B/s, shared by
    // A and C. Link 1 holds A and C at 1 B/s each; B gets the 9 B/s that A leaves on link 0.
    let p = platform(&[(10.0, 0.0), (2.0, 0.0)]);
    let plan = one_step(vec![msg(&[0, 1], 9.0), msg(&[0], 9.0), msg(&[1], 9.0)]);
    let run = simulate(
        &p,
        &plan,
        &Options {
            overhead: 0.0,
            trace: true,
        },
    )
    .expect("runs");
    assert!(
        close(run.delivered[0][1], 1.0),
        "B: {}",
        run.delivered[0][1]
    );
    // Once B is gone, A and C are still held by link 1.
    assert!(
        close(run.delivered[0][0], 9.0),
        "A: {}",
        run.delivered[0][0]
    );
    assert!(
        close(run.delivered[0][2], 9.0),
        "C: {}",
        run.delivered[0][2]
    );
    // Rates change when B leaves and when A and C leave (the last segment is idle).
    assert_eq!(run.trace.len(), 3);
    assert!(close(run.trace[1].start, 1.0) && close(run.trace[2].start, 9.0));
    assert!(run.trace[2].links.is_empty() && run.trace[2].throughput == 0.0);
    assert!(close(run.trace[0].throughput, 11.0));
    assert_eq!(run.trace[0].links, vec![(0, 1.0), (1, 1.0)]);
    assert_eq!(run.trace[1].links, vec![(0, 0.1), (1, 1.0)]);
}

#[test]
fn latency_is_the_sum_over_the_route_and_comes_before_the_data() {
    let p = platform(&[(10.0, 0.5), (10.0, 0.25)]);
    let run = simulate(
        &p,
        &one_step(vec![msg(&[0, 1], 10.0)]),
        &Options {
            overhead: 0.125,
            trace: false,
        },
    )
    .expect("runs");
    assert!(close(run.makespan, 0.125 + 0.75 + 1.0));
    // A zero-byte message costs the overhead and the latency only.
    let run = simulate(&p, &one_step(vec![msg(&[1], 0.0)]), &Options::default()).expect("runs");
    assert!(close(run.makespan, 0.25));
}

#[test]
fn dependencies_and_delays_order_steps() {
    // A relay: step 0 and step 1 each bring 10 bytes to a node; step 2 waits for both,
    // aggregates for 1 s, and forwards 20 bytes.
    let p = platform(&[(10.0, 0.0), (10.0, 0.0), (10.0, 0.0)]);
    let plan = Plan {
        steps: vec![
            Step {
                messages: vec![msg(&[0], 10.0)],
                ..Default::default()
            },
            Step {
                messages: vec![msg(&[1], 20.0)],
                ..Default::default()
            },
            Step {
                after: vec![0, 1],
                delay: 1.0,
                messages: vec![msg(&[2], 20.0)],
                group: None,
            },
        ],
    };
    let run = simulate(&p, &plan, &Options::default()).expect("runs");
    assert!(close(run.steps[2].start, 2.0));
    assert!(close(run.makespan, 2.0 + 1.0 + 2.0));
}

#[test]
fn async_mode_lets_each_sender_run_ahead() {
    // Two senders; a's frames are [a1] then [a2]; b's single transfer is long. In frames
    // mode a2 waits for b; in async mode it does not.
    let text = "name: t\ntransfers:\n  - {id: a1, from: a, path: [x]}\n  - {id: b1, from: b, path: [y]}\n  - {id: a2, from: a, path: [x]}\n";
    let traffic = liquid_model::yaml::parse_model("t.yaml", text).expect("model");
    let schedule =
        liquid_model::yaml::parse_schedule("s.yaml", "timeframes: [[a1, b1], [a2]]", &traffic)
            .expect("schedule");
    let mapped = MappedTraffic::new(&traffic, |_| Some((1.0, 0.0))).expect("maps");
    let sizes = vec![1.0, 5.0, 1.0];
    let run_in = |mode| {
        let plan = from_schedule(&traffic, &mapped.routes, &sizes, &schedule, mode).expect("plan");
        simulate(&mapped.platform, &plan, &Options::default())
            .expect("runs")
            .makespan
    };
    assert!(close(run_in(Mode::Frames), 6.0));
    assert!(close(run_in(Mode::Async), 5.0));
    // All at once: a1 and a2 share x at half a byte per second each and end at 2.
    assert!(close(run_in(Mode::AllAtOnce), 5.0));
}

#[test]
fn bad_plans_are_refused() {
    let p = platform(&[(10.0, 0.0)]);
    let cyclic = Plan {
        steps: vec![
            Step {
                after: vec![1],
                ..Default::default()
            },
            Step {
                after: vec![0],
                ..Default::default()
            },
        ],
    };
    assert!(matches!(
        simulate(&p, &cyclic, &Options::default()),
        Err(SimError::Cycle { .. })
    ));
    let off = one_step(vec![msg(&[3], 1.0)]);
    assert!(matches!(
        simulate(&p, &off, &Options::default()),
        Err(SimError::BadStep { step: 0, .. })
    ));
    let twice = one_step(vec![msg(&[0, 0], 1.0)]);
    assert!(simulate(&p, &twice, &Options::default()).is_err());
    let negative = one_step(vec![msg(&[0], -1.0)]);
    assert!(simulate(&p, &negative, &Options::default()).is_err());
    assert!(simulate(
        &p,
        &one_step(vec![]),
        &Options {
            overhead: -1.0,
            trace: false
        }
    )
    .is_err());
    assert!(Platform::new(vec![Link {
        name: "z".into(),
        bandwidth: 0.0,
        latency: 0.0
    }])
    .is_err());
}

/// Extreme finite inputs whose times or totals overflow are refused with the quantity
/// named, instead of an infinite or NaN makespan (or a loop that never ends).
#[test]
fn times_and_totals_that_overflow_are_refused() {
    let opts = Options {
        overhead: 0.0,
        trace: false,
    };
    let cases = [
        // 1e10 bytes at 1e-300 bytes/s.
        (platform(&[(1e-300, 0.0)]), vec![msg(&[0], 1e10)], "times"),
        // Two latencies of 1e308 s one after the other.
        (platform(&[(1.0, 1e308)]), vec![msg(&[0], 1.0)], "times"),
        // Two messages of 1e308 bytes.
        (
            platform(&[(1.0, 0.0)]),
            vec![msg(&[0], 1e308), msg(&[0], 1e308)],
            "size",
        ),
    ];
    for (p, messages, name) in cases {
        let mut plan = one_step(messages);
        if name == "times" {
            plan.steps.push(Step {
                after: vec![0],
                messages: vec![msg(&[0], 1.0)],
                ..Default::default()
            });
        }
        match simulate(&p, &plan, &opts) {
            Err(SimError::BadParameter { name: n, .. }) => assert_eq!(n, name),
            other => panic!("{name}: {other:?}"),
        }
    }
}
