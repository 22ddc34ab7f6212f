#!/usr/bin/env python3
"""Runs a plan exported by `liquid export simgrid` in SimGrid and prints one JSON line.

Usage: driver.py DIR [--latency links|delay]   (DIR holds platform.xml and plan.json)

The network model is set to pure max-min fairness without TCP corrections, the model
liquid's simulator implements (see README, "liquid simulate"):
CM02 with latency and bandwidth factors 1, weight-S 0, no cross-traffic, and TCP-gamma
0 (otherwise a flow is capped at gamma / (2 x route latency), checked on SimGrid 3.32).

SimGrid's CM02 also weights each flow's share by its route latency (a flow's sharing
penalty is its latency: TCP's RTT unfairness), which no option turns off while links have
latencies. `--latency delay` (the default) therefore sets every link's latency to 0 and
delays each communication by its route latency instead (plan.json carries it): pure
max-min, liquid's model. `--latency links` keeps the latencies on the links (CM02 as is).

A single controller actor runs the plan: a step starts when its dependencies have
finished, posts its messages after its delay, and each message becomes a host-to-host
communication (Comm.sendto_async) after the per-message overhead. The controller waits
on the pending communications with a timeout up to the next timed launch.
"""

import heapq
import json
import sys
import time

import simgrid
from simgrid import Actor, Comm, Engine, this_actor

CONFIG = [
    "--cfg=network/model:CM02",
    "--cfg=network/latency-factor:1",
    "--cfg=network/bandwidth-factor:1",
    "--cfg=network/weight-S:0",
    "--cfg=network/crosstraffic:0",
    "--cfg=network/TCP-gamma:0",
    "--log=root.thresh:warning",
]


def main():
    d = sys.argv[1]
    mode = "delay"
    if len(sys.argv) > 3 and sys.argv[2] == "--latency":
        mode = sys.argv[3]
    if mode not in ("delay", "links"):
        raise SystemExit("driver: --latency takes links or delay")
    e = Engine([sys.argv[0]] + CONFIG)
    e.load_platform(d + "/platform.xml")
    with open(d + "/plan.json") as f:
        plan = json.load(f)
    steps = plan["steps"]
    overhead = float(plan["overhead_s"])
    hosts = {h.name: h for h in e.all_hosts}
    if mode == "delay":
        for link in e.all_links:
            link.set_latency(0)
    n = len(steps)
    deps_left = [len(s["after"]) for s in steps]
    msgs_left = [len(s["messages"]) for s in steps]
    dependents = [[] for _ in range(n)]
    for i, s in enumerate(steps):
        for a in s["after"]:
            dependents[a].append(i)
    ends = [None] * n
    starts = [None] * n
    result = {}

    def controller():
        launches = []  # (time, seq, kind, payload)
        seq = [0]

        def push(t, kind, payload):
            seq[0] += 1
            heapq.heappush(launches, (t, seq[0], kind, payload))

        def start_step(i, now):
            starts[i] = now
            push(now + float(steps[i]["delay_s"]), "post", i)

        active, owners = [], []

        def finish_message(i, now):
            msgs_left[i] -= 1
            if msgs_left[i] == 0:
                finish_step(i, now)

        def finish_step(i, now):
            ends[i] = now
            for d in dependents[i]:
                deps_left[d] -= 1
                if deps_left[d] == 0:
                    start_step(d, now)

        for i in range(n):
            if deps_left[i] == 0:
                start_step(i, 0.0)
        while True:
            now = Engine.clock
            while launches and launches[0][0] <= now:
                _, _, kind, payload = heapq.heappop(launches)
                if kind == "post":
                    msgs = steps[payload]["messages"]
                    if not msgs:
                        finish_step(payload, now)
                    for k, m in enumerate(msgs):
                        wait = overhead + (float(m[3]) if mode == "delay" else 0.0)
                        push(now + wait, "send", (payload, k))
                else:
                    i, k = payload
                    src, dst, size = steps[i]["messages"][k][:3]
                    active.append(Comm.sendto_async(hosts[src], hosts[dst], int(round(size))))
                    owners.append(i)
            if not active and not launches:
                break
            if not active:
                this_actor.sleep_until(launches[0][0])
                continue
            if launches:
                idx = Comm.wait_any_for(active, launches[0][0] - now)
            else:
                idx = Comm.wait_any(active)
            if idx is None or idx < 0:
                continue
            active.pop(idx)
            i = owners.pop(idx)
            finish_message(i, Engine.clock)

    first = e.all_hosts[0]
    Actor.create("controller", first, controller)
    t0 = time.perf_counter()
    e.run()
    wall = time.perf_counter() - t0
    missing = [i for i in range(n) if ends[i] is None]
    if missing:
        raise SystemExit(f"driver: steps never finished: {missing[:5]}")
    result = {
        "makespan_s": max(ends) if ends else 0.0,
        "run_wall_s": wall,
        "latency": mode,
        "simgrid": simgrid.simgrid_version if hasattr(simgrid, "simgrid_version") else "?",
        "steps": [[s, t] for s, t in zip(starts, ends)],
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
