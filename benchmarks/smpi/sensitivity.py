#!/usr/bin/env python3
"""How much liquid's own prediction of a run moves when the platform moves by less than
SimGrid's numerical precision (issue 43): the rows of alltoallv-smpi.md that SMPI does not
reproduce within 2 %, and rows that it does, as controls.

For every row: `liquid generate sizes` (seed 1, as benchmarks/smpi/alltoallv.py), then
`liquid export mpi` of the same plan with the same options (`--envelope 16 --rtt-unfair`),
once at the benchmark's 1000 MB/s per link and once at each of 1000 x (1 + k x EPS) MB/s,
k = -N..-1, 1..N. Each export's `total_s` is liquid's prediction of that run. The table
gives the prediction at 1000 MB/s, the smallest and largest over the perturbed platforms,
and SMPI CM02's figure for the row, read from alltoallv-smpi.md (no SimGrid needed here).

Parameters, fixed before this script's first run from SimGrid's source: EPS = 1e-9, the
default of SimGrid's `surf/precision`, "numerical precision used when updating simulation
times (in seconds)" (`sg_surf_precision = 1E-9` in its max-min solver; `maxmin/precision`,
the sharing's, is 1e-5). A relative change of 1e-9 in every link's throughput changes a
1 MiB message's time (about 1 ms) by about 1 ps, a thousand times less than that
precision, so every perturbed prediction models the run as well as the unperturbed one. N =
10. The schedule must not change with the perturbation (whole plans are made by first fit
on message times, all scaled alike): the script checks that every export's `source` is the
same, and stops otherwise.

Usage: python3 benchmarks/smpi/sensitivity.py --liquid BIN [--n 10] [--eps 1e-9]
       [--smpi benchmarks/results/alltoallv-smpi.md] [--out FILE]
(`bash scripts/bench-sensitivity` builds the release binary and runs it.)
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

MODEL, LINK = "fat-tree:8,3", 1000.0
# (label, sizes distribution, its options, bytes per rank, plan label in alltoallv-smpi.md,
# export options); the first three are the rows SMPI does not reproduce within 2 %.
ROWS = [
    ("uniform", [], "1KiB", "pairwise", ["--plan", "pairwise"]),
    ("uniform", [], "1MiB", "pairwise", ["--plan", "pairwise"]),
    ("uniform", [], "64MiB", "whole async", ["--plan", "whole", "--mode", "async"]),
    ("zipf", ["--zipf-s", "1.0"], "1MiB", "pairwise", ["--plan", "pairwise"]),
    ("uniform", [], "1MiB", "whole async", ["--plan", "whole", "--mode", "async"]),
    ("uniform", [], "1MiB", "whole", ["--plan", "whole"]),
    ("uniform", [], "64MiB", "whole", ["--plan", "whole"]),
]


def must(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"sensitivity: {' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()}")
    return p.stdout


def smpi_figures(path):
    """(sizes, per rank, plan) -> SMPI CM02 seconds of the fat-tree:8,3 rows of `path`."""
    out = {}
    if not os.path.exists(path):
        return out
    for line in open(path):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 12 or cells[0] != MODEL:
            continue
        try:
            out[(cells[1], cells[2], cells[3])] = float(cells[9].split()[0])
        except ValueError:
            pass
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--liquid", required=True)
    ap.add_argument("--n", type=int, default=10)
    ap.add_argument("--eps", type=float, default=1e-9)
    ap.add_argument("--smpi", default="benchmarks/results/alltoallv-smpi.md")
    ap.add_argument("--out", default="benchmarks/results/alltoallv-sensitivity.md")
    a = ap.parse_args()
    smpi = smpi_figures(a.smpi)
    tmp = tempfile.mkdtemp(prefix="bench-sensitivity-")
    ks = [k for k in range(-a.n, a.n + 1) if k != 0]
    table = []
    for dist, extra, per_rank, plan, pargs in ROWS:
        dname = f"{dist}{' s=' + extra[1] if extra else ''}"
        sizes = f"{tmp}/{dist}{extra[1] if extra else ''}-{per_rank}.csv"
        if not os.path.exists(sizes):
            must([a.liquid, "generate", "sizes", MODEL, "--dist", dist, *extra,
                  "--bytes-per-rank", per_rank, "--seed", "1", "--out", sizes])
        figures, source, t0 = {}, None, time.time()
        for k in [0] + ks:
            bw = LINK * (1 + k * a.eps)
            d = f"{tmp}/out"
            must([a.liquid, "export", "mpi", MODEL, "--sizes", sizes, "--link-throughput",
                  repr(bw), *pargs, "--envelope", "16", "--rtt-unfair", "--out", d])
            m = json.load(open(f"{d}/manifest.json"))
            if source is None:
                source = m["source"]
            elif m["source"] != source:
                sys.exit(f"sensitivity: {dname} {per_rank} {plan}: the schedule changed at "
                         f"k = {k}: {m['source']!r} against {source!r}")
            figures[k] = m["prediction"]["total_s"]
        base = figures[0]
        lo, hi = min(figures[k] for k in ks), max(figures[k] for k in ks)
        s = smpi.get((dname, per_rank, plan))
        table.append((dname, per_rank, plan, base, lo, hi, s, time.time() - t0))
        print(f"sensitivity: {dname} {per_rank} {plan}: {base:.7g} s, perturbed "
              f"{lo:.7g}..{hi:.7g} s, SMPI {s}", file=sys.stderr)
    write(a, table)


def pct(x, base):
    return f"{100 * (x - base) / base:+.2f} %"


def write(a, table):
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    lines = [
        "# All-to-allv on fat-tree:8,3: how much liquid's prediction moves below SimGrid's "
        "precision",
        "",
        f"Command: `bash scripts/bench-sensitivity` (commit {commit}; liquid's release build; "
        "2 cores shared with other jobs). Method and parameters: "
        "benchmarks/smpi/sensitivity.py's docstring. Every figure is liquid's prediction "
        "(`total_s` of `liquid export mpi fat-tree:8,3 --sizes S --link-throughput T PLAN "
        "--envelope 16 --rtt-unfair`, sizes of `liquid generate sizes` with seed 1): "
        f"*at 1000 MB/s* the benchmark's platform; *lowest*, *highest*: over the {2 * a.n} "
        f"platforms at 1000 x (1 + k x {a.eps:g}) MB/s, k = ±1..±{a.n}, each relative to the "
        "first column; *SMPI CM02*: that row of alltoallv-smpi.md (liquid-mpi-run under "
        "SMPI), relative to the first column; *beyond*: `inside` when SMPI's figure lies "
        "between the lowest and the highest perturbed prediction, else how far beyond the "
        "nearer of the two it lies, relative to the first column.",
        "",
        "| sizes | per rank | plan | at 1000 MB/s (s) | lowest | highest | SMPI CM02 | beyond | wall (s) |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | --- | ---: |",
    ]
    for dname, per_rank, plan, base, lo, hi, s, wall in table:
        smpi = "—" if s is None else f"{s:.7g} ({pct(s, base)})"
        if s is None:
            inside = "—"
        elif lo <= s <= hi:
            inside = "inside"
        else:
            inside = f"{100 * ((s - hi) if s > hi else (s - lo)) / base:+.2f} %"
        lines.append(f"| {dname} | {per_rank} | {plan} | {base:.7g} | {lo:.7g} ({pct(lo, base)}) "
                     f"| {hi:.7g} ({pct(hi, base)}) | {smpi} | {inside} | {wall:.0f} |")
    with open(a.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"sensitivity: wrote {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
