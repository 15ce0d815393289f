#!/bin/bash
# What the GEMM kernel's recording costs: `tmahw run` of each GEMM description at
# --record-level 1 (full), 2 (clock reads only), 3 (stores only), 4 (neither), 5 (the
# producer's records only); per level the recorded launch's cudaEvent time over the
# unrecorded launches' median cudaEvent time of the same run; a table last.
#   bash hw/gemm-record-study.sh DESC.yaml ...      (on the GPU machine, after make hw)
set -u
OUT=${OUT:-/tmp/tmahw-out}
T=${BUILD:-build}/rel/tmahw
S=$OUT/gemm-study
mkdir -p "$S"
jget() { grep -o "\"$1\":[^,}]*" "$2" | head -n1 | cut -d: -f2- | tr -d '"'; }
for f in "$@"; do
    n=$(basename "$f" .yaml)
    for l in 1 2 3 4 5; do
        timeout 300 "$T" run "$f" -o "$S/$n.$l.tmt" --reps "${REPS:-7}" --no-counters --record-level $l --format json \
            >"$S/$n.$l.json" 2>"$S/$n.$l.err"
        echo "exit $?" >>"$S/$n.$l.err"
    done
done
rm -f "$S"/*.counters.json
printf '%-18s %9s %9s %7s %7s %7s %7s %7s  %s\n' description cupti_us event_us full clocks stores neither producer \
    'mismatches (timed / recorded, level 1)'
for f in "$@"; do
    n=$(basename "$f" .yaml)
    row=""
    for l in 1 2 3 4 5; do
        row="$row $(awk -v r="$(jget recorded_event_ns "$S/$n.$l.json")" -v e="$(jget kernel_event_ns "$S/$n.$l.json")" \
            'BEGIN{ if (e > 0 && r > 0) printf "%7.3f", r / e; else printf "%7s", "-" }')"
    done
    printf '%-18s %9.1f %9.1f%s  %s / %s\n' "$n" "$(jget kernel_ns "$S/$n.1.json")e-3" \
        "$(jget kernel_event_ns "$S/$n.1.json")e-3" "$row" "$(jget mismatches "$S/$n.1.json")" \
        "$(jget recorded_mismatches "$S/$n.1.json")"
done
