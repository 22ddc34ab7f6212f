//! Tests of the whole model: hand-computed zero-load latencies, limits, monotonicity,
//! saturation and refusals.

use super::*;

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * a.abs().max(b.abs()).max(1e-300)
}

fn table_1() -> [MultiCluster; 2] {
    [
        MultiCluster::parse("8,12x1+16x2+4x3").expect("table 1"),
        MultiCluster::parse("4,8x3+3x4+5x5").expect("table 1"),
    ]
}

/// M = 2 flits, t_cn = 1, t_cs = 0.5 (α_net = 1, α_sw = 0, L_m·β = 0.5).
fn uneven_timing() -> Timing {
    Timing {
        flits: 2,
        flit_bytes: 1.0,
        bandwidth: 2.0,
        net_latency: 1.0,
        switch_latency: 0.0,
    }
}

#[test]
fn table_1_sizes_and_outgoing_probabilities() {
    let [a, b] = table_1();
    let ma = Model::new(&a, Timing::paper(32, 256.0)).expect("model");
    let mb = Model::new(&b, Timing::paper(64, 512.0)).expect("model");
    assert_eq!((ma.nodes(), mb.nodes()), (1120.0, 544.0));
    let z = ma.zero_load();
    assert_eq!(z.clusters.len(), 32);
    assert_eq!(
        [0, 12, 28].map(|i| (z.clusters[i].height, z.clusters[i].nodes)),
        [(1, 8.0), (2, 32.0), (3, 128.0)]
    );
    assert!(close(z.clusters[0].outgoing, 1112.0 / 1119.0, 1e-15));
    assert!(close(z.clusters[12].outgoing, 1088.0 / 1119.0, 1e-15));
    assert!(close(z.clusters[31].outgoing, 992.0 / 1119.0, 1e-15));
    let z = mb.zero_load();
    assert!(close(z.clusters[0].outgoing, 528.0 / 543.0, 1e-15));
    assert!(close(z.clusters[15].outgoing, 480.0 / 543.0, 1e-15));
}

#[test]
fn zero_load_of_a_small_system_by_hand() {
    // Clusters of 4 (4-port 1-tree) and 8 nodes (4-port 2-tree), ICN2 a 4-port 1-tree.
    // P_o = 8/11 and 4/11. Intra: a 1-tree journey has one stage, M·t_cn + t_cn = 3; in
    // the 2-tree, 2 links (1/7): 3, 4 links (6/7): M·t_cs + 2·t_cs + t_cn = 3. Inter:
    // h = 1, K = j + l + 1 stages, M·t_cs = 1 plus a tail of (j + l)/2 + 1; with one side
    // a 1-tree (j or l = 1) and the other 1 (1/7) or 2 (6/7): 1 + 2/7 + 2.5·6/7 = 24/7.
    // ℓ⁰ = 3/11·3 + 8/11·24/7 = 255/77, ℓ¹ = 7/11·3 + 4/11·24/7 = 243/77,
    // ℓ = 4/12·255/77 + 8/12·243/77 = 741/231.
    let s = MultiCluster::parse("4,1+2").expect("valid");
    assert_eq!(s.icn2_levels, 1);
    let model = Model::new(&s, uneven_timing()).expect("model");
    let z = model.zero_load();
    assert!(close(z.clusters[0].intra.total(), 3.0, 1e-12));
    assert!(close(z.clusters[1].intra.total(), 3.0, 1e-12));
    assert!(close(z.clusters[0].inter.total(), 24.0 / 7.0, 1e-12));
    assert!(close(z.clusters[1].inter.total(), 24.0 / 7.0, 1e-12));
    assert!(close(z.clusters[0].latency, 255.0 / 77.0, 1e-12));
    assert!(close(z.clusters[1].latency, 243.0 / 77.0, 1e-12));
    assert!(close(z.latency, 741.0 / 231.0, 1e-12));
    assert_eq!((z.source_wait, z.concentrator_wait), (0.0, 0.0));
    assert_eq!(z.busiest.1, 0.0);
}

#[test]
fn zero_load_is_m_flits_through_the_stages() {
    // With t_cn = t_cs = t (002's setting), a message crossing D links takes
    // (M + D - 1)·t without load: intra-cluster D averages d_avg(n_i), inter-cluster
    // D averages d_avg(n_i)/2 + 2·(d_avg(n_c)/2) + d_avg(n_v)/2.
    for system in table_1() {
        for timing in [Timing::paper(32, 256.0), Timing::paper(64, 512.0)] {
            let (t, m) = (timing.t_cs(), timing.flits as f64);
            assert_eq!(timing.t_cn(), t);
            let model = Model::new(&system, timing).expect("model");
            let d = |n: usize| eqs::mean_distance(system.ports, n);
            let c = system.cluster_count() as f64;
            let nodes: Vec<f64> = (0..system.cluster_count())
                .map(|i| system.cluster_nodes(i) as f64)
                .collect();
            let total: f64 = nodes.iter().sum();
            let mut expected = 0.0;
            for (i, &ni) in system.clusters.iter().enumerate() {
                let po = (total - nodes[i]) / (total - 1.0);
                let intra = (m + d(ni) - 1.0) * t;
                let others: f64 = system
                    .clusters
                    .iter()
                    .enumerate()
                    .filter(|&(v, _)| v != i)
                    .map(|(_, &nv)| d(nv) / 2.0)
                    .sum::<f64>()
                    / (c - 1.0);
                let inter = (m + d(ni) / 2.0 + d(system.icn2_levels) + others - 1.0) * t;
                expected += nodes[i] / total * ((1.0 - po) * intra + po * inter);
            }
            let z = model.zero_load();
            assert!(
                close(z.latency, expected, 1e-12),
                "{} vs {expected}",
                z.latency
            );
        }
    }
}

#[test]
fn light_load_tends_to_zero_load() {
    for system in table_1() {
        let model = Model::new(&system, Timing::paper(32, 256.0)).expect("model");
        let z = model.zero_load();
        let sat = model.saturation().rate;
        let mut previous_gap = f64::INFINITY;
        for scale in [1e-2, 1e-4, 1e-6, 1e-8] {
            let p = model.at(sat * scale).expect("below saturation");
            let gap = p.latency - z.latency;
            assert!(
                gap > 0.0 && gap < previous_gap,
                "{gap} after {previous_gap}"
            );
            assert!(p.source_wait > 0.0 && p.concentrator_wait > 0.0);
            previous_gap = gap;
        }
        assert!(previous_gap < 1e-6 * z.latency);
    }
}

#[test]
fn components_add_up_to_the_latency() {
    for system in table_1() {
        let model = Model::new(&system, Timing::paper(64, 512.0)).expect("model");
        let p = model
            .at(0.8 * model.saturation().rate)
            .expect("below saturation");
        let parts = p.source_wait + p.network + p.tail + p.concentrator_wait;
        assert!(close(p.latency, parts, 1e-12));
        let weighted: f64 = p
            .clusters
            .iter()
            .map(|c| c.nodes / model.nodes() * c.latency)
            .sum();
        assert!(close(p.latency, weighted, 1e-12));
        for c in &p.clusters {
            let eq35 = (1.0 - c.outgoing) * c.intra.total()
                + c.outgoing * (c.inter.total() + c.concentrator_wait);
            assert!(close(c.latency, eq35, 1e-12));
        }
    }
}

#[test]
fn latency_grows_with_the_load_below_saturation() {
    for system in table_1() {
        for timing in [Timing::paper(32, 256.0), Timing::paper(64, 512.0)] {
            let model = Model::new(&system, timing).expect("model");
            let sweep = model.sweep(0.999, 60).expect("sweep");
            assert_eq!(sweep.points.len(), 60);
            assert_eq!(sweep.points[0].rate, 0.0);
            for w in sweep.points.windows(2) {
                let (a, b) = (&w[0], &w[1]);
                assert!(b.rate > a.rate);
                assert!(b.latency > a.latency, "{} then {}", a.latency, b.latency);
                assert!(b.source_wait >= a.source_wait);
                assert!(b.network >= a.network);
                assert!(b.concentrator_wait >= a.concentrator_wait);
                assert_eq!(b.tail, a.tail);
                assert!(b.busiest.1 > a.busiest.1 && b.busiest.1 < 1.0);
            }
            // Latency blows up approaching saturation.
            let last = sweep.points.last().expect("points");
            assert!(last.latency > 2.0 * sweep.points[0].latency);
        }
    }
}

#[test]
fn saturation_is_where_a_utilisation_reaches_one() {
    for system in table_1() {
        let model = Model::new(&system, Timing::paper(32, 256.0)).expect("model");
        let sat = model.saturation();
        assert!(sat.rate > 0.0 && sat.rate.is_finite());
        let below = model.at(sat.rate * (1.0 - 1e-9)).expect("just below");
        assert_eq!(below.busiest.0, sat.queue);
        assert!(below.busiest.1 > 1.0 - 1e-6);
        match model.at(sat.rate * (1.0 + 1e-9)) {
            Err(LatencyError::Saturated {
                queue, utilisation, ..
            }) => {
                assert_eq!(queue, sat.queue);
                assert!(utilisation >= 1.0);
            }
            other => panic!("expected saturation, got {other:?}"),
        }
    }
}

#[test]
fn beyond_saturation_is_an_error_not_a_nan() {
    let [a, _] = table_1();
    let model = Model::new(&a, Timing::paper(32, 256.0)).expect("model");
    let sat = model.saturation().rate;
    for rate in [1.5 * sat, 10.0 * sat, 1.0, 1e100, f64::MAX] {
        let r = model.at(rate);
        assert!(
            matches!(r, Err(LatencyError::Saturated { utilisation, .. }) if utilisation >= 1.0),
            "{rate}: {r:?}"
        );
    }
    for rate in [-1e-6, f64::NAN, f64::INFINITY] {
        assert!(matches!(
            model.at(rate),
            Err(LatencyError::BadParameter { name, .. }) if name == "rate"
        ));
    }
    assert!(matches!(
        model.sweep(1.0, 10),
        Err(LatencyError::BadParameter { name, .. }) if name == "up to"
    ));
    assert!(matches!(
        model.sweep(0.5, 1),
        Err(LatencyError::BadParameter { name, .. }) if name == "points"
    ));
    let mut bad = Timing::paper(32, 256.0);
    bad.flit_bytes = -1.0;
    assert!(Model::new(&a, bad).is_err());
}

#[test]
fn one_cluster_has_no_inter_cluster_terms() {
    let s = MultiCluster::parse("8,3").expect("valid");
    let model = Model::new(&s, Timing::paper(32, 256.0)).expect("model");
    let sat = model.saturation();
    assert_eq!(sat.queue, Queue::IntraSource { cluster: 0 });
    let p = model.at(0.5 * sat.rate).expect("below saturation");
    assert!(p.latency.is_finite());
    assert_eq!(p.clusters[0].outgoing, 0.0);
    assert_eq!(p.concentrator_wait, 0.0);
    assert_eq!(p.clusters[0].inter, Journey::default());
    assert!(close(p.latency, p.clusters[0].intra.total(), 1e-12));
}

#[test]
fn per_node_source_queues_change_only_the_source_waits() {
    for system in table_1() {
        let timing = Timing::paper(32, 256.0);
        let printed = Model::new(&system, timing).expect("model");
        let per_node = printed.clone().with_source_queues(SourceQueues::PerNode);
        assert_eq!(per_node.source_queues(), SourceQueues::PerNode);
        // Same zero-load latency: only waiting times differ.
        assert!(close(
            printed.zero_load().latency,
            per_node.zero_load().latency,
            1e-12
        ));
        // One node's queue sees N_i times less traffic than the printed rate: it
        // saturates later, and at the printed model's half-saturation load the per-node
        // source waits are smaller while network and concentrator terms are identical.
        let (sp, sn) = (printed.saturation(), per_node.saturation());
        assert!(sn.rate > sp.rate, "{} vs {}", sn.rate, sp.rate);
        let rate = 0.5 * sp.rate;
        let (a, b) = (
            printed.at(rate).expect("below"),
            per_node.at(rate).expect("below"),
        );
        assert!(b.source_wait < a.source_wait);
        assert!(close(a.network, b.network, 1e-12));
        assert!(close(a.concentrator_wait, b.concentrator_wait, 1e-12));
        // The per-node intra-cluster queue's utilisation is (1 - P_o)·λ_g·S̄.
        let c = &b.clusters[0];
        let expected = (1.0 - c.outgoing) * rate * c.intra.network;
        let wait = rate * (1.0 - c.outgoing);
        let s = c.intra.network;
        let m_tcn = 32.0 * timing.t_cn();
        let by_hand =
            wait * s * s * (1.0 + (s - m_tcn).powi(2) / (s * s)) / (2.0 * (1.0 - expected));
        assert!(close(c.intra.source_wait, by_hand, 1e-9));
    }
}

/// Readings 16 and 17: the same at zero load; under load the concentrator with the
/// blocking downstream waits longer and saturates earlier, and one-way channel counts
/// double every channel rate (more blocking, earlier saturation); the printed options
/// are the model as before.
#[test]
fn concentrator_blocking_and_one_way_channels() {
    for sys in table_1() {
        let timing = Timing::paper(32, 256.0);
        let base = Model::new(&sys, timing)
            .expect("model")
            .with_source_queues(SourceQueues::PerNode);
        let blocking = base
            .clone()
            .with_concentrator(ConcentratorService::Blocking);
        let one_way = base.clone().with_channels(ChannelCount::OneWay);
        let z = base.zero_load().latency;
        assert!(close(blocking.zero_load().latency, z, 1e-12));
        assert!(close(one_way.zero_load().latency, z, 1e-12));
        let sat = base.saturation().rate;
        assert!(blocking.saturation().rate <= sat);
        assert!(one_way.saturation().rate <= sat);
        let rate = 0.5 * blocking.saturation().rate.min(one_way.saturation().rate);
        let p = base.at(rate).expect("below");
        let b = blocking.at(rate).expect("below");
        let o = one_way.at(rate).expect("below");
        assert!(b.concentrator_wait > p.concentrator_wait, "{b:?}");
        assert!(close(b.network, p.network, 1e-12));
        assert!(o.network > p.network && o.latency > p.latency);
        let printed = base
            .clone()
            .with_concentrator(ConcentratorService::Printed)
            .with_channels(ChannelCount::Printed);
        assert_eq!(printed.at(rate), base.at(rate));
    }
}

#[test]
fn a_sweep_of_more_points_than_the_cap_is_refused_before_it_allocates() {
    let [system, _] = table_1();
    let model = Model::new(&system, Timing::paper(32, 256.0)).expect("model");
    for points in [MAX_POINTS + 1, 100_000_000, usize::MAX] {
        match model.sweep(0.5, points) {
            Err(LatencyError::BadParameter { name, why }) => {
                assert_eq!(name, "points");
                assert!(why.contains(&MAX_POINTS.to_string()), "{why}");
            }
            other => panic!("{points} points: {other:?}"),
        }
    }
}
