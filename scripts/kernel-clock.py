#!/usr/bin/env python3
# The SM clock each recorded kernel ran at: the Range Profiler's sm__cycles_elapsed.max over
# the timed launches' median ns (NAME.json kernel_ns), by the description's math kind, over
# a recorded corpus (kernels of at least 100 us, where the launch's own start is small).
# The profiled launch and the timed ones are separate launches of the same kernel.
#   python3 scripts/kernel-clock.py [fit|test|all] [DIR...]
import json
import os
import sys

from fitlib import descriptions, die, field, half_arg, pct, split_of

half = half_arg()
dirs = sys.argv[2:] or ['traces/h200/corpus']
by = {}
for name, d in descriptions(dirs):
    cf, jf = os.path.join(d, name + '.counters.json'), os.path.join(d, name + '.json')
    if (half != 'all' and split_of(name) != half) or not os.path.exists(cf) or not os.path.exists(jf):
        continue
    cyc = json.load(open(cf))['metrics'].get('sm__cycles_elapsed.max')
    ns = json.load(open(jf)).get('kernel_ns')
    if not cyc or not ns or ns < 100000:
        continue
    kind = field(open(os.path.join(d, name + '.yaml')).read(), r'kind:\s*(\w+)', str, 'none')
    by.setdefault(kind, []).append(cyc / ns)
if not by:
    die('no recording with counters and a kernel time in ' + ', '.join(dirs))
print(f'{half} half: SM clock (GHz) by math kind, kernels of 100 us or more')
for k in sorted(by):
    v = by[k]
    print(f'  {k:5s} n {len(v):3d}  median {pct(v, 50):.3f}  p10 {pct(v, 10):.3f}  p90 {pct(v, 90):.3f}')
