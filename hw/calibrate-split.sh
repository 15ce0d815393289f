#!/bin/bash
# Runs `tmahw calibrate` one benchmark at a time (each with clock, which the others convert
# cycles with), so that a benchmark that is slow or fails loses only its own file, and packs
# the results for the device tool.
#   bash hw/calibrate-split.sh NAME [BENCH...]   (results: $OUT/NAME.tgz, the log $OUT/NAME.log)
# Without BENCH, every benchmark `tmahw calibrate --help` lists. Per benchmark NAME/B.params
# (the --params format) and NAME/B.table (the command's table), NAME/B.err when it said
# something on stderr. Environment: EACH (seconds one benchmark may take: 150), DEADLINE
# (seconds after which no new benchmark starts: 420), BUILD (build).
# The GPU machine has no libyaml: `make hwdeps` here first, carry build/hwdeps.
set -u
NAME=${1:?usage: calibrate-split.sh NAME [BENCH...]}
shift
OUT=${OUT:-/tmp/tmahw-out}
BUILD=${BUILD:-build}
EACH=${EACH:-150}
DEADLINE=${DEADLINE:-420}
T=$BUILD/rel/tmahw
R="$OUT/$NAME"
mkdir -p "$R"
exec > >(tee "$OUT/$NAME.log") 2>&1
start=$(date +%s)
echo "== device"; nvidia-smi -L 2>&1 | head -2
make BUILD="$BUILD" hw -j16 >"$R/build.log" 2>&1 || { tail -n 40 "$R/build.log"; echo "BUILD FAILED"; exit 2; }
rm -f "$R/build.log"
if [ $# -eq 0 ]; then
    set -- $("$T" calibrate --help | sed -n '/--only LIST/,/--format/p' | grep -v -- '--format' |
             sed 's/.*benchmarks://' | tr -s ' \n' '\n' | grep -E '^[a-z0-9_]+$' | grep -vx clock)
fi
echo "date $(date -u '+%Y-%m-%d %H:%M UTC'), driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n1)" \
    >"$R/meta.txt"
for b in "$@"; do
    if [ $(( $(date +%s) - start )) -ge "$DEADLINE" ]; then
        echo "skipped (deadline): $b"; continue
    fi
    t0=$(date +%s)
    timeout "$EACH" "$T" calibrate --only "clock,$b" -o "$R/$b.params" >"$R/$b.table" 2>"$R/$b.err"
    rc=$?
    [ -s "$R/$b.err" ] || rm -f "$R/$b.err"
    echo "$b: exit $rc, $(( $(date +%s) - t0 )) s"
done
tar czf "$OUT/$NAME.tgz" -C "$OUT" "$NAME" && rm -rf "${R:?}"
echo "elapsed $(( $(date +%s) - start )) s"
