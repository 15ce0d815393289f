#!/usr/bin/env python3
# A CTA's time outside its pipeline's events, measured on a recorded corpus's fit half: the
# median CTA's time (globaltimer at each CTA's start and end, NAME.json cta_ns_p50) less the
# traced CTA's span from its first to its last event, over the kernels whose trace is kept
# and spans less than 100 us (where one CTA's span stands for the median CTA's).
#   python3 scripts/cta-overhead.py [TMASIM] [fit|test] [DIR...]
import json
import os
import sys
import tempfile

from fitlib import die, descriptions, pct, split_of, trace_events

tmasim = sys.argv[1] if len(sys.argv) > 1 else 'build/rel/tmasim'
half = sys.argv[2] if len(sys.argv) > 2 else 'fit'
if half not in ('fit', 'test', 'all'):
    die(f'half: {half!r} (allowed fit, test, all)')
dirs = sys.argv[3:] or ['traces/h200/corpus']
out = []
for name, d in descriptions(dirs):
    tmt = os.path.join(d, name + '.tmt')
    if split_of(name) != half or not os.path.exists(tmt):
        continue
    rep = json.load(open(os.path.join(d, name + '.json')))
    ev = [e['args'] for e in trace_events(tmasim, tmt, tempfile.mktemp(suffix='.json'))
          if e.get('ph') in ('X', 'i') and e['args']['cta'] == 0]
    if not ev or not rep.get('cta_ns_p50'):
        continue
    span = max(a['t_ns'] + a['dur_ns'] for a in ev) - min(a['t_ns'] for a in ev)
    if span < 100000:
        out.append(rep['cta_ns_p50'] - span)
if not out:
    die('no recording of the kind measured in ' + ', '.join(dirs))
print(f'{half} half: {len(out)} kernels; cta_overhead_ns = {pct(out, 50):.0f} '
      f'(p25 {pct(out, 25):.0f}, p75 {pct(out, 75):.0f})')
