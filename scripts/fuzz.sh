#!/bin/sh
# The fuzzing harnesses of tests/fuzz (tests/fuzz/README.md).
#   scripts/fuzz.sh replay NAME...   each build/san/fuzz/NAME over its committed seeds and
#                                    regression inputs (gcc ASan/UBSan; part of `make test`)
#   scripts/fuzz.sh run NAME...      each build/fuzz/fuzz/NAME (clang libFuzzer) for
#                                    FUZZ_SECONDS on one core, niced; new inputs go to
#                                    build/fuzz/corpus/NAME, crashes to build/fuzz/crashes/NAME
set -u
BUILD=${BUILD:-build}
mode=$1
shift
failed=0
for name in "$@"; do
    seeds=tests/fuzz/seeds/$name
    regress=tests/fuzz/regress/$name
    dirs=""
    [ -d "$seeds" ] && dirs="$seeds"
    [ -d "$regress" ] && dirs="$dirs $regress"
    case "$mode" in
    replay)
        # shellcheck disable=SC2086
        if ! out=$("$BUILD/san/fuzz/$name" $dirs 2>&1); then
            printf '%s\n' "$out" | tail -n 40
            printf '%-24s FAILED\n' "$name"
            failed=1
        else
            printf '%-24s %s\n' "$name" "$(printf '%s\n' "$out" | tail -n 1 | sed 's/^.*: //')"
        fi
        ;;
    run)
        corpus=$BUILD/fuzz/corpus/$name
        crashes=$BUILD/fuzz/crashes/$name
        mkdir -p "$corpus" "$crashes"
        dict=""
        # the flag harnesses run tmasim's commands, which print: close their stdout and
        # stderr (libFuzzer keeps its own reports); the others print only on a failure
        mask=1
        case "$name" in *_flags) mask=3 ;; esac
        [ -f "tests/fuzz/dict/$name.dict" ] && dict="-dict=tests/fuzz/dict/$name.dict"
        log=$BUILD/fuzz/$name.log
        # shellcheck disable=SC2086
        nice -n 10 "$BUILD/fuzz/fuzz/$name" "$corpus" $dirs $dict -max_total_time="${FUZZ_SECONDS:-60}" \
            -timeout=5 -rss_limit_mb=2048 -malloc_limit_mb=2048 -close_fd_mask=$mask -print_final_stats=1 \
            -artifact_prefix="$crashes/" >"$log" 2>&1
        rc=$?
        runs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}')
        secs=$(grep -E '^stat::average_exec_per_sec' "$log" | awk '{print $2}')
        printf '%-24s rc=%s executions=%s exec/s=%s (log %s)\n' "$name" "$rc" "${runs:-?}" "${secs:-?}" "$log"
        [ "$rc" = 0 ] || failed=1
        ;;
    *)
        echo "fuzz.sh: mode '$mode' is not one of: replay run" >&2
        exit 2
        ;;
    esac
done
exit $failed
