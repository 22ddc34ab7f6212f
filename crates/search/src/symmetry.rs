//! The automorphisms of a traffic: the permutations of its transfers (with a permutation
//! of its links) that map every transfer's path onto another transfer's path, so that
//! they map schedules to schedules.
//!
//! They are the automorphisms of the traffic's incidence graph (one vertex per transfer,
//! one per link, an edge where a path uses a link; transfers and links in two colour
//! classes), which `bliss` (Junttila and Kaski's tool for graph automorphisms and
//! canonical forms; Debian package `bliss`) computes: it prints a generating set of the
//! group. The binary is looked up as `$LIQUID_BLISS`, else `bliss` on the `PATH`; when it
//! is missing, the group is [`Automorphisms::Unavailable`] and callers go without it.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use liquid_model::Traffic;

/// The most vertices (transfers and links) of a graph handed to bliss.
pub const MAX_VERTICES: usize = 1 << 20;

/// The most candidate permutations [`candidates`] returns.
pub const MAX_CANDIDATES: usize = 32;

/// A permutation of the transfers (`perm[t]` is t's image).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Perm {
    /// Image of each transfer.
    pub perm: Vec<u32>,
}

impl Perm {
    /// The identity on `n` transfers.
    pub fn identity(n: usize) -> Perm {
        Perm {
            perm: (0..n as u32).collect(),
        }
    }

    /// Whether it moves nothing.
    pub fn is_identity(&self) -> bool {
        self.perm.iter().enumerate().all(|(i, &p)| i as u32 == p)
    }

    /// `self` after `other`: t ↦ self(other(t)).
    pub fn after(&self, other: &Perm) -> Perm {
        Perm {
            perm: other.perm.iter().map(|&t| self.perm[t as usize]).collect(),
        }
    }

    /// The lengths of its cycles.
    pub fn cycles(&self) -> Vec<usize> {
        let mut seen = vec![false; self.perm.len()];
        let mut out = Vec::new();
        for s in 0..self.perm.len() {
            if seen[s] {
                continue;
            }
            let mut len = 0;
            let mut t = s;
            while !seen[t] {
                seen[t] = true;
                t = self.perm[t] as usize;
                len += 1;
            }
            out.push(len);
        }
        out
    }

    /// Its order (the lcm of its cycle lengths), saturating.
    pub fn order(&self) -> u64 {
        self.cycles().into_iter().fold(1u64, |a, c| {
            let c = c as u64;
            let g = gcd(a, c);
            (a / g).saturating_mul(c)
        })
    }

    /// Its `e`-th power.
    pub fn pow(&self, e: u64) -> Perm {
        let mut out = Perm::identity(self.perm.len());
        for _ in 0..e {
            out = self.after(&out);
        }
        out
    }

    /// "order m, c orbits on n transfers (f fixed)".
    pub fn describe(&self) -> String {
        let cycles = self.cycles();
        let fixed = cycles.iter().filter(|&&c| c == 1).count();
        format!(
            "an automorphism of order {}: {} orbits on {} transfers, {} fixed",
            self.order(),
            cycles.len(),
            self.perm.len(),
            fixed
        )
    }

    /// Whether it maps the traffic's paths onto its paths (as sets of links).
    pub fn is_automorphism_of(&self, traffic: &Traffic) -> bool {
        if self.perm.len() != traffic.len() {
            return false;
        }
        let mut seen = vec![false; traffic.len()];
        for &p in &self.perm {
            if p as usize >= traffic.len() || std::mem::replace(&mut seen[p as usize], true) {
                return false;
            }
        }
        // The links' images: a link is mapped where its users' images meet. A map of
        // links exists iff the users of every link map onto the users of one link.
        let mut link_image = vec![u32::MAX; traffic.num_links()];
        let mut used = vec![false; traffic.num_links()];
        for l in traffic.link_ids() {
            let users = traffic.users(l);
            let mut imgs: Vec<u32> = users.iter().map(|t| self.perm[t.index()]).collect();
            imgs.sort_unstable();
            if imgs.is_empty() {
                used[l.index()] = true;
                link_image[l.index()] = l.index() as u32;
                continue;
            }
            // The image: a link not yet taken whose users are exactly these (links with
            // the same users are interchangeable).
            let first = liquid_model::TransferId(imgs[0]);
            let Some(m) = traffic.transfer(first).path.iter().find(|&&m| {
                let mut u: Vec<u32> = traffic.users(m).iter().map(|t| t.index() as u32).collect();
                u.sort_unstable();
                !used[m.index()] && u == imgs
            }) else {
                return false;
            };
            used[m.index()] = true;
            link_image[l.index()] = m.index() as u32;
        }
        traffic.transfer_ids().all(|t| {
            let mut a: Vec<u32> = traffic
                .transfer(t)
                .path
                .iter()
                .map(|l| link_image[l.index()])
                .collect();
            a.sort_unstable();
            let mut b: Vec<u32> = traffic
                .transfer(liquid_model::TransferId(self.perm[t.index()]))
                .path
                .iter()
                .map(|l| l.index() as u32)
                .collect();
            b.sort_unstable();
            a == b
        })
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// What the symmetry detection found.
#[derive(Debug, Clone, PartialEq)]
pub enum Automorphisms {
    /// A generating set of the group, on the transfers (identities left out), and the
    /// group's order as bliss printed it.
    Found {
        /// The generators.
        generators: Vec<Perm>,
        /// `|Aut|` (of the incidence graph), as printed.
        order: String,
    },
    /// The detection could not run: why.
    Unavailable(String),
}

impl Automorphisms {
    /// One line for reports.
    pub fn describe(&self) -> String {
        match self {
            Automorphisms::Found { generators, order } => format!(
                "bliss: {} generators on the transfers, group order {order}",
                generators.len()
            ),
            Automorphisms::Unavailable(why) => format!("none used: {why}"),
        }
    }
}

/// The bliss binary: `$LIQUID_BLISS`, else `bliss`.
fn bliss_binary() -> String {
    std::env::var("LIQUID_BLISS").unwrap_or_else(|_| "bliss".to_string())
}

/// The incidence graph in bliss's DIMACS format: transfers 1..=n (colour 0), links
/// n+1..=n+L (colour 1).
pub fn incidence_dimacs(traffic: &Traffic) -> String {
    let n = traffic.len();
    let edges = traffic.total_path_length();
    let mut s = String::with_capacity(16 * (edges + n + traffic.num_links()));
    s.push_str(&format!("p edge {} {}\n", n + traffic.num_links(), edges));
    for v in 0..n + traffic.num_links() {
        s.push_str(&format!("n {} {}\n", v + 1, usize::from(v >= n)));
    }
    for t in traffic.transfer_ids() {
        for l in &traffic.transfer(t).path {
            s.push_str(&format!("e {} {}\n", t.index() + 1, n + l.index() + 1));
        }
    }
    s
}

/// The traffic's automorphism group by bliss (`$LIQUID_BLISS`, else `bliss`), within
/// the deadline.
pub fn automorphisms(traffic: &Traffic, deadline: Option<Instant>) -> Automorphisms {
    automorphisms_with(traffic, deadline, &bliss_binary())
}

/// [`automorphisms`] with the bliss binary `bin`.
pub fn automorphisms_with(
    traffic: &Traffic,
    deadline: Option<Instant>,
    bin: &str,
) -> Automorphisms {
    let n = traffic.len();
    if n + traffic.num_links() > MAX_VERTICES {
        return Automorphisms::Unavailable(format!("more than {MAX_VERTICES} transfers and links"));
    }
    let input = incidence_dimacs(traffic);
    let mut child = match Command::new(bin)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => {
            return Automorphisms::Unavailable(format!(
                "{bin} could not be run ({e}); on Debian: apt-get install bliss"
            ))
        }
    };
    let mut stdin = child.stdin.take().expect("piped");
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let mut stdout = child.stdout.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut out = String::new();
        let _ = stdout.read_to_string(&mut out);
        out
    });
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => {
                if deadline.is_some_and(|d| Instant::now() >= d) {
                    let _ = child.kill();
                    let _ = child.wait();
                    let _ = writer.join();
                    let _ = reader.join();
                    return Automorphisms::Unavailable("the deadline passed in bliss".into());
                }
                std::thread::sleep(Duration::from_millis(2));
            }
            Err(e) => return Automorphisms::Unavailable(format!("{bin}: {e}")),
        }
    };
    let _ = writer.join();
    let out = reader.join().unwrap_or_default();
    if !status.success() {
        return Automorphisms::Unavailable(format!("{bin} exited with {status}"));
    }
    match parse_generators(&out, n) {
        Ok(mut generators) => {
            generators.retain(|g| !g.is_identity());
            let order = out
                .lines()
                .find_map(|l| l.strip_prefix("|Aut|:"))
                .map(|s| s.trim().to_string())
                .unwrap_or_else(|| "not printed".to_string());
            Automorphisms::Found { generators, order }
        }
        Err(e) => Automorphisms::Unavailable(format!("{bin}'s output: {e}")),
    }
}

/// The generators in bliss's output (`Generator: (1,2)(3,4)`, 1-based vertices),
/// restricted to the transfers (vertices 1..=n).
pub fn parse_generators(out: &str, n: usize) -> Result<Vec<Perm>, String> {
    let mut gens = Vec::new();
    for line in out.lines() {
        let Some(rest) = line.strip_prefix("Generator:") else {
            continue;
        };
        let mut p = Perm::identity(n);
        for cycle in rest.split(')') {
            let cycle = cycle.trim().trim_start_matches('(');
            if cycle.is_empty() {
                continue;
            }
            let vs: Vec<usize> = cycle
                .split(',')
                .map(|v| v.trim().parse::<usize>().map_err(|e| format!("{v:?}: {e}")))
                .collect::<Result<_, _>>()?;
            if vs.contains(&0) {
                return Err("vertex 0".into());
            }
            let on_transfers = vs.iter().filter(|&&v| v <= n).count();
            if on_transfers != 0 && on_transfers != vs.len() {
                return Err("a cycle mixes transfers and links".into());
            }
            if on_transfers == 0 {
                continue;
            }
            for i in 0..vs.len() {
                p.perm[vs[i] - 1] = (vs[(i + 1) % vs.len()] - 1) as u32;
            }
        }
        gens.push(p);
    }
    Ok(gens)
}

/// The permutations to try for orbit schedules: the generators, their pairwise products
/// and the powers of each (σ^d for every divisor d of its order below it, up to order
/// 64), one per cyclic subgroup, without the identity, those with the fewest orbits on
/// the transfers first (the smallest exact covers), at most [`MAX_CANDIDATES`].
pub fn candidates(generators: &[Perm], n: usize) -> Vec<Perm> {
    let gens: Vec<&Perm> = generators.iter().take(12).collect();
    let mut base: Vec<Perm> = gens.iter().map(|g| (*g).clone()).collect();
    for i in 0..gens.len() {
        for j in i + 1..gens.len() {
            base.push(gens[i].after(gens[j]));
        }
    }
    let mut all: Vec<Perm> = Vec::new();
    for s in base {
        let m = s.order();
        if m <= 64 {
            for d in 2..m {
                if m % d == 0 {
                    all.push(s.pow(d));
                }
            }
        }
        all.push(s);
    }
    all.retain(|p| !p.is_identity() && p.perm.len() == n);
    let mut keyed: Vec<(usize, Perm)> = all.into_iter().map(|p| (p.cycles().len(), p)).collect();
    keyed.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.perm.cmp(&b.1.perm)));
    keyed.dedup_by(|a, b| a.1 == b.1);
    // One generator per cyclic subgroup: σ^j with j prime to σ's order generates the same
    // subgroup (the same orbit schedules).
    let mut seen: std::collections::HashSet<Vec<u32>> = std::collections::HashSet::new();
    let mut out = Vec::new();
    for (_, p) in keyed {
        if out.len() == MAX_CANDIDATES {
            break;
        }
        if seen.contains(&p.perm) {
            continue;
        }
        let m = p.order();
        if m <= 64 {
            let mut q = p.clone();
            for j in 1..m {
                if gcd(j, m) == 1 {
                    seen.insert(q.perm.clone());
                }
                q = p.after(&q);
            }
        }
        out.push(p);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bliss_output_is_parsed_onto_the_transfers() {
        let out = "Generator: (2,4)\nGenerator: (1,2)(3,4)(5,6)\n|Aut|: 8\n";
        let g = parse_generators(out, 4).expect("parses");
        assert_eq!(g[0].perm, vec![0, 3, 2, 1]);
        assert_eq!(g[1].perm, vec![1, 0, 3, 2]);
        assert!(parse_generators("Generator: (1,5)\n", 4).is_err());
    }

    #[test]
    fn orders_powers_and_products() {
        let r = Perm {
            perm: vec![1, 2, 3, 0],
        };
        assert_eq!(r.order(), 4);
        assert_eq!(r.pow(2).perm, vec![2, 3, 0, 1]);
        assert!(r.pow(4).is_identity());
        assert_eq!(r.after(&r), r.pow(2));
        // r and r³ generate one subgroup: r and r² are tried.
        let c = candidates(&[r.clone(), r.pow(3)], 4);
        assert_eq!(c.len(), 2, "{c:?}");
        assert_eq!(c[0].order(), 4, "one orbit first");
        assert_eq!(c[1], r.pow(2));
    }

    /// The 5 × 5 queen graph: its incidence graph's group is the square's (order 8),
    /// every generator bliss gives maps paths onto paths, the quarter turn of the board
    /// does too, and a transposition of two squares does not.
    #[test]
    fn bliss_finds_the_squares_symmetries_of_a_queen_graph() {
        let n = 5;
        let t = liquid_model::examples::queens(n);
        let Automorphisms::Found { generators, order } = automorphisms(&t, None) else {
            panic!("bliss is needed (scripts/setup installs it)")
        };
        assert_eq!(order, "8");
        assert!(!generators.is_empty());
        for g in &generators {
            assert!(g.is_automorphism_of(&t), "{g:?}");
        }
        let quarter = Perm {
            perm: (0..n * n)
                .map(|i| {
                    let (r, c) = (i / n, i % n);
                    (c * n + (n - 1 - r)) as u32
                })
                .collect(),
        };
        assert!(quarter.is_automorphism_of(&t));
        assert_eq!(quarter.order(), 4);
        let mut swap = Perm::identity(n * n);
        swap.perm.swap(0, 1);
        assert!(!swap.is_automorphism_of(&t));
        // The candidates hold a permutation of order 4 (a quarter turn: the product of
        // two reflections), all automorphisms.
        let c = candidates(&generators, n * n);
        assert!(c.iter().all(|p| p.is_automorphism_of(&t)));
        assert!(c.iter().any(|p| p.order() == 4), "{c:?}");
    }

    /// An odd cycle of five transfers: the dihedral group of order 10.
    #[test]
    fn bliss_finds_the_dihedral_group_of_an_odd_cycle() {
        let t = liquid_model::examples::odd_cycle();
        let Automorphisms::Found { generators, order } = automorphisms(&t, None) else {
            panic!("bliss is needed (scripts/setup installs it)")
        };
        assert_eq!(order, "10", "{t:?}");
        assert!(generators.iter().all(|g| g.is_automorphism_of(&t)));
    }

    #[test]
    fn a_missing_bliss_is_said_not_hidden() {
        let t = liquid_model::examples::odd_cycle();
        let r = automorphisms_with(&t, None, "/nonexistent/bliss");
        assert!(
            matches!(r, Automorphisms::Unavailable(ref why) if why.contains("apt-get install bliss")),
            "{r:?}"
        );
    }
}
