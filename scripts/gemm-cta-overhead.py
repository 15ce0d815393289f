#!/usr/bin/env python3
# A GEMM CTA's time outside what the simulator runs of it, measured on a recorded wgmma
# corpus's half without the recording's stretch: the GEMM report of `tmahw run` holds, over
# the same launches CUPTI timed (kernel_ns), the median of the first CTA start to the last
# CTA end on globaltimer (ctas_span_ns; each CTA's start is read after its barriers' set-up,
# hw/gemm_kernel.cuh). The kernel's time less that span less the launch's own overhead
# (sim/params.c kernel_overhead_ns, measured on CTAs that read globaltimer first) is the
# CTAs' set-up before their start mark, which the simulator charges as cta_overhead_ns.
# Prints each kernel's value, the median over kernels and the median CTA's time beside it.
#   python3 scripts/gemm-cta-overhead.py [fit|test|all] [KERNEL_OVERHEAD_NS] [DIR...]
import json
import os
import sys

from fitlib import descriptions, die, half_arg, pct

half = half_arg()
try:
    launch_ns = float(sys.argv[2]) if len(sys.argv) > 2 else 639.0   # sim/params.c, h200 kernel_overhead_ns
except ValueError:
    die(f'KERNEL_OVERHEAD_NS: {sys.argv[2]!r} is not a number')
dirs = sys.argv[3:] or ['traces/h200/corpus-wgmma']
out = []
for name, d in descriptions(dirs, 'wgmma_', half, '.json'):
    rep = json.load(open(os.path.join(d, name + '.json')))
    if rep.get('ctas_span_ns', 0) > 0 and rep.get('kernel_timing') == 'cupti':
        out.append((rep['kernel_ns'] - rep['ctas_span_ns'] - launch_ns, name, rep['kernel_ns'],
                    rep['cta_ns_p50']))
if not out:
    die('no GEMM report with ctas_span_ns (tmahw run from this commit on, CUPTI timing) in ' + ', '.join(dirs))
print(f'{half} half: kernel_ns - ctas_span_ns - {launch_ns:.0f} ns (the launch) per kernel')
for v, name, k, c in sorted(out):
    print(f'  {name:18s} {v:7.0f}  (kernel {k / 1e3:8.1f} us, median CTA {c / 1e3:8.1f} us)')
v = [x for x, _, _, _ in out]
print(f'  median over {len(v)} kernels {pct(v, 50):.0f} [{pct(v, 10):.0f}..{pct(v, 90):.0f} p10..p90]')
print(f'gemm cta_overhead_ns = {pct(v, 50):.0f}   # ns')
