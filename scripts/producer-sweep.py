#!/usr/bin/env python3
"""The generated loops' step per stage, timed without recording: producer-bound pipelines
(8 stages, one consumer warp without reads or math, boxes of 2 KiB re-read from an 8 KiB
tensor that stays in L2) at 100 and 300 iterations; the difference of their kernel times
over 200 is one stage of the loop, free of launch, fill and drain. Variants: the mode
(warp_specialized, multistage, cp_async, st_async), 1-3 tensors (each extra tensor adds one
copy-to-copy step), multicast in clusters of 2, four FFMA consumer warps (one on the
producer's sub-partition), 4 CTAs per SM, neighbours: 2-7 consumer warps reading the
stage, or 2-4 issuing mma.sync (names n_*), sharing: 3-15 idle or FFMA consumer warps,
1-8 CTAs per SM on an 8 MiB tensor (names s_*), and the round trip of one stage at 1-16 CTAs
per SM, with 1 or 4 consumer warps, in multicast clusters of 2 and 4 (names r_*); and
consumer-bound pipelines whose consumer warp reads its stage eight times or runs 512 FFMA, at
1-12 CTAs per SM or 2-8 such warps in a CTA (8 also with 4- and 8-byte loads and ldmatrix,
and with 2, 8 and 13 stages; 7 of 8-byte loads in multicast clusters of 2 with 13 stages)
(names c_*), where the stage is the consumer's; the round trip with the consumer's TMA
store of its box before the release, alone and multicast, at 1 and 5 CTAs per SM (r_*s); and
the multicast round trip in clusters of 2, 4 and 8 at 1-8 CTAs per SM, one wave (r_rtm*w*).

    scripts/producer-sweep.py write DIR          write the descriptions
    scripts/producer-sweep.py slopes DIR [TMASIM [--params FILE]]
                                                 per-stage ns: the GPU's (NAME.json kernel_ns,
                                                 and kernel_rec_ns, the recorded launch) beside
                                                 the simulator's (tmasim sim --gpu from
                                                 meta.json's GPU)
    scripts/producer-sweep.py share DIR [TMASIM] produce_share_factor: the value (0-1, steps of
                                                 0.05) whose simulated stages best match the
                                                 sharing variants' (least squares of the log)

DIR for slopes: a recording of those descriptions (hw/corpus-record.sh DIR NAME)."""
import json
import math
import os
import subprocess
import sys
import tempfile

from fitlib import die

TENSOR = '  - {{name: {}, dtype: bf16, dims: [64, 64], box: [16, 64], swizzle: none}}'
# 4096 boxes of 2 KiB: the CTAs of a grid read distinct boxes, none is hot
BIG = '  - {{name: {}, dtype: bf16, dims: [64, 65536], box: [16, 64], swizzle: none}}'
READS = '  reads: {tensor: 0, pattern: rows, bytes_per_lane: 16, warps: 1, repeat: 2}\n'
# the consumer-bound variants' read: the same rows eight times, longer than the producer's step
READS8 = '  reads: {tensor: 0, pattern: rows, bytes_per_lane: 16, warps: 1, repeat: 8}\n'
# the same with 4- and 8-byte loads per lane, and ldmatrix .x4
READS8_W = {w: f'  reads: {{tensor: 0, pattern: rows, bytes_per_lane: {w}, warps: 1, repeat: 8}}\n' for w in (4, 8)}
READS8_LDSM = '  reads: {tensor: 0, pattern: ldsm-a, warps: 1, repeat: 8}\n'
ITERS = (100, 300)


def V(family='p', mode='warp_specialized', consumers=1, tensors=1, math='none', per=1, stages=8,
      reads=False, big=False, cluster=0, multicast=False, other='', amount=None, ctas=None):
    """A variant: its name prefix (p, n, s or r), the description's fields, and `other`
    lines written before the consumer's; ctas: the grid (132 x per CTAs when None)."""
    return dict(family=family, mode=mode, consumers=consumers, tensors=tensors, math=math, per=per,
                stages=stages, reads=reads, big=big, cluster=cluster, multicast=multicast, other=other,
                amount=amount, ctas=ctas)


# clusters of 2, 4 and 8 resident at once with 1 and with 8 CTAs per SM on the H200
# (tmahw calibrate --only clusters; the simulator's clustersN_at1 / _at8)
RESIDENT = {2: (66, 528), 4: (30, 248), 8: (15, 124)}


def one_wave(c, per):
    """The CTAs of as many whole clusters of c as are resident at once with per CTAs per SM."""
    at1, at8 = RESIDENT[c]
    return c * (at1 if per == 1 else per * at8 // 8)


WS, MS, CP, ST = 'warp_specialized', 'multistage', 'cp_async', 'st_async'
WAIT_PRIOR = 'cpasync: {sync: wait_prior}\n'
STORE = 'store: {bytes: 2048, every: 1}\n'
VARIANTS = {
    'ws_t1': V(), 'ws_t2': V(tensors=2), 'ws_t3': V(tensors=3),
    'ms_t1': V(mode=MS), 'ms_t2': V(mode=MS, tensors=2), 'ms_t3': V(mode=MS, tensors=3),
    'wsmc_t1': V(cluster=2, multicast=True), 'wsmc_t2': V(tensors=2, cluster=2, multicast=True),
    'cp_t1': V(mode=CP, other=WAIT_PRIOR), 'cp_t2': V(mode=CP, tensors=2, other=WAIT_PRIOR),
    'st_t1': V(mode=ST, cluster=2),
    'wsfma_t1': V(consumers=4, math='fma'), 'wsfma_t2': V(consumers=4, tensors=2, math='fma'),
    'ws4_t1': V(per=4),
    # neighbours: consumer warps reading the stage (16-byte rows, twice) or issuing mma.sync
    'rd2': V('n', consumers=2, reads=True), 'rd4': V('n', consumers=4, reads=True),
    'rd7': V('n', consumers=7, reads=True),
    'mma2': V('n', consumers=2, math='mma'), 'mma4': V('n', consumers=4, math='mma'),
    # sharing: 3-15 consumer warps without reads or math (0-3 of them on the producer's
    # sub-partition, warp w on w % 4), the same with FFMA, and 1-8 CTAs per SM each reading
    # its own boxes of the 8 MiB tensor
    'idle3': V('s', consumers=3), 'idle4': V('s', consumers=4), 'idle8': V('s', consumers=8),
    'idle15': V('s', consumers=15),
    'fma3': V('s', consumers=3, math='fma'), 'fma8': V('s', consumers=8, math='fma'),
    'fma15': V('s', consumers=15, math='fma'),
    'big1': V('s', big=True), 'big2': V('s', big=True, per=2), 'big4': V('s', big=True, per=4),
    'big8': V('s', big=True, per=8),
    # round trip: one stage, so each iteration is the copy's flight, the consumer's wake, its
    # read (16-byte rows of the 8 MiB tensor's box) and release, and the producer's wake and
    # step, at 1-16 CTAs per SM; without the read at 1, 4 and 12
    **{f'rt{n}': V('r', stages=1, big=True, reads=True, per=n) for n in (1, 2, 4, 8, 12, 16)},
    **{f'rtn{n}': V('r', stages=1, big=True, per=n) for n in (1, 4, 12)},
    # the same round trip with 4 reading consumer warps, and in multicast clusters of 2 and 4
    # (each consumer's release arrives on every CTA of its cluster)
    'rtw4': V('r', consumers=4, stages=1, big=True, reads=True),
    'rtw4p4': V('r', consumers=4, stages=1, big=True, reads=True, per=4),
    'rtm2': V('r', stages=1, big=True, reads=True, cluster=2, multicast=True),
    'rtm4': V('r', stages=1, big=True, reads=True, cluster=4, multicast=True),
    'rtm2p4': V('r', stages=1, big=True, reads=True, cluster=2, multicast=True, per=4),
    'rtm4p8': V('r', stages=1, big=True, reads=True, cluster=4, multicast=True, per=8),
    # consumer-bound: one consumer warp per CTA reading its stage's rows eight times (or
    # running 512 FFMA without reads), stages of the 8 MiB tensor, at 1-12 CTAs per SM; and
    # 2, 4, 8 such reading warps in one CTA, 4 stages (names c_*)
    **{f'cr{n}': V('c', big=True, reads=READS8, per=n, stages=4) for n in (1, 4, 8, 12)},
    **{f'cw{n}': V('c', consumers=n, big=True, reads=READS8, stages=4) for n in (2, 4, 8)},
    **{f'cf{n}': V('c', big=True, math='fma', amount=512, per=n, stages=4) for n in (1, 12)},
    # 8 reading warps with narrower loads and with ldmatrix: the read's instructions by width
    **{f'cw8b{w}': V('c', consumers=8, big=True, reads=READS8_W[w], stages=4) for w in (4, 8)},
    'cw8l': V('c', consumers=8, big=True, reads=READS8_LDSM, stages=4),
    # the reading warps' drift by the ring's depth: 8 reading warps with 2, 8 and 13 stages
    # (cw8 has 4), and 7 warps of 8-byte loads in multicast clusters of 2 with 13 stages,
    # whose consumers never wait for data
    **{f'cw8s{n}': V('c', consumers=8, big=True, reads=READS8, stages=n) for n in (2, 8, 13)},
    'cw7mc': V('c', consumers=7, big=True, reads=READS8_W[8], stages=13, cluster=2, multicast=True),
    # the round trip with the consumer's TMA store of its box (and its wait for the box to be
    # read out) before the release, alone and in multicast clusters of 2, at 1 and 5 CTAs per
    # SM; and the multicast round trip at 5 CTAs per SM without it
    'rts': V('r', stages=1, big=True, reads=True, other=STORE),
    'rtp5s': V('r', stages=1, big=True, reads=True, per=5, other=STORE),
    'rtm2s': V('r', stages=1, big=True, reads=True, cluster=2, multicast=True, other=STORE),
    'rtm2p5s': V('r', stages=1, big=True, reads=True, cluster=2, multicast=True, per=5, other=STORE),
    'rtm2p5': V('r', stages=1, big=True, reads=True, cluster=2, multicast=True, per=5),
    # the multicast round trip in one wave: clusters of 2, 4 and 8 at 1, 2, 4 and 8 CTAs per
    # SM, the grid as many whole clusters as are resident at once
    **{f'rtm{c}w{n}': V('r', stages=1, big=True, reads=True, cluster=c, multicast=True, per=n,
                        ctas=one_wave(c, n)) for c in (2, 4, 8) for n in (1, 2, 4, 8)},
}


def stem(name, iters):
    """The description's name: the variant's family prefix, its name, its iterations."""
    return f"{VARIANTS[name]['family']}_{name}_i{iters}"


def description(name, v, iters):
    producer = 'producer: 1, ' if v['mode'] in (WS, ST) else ''
    cluster = (f"cluster: {{size: {v['cluster']}, multicast: {'true' if v['multicast'] else 'false'}}}\n"
               if v['cluster'] else '')
    tensors = '\n'.join((BIG if v['big'] else TENSOR).format('ABC'[t]) for t in range(v['tensors']))
    amount = {'none': '', 'fma': ', amount: 64', 'mma': ', amount: 4096'}[v['math']]
    if v['amount']:
        amount = f", amount: {v['amount']}"
    return (f"# scripts/producer-sweep.py: {name}\nname: {stem(name, iters)}\nmode: {v['mode']}\n"
            f"grid: {{ctas: {v['ctas'] or 132 * v['per']}, ctas_per_sm: {v['per']}}}\n{cluster}"
            f"warps: {{{producer}consumer: {v['consumers']}}}\nstages: {v['stages']}\n"
            f"iterations: {iters}\ntensors:\n{tensors}\n{v['other']}consumer:\n"
            f"{(v['reads'] if isinstance(v['reads'], str) else READS) if v['reads'] else ''}  math: {{kind: {v['math']}{amount}}}\n")


def write(d):
    os.makedirs(d, exist_ok=True)
    for name, v in VARIANTS.items():
        for it in ITERS:
            with open(os.path.join(d, stem(name, it) + '.yaml'), 'w') as f:
                f.write(description(name, v, it))


def gpu_set(d):
    meta = os.path.join(d, 'meta.json')
    if not os.path.isfile(meta):
        die(f'DIR: {d!r} has no meta.json (a recording by hw/corpus-record.sh)')
    return 'h200' if 'H200' in json.load(open(meta)).get('gpu', '') else 'h100'


def slope(d, name, tmasim, gpu, extra):
    """(GPU, recorded launch, simulator) ns per stage of one variant, or None if not recorded."""
    got = []
    for it in ITERS:
        base = os.path.join(d, stem(name, it))
        if not os.path.isfile(base + '.json'):
            return None
        rec = json.load(open(base + '.json'))
        out = subprocess.run([tmasim, 'sim', base + '.yaml', '--gpu', gpu, '--format', 'json'] + extra,
                             capture_output=True, text=True)
        if out.returncode != 0:
            die(f"{base}.yaml: tmasim sim: {out.stderr.strip() or 'exit ' + str(out.returncode)}")
        got.append((rec['kernel_ns'], rec['kernel_rec_ns'], json.loads(out.stdout)['kernel_ns']))
    return tuple((got[1][k] - got[0][k]) / (ITERS[1] - ITERS[0]) for k in range(3))


def slopes(d, tmasim, extra):
    gpu = gpu_set(d)
    lines = []
    for name in VARIANTS:
        got = slope(d, name, tmasim, gpu, extra)
        if got is None:
            lines.append(f'{name:9s} (not recorded)')
            continue
        hw, rec, sim = got
        lines.append(f'{name:9s} {hw:12.1f} {rec:9.1f} {sim:7.1f} {sim / hw:8.3f}')
    print(f'{"variant":9s} {"gpu ns/stage":>12s} {"recorded":>9s} {"sim":>7s} {"sim/gpu":>8s}')
    print('\n'.join(lines))


# the variants whose producer shares its sub-partition: other consumer warps, FFMA warps or
# other CTAs' producers on it
SHARED = ('idle4', 'idle8', 'idle15', 'fma8', 'fma15', 'big4', 'big8')


def share(d, tmasim):
    """produce_share_factor: the value whose simulated steps best match the GPU's over the
    SHARED variants (least squares of log(sim / gpu), in steps of 0.05)."""
    gpu = gpu_set(d)
    best = None
    for k in range(21):
        a = k * 0.05
        with tempfile.NamedTemporaryFile('w', suffix='.params', delete=False) as f:
            # a parameter file takes positive values only: 1e-6 stands for none
            f.write(f'produce_share_factor = {max(a, 1e-6)}\n')
        errs = [math.log(s[2] / s[0]) for s in (slope(d, n, tmasim, gpu, ['--params', f.name]) for n in SHARED) if s]
        os.unlink(f.name)
        if not errs:
            die(f'DIR: {d!r} holds none of the sharing variants ' + ', '.join(SHARED))
        rms = math.sqrt(sum(e * e for e in errs) / len(errs))
        print(f'produce_share_factor {a:4.2f}: rms log(sim/gpu) {rms:.4f} (n {len(errs)})')
        if best is None or rms < best[1]:
            best = (a, rms)
    print(f'best: produce_share_factor = {best[0]:.2f}')


if len(sys.argv) < 3 or sys.argv[1] not in ('write', 'slopes', 'share'):
    die('usage: producer-sweep.py write DIR | slopes DIR [TMASIM [--params FILE]] | share DIR [TMASIM]')
if sys.argv[1] == 'write':
    write(sys.argv[2])
else:
    tm = sys.argv[3] if len(sys.argv) > 3 else 'build/rel/tmasim'
    if not os.access(tm, os.X_OK):
        die(f'TMASIM: {tm!r} is not an executable (make build/rel/tmasim)')
    if sys.argv[1] == 'share':
        share(sys.argv[2], tm)
    else:
        slopes(sys.argv[2], tm, sys.argv[4:])
