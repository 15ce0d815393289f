#!/usr/bin/env python3
# Instructions the generated GEMM kernels (hw/gemm_kernel.cuh) execute, measured with the
# Range Profiler's smsp__inst_executed over a recorded wgmma corpus's half: least squares of
# each kernel's count (relative to itself) on its stages (the producer thread's loop), its
# consumer warps' stages, its consumer warps' tiles times N (the epilogue) and its CTAs.
# Prints the issue slots sim/params.c takes from it (gemm_produce_slots, gemm_consume_slots).
#   python3 scripts/gemm-instr.py [fit|test|all] [DIR...]
import json
import os
import sys

from fitlib import descriptions, die, field, half_arg, relative_fit

half = half_arg()
dirs = sys.argv[2:] or ['traces/h200/corpus-wgmma']
cols = ['stage', 'consumer warp stage', 'consumer warp tile column', 'cta']
X, Y = [], []
for name, d in descriptions(dirs, 'wgmma_', half):
    cf = os.path.join(d, name + '.counters.json')
    if not os.path.exists(cf):
        continue
    m = json.load(open(cf)).get('metrics', {})
    if 'smsp__inst_executed.sum' not in m:
        continue
    t = open(os.path.join(d, name + '.yaml')).read()
    gm, gn, gk = field(t, r'\{m:\s*(\d+)'), field(t, r'\bn:\s*(\d+)'), field(t, r'\bk:\s*(\d+)')
    groups, n = field(t, r'consumer:\s*(\d+)\}') // 4, field(t, r'shape:\s*m64n(\d+)')
    bk = 64 if field(t, r'math:.*dtype:\s*(\w+)', str) in ('bf16', 'f16') else 128
    tiles = (gm // (64 * groups)) * (gn // n)
    stages, warps = tiles * (gk // bk), 4 * groups
    X.append([stages, warps * stages, warps * tiles * n, field(t, r'ctas:\s*(\d+)')])
    Y.append(m['smsp__inst_executed.sum'])
if not Y:
    die('no GEMM recording with instruction counts in ' + ', '.join(dirs))
relative_fit(half, cols, X, Y, 26)
