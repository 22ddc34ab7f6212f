//! The `--stream` commands without the rest of `liquid` (no HiGHS, no SAT): the same
//! library calls as `liquid solve|verify|analyze MODEL --stream`, with the same
//! arguments, printing the same reports as JSON. For measuring on a machine where the
//! full release build of `liquid` is not at hand:
//!
//! ```sh
//! cargo run --release -p liquid-stream --example stream -- solve fat-tree:32,3 --stream --schedule-out a.frames
//! cargo run --release -p liquid-stream --example stream -- verify fat-tree:32,3 a.frames --stream
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
            a => positional.push(a.to_string()),
        }
        i += 1;
    }
    let json = |v: &dyn erased::Json| println!("{}", v.json());
    let [command, spec, rest @ ..] = &positional[..] else {
        return Err("usage: stream solve|verify|analyze SPEC [FILE] [options]".into());
    };
    let tree = liquid_stream::model(spec).map_err(|e| e.to_string())?;
    let progress = AtomicU64::new(0);
    match command.as_str() {
        "analyze" => json(&liquid_stream::analysis::analyze(&tree, None)),
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
            if !r.valid {
                return Ok(ExitCode::from(1));
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
