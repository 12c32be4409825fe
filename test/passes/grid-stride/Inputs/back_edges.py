"""Prints each backward branch (a loop's back edge) of a PTX file: a 'bra'
to a label defined above it. Used by the grid-stride tests."""
import re
import sys

seen = set()
for line in open(sys.argv[1]):
    label = re.match(r"^(\$L__\w+):", line)
    if label:
        seen.add(label.group(1))
        continue
    branch = re.search(r"\bbra(?:\.uni)?\s+(\$L__\w+);", line)
    if branch and branch.group(1) in seen:
        print("back edge to " + branch.group(1))
