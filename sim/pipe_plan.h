/* pipe_plan: what a derived description means, computed in one place for the simulator,
 * the GPU runner's kernel generator (hw/run_gen.c) and the viewer's bank picture
 * (viz/view_bank.c):
 *   - the stage map: where stage s and tensor t sit in shared memory;
 *   - the roles: which warps produce, consume, or copy and consume (mixed) in each mode;
 *   - the consumers' read instructions of one stage, each with its bank score;
 *   - the protocol constants (flops of one mma instruction, the shared-memory limit);
 *   - a hash of the description's meaning, so that two traces can be told apart.
 * Pure C, libc only. */
#ifndef TMASCOPE_PIPE_PLAN_H
#define TMASCOPE_PIPE_PLAN_H

#include <stdint.h>

#include "bank.h"
#include "desc.h"
#include "err.h"
#include "params.h"
#include "trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most shared memory one block may have on Hopper (H100, H200): 227 KB. */
#define PIPE_SMEM_PER_BLOCK (227u * 1024u)
/* Each tensor's box in a stage, and each stage, starts on this boundary (the atom of the
 * 128-byte swizzle, which repeats every 1024 bytes). */
#define PIPE_PLAN_SLOT_ALIGN 1024u
/* The math kind mma issues mma.sync.m16n8k16: 2 x 16 x 8 x 16 flops per warp instruction. */
#define PIPE_MMA_FLOPS_PER_INSTR 4096u

/* The generated math block of kind fma is a loop of 8 FFMA on 8 chains that the compiler
 * (nvcc 13.0, sm_90a) unrolls completely up to this many FFMA and keeps as a loop past it
 * (the cubins of the corpus kernels: fma 2048 -> 3160-5400 instructions, 4096 -> 1472-1672). */
#define PIPE_FFMA_UNROLLED_MAX 2048u

/* Bytes a box of `footprint` bytes takes in a stage (rounded up to PIPE_PLAN_SLOT_ALIGN). */
uint32_t pipe_plan_slot_bytes(uint32_t footprint);
/* Bytes between two stages: the tensors' slots one after another (pipe_desc_derive places
 * tensor t at smem_offset, the sum of the slots before it). */
uint32_t pipe_plan_stage_stride(const pipe_desc *d);
/* Shared-window address of tensor t's box in stage s. */
uint32_t pipe_plan_stage_address(const pipe_desc *d, uint32_t stage, uint32_t tensor);

/* The role rule: warp_specialized and st_async have producer warps (the first
 * producer_warps) and consumer warps; in multistage and cp_async the same warps copy and
 * compute (mixed warps, no producer). */
trace_role pipe_plan_role(const pipe_desc *d, uint32_t warp);
/* The role of the warps that consume stages (consumer or mixed). */
trace_role pipe_plan_consumer_role(const pipe_desc *d);
/* Whether consumer rank `rank` also copies: every rank in cp_async, rank 0 (which issues
 * the TMA loads) in multistage, none where a producer copies. */
int pipe_plan_copier(const pipe_desc *d, uint32_t rank);
/* Whether warps copy the stage themselves in 16-byte chunks (cp_async, st_async) rather
 * than the TMA copying whole boxes. */
int pipe_plan_chunk_copies(const pipe_desc *d);
/* The 16-byte chunks a stage's copy loops take, in their order: each tensor's box (planned at
 * stage_base plus its offset in the stage, tile coordinates 0) in box order, tensor after
 * tensor; visit gets the tensor and the element that starts the chunk, and stops the walk by
 * returning nonzero (as at an element outside the tensor, which pipe_rules_check refuses). */
typedef int (*pipe_plan_chunk_fn)(uint32_t tensor, const tm_element *el, void *user);
int pipe_plan_chunks(const pipe_desc *d, uint32_t stage_base, pipe_plan_chunk_fn visit, void *user, err_info *e);
/* One trip of a copy loop (hw/run_gen.c's chunk table: each tensor's 16-byte chunks of its
 * box in box order, tensor after tensor, 32 lanes a trip): the 128-byte lines of global
 * memory its chunks touch (of the tiles at coordinates 0) and its chunks from each tensor. */
typedef struct pipe_plan_trip {
    uint32_t lines;
    uint32_t chunks[DESC_MAX_TENSORS];
} pipe_plan_trip;
/* The copy loop's trips of one stage. *out is malloc'd, *n trips. */
int pipe_plan_copy_trips(const pipe_desc *d, pipe_plan_trip **out, uint32_t *n, err_info *e);
/* The mma instructions one warp issues for the description's math amount (rounded up). */
uint64_t pipe_plan_mma_instructions(const pipe_desc *d);
/* Independent accumulator chains of the generated mma block per warp: 4 keep one warp's
 * tensor pipe busy; 2 where the registers ctas_per_sm resident CTAs leave each thread are
 * under 64 (four chains' accumulators would spill; that many warps keep the pipe busy). */
uint32_t pipe_plan_mma_chains(const pipe_desc *d);
/* The SM clock the kernel runs at: clock_tensor_ghz where its math is on the tensor pipe
 * (mma.sync or wgmma), clock_ghz otherwise. */
double pipe_plan_clock_ghz(const pipe_desc *d, const pipe_params *p);

/* One warp instruction of the consumers' read of stage 0, with its bank score. */
typedef struct pipe_plan_read {
    bank_instr in;                 /* addresses in stage 0 (stage s: + s x stage stride) */
    uint32_t wavefronts, ideal;    /* bank_analyse_counts */
    uint32_t bytes;                /* bytes the instruction moves */
} pipe_plan_read;

/* The consumers' reads of one stage: the access generator's instructions over the read
 * tensor's box as the TMA places it, scored by the bank model. Instruction k belongs to
 * warp slot k % share. On an error, *bad_instr is UINT32_MAX when the generator refused
 * the pattern, else the instruction the bank model refused. *out is malloc'd. */
int pipe_plan_reads(const pipe_desc *d, pipe_plan_read **out, uint32_t *n, uint32_t *bad_instr, err_info *e);

typedef struct pipe_plan_warp {
    uint8_t role;                  /* trace_role */
    uint8_t is_consumer, copier, consumer_rank;
} pipe_plan_warp;

typedef struct pipe_plan {
    uint64_t hash;                 /* pipe_plan_hash */
    uint32_t nwarps;               /* per CTA */
    uint32_t stage_stride;         /* pipe_plan_stage_stride */
    trace_role consumer_role;
    pipe_plan_warp warp[DESC_MAX_WARPS];
    uint32_t read_share;           /* warps the reads are dealt to in turn (reads.warps, >= 1) */
    uint32_t read_repeat;          /* reads.repeat (>= 1) */
    uint32_t nreads;               /* instructions of one stage, all slots (0: no reads) */
    pipe_plan_read *reads;
} pipe_plan;

/* The plan of a derived description (pipe_desc_derive has run). pipe_plan_free after. */
int pipe_plan_build(const pipe_desc *d, pipe_plan *p, err_info *e);
void pipe_plan_free(pipe_plan *p);

/* A 64-bit hash (FNV-1a) of the description's meaning: every field that changes what the
 * kernel does, not its name or file. */
uint64_t pipe_plan_hash(const pipe_desc *d);

#ifdef __cplusplus
}
#endif

#endif
