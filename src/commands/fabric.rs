//! `liquid import ib` (a real InfiniBand fabric and its subnet manager's routes as a
//! model) and `liquid export ibsim` (a network as a net file for ibsim).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use liquid_fabric::hosts::{self, Selection};
use liquid_fabric::{import, FabricError};

use crate::{InputError, EXIT_REJECTED};

/// `liquid import ib`'s arguments.
#[derive(Debug, clap::Args)]
pub struct ImportIbArgs {
    /// The fabric as `ibnetdiscover` prints it (default form or `-p`).
    topology: PathBuf,
    /// The switches' forwarding tables: OpenSM's opensm-lfts.dump (opensm
    /// --dump_files_dir DIR, debug level 0x40), or `dump_fts` / `ibroute` output.
    lfts: PathBuf,
    /// The hosts of the traffic, in Slurm's hostlist syntax (`n[001-016,020]`); spaces and
    /// newlines separate hosts like commas. Without --hosts or --hostfile, $SLURM_JOB_NODELIST when set, otherwise every adapter.
    #[arg(long, value_name = "LIST", conflicts_with = "hostfile")]
    hosts: Option<String>,
    /// The hosts of the traffic, one per line (the first word: Open MPI host files work).
    #[arg(long, value_name = "FILE")]
    hostfile: Option<PathBuf>,
    /// Import the routed pairs when the subnet manager left some pairs unrouted, and list
    /// the others (default: refuse, naming the switch and LID).
    #[arg(long)]
    allow_unrouted: bool,
    /// Check the imported routes against `ibtracert SLID DLID` output (traces
    /// concatenated): exit 1 when any trace disagrees.
    #[arg(long, value_name = "FILE")]
    tracert: Option<PathBuf>,
    /// The model's name (default: the topology file's name without extension).
    #[arg(long, value_parser = clap::builder::NonEmptyStringValueParser::new())]
    name: Option<String>,
    /// Where to write the model (default: stdout).
    #[arg(long, value_name = "MODEL.yaml")]
    out: Option<PathBuf>,
}

fn input(e: FabricError) -> anyhow::Error {
    InputError::of(e)
}

/// The hosts `--hosts LIST` or `--hostfile FILE` select (`None`: neither given), for
/// `import ib` and `study routing`.
pub fn host_selection(
    list: Option<&str>,
    file: Option<&Path>,
) -> anyhow::Result<Option<Selection>> {
    Ok(match (list, file) {
        (Some(list), _) => Some(hosts::hostlist("--hosts", list).map_err(input)?),
        (None, Some(file)) => Some(
            hosts::hostfile(
                &file.display().to_string(),
                &liquid_fabric::read(file).map_err(input)?,
            )
            .map_err(input)?,
        ),
        (None, None) => None,
    })
}

/// `liquid import ib`.
pub fn import_ib(a: &ImportIbArgs) -> anyhow::Result<ExitCode> {
    super::refuse_overwriting_inputs(
        &[("--out", a.out.as_deref())],
        &[
            ("the topology file", Some(&a.topology)),
            ("the forwarding tables' file", Some(&a.lfts)),
            ("the --hostfile file", a.hostfile.as_deref()),
            ("the --tracert file", a.tracert.as_deref()),
        ],
    )?;
    let tname = a.topology.display().to_string();
    let lname = a.lfts.display().to_string();
    let topo =
        liquid_fabric::topology::parse(&tname, &liquid_fabric::read(&a.topology).map_err(input)?)
            .map_err(input)?;
    let lfts = liquid_fabric::lft::parse(&lname, &liquid_fabric::read(&a.lfts).map_err(input)?)
        .map_err(input)?;
    let selection = match host_selection(a.hosts.as_deref(), a.hostfile.as_deref())? {
        Some(s) => s,
        None => match std::env::var("SLURM_JOB_NODELIST") {
            Ok(list) if !list.trim().is_empty() => {
                // Said, since nothing on the command line asked for it.
                eprintln!(
                    "import ib: the hosts are the job's, from SLURM_JOB_NODELIST ({list}); \
                     --hosts chooses others"
                );
                hosts::hostlist("SLURM_JOB_NODELIST", &list).map_err(input)?
            }
            _ => Selection::All,
        },
    };
    let name = a.name.clone().unwrap_or_else(|| {
        a.topology
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "fabric".into())
    });
    let imported = import::import(
        &topo,
        &lfts,
        &import::Options {
            name,
            selection,
            allow_unrouted: a.allow_unrouted,
        },
    )
    .map_err(input)?;
    let s = &imported.summary;
    let mut err = std::io::stderr().lock();
    writeln!(
        err,
        "import ib: {} switches, {} adapters; {} hosts, {} routes followed, {} unrouted",
        s.switches,
        s.adapters,
        s.hosts,
        s.routes,
        s.unrouted.len()
    )?;
    let hops: Vec<String> = s.hops.iter().map(|(h, n)| format!("{h}: {n}")).collect();
    writeln!(
        err,
        "import ib: routes by links crossed: {}",
        hops.join(", ")
    )?;
    for n in &imported.notes {
        writeln!(err, "import ib: note: {n}")?;
    }
    let mut code = ExitCode::SUCCESS;
    if let Some(file) = &a.tracert {
        let fname = file.display().to_string();
        let text = liquid_fabric::read(file).map_err(input)?;
        let check = import::check_tracert(&imported, &topo, &lfts, &fname, &text).map_err(input)?;
        for d in &check.disagreements {
            writeln!(err, "import ib: disagrees: {d}")?;
        }
        writeln!(
            err,
            "import ib: ibtracert: {} of {} traces agree{}",
            check.compared - check.disagreements.len(),
            check.compared,
            match check.failed_unrouted {
                0 => String::new(),
                n => format!(" ({n} found no route, for pairs the subnet manager left unrouted)"),
            }
        )?;
        if check.failed_unchecked > 0 {
            writeln!(
                err,
                "import ib: ibtracert: {} more traces found no route for pairs the model routes; \
                 not checked: on a fabric left partly unrouted, ibtracert cannot reach every \
                 switch by LID",
                check.failed_unchecked
            )?;
        }
        if check.outside > 0 {
            writeln!(
                err,
                "import ib: ibtracert: {} more traces are from or to hosts the selection left \
                 out; not checked",
                check.outside
            )?;
        }
        if check.other_port > 0 {
            writeln!(
                err,
                "import ib: ibtracert: {} more traces are from or to a port of an adapter that \
                 the model does not route by (a host uses its adapter's lowest-numbered \
                 connected port); not checked",
                check.other_port
            )?;
        }
        if let Some(first) = check.other_lid.first() {
            writeln!(
                err,
                "import ib: ibtracert: {} more traces follow the route of another LID of their \
                 destination's range (LMC > 0; ibtracert prints the range, not the LID it was \
                 given), not the base LID's that the model follows; not disagreements (first: \
                 {first})",
                check.other_lid.len()
            )?;
        }
        if check.self_traces > 0 {
            writeln!(
                err,
                "import ib: ibtracert: {} more traces are from a host to itself (an \
                 all-to-all has no such pair); not checked",
                check.self_traces
            )?;
        }
        if check.switch > 0 {
            writeln!(
                err,
                "import ib: ibtracert: {} more traces are from or to a switch's LID (the \
                 model routes between hosts); not checked",
                check.switch
            )?;
        }
        if !check.disagreements.is_empty() {
            code = ExitCode::from(EXIT_REJECTED);
        }
    }
    write_out(a.out.as_deref(), &imported.to_yaml())?;
    Ok(code)
}

fn write_out(out: Option<&Path>, text: &str) -> anyhow::Result<()> {
    match out {
        Some(path) => std::fs::write(path, text)
            .map_err(|e| InputError::of(format!("{}: cannot write: {e}", path.display())))?,
        None => std::io::stdout().lock().write_all(text.as_bytes())?,
    }
    Ok(())
}

/// `liquid export ibsim`'s arguments.
#[derive(Debug, clap::Args)]
pub struct ExportIbsimArgs {
    /// A network-form model file, or a generated-model spec (see `analyze --help`).
    model: PathBuf,
    /// Where to write the net file (default: stdout).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

/// `liquid export ibsim`.
pub fn export_ibsim(a: &ExportIbsimArgs) -> anyhow::Result<ExitCode> {
    super::refuse_overwriting_inputs(
        &[("--out", a.out.as_deref())],
        &[("the model file", Some(&a.model))],
    )?;
    let text = liquid_fabric::ibsim::export(&a.model).map_err(input)?;
    write_out(a.out.as_deref(), &text)?;
    Ok(ExitCode::SUCCESS)
}
