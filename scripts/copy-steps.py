#!/usr/bin/env python3
# The cp.async copy step's costs, measured from the recorded traces of the H200 corpus's fit
# half: for every cp_async description at one CTA per SM whose trace is kept, each consumer
# warp's prologue steps after its first (cpasync_issue to the next, no wait between) against
# the step's cp.async trips (32 lanes' 16-byte chunks) and whether the CTA's copying warps share
# sub-partitions (5-8 warps: two on some of the 4 sub-partitions), less the tile
# addresses at tile_address_ns per tensor (shared with the st.async loop, held fixed here); least
# squares with an intercept per kind of step (mbarrier, commit group). A trace's cpasync_issue
# carries the warp's share of the stage's bytes. Prints the parameters sim/params.c takes from it.
#   [HALF=test] python3 scripts/copy-steps.py [TMASIM] [DIR...]
import os
import sys
import tempfile

from fitlib import die, descriptions, field, lstsq, pct, split_of, trace_events

tmasim = sys.argv[1] if len(sys.argv) > 1 else 'build/rel/tmasim'
dirs = sys.argv[2:] or ['traces/h200/corpus']
TILE_ADDRESS_NS = 211
HALF = os.environ.get('HALF', 'fit')   # HALF=test: the same fit on the test half, as a check
X, Y, used = [], [], set()
for name, d in descriptions(dirs):
    tmt = os.path.join(d, name + '.tmt')
    if split_of(name) != HALF or not os.path.exists(tmt):
        continue
    text = open(os.path.join(d, name + '.yaml')).read()
    if field(text, r'^mode:\s*(\S+)', str) != 'cp_async' or field(text, r'ctas_per_sm:\s*(\d+)') != 1:
        continue
    groups = 'cpasync:' in text   # cp.async.commit_group / wait_group steps
    stages = field(text, r'^stages:\s*(\d+)')
    warps = field(text, r'consumer:\s*(\d+)\}')
    tensors = text.count('- {name')
    ev = trace_events(tmasim, tmt, tempfile.mktemp(suffix='.json'))
    steps = {}
    for e in ev:
        if e.get('name') == 'cpasync_issue':
            a = e['args']
            steps.setdefault((a['cta'], a['warp']), []).append(a)
    for (cta, w), es in steps.items():
        es.sort(key=lambda a: a['iteration'])
        chunks = round(es[0]['bytes'] * warps / 16)   # the stage's chunks (bytes: the warp's share)
        trips = ((w + 1) * chunks // warps - w * chunks // warps + 31) // 32
        for a, b in zip(es[1:stages - 1], es[2:stages]):
            X.append([0.0 if groups else 1.0, 1.0 if groups else 0.0, trips, (warps + 3) // 4 - 1])
            Y.append(b['t_ns'] - a['t_ns'] - TILE_ADDRESS_NS * tensors)
            used.add(name)
if not Y:
    die('no recording of the kind measured in ' + ', '.join(dirs))
c = lstsq(X, Y)
res = [y - sum(k * x for k, x in zip(c, xx)) for xx, y in zip(X, Y)]
print(f'{len(Y)} prologue steps of {len(used)} descriptions')
print(f'ldgsts_step_ns       = {c[0]:.0f}   # the mbarrier step besides trips, warps and tensors')
print(f'ldgsts_group_step_ns = {c[1]:.0f}   # the commit-group step besides trips, warps and tensors')
print(f'ldgsts_issue_cycles  = {c[2] * 1.98:.0f}   # per trip ({c[2]:.1f} ns at 1.98 GHz)')
print(f'ldgsts_smsp_share_ns = {c[3]:.0f}   # warps doubled up on sub-partitions (5-8 copying warps)')
print(f'residuals p10 {pct(res, 10):.0f} p50 {pct(res, 50):.0f} p90 {pct(res, 90):.0f} ns')
