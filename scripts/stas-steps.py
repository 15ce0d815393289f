#!/usr/bin/env python3
# The generated st.async producer's step outside its copy loop, measured from the recorded
# traces of a corpus's fit half: for every st_async description at one CTA per SM whose trace
# is kept, the producer warp's time from the end of one stage's copy loop (its tma_flight
# event's end) to the next stage's remote arrive.expect_tx (T: the event's record, the loop,
# the probe of the next stage's empty barrier), counting only the steps whose stage the
# consumers had released (their last release of its previous use) before that loop ended:
# the producer did not wait for them. Each kernel's median (kernels with at least 4 such
# steps), then the median over kernels. Prints the parameter sim/params.c takes from it.
#   python3 scripts/stas-steps.py [fit|test|all] [TMASIM] [DIR...]
import os
import sys
import tempfile

from fitlib import descriptions, die, field, half_arg, pct, split_of, trace_events

half = half_arg()
tmasim = sys.argv[2] if len(sys.argv) > 2 else 'build/rel/tmasim'
dirs = sys.argv[3:] or ['traces/h200/corpus']

per_kernel = []
for name, d in descriptions(dirs):
    tmt = os.path.join(d, name + '.tmt')
    if (half != 'all' and split_of(name) != half) or not os.path.exists(tmt):
        continue
    text = open(os.path.join(d, name + '.yaml')).read()
    if field(text, r'^mode:\s*(\S+)', str) != 'st_async' or field(text, r'ctas_per_sm:\s*(\d+)') != 1:
        continue
    stages = field(text, r'^stages:\s*(\d+)')
    ev = trace_events(tmasim, tmt, tempfile.mktemp(suffix='.json'))
    ends, starts, freed = {}, {}, {}
    for e in ev:
        a = e.get('args', {})
        if e.get('name') == 'tma_flight':
            ends[(a['cta'], a['iteration'])] = a['t_ns'] + a['dur_ns']
        elif e.get('name') == 'bar_expect_tx':
            starts[(a['cta'], a['iteration'])] = a['t_ns']
        elif e.get('name') == 'release':
            k = (a['cta'], a['iteration'])
            freed[k] = max(freed.get(k, 0), a['t_ns'])
    tails = []
    for (cta, j), end in ends.items():
        nxt = starts.get((cta, j + 1))
        prev = j + 1 - stages
        if nxt is None or nxt < end:
            continue
        if prev >= 0 and freed.get((cta, prev), end + 1) > end:
            continue
        tails.append(nxt - end)
    if len(tails) >= 4:
        per_kernel.append((pct(tails, 50), name))
if not per_kernel:
    die('no recording of the kind measured in ' + ', '.join(dirs))
v = [t for t, _ in per_kernel]
print(f'{len(v)} kernels: ' + ', '.join(f'{n[-4:]} {t:.0f}' for t, n in sorted(per_kernel, key=lambda x: x[1])))
print(f'stas_tail_ns = {pct(v, 50):.0f}   # [{min(v):.0f}..{max(v):.0f}, n {len(v)} kernels]')
