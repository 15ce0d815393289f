#!/usr/bin/env python3
"""The traced CTA against the median CTA, recorded and simulated.

    scripts/cta-age.py [fit|test|all] [DIR]     (TMASIM: build/rel/tmasim; DIR: traces/h200/corpus)

For each description of the half with a kept trace (NAME.tmt) and 2 or more CTAs per SM:
the traced CTAs' life (first to last event of their warps) over the recording's median CTA
(NAME.json cta_ns_p50), and the same CTAs' life in the simulator's trace over the simulator's
median CTA; then the consumers' median read and math spans in the traced CTAs, recorded and
simulated. The runner traces the first CTA (or cluster) of the grid, the oldest on its SM:
where the SM's warps share its sub-partitions, a ratio below 1 says the schedulers favour it."""
import collections
import json
import os
import statistics
import subprocess
import sys
import tempfile

import fitlib


def events(tmasim, path, tmp):
    return [e for e in fitlib.trace_events(tmasim, path, os.path.join(tmp, 'e.json'))
            if isinstance(e.get('args'), dict) and 't_ns' in e['args']]


def lives(ev):
    """ns from each CTA's first event to its last."""
    span = collections.defaultdict(lambda: [1 << 62, 0])
    for e in ev:
        a = e['args']
        s = span[a['cta']]
        s[0] = min(s[0], a['t_ns'])
        s[1] = max(s[1], a['t_ns'] + a['dur_ns'])
    return {c: v[1] - v[0] for c, v in span.items()}


def spans(ev, ctas, name):
    v = [e['args']['dur_ns'] for e in ev
         if e['name'] == name and e['args']['cta'] in ctas and e['args']['role'] in (1, 2)]
    return statistics.median(v) if v else 0


def main():
    half = fitlib.half_arg()
    d = sys.argv[2] if len(sys.argv) > 2 else 'traces/h200/corpus'
    tmasim = os.environ.get('TMASIM', 'build/rel/tmasim')
    print('%-18s %4s %6s | %9s %9s %9s | %9s %9s | %6s %6s %6s %6s' % (
        'name', 'per', 'ctas', 'hw_traced', 'hw_p50', 'hw_ratio', 'sim_ratio', '', 'rd_hw', 'rd_sim', 'mt_hw', 'mt_sim'))
    hw_r, sim_r = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for name, dd in fitlib.descriptions([d], half=half):
            base = os.path.join(dd, name)
            if not os.path.exists(base + '.tmt'):
                continue
            text = open(base + '.yaml').read()
            per = fitlib.field(text, r'ctas_per_sm: (\d+)', default=1)
            if per < 2:
                continue
            p50 = json.load(open(base + '.json')).get('cta_ns_p50', 0)
            hw = events(tmasim, base + '.tmt', tmp)
            out = os.path.join(tmp, 's.tmt')
            subprocess.run([tmasim, 'sim', base + '.yaml', '--gpu', 'h200', '-o', out], check=True, capture_output=True)
            sim = events(tmasim, out, tmp)
            hl, sl = lives(hw), lives(sim)
            traced = set(hl)
            h0 = statistics.median(hl.values())
            s0 = statistics.median([sl[c] for c in traced if c in sl])
            smed = statistics.median(sl.values())
            if not p50 or not smed:
                continue
            hw_r.append(h0 / p50)
            sim_r.append(s0 / smed)
            print('%-18s %4d %6d | %9d %9d %9.2f | %9.2f %9s | %6d %6d %6d %6d' % (
                name, per, fitlib.field(text, r'ctas: (\d+)', default=0), h0, p50, h0 / p50, s0 / smed, '',
                spans(hw, traced, 'smem_read'), spans(sim, traced, 'smem_read'),
                spans(hw, traced, 'math'), spans(sim, traced, 'math')), flush=True)
    if hw_r:
        print('traced CTA over the median CTA: recorded median %.2f (min %.2f, max %.2f), simulated median %.2f '
              '(min %.2f, max %.2f), %d kernels' % (statistics.median(hw_r), min(hw_r), max(hw_r),
                                                   statistics.median(sim_r), min(sim_r), max(sim_r), len(hw_r)))


if __name__ == '__main__':
    main()
