#!/usr/bin/env python3
"""The MPI runtime of crates/mpi under SimGrid SMPI, beside liquid's simulation (issue 26).

For every case and size: a schedule from `liquid solve --engine native` (one file for both
sides), `liquid export mpi` (the runtime's plan and liquid's prediction of it) and
`liquid export simgrid` (the platform), then with smpirun on that platform:

- the runtime (`liquid-mpi-run --no-check`, built with smpicc) under CM02 with every
  correction at 1 or off (latency and bandwidth factors 1, weight-S 0, crosstraffic 0,
  TCP-gamma 0, no computation simulated): the same model as liquid's, the 2 % goal;
- the runtime under SMPI's default network model, unmodified;
- MPI_Alltoall(v) of the same counts (the baseline a user would otherwise get) under CM02
  as above, with SMPI's copies of Open MPI's and MPICH's algorithm choices
  (--cfg=smpi/coll-selector:ompi and :mpich).

Writes a Markdown table to --out. Exits 1 when a CM02 run differs from liquid's prediction
by more than --tolerance.
"""

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time

CASES = [
    ("paper-fig1:", []),
    ("t1:1,1,1,1,1,1,1,1", []),
    ("t1:2,2,2,2,2,2,2,2", []),
    ("t1:4,4,4,4,0,0,2,1", []),
    ("t1:4,0,4,0,4,0,4,0", []),
    ("t1:3,1,0,2,4,0,1,3", []),
    ("t1:4,4,4,4,4,4,4,4", []),
    ("fat-tree:4,3", ["--link-throughput", "100"]),
    ("two-clusters:30,30", []),
    ("two-clusters:20,40", []),
]
CM02 = [
    "--cfg=network/model:CM02",
    "--cfg=network/latency-factor:1",
    "--cfg=network/bandwidth-factor:1",
    "--cfg=network/weight-S:0",
    "--cfg=network/crosstraffic:0",
    "--cfg=network/TCP-gamma:0",
    "--cfg=smpi/test:0",
    "--cfg=smpi/iprobe:0",
    "--cfg=smpi/simulate-computation:no",
    "--cfg=smpi/shared-malloc:global",
    "--cfg=smpi/auto-shared-malloc-thresh:65536",
    # 60 ranks x 118 buffers of 16 MiB in 1 MiB blocks exceed vm.max_map_count.
    "--cfg=smpi/shared-malloc-blocksize:67108864",
]
# SimGrid's packet-level model (ns-3's TCP), unmodified, on the one-hop platform.
NS3 = [
    "--cfg=network/model:ns-3",
    "--cfg=smpi/simulate-computation:no",
]
DEFAULT = [
    "--cfg=smpi/simulate-computation:no",
    "--cfg=smpi/shared-malloc:global",
    "--cfg=smpi/auto-shared-malloc-thresh:65536",
    # 60 ranks x 118 buffers of 16 MiB in 1 MiB blocks exceed vm.max_map_count.
    "--cfg=smpi/shared-malloc-blocksize:67108864",
]


def run(cmd, timeout=None):
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, time.perf_counter() - t0, "timeout"
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        lines = [l for l in (p.stderr + p.stdout).splitlines() if "xbt_cfg/INFO" not in l and "did not return 0" not in l]
        return None, wall, "\n".join(lines[-8:])
    return p.stdout, wall, None


def must(cmd):
    out, wall, err = run(cmd)
    if out is None:
        raise SystemExit(f"bench-smpi: {' '.join(cmd)} failed:\n{err}")
    return out, wall


def complete_routes(path):
    """Adds a route for every ordered pair of hosts (and each host to itself) that the
    model leaves without one, over one FATPIPE link of unlimited bandwidth and no latency:
    MPI's own messages (barriers, the report's reductions, MPI_Comm_dup) travel between
    every pair of ranks, the model's routes only between the pairs with transfers. The
    model's links carry no such message, and a zero-latency fat pipe costs no time."""
    import re
    text = open(path).read()
    hosts = re.findall(r'<host id="([^"]*)"', text)
    have = set(re.findall(r'<route src="([^"]*)" dst="([^"]*)"', text))
    extra = ['    <link id="mpi-control" bandwidth="1e15Bps" latency="0s" sharing_policy="FATPIPE"/>']
    for a in hosts:
        for b in hosts:
            if (a, b) not in have:
                extra.append(f'    <route src="{a}" dst="{b}" symmetrical="NO"><link_ctn id="mpi-control"/></route>')
    # Links must precede routes: put the control link after the last <link>, the routes
    # before the zone's end.
    lines = text.splitlines()
    last_link = max(i for i, l in enumerate(lines) if l.strip().startswith("<link "))
    end = max(i for i, l in enumerate(lines) if l.strip() == "</zone>")
    lines = lines[: last_link + 1] + extra[:1] + lines[last_link + 1 : end] + extra[1:] + lines[end:]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return len(extra) - 1


def two_cluster_args(ap, sizes):
    """The arguments of the two-cluster drivers (mpi_plans.py, mpi_rndv.py); `sizes` is
    the default list of message sizes."""
    ap.add_argument("--liquid", required=True)
    ap.add_argument("--example", required=True, help="the mpi_alltoall example binary")
    ap.add_argument("--cases", default="4,4;8,8;6,10")
    ap.add_argument("--sizes", default=sizes)
    ap.add_argument("--windows", default="0,131072")
    ap.add_argument("--out", required=True)
    ap.add_argument("--timeout", type=float, default=600)


def smpi_program(tmp, source):
    """benchmarks/smpi/SOURCE built with smpicc into `tmp`, and SMPI's version line."""
    here = os.path.dirname(os.path.abspath(__file__))
    prog = f"{tmp}/{os.path.splitext(source)[0]}"
    must(["smpicc", "-O2", "-o", prog, f"{here}/{source}"])
    version = must(["smpirun", "-version"])[0].strip().splitlines()[-1]
    return prog, version


def two_cluster_platform(liquid, tmp, n1, n2):
    """The platform of `liquid export simgrid two-clusters:N1,N2` (routes completed) and
    its hostfile (a0.., then b0..), in a directory of `tmp`, returned."""
    d = f"{tmp}/{n1}-{n2}"
    must([liquid, "export", "simgrid", f"two-clusters:{n1},{n2}", "--engine", "dsatur", "--out", d])
    complete_routes(f"{d}/platform.xml")
    with open(f"{d}/hostfile", "w") as f:
        for k in range(n1 + n2):
            f.write((f"a{k}" if k < n1 else f"b{k - n1}") + "\n")
    return d


def smpirun(cfg, d, ranks, prog, args, timeout, platform_xml="platform.xml"):
    cmd = ["smpirun", *cfg, "--cfg=smpi/display-timing:no", "-platform", f"{d}/{platform_xml}",
           "-hostfile", f"{d}/hostfile", "-np", str(ranks), prog, *args]
    return run(cmd, timeout)


def fmt(x, digits=6):
    return "—" if x is None else f"{x:.{digits}f}"


def ns3_cell(res):
    if "ns3_timeout" in res:
        return f"> {res['ns3_timeout']:.0f} s wall"
    return sec(res.get("ns3"))


def sec(x):
    """A time to 7 significant digits (1 kB runs take tens of microseconds)."""
    return "—" if x is None else f"{x:.7g}"


def rel(a, b):
    return None if a is None or b is None or b == 0 else (a - b) / b


def pct(x):
    return "—" if x is None else f"{100 * x:+.2f} %"


def write_table(a, version, rows, worst):
    lines = [
        "# The MPI runtime under SimGrid SMPI, beside liquid's prediction",
        "",
        f"Command: `bash scripts/bench-smpi` ({time.strftime('%Y-%m-%d')}; {platform.machine()}, "
        f"2 cores shared with other jobs; {version}; liquid {a.build} build).",
        "",
        "Every case runs `liquid-mpi-run` (crates/mpi/runtime, built with smpicc, unchanged) on "
        "the platform of `liquid export simgrid` with the hostfile of `liquid export mpi`, the "
        "plan the same file for liquid and SMPI (one `liquid solve --engine native` schedule "
        "per case, frame by frame with a barrier between frames; LG as `liquid_sim`'s plan; "
        "LG with liquid phases as `liquid_sim`'s `plan_scheduled`, the phases scheduled by the "
        "native engine). *bytes checked*: every received byte verified against its "
        "(source, destination, offset) pattern under SMPI, with shared malloc off, whenever 3x "
        "the plan's bytes fit in 1 GiB; otherwise `--no-check` under SMPI's shared malloc (it "
        "moves no real bytes), and the byte checks of the same plans run on Open MPI in "
        "`scripts/test-mpi`.",
        "",
        "- *liquid plan*: `liquid simulate` of the plan (frames start when the previous frame's "
        "last message is delivered);",
        "- *liquid run*: liquid's prediction of the run (`total_s` of `liquid export mpi "
        "--envelope 16`, crates/mpi/src/model.rs): the same simulator on the plan as the "
        "runtime runs it, each rank's operations in order, a message started when both sides "
        "have posted it, sends below 64 KiB eager, `MPI_Barrier` as SMPI's default basic "
        "linear barrier, SMPI's 16-byte envelope on every message, each rank timed from its "
        "own exit of the first barrier; the 2 % goal is against this column;",
        "- *SMPI CM02*: `" + " ".join(CM02[:8]) + "` (the corrections at 1 or off, as liquid's "
        "model; `smpi/test:0` because SMPI otherwise adds 100 µs of simulated time to calls "
        "such as `MPI_Waitsome` on messages a rank sends to itself, 0.7 ms of 0.8 ms on "
        "`t1:1,1,1,1,1,1,1,1` at 1 kB);",
        "- *SMPI default*: SMPI's own network model (piecewise latency and bandwidth factors), "
        "unmodified;",
        "- *ns-3*: `--cfg=network/model:ns-3` (packet-level TCP), unmodified, on the platform of "
        "`liquid export simgrid --one-hop` (every link a one-hop route, switches as routers; "
        "ns-3 routes by itself), for plans of at most 128 MiB; a run over 120 s of wall time "
        "is stopped;",
        "- *ompi*, *mpich*: `MPI_Alltoall` (`MPI_Alltoallv` when pairs carry different bytes) "
        "of the same counts under CM02 as above, with `--cfg=smpi/coll-selector:ompi` / `:mpich`;",
        "- *liquid sim*: `wall_s` of `liquid simulate` (the simulation proper); *SMPI wall*: the "
        "whole smpirun of the CM02 run.",
        "",
        "| case | bytes | plan | ranks | messages | bytes checked | liquid plan (s) | liquid run (s) | SMPI CM02 (s) | diff | SMPI default (s) | diff | ns-3 (s) | diff | MPI_Alltoall ompi (s) | mpich (s) | liquid sim (s) | SMPI wall (s) |",
        "| --- | ---: | --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for spec, size, label, ranks, msgs, plan_s, pred, res, r, lwall, swall, check in rows:
        lines.append(
            f"| `{spec}` | {size} | {label} | {ranks} | {msgs} | {'yes' if check else 'no'} | {sec(plan_s)} | {sec(pred)} | {sec(res.get('cm02'))} | "
            f"{pct(r)} | {sec(res.get('default'))} | {pct(rel(res.get('default'), pred))} | "
            f"{ns3_cell(res)} | {pct(rel(res.get('ns3'), pred))} | "
            f"{sec(res.get('ompi'))} | {sec(res.get('mpich'))} | {fmt(lwall, 5)} | {fmt(swall, 2)} |"
        )
    lines += ["", f"Largest CM02 difference: {100 * worst:.2f} % (goal: 2 %).", ""]
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        f.write("\n".join(lines))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--liquid", required=True)
    ap.add_argument("--out", default="benchmarks/results/smpi.md")
    ap.add_argument("--sizes", default="1024,65536,1048576,16777216")
    ap.add_argument("--cases", default="", help="comma-separated prefixes of the cases to run")
    ap.add_argument("--time-limit", default="30", help="for the native search")
    ap.add_argument("--timeout", type=float, default=900, help="per smpirun, seconds")
    ap.add_argument("--tolerance", type=float, default=0.02)
    ap.add_argument("--build", default="release")
    ap.add_argument("--ns3-max-bytes", type=float, default=128 * 2**20,
                    help="run ns-3 (packet level, slow) on plans of at most this many bytes")
    ap.add_argument("--ns3-timeout", type=float, default=120, help="per ns-3 smpirun, seconds")
    ap.add_argument("--check-memory", type=float, default=2**30,
                    help="check every byte (no shared malloc) when 3x the plan's bytes fit in this many bytes")
    a = ap.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")]
    cases = [c for c in CASES if not a.cases or any(c[0].startswith(p) for p in a.cases.split(","))]

    tmp = tempfile.mkdtemp(prefix="bench-smpi-")
    rt = "crates/mpi/runtime"
    runner = f"{tmp}/liquid-mpi-run"
    bench = f"{tmp}/alltoallv-bench"
    must(["smpicc", "-O2", "-std=c99", "-o", runner, f"{rt}/liquid_mpi.c", f"{rt}/liquid_mpi_run.c", "-lm"])
    must(["smpicc", "-O2", "-std=c99", "-o", bench, f"{rt}/liquid_mpi.c", f"{rt}/alltoallv_bench.c", "-lm"])
    version = must(["smpirun", "-version"])[0].strip().splitlines()[-1]

    rows = []
    worst = 0.0
    for spec, extra in cases:
        sched = f"{tmp}/{spec.replace(':', '_').replace(',', '-')}.yaml"
        must([a.liquid, "solve", spec, "--engine", "native", "--time-limit", a.time_limit,
              "--schedule-out", sched])
        plans = [("liquid frames", ["--schedule", sched])]
        if spec.startswith("two-clusters:"):
            plans.append(("LG (001)", ["--plan", "lg"]))
            plans.append(("LG, liquid phases", ["--plan", "lg-liquid", "--time-limit", a.time_limit]))
        for size in sizes:
            for label, pargs in plans:
                d = f"{tmp}/{spec.replace(':', '_').replace(',', '-')}-{size}-{re.sub('[^a-z0-9]+', '-', label.lower())}"
                common = [spec, "--size", str(size), *extra]
                # SMPI adds a 16-byte envelope to every message (smpi_request.cpp).
                must([a.liquid, "export", "mpi", *common, *pargs, "--envelope", "16", "--out", d])
                must([a.liquid, "export", "simgrid", *common, "--schedule", sched, "--out", d])
                complete_routes(f"{d}/platform.xml")
                # ns-3 needs one-hop links (hosts and routers) and routes by itself.
                must([a.liquid, "export", "simgrid", *common, "--schedule", sched, "--one-hop",
                      "--out", f"{d}/ns3"])
                manifest = json.load(open(f"{d}/manifest.json"))
                ranks = len(manifest["ranks"])
                predicted = manifest["prediction"]["total_s"]
                plan_s = manifest["prediction"]["plan_s"]
                # liquid's own time for the same plan: `simulate` (frames plans only), the
                # plan without the runtime's barriers and envelopes.
                lwall = None
                if label == "liquid frames":
                    sim_out, lwall = must([a.liquid, "simulate", *common, "--schedule", sched,
                                           "--format", "json"])
                    sim = json.loads(sim_out)
                    lwall = sim["wall_s"]
                    if abs(sim["makespan_s"] - plan_s) > 1e-9 * max(1.0, plan_s):
                        raise SystemExit(f"bench-smpi: {spec}: simulate says {sim['makespan_s']}, the export {plan_s}")
                # Check every byte when the buffers fit in real memory: no shared malloc
                # then (send, receive and relay buffers: about 3x the plan's bytes).
                check = 3 * manifest["bytes"] <= a.check_memory
                real = ["--cfg=smpi/shared-malloc:off"]
                shared = [c for c in CM02 if "shared-malloc" in c]
                cm02 = [c for c in CM02 if c not in shared] + (real if check else shared)
                default = [c for c in DEFAULT if c not in shared] + (real if check else shared)
                nocheck = [] if check else ["--no-check"]
                res = {}
                walls = {}
                for name, cfg, prog, args in [
                    ("cm02", cm02, runner, [*nocheck, "--timeout", "0", "--quiet", "--report", f"{d}/smpi-cm02.json", d]),
                    ("default", default, runner, [*nocheck, "--timeout", "0", "--quiet", "--report", f"{d}/smpi-default.json", d]),
                    ("ompi", CM02 + ["--cfg=smpi/coll-selector:ompi"], bench, [d]),
                    ("mpich", CM02 + ["--cfg=smpi/coll-selector:mpich"], bench, [d]),
                    ("ns3", NS3 + (real if check else shared), runner, [*nocheck, "--timeout", "0", "--quiet", "--report", f"{d}/smpi-ns3.json", d]),
                ]:
                    if label != "liquid frames" and name in ("ompi", "mpich"):
                        continue
                    if name == "ns3" and manifest["bytes"] > a.ns3_max_bytes:
                        continue
                    o, w, err = smpirun(cfg, d, ranks, prog, args,
                                        a.ns3_timeout if name == "ns3" else a.timeout,
                                        "ns3/platform.xml" if name == "ns3" else "platform.xml")
                    walls[name] = w
                    if o is None:
                        print(f"bench-smpi: {spec} {size} {label} {name}: {err}", file=sys.stderr)
                        res[name] = None
                        if err == "timeout":
                            res[name + "_timeout"] = a.ns3_timeout if name == "ns3" else a.timeout
                        continue
                    if prog == runner:
                        rep = json.load(open(args[args.index("--report") + 1]))
                        if rep["errors"] != 0 or rep["check"] != check:
                            raise SystemExit(f"bench-smpi: {spec} {size} {label} {name}: {rep['errors']} errors, check {rep['check']}")
                        res[name] = rep["total_s"]
                    else:
                        line = [l for l in o.splitlines() if l.startswith("alltoall")][-1]
                        res[name] = float(line.split()[1])
                        res[name + "_call"] = line.split(":")[0]
                r = rel(res.get("cm02"), predicted)
                if r is not None:
                    worst = max(worst, abs(r))
                rows.append((spec, size, label, ranks, manifest["messages"], plan_s, predicted, res, r,
                             lwall, walls.get("cm02"), check))
                write_table(a, version, rows, worst)
                print(f"bench-smpi: {spec} {size} B {label}: liquid {predicted:.6f} s, SMPI CM02 "
                      f"{fmt(res.get('cm02'))} ({pct(r)}), default {fmt(res.get('default'))}, "
                      f"ns-3 {fmt(res.get('ns3'))}, ompi {fmt(res.get('ompi'))}, mpich {fmt(res.get('mpich'))}",
                      file=sys.stderr)

    write_table(a, version, rows, worst)
    print(f"bench-smpi: wrote {a.out}", file=sys.stderr)
    return 1 if worst > a.tolerance else 0


if __name__ == "__main__":
    sys.exit(main())
