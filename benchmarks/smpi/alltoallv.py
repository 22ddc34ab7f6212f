#!/usr/bin/env python3
"""All-to-allv (issue 43) under SimGrid SMPI, beside liquid's prediction of the same run.

For every model, size distribution and bytes per rank: `liquid generate sizes` (seed 1),
then `liquid export mpi --sizes` of six plans (the preemptive schedule by chunks, `--plan
pieces`, and the non-preemptive one, `--plan whole`, each frame by frame with a barrier
between frames and again with `--mode async`: no barrier, each rank's messages in
schedule order, each a synchronous send; `--plan all-at-once`; `--plan pairwise`) with
liquid's prediction of the run (`--envelope 16`: SMPI's envelope), and `liquid export
simgrid` (the platform). Each plan runs with `liquid-mpi-run` (crates/mpi/runtime, built
with smpicc) under SMPI CM02 with every correction at 1 or off (benchmarks/smpi/bench.py's
CM02, the setting of the equal-size runs), and the same counts through the MPI library's
own MPI_Alltoallv with SMPI's copy of Open MPI's algorithm choice
(`--cfg=smpi/coll-selector:ompi`) under the same CM02.

Parameters (fixed before the first run): fat-tree:4,3, fat-tree:8,3 and the Swiss-T1
allocation t1:4,4,4,4,0,0,2,1 at 1000 MB/s per link (as scripts/bench-alltoallv) and
two-clusters:16,16 with the model's links (paper 001); uniform, Zipf s = 1.0 and 1.5 and
one-hot sizes (as scripts/bench-alltoallv), 1 KiB, 1 MiB and 64 MiB per rank; overhead 0
(SMPI with smpi/simulate-computation:no charges no processor time per message, so
liquid's prediction takes none either); SMPI's 16-byte envelope; CM02's sharing, each
flow's share in inverse proportion to its route latency (`--rtt-unfair`: CM02 sets a
flow's sharing penalty to its route latency, src/surf/network_cm02.cpp, and no option
turns that off while links have latencies; added in a third session, once measured, with
no parameter of its own: alltoallv-smpi.md). An SMPI run longer than
--timeout seconds of wall time (default 900) is stopped and its row says so. Writes a
Markdown table to --out; exits 1 when a CM02 run of a liquid plan (pieces, whole, and
their async runs) differs from liquid's prediction by more than --tolerance.

The clock: every run here adds `--cfg=smpi/wtime:0` to CM02. SMPI injects 10 ns of
simulated time into every `MPI_Wtime` call (`smpi/wtime`, default 1e-8,
src/smpi/internals/smpi_bench.cpp), and the runtime reads the clock at every posting and
every completion to time each step: 2 reads per operation, up to 0.6 us per run on
fat-tree:4,3 at 1 KiB per rank (+5 % to +22 % of runs of 2-10 us), a cost of the
measurement, not of the exchange that liquid predicts (alltoallv-smpi.md, "The 1 KiB
rows"). It is SMPI's injected time of a clock read, as `smpi/test` and `smpi/iprobe`
(already 0 in CM02) are of MPI_Test and MPI_Iprobe.

Shared malloc: runs whose bytes are checked use `smpi/shared-malloc:off` (every byte
real); the others use SMPI's global shared malloc (CM02's setting: every allocation of at
least 64 KiB through smpicc's `malloc` maps the same bytes), which shares the message
data. The runtime keeps its own bookkeeping (plan, requests, buffer pointers, statistics)
in the C library's memory (`liquid_mem_alloc`, crates/mpi/runtime/liquid_mpi.c): before
that, SMPI shared those arrays too once they reached 64 KiB (8,192 operations of a rank),
and 7 runs at 64 MiB per rank (8,000-20,000 pieces) and every `pieces` run at 64 MiB on
fat-tree:8,3 crashed (alltoallv-smpi.md, "SMPI's shared malloc"); they run now, and the
benchmark's re-run with shared malloc off after such a crash (`--fallback-bytes`) is gone.
"""

import argparse
import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import CM02, complete_routes, must, rel, pct, sec  # noqa: E402

MODELS = [
    ("fat-tree:4,3", ["--link-throughput", "1000"]),
    ("t1:4,4,4,4,0,0,2,1", ["--link-throughput", "1000"]),
    ("two-clusters:16,16", []),
    ("fat-tree:8,3", ["--link-throughput", "1000"]),
]
DISTS = [("uniform", []), ("zipf", ["--zipf-s", "1.0"]), ("zipf", ["--zipf-s", "1.5"]),
         ("one-hot", [])]
PER_RANK = ["1KiB", "1MiB", "64MiB"]
PLANS = [
    ("pieces", ["--plan", "pieces"]),
    ("whole", ["--plan", "whole"]),
    ("pieces async", ["--plan", "pieces", "--mode", "async"]),
    ("whole async", ["--plan", "whole", "--mode", "async"]),
    ("all-at-once", ["--plan", "all-at-once"]),
    ("pairwise", ["--plan", "pairwise"]),
]
LIQUID = ("pieces", "whole", "pieces async", "whole async")
# SMPI's injected time per MPI_Wtime call off: the runtime's own step timing (2 clock reads
# per operation) is not part of the exchange (see the docstring).
CLOCK = ["--cfg=smpi/wtime:0"]


def smpirun(cfg, d, ranks, prog, args, timeout, platform_xml):
    """smpirun in a process group of its own, the whole group stopped (by its id) when it
    runs longer than `timeout` seconds, or as soon as the runtime reports an error (a rank
    that cannot post a message leaves its peers waiting for ever): (stdout or None, wall
    seconds, error or None)."""
    cmd = ["smpirun", *cfg, "--cfg=smpi/display-timing:no", "-platform", f"{d}/{platform_xml}",
           "-hostfile", f"{d}/hostfile", "-np", str(ranks), prog, *args]
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen(cmd, stdout=out, stderr=err, start_new_session=True)
        stopped, seen = None, 0
        while p.poll() is None:
            try:
                p.wait(timeout=0.5)
            except subprocess.TimeoutExpired:
                pass
            if p.poll() is not None:
                break
            if time.perf_counter() - t0 > timeout:
                stopped = "timeout"
            else:
                err.seek(seen)
                new = err.read()
                seen += len(new)
                if b"liquid-mpi: error:" in new:
                    stopped = "the runtime reported an error"
            if stopped:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
        wall = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        o, e = (f.read().decode(errors="replace") for f in (out, err))
    if stopped == "timeout":
        return None, wall, "timeout"
    if stopped or p.returncode != 0:
        lines = [l for l in (e + o).splitlines()
                 if "xbt_cfg/INFO" not in l and "did not return 0" not in l]
        return None, wall, "\n".join(lines[-8:])
    return o, wall, None


def pick(flag, value, names):
    """The names that `value` (names with ';' between; none given: all) keeps, in the order of
    `names`; a name not in `names` stops the script, naming `flag`."""
    if not value:
        return list(names)
    keep = value.split(";")
    unknown = set(keep) - set(names)
    if unknown:
        raise SystemExit(f"alltoallv-smpi: {flag}: unknown {sorted(unknown)}")
    return [n for n in names if n in keep]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--liquid", required=True)
    ap.add_argument("--out", default="benchmarks/results/alltoallv-smpi.md")
    ap.add_argument("--timeout", type=float, default=900,
                    help="wall seconds per SMPI run (default 900)")
    ap.add_argument("--tolerance", type=float, default=0.02)
    ap.add_argument("--quick", action="store_true", help="the first model at 1 MiB only")
    ap.add_argument("--models", help="only these models (comma-separated specs, ';' between)")
    ap.add_argument("--plans", help="only these plans, ';' between (of: " + "; ".join(
        p for p, _ in PLANS) + "; ompi for MPI_Alltoallv)")
    ap.add_argument("--dists", help="only these size distributions, ';' between (of: uniform; "
                    "zipf s=1.0; zipf s=1.5; one-hot)")
    ap.add_argument("--per-rank", help="only these bytes per rank, ';' between (of: "
                    + "; ".join(PER_RANK) + ")")
    a = ap.parse_args()
    keep = pick("--models", a.models, [m[0] for m in MODELS])
    models = [m for m in (MODELS[:1] if a.quick else MODELS) if m[0] in keep]
    keep = pick("--plans", a.plans, [p for p, _ in PLANS] + ["ompi"])
    plans = [p for p in PLANS if p[0] in keep]
    run_ompi = "ompi" in keep
    names = {f"{d}{' s=' + e[1] if e else ''}": (d, e) for d, e in DISTS}
    dists = [names[k] for k in pick("--dists", a.dists, list(names))]
    if a.per_rank:
        per_rank = pick("--per-rank", a.per_rank, PER_RANK)
    else:
        per_rank = ["1MiB"] if a.quick else PER_RANK
    tmp = tempfile.mkdtemp(prefix="bench-smpi-a2av-")
    rt = "crates/mpi/runtime"
    runner, bench = f"{tmp}/liquid-mpi-run", f"{tmp}/alltoallv-bench"
    must(["smpicc", "-O2", "-std=c99", "-o", runner, f"{rt}/liquid_mpi.c", f"{rt}/liquid_mpi_run.c", "-lm"])
    must(["smpicc", "-O2", "-std=c99", "-o", bench, f"{rt}/liquid_mpi.c", f"{rt}/alltoallv_bench.c", "-lm"])
    version = must(["smpirun", "-version"])[0].strip().splitlines()[-1]
    rows, worst = [], {}
    for model, link in models:
        for dist, extra in dists:
            dname = f"{dist}{' s=' + extra[1] if extra else ''}"
            for b in per_rank:
                tag = f"{model}-{dist}{extra[1] if extra else ''}-{b}".replace(":", "_").replace(",", "-")
                sizes = f"{tmp}/{tag}.csv"
                must([a.liquid, "generate", "sizes", model, "--dist", dist, *extra,
                      "--bytes-per-rank", b, "--seed", "1", "--out", sizes])
                bound = json.loads(must([a.liquid, "analyze", model, "--sizes", sizes, *link,
                                         "--format", "json"])[0])["time_bound"]["seconds"]
                base = None
                for label, pargs in plans:
                    d = f"{tmp}/{tag}-{label.replace(' ', '-')}"
                    common = [model, "--sizes", sizes, *link]
                    try:
                        must([a.liquid, "export", "mpi", *common, *pargs, "--envelope", "16",
                              "--rtt-unfair", "--out", d])
                        # The platform in a folder of its own (an export replaces what
                        # liquid wrote).
                        must([a.liquid, "export", "simgrid", *common, "--mode", "all-at-once",
                              "--out", f"{d}/sg"])
                    except SystemExit as e:
                        # liquid itself failed (e.g. out of memory): the row says so, the
                        # benchmark goes on.
                        print(f"alltoallv-smpi: {tag} {label}: {e}", file=sys.stderr)
                        rows.append((model, dname, b, label, None, None, False, bound, None, None,
                                     None, None, "export"))
                        continue
                    complete_routes(f"{d}/sg/platform.xml")
                    man = json.load(open(f"{d}/manifest.json"))
                    ranks, predicted = len(man["ranks"]), man["prediction"]["total_s"]
                    check = 3 * man["bytes"] <= 2**30
                    args = ([] if check else ["--no-check"]) + [
                        "--timeout", "0", "--quiet", "--report", f"{d}/smpi-cm02.json", d]
                    o, w, err = cm02_run(a, d, ranks, runner, args, check)
                    cm02 = None
                    if o is None:
                        print(f"alltoallv-smpi: {tag} {label}: {err}", file=sys.stderr)
                    else:
                        rep = json.load(open(f"{d}/smpi-cm02.json"))
                        if rep["errors"] != 0:
                            raise SystemExit(f"alltoallv-smpi: {tag} {label}: {rep['errors']} byte errors")
                        cm02 = rep["total_s"]
                    r = rel(cm02, predicted)
                    if r is not None and label in LIQUID:
                        worst[label] = max(worst.get(label, 0.0), abs(r))
                    if base is None and run_ompi:
                        # The library's MPI_Alltoallv of the same counts, Open MPI's choice.
                        o2, w2, err2 = cm02_run(a, d, ranks, bench, [d], False,
                                                ["--cfg=smpi/coll-selector:ompi"])
                        if o2 is None:
                            print(f"alltoallv-smpi: {tag} ompi: {err2}", file=sys.stderr)
                            base = ("—", None, w2, err2)
                        else:
                            line = [l for l in o2.splitlines() if l.startswith("alltoall")][-1]
                            base = (line.split(":")[0], float(line.split()[1]), w2, None)
                    rows.append((model, dname, b, label, ranks, man["messages"], check, bound,
                                 predicted, cm02, r, w, err))
                    print(f"alltoallv-smpi: {tag} {label}: liquid {predicted:.6f} s, CM02 "
                          f"{sec(cm02)} ({pct(r)}), {w:.1f} s wall", file=sys.stderr)
                if base is not None:
                    name = f"MPI_{base[0].capitalize() if base[0] != '—' else 'Alltoallv'} (ompi)"
                    rows.append((model, dname, b, name, ranks, None, False, bound, None, base[1],
                                 None, base[2], base[3]))
                write(a, version, rows, worst)
    write(a, version, rows, worst)
    print(f"alltoallv-smpi: wrote {a.out}", file=sys.stderr)
    return 1 if max(worst.values(), default=0.0) > a.tolerance else 0


def cm02_run(a, d, ranks, prog, args, check, extra=()):
    """One run under CM02 (the clock's injected time off): shared malloc off when the
    bytes are checked, SMPI's global shared malloc otherwise. (stdout or None, wall
    seconds, error or None)"""
    shared = [c for c in CM02 if "shared-malloc" in c]
    plain = [c for c in CM02 if c not in shared] + CLOCK + list(extra)
    memory = ["--cfg=smpi/shared-malloc:off"] if check else shared
    return smpirun(plain + memory, d, ranks, prog, args, a.timeout, "sg/platform.xml")


def command():
    """The command as a user types it (the script passes --liquid)."""
    args, skip = [], False
    for x in sys.argv[1:]:
        if skip:
            skip = False
        elif x == "--liquid":
            skip = True
        elif not x.startswith("--liquid="):
            args.append(x)
    return " ".join(["bash scripts/bench-smpi-alltoallv", *(shlex.quote(x) for x in args)])


def commit():
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True).stdout.strip()


def write(a, version, rows, worst):
    lines = [
        "# All-to-allv under SimGrid SMPI, beside liquid's prediction",
        "",
        f"Command: `{command()}` (commit {commit()}, {time.strftime('%Y-%m-%d')}; {version}; "
        "2 cores shared with other jobs). Parameters and method: benchmarks/smpi/alltoallv.py's "
        "docstring. *bound*: liquid's time bound; *liquid run*: liquid's prediction of the run "
        "(`total_s` of `liquid export mpi --envelope 16 --rtt-unfair`: the plan as the runtime "
        "runs it, barriers, SMPI's envelope and CM02's latency-weighted sharing included); *SMPI CM02*: `liquid-mpi-run` under CM02 with "
        "its corrections at 1 or off and `smpi/wtime:0` (no injected time per clock read; "
        "bytes checked when 3x the plan's bytes fit in 1 GiB); "
        "*pieces*, *whole*: frame by frame, a barrier between frames; *pieces async*, *whole "
        "async*: the same schedules with `--mode async` (no barrier; each rank sends its "
        "messages in schedule order, each a synchronous send); the last row of each group is "
        "the MPI library's MPI_Alltoallv of the same counts with SMPI's `ompi` selector under "
        f"the same CM02 (no liquid prediction). A run stopped at the limit of {a.timeout:.0f} s "
        "of wall time says `> limit`; *failed*: SMPI failed (its message on stderr); bytes "
        "not checked: SMPI's global shared malloc holds the message data.",
        "",
        "| model | sizes | per rank | plan | ranks | messages | bytes checked | bound (s) | liquid run (s) | SMPI CM02 (s) | diff | SMPI wall (s) |",
        "| --- | --- | --- | --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for model, dist, b, label, ranks, msgs, check, bound, pred, cm02, r, w, err in rows:
        if err == "export":
            cell = "— (liquid export failed)"
        elif cm02 is None and err == "timeout":
            cell = f"> limit ({a.timeout:.0f} s wall)"
        elif cm02 is None and err:
            cell = "failed"
        else:
            cell = sec(cm02)
        lines.append(f"| {model} | {dist} | {b} | {label} | {ranks if ranks is not None else '—'} | "
                     f"{msgs if msgs is not None else '—'} | "
                     f"{'yes' if check else 'no'} | {sec(bound)} | {sec(pred)} | {cell} | {pct(r)} | "
                     f"{'—' if w is None else f'{w:.1f}'} |")
    lines.append("")
    for label in LIQUID:
        if label in worst:
            lines.append(f"Largest CM02 difference of liquid's {label} plan: {100 * worst[label]:.2f} % (goal: 2 %).")
            lines.append("")
    with open(a.out, "w") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
