/* draw_wgmma: a picture of what one wgmma k-block reads from a TMA tile (cairo, PNG or
 * SVG by the path's extension). Shared memory is drawn as 128-byte lines of eight
 * 16-byte chunks; chunks the tile occupies are shaded; each chunk the descriptor reads
 * is labelled with the operand element (row,k) it supplies first, in operand order,
 * green where every element it supplies is the one TMA put there, red where not; a
 * chunk that holds k-block elements nobody reads is outlined in orange. */
#ifndef TMASCOPE_DRAW_WGMMA_H
#define TMASCOPE_DRAW_WGMMA_H

#include "err.h"
#include "wgmma.h"

typedef struct draw_wgmma_opts {
    const char *path;       /* ".png" or ".svg" */
    const char *title;      /* optional first line */
    uint32_t max_lines;     /* 0: 64 */
} draw_wgmma_opts;

/* tile may be NULL (then only the reads are drawn). */
int draw_wgmma(const wg_tile *tile, const wg_shape *s, const wg_desc *d, const draw_wgmma_opts *o, err_info *e);

#endif
