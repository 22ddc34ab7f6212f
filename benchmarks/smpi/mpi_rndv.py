#!/usr/bin/env python3
"""The rendezvous round trip of liquid's transport against SMPI running an explicit
rendezvous (issue 27).

SMPI simulates no handshake: a send of any size is one communication that starts once both
sides are posted (src/smpi/mpi/smpi_request.cpp). So the handshake is made explicit in the
MPI program (alltoall_rndv.c): each message of the eager limit or more performs Open MPI
1.1.2 ob1's rendezvous with point-to-point calls (a first fragment of data, an ACK from the
receiver once it has matched it, then the rest). The program runs the pairwise and the
basic linear all-to-all under SMPI (CM02, factors 1, as mpi_plans.py), and liquid's plan of
the same algorithm is simulated with the eager limit and its rendezvous on
(`cargo run --example mpi_alltoall`). Writes a Markdown table.
"""
import argparse
import os
import re
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from bench import CM02, must, run, smpi_program, two_cluster_args, two_cluster_platform  # noqa: E402

EAGER = 65536
# sizeof(mca_pml_ob1_hdr_t) in Open MPI 1.1.2 (crates/sim: OB1_HEADER_BYTES).
OB1_HEADER = 72


def main():
    ap = argparse.ArgumentParser()
    two_cluster_args(ap, sizes="65536,262144,1048576")
    ap.add_argument("--algorithms", default="pairwise,basic-linear")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="mpi-rndv-")
    prog, version = smpi_program(tmp, "alltoall_rndv.c")
    rows, worst = [], 0.0
    first = EAGER - OB1_HEADER
    for case in a.cases.split(";"):
        n1, n2 = (int(x) for x in case.split(","))
        d = two_cluster_platform(a.liquid, tmp, n1, n2)
        p = n1 + n2
        for size in (int(s) for s in a.sizes.split(",")):
            for window in (int(w) for w in a.windows.split(",")):
                for alg in a.algorithms.split(","):
                    # liquid: 1, the plan's ob1 handshakes (the study's MPI plans); 2, the
                    # engine's rendezvous (the study's other plans; receivers ready).
                    plan, engine = (float(must([a.example, str(n1), str(n2), str(size), alg, str(window),
                                                str(EAGER), mode, "0", "1"])[0].split()[1]) for mode in "12")
                    smpi = {}
                    for fb in (first, 0):
                        cfg = [c for c in CM02 if not c.startswith("--cfg=network/TCP-gamma")]
                        cfg += [f"--cfg=network/TCP-gamma:{window}", "--cfg=smpi/async-small-thresh:65536",
                                "--cfg=smpi/send-is-detached-thresh:65536", "--cfg=smpi/display-timing:no"]
                        cmd = ["smpirun", *cfg, "-platform", f"{d}/platform.xml", "-hostfile", f"{d}/hostfile",
                               "-np", str(p), prog, "linear" if alg == "basic-linear" else alg, str(size),
                               str(EAGER), str(fb)]
                        o, wall, err = run(cmd, a.timeout)
                        m = re.search(r"alltoall: ([0-9.eE+-]+) s", o or "")
                        if m is None:
                            raise SystemExit(f"mpi-rndv: {' '.join(cmd)} failed: {err}")
                        smpi[fb] = float(m.group(1))
                    t = smpi[first]
                    dp, de = (plan - t) / t, (engine - t) / t
                    worst = max(worst, abs(dp))
                    if alg == "basic-linear":
                        worst = max(worst, abs(de))
                    rows.append((case, size, window, alg, t, smpi[0], plan, dp, engine, de))
                    print(f"{case} {size} B window {window} {alg}: SMPI ob1 {t:.6f} s (RTS/CTS {smpi[0]:.6f}); "
                          f"liquid plan {plan:.6f} ({100 * dp:+.2f} %), engine {engine:.6f} ({100 * de:+.2f} %)",
                          file=sys.stderr, flush=True)
    with open(a.out, "w") as f:
        f.write("# The rendezvous: liquid against SMPI running Open MPI ob1's rendezvous explicitly\n\n")
        f.write(f"Command: `bash scripts/bench-mpi-rndv` ({time.strftime('%Y-%m-%d')}; {version}). "
                "Platform and SMPI settings as in `mpi-plans.md` (`liquid export simgrid two-clusters:N1,N2`; "
                "CM02, latency and bandwidth factors 1; sends below 64 KiB eager and detached). SMPI "
                "simulates no handshake (a send is one communication that starts once both sides are "
                "posted), so the MPI program does it with point-to-point calls "
                "(`benchmarks/smpi/alltoall_rndv.c`): each message of 64 KiB or more sends a first "
                f"fragment of {first} bytes at once, the receiver answers with an ACK of no data once its "
                "receive is posted and that fragment has arrived, and the sender then sends the rest, "
                "complete at delivery: Open MPI 1.1.2 ob1's rendezvous over TCP (the BTL's 64 KiB eager "
                f"limit less ob1's {OB1_HEADER}-byte header union). `SMPI ob1` is that run; `SMPI RTS/CTS` "
                "the same with a first fragment of no data (a plain request-to-send / clear-to-send, "
                "what liquid modelled before), for comparison only. liquid "
                "(`crates/sim/examples/mpi_alltoall.rs`, window, eager limit 65536, RTT-unfair sharing): "
                "`plan`, the MPI plan with ob1's three messages per rendezvous (what the study runs for the "
                "MPI libraries); `engine`, the engine's rendezvous on single messages that wait for the "
                "receive (what the study runs for its other plans, whose receivers are always ready: "
                "checked on basic linear, whose receives are all posted at the start; pairwise posts "
                "them round by round, so its `engine` column is not a check).\n\n")
        f.write(f"Largest difference (plan, and engine on basic linear): {100 * worst:.2f} %.\n\n")
        f.write("| n1,n2 | bytes | window | algorithm | SMPI ob1 (s) | SMPI RTS/CTS (s) | liquid plan (s) | diff "
                "| liquid engine (s) | diff |\n")
        f.write("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
        for case, size, window, alg, t, t0, plan, dp, engine, de in rows:
            f.write(f"| {case} | {size} | {window} | {alg} | {t:.6f} | {t0:.6f} | {plan:.6f} | {100 * dp:+.2f} % "
                    f"| {engine:.6f} | {100 * de:+.2f} % |\n")
    print(f"mpi-rndv: largest difference {100 * worst:.2f} % -> {a.out}")


if __name__ == "__main__":
    main()
