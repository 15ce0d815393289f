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
} draw_tile_opts;

/* The placement of one TMA box (tmasim layout --png/--svg, tmasim bank tile mode). */
int draw_tile_plan(const tm_plan *plan, const draw_tile_opts *o, err_info *e);

/* Bare instructions with no tensor map (tmasim bank --op/--pattern --png/--svg): the
 * 128-byte rows the instruction touches, lanes placed on their banks. */
int draw_tile_instr(const bank_instr *in, const draw_tile_opts *o, err_info *e);

#endif
