#!/usr/bin/env python3
"""The L1 room the generated cp.async kernels' copy table finds. The table holds 16 bytes
per 16-byte chunk of a stage (hw/run_gen.c CP_TAB), so the copy path's L2 reads are the
tile bytes plus the table's misses: a share m of the table missed L1. Where a table of T
bytes outgrows the room C, a line stays with chance C / T (m = 1 - C / T).

Evidence: the copy-table probe PROBE (default traces/h200/probes/cptab: one CTA per SM, 4
warps copying 4 stages of one f32 box of 4-48 KiB, nothing else) and the cp_async kernels
of the fit half of CORPUS (default traces/h200/corpus). C is the least-squares room over
the probe's tables that miss (m > 0.05), and no less than the largest table of either set
seen without misses. The corpus kernels' own misses are not fitted: their narrow boxes read
whole 32-byte sectors for 16-byte chunks, which adds L2 reads the table did not cause.
Prints the evidence and each probe's time, recorded and simulated (TMASIM, default
build/rel/tmasim).

usage: copy-table.py [PROBE [CORPUS]]"""
import json, os, re, subprocess, sys

import fitlib

probe = sys.argv[1] if len(sys.argv) > 1 else 'traces/h200/probes/cptab'
corpus = sys.argv[2] if len(sys.argv) > 2 else 'traces/h200/corpus'
tmasim = os.environ.get('TMASIM', 'build/rel/tmasim')
if not os.path.isdir(probe):
    fitlib.die(f'PROBE: {probe!r} is not a directory')


def table_bytes(y):
    total = 0
    for t in re.finditer(r'dtype:\s*(\w+).*?box:\s*\[([\d, ]+)\]', y):
        n = fitlib.DTYPE_BYTES[t.group(1)]
        for x in t.group(2).split(','):
            n *= int(x)
        total += n
    return total


def evidence(base):
    """(table bytes, miss share of the table, kernel ns) of a recording, or None."""
    y = open(base + '.yaml').read()
    if fitlib.field(y, r'^mode:\s*(\S+)', str) != 'cp_async' or not os.path.exists(base + '.counters.json'):
        return None
    rep = json.load(open(base + '.json'))
    m = json.load(open(base + '.counters.json'))['metrics']
    tile = rep['loaded_gbs'] * rep['kernel_ns']
    read = 32 * m.get('lts__t_sectors_srcunit_tex_op_read.sum', 0)
    # every CTA reads the whole table once a stage, as many bytes as the stage's tiles
    t = table_bytes(y)
    return (t, max(read - tile, 0.0) / tile, rep['kernel_ns']) if tile > 0 and t else None


probes = []
for f in sorted(os.listdir(probe)):
    if f.endswith('.yaml') and (e := evidence(os.path.join(probe, f[:-5]))):
        probes.append(e + (os.path.join(probe, f),))
fits = [e + (os.path.join(d, name) + '.yaml',) for name, d in fitlib.descriptions([corpus], half='fit')
        if (e := evidence(os.path.join(d, name)))]
miss = [(t, m) for t, m, _, _ in probes if m > 0.05]
held = max([t for t, m, _, _ in probes + fits if m <= 0.05], default=0)
if not miss:
    fitlib.die('copy-table.py: no table that misses L1')
lsq = sum((1 - m) / t for t, m in miss) / sum(1 / (t * t) for t, _ in miss)
room = max(lsq, held)
print(f'copy_table_room_bytes = {room:.0f} ({room / 1024:.1f} KiB): least squares over the {len(miss)} probe '
      f'tables that miss {lsq:.0f}, the largest table without misses {held}')
print(f"{'':24} {'table':>7} {'miss':>6} {'model':>6} {'hw us':>8} {'sim us':>8} {'err':>7}")
for t, m, hw, what in sorted(probes) + sorted(x for x in fits if x[0] >= 12 * 1024):
    sim = 0.0
    if os.access(tmasim, os.X_OK):
        out = subprocess.run([tmasim, 'sim', what, '--gpu', 'h200', '--format', 'json'], capture_output=True, text=True)
        sim = json.loads(out.stdout).get('kernel_ns', 0) if out.returncode == 0 else 0
    err = f'{100 * (sim - hw) / hw:+6.1f}%' if sim else '-'
    label = os.path.basename(what)[:-5] + (' (fit)' if what.startswith(corpus) else '')
    print(f'{label:24} {t / 1024:>5.1f} K {m:>6.2f} {max(0.0, 1 - room / t):>6.2f} {hw / 1e3:>8.1f} '
          f'{sim / 1e3 if sim else 0:>8.1f} {err:>7}')
