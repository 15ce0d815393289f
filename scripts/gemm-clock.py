#!/usr/bin/env python3
# The SM clock the generated GEMM kernels (hw/gemm_kernel.cuh) run at, over a recorded wgmma
# corpus's half: the runner's own clock of each kernel (NAME.json sm_ghz: clock64 over
# globaltimer in its CTAs, the median over the timed launches), by operand type and over all;
# beside it the Range Profiler's sm__cycles_elapsed.max over the timed launches' median ns
# (kernels of 100 us or more, where the launch's own start is small; the profiled launch is
# a separate one). Prints the parameters sim/params.c takes from it (clock_gemm_ghz for
# 16-bit operands, clock_gemm_fp8_ghz for 8-bit ones).
#   python3 scripts/gemm-clock.py [fit|test|all] [DIR...]
import json
import os
import sys

from fitlib import descriptions, die, field, half_arg, pct

half = half_arg()
dirs = sys.argv[2:] or ['traces/h200/corpus-wgmma']
own, prof = {}, []
for name, d in descriptions(dirs, 'wgmma_', half):
    jf, cf = os.path.join(d, name + '.json'), os.path.join(d, name + '.counters.json')
    if not os.path.exists(jf):
        continue
    j = json.load(open(jf))
    if j.get('sm_ghz', 0) > 0:
        dtype = field(open(os.path.join(d, name + '.yaml')).read(), r'math:.*dtype:\s*(\w+)', str, '?')
        own.setdefault(dtype, []).append(j['sm_ghz'])
        own.setdefault('8-bit' if dtype in ('e4m3', 'e5m2') else '16-bit', []).append(j['sm_ghz'])
        own.setdefault('all', []).append(j['sm_ghz'])
    cyc = json.load(open(cf))['metrics'].get('sm__cycles_elapsed.max') if os.path.exists(cf) else None
    if cyc and j.get('kernel_ns', 0) >= 100000:
        prof.append(cyc / j['kernel_ns'])
if 'all' not in own:
    die('no GEMM recording with its clock in ' + ', '.join(dirs))
print(f'{half} half: the generated GEMMs\' SM clock (GHz), clock64 over globaltimer of their timed launches')
for k in sorted(own, key=lambda k: (k == 'all', '-' in k, k)):
    v = own[k]
    print(f'  {k:6s} n {len(v):3d}  median {pct(v, 50):.3f}  [{pct(v, 10):.3f}..{pct(v, 90):.3f}]')
if prof:
    print(f'  profiler cycles over the timed ns, kernels of 100 us or more: n {len(prof)}  median {pct(prof, 50):.3f}  '
          f'[{pct(prof, 10):.3f}..{pct(prof, 90):.3f}]')
for key, k in (('clock_gemm_ghz', '16-bit'), ('clock_gemm_fp8_ghz', '8-bit')):
    v = own.get(k)
    if v:
        print(f'{key:18s} = {pct(v, 50):.3f}   # GHz [{pct(v, 10):.3f}..{pct(v, 90):.3f}, n {len(v)} kernels of {k} operands]')
