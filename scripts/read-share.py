#!/usr/bin/env python3
"""How the warps of one CTA share the SM's shared-memory port, from the fit half's traces.

    scripts/read-share.py [fit|test|all] [DIR...]   (TMASIM: build/rel/tmasim)

For each traced description at one CTA per SM whose consumers read (every warp of the SM is
in the trace): per consumer warp, the median start of its smem_read span after the first
read of the same iteration, the median span and end. Warps whose reads start together end
together, whatever order they issued in (a port that served whole reads in turn would end
the first one early), and a warp alone on its sub-partition (warp index modulo 4) reads
faster than two that share one: the port serves the sub-partitions in turn."""
import collections
import os
import statistics
import sys

import fitlib


def per_warp(tmasim, tmt):
    ev = fitlib.trace_events(tmasim, tmt, tmt + '.read-share.json')
    by = collections.defaultdict(list)
    for e in ev:
        if e.get('ph') == 'X' and e['name'] == 'smem_read':
            by[(e['args']['cta'], e['args']['iteration'])].append(e)
    start, span = collections.defaultdict(list), collections.defaultdict(list)
    for reads in by.values():
        t0 = min(e['ts'] for e in reads)
        for e in reads:
            start[e['args']['warp']].append(1000 * (e['ts'] - t0))
            span[e['args']['warp']].append(1000 * e['dur'])
    return {w: (statistics.median(start[w]), statistics.median(span[w])) for w in start}


def main():
    half = fitlib.half_arg()
    dirs = sys.argv[2:] or ['traces/h200/corpus']
    tmasim = os.environ.get('TMASIM', 'build/rel/tmasim')
    for name, d in fitlib.descriptions(dirs, half=half):
        y = open(os.path.join(d, name + '.yaml')).read()
        tmt = os.path.join(d, name + '.tmt')
        ctas = fitlib.field(y, r'ctas: (\d+)')
        cps = fitlib.field(y, r'ctas_per_sm: (\d+)', default=1)
        if 'reads:' not in y or not os.path.exists(tmt) or min(cps, -(-ctas // 132)) != 1:
            continue
        w = per_warp(tmasim, tmt)
        if len(w) < 2:
            continue
        smsp = collections.Counter(k % 4 for k in w)
        alone = [w[k][1] for k in w if smsp[k % 4] == 1]
        shared = [w[k][1] for k in w if smsp[k % 4] > 1]
        cells = ' '.join(f'w{k}:{w[k][0]:.0f}+{w[k][1]:.0f}' for k in sorted(w))
        line = f'{name} readers {len(w)}: start+span ns {cells}'
        if alone and shared:
            line += f' | alone on its sub-partition {statistics.median(alone):.0f} ns, sharing {statistics.median(shared):.0f} ns'
        print(line)


if __name__ == '__main__':
    main()
