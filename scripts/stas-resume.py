#!/usr/bin/env python3
# The generated st.async producer after a blocked wait for a free stage, from recorded traces:
# in the steps where the producer waited (its peer's consumers released the stage's previous
# use after the producer's last copy loop ended), the release (the consumer's record before
# its arrive on the producer's CTA) to the producer's next remote expect_tx, and that
# expect_tx to the start of its copy loop; beside them the same expect_tx in steps that did
# not wait. Each kernel's median (kernels with at least 4 waited steps), the median over
# kernels. The release reaches the producer's barrier dsmem_latency_ns after its record and
# wakes it wake_ns later: the rest is the producer's resume (stas_resume_ns).
#   python3 scripts/stas-resume.py [fit|test|all] [TMASIM] [DIR...]
# Descriptions named corpus_* or stas_* (traces/h200/probes/stas) are read.
import collections
import os
import sys
import tempfile

from fitlib import descriptions, die, field, half_arg, pct, trace_events

DSMEM_NS, WAKE_NS = 211.0, 29.85   # the H200's dsmem_latency_ns and wake_ns (sim/params.c)

half = half_arg()
tmasim = sys.argv[2] if len(sys.argv) > 2 else 'build/rel/tmasim'
dirs = sys.argv[3:] or ['traces/h200/corpus']

found = []
for name, d in descriptions(dirs, half=half) + descriptions(dirs, prefix='stas_', half=half):
    tmt = os.path.join(d, name + '.tmt')
    text = open(os.path.join(d, name + '.yaml')).read()
    if field(text, r'^mode:\s*(\S+)', str) != 'st_async' or not os.path.exists(tmt):
        continue
    stages = field(text, r'^stages:\s*(\d+)')
    ex, loop, rel = {}, {}, collections.defaultdict(int)
    for e in trace_events(tmasim, tmt, tempfile.mktemp(suffix='.json')):
        a = e.get('args', {})
        k = (a.get('cta'), a.get('iteration'))
        if e.get('name') == 'bar_expect_tx':
            ex[k] = a['t_ns']
        elif e.get('name') == 'tma_flight':
            loop[k] = (a['t_ns'], a['t_ns'] + a['dur_ns'])
        elif e.get('name') == 'release':
            rel[k] = max(rel[k], a['t_ns'])
    resume, expect_waited, expect_not = [], [], []
    for (cta, j), (_, end) in loop.items():
        nxt = (cta, j + 1)
        prev = (cta ^ 1, j + 1 - stages)   # the peer's consumers release this CTA's stages
        if nxt not in ex or nxt not in loop:
            continue
        if prev[1] >= 0 and rel.get(prev, 0) > end:
            resume.append(ex[nxt] - rel[prev])
            expect_waited.append(loop[nxt][0] - ex[nxt])
        else:
            expect_not.append(loop[nxt][0] - ex[nxt])
    if len(resume) >= 4:
        found.append((name, pct(resume, 50), pct(expect_waited, 50),
                      pct(expect_not, 50) if expect_not else None, field(text, r'ctas_per_sm:\s*(\d+)')))
if not found:
    die('no st_async trace with waited steps in ' + ', '.join(dirs))
for name, r, x, xn, cps in found:
    print(f'{name:18s} {cps:2d} CTAs/SM  release -> expect_tx {r:5.0f}  expect_tx -> loop {x:5.0f}'
          + (f' (not waited {xn:.0f})' if xn is not None else ''))
r = [f[1] for f in found]
x = [f[2] for f in found]
print(f'release -> expect_tx {pct(r, 50):.0f} [{min(r):.0f}..{max(r):.0f}], expect_tx -> loop {pct(x, 50):.0f} '
      f'[{min(x):.0f}..{max(x):.0f}], n {len(found)} kernels')
print(f'stas_resume_ns = {pct(r, 50) - DSMEM_NS - WAKE_NS:.0f}')
