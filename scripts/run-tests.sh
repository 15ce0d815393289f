#!/bin/sh
# Runs each Criterion suite; prints a one-line summary per suite (with the number of
# skipped tests, which Criterion's own synthesis leaves out) and the reasons for the
# skips. Fails if any suite fails.
set -u
failed=0
# the suites are ASan builds: a leak of the runner's library is not ours to report
LSAN_OPTIONS="suppressions=$(cd "$(dirname "$0")/.." && pwd)/tests/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS
for t in "$@"; do
    name=$(basename "$t")
    if "$t" --jobs=2 --short-filename --verbose >"$t.log" 2>&1; then
        skipped=$(grep -c '^\[SKIP\]' "$t.log")
        printf '%-24s %s | Skipped: %s\n' "$name" \
            "$(grep -E '^\[====\] Synthesis' "$t.log" | sed 's/^\[====\] Synthesis: //')" "$skipped"
    else
        failed=1
        printf '%-24s FAILED\n' "$name"
        grep -vE '^\[(RUN |PASS|----\] Criterion)' "$t.log"
    fi
    # One line per distinct skip reason.
    grep '^\[SKIP\]' "$t.log" | sed 's/^\[SKIP\] [^:]*::[^:]*: /    skipped: /' | sort | uniq -c | sed 's/^ */    /' || true
done
exit $failed
