#!/bin/sh
# The fuzzing harnesses of tests/fuzz (tests/fuzz/README.md).
#   scripts/fuzz.sh replay NAME...   each build/san/fuzz/NAME over its committed seeds and
#                                    regression inputs (gcc ASan/UBSan; part of `make test`)
#   scripts/fuzz.sh run NAME...      each build/fuzz/fuzz/NAME (clang libFuzzer) for
#                                    FUZZ_SECONDS, niced (FUZZ_NICE); new inputs go to
#                                    build/fuzz/corpus/NAME, crashes to build/fuzz/crashes/NAME.
#                                    FUZZ_JOBS=N runs N processes at once (default 1): with N
#                                    at least the number of harnesses every harness gets
#                                    N/names processes (round robin) sharing its corpus; with
#                                    fewer, the harnesses run N at a time. Each process adds a
#                                    line to build/fuzz/runs.log; the run ends with the
#                                    executions of this run and of every run logged.
#                                    A name may be given more than once: with FUZZ_JOBS at
#                                    least the number of names, process i runs name i, so
#                                    "fuzz_a fuzz_a fuzz_b" gives fuzz_a two processes of three.
#                                    FUZZ_WHERE names the machine in the log (default
#                                    HOSTNAME-Ncpu).
#   scripts/fuzz.sh summary [NAME...]
#                                    executions per harness summed over build/fuzz/runs.log
#   scripts/fuzz.sh table [NAME...]  the same per harness and campaign (machine, processes at
#                                    once, harnesses' commit) as Markdown table rows
# The binaries need no clang where they run (the sanitizer and libFuzzer runtimes are
# linked in): a build/fuzz/fuzz directory carried to another x86_64 Linux machine runs
# there from the repository's root with the shared libraries `ldd` lists.
set -u
BUILD=${BUILD:-build}
mode=${1:-}
[ $# -gt 0 ] && shift
failed=0

runs_log=$BUILD/fuzz/runs.log
# the machine, as the run log names it (no spaces)
where=$(printf '%s' "${FUZZ_WHERE:-$(hostname 2>/dev/null || echo unknown)-$(nproc 2>/dev/null || echo 0)cpu}" | tr -c 'A-Za-z0-9._/+-' _)

# The commit the harnesses were built from (written by `make fuzz-build`).
built_from() {
    cat "$BUILD/fuzz/fuzz/BUILT_FROM" 2>/dev/null || echo unknown
}

# What one libFuzzer log says happened: ok, or the kind of failure.
outcome() {   # log rc
    if [ "$2" = 0 ]; then echo ok
    elif grep -q 'ERROR: libFuzzer: timeout' "$1"; then echo timeout
    elif grep -q -E 'ERROR: libFuzzer: (out-of-memory|malloc limit)' "$1"; then echo oom
    elif grep -q -E 'ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer)|runtime error:|==ERROR' "$1"; then echo crash
    else echo "exit-$2"
    fi
}

# Sums runs.log lines (date commit harness seconds executions outcome [machine processes])
# per harness. "killed": a process stopped from outside before its time (no failure; its
# executions from its log's last status line), not counted as failed.
summarise() {   # names (all when empty)
    [ -f "$runs_log" ] || { echo "no runs logged in $runs_log"; return; }
    awk -v names="$*" '
        BEGIN { n = split(names, want, " "); for (i = 1; i <= n; i++) keep[want[i]] = 1 }
        n && !($3 in keep) { next }
        { ex[$3] += $5; sec[$3] += $4; runs[$3]++; if ($6 != "ok" && $6 != "killed") bad[$3]++;
          if (!($3 in first)) { first[$3] = $1; order[++k] = $3 } last[$3] = $1 }
        END {
            printf "%-20s %14s %9s %5s %7s  %s\n", "harness", "executions", "seconds", "runs", "failed", "first .. last run (UTC)"
            for (i = 1; i <= k; i++) { h = order[i]
                printf "%-20s %14d %9d %5d %7d  %s .. %s%s\n", h, ex[h], sec[h], runs[h], bad[h], first[h], last[h],
                       (ex[h] >= 1e7 ? "" : "  (< 10^7)") }
        }' "$runs_log"
}

# runs.log per harness and campaign (columns 7 and 8: machine, processes at once; lines
# without them are counted under "-"), as Markdown rows: harness, executions, machine,
# processes at once, runs, process-seconds, first .. last end (UTC), commits, outcomes.
table() {   # names (all when empty)
    [ -f "$runs_log" ] || { echo "no runs logged in $runs_log"; return; }
    awk -v names="$*" '
        BEGIN { n = split(names, want, " "); for (i = 1; i <= n; i++) keep[want[i]] = 1 }
        n && !($3 in keep) { next }
        { w = NF >= 7 ? $7 : "-"; j = NF >= 8 ? $8 : "-"; key = $3 SUBSEP w SUBSEP j
          if (!(key in ex)) { order[++k] = key; first[key] = $1; h[key] = $3; wh[key] = w; jb[key] = j }
          ex[key] += $5; sec[key] += $4; runs[key]++; last[key] = $1; total[$3] += $5
          if (index(" " com[key] " ", " " $2 " ") == 0) com[key] = com[key] (com[key] == "" ? "" : " ") $2
          oc[key, $6]++; if (index(" " ocs[key] " ", " " $6 " ") == 0) ocs[key] = ocs[key] (ocs[key] == "" ? "" : " ") $6 }
        END {
            print "| harness | executions | machine | processes at once | runs | process-seconds | first .. last end (UTC) | harnesses built from | outcome |"
            print "|---|---:|---|---:|---:|---:|---|---|---|"
            # grouped by harness, in the order each first appears
            for (i = 1; i <= k; i++) { if (h[order[i]] in done) continue; hn = h[order[i]]; done[hn] = 1
                for (m = i; m <= k; m++) { key = order[m]; if (h[key] != hn) continue
                    o = ""; c = split(ocs[key], oo, " ")
                    for (q = 1; q <= c; q++) o = o (q > 1 ? ", " : "") oc[key, oo[q]] " " oo[q]
                    printf "| `%s` | %d | %s | %s | %d | %d | %s .. %s | %s | %s |\n", hn, ex[key], wh[key], jb[key],
                           runs[key], sec[key], first[key], last[key], com[key], o }
                printf "| `%s` total | **%d** | | | | | | | %s |\n", hn, total[hn], (total[hn] >= 1e7 ? "past 10^7" : "below 10^7") }
        }' "$runs_log"
}

# One libFuzzer process of harness name for FUZZ_SECONDS; appends to runs.log when done.
run_one() {   # name index
    name=$1
    corpus=$BUILD/fuzz/corpus/$name
    crashes=$BUILD/fuzz/crashes/$name
    mkdir -p "$corpus" "$crashes" "$BUILD/fuzz/logs"
    dirs=""
    [ -d "tests/fuzz/seeds/$name" ] && dirs="tests/fuzz/seeds/$name"
    [ -d "tests/fuzz/regress/$name" ] && dirs="$dirs tests/fuzz/regress/$name"
    dict=""
    [ -f "tests/fuzz/dict/$name.dict" ] && dict="-dict=tests/fuzz/dict/$name.dict"
    # the flag harnesses run tmasim's commands, which print: close their stdout and
    # stderr (libFuzzer keeps its own reports); the others print only on a failure
    mask=1
    case "$name" in *_flags) mask=3 ;; esac
    log=$BUILD/fuzz/logs/$name.$(date -u +%Y%m%dT%H%M%S).$2.log
    from=$(built_from)
    start=$(date +%s)
    # shellcheck disable=SC2086
    nice -n "${FUZZ_NICE:-10}" "$BUILD/fuzz/fuzz/$name" "$corpus" $dirs $dict -max_total_time="${FUZZ_SECONDS:-60}" \
        -timeout=5 -rss_limit_mb=2048 -malloc_limit_mb=2048 -close_fd_mask=$mask -print_final_stats=1 \
        -artifact_prefix="$crashes/" ${FUZZ_FLAGS:-} >"$log" 2>&1
    rc=$?
    secs=$(( $(date +%s) - start ))
    runs=$(awk '/^stat::number_of_executed_units/ { print $2 }' "$log")
    rate=$(awk '/^stat::average_exec_per_sec/ { print $2 }' "$log")
    result=$(outcome "$log" $rc)
    printf '%s %s %s %s %s %s %s %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$from" "$name" "$secs" "${runs:-0}" \
        "$result" "$where" "${FUZZ_JOBS:-1}" >>"$runs_log"
    printf '%-20s #%-3s %-8s executions=%s exec/s=%s (log %s)\n' "$name" "$2" "$result" "${runs:-?}" "${rate:-?}" "$log"
    [ "$result" = ok ]
}

case "$mode" in
replay)
    for name in "$@"; do
        dirs=""
        [ -d "tests/fuzz/seeds/$name" ] && dirs="tests/fuzz/seeds/$name"
        [ -d "tests/fuzz/regress/$name" ] && dirs="$dirs tests/fuzz/regress/$name"
        # shellcheck disable=SC2086
        if ! out=$("$BUILD/san/fuzz/$name" $dirs 2>&1); then
            printf '%s\n' "$out" | tail -n 40
            printf '%-24s FAILED\n' "$name"
            failed=1
        else
            printf '%-24s %s\n' "$name" "$(printf '%s\n' "$out" | tail -n 1 | sed 's/^.*: //')"
        fi
    done
    ;;
run)
    [ $# -gt 0 ] || { echo "fuzz.sh run: name at least one harness (tests/fuzz/fuzz_*.c)" >&2; exit 2; }
    for name in "$@"; do
        [ -x "$BUILD/fuzz/fuzz/$name" ] || { echo "fuzz.sh: $BUILD/fuzz/fuzz/$name: not built (make fuzz-build)" >&2; exit 2; }
    done
    jobs=${FUZZ_JOBS:-1}
    case "$jobs" in ''|*[!0-9]*|0) echo "fuzz.sh: FUZZ_JOBS='$jobs' is not a positive number" >&2; exit 2 ;; esac
    nnames=$#
    total=$(( jobs > nnames ? jobs : nnames ))
    before=0
    [ -f "$runs_log" ] && before=$(wc -l <"$runs_log")
    status=$BUILD/fuzz/.status.$$
    mkdir -p "$BUILD/fuzz"
    : >"$status"
    # waves of `jobs` processes; process i runs harness i mod names
    i=0
    while [ $i -lt $total ]; do
        end=$(( i + jobs < total ? i + jobs : total ))
        while [ $i -lt $end ]; do
            k=$(( i % nnames + 1 ))
            eval "name=\${$k}"
            ( run_one "$name" "$i" || echo "$name" >>"$status" ) &
            i=$(( i + 1 ))
        done
        wait
    done
    [ -s "$status" ] && failed=1
    rm -f "$status"
    echo "this run (FUZZ_JOBS=$jobs, FUZZ_SECONDS=${FUZZ_SECONDS:-60} per process, harnesses of $(built_from)):"
    tail -n +"$(( before + 1 ))" "$runs_log" >"$runs_log.this.$$"
    runs_log_all=$runs_log
    runs_log=$runs_log.this.$$
    summarise "$@"
    rm -f "$runs_log"
    runs_log=$runs_log_all
    echo "every run in $runs_log:"
    summarise "$@"
    ;;
summary)
    summarise "$@"
    ;;
table)
    table "$@"
    ;;
*)
    echo "fuzz.sh: mode '$mode' is not one of: replay run summary table" >&2
    exit 2
    ;;
esac
exit $failed
