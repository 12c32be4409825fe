#!/usr/bin/env python3
"""A/B of one rule's proposals between two forge-port builds, for the GPU
machine: per operation of utils/bench/kernels and per proposal both builds
make with the same summary, the source each build's proposal gives, and the
spec with the geometry the proposal asks for. The new build's source comes
first (measure's reference), the old one's second, so one `forge-port
measure` checks that they compute the same outputs and times them in
interleaved rounds (utils/gpu/session-check.sh, step `ab`).

  utils/bench/rule-ab.py OLD_FORGE_PORT NEW_FORGE_PORT DEST --rule R [--match PREFIX] OP...

Writes DEST/<op>_<index>/{new.cu, old.cu, spec.json, what.txt}.
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "test", "Inputs"))
import apply_proposal  # noqa: E402


def proposals(fp, op, rule):
    k = os.path.join(ROOT, "utils", "bench", "kernels", op)
    out = subprocess.run([fp, "propose", k + ".cu", "--spec", k + ".json", "--rules=" + rule,
                          "--format=json"], capture_output=True, text=True)
    if not out.stdout.strip():
        sys.exit("rule-ab.py: %s proposed nothing for %s: %s" % (fp, op, out.stderr.strip()))
    return json.loads(out.stdout)


def applied(p, src):
    for search, replace in apply_proposal.blocks(p["edits"]):
        if src.count(search) != 1:
            sys.exit("rule-ab.py: a SEARCH text of '%s' is not found once" % p["summary"])
        src = src.replace(search, replace)
    return src


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("dest")
    ap.add_argument("--rule", required=True)
    ap.add_argument("--match", default="", help="only proposals whose summary starts so")
    ap.add_argument("ops", nargs="+")
    a = ap.parse_args()
    for op in a.ops:
        k = os.path.join(ROOT, "utils", "bench", "kernels", op)
        src = open(k + ".cu").read()
        spec = json.load(open(k + ".json"))
        old = {p["summary"]: p for p in proposals(a.old, op, a.rule)}
        for i, p in enumerate(proposals(a.new, op, a.rule)):
            if not p["summary"].startswith(a.match) or p["summary"] not in old:
                continue
            d = os.path.join(a.dest, "%s_%d" % (op, i))
            os.makedirs(d, exist_ok=True)
            open(os.path.join(d, "new.cu"), "w").write(applied(p, src))
            open(os.path.join(d, "old.cu"), "w").write(applied(old[p["summary"]], src))
            s = dict(spec)
            grid = list(s["grid"])
            for key, expr in p.get("spec", {}).get("geometry", {}).items():
                if key.startswith("grid."):
                    grid["xyz".index(key[-1])] = expr
                else:
                    sys.exit("rule-ab.py: '%s' changes %s, which this script does not apply"
                             % (p["summary"], key))
            s["grid"] = grid
            with open(os.path.join(d, "spec.json"), "w") as f:
                json.dump(s, f, indent=1)
            open(os.path.join(d, "what.txt"), "w").write(p["summary"] + "\n")
            print("%s_%d: %s" % (op, i, p["summary"]))


if __name__ == "__main__":
    main()
