#!/bin/bash
# The GEMM examples on the GPU machine: builds tmahw, runs `tmahw run` on each bundled GEMM
# (generated wgmma kernel checked element by element against a reference GEMM, timed beside
# cuBLASLt in the same run, traced), a few variants of the 8192^3 bf16 one (stages,
# epilogue, tile, tile order, clusters), and `tmahw calibrate --only clock,clusters,wgmma,wgmma_load`;
# a table last (with the SM clock each kernel ran at).
#   bash hw/gemm-check.sh   (results under $OUT, or /tmp/gemm-out; PACK=1 tars them)
# The GPU machine has no libyaml: run `make hwdeps` here first and carry build/hwdeps.
set -u
OUT=${OUT:-/tmp/gemm-out}
mkdir -p "$OUT/runs"
BUILD=${BUILD:-build}
T=$BUILD/rel/tmahw
REPS=${REPS:-20}
echo "== device"; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; date -u
echo "== build"
make BUILD="$BUILD" hw -j16 >"$OUT/build.log" 2>&1 || { tail -n 40 "$OUT/build.log"; echo "BUILD FAILED"; exit 2; }
run() { # name yaml
    local name=$1 yaml=$2 rc
    timeout 300 "$T" run "$yaml" -o "$OUT/runs/$name.tmt" --reps "$REPS" >"$OUT/runs/$name.txt" 2>&1; rc=$?
    echo "exit $rc" >>"$OUT/runs/$name.txt"
    timeout 300 "$T" run "$yaml" -o "$OUT/runs/$name.tmt" --reps "$REPS" --format json >"$OUT/runs/$name.json" 2>/dev/null
    echo "-- $name (exit $rc)"; head -n 8 "$OUT/runs/$name.txt"
}
for ex in ${EXAMPLES:-gemm_bf16_8192 gemm_bf16_4096 gemm_e4m3_8192 gemm_bf16_n64 bug_wgmma_release bug_wgmma_descriptor}; do
    run "$ex" "examples/$ex.yaml"
done
if [ -z "${SKIP_VARIANTS:-}" ]; then
    V=$OUT/variants; mkdir -p "$V"
    base=examples/gemm_bf16_8192.yaml
    sed 's/^stages: 3/stages: 4/; s/epilogue: tma/epilogue: direct/; s/^name: .*/name: v_s4_direct/' $base >"$V/v_s4_direct.yaml"
    sed 's/group_m: 8/group_m: 16/; s/^name: .*/name: v_group16/' $base >"$V/v_group16.yaml"
    sed 's/^stages: 3/stages: 5/; s/box: \[64, 256\]/box: [64, 128]/; s/m64n256k16/m64n128k16/; s/^name: .*/name: v_128x128_s5/' \
        $base >"$V/v_128x128_s5.yaml"
    sed 's/wgmma_wait: 1/wgmma_wait: 0/; s/release_lag: 1/release_lag: 0/; s/^name: .*/name: v_wait0/' $base >"$V/v_wait0.yaml"
    sed 's/^grid: .*/&\ncluster: {size: 2, multicast: true}/; s/^name: .*/name: v_mc2/' $base >"$V/v_mc2.yaml"
    sed 's/^grid: .*/&\ncluster: {size: 2, multicast: true}/; s/group_m: 8/group_m: 16/; s/^name: .*/name: v_mc2_group16/' $base >"$V/v_mc2_group16.yaml"
    for v in v_mc2 v_mc2_group16 v_s4_direct v_group16 v_128x128_s5 v_wait0; do run "$v" "$V/$v.yaml"; done
fi
echo "== calibrate wgmma"
timeout 120 "$T" calibrate --only clock,clusters,wgmma,wgmma_load -o "$OUT/wgmma.params" | tee "$OUT/calibrate.txt"
echo "== table"
printf '%-18s %5s %10s %8s %7s %10s %8s %8s %6s\n' name exit time_us TFLOP/s %peak wrong blas_us gen/blas GHz
for j in "$OUT"/runs/*.json; do
    case $j in *.counters.json) continue ;; esac   # the Range Profiler's, beside each run
    n=$(basename "$j" .json)
    python3 - "$j" "$(tail -n1 "$OUT/runs/$n.txt")" <<'PY' || echo "$n: no json"
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception as e:
    print(sys.argv[1].split('/')[-1], 'no result'); sys.exit(0)
print('%-18s %5s %10.1f %8.1f %6.1f%% %10d %8.1f %7.1f%% %6.3f' % (r['name'][:18], sys.argv[2].split()[-1], r['kernel_ns']/1e3,
      r['tflops'], r['peak_pct'], r['mismatches'], r['cublaslt_ns']/1e3, 100*r['vs_cublaslt'], r.get('sm_ghz', 0)))
PY
done
if [ -n "${PACK:-}" ]; then tar -C "$OUT" -czf "$OUT/gemm.tgz" runs variants wgmma.params calibrate.txt 2>/dev/null; rm -rf "$OUT/runs" "$OUT/variants"; fi
