#!/bin/sh
# Runs each Criterion suite; prints a one-line summary per suite and fails if any
# suite fails. GPU suites report their skips with the reason.
set -u
failed=0
for t in "$@"; do
    name=$(basename "$t")
    if "$t" --jobs=2 --short-filename >"$t.log" 2>&1; then
        printf '%-28s %s\n' "$name" "$(grep -E '^\[====\] Synthesis' "$t.log" | sed 's/^\[====\] //')"
    else
        failed=1
        printf '%-28s FAILED\n' "$name"
        cat "$t.log"
    fi
    grep -E 'SKIP' "$t.log" | sed 's/^/    /' || true
done
exit $failed
