//! The `--stream` commands without the rest of `liquid` (no HiGHS, no SAT): the same
//! library calls as `liquid solve|verify|analyze MODEL --stream`, with the same
//! arguments, printing the same reports as JSON. For measuring on a machine where the
//! full release build of `liquid` is not at hand:
//!
//! ```sh
//! cargo run --release -p liquid-stream --example stream -- solve fat-tree:32,3 --stream --schedule-out a.frames
//! cargo run --release -p liquid-stream --example stream -- verify fat-tree:32,3 a.frames --stream
//! cargo run --release -p liquid-stream --example stream -- export mpi fat-tree:16,3 --stream --out plan --size 1000000 --link-throughput 12500
//! ```

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicU64;

fn main() -> ExitCode {
    match run() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<ExitCode, String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut positional = Vec::new();
    let (mut out, mut prefix) = (None, None);
    let (mut dir, mut size, mut mb, mut latency) = (None, 1e6, None, None);
    let number = |x: Option<&String>| x.and_then(|x| x.parse::<f64>().ok());
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--stream" => {}
            "--schedule-out" => {
                i += 1;
                out = args.get(i).map(PathBuf::from);
            }
            "--prefix" => {
                i += 1;
                prefix = args.get(i).and_then(|x| x.parse::<u64>().ok());
            }
            "--format" => i += 1,
            "--out" => {
                i += 1;
                dir = args.get(i).map(PathBuf::from);
            }
            "--size" => {
                i += 1;
                size = number(args.get(i)).ok_or("--size takes a number")?;
            }
            "--link-throughput" => {
                i += 1;
                mb = number(args.get(i));
            }
            "--link-latency" => {
                i += 1;
                latency = number(args.get(i));
            }
            a => positional.push(a.to_string()),
        }
        i += 1;
    }
    let json = |v: &dyn erased::Json| println!("{}", v.json());
    if positional.first().map(String::as_str) == Some("export") {
        if positional.get(1).map(String::as_str) != Some("mpi") {
            return Err("usage: stream export mpi SPEC --out DIR [--size B] ...".into());
        }
        positional.remove(1);
    }
    let [command, spec, rest @ ..] = &positional[..] else {
        return Err("usage: stream solve|verify|analyze SPEC [FILE] [options]".into());
    };
    let tree = liquid_stream::model(spec).map_err(|e| e.to_string())?;
    let progress = AtomicU64::new(0);
    match command.as_str() {
        "analyze" => json(&liquid_stream::analysis::analyze_model(&tree, None)),
        "solve" => {
            let options = liquid_stream::SolveOptions {
                out: out.as_deref(),
                prefix: prefix.map(|p| p as usize),
                time_limit: None,
                mpi: None,
            };
            match liquid_stream::solve(&tree, &options, &progress).map_err(|e| e.to_string())? {
                Ok(r) => json(&r),
                Err((why, r)) => {
                    json(&r);
                    eprintln!("internal error: {why}");
                    return Ok(ExitCode::from(3));
                }
            }
        }
        "verify" => {
            let file = rest.first().ok_or("verify needs a schedule file")?;
            let options = liquid_stream::VerifyOptions {
                prefix,
                time_limit: None,
            };
            let r = liquid_stream::verify_file(&tree, file.as_ref(), &options, &progress)
                .map_err(|e| e.to_string())?;
            json(&r);
            if r.valid != Some(true) {
                return Ok(ExitCode::from(1));
            }
        }
        "export" => {
            let dir = dir.ok_or("export mpi needs --out DIR")?;
            let asked = liquid_stream::mpi::Asked {
                dir: &dir,
                plan_is_schedule: true,
                frames_mode: true,
                schedule_or_engine: false,
                sizes_file: false,
                size,
                link_throughput: mb,
                link_latency: latency,
                overhead: 0.0,
                envelope: 0.0,
                eager_limit: 65536,
            };
            let mpi = liquid_stream::mpi::options_from(&tree, &asked).map_err(|e| e.to_string())?;
            let options = liquid_stream::SolveOptions {
                out: None,
                prefix: None,
                time_limit: None,
                mpi: Some(&mpi),
            };
            match liquid_stream::solve(&tree, &options, &progress).map_err(|e| e.to_string())? {
                Ok(r) => json(&r),
                Err((why, r)) => {
                    json(&r);
                    eprintln!("internal error: {why}");
                    return Ok(ExitCode::from(3));
                }
            }
        }
        c => return Err(format!("unknown command {c:?}")),
    }
    Ok(ExitCode::SUCCESS)
}

mod erased {
    /// A report printable as JSON.
    pub trait Json {
        fn json(&self) -> String;
    }
    impl<T: serde::Serialize> Json for T {
        fn json(&self) -> String {
            serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("\"{e}\""))
        }
    }
}
