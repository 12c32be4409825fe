#!/usr/bin/env python3
"""The table of utils/gpu/templates-bench.sh and new-e2e.sh: each template
kernel's median (forge-port measure; with new-e2e.sh also the kernel as
generated, <name>.gen.measure.json) against its library reference
(bench-refs), by the
suite's rule (docs/bench/suite-h200.md): stencils against a copy of the
bytes they must move (the bandwidth bound), other operations against the
faster of the library call and, for streaming ones, that copy.

    templates-bench-table.py REFS_TXT RESULTS_DIR [--markdown]
"""
import json
import os
import sys


def kernel_us(path):
    m = json.load(open(path))
    c = [c for c in m["candidates"] if c.get("time_ns")][0]
    return c["time_ns"]["median"] / 1000, c.get("label", "")


def reference(path, op):
    lines = [json.loads(l) for l in open(path) if l.strip().startswith("{")]
    lines = [l for l in lines if l.get("type") == "ref" and l.get("median_ns")]
    if op.startswith(("conv", "stencil")):
        pick = [l for l in lines if l["ref"] == "cudaMemcpy-equivalent"]
    else:
        # The library call, or a copy of the same bytes where one is timed
        # (streaming operations), whichever is faster.
        pick = [l for l in lines if l.get("primary") or
                l["ref"] in ("cudaMemcpy", "cudaMemcpy-equivalent")] or lines
    best = min(pick, key=lambda l: l["median_ns"])
    return best["median_ns"] / 1000, "%s (%s)" % (best["ref"], best.get("timer", "?"))


def main():
    refs, out = sys.argv[1], sys.argv[2]
    md = "--markdown" in sys.argv
    rows = [l.split() for l in open(refs) if l.strip()]
    gen = any(os.path.exists(os.path.join(out, r[0] + ".gen.measure.json")) for r in rows)
    if md:
        print("| kernel | configuration | %stemplate, us | library, us | reference | %% of library |"
              % ("generated, us | " if gen else ""))
        print("|---|---|%s---|---|---|---|" % ("---|" if gen else ""))
    else:
        print("%-20s %s%12s %12s %-36s %9s" % ("kernel", "%12s " % "generated us" if gen else "",
                                               "template us", "library us", "reference",
                                               "% of lib"))
    for r in rows:
        name, op = r[0], r[1]
        try:
            t, label = kernel_us(os.path.join(out, name + ".measure.json"))
        except Exception as e:
            t, label = None, "measure: %r" % e
        try:
            lib, ref = reference(os.path.join(out, name + ".ref.jsonl"), op)
        except Exception as e:
            lib, ref = None, "refs: %r" % e
        g = ""
        if gen:
            try:
                g = "%.1f" % kernel_us(os.path.join(out, name + ".gen.measure.json"))[0]
            except Exception:
                g = "-"
        pct = "%.1f %%" % (100 * lib / t) if t and lib else "-"
        ts = "%.1f" % t if t else "-"
        ls = "%.1f" % lib if lib else "-"
        if md:
            print("| %s | %s | %s%s | %s | %s | %s |" % (
                name, label.split(" ", 1)[-1], g + " | " if gen else "", ts, ls, ref, pct))
        else:
            print("%-20s %s%12s %12s %-36s %9s" % (name, "%12s " % g if gen else "", ts, ls,
                                                   ref[:36], pct))


if __name__ == "__main__":
    main()
