//! The simulator against hand-computed latencies, conservation, determinism.

use super::*;
use liquid_topology::multi_cluster::MultiCluster;

fn wiring(spec: &str) -> Wiring {
    MultiCluster::parse(spec)
        .expect("valid")
        .wiring()
        .expect("wires")
}

fn quiet(messages: u64, rate: f64, timing: Timing) -> Config {
    Config {
        messages,
        warmup: 0,
        drain: 0,
        ..Config::paper(timing, rate)
    }
}

fn run(w: &Wiring, cfg: &Config) -> Run {
    Simulator::new(w).run(cfg, &mut |_| true).expect("runs")
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 2e-5 * b.abs().max(1.0)
}

/// At (nearly) zero load a message on a route of `D` channels, all with flit time `t`,
/// takes `D·t + (M−1)·t`: the header through the channels, then the other flits one
/// flit time apart. Two clusters of one 4-port switch: intra-cluster routes have 2
/// channels, inter-cluster ones 6 (node, ECN1 switch, concentrator, ICN2 switch,
/// dispatcher, ECN1 switch, node).
#[test]
fn zero_load_latency_is_the_pipeline_by_hand() {
    let w = wiring("4,2x1");
    let timing = Timing::paper(32, 256.0);
    let t = timing.t_cn();
    assert!(close(t, timing.t_cs()));
    let r = run(&w, &quiet(2_000, 1e-8, timing));
    assert!(r.completed);
    let m = 32.0;
    assert_eq!(r.hops[2] + r.hops[6], 2_000, "{:?} {:?}", r.hops, r.overall);
    assert_eq!(r.overall.inter, r.hops[6]);
    let expected =
        (r.hops[2] as f64 * (2.0 + m - 1.0) + r.hops[6] as f64 * (6.0 + m - 1.0)) * t / 2_000.0;
    assert!(
        close(r.overall.latency, expected),
        "{} vs {expected}",
        r.overall.latency
    );
    assert!(r.overall.source_wait.abs() < 1e-6);
    assert!(r.overall.concentrator_wait.abs() < 1e-6);
    // Every flit of every message crossed every channel of its route once.
    assert_eq!(r.in_flight, 0);
    assert_eq!(r.flit_moves, 32 * (2 * r.hops[2] + 6 * r.hops[6]));
}

/// Store-and-forward concentrators: each of the three worms takes `(2 + M − 1)·t`.
#[test]
fn zero_load_store_and_forward_adds_a_message_time_per_concentrator() {
    let w = wiring("4,2x1");
    let timing = Timing::paper(16, 256.0);
    let t = timing.t_cs();
    let cfg = Config {
        forwarding: Forwarding::StoreAndForward,
        ..quiet(1_000, 1e-8, timing)
    };
    let r = run(&w, &cfg);
    let m = 16.0;
    let expected =
        (r.hops[2] as f64 * (m + 1.0) + r.hops[6] as f64 * 3.0 * (m + 1.0)) * t / 1_000.0;
    assert!(
        close(r.overall.latency, expected),
        "{} vs {expected}",
        r.overall.latency
    );
}

/// With node channels slower than switch channels (t_cn > t_cs), the first channel
/// paces the flits: `Σ t_h + (M−1)·t_cn`. One cluster, a 4-port 2-tree: routes of 2
/// channels (t_cn, t_cn) and 4 (t_cn, t_cs, t_cs, t_cn).
#[test]
fn zero_load_with_unequal_channel_times() {
    let w = wiring("4,2");
    let timing = Timing {
        net_latency: 0.2,
        ..Timing::paper(8, 256.0)
    };
    let (a, b) = (timing.t_cn(), timing.t_cs());
    assert!(a > b);
    let r = run(&w, &quiet(1_000, 1e-8, timing));
    assert_eq!(r.hops[2] + r.hops[4], 1_000);
    let expected = (r.hops[2] as f64 * (2.0 * a + 7.0 * a)
        + r.hops[4] as f64 * (2.0 * a + 2.0 * b + 7.0 * a))
        / 1_000.0;
    assert!(
        close(r.overall.latency, expected),
        "{} vs {expected}",
        r.overall.latency
    );
}

/// Under load: every counted message is delivered, generated = delivered + in flight,
/// the components add up, and the overall mean is the clusters' weighted mean.
#[test]
fn conservation_under_load() {
    let w = wiring("4,1+2+1");
    let timing = Timing::paper(8, 256.0);
    let cfg = Config {
        messages: 5_000,
        warmup: 1_000,
        drain: 1_000,
        ..Config::paper(timing, 0.02)
    };
    let r = run(&w, &cfg);
    assert!(r.completed);
    assert_eq!(r.overall.messages, 5_000);
    assert_eq!(r.hops.iter().sum::<u64>(), 5_000);
    assert_eq!(r.generated, r.delivered + r.in_flight);
    assert!(r.delivered >= 6_000 && r.generated <= 7_000);
    assert!(close(
        r.overall.latency,
        r.overall.source_wait + r.overall.network
    ));
    let weighted: f64 = r
        .clusters
        .iter()
        .map(|c| c.latency * c.messages as f64)
        .sum::<f64>()
        / 5_000.0;
    assert!(close(weighted, r.overall.latency));
    assert_eq!(r.clusters.iter().map(|c| c.messages).sum::<u64>(), 5_000);
    // Contention shows: above the zero-load latency, with waiting at the queues.
    assert!(r.overall.source_wait > 0.0 && r.overall.concentrator_wait > 0.0);
}

#[test]
fn latency_grows_with_load() {
    let w = wiring("4,2x2");
    let timing = Timing::paper(8, 256.0);
    let at = |rate| {
        run(
            &w,
            &Config {
                messages: 4_000,
                warmup: 500,
                drain: 500,
                ..Config::paper(timing, rate)
            },
        )
        .overall
        .latency
    };
    let (low, mid, high) = (at(0.001), at(0.01), at(0.02));
    assert!(low < mid && mid < high, "{low} {mid} {high}");
}

#[test]
fn deterministic_for_a_seed_and_different_across_seeds() {
    let w = wiring("4,1+2");
    let cfg = Config {
        messages: 3_000,
        warmup: 300,
        drain: 300,
        ..Config::paper(Timing::paper(8, 256.0), 0.02)
    };
    let sim = Simulator::new(&w);
    let a = sim.run(&cfg, &mut |_| true).expect("runs");
    let b = sim.run(&cfg, &mut |_| true).expect("runs");
    assert_eq!(a, b);
    let s = sim.replicate(&cfg, 2, &mut |_, _| true).expect("runs");
    assert_eq!(s.runs[0], a);
    assert_eq!(s.runs[1].seed, cfg.seed + 1);
    assert_ne!(s.runs[0].overall.latency, s.runs[1].overall.latency);
    assert!(s.overall.latency.half_width.expect("two runs") > 0.0);
}

#[test]
fn a_stop_request_ends_the_run_incomplete() {
    let w = wiring("4,1+2");
    let cfg = Config::paper(Timing::paper(8, 256.0), 0.01);
    let r = Simulator::new(&w).run(&cfg, &mut |_| false).expect("runs");
    assert!(!r.completed);
    assert!(r.overall.messages < 100_000);
}

#[test]
fn bad_parameters_are_named() {
    let w = wiring("4,1+2");
    let sim = Simulator::new(&w);
    let base = Config::paper(Timing::paper(8, 256.0), 0.01);
    for (cfg, field) in [
        (
            Config {
                rate: 0.0,
                ..base.clone()
            },
            "rate",
        ),
        (
            Config {
                rate: f64::NAN,
                ..base.clone()
            },
            "rate",
        ),
        (
            Config {
                messages: 0,
                ..base.clone()
            },
            "messages",
        ),
        (
            Config {
                timing: Timing {
                    bandwidth: -1.0,
                    ..base.timing
                },
                ..base.clone()
            },
            "bandwidth",
        ),
    ] {
        match sim.run(&cfg, &mut |_| true) {
            Err(FlitError::BadParameter { name, .. }) => assert_eq!(name, field),
            other => panic!("{field}: {other:?}"),
        }
    }
    assert!(sim.replicate(&base, 0, &mut |_, _| true).is_err());
}

/// A liquid schedule run frame by frame meets no contention: on one 4-port 2-tree the
/// shift frames (i → i + s mod 8) each take `(4 + M − 1)·t` (every frame has a route of
/// 4 channels), so the makespan is 7 of them; all at once, the same messages queue at
/// the sources (7 messages of `M` flits through one injection channel each).
#[test]
fn a_liquid_schedule_in_frames_runs_without_contention() {
    let w = wiring("4,2");
    let timing = Timing::paper(8, 256.0);
    let t = timing.t_cn();
    let frames: Vec<Vec<(usize, usize)>> = (1..8)
        .map(|s| (0..8).map(|i| (i, (i + s) % 8)).collect())
        .collect();
    let sim = Simulator::new(&w);
    let cfg = Config::paper(timing, 1.0);
    let r = sim
        .run_plan(&cfg, &frames, PlanMode::Frames, &mut |_| true)
        .expect("runs");
    assert!(r.completed);
    assert_eq!((r.overall.messages, r.in_flight), (56, 0));
    assert!(
        close(r.last_delivery, 7.0 * (4.0 + 7.0) * t),
        "{}",
        r.last_delivery
    );
    let zero_load = (r.hops[2] as f64 * 9.0 + r.hops[4] as f64 * 11.0) * t / 56.0;
    assert!(close(r.overall.latency, zero_load));
    assert!(r.overall.source_wait.abs() < 1e-9);
    let all = sim
        .run_plan(&cfg, &frames, PlanMode::AllAtOnce, &mut |_| true)
        .expect("runs");
    assert_eq!(all.overall.messages, 56);
    assert!(all.last_delivery >= 7.0 * 8.0 * t);
    assert!(all.overall.source_wait > 0.0);
    // Bad plans are refused.
    for bad in [vec![vec![(0, 0)]], vec![vec![(0, 8)]], vec![vec![]]] {
        assert!(sim
            .run_plan(&cfg, &bad, PlanMode::Frames, &mut |_| true)
            .is_err());
    }
}

/// The concentrator/dispatcher waits split into queueing and blocking: at zero load the
/// service of each queue is the tail leaving the first channel, `M` flit times after the
/// header took it, with no queueing and no blocking; under load the two parts add up to
/// the reported concentrator wait, and blocking appears.
#[test]
fn concentrator_waits_split_into_queueing_and_blocking() {
    let w = wiring("4,2x1");
    let timing = Timing::paper(32, 256.0);
    let t = timing.t_cs();
    let r = run(&w, &quiet(2_000, 1e-8, timing));
    for q in [r.concentrators, r.dispatchers] {
        assert_eq!(q.messages, r.overall.inter);
        assert!(
            q.queueing.abs() < 1e-9 && q.first_channel.abs() < 1e-9,
            "{q:?}"
        );
        assert!(q.downstream.abs() < 1e-3, "{q:?}");
        assert!(close(q.service, 32.0 * t), "{q:?} vs {}", 32.0 * t);
        assert!(q.service_sd < 1e-3, "{q:?}");
    }
    let loaded = run(
        &MultiCluster::parse("4,3x1")
            .expect("valid")
            .wiring()
            .expect("wires"),
        &quiet(20_000, 0.012, timing),
    );
    let (c, d) = (loaded.concentrators, loaded.dispatchers);
    let waits = c.messages as f64 * (c.queueing + c.first_channel)
        + d.messages as f64 * (d.queueing + d.first_channel);
    let reported = loaded.overall.concentrator_wait * loaded.overall.messages as f64;
    assert!(close(waits, reported), "{waits} vs {reported}");
    assert!(c.queueing > 0.0 && c.service > 32.0 * t, "{c:?}");
    // The service is the first channel's wait, M flit times and the downstream blocking.
    assert!(
        close(c.service, c.first_channel + 32.0 * t + c.downstream),
        "{c:?}"
    );
    assert!(c.downstream > 0.0, "{c:?}");
}

/// Beyond saturation the source queues grow without bound: the run stops once its
/// messages in flight reach the memory bound, and says why.
#[test]
fn a_run_beyond_saturation_stops_at_the_memory_bound() {
    let w = wiring("4,2x1");
    let timing = Timing::paper(32, 256.0);
    let sim = Simulator::new(&w).with_in_flight_bytes(1000 * (4 * 8 + 8 * 32 + 96));
    let r = sim
        .run(&quiet(1_000_000, 10.0, timing), &mut |_| true)
        .expect("runs");
    assert!(!r.completed && r.saturated, "{r:?}");
    assert!(r.in_flight <= 1100 && r.in_flight > 100, "{}", r.in_flight);
    // Below saturation the bound is never reached.
    let r = sim
        .run(&quiet(2_000, 1e-4, timing), &mut |_| true)
        .expect("runs");
    assert!(r.completed && !r.saturated);
}

#[test]
fn replications_beyond_the_cap_are_refused_before_anything_is_allocated() {
    let w = wiring("4,2x1");
    let cfg = quiet(10, 1e-4, Timing::paper(32, 256.0));
    for r in [0, MAX_REPLICATIONS + 1, 4_294_967_296, usize::MAX] {
        let e = Simulator::new(&w)
            .replicate(&cfg, r, &mut |_, _| true)
            .expect_err("refused");
        assert!(
            matches!(&e, FlitError::BadParameter { name, .. } if name == "replications"),
            "{e}"
        );
    }
}

#[test]
fn a_rate_whose_mean_gap_overflows_is_refused() {
    let cfg = quiet(10, 1e-320, Timing::paper(32, 256.0));
    let e = cfg.check().expect_err("refused");
    assert!(
        matches!(&e, FlitError::BadParameter { name, .. } if name == "rate"),
        "{e}"
    );
}
