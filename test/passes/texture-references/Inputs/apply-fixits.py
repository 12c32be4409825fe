# apply-fixits.py REPORT BASE SRC OUT: copies SRC to OUT and applies there every
# fix-it of a forge-port JSON report (its paths relative to BASE), in every
# file, as project mode does; header.cu compiles the result with nvcc.
import json, sys, os, shutil, collections
rep, base, src, out = sys.argv[1:5]
d = json.load(open(rep))
files = d if isinstance(d, list) else [d]
edits = collections.defaultdict(set)
for fl in files:
    for f in fl.get('findings', []):
        for x in f['fixits']:
            edits[os.path.normpath(os.path.join(base, x['file']))].add((x['offset'], x['end_offset'], x['replacement']))
if os.path.exists(out): shutil.rmtree(out)
shutil.copytree(src, out)
for fn, es in edits.items():
    p = os.path.join(out, os.path.relpath(fn, os.path.abspath(src)))
    t = open(p, encoding='latin-1', newline='').read()
    for b, e, r in sorted(es, key=lambda z: (z[0], z[1]), reverse=True):
        t = t[:b] + r + t[e:]
    open(p, 'w', encoding='latin-1', newline='').write(t)
    print('patched', p, len(es))
