#!/usr/bin/env python3
"""L2 reads on the cp.async copy path over the tile bytes, by stage size, for the probe
recordings in DIR (default traces/h200/probes/cptab): one CTA per SM, 4 warps, 4 stages of
one f32 box, no reads or math. The generated kernel's copy table has 16 bytes per 16-byte
chunk: a ratio of 1 + m says a share m of the table's loads missed L1."""
import json, os, re, sys

d = sys.argv[1] if len(sys.argv) > 1 else 'traces/h200/probes/cptab'
rows = []
for f in sorted(os.listdir(d)):
    if not f.endswith('.yaml'):
        continue
    base = os.path.join(d, f[:-5])
    y = open(base + '.yaml').read()
    box = [int(x) for x in re.search(r'box:\s*\[(\d+),\s*(\d+)\]', y).group(1, 2)]
    ctas = int(re.search(r'ctas:\s*(\d+)', y).group(1))
    iters = int(re.search(r'^iterations:\s*(\d+)', y, re.M).group(1))
    stage = box[0] * box[1] * 4
    rep = json.load(open(base + '.json'))
    m = json.load(open(base + '.counters.json'))['metrics']
    rd = 32 * m['lts__t_sectors_srcunit_tex_op_read.sum']
    stalls = {k: v for k, v in m.items() if k.startswith('smsp__warps_issue_stalled_')}
    ls = m['smsp__warps_issue_stalled_long_scoreboard.sum'] / sum(stalls.values())
    rows.append((stage, rd / (ctas * iters * stage), ls, rep['kernel_ns'], rep.get('sim_kernel_ns', 0)))
print(f"{'stage':>8} {'L2 read / tile':>15} {'long_scoreboard':>16} {'kernel us':>10} {'sim us':>8}")
for st, r, ls, k, s in sorted(rows):
    print(f"{st // 1024:>6} K {r:>15.2f} {ls:>16.2f} {k / 1e3:>10.1f} {s / 1e3:>8.1f}")
