#!/usr/bin/env python3
# The generated TMA producer's step, measured from the recorded traces of a corpus's fit half:
# for every warp_specialized description at one CTA per SM whose trace is kept, the producer
# warp's time from its arrive.expect_tx to its first copy (E), from one copy to the next of
# the same stage (I, descriptions of two or more tensors), and from its last copy to the next
# stage's expect_tx (L: the record, the loop, the probe of the next stage's empty barrier).
# L counts only the steps whose stage the consumers had released (their last release of its
# previous use) before the producer's last copy: the producer did not wait for them. Each
# interval is the median of its kernel's steps (kernels with at least 4 such steps);
# and, in the steps where it waited (the consumers' last release of the stage's previous use
# came after its last copy), from that release to its expect_tx (R: the hand-off, the end of
# its wait, the loop; descriptions at any CTAs per SM, non-multicast only, as a multicast
# producer waits for its cluster's releases, which other CTAs record). The figures are
# medians over kernels, apart for multicast copies (whose producer computes its
# slice and issues .multicast::cluster). Prints the parameters sim/params.c takes from it.
#   python3 scripts/producer-steps.py [fit|test|all] [TMASIM] [DIR...]
import os
import sys
import tempfile

from fitlib import descriptions, die, field, half_arg, pct, split_of, trace_events

half = half_arg()
tmasim = sys.argv[2] if len(sys.argv) > 2 else 'build/rel/tmasim'
dirs = sys.argv[3:] or ['traces/h200/corpus']


def steps(ev, stages):
    """E, I and L intervals (ns) of every traced producer warp, in order of time."""
    per, freed = {}, {}
    for e in ev:
        a = e.get('args', {})
        if e.get('name') in ('bar_expect_tx', 'tma_issue') and e.get('ph') == 'i':
            per.setdefault((a['cta'], a['warp']), []).append((a['t_ns'], e['name'], a['iteration']))
        elif e.get('name') == 'release':
            k = (a['cta'], a['iteration'])
            freed[k] = max(freed.get(k, 0), a['t_ns'])
    E, I, L, R = [], [], [], []
    for (cta, _), es in per.items():
        es.sort()
        for (t0, k0, j0), (t1, k1, j1) in zip(es, es[1:]):
            if k0 == 'bar_expect_tx' and k1 == 'tma_issue':
                E.append(t1 - t0)
            elif k0 == 'tma_issue' and k1 == 'tma_issue':
                I.append(t1 - t0)
            elif k0 == 'tma_issue' and k1 == 'bar_expect_tx':
                prev = (cta, j1 - stages)
                if j1 >= stages and prev in freed and freed[prev] <= t0:
                    L.append(t1 - t0)
                elif j1 >= stages and prev in freed:
                    R.append(t1 - freed[prev])
    return E, I, L, R


got = {False: ([], [], []), True: ([], [], [])}
resume = []
for name, d in descriptions(dirs):
    tmt = os.path.join(d, name + '.tmt')
    if (half != 'all' and split_of(name) != half) or not os.path.exists(tmt):
        continue
    text = open(os.path.join(d, name + '.yaml')).read()
    if field(text, r'^mode:\s*(\S+)', str) != 'warp_specialized':
        continue
    mcast = field(text, r'multicast:\s*(\w+)', str, 'false') == 'true'
    E, I, L, R = steps(trace_events(tmasim, tmt, tempfile.mktemp(suffix='.json')), field(text, r'^stages:\s*(\d+)'))
    if len(R) >= 4 and not mcast:
        resume.append(pct(R, 50))
    if field(text, r'ctas_per_sm:\s*(\d+)') != 1:
        continue
    out = got[mcast]
    if E:
        out[0].append(pct(E, 50))
    if I:
        out[1].append(pct(I, 50))
    if len(L) >= 4:
        out[2].append(pct(L, 50))
if not any(v for g in got.values() for v in g):
    die('no trace of a warp_specialized description at one CTA per SM in ' + ', '.join(dirs))


def line(key, v, what):
    if not v:
        print(f'# {key}: no kernel measures it')
        return
    print(f'{key:26s} = {pct(v, 50):.0f}   # ns [{pct(v, 10):.0f}..{pct(v, 90):.0f}, n {len(v)} kernels] {what}')


print(f'{half} half: the TMA producer step (ns), kernels at one CTA per SM')
for mc, pre in ((False, ''), (True, 'mcast_')):
    E, I, L = got[mc]
    line(pre + 'expect_tx_ns', E, 'expect_tx to the first copy')
    line(pre + 'tma_issue_ns', I, 'copy to the next copy of the stage')
    line(pre + 'produce_tail_ns', L, 'last copy to the next expect_tx, unblocked')
line('produce_resume_ns (+wake)', resume, 'the release it waited for to its next expect_tx')
