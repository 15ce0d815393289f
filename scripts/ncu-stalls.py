#!/usr/bin/env python3
"""Where a kernel's warps stall, per SASS instruction, from Nsight Compute's source page.

    ncu --section SourceCounters -k KERNEL -o R APP ...
    ncu -i R.ncu-rep --page source --csv --print-source sass > R.csv
    scripts/ncu-stalls.py R.csv [--top N] [--lines A-B]

For each profiled launch in the file: the warp-state samples by stall reason, then the N
instructions with the most samples (index, SASS, samples, the three largest reasons, the
instruction before it); --lines prints a range of instructions with their samples and
execution counts. hw/README.md ("Where the recording costs") reads hand_tma and the
generated kernels with and without recording this way."""
import argparse
import collections
import csv


def launches(path):
    cur, hdr = None, None
    with open(path, newline="") as f:
        for row in csv.reader(f):
            if not row:
                continue
            if row[0] == "Kernel Name":
                if cur:
                    yield cur
                cur, hdr = {"name": row[1], "rows": []}, None
            elif row[0] == "Address":
                hdr = row
            elif hdr and cur is not None:
                cur["rows"].append(dict(zip(hdr, row)))
    if cur:
        yield cur


def num(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return 0.0


SAMPLES = "Warp Stall Sampling (All Samples)"


def reasons(row):
    return {c[6:]: num(v) for c, v in row.items() if c.startswith("stall_") and "(Not Issued)" not in c}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("--lines", default="")
    a = ap.parse_args()
    for k, launch in enumerate(launches(a.csv)):
        rows = launch["rows"]
        total = sum(num(r[SAMPLES]) for r in rows) or 1.0
        by = collections.Counter()
        for r in rows:
            by.update(reasons(r))
        print("launch %d %s: %d instructions, %d samples, %d warp instructions executed" %
              (k, launch["name"][:40], len(rows), total, sum(num(r["Instructions Executed"]) for r in rows)))
        print("  " + "  ".join("%s %.1f%%" % (c, 100 * v / total) for c, v in by.most_common(8)))
        top = sorted(range(len(rows)), key=lambda i: -num(rows[i][SAMPLES]))[:a.top]
        for i in sorted(top):
            r = rows[i]
            rs = sorted(((v, c) for c, v in reasons(r).items() if v), reverse=True)[:3]
            print("  %5d %-58s %6d  %-40s prev: %s" % (i, r["Source"].strip()[:58], num(r[SAMPLES]),
                                                       " ".join("%s:%d" % (c, v) for v, c in rs),
                                                       rows[i - 1]["Source"].strip()[:44] if i else ""))
        if a.lines:
            lo, hi = (int(x) for x in a.lines.split("-"))
            for i in range(lo, min(hi + 1, len(rows))):
                r = rows[i]
                print("  %5d %-58s %6d %9d" % (i, r["Source"].strip()[:58], num(r[SAMPLES]), num(r["Instructions Executed"])))


if __name__ == "__main__":
    main()
