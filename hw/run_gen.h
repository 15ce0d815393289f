/* run_gen: the kernel generator of `tmahw run`. Turns a derived pipeline description
 * (sim/desc.h) into CUDA C++ source that NVRTC compiles for sm_90a: the description's
 * counts, bytes, stages, roles and access offsets become #defines and constant tables
 * in front of the fixed kernel body (hw/run_kernel.cuh). libc only, so the generator
 * and the host reference (run_ref.h) are unit-tested on machines without a GPU.
 *
 * The generated kernel follows the protocol sim/pipe.c simulates (examples/README.md)
 * and records the same event keys (cta, warp, kind, stage, iteration). */
#ifndef TMASCOPE_RUN_GEN_H
#define TMASCOPE_RUN_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "bank.h"
#include "desc.h"
#include "err.h"
#include "tm.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RUN_RD_MAX 64              /* read instructions per warp and stage kept in registers */

/* Everything the kernel and the host derive from the description. */
typedef struct run_gen_info {
    uint32_t nwarps;               /* producer + consumer warps */
    uint32_t stage_bytes;          /* bytes between stages (sum of 1024-rounded footprints) */
    uint32_t smem_pad;             /* smem_base % 1024: stage 0 sits at that offset in a 1024 block */
    uint32_t dyn_smem_bytes;       /* dynamic shared memory to request (alignment slack included) */
    uint32_t ev_cap;               /* events one warp may record */
    uint32_t ring;                 /* events per warp buffered in shared memory (after the stages) */
    int ring_holds_all;            /* ring > ev_cap: the ring holds every event of a warp */
    /* consumer reads: the access generator's instructions, one chunk per consumer rank % share */
    int rd_probe;                  /* no reads described: one 16-byte probe load per lane (checksum only) */
    uint32_t rd_tensor;
    bank_op rd_op;                 /* LDS32/64/128 or LDSM_X1/X2/X4 */
    int rd_trans;
    uint32_t rd_share;             /* warps sharing the tile (access_desc.warps) */
    uint32_t rd_n;                 /* instructions per warp and repeat */
    uint32_t rd_repeat;
    uint32_t *rd_tab;              /* rd_share * rd_n * 32 offsets from the tensor's stage base */
    /* the offsets as the kernel holds them: instruction q reads at base[rd_cls[q]] + rd_d[q],
     * where the rd_k bases are per-lane registers and rd_d is a constant of the code (an
     * instruction's lane pattern equal to an earlier one's up to a constant shares its base) */
    uint32_t rd_k;
    uint32_t *rd_cls;              /* rd_n: the base each instruction adds to */
    uint32_t *rd_d;                /* rd_n: the constant it adds (modulo 2^32) */
    /* per tensor */
    uint32_t ntiles[DESC_MAX_TENSORS];      /* box-aligned tiles of the tensor (ids wrap) */
    uint32_t tiles_per_dim[DESC_MAX_TENSORS][TM_MAX_RANK];
    uint32_t slice_rows[DESC_MAX_TENSORS];  /* multicast: outer rows each cluster rank loads */
    uint32_t slice_smem[DESC_MAX_TENSORS];  /* multicast: shared-memory offset of rank 1's slice */
    /* cp.async / st.async: the stage as 16-byte chunks, placed as the TMA would place them */
    uint32_t cp_chunks;
    uint32_t (*cp_tab)[3];         /* tensor, offset in the stage, byte offset in the tile (global) */
    /* TMA store */
    uint32_t stores_per_cta;
    uint32_t store_rows;           /* tensor 0 box[1]: rows of the output per store */
} run_gen_info;

/* Derives the info (the description must have passed pipe_desc_derive). ERR_BAD_INPUT
 * names the field tmahw cannot run (e.g. a store whose bytes are not tensor 0's box). */
int run_gen_prepare(const pipe_desc *d, run_gen_info *g, err_info *e);
void run_gen_free(run_gen_info *g);

/* The whole NVRTC source (malloc'd, NUL-terminated): #defines, tables, kernel body.
 * TMAHW_RECORD is left to the compile options (-DTMAHW_RECORD=0/1). */
int run_gen_source(const pipe_desc *d, const run_gen_info *g, char **src, err_info *e);

/* Tile id a CTA's iteration loads for tensor t (mode, cluster and multicast aware):
 * the CTAs of a multicast cluster share one tile; st.async consumers read the peer's. */
uint32_t run_gen_tile_id(const pipe_desc *d, uint32_t cta, uint32_t iteration);
/* Box-aligned coordinates of tile `id` of tensor t. */
void run_gen_tile_coords(const pipe_desc *d, const run_gen_info *g, uint32_t t, uint32_t id, int32_t coords[TM_MAX_RANK]);

/* The kernel body (hw/run_kernel.cuh as a string) and the recording header it uses
 * (hw/record.cuh), both in hw/run_kernel_str.c. */
extern const char run_kernel_body[];
extern const char record_header_text[];

#ifdef __cplusplus
}
#endif

#endif
