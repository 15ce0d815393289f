/* draw_bank: the bank grid of one warp instruction (view_bank.h) in cairo, for the
 * state panel of tmaview. 32 columns = banks 0..31 (a thin rule every 4 banks = one
 * 16-byte chunk, as in the tile pictures), one row per wavefront; a cell names the
 * lowest lane that bank serves in that wavefront and is filled in the conflict colour
 * when the bank must deliver more than one word in a phase. Under the grid: how many
 * lanes touch each bank. Colours are part of the contract (tests look for them). */
#ifndef TMASCOPE_DRAW_BANK_H
#define TMASCOPE_DRAW_BANK_H

#include <cairo.h>

#include "view_bank.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 8-bit (40, 150, 90): a bank serving one word per wavefront; (200, 30, 110): a conflicted bank. */
extern const double DRAW_BANK_OK_RGB[3], DRAW_BANK_CONFLICT_RGB[3];

/* Draws the picture with its caption at (x, y), w wide, in at most max_h pixels (rows
 * shrink, then are cut with a "more" note). Returns the y below what was drawn. */
double draw_bank_grid(cairo_t *cr, const view_bank *b, double x, double y, double w, double max_h);

#ifdef __cplusplus
}
#endif

#endif
