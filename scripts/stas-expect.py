#!/usr/bin/env python3
# The generated st.async producer's remote expect_tx (arrive.expect_tx.release.cluster) in the
# steps where it did not wait for its stage, against the share of the data its SM's L1 served
# (from the counters: 1 - L2 reads over the data's sectors), in a corpus's recorded traces:
# each kernel's median of expect_tx record -> start of its copy loop (kernels with at least 4
# such steps), and a least-squares line a + b x (1 - L1 share) per half. The simulator takes
# the lone remote arrive (remote_arrive_alone_ns, tmahw calibrate) where L1 serves the data and
# remote_arrive_ns (318, measured where L2 does) where it does not, linear between them.
#   python3 scripts/stas-expect.py
import collections
import json
import math
import os
import re
import tempfile

from fitlib import DTYPE_BYTES as SIZE, descriptions,trace_events,pct,field,split_of,lstsq
for half in ('fit','test'):
  X=[];Y=[]
  for name,d in descriptions(['traces/h200/corpus'],half=half):
    y=open(f'{d}/{name}.yaml').read(); tmt=f'{d}/{name}.tmt'; cp=f'{d}/{name}.counters.json'
    if field(y,r'^mode:\s*(\S+)',str)!='st_async' or not os.path.exists(tmt) or not os.path.exists(cp): continue
    c=json.load(open(cp)); steps=field(y,r'ctas:\s*(\d+)')*field(y,r'^iterations:\s*(\d+)')
    sec=0
    for m in re.finditer(r'dtype:\s*(\w+),\s*dims:\s*\[(\d+),\s*\d+\],\s*box:\s*\[(\d+),\s*(\d+)\]',y):
        row=int(m.group(3))*SIZE[m.group(1)]; sec+=int(m.group(4))*math.ceil(row/32)*32
    rd=c['metrics']['lts__t_sectors_srcunit_tex_op_read.sum']*32/steps
    l1=max(0,1-rd/sec)
    st=field(y,r'^stages:\s*(\d+)')
    ex,loop,rel={},{},collections.defaultdict(int)
    for e in trace_events('build/rel/tmasim',tmt,tempfile.mktemp()):
        a=e.get('args',{});k=(a.get('cta'),a.get('iteration'))
        if e.get('name')=='bar_expect_tx': ex[k]=a['t_ns']
        elif e.get('name')=='tma_flight': loop[k]=(a['t_ns'],a['t_ns']+a['dur_ns'])
        elif e.get('name')=='release': rel[k]=max(rel[k],a['t_ns'])
    v=[]
    for (cta,j),(_,end) in loop.items():
        n=(cta,j+1);p=(cta^1,j+1-st)
        if n in ex and n in loop and not (p[1]>=0 and rel.get(p,0)>end): v.append(loop[n][0]-ex[n])
    if len(v)<4: continue
    X.append([1,1-l1]);Y.append(pct(v,50))
    print(half,name[7:],f'L1 {l1:.2f} expect->loop {pct(v,50):.0f}')
  co=lstsq(X,Y); print(half,'fit: a %.0f + b %.0f x (1 - L1)'%tuple(co))
