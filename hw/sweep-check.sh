#!/bin/bash
# `tmahw sweep --top K` on every GPU of the host, then on one GPU, for the wall time of
# each and the rank agreement of predicted and measured time. Results under $OUT (or
# /tmp/tmahw-sweep-out): two.csv and one.csv (tmahw sweep -o), the logs, meta.json; a
# short table last.
#   bash hw/sweep-check.sh
# Environment: RESULTS (traces/h200/sweep/ws4_tma-predicted.csv, written by
# `tmasim sweep examples/ws4_tma.yaml --grid 'stages=2,3 ctas_per_sm=1,2 ctas=132,198,264,330,396'
# --gpu h200 -o FILE`), TOP (8), REPS (11 timed launches per point).
# The GPU machine has no libyaml: run `make hwdeps` here first and carry build/hwdeps.
set -u
OUT=${OUT:-/tmp/tmahw-sweep-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/sweep-check.log") 2>&1
BUILD=${BUILD:-build}
T=$BUILD/rel/tmahw
RESULTS=${RESULTS:-traces/h200/sweep/ws4_tma-predicted.csv}
TOP=${TOP:-8}
REPS=${REPS:-11}

echo "== device"; nvidia-smi -L 2>&1; nvcc --version | tail -1
echo "== build"
make BUILD="$BUILD" hw -j16 >"$OUT/build.log" 2>&1 || { tail -n 40 "$OUT/build.log"; echo "BUILD FAILED"; exit 2; }
rm -f "$OUT/build.log"
ngpu=$(nvidia-smi -L | grep -c '^GPU')
{
    echo "{\"gpu\":\"$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1)\", \"gpus\":$ngpu,"
    echo " \"driver\":\"$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n1)\","
    echo " \"cuda\":\"$(nvcc --version | tail -n1)\","
    echo " \"date\":\"$(date -u '+%Y-%m-%d %H:%M UTC')\","
    echo " \"commit\":\"${COMMIT:-$(git rev-parse --verify -q HEAD 2>/dev/null || echo unknown)}\","
    echo " \"command\":\"tmahw sweep $RESULTS --top $TOP --reps $REPS -o two.csv (all GPUs); CUDA_VISIBLE_DEVICES=0 ... -o one.csv\"}"
} >"$OUT/meta.json"

run() { # name, then environment assignments for the run
    local name=$1; shift
    local t0 t1
    t0=$(date +%s.%N)
    env "$@" timeout 200 "$T" sweep "$RESULTS" --top "$TOP" --reps "$REPS" -o "$OUT/$name.csv" >"$OUT/$name.txt" 2>"$OUT/$name.err"
    echo "$?" >"$OUT/$name.rc"
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f\n", b - a}' >"$OUT/$name.wall"
    echo "-- $name: exit $(cat "$OUT/$name.rc"), $(cat "$OUT/$name.wall") s"; cat "$OUT/$name.txt"; head -c 2000 "$OUT/$name.err"
}
echo "== every GPU ($ngpu)"; run two
echo "== one GPU"; run one CUDA_VISIBLE_DEVICES=0

spear() { grep -o '^# spearman,[^,]*' "$OUT/$1.csv" 2>/dev/null | cut -d, -f2; }
used() { tail -n +2 "$OUT/$1.csv" 2>/dev/null | grep -v '^#' | awk -F, '{print $5}' | sort -u | tr '\n' ' '; }
echo "== tmahw sweep --top $TOP on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1)"
printf '%-10s %5s %9s %10s  %s\n' run exit wall_s spearman "GPUs used"
for n in two one; do
    printf '%-10s %5s %9s %10s  %s\n' "$n" "$(cat "$OUT/$n.rc")" "$(cat "$OUT/$n.wall")" "$(spear $n)" "$(used $n)"
done
awk -v a="$(cat "$OUT/two.wall")" -v b="$(cat "$OUT/one.wall")" 'BEGIN{ if (b > 0) printf "wall(all GPUs) / wall(one GPU) = %.2f\n", a / b }'
