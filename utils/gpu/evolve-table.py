#!/usr/bin/env python3
"""The table of utils/gpu/evolve-compare.sh's reports (docs/bench/evolve.md).

  evolve-table.py OUT KERNEL...

For each kernel and search (greedy, evolve) and phase (1: an empty
experience library, 2: the library phase 1 filled): the final time and
speed-up, the evaluations used (proposals judged), the archive's cells
(evolve), and the evaluations it took to reach phase 1's final time
(within 3 %): the evaluation after which the best correct time so far was
that fast, counting proposals in the order they were judged."""
import json
import os
import sys

KEPT = ("accepted", "superseded")


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def trajectory(r):
    """Best time after each evaluation, in order."""
    best = r.get("baseline_ns") or float("inf")
    out = []
    for rnd in r.get("rounds", []):
        for p in rnd.get("proposals", []):
            if p.get("verdict") in KEPT and p.get("median_ns", 0) > 0:
                best = min(best, p["median_ns"])
            out.append(best)
    return out


def reach(traj, target):
    for i, t in enumerate(traj):
        if t <= target * 1.03:
            return i + 1
    return None


def main():
    out, kernels = sys.argv[1], sys.argv[2:]
    print("| kernel | search | phase | start (us) | final (us) | speed-up | evaluations | cells "
          "| evaluations to reach phase 1's final time |")
    print("|---|---|---|---|---|---|---|---|---|")
    for k in kernels:
        n = os.path.basename(k)
        for search in ("greedy", "evolve"):
            first = load(os.path.join(out, "%s-%s-1.json" % (n, search)))
            target = first["final_ns"] if first else None
            for phase in (1, 2):
                r = load(os.path.join(out, "%s-%s-%d.json" % (n, search, phase)))
                if not r:
                    print("| %s | %s | %d | no report | | | | | |" % (n, search, phase))
                    continue
                traj = trajectory(r)
                ev = r.get("evolve") or {}
                cells = ev.get("cells", "-")
                got = reach(traj, target) if target else None
                print("| %s | %s | %d | %.2f | %.2f | %.2fx | %d | %s | %s |" % (
                    n, search, phase, r["baseline_ns"] / 1000, r["final_ns"] / 1000,
                    r.get("speedup", 0), len(traj), cells,
                    got if got is not None else ("not reached" if traj else "-")))


if __name__ == "__main__":
    main()
