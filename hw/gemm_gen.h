/* gemm_gen: the GEMM kernel generator of `tmahw run` for descriptions with math kind wgmma
 * (sim/pipe_gemm.h): the derived tile, stages, wait, lag, tile order, epilogue and the
 * descriptor model's descriptor templates become #defines, and the wgmma instruction of the
 * described shape and type becomes gm_wgmma(), in front of hw/gemm_kernel.cuh. libc only. */
#ifndef TMASCOPE_GEMM_GEN_H
#define TMASCOPE_GEMM_GEN_H

#include <stdint.h>

#include "desc.h"
#include "err.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers per thread the producer warpgroup gives back and the consumers take
 * (setmaxnreg): 40 and 232 for two consumer warpgroups (3 x 128 threads within 64 Ki). */
uint32_t gemm_gen_producer_regs(const pipe_desc *d);
uint32_t gemm_gen_consumer_regs(const pipe_desc *d);
/* Dynamic shared memory of the kernel: stages, C staging, barriers, alignment slack. */
uint32_t gemm_gen_smem_bytes(const pipe_desc *d);

/* The NVRTC source (malloc'd): #defines, gm_wgmma(), the kernel body. GM_RECORD is left
 * to the compile options. */
int gemm_gen_source(const pipe_desc *d, char **src, err_info *e);

/* The typedefs and gm_wgmma() of the described shape alone (malloc'd): what
 * `tmahw calibrate --only wgmma` times. */
int gemm_gen_wgmma_source(const pipe_desc *d, char **src, err_info *e);

extern const char gemm_kernel_body[];

#ifdef __cplusplus
}
#endif

#endif
