"""Which engine should `liquid solve` run by default? Runs candidate configurations on
the bundled models (models/ and models/hard/), the peer benchmark's instances
(benchmarks/peers/instances.py) and generated models, and writes the table of verdict,
length, whether the evidence is checked, and wall time per configuration.

    python3 benchmarks/default/measure.py LIQUID OUT.md [--time-limit S]
"""

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE.parent / "peers"))
from instances import instances  # noqa: E402

CONFIGS = [
    ("native", ["--engine", "native"]),
    ("portfolio", ["--engine", "portfolio"]),
    ("portfolio, checked", ["--engine", "portfolio", "--require-proof"]),
]
GENERATED = [
    "fat-tree:4,3", "fat-tree:8,2", "torus:4x4,1", "mesh:3x3,1", "ring:6,2",
    "two-clusters:4,4", "t1:4,4,4,4,0,0,2,1", "multi-cluster:4,5x1", "multi-cluster:4,2x1+3x2",
]


def run(liquid, model, args, limit):
    cmd = [liquid, "solve", model, *args, "--format", "json", "--time-limit", str(limit)]
    t = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=limit * 2 + 60)
    wall = time.monotonic() - t
    if p.returncode not in (0, 1):
        return {"verdict": f"exit {p.returncode}", "length": None, "certified": False, "wall": wall}
    r = json.loads(p.stdout)
    return {"verdict": r["verdict"], "length": r["length"], "certified": r["certified"],
            "bound": r["lower_bound"], "wall": wall}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("liquid")
    ap.add_argument("out")
    ap.add_argument("--time-limit", type=float, default=300)
    a = ap.parse_args()
    work = Path(os.environ.get("TMPDIR", "/tmp")) / "liquid-bench-default"
    models = [(n, m) for n, m in instances(False, work)]
    models += [("hard/queen8_8", str(ROOT / "models/hard/queen8_8.yaml"))]
    models += [(g, g) for g in GENERATED]
    rows = []
    for name, model in models:
        row = {"name": name}
        for label, args in CONFIGS:
            row[label] = run(a.liquid, model, args, a.time_limit)
            print(name, label, row[label], file=sys.stderr, flush=True)
        rows.append(row)
    out = []
    out.append("# The default engine of `liquid solve`\n")
    out.append(f"`bash scripts/bench-default {a.time_limit:g}` (`python3 benchmarks/default/measure.py LIQUID "
               f"{a.out} --time-limit {a.time_limit:g}`) "
               f"({datetime.date.today()}, {platform.machine()}, {os.cpu_count()} cores, release build). "
               "Each cell: verdict, length (✓ when the evidence of the bound is checked), wall time.\n")
    head = "| model | " + " | ".join(l for l, _ in CONFIGS) + " |"
    out.append(head)
    out.append("|" + " --- |" * (len(CONFIGS) + 1))
    totals = {l: [0, 0, 0.0, 0.0] for l, _ in CONFIGS}  # schedules, certified, total, max

    def cell(r):
        length = "-" if r["length"] is None else str(r["length"])
        return f"{r['verdict']} {length}{' ✓' if r['certified'] else ''}, {r['wall']:.2f} s"
    for row in rows:
        out.append(f"| {row['name']} | " + " | ".join(cell(row[l]) for l, _ in CONFIGS) + " |")
        for l, _ in CONFIGS:
            r = row[l]
            t = totals[l]
            t[0] += r["length"] is not None
            t[1] += bool(r["certified"]) and r["length"] is not None and r["verdict"] in ("liquid", "optimal")
            t[2] += r["wall"]
            t[3] = max(t[3], r["wall"])
    out.append("")
    out.append("| configuration | with a schedule | optimal with checked evidence | total wall time | slowest |")
    out.append("| --- | --- | --- | --- | --- |")
    for l, _ in CONFIGS:
        t = totals[l]
        out.append(f"| {l} | {t[0]} of {len(rows)} | {t[1]} of {len(rows)} | {t[2]:.1f} s | {t[3]:.2f} s |")
    Path(a.out).write_text("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
