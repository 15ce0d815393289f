#!/bin/sh
# Embeds a kernel body (.cuh) into a C file as a string: by default hw/run_kernel.cuh into
# hw/run_kernel_str.c as run_kernel_body (declared in run_gen.h); the GEMM kernel with
# `hw/embed.sh hw/gemm_kernel.cuh hw/gemm_kernel_str.c gemm_gen.h gemm_kernel_body`
# (make runs this when the .cuh changes; the result is committed so that builds
# without make's rule still have it).
set -e
in=${1:-hw/run_kernel.cuh}
out=${2:-hw/run_kernel_str.c}
hdr=${3:-run_gen.h}
sym=${4:-run_kernel_body}
{
    echo "/* Generated from $in by hw/embed.sh: do not edit. */"
    echo "#include \"$hdr\""
    echo "const char $sym[] ="
    sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/    "/' -e 's/$/\\n"/' "$in"
    echo '    ;'
} >"$out.tmp"
mv "$out.tmp" "$out"
