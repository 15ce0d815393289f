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
#include "params.h"
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

/* The share of operand `operand`'s TMA loads that L2 serves: the persistent grid's CTAs
 * (clusters) work on consecutive tiles at once, so the loads of one k step by all of them
 * read each distinct A tile row (B tile column) of those tiles from DRAM once and from L2
 * for every other CTA that needs it. Counted over the waves of concurrent tiles; reuse
 * across waves (a row read again a whole K sweep later) is not counted. */
double pipe_gemm_l2_hit(const pipe_desc *d, wg_operand operand);

/* The time one SM's producer thread takes per stage of copies when every SM loads its own
 * (a stage's copies complete no earlier than this after the previous stage's): gemm_step_ns
 * plus the stage's bytes (a CTA's slice with multicast) at the SM's TMA rate. */
double pipe_gemm_stage_ns(const pipe_desc *d, const pipe_params *p);
/* How many CTAs of a wave load each distinct tile of the operand, on average (loads over
 * distinct tiles, the same count): the SMs that read the same lines of L2 at about the same
 * time, which sets the rate L2 serves them at (pipe_l2_share_rate). */
double pipe_gemm_readers(const pipe_desc *d, wg_operand operand);
/* The cycles the SM's tensor pipe spends on one wgmma instruction: its N columns at
 * cycles_per_col (an instruction reads 32 bytes of K per row whatever the dtype). */
double pipe_gemm_instr_cycles(const pipe_desc *d, double cycles_per_col);

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
