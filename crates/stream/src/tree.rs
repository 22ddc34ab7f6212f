//! m-port n-trees in closed form: host, switch and link numbers, names and routes computed
//! from the parameters alone, in O(hosts) memory, exactly as
//! `liquid_topology::fat_tree::FatTree` builds and routes them (checked by this crate's
//! tests against the topology crate on small trees).
//!
//! With `k = m/2` and `N = 2·k^n` hosts:
//! - host `i` has the digits `p0 p1 … p_{n-1}` (`p0 < m`, `pi < k`), the mixed-radix
//!   number `i`, and the name `p{i}`;
//! - a switch at level `l` (0 = roots) has a label `<w0 … w_{n-2}>`, the name
//!   `sw{l}_{w0}_…`, and within its level the index `Σ w_j·k^(n-2-j)`;
//! - the links are numbered as the topology crate declares them: cable `c` gives link
//!   `2c` (first end to second end) and `2c + 1` (back). Cables `0..N` join host `i` to its
//!   leaf switch (host first); then, level by level from the roots down, the `N` cables of
//!   level `l` join the upper switch `u` (label index `j`) to its child `u` with
//!   coordinate `l` set to `x`, as cable `N + l·N + j·r + x` (`r = m` at the roots, `k`
//!   below; upper first). So there are `2·n·N` links.
//! - The route from `s` to `d` (first differing digit `i`) goes up from the leaf of `s` to
//!   level `i`, setting coordinate `l` to `d_{l+1}` when going from level `l+1` to `l`,
//!   then down to `d`, setting coordinate `l` to `d_l` when going from level `l` to `l+1`:
//!   `2(n - i)` links (deterministic d-mod-k up*/down*).

use crate::StreamError;

/// The largest number of hosts a streamed tree may have: host and link numbers are `u32`
/// and the validator keeps a few words per host and per link. The topology crate's
/// streamed limit, which its refusals of machines too large for memory count on.
pub const MAX_TREE_HOSTS: u64 = liquid_topology::multi_cluster::MAX_STREAMED_NODES as u64;

/// The largest number of levels a streamed tree may have.
pub const MAX_TREE_LEVELS: usize = 32;

/// An m-port n-tree without self-transfers, in closed form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tree {
    ports: usize,
    levels: usize,
    k: usize,
    hosts: usize,
    /// `place[j]`: the value of digit `j` of a host number (`k^(n-1-j)`).
    place: Vec<usize>,
    /// `digits[h·n + j]`: digit `j` of host `h` (n·N words: half the number of links).
    digits: Vec<u32>,
}

/// A class of links with one load: what [`Tree::load_classes`] lists.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct LoadClass {
    /// The links, in words.
    pub links: String,
    /// How many links the class has.
    pub count: u64,
    /// The load of each of them (transfers whose route uses the link).
    pub load: u64,
    /// The formula the load comes from.
    pub formula: String,
}

impl Tree {
    /// The m-port n-tree, checked: `m` even and at least 2, `n` at least 1, at most
    /// [`MAX_TREE_HOSTS`] hosts.
    pub fn new(ports: usize, levels: usize) -> Result<Tree, StreamError> {
        let bad = |why: String| StreamError::Parameter(why);
        if ports < 2 || ports % 2 == 1 {
            return Err(bad(format!(
                "ports: m must be even and at least 2, not {ports}"
            )));
        }
        if levels == 0 || levels > MAX_TREE_LEVELS {
            return Err(bad(format!(
                "levels: n must be 1 to {MAX_TREE_LEVELS}, not {levels}"
            )));
        }
        let k = ports / 2;
        let hosts = (k as u128)
            .checked_pow(levels as u32)
            .map(|x| 2 * x)
            .filter(|&x| x <= u128::from(MAX_TREE_HOSTS))
            .ok_or_else(|| {
                bad(format!(
                    "levels: a {ports}-port {levels}-tree has more than {MAX_TREE_HOSTS} hosts"
                ))
            })? as usize;
        if hosts < 2 {
            return Err(bad("the tree has fewer than two hosts".into()));
        }
        let place: Vec<usize> = (0..levels)
            .map(|j| k.pow((levels - 1 - j) as u32))
            .collect();
        let mut digits = Vec::with_capacity(hosts * levels);
        for h in 0..hosts {
            for (j, &p) in place.iter().enumerate() {
                let x = h / p;
                digits.push(if j == 0 { x } else { x % k } as u32);
            }
        }
        Ok(Tree {
            ports,
            levels,
            k,
            hosts,
            place,
            digits,
        })
    }

    /// Ports per switch, `m`.
    pub fn ports(&self) -> usize {
        self.ports
    }

    /// Levels, `n`.
    pub fn levels(&self) -> usize {
        self.levels
    }

    /// Number of hosts, `N = 2·(m/2)^n`.
    pub fn hosts(&self) -> usize {
        self.hosts
    }

    /// Number of switches, `(2n-1)·(m/2)^(n-1)`.
    pub fn switches(&self) -> usize {
        (2 * self.levels - 1) * self.k.pow(self.levels as u32 - 1)
    }

    /// Number of directed links, `2·n·N`.
    pub fn links(&self) -> usize {
        2 * self.levels * self.hosts
    }

    /// Number of transfers of the all-to-all, `N(N-1)`.
    pub fn transfers(&self) -> u64 {
        let n = self.hosts as u64;
        n * (n - 1)
    }

    /// The model's name, as the topology crate names it (`fat-tree-M-N`).
    pub fn name(&self) -> String {
        format!("fat-tree-{}-{}", self.ports, self.levels)
    }

    /// The model's spec (`fat-tree:M,N`).
    pub fn spec(&self) -> String {
        format!("fat-tree:{},{}", self.ports, self.levels)
    }

    /// Digit `j` of host `h`.
    pub fn digit(&self, h: usize, j: usize) -> usize {
        self.digits[h * self.levels + j] as usize
    }

    /// The radices of the host digits, least significant first (`k`, …, `k`, `m`): the
    /// hierarchy of blocks the structured engine detects (leaves, subtrees, the tree).
    pub fn radices(&self) -> Vec<usize> {
        let mut r = vec![self.k; self.levels - 1];
        r.push(self.ports);
        r
    }

    /// The name of switch `w` at `level` (`sw{level}_{w0}_…`).
    fn switch_name(level: usize, w: &[usize]) -> String {
        let mut s = format!("sw{level}");
        for x in w {
            s.push_str(&format!("_{x}"));
        }
        s
    }

    /// The label of the switch with index `j` within `level`.
    fn label(&self, mut j: usize) -> Vec<usize> {
        let n = self.levels;
        let mut w = vec![0; n - 1];
        for c in (1..n - 1).rev() {
            w[c] = j % self.k;
            j /= self.k;
        }
        if n > 1 {
            w[0] = j;
        }
        w
    }

    /// A label's index within its level.
    fn label_index(&self, w: &[usize]) -> usize {
        w.iter().fold(0, |acc, &x| acc * self.k + x)
    }

    /// The name of link `l` (`from>to`), as the topology crate names it.
    pub fn link_name(&self, l: usize) -> String {
        let (n, hosts) = (self.levels, self.hosts);
        let (cable, back) = (l / 2, l % 2 == 1);
        let (a, b) = if cable < hosts {
            let leaf: Vec<usize> = (0..n - 1).map(|j| self.digit(cable, j)).collect();
            (format!("p{cable}"), Self::switch_name(n - 1, &leaf))
        } else {
            let c = cable - hosts;
            let (level, rem) = (c / hosts, c % hosts);
            let r = if level == 0 { self.ports } else { self.k };
            let upper = self.label(rem / r);
            let mut lower = upper.clone();
            lower[level] = rem % r;
            (
                Self::switch_name(level, &upper),
                Self::switch_name(level + 1, &lower),
            )
        };
        if back {
            format!("{b}>{a}")
        } else {
            format!("{a}>{b}")
        }
    }

    /// The name of host `h` (`p{h}`).
    pub fn host_name(&self, h: usize) -> String {
        format!("p{h}")
    }

    /// The link of level `level`'s cable from upper label `w` to its child `x`, downwards
    /// (`up = false`) or upwards.
    fn switch_link(&self, level: usize, w: &[usize], x: usize, up: bool) -> u32 {
        let r = if level == 0 { self.ports } else { self.k };
        let cable = self.hosts + level * self.hosts + self.label_index(w) * r + x;
        (2 * cable + usize::from(up)) as u32
    }

    /// The route from host `s` to host `d != s` as link numbers, in `out` (cleared first).
    pub fn route(&self, s: usize, d: usize, out: &mut Vec<u32>) {
        let n = self.levels;
        out.clear();
        let (ds, dd) = (
            &self.digits[s * n..(s + 1) * n],
            &self.digits[d * n..(d + 1) * n],
        );
        let first = (0..n).find(|&j| ds[j] != dd[j]).unwrap_or(n - 1);
        out.push((2 * s) as u32);
        let mut label = [0usize; MAX_TREE_LEVELS];
        let w = &mut label[..n - 1];
        for (x, &y) in w.iter_mut().zip(ds) {
            *x = y as usize;
        }
        for level in (first..n - 1).rev() {
            let x = w[level];
            w[level] = dd[level + 1] as usize;
            out.push(self.switch_link(level, w, x, true));
        }
        for level in first..n - 1 {
            let x = dd[level] as usize;
            out.push(self.switch_link(level, w, x, false));
            w[level] = x;
        }
        out.push((2 * d + 1) as u32);
    }

    /// The destination of host `h` in frame `f` (`0 ≤ f < N - 1`) of the orbit schedule:
    /// the digit-wise translation of `h` by `g = f + 1` (digit `j` of the result is
    /// `h_j + g_j` modulo the digit's radix). Frame `f` is the orbit frame
    /// `F_g = {h → g·h}` of the structured engine (`liquid_search::structured`) for the
    /// hierarchy the tree's all-to-all has; every frame is conflict-free under d-mod-k
    /// routing, and the `N - 1` frames partition the all-to-all.
    pub fn orbit_destination(&self, f: usize, h: usize) -> usize {
        let g = f + 1;
        let mut out = 0;
        for j in 0..self.levels {
            let radix = if j == 0 { self.ports } else { self.k };
            out += ((self.digit(h, j) + self.digit(g, j)) % radix) * self.place[j];
        }
        out
    }

    /// Fills `dest` (of length N) with frame `f` of the orbit schedule: `dest[h]` is the
    /// host `h` sends to.
    pub fn orbit_frame(&self, f: usize, dest: &mut [u32]) {
        for (h, slot) in dest.iter_mut().enumerate() {
            *slot = self.orbit_destination(f, h) as u32;
        }
    }

    /// Number of frames of the orbit schedule, `N - 1`.
    pub fn frames(&self) -> usize {
        self.hosts - 1
    }

    /// The links grouped by load, from closed forms (derived, not counted): host links
    /// carry `N - 1` transfers; the up link from level `l+1` to level `l` is used by the
    /// transfers whose source agrees with the link on digits `0..=l`, whose destination
    /// agrees with it on digits `l+1..n`, and whose end points differ within digits
    /// `0..=l`: `k^(n-1-l)·(m·k^l - 1) = N - k^(n-1-l)`; a down link, by the same count
    /// with source and destination swapped, as many.
    pub fn load_classes(&self) -> Vec<LoadClass> {
        let (n, hosts) = (self.levels as u64, self.hosts as u64);
        let k = self.k as u64;
        let mut v = vec![
            LoadClass {
                links: "host to leaf switch (p{i}>sw…)".into(),
                count: hosts,
                load: hosts - 1,
                formula: "N - 1".into(),
            },
            LoadClass {
                links: "leaf switch to host (sw…>p{i})".into(),
                count: hosts,
                load: hosts - 1,
                formula: "N - 1".into(),
            },
        ];
        for l in 0..n.saturating_sub(1) {
            let load = hosts - k.pow((n - 1 - l) as u32);
            let formula = format!("N - k^{}", n - 1 - l);
            v.push(LoadClass {
                links: format!("up, level {} to level {l}", l + 1),
                count: hosts,
                load,
                formula: formula.clone(),
            });
            v.push(LoadClass {
                links: format!("down, level {l} to level {}", l + 1),
                count: hosts,
                load,
                formula,
            });
        }
        v
    }

    /// Λ: the largest load of [`Tree::load_classes`] (`N - 1`).
    pub fn duration(&self) -> u64 {
        self.load_classes()
            .iter()
            .map(|c| c.load)
            .max()
            .unwrap_or(0)
    }

    /// The total path length, `Σ loads` over the link classes.
    pub fn total_path_length(&self) -> u64 {
        self.load_classes().iter().map(|c| c.count * c.load).sum()
    }

    /// The load of link `l`, from its class (see [`Tree::load_classes`]).
    pub fn load(&self, l: usize) -> u64 {
        let (hosts, n) = (self.hosts as u64, self.levels as u64);
        let cable = (l / 2) as u64;
        if cable < hosts {
            return hosts - 1;
        }
        let level = (cable - hosts) / hosts;
        hosts - (self.k as u64).pow((n - 1 - level) as u32)
    }
}
