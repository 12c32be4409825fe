#!/usr/bin/env python3
"""naive-table: the table of docs/bench/naive-h200.md from the JSON reports
that `forge-port optimize --report K.optimize.json` wrote for the naive
kernels of utils/bench/naive (utils/gpu/session-check.sh optimize:K).

  naive-table.py DIR [--command CMD] > docs/bench/naive-h200.md

For each kernel: the time before and after, the speed-up, the achieved DRAM
bandwidth and its fraction of the DRAM peak the report names (the roofline
floor of a memory-bound kernel is the spec's bytes at that peak), and what
each round kept. Standard library only; no GPU needed.
"""
import glob
import json
import os
import re
import sys

ORDER = ["transpose", "dot", "matvec", "blur", "chunk8", "histogram",
         "softmax", "stencil3d"]


def peak_gbps(report):
    m = re.search(r"of ([0-9.]+) GB/s DRAM", report["baseline"].get("analysis", ""))
    return float(m.group(1)) if m else None


def us(ns):
    return "%.1f us" % (ns / 1000.0) if ns < 1e7 else "%.2f ms" % (ns / 1e6)


def kept(report):
    out = []
    for r in report.get("rounds", []):
        a = r.get("accepted", -1)
        if a is not None and 0 <= a < len(r.get("proposals", [])):
            p = r["proposals"][a]
            out.append("%s (%s)" % (p.get("origin", "?"), p.get("summary", "")))
    return "; ".join(out) if out else "nothing"


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    folder = argv[1]
    command = None
    if "--command" in argv:
        command = argv[argv.index("--command") + 1]
    reports = {}
    for path in glob.glob(os.path.join(folder, "*.optimize.json")):
        name = os.path.basename(path)[:-len(".optimize.json")]
        try:
            with open(path) as f:
                reports[name] = json.load(f)
        except (OSError, ValueError) as e:
            sys.stderr.write("naive-table: %s: %s\n" % (path, e))
            return 1
    if not reports:
        sys.stderr.write("naive-table: no *.optimize.json under %s\n" % folder)
        return 1
    names = [n for n in ORDER if n in reports] + sorted(set(reports) - set(ORDER))
    first = reports[names[0]]
    print("| kernel | before | after | speed-up | DRAM before | DRAM after | "
          "% of roofline after | kept |")
    print("|---|---|---|---|---|---|---|---|")
    fractions = []
    for n in names:
        r = reports[n]
        peak = peak_gbps(r)
        b, f = r["baseline"], r["final"]
        frac = f["gbps"] / peak if peak else None
        if frac is not None:
            fractions.append((n, frac))
        print("| %s (`%s`) | %s | %s | %.2fx | %.0f GB/s | %.0f GB/s | %s | %s |" % (
            n, r["kernel"], us(r["baseline_ns"]), us(r["final_ns"]), r["speedup"],
            b["gbps"], f["gbps"], "%.0f %%" % (100 * frac) if frac is not None else "?",
            kept(r).replace("|", "\\|")))
    print()
    peaks = sorted(p for p in (peak_gbps(reports[n]) for n in names) if p)
    print("GPU: %s; target %s; date %s; DRAM peak %s GB/s (each report's own figure, "
          "which its fraction uses)." % (
              first.get("gpu"), first.get("target"), first.get("date"),
              ("%.0f" % peaks[0]) if len(peaks) < 2 or peaks[0] == peaks[-1]
              else "%.0f to %.0f" % (peaks[0], peaks[-1])))
    if command:
        print("Command: `%s`." % command)
    at70 = [n for n, x in fractions if x >= 0.70]
    print("%d of %d kernels at >= 70 %% of the DRAM roofline after optimize%s." % (
        len(at70), len(fractions), (": " + ", ".join(at70)) if at70 else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
