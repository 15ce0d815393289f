#!/usr/bin/env python3
# A GEMM CTA's first stage: its first load's issue to its first wgmma, in the recorded traces
# of a wgmma corpus's half and in the simulator's trace of the same description, by the
# stage's bytes: every kept trace without clusters (CTA 0), each kernel's figure and the
# least-squares lines of both over the stage's KiB.
#   python3 scripts/gemm-first-load.py [fit|test|all] [TMASIM] [GPU] [DIR...]
import os
import subprocess
import sys
import tempfile

from fitlib import descriptions, die, field, half_arg, lstsq, pct, trace_events

half = half_arg()
tmasim = sys.argv[2] if len(sys.argv) > 2 else 'build/rel/tmasim'
gpu = sys.argv[3] if len(sys.argv) > 3 else 'h200'
dirs = sys.argv[4:] or ['traces/h200/corpus-wgmma']


def first_stage(tmt):
    """CTA 0's first load issue to its first wgmma, and the first stage's bytes."""
    ev = [e for e in trace_events(tmasim, tmt, tempfile.mktemp(suffix='.json'))
          if e.get('ph') in ('X', 'i') and e['args']['cta'] == 0]
    loads = [e['args'] for e in ev if e['name'] == 'tma_issue' and e['args']['iteration'] == 0]
    mma = [e['args']['t_ns'] for e in ev if e['name'] == 'wgmma']
    if not loads or not mma:
        return None, 0
    return min(mma) - min(a['t_ns'] for a in loads), sum(a['bytes'] for a in loads)


rows = []
for name, d in descriptions(dirs, 'wgmma_', half):
    tmt = os.path.join(d, name + '.tmt')
    text = open(os.path.join(d, name + '.yaml')).read()
    if not os.path.exists(tmt) or field(text, r'cluster:\s*\{size:\s*(\d+)', int, 1) > 1:
        continue
    hw, nbytes = first_stage(tmt)
    sim_tmt = tempfile.mktemp(suffix='.tmt')
    subprocess.run([tmasim, 'sim', os.path.join(d, name + '.yaml'), '--gpu', gpu, '-o', sim_tmt], check=True,
                   capture_output=True)
    sim, _ = first_stage(sim_tmt)
    os.remove(sim_tmt)
    if hw is not None and sim is not None:
        rows.append((nbytes / 1024, hw, sim, name))
if len(rows) < 2:
    die('fewer than 2 traced descriptions without clusters in ' + ', '.join(dirs))
print(f'{half} half: CTA 0\'s first load issue to its first wgmma (ns)')
for kib, hw, sim, name in sorted(rows):
    print(f'  {name:18s} {kib:4.0f} KiB  traced {hw:6.0f}  simulated {sim:6.0f}  ({hw - sim:+6.0f})')
for label, k in (('traced', 1), ('simulated', 2)):
    c = lstsq([[1.0, r[0]] for r in rows], [r[k] for r in rows])
    res = [r[k] - c[0] - c[1] * r[0] for r in rows]
    print(f'  {label:9s} {c[0]:5.0f} ns + {c[1]:5.2f} ns per KiB (residuals {pct(res, 10):+.0f}..{pct(res, 90):+.0f} p10..p90)')
