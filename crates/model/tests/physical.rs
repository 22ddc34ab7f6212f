//! Physical link parameters of the network form: `bandwidth`, `latency`, `link_latency`.

use liquid_model::yaml::{parse_model, parse_model_full};

const NET: &str = "name: two
link_throughput: 100
link_latency: 0.001
network:
  hosts: [a, b]
  switches: [s]
  links:
    - {id: as, from: a, to: s, bandwidth: 50, latency: 0.5}
    - {id: sb, from: s, to: b}
pattern: {type: pairs, pairs: [{from: a, to: b}]}
";

#[test]
fn link_parameters_are_read_per_link_with_model_wide_defaults() {
    let m = parse_model_full("m.yaml", NET).expect("parses");
    assert_eq!(m.link_latency, Some(0.001));
    assert_eq!(m.traffic.link_throughput(), Some(100.0));
    assert_eq!(m.link_params.len(), 2);
    assert_eq!(m.link_params[0].bandwidth, Some(50.0));
    assert_eq!(m.link_params[0].latency, Some(0.5));
    assert_eq!(m.link_params[1].bandwidth, None);
    assert_eq!(m.link_params[1].latency, None);
    let net = m.network.expect("network form");
    assert_eq!(net.links[0].id, "as");
    // The plain loader accepts the same file and gives the same traffic.
    let t = parse_model("m.yaml", NET).expect("parses");
    assert_eq!(t.len(), m.traffic.len());
}

#[test]
fn explicit_form_takes_a_model_wide_latency() {
    let text = "name: x\nlink_latency: 0.25\ntransfers:\n  - {id: t, path: [l]}\n";
    let m = parse_model_full("x.yaml", text).expect("parses");
    assert_eq!(m.link_latency, Some(0.25));
    assert!(m.network.is_none());
    assert!(m.link_params.is_empty());
}

#[test]
fn bad_link_parameters_are_located() {
    let bad_bw = NET.replace("bandwidth: 50", "bandwidth: 0");
    let e = parse_model("m.yaml", &bad_bw).expect_err("zero bandwidth");
    assert_eq!(e.field.as_deref(), Some("network.links[0].bandwidth"));
    assert_eq!(e.line, Some(8));
    let bad_lat = NET.replace("latency: 0.5", "latency: -1");
    let e = parse_model("m.yaml", &bad_lat).expect_err("negative latency");
    assert_eq!(e.field.as_deref(), Some("network.links[0].latency"));
    let bad_wide = NET.replace("link_latency: 0.001", "link_latency: .nan");
    let e = parse_model("m.yaml", &bad_wide).expect_err("nan latency");
    assert_eq!(e.field.as_deref(), Some("link_latency"));
    let unknown = NET.replace("latency: 0.5", "latency: 0.5, speed: 3");
    let e = parse_model("m.yaml", &unknown).expect_err("unknown field");
    assert!(e.message.contains("speed"), "{}", e.message);
}
