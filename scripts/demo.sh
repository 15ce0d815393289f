#!/bin/sh
# What `make demo` runs once the Makefile has built $BUILD/rel/tmasim (and tmaview):
#   1. the bundled tile example (128B-swizzled 64x64 f16 tile, ldmatrix conflict table
#      over swizzle modes): `tmasim demo`;
#   2. the bundled pipeline ($DEMO_PIPELINE, default ws4_tma) simulated, and put beside
#      the H100 trace of the same kernel recorded under traces/h100/pipelines/ when it is
#      there: `tmasim sim`, `tmasim diff` (summary printed), `tmaview --render` to a PNG.
# Pictures and traces go to $DEMO_OUT (default: $BUILD/demo), never into the source tree.
# Needs no GPU and no display. `make demo VIEW=1` (or `scripts/demo.sh --window`) opens
# the viewer on the comparison when $DISPLAY is set; by default nothing waits for a window.
set -eu
build="${BUILD:-build}"
out="${DEMO_OUT:-$build/demo}"
name="${DEMO_PIPELINE:-ws4_tma}"
hw="${DEMO_HW_DIR:-traces/h100/pipelines}/$name.tmt"
window="${VIEW:-0}"
for a in "$@"; do
    case "$a" in
    --window) window=1 ;;
    -h|--help)
        echo "usage: scripts/demo.sh [--window]   (env: BUILD, DEMO_OUT, DEMO_PIPELINE, DEMO_HW_DIR, VIEW=1)"
        exit 0 ;;
    *) echo "demo.sh: argument: '$a' is not one of: --window --help" >&2; exit 2 ;;
    esac
done
tmasim="${TMASIM:-$build/rel/tmasim}"
tmaview="${TMAVIEW:-$build/rel/tmaview}"
mkdir -p "$out"

"$tmasim" demo --out "$out"

echo
echo "== The pipeline: $name (examples/$name.yaml), simulated beside the H100 =="
echo
sim="$out/$name.sim.tmt"
echo "\$ tmasim sim examples/$name.yaml -o $sim"
"$tmasim" sim "examples/$name.yaml" -o "$sim"
echo
traces="$sim"
if [ -f "$hw" ]; then
    echo "\$ tmasim diff $sim $hw"
    # exit 1 only reports a tolerance, and none is given: any other failure stops the demo
    "$tmasim" diff "$sim" "$hw"
    traces="$sim $hw"
    picture="$out/compare.png"
else
    echo "The H100 trace $hw is missing (tmahw records it on a GPU machine;"
    echo "see hw/README.md), so the timeline below shows the simulated run alone."
    picture="$out/$name.png"
fi
echo
if [ ! -x "$tmaview" ]; then
    echo "tmaview is not built (it needs SDL2 and cairo: make deps); no timeline picture."
    exit 0
fi
if [ "$window" = 1 ] && [ -n "${DISPLAY:-}" ]; then
    echo "\$ tmaview $traces    (q closes the window)"
    # shellcheck disable=SC2086  # two paths without spaces, split on purpose
    exec "$tmaview" $traces
fi
[ "$window" = 1 ] && echo "VIEW=1 needs a display (\$DISPLAY is not set): drawing to a file instead."
# the whole run, and its first microseconds where single spans carry their differences;
# the first consumer read is selected: its bank picture fills the panel
zoomed="${picture%.png}_start.png"
range="${DEMO_RANGE:-0:6us}"
echo "\$ tmaview --render $picture --select 'kind=smem_read role=consumer' $traces"
# shellcheck disable=SC2086
"$tmaview" --render "$picture" --select 'kind=smem_read role=consumer' $traces
echo "\$ tmaview --render $zoomed --range $range --select 'kind=smem_read role=consumer' $traces"
# shellcheck disable=SC2086
"$tmaview" --render "$zoomed" --range "$range" --select 'kind=smem_read role=consumer' $traces
echo "timelines: $picture (whole run), $zoomed (the start)"
echo "  open them, or run \`make demo VIEW=1\` with a display for the window"
