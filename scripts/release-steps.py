#!/usr/bin/env python3
"""The warp time of a multicast consumer's arrives on its cluster peers, from the recorded
traces of a corpus half (HALF: fit by default; DIR: traces/h200/corpus). The generated
consumer releases a stage on every rank of its cluster in turn (hw/run_kernel.cuh
release_upto), with a release record before each arrive: the time from one record to the
next is the warp's time for that arrive. Prints, per kernel with a kept trace, the median
after the first remote arrive of a release, after the second, the third, and after the
local one, with how many of each (TMASIM: build/rel/tmasim).

usage: release-steps.py [HALF [DIR...]]"""
import os, re, statistics, sys

import fitlib

half = fitlib.half_arg()
dirs = sys.argv[2:] or ['traces/h200/corpus']
tmasim = os.environ.get('TMASIM', 'build/rel/tmasim')
REMOTE = 2   # the trace's remote-arrive flag (sim/trace.h TRACE_FLAG_REMOTE)
kernels = fitlib.descriptions(dirs, half=half)
print(f"{'kernel':18} {'cluster':>7} {'CTAs/SM':>7} {'consumers':>9}  after: 1st remote, 2nd, 3rd, local (ns, n)")
for name, d in kernels:
    y = open(os.path.join(d, name + '.yaml')).read()
    size = fitlib.field(y, r'cluster:\s*\{size:\s*(\d+), multicast:\s*true')
    tmt = os.path.join(d, name + '.tmt')
    if not size or not os.path.exists(tmt):
        continue
    seqs = {}
    for e in fitlib.trace_events(tmasim, tmt, '/tmp/release-steps.json'):
        a = e.get('args', {})
        if e.get('name') == 'release':
            seqs.setdefault((a['cta'], a['warp'], a['iteration']), []).append((a['t_ns'], a['flags'] & REMOTE))
    gaps = {}
    for seq in seqs.values():
        if len(seq) != size:
            continue
        seq.sort()
        remote = 0
        for (t0, far), (t1, _) in zip(seq, seq[1:]):
            key = remote if far else 'local'
            remote += 1 if far else 0
            gaps.setdefault(key, []).append(t1 - t0)
    cols = []
    for key in (0, 1, 2, 'local'):
        v = gaps.get(key)
        cols.append(f'{statistics.median(v):5.0f} ({len(v)})' if v else f"{'-':>5}    ")
    per_sm = fitlib.field(y, r'ctas_per_sm:\s*(\d+)')
    consumers = fitlib.field(y, r'consumer:\s*(\d+)')
    print(f"{name:18} {size:>7} {per_sm:>7} {consumers:>9}  {'  '.join(cols)}")
