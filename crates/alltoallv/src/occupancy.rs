//! Which frames each link still has room in, for the first-fit schedulers: a link of c
//! lanes ([`crate::bound::Platform::lanes`]) takes c messages per frame.

use liquid_model::{LinkId, Traffic, TransferId};

/// Per link, a bit per frame: set when the link is full in that frame.
pub(crate) struct Occupancy {
    lanes: Vec<u32>,
    full: Vec<Vec<u64>>,
    /// Per link of more than one lane, messages per frame.
    count: Vec<Vec<u32>>,
}

impl Occupancy {
    pub(crate) fn new(lanes: &[u32]) -> Occupancy {
        Occupancy {
            lanes: lanes.to_vec(),
            full: vec![Vec::new(); lanes.len()],
            count: vec![Vec::new(); lanes.len()],
        }
    }

    /// The words of frames where link `l` is full.
    pub(crate) fn full(&self, l: LinkId) -> &[u64] {
        &self.full[l.index()]
    }

    /// One more message on link `l` in frame `f`.
    pub(crate) fn take(&mut self, l: LinkId, f: usize) {
        let i = l.index();
        let now_full = if self.lanes[i] <= 1 {
            true
        } else {
            let c = &mut self.count[i];
            if c.len() <= f {
                c.resize(f + 1, 0);
            }
            c[f] += 1;
            c[f] >= self.lanes[i]
        };
        if now_full {
            let v = &mut self.full[i];
            if v.len() <= f / 64 {
                v.resize(f / 64 + 1, 0);
            }
            v[f / 64] |= 1 << (f % 64);
        }
    }
}

/// Whether every frame is a set of transfers that fits the links' lanes, checked by the
/// model's validator: when every link has one lane, each frame with
/// [`liquid_model::is_simultaneous`]; otherwise the frames' transfers are written as a
/// traffic of their own in which the k-th message of a frame on a link of several lanes
/// takes lane k (a link `NAME~k`), and [`liquid_model::validate`] checks that schedule of
/// it (no shared link, each entry once). Frames are lists of (transfer, piece) entries.
pub(crate) fn check_frames(
    traffic: &Traffic,
    lanes: &[u32],
    frames: &[Vec<(TransferId, u32)>],
) -> Result<(), String> {
    if lanes.iter().all(|&c| c <= 1) {
        for (f, frame) in frames.iter().enumerate() {
            let ts: Vec<TransferId> = frame.iter().map(|&(t, _)| t).collect();
            if !liquid_model::is_simultaneous(traffic, &ts) {
                return Err(format!(
                    "timeframe {}: two of its messages share a link",
                    f + 1
                ));
            }
        }
        return Ok(());
    }
    let mut b = liquid_model::TrafficBuilder::new(format!("{}-lanes", traffic.name()));
    let mut schedule = Vec::with_capacity(frames.len());
    let mut n = 0u32;
    for (f, frame) in frames.iter().enumerate() {
        let mut used: std::collections::HashMap<LinkId, u32> = std::collections::HashMap::new();
        let mut ids = Vec::with_capacity(frame.len());
        for &(t, i) in frame {
            let x = traffic.transfer(t);
            let path: Vec<String> = x
                .path
                .iter()
                .map(|&l| {
                    let name = traffic.link_name(l);
                    if lanes[l.index()] <= 1 {
                        return name.to_string();
                    }
                    let k = used.entry(l).or_insert(0);
                    *k += 1;
                    // A lane beyond the link's lanes: the frame overfills it, and the
                    // lane is the last one, shared, which the validator names.
                    format!("{name}~{}", (*k).min(lanes[l.index()]))
                })
                .collect();
            let refs: Vec<&str> = path.iter().map(String::as_str).collect();
            let at = format!("frame {} entry {}", f + 1, ids.len() + 1);
            b.transfer(
                &format!("{}#{}", x.id, i + 1),
                None,
                None,
                &refs,
                &at,
                &|j| format!("{at} link {j}"),
            )
            .map_err(|e| format!("timeframe {}: {e}", f + 1))?;
            ids.push(TransferId(n));
            n += 1;
        }
        schedule.push(ids);
    }
    let laned = b.build("frames").map_err(|e| e.to_string())?;
    liquid_model::validate(&laned, &liquid_model::Schedule::new(schedule))
        .map(|_| ())
        .map_err(|e| e.to_string())
}
