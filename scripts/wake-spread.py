#!/usr/bin/env python3
"""How far apart the consumer warps that one full-barrier phase wakes resume, from the
recorded traces of a corpus half (HALF: fit by default; DIR: traces/h200/corpus). A wake is
every consumer wait of one CTA, iteration and stage that blocked (a wait span of at least
MIN_NS, 50) on the full barrier; with two or more waiters, its spacing is (last wait end -
first wait end) / (waiters - 1). Per kernel: the wakes, the median spacing, and how often of
two waiters the one of the lower warp resumed first; the last lines give the median over all
wakes and over the kernels' medians (sim/params.c wake_stagger_ns).

usage: wake-spread.py [HALF [DIR...]]   (MIN_NS: 50; PREFIX: corpus_; TMASIM: build/rel/tmasim)"""
import os
import statistics
import sys

import fitlib

half = fitlib.half_arg()
dirs = sys.argv[2:] or ['traces/h200/corpus']
tmasim = os.environ.get('TMASIM', 'build/rel/tmasim')
min_ns = os.environ.get('MIN_NS', '50')
if not min_ns.isdigit():
    fitlib.die(f'MIN_NS: {min_ns!r} (allowed: an integer 0 or more)')
min_ns = int(min_ns)
prefix = os.environ.get('PREFIX', 'corpus_')
CONSUMER, FULL = 1, 1   # trace role (sim/trace.h TRACE_ROLE_CONSUMER) and TRACE_FLAG_FULL_BARRIER


def wakes(events):
    """Per wake (CTA, iteration, stage) with two or more blocked consumers: [(end, warp)]."""
    by = {}
    for e in events:
        a = e.get('args', {})
        if e.get('name') != 'wait' or a.get('role') != CONSUMER or not a.get('flags', 0) & FULL:
            continue
        if a['dur_ns'] < min_ns:
            continue
        by.setdefault((a['cta'], a['iteration'], a.get('stage')), []).append((a['t_ns'] + a['dur_ns'], a['warp']))
    return [sorted(v) for v in by.values() if len(v) >= 2]


kernels = fitlib.descriptions(dirs, prefix=prefix, half=half)
every, medians = [], []
print(f"{'kernel':18} {'wakes':>6} {'spacing ns':>11} {'lower first':>12}")
for name, d in kernels:
    tmt = os.path.join(d, name + '.tmt')
    if not os.path.exists(tmt):
        continue
    ws = wakes(fitlib.trace_events(tmasim, tmt, '/tmp/wake-spread.json'))
    if not ws:
        continue
    spacing = [(w[-1][0] - w[0][0]) / (len(w) - 1) for w in ws]
    pairs = [(a, b) for w in ws for i, a in enumerate(w) for b in w[i + 1:] if a[0] != b[0]]
    lower = sum(a[1] < b[1] for a, b in pairs)
    every += spacing
    medians.append(statistics.median(spacing))
    share = f'{lower / len(pairs):12.2f}' if pairs else f"{'-':>12}"
    print(f'{name:18} {len(ws):6d} {medians[-1]:11.1f} {share}')
if not every:
    print('no wake with two or more blocked consumers')
    sys.exit(0)
print(f'{len(every)} wakes in {len(medians)} kernels: spacing median {statistics.median(every):.1f} ns '
      f'[{fitlib.pct(every, 10):.1f}..{fitlib.pct(every, 90):.1f} p10..p90]; '
      f'median of the kernels\' medians {statistics.median(medians):.1f} ns')
