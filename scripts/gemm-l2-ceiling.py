#!/usr/bin/env python3
# The GPU-wide rate at which the generated GEMM kernels' SMs take in their operand loads from
# L2, measured on a recorded wgmma corpus's half: for each kernel without multicast (a
# multicast load is read from L2 once and taken in by every CTA of the cluster), its TMA
# bytes read into the SMs (l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum of its
# Range Profiler launch, NAME.counters.json) over its CUPTI time (NAME.json kernel_ns).
# Prints every kernel's rate, highest first, and the highest (the ceiling the kernels reach:
# sim/params.c gemm_l2_bytes_per_ns).
#   python3 scripts/gemm-l2-ceiling.py [fit|test|all] [DIR...]
import json
import os
import sys

from fitlib import descriptions, die, half_arg, pct

half = half_arg()
dirs = sys.argv[2:] or ['traces/h200/corpus-wgmma']
KEY = 'l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum'
out = []
for name, d in descriptions(dirs, 'wgmma_', half, '.counters.json'):
    rep = json.load(open(os.path.join(d, name + '.json')))
    if 'multicast: true' in open(os.path.join(d, name + '.yaml')).read():
        continue
    b = json.load(open(os.path.join(d, name + '.counters.json'))).get('metrics', {}).get(KEY, -1)
    if b > 0 and rep.get('kernel_ns', 0) > 0:
        out.append((b / rep['kernel_ns'], name, b, rep['kernel_ns']))
if not out:
    die('no recording with ' + KEY + ' in ' + ', '.join(dirs))
print(f'{half} half, without multicast: TMA bytes into the SMs over the kernel time (B/ns, the whole GPU)')
for r, name, b, k in sorted(out, reverse=True):
    print(f'  {name:18s} {r:7.0f}  ({b / 2**20:8.1f} MiB in {k / 1e3:8.1f} us)')
v = [x for x, _, _, _ in out]
print(f'  {len(v)} kernels: highest {max(v):.0f}, p90 {pct(v, 90):.0f}, median {pct(v, 50):.0f}')
print(f'gemm_l2_bytes_per_ns = {max(v):.0f}   # B/ns: the highest rate the kernels reach')
