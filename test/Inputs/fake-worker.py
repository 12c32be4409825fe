#!/usr/bin/env python3
"""A stand-in for forge-worker on machines without a GPU, for lit tests of
the tuning pipeline (real harness generation and nvcc compiles; measured
times are made up here and say so in the device name).

  fake-worker.py info
  fake-worker.py run JOB [--timeout-s S]

`run` reads JOB/job.plan (refusing ids that are not C identifiers, as the
real worker does), checks that every harness library was built, and
writes one "ok" result line per candidate. A candidate's time is
FAKE_BASE_NS (default 1000) plus, for every NAME=VALUE of its label,
|VALUE - FAKE_BEST[NAME]| * 10 ns (FAKE_BEST: "BLOCK=128,ITEMS=4"), so the
test knows the optimum. FAKE_FAIL names a label substring whose candidates
are reported "wrong". Every run appends its candidate count to
FAKE_LOG, if set, so tests can see what was measured. FAKE_LABEL_NS
("expert:vectorize=700,tuner=900") sets the time of a candidate whose
label contains a named substring (the last match wins; before FAKE_BEST's
terms are added). FAKE_CHECKS
("out=0.078,y=1e-6") gives every non-reference candidate a check of those
buffers with that rel_l2 and max_abs on input set 0.

For the cluster tests (test/slurm), which run it as a Slurm array task:
FAKE_CC_MAP ("sm_80=8.0,sm_90=9.0") gives `info` and `run` the compute
capability of the partition the task runs on ($SLURM_JOB_PARTITION);
FAKE_SLEEP_S sleeps that long per candidate; FAKE_KILL names a label
substring: a job with such a candidate writes its first result line and
then kills itself (SIGKILL), every time; FAKE_KILL_ONCE names a label
substring that does so only the first time (a marker file in the job
directory remembers it). FAKE_LOG lines then also name the job directory."""
import json
import os
import re
import signal
import sys
import time


def compute_capability():
    part = os.environ.get("SLURM_JOB_PARTITION", "")
    for item in os.environ.get("FAKE_CC_MAP", "").split(","):
        if "=" in item and item.split("=")[0] == part:
            return item.split("=")[1]
    return "9.0"


def main():
    args = sys.argv[1:]
    if args[:1] == ["info"]:
        print(json.dumps({"type": "device", "name": "Fake GPU (test, not measured)",
                          "cc": compute_capability(), "sms": 132, "l2_bytes": 62914560,
                          "clock_khz": 1980000, "uuid": "GPU-fake", "timer": "events"}))
        return 0
    if args[:1] != ["run"] or len(args) < 2:
        print("usage: fake-worker.py info | run JOB", file=sys.stderr)
        return 2
    job = args[1]
    best = {}
    for part in os.environ.get("FAKE_BEST", "").split(","):
        if "=" in part:
            k, v = part.split("=")
            best[k] = int(v)
    base = float(os.environ.get("FAKE_BASE_NS", "1000"))
    fail = os.environ.get("FAKE_FAIL", "")
    checks = []
    for part in os.environ.get("FAKE_CHECKS", "").split(","):
        if "=" in part:
            name, err = part.split("=")
            checks.append({"set": 0, "buffer": name, "rel_l2": float(err), "max_abs": float(err),
                           "over_bound": 0, "unwritten": 0})
    cands = []
    cur = None
    for line in open(os.path.join(job, "job.plan")):
        words = line.split()
        if not words:
            continue
        if words[0] in ("reference", "candidate"):
            # The real worker's plan parser (tools/forge-worker/Plan.cpp)
            # takes only C identifiers as ids; refuse the same.
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", words[1]):
                sys.stderr.write("forge-worker: job.plan: candidate id '%s' is not a C identifier\n" % words[1])
                return 2
            cur = {"id": words[1], "lib": words[2], "ref": words[0] == "reference", "label": ""}
            cands.append(cur)
        elif words[0] == "label" and cur is not None:
            cur["label"] = line.strip()[len("label "):]
    out = open(os.path.join(job, "results.jsonl"), "a")
    out.write(json.dumps({"type": "device", "name": "Fake GPU (test, not measured)",
                          "cc": compute_capability(),
                          "timer": "events"}) + "\n")
    out.write(json.dumps({"type": "ceilings", "dram_gbps": 4000, "fp32_gflops": 60000,
                          "fp64_gflops": 30000, "source": "fake"}) + "\n")
    ref_ns = None
    for c in cands:
        if not os.path.exists(os.path.join(job, c["lib"])):
            print("fake-worker: %s was not built" % c["lib"], file=sys.stderr)
            return 1
        ns = base
        for item in os.environ.get("FAKE_LABEL_NS", "").split(","):
            if "=" in item:
                sub, val = item.rsplit("=", 1)
                if sub and sub in c["label"] and not c["ref"]:
                    ns = float(val)
        for part in c["label"].replace(",", " ").split():
            if "=" in part:
                k, v = part.split("=", 1)
                if k in best and v.lstrip("-").isdigit():
                    ns += abs(int(v) - best[k]) * 10
        if c["ref"]:
            ref_ns = ns
        status = "wrong" if fail and fail in c["label"] and not c["ref"] else "ok"
        line = {"type": "candidate", "id": c["id"], "reference": c["ref"], "label": c["label"],
                "status": status, "reasons": [] if status == "ok" else [status], "error": "",
                "checks": [] if c["ref"] else checks, "time_ns": {"median": ns, "min": ns, "max": ns, "p10": ns,
                                          "p90": ns, "spread": 0.0, "samples": 50},
                "round_medians_ns": [ns] * 5, "baseline_median_ns": ref_ns, "noise": 0.001,
                "speedup": ref_ns / ns, "process": 1}
        out.write(json.dumps(line) + "\n")
        out.flush()
        time.sleep(float(os.environ.get("FAKE_SLEEP_S", "0")))
        labels = [d["label"] for d in cands if not d["ref"]]
        kill = os.environ.get("FAKE_KILL", "")
        once = os.environ.get("FAKE_KILL_ONCE", "")
        marker = os.path.join(job, "fake-killed-once")
        if kill and any(kill in lab for lab in labels):
            os.kill(os.getpid(), signal.SIGKILL)
        if once and any(once in lab for lab in labels) and not os.path.exists(marker):
            open(marker, "w").close()
            os.kill(os.getpid(), signal.SIGKILL)
    out.close()
    if os.environ.get("FAKE_LOG"):
        with open(os.environ["FAKE_LOG"], "a") as log:
            if os.environ.get("SLURM_JOB_ID"):
                log.write("%d %s\n" % (len(cands) - 1, job))
            else:
                log.write("%d\n" % (len(cands) - 1))
    return 0


sys.exit(main())
