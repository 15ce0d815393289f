/* draw_sweep: the picture of a sweep (cairo; PNG, or SVG by the .svg extension): the least
 * predicted time over the values of the two most influential keys (sweep_influence), each
 * cell the best point with those two values and any values of the other keys, coloured by
 * its time over the best; cells with no valid point are grey. */
#ifndef TMASCOPE_DRAW_SWEEP_H
#define TMASCOPE_DRAW_SWEEP_H

#include "err.h"
#include "sweep.h"

/* ERR_BAD_INPUT when no point ran (nothing to draw); ERR_IO when the file cannot be written. */
int draw_sweep_map(const sweep_spec *s, const sweep_row *rows, uint64_t n, const char *path, err_info *e);

#endif
