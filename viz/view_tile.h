/* view_tile: the GUI-free model of a shared-memory tile picture.
 *
 * Shared memory is shown as rows of 128 bytes (one row = all 32 banks once), each
 * row cut into 8 chunks of 16 bytes (4 banks each). For a TMA placement every chunk
 * knows the logical elements it holds (box index, through tm_plan_element_at); for a
 * highlighted warp instruction every lane knows its bytes, banks, wavefront and
 * whether it collides. draw_tile.c only turns this into pixels, so everything a
 * picture claims is tested here without a window. */
#ifndef TMASCOPE_VIEW_TILE_H
#define TMASCOPE_VIEW_TILE_H

#include <stdint.h>

#include "bank.h"
#include "err.h"
#include "tm.h"

#ifdef __cplusplus
extern "C" {
#endif

#define VIEW_ROW_BYTES 128u
#define VIEW_CHUNK_BYTES 16u
#define VIEW_CHUNKS_PER_ROW 8u
#define VIEW_BANKS_PER_CHUNK 4u
/* Rows shown when the caller does not choose: enough for 8 KB, the 64x64 f16 tile. */
#define VIEW_DEFAULT_MAX_ROWS 64u
#define VIEW_MAX_ROWS 4096u

typedef enum view_chunk_kind {
    VIEW_CHUNK_OUTSIDE = 0,    /* not part of the copy's footprint */
    VIEW_CHUNK_PADDING,        /* inside the footprint but holds no element (narrow rows) */
    VIEW_CHUNK_DATA,           /* holds elements of the box */
} view_chunk_kind;

/* One 16-byte chunk. Elements are named by their index inside the box (idx[0] is
 * the column, idx[1] the row, higher dimensions further planes). */
typedef struct view_chunk {
    view_chunk_kind kind;
    uint32_t elements;           /* distinct elements with a byte in the chunk */
    uint32_t first[TM_MAX_RANK]; /* box index of the element at the chunk's lowest byte */
    uint32_t last[TM_MAX_RANK];  /* box index of the element at the chunk's highest data byte */
    uint32_t oob_elements;       /* of those, outside the tensor (zero / NaN filled) */
    uint32_t colour;             /* palette index: the logical 16-byte column group, see below */
    uint32_t shade;              /* 0..2: which run of 8 column groups (for rows wider than 128 B) */
    char label[32];              /* "r3 c0-7" (plus "z1" etc. for rank >= 3), "" if none */
} view_chunk;

typedef struct view_row {
    uint32_t address;            /* absolute shared address of the row's first byte (128-aligned) */
    int gap_before;              /* rows are not contiguous with the previous one shown */
    view_chunk chunk[VIEW_CHUNKS_PER_ROW];
} view_row;

/* One lane of the highlighted instruction. */
typedef struct view_lane {
    int used;                    /* active and taking part in the op */
    uint32_t address, bytes;     /* the byte range [address, address + bytes) */
    uint32_t row;                /* index into view_tile.row, or VIEW_LANE_OFF_PICTURE */
    uint32_t byte_in_row;        /* 0..127 */
    uint32_t first_bank, banks;  /* banks first_bank .. first_bank + banks - 1 */
    uint32_t wavefront;          /* first wavefront serving it (0-based) */
    int collides;                /* shares a bank with a different word (bank model's verdict) */
} view_lane;
#define VIEW_LANE_OFF_PICTURE 0xffffffffu

typedef struct view_tile_opts {
    uint32_t first_row;          /* first 128-byte row of the footprint to show */
    uint32_t max_rows;           /* 0: VIEW_DEFAULT_MAX_ROWS */
} view_tile_opts;

typedef struct view_tile {
    int has_plan;
    tm_plan plan;
    uint32_t elem_bits;          /* bits per element (0 without a plan) */
    uint32_t total_rows;         /* rows covering the whole footprint (or touched rows) */
    uint32_t first_row;          /* of total_rows, the first one shown */
    uint32_t nrows;              /* rows shown */
    view_row *row;               /* nrows entries */
    uint32_t colour_groups;      /* distinct colour indices in use (legend entries) */
    uint32_t colour_mask;        /* bit i: colour index i is in use */

    int has_instr;
    bank_instr instr;
    bank_result result;
    view_lane lane[BANK_LANES];
    uint32_t lanes_off_picture;  /* used lanes whose bytes lie in rows not shown */
    char summary[96];            /* "N wavefronts, ideal M, K conflicts" */
} view_tile;

/* Builds the picture of a TMA placement. instr (optional) is highlighted; result
 * may be NULL, in which case bank_analyse() is run. */
int view_tile_build_plan(view_tile *v, const tm_plan *plan, const bank_instr *instr,
                         const bank_result *result, const view_tile_opts *o, err_info *e);

/* Builds the picture of a bare instruction: the distinct 128-byte rows it touches,
 * in address order, chunks without logical content. */
int view_tile_build_instr(view_tile *v, const bank_instr *instr, const bank_result *result,
                          const view_tile_opts *o, err_info *e);

void view_tile_free(view_tile *v);

/* Lanes of the matrix ops that carry a row address, and bytes each lane touches. */
int view_lane_used(const bank_instr *in, uint32_t lane);
uint32_t view_lane_bytes(const bank_instr *in);

/* The colour index of a chunk is its logical 16-byte column group inside the box
 * row: (idx[0] * elem_bits) / 128, modulo VIEW_PALETTE (shade says which run of
 * 8). Without a swizzle the groups stand in vertical stripes; a swizzle permutes
 * them row by row, which is what a reader should see. */
#define VIEW_PALETTE 8u

#ifdef __cplusplus
}
#endif

#endif
