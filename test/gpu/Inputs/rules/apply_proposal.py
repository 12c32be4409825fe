#!/usr/bin/env python3
"""Applies proposal N of `forge-port propose --format=json` to a source file.

usage: apply_proposal.py PROPOSALS.json N SOURCE OUTPUT

Each SEARCH text must occur exactly once in the source (as the proposer
guarantees); a proposal list shorter than N + 1 is an error.
"""
import json
import re
import sys

props = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
if len(props) <= n:
    sys.exit("only %d proposals" % len(props))
src = open(sys.argv[3]).read()
blocks = re.findall(r"<<<<<<< SEARCH\n(.*?)\n=======\n(.*?)\n?>>>>>>> REPLACE", props[n]["edits"],
                    re.S)
if not blocks:
    sys.exit("no edit blocks")
for search, replace in blocks:
    if src.count(search) != 1:
        sys.exit("SEARCH text occurs %d times" % src.count(search))
    src = src.replace(search, replace)
open(sys.argv[4], "w").write(src)
