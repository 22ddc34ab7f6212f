//! Export for [SimGrid](https://simgrid.org): a traffic's platform as a SimGrid platform
//! file (hosts, links with bandwidth and latency, every used route as an explicit one-way
//! `<route>`) and a plan as JSON with host names (`liquid-plan/1`), so that SimGrid runs
//! what [`simulate`](crate::simulate) runs.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use liquid_model::Traffic;
use serde::Serialize;

use crate::{MappedTraffic, Mode, Plan, SimError};

/// The files of an export, and what they hold.
#[derive(Debug, Clone, PartialEq)]
pub struct SimGrid {
    /// The platform file (`platform.xml`).
    pub platform_xml: String,
    /// The plan (`plan.json`), one line.
    pub plan_json: String,
    /// Number of hosts in the platform.
    pub hosts: usize,
    /// Number of `<route>`s (one per sender and receiver pair).
    pub routes: usize,
}

#[derive(Serialize)]
struct ExportPlan<'a> {
    format: &'static str,
    model: &'a str,
    mode: &'static str,
    overhead_s: f64,
    steps: Vec<ExportStep>,
}

#[derive(Serialize)]
struct ExportStep {
    after: Vec<usize>,
    delay_s: f64,
    group: Option<usize>,
    /// `[sender host, receiver host, bytes, route latency in seconds]`.
    messages: Vec<(String, String, f64, f64)>,
}

/// Escapes text for XML content.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Text for an XML comment, which may not hold `--` nor end in `-`: each `-` of a run
/// is followed by a space (the model `a--b-` is written `a- -b-`).
fn comment(s: &str) -> String {
    esc(s).replace("--", "- -").replace("--", "- -")
}

/// Escapes text for a double-quoted XML attribute.
fn xml_attr(s: &str) -> String {
    esc(s).replace('"', "&quot;")
}

/// Exports `traffic` mapped onto its platform and the `plan` run in `mode` with
/// `overhead_s` per message. Every transfer must name its sender and receiver hosts, and
/// every (sender, receiver) pair must use one route ([`SimError::Export`] otherwise).
pub fn export(
    traffic: &Traffic,
    mapped: &MappedTraffic,
    plan: &Plan,
    mode: Mode,
    overhead_s: f64,
) -> Result<SimGrid, SimError> {
    let endpoints = |t: usize| -> Result<(String, String), SimError> {
        let x = &traffic.transfers()[t];
        match (&x.from, &x.to) {
            (Some(f), Some(to)) => Ok((f.clone(), to.clone())),
            _ => Err(SimError::Export(format!(
                "transfer {:?} names no sender and receiver (from/to): SimGrid routes go between hosts",
                x.id
            ))),
        }
    };
    // Hosts in first-use order, and one route per (sender, receiver) pair.
    let mut hosts: Vec<String> = Vec::new();
    let mut host_seen: HashSet<String> = HashSet::new();
    let mut routes: Vec<((String, String), &Vec<u32>)> = Vec::new();
    let mut route_of: HashMap<(String, String), usize> = HashMap::new();
    for (t, route) in mapped.routes.iter().enumerate() {
        let (f, to) = endpoints(t)?;
        for h in [&f, &to] {
            if host_seen.insert(h.clone()) {
                hosts.push(h.clone());
            }
        }
        let key = (f, to);
        match route_of.get(&key) {
            Some(&i) if routes[i].1 != route => {
                return Err(SimError::Export(format!(
                    "{} -> {} has two different routes: SimGrid has one route per pair",
                    key.0, key.1
                )))
            }
            Some(_) => {}
            None => {
                route_of.insert(key.clone(), routes.len());
                routes.push((key, route));
            }
        }
    }
    let platform_xml = platform_xml(traffic.name(), mapped, &hosts, &routes);
    let mut steps = Vec::with_capacity(plan.steps.len());
    for (s, step) in plan.steps.iter().enumerate() {
        let mut messages = Vec::with_capacity(step.messages.len());
        for m in &step.messages {
            let t = m.transfer.ok_or_else(|| SimError::BadStep {
                step: s,
                why: "a schedule message without its transfer".into(),
            })?;
            let (f, to) = endpoints(t.index())?;
            messages.push((f, to, m.bytes, mapped.platform.route_latency(&m.route)));
        }
        steps.push(ExportStep {
            after: step.after.clone(),
            delay_s: step.delay,
            group: step.group,
            messages,
        });
    }
    let plan = ExportPlan {
        format: "liquid-plan/1",
        model: traffic.name(),
        mode: mode.name(),
        overhead_s,
        steps,
    };
    let plan_json = serde_json::to_string(&plan).map_err(|e| SimError::Export(e.to_string()))?;
    Ok(SimGrid {
        platform_xml,
        plan_json: plan_json + "\n",
        hosts: hosts.len(),
        routes: routes.len(),
    })
}

/// The platform file: hosts, links and one-way routes.
fn platform_xml(
    name: &str,
    mapped: &MappedTraffic,
    hosts: &[String],
    routes: &[((String, String), &Vec<u32>)],
) -> String {
    let links = mapped.platform.links();
    let mut xml = String::new();
    xml.push_str(
        "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n",
    );
    let _ = writeln!(
        xml,
        "<!-- {} exported by liquid: links in bytes/s and seconds; one-way routes. -->",
        comment(name)
    );
    xml.push_str("<platform version=\"4.1\">\n  <zone id=\"world\" routing=\"Full\">\n");
    for h in hosts {
        let _ = writeln!(xml, "    <host id=\"{}\" speed=\"1Gf\"/>", xml_attr(h));
    }
    for l in links {
        let _ = writeln!(
            xml,
            "    <link id=\"{}\" bandwidth=\"{}Bps\" latency=\"{}s\" sharing_policy=\"SHARED\"/>",
            xml_attr(&l.name),
            l.bandwidth,
            l.latency
        );
    }
    for ((f, to), route) in routes {
        let _ = writeln!(
            xml,
            "    <route src=\"{}\" dst=\"{}\" symmetrical=\"NO\">",
            xml_attr(f),
            xml_attr(to)
        );
        for &l in route.iter() {
            let _ = writeln!(
                xml,
                "      <link_ctn id=\"{}\"/>",
                xml_attr(&links[l as usize].name)
            );
        }
        xml.push_str("    </route>\n");
    }
    xml.push_str("  </zone>\n</platform>\n");
    xml
}

#[cfg(test)]
mod tests {
    use super::*;
    use liquid_model::{Schedule, TrafficBuilder};

    fn traffic() -> Traffic {
        named("two")
    }

    fn named(name: &str) -> Traffic {
        let mut b = TrafficBuilder::new(name);
        for (id, f, to, path) in [
            ("a->b", "a", "b", &["x", "y"][..]),
            ("b->a", "b", "a", &["z"]),
        ] {
            b.transfer(id, Some(f.into()), Some(to.into()), path, id, &|i| {
                format!("{i}")
            })
            .expect("a transfer");
        }
        b.build("transfers").expect("a valid traffic")
    }

    #[test]
    fn exports_hosts_links_routes_and_the_plan() {
        let t = traffic();
        let mapped = MappedTraffic::new(&t, |_| Some((1e6, 0.5))).expect("maps");
        let s = Schedule::new(vec![t.transfer_ids().collect()]);
        let plan = crate::from_schedule(&t, &mapped.routes, &[10.0, 20.0], &s, Mode::Frames)
            .expect("plans");
        let out = export(&t, &mapped, &plan, Mode::Frames, 0.0).expect("exports");
        assert_eq!((out.hosts, out.routes), (2, 2));
        assert_eq!(out.platform_xml.matches("<link id=").count(), 3);
        assert!(out
            .platform_xml
            .contains("<route src=\"a\" dst=\"b\" symmetrical=\"NO\">"));
        assert!(out.plan_json.contains("[\"a\",\"b\",10.0,1.0]"));
    }

    #[test]
    fn a_model_name_with_dashes_gives_well_formed_xml() {
        for name in ["a--b-", "---", "x-"] {
            let t = named(name);
            let mapped = MappedTraffic::new(&t, |_| Some((1e6, 0.5))).expect("maps");
            let s = Schedule::new(vec![t.transfer_ids().collect()]);
            let plan = crate::from_schedule(&t, &mapped.routes, &[10.0, 20.0], &s, Mode::Frames)
                .expect("plans");
            let out = export(&t, &mapped, &plan, Mode::Frames, 0.0).expect("exports");
            roxmltree::Document::parse_with_options(
                &out.platform_xml,
                roxmltree::ParsingOptions {
                    allow_dtd: true,
                    ..Default::default()
                },
            )
            .unwrap_or_else(|e| panic!("{name}: {e}\n{}", out.platform_xml));
        }
    }
}
