#!/bin/bash
# One device call: hw/record-check.sh of this tree against ../base (OLD) and ../c5e (OLD2)
# in the same call; a few recordings of each back for the read spans.
#   bash call.sh COMMIT      (in .xfer/rec2/new; results under $OUT)
set -u
OUT=${OUT:-/tmp/out}; export OUT
C=${1:-unknown}
NOBUILD=1 COMMIT=$C OLD=../base OLD_COMMIT=${OLDC:-289d105} OLD2=../c5e OLD2_COMMIT=${OLD2C:-5e149f3} \
  CORPUS=corpus8 CORPUS_STRIDE=1 OLD_STRIDE=1 REPS=21 HAND_PAIRS=7 DEADLINE=60 \
  SASS="${SASS_LIST:-double_buffer cpasync_multistage consumer_swizzle_128b}" \
  timeout 265 bash hw/record-check.sh >/tmp/rc.out 2>&1
echo "record-check exit $?"
# every run's json and the recordings of three examples by each build (runs.tgz is too
# large to bring back whole)
mkdir -p /tmp/tr && tar xzf "$OUT/runs.tgz" -C /tmp/tr 2>/dev/null
(cd /tmp/tr && tar czf "$OUT/tr.tgz" $(ls runs/*.json runs/*/*.json runs/double_buffer.tmt runs/cpasync_multistage.tmt \
    runs/consumer_swizzle_128b.tmt runs/old*-/double_buffer.tmt runs/old*-/cpasync_multistage.tmt \
    runs/old*-/consumer_swizzle_128b.tmt 2>/dev/null))
rm -f "$OUT/runs.tgz"
ls -la "$OUT"
sed -n '/== checks/,$p' "$OUT/record-check.log" | grep -v "^PASS"
