#!/usr/bin/env python3
"""The generated loops' step per stage, timed without recording: producer-bound pipelines
(8 stages, one consumer warp without reads or math, boxes of 2 KiB re-read from an 8 KiB
tensor that stays in L2) at 100 and 300 iterations; the difference of their kernel times
over 200 is one stage of the loop, free of launch, fill and drain. Variants: the mode
(warp_specialized, multistage, cp_async, st_async), 1-3 tensors (each extra tensor adds one
copy-to-copy step), multicast in clusters of 2, four FFMA consumer warps (one on the
producer's sub-partition), 4 CTAs per SM, neighbours: 2-7 consumer warps reading the
stage, or 2-4 issuing mma.sync (names n_*), and sharing: 3-15 idle or FFMA consumer warps,
1-8 CTAs per SM on an 8 MiB tensor (names s_*).

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
READS = '  reads: {tensor: 0, pattern: rows, bytes_per_lane: 16, warps: 1, repeat: 2}\n'
VARIANTS = {  # name: (mode, warps, tensors, extra lines, math, CTAs per SM)
    'ws_t1': ('warp_specialized', '{producer: 1, consumer: 1}', 1, '', 'none', 1),
    'ws_t2': ('warp_specialized', '{producer: 1, consumer: 1}', 2, '', 'none', 1),
    'ws_t3': ('warp_specialized', '{producer: 1, consumer: 1}', 3, '', 'none', 1),
    'ms_t1': ('multistage', '{consumer: 1}', 1, '', 'none', 1),
    'ms_t2': ('multistage', '{consumer: 1}', 2, '', 'none', 1),
    'ms_t3': ('multistage', '{consumer: 1}', 3, '', 'none', 1),
    'wsmc_t1': ('warp_specialized', '{producer: 1, consumer: 1}', 1, 'cluster: {size: 2, multicast: true}\n', 'none', 1),
    'wsmc_t2': ('warp_specialized', '{producer: 1, consumer: 1}', 2, 'cluster: {size: 2, multicast: true}\n', 'none', 1),
    'cp_t1': ('cp_async', '{consumer: 1}', 1, 'cpasync: {sync: wait_prior}\n', 'none', 1),
    'cp_t2': ('cp_async', '{consumer: 1}', 2, 'cpasync: {sync: wait_prior}\n', 'none', 1),
    'st_t1': ('st_async', '{producer: 1, consumer: 1}', 1, 'cluster: {size: 2, multicast: false}\n', 'none', 1),
    'wsfma_t1': ('warp_specialized', '{producer: 1, consumer: 4}', 1, '', 'fma', 1),
    'wsfma_t2': ('warp_specialized', '{producer: 1, consumer: 4}', 2, '', 'fma', 1),
    'ws4_t1': ('warp_specialized', '{producer: 1, consumer: 1}', 1, '', 'none', 4),
    # neighbours: consumer warps reading the stage (16-byte rows, twice) or issuing mma.sync
    'rd2': ('warp_specialized', '{producer: 1, consumer: 2}', 1, READS, 'none', 1),
    'rd4': ('warp_specialized', '{producer: 1, consumer: 4}', 1, READS, 'none', 1),
    'rd7': ('warp_specialized', '{producer: 1, consumer: 7}', 1, READS, 'none', 1),
    'mma2': ('warp_specialized', '{producer: 1, consumer: 2}', 1, '', 'mma', 1),
    'mma4': ('warp_specialized', '{producer: 1, consumer: 4}', 1, '', 'mma', 1),
    # sharing: 3-15 consumer warps without reads or math (0-3 of them on the producer's
    # sub-partition, warp w on w % 4), the same with FFMA, and 1-8 CTAs per SM each reading
    # its own boxes of an 8 MiB tensor (4096 boxes, no hot box) (names s_*)
    'idle3': ('warp_specialized', '{producer: 1, consumer: 3}', 1, '', 'none', 1),
    'idle4': ('warp_specialized', '{producer: 1, consumer: 4}', 1, '', 'none', 1),
    'idle8': ('warp_specialized', '{producer: 1, consumer: 8}', 1, '', 'none', 1),
    'idle15': ('warp_specialized', '{producer: 1, consumer: 15}', 1, '', 'none', 1),
    'fma3': ('warp_specialized', '{producer: 1, consumer: 3}', 1, '', 'fma', 1),
    'fma8': ('warp_specialized', '{producer: 1, consumer: 8}', 1, '', 'fma', 1),
    'fma15': ('warp_specialized', '{producer: 1, consumer: 15}', 1, '', 'fma', 1),
    'big1': ('warp_specialized', '{producer: 1, consumer: 1}', 1, 'big', 'none', 1),
    'big2': ('warp_specialized', '{producer: 1, consumer: 1}', 1, 'big', 'none', 2),
    'big4': ('warp_specialized', '{producer: 1, consumer: 1}', 1, 'big', 'none', 4),
    'big8': ('warp_specialized', '{producer: 1, consumer: 1}', 1, 'big', 'none', 8),
    # round trip: one stage, so each iteration is the copy's flight, the consumer's wake, its
    # read (16-byte rows of the 8 MiB tensor's box) and release, and the producer's wake and
    # step, at 1-16 CTAs per SM; without the read at 1, 4 and 12 (names r_*)
    'rt1': ('warp_specialized', '{producer: 1, consumer: 1}', 1, 'big+reads', 'none', 1, 1),
    'rt2': ('warp_specialized', '{producer: 1, consumer: 1}', 1, 'big+reads', 'none', 2, 1),
    'rt4': ('warp_specialized', '{producer: 1, consumer: 1}', 1, 'big+reads', 'none', 4, 1),
    'rt8': ('warp_specialized', '{producer: 1, consumer: 1}', 1, 'big+reads', 'none', 8, 1),
    'rt12': ('warp_specialized', '{producer: 1, consumer: 1}', 1, 'big+reads', 'none', 12, 1),
    'rt16': ('warp_specialized', '{producer: 1, consumer: 1}', 1, 'big+reads', 'none', 16, 1),
    'rtn1': ('warp_specialized', '{producer: 1, consumer: 1}', 1, 'big', 'none', 1, 1),
    'rtn4': ('warp_specialized', '{producer: 1, consumer: 1}', 1, 'big', 'none', 4, 1),
    'rtn12': ('warp_specialized', '{producer: 1, consumer: 1}', 1, 'big', 'none', 12, 1),
    # the same round trip with 4 reading consumer warps, and in multicast clusters of 2 and 4
    # (each consumer's release arrives on every CTA of its cluster)
    'rtw4': ('warp_specialized', '{producer: 1, consumer: 4}', 1, 'big+reads', 'none', 1, 1),
    'rtw4p4': ('warp_specialized', '{producer: 1, consumer: 4}', 1, 'big+reads', 'none', 4, 1),
    'rtm2': ('warp_specialized', '{producer: 1, consumer: 1}', 1, 'big+reads+mc2', 'none', 1, 1),
    'rtm4': ('warp_specialized', '{producer: 1, consumer: 1}', 1, 'big+reads+mc4', 'none', 1, 1),
    'rtm2p4': ('warp_specialized', '{producer: 1, consumer: 1}', 1, 'big+reads+mc2', 'none', 4, 1),
    'rtm4p8': ('warp_specialized', '{producer: 1, consumer: 1}', 1, 'big+reads+mc4', 'none', 8, 1),
}
BIG = '  - {{name: {}, dtype: bf16, dims: [64, 65536], box: [16, 64], swizzle: none}}'
SHARING = ('idle', 'fma3', 'fma8', 'fma15', 'big')
ITERS = (100, 300)


def stem(name, iters):
    """The description's name: n_ for the neighbour variants, p_ for the others."""
    prefix = ('n' if name.startswith(('rd', 'mma')) else 's' if name.startswith(SHARING) else
              'r' if name.startswith('rt') else 'p')
    return f"{prefix}_{name}_i{iters}"


def description(name, v, iters):
    mode, warps, nt, extra, math, per = v[:6]
    stages = v[6] if len(v) > 6 else 8
    big = extra.startswith('big')
    cluster = (extra if extra.startswith('cluster') else
               f'cluster: {{size: {extra[-1]}, multicast: true}}\n' if '+mc' in extra else '')
    reads = extra if extra.startswith('  reads') else READS if extra.startswith('big+reads') else ''
    other = extra if not cluster and not reads and not big else ''
    tensors = '\n'.join((BIG if big else TENSOR).format('ABC'[t]) for t in range(nt))
    amount = {'none': '', 'fma': ', amount: 64', 'mma': ', amount: 4096'}[math]
    return (f'# scripts/producer-sweep.py: {name}\nname: {stem(name, iters)}\nmode: {mode}\n'
            f'grid: {{ctas: {132 * per}, ctas_per_sm: {per}}}\n{cluster}warps: {warps}\nstages: {stages}\n'
            f'iterations: {iters}\ntensors:\n{tensors}\n{other}consumer:\n{reads}  math: {{kind: {math}{amount}}}\n')


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
            die(f'{base}.yaml: tmasim sim: {out.stderr.strip()}')
        got.append((rec['kernel_ns'], rec['kernel_rec_ns'], json.loads(out.stdout)['kernel_ns']))
    return tuple((got[1][k] - got[0][k]) / (ITERS[1] - ITERS[0]) for k in range(3))


def slopes(d, tmasim, extra):
    gpu = gpu_set(d)
    print(f'{"variant":9s} {"gpu ns/stage":>12s} {"recorded":>9s} {"sim":>7s} {"sim/gpu":>8s}')
    for name in VARIANTS:
        got = slope(d, name, tmasim, gpu, extra)
        if got is None:
            print(f'{name:9s} (not recorded)')
            continue
        hw, rec, sim = got
        print(f'{name:9s} {hw:12.1f} {rec:9.1f} {sim:7.1f} {sim / hw:8.3f}')


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
