#!/usr/bin/env python3
# How well a recording repeats: the same descriptions' kernel times (NAME.json kernel_ns, the
# median of the timed launches without recording) in two recordings, NEW over OLD. Only
# runs that finished correctly in both count; descriptions OLD/superseded.txt names (the
# generated kernel changed between the two) are listed apart.
#   python3 scripts/rerun-spread.py OLD NEW [--over PCT]
# Prints the spread of NEW/OLD (median, p10, p90, largest deviation), how many deviate by
# more than 3, 5, 10 and 15%, and every description past --over (default 10) percent.
import json
import os
import sys

from fitlib import die, pct


def kernel_ns(d, name):
    """The recording's kernel time, or None where the run failed or was not correct."""
    try:
        rep = json.load(open(os.path.join(d, name + '.json')))
    except (OSError, ValueError):
        return None
    if not rep.get('correct') or not rep.get('kernel_ns'):
        return None
    return float(rep['kernel_ns'])


def superseded(d):
    try:
        return {l.strip() for l in open(os.path.join(d, 'superseded.txt')) if l.strip() and l[0] != '#'}
    except OSError:
        return set()


def main(argv):
    args, over = [], 10.0
    i = 0
    while i < len(argv):
        if argv[i] == '--over':
            if i + 1 >= len(argv):
                die('--over: missing value (a percentage)')
            try:
                over = float(argv[i + 1])
            except ValueError:
                die(f'--over: {argv[i + 1]!r} (allowed a number, percent)')
            i += 2
            continue
        args.append(argv[i])
        i += 1
    if len(args) != 2 or not all(os.path.isdir(a) for a in args):
        die('usage: rerun-spread.py OLD NEW [--over PCT] (two recorded corpus folders)')
    old, new = args
    skip = superseded(old)
    names = sorted(f[:-5] for f in os.listdir(new) if f.endswith('.json') and f.count('.') == 1
                   and f != 'meta.json')
    ratios, changed = [], []
    for n in names:
        a, b = kernel_ns(old, n), kernel_ns(new, n)
        if a is None or b is None:
            continue
        (changed if n in skip else ratios).append((b / a, n))
    if not ratios:
        die(f'no description recorded correctly in both {old} and {new}')
    r = [x for x, _ in ratios]
    dev = [abs(x - 1) * 100 for x in r]
    print(f'{new} over {old}: {len(r)} descriptions recorded correctly in both '
          f'({len(changed)} superseded in {old} left out)')
    print(f'  new/old median {pct(r, 50):.3f}, p10 {pct(r, 10):.3f}, p90 {pct(r, 90):.3f}; '
          f'|deviation| median {pct(dev, 50):.1f}%, largest {max(dev):.1f}%')
    print('  ' + ', '.join(f'>{t}%: {sum(1 for x in dev if x > t)}' for t in (3, 5, 10, 15)))
    for x, n in sorted(ratios, key=lambda t: -abs(t[0] - 1)):
        if abs(x - 1) * 100 > over:
            print(f'  {n}  {x:.3f}')


if __name__ == '__main__':
    main(sys.argv[1:])
