#!/usr/bin/env python3
"""Compare a drafted launch spec (forge-port spec) with one written by hand.

    utils/spec-compare.py HAND.json DRAFT.json

The hand-written spec's sizes and tunables take their defaults; each of the
draft's sizes takes the value the hand-written spec passes the kernel
parameter of that name (the draft names its sizes after the parameters).
Then every buffer's count, and the threads the grid launches along each
dimension (grid * block, at least the problem's extent), are evaluated in
both. Prints one line per buffer and per grid dimension, and a summary line
'counts A/B equal, grid DIM' ; exits 1 when a count differs or the draft fell
back to N for it.
"""
import json
import re
import sys


def evaluate(expr, env):
    if isinstance(expr, (int, float)):
        return int(expr)
    text = str(expr)
    text = re.sub(r"(?<![/])/(?![/])", "//", text)
    scope = dict(env)
    scope.update({"min": min, "max": max,
                  "ceil_div": lambda a, b: -(-a // b)})
    return int(eval(text, {"__builtins__": {}}, scope))


def defaults(spec):
    env = dict(spec.get("sizes", {}))
    for t in spec.get("tunables", []):
        env[t["name"]] = t.get("default", t["values"][0])
    return env


def dims(value):
    return value if isinstance(value, list) else [value]


def main():
    hand = json.load(open(sys.argv[1]))
    draft = json.load(open(sys.argv[2]))
    henv = defaults(hand)
    # The kernel's scalar arguments, as the hand-written spec passes them.
    args = {}
    for s in hand.get("scalars", []):
        try:
            args[s["name"]] = evaluate(s["value"], henv)
        except Exception:  # a float scalar
            pass
    denv = {}
    for t in draft.get("tunables", []):
        denv[t["name"]] = t.get("default", t["values"][0])
    for name, value in draft.get("sizes", {}).items():
        denv[name] = args.get(name, value)
    hb = {b["name"]: b for b in hand.get("buffers", [])}
    equal = total = 0
    failed = False
    for b in draft.get("buffers", []):
        if b["name"] not in hb:
            continue
        total += 1
        want = evaluate(hb[b["name"]]["count"], henv)
        if re.search(r"\bN\b", str(b["count"])) and "N" not in args:
            print(f"  {b['name']}: hand {hb[b['name']]['count']} = {want}; draft "
                  f"{b['count']} (not inferred)")
            failed = True
            continue
        got = evaluate(b["count"], denv)
        ok = got == want
        equal += ok
        failed |= not ok
        print(f"  {b['name']}: hand {hb[b['name']]['count']} = {want}; draft {b['count']} = "
              f"{got}{'' if ok else '  DIFFERS'}")
    hg, hbk = dims(hand["grid"]), dims(hand["block"])
    dg, dbk = dims(draft["grid"]), dims(draft["block"])
    cover = []
    for d in range(max(len(hg), len(dg))):
        ht = (evaluate(hg[d], henv) if d < len(hg) else 1) * \
             (evaluate(hbk[d], henv) if d < len(hbk) else 1)
        dt = (evaluate(dg[d], denv) if d < len(dg) else 1) * \
             (evaluate(dbk[d], denv) if d < len(dbk) else 1)
        cover.append(f"{'xyz'[d]} hand {ht} draft {dt}")
    print(f"  threads: {'; '.join(cover)}")
    print(f"counts {equal}/{total} equal")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
