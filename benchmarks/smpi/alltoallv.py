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
liquid's prediction takes none either); SMPI's 16-byte envelope. An SMPI run longer than
--timeout seconds of wall time (default 900) is stopped and its row says so. Writes a
Markdown table to --out; exits 1 when a CM02 run of a liquid plan (pieces, whole, and
their async runs) differs from liquid's prediction by more than --tolerance.
"""

import argparse
import json
import os
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


def smpirun(cfg, d, ranks, prog, args, timeout, platform_xml):
    """smpirun in a process group of its own, the whole group stopped (by its id) when it
    runs longer than `timeout` seconds: (stdout or None, wall seconds, error or None)."""
    cmd = ["smpirun", *cfg, "--cfg=smpi/display-timing:no", "-platform", f"{d}/{platform_xml}",
           "-hostfile", f"{d}/hostfile", "-np", str(ranks), prog, *args]
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return None, time.perf_counter() - t0, "timeout"
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        lines = [l for l in (err + out).splitlines()
                 if "xbt_cfg/INFO" not in l and "did not return 0" not in l]
        return None, wall, "\n".join(lines[-8:])
    return out, wall, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--liquid", required=True)
    ap.add_argument("--out", default="benchmarks/results/alltoallv-smpi.md")
    ap.add_argument("--timeout", type=float, default=900,
                    help="wall seconds per SMPI run (default 900)")
    ap.add_argument("--tolerance", type=float, default=0.02)
    ap.add_argument("--quick", action="store_true", help="the first model at 1 MiB only")
    ap.add_argument("--models", help="only these models (comma-separated specs, ';' between)")
    a = ap.parse_args()
    models = MODELS[:1] if a.quick else MODELS
    if a.models:
        keep = a.models.split(";")
        models = [m for m in models if m[0] in keep]
    per_rank = ["1MiB"] if a.quick else PER_RANK
    tmp = tempfile.mkdtemp(prefix="bench-smpi-a2av-")
    rt = "crates/mpi/runtime"
    runner, bench = f"{tmp}/liquid-mpi-run", f"{tmp}/alltoallv-bench"
    must(["smpicc", "-O2", "-std=c99", "-o", runner, f"{rt}/liquid_mpi.c", f"{rt}/liquid_mpi_run.c", "-lm"])
    must(["smpicc", "-O2", "-std=c99", "-o", bench, f"{rt}/liquid_mpi.c", f"{rt}/alltoallv_bench.c", "-lm"])
    version = must(["smpirun", "-version"])[0].strip().splitlines()[-1]
    shared = [c for c in CM02 if "shared-malloc" in c]
    rows, worst = [], {}
    for model, link in models:
        for dist, extra in DISTS:
            dname = f"{dist}{' s=' + extra[1] if extra else ''}"
            for b in per_rank:
                tag = f"{model}-{dist}{extra[1] if extra else ''}-{b}".replace(":", "_").replace(",", "-")
                sizes = f"{tmp}/{tag}.csv"
                must([a.liquid, "generate", "sizes", model, "--dist", dist, *extra,
                      "--bytes-per-rank", b, "--seed", "1", "--out", sizes])
                bound = json.loads(must([a.liquid, "analyze", model, "--sizes", sizes, *link,
                                         "--format", "json"])[0])["time_bound"]["seconds"]
                base = None
                for label, pargs in PLANS:
                    d = f"{tmp}/{tag}-{label.replace(' ', '-')}"
                    common = [model, "--sizes", sizes, *link]
                    must([a.liquid, "export", "mpi", *common, *pargs, "--envelope", "16", "--out", d])
                    # The platform in a folder of its own (an export replaces what liquid wrote).
                    must([a.liquid, "export", "simgrid", *common, "--mode", "all-at-once", "--out", f"{d}/sg"])
                    complete_routes(f"{d}/sg/platform.xml")
                    man = json.load(open(f"{d}/manifest.json"))
                    ranks, predicted = len(man["ranks"]), man["prediction"]["total_s"]
                    check = 3 * man["bytes"] <= 2**30
                    cfg = [c for c in CM02 if c not in shared] + (
                        ["--cfg=smpi/shared-malloc:off"] if check else shared)
                    args = ([] if check else ["--no-check"]) + [
                        "--timeout", "0", "--quiet", "--report", f"{d}/smpi-cm02.json", d]
                    o, w, err = smpirun(cfg, d, ranks, runner, args, a.timeout, "sg/platform.xml")
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
                    if base is None:
                        # The library's MPI_Alltoallv of the same counts, Open MPI's choice.
                        o2, w2, err2 = smpirun(CM02 + ["--cfg=smpi/coll-selector:ompi"], d, ranks,
                                               bench, [d], a.timeout, "sg/platform.xml")
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
                name = f"MPI_{base[0].capitalize() if base[0] != '—' else 'Alltoallv'} (ompi)"
                rows.append((model, dname, b, name, ranks, None, False, bound, None, base[1],
                             None, base[2], base[3]))
                write(a, version, rows, worst)
    write(a, version, rows, worst)
    print(f"alltoallv-smpi: wrote {a.out}", file=sys.stderr)
    return 1 if max(worst.values(), default=0.0) > a.tolerance else 0


def commit():
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True).stdout.strip()


def write(a, version, rows, worst):
    lines = [
        "# All-to-allv under SimGrid SMPI, beside liquid's prediction",
        "",
        f"Command: `bash scripts/bench-smpi-alltoallv` (commit {commit()}, {time.strftime('%Y-%m-%d')}; {version}; "
        "2 cores shared with other jobs). Parameters and method: benchmarks/smpi/alltoallv.py's "
        "docstring. *bound*: liquid's time bound; *liquid run*: liquid's prediction of the run "
        "(`total_s` of `liquid export mpi --envelope 16`: the plan as the runtime runs it, "
        "barriers and SMPI's envelope included); *SMPI CM02*: `liquid-mpi-run` under CM02 with "
        "its corrections at 1 or off (bytes checked when 3x the plan's bytes fit in 1 GiB); "
        "*pieces*, *whole*: frame by frame, a barrier between frames; *pieces async*, *whole "
        "async*: the same schedules with `--mode async` (no barrier; each rank sends its "
        "messages in schedule order, each a synchronous send); the last row of each group is "
        "the MPI library's MPI_Alltoallv of the same counts with SMPI's `ompi` selector under "
        f"the same CM02 (no liquid prediction). A run stopped at the limit of {a.timeout:.0f} s "
        "of wall time says `> limit`.",
        "",
        "| model | sizes | per rank | plan | ranks | messages | bytes checked | bound (s) | liquid run (s) | SMPI CM02 (s) | diff | SMPI wall (s) |",
        "| --- | --- | --- | --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for model, dist, b, label, ranks, msgs, check, bound, pred, cm02, r, w, err in rows:
        if cm02 is None and err == "timeout":
            cell = f"> limit ({a.timeout:.0f} s wall)"
        elif cm02 is None and err:
            cell = "failed"
        else:
            cell = sec(cm02)
        lines.append(f"| {model} | {dist} | {b} | {label} | {ranks} | {msgs if msgs is not None else '—'} | "
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
