#!/usr/bin/env python3
"""Where a generated consumer's wait for its next stage begins, from the recorded traces of
a corpus half (HALF: fit by default; DIR: traces/h200/corpus). Between two stages the
consumer releases, stores its deferred records and probes its next full barrier: the probe
(hw/run_kernel.cuh `wait`) reads the clock, then test_wait and a warp vote. Found full, the
read starts at the vote's clock; found empty, the recorded wait starts at the clock read
before the probe. Per kernel (mbarrier modes, no multicast: a multicast release's arrives
differ by rank): from the end of a stage's read or math to the next wait's start where the
consumer blocked (A), and to the next read's start where it did not (B), medians with their
counts. The same code runs before the probe either way, so B - A is the probe itself, up to
the vote; the last line gives the median over kernels with at least MIN of each.

usage: probe-split.py [HALF [DIR...]]   (MIN: 5; PREFIX: corpus_; TMASIM: build/rel/tmasim)"""
import os
import re
import statistics
import sys

import fitlib

half = fitlib.half_arg()
dirs = sys.argv[2:] or ['traces/h200/corpus']
tmasim = os.environ.get('TMASIM', 'build/rel/tmasim')
least = os.environ.get('MIN', '5')
if not least.isdigit() or int(least) < 1:
    fitlib.die(f'MIN: {least!r} (allowed: an integer 1 or more)')
least = int(least)
prefix = os.environ.get('PREFIX', 'corpus_')
CONSUMER, FULL = 1, 1   # trace role (sim/trace.h TRACE_ROLE_CONSUMER) and TRACE_FLAG_FULL_BARRIER


def steps(events, reads):
    """(A, B) lists of one trace: per consumer warp, from each iteration's work end to the
    next iteration's blocking wait start (A) or, without one, its read (or math) start (B)."""
    warps = {}
    for e in events:
        a = e.get('args', {})
        if a.get('role') != CONSUMER or e.get('name') not in ('wait', 'smem_read', 'math'):
            continue
        if e['name'] == 'wait' and not a.get('flags', 0) & FULL:
            continue
        warps.setdefault((a['cta'], a['warp']), []).append((e['name'], a['iteration'], a['t_ns'], a['dur_ns']))
    A, B = [], []
    start_kind = 'smem_read' if reads else 'math'
    for evs in warps.values():
        end, waited, start = {}, set(), {}
        for name, it, t, dur in evs:
            if name == 'wait':
                waited.add(it)
                start.setdefault(('wait', it), t)
            else:
                end[it] = max(end.get(it, t + dur), t + dur)
                if name == start_kind:
                    start.setdefault(('work', it), t)
        for it in end:
            if it - 1 not in end:
                continue
            if it in waited and ('wait', it) in start:
                A.append(start[('wait', it)] - end[it - 1])
            elif it not in waited and ('work', it) in start:
                B.append(start[('work', it)] - end[it - 1])
    return A, B


rows = []
kernels = fitlib.descriptions(dirs, prefix=prefix, half=half)
print(f"{'kernel':18} {'mode':17} {'A: to wait':>11} {'n':>5} {'B: to read':>11} {'n':>5} {'B - A':>6}")
for name, d in kernels:
    y = open(os.path.join(d, name + '.yaml')).read()
    tmt = os.path.join(d, name + '.tmt')
    mode = fitlib.field(y, r'^mode: (\w+)', str, '?')
    if not os.path.exists(tmt) or mode not in ('warp_specialized', 'multistage', 'st_async'):
        continue
    if 'multicast: true' in y or re.search(r'cpasync:.*sync: (commit|groups)', y):
        continue
    A, B = steps(fitlib.trace_events(tmasim, tmt, '/tmp/probe-split.json'), 'reads:' in y)
    if not A and not B:
        continue
    a = statistics.median(A) if A else None
    b = statistics.median(B) if B else None
    diff = b - a if A and B else None
    if len(A) >= least and len(B) >= least:
        rows.append(diff)
    fmt = lambda v: f'{v:11.0f}' if v is not None else f"{'-':>11}"
    print(f"{name:18} {mode:17} {fmt(a)} {len(A):5d} {fmt(b)} {len(B):5d} "
          f"{(f'{diff:6.0f}' if diff is not None else '     -')}")
if rows:
    print(f'B - A over the {len(rows)} kernels with {least} or more of each: median {statistics.median(rows):.0f} ns '
          f'[{fitlib.pct(rows, 10):.0f}..{fitlib.pct(rows, 90):.0f} p10..p90]')
else:
    print(f'no kernel has {least} or more of each')
