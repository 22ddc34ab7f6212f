//! Links with a bandwidth and a latency, and a traffic's routes mapped onto them.

use liquid_model::Traffic;

use crate::SimError;

/// One directed link of the simulated network.
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    /// The link's name (the model's link id).
    pub name: String,
    /// Bandwidth in bytes per second (positive, finite).
    pub bandwidth: f64,
    /// One-way latency in seconds (finite, not negative).
    pub latency: f64,
}

/// The links of a simulated network, indexed densely from 0.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Platform {
    links: Vec<Link>,
}

impl Platform {
    /// A platform of the given links; every bandwidth must be positive and finite and every
    /// latency finite and not negative.
    pub fn new(links: Vec<Link>) -> Result<Self, SimError> {
        for l in &links {
            if !(l.bandwidth.is_finite() && l.bandwidth > 0.0) {
                return Err(SimError::BadLink {
                    link: l.name.clone(),
                    why: format!("bandwidth must be positive and finite, not {}", l.bandwidth),
                });
            }
            if !(l.latency.is_finite() && l.latency >= 0.0) {
                return Err(SimError::BadLink {
                    link: l.name.clone(),
                    why: format!("latency must be finite and not negative, not {}", l.latency),
                });
            }
        }
        Ok(Platform { links })
    }

    /// The links, by index.
    pub fn links(&self) -> &[Link] {
        &self.links
    }

    /// The latency of a route: the sum of its links' latencies.
    pub fn route_latency(&self, route: &[u32]) -> f64 {
        route.iter().map(|&l| self.links[l as usize].latency).sum()
    }

    /// The smallest bandwidth on a route (infinite for an empty route).
    pub fn route_bandwidth(&self, route: &[u32]) -> f64 {
        route
            .iter()
            .map(|&l| self.links[l as usize].bandwidth)
            .fold(f64::INFINITY, f64::min)
    }
}

/// A traffic's links as a [`Platform`] and each transfer's route as platform link indices.
#[derive(Debug, Clone, PartialEq)]
pub struct MappedTraffic {
    /// The physical links the traffic uses, in the traffic's link order.
    pub platform: Platform,
    /// For each transfer (by [`liquid_model::TransferId`] index), its route on the platform.
    pub routes: Vec<Vec<u32>>,
    /// For each traffic link (by [`liquid_model::LinkId`] index), its platform index, or
    /// `None` for a virtual link.
    pub link_index: Vec<Option<u32>>,
}

impl MappedTraffic {
    /// Maps a traffic onto a platform. `link(name)` gives each traffic link's bandwidth
    /// (bytes/s) and latency (s), or `None` for a *virtual* link (the links that tell the
    /// copies of a repeated transfer apart: no bandwidth limit, no latency), which is left
    /// out of every route. A transfer whose route has no physical link is an error.
    pub fn new(
        traffic: &Traffic,
        mut link: impl FnMut(&str) -> Option<(f64, f64)>,
    ) -> Result<Self, SimError> {
        let mut links = Vec::new();
        let mut link_index = Vec::with_capacity(traffic.num_links());
        for l in traffic.link_ids() {
            let name = traffic.link_name(l);
            link_index.push(link(name).map(|(bandwidth, latency)| {
                links.push(Link {
                    name: name.to_string(),
                    bandwidth,
                    latency,
                });
                (links.len() - 1) as u32
            }));
        }
        let platform = Platform::new(links)?;
        let mut routes = Vec::with_capacity(traffic.len());
        for t in traffic.transfers() {
            let route: Vec<u32> = t
                .path
                .iter()
                .filter_map(|&l| link_index[l.index()])
                .collect();
            if route.is_empty() {
                return Err(SimError::Mismatch(format!(
                    "transfer {:?} uses no physical link",
                    t.id
                )));
            }
            routes.push(route);
        }
        Ok(MappedTraffic {
            platform,
            routes,
            link_index,
        })
    }
}
