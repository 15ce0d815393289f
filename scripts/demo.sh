#!/bin/sh
# What `make demo` runs once the Makefile has built $BUILD/rel/tmasim: the bundled
# example (128B-swizzled 64x64 f16 tile, ldmatrix conflict table over swizzle modes).
# Pictures go to $DEMO_OUT (default: $BUILD/demo), never into the source tree.
# Needs no GPU and no display.
set -eu
build="${BUILD:-build}"
out="${DEMO_OUT:-$build/demo}"
mkdir -p "$out"
exec "$build/rel/tmasim" demo --out "$out" "$@"
