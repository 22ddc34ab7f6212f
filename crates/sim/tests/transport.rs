//! The transport's three effects, each against its closed form, and each off by default.

use liquid_sim::{
    simulate, simulate_with, Link, Message, Options, Plan, Platform, Step, Transport,
};

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

fn one_step(messages: Vec<(Vec<u32>, f64)>) -> Plan {
    Plan {
        steps: vec![Step {
            messages: messages
                .into_iter()
                .map(|(route, bytes)| Message {
                    route,
                    bytes,
                    transfer: None,
                })
                .collect(),
            ..Step::default()
        }],
    }
}

#[test]
fn a_window_bounds_a_flow_by_window_over_round_trip() {
    // 1 GB/s, 5 ms one way: the window of 131072 B allows 131072 / 0.01 = 13.1072 MB/s.
    let p = platform(&[(1e9, 0.005)]);
    let plan = one_step(vec![(vec![0], 1e6)]);
    let t = Transport {
        window_bytes: 131072.0,
        ..Transport::default()
    };
    let run = simulate_with(&p, &plan, &Options::default(), &t).expect("runs");
    assert!(
        close(run.makespan, 0.005 + 1e6 / 13.1072e6),
        "{}",
        run.makespan
    );
    // Off by default: the link's bandwidth.
    let run = simulate(&p, &plan, &Options::default()).expect("runs");
    assert!(close(run.makespan, 0.005 + 1e6 / 1e9), "{}", run.makespan);
    // Two windowed flows on a link slower than both bounds share it as before.
    let p = platform(&[(1e7, 0.005)]);
    let plan = one_step(vec![(vec![0], 1e6), (vec![0], 1e6)]);
    let run = simulate_with(&p, &plan, &Options::default(), &t).expect("runs");
    assert!(close(run.makespan, 0.005 + 2e6 / 1e7), "{}", run.makespan);
}

#[test]
fn a_rendezvous_costs_a_round_trip_from_the_eager_limit_on() {
    let p = platform(&[(1e9, 0.005)]);
    let t = Transport {
        eager_limit_bytes: Some(65536.0),
        ..Transport::default()
    };
    let small = simulate_with(
        &p,
        &one_step(vec![(vec![0], 65535.0)]),
        &Options::default(),
        &t,
    )
    .expect("runs");
    assert!(close(small.makespan, 0.005 + 65535.0 / 1e9));
    let large = simulate_with(
        &p,
        &one_step(vec![(vec![0], 65536.0)]),
        &Options::default(),
        &t,
    )
    .expect("runs");
    // The limit itself is a rendezvous (Open MPI's limit counts its header).
    assert!(close(large.makespan, 3.0 * 0.005 + 65536.0 / 1e9));
}

#[test]
fn a_rendezvous_sends_ob1_s_first_fragment_then_the_rest_after_the_round_trip() {
    // One link of 1 MB/s and 10 ms. A: 100 000 B, a rendezvous (first fragment 65 536 - 72
    // = 65 464 B, rest 34 536 B); B: 30 000 B, eager; both posted at 0.
    let p = platform(&[(1e6, 0.01)]);
    let t = Transport {
        eager_limit_bytes: Some(65536.0),
        ..Transport::default()
    };
    let plan = one_step(vec![(vec![0], 100_000.0), (vec![0], 30_000.0)]);
    let run = simulate_with(&p, &plan, &Options::default(), &t).expect("runs");
    let d = &run.delivered[0];
    // From 0.01 A's fragment and B share the link: B is in at 0.01 + 0.06 = 0.07; the
    // fragment's last 35 464 B go alone, in at 0.105464. The ACK and the rest's latency
    // take 0.02; the rest alone takes 0.034536: delivered at 0.16.
    assert!(close(d[1], 0.07), "{d:?}");
    assert!(close(d[0], 0.16), "{d:?}");
    // A fragment's round trip leaves the link to others: B (eager) does not wait for it.
    assert_eq!(t.first_fragment(100_000.0), 65_464.0);
    assert_eq!(t.first_fragment(30_000.0), 30_000.0);
}

#[test]
fn serial_overhead_is_paid_in_turn_by_each_sender() {
    // Sender A (link 0) posts three messages to separate links; B (link 1) one.
    let p = platform(&[
        (1e12, 0.0),
        (1e12, 0.0),
        (1e12, 0.001),
        (1e12, 0.001),
        (1e12, 0.001),
    ]);
    let plan = one_step(vec![
        (vec![0, 2], 0.0),
        (vec![0, 3], 0.0),
        (vec![0, 4], 0.0),
        (vec![1, 2], 0.0),
    ]);
    let t = Transport {
        serial_overhead_s: 0.0001,
        ..Transport::default()
    };
    let run = simulate_with(&p, &plan, &Options::default(), &t).expect("runs");
    let d = &run.delivered[0];
    assert!(
        close(d[0], 0.0011) && close(d[1], 0.0012) && close(d[2], 0.0013),
        "{d:?}"
    );
    assert!(close(d[3], 0.0011), "{d:?}");
    // The parallel overhead of Options pays once for all.
    let opts = Options {
        overhead: 0.0001,
        ..Options::default()
    };
    let run = simulate(&p, &plan, &opts).expect("runs");
    assert!(run.delivered[0].iter().all(|&x| close(x, 0.0011)));
}

#[test]
fn rtt_unfairness_shares_a_link_in_inverse_proportion_to_latency() {
    // Link 0 (1 MB/s, no latency) is shared by a flow of route latency 1 ms (link 1) and
    // one of 3 ms (link 2): rates 0.75 and 0.25 MB/s while both flow.
    let p = platform(&[(1e6, 0.0), (1e12, 0.001), (1e12, 0.003)]);
    let plan = one_step(vec![(vec![0, 1], 750.0), (vec![0, 2], 250.0)]);
    let t = Transport {
        rtt_unfair: true,
        ..Transport::default()
    };
    let run = simulate_with(&p, &plan, &Options::default(), &t).expect("runs");
    // Posted together, the 1 ms flow runs alone from 1 ms and is done at 1.75 ms.
    assert!(close(run.delivered[0][0], 0.00175), "{:?}", run.delivered);
    // Both in flight at once: the 3 ms flow posted at 0, the 1 ms flow at 2 ms.
    let p = platform(&[(1e6, 0.0), (1e12, 0.001), (1e12, 0.003)]);
    let plan = Plan {
        steps: vec![
            Step {
                messages: vec![Message {
                    route: vec![0, 2],
                    bytes: 2500.0,
                    transfer: None,
                }],
                ..Step::default()
            },
            Step {
                delay: 0.002,
                messages: vec![Message {
                    route: vec![0, 1],
                    bytes: 750.0,
                    transfer: None,
                }],
                ..Step::default()
            },
        ],
    };
    let run = simulate_with(&p, &plan, &Options::default(), &t).expect("runs");
    // Both flow from 3 ms: 0.75 MB/s for the 1 ms route, 0.25 for the 3 ms one; the
    // first's 750 B end at 4 ms; the second moved 250 B, then 2250 B alone: 6.25 ms.
    assert!(close(run.delivered[1][0], 0.004), "{:?}", run.delivered);
    assert!(close(run.delivered[0][0], 0.00625), "{:?}", run.delivered);
    let fair = simulate(&p, &plan, &Options::default()).expect("runs");
    assert!(close(fair.delivered[1][0], 0.0045), "{:?}", fair.delivered);
}

#[test]
fn bad_transports_are_refused() {
    let p = platform(&[(1e9, 0.0)]);
    let plan = one_step(vec![(vec![0], 1.0)]);
    for t in [
        Transport {
            window_bytes: -1.0,
            ..Transport::default()
        },
        Transport {
            eager_limit_bytes: Some(f64::NAN),
            ..Transport::default()
        },
        Transport {
            serial_overhead_s: f64::INFINITY,
            ..Transport::default()
        },
    ] {
        assert!(
            simulate_with(&p, &plan, &Options::default(), &t).is_err(),
            "{t:?}"
        );
    }
}
