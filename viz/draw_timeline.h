/* draw_timeline: cairo drawing of a view_session. The window (cmd/tmaview) draws into an
 * image surface over the window's pixels; the headless renderer draws the same picture
 * into a PNG, SVG or PDF file. Colours are part of the contract (tests look for them). */
#ifndef TMASCOPE_DRAW_TIMELINE_H
#define TMASCOPE_DRAW_TIMELINE_H

#include <cairo.h>

#include "err.h"
#include "view_session.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct draw_rgb { double r, g, b; } draw_rgb;

/* Waits (stalls) are drawn in this red so they stand out: 8-bit (236, 28, 36). */
extern const draw_rgb DRAW_STALL_RGB;
draw_rgb draw_kind_rgb(trace_kind k);
draw_rgb draw_stage_rgb(view_stage_state s);

/* Draws the whole view (axis, panes, flows, links, badges, panel, stage strip, tooltip)
 * into cr, whose user space is s->px_w x s->px_h device pixels; the drawing is scaled
 * by s->scale from the logical geometry s->g. */
void draw_timeline(cairo_t *cr, const view_session *s);

/* Renders to a file; ".png", ".svg" or ".pdf" (case-insensitive) chooses the format.
 * Atomic: a temporary file renamed over path. */
int draw_timeline_file(const view_session *s, const char *path, err_info *e);

#ifdef __cplusplus
}
#endif

#endif
