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

/// What [`one_hop_platform`] wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct OneHop {
    /// The platform file.
    pub platform_xml: String,
    /// Hosts.
    pub hosts: usize,
    /// Routers: the model's switches, as the routes reveal them, and one per parallel link.
    pub routers: usize,
    /// `<route>`s, each over one link.
    pub routes: usize,
}

fn find(parent: &mut [usize], mut x: usize) -> usize {
    while parent[x] != x {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    x
}

/// The platform as SimGrid's ns-3 model takes it: every link a one-hop `<route>` between
/// its two ends, hosts and routers; ns-3 routes the traffic over that graph itself. A
/// link's ends come from the routes (consecutive links of a route meet at one node, a
/// route starts at its sender and ends at its receiver), so the model's switches become
/// routers (`router-K`, numbered in link order) without the model naming them. A second
/// link between the same two ends goes through a router of its own (`via-LINK`) and a
/// link `pass-LINK` of the same bandwidth and no latency: a SimGrid zone has one route per
/// pair of ends. ns-3 chooses its own shortest paths, which need not be the model's routes
/// where several exist.
pub fn one_hop_platform(traffic: &Traffic, mapped: &MappedTraffic) -> Result<OneHop, SimError> {
    let links = mapped.platform.links();
    let nl = links.len();
    let mut hosts: Vec<String> = Vec::new();
    let mut host_index: HashMap<String, usize> = HashMap::new();
    let mut ends: Vec<(usize, usize, &Vec<u32>)> = Vec::new();
    for (t, route) in mapped.routes.iter().enumerate() {
        let x = &traffic.transfers()[t];
        let (Some(f), Some(to)) = (&x.from, &x.to) else {
            return Err(SimError::Export(format!(
                "transfer {:?} names no sender and receiver (from/to): SimGrid routes go between hosts",
                x.id
            )));
        };
        let mut id = |h: &String| {
            *host_index.entry(h.clone()).or_insert_with(|| {
                hosts.push(h.clone());
                hosts.len() - 1
            })
        };
        let (a, b) = (id(f), id(to));
        ends.push((a, b, route));
    }
    // Union-find over link tails (2l), heads (2l + 1) and hosts (2 nl + h).
    let mut parent: Vec<usize> = (0..2 * nl + hosts.len()).collect();
    let union = |parent: &mut Vec<usize>, a: usize, b: usize| {
        let (ra, rb) = (find(parent, a), find(parent, b));
        if ra != rb {
            parent[ra.max(rb)] = ra.min(rb);
        }
    };
    for &(a, b, route) in &ends {
        if let (Some(&first), Some(&last)) = (route.first(), route.last()) {
            union(&mut parent, 2 * first as usize, 2 * nl + a);
            union(&mut parent, 2 * last as usize + 1, 2 * nl + b);
        }
        for w in route.windows(2) {
            union(&mut parent, 2 * w[0] as usize + 1, 2 * w[1] as usize);
        }
    }
    // Name every node: its host, or a router numbered in order of first appearance.
    let mut name: HashMap<usize, String> = HashMap::new();
    for (h, host) in hosts.iter().enumerate() {
        let root = find(&mut parent, 2 * nl + h);
        if let Some(other) = name.insert(root, host.clone()) {
            return Err(SimError::Export(format!(
                "the routes join hosts {other} and {host} into one node"
            )));
        }
    }
    for (t, &(_, _, route)) in ends.iter().enumerate() {
        for w in route.windows(2) {
            if let Some(h) = name.get(&find(&mut parent, 2 * w[0] as usize + 1)) {
                return Err(SimError::Export(format!(
                    "the route of {:?} passes through a host ({h}): one-hop links need \
                     routers between links",
                    traffic.transfers()[t].id
                )));
            }
        }
    }
    let mut routers: Vec<String> = Vec::new();
    for x in 0..2 * nl {
        let root = find(&mut parent, x);
        name.entry(root).or_insert_with(|| {
            routers.push(format!("router-{}", routers.len() + 1));
            routers.last().cloned().unwrap_or_default()
        });
    }
    let mut seen: HashSet<(String, String)> = HashSet::new();
    let mut extra_links: Vec<(String, f64)> = Vec::new();
    let mut routes: Vec<(String, String, String)> = Vec::new();
    for (l, link) in links.iter().enumerate() {
        let tail = name[&find(&mut parent, 2 * l)].clone();
        let head = name[&find(&mut parent, 2 * l + 1)].clone();
        if tail == head {
            return Err(SimError::Export(format!(
                "link {} goes from {tail} back to itself",
                link.name
            )));
        }
        if seen.insert((tail.clone(), head.clone())) {
            routes.push((tail, head, link.name.clone()));
        } else {
            let via = format!("via-{}", link.name);
            let pass = format!("pass-{}", link.name);
            routers.push(via.clone());
            extra_links.push((pass.clone(), link.bandwidth));
            routes.push((tail, via.clone(), link.name.clone()));
            routes.push((via, head, pass));
        }
    }
    if let Some(h) = routers.iter().find(|r| host_index.contains_key(*r)) {
        return Err(SimError::Export(format!(
            "a host is named {h}, the name of a router of the one-hop platform"
        )));
    }
    let mut xml = String::new();
    xml.push_str(
        "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n",
    );
    let _ = writeln!(
        xml,
        "<!-- {} exported by liquid for ns-3: links in bytes/s and seconds; every link a \
         one-hop route between its ends (hosts and routers); ns-3 routes over them. -->",
        comment(traffic.name())
    );
    xml.push_str("<platform version=\"4.1\">\n  <zone id=\"world\" routing=\"Full\">\n");
    for h in &hosts {
        let _ = writeln!(xml, "    <host id=\"{}\" speed=\"1Gf\"/>", xml_attr(h));
    }
    for r in &routers {
        let _ = writeln!(xml, "    <router id=\"{}\"/>", xml_attr(r));
    }
    let all = links
        .iter()
        .map(|l| (&l.name, l.bandwidth, l.latency))
        .chain(extra_links.iter().map(|(n, b)| (n, *b, 0.0)));
    for (n, bandwidth, latency) in all {
        let _ = writeln!(
            xml,
            "    <link id=\"{}\" bandwidth=\"{}Bps\" latency=\"{}s\" sharing_policy=\"SHARED\"/>",
            xml_attr(n),
            bandwidth,
            latency
        );
    }
    for (f, to, l) in &routes {
        let _ = writeln!(
            xml,
            "    <route src=\"{}\" dst=\"{}\" symmetrical=\"NO\"><link_ctn id=\"{}\"/></route>",
            xml_attr(f),
            xml_attr(to),
            xml_attr(l)
        );
    }
    xml.push_str("  </zone>\n</platform>\n");
    Ok(OneHop {
        platform_xml: xml,
        hosts: hosts.len(),
        routers: routers.len(),
        routes: routes.len(),
    })
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

    fn parse(xml: &str) -> roxmltree::Document<'_> {
        roxmltree::Document::parse_with_options(
            xml,
            roxmltree::ParsingOptions {
                allow_dtd: true,
                ..Default::default()
            },
        )
        .unwrap_or_else(|e| panic!("{e}\n{xml}"))
    }

    #[test]
    fn the_one_hop_platform_has_routers_and_one_link_per_route() {
        // a -> b over x, y (a switch between them), b -> a over z, and c -> b over w, y:
        // x and w end at the same switch; a second link from b to a (v) needs a router.
        let mut b = TrafficBuilder::new("hops");
        for (id, f, to, path) in [
            ("a->b", "a", "b", &["x", "y"][..]),
            ("b->a", "b", "a", &["z"]),
            ("c->b", "c", "b", &["w", "y"]),
            ("b->a2", "b", "a", &["v"]),
        ] {
            b.transfer(id, Some(f.into()), Some(to.into()), path, id, &|i| {
                format!("{i}")
            })
            .expect("a transfer");
        }
        let t = b.build("transfers").expect("a valid traffic");
        let mapped = MappedTraffic::new(&t, |_| Some((1e6, 0.5))).expect("maps");
        let out = one_hop_platform(&t, &mapped).expect("exports");
        assert_eq!((out.hosts, out.routers, out.routes), (3, 2, 6));
        let doc = parse(&out.platform_xml);
        let routes: Vec<_> = doc
            .descendants()
            .filter(|n| n.has_tag_name("route"))
            .collect();
        assert_eq!(routes.len(), 6);
        let mut pairs = Vec::new();
        for r in &routes {
            let links: Vec<_> = r
                .children()
                .filter(|n| n.has_tag_name("link_ctn"))
                .collect();
            assert_eq!(links.len(), 1, "{}", out.platform_xml);
            pairs.push((
                r.attribute("src").unwrap_or(""),
                r.attribute("dst").unwrap_or(""),
                links[0].attribute("id").unwrap_or(""),
            ));
        }
        pairs.sort_unstable();
        assert_eq!(
            pairs,
            vec![
                ("a", "router-1", "x"),
                ("b", "a", "z"),
                ("b", "via-v", "v"),
                ("c", "router-1", "w"),
                ("router-1", "b", "y"),
                ("via-v", "a", "pass-v"),
            ]
        );
        let routers = doc
            .descendants()
            .filter(|n| n.has_tag_name("router"))
            .count();
        assert_eq!(routers, 2);
    }

    #[test]
    fn a_route_through_a_host_is_refused_for_one_hop() {
        // x ends at b for a -> b, and c -> d continues from x's end: b would forward.
        let mut b = TrafficBuilder::new("bad");
        for (id, f, to, path) in [
            ("a->b", "a", "b", &["x"][..]),
            ("a->d", "a", "d", &["x", "y"]),
        ] {
            b.transfer(id, Some(f.into()), Some(to.into()), path, id, &|i| {
                format!("{i}")
            })
            .expect("a transfer");
        }
        let t = b.build("transfers").expect("a valid traffic");
        let mapped = MappedTraffic::new(&t, |_| Some((1e6, 0.5))).expect("maps");
        let e = one_hop_platform(&t, &mapped).expect_err("b forwards");
        assert!(e.to_string().contains("passes through a host"), "{e}");
    }
}
