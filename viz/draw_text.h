/* draw_text: text that stays text in an SVG. cairo's SVG surface writes every string as
 * glyph outlines (<symbol> paths): a reader cannot select, search or edit it, and some
 * renderers drop it. The drawing code shows text through draw_show_text; on a cairo_t
 * with a collector attached (an SVG being written) the string is recorded with its
 * position, size and colour in device space instead of being drawn, and
 * draw_svgtext_write adds one <text> element per string to the finished file. Without
 * a collector draw_show_text is cairo_show_text. */
#ifndef TMASCOPE_DRAW_TEXT_H
#define TMASCOPE_DRAW_TEXT_H

#include <cairo.h>

#include "err.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct draw_svgtext draw_svgtext;

/* Attaches a collector to cr (NULL when out of memory: text is then drawn as glyphs). */
draw_svgtext *draw_svgtext_attach(cairo_t *cr);
/* cairo_show_text at the current point, or its record; the current point advances. */
void draw_show_text(cairo_t *cr, const char *s);
/* Adds the recorded strings to the finished SVG file at path, before its closing tag. */
int draw_svgtext_write(const draw_svgtext *c, const char *path, err_info *e);
/* Frees the collector (after the cairo_t it was attached to is destroyed). */
void draw_svgtext_free(draw_svgtext *c);

#ifdef __cplusplus
}
#endif

#endif
