#!/usr/bin/env python3
"""The cluster check's table (utils/gpu/cluster-check.sh): each
configuration's median as the local executor measured it (a tuning
database), as job directories written for Slurm measured it when run by
forge-worker outside Slurm (their results.jsonl), and as `tune --executor
slurm` measured it (another tuning database, if the run got that far).

  compare.py LOCAL.json JOBS-DIR [SLURM.json]

Exits 1 when a configuration measured both ways differs from the local
median by more than 5 %."""
import glob
import json
import os
import sys


def database(path):
    if not os.path.exists(path):
        return None
    out = {}
    for rec in json.load(open(path))["records"]:
        for m in rec["measurements"]:
            if m["status"] == "ok":
                out[m["config"]] = m["median_ns"]
    return out


def jobs(root):
    out = {}
    for res in glob.glob(os.path.join(root, "*", "results.jsonl")):
        for line in open(res):
            r = json.loads(line)
            if r.get("type") == "candidate" and not r.get("reference") and r["status"] == "ok":
                out[r["label"]] = r["time_ns"]["median"]
    return out


def main():
    local = database(sys.argv[1]) or {}
    job = jobs(sys.argv[2])
    slurm = database(sys.argv[3]) if len(sys.argv) > 3 else None
    cols = [("job directories", job)] + ([("slurm", slurm)] if slurm is not None else [])
    print("| configuration | local (us) | " + " | ".join("%s (us) | / local" % n for n, _ in cols) + " |")
    print("|---|---|" + "---|---|" * len(cols))
    worst = 0.0
    compared = 0
    for key in sorted(local):
        row = ["%s" % key, "%.2f" % (local[key] / 1000)]
        for _, m in cols:
            if key in m:
                r = m[key] / local[key]
                worst = max(worst, abs(r - 1))
                compared += 1
                row += ["%.2f" % (m[key] / 1000), "%.3f" % r]
            else:
                row += ["-", "-"]
        print("| " + " | ".join(row) + " |")
    print("compared %d measurement(s); the largest difference from the local median: %.1f %%"
          % (compared, worst * 100))
    if compared == 0:
        print("nothing to compare")
        return 1
    return 0 if worst <= 0.05 else 1


sys.exit(main())
