/* pipe_gemm: what a GEMM description (math kind wgmma and a `gemm:` problem) means, derived
 * once: the tile (bm x bn x bk) from the tensors' boxes and the consumer warpgroups, the
 * output tiles and the stages per tile, the iterations of the busiest CTA of the persistent
 * grid, the wgmma descriptors of both operands from the descriptor model (sim/wgmma.h), and
 * the protocol findings `tmasim check` reports (a stage released while a wgmma that reads
 * it may still be in flight; a descriptor that does not read the tile TMA wrote).
 *
 * The layout the generated kernel uses (hw/gemm_kernel.cuh): tensor 0 is A, dims [k, m],
 * box [bk, bm]; tensor 1 is B, dims [k, n], box [bk, bn]; both K-major with a 128-byte
 * swizzle and bk elements = 128 bytes, so one stage holds one swizzle row of K per operand
 * row; consumer warpgroup c reads A rows 64c..64c+63 (its wgmma's M) and all of B.
 * Pure C, libc only. */
#ifndef TMASCOPE_PIPE_GEMM_H
#define TMASCOPE_PIPE_GEMM_H

#include <stdint.h>

#include "desc.h"
#include "err.h"
#include "wgmma.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Rows of one wgmma (its M) and threads of a warpgroup. */
#define PIPE_WGMMA_M 64u
#define PIPE_WARPGROUP_WARPS 4u

/* The shape rules and the derived tile, tiles, iterations and epilogue staging; runs
 * before the tensors are placed. ERR_BAD_INPUT names the field. No-op without wgmma. */
int pipe_gemm_derive_shape(pipe_desc *d, err_info *e);
/* The descriptor templates and k steps from the descriptor model, once the tensors are
 * placed (smem offsets known); given templates are kept. */
int pipe_gemm_derive_descriptors(pipe_desc *d, err_info *e);

/* The wgmma operand shape of tensor `operand` (WG_A or WG_B). */
wg_shape pipe_gemm_shape(const pipe_desc *d, wg_operand operand);
/* The descriptor one instruction uses: operand, stage, consumer warpgroup (A rows), and
 * instruction kk along the stage's K. */
uint64_t pipe_gemm_descriptor(const pipe_desc *d, wg_operand operand, uint32_t stage, uint32_t group, uint32_t kk);
/* Flops of one wgmma instruction (2 m n k). */
uint64_t pipe_gemm_instr_flops(const pipe_desc *d);
/* wgmma instructions per stage and consumer warpgroup. */
uint32_t pipe_gemm_instrs_per_stage(const pipe_desc *d);
/* Output tiles CTA `cta` computes, and the (m, n) tile of its j-th. */
uint32_t pipe_gemm_cta_tiles(const pipe_desc *d, uint32_t cta);
void pipe_gemm_tile(const pipe_desc *d, uint32_t t, uint32_t *mt, uint32_t *nt);

/* A protocol finding of a GEMM description. */
typedef struct pipe_gemm_finding {
    char rule[48];
    char detail[640];
} pipe_gemm_finding;
#define PIPE_GEMM_FINDINGS_MAX 4

/* The findings (0..PIPE_GEMM_FINDINGS_MAX): wgmma_release_in_flight when release_lag <
 * wgmma_wait, wgmma_descriptor_mismatch when a descriptor reads what the TMA copy did not
 * put there (checked for every k instruction of both operands and every warpgroup). */
uint32_t pipe_gemm_findings(const pipe_desc *d, pipe_gemm_finding out[PIPE_GEMM_FINDINGS_MAX]);

#ifdef __cplusplus
}
#endif

#endif
