# Shared helpers of the measurement scripts (copy-steps.py, instr-counts.py): the corpus's
# descriptions with their split, a least-squares solve and percentiles, without packages
# beyond Python's standard library.
import json
import os
import re
import subprocess
import sys


# Bytes per element of the tensor dtypes a description may name (sim/tm.c, whole bytes).
DTYPE_BYTES = {'u8': 1, 'u16': 2, 'f16': 2, 'bf16': 2, 'u32': 4, 's32': 4, 'f32': 4, 'f32ftz': 4,
               'tf32': 4, 'tf32ftz': 4, 'u64': 8, 's64': 8, 'f64': 8}


def die(msg):
    """Bad input: one line on stderr naming the script, exit status 2."""
    print(f'{os.path.basename(sys.argv[0])}: {msg}', file=sys.stderr)
    sys.exit(2)


def half_arg():
    """The corpus half a script looks at: its first argument, fit by default."""
    half = sys.argv[1] if len(sys.argv) > 1 else 'fit'
    if half not in ('fit', 'test', 'all'):
        die(f'half: {half!r} (allowed fit, test, all)')
    return half


def split_of(name):
    """The corpus split of a description name (sim/corpus.c corpus_split): the low bit of
    the name's 64-bit FNV-1a hash, 1 = test."""
    h = 0xCBF29CE484222325
    for ch in name.encode():
        h = ((h ^ ch) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return 'test' if h & 1 else 'fit'


def descriptions(dirs, prefix='corpus_', half='all', ext='.yaml'):
    """(name, dir) of every PREFIX*EXT file in dirs whose name has no other dot (NAME.yaml,
    NAME.json, NAME.counters.json ...), of the corpus half `half` (fit, test or all), sorted."""
    out = []
    for d in dirs:
        if not os.path.isdir(d):
            die(f'DIR: {d!r} is not a directory (run from the repository root, or name the corpus directories)')
        for f in sorted(os.listdir(d)):
            name = f[:-len(ext)]
            if f.startswith(prefix) and f.endswith(ext) and '.' not in name and half in ('all', split_of(name)):
                out.append((name, d))
    return out


def field(text, pattern, conv=int, default=None):
    m = re.search(pattern, text, re.M)
    return conv(m.group(1)) if m else default


def lstsq(X, Y):
    """Least squares by the normal equations (small systems); a column of zeros gets 0."""
    k = len(X[0])
    M = [[sum(x[i] * x[j] for x in X) for j in range(k)] + [sum(x[i] * y for x, y in zip(X, Y))] for i in range(k)]
    for c in range(k):
        p = max(range(c, k), key=lambda r: abs(M[r][c]))
        M[c], M[p] = M[p], M[c]
        if abs(M[c][c]) < 1e-12:
            continue
        for r in range(k):
            if r != c:
                f = M[r][c] / M[c][c]
                M[r] = [a - f * b for a, b in zip(M[r], M[c])]
    return [M[i][k] / M[i][i] if abs(M[i][i]) > 1e-12 else 0.0 for i in range(k)]


def relative_fit(half, cols, X, Y, width):
    """Least squares of each kernel's count relative to itself (every kernel weighs the same)
    on its events; prints the instructions per event and the spread of the fit. Returns them."""
    coef = lstsq([[x / y for x in r] for r, y in zip(X, Y)], [1.0] * len(Y))
    res = [sum(k * x for k, x in zip(coef, r)) / y - 1 for r, y in zip(X, Y)]
    print(f'{half} half: {len(Y)} kernels; instructions per event:')
    for c, v in zip(cols, coef):
        print(f'  {c:{width}s} {v:8.2f}')
    print(f'  each kernel\'s count predicted within {100 * pct(res, 10):+.0f}% .. {100 * pct(res, 90):+.0f}% (p10 .. p90)')
    return coef


def pct(v, q):
    v = sorted(v)
    i = (len(v) - 1) * q / 100
    lo = int(i)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (i - lo)


def trace_events(tmasim, tmt, tmp):
    """The trace's events as Chrome JSON dicts (tmasim export)."""
    if not os.access(tmasim, os.X_OK):
        die(f'TMASIM: {tmasim!r} is not an executable (make build/rel/tmasim)')
    subprocess.run([tmasim, 'export', tmt, '--chrome', tmp], check=True, capture_output=True)
    with open(tmp) as f:
        ev = json.load(f)
    os.remove(tmp)
    return ev['traceEvents'] if isinstance(ev, dict) else ev

