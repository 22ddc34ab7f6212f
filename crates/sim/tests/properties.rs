//! Properties of the simulation on random platforms and plans.

use liquid_sim::maxmin::MaxMin;
use liquid_sim::{simulate, Link, Message, Options, Plan, Platform, Step};
use proptest::prelude::*;

fn platform_strategy() -> impl Strategy<Value = Vec<(f64, f64)>> {
    prop::collection::vec((1.0f64..100.0, prop_oneof![Just(0.0), 0.0f64..0.1]), 1..6)
}

fn route_strategy(links: usize) -> impl Strategy<Value = Vec<u32>> {
    prop::sample::subsequence((0..links as u32).collect::<Vec<_>>(), 1..=links).prop_shuffle()
}

fn plan_strategy(links: usize) -> impl Strategy<Value = Plan> {
    let message = (
        route_strategy(links),
        prop_oneof![Just(0.0), 0.0f64..1000.0],
    )
        .prop_map(|(route, bytes)| Message {
            route,
            bytes,
            transfer: None,
        });
    let step = (
        prop::collection::vec(message, 0..5),
        prop::collection::vec(any::<prop::sample::Index>(), 0..3),
        prop_oneof![Just(0.0), 0.0f64..0.5],
    );
    prop::collection::vec(step, 1..6).prop_map(|steps| Plan {
        steps: steps
            .into_iter()
            .enumerate()
            .map(|(s, (messages, deps, delay))| {
                let mut after: Vec<usize> = if s == 0 {
                    vec![]
                } else {
                    deps.iter().map(|d| d.index(s)).collect()
                };
                after.sort_unstable();
                after.dedup();
                Step {
                    after,
                    delay,
                    messages,
                    group: Some(s),
                }
            })
            .collect(),
    })
}

fn instance() -> impl Strategy<Value = (Platform, Plan, f64)> {
    platform_strategy().prop_flat_map(|links| {
        let n = links.len();
        let platform = Platform::new(
            links
                .into_iter()
                .enumerate()
                .map(|(i, (bandwidth, latency))| Link {
                    name: format!("l{i}"),
                    bandwidth,
                    latency,
                })
                .collect(),
        )
        .expect("valid");
        (
            Just(platform),
            plan_strategy(n),
            prop_oneof![Just(0.0), 0.0f64..0.01],
        )
    })
}

proptest! {
    #[test]
    fn makespan_is_at_least_every_links_bytes_over_its_bandwidth((platform, plan, overhead) in instance()) {
        let run = simulate(&platform, &plan, &Options { overhead, trace: false }).expect("runs");
        let mut bytes = vec![0.0; platform.links().len()];
        for m in plan.steps.iter().flat_map(|s| &s.messages) {
            for &l in &m.route {
                bytes[l as usize] += m.bytes;
            }
        }
        for (l, link) in platform.links().iter().enumerate() {
            let bound = bytes[l] / link.bandwidth;
            prop_assert!(run.makespan >= bound * (1.0 - 1e-9), "link {l}: {} < {bound}", run.makespan);
        }
    }

    #[test]
    fn no_message_beats_its_route_alone((platform, plan, overhead) in instance()) {
        let run = simulate(&platform, &plan, &Options { overhead, trace: false }).expect("runs");
        for (s, step) in plan.steps.iter().enumerate() {
            for &d in &step.after {
                prop_assert!(run.steps[s].start >= run.steps[d].end);
            }
            for (i, m) in step.messages.iter().enumerate() {
                let alone = run.steps[s].start + step.delay + overhead
                    + platform.route_latency(&m.route) + m.bytes / platform.route_bandwidth(&m.route);
                prop_assert!(run.delivered[s][i] >= alone * (1.0 - 1e-9) - 1e-12,
                    "step {s} message {i}: {} < {alone}", run.delivered[s][i]);
                prop_assert!(run.delivered[s][i] <= run.steps[s].end);
            }
        }
        let again = simulate(&platform, &plan, &Options { overhead, trace: false }).expect("runs");
        prop_assert_eq!(run, again);
    }

    #[test]
    fn max_min_rates_are_feasible_and_every_flow_has_a_bottleneck(
        caps in prop::collection::vec(1.0f64..100.0, 1..6),
        seeds in prop::collection::vec(prop::collection::vec(any::<bool>(), 6), 1..8),
    ) {
        let n = caps.len();
        let routes: Vec<Vec<u32>> = seeds
            .iter()
            .map(|bits| {
                let r: Vec<u32> = (0..n as u32).filter(|&l| bits[l as usize]).collect();
                if r.is_empty() { vec![0] } else { r }
            })
            .collect();
        let mut rates = Vec::new();
        MaxMin::new(n).solve(&caps, routes.iter().map(Vec::as_slice), &mut rates);
        let mut used = vec![0.0; n];
        for (f, r) in routes.iter().enumerate() {
            for &l in r {
                used[l as usize] += rates[f];
            }
        }
        for l in 0..n {
            prop_assert!(used[l] <= caps[l] * (1.0 + 1e-9));
        }
        // Max-min fairness: every flow crosses a saturated link on which no flow is faster.
        for (f, r) in routes.iter().enumerate() {
            let has_bottleneck = r.iter().any(|&l| {
                let l = l as usize;
                used[l] >= caps[l] * (1.0 - 1e-9)
                    && routes.iter().enumerate().all(|(g, q)| !q.contains(&(l as u32)) || rates[g] <= rates[f] * (1.0 + 1e-9))
            });
            prop_assert!(has_bottleneck, "flow {f} at {} has no bottleneck", rates[f]);
        }
    }
}

/// A random sequence of flows starting and ending, for the incremental sharing.
#[derive(Debug, Clone)]
struct Churn {
    capacity: Vec<f64>,
    routes: Vec<Vec<u32>>,
    weights: Option<Vec<f64>>,
    /// Batches of flows toggled (started if idle, ended if active), a solve after each.
    batches: Vec<Vec<usize>>,
}

fn churn_strategy() -> impl Strategy<Value = Churn> {
    // Small integer capacities and weights make ties between links common: the case where
    // keeping a flow that should move would show.
    (2usize..7, 1usize..12).prop_flat_map(|(links, flows)| {
        let capacity = prop::collection::vec(prop_oneof![1u8..5, Just(2u8)], links)
            .prop_map(|c| c.into_iter().map(f64::from).collect::<Vec<_>>());
        let route = prop::sample::subsequence((0..links as u32).collect::<Vec<_>>(), 0..=links)
            .prop_shuffle();
        let routes = prop::collection::vec(route, flows);
        let weights = prop_oneof![
            Just(None),
            prop::collection::vec(prop_oneof![Just(1.0), Just(0.5), 0.1f64..1.0], flows)
                .prop_map(Some),
        ];
        let batches = prop::collection::vec(prop::collection::vec(0..flows, 1..4), 1..20);
        (capacity, routes, weights, batches).prop_map(|(capacity, routes, weights, batches)| {
            Churn {
                capacity,
                routes,
                weights,
                batches,
            }
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// The incremental sharing (which re-solves only the flows at or above the level where
    /// the solution may change) gives, after every batch of starts and ends, the rates of
    /// a full re-solve of the active flows from scratch, up to round-off.
    #[test]
    fn incremental_sharing_matches_a_full_resolve(c in churn_strategy()) {
        use liquid_sim::sharing::Sharing;
        let mut starts = vec![0];
        let mut all = Vec::new();
        for r in &c.routes {
            all.extend_from_slice(r);
            starts.push(all.len());
        }
        let mut sharing = Sharing::new(c.capacity.clone(), all, starts, c.weights.clone());
        let mut active = vec![false; c.routes.len()];
        let mut full = MaxMin::new(c.capacity.len());
        let mut rates = Vec::new();
        for batch in &c.batches {
            for &f in batch {
                if active[f] {
                    sharing.remove(f);
                } else {
                    sharing.add(f);
                }
                active[f] = !active[f];
            }
            let changed = sharing.solve().to_vec();
            let on: Vec<usize> = (0..active.len()).filter(|&f| active[f]).collect();
            let weights: Option<Vec<f64>> =
                c.weights.as_ref().map(|w| on.iter().map(|&f| w[f]).collect());
            full.solve_weighted(
                &c.capacity,
                on.iter().map(|&f| c.routes[f].as_slice()),
                weights.as_deref(),
                &mut rates,
            );
            for (i, &f) in on.iter().enumerate() {
                let (got, want) = (sharing.rate(f), rates[i]);
                prop_assert!(
                    got == want || (got - want).abs() <= 1e-9 * want.abs(),
                    "flow {} after batch {:?}: incremental {} vs full {}", f, batch, got, want
                );
            }
            for &f in &changed {
                prop_assert!(active[f as usize], "flow {} reported changed but idle", f);
            }
        }
    }
}
