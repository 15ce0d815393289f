#!/bin/bash
# One device call: hw/record-check.sh of this tree against ../base (same call), then
# Nsight Compute's per-instruction warp sampling of recorded and unrecorded kernels.
#   bash call.sh COMMIT      (in .xfer/record/new; results under $OUT)
# (As used for the 11:05 UTC call. The 10:49 call ran it without OLDC (289d105) and with
# NCU_RUNS "double_buffer cpasync_multistage"; the 11:00 call with NCU_RUNS defaulting as here.)
set -u
OUT=${OUT:-/tmp/out}; export OUT
C=${1:-unknown}
NOBUILD=1 COMMIT=$C OLD=../base OLD_COMMIT=${OLDC:-289d105} CORPUS=corpus8 CORPUS_STRIDE=1 OLD_STRIDE=1 REPS=21 HAND_PAIRS=7 \
  DEADLINE=60 SASS="${SASS_LIST:-double_buffer cpasync_multistage cpasync_wait_prior full_grid consumer_swizzle_128b corpus_0001_0056 corpus_0001_0160}" \
  timeout 400 bash hw/record-check.sh >/tmp/rc.out 2>&1
echo "record-check exit $?"
# a few traces and every run's json (runs.tgz is too large to bring back whole)
mkdir -p /tmp/tr && tar xzf "$OUT/runs.tgz" -C /tmp/tr 2>/dev/null
(cd /tmp/tr && tar czf "$OUT/tr.tgz" $(ls runs/*/*.json runs/*/double_buffer.tmt runs/*/cpasync_multistage.tmt runs/*/consumer_swizzle_128b.tmt 2>/dev/null))
rm -f "$OUT/runs.tgz"
if [ -n "${NCU:-1}" ] && command -v ncu >/dev/null; then
  N=/tmp/ncu; mkdir -p $N; s0=$(date +%s)
  S="--section SourceCounters --section WarpStateStats --section LaunchStats"
  for b in hand_tma hand_tma_norec; do
    timeout 60 ncu $S -k rowsum -s 1 -c 1 -f -o $N/$b build/rel/examples/$b --reps 2 >$N/$b.log 2>&1
  done
  for n in ${NCU_RUNS:-double_buffer cpasync_multistage corpus_0001_0016}; do
    f=examples/$n.yaml; [ -f $f ] || f=corpus8/$n.yaml
    timeout 90 ncu $S -k tmahw_pipe -s 1 -c 2 -f -o $N/$n build/rel/tmahw run $f -o /tmp/x.tmt --reps 1 --no-counters >$N/$n.log 2>&1
  done
  for r in $N/*.ncu-rep; do
    ncu -i $r --page source --csv --print-source sass >${r%.ncu-rep}.src.csv 2>&1
    ncu -i $r --page details --csv >${r%.ncu-rep}.det.csv 2>&1
  done
  rm -f $N/*.ncu-rep; tar czf $OUT/ncu.tgz -C /tmp ncu; echo "ncu: $(( $(date +%s) - s0 )) s"; ls -la $N | head -20
fi
sed -n '/== checks/,$p' "$OUT/record-check.log" | grep -v "^PASS"
