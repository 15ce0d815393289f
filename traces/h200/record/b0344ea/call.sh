#!/bin/bash
# One device call: hw/record-check.sh of this tree (new) against ../base (OLD) and ../b
# (OLD2) in the same call; the recordings of a few kernels by each build for the read
# spans, and the wait sites of their recorded SASS.
#   bash call.sh COMMIT      (in .xfer/rec/new; results under $OUT)
set -u
OUT=${OUT:-/tmp/out}; export OUT
C=${1:-unknown}
NOBUILD=1 COMMIT=$C OLD=../base OLD_COMMIT=${OLDC:-00924fc} OLD2=../b OLD2_COMMIT=${OLD2C:-d44111c} \
  CORPUS=corpus8 CORPUS_STRIDE=1 OLD_STRIDE=1 REPS=21 HAND_PAIRS=7 DEADLINE=60 \
  SASS="${SASS_LIST:-double_buffer cpasync_multistage cpasync_wait_prior corpus_0001_0160}" \
  timeout 300 bash hw/record-check.sh >/tmp/rc.out 2>&1
echo "record-check exit $?"
mkdir -p /tmp/tr && tar xzf "$OUT/runs.tgz" -C /tmp/tr 2>/dev/null
K="double_buffer cpasync_multistage consumer_swizzle_128b cpasync_wait_prior"
(cd /tmp/tr && tar czf "$OUT/tr.tgz" $(for k in $K; do ls runs/$k.tmt runs/old*-/$k.tmt; done 2>/dev/null; ls runs/*.json runs/*/*.json runs/raw 2>/dev/null))
rm -f "$OUT/runs.tgz"
# the recorded kernels' waits: the probe, the vote and the clock reads around them
mkdir -p /tmp/sx && tar xzf "$OUT/sass.tgz" -C /tmp/sx 2>/dev/null
for f in /tmp/sx/sass/*_1.sass /tmp/sx/sass/*hand_tma.sass; do
    echo "== $(basename "$f")"
    grep -n -m4 -B26 -A18 'SYNCS.PHASECHK.TRANS64 P' "$f" | grep -v '^--$' | sed 's@/\* 0x[0-9a-f]* \*/@@'
done >"$OUT/sass-wait.txt" 2>&1
grep -h 'registers\|spill' /tmp/sx/sass/*.ptxas >"$OUT/ptxas.txt" 2>/dev/null
ls -la "$OUT"
sed -n '/== checks/,$p' "$OUT/record-check.log" | grep -v "^PASS"
