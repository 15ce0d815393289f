#!/bin/bash
# On the GPU machine, in one call: build; the recording header's GPU checks (the
# hand-written kernel with and without hw/record.cuh computes the same sums; `tmahw
# record` turns its launch into a trace with its description; tests/test_record.c where
# a carried Criterion build runs); then the recording overhead over the bundled
# examples, the hand-written kernel and the corpus, and a table last.
#   bash hw/record-check.sh           (results under $OUT, or /tmp/tmahw-out)
# Overhead as `tmahw run` measures it: 1 warm-up, then REPS launches without and with
# recording, alternating, CUPTI kernel times; overhead = median with / median without,
# with the quartiles of the pairs' overheads. The hand-written kernel: alternating
# processes under `tmahw record` (its binary built with TMASCOPE_RECORD 0, then 1),
# HAND_REPS launches each, CUPTI times of every launch, the same statistics over the
# per-process medians.
# With OLD (a source tree of another commit, e.g. the one before a change) the same
# overhead runs follow with that tree's build (the examples, the hand-written kernel and
# every OLD_STRIDE-th corpus description): a before/after table from the same call; OLD2
# (and OLD2_COMMIT) a second such tree, measured after OLD (rows old2-*).
# With STUDY (descriptions), hw/record-study.sh runs on them and the hand-written kernel
# is measured at record levels 2 (clock reads only), 3 (records without clock reads) and
# 4 (start and end only) too, STUDY_PAIRS process pairs each.
# Environment: REPS (examples, 31), CORPUS_REPS (11), HAND_PAIRS (9), HAND_REPS (5),
# CORPUS (traces/h200/corpus), JOBS (8 compiling at once), DEADLINE (seconds after the
# corpus starts when no new corpus run starts: 200), SASS (kernels whose SASS goes to
# sass.tgz), COMMIT, CORPUS_STRIDE (1: every description), OLD, OLD_COMMIT, OLD_STRIDE (4), OLD2, OLD2_COMMIT,
# STUDY, STUDY_PAIRS (5), NOBUILD (1: no make; the builds are carried, e.g. linked here with
# `make HAVE_YAML=no hw` so that tmahw needs no libyaml there). Files:
# record-check.log, overhead.tsv (the set column: example, hand, corpus; old-example,
# old-hand, old-corpus for OLD's build; study-hand-LEVEL), hand_tma.tmt, runs.tgz,
# sass.tgz, tests.log, meta.json, study.txt. The GPU machine has no libyaml: `make
# hwdeps` here first, carry build/hwdeps (OLD's tree needs its own build/hwdeps); a
# Criterion build of tests/test_record (and the libraries it needs) may be carried in
# build/carried (bin/, lib/).
set -u
OUT=${OUT:-/tmp/tmahw-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/record-check.log") 2>&1
start=$(date +%s)
BUILD=${BUILD:-build}
T=$BUILD/rel/tmahw
W=$(mktemp -d /tmp/record-check.XXXXXX)
REPS=${REPS:-31}
CORPUS_REPS=${CORPUS_REPS:-11}
CORPUS=${CORPUS:-traces/h200/corpus}
OLD=${OLD:-}
OLD2=${OLD2:-}
elapsed() { echo $(( $(date +%s) - start )); }

echo "== device"; nvidia-smi -L 2>&1 | head -2; nvcc --version | tail -1
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1)
drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n1)
{
    echo "{\"gpu\":\"$gpu\",\"driver\":\"$drv\",\"cuda\":\"$(nvcc --version | tail -n1)\","
    echo " \"date\":\"$(date -u '+%Y-%m-%d %H:%M UTC')\",\"commit\":\"${COMMIT:-unknown}\","
    echo " \"corpus_stride\":${CORPUS_STRIDE:-1},"
    [ -n "$OLD" ] && echo " \"old_commit\":\"${OLD_COMMIT:-unknown}\",\"old_corpus\":\"every ${OLD_STRIDE:-4}th description\","
    [ -n "$OLD2" ] && echo " \"old2_commit\":\"${OLD2_COMMIT:-unknown}\","
    echo " \"examples\":\"tmahw run EXAMPLE --reps $REPS --no-counters --trace-ctas 8 --format json\","
    echo " \"corpus\":\"tmahw run DESC --reps $CORPUS_REPS --no-counters --trace-ctas 1 --format json --gpu-lock LOCK\","
    echo " \"hand\":\"${HAND_PAIRS:-9} alternating processes of tmahw record -- hand_tma_norec / hand_tma --reps ${HAND_REPS:-5}\"}"
} >"$OUT/meta.json"
echo "== build"
if [ -n "${NOBUILD:-}" ]; then   # carried builds (tmahw, its injection library, the examples), used as they are
    for x in "$T" "$BUILD/rel/examples/hand_tma" ${OLD:+"$OLD/build/rel/tmahw" "$OLD/build/rel/examples/hand_tma"} \
             ${OLD2:+"$OLD2/build/rel/tmahw" "$OLD2/build/rel/examples/hand_tma"}; do
        [ -x "$x" ] || { echo "NOBUILD: no $x"; exit 2; }
    done
else
    make BUILD="$BUILD" hw -j16 >"$W/build.log" 2>&1 || { tail -n 40 "$W/build.log"; echo "BUILD FAILED"; exit 2; }
    if [ -n "$OLD" ]; then
        make -C "$OLD" BUILD=build hw -j16 >"$W/build-old.log" 2>&1 || { tail -n 40 "$W/build-old.log"; echo "OLD BUILD FAILED"; exit 2; }
    fi
    if [ -n "$OLD2" ]; then
        make -C "$OLD2" BUILD=build hw -j16 >"$W/build-old2.log" 2>&1 || { tail -n 40 "$W/build-old2.log"; echo "OLD2 BUILD FAILED"; exit 2; }
    fi
fi
# the hand-written kernel at the study's record levels
study_levels=""
if [ -n "${STUDY:-}" ]; then
    pids=()
    for l in 2 3 4; do
        nvcc -std=c++17 -O2 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Ihw -DTMASCOPE_RECORD=$l examples/hand_tma.cu \
            -o "$W/hand_tma_l$l" -L/usr/local/cuda/lib64/stubs -lcuda >"$W/build-l$l.log" 2>&1 &
        pids+=($!)
    done
    wait "${pids[@]}"
    study_levels=$(for l in 2 3 4; do [ -x "$W/hand_tma_l$l" ] && echo -n " $l"; done)
fi
echo "built in $(elapsed) s"


# SASS of recorded and unrecorded kernels (after the measurements: writing a kernel's source
# runs it once)
sass() {
    mkdir -p "$W/sass"
    local pids=() b n f v tm p r
    for b in hand_tma hand_tma_norec; do
        cuobjdump -sass "$BUILD/rel/examples/$b" >"$W/sass/$b.sass" 2>&1
        [ -n "$OLD" ] && cuobjdump -sass "$OLD/build/rel/examples/$b" >"$W/sass/old_$b.sass" 2>&1
        [ -n "$OLD2" ] && cuobjdump -sass "$OLD2/build/rel/examples/$b" >"$W/sass/old2_$b.sass" 2>&1
    done
    for n in ${SASS:-double_buffer consumer_swizzle_128b full_grid cpasync_multistage ws4_tma}; do
        f=examples/$n.yaml
        [ -f "$f" ] || f=$CORPUS/$n.yaml
        for v in new old old2; do
            tm=$T; p=$n
            [ $v = old ] && { [ -n "$OLD" ] || continue; tm=$OLD/build/rel/tmahw; p=old_$n; }
            [ $v = old2 ] && { [ -n "$OLD2" ] || continue; tm=$OLD2/build/rel/tmahw; p=old2_$n; }
            "$tm" run "$f" -o "$W/sass/x.tmt" --source "$W/sass/$p.cu" --reps 1 --no-counters >/dev/null 2>&1 || true
            [ -s "$W/sass/$p.cu" ] || continue
            for r in 0 1; do
                sed "s/^#define TMAHW_RECORD 1$/#define TMAHW_RECORD $r/" "$W/sass/$p.cu" >"$W/sass/${p}_$r.cu"
                (nvcc -arch=sm_90a -std=c++17 -cubin -lineinfo -Xptxas -v "$W/sass/${p}_$r.cu" -o "$W/sass/${p}_$r.cubin" \
                    >"$W/sass/${p}_$r.ptxas" 2>&1 && cuobjdump -sass "$W/sass/${p}_$r.cubin" >"$W/sass/${p}_$r.sass" 2>&1
                 rm -f "$W/sass/${p}_$r.cubin" "$W/sass/${p}_$r.cu") &
                pids+=($!)
            done
        done
    done
    [ ${#pids[@]} = 0 ] || wait "${pids[@]}"   # (a bare wait would wait for the log's tee too)
    rm -f "$W/sass/x.tmt" "$W/sass/x.counters.json"
}
sass_pid=none

pass=0; fail=0; results=()
ok() { pass=$((pass+1)); results+=("PASS $1"); }
bad() { fail=$((fail+1)); results+=("FAIL $1"); }

echo "== the hand-written kernel with and without recording"
H=$BUILD/rel/examples/hand_tma
a=$("$H" 2>&1); ra=$?
b=$("$H"_norec 2>&1); rb=$?
echo "$a"; echo "$b"
ca=$(grep -o 'checksum [^)]*' <<<"$a"); cb=$(grep -o 'checksum [^)]*' <<<"$b")
if [ $ra = 0 ] && [ $rb = 0 ] && [ -n "$ca" ] && [ "$ca" = "$cb" ]; then ok "hand_tma_same_sums ($ca)"; else bad "hand_tma_same_sums ($ra/$rb: $ca / $cb)"; fi

echo "== tmahw record of the hand-written kernel"
"$T" record --desc examples/hand_tma.yaml -o "$OUT/hand_tma.tmt" --trace-ctas 8 --raw "$W/raw" -- "$H" >"$W/record.txt" 2>&1
rc=$?
cat "$W/record.txt"; cat "$W/raw/recorder.log" 2>/dev/null | head -20
if [ $rc = 0 ] && [ -s "$OUT/hand_tma.tmt" ]; then ok "tmahw_record_hand_tma"; else bad "tmahw_record_hand_tma (exit $rc)"; fi
"$T" record --format json -o "$W/all.tmt" -- "$H" >"$W/record_all.json" 2>"$W/record_all.err"
rc=$?
if [ $rc = 0 ] && grep -q '"overflowed_warps":0' "$W/record_all.json" && grep -q '"recorded":true' "$W/record_all.json"; then
    ok "tmahw_record_all_ctas_no_description"; else bad "tmahw_record_all_ctas_no_description (exit $rc: $(head -c 300 "$W/record_all.err"))"; fi
"$T" record --format json -o "$W/none.tmt" -- "$H"_norec >"$W/record_none.json" 2>"$W/record_none.err"
if grep -q '"recorded":false' "$W/record_none.json" && grep -q 'no launch was recorded' "$W/record_none.err"; then
    ok "tmahw_record_says_when_nothing_records"; else bad "tmahw_record_says_when_nothing_records"; fi
"$T" record --events 16 --format json -o "$W/small.tmt" -- "$H" >"$W/record_small.json" 2>"$W/record_small.err"
rc=$?
if [ $rc = 1 ] && grep -q 'overflowed' "$W/record_small.err" && ! grep -q '"overflowed_warps":0' "$W/record_small.json"; then
    ok "tmahw_record_reports_overflow"; else bad "tmahw_record_reports_overflow (exit $rc)"; fi

if [ -x build/carried/bin/test_record ]; then
    echo "== tests/test_record.c (carried Criterion build)"
    LD_LIBRARY_PATH=$PWD/build/carried/lib LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp ASAN_OPTIONS=protect_shadow_gap=0 \
        timeout 300 build/carried/bin/test_record --jobs=1 --verbose >"$OUT/tests.log" 2>&1
    rc=$?
    grep -E '^\[(SKIP|FAIL)|Synthesis' "$OUT/tests.log"
    if [ $rc = 0 ]; then ok "criterion_test_record"; else bad "criterion_test_record (exit $rc)"; fi
fi
echo "checks done at $(elapsed) s"

# ---- overhead ---------------------------------------------------------------------------
jget() { grep -o "\"$1\":[^,}]*" "$2" | head -n1 | cut -d: -f2- | tr -d '"'; }
TSV="$OUT/overhead.tsv"
printf 'set\tname\tkernel_ns\trecorded_ns\toverhead_pct\tq1_pct\tq3_pct\tcorrect\tevents\toverflowed\n' >"$TSV"
mkdir -p "$W/runs"
LOCK=$W/gpu.lock; : >"$LOCK"

# hand SET NOREC REC PAIRS: alternating processes under `tmahw record` (tmahw $T), one row
hand() {
    local set=$1 norec=$2 rec=$3 pairs=$4 f=$W/runs/$1.txt
    : >"$f"
    for k in $(seq 1 "$pairs"); do
        for v in "$norec" "$rec"; do
            # the application's own line goes to stdout too: the JSON array is the line starting with [
            "$T" record --format json -o "$W/ov.tmt" -- "$v" --reps "${HAND_REPS:-5}" 2>/dev/null | grep '^\[' >"$W/ov.json"
            # the launches' CUPTI times, the first (module load) left out: one line per process
            python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(sys.argv[2], *[x["kernel_ns"] for x in r[1:]])' \
                "$W/ov.json" "$([ "$v" = "$rec" ] && echo _rec || echo _norec)" >>"$f"
        done
    done
    python3 - "$f" "$set" >>"$TSV" <<'PY'
import statistics, sys
norec, rec = [], []
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) > 1:
        (rec if f[0] == "_rec" else norec).append(statistics.median(float(x) for x in f[1:]))
pairs = sorted(100 * (r - n) / n for n, r in zip(norec, rec) if n > 0)
q = lambda v, k: v[(k * (len(v) - 1) + (k == 3) * 3) // 4] if v else 0
mn, mr = statistics.median(norec), statistics.median(rec)
print("%s\thand_tma\t%.0f\t%.0f\t%.2f\t%.2f\t%.2f\tok\t-\t0" % (sys.argv[2], mn, mr, 100 * (mr - mn) / mn, q(pairs, 1), q(pairs, 3)))
PY
    tail -n1 "$TSV"
}

row() { # set, name, json
    local j=$3 corr=ok c
    c=$(jget correct "$j")   # (tmahw run's GEMM reports mismatches instead)
    [ "$c" = true ] || { [ -z "$c" ] && [ "$(jget mismatches "$j")" = 0 ]; } || corr=MISMATCH
    local hang; hang=$(jget hang "$j"); [ -n "$hang" ] && [ "$hang" != null ] && corr=HANG
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$(jget kernel_ns "$j")" "$(jget kernel_rec_ns "$j")" \
        "$(jget overhead_pct "$j")" "$(jget overhead_q1_pct "$j")" "$(jget overhead_q3_pct "$j")" "$corr" \
        "$(jget events "$j")" "$(jget overflowed_warps "$j")" >>"$TSV"
}

# runs PREFIX TMAHW STRIDE: the examples and every STRIDE-th corpus description
runs() {
    local pre=$1 tm=$2 stride=$3 R=$W/runs/$1
    mkdir -p "$R"
    echo "== examples (tmahw run $tm, $REPS pairs)"
    for f in examples/*.yaml; do
        n=$(basename "$f" .yaml)
        case $n in bug_*|hand_tma) continue ;; esac
        tc=8; [ "$n" = full_grid ] && tc=2
        timeout 120 "$tm" run "$f" -o "$R/$n.tmt" --trace-ctas $tc --reps "$REPS" --no-counters --format json \
            >"$R/$n.json" 2>"$R/$n.err"
        rc=$?
        [ -s "$R/$n.err" ] && head -c 300 "$R/$n.err"
        if [ -s "$R/$n.json" ]; then row "${pre}example" "$n" "$R/$n.json"; else bad "${pre}run_$n (exit $rc)"; fi
        [ $rc = 0 ] && ok "${pre}run_$n" || bad "${pre}run_$n (exit $rc)"
    done
    if [ -z "$pre" ]; then
        for n in bug_never_release bug_expect_tx; do   # the watchdog still stops a hang, recorded
            timeout 120 "$tm" run "examples/$n.yaml" -o "$R/$n.tmt" --no-counters --format json >"$R/$n.json" 2>&1
            rc=$?
            if [ $rc = 1 ] && grep -q '"hang":"' "$R/$n.json"; then ok "hang_$n"; else bad "hang_$n (exit $rc)"; fi
        done
    fi
    echo "examples done at $(elapsed) s"
    echo "== corpus $CORPUS (tmahw run $tm, every ${stride}th, $CORPUS_REPS pairs, ${JOBS:-8} compiling at once)"
    local c0; c0=$(date +%s)
    run_one() {
        local f=$1 n; n=$(basename "$f" .yaml)
        timeout 90 "$tm" run "$f" -o "$R/$n.tmt" --trace-ctas 1 --reps "$CORPUS_REPS" --no-counters --format json \
            --gpu-lock "$LOCK" >"$R/$n.json" 2>"$R/$n.err"
        echo "$? $n" >>"$R/exit.txt"
        rm -f "$R/$n.tmt"
    }
    : >"$R/exit.txt"; local skipped=0 k=0
    for f in $(ls "$CORPUS"/*.yaml | sort); do
        k=$((k + 1)); [ $(( (k - 1) % stride )) = 0 ] || continue
        if [ $(( $(date +%s) - c0 )) -ge "${DEADLINE:-200}" ]; then skipped=$((skipped+1)); continue; fi
        while [ "$(jobs -rp | grep -vc "^$sass_pid$")" -ge "${JOBS:-8}" ]; do sleep 0.2; done
        run_one "$f" &
    done
    while [ "$(jobs -rp | grep -vc "^$sass_pid$")" -gt 0 ]; do sleep 0.5; done
    for f in $(ls "$CORPUS"/*.yaml | sort); do
        n=$(basename "$f" .yaml)
        [ -s "$R/$n.json" ] && row "${pre}corpus" "$n" "$R/$n.json"
    done
    echo "corpus: $(grep -c '^0 ' "$R/exit.txt") ok, $(grep -vc '^0 ' "$R/exit.txt") other exits, $skipped not started (deadline); done at $(elapsed) s"
    grep -v '^0 ' "$R/exit.txt" | head -n 20
}

echo "== hand-written kernel: ${HAND_PAIRS:-9} alternating process pairs"
hand hand "$H"_norec "$H" "${HAND_PAIRS:-9}"
echo "hand done at $(elapsed) s"
runs "" "$T" "${CORPUS_STRIDE:-1}"
if [ -n "$OLD" ]; then
    echo "== the same with $OLD (commit ${OLD_COMMIT:-unknown})"
    hand old-hand "$OLD/build/rel/examples/hand_tma_norec" "$OLD/build/rel/examples/hand_tma" "${HAND_PAIRS:-9}"
    runs old- "$OLD/build/rel/tmahw" "${OLD_STRIDE:-4}"
fi
if [ -n "$OLD2" ]; then
    echo "== the same with $OLD2 (commit ${OLD2_COMMIT:-unknown})"
    hand old2-hand "$OLD2/build/rel/examples/hand_tma_norec" "$OLD2/build/rel/examples/hand_tma" "${HAND_PAIRS:-9}"
    runs old2- "$OLD2/build/rel/tmahw" "${OLD_STRIDE:-4}"
fi
if [ -n "${STUDY:-}" ]; then
    echo "== study: hw/record-study.sh ${STUDY}; the hand-written kernel at record levels$study_levels"
    for l in $study_levels; do
        hand "study-hand-$l" "$H"_norec "$W/hand_tma_l$l" "${STUDY_PAIRS:-5}"
    done
    # shellcheck disable=SC2086
    OUT=$W BUILD=$BUILD REPS=$CORPUS_REPS bash hw/record-study.sh $STUDY >"$OUT/study.txt" 2>&1
    cat "$OUT/study.txt"
    echo "study done at $(elapsed) s"
fi

echo "== SASS"
sass
echo "SASS done at $(elapsed) s"
tar czf "$OUT/sass.tgz" -C "$W" sass 2>/dev/null
tar czf "$OUT/runs.tgz" -C "$W" runs raw record.txt record_all.json 2>/dev/null

echo "== checks"
printf '%s\n' "${results[@]}"
echo "checks: $pass passed, $fail failed"
echo "== recording overhead on $gpu (driver $drv), $(date -u '+%Y-%m-%d %H:%M UTC'), commit ${COMMIT:-unknown}"
python3 - "$TSV" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1]), delimiter="\t") if r["overhead_pct"] not in ("", None)]
def show(name, v):
    v = sorted(v)
    if not v:
        return
    q = lambda k: v[(k * (len(v) - 1) + (k == 3) * 3) // 4]
    print("%-14s %4d kernels  median %6.2f%%  q1 %6.2f%%  q3 %6.2f%%  max %6.2f%%  min %6.2f%%" %
          (name, len(v), v[(len(v) - 1) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2, q(1), q(3), v[-1], v[0]))
sets = []
for r in rows:
    if r["set"] not in sets:
        sets.append(r["set"])
for s in sets:
    show(s, [float(r["overhead_pct"]) for r in rows if r["set"] == s])
new = [r for r in rows if r["set"] in ("example", "hand", "corpus")]
show("all", [float(r["overhead_pct"]) for r in new])
for pre in ("old-", "old2-"):
    old = {(r["set"][len(pre):], r["name"]): float(r["overhead_pct"]) for r in rows if r["set"].startswith(pre)}
    if not old:
        continue
    both = [(float(r["overhead_pct"]), old[(r["set"], r["name"])]) for r in new if (r["set"], r["name"]) in old]
    show(pre[:-1] + ", same", [o for n, o in both])
    show("new, same", [n for n, o in both])
    print("%s -> new (examples and the hand-written kernel):" % pre[:-1])
    for r in new:
        if r["set"] != "corpus" and (r["set"], r["name"]) in old:
            print("  %-24s %7.2f%% -> %6.2f%%" % (r["name"], old[(r["set"], r["name"])], float(r["overhead_pct"])))
print("worst 10:")
for r in sorted(new, key=lambda r: -float(r["overhead_pct"]))[:10]:
    print("  %-8s %-22s %10s ns  %6s%%  (pairs %s .. %s)  %s" % (r["set"], r["name"], r["kernel_ns"], r["overhead_pct"],
                                                              r["q1_pct"], r["q3_pct"], r["correct"]))
PY
echo "total $(elapsed) s"
