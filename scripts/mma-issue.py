#!/usr/bin/env python3
# Whether a sub-partition issues its other instructions while its tensor pipe runs mma.sync,
# from the Range Profiler's counters of a recorded corpus: over the mma.sync kernels whose
# tensor pipes were active at least 15% of their cycles and whose sub-partitions were busy
# (not_selected plus math_pipe_throttle stalls at least half the issues), least squares of
#   smsp__cycles_active = c_tensor * sm__pipe_tensor_op_hmma_cycles_active
#                         + c_other * (smsp__inst_executed - mma.sync)
# per kernel (relative to its cycles). c_tensor near 1 with c_other near the issue cost of an
# instruction means the two add up: an mma.sync holds its sub-partition for its pipe time.
#   python3 scripts/mma-issue.py [fit|test|all] [DIR...]
import json
import os
import sys

from fitlib import descriptions, die, field, half_arg, lstsq, pct, split_of

half = half_arg()
dirs = sys.argv[2:] or ['traces/h200/corpus']
X, rows = [], []
for name, d in descriptions(dirs):
    cf = os.path.join(d, name + '.counters.json')
    if (half != 'all' and split_of(name) != half) or not os.path.exists(cf):
        continue
    m = json.load(open(cf))['metrics']
    need = ('smsp__cycles_active.sum', 'smsp__inst_executed.sum', 'sm__pipe_tensor_op_hmma_cycles_active.sum')
    if any(k not in m for k in need):
        continue
    t = open(os.path.join(d, name + '.yaml')).read()
    if field(t, r'kind:\s*(\w+)', str, 'none') != 'mma':
        continue
    ctas, it = field(t, r'ctas:\s*(\d+)'), field(t, r'^iterations:\s*(\d+)')
    cons = field(t, r'^warps:.*consumer:\s*(\d+)', int, 0)
    mma = ctas * cons * it * field(t, r'amount:\s*(\d+)', int, 0) / 4096
    cyc, tensor = m['smsp__cycles_active.sum'], m['sm__pipe_tensor_op_hmma_cycles_active.sum']
    busy = m['smsp__warps_issue_stalled_not_selected.sum'] + m['smsp__warps_issue_stalled_math_pipe_throttle.sum']
    if tensor < 0.15 * cyc or busy < 0.5 * m['smsp__warps_issue_stalled_selected.sum']:
        continue
    X.append([tensor / cyc, (m['smsp__inst_executed.sum'] - mma) / cyc])
    rows.append(name)
if len(X) < 3:
    die('fewer than 3 busy mma.sync kernels with counters in ' + ', '.join(dirs))
c_tensor, c_other = lstsq(X, [1.0] * len(X))
res = [c_tensor * a + c_other * b - 1 for a, b in X]
print(f'{half} half: {len(X)} busy mma.sync kernels')
print(f'  cycles per tensor-pipe active cycle   {c_tensor:6.3f}')
print(f'  cycles per other instruction          {c_other:6.3f}')
print(f'  each kernel\'s cycles within {100 * pct(res, 10):+.0f}% .. {100 * pct(res, 90):+.0f}% (p10 .. p90)')
share = sorted(a for a, _ in X)
print(f'  tensor pipe active {100 * share[0]:.0f}% .. {100 * share[-1]:.0f}% of the cycles; the two terms together '
      f'{100 * pct([a + b * c_other for a, b in X], 10):.0f}% .. {100 * pct([a + b * c_other for a, b in X], 90):.0f}% '
      f'(p10 .. p90) of them')
