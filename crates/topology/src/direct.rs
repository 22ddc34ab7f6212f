//! Traffics built directly from routes given as link indices, without the network form's
//! named routes (a million of them at 1024 hosts): what [`crate::fat_tree::FatTree::traffic`]
//! and [`crate::multi_cluster::MultiCluster::traffic`] share.

use liquid_model::network::NetworkError;
use liquid_model::{LinkId, Traffic, TrafficBuilder};

use crate::TopologyError;

/// Routes of the pairs of a pattern, in pattern order, as network link indices in one
/// flat array, with each route's length (generated routes are a few dozen links long).
#[derive(Debug)]
pub(crate) struct FlatRoutes {
    flat: Vec<u32>,
    lengths: Vec<u16>,
    used: Vec<bool>,
}

impl FlatRoutes {
    /// No routes yet, over a network of `links` links.
    pub(crate) fn new(links: usize) -> FlatRoutes {
        FlatRoutes {
            flat: Vec::new(),
            lengths: Vec::new(),
            used: vec![false; links],
        }
    }

    /// Appends the route of the next pair.
    pub(crate) fn push(&mut self, route: impl IntoIterator<Item = u32>) {
        let start = self.flat.len();
        for l in route {
            self.used[l as usize] = true;
            self.flat.push(l);
        }
        let length = u16::try_from(self.flat.len() - start)
            .expect("generated routes are shorter than 65,536 links");
        self.lengths.push(length);
    }

    /// The traffic of `pairs` (of `hosts`, in the order the routes were pushed), as the
    /// model crate would expand the network form: transfer ids `from->to` with their end
    /// points, the links some route uses declared in the network's order under
    /// `link_id(index)`, and the error positions of the network form (`network.links[i]`,
    /// `pattern.senders[s]`).
    pub(crate) fn traffic(
        &self,
        name: String,
        description: String,
        link_id: impl Fn(usize) -> String,
        hosts: &[String],
        pairs: impl Iterator<Item = (usize, usize)>,
    ) -> Result<Traffic, TopologyError> {
        let mut t = TrafficBuilder::new(name);
        t.reserve(self.lengths.len());
        t.description(Some(description));
        let mut id_of = vec![LinkId(u32::MAX); self.used.len()];
        for (i, _) in self.used.iter().enumerate().filter(|&(_, &u)| u) {
            id_of[i] = t
                .link(&link_id(i), &format!("network.links[{i}].id"))
                .map_err(NetworkError::from)?;
        }
        let mut path: Vec<LinkId> = Vec::new();
        let (mut at, mut sender, mut start) = (String::new(), None, 0);
        for ((s, d), &length) in pairs.zip(&self.lengths) {
            let end = start + usize::from(length);
            path.clear();
            path.extend(self.flat[start..end].iter().map(|&l| id_of[l as usize]));
            start = end;
            if sender != Some(s) {
                sender = Some(s);
                at = format!("pattern.senders[{s}]");
            }
            let (from, to) = (&hosts[s], &hosts[d]);
            t.transfer_on_links(
                format!("{from}->{to}"),
                Some(from.clone()),
                Some(to.clone()),
                &path,
                &at,
            )
            .map_err(NetworkError::from)?;
        }
        Ok(t.build("pattern").map_err(NetworkError::from)?)
    }
}
