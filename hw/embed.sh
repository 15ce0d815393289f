#!/bin/sh
# Embeds kernel text (.cuh) into a C file as strings. Without arguments: hw/run_kernel.cuh
# and hw/record.cuh into hw/run_kernel_str.c as run_kernel_body and record_header_text
# (declared in run_gen.h); the GEMM kernel with
# `hw/embed.sh hw/gemm_kernel.cuh hw/gemm_kernel_str.c gemm_gen.h gemm_kernel_body`
# (make runs this when a .cuh changes; the result is committed so that builds without
# make's rule still have it).
set -e
str() {   # file, C name
    echo "const char $2[] ="
    sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/    "/' -e 's/$/\\n"/' "$1"
    echo '    ;'
}
if [ $# -gt 0 ]; then
    in=$1 out=$2 hdr=$3 sym=$4
    {
        echo "/* Generated from $in by hw/embed.sh: do not edit. */"
        echo "#include \"$hdr\""
        str "$in" "$sym"
    } >"$out.tmp"
else
    out=hw/run_kernel_str.c
    {
        echo '/* Generated from hw/run_kernel.cuh and hw/record.cuh by hw/embed.sh: do not edit. */'
        echo '#include "run_gen.h"'
        str hw/run_kernel.cuh run_kernel_body
        str hw/record.cuh record_header_text
    } >"$out.tmp"
fi
mv "$out.tmp" "$out"
