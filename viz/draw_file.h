/* draw_file: cairo surfaces written through afile (sim/afile.h): pictures go to a
 * temporary file renamed into place, or in place to a device; a failed write (disk full)
 * is an error and leaves nothing behind. */
#ifndef TMASCOPE_DRAW_FILE_H
#define TMASCOPE_DRAW_FILE_H

#include <cairo.h>

#include "afile.h"
#include "draw_text.h"

/* cairo_write_func_t over an afile (closure). */
cairo_status_t draw_file_stream(void *closure, const unsigned char *data, unsigned int length);

/* Finishes a surface drawn for f (a PNG image surface is encoded into f first; SVG and PDF
 * surfaces were created on draw_file_stream), destroys it, adds the SVG's recorded text
 * (texts, may be NULL) and commits f; on any failure removes the temporary file and
 * returns ERR_IO under rule `what`. */
int draw_file_finish(cairo_surface_t *surface, int png, afile *f, const draw_svgtext *texts, const char *what,
                     err_info *e);
/* A text collector for an SVG written to f (draw_text.h), or NULL: a PNG has no text
 * elements, and an SVG written in place to a device cannot be read back to add them, so
 * its text stays glyphs. */
draw_svgtext *draw_file_texts(cairo_t *cr, int png, const afile *f);

#endif
