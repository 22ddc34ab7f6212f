//! The worked example of papers 000/003/004 (Fig. 1): five transmitting processors
//! T1..T5 and five receiving processors R1..R5 on two crossbar switches S1 and S2.
//! T1..T3 and R1..R3 sit on S1, T4, T5, R4, R5 on S2; l11 (S2 -> S1) and l12 (S1 -> S2)
//! join the switches. The all-to-all from the Ti to the Rj is 25 transfers, Λ = 6.

use liquid_model::network::{NetLink, Network, Pattern, Route, Routing};

use crate::Generated;

/// The 2-switch network of Fig. 1 with its all-to-all, explicit routes, link names
/// `l1..l12` as in the papers (the same traffic as `models/paper-fig1.yaml`).
pub fn fig1() -> Generated {
    let t: Vec<String> = (1..=5).map(|i| format!("T{i}")).collect();
    let r: Vec<String> = (1..=5).map(|i| format!("R{i}")).collect();
    let switch_of = |i: usize| if i <= 3 { "S1" } else { "S2" };
    let mut links = Vec::new();
    for i in 1..=5 {
        links.push(NetLink {
            id: format!("l{i}"),
            from: t[i - 1].clone(),
            to: switch_of(i).into(),
        });
    }
    for j in 1..=5 {
        links.push(NetLink {
            id: format!("l{}", 5 + j),
            from: switch_of(j).into(),
            to: r[j - 1].clone(),
        });
    }
    links.push(NetLink {
        id: "l11".into(),
        from: "S2".into(),
        to: "S1".into(),
    });
    links.push(NetLink {
        id: "l12".into(),
        from: "S1".into(),
        to: "S2".into(),
    });
    let mut routes = Vec::new();
    for i in 1..=5 {
        for j in 1..=5 {
            let mut path = vec![format!("l{i}")];
            match (i <= 3, j <= 3) {
                (true, false) => path.push("l12".into()),
                (false, true) => path.push("l11".into()),
                _ => {}
            }
            path.push(format!("l{}", 5 + j));
            routes.push(Route {
                from: t[i - 1].clone(),
                to: r[j - 1].clone(),
                path,
            });
        }
    }
    let mut hosts = t.clone();
    hosts.extend(r.iter().cloned());
    Generated {
        name: "paper-fig1".into(),
        description: "All-to-all over the 2-switch network of Fig. 1 (papers 000, 003, 004)".into(),
        link_throughput: Some(100.0),
        network: Network {
            hosts,
            switches: vec!["S1".into(), "S2".into()],
            links,
            routing: Routing::Explicit,
            routes,
        },
        link_params: Vec::new(),
        ports: Vec::new(),
        pattern: Pattern::AllToAll {
            senders: t,
            receivers: r,
            self_transfers: false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn fig1_expands_to_the_model_files_traffic() {
        let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models");
        let ours = fig1().expand().expect("expands");
        for file in ["paper-fig1.yaml", "paper-fig1-explicit.yaml"] {
            let theirs = liquid_model::yaml::load_model(&models.join(file)).expect("loads");
            // Same transfers, paths, links and throughput; only the description differs.
            let body = |t: &liquid_model::Traffic| {
                let text = liquid_model::yaml::write_explicit(t);
                text[text.find("link_throughput").expect("has one")..].to_string()
            };
            assert_eq!(body(&ours), body(&theirs), "{file}");
        }
        assert_eq!(ours.len(), 25);
        assert_eq!(ours.duration(), 6);
    }

    #[test]
    fn network_form_round_trips() {
        let g = fig1();
        let text = g.to_network_yaml();
        let back = liquid_model::yaml::parse_model("gen", &text).expect("parses");
        assert_eq!(
            liquid_model::yaml::write_explicit(&back),
            liquid_model::yaml::write_explicit(&g.expand().expect("expands"))
        );
    }
}
