//! Property tests of the model's invariants on random small traffics.

use liquid_model::{validate, validate_all, Problems, Schedule, Traffic, TransferId};
use proptest::prelude::*;

/// Random traffics: up to 12 transfers over up to 8 links, paths of 1-4 distinct links.
fn traffic() -> impl Strategy<Value = Traffic> {
    prop::collection::vec(prop::collection::btree_set(0u8..8, 1..=4), 1..=12).prop_map(|paths| {
        let transfers: Vec<(String, Vec<String>)> = paths
            .into_iter()
            .enumerate()
            .map(|(i, p)| {
                (
                    format!("t{i}"),
                    p.into_iter().map(|l| format!("l{l}")).collect(),
                )
            })
            .collect();
        Traffic::from_paths("random", &transfers).expect("generated traffic is valid")
    })
}

/// Random traffics with repeated transfers: up to 8 entries over up to 6 links, each
/// with a count of 1-3 (copies get virtual links, as a model's `count` does).
fn traffic_with_counts() -> impl Strategy<Value = Traffic> {
    prop::collection::vec(
        (prop::collection::btree_set(0u8..6, 1..=3), 1u64..=3),
        1..=8,
    )
    .prop_map(|entries| {
        let mut b = liquid_model::TrafficBuilder::new("counts");
        for (i, (p, count)) in entries.into_iter().enumerate() {
            let names: Vec<String> = p.into_iter().map(|l| format!("l{l}")).collect();
            let path: Vec<&str> = names.iter().map(String::as_str).collect();
            liquid_model::network::add_with_count(
                &mut b,
                &format!("t{i}"),
                None,
                None,
                &path,
                count,
                None,
                &format!("transfers[{i}]"),
            )
            .expect("generated traffic is valid");
        }
        b.build("transfers").expect("not empty")
    })
}

/// Each transfer's number of congesting transfers, pair by pair.
fn brute_force_degrees(t: &Traffic) -> Vec<u64> {
    let ids: Vec<TransferId> = t.transfer_ids().collect();
    ids.iter()
        .map(|&a| {
            let pa = &t.transfer(a).path;
            ids.iter()
                .filter(|&&b| b != a && t.transfer(b).path.iter().any(|l| pa.contains(l)))
                .count() as u64
        })
        .collect()
}

fn brute_force_edges(t: &Traffic) -> u64 {
    let ids: Vec<TransferId> = t.transfer_ids().collect();
    let mut edges = 0;
    for (i, &a) in ids.iter().enumerate() {
        for &b in &ids[i + 1..] {
            let pa = &t.transfer(a).path;
            if t.transfer(b).path.iter().any(|l| pa.contains(l)) {
                edges += 1;
            }
        }
    }
    edges
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn loads_duration_and_bottlenecks_match_brute_force(t in traffic()) {
        // Each link's load counted from the transfers' paths, not from the traffic's
        // per-link user lists.
        let loads: Vec<usize> = t
            .link_ids()
            .map(|l| t.transfer_ids().filter(|&x| t.transfer(x).path.contains(&l)).count())
            .collect();
        let d = *loads.iter().max().expect("a link");
        prop_assert_eq!(t.duration(), d);
        for l in t.link_ids() {
            prop_assert_eq!(t.load(l), loads[l.index()]);
        }
        let expected: Vec<_> = t.link_ids().filter(|l| loads[l.index()] == d).collect();
        prop_assert_eq!(t.bottlenecks(), expected);
    }

    #[test]
    fn conflict_edges_match_brute_force(t in traffic()) {
        prop_assert_eq!(t.conflict_stats().edges, brute_force_edges(&t));
    }

    #[test]
    fn conflict_degrees_match_brute_force(t in traffic()) {
        prop_assert_eq!(t.conflict_degrees(), brute_force_degrees(&t));
    }

    #[test]
    fn conflict_degrees_match_brute_force_with_counts(t in traffic_with_counts()) {
        prop_assert_eq!(t.conflict_degrees(), brute_force_degrees(&t));
        prop_assert_eq!(t.conflict_stats().edges, brute_force_edges(&t));
    }

    #[test]
    fn singleton_frames_are_valid_and_liquid_iff_duration_equals_size(t in traffic()) {
        let s = Schedule::new(t.transfer_ids().map(|x| vec![x]).collect());
        let r = validate(&t, &s).expect("one transfer per frame is always valid");
        prop_assert_eq!(r.length, t.len());
        prop_assert_eq!(r.liquid, t.len() == t.duration());
    }

    #[test]
    fn validation_rejects_a_frame_with_two_users_of_one_link(t in traffic()) {
        // Put the two first users of a link of load >= 2 together; everything else alone.
        if let Some(l) = t.link_ids().find(|&l| t.load(l) >= 2) {
            let (a, b) = (t.users(l)[0], t.users(l)[1]);
            let mut frames = vec![vec![a, b]];
            frames.extend(t.transfer_ids().filter(|&x| x != a && x != b).map(|x| vec![x]));
            prop_assert!(validate(&t, &Schedule::new(frames)).is_err());
        }
    }

    #[test]
    fn validate_all_accepts_what_validate_accepts_and_lists_its_error_first(
        t in traffic(),
        frames in prop::collection::vec(prop::collection::vec(0u32..14, 0..5), 0..8),
    ) {
        // Random frames of ids, some beyond the traffic, repeated, congesting, missing.
        let s = Schedule::new(
            frames.into_iter().map(|f| f.into_iter().map(TransferId).collect()).collect(),
        );
        let mut problems = Problems::new();
        let all = validate_all(&t, &s, &mut problems);
        match validate(&t, &s) {
            Ok(r) => {
                prop_assert_eq!(all, Some(r));
                prop_assert!(problems.is_empty());
            }
            Err(e) => {
                prop_assert_eq!(all, None);
                prop_assert_eq!(problems.lines().first().cloned(), Some(e.to_string()));
            }
        }
    }

    #[test]
    fn explicit_form_round_trips(t in traffic()) {
        let text = liquid_model::yaml::write_explicit(&t);
        let back = liquid_model::yaml::parse_model("round-trip", &text).expect("written models read back");
        prop_assert_eq!(liquid_model::yaml::write_explicit(&back), text);
        prop_assert_eq!(back.len(), t.len());
        prop_assert_eq!(back.duration(), t.duration());
    }
}

#[test]
fn scalars_that_yaml_would_misread_are_quoted() {
    for s in [
        "yes", "No", "null", "1", "1.5", "a b", "x: y", "[a]", "a,b", "", "~", "-a", "#c", "\"q\"",
    ] {
        let text = format!(
            "name: n\ntransfers:\n  - {{id: {}, path: [{}]}}\n",
            liquid_model::yaml::scalar(s),
            liquid_model::yaml::scalar("l")
        );
        if s.is_empty() {
            continue; // an empty id is rejected by the model, not by YAML
        }
        let t = liquid_model::yaml::parse_model("q", &text).expect("quoted scalar parses");
        assert_eq!(t.transfer_name(TransferId(0)), s);
    }
}

#[test]
fn locate_finds_nested_fields() {
    let text =
        "name: x\ntransfers:\n  - {id: a, path: [l1, l2]}\n  - id: b\n    path:\n      - l3\n";
    assert_eq!(
        liquid_model::yaml::locate(text, "transfers[0].path[1]"),
        Some((3, 24))
    );
    assert_eq!(
        liquid_model::yaml::locate(text, "transfers[1].path[0]"),
        Some((6, 9))
    );
    // An absent field falls back to its nearest enclosing node: the mapping on line 4
    // (the parser marks a block mapping's start inside its first entry, so only the line
    // is stable).
    assert_eq!(
        liquid_model::yaml::locate(text, "transfers[1].count").map(|p| p.0),
        Some(4)
    );
}

/// A path of 300 links, beyond what a byte counter holds: the incremental count switches
/// to wider counters and still matches brute force.
#[test]
fn conflict_degrees_with_a_path_longer_than_255_links_match_brute_force() {
    let mut paths = vec![(
        "long".to_string(),
        (0..300).map(|l| format!("l{l}")).collect::<Vec<_>>(),
    )];
    paths.extend((0..30).map(|i| {
        let links = vec![format!("l{}", 10 * i), format!("l{}", 10 * i + 3)];
        (format!("x{i}"), links)
    }));
    paths.extend((0..30).map(|i| (format!("y{i}"), vec![format!("l{}", 7 * i)])));
    let t = Traffic::from_paths("long", &paths).expect("valid");
    assert_eq!(t.conflict_degrees(), brute_force_degrees(&t));
}
