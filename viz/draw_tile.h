/* draw_tile: pictures of shared memory for teaching (cairo, PNG or SVG by extension).
 * A tile is drawn as rows of 16-byte chunks (8 chunks = 128 bytes = all 32 banks per
 * row), each chunk coloured by the logical coordinate it holds, bank numbers on the
 * axis; a chosen warp instruction's lanes are marked and colliding lanes highlighted.
 * The geometry comes from the GUI-free view model in view_tile.h. */
#ifndef TMASCOPE_DRAW_TILE_H
#define TMASCOPE_DRAW_TILE_H

#include "bank.h"
#include "err.h"
#include "tm.h"

typedef struct draw_tile_opts {
    const char *path;             /* output; ".png" or ".svg" chooses the format */
    const char *title;            /* optional caption */
    const bank_instr *highlight;  /* optional instruction whose lanes are marked */
    /* Appended (zero keeps the behaviour above): which 128-byte rows to show. */
    uint32_t first_row;           /* 0: the footprint's first row, or the highlighted lanes' first */
    uint32_t max_rows;            /* 0: up to 64 rows */
} draw_tile_opts;

/* The placement of one TMA box (tmasim layout --png/--svg, tmasim bank tile mode). */
int draw_tile_plan(const tm_plan *plan, const draw_tile_opts *o, err_info *e);

/* Bare instructions with no tensor map (tmasim bank --op/--pattern --png/--svg): the
 * 128-byte rows the instruction touches, lanes placed on their banks. */
int draw_tile_instr(const bank_instr *in, const draw_tile_opts *o, err_info *e);

/* Appended: several tiles side by side in one picture, e.g. the same ldmatrix read
 * without and with a swizzle. A panel with no plan draws its bare instruction.
 * o->highlight is ignored (each panel has its own); o->title heads the picture. */
typedef struct draw_tile_panel {
    const tm_plan *plan;          /* NULL: the bare instruction below */
    const bank_instr *highlight;  /* optional with a plan, required without */
    const char *caption;          /* heading of the panel */
} draw_tile_panel;

#define DRAW_TILE_MAX_PANELS 4
int draw_tile_panels(const draw_tile_panel *panels, uint32_t count, const draw_tile_opts *o, err_info *e);

#endif
