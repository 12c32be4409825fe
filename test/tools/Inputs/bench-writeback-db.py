#!/usr/bin/env python3
"""Writes a FIXTURE tuning database (made-up times, not a measurement) for
test/tools/bench-writeback.test: for every spec of utils/bench/kernels, a
record keyed like forge-port's own (kernel, a hash of the source, sm_90, the
size bucket) whose best configuration is not the spec's default: each
tunable moves one step from its default. `forge-port tune --no-gpu` then
writes those values back into the first-round source, which is what
run-suite's tune step does on the GPU. Prints "<spec> <source> <values>" per
spec.

  bench-writeback-db.py KERNELS_DIR OUT.json
"""
import hashlib
import json
import math
import os
import re
import struct
import sys

kernels, out = sys.argv[1], sys.argv[2]


def source_hash(path):
    # forge::tune::sourceIdentity: SHA-256 over each part, length-prefixed
    # (64-bit little endian); the suite's kernels include no quoted headers.
    data = open(path, "rb").read()
    return hashlib.sha256(struct.pack("<Q", len(data)) + data).hexdigest()


records = []
for name in sorted(os.listdir(kernels)):
    if not name.endswith(".json"):
        continue
    spec = json.load(open(os.path.join(kernels, name)))
    stem = name[:-5]
    src = stem + ".cu"
    if not os.path.exists(os.path.join(kernels, src)):
        src = re.sub(r"_[0-9]*M?$", "", stem) + ".cu"
    default, best = {}, {}
    for t in spec.get("tunables", []):
        vals = t["values"]
        d = t.get("default", vals[0])
        i = vals.index(d)
        default[t["name"]] = d
        best[t["name"]] = vals[i + 1] if i + 1 < len(vals) else vals[i - 1]
    key = lambda v: ",".join("%s=%d" % (k, v[k]) for k in v)
    sizes = ",".join("%s=2^%d" % (k, round(math.log2(v))) for k, v in spec["sizes"].items())
    meas = [{"config": key(v), "values": v, "status": "ok", "cost_ns": c, "median_ns": c,
             "noise": 0.001, "detail": "", "when": "2026-12-01"}
            for v, c in ((default, 2000.0), (best, 1000.0))]
    records.append({"key": {"kernel": spec["kernel"], "source_hash":
                            source_hash(os.path.join(kernels, src)), "target": "sm_90",
                            "gpu": "fixture GPU (not a measurement)", "sizes": sizes,
                            "toolkit": "13.0"},
                    "strategy": "exhaustive", "best": key(best), "measurements": meas})
    print(name, src, key(best))
json.dump({"forge_tuning_database": 1, "records": records}, open(out, "w"), indent=1)
