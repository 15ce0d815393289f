/* access: generators of the warp instructions that people ask about, over a 2-D tile
 * whose layout is a TMA placement, a padded row-major array, or a generic XOR
 * swizzle (CuTe Swizzle<B,M,S>). Each generator fills bank_instr entries that
 * bank_analyse() then scores. */
#ifndef TMASCOPE_ACCESS_H
#define TMASCOPE_ACCESS_H

#include <stdint.h>

#include "bank.h"
#include "err.h"
#include "tm.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum access_layout_kind {
    ACCESS_LAYOUT_TMA = 0,     /* element (row, col) = box index (idx[1], idx[0]) of plan */
    ACCESS_LAYOUT_PADDED,      /* base + row * row_pitch + col * elem_bytes */
    ACCESS_LAYOUT_XOR,         /* padded address, then byte offset from base ^= Swizzle<B,M,S> */
} access_layout_kind;

/* A 2-D view of a tile in shared memory: rows x cols elements of elem_bytes. */
typedef struct access_layout {
    access_layout_kind kind;
    const tm_plan *plan;       /* ACCESS_LAYOUT_TMA (rank >= 2 uses dims 0 and 1, higher idx 0) */
    uint32_t base;             /* PADDED / XOR: absolute shared address of element (0,0) */
    uint32_t rows, cols;       /* PADDED / XOR */
    uint32_t elem_bytes;       /* PADDED / XOR */
    uint32_t row_pitch;        /* PADDED / XOR: bytes between rows (cols*elem_bytes + padding) */
    uint32_t xor_b, xor_m, xor_s;  /* XOR: offset ^ ((offset >> s) & (((1<<b)-1) << m)), bytes */
    /* TMA: with nboxes > 1, plan points to nboxes plans of one box shape, placed side by
     * side along the columns (box k holds columns k*w .. k*w+w-1, w its inner extent):
     * a tile wider than a swizzle span loads as several boxes (0 or 1: one box). */
    uint32_t nboxes;
} access_layout;

/* Rows/cols/elem_bytes of the view (derived from the plan for TMA layouts). */
int access_layout_shape(const access_layout *l, uint32_t *rows, uint32_t *cols, uint32_t *elem_bytes, err_info *e);
/* Absolute shared-memory byte address of element (row, col). */
int access_layout_address(const access_layout *l, uint32_t row, uint32_t col, uint32_t *addr, err_info *e);

typedef enum access_pattern {
    ACCESS_ROW_WISE = 0,       /* lanes walk along a row, bytes_per_lane each, rows in turn */
    ACCESS_COL_WISE,           /* lane l reads row l (of a 32-row block), same column chunk */
    ACCESS_LDSM_A,             /* ldmatrix.x4 fragments of an mma.m16n8k16 A operand (16x16) */
    ACCESS_LDSM_B,             /* ldmatrix.x2 fragments of an mma.m16n8k16 B operand (16x8) */
    ACCESS_PATTERN_COUNT
} access_pattern;

/* Zero-initialise, then set what you need. */
typedef struct access_desc {
    access_pattern pattern;
    uint32_t bytes_per_lane;   /* ROW/COL: 4, 8 or 16 (0 means 16) */
    uint32_t warps;            /* 1 = a warp, 4 = a warpgroup (0 means 1) */
    int trans;                 /* LDSM_B: B stored k-major (ldmatrix.trans) */
    int store;                 /* emit sts / stmatrix instead of loads */
} access_desc;

/* Fills up to max instructions covering the whole tile; *count gets how many were
 * generated (ERR_BAD_INPUT if the tile does not fit the pattern, e.g. a 16x16 A
 * fragment on a 8-row tile, naming the field). With out == NULL only *count is set
 * (sizing call); with max below the count needed, ERR_BAD_INPUT "access_max".
 * trans: LDSM_A: the tile holds A as rows k, columns m (ldmatrix.x4.trans);
 *        LDSM_B: the tile holds B as rows k, columns n, n contiguous (ldmatrix.x2.trans);
 *        without it B is rows n, columns k (k contiguous; CUTLASS calls that K-major). */
int access_generate(const access_layout *l, const access_desc *d, bank_instr *out, uint32_t max,
                    uint32_t *count, err_info *e);

int access_pattern_parse(const char *s, access_pattern *out, err_info *e);
const char *access_pattern_name(access_pattern p);

#ifdef __cplusplus
}
#endif

#endif
