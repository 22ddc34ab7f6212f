"""The peer benchmark's instances: the bundled models, seeded random traffics and
fat-tree all-to-alls. Shared by peers.py and scripts/bench-default (which needs no peer
installed), so both measure the same set."""

import random
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


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
