#!/usr/bin/env python3
# How often the generated st.async loop's chunk table misses L1, from the counters of a
# corpus's half. The producer warp reads a 16-byte table entry per 16-byte chunk (a stage's
# bytes of table, hw/run_kernel.cuh MODE 3) with ld.global.nc, then the chunk with ld.global:
# both allocate in L1, so the stage's data lines stream through L1 between two uses of a
# table line. L2 reads by the SMs (lts__t_sectors_srcunit_tex_op_read) beyond the data's
# sectors are the table entries that missed: miss = (reads - data sectors) / table bytes.
# Model: a table line survives the allocations between two of its uses with probability
# exp(-D / C), D = the stage's table bytes plus its data's L1 lines (the SM's other producers
# read the same table, so their data does not lengthen a line's reuse distance beyond one
# stage's); C is fitted by least squares over the kernels whose data L2 serves (reads at
# least 0.9 of the data sectors: where L1 serves the data the excess is not the table's).
#   python3 scripts/stas-table.py [fit|test|all] [DIR...]
import json
import math
import os
import re
import sys

from fitlib import DTYPE_BYTES as SIZE, descriptions, die, field, half_arg, pct

half = half_arg()
dirs = sys.argv[2:] or ['traces/h200/corpus']


def tensors(text):
    """(row bytes, rows, pitch bytes) of each tensor's box (2-D boxes, dimension 0 fastest)."""
    out = []
    for m in re.finditer(r'dtype:\s*(\w+),\s*dims:\s*\[(\d+),\s*\d+\],\s*box:\s*\[(\d+),\s*(\d+)\]', text):
        size = SIZE.get(m.group(1))
        if size is None:
            die(f'dtype {m.group(1)!r} (allowed {", ".join(SIZE)})')
        out.append((int(m.group(3)) * size, int(m.group(4)), int(m.group(2)) * size))
    return out


rows = []
for name, d in descriptions(dirs, half=half):
    text = open(os.path.join(d, name + '.yaml')).read()
    cpath = os.path.join(d, name + '.counters.json')
    if field(text, r'^mode:\s*(\S+)', str) != 'st_async' or not os.path.exists(cpath):
        continue
    c = json.load(open(cpath))
    stage = c['model']['copy_bytes_per_stage']
    steps = field(text, r'ctas:\s*(\d+)') * field(text, r'^iterations:\s*(\d+)')
    sectors = lines = 0
    for row, n, pitch in tensors(text):
        sectors += n * math.ceil(row / 32) * 32
        lines += math.ceil(row * n / 128) * 128 if pitch == row else n * math.ceil(row / 128) * 128
    reads = c['metrics']['lts__t_sectors_srcunit_tex_op_read.sum'] * 32 / steps
    if reads < 0.9 * sectors:
        continue
    miss = (reads - sectors) / stage
    rows.append((name, stage + lines, max(0.0, min(1.0, miss))))
if len(rows) < 3:
    die('fewer than 3 st_async recordings with counters whose data L2 serves in ' + ', '.join(dirs))


def sse(cap):
    return sum((m - (1 - math.exp(-dist / cap))) ** 2 for _, dist, m in rows)


cap = min((1024 * k for k in range(8, 513)), key=sse)
res = [m - (1 - math.exp(-dist / cap)) for _, dist, m in rows]
for name, dist, m in sorted(rows, key=lambda r: r[1]):
    print(f'{name}  D {dist / 1024:6.1f} KiB  miss {m:5.2f}  model {1 - math.exp(-dist / cap):5.2f}')
print(f'{half} half, {len(rows)} kernels: residuals {pct(res, 10):+.2f} .. {pct(res, 90):+.2f} (p10 .. p90)')
print(f'stas_table_l1_bytes = {cap}   # {cap / 1024:.0f} KiB')
