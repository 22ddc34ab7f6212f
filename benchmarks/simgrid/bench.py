#!/usr/bin/env python3
"""liquid simulate against SimGrid (issue 15).

For every instance and mode: a schedule from `liquid solve` (native, DSatur when the
native search stops at its limit), `liquid simulate --schedule ... --format json`, then
`liquid export simgrid` with the same arguments and driver.py on the export. Writes a
Markdown table (both makespans, their relative difference, both wall times, the speed-up)
to --out. Exits 1 when a makespan differs by more than --tolerance (relative).
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

INSTANCES = [
    "paper-fig1:",
    "t1:1,1,1,1,1,1,1,1",
    "t1:2,2,2,2,2,2,2,2",
    "t1:4,4,4,4,0,0,2,1",
    "t1:4,0,4,0,4,0,4,0",
    "t1:3,1,0,2,4,0,1,3",
    "t1:4,4,4,4,4,4,4,4",
    "fat-tree:4,3",
]
# Generated models without a link throughput of their own.
EXTRA = {"fat-tree:4,3": ["--link-throughput", "100"]}
MODES = ["frames", "async", "all-at-once"]


def run(cmd, **kw):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        raise SystemExit(f"bench-simgrid: {' '.join(cmd)} failed ({p.returncode}):\n{p.stderr}")
    return p.stdout, wall


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--liquid", required=True)
    ap.add_argument("--python", default="/usr/bin/python3", help="python with simgrid")
    ap.add_argument("--out", default="benchmarks/results/simgrid.md")
    ap.add_argument("--size", default="1000000", help="bytes per transfer")
    ap.add_argument("--overhead", default="0.00001", help="seconds per message")
    ap.add_argument("--link-latency", default="0.000005", help="seconds per link")
    ap.add_argument("--time-limit", default="30", help="for the native search")
    ap.add_argument("--tolerance", type=float, default=0.01)
    ap.add_argument("--repeat", type=int, default=3, help="runs per side; wall times are minima")
    ap.add_argument("--build", default="release", help="which liquid build (for the report)")
    a = ap.parse_args()

    rows = []
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for inst in INSTANCES:
            sched = os.path.join(tmp, "schedule.yaml")
            out, _ = run([a.liquid, "solve", inst, "--engine", "native", "--time-limit", a.time_limit,
                          "--format", "json"])
            solved = json.loads(out)
            engine = "native"
            if solved.get("timeframes") is None:
                out, _ = run([a.liquid, "solve", inst, "--engine", "dsatur", "--format", "json"])
                solved = json.loads(out)
                engine = "dsatur"
            with open(sched, "w") as f:
                f.write("timeframes:\n")
                for frame in solved["timeframes"]:
                    f.write("  - [" + ", ".join(json.dumps(t) for t in frame) + "]\n")
            for mode in MODES:
                common = ["--schedule", sched, "--mode", mode, "--size", a.size,
                          "--overhead", a.overhead, "--link-latency", a.link_latency,
                          *EXTRA.get(inst, [])]
                ours, ours_wall = None, None
                for _ in range(a.repeat):
                    out, w = run([a.liquid, "simulate", inst, *common, "--format", "json"])
                    r = json.loads(out)
                    if ours is not None and r["makespan_s"] != ours["makespan_s"]:
                        raise SystemExit(f"bench-simgrid: {inst} {mode}: liquid is not deterministic")
                    if ours is None or r["wall_s"] < ours["wall_s"]:
                        ours = r
                    ours_wall = w if ours_wall is None else min(ours_wall, w)
                d = os.path.join(tmp, "export")
                run([a.liquid, "export", "simgrid", inst, *common, "--out", d])
                sg, sg_wall = None, None
                for _ in range(a.repeat):
                    out, w = run([a.python, os.path.join(HERE, "driver.py"), d])
                    r = json.loads(out.strip().splitlines()[-1])
                    if sg is None or r["run_wall_s"] < sg["run_wall_s"]:
                        sg = r
                    sg_wall = w if sg_wall is None else min(sg_wall, w)
                out, _ = run([a.python, os.path.join(HERE, "driver.py"), d, "--latency", "links"])
                cm02 = json.loads(out.strip().splitlines()[-1])
                rel = abs(ours["makespan_s"] - sg["makespan_s"]) / sg["makespan_s"]
                worst = max(worst, rel)
                rows.append({
                    "instance": inst, "mode": mode, "transfers": ours["transfers"],
                    "frames": solved["length"], "engine": engine,
                    "ours": ours["makespan_s"], "simgrid": sg["makespan_s"], "rel": rel,
                    "ours_sim": ours["wall_s"], "ours_proc": ours_wall,
                    "sg_sim": sg["run_wall_s"], "sg_proc": sg_wall,
                    "cm02": cm02["makespan_s"],
                    "thr": ours["throughput_mb_s"], "liquid": ours.get("liquid_throughput_mb_s"),
                    "simgrid_version": sg["simgrid"],
                })
                r = rows[-1]
                print(f"{inst:24} {mode:12} ours {r['ours']:.6f} s  simgrid {r['simgrid']:.6f} s  "
                      f"diff {100 * rel:.4f} %  sim wall {r['ours_sim']:.4f} s vs {r['sg_sim']:.4f} s",
                      file=sys.stderr)

    lines = [
        "# liquid simulate against SimGrid",
        "",
        f"Command: `bash scripts/bench-simgrid` ({time.strftime('%Y-%m-%d')}; {platform.machine()}, "
        f"{os.cpu_count()} cores shared with other jobs; SimGrid {rows[0]['simgrid_version']} "
        f"(Debian python3-simgrid); liquid {a.build} build).",
        "",
        f"Every transfer {a.size} bytes, per-message overhead {a.overhead} s, every link "
        f"{a.link_latency} s latency, link bandwidth the model's (Swiss-T1 86 MB/s, paper-fig1 "
        "100 MB/s; fat-tree `--link-throughput 100`). SimGrid: CM02 with latency and bandwidth factors 1, weight-S 0, "
        "crosstraffic 0, TCP-gamma 0 (pure max-min fairness), routes exported one-way. Schedules: "
        "`liquid solve --engine native` (DSatur when native stops at its limit), the same file on "
        "both sides.",
        "",
        "SimGrid's CM02 weights each flow's share by its route latency (RTT unfairness) "
        "whenever links have latencies, and no option turns that off; the driver therefore "
        "zeroes the link latencies and delays each communication by its route latency "
        "(`driver.py --latency delay`, the *SimGrid* column: pure max-min, liquid's model). "
        "The *CM02, latency on links* column keeps the latencies on the links "
        "(`--latency links`), for information: it is what an unmodified SimGrid run says.",
        "",
        "Wall times: *sim* is the simulation proper (liquid: `wall_s` of the report; SimGrid: "
        "`Engine.run()`), each the minimum of --repeat runs, *process* the whole command (liquid: load, plan, simulate, print; "
        "SimGrid: Python start-up, platform parsing, run). Speed-up = SimGrid sim / liquid sim.",
        "",
        "| instance | mode | transfers | frames | liquid makespan (s) | SimGrid makespan (s) | rel. diff | "
        "liquid sim (s) | SimGrid sim (s) | speed-up | liquid process (s) | SimGrid process (s) | "
        "throughput (MB/s) | liquid throughput (MB/s) | CM02, latency on links (s) | vs liquid |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        speed = r["sg_sim"] / r["ours_sim"] if r["ours_sim"] > 0 else float("inf")
        liquid = f"{r['liquid']:.2f}" if r["liquid"] is not None else "n/a"
        lines.append(
            f"| `{r['instance']}` | {r['mode']} | {r['transfers']} | {r['frames']} ({r['engine']}) | "
            f"{r['ours']:.6f} | {r['simgrid']:.6f} | {100 * r['rel']:.1e} % | {r['ours_sim']:.5f} | "
            f"{r['sg_sim']:.5f} | {speed:.0f}x | {r['ours_proc']:.3f} | {r['sg_proc']:.3f} | "
            f"{r['thr']:.2f} | {liquid} | {r['cm02']:.6f} | "
            f"{100 * (r['cm02'] - r['ours']) / r['ours']:+.2f} % |")
    lines += ["", f"Largest relative difference: {100 * worst:.1e} % over {len(rows)} runs "
              f"(goal: within {100 * a.tolerance:.0f} %).", ""]
    with open(a.out, "w") as f:
        f.write("\n".join(lines))
    print(f"bench-simgrid: wrote {a.out}; largest relative difference {100 * worst:.4f} %", file=sys.stderr)
    sys.exit(1 if worst > a.tolerance else 0)


if __name__ == "__main__":
    main()
