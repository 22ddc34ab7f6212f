//! The per-rank text format the C runtime reads (`rank-R.txt`), line by line.
//!
//! Every line is complete on its own, so a writer can emit a rank's file frame by frame
//! without knowing the totals in advance (the streaming path of issue 31 does). The full
//! description is in `crates/mpi/README.md`; in short:
//!
//! ```text
//! liquid-mpi 1                 header, first line
//! rank 3 10                    this rank, number of ranks
//! mode frames                  informational
//! expect 7 4096                bytes this rank must hold from rank 7 at the end
//! recv 0 7 4096                step 0: receive 4096 bytes from rank 7 (7's data for 3)
//! send 0 5 4096                step 0: send 4096 bytes to rank 5 (3's data for 5)
//! send 1 5 8192 3:5:0:4096 9:5:0:4096   pieces SRC:DST:OFFSET:LENGTH (a relay)
//! ssend 2 5 4096               a synchronous send (completes when matched)
//! wait all 0                   wait for the posted operations of step 0 (all|sends|recvs)
//! barrier                      MPI_Barrier
//! end                          last line: a file without it is truncated
//! ```

use std::fmt::Write as _;

use crate::program::{Message, Op, Piece, Wait};

/// The format version this crate writes and the runtime reads.
pub const VERSION: u32 = 1;

/// The last line of every rank file.
pub const END: &str = "end\n";

/// The first lines of rank `rank`'s file of a plan for `ranks` ranks.
pub fn header(rank: u32, ranks: u32, mode: &str) -> String {
    format!("liquid-mpi {VERSION}\nrank {rank} {ranks}\nmode {mode}\n")
}

/// The line saying that the rank must end up with `bytes` bytes from rank `src`.
pub fn expect(src: u32, bytes: u64) -> String {
    format!("expect {src} {bytes}\n")
}

/// The line of a message operation: `kind` is `send`, `ssend` or `recv`. The pieces are
/// left out when the message is exactly the sender's data for the receiver from offset 0,
/// or empty (the runtime's default: one piece, sender to receiver, from offset 0).
pub fn message_line(kind: &str, m: &Message) -> String {
    let peer = if kind == "recv" { m.from } else { m.to };
    let mut s = format!("{kind} {} {peer} {}", m.step, m.bytes());
    let implicit = m.pieces.len() == 1 && {
        let p = m.pieces[0];
        p.src == m.from && p.dst == m.to && p.offset == 0
    };
    if !implicit {
        for Piece {
            src,
            dst,
            offset,
            len,
        } in &m.pieces
        {
            let _ = write!(s, " {src}:{dst}:{offset}:{len}");
        }
    }
    s.push('\n');
    s
}

/// The line of one operation.
pub fn op_line(op: &Op, messages: &[Message]) -> String {
    match *op {
        Op::Recv(m) => message_line("recv", &messages[m]),
        Op::Send(m) => message_line("send", &messages[m]),
        Op::Ssend(m) => message_line("ssend", &messages[m]),
        Op::Wait(w, step) => {
            let what = match w {
                Wait::All => "all",
                Wait::Sends => "sends",
                Wait::Recvs => "recvs",
            };
            match step {
                Some(s) => format!("wait {what} {s}\n"),
                None => format!("wait {what}\n"),
            }
        }
        Op::Barrier => "barrier\n".to_string(),
    }
}
