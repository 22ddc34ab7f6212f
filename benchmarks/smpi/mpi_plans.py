#!/usr/bin/env python3
"""liquid's plans of the MPI libraries' all-to-all algorithms against SMPI running the same
algorithm (issue 27).

For each case (two clusters), size and algorithm: the platform of `liquid export simgrid`
(the model's own routes, completed with a zero-cost control route for the pairs without
one, as in bench.py), then `smpirun --cfg=smpi/alltoall:NAME` of one MPI_Alltoall
(alltoall_once.c) under CM02 with its factors at 1, and liquid's time for the plan of the
same algorithm (`cargo run --example mpi_alltoall` of crates/sim), with sends below 64 KiB
sent at once and detached (SMPI: `smpi/async-small-thresh` and `send-is-detached-thresh`
at 65536), larger ones starting when the receive is posted, no rendezvous round trip
(SMPI does not model one) and CM02's RTT-unfair sharing. Each with the TCP window off (TCP-gamma 0) and at 128 KiB
(SMPI's `network/TCP-gamma:131072`, liquid's window). Writes a Markdown table.
"""
import argparse
import os
import re
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from bench import CM02, must, run, smpi_program, two_cluster_args, two_cluster_platform  # noqa: E402

ALGS = [("basic-linear", "basic_linear"), ("pairwise", "ring"), ("bruck", "bruck"), ("pair", "pair")]


def main():
    ap = argparse.ArgumentParser()
    two_cluster_args(ap, sizes="1024,65536,1048576")
    ap.add_argument("--overheads", default="0.00001,0.001",
                    help="serial overheads (s) checked on the first case at 1 KiB, window 0")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="mpi-plans-")
    prog, version = smpi_program(tmp, "alltoall_once.c")
    rows, worst = [], 0.0
    for case in a.cases.split(";"):
        n1, n2 = (int(x) for x in case.split(","))
        spec = f"two-clusters:{n1},{n2}"
        d = two_cluster_platform(a.liquid, tmp, n1, n2)
        p = n1 + n2
        for size in (int(s) for s in a.sizes.split(",")):
            for window in (int(w) for w in a.windows.split(",")):
                for alg, smpi in ALGS:
                    if alg == "pair" and p & (p - 1):
                        continue
                    out, _ = must([a.example, str(n1), str(n2), str(size), alg, str(window), "65536", "0", "0", "1"])
                    liquid = float(out.split()[1])
                    cfg = CM02[:] + [f"--cfg=smpi/alltoall:{smpi}"]
                    cfg = [c for c in cfg if not c.startswith("--cfg=network/TCP-gamma")]
                    cfg.append(f"--cfg=network/TCP-gamma:{window}")
                    # Eager sends below 64 KiB as Open MPI's TCP BTL makes them: sent at once
                    # and buffered by the receiver (SMPI otherwise starts every transfer
                    # only once the receive is posted), the sender not waiting.
                    cfg += ["--cfg=smpi/async-small-thresh:65536", "--cfg=smpi/send-is-detached-thresh:65536"]
                    cmd = ["smpirun", *cfg, "--cfg=smpi/display-timing:no", "-platform", f"{d}/platform.xml",
                           "-hostfile", f"{d}/hostfile", "-np", str(p), prog, str(size)]
                    o, wall, err = run(cmd, a.timeout)
                    if o is None:
                        rows.append((case, size, window, alg, smpi, liquid, None, None, wall, err.splitlines()[-1] if err else ""))
                        continue
                    m = re.search(r"alltoall: ([0-9.eE+-]+) s", o)
                    t = float(m.group(1))
                    diff = (liquid - t) / t
                    worst = max(worst, abs(diff))
                    rows.append((case, size, window, alg, smpi, liquid, t, diff, wall, ""))
                    print(f"{spec} {size} B window {window}: {alg} liquid {liquid:.6f} s, SMPI {t:.6f} s ({100*diff:+.2f} %)",
                          file=sys.stderr, flush=True)
    # The serial overhead per message (LogGP o): SMPI's smpi/os and smpi/ois (a sleep of the
    # sender before each send, blocking or not), liquid's serial_overhead_s.
    orows = []
    n1, n2 = (int(x) for x in a.cases.split(";")[0].split(","))
    d = f"{tmp}/{n1}-{n2}"
    for o in (float(x) for x in a.overheads.split(",") if x):
        for alg, smpi in ALGS[:2]:
            out, _ = must([a.example, str(n1), str(n2), "1024", alg, "0", "65536", "0", str(o), "1"])
            liquid = float(out.split()[1])
            cfg = [c for c in CM02 if not c.startswith("--cfg=network/TCP-gamma")]
            cfg += ["--cfg=network/TCP-gamma:0", f"--cfg=smpi/alltoall:{smpi}",
                    "--cfg=smpi/async-small-thresh:65536", "--cfg=smpi/send-is-detached-thresh:65536",
                    f"--cfg=smpi/os:0:{o}:0", f"--cfg=smpi/ois:0:{o}:0"]
            cmd = ["smpirun", *cfg, "--cfg=smpi/display-timing:no", "-platform", f"{d}/platform.xml",
                   "-hostfile", f"{d}/hostfile", "-np", str(n1 + n2), prog, "1024"]
            o_out, wall, err = must(cmd)[0], None, None
            t = float(re.search(r"alltoall: ([0-9.eE+-]+) s", o_out).group(1))
            diff = (liquid - t) / t
            worst = max(worst, abs(diff))
            orows.append((f"{n1},{n2}", o, alg, smpi, liquid, t, diff))
            print(f"overhead {o}: {alg} liquid {liquid:.6f} s, SMPI {t:.6f} s ({100*diff:+.2f} %)", file=sys.stderr, flush=True)
    with open(a.out, "w") as f:
        f.write("# MPI all-to-all algorithms: liquid's plans against SMPI\n\n")
        f.write(f"Command: `bash scripts/bench-mpi-plans` ({time.strftime('%Y-%m-%d')}; {version}). "
                "Platform: `liquid export simgrid two-clusters:N1,N2` (001's defaults: 125 MB/s node cards, "
                "25 µs per node link, 1250 MB/s backbone of 5 ms); SMPI under CM02 with latency and "
                "bandwidth factors 1, weight-S 0, no cross-traffic; one `MPI_Alltoall` of MPI_BYTEs "
                "(`benchmarks/smpi/alltoall_once.c`) with `--cfg=smpi/alltoall:NAME`, the time from the "
                "start to the last rank's return. liquid: the plan of the same algorithm "
                "(`crates/sim/src/mpi_alltoall.rs`): sends below 64 KiB leave at once and complete at once "
                "(SMPI: `--cfg=smpi/async-small-thresh:65536 --cfg=smpi/send-is-detached-thresh:65536`), "
                "larger ones leave when the receive is posted and complete at delivery; no rendezvous round trip (SMPI models none), "
                "links shared in inverse proportion to route latency (CM02's RTT unfairness). "
                "window: liquid's TCP window = SMPI's `network/TCP-gamma` (0: off).\n\n")
        f.write(f"Largest difference: {100*worst:.2f} %.\n\n")
        f.write("| n1,n2 | bytes | window | algorithm | SMPI name | liquid (s) | SMPI (s) | diff | SMPI wall (s) |\n")
        f.write("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
        for case, size, window, alg, smpi, liquid, t, diff, wall, err in rows:
            if t is None:
                f.write(f"| {case} | {size} | {window} | {alg} | {smpi} | {liquid:.6f} | failed: {err} | | {wall:.1f} |\n")
            else:
                f.write(f"| {case} | {size} | {window} | {alg} | {smpi} | {liquid:.6f} | {t:.6f} | {100*diff:+.2f} % | {wall:.1f} |\n")
        if orows:
            f.write("\nSerial overhead per message (LogGP o): liquid's `serial_overhead_s` against SMPI's "
                    "`smpi/os` and `smpi/ois` (a sleep of the sender before each send), 1 KiB, window 0.\n\n")
            f.write("| n1,n2 | o (s) | algorithm | SMPI name | liquid (s) | SMPI (s) | diff |\n")
            f.write("| --- | --- | --- | --- | --- | --- | --- |\n")
            for case, o, alg, smpi, liquid, t, diff in orows:
                f.write(f"| {case} | {o} | {alg} | {smpi} | {liquid:.6f} | {t:.6f} | {100*diff:+.2f} % |\n")
    print(f"mpi-plans: largest difference {100*worst:.2f} % -> {a.out}")


if __name__ == "__main__":
    main()
