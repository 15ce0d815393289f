#!/usr/bin/env python3
# The generated GEMM producer's time per stage when nothing holds it back, measured from the
# recorded traces of a wgmma corpus's half: for every description without clusters (a
# multicast producer's loads wait on its peer) whose trace is kept, the time from one stage's
# first load to the next stage's in the steps where the producer did not wait on its empty
# barrier (one thread's expect_tx and two TMA loads, hw/gemm_kernel.cuh gm_producer), each
# kernel's median (kernels with at least 2 such steps), the median over kernels, and the
# least-squares line of those medians over the stage's bytes (does it grow with them?).
# Prints the parameter sim/params.c takes from it (gemm_step_ns).
#   python3 scripts/gemm-stage.py [fit|test|all] [TMASIM] [DIR...]
import os
import sys
import tempfile

from fitlib import descriptions, die, field, half_arg, lstsq, pct, trace_events

half = half_arg()
tmasim = sys.argv[2] if len(sys.argv) > 2 else 'build/rel/tmasim'
dirs = sys.argv[3:] or ['traces/h200/corpus-wgmma']


def intervals(ev):
    """First load of stage j to first load of stage j + 1, where the producer did not wait
    before j + 1; and the stage's bytes."""
    load, waited, nbytes = {}, set(), {}
    for e in ev:
        a = e.get('args', {})
        if a.get('cta') != 0:
            continue
        j = a['iteration']
        if e.get('name') == 'tma_issue':
            load[j] = min(load.get(j, a['t_ns']), a['t_ns'])
            nbytes[j] = nbytes.get(j, 0) + a['bytes']
        elif e.get('name') == 'wait' and a.get('role') == 0:
            waited.add(j)
    steps = [load[j] - load[j - 1] for j in sorted(load) if j - 1 in load and j not in waited]
    return steps, max(nbytes.values()) if nbytes else 0


per = []
for name, d in descriptions(dirs, 'wgmma_', half):
    tmt = os.path.join(d, name + '.tmt')
    text = open(os.path.join(d, name + '.yaml')).read()
    if not os.path.exists(tmt) or field(text, r'cluster:\s*\{size:\s*(\d+)', int, 1) > 1:
        continue
    steps, nbytes = intervals(trace_events(tmasim, tmt, tempfile.mktemp(suffix='.json')))
    if len(steps) >= 2:
        per.append((pct(steps, 50), name, len(steps), nbytes))
if not per:
    die('no traced description without clusters whose producer ran 2 steps unheld in ' + ', '.join(dirs))
print(f'{half} half: the GEMM producer\'s time per stage when it did not wait (ns)')
for v, name, n, b in sorted(per):
    print(f'  {name:18s} {v:6.0f}  ({n} steps, stages of {b / 1024:.0f} KiB)')
v = [x for x, _, _, _ in per]
c = lstsq([[1.0, b / 1024] for _, _, _, b in per], v)
print(f'  median over {len(v)} kernels {pct(v, 50):.0f} [{pct(v, 10):.0f}..{pct(v, 90):.0f} p10..p90]; '
      f'over the stage\'s bytes: {c[0]:.0f} ns + {c[1]:.2f} ns per KiB')
print(f'gemm_step_ns = {pct(v, 50):.0f}   # ns: a stage\'s time on the producer\'s chain, whatever its bytes')
