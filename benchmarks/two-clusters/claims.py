#!/usr/bin/env python3
"""001's four claims against the study's CSV files (issue 27).

    python3 benchmarks/two-clusters/claims.py BASE_CSV [NAME=CSV ...]

BASE_CSV: `liquid study two-clusters` with its defaults (sizes and node sweeps). Each
NAME=CSV: the same study with one transport parameter switched off (its size sweep is
enough). Prints Markdown: LG against the modelled Open MPI 1.1.2 all-to-all, claim by
claim, and what each switch changes.
"""
import collections
import csv
import sys

BASE = "mpi-ompi-1.1.2"


def load(path):
    t = collections.defaultdict(dict)
    for r in csv.DictReader(open(path)):
        t[(r["sweep"], int(r["n1"]), int(r["n2"]), float(r["bytes"]))][r["algorithm"]] = float(r["makespan_s"])
    return t


def size_sweep(t, n1, n2, a="lg", b=BASE):
    return sorted((k[3], v[b] / v[a]) for k, v in t.items() if k[:3] == ("sizes", n1, n2) and a in v and b in v)


def fmt_bytes(b):
    for unit, f in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= f:
            return f"{b / f:g} {unit}"
    return f"{b:g} B"


def summary(t, n1, n2, a="lg"):
    s = size_sweep(t, n1, n2, a)
    best = max(s, key=lambda x: x[1])
    last = s[-1]
    big = [x for x in s if x[0] >= 1 << 20]
    less = [1 - 1 / x[1] for x in big]
    return best, last, (min(less), max(less)) if less else None


def main():
    base = load(sys.argv[1])
    out = []
    w = out.append
    w(f"LG against `{BASE}` (the modelled Open MPI 1.1.2 `MPI_Alltoall`), speed-up = time of {BASE} / time of LG.\n")
    w("| claim (001) | 30+30 | 20+40 | reproduced? |")
    w("| --- | --- | --- | --- |")
    s30, s20 = summary(base, 30, 30), summary(base, 20, 40)
    ok1 = max(s30[0][1], s20[0][1]) >= 8
    w(f"| 1. up to 8× faster | {s30[0][1]:.2f}× at {fmt_bytes(s30[0][0])} | {s20[0][1]:.2f}× at {fmt_bytes(s20[0][0])} | "
      f"{'yes' if ok1 else 'no: at most ' + format(max(s30[0][1], s20[0][1]), '.2f') + '×'} |")
    r30, r20 = s30[2], s20[2]
    ok2 = r30 and r20 and r30[0] >= 0.4 - 1e-9 and r20[0] >= 0.4 - 1e-9
    w(f"| 2. 40-60 % less time for large messages (1-16 MiB) | {100*r30[0]:.0f}-{100*r30[1]:.0f} % | {100*r20[0]:.0f}-{100*r20[1]:.0f} % | "
      f"{'yes' if ok2 else 'no'} |")
    # Claim 3: over the node sweeps, LG at 512 kB against the baseline at 64 kB.
    rows = []
    for k, v in base.items():
        if k[0] == "nodes" and k[3] == 524288.0 and "lg" in v:
            other = base.get(("nodes", k[1], k[2], 65536.0), {})
            if BASE in other:
                rows.append((k[1], k[2], v["lg"], other[BASE]))
    rows.sort()
    wins = [r for r in rows if r[2] < r[3]]
    w(f"| 3. LG at 512 kB faster than the baseline at 64 kB (Figs. 5-6) | | | "
      f"{'yes' if rows and len(wins) == len(rows) else 'no'}: in {len(wins)} of {len(rows)} node counts |")
    # Claim 4: the baseline takes about the same time for 30+30 and 20+40.
    ratios = []
    for k, v in base.items():
        if k[:3] == ("sizes", 30, 30) and BASE in v:
            o = base.get(("sizes", 20, 40, k[3]), {})
            if BASE in o:
                ratios.append(o[BASE] / v[BASE])
    lo, hi = min(ratios), max(ratios)
    w(f"| 4. the baseline takes the same time for 30+30 and 20+40 | | | "
      f"{'yes' if hi <= 1.1 and lo >= 0.9 else 'no'}: 20+40 / 30+30 = {lo:.2f}-{hi:.2f} over all sizes |")
    w("")
    w(f"16 MiB: LG {s30[1][1]:.2f}× (30+30), {s20[1][1]:.2f}× (20+40) the speed of `{BASE}`.\n")
    w("Node sweeps, LG at 512 kB against the baseline at 64 kB (s):\n")
    w("| n1+n2 | LG 512 kB | baseline 64 kB |")
    w("| --- | --- | --- |")
    for n1, n2, lg, b in rows:
        w(f"| {n1}+{n2} | {lg:.3f} | {b:.3f} |")
    if len(sys.argv) > 2:
        w("\nThe mechanism: each transport parameter switched off in turn (size sweep).\n")
        w("| transport | 30+30 largest speed-up | 30+30 at 16 MiB | 20+40 largest | 20+40 at 16 MiB | baseline 30+30 at 16 MiB (s) | LG 30+30 at 16 MiB (s) |")
        w("| --- | --- | --- | --- | --- | --- | --- |")
        for name, path in [("as above", sys.argv[1])] + [a.split("=", 1) for a in sys.argv[2:]]:
            t = load(path)
            a, b = summary(t, 30, 30), summary(t, 20, 40)
            k = ("sizes", 30, 30, float(1 << 24))
            w(f"| {name} | {a[0][1]:.2f}× ({fmt_bytes(a[0][0])}) | {a[1][1]:.2f}× | {b[0][1]:.2f}× ({fmt_bytes(b[0][0])}) | {b[1][1]:.2f}× | "
              f"{t[k][BASE]:.2f} | {t[k]['lg']:.2f} |")
    print("\n".join(out))


if __name__ == "__main__":
    main()
