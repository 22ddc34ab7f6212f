//! liquid's time for one MPI all-to-all algorithm on the two-cluster platform, for the
//! check against SMPI (`benchmarks/smpi/mpi_plans.py`):
//!
//!   cargo run --release -p liquid-sim --example mpi_alltoall -- N1 N2 BYTES ALGORITHM \
//!       [WINDOW [EAGER [RENDEZVOUS_RTT [SERIAL_OVERHEAD [RTT_UNFAIR]]]]]
//!
//! ALGORITHM: basic-linear, pairwise, pair, bruck, scattered-K, or a library
//! (mpi-ompi-1.1.2, mpi-ompi-4.1, mpi-mpich-3.3). WINDOW and EAGER in bytes (0: off):
//! sends of EAGER bytes or more complete at delivery. RENDEZVOUS_RTT says how they start:
//! - 0: single messages that wait for the receive (as SMPI's, which models no handshake:
//!   give 0 to compare with SMPI's own algorithms);
//! - 1: Open MPI ob1's rendezvous as three messages of the plan (first fragment, ACK once
//!   the receive is posted, rest: see `liquid_sim::mpi_alltoall`), as the study runs them;
//! - 2: single messages that wait for the receive, with the engine's rendezvous
//!   (`Transport::eager_limit_bytes`: ob1's protocol with the receiver ready), as the
//!   study runs its other plans' messages.
//!
//! RTT_UNFAIR 1: flows share links in inverse proportion to their latency, as CM02 does.
//! Prints the makespan in seconds.

use liquid_model::{Schedule, Traffic};
use liquid_sim::mpi_alltoall::{Algorithm, Library};
use liquid_sim::study::{Case, Phase, Scheduled, Setting};
use liquid_sim::Transport;

fn first_fit(_: Phase, t: &Traffic) -> Result<Scheduled, String> {
    let mut frames: Vec<Vec<liquid_model::TransferId>> = Vec::new();
    for x in t.transfer_ids() {
        match frames
            .iter_mut()
            .find(|f| f.iter().all(|&y| !t.congest(x, y)))
        {
            Some(f) => f.push(x),
            None => frames.push(vec![x]),
        }
    }
    Ok(Scheduled {
        schedule: Schedule::new(frames),
        source: "first fit".into(),
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let a: Vec<String> = std::env::args().skip(1).collect();
    if a.len() < 4 {
        return Err("usage: mpi_alltoall N1 N2 BYTES ALGORITHM [WINDOW [EAGER [RENDEZVOUS_RTT [SERIAL_OVERHEAD [RTT_UNFAIR]]]]]".into());
    }
    let n1: usize = a[0].parse()?;
    let n2: usize = a[1].parse()?;
    let bytes: f64 = a[2].parse()?;
    let num = |i: usize| -> Result<f64, Box<dyn std::error::Error>> {
        Ok(a.get(i).map_or(Ok(0.0), |x| x.parse())?)
    };
    let eager = (num(5)? != 0.0).then_some(num(5)?);
    let setting = Setting {
        transport: Transport {
            window_bytes: num(4)?,
            eager_limit_bytes: if num(6)? != 0.0 { eager } else { None },
            serial_overhead_s: num(7)?,
            rtt_unfair: num(8)? != 0.0,
        },
        ..Setting::default()
    };
    let case = Case::new(n1, n2, &setting, &mut first_fit)?;
    let p = n1 + n2;
    let algorithm = match a[3].as_str() {
        "basic-linear" => Algorithm::BasicLinear,
        "pairwise" => Algorithm::Pairwise,
        "pair" => Algorithm::Pair,
        "bruck" => Algorithm::Bruck,
        name => match (name.strip_prefix("scattered-"), Library::from_name(name)) {
            (Some(k), _) => Algorithm::Scattered {
                throttle: k.parse()?,
            },
            (None, Some(l)) => l.choose(p, bytes),
            (None, None) => return Err(format!("unknown algorithm {name:?}").into()),
        },
    };
    let mode = num(6)?;
    let plan = case.mpi_plan(algorithm, bytes, eager, mode == 1.0)?;
    // With RENDEZVOUS_RTT 1 the plan carries ob1's handshakes, so the engine adds none.
    let run = if mode == 1.0 {
        case.simulate_mpi(&plan, &setting)?
    } else {
        case.simulate(&plan, &setting)?
    };
    println!("{} {:.9}", algorithm.name(), run.makespan);
    Ok(())
}
