"""Peer comparison: liquid against the tools a user would pick instead.

Run through `bash scripts/bench-peers` (which builds liquid and installs the peers into
benchmarks/peers/.venv). Every instance goes through liquid and through the peers:

  liquidity  liquid `solve --engine native`      vs OR-Tools CP-SAT (1 worker), k = Λ
  optimum    liquid `solve --engine exact`/`sat`/`sat-incremental` vs CP-SAT minimising the
             used frames
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
import multiprocessing
import os
import platform
import random
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path

import networkx as nx
import yaml

from instances import instances  # noqa: E402  (the instance set, shared with bench-default)
from ortools.sat.python import cp_model
from pysat.formula import CNF
from pysat.solvers import Cadical195

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = "timeout"
SKIPPED = "not attempted (size)"


# ---------------------------------------------------------------- instances


# ---------------------------------------------------------------- deadlines

OVERRUNS = []  # liquid commands that did not honour their own --time-limit
NOTES = []  # other limits hit (commands without a time limit of their own, crashes)


def run_liquid(args, cmd, instance, own_limit):
    """Runs liquid under a hard wall timeout of the time limit plus --margin (model
    generation included): (parsed JSON report or TIMEOUT, wall seconds). When the command
    has a --time-limit of its own (`own_limit`), being killed or reporting an engine time
    past it is an overrun, recorded in OVERRUNS: a bug in liquid."""
    hard = args.time_limit + args.margin
    start = time.perf_counter()
    try:
        p = subprocess.run([args.liquid] + cmd, capture_output=True, text=True,
                           timeout=hard)
    except subprocess.TimeoutExpired:
        wall = time.perf_counter() - start
        what = f"`liquid {' '.join(cmd)}` on {instance}: killed after {wall:.0f} s of wall time"
        if own_limit:
            OVERRUNS.append(what + f" (its own limit: {args.time_limit:g} s)")
        else:
            NOTES.append(what + " (the command has no time limit of its own)")
        print(f"  {what}", file=sys.stderr)
        return TIMEOUT, wall
    wall = time.perf_counter() - start
    if p.returncode != 0:
        raise RuntimeError(f"liquid {' '.join(cmd)} failed ({p.returncode}): {p.stderr}")
    rep = json.loads(p.stdout)
    engine_s = rep.get("stats", {}).get("time_s") if isinstance(rep, dict) else None
    if own_limit and isinstance(engine_s, (int, float)) \
            and engine_s > args.time_limit * 1.05 + 1:
        OVERRUNS.append(f"`liquid {' '.join(cmd)}` on {instance}: reported time_s "
                        f"{engine_s:.1f} s past its own limit of {args.time_limit:g} s")
    return rep, wall


def liquid_solve(args, name, model, engine):
    rep, wall = run_liquid(args, ["solve", model, "--engine", engine, "--time-limit",
                                  str(args.time_limit), "--format", "json"], name, True)
    if rep == TIMEOUT:
        return {"verdict": TIMEOUT, "length": None, "time": None, "wall": wall}
    return {"verdict": rep["verdict"], "length": rep["length"],
            "lower_bound": rep["lower_bound"], "time": rep["stats"]["time_s"],
            "wall": wall}


def checked_run(cmd, limit, what):
    """A helper command (expand, encode) under a hard timeout: its stdout, or None."""
    try:
        return subprocess.run(cmd, capture_output=True, text=True, check=True,
                              timeout=limit).stdout
    except subprocess.TimeoutExpired:
        NOTES.append(f"{what}: killed after {limit:g} s")
        print(f"  {what}: killed after {limit:g} s", file=sys.stderr)
        return None


def in_child(build, solve, check, limit, grace, what):
    """Runs a peer in a forked child process that the parent kills at its deadlines, so
    no peer (nor the Python model building before it) can run past the limit:
      build()        -> state      deadline: `limit` seconds (Python model building)
      solve(state)   -> (answer, seconds of the solve call itself, or None for the wall
                        time of solve)   deadline: `limit + grace` seconds
      check(state, answer) -> summary (validation; deadline max(limit, 60) seconds)
    Returns (summary or TIMEOUT or "crashed", solve seconds or None, build seconds or None).
    A solve that took longer than `limit` counts as TIMEOUT even when it finished within
    the grace. A peer whose answer fails `check` fails the run (RuntimeError)."""
    ctx = multiprocessing.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)

    def child():
        recv.close()
        try:
            t0 = time.perf_counter()
            state = build()
            send.send(("built", time.perf_counter() - t0))
            t0 = time.perf_counter()
            answer, secs = solve(state)
            send.send(("solved", time.perf_counter() - t0 if secs is None else secs))
            send.send(("done", check(state, answer)))
        except BaseException:  # reported to the parent, which raises
            send.send(("error", traceback.format_exc()))
        finally:
            send.close()

    proc = ctx.Process(target=child, daemon=True)
    proc.start()
    send.close()
    got = {}
    try:
        for phase, deadline in [("built", limit), ("solved", limit + grace),
                                ("done", max(limit, 60))]:
            if not recv.poll(deadline):
                NOTES.append(f"{what}: killed (no {phase!r} within {deadline:g} s)")
                print(f"  {what}: killed (no {phase!r} within {deadline:g} s)",
                      file=sys.stderr)
                return TIMEOUT, got.get("solved"), got.get("built")
            try:
                msg = recv.recv()
            except EOFError:
                proc.join(5)
                NOTES.append(f"{what}: child exited ({proc.exitcode}) before {phase!r}")
                return "crashed", got.get("solved"), got.get("built")
            if msg[0] == "error":
                raise RuntimeError(f"{what} failed:\n{msg[1]}")
            got[msg[0]] = msg[1]
        solved = got["solved"]
        if solved > limit or got["done"] == TIMEOUT:
            return TIMEOUT, solved, got["built"]
        return got["done"], solved, got["built"]
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
        recv.close()


def load_explicit(args, model):
    """The traffic as a list of paths from `liquid expand` (explicit YAML), or None when
    expansion did not finish within the limit."""
    text = checked_run([args.liquid, "expand", model], args.time_limit + args.margin,
                       f"liquid expand {model}")
    if text is None:
        return None
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    doc = yaml.load(text, Loader=loader)
    return [t["path"] for t in doc["transfers"]]


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


def cpsat(paths, users, k, minimise, limit, lower, grace):
    """CP-SAT on the per-link at-most-one model with k frames, in a child process:
    (answer, solve seconds, build seconds). answer: frames used (int), 'infeasible' or
    TIMEOUT."""
    n = len(paths)

    def build():
        m = cp_model.CpModel()
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
        return m, x

    def solve(state):
        m, x = state
        s = cp_model.CpSolver()
        s.parameters.num_workers = 1
        s.parameters.max_time_in_seconds = limit
        start = time.perf_counter()
        status = s.Solve(m)
        secs = time.perf_counter() - start
        if status == cp_model.INFEASIBLE:
            return "infeasible", secs
        if status == cp_model.OPTIMAL or (status == cp_model.FEASIBLE and not minimise):
            return [next(c for c in range(k) if s.Value(x[t][c])) for t in range(n)], secs
        return TIMEOUT, secs

    def check(_state, answer):
        if isinstance(answer, list):
            if not proper(answer, users):
                raise RuntimeError("CP-SAT returned an invalid schedule")
            return len(set(answer))
        return answer

    return in_child(build, solve, check, limit, grace,
                    f"CP-SAT {'optimum' if minimise else 'liquidity'} (k={k})")


def nx_dsatur(n, users, limit, grace):
    """networkx DSatur in a child process (greedy_color cannot be interrupted; the
    conflict-graph construction counts as building): (colours, solve s, build s)."""
    def build():
        g = nx.Graph()
        g.add_nodes_from(range(n))
        for us in users.values():
            g.add_edges_from((a, b) for i, a in enumerate(us) for b in us[i + 1:])
        return g

    def solve(g):
        return nx.coloring.greedy_color(g, strategy="saturation_largest_first"), None

    def check(_g, colour):
        if not proper(colour, users):
            raise RuntimeError("networkx returned an invalid colouring")
        return max(colour.values()) + 1

    return in_child(build, solve, check, limit, grace, "networkx DSatur")


def cadical(cnf_path, limit, grace):
    """python-sat CaDiCaL 1.9.5 on a DIMACS file in a child process, interrupted at the
    limit by a timer (and killed if it does not stop): ('sat'/'unsat'/TIMEOUT, s, s)."""
    def build():
        cnf = CNF(from_file=str(cnf_path))
        return cnf, Cadical195(bootstrap_with=cnf.clauses)

    def solve(state):
        _, s = state
        timer = threading.Timer(limit, s.interrupt)  # started outside the timed span
        timer.start()
        start = time.perf_counter()
        r = s.solve_limited(expect_interrupt=True)
        secs = time.perf_counter() - start
        timer.cancel()
        return (TIMEOUT if r is None else r), secs

    def check(state, r):
        cnf, s = state
        if r is True:
            true = {l for l in s.get_model() if l > 0}
            if not all(any((l > 0) == (abs(l) in true) for l in c) for c in cnf.clauses):
                raise RuntimeError("CaDiCaL's model does not satisfy the CNF")
        s.delete()
        return {True: "sat", False: "unsat"}.get(r, TIMEOUT)

    return in_child(build, solve, check, limit, grace, "CaDiCaL")


def varisat(args, cnf_path, limit):
    try:
        p = subprocess.run([args.varisat, str(cnf_path)], capture_output=True, text=True,
                           timeout=limit + args.grace)
    except subprocess.TimeoutExpired:
        return TIMEOUT, None
    if p.returncode != 0:
        raise RuntimeError(f"varisat_dimacs failed: {p.stderr}")
    r = json.loads(p.stdout)
    if r["time_s"] > limit:
        return TIMEOUT, r["time_s"]
    return r["answer"], r["time_s"]


# ---------------------------------------------------------------- one instance


def run(args, name, model, workdir):
    a, analyze_wall = run_liquid(args, ["analyze", model, "--format", "json"], name, False)
    row = {"instance": name}
    if a == TIMEOUT:
        lam = n = edges = None
        big = big_cnf = True
        row.update({"transfers": "?", "lambda": "?", "conflict_edges": "?",
                    "ours_analyze": TIMEOUT, "ours_analyze_wall_s": analyze_wall})
    else:
        lam, n, edges = a["duration"], a["transfers"], a["conflict_edges"]
        big = n * lam > args.max_vars or edges > args.max_edges
        big_cnf = n * lam > args.max_cnf_vars
        row.update({"transfers": n, "lambda": lam, "conflict_edges": edges,
                    "ours_analyze": "done", "ours_analyze_wall_s": analyze_wall})
    print(f"{name}: {n} transfers, Λ={lam}, {edges} conflict edges "
          f"(analyze {analyze_wall:.1f} s)", file=sys.stderr)

    ds = liquid_solve(args, name, model, "dsatur")
    row["ours_dsatur_colours"], row["ours_dsatur_colours_s"] = ds["length"], ds["time"]
    row["ours_dsatur_colours_wall_s"] = ds["wall"]
    if ds["verdict"] == TIMEOUT or ds["length"] is None:
        row["ours_dsatur_colours"] = TIMEOUT
    nat = liquid_solve(args, name, model, "native")
    row["ours_native_s"], row["ours_native_wall_s"] = nat["time"], nat["wall"]
    row["ours_native"] = nat["verdict"] if nat["verdict"] in ("liquid", "non-liquid") \
        else TIMEOUT
    for eng in ["exact", "sat", "sat-incremental"]:
        key = "ours_" + eng.replace("-", "_")
        if big or (eng.startswith("sat") and big_cnf):
            row[key], row[key + "_s"] = SKIPPED, None
            continue
        r = liquid_solve(args, name, model, eng)
        known = r["verdict"] in ("liquid", "optimal")
        row[key] = r["length"] if known else (
            TIMEOUT if r["verdict"] in ("feasible", "unknown", TIMEOUT) else r["verdict"])
        row[key + "_s"], row[key + "_wall_s"] = r["time"], r["wall"]

    peer_cols = ["cpsat_liquid", "cpsat_opt", "nx_dsatur_colours", "cnf_varisat",
                 "cnf_cadical"]
    if big:
        for c in peer_cols:
            row[c], row[c + "_s"] = SKIPPED, None
        return row

    paths = load_explicit(args, model)
    if paths is None:
        for c in peer_cols:
            row[c], row[c + "_s"] = TIMEOUT, None
        return row
    users = link_users(paths)
    lim, grace = args.time_limit, args.grace
    (row["nx_dsatur_colours"], row["nx_dsatur_colours_s"],
     row["nx_dsatur_colours_build_s"]) = nx_dsatur(n, users, lim, grace)
    liq, secs, built = cpsat(paths, users, lam, False, lim, lam, grace)
    row["cpsat_liquid"] = {"infeasible": "non-liquid", TIMEOUT: TIMEOUT,
                           "crashed": "crashed"}.get(liq, "liquid")
    row["cpsat_liquid_s"], row["cpsat_liquid_build_s"] = secs, built
    bounds = [c for c in [ds["length"], row["nx_dsatur_colours"]] if isinstance(c, int)]
    if bounds:
        opt, secs, built = cpsat(paths, users, min(bounds), True, lim, lam, grace)
    else:  # no DSatur length to bound the frames with
        opt, secs, built = SKIPPED, None, None
    row["cpsat_opt"], row["cpsat_opt_s"], row["cpsat_opt_build_s"] = opt, secs, built
    if big_cnf:
        for c in ["cnf_varisat", "cnf_cadical"]:
            row[c], row[c + "_s"] = SKIPPED, None
        return row
    cnf = workdir / f"{name}.cnf"
    text = checked_run([args.liquid, "encode", model, "--colours", str(lam)],
                       lim + args.margin, f"liquid encode {name}")
    if text is None:
        for c in ["cnf_varisat", "cnf_cadical"]:
            row[c], row[c + "_s"] = TIMEOUT, None
        return row
    cnf.write_text(text)
    row["cnf_varisat"], row["cnf_varisat_s"] = varisat(args, cnf, lim)
    row["cnf_cadical"], row["cnf_cadical_s"], _ = cadical(cnf, lim, grace)
    cnf.unlink()
    return row


def disagreements(row):
    """Every contradiction between definite answers in one row."""
    lam = row["lambda"]
    if not isinstance(lam, int):  # analysis timed out: no definite answer to compare
        return []
    liquid = {}  # tool -> True/False
    v = {"liquid": True, "non-liquid": False}
    for tool in ["ours_native", "cpsat_liquid"]:
        if row.get(tool) in v:
            liquid[tool] = v[row[tool]]
    for tool in ["cnf_varisat", "cnf_cadical"]:
        if row.get(tool) in ("sat", "unsat"):
            liquid[tool] = row[tool] == "sat"
    opts = {t: row[t] for t in ["ours_exact", "ours_sat", "ours_sat_incremental", "cpsat_opt"]
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
    ("optimum: sat-incremental / CP-SAT", "ours_sat_incremental_s", "cpsat_opt_s"),
    ("sat-incremental / sat", "ours_sat_incremental_s", "ours_sat_s"),
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
        f"{cpu}, {os.cpu_count()} shared cores, other builds running (other "
        f"developers' builds and tests; load average {os.getloadavg()[0]:.1f} when this "
        f"table was written; timings are noisy), {mem_gib():.0f} GiB memory, Python "
        f"{platform.python_version()}, "
        + ", ".join(f"{k} {v}" for k, v in versions.items())
        + f"; per-instance time limit {args.time_limit:g} s per tool; whole run "
        f"{total_s:.0f} s.",
        "",
        "Every tool runs under a hard deadline. liquid: `--time-limit` plus a subprocess "
        f"killed at the limit + {args.margin:g} s (model generation included); an engine "
        "killed there, or reporting an engine time past its own limit, is listed under "
        "*Overruns* below. Peers run in a forked child process killed at its deadlines: "
        "Python model building (CP-SAT model, networkx conflict graph, CNF loading) gets "
        f"the limit, the solve call the limit + {args.grace:g} s (CP-SAT "
        "`max_time_in_seconds` and CaDiCaL `interrupt()` stop themselves at the limit; "
        "networkx cannot be interrupted and is killed); a solve past the limit is "
        f"\"{TIMEOUT}\".",
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
        "(DSATUR branch and bound), `--engine sat` (varisat, a fresh solver per k, k = Λ "
        "upwards) and `--engine sat-incremental` (one varisat going down from the best "
        "schedule's length, timeframes closed by unit clauses between runs); the column "
        "sat-incremental / sat is the incremental engine's gain (below 1: faster). "
        f"\"{SKIPPED}\": decided from `liquid analyze` before building anything: "
        f"CP-SAT and networkx when transfers × Λ > {args.max_vars} or conflict edges > "
        f"{args.max_edges}; the CNF (both solvers) and the sat engine when transfers × Λ "
        f"> {args.max_cnf_vars}. Beyond the peers' size liquid runs analysis, DSatur "
        "and the native search only. Raw numbers (with wall and model-building times): "
        "peers.csv.",
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
    lines += ["", "liquid alone (seconds: `stats.time_s`; analysis: wall time of "
              "`liquid analyze`, model generation included):", "",
              "| instance | transfers | Λ | conflict edges | analyze | dsatur (colours) | "
              "native (verdict) | exact | sat | sat-incremental |", "|" + " --- |" * 10]
    for r in rows:
        lines.append(f"| {r['instance']} | {r['transfers']} | {r['lambda']} | "
                     f"{r['conflict_edges']} | {own(r, 'ours_analyze', 'ours_analyze_wall_s')}"
                     f" | {own(r, 'ours_dsatur_colours', 'ours_dsatur_colours_s', True)} | "
                     f"{own(r, 'ours_native', 'ours_native_s', True)} | "
                     f"{own(r, 'ours_exact', 'ours_exact_s')} | "
                     f"{own(r, 'ours_sat', 'ours_sat_s')} | "
                     f"{own(r, 'ours_sat_incremental', 'ours_sat_incremental_s')} |")
    lines += ["", "Overruns of liquid's own time limit (bugs in liquid):", ""]
    lines += [f"- {o}" for o in OVERRUNS] or ["- none"]
    lines += ["", "Other limits hit (commands without a limit of their own, peers killed):",
              ""]
    lines += [f"- {o}" for o in NOTES] or ["- none"]
    (out / "peers.md").write_text("\n".join(lines) + "\n")


def own(row, answer_key, time_key, show_answer=False):
    """One cell of liquid's own table: the time, 'timeout' or 'not attempted'."""
    a, t = row.get(answer_key), row.get(time_key)
    if a in (TIMEOUT, SKIPPED) or a is None:
        return a or "-"
    cell = f"{t:.3g}" if isinstance(t, (int, float)) else "?"
    return f"{cell} ({a})" if show_answer else cell


def mem_gib():
    for line in open("/proc/meminfo"):
        if line.startswith("MemTotal:"):
            return int(line.split()[1]) / 2**20
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="a few small instances only")
    p.add_argument("--time-limit", type=float, default=60, help="seconds per tool and instance")
    p.add_argument("--margin", type=float, default=30,
                   help="liquid is killed at the time limit plus this many seconds")
    p.add_argument("--grace", type=float, default=5,
                   help="a peer's solve is killed at the time limit plus this many seconds")
    p.add_argument("--max-vars", type=int, default=2_500_000,
                   help="peers and CNF skipped above this many transfers x Λ")
    p.add_argument("--max-cnf-vars", type=int, default=1_000_000,
                   help="CNF comparison and sat engine skipped above this transfers x Λ")
    p.add_argument("--max-edges", type=int, default=5_000_000,
                   help="peers skipped above this many conflict edges")
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
    print(f"wrote {args.out}/peers.md and peers.csv; disagreements: {bad or 'none'}; "
          f"overruns of liquid's own time limit: {OVERRUNS or 'none'}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
