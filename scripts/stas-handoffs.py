#!/usr/bin/env python3
# The generated st.async pipeline's two hand-offs between cluster peers and the consumer's step,
# measured from the recorded traces of a corpus's half: for every st_async description whose
# trace is kept (the first cluster, CTAs 0 and 1), per kernel the median of
#   land:    the end of a producer's copy loop (its tma_flight event's end: the clock after its
#            last st.async) to the end of its peer's consumers' wait for that stage, in waits
#            that began before the loop ended (the consumer was blocked on the data);
#   step:    a consumer's end of math (of its reads where it has no math; of its wait where it
#            has neither) to its next full-barrier wait or read: the release (an
#            mbarrier.arrive.release.cluster on the peer's empty barrier), its record, the
#            consumed record, the loop and the next probe;
#   freed:   the consumers' last release of a stage to the end of the peer producer's wait
#            for it, in steps where the producer waited (few kernels have any);
#   first:   the first stage's copy loop (both producers' median) less the median of the
#            later stages' loops: what the kernel's first loop adds (its first chunk-table,
#            address and data misses).
# Then the median over kernels (kernels with at least 4 samples of the kind; first: with at
# least 4 later loops) and the parameters sim/params.c takes from them: stas_land_ns = land -
# wake_ns, stas_release_ns = step - consume_step_ns (the generated consume step the simulator
# charges every mode), stas_first_ns = first.
#   python3 scripts/stas-handoffs.py [fit|test|all] [TMASIM] [DIR...]
import os
import sys
import tempfile

from fitlib import descriptions, die, field, half_arg, pct, split_of, trace_events

WAKE_NS = 29.85           # sim/params.c wake_ns (tmahw calibrate mbarrier)
CONSUME_STEP_NS = 343     # sim/params.c consume_step_ns

half = half_arg()
tmasim = sys.argv[2] if len(sys.argv) > 2 else 'build/rel/tmasim'
dirs = sys.argv[3:] or ['traces/h200/corpus']


def timeline(ev):
    """Producer stages by (issuing CTA, iteration) and consumer steps by (CTA, warp,
    iteration). A producer's events and a release name the peer they act on: the issuer is
    its other rank."""
    prod, cons = {}, {}
    for e in ev:
        a = e.get('args')
        n = e.get('name')
        if e.get('ph') == 'M' or not a or n is None:
            continue
        c = a['cta'] ^ 1 if n in ('tma_flight', 'bar_expect_tx', 'release') else a['cta']
        if c > 1:
            continue
        span = (a['t_ns'], a['t_ns'] + a['dur_ns'])
        if n == 'tma_flight':
            prod.setdefault((c, a['iteration']), {})['loop'] = span
        elif n == 'wait' and a['role'] == 0:
            prod.setdefault((c, a['iteration']), {})['wait'] = span
        elif n in ('wait', 'smem_read', 'math', 'release') and a['role'] == 1:
            cons.setdefault((c, a['warp'], a['iteration']), {})[n] = span
    return prod, cons


def measure(prod, cons, stages):
    land, step, freed, last_rel = [], [], [], {}
    for (c, w, i), q in cons.items():
        if 'release' in q:   # releases stage i of the peer's producer
            k = (c ^ 1, i)
            last_rel[k] = max(last_rel.get(k, 0), q['release'][0])
        p = prod.get((c ^ 1, i))
        if 'wait' in q and p and 'loop' in p and q['wait'][0] < p['loop'][1]:
            land.append(q['wait'][1] - p['loop'][1])
        end = q.get('math', q.get('smem_read', q.get('wait')))
        n = cons.get((c, w, i + 1))
        if end and n and 'release' in q:
            nxt = n.get('wait', n.get('smem_read'))
            if nxt:
                step.append(nxt[0] - end[1])
    for (c, j), p in prod.items():
        r = last_rel.get((c, j - stages))
        if 'wait' in p and r is not None and r < p['wait'][1]:
            freed.append(p['wait'][1] - r)
    loops = [(j, p['loop'][1] - p['loop'][0]) for (c, j), p in prod.items() if 'loop' in p]
    later = [t for j, t in loops if j > 0]
    first = [pct([t for j, t in loops if j == 0], 50) - pct(later, 50)] * 4 if len(later) >= 4 and len(later) < len(loops) else []
    return land, step, freed, first


per = {'land': [], 'step': [], 'freed': [], 'first': []}
for name, d in descriptions(dirs, half=half):
    tmt = os.path.join(d, name + '.tmt')
    if not os.path.exists(tmt):
        continue
    text = open(os.path.join(d, name + '.yaml')).read()
    if field(text, r'^mode:\s*(\S+)', str) != 'st_async':
        continue
    stages = field(text, r'^stages:\s*(\d+)')
    got = measure(*timeline(trace_events(tmasim, tmt, tempfile.mktemp(suffix='.json'))), stages)
    for key, v in zip(('land', 'step', 'freed', 'first'), got):
        if len(v) >= 4:
            per[key].append((pct(v, 50), name))
for key, v in per.items():
    if v:
        print(f'{key}: {len(v)} kernels: ' + ', '.join(f'{n[-4:]} {t:.0f}' for t, n in sorted(v, key=lambda x: x[1])))
if not per['land'] or not per['step']:
    die('no recording of the kind measured in ' + ', '.join(dirs))
land = [t for t, _ in per['land']]
step = [t for t, _ in per['step']]
print(f'land = {pct(land, 50):.0f} [{min(land):.0f}..{max(land):.0f}, n {len(land)} kernels]; '
      f'stas_land_ns = {pct(land, 50) - WAKE_NS:.0f}')
print(f'step = {pct(step, 50):.0f} [{min(step):.0f}..{max(step):.0f}, n {len(step)} kernels]; '
      f'stas_release_ns = {pct(step, 50) - CONSUME_STEP_NS:.0f}')
first = [t for t, _ in per['first']]
print(f'first = {pct(first, 50):.0f} [{min(first):.0f}..{max(first):.0f}, n {len(first)} kernels]; '
      f'stas_first_ns = {pct(first, 50):.0f}')
if per['freed']:
    freed = [t for t, _ in per['freed']]
    print(f'freed = {pct(freed, 50):.0f} [{min(freed):.0f}..{max(freed):.0f}, n {len(freed)} kernels]')
