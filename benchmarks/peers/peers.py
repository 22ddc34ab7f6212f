"""Peer comparison: liquid against the tools a user would pick instead.

Run through `bash scripts/bench-peers` (which builds liquid and installs the peers into
benchmarks/peers/.venv). Every instance goes through liquid and through the peers:

  liquidity  liquid `solve --engine native`      vs OR-Tools CP-SAT (1 worker), k = Λ
  optimum    liquid `solve --engine exact`/`sat` vs CP-SAT minimising the used frames
  DSatur     liquid `solve --engine dsatur`      vs networkx greedy_color(saturation_largest_first)
  CNF        varisat on `liquid encode --colours Λ` vs python-sat CaDiCaL on the same file

Every definite answer is cross-checked (liquidity verdicts, optimal lengths, SAT/UNSAT,
colourings validated); a disagreement is marked in the table and fails the run (exit 1).
Writes benchmarks/results/peers.md and peers.csv.
"""

import argparse
import csv
import datetime
import json
import math
import os
import platform
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

import networkx as nx
import yaml
from ortools.sat.python import cp_model
from pysat.formula import CNF
from pysat.solvers import Cadical195

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = "timeout"
SKIPPED = "not attempted (size)"


# ---------------------------------------------------------------- instances


def random_traffic(seed, n):
    """A seeded random explicit traffic of n transfers. Even seeds: random sender/receiver
    pairs over a two-level network (host up-links, down-links, a few shared trunks),
    mostly liquid. Odd seeds: random link sets with every link's load capped at 2-4,
    many conflicts for a small Λ, mostly not liquid."""
    rng = random.Random(seed)
    transfers = []
    if seed % 2 == 0:
        hosts = rng.randint(max(4, n // 12), max(6, n // 5))
        trunks = rng.randint(1, 4)
        for i in range(n):
            s, r = rng.randrange(hosts), rng.randrange(hosts)
            path = {f"u{s}", f"d{r}"}
            if rng.random() < 0.6:
                path.add(f"k{rng.randrange(trunks)}")
            if rng.random() < 0.3:
                path.add(f"x{rng.randrange(n // 4 + 1)}")
            transfers.append({"id": f"t{i}", "path": sorted(path)})
    else:
        cap = rng.randint(2, 4)
        load = [0] * (8 + n * 5 // cap)  # room for every path
        for i in range(n):
            free = [l for l, u in enumerate(load) if u < cap]
            path = rng.sample(free, rng.randint(2, 5))
            for l in path:
                load[l] += 1
            transfers.append({"id": f"t{i}", "path": sorted(f"l{l}" for l in path)})
    return {"name": f"random-{seed}-{n}", "transfers": transfers}


def instances(quick, workdir):
    """(name, model argument) pairs: bundled models, random traffics, fat-trees."""
    out = [(m, str(ROOT / "models" / f"{m}.yaml"))
           for m in ["paper-fig1", "no-team", "odd-cycle", "odd-wheel", "wheel-team"]]
    sizes = [20, 60, 120] if quick else [20 + 6 * i for i in range(31)]  # 20..200
    workdir.mkdir(parents=True, exist_ok=True)
    for i, n in enumerate(sizes):
        t = random_traffic(1000 + i, n)
        path = workdir / f"{t['name']}.yaml"
        path.write_text(yaml.safe_dump(t, sort_keys=False))
        out.append((t["name"], str(path)))
    out.append(("fat-tree-16", "fat-tree:4,3"))
    if not quick:
        out += [("fat-tree-128", "fat-tree:8,3"), ("fat-tree-1024", "fat-tree:16,3")]
    return out


# ---------------------------------------------------------------- liquid


def run_liquid(args, cmd, guard):
    """Runs liquid, killed after `guard` seconds of wall time (model generation included);
    the parsed JSON report, or TIMEOUT."""
    try:
        p = subprocess.run([args.liquid] + cmd, capture_output=True, text=True,
                           timeout=guard)
    except subprocess.TimeoutExpired:
        return TIMEOUT
    if p.returncode != 0:
        raise RuntimeError(f"liquid {' '.join(cmd)} failed ({p.returncode}): {p.stderr}")
    return json.loads(p.stdout)


def liquid_solve(args, model, engine, guard):
    rep = run_liquid(args, ["solve", model, "--engine", engine, "--time-limit",
                            str(args.time_limit), "--format", "json"], guard)
    if rep == TIMEOUT:
        return {"verdict": TIMEOUT, "length": None, "time": None}
    return {"verdict": rep["verdict"], "length": rep["length"],
            "lower_bound": rep["lower_bound"], "time": rep["stats"]["time_s"]}


def load_explicit(args, model):
    """The traffic as (ids, paths) from `liquid expand` (explicit YAML)."""
    p = subprocess.run([args.liquid, "expand", model], capture_output=True, text=True,
                       check=True)
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    doc = yaml.load(p.stdout, Loader=loader)
    return [t["id"] for t in doc["transfers"]], [t["path"] for t in doc["transfers"]]


def link_users(paths):
    users = {}
    for t, path in enumerate(paths):
        for link in path:
            users.setdefault(link, []).append(t)
    return users


def proper(colour, users):
    """True when no link has two users of one colour (a valid schedule)."""
    return all(len({colour[t] for t in us}) == len(us) for us in users.values())


# ---------------------------------------------------------------- peers


def cpsat(paths, users, k, minimise, limit, lower):
    """CP-SAT on the per-link at-most-one model with k frames: (answer, solve time).
    answer: frames used (int), 'infeasible', or TIMEOUT."""
    m = cp_model.CpModel()
    n = len(paths)
    x = [[m.NewBoolVar("") for _ in range(k)] for _ in range(n)]
    for t in range(n):
        m.AddExactlyOne(x[t])
    for us in users.values():
        if len(us) > 1:
            for c in range(k):
                m.AddAtMostOne(x[t][c] for t in us)
    if minimise:
        y = [m.NewBoolVar("") for _ in range(k)]
        for t in range(n):
            for c in range(k):
                m.AddImplication(x[t][c], y[c])
        for c in range(k - 1):
            m.AddImplication(y[c + 1], y[c])  # symmetry: use the first frames first
        m.Add(sum(y) >= lower)  # Λ: a valid bound, as our engines use it too
        m.Minimize(sum(y))
    s = cp_model.CpSolver()
    s.parameters.num_workers = 1
    s.parameters.max_time_in_seconds = limit
    start = time.perf_counter()
    status = s.Solve(m)
    secs = time.perf_counter() - start
    if status == cp_model.INFEASIBLE:
        return "infeasible", secs
    if status == cp_model.OPTIMAL or (status == cp_model.FEASIBLE and not minimise):
        colour = [next(c for c in range(k) if s.Value(x[t][c])) for t in range(n)]
        if not proper(colour, users):
            raise RuntimeError("CP-SAT returned an invalid schedule")
        return len(set(colour)), secs
    return TIMEOUT, secs


def nx_dsatur(n, users):
    g = nx.Graph()
    g.add_nodes_from(range(n))
    for us in users.values():
        g.add_edges_from((a, b) for i, a in enumerate(us) for b in us[i + 1:])
    start = time.perf_counter()
    colour = nx.coloring.greedy_color(g, strategy="saturation_largest_first")
    secs = time.perf_counter() - start
    if not proper(colour, users):
        raise RuntimeError("networkx returned an invalid colouring")
    return max(colour.values()) + 1, secs


def cadical(cnf_path, limit):
    cnf = CNF(from_file=str(cnf_path))
    with Cadical195(bootstrap_with=cnf.clauses) as s:
        timer = threading.Timer(limit, s.interrupt)
        timer.start()
        start = time.perf_counter()
        r = s.solve_limited(expect_interrupt=True)
        secs = time.perf_counter() - start
        timer.cancel()
        if r is None:
            return TIMEOUT, secs
        if r:
            true = {l for l in s.get_model() if l > 0}
            if not all(any((l > 0) == (abs(l) in true) for l in c) for c in cnf.clauses):
                raise RuntimeError("CaDiCaL's model does not satisfy the CNF")
        return ("sat" if r else "unsat"), secs


def varisat(args, cnf_path, limit):
    try:
        p = subprocess.run([args.varisat, str(cnf_path)], capture_output=True, text=True,
                           timeout=limit)
    except subprocess.TimeoutExpired:
        return TIMEOUT, None
    if p.returncode != 0:
        raise RuntimeError(f"varisat_dimacs failed: {p.stderr}")
    r = json.loads(p.stdout)
    return r["answer"], r["time_s"]


# ---------------------------------------------------------------- one instance


def run(args, name, model, workdir):
    start = time.perf_counter()
    a = run_liquid(args, ["analyze", model, "--format", "json"], args.big_guard)
    analyze_wall = time.perf_counter() - start
    lam, n, edges = a["duration"], a["transfers"], a["conflict_edges"]
    big = n * lam > args.max_vars or edges > args.max_edges
    big_cnf = n * lam > args.max_cnf_vars
    # Beyond the peers' size, liquid gets a longer wall guard (generation, and DSatur,
    # which has no time limit) and runs analysis, DSatur and the native search only.
    guard = args.big_guard if big else args.time_limit * 2 + 30
    row = {"instance": name, "transfers": n, "lambda": lam, "conflict_edges": edges,
           "ours_analyze_wall_s": analyze_wall}
    print(f"{name}: {n} transfers, Λ={lam}, {edges} conflict edges", file=sys.stderr)

    ds = liquid_solve(args, model, "dsatur", guard)
    row["ours_dsatur_colours"], row["ours_dsatur_colours_s"] = ds["length"], ds["time"]
    if ds["verdict"] == TIMEOUT:
        row["ours_dsatur_colours"] = TIMEOUT
    nat = liquid_solve(args, model, "native", guard)
    row["ours_native_s"] = nat["time"]
    row["ours_native"] = nat["verdict"] if nat["verdict"] in ("liquid", "non-liquid") \
        else TIMEOUT
    for eng in ["exact", "sat"]:
        if big or (eng == "sat" and big_cnf):
            row[f"ours_{eng}"], row[f"ours_{eng}_s"] = SKIPPED, None
            continue
        r = liquid_solve(args, model, eng, guard)
        known = r["verdict"] in ("liquid", "optimal")
        row[f"ours_{eng}"] = r["length"] if known else (
            TIMEOUT if r["verdict"] in ("feasible", "unknown", TIMEOUT) else r["verdict"])
        row[f"ours_{eng}_s"] = r["time"]

    peer_cols = ["cpsat_liquid", "cpsat_opt", "nx_dsatur_colours", "cnf_varisat",
                 "cnf_cadical"]
    if big:
        for c in peer_cols:
            row[c], row[c + "_s"] = SKIPPED, None
        return row

    _, paths = load_explicit(args, model)
    users = link_users(paths)
    row["nx_dsatur_colours"], row["nx_dsatur_colours_s"] = nx_dsatur(n, users)
    liq, secs = cpsat(paths, users, lam, False, args.time_limit, lam)
    row["cpsat_liquid"] = {"infeasible": "non-liquid", TIMEOUT: TIMEOUT}.get(liq, "liquid")
    row["cpsat_liquid_s"] = secs
    ub = min(ds["length"], row["nx_dsatur_colours"])
    opt, secs = cpsat(paths, users, ub, True, args.time_limit, lam)
    row["cpsat_opt"], row["cpsat_opt_s"] = opt, secs
    if big_cnf:
        for c in ["cnf_varisat", "cnf_cadical"]:
            row[c], row[c + "_s"] = SKIPPED, None
        return row
    cnf = workdir / f"{name}.cnf"
    with open(cnf, "w") as f:
        subprocess.run([args.liquid, "encode", model, "--colours", str(lam)], stdout=f,
                       check=True)
    row["cnf_varisat"], row["cnf_varisat_s"] = varisat(args, cnf, args.time_limit)
    row["cnf_cadical"], row["cnf_cadical_s"] = cadical(cnf, args.time_limit)
    cnf.unlink()
    return row


def disagreements(row):
    """Every contradiction between definite answers in one row."""
    lam = row["lambda"]
    liquid = {}  # tool -> True/False
    v = {"liquid": True, "non-liquid": False}
    for tool in ["ours_native", "cpsat_liquid"]:
        if row.get(tool) in v:
            liquid[tool] = v[row[tool]]
    for tool in ["cnf_varisat", "cnf_cadical"]:
        if row.get(tool) in ("sat", "unsat"):
            liquid[tool] = row[tool] == "sat"
    opts = {t: row[t] for t in ["ours_exact", "ours_sat", "cpsat_opt"]
            if isinstance(row.get(t), int)}
    for tool, o in opts.items():
        liquid[tool + " (optimum)"] = o == lam
    for tool in ["ours_dsatur_colours", "nx_dsatur_colours"]:
        if isinstance(row.get(tool), int) and row[tool] == lam:
            liquid[tool] = True
    out = []
    if len(set(liquid.values())) > 1:
        out.append("liquidity: " + ", ".join(f"{t}={x}" for t, x in sorted(liquid.items())))
    if len(set(opts.values())) > 1:
        out.append("optimum: " + ", ".join(f"{t}={x}" for t, x in sorted(opts.items())))
    for tool in ["ours_dsatur_colours", "nx_dsatur_colours"]:
        c = row.get(tool)
        if isinstance(c, int) and (c < lam or any(c < o for o in opts.values())):
            out.append(f"{tool}={c} below Λ or the optimum")
    return out


# ---------------------------------------------------------------- report


def ratio(row, ours, theirs):
    """ours / theirs for two time columns, when both tools answered."""
    o, t = row.get(ours), row.get(theirs)
    done = all(row.get(k.removesuffix("_s")) not in (TIMEOUT, SKIPPED, None)
               for k in (ours, theirs))
    if done and isinstance(o, (int, float)) and isinstance(t, (int, float)) and t > 0:
        return o / t
    return None


def fmt_ratio(row, ours, theirs, limit):
    r = ratio(row, ours, theirs)
    if r is not None:
        return f"{r:.3g}"
    a, b = row.get(ours.removesuffix("_s")), row.get(theirs.removesuffix("_s"))
    o, t = row.get(ours), row.get(theirs)
    if a == SKIPPED or b == SKIPPED:
        return SKIPPED
    if a == TIMEOUT and b == TIMEOUT:
        return "both time out"
    if b == TIMEOUT and isinstance(o, float):  # a bound: theirs took at least the limit
        return f"< {o / limit:.3g} (theirs: {TIMEOUT})"
    if a == TIMEOUT and isinstance(t, float) and t > 0:
        return f"> {limit / t:.3g} (ours: {TIMEOUT})"
    return "-"


COMPARISONS = [  # (column title, ours time, theirs time)
    ("liquidity: native / CP-SAT", "ours_native_s", "cpsat_liquid_s"),
    ("optimum: exact / CP-SAT", "ours_exact_s", "cpsat_opt_s"),
    ("optimum: sat / CP-SAT", "ours_sat_s", "cpsat_opt_s"),
    ("DSatur: ours / networkx", "ours_dsatur_colours_s", "nx_dsatur_colours_s"),
    ("CNF at Λ: varisat / CaDiCaL", "cnf_varisat_s", "cnf_cadical_s"),
]


def answer(row):
    def show(x):
        return "?" if x in (None, TIMEOUT, SKIPPED) else str(x)
    opt = next((row[t] for t in ["ours_exact", "ours_sat", "cpsat_opt"]
                if isinstance(row.get(t), int)), None)
    cols = f"{show(row['ours_dsatur_colours'])}/{show(row.get('nx_dsatur_colours'))}"
    return show(opt), cols, show(row.get("cnf_varisat", row.get("cnf_cadical")))


def write_report(args, rows, total_s):
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    keys = []
    for r in rows:
        keys += [k for k in r if k not in keys]
    with open(out / "peers.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        w.writerows(rows)
    versions = {m: __import__(m).__version__ for m in ["ortools", "networkx"]}
    import pysat
    versions["python-sat"] = pysat.__version__
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                if l.startswith("model name")), platform.processor())
    lines = [
        "# liquid against its peers",
        "",
        f"Produced by `bash scripts/bench-peers{' --quick' if args.quick else ''}` "
        f"(`just bench-peers`) on {datetime.date.today().isoformat()}, "
        f"{cpu}, {os.cpu_count()} cores shared with other developers' jobs "
        f"(timings are noisy), Python {platform.python_version()}, "
        + ", ".join(f"{k} {v}" for k, v in versions.items())
        + f"; per-instance time limit {args.time_limit:g} s per tool; whole run "
        f"{total_s:.0f} s.",
        "",
        "Each cell is a time ratio **ours / theirs** (below 1: liquid is faster). Ours: "
        "`stats.time_s` of liquid's report (engine time, excluding process start, "
        "parsing and model generation). Theirs: wall time around the solve call only "
        "(CP-SAT `Solve`, networkx `greedy_color`, CaDiCaL `solve_limited`), excluding "
        "Python model building. varisat and CaDiCaL solve the same file, "
        "`liquid encode MODEL --colours Λ`; varisat's time is `solve()` only "
        "(benchmarks/examples/varisat_dimacs.rs). CP-SAT: one worker, per-link "
        "at-most-one model, k = Λ for liquidity; for the optimum k = the smaller DSatur "
        "length, minimising the used frames. Ours for the optimum: `--engine exact` "
        "(DSATUR branch and bound) and `--engine sat` (varisat, k = Λ upwards). "
        f"\"{SKIPPED}\": decided from `liquid analyze` before building anything: "
        f"CP-SAT and networkx when transfers × Λ > {args.max_vars} or conflict edges > "
        f"{args.max_edges}; the CNF (both solvers) and the sat engine when transfers × Λ "
        f"> {args.max_cnf_vars}. Beyond the peers' size liquid runs analysis, DSatur "
        f"and the native search only, each killed after {args.big_guard:g} s of wall time "
        "(model generation included; DSatur has no time limit). Raw numbers: peers.csv.",
        "",
        "| instance | transfers | Λ | optimum | DSatur colours ours/nx | CNF at Λ | "
        + " | ".join(c[0] for c in COMPARISONS) + " | agree |",
        "|" + " --- |" * (7 + len(COMPARISONS)),
    ]
    for r in rows:
        opt, cols, cnf = answer(r)
        agree = "**DISAGREE: " + "; ".join(r["disagreements"]) + "**" \
            if r["disagreements"] else "yes"
        lines.append(f"| {r['instance']} | {r['transfers']} | {r['lambda']} | {opt} | "
                     f"{cols} | {cnf} | "
                     + " | ".join(fmt_ratio(r, o, t, args.time_limit) for _, o, t in COMPARISONS)
                     + f" | {agree} |")
    lines += ["", "Geometric mean of the ratios where both sides finished:", ""]
    for title, o, t in COMPARISONS:
        rs = [x for x in (ratio(r, o, t) for r in rows) if x]
        if rs:
            g = math.exp(sum(math.log(x) for x in rs) / len(rs))
            lines.append(f"- {title}: {g:.3g} over {len(rs)} instances "
                         f"(min {min(rs):.3g}, max {max(rs):.3g})")
    (out / "peers.md").write_text("\n".join(lines) + "\n")


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="a few small instances only")
    p.add_argument("--time-limit", type=float, default=30, help="seconds per tool and instance")
    p.add_argument("--max-vars", type=int, default=2_500_000,
                   help="peers and CNF skipped above this many transfers x Λ")
    p.add_argument("--max-cnf-vars", type=int, default=1_000_000,
                   help="CNF comparison and sat engine skipped above this transfers x Λ")
    p.add_argument("--max-edges", type=int, default=5_000_000,
                   help="peers skipped above this many conflict edges")
    p.add_argument("--big-guard", type=float, default=900,
                   help="wall seconds per liquid command on instances beyond the peers")
    p.add_argument("--liquid", default=str(ROOT / "target/release/liquid"))
    p.add_argument("--varisat", default=str(ROOT / "target/release/examples/varisat_dimacs"))
    p.add_argument("--out", default=str(ROOT / "benchmarks/results"))
    p.add_argument("--only", help="run only instances whose name contains this")
    args = p.parse_args()
    workdir = ROOT / "benchmarks/peers/instances"
    start = time.perf_counter()
    rows = []
    for name, model in instances(args.quick, workdir):
        if args.only and args.only not in name:
            continue
        row = run(args, name, model, workdir)
        row["disagreements"] = disagreements(row)
        if row["disagreements"]:
            print(f"DISAGREEMENT on {name} ({model}): {row['disagreements']}",
                  file=sys.stderr)
        rows.append(row)
        write_report(args, rows, time.perf_counter() - start)  # partial tables survive
    bad = [r["instance"] for r in rows if r["disagreements"]]
    print(f"wrote {args.out}/peers.md and peers.csv; disagreements: {bad or 'none'}",
          file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
