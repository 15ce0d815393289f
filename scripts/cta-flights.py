#!/usr/bin/env python3
"""Per traced CTA of a recording with every CTA traced (tmahw run --trace-ctas N): the median
TMA load flight (tma_flight) and the iteration period (from one non-remote release to the
next) over iterations LO..HI, with the CTA's SM; the spread over CTAs and the CTAs whose
flight is more than SLOW_NS.

usage: cta-flights.py TRACE.tmt [LO HI]   (SLOW_NS: 350; TMASIM: build/rel/tmasim)"""
import collections
import os
import statistics
import sys

import fitlib

if len(sys.argv) < 2 or not sys.argv[1].endswith('.tmt') or not os.path.isfile(sys.argv[1]):
    fitlib.die(f"TRACE: {sys.argv[1] if len(sys.argv) > 1 else ''!r} (allowed: a .tmt file)")
args = sys.argv[2:4]
if args and (len(args) != 2 or not all(a.isdigit() for a in args) or int(args[0]) >= int(args[1])):
    fitlib.die(f'LO HI: {" ".join(args)!r} (allowed: two integers, LO < HI)')
lo, hi = (int(args[0]), int(args[1])) if args else (100, 250)
slow_ns = os.environ.get('SLOW_NS', '350')
if not slow_ns.isdigit():
    fitlib.die(f'SLOW_NS: {slow_ns!r} (allowed: an integer 0 or more)')
tmasim = os.environ.get('TMASIM', 'build/rel/tmasim')
CONSUMER, REMOTE = 1, 2   # trace role (sim/trace.h) and TRACE_FLAG_REMOTE

flight, release, sm = collections.defaultdict(list), collections.defaultdict(dict), {}
for e in fitlib.trace_events(tmasim, sys.argv[1], '/tmp/cta-flights.json'):
    a = e.get('args', {})
    if 'cta' not in a or 'iteration' not in a:
        continue
    if 'sm' in a:
        sm[a['cta']] = a['sm']
    if e.get('name') == 'tma_flight' and lo <= a['iteration'] < hi:
        flight[a['cta']].append(a['dur_ns'])
    if e.get('name') == 'release' and a.get('role') == CONSUMER and not a.get('flags', 0) & REMOTE:
        release[a['cta']][a['iteration']] = a['t_ns']
rows = []
for c, f in sorted(flight.items()):
    r = release[c]
    period = (r[hi] - r[lo]) / (hi - lo) if lo in r and hi in r else float('nan')
    rows.append((statistics.median(f), period, c, sm.get(c, -1)))
if not rows:
    fitlib.die(f'TRACE: no tma_flight events in iterations {lo}..{hi}')
print(f"{'cta':>5} {'sm':>4} {'flight ns':>10} {'period ns':>10}")
for f, p, c, s in rows:
    print(f'{c:5d} {s:4d} {f:10.0f} {p:10.0f}')
fl = [r[0] for r in rows]
pe = [r[1] for r in rows if r[1] == r[1]]
print(f'{len(rows)} CTAs: flight p10/p50/p90/max {fitlib.pct(fl, 10):.0f} / {fitlib.pct(fl, 50):.0f} / '
      f'{fitlib.pct(fl, 90):.0f} / {max(fl):.0f} ns; period p10/p50/p90/max {fitlib.pct(pe, 10):.0f} / '
      f'{fitlib.pct(pe, 50):.0f} / {fitlib.pct(pe, 90):.0f} / {max(pe):.0f} ns')
print(f'SMs with a flight over {slow_ns} ns: {sorted(s for f, _, _, s in rows if f > int(slow_ns))}')
