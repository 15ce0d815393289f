/* desc: a pipeline description, the kernel that tmasim simulates and tmahw runs.
 * Written by people in YAML (examples/NAME.yaml, format in examples/README.md), parsed by
 * desc_yaml.c (libtmadesc); the struct itself and pipe_desc_derive() are libc-only so
 * that hw/ can use them. */
#ifndef TMASCOPE_DESC_H
#define TMASCOPE_DESC_H

#include <stdint.h>

#include "access.h"
#include "err.h"
#include "tm.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pipe_mode {
    PIPE_WARP_SPECIALIZED = 0, /* producer warp(s) + consumer warps, full/empty barriers */
    PIPE_MULTISTAGE,           /* the same warps copy (TMA, warp 0 issues) and compute */
    PIPE_CPASYNC,              /* every warp copies its share with cp.async (LDGSTS), noinc arrivals */
    PIPE_STASYNC,              /* producer writes the cluster peer's stage with st.async + remote complete_tx */
    PIPE_MODE_COUNT
} pipe_mode;

typedef enum pipe_math { PIPE_MATH_NONE = 0, PIPE_MATH_FMA, PIPE_MATH_MMA, PIPE_MATH_WGMMA, PIPE_MATH_COUNT } pipe_math;

/* math kind wgmma: every consumer warpgroup issues wgmma.mma_async m64nNkK over the stage
 * (A: its 64 rows of tensor 0's box, B: tensor 1's box), commits one group per stage and
 * waits with wgmma.wait_group(wait) before releasing the stage release_lag stages back. */
typedef struct desc_wgmma {
    uint32_t n, k;                 /* instruction shape m64nNkK */
    int dtype;                     /* wg_dtype (sim/wgmma.h) of A and B */
    int a_registers;               /* a: registers (RS form); 0: a: smem (SS form) */
    uint32_t wait;                 /* consumer.wgmma_wait: groups left in flight */
    /* descriptor templates (start address field 0); derived from the tensor maps by the
     * descriptor model unless given (to seed a descriptor bug) */
    int desc_a_given, desc_b_given;
    uint64_t desc_a, desc_b;
    uint32_t kstep_a, kstep_b;     /* bytes added to the start address per instruction along K */
} desc_wgmma;

typedef enum pipe_epilogue { PIPE_EPI_TMA = 0, PIPE_EPI_DIRECT, PIPE_EPI_COUNT } pipe_epilogue;

/* An output problem C[m][n] = A[m][k] B[n][k]^T over output tiles of bm x bn, walked by a
 * persistent grid (ctas = SMs x ctas_per_sm) in groups of group_m tile rows. */
typedef struct desc_gemm {
    int given;
    uint32_t m, n, k;
    uint32_t group_m;              /* tile order: group_m M tiles, then the next N tile */
    pipe_epilogue epilogue;        /* tma: accumulators to shared memory, TMA store of C; direct: st.global */
    /* derived */
    uint32_t bm, bn, bk;           /* tile (bk: elements of K per stage) */
    uint32_t tiles, k_iters;       /* output tiles; stages per tile */
    uint32_t consumer_groups;      /* consumer warpgroups (consumer_warps / 4) */
    uint32_t c_stage_bytes;        /* shared memory of the epilogue's staging (all warpgroups) */
} desc_gemm;

/* The store back to global memory: a plain TMA store (cp.async.bulk.tensor, shared ->
 * global) or a TMA reduction (cp.reduce.async.bulk.tensor.<op>: the L2 combines the tile
 * with what global memory holds). The ops are PTX's .redOp list. */
typedef enum pipe_reduce {
    PIPE_REDUCE_NONE = 0, PIPE_REDUCE_ADD, PIPE_REDUCE_MIN, PIPE_REDUCE_MAX, PIPE_REDUCE_INC, PIPE_REDUCE_DEC,
    PIPE_REDUCE_AND, PIPE_REDUCE_OR, PIPE_REDUCE_XOR, PIPE_REDUCE_COUNT
} pipe_reduce;

#define DESC_MAX_TENSORS 4
#define DESC_MAX_STAGES 32
#define DESC_MAX_WARPS 32

typedef struct desc_tensor {
    char name[32];
    tm_desc map;               /* cuTensorMapEncodeTiled parameters */
    double l2_hit;             /* fraction of this tensor's bytes served by L2 (reuse across CTAs); negative
                                * when not given: pipe_l2_hit derives it from the tiles the CTAs load */
    /* derived */
    uint32_t tx_bytes;         /* tm_plan.tx_bytes of one box */
    uint32_t footprint_bytes;  /* tm_plan.footprint_bytes */
    uint32_t smem_offset;      /* offset of this tensor's box inside a stage */
} desc_tensor;

typedef struct pipe_desc {
    char name[64];
    char file[256];
    pipe_mode mode;
    uint32_t ctas, ctas_per_sm;        /* grid (1-D), CTAs resident per SM */
    uint32_t cluster;                  /* CTAs per cluster (1, 2, 4, ...) */
    int multicast;                     /* TMA multicast of every tensor to the whole cluster */
    uint32_t producer_warps;           /* WS / st.async: 1; multistage / cp.async: 0 */
    uint32_t consumer_warps;           /* consumers (or the mixed warps of multistage / cp.async) */
    uint32_t stages, iterations;
    uint32_t ntensors;
    desc_tensor tensors[DESC_MAX_TENSORS];
    uint32_t smem_base;                /* shared-window address of stage 0 (default 1024) */

    /* barriers: 0 = derived from the mode (the correct values); set to seed a bug */
    uint32_t full_count, empty_count;
    uint32_t expect_tx;                /* bytes per stage and CTA the producer announces */
    uint32_t copy_bytes;               /* derived: bytes the copies of one stage deliver to one CTA */

    /* consumer behaviour */
    uint32_t release_lag;              /* release stage i after consuming i + lag */
    int release_lag_given;             /* (math kind wgmma: the lag defaults to wgmma_wait) */
    int never_release;                 /* bug: consumers never arrive on the empty barrier */
    int wait_parity_offset;            /* bug: consumers wait with parity of phase k + offset */

    /* per consumer warp and stage */
    int reads_enabled;
    uint32_t reads_tensor;             /* index into tensors[] */
    access_desc reads;                 /* the access generator over the stage's layout */
    uint32_t reads_repeat;             /* the generated instructions are executed this many times */
    pipe_math math;
    uint64_t math_amount;              /* FMA: warp FFMA instructions; MMA: flops (2 per multiply-add) */
    uint32_t store_bytes, store_every; /* TMA store of store_bytes after every store_every iterations */

    /* derived from the bank model */
    uint32_t read_instructions;        /* per consumer warp and stage (after repeat) */
    uint64_t read_wavefronts;          /* per consumer warp and stage (after repeat) */
    uint64_t read_ideal_wavefronts;
    uint64_t read_bytes;

    pipe_reduce store_reduce;          /* store.reduce: 0 plain TMA store, else the reduction op */
    /* cp_async only: synchronise with commit groups (cp.async.commit_group / wait_group N,
     * __pipeline_commit / __pipeline_wait_prior) and a CTA barrier instead of mbarriers.
     * Each warp: prologue commits stages-1 groups; iteration i: wait_group(wait_prior),
     * bar.sync, copy + commit iteration i+stages-1 (an empty group past the end), consume i. */
    int cpasync_groups;                /* cpasync.sync: wait_prior */
    uint32_t cpasync_wait_prior;       /* N of wait_group; derived stages-2 (the correct value) */
    int cpasync_wait_prior_given;      /* set to seed a bug (a larger N reads a stage in flight) */
    /* Bug seed (producer.waits_on: full): before refilling stage s the producer waits for its
     * own previous copy into s (full[s], phase k-1) instead of the consumers' release
     * (empty[s]): nothing holds it back for slow consumers, which then find the full
     * barrier two or more phases ahead of the one they wait for (phase aliasing). */
    int producer_waits_full;
    desc_wgmma wgmma;                  /* math kind wgmma */
    desc_gemm gemm;                    /* gemm: the output problem */
} pipe_desc;

const char *pipe_mode_name(pipe_mode m);
int pipe_mode_parse(const char *s, pipe_mode *out, err_info *e);
const char *pipe_math_name(pipe_math m);
const char *pipe_reduce_name(pipe_reduce r);
const char *pipe_epilogue_name(pipe_epilogue p);   /* "tma", "direct" */   /* "none", "add", "min", ... */
int pipe_reduce_parse(const char *s, pipe_reduce *out, err_info *e);

/* Fills the derived fields (tx bytes and footprints through tm_plan_copy, barrier counts
 * and expect_tx where not given, read wavefronts through access_generate + bank_analyse)
 * and checks the shape (warps, stages, shared-memory budget). ERR_BAD_INPUT names the
 * field. Idempotent. */
int pipe_desc_derive(pipe_desc *d, err_info *e);
/* The role rule of the modes, defined here once: warp_specialized and st_async have one
 * producer warp and consumer warps; in multistage and cp_async the same warps copy and
 * compute (mixed warps, no producer). */
int pipe_desc_has_producer(const pipe_desc *d);
/* The correct counts for the mode (what derive uses when the description gives none). */
uint32_t pipe_desc_full_count(const pipe_desc *d);
uint32_t pipe_desc_empty_count(const pipe_desc *d);

/* libtmadesc: parse YAML text (filename for messages) or a file. Errors are ERR_BAD_INPUT
 * with detail "FILE:LINE: field 'x.y': ..." on one line. Calls pipe_desc_derive. */
int desc_parse_yaml(const char *text, size_t len, const char *filename, pipe_desc *out, err_info *e);
/* A description file holds at most this many bytes; a directory or a larger file is refused. */
#define DESC_MAX_FILE_BYTES (1u << 20)
int desc_load(const char *path, pipe_desc *out, err_info *e);

#ifdef __cplusplus
}
#endif

#endif
