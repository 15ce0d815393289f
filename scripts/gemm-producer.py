#!/usr/bin/env python3
# The generated GEMM producer's resume after a wait on its empty barrier (hw/gemm_kernel.cuh
# gm_producer: one thread's loop of try_wait on the stage's empty barrier, expect_tx, two TMA
# loads), measured from the recorded traces of a wgmma corpus's half: for every description
# without clusters (a multicast producer waits for its peer's releases too, which the other
# CTA records) whose trace is kept, in each step where the producer waited (it records its
# wait only when the first try_wait fails), the time from the consumers' last recorded
# release of the stage's previous use to the producer's next load (its clock read before
# the expect_tx): each kernel's median over its steps (kernels with at least 4), the median
# over kernels. Prints the parameter sim/params.c takes from it (gemm_produce_resume_ns:
# that hand-off less wake_ns, 29.85 ns, which the simulator charges every woken waiter).
#   python3 scripts/gemm-producer.py [fit|test|all] [TMASIM] [DIR...]
import os
import sys
import tempfile

from fitlib import descriptions, die, field, half_arg, pct, trace_events

half = half_arg()
tmasim = sys.argv[2] if len(sys.argv) > 2 else 'build/rel/tmasim'
dirs = sys.argv[3:] or ['traces/h200/corpus-wgmma']
WAKE_NS = 29.85   # sim/params.c wake_ns


def handoffs(ev, stages):
    """Release (last of the stage's previous use) to the load, in the producer's waited steps."""
    rel, load, waited = {}, {}, set()
    for e in ev:
        a = e.get('args', {})
        if a.get('cta') != 0:
            continue
        j = a['iteration']
        if e.get('name') == 'release':
            rel[j] = max(rel.get(j, 0), a['t_ns'])
        elif e.get('name') == 'tma_issue':
            load[j] = min(load.get(j, a['t_ns']), a['t_ns'])
        elif e.get('name') == 'wait' and a.get('role') == 0:
            waited.add(j)
    return [load[j] - rel[j - stages] for j in sorted(waited)
            if j in load and j - stages in rel and load[j] >= rel[j - stages]]


per = []
for name, d in descriptions(dirs, 'wgmma_', half):
    tmt = os.path.join(d, name + '.tmt')
    text = open(os.path.join(d, name + '.yaml')).read()
    if not os.path.exists(tmt) or field(text, r'cluster:\s*\{size:\s*(\d+)', int, 1) > 1:
        continue
    h = handoffs(trace_events(tmasim, tmt, tempfile.mktemp(suffix='.json')), field(text, r'^stages:\s*(\d+)'))
    if len(h) >= 4:
        per.append((pct(h, 50), name, len(h)))
if not per:
    die('no traced description without clusters whose producer waited 4 times in ' + ', '.join(dirs))
print(f'{half} half: the GEMM producer\'s release-to-load hand-off after a wait (ns)')
for v, name, n in sorted(per):
    print(f'  {name:18s} {v:6.0f}  ({n} steps)')
v = [x for x, _, _ in per]
print(f'  median over {len(v)} kernels {pct(v, 50):.0f} [{pct(v, 10):.0f}..{pct(v, 90):.0f} p10..p90]')
print(f'gemm_produce_resume_ns = {pct(v, 50) - WAKE_NS:.0f}   # ns: the hand-off less wake_ns')
