#!/bin/bash
# Where the recording costs: `tmahw run` of each description at --record-level 1 (full), 2
# (clock reads only), 3 (stores only), 4 (the recording's start and end only), REPS
# alternating pairs each, CUPTI times (JOBS compiling at once, one at a time on the GPU);
# a table of the median overheads; with SASS=1 the SASS of the recorded and unrecorded
# kernels (cuobjdump -sass) under $OUT/study/.
#   bash hw/record-study.sh DESC.yaml ...        (on the GPU machine, after make hw)
set -u
OUT=${OUT:-/tmp/tmahw-out}
T=${BUILD:-build}/rel/tmahw
S=$OUT/study
mkdir -p "$S"
LOCK=$S/gpu.lock; : >"$LOCK"
jget() { grep -o "\"$1\":[^,}]*" "$2" | head -n1 | cut -d: -f2- | tr -d '"'; }
for f in "$@"; do
    n=$(basename "$f" .yaml)
    for l in 1 2 3 4; do
        while [ "$(jobs -rp | wc -l)" -ge "${JOBS:-8}" ]; do sleep 0.2; done
        timeout 120 "$T" run "$f" -o "$S/$n.$l.tmt" --trace-ctas 1 --reps "${REPS:-11}" --no-counters --record-level $l \
            --format json --gpu-lock "$LOCK" >"$S/$n.$l.json" 2>/dev/null &
    done
    if [ -n "${SASS:-}" ]; then
        "$T" run "$f" -o "$S/x.tmt" --source "$S/$n.cu" --reps 1 --no-counters >/dev/null 2>&1
        for r in 0 1; do
            sed "s/^#define TMAHW_RECORD 1$/#define TMAHW_RECORD $r/" "$S/$n.cu" >"$S/${n}_$r.cu"
            nvcc -arch=sm_90a -std=c++17 -cubin -Xptxas -v "$S/${n}_$r.cu" -o "$S/${n}_$r.cubin" >"$S/${n}_$r.ptxas" 2>&1 &&
                cuobjdump -sass "$S/${n}_$r.cubin" >"$S/${n}_$r.sass"
            rm -f "$S/${n}_$r.cubin" "$S/${n}_$r.cu"
        done
    fi
done
wait
rm -f "$S"/*.tmt "$S"/*.counters.json
printf '%-22s %10s %8s %8s %8s %9s\n' description kernel_us full clocks stores begin_end
for f in "$@"; do
    n=$(basename "$f" .yaml)
    row=""
    for l in 1 2 3 4; do row="$row $(printf '%8s' "$(jget overhead_pct "$S/$n.$l.json")")"; done
    printf '%-22s %10s%s\n' "$n" "$(awk "BEGIN{print $(jget kernel_ns "$S/$n.1.json")/1000}")" "$row"
done
