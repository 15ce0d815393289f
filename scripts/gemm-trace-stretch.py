#!/usr/bin/env python3
# How much the recording stretches the traced CTA of a generated GEMM kernel: its time per
# stage in the trace (first to last event of CTA 0 over the stages it loaded) against the
# untraced CTAs' time per stage in a recording of the same descriptions that timed its CTAs
# without recording (tmahw run's GEMM report: cta_ns_p50, the median CTA's start to end on
# globaltimer over the launches CUPTI timed, over the median CTA's stages). Beside it the
# traced consumer's median wgmma issue span (its fence to its commit_group, the trace's
# wgmma event) and the traced producer's median step between loads where it did not wait.
# A ratio well above 1 means that per-stage costs read off the traces (the producer's
# resume, its step, a stage's first load) are those of a slower CTA than the kernel's.
# Prints a measurement; sim/params.c takes nothing from it.
#   python3 scripts/gemm-trace-stretch.py [fit|test|all] [TMASIM] [TRACE_DIR] [UNTRACED_DIR]
import json
import math
import os
import sys
import tempfile

from fitlib import descriptions, die, field, half_arg, pct, trace_events

half = half_arg()
tmasim = sys.argv[2] if len(sys.argv) > 2 else 'build/rel/tmasim'
tdir = sys.argv[3] if len(sys.argv) > 3 else 'traces/h200/corpus-wgmma'
udir = sys.argv[4] if len(sys.argv) > 4 else os.path.join(tdir, 'rerun-2026-11-25')


def cta_stages(text):
    """Stages of each CTA of the persistent grid (hw/gemm_kernel.cuh: CTA b of a cluster of C
    walks tiles b / C, b / C + grid / C, ...), the tile and k-block sizes as sim/pipe_gemm.c
    derives them."""
    m, n, k = field(text, r'\{m:\s*(\d+)'), field(text, r'\bn:\s*(\d+)'), field(text, r'\bk:\s*(\d+)')
    groups, bn = field(text, r'consumer:\s*(\d+)\}') // 4, field(text, r'shape:\s*m64n(\d+)')
    bk = 64 if field(text, r'math:.*dtype:\s*(\w+)', str) in ('bf16', 'f16') else 128
    ctas, cluster = field(text, r'ctas:\s*(\d+)'), field(text, r'cluster:\s*\{size:\s*(\d+)', int, 1)
    c = cluster if 'multicast: true' in text else 1
    tiles = (m // (64 * groups) // c) * (n // bn)
    per = [len(range(b // c, tiles, ctas // c)) * math.ceil(k / bk) for b in range(ctas)]
    return per


def traced(ev):
    """CTA 0's span, its stages, its lead consumer's median wgmma issue span and its producer's
    median step between loads where it did not wait."""
    ev = [e for e in ev if e.get('args', {}).get('cta') == 0 and 't_ns' in e.get('args', {})]
    t0 = min(e['args']['t_ns'] for e in ev)
    t1 = max(e['args']['t_ns'] + e['args'].get('dur_ns', 0) for e in ev)
    load = {e['args']['iteration']: e['args']['t_ns'] for e in ev if e['name'] == 'tma_issue'}
    waited = {e['args']['iteration'] for e in ev if e['name'] == 'wait' and e['args']['role'] == 0}
    issue = [e['args']['dur_ns'] for e in ev if e['name'] == 'wgmma']
    steps = [load[j] - load[j - 1] for j in load if j - 1 in load and j not in waited]
    return t1 - t0, len(load), pct(issue, 50) if issue else 0, pct(steps, 50) if steps else 0


rows = []
for name, d in descriptions([tdir], 'wgmma_', half):
    tmt, rep = os.path.join(d, name + '.tmt'), os.path.join(udir, name + '.json')
    if not os.path.exists(tmt) or not os.path.exists(rep):
        continue
    r = json.load(open(rep))
    per = sorted(cta_stages(open(os.path.join(d, name + '.yaml')).read()))
    mid = per[len(per) // 2]
    if r.get('cta_ns_p50', 0) <= 0 or mid == 0:
        continue
    span, stages, issue, step = traced(trace_events(tmasim, tmt, tempfile.mktemp(suffix='.json')))
    t_ns, u_ns = span / stages, r['cta_ns_p50'] / mid
    rows.append((t_ns / u_ns, name, stages, t_ns, u_ns, issue, step))
if not rows:
    die(f'no trace in {tdir} with an untraced CTA time in {udir}')
print(f'{half} half: ns per stage of the traced CTA 0 against the untraced median CTA (cta_ns_p50)')
print(f'  {"name":18s} {"stages":>6s} {"traced":>7s} {"untraced":>8s} {"ratio":>5s} {"wgmma issue":>11s} {"load step":>9s}')
for ratio, name, stages, t_ns, u_ns, issue, step in sorted(rows):
    print(f'  {name:18s} {stages:6d} {t_ns:7.0f} {u_ns:8.0f} {ratio:5.2f} {issue:11.0f} {step:9.0f}')
v = [r[0] for r in rows]
print(f'  ratio over {len(v)} kernels: median {pct(v, 50):.2f} [{pct(v, 10):.2f}..{pct(v, 90):.2f} p10..p90], '
      f'most {max(v):.2f}; {sum(1 for x in v if x > 1.2)} of {len(v)} above 1.2')
