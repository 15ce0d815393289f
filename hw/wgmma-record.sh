#!/bin/bash
# Records the wgmma descriptor corpus on the GPU machine (see hw/wgmma.cu):
#   bash hw/wgmma-record.sh        results under $OUT (or /tmp/tmahw-out): wgmma.txt, log
# Environment: LIMIT (record only the first LIMIT cases first as a smoke run; default 24),
# COMMIT (the source commit written into the recording). Needs build/hwdeps (make hwdeps).
set -u
OUT=${OUT:-/tmp/tmahw-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/wgmma-record.log") 2>&1
BUILD=${BUILD:-build}
T=$BUILD/rel/tmahw
echo "== device"; nvidia-smi -L 2>&1 | head -2; nvidia-smi --query-gpu=driver_version --format=csv,noheader; nvcc --version | tail -1
echo "== build"
make BUILD="$BUILD" hw -j16 >"$OUT/build.log" 2>&1 || { tail -n 60 "$OUT/build.log"; echo "BUILD FAILED"; exit 2; }
echo "== smoke (${LIMIT:-24} cases)"
timeout 120 "$T" wgmma-record --out "$OUT/wgmma-smoke.txt" --limit "${LIMIT:-24}" --commit "${COMMIT:-unknown}" || { echo "SMOKE FAILED"; exit 2; }
head -c 3000 "$OUT/wgmma-smoke.txt"
echo; echo "== corpus"
time timeout 400 "$T" wgmma-record --out "$OUT/wgmma.txt" --commit "${COMMIT:-unknown}" || echo "CORPUS FAILED"
ls -la "$OUT"
