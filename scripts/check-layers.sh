#!/bin/sh
# The layers' include paths (Makefile INC_*) stop an include of a layer above by name;
# this stops the one way around them, a relative path out of a library's folder.
# Libraries: sim/, viz/, hw/ (host code). Exit 1 naming each offending line.
set -u
cd "$(dirname "$0")/.." || exit 2
bad=$(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]*\.\./' sim/*.[ch] viz/*.[ch] hw/*.c hw/*.h hw/*.cu hw/*.cuh 2>/dev/null)
if [ -n "$bad" ]; then
    printf 'check-layers: a library includes a file outside its folder:\n%s\n' "$bad"
    exit 1
fi
echo "check-layers: no library includes outside its folder"
