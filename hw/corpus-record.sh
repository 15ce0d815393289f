#!/bin/bash
# Records a corpus of pipeline descriptions on the GPU of this machine: `tmahw run` on
# every DIR/*.yaml (the kernel timed without recording, a traced launch of the first CTA
# or cluster, Range Profiler counters), then packs the results for the device tool.
#   bash hw/corpus-record.sh DIR NAME      (results: $OUT/NAME.tgz, log $OUT/NAME.log)
# NVRTC compilation runs JOBS processes in parallel; the GPU work of each run takes
# an exclusive lock (tmahw run --gpu-lock), so launches and timings never overlap.
# Environment: JOBS (6), REPS (11), DEADLINE (seconds after which no new run starts: 360),
# HARDSTOP (seconds after which runs still going are stopped and the results packed: 500),
# FIRST and COUNT (record the sorted descriptions FIRST .. FIRST+COUNT-1 only),
# CALIBRATE=1 (also `tmahw calibrate` into NAME/calibration.params first),
# TRACE_CTAS (1). The GPU machine has no libyaml: `make hwdeps` here first, carry
# build/hwdeps.
set -u
DIR=${1:?usage: corpus-record.sh DIR NAME}
NAME=${2:?usage: corpus-record.sh DIR NAME}
OUT=${OUT:-/tmp/tmahw-out}
BUILD=${BUILD:-build}
JOBS=${JOBS:-6}
REPS=${REPS:-11}
DEADLINE=${DEADLINE:-360}
HARDSTOP=${HARDSTOP:-500}
FIRST=${FIRST:-0}
COUNT=${COUNT:-100000}
T=$BUILD/rel/tmahw
R="$OUT/$NAME"
mkdir -p "$R"
LOG="$OUT/$NAME.log"
exec > >(tee "$LOG") 2>&1
start=$(date +%s)

echo "== device"; nvidia-smi -L 2>&1 | head -2; nvcc --version | tail -1
echo "== build"
make BUILD="$BUILD" hw -j16 >"$R/build.log" 2>&1 || { tail -n 40 "$R/build.log"; echo "BUILD FAILED"; exit 2; }
rm -f "$R/build.log"
{
    echo "{\"gpu\":\"$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1)\","
    echo " \"driver\":\"$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n1)\","
    echo " \"cuda\":\"$(nvcc --version | tail -n1)\","
    echo " \"date\":\"$(date -u '+%Y-%m-%d %H:%M UTC')\","
    echo " \"commit\":\"${COMMIT:-$(git rev-parse --verify -q HEAD 2>/dev/null || echo unknown)}\","
    echo " \"command\":\"tmahw run DESC -o NAME.tmt --trace-ctas ${TRACE_CTAS:-1} --reps $REPS --format json --gpu-lock LOCK\"}"
} >"$R/meta.json"

if [ -n "${CALIBRATE:-}" ]; then
    echo "== calibrate"
    timeout 240 "$T" calibrate -o "$R/calibration.params" 2>"$R/calibration.err" | tail -n 40
    echo "calibrate exit ${PIPESTATUS[0]}"
fi

echo "== corpus ($(ls "$DIR"/*.yaml | wc -l) descriptions, from $FIRST, at most $COUNT, $JOBS compiling at once)"
LOCK=/tmp/tmahw-gpu.lock
: >"$LOCK"
run_one() {
    local f=$1 n
    n=$(basename "$f" .yaml)
    cp "$f" "$R/$n.yaml"
    timeout 90 "$T" run "$f" -o "$R/$n.tmt" --trace-ctas "${TRACE_CTAS:-1}" --reps "$REPS" --format json \
        --gpu-lock "$LOCK" >"$R/$n.json" 2>"$R/$n.err"
    echo "$? $n" >>"$R/exit.txt"
    [ -s "$R/$n.err" ] || rm -f "$R/$n.err"
}
: >"$R/exit.txt"
skipped=0
# the device tool's call ends at 600 s: whatever still runs at HARDSTOP is stopped
( sleep $((HARDSTOP - ($(date +%s) - start))) 2>/dev/null && pkill -f "$T run" ) &
killer=$!
for f in $(ls "$DIR"/*.yaml | sort | tail -n +$((FIRST + 1)) | head -n "$COUNT"); do
    if [ $(( $(date +%s) - start )) -ge "$DEADLINE" ]; then
        skipped=$((skipped+1)); continue
    fi
    while [ "$(jobs -rp | wc -l)" -gt "$JOBS" ]; do sleep 0.2; done
    run_one "$f" &
done
while [ "$(jobs -rp | grep -vc "^$killer$")" -gt 0 ] && [ $(( $(date +%s) - start )) -lt $((HARDSTOP + 20)) ]; do
    sleep 0.5
done
pkill -P "$killer" 2>/dev/null; kill "$killer" 2>/dev/null
echo "skipped (deadline): $skipped"

tar czf "$OUT/$NAME.tgz" -C "$OUT" "$NAME" && rm -rf "${R:?}"
echo "== summary"
tar xzf "$OUT/$NAME.tgz" -O "$NAME/exit.txt" | awk '{n[$1]++} END {for (k in n) printf "exit %s: %d\n", k, n[k]}'
echo "elapsed $(( $(date +%s) - start )) s; skipped $skipped; archive $(du -h "$OUT/$NAME.tgz" | cut -f1)"
