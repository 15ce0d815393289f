#!/usr/bin/env python3
"""Clustered kernels at many CTAs per SM: the simulator's signed error beside the recorded
evidence that could name a mechanism.

    scripts/cluster-many.py DIR CSV [fit|test|all]

CSV: `tmasim accuracy DIR --split HALF --list --format csv` of the same directory. Prints
the median signed error by cluster (none / cluster / multicast) and CTAs per SM (the
description's), then one row per clustered kernel at 5 or more CTAs per SM: the CTAs
resident per SM used (NAME.json: ctas_resident_max over sms_used; the GPU holds at most 8
clustered CTAs per SM), the share of warp time stalled on membar (release.cluster arrives
wait for the SM's memory operations), on short and long scoreboards, and the shared-load
wavefronts the Range Profiler counted over those the access pattern gives
(NAME.counters.json model.read_wavefronts_per_warp_stage x consumer warps x CTAs x
iterations): above 1, conflicts the read pattern alone does not explain; '-' where the
recording has no model figure (descriptions without reads)."""
import csv
import json
import os
import statistics
import sys

import fitlib


def evidence(base):
    """Resident CTAs per used SM, stall shares and the wavefront ratio of one recording."""
    text = open(base + '.yaml').read()
    rec = json.load(open(base + '.json'))
    ctas = fitlib.field(text, r'ctas: (\d+)', default=1)
    out = {'per': fitlib.field(text, r'ctas_per_sm: (\d+)', default=1),
           'cluster': fitlib.field(text, r'cluster: \{size: (\d+)', default=1),
           'mc': 'multicast: true' in text, 'mode': fitlib.field(text, r'^mode: (\w+)', str, '?'),
           'iters': fitlib.field(text, r'iterations: (\d+)', default=1),
           'resident': min(ctas, rec.get('ctas_resident_max', ctas)) / max(1, rec.get('sms_used', 1)),
           'membar': 0.0, 'ssb': 0.0, 'lsb': 0.0, 'wf': 0.0}
    if not os.path.exists(base + '.counters.json'):
        return out
    cnt = json.load(open(base + '.counters.json'))
    m, model = cnt.get('metrics', {}), cnt.get('model', {})
    active = m.get('smsp__warps_active.sum', 0) or 1
    for key, metric in (('membar', 'membar'), ('ssb', 'short_scoreboard'), ('lsb', 'long_scoreboard')):
        out[key] = m.get(f'smsp__warps_issue_stalled_{metric}.sum', 0) / active
    want = model.get('read_wavefronts_per_warp_stage', 0) * fitlib.field(text, r'consumer: (\d+)', default=1)
    if want:
        out['wf'] = m.get('l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum', 0) / (want * ctas * out['iters'])
    return out


def main():
    if len(sys.argv) < 3:
        fitlib.die('usage: cluster-many.py DIR CSV [fit|test|all]')
    d, path = sys.argv[1], sys.argv[2]
    half = sys.argv[3] if len(sys.argv) > 3 else 'all'
    if half not in ('fit', 'test', 'all'):
        fitlib.die(f'half: {half!r} (allowed fit, test, all)')
    if not os.path.isfile(path):
        fitlib.die(f'CSV: {path!r} is not a file (tmasim accuracy DIR --list --format csv)')
    errs = {r['name']: float(r['err']) * 100 for r in csv.DictReader(open(path)) if r.get('err') not in (None, '', 'nan')}
    rows = []
    for name, dd in fitlib.descriptions([d], half=half):
        if name in errs:
            rows.append((name, errs[name], evidence(os.path.join(dd, name))))
    groups = {}
    for _, err, ev in rows:
        kind = 'multicast' if ev['mc'] else 'cluster' if ev['cluster'] > 1 else 'none'
        band = '1' if ev['per'] == 1 else '2-4' if ev['per'] < 5 else '5-8' if ev['per'] <= 8 else '9-16'
        groups.setdefault((kind, band), []).append(err)
    print('median signed error by cluster and CTAs per SM:')
    for (kind, band), v in sorted(groups.items()):
        print(f'  {kind:9s} {band:>4s} CTAs/SM: n {len(v):3d}  median {statistics.median(v):+6.1f}%')
    print('%-18s %-16s %5s %4s %5s %5s %7s %6s %6s %6s %6s' % (
        'name', 'mode', 'clust', 'per', 'res', 'iters', 'err%', 'membar', 'ssb', 'lsb', 'wf'))
    for name, err, ev in sorted(rows, key=lambda r: r[1]):
        if ev['cluster'] > 1 and ev['per'] >= 5:
            wf = '%6.2f' % ev['wf'] if ev['wf'] else '%6s' % '-'
            print('%-18s %-16s %4d%s %4d %5.1f %5d %+7.1f %6.2f %6.2f %6.2f %s' % (
                name, ev['mode'], ev['cluster'], 'm' if ev['mc'] else ' ', ev['per'], ev['resident'], ev['iters'],
                err, ev['membar'], ev['ssb'], ev['lsb'], wf))


main()
