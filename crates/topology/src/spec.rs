//! Short textual specs of generated models, accepted by the CLI wherever a model file is:
//!
//! | spec | model |
//! | --- | --- |
//! | `t1:4,4,4,4,0,0,2,1` | Swiss-T1 all-to-all of an allocation vector ([`crate::t1`]) |
//! | `fat-tree:M,N` | all-to-all over an M-port N-tree ([`crate::fat_tree`]) |
//! | `ring:S,K` | all-to-all over a ring of S switches, K hosts each ([`crate::grid`]) |
//! | `mesh:AxB[,K]` | all-to-all over an A×B mesh, K hosts per switch (default 1) |
//! | `torus:AxB[,K]` | all-to-all over an A×B torus, K hosts per switch (default 1) |
//! | `paper-fig1:` | the worked example of the papers ([`crate::paper`]) |
//! | `two-clusters:N1,N2[,BB[,LAT[,NODE]]]` | all-to-all over two crossbar clusters joined by a backbone of BB MB/s (default 1250) and LAT s one way (default 0.005), nodes of NODE MB/s (default 125) ([`crate::two_clusters`]) |
//! | `two-clusters:SPEC` | the same with both clusters a copy of the topology SPEC (`two-clusters:fat-tree:4,2`), 001's defaults |
//! | `dragonfly:A,P,H[,G]` | all-to-all over a dragonfly: G groups (default A·H+1) of A routers with P hosts and H global links each; A·P·G hosts, A·G routers ([`crate::dragonfly`]) |
//! | `dragonfly-plus:L,S,P,H[,G]` | all-to-all over a Dragonfly+: G groups (default S·H+1) of L leaves with P hosts and S spines with H global links; L·P·G hosts, (L+S)·G switches ([`crate::dragonfly`]) |
//! | `rail:S,G[,K][,pxn]` | all-to-all over a rail-optimised fat-tree of S servers of G GPUs, K spines (default S), optionally PXN; S·G hosts, G+K+S·(G+1) switches ([`crate::rail`]) |
//! | `hyperx:S1xS2..,T` | all-to-all over a HyperX of routers S1×S2×…, T hosts each; T·ΠSi hosts, ΠSi routers ([`crate::hyperx`]) |
//! | `multi-cluster:M,LIST[,NC]` | all-to-all over a multi-cluster system of 002, e.g. `multi-cluster:8,12x1+16x2+4x3` ([`crate::multi_cluster`]) |

use crate::multi_cluster::MultiCluster;
use crate::network_spec::{self, fat_tree, number, real, within};
use crate::two_clusters::TwoClusters;
use crate::{Generated, TopologyError};

pub use crate::network_spec::parse_dims;
use liquid_model::Traffic;

/// The spec prefixes, with the colon.
pub const PREFIXES: [&str; 12] = [
    "t1:",
    "fat-tree:",
    "ring:",
    "mesh:",
    "torus:",
    "paper-fig1:",
    "two-clusters:",
    "multi-cluster:",
    "dragonfly:",
    "dragonfly-plus:",
    "rail:",
    "hyperx:",
];

/// Whether `arg` is meant as a spec (it starts with one of [`PREFIXES`]).
pub fn is_spec(arg: &str) -> bool {
    PREFIXES.iter().any(|p| arg.starts_with(p))
}

/// When `arg` reads as a spec whose generator is unknown (`name:rest`, `name` at least two
/// characters and not a generator of [`PREFIXES`], nothing that reads as a path: no `/`,
/// `\\`, a `.` before the colon, a `.yaml`/`.yml` end): what to tell the user, with the
/// closest generator's name when it is close (`fattree:4,3` → `fat-tree`). For the case
/// where `arg` is also no file: callers check that first.
pub fn unknown_generator(arg: &str) -> Option<String> {
    let names = PREFIXES.map(|p| p.trim_end_matches(':'));
    // A generator's name alone (`fat-tree`): its parameters are missing.
    if let Some(n) = names.iter().find(|n| n.eq_ignore_ascii_case(arg)) {
        // A generator without parameters (`paper-fig1:`) needs its colon only.
        let takes_none = PREFIXES
            .iter()
            .any(|p| p.trim_end_matches(':') == *n && parse(p).is_ok_and(|g| g.is_some()));
        return Some(if takes_none {
            format!("{arg:?} names a generator: write it with its colon, {n}:")
        } else {
            format!(
                "{arg:?} names a generator without its parameters: give them after a colon, \
                 {n}:... (`liquid generate --help` lists each generator's, with an example)"
            )
        });
    }
    let (name, rest) = arg.split_once(':')?;
    let pathlike = |x: &str| x.contains(['/', '\\']) || x.ends_with(".yaml") || x.ends_with(".yml");
    if name.len() < 2 || name.contains('.') || pathlike(name) || pathlike(rest) || is_spec(arg) {
        return None;
    }
    let closest = names
        .iter()
        .map(|n| (strsim::levenshtein(&name.to_lowercase(), n), *n))
        .min()
        .filter(|&(d, n)| d <= 2.max(n.len() / 3))
        .map(|(_, n)| format!("did you mean {n}:{rest}? "))
        .unwrap_or_default();
    Some(format!(
        "{name:?} is not a generator: {closest}The generators are {} (`liquid generate --help`)",
        names.join(", ")
    ))
}

/// The traffic a spec names: `parse(arg)?.expand()`, with the same errors (an expansion
/// error as [`TopologyError::Network`]), but fat-trees and multi-cluster systems are
/// built directly ([`FatTree::traffic`](crate::fat_tree::FatTree::traffic), [`MultiCluster::traffic`]) without their network
/// form, which at 1024 nodes holds a million named routes. `Ok(None)` when `arg` is not a spec.
pub fn traffic(arg: &str) -> Result<Option<Traffic>, TopologyError> {
    if let Some(rest) = arg.strip_prefix("fat-tree:") {
        let parts: Vec<&str> = rest.split(',').collect();
        let tree = fat_tree(arg, &parts)?;
        return tree.traffic().map(Some).map_err(|e| within(arg, e));
    }
    if let Some(rest) = arg.strip_prefix("multi-cluster:") {
        return MultiCluster::parse(rest)
            .and_then(|m| m.traffic())
            .map(Some)
            .map_err(|e| within(arg, e));
    }
    if let Some(t) = network_spec::machine_traffic(arg)? {
        return Ok(Some(t));
    }
    match parse(arg)? {
        Some(g) => Ok(Some(g.expand()?)),
        None => Ok(None),
    }
}

/// Builds the model a spec names. `Ok(None)` when `arg` is not a spec (no known prefix).
pub fn parse(arg: &str) -> Result<Option<Generated>, TopologyError> {
    let Some((kind, rest)) = arg.split_once(':') else {
        return Ok(None);
    };
    if !is_spec(arg) {
        return Ok(None);
    }
    if kind != "two-clusters" {
        return network_spec::parse(arg);
    }
    let wrong = |why: &str| TopologyError::BadSpec {
        spec: arg.to_string(),
        why: why.to_string(),
    };
    let within = |e: TopologyError| within(arg, e);
    let parts: Vec<&str> = rest.split(',').collect();
    let g = match kind {
        "two-clusters" if rest.contains(':') => TwoClusters::shaped(rest)
            .and_then(|c| c.generated())
            .map_err(within)?,
        "two-clusters" => {
            if !(2..=5).contains(&parts.len()) {
                return Err(wrong(
                    "give the two cluster sizes, then optionally the backbone's MB/s, its \
                     latency in seconds and the nodes' MB/s, like two-clusters:20,40,1250,0.005,125",
                ));
            }
            let mut c =
                TwoClusters::new(number(arg, "n1", parts[0])?, number(arg, "n2", parts[1])?);
            if let Some(v) = parts.get(2) {
                c.backbone_bandwidth = real(arg, "backbone bandwidth", v)?;
            }
            if let Some(v) = parts.get(3) {
                c.backbone_latency = real(arg, "backbone latency", v)?;
            }
            if let Some(v) = parts.get(4) {
                c.node_bandwidth = real(arg, "node bandwidth", v)?;
            }
            c.generated().map_err(within)?
        }
        _ => return Ok(None),
    };
    Ok(Some(g))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_generator_is_named_with_the_closest_one() {
        let why = unknown_generator("fattree:4,3").expect("unknown");
        assert!(
            why.starts_with("\"fattree\" is not a generator: did you mean fat-tree:4,3? The generators are t1, fat-tree,"),
            "{why}"
        );
        let why = unknown_generator("Dragonfly-Plus:4,4,4,4").expect("unknown");
        assert!(
            why.contains("did you mean dragonfly-plus:4,4,4,4?"),
            "{why}"
        );
        let why = unknown_generator("foo:3").expect("unknown");
        assert!(!why.contains("did you mean"), "{why}");
        // A generator's name without its parameters.
        let why = unknown_generator("fat-tree").expect("a generator's name");
        assert!(
            why.contains(
                "names a generator without its parameters: give them after a colon, fat-tree:..."
            ),
            "{why}"
        );
        // One without parameters needs its colon only.
        let why = unknown_generator("paper-fig1").expect("a generator's name");
        assert_eq!(
            why,
            "\"paper-fig1\" names a generator: write it with its colon, paper-fig1:"
        );
        assert!(unknown_generator("fat-tree.yaml").is_none());
        assert!(unknown_generator("fattree").is_none());
        // Specs, and what reads as a path, are not unknown generators.
        for arg in [
            "fat-tree:4,3",
            "ring:6,2",
            "models/a:b.yaml",
            "a.yaml",
            "C:\\m.yaml",
            ":x",
        ] {
            assert_eq!(unknown_generator(arg), None, "{arg}");
        }
    }

    #[test]
    fn specs_parse() {
        let g = parse("t1:4,4,4,4,0,0,2,1").expect("ok").expect("a spec");
        assert_eq!(g.expand().expect("expands").len(), 19 * 19);
        let g = parse("fat-tree:4,2").expect("ok").expect("a spec");
        assert_eq!(g.network.hosts.len(), 8);
        let g = parse("ring:5,2").expect("ok").expect("a spec");
        assert_eq!(g.network.hosts.len(), 10);
        let g = parse("torus:3x4,2").expect("ok").expect("a spec");
        assert_eq!(g.network.hosts.len(), 24);
        let g = parse("mesh:3x3").expect("ok").expect("a spec");
        assert_eq!(g.network.hosts.len(), 9);
        assert!(parse("paper-fig1:").expect("ok").is_some());
        let g = parse("two-clusters:3,7").expect("ok").expect("a spec");
        assert_eq!(g.network.hosts.len(), 10);
        let g = parse("two-clusters:2,4,100,0.01,10")
            .expect("ok")
            .expect("a spec");
        let bb = g
            .network
            .links
            .iter()
            .position(|l| l.id == "A>B")
            .expect("backbone");
        assert_eq!(g.link_params[bb].bandwidth, Some(100.0));
        assert_eq!(g.link_params[bb].latency, Some(0.01));
        assert_eq!(g.link_params[0].bandwidth, Some(10.0));
        let g = parse("two-clusters:fat-tree:4,2")
            .expect("ok")
            .expect("a spec");
        assert_eq!(g.network.hosts.len(), 16);
        assert_eq!(g.network.switches.len(), 2 + 2 * 6);
        let g = parse("multi-cluster:4,1+2").expect("ok").expect("a spec");
        assert_eq!(g.network.hosts.len(), 12);
        assert!(parse("models/paper-fig1.yaml").expect("ok").is_none());
        assert!(parse("C:/x.yaml").expect("ok").is_none());
    }

    #[test]
    fn traffic_of_a_spec_is_its_expansion() {
        for s in [
            "fat-tree:4,2",
            "ring:5,2",
            "paper-fig1:",
            "multi-cluster:4,1+2",
            "multi-cluster:4,2+1,2",
            "dragonfly:2,2,1",
            "dragonfly:4,1,2,5",
            "dragonfly-plus:2,2,1,1",
            "rail:3,2",
            "rail:3,2,1,pxn",
            "hyperx:3x2,2",
        ] {
            let want = parse(s)
                .expect("ok")
                .expect("a spec")
                .expand()
                .expect("expands");
            let got = traffic(s).expect("ok").expect("a spec");
            assert_eq!(got.transfers(), want.transfers(), "{s}");
            assert_eq!(got.num_links(), want.num_links(), "{s}");
        }
        assert!(traffic("models/x.yaml").expect("ok").is_none());
    }

    #[test]
    fn bad_specs_are_errors() {
        for s in [
            "t1:4,4",
            "t1:9,0,0,0,0,0,0,0",
            "t1:0,0,0,0,0,0,0,0",
            "fat-tree:3,2",
            "fat-tree:4",
            "ring:x,1",
            "torus:4,1",
            "mesh:0x3",
            "paper-fig1:x",
            "two-clusters:3",
            "two-clusters:0,3",
            "two-clusters:3,3,fast",
            "two-clusters:3,3,10,-1",
            "two-clusters:3,3,10,0.1,0",
            "two-clusters:fat-tree:3,2",
            "two-clusters:two-clusters:2,2",
            "multi-cluster:5,1",
            "multi-cluster:4",
            "multi-cluster:4,2x20",
            "dragonfly:4,2",
            "dragonfly:4,2,2,4",
            "dragonfly:4,2,2,10",
            "dragonfly:4,x,2",
            "dragonfly:16,8,8",
            "dragonfly-plus:4,4,4",
            "dragonfly-plus:4,0,4,4",
            "rail:32",
            "rail:32,8,33",
            "rail:32,8,4,pxx",
            "hyperx:4x1,2",
            "hyperx:4x4",
            "hyperx:4x4,0",
        ] {
            let e = parse(s).expect_err(s);
            assert!(e.to_string().contains(s), "{e}");
            let e = traffic(s).expect_err(s);
            assert_eq!(e, parse(s).expect_err(s), "{s}");
        }
    }
}
