#!/usr/bin/env python3
"""Splits the GPU lit tests (test/gpu/rules/*.cu) between this machine and
the GPU machine, which has nvcc but no LLVM (so no lit, FileCheck or a
dynamic forge-port).

  prepare  <build-dir> <stage-dir> [test.cu...]
      Here: runs every RUN line of each test with lit's substitutions, up to
      the line that runs the compiled check on the GPU. Proposals are made by
      this build's forge-port and the check program is compiled for sm_90
      (`-arch=native` needs a GPU). The stage directory then holds, per test,
      the check binary and `device.sh`, the GPU part.
  verify   <stage-dir> <outputs-dir> [test.cu...]
      Here again, after the GPU machine ran each device.sh and its output
      came back as <outputs-dir>/<test>.out: runs the RUN lines that read
      that output (FileCheck), so the test's own CHECK lines judge it.

On the GPU machine: `for d in STAGE/*/; do bash $d/device.sh > OUT/$(basename $d).out 2>&1; done`.
"""
import glob
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FILECHECK = "/usr/lib/llvm-22/bin/FileCheck"
NVCC = os.path.join(os.environ.get("CUDA_PATH", "/usr/local/cuda"), "bin", "nvcc")


def run_lines(path):
    lines, cur = [], ""
    for l in open(path):
        m = re.search(r"RUN:\s?(.*)$", l)
        if not m:
            continue
        part = m.group(1).rstrip()
        if part.endswith("\\"):
            cur += part[:-1] + " "
            continue
        lines.append(cur + part)
        cur = ""
    return lines


def substitute(line, test, tmp, forge_port):
    d = os.path.dirname(test)
    line = line.replace("%python", sys.executable).replace("%nvcc", NVCC)
    line = line.replace("%s", test).replace("%S", d).replace("%t", tmp)
    line = re.sub(r"(^|[|;&(]\s*|\s)forge-port(?=\s)", lambda m: m.group(1) + forge_port, line)
    line = re.sub(r"(^|[|;&(]\s*|\s)FileCheck(?=\s)", lambda m: m.group(1) + FILECHECK, line)
    # lit's `not` (at the start of a command) is the shell's `!`.
    line = re.sub(r"(^|[|;&(]\s*)not\s", lambda m: m.group(1) + "! ", line)
    return line.replace("-arch=native", "-arch=sm_90")


def is_device(line):
    # The line that runs the compiled check: "<tmp>/check | FileCheck ...".
    return re.match(r"\s*\S*/check\b", line) is not None


def tests(args):
    return args or sorted(glob.glob(os.path.join(ROOT, "test/gpu/rules/*.cu")))


def prepare(build, stage, files):
    fp = os.path.join(build, "bin", "forge-port")
    ok = True
    for test in tests(files):
        name = os.path.splitext(os.path.basename(test))[0]
        tmp = os.path.join(stage, name, "t")
        os.makedirs(os.path.dirname(tmp), exist_ok=True)
        device = []
        for raw in run_lines(test):
            line = substitute(raw, test, tmp, fp)
            if is_device(line):
                binary, _, check = line.partition("|")
                device.append(binary.strip())
                continue
            r = subprocess.run(["bash", "-o", "pipefail", "-c", line], capture_output=True,
                               text=True)
            if r.returncode != 0:
                print("FAIL prepare %s: %s\n%s%s" % (name, line, r.stdout, r.stderr))
                ok = False
                break
        # The device runs the binaries where they lie in the stage, relative
        # to device.sh (the stage travels).
        rel = [os.path.relpath(b, os.path.join(stage, name)) for b in device]
        with open(os.path.join(stage, name, "device.sh"), "w") as f:
            f.write("cd \"$(dirname \"$0\")\"\n" + "\n".join(rel) + "\n")
        print("prepared %s: %d GPU run(s)" % (name, len(device)))
    return ok


def verify(stage, outputs, files):
    ok = True
    for test in tests(files):
        name = os.path.splitext(os.path.basename(test))[0]
        out = os.path.join(outputs, name + ".out")
        if not os.path.exists(out):
            print("MISSING %s" % out)
            ok = False
            continue
        tmp = os.path.join(stage, name, "t")
        for raw in run_lines(test):
            line = substitute(raw, test, tmp, "forge-port")
            if not is_device(line):
                continue
            _, _, check = line.partition("|")
            r = subprocess.run(["bash", "-c", check], stdin=open(out), capture_output=True,
                               text=True)
            print("%s %s" % ("PASS" if r.returncode == 0 else "FAIL", name))
            if r.returncode != 0:
                print(r.stdout + r.stderr)
                ok = False
    return ok


if __name__ == "__main__":
    if len(sys.argv) < 4 or sys.argv[1] not in ("prepare", "verify"):
        sys.exit(__doc__)
    fn = prepare if sys.argv[1] == "prepare" else verify
    sys.exit(0 if fn(sys.argv[2], sys.argv[3], sys.argv[4:]) else 1)
