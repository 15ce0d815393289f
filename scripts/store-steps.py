#!/usr/bin/env python3
# The generated consumer's TMA store step, measured from the recorded traces of a corpus's
# half: for every description with a store whose trace is kept, the tma_store events of the
# traced CTA (hw/run_kernel.cuh consume: fence.proxy.async, the bulk tensor store, commit,
# wait_group.read 0, __syncwarp: the warp's time until the box has been read out of shared
# memory), each kernel's median, against the box's bytes. Least squares of
# span = fixed + bytes / rate over the kernels at one or two CTAs per SM (where no other
# CTA's stores share the SM's TMA unit), stores and reductions apart.
#   python3 scripts/store-steps.py [fit|test|all] [TMASIM] [DIR...]
import os
import re
import sys
import tempfile

from fitlib import descriptions, half_arg, lstsq, pct, trace_events

half = half_arg()
tmasim = sys.argv[2] if len(sys.argv) > 2 else 'build/rel/tmasim'
dirs = sys.argv[3:] or ['traces/h200/corpus']

pts = {False: [], True: []}
for name, d in descriptions(dirs, half=half):
    tmt = os.path.join(d, name + '.tmt')
    if not os.path.exists(tmt):
        continue
    y = open(os.path.join(d, name + '.yaml')).read()
    m = re.search(r'^store: \{bytes: (\d+)', y, re.M)
    cps = re.search(r'ctas_per_sm: (\d+)', y)
    if not m or not cps:
        continue
    reduce = 'reduce:' in y.split('store:')[1].splitlines()[0]
    spans = [e['args']['dur_ns'] for e in trace_events(tmasim, tmt, tempfile.mktemp(suffix='.json'))
             if e.get('ph') == 'X' and e['name'].startswith('tma_store')]
    if not spans:
        continue
    b, c, p50 = int(m.group(1)), int(cps.group(1)), pct(spans, 50)
    print(f'{name} {"reduce" if reduce else "store "} {b:6d} B  {c:2d} CTAs/SM  {len(spans):3d} stores  median {p50:6.1f} ns')
    if c <= 2:
        pts[reduce].append((b, p50))
for reduce, p in pts.items():
    kind = 'reductions' if reduce else 'stores'
    if len(p) < 3:
        print(f'{half} half {kind}: {len(p)} kernels, too few to fit')
        continue
    fixed, per_byte = lstsq([[1.0, b] for b, _ in p], [t for _, t in p])
    res = [t - fixed - per_byte * b for b, t in p]
    print(f'{half} half {kind}: {len(p)} kernels at 1-2 CTAs per SM: fixed {fixed:.1f} ns + bytes / '
          f'{1 / per_byte:.1f} B/ns (residuals {min(res):+.0f} .. {max(res):+.0f} ns)')
