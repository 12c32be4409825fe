#!/usr/bin/env python3
"""Checks every template sample on the GPU against a CPU reference.

    check.py SAMPLES_DIR [--nvcc NVCC] [--arch native] [--jobs N] [--only NAME,...]
             [--compile-only]

SAMPLES_DIR is what `forge-port new --all-samples DIR` writes: for each
sample <name>.cu (kernel and host wrapper), <name>.json (its launch spec)
and <name>.request.json (what it computes). For each sample this compiles
check_<kind>.cu from this directory with the sample's request as macros
(README.md lists them), runs it, and expects its last line to be
"PASS forge_<name>". Prints one line per sample and a summary; exits 1 if
any sample fails, 2 on a usage error.
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

CUDA_TYPES = {
    "f16": "__half", "bf16": "__nv_bfloat16", "f32": "float", "f64": "double",
    "i8": "signed char", "u8": "unsigned char", "i16": "short",
    "u16": "unsigned short", "i32": "int", "u32": "unsigned int",
    "i64": "long long", "u64": "unsigned long long",
}
OPERATORS = {"+": "ADD", "*": "MUL", "max": "MAX", "min": "MIN",
             "argmax": "ARGMAX", "argmin": "ARGMIN"}


def macros(name, req, sample_file):
    """The -D flags of one sample (README.md)."""
    d = {
        "FORGE_SAMPLE_FILE": '"%s"' % sample_file,
        "FORGE_WRAPPER": "forge_" + name,
        "FORGE_NAME": name,
        "FORGE_T": CUDA_TYPES[req["type"]],
        "FORGE_RANK": str(len(req["shape"])),
        "FORGE_BATCH": str(req.get("batch", 1)),
        "FORGE_INCLUSIVE": str(int(req.get("inclusive", True))),
        "FORGE_DESCENDING": str(int(req.get("descending", False))),
        "FORGE_SEPARABLE": str(int(req.get("separable", False))),
        "FORGE_BORDER_ZERO": str(int(req.get("border", "clamp") == "zero")),
        "FORGE_TRANSA": str(int(req.get("trans_a", False))),
        "FORGE_TRANSB": str(int(req.get("trans_b", False))),
        "FORGE_LOWP": str(int(req.get("allow_lower_precision", False))),
        "FORGE_BINS": str(req.get("bins", 256)),
        "FORGE_INPUTS": str(req.get("inputs", 1)),
    }
    shape = list(req["shape"]) + [1, 1, 1]
    for i in range(3):
        d["FORGE_S%d" % i] = str(shape[i])
    flt = list(req.get("filter", []))
    d["FORGE_FILTER_RANK"] = str(len(flt))
    flt += [1, 1, 1]
    for i in range(3):
        d["FORGE_F%d" % i] = str(flt[i])
    if req.get("value_type"):
        d["FORGE_VT"] = CUDA_TYPES[req["value_type"]]
        d["FORGE_HAS_VALUES"] = "1"
    op = req.get("operator", "+")
    if req["kind"] == "map":
        d["FORGE_MAP(a,b,c,d)"] = "(%s)" % op
    elif op in OPERATORS:
        d["FORGE_OP_" + OPERATORS[op]] = "1"
    # nvcc splits a -D value at commas unless they are escaped.
    return ["-D%s=%s" % (k.replace(",", "\\,"), v.replace(",", "\\,")) for k, v in d.items()]


def check(name, args, workdir):
    start = time.time()
    with open(os.path.join(args.samples, name + ".request.json")) as f:
        req = json.load(f)
    harness = os.path.join(HERE, "check_%s.cu" % req["kind"].replace("-", "_"))
    if not os.path.exists(harness):
        return name, False, "no check harness %s" % os.path.basename(harness), 0
    exe = os.path.join(workdir, name)
    cmd = [args.nvcc, "-arch=" + args.arch, "-std=c++17", "-O2", "-I", HERE,
           "-o", exe, harness] + macros(name, req,
                                        os.path.abspath(os.path.join(args.samples, name + ".cu")))
    c = subprocess.run(cmd, capture_output=True, text=True)
    if c.returncode != 0:
        return name, False, "compile failed:\n" + c.stderr[-3000:], time.time() - start
    if args.compile_only:
        return name, True, "", time.time() - start
    try:
        r = subprocess.run([exe], capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return name, False, "timed out after %d s" % args.timeout, time.time() - start
    lines = [l for l in r.stdout.splitlines() if l.strip()]
    ok = r.returncode == 0 and lines and lines[-1].strip() == "PASS forge_" + name
    detail = (r.stdout + r.stderr)[-3000:]
    return name, ok, detail, time.time() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("samples")
    ap.add_argument("--nvcc", default="nvcc")
    ap.add_argument("--arch", default="native")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--only", default="", help="comma-separated sample names")
    ap.add_argument("--workdir", default="")
    ap.add_argument("--compile-only", action="store_true",
                    help="build the checks, run none (on a machine without a GPU)")
    args = ap.parse_args()
    names = sorted(f[:-len(".request.json")] for f in os.listdir(args.samples)
                   if f.endswith(".request.json"))
    if args.only:
        want = set(args.only.split(","))
        names = [n for n in names if n in want]
    if not names:
        print("check.py: no samples in %s" % args.samples, file=sys.stderr)
        return 2
    workdir = args.workdir or os.path.join(args.samples, "checks")
    os.makedirs(workdir, exist_ok=True)
    failed = []
    # Compiles in parallel; the runs share the GPU, which is fine for checks.
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for name, ok, detail, secs in pool.map(lambda n: check(n, args, workdir), names):
            verdict = ("BUILT" if args.compile_only else "PASS") if ok else "FAIL"
            print("%s %s (%.1f s)" % (verdict, name, secs))
            if not ok:
                failed.append(name)
                print("  " + detail.replace("\n", "\n  "))
            sys.stdout.flush()
    print("%d of %d samples %s" % (len(names) - len(failed), len(names),
                                   "built" if args.compile_only else "passed"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
