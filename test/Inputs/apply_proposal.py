#!/usr/bin/env python3
"""Applies one proposal of `forge-port propose --format=json` to a source file.

usage: apply_proposal.py <proposals.json> <index> <source.cu>  (result on stdout)

`propose --apply` applies only each rule's first proposal; the lit tests use
this to check the others. Every SEARCH text must occur exactly once.
"""
import json
import sys


def blocks(edits):
    search, replace, state = [], [], None
    for line in edits.split("\n"):
        if line.startswith("<<<<<<< SEARCH"):
            search, replace, state = [], [], "search"
        elif line.startswith("=======") and state == "search":
            state = "replace"
        elif line.startswith(">>>>>>> REPLACE") and state == "replace":
            yield "\n".join(search), "\n".join(replace)
            state = None
        elif state == "search":
            search.append(line)
        elif state == "replace":
            replace.append(line)


def main():
    proposals = json.load(open(sys.argv[1]))
    index = int(sys.argv[2])
    source = open(sys.argv[3]).read()
    if index >= len(proposals):
        sys.exit("apply_proposal.py: only %d proposals" % len(proposals))
    for search, replace in blocks(proposals[index]["edits"]):
        if source.count(search) != 1:
            sys.exit("apply_proposal.py: SEARCH text found %d times:\n%s" % (source.count(search), search))
        source = source.replace(search, replace)
    sys.stdout.write(source)


if __name__ == "__main__":
    main()
