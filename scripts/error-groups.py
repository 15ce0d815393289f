#!/usr/bin/env python3
"""Where the simulator misses on a recorded corpus: the signed kernel-time error of every
usable recording (`tmasim accuracy DIR --split S --list --format csv`), grouped by what its
description says (mode, CTAs per SM, stages, math kind, cluster and multicast, read
pattern, store), and by CTAs per SM crossed with stages. A group whose median signed error
is far from 0 points at a mechanism the model lacks; its median |error| says how much it
costs.

    scripts/error-groups.py DIR [--split fit|test|all] [--tmasim PATH] [--params FILE]

Prints per group: n, the median signed error (+: the model is slower than the GPU) and the
median |error|, in %. Exit status 0, or 2 on bad input."""
import csv
import io
import os
import statistics
import subprocess
import sys

from fitlib import die, field


def parse(argv):
    opts = {'split': 'all', 'tmasim': 'build/rel/tmasim', 'params': None}
    rest = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ('-h', '--help'):
            print(__doc__)
            sys.exit(0)
        if a in ('--split', '--tmasim', '--params'):
            if i + 1 >= len(argv):
                die(f'{a}: missing its value')
            opts[a[2:]] = argv[i + 1]
            i += 2
            continue
        if a.startswith('-'):
            die(f'{a}: unknown flag (allowed --split, --tmasim, --params, --help)')
        rest.append(a)
        i += 1
    if len(rest) != 1:
        die('usage: error-groups.py DIR [--split fit|test|all] [--tmasim PATH] [--params FILE]')
    if opts['split'] not in ('fit', 'test', 'all'):
        die(f"--split: {opts['split']!r} (allowed fit, test, all)")
    if not os.path.isdir(rest[0]):
        die(f'DIR: {rest[0]!r} is not a directory')
    if not os.access(opts['tmasim'], os.X_OK):
        die(f"--tmasim: {opts['tmasim']!r} is not an executable (make build/rel/tmasim)")
    return rest[0], opts


# the buckets in their natural order; other values sort by name after them
ORDER = ['1', '2', '2-4', '3-4', '4', '5-8', '8', '9+', '16']


def order(v):
    return (ORDER.index(v), '') if v in ORDER else (len(ORDER), v)


def bucket(v, edges):
    """The label of the first (limit, label) whose limit v does not pass."""
    for limit, label in edges:
        if v <= limit:
            return label
    return edges[-1][1]


def features(text):
    per = field(text, r'ctas_per_sm:\s*(\d+)', default=1)
    stages = field(text, r'^stages:\s*(\d+)', default=1)
    cluster = field(text, r'cluster:\s*\{size:\s*(\d+)', default=1)
    return {
        'mode': field(text, r'^mode:\s*(\w+)', str, '?'),
        'CTAs/SM': bucket(per, [(1, '1'), (4, '2-4'), (8, '5-8'), (99, '9+')]),
        'stages': bucket(stages, [(1, '1'), (2, '2'), (4, '3-4'), (8, '5-8'), (999, '9+')]),
        'math': field(text, r'kind:\s*(\w+)', str, 'none'),
        'cluster': 'multicast' if 'multicast: true' in text else str(cluster),
        'pattern': field(text, r'pattern:\s*([\w-]+)', str, 'no reads'),
        'store': 'reduce' if 'reduce:' in text else 'store' if 'store:' in text else 'none',
    }


def main():
    d, opts = parse(sys.argv[1:])
    cmd = [opts['tmasim'], 'accuracy', d, '--split', opts['split'], '--list', '--format', 'csv']
    if opts['params']:
        cmd += ['--params', opts['params']]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        die(f"tmasim accuracy: {out.stderr.strip() or 'exit ' + str(out.returncode)}")
    rows = []
    for r in csv.DictReader(io.StringIO(out.stdout)):
        if not r.get('err'):
            continue
        path = os.path.join(d, r['name'] + '.yaml')
        if not os.path.isfile(path):
            die(f"{path}: the description of a recording tmasim listed is missing")
        f = features(open(path).read())
        f['err'] = float(r['err']) * 100
        rows.append(f)
    if not rows:
        die(f"DIR: {d!r} has no usable recording in split {opts['split']}")
    print(f"{d}, split {opts['split']}: {len(rows)} recordings; signed error: + the model is slower")
    print(f"{'group':28s} {'n':>4s} {'signed':>8s} {'|error|':>8s}")

    def show(label, errs):
        print(f'{label:28s} {len(errs):4d} {statistics.median(errs):+7.1f}% '
              f'{statistics.median(abs(e) for e in errs):7.1f}%')

    for key in ('mode', 'CTAs/SM', 'stages', 'math', 'cluster', 'pattern', 'store'):
        groups = {}
        for f in rows:
            groups.setdefault(f[key], []).append(f['err'])
        for value in sorted(groups, key=order):
            show(f'{key} {value}', groups[value])
    crossed = {}
    for f in rows:
        crossed.setdefault((f['CTAs/SM'], f['stages']), []).append(f['err'])
    for k in sorted(crossed, key=lambda k: (order(k[0]), order(k[1]))):
        show(f'CTAs/SM {k[0]} x stages {k[1]}', crossed[k])


main()
