#!/usr/bin/env python3
# How many cycles a busy sub-partition spends per instruction of the generated kernels, from
# the Range Profiler's counters of a recorded corpus: over the kernels whose sub-partitions
# always had another warp ready (smsp__warps_issue_stalled_not_selected at least 1.5 per
# issue) and little mma.sync (at most 3% of the instructions), least squares of
#   smsp__cycles_active = c_ffma * FFMA + c_other * (smsp__inst_executed - FFMA)
# per kernel (relative to its cycles). FFMA: the description's math amount per consumer step.
# c_other is the simulator's int_issue_cycles; c_ffma checks against `tmahw calibrate`'s
# ffma_cycles.
#   python3 scripts/issue-rate.py [fit|test|all] [DIR...]
import json
import os
import sys

from fitlib import descriptions, die, field, half_arg, lstsq, pct, split_of

half = half_arg()
dirs = sys.argv[2:] or ['traces/h200/corpus']
X, only_int = [], []
for name, d in descriptions(dirs):
    cf = os.path.join(d, name + '.counters.json')
    if (half != 'all' and split_of(name) != half) or not os.path.exists(cf):
        continue
    m = json.load(open(cf))['metrics']
    if 'smsp__inst_executed.sum' not in m or 'smsp__cycles_active.sum' not in m:
        continue
    if m['smsp__warps_issue_stalled_not_selected.sum'] < 1.5 * m['smsp__warps_issue_stalled_selected.sum']:
        continue
    t = open(os.path.join(d, name + '.yaml')).read()
    ctas, it = field(t, r'ctas:\s*(\d+)'), field(t, r'^iterations:\s*(\d+)')
    cons = field(t, r'^warps:.*consumer:\s*(\d+)', int, 0)
    kind, amount = field(t, r'kind:\s*(\w+)', str, 'none'), field(t, r'amount:\s*(\d+)', int, 0)
    steps, total = ctas * cons * it, m['smsp__inst_executed.sum']
    if kind == 'mma' and steps * amount / 4096 > 0.03 * total:
        continue
    ffma = steps * amount if kind == 'fma' else 0
    cyc = m['smsp__cycles_active.sum']
    X.append([ffma / cyc, (total - ffma) / cyc])
    if ffma < 0.05 * total:
        only_int.append(cyc / total)
if len(X) < 3:
    die('fewer than 3 busy kernels with counters in ' + ', '.join(dirs))
c_ffma, c_other = lstsq(X, [1.0] * len(X))
res = [c_ffma * a + c_other * b - 1 for a, b in X]
print(f'{half} half: {len(X)} kernels whose sub-partitions always had another warp ready')
print(f'  cycles per FFMA                {c_ffma:6.3f}')
print(f'  cycles per other instruction   {c_other:6.3f}')
print(f'  each kernel\'s cycles within {100 * pct(res, 10):+.0f}% .. {100 * pct(res, 90):+.0f}% (p10 .. p90)')
if only_int:
    print(f'  kernels with no FFMA to speak of: {len(only_int)}, cycles per instruction '
          f'{pct(only_int, 10):.2f} .. {pct(only_int, 90):.2f} (p10 .. p90)')
