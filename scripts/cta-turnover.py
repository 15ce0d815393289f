#!/usr/bin/env python3
# A recording with every CTA traced (tmahw run --trace-ctas N): each CTA's span (first to last
# event) and SM, the slot turnover (a later CTA's first event less the latest end on its SM
# among the CTAs whose slot it may have taken), first-wave against later CTAs, and the copies'
# issue-to-seen times by time in the kernel; then the same of the simulator's trace.
#   python3 scripts/cta-turnover.py TRACE.tmt DESC.yaml [TMASIM] [GPU]
import os
import statistics as st
import subprocess
import sys
import tempfile

from fitlib import die, pct, trace_events


def ctas_of(ev):
    c = {}
    for e in ev:
        a = e.get('args', {})
        if e.get('ph') not in ('X', 'i') or a.get('role') == 'tma_unit':
            continue
        t0, t1 = a['t_ns'], a['t_ns'] + a.get('dur_ns', 0)
        if a['cta'] not in c:
            c[a['cta']] = [a['sm'], t0, t1]
        else:
            c[a['cta']][1] = min(c[a['cta']][1], t0)
            c[a['cta']][2] = max(c[a['cta']][2], t1)
    return c


def report(label, ev, per_sm):
    c = ctas_of(ev)
    by_sm = {}
    for sm, t0, t1 in c.values():
        by_sm.setdefault(sm, []).append((t0, t1))
    gaps, first, later = [], [], []
    for spans in by_sm.values():
        spans.sort()
        ends = []
        for i, (t0, t1) in enumerate(spans):
            (first if i < per_sm else later).append(t1 - t0)
            if i >= per_sm:
                done = [e for e in ends if e <= t0]
                if done:
                    ends.remove(max(done))
                    gaps.append(t0 - max(done))
            ends.append(t1)
    print(f'{label}: {len(c)} CTAs on {len(by_sm)} SMs; CTA span p50 first wave {st.median(first):.0f} ns, '
          f'later {st.median(later) if later else 0:.0f} ns; turnover p10/p50/p90 '
          + (f'{pct(gaps, 10):.0f}/{pct(gaps, 50):.0f}/{pct(gaps, 90):.0f} ns' if gaps else '-'))
    fl = [e['args'] for e in ev if e.get('ph') == 'X' and e.get('name') == 'tma_flight']
    end = max(v[2] for v in c.values())
    for b in range(4):
        d = [a['dur_ns'] for a in fl if b * end / 4 <= a['t_ns'] < (b + 1) * end / 4]
        if d:
            print(f'  copies issued in quarter {b + 1}: {len(d)}, issue to seen p50 {st.median(d):.0f} ns '
                  f'(p10 {pct(d, 10):.0f}, p90 {pct(d, 90):.0f})')


if len(sys.argv) < 3:
    die('usage: cta-turnover.py TRACE.tmt DESC.yaml [TMASIM] [GPU]')
tmt, desc = sys.argv[1], sys.argv[2]
tmasim = sys.argv[3] if len(sys.argv) > 3 else 'build/rel/tmasim'
gpu = sys.argv[4] if len(sys.argv) > 4 else 'h200'
per_sm = 1
for line in open(desc):
    if 'ctas_per_sm' in line:
        per_sm = int(line.split('ctas_per_sm:')[1].split('}')[0].split(',')[0])
report('recorded', trace_events(tmasim, tmt, tempfile.mktemp(suffix='.json')), per_sm)
sim_tmt = tempfile.mktemp(suffix='.tmt')
subprocess.run([tmasim, 'sim', desc, '--gpu', gpu, '-o', sim_tmt], check=True, capture_output=True)
report('simulated', trace_events(tmasim, sim_tmt, tempfile.mktemp(suffix='.json')), per_sm)
os.remove(sim_tmt)
