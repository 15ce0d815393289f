#!/bin/sh
# Embeds hw/run_kernel.cuh and hw/record.cuh into hw/run_kernel_str.c as the C strings
# run_kernel_body and record_header_text (make runs this when either changes; the result
# is committed so that builds without make's rule still have it).
set -e
out=${1:-hw/run_kernel_str.c}
str() {   # file, C name
    echo "const char $2[] ="
    sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/    "/' -e 's/$/\\n"/' "$1"
    echo '    ;'
}
{
    echo '/* Generated from hw/run_kernel.cuh and hw/record.cuh by hw/embed.sh: do not edit. */'
    echo '#include "run_gen.h"'
    str hw/run_kernel.cuh run_kernel_body
    str hw/record.cuh record_header_text
} >"$out.tmp"
mv "$out.tmp" "$out"
