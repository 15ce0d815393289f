#!/usr/bin/env python3
"""A trace's shared-memory read spans, split by whether the stage's wait blocked.

    scripts/record-read-spans.py TRACE.tmt...     (TMASIM: build/rel/tmasim)

For each trace: the reads that start where a wait ended (the warp stalled for the stage)
and the others (its wait did not block), count, median and mean duration in ns. Used to
compare recordings of the same kernel made with two versions of the recording
(hw/README.md, "Where the recording costs": where a read's clock is taken)."""
import collections
import os
import statistics
import sys
import tempfile

import fitlib


def spans(tmasim, path):
    with tempfile.TemporaryDirectory() as tmp:
        ev = fitlib.trace_events(tmasim, path, os.path.join(tmp, "t.json"))
    by = collections.defaultdict(list)
    for e in ev:
        if e.get("ph") == "X":
            by[(e.get("pid"), e.get("tid"))].append(e)
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
        after, free = spans(tmasim, path)
        print("%s\n  after a stall: %s\n  no stall:      %s" % (path, show(after), show(free)))


if __name__ == "__main__":
    main()
