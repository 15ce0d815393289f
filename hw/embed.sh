#!/bin/sh
# Embeds hw/run_kernel.cuh into hw/run_kernel_str.c as the C string run_kernel_body
# (make runs this when the .cuh changes; the result is committed so that builds
# without make's rule still have it).
set -e
in=${1:-hw/run_kernel.cuh}
out=${2:-hw/run_kernel_str.c}
{
    echo '/* Generated from hw/run_kernel.cuh by hw/embed.sh: do not edit. */'
    echo '#include "run_gen.h"'
    echo 'const char run_kernel_body[] ='
    sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/    "/' -e 's/$/\\n"/' "$in"
    echo '    ;'
} >"$out.tmp"
mv "$out.tmp" "$out"
