#!/usr/bin/env python3
# Instructions the generated kernels execute per event, measured with the Range Profiler's
# smsp__inst_executed over a recorded corpus's fit half: least squares of each kernel's count
# (relative to itself) on its events: consumer steps, shared-memory read instructions, FFMA,
# mma.sync, cp.async and st.async trips, producing steps' tensors, warps. Prints the issue
# slots sim/params.c takes from it (one instruction, one slot of its sub-partition).
#   python3 scripts/instr-counts.py [fit|test|all] [DIR...]
import json
import os
import sys

from fitlib import descriptions, die, field, half_arg, relative_fit, split_of


def read_words(text):
    """32-bit words a lane loads per read instruction: bytes_per_lane / 4 for rows and cols,
    ldmatrix .x4 (ldsm-a) 4 and .x2 (ldsm-b) 2; the generated read folds each word into its
    checksum with an integer multiply-add."""
    pat = field(text, r'pattern:\s*([\w-]+)', str, '')
    if pat in ('ldsm-a', 'ldsm-b'):
        return 4 if pat == 'ldsm-a' else 2
    return field(text, r'bytes_per_lane:\s*(\d+)', int, 16) // 4


half = half_arg()
dirs = sys.argv[2:] or ['traces/h200/corpus']
cols = ['step', 'group_step', 'read', 'read_word', 'ffma', 'mma', 'cp_trip', 'stas_trip', 'tensor', 'warp']
X, Y = [], []
for name, d in descriptions(dirs):
    cf = os.path.join(d, name + '.counters.json')
    if (half != 'all' and split_of(name) != half) or not os.path.exists(cf):
        continue
    c = json.load(open(cf))
    m, model = c['metrics'], c.get('model', {})
    if 'smsp__inst_executed.sum' not in m:
        continue
    t = open(os.path.join(d, name + '.yaml')).read()
    mode = field(t, r'^mode:\s*(\S+)', str)
    ctas, it = field(t, r'ctas:\s*(\d+)'), field(t, r'^iterations:\s*(\d+)')
    prod = field(t, r'producer:\s*(\d+)', int, 0)
    cons = field(t, r'consumer:\s*(\d+)\}', int, 0)
    kind, amount = field(t, r'kind:\s*(\w+)', str, 'none'), field(t, r'amount:\s*(\d+)', int, 0)
    tensors = t.count('- {name')
    reads = model.get('read_instructions_per_warp_stage', 0) if 'reads:' in t else 0
    words = read_words(t)
    chunks = model.get('copy_bytes_per_stage', 0) // 16
    cp = sum(((r + 1) * chunks // cons - r * chunks // cons + 31) // 32 for r in range(cons)) if mode == 'cp_async' else 0
    sa = (chunks + 31) // 32 if mode == 'st_async' else 0
    steps = ctas * cons * it
    g = 'cpasync:' in t
    X.append([0 if g else steps, steps if g else 0, steps * reads, steps * reads * words, steps * amount if kind == 'fma' else 0, steps * amount / 4096 if kind == 'mma' else 0,
              ctas * it * cp, ctas * prod * it * sa, ctas * it * tensors * (cons if mode == 'cp_async' else max(prod, 1)),
              ctas * (prod + cons)])
    Y.append(m['smsp__inst_executed.sum'])
if not Y:
    die('no recording of the kind measured in ' + ', '.join(dirs))
relative_fit(half, cols, X, Y, 10)
