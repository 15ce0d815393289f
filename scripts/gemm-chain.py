#!/usr/bin/env python3
# The GEMM producer chain (sim/pipe_warp.c gemm_step_floor: a CTA's stages of copies complete
# one after another, each gemm_step_ns plus its bytes at tma_bytes_per_ns_sm) against the
# kernel times of a recorded wgmma corpus's half. For every description whose ring holds 5
# or more stages (the loads' latency hidden behind the stages in flight), whose kernel runs
# 30 us or more and whose wgmma work per stage (its warpgroups' instructions at
# wgmma_copy_cycles_per_col and the kernel's own clock) is below four fifths of its time per
# stage: the busiest CTA's time per stage, (kernel_ns - kernel_overhead_ns) over its stages,
# which bounds the chain's step from above, beside the chain's step in the model; and, over
# every description with counters, the TMA bytes the SMs took in
# (l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld) per ns of the kernel: the GPU-wide
# rate its operand loads reached. Prints a measurement; sim/params.c takes nothing from it.
#   python3 scripts/gemm-chain.py [fit|test|all] [DIR...]
import json
import math
import os
import sys

from fitlib import descriptions, die, field, half_arg, pct

half = half_arg()
dirs = sys.argv[2:] or ['traces/h200/corpus-wgmma']
# sim/params.c, the h200 set
KERNEL_OVERHEAD_NS, COPY_CYCLES_PER_COL, STEP_NS, TMA_BYTES_PER_NS = 639, 0.5469, 209, 189
rows, agg = [], []
for name, d in descriptions(dirs, 'wgmma_', half):
    jf, cf = os.path.join(d, name + '.json'), os.path.join(d, name + '.counters.json')
    if not os.path.exists(jf):
        continue
    j, t = json.load(open(jf)), open(os.path.join(d, name + '.yaml')).read()
    gm, gn, gk = field(t, r'\{m:\s*(\d+)'), field(t, r'\bn:\s*(\d+)'), field(t, r'\bk:\s*(\d+)')
    groups, n = field(t, r'consumer:\s*(\d+)\}') // 4, field(t, r'shape:\s*m64n(\d+)')
    bk = 64 if field(t, r'math:.*dtype:\s*(\w+)', str) in ('bf16', 'f16') else 128
    ctas, cluster = field(t, r'ctas:\s*(\d+)'), field(t, r'cluster:\s*\{size:\s*(\d+)', int, 1)
    stages = math.ceil((gm // (64 * groups)) * (gn // n) / ctas) * (gk // bk)
    per_stage = (j['kernel_ns'] - KERNEL_OVERHEAD_NS) / stages
    wgmma_ns = groups * 4 * n * COPY_CYCLES_PER_COL / j['sm_ghz']
    b = 64 * groups * 128 + n * 128 / cluster
    if field(t, r'^stages:\s*(\d+)') >= 5 and j['kernel_ns'] >= 30000 and wgmma_ns < 0.8 * per_stage:
        rows.append((name, b, per_stage, STEP_NS + b / TMA_BYTES_PER_NS))
    m = json.load(open(cf)).get('metrics', {}) if os.path.exists(cf) else {}
    tma = m.get('l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum')
    if tma:
        agg.append((tma / (j['kernel_ns'] - KERNEL_OVERHEAD_NS), name, cluster > 1))
if not rows and not agg:
    die('no GEMM recording in ' + ', '.join(dirs))
print(f'{half} half: time per stage where the loads bind (ring of 5+ stages, 30 us or more, wgmma below 4/5)')
print(f'  {"name":18s} {"KiB/stage":>9s} {"ns/stage":>8s} {"B/ns/SM":>7s} {"model chain ns":>14s}')
for name, b, ns, chain in sorted(rows, key=lambda r: r[1]):
    print(f'  {name:18s} {b / 1024:9.1f} {ns:8.0f} {b / ns:7.1f} {chain:14.0f}{"  chain above the kernel" if chain > ns else ""}')
if rows:
    rates = [b / ns for _, b, ns, _ in rows]
    above = sum(1 for _, _, ns, chain in rows if chain > ns)
    print(f'  bytes per ns per SM: median {pct(rates, 50):.1f} [{pct(rates, 10):.1f}..{pct(rates, 90):.1f}], '
          f'most {max(rates):.1f}; the model\'s chain step exceeds the measured time per stage in {above} of {len(rows)}')
if agg:
    plain = [a for a, _, mc in agg if not mc]
    top = max(agg)
    print(f'TMA bytes the SMs took in per ns of the kernel, {len(agg)} kernels: median {pct([a for a, _, _ in agg], 50):.0f}, '
          f'most {top[0]:.0f} B/ns ({top[1]}{", multicast" if top[2] else ""})' +
          (f'; without multicast most {max(plain):.0f} B/ns' if plain else ''))
