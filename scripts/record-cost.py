#!/usr/bin/env python3
# What recording costs a commit-group cp.async step, measured over the H200 corpus's fit half:
# for every cp_async description with cpasync.sync (commit groups) at one CTA per SM whose
# trace is kept and shows no blocked wait (its warps' steps follow one another, so its time
# is the sum of its steps), the recorded launch's kernel time less the unrecorded one
# (NAME.json kernel_rec_ns, kernel_ns), per step of a CTA (iterations x waves). The traces
# the step costs come from (scripts/copy-steps.py) are of recorded launches; the simulator
# predicts unrecorded ones. Prints the median and the spread.
#   [HALF=test] python3 scripts/record-cost.py [TMASIM] [DIR...]
import json
import os
import sys
import tempfile

from fitlib import die, descriptions, field, pct, split_of, trace_events

tmasim = sys.argv[1] if len(sys.argv) > 1 else 'build/rel/tmasim'
dirs = sys.argv[2:] or ['traces/h200/corpus']
half = os.environ.get('HALF', 'fit')
per_step = {}
for name, d in descriptions(dirs):
    tmt = os.path.join(d, name + '.tmt')
    if split_of(name) != half or not os.path.exists(tmt):
        continue
    text = open(os.path.join(d, name + '.yaml')).read()
    if field(text, r'^mode:\s*(\S+)', str) != 'cp_async' or 'cpasync:' not in text:
        continue
    if field(text, r'ctas_per_sm:\s*(\d+)') != 1:
        continue
    ev = trace_events(tmasim, tmt, tempfile.mktemp(suffix='.json'))
    if any(e.get('name') == 'wait' for e in ev):
        continue
    j = json.load(open(os.path.join(d, name + '.json')))
    ctas, it = field(text, r'ctas:\s*(\d+)'), field(text, r'^iterations:\s*(\d+)')
    waves = -(-ctas // 132)
    per_step[name] = (j['kernel_rec_ns'] - j['kernel_ns']) / (it * waves)
if not per_step:
    die('no recording of the kind measured in ' + ', '.join(dirs))
v = list(per_step.values())
for n, x in sorted(per_step.items()):
    print(f'  {n}: {x:.1f} ns per step')
print(f'{len(v)} descriptions ({half} half): group_record_ns = {pct(v, 50):.1f}   # p25 {pct(v, 25):.1f}, p75 {pct(v, 75):.1f}')
