#!/usr/bin/env python3
"""A trace's shared-memory read spans, split by whether the stage's wait blocked.

    scripts/record-read-spans.py TRACE.tmt...     (TMASIM: build/rel/tmasim)

For each trace: the reads that start where a wait ended (the warp stalled for the stage)
and the others (its wait did not block), count, median and mean duration in ns; the median
of every span kind (reads, math, waits, copies in flight); and for the reads that follow a
stall (starting within 300 ns of the warp's last wait end) the time from the wait's end to
the read's start and to its end. Used to compare recordings of the same kernel made with
two versions of the recording (hw/README.md, "Where the recording costs": where a read's
clock is taken)."""
import collections
import os
import statistics
import sys
import tempfile

import fitlib


def per_warp(tmasim, path):
    with tempfile.TemporaryDirectory() as tmp:
        ev = fitlib.trace_events(tmasim, path, os.path.join(tmp, "t.json"))
    by = collections.defaultdict(list)
    for e in ev:
        if e.get("ph") == "X":
            by[(e.get("pid"), e.get("tid"))].append(e)
    return by


def kinds(by):
    """median duration (ns) and count of each span kind"""
    d = collections.defaultdict(list)
    for evs in by.values():
        for e in evs:
            d[e["name"].split()[0]].append(1000.0 * e["dur"])
    return "  ".join("%s n%d med %.0f" % (k, len(v), statistics.median(v)) for k, v in sorted(d.items()))


def after_stall(by):
    """(wait end -> read start, wait end -> read end) in ns of each read within 300 ns of
    its warp's last wait end"""
    starts, ends = [], []
    for evs in by.values():
        last = None
        for e in sorted(evs, key=lambda e: e["ts"]):
            if e["name"].startswith("wait"):
                last = e["ts"] + e["dur"]
            elif e["name"].startswith("smem_read"):
                if last is not None and -0.001 <= e["ts"] - last < 0.3:   # (float rounding of the end)
                    starts.append(1000.0 * (e["ts"] - last))
                    ends.append(1000.0 * (e["ts"] + e["dur"] - last))
                last = None
    return starts, ends


def spans(by):
    after, free = [], []
    for evs in by.values():
        ends = [e["ts"] + e["dur"] for e in evs if e["name"].startswith("wait")]
        for e in evs:
            if e["name"].startswith("smem_read"):
                # trace times are microseconds: a wait ending within 30 ns before the read
                (after if any(abs(e["ts"] - t) < 0.03 for t in ends) else free).append(1000.0 * e["dur"])
    return after, free


def show(v):
    return "%5d reads, median %7.1f ns, mean %7.1f ns" % (len(v), statistics.median(v), statistics.mean(v)) if v else "none"


def main():
    tmasim = os.environ.get("TMASIM", "build/rel/tmasim")
    if len(sys.argv) < 2:
        sys.exit("usage: record-read-spans.py TRACE.tmt...")
    for path in sys.argv[1:]:
        by = per_warp(tmasim, path)
        after, free = spans(by)
        print("%s\n  after a stall: %s\n  no stall:      %s" % (path, show(after), show(free)))
        print("  spans: %s" % kinds(by))
        st, en = after_stall(by)
        if st:
            print("  reads within 300 ns of a stall's end: %d, wait end -> read start median %.0f ns, -> read end %.0f ns"
                  % (len(st), statistics.median(st), statistics.median(en)))


if __name__ == "__main__":
    main()
