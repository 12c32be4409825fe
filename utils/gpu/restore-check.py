#!/usr/bin/env python3
"""Judges `forge-port measure consume.cu recompute.cu --format json`
(test/gpu/Inputs/restore): the worker restored the inout buffer before every
timed launch, so the kernel that skips elements it already processed times
like the one that always recomputes (speed-up within 0.8-1.25). Without the
restore, consume.cu's later launches do no work and the speed-up is far
below 0.8."""
import json
import sys

r = json.load(open(sys.argv[1]))
c = {x["source"].split("/")[-1]: x for x in r["candidates"]}
a, b = c["consume.cu"], c["recompute.cu"]
print("consume.cu median %.1f us, restored %s (%s); recompute.cu median %.1f us, speedup %.3f"
      % (a["time_ns"]["median"] / 1e3, a.get("restored_per_launch"), a.get("restore"),
         b["time_ns"]["median"] / 1e3, b["speedup"]))
ok = (a.get("restored_per_launch") == ["x"] and a.get("restore") == "pristine-copy"
      and 0.8 < b["speedup"] < 1.25)
print("restore check:", "PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
