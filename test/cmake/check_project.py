#!/usr/bin/env python3
"""Builds the example project of test/cmake/project the way a user would, with
find_package(ForgePort) and forge_port_kernels(), and prints what each step
showed, one fact per line, for cmake-integration.test to check:

  * Ninja, against the build tree's package: the fatbinary's architectures
    (read from the .nv_fatbin section, as there is no cuobjdump here), the
    safe fix and the tuned values in the ported sources, what a touched
    kernel or header rebuilds, a stale database entry, a planted porting
    error, a database that is not JSON, and the user's files unchanged;
  * `cmake --install` into one prefix, moved to another, and the same
    project built from there with the Makefile generator.

Every check that fails prints "FAIL: ..." and the script exits 1 at the end.
"""
import argparse
import hashlib
import os
import re
import shutil
import struct
import subprocess
import sys
import time

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def run(cmd, cwd=None, env=None):
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout


def tree_hashes(root):
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, root)] = hashlib.sha256(fh.read()).hexdigest()
    return out


def fatbin_archs(path):
    """The sm_NN of every cubin (kind 2) in the .nv_fatbin section of an ELF
    file: a fatbinary is a header (magic 0xBA55ED50, version, header size,
    size) and entries (kind, version, header size, payload size, ..., the
    architecture at byte 28)."""
    data = open(path, "rb").read()
    if data[:4] != b"\x7fELF":
        raise ValueError(path + " is not an ELF file")
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)

    def header(i):
        return struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)

    names = header(shstrndx)[4]
    archs = set()
    for i in range(shnum):
        h = header(i)
        name = data[names + h[0]:data.index(b"\0", names + h[0])].decode()
        if name != ".nv_fatbin":
            continue
        p, end = h[4], h[4] + h[5]
        while p + 16 <= end:
            magic, _, hsize, fsize = struct.unpack_from("<IHHQ", data, p)
            if magic != 0xBA55ED50:
                p += 8  # fatbinaries are 8-byte aligned in the section
                continue
            q = p + hsize
            while q < p + hsize + fsize:
                kind, _, ehsize, esize = struct.unpack_from("<HHIQ", data, q)
                arch = struct.unpack_from("<I", data, q + 28)[0]
                if kind == 2:
                    archs.add(arch)
                q += ehsize + esize
            p += hsize + fsize
    return sorted(archs)


def ported(build, name):
    return os.path.join(build, "forge-port", "mykernels", "kernels", name)


def steps_run(log):
    """The kernel files whose forge-port step ran, in a build's output."""
    return sorted(set(re.findall(r"forge-port: porting(?: and tuning)? kernels/(\w+\.cu)", log)))


def show_diagnostics(tag, log, src, only=None):
    """The build's diagnostics on .cu files; with `only`, those of paths that
    contain it (other kernels re-ported in the same build print theirs in
    whatever order ninja runs the steps)."""
    for line in log.splitlines():
        if re.search(r": (warning|error): ", line) and ".cu:" in line:
            line = line.replace(src + os.sep, "")
            if only is None or only in line:
                print(tag + " " + line)


def tuned_values(path):
    """The values of the tunables in a ported source: the constants, or the
    arms of the compute-capability dispatch."""
    text = open(path).read()
    consts = ["%s=%s" % m for m in re.findall(r"^constexpr int (BLOCK|ITEMS) = (\d+);", text, re.M)]
    arms = re.findall(r"if \(forge_cc >= (\d+)\) (\w+<[^>]*><<<[^;]*;)", text)
    return " ".join(consts + ["cc>=%s: %s" % a for a in arms])


def touch(path):
    """A newer time stamp than any output so far, the contents unchanged."""
    time.sleep(0.01)
    os.utime(path, None)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--project", required=True)
    ap.add_argument("--forge-build", required=True, help="Kernel Forge's build directory")
    ap.add_argument("--cmake", default="cmake")
    ap.add_argument("--nvcc", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    for k in ("project", "forge_build", "work"):
        setattr(a, k, os.path.abspath(getattr(a, k)))

    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    src = os.path.join(a.work, "src")
    shutil.copytree(a.project, src)
    before = tree_hashes(src)
    env = dict(os.environ)
    env.pop("CUDAARCHS", None)
    env["TERM"] = "dumb"
    common = ["-DCMAKE_CUDA_COMPILER=" + a.nvcc, "-DCMAKE_BUILD_TYPE=Release"]

    # --- Ninja, from the build tree --------------------------------------
    nb = os.path.join(a.work, "ninja")
    pkg = os.path.join(a.forge_build, "lib", "cmake", "ForgePort")
    rc, log = run([a.cmake, "-S", src, "-B", nb, "-G", "Ninja", "-DForgePort_DIR=" + pkg] + common,
                  env=env)
    print("NINJA configure rc=%d" % rc)
    if rc:
        print(log)
        fail("configure with Ninja")
        return finish()
    build = [a.cmake, "--build", nb]
    rc, log = run(build, env=env)
    print("NINJA build rc=%d steps=%s" % (rc, ",".join(steps_run(log))))
    show_diagnostics("NINJA diag", log, src)
    if rc:
        print(log)
        fail("first Ninja build")
        return finish()
    lib = os.path.join(nb, "libmykernels.so")
    print("NINJA fatbin " + " ".join("sm_%d" % x for x in fatbin_archs(lib)))
    reduce_out = open(ported(nb, "reduce.cu")).read()
    print("NINJA reduce fixed=%s legacy=%s" % ("__shfl_down_sync(" in reduce_out,
                                               re.search(r"__shfl_down\(", reduce_out) is not None))
    print("NINJA triad " + tuned_values(ported(nb, "triad.cu")))

    rc, log = run(build, env=env)
    print("NINJA again rc=%d steps=%s" % (rc, ",".join(steps_run(log)) or "none"))
    touch(os.path.join(src, "kernels", "triad.cu"))
    rc, log = run(build, env=env)
    print("NINJA touched triad.cu rc=%d steps=%s" % (rc, ",".join(steps_run(log)) or "none"))
    touch(os.path.join(src, "kernels", "common.h"))
    rc, log = run(build, env=env)
    print("NINJA touched common.h rc=%d steps=%s" % (rc, ",".join(steps_run(log)) or "none"))
    if tree_hashes(src) == before:
        print("NINJA user files unchanged")
    else:
        fail("the build changed the user's files")

    # The kernel edited: its database entry is stale; the last values stay.
    triad = os.path.join(src, "kernels", "triad.cu")
    original = open(triad).read()
    with open(triad, "a") as f:
        f.write("// an edit after tuning\n")
    rc, log = run(build, env=env)
    print("NINJA edited triad.cu rc=%d steps=%s" % (rc, ",".join(steps_run(log)) or "none"))
    for line in log.splitlines():
        if "no entry for this version" in line:
            print("NINJA stale " + line.strip())
    print("NINJA triad " + tuned_values(ported(nb, "triad.cu")))
    with open(triad, "w") as f:
        f.write(original)

    # A database that is not JSON fails the build and is left as it is.
    db = os.path.join(src, "forge-tuning.json")
    good = open(db).read()
    with open(db, "w") as f:
        f.write("{ not json\n")
    rc, log = run(build, env=env)
    bad = [l for l in log.splitlines() if "forge-tuning.json" in l and "error" in l]
    print("NINJA bad database rc=%d" % rc)
    for line in bad[:1]:
        print("NINJA bad database " + line.replace(src + os.sep, ""))
    if open(db).read() != "{ not json\n":
        fail("a database that is not JSON was rewritten")
    else:
        print("NINJA bad database left as it is")
    with open(db, "w") as f:
        f.write(good)

    # A porting error fails the build, with the diagnostic.
    rc, log = run([a.cmake, "-S", src, "-B", nb, "-DPLANT_PORTING_ERROR=ON"], env=env)
    rc, log = run(build, env=env)
    print("NINJA planted error rc=%d" % rc)
    show_diagnostics("NINJA planted", log, src, only="planted/")
    run([a.cmake, "-S", src, "-B", nb, "-DPLANT_PORTING_ERROR=OFF"], env=env)
    if tree_hashes(src) != before:
        fail("the user's files differ after the builds")

    # --- Installed, relocated, Makefiles ------------------------------------
    first = os.path.join(a.work, "prefix-a")
    rc, log = run([a.cmake, "--install", a.forge_build, "--prefix", first], env=env)
    print("INSTALL rc=%d" % rc)
    if rc:
        print(log)
        fail("cmake --install")
        return finish()
    moved = os.path.join(a.work, "prefix-b")
    os.rename(first, moved)
    for rel in ["bin/forge-port", "bin/forge-worker", "bin/libforge-inject.so",
                "lib/cmake/ForgePort/ForgePortConfig.cmake",
                "lib/cmake/ForgePort/ForgePortConfigVersion.cmake",
                "lib/cmake/ForgePort/ForgePortTargets.cmake",
                "lib/clang/22/include/__clang_cuda_runtime_wrapper.h"]:
        print("INSTALL %s %s" % (rel, "present" if os.path.exists(os.path.join(moved, rel))
                                 else "MISSING"))
    mb = os.path.join(a.work, "make")
    rc, log = run([a.cmake, "-S", src, "-B", mb, "-G", "Unix Makefiles",
                   "-DCMAKE_PREFIX_PATH=" + moved] + common, env=env)
    print("MAKE configure rc=%d" % rc)
    if rc:
        print(log)
        fail("configure with Makefiles against the moved install")
        return finish()
    build = [a.cmake, "--build", mb, "--", "-j2"]
    rc, log = run(build, env=env)
    print("MAKE build rc=%d steps=%s" % (rc, ",".join(steps_run(log))))
    if rc:
        print(log)
        fail("Makefile build")
        return finish()
    print("MAKE fatbin " + " ".join("sm_%d" % x for x in fatbin_archs(os.path.join(mb, "libmykernels.so"))))
    touch(os.path.join(src, "kernels", "common.h"))
    rc, log = run(build, env=env)
    print("MAKE touched common.h rc=%d steps=%s" % (rc, ",".join(steps_run(log)) or "none"))
    if tree_hashes(src) != before:
        fail("the user's files differ after the Makefile build")
    return finish()


def finish():
    if failures:
        print("%d check(s) failed" % len(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
