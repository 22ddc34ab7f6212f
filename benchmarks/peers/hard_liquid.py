#!/usr/bin/env python3
"""Hard liquid traffics (issue 44): the queen graphs n x n for n = 11, 12, 13 and 14, whose
optimum is Λ = n, through liquid's default engine and the portfolio, and through CP-SAT
(OR-Tools, 1 worker) at k = Λ, each with the same time limit, pinned to one core.
Writes benchmarks/results/hard-liquid.md. Run by scripts/bench-hard-liquid."""

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def queen_yaml(n, path):
    lines = [f"name: queen{n}_{n}", "transfers:"]
    for r in range(n):
        for c in range(n):
            lines.append(f"  - {{id: q{r}_{c}, path: [row{r}, col{c}, diag{r - c + n - 1}, "
                         f"anti{r + c}]}}")
    path.write_text("\n".join(lines) + "\n")


def pin():
    """taskset -c 0 when available: one core."""
    return ["taskset", "-c", "0"] if subprocess.run(
        ["sh", "-c", "command -v taskset"], capture_output=True).returncode == 0 else []


def run_liquid(liquid, model, engine, limit, seed):
    cmd = pin() + [liquid, "solve", str(model), "--time-limit", str(limit), "--format",
                   "json", "--seed", str(seed)]
    if engine:
        cmd += ["--engine", engine]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=limit * 2 + 30)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        return {"verdict": f"exit {p.returncode}", "wall": wall, "stats": {},
                "error": p.stderr.strip()[-300:]}
    rep = json.loads(p.stdout)
    return {"verdict": rep.get("verdict"), "length": rep.get("length"), "wall": wall,
            "stats": rep.get("stats", {})}


def cpsat_child(n, limit, out):
    """CP-SAT at k = n on the queen graph: one Boolean per square and colour, exactly one
    colour per square, at most one square per line (row, column, diagonal) and colour."""
    from ortools.sat.python import cp_model
    links = {}
    for r in range(n):
        for c in range(n):
            for l in (f"row{r}", f"col{c}", f"diag{r - c + n - 1}", f"anti{r + c}"):
                links.setdefault(l, []).append((r, c))
    m = cp_model.CpModel()
    x = {(r, c, k): m.NewBoolVar("") for r in range(n) for c in range(n) for k in range(n)}
    for r in range(n):
        for c in range(n):
            m.AddExactlyOne(x[r, c, k] for k in range(n))
    for users in links.values():
        for k in range(n):
            m.AddAtMostOne(x[r, c, k] for (r, c) in users)
    s = cp_model.CpSolver()
    s.parameters.num_workers = 1
    s.parameters.max_time_in_seconds = float(limit)
    t0 = time.perf_counter()
    status = s.Solve(m)
    secs = time.perf_counter() - t0
    verdict = {cp_model.OPTIMAL: "feasible (k = Λ)", cp_model.FEASIBLE: "feasible (k = Λ)",
               cp_model.INFEASIBLE: "infeasible", cp_model.UNKNOWN: "undecided"}.get(
                   status, s.StatusName(status))
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        # Check the colouring.
        for users in links.values():
            for k in range(n):
                assert sum(s.Value(x[r, c, k]) for (r, c) in users) <= 1
    Path(out).write_text(json.dumps({"verdict": verdict, "time": secs}))


def run_cpsat(python, n, limit, tmp):
    out = tmp / f"cpsat{n}.json"
    cmd = pin() + [python, __file__, "--cpsat-child", str(n), "--time-limit", str(limit),
                   "--out", str(out)]
    t0 = time.perf_counter()
    try:
        subprocess.run(cmd, capture_output=True, text=True, timeout=limit + 60, check=True)
    except subprocess.TimeoutExpired:
        return {"verdict": "killed", "time": time.perf_counter() - t0}
    except subprocess.CalledProcessError as e:
        return {"verdict": f"failed: {e.stderr.strip()[-200:]}", "time": None}
    return json.loads(out.read_text())


def cell(r):
    v = r["verdict"]
    s = r.get("stats", {})
    how = s.get("cover") or s.get("decided_by") or ""
    text = f"{v}, {r['wall']:.2f} s"
    if v != "liquid":
        text += f" (best {r.get('length')})"
    return text, how


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--liquid", default=str(ROOT / "target/release/liquid"))
    ap.add_argument("--time-limit", type=float, default=60)
    ap.add_argument("--sizes", default="11,12,13,14")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-cpsat", action="store_true")
    ap.add_argument("--cpsat-child", type=int)
    ap.add_argument("--out")
    args = ap.parse_args()
    limit = int(args.time_limit)
    if args.cpsat_child:
        cpsat_child(args.cpsat_child, limit, args.out)
        return
    rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                         text=True, cwd=ROOT).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True, cwd=ROOT).stdout.strip()
    rows = []
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for n in [int(x) for x in args.sizes.split(",")]:
            model = tmp / f"queen{n}_{n}.yaml"
            queen_yaml(n, model)
            print(f"queen{n}_{n} ...", file=sys.stderr)
            default = run_liquid(args.liquid, model, None, limit, args.seed)
            portfolio = run_liquid(args.liquid, model, "portfolio", limit, args.seed)
            cp = None if args.no_cpsat else run_cpsat(sys.executable, n, limit, tmp)
            rows.append((n, default, portfolio, cp))
            print(f"  default: {cell(default)}; portfolio: {cell(portfolio)}; cp-sat: {cp}",
                  file=sys.stderr)
    out = ROOT / "benchmarks/results/hard-liquid.md"
    lines = [
        "# Hard liquid traffics: the queen graphs (issue 44)",
        "",
        f"Made by `bash scripts/bench-hard-liquid` on {datetime.date.today()} at `{rev}`"
        + (" (with uncommitted changes)" if dirty else "")
        + f", release build, each run pinned to one core (`taskset -c 0`), "
        f"`--time-limit {limit}`, seed {args.seed}. The optimum of queen n_n is Λ = n for "
        "these n (OEIS A088202). Times are wall-clock seconds of the whole command (model "
        "loading and the validation of the schedule included); the machine is shared, so "
        "they vary by some tens of per cent between runs.",
        "",
        "| traffic | transfers | Λ | `liquid solve` (default engine) | how | "
        "`--engine portfolio` | how | CP-SAT, 1 worker, k = Λ |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for n, default, portfolio, cp in rows:
        d, dh = cell(default)
        p, ph = cell(portfolio)
        c = "not run" if cp is None else (
            f"{cp['verdict']}" + (f", {cp['time']:.2f} s" if cp.get("time") is not None else ""))
        lines.append(f"| queen{n}_{n} | {n * n} | {n} | {d} | {dh} | {p} | {ph} | {c} |")
    lines += [
        "",
        "\"how\" is the cover stage's statistic `cover` (see docs/src/hard-liquid.md): "
        "which automorphism's orbit schedule, or the plain exact cover, found the schedule, "
        "or how far the search got. Every schedule was validated by liquid's model "
        "validator before it was reported.",
        "",
        "Statistics of the default engine's runs:",
        "",
    ]
    for n, default, _, _ in rows:
        keep = {k: v for k, v in default.get("stats", {}).items()
                if k.startswith("cover") or k in ("symmetry", "decided_by", "time_s")}
        lines.append(f"- queen{n}_{n}: `{json.dumps(keep, ensure_ascii=False)}`")
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
