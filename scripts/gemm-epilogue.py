#!/usr/bin/env python3
# The direct epilogue of the generated GEMM kernels (hw/gemm_kernel.cuh gm_epilogue without
# GM_EPI_TMA: each consumer warp stores its accumulators to C with st.global.b32, a warp's
# instruction writing 16 bytes to each of 8 rows), measured from the recorded traces of a wgmma
# corpus's half: for every description with epilogue: direct whose trace is kept, per output
# tile of the traced CTA the span from the first of its warpgroups' epilogue events to the
# end of the last (the warps are held at the stores once the store path is full), the median
# over its tiles, against the bytes the CTA's warpgroups store (64 x N x 2 each) and the CTAs
# of the grid that store theirs at about the same time (those with a tile in the first
# round: the lesser of the grid and the tiles). Least squares, without intercept, of the span
# on the CTAs' bytes and on the CTAs: the GPU's rate for these stores and the bytes each CTA
# stores before its warps wait. Prints the parameters sim/params.c takes from it
# (gemm_store_bytes_per_ns, gemm_store_queue_bytes).
#   python3 scripts/gemm-epilogue.py [fit|test|all] [TMASIM] [DIR...]
import os
import sys
import tempfile

from fitlib import descriptions, die, field, half_arg, lstsq, pct, trace_events

half = half_arg()
tmasim = sys.argv[2] if len(sys.argv) > 2 else 'build/rel/tmasim'
dirs = sys.argv[3:] or ['traces/h200/corpus-wgmma']


def spans(ev):
    """The traced CTA's epilogue span per tile (ns): first start to last end over its warpgroups."""
    tiles = {}
    for e in ev:
        if e.get('name') != 'tma_store' or e.get('ph') != 'X':
            continue
        a = e['args']
        lo, hi = tiles.get(a['iteration'], (a['t_ns'], a['t_ns'] + a['dur_ns']))
        tiles[a['iteration']] = (min(lo, a['t_ns']), max(hi, a['t_ns'] + a['dur_ns']))
    return [hi - lo for lo, hi in tiles.values()]


rows = []
for name, d in descriptions(dirs, 'wgmma_', half):
    tmt = os.path.join(d, name + '.tmt')
    text = open(os.path.join(d, name + '.yaml')).read()
    if not os.path.exists(tmt) or field(text, r'epilogue:\s*(\w+)', str) != 'direct':
        continue
    groups, n = field(text, r'consumer:\s*(\d+)\}') // 4, field(text, r'shape:\s*m64n(\d+)')
    gm, gn = field(text, r'\{m:\s*(\d+)'), field(text, r'\bn:\s*(\d+)')
    active = min(field(text, r'ctas:\s*(\d+)'), (gm // (64 * groups)) * (gn // n))
    s = spans(trace_events(tmasim, tmt, tempfile.mktemp(suffix='.json')))
    if s:
        rows.append((name, groups * 64 * n * 2, active, pct(s, 50), len(s)))
if len(rows) < 3:
    die('fewer than 3 traced descriptions with epilogue: direct in ' + ', '.join(dirs))
print(f'{half} half: the direct epilogue, span of the traced CTA\'s warpgroups per tile')
print(f'  {"name":18s} {"bytes/CTA":>9s} {"CTAs":>5s} {"span ns":>8s} {"tiles":>5s} {"GPU B/ns":>8s}')
for name, b, act, sp, k in sorted(rows, key=lambda r: (r[1], r[2])):
    print(f'  {name:18s} {b:9d} {act:5d} {sp:8.0f} {k:5d} {act * b / sp:8.0f}')
per_byte, per_cta = lstsq([[act * b, act] for _, b, act, _, _ in rows], [sp for _, _, _, sp, _ in rows])
rate, queue = 1 / per_byte, -per_cta / per_byte
res = [sp - (per_byte * act * b + per_cta * act) for _, b, act, sp, _ in rows]
print(f'  least squares over {len(rows)} kernels: span = CTAs x (bytes - {queue:.0f}) / {rate:.0f} B/ns '
      f'(residual p10..p90 {pct(res, 10):+.0f}..{pct(res, 90):+.0f} ns)')
print(f'gemm_store_bytes_per_ns = {rate:.0f}   # B/ns, the GPU: one over the bytes\' coefficient')
print(f'gemm_store_queue_bytes  = {queue:.0f}   # bytes a CTA stores before its warps wait')
