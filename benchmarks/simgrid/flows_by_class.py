#!/usr/bin/env python3
# Usage: flows_by_class.py PLATFORM.xml SIZES.csv links|zero (hosts named a*/b*: two-clusters).
# Flow-level SimGrid CM02 (issue 43, benchmarks/results/alltoallv-smpi.md) (the corrections off, as benchmarks/simgrid/driver.py): every
# message of the CSV posted at t=0; prints finish times by class (intra-cluster, cross).
import csv, sys
from simgrid import Actor, Comm, Engine, this_actor
CONFIG = ["--cfg=network/model:CM02", "--cfg=network/latency-factor:1", "--cfg=network/bandwidth-factor:1",
          "--cfg=network/weight-S:0", "--cfg=network/crosstraffic:0", "--cfg=network/TCP-gamma:0",
          "--log=root.thresh:warning"]
plat, sizes, mode = sys.argv[1], sys.argv[2], sys.argv[3]
e = Engine([sys.argv[0]] + CONFIG)
e.load_platform(plat)
if mode == "zero":
    for l in e.all_links: l.set_latency(0)
hosts = {h.name: h for h in e.all_hosts}
rows = [(s, d, int(b)) for s, d, b in list(csv.reader(open(sizes)))[1:]]
fin = {}
def ctl():
    act = [Comm.sendto_async(hosts[s], hosts[d], b) for s, d, b in rows]
    idx = list(range(len(rows)))
    while act:
        k = Comm.wait_any(act); act.pop(k); fin[idx.pop(k)] = Engine.clock
Actor.create("c", e.all_hosts[0], ctl); e.run()
intra = [fin[i] for i, (s, d, b) in enumerate(rows) if s[0] == d[0]]
cross = [fin[i] for i, (s, d, b) in enumerate(rows) if s[0] != d[0]]
# bytes crossing a>b finished by time t: backbone utilisation before the last intra flow ends
t1 = max(intra)
done_ab = sum(b for i, (s, d, b) in enumerate(rows) if s[0] == 'a' and d[0] == 'b' and fin[i] <= t1)
print(f"{mode}: makespan {max(fin.values()):.6f} s; intra-cluster flows end {min(intra):.4f}..{max(intra):.4f} s; "
      f"cross flows end {min(cross):.4f}..{max(cross):.4f} s; a>b bytes done by {t1:.4f} s: {done_ab/1e6:.1f} MB")
