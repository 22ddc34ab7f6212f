//! Prints the closed-form loads of the all-to-all of `dragonfly:`, `dragonfly-plus:`,
//! `rail:` and `hyperx:` specs, for any size (nothing is built): hosts, switches,
//! transfers, Λ, the host-link bound (the most loaded link at a host: every schedule needs
//! that many frames whatever the rest of the network) and the loads per class, as one JSON
//! object per spec.
//!
//! `cargo run --release -p liquid-topology --example closed_form -- dragonfly:16,8,8`

use liquid_topology::dragonfly::{Dragonfly, DragonflyPlus};
use liquid_topology::hyperx::HyperX;
use liquid_topology::rail::Rail;
use liquid_topology::TopologyError;

fn row(spec: &str) -> Result<String, TopologyError> {
    let (kind, rest) = spec.split_once(':').unwrap_or((spec, ""));
    let (hosts, switches, lambda, host_bound, classes) = match kind {
        "dragonfly" => {
            let d = Dragonfly::parse(spec, rest)?;
            let l = d.loads()?;
            let g = d.groups.unwrap_or(d.routers * d.global_per_router + 1);
            let hosts = d.routers * d.hosts_per_router * g;
            (
                hosts,
                d.routers * g,
                l.duration(),
                l.host,
                format!(
                    r#"{{"host": {}, "local": {}, "global": {}}}"#,
                    l.host, l.local, l.global
                ),
            )
        }
        "dragonfly-plus" => {
            let d = DragonflyPlus::parse(spec, rest)?;
            let l = d.loads()?;
            let g = d.groups.unwrap_or(d.spines * d.global_per_spine + 1);
            (
                d.leaves * d.hosts_per_leaf * g,
                (d.leaves + d.spines) * g,
                l.duration(),
                l.host,
                format!(
                    r#"{{"host": {}, "leaf_spine": {}, "global": {}}}"#,
                    l.host, l.local, l.global
                ),
            )
        }
        "rail" => {
            let r = Rail::parse(spec, rest)?;
            let l = r.loads()?;
            let k = r.spines.unwrap_or(r.servers);
            (
                r.servers * r.gpus,
                r.gpus + k + r.servers * (r.gpus + 1),
                l.duration(),
                // Every transfer from another server reaches a GPU through its NIC.
                (r.gpus * (r.servers - 1)).max(if r.pxn {
                    (r.gpus - 1) * r.servers
                } else {
                    r.gpus - 1
                }) as u64,
                format!(
                    r#"{{"nic": {}, "nvlink": {}, "spine": {}}}"#,
                    l.nic, l.nvlink, l.spine
                ),
            )
        }
        "hyperx" => {
            let x = HyperX::parse(spec, rest)?;
            let l = x.loads()?;
            let r: usize = x.dims.iter().product();
            (
                r * x.hosts_per_router,
                r,
                l.duration(),
                l.host,
                format!(r#"{{"host": {}, "dimensions": {:?}}}"#, l.host, l.dims),
            )
        }
        _ => {
            return Err(TopologyError::BadSpec {
                spec: spec.into(),
                why: "give a dragonfly:, dragonfly-plus:, rail: or hyperx: spec".into(),
            })
        }
    };
    let transfers = hosts as u64 * (hosts as u64 - 1);
    Ok(format!(
        r#"{{"spec": "{spec}", "hosts": {hosts}, "switches": {switches}, "transfers": {transfers}, "duration": {lambda}, "host_link_bound": {host_bound}, "loads": {classes}}}"#
    ))
}

fn main() {
    let mut failed = false;
    for spec in std::env::args().skip(1) {
        match row(&spec) {
            Ok(line) => println!("{line}"),
            Err(e) => {
                eprintln!("error: {e}");
                failed = true;
            }
        }
    }
    std::process::exit(if failed { 2 } else { 0 });
}
