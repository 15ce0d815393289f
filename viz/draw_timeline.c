#include "draw_timeline.h"
#include "draw_file.h"

#include "draw_bank.h"

#include "draw_text.h"
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

const draw_rgb DRAW_STALL_RGB = {236 / 255.0, 28 / 255.0, 36 / 255.0};

draw_rgb draw_kind_rgb(trace_kind k)
{
    switch (k) {
    case TRACE_TMA_FLIGHT: return (draw_rgb){0.26, 0.52, 0.90};
    case TRACE_TMA_STORE: return (draw_rgb){0.58, 0.40, 0.85};
    case TRACE_WGMMA: return (draw_rgb){0.95, 0.55, 0.10};
    case TRACE_WGMMA_WAIT: return (draw_rgb){0.75, 0.60, 0.40};
    case TRACE_WAIT: return DRAW_STALL_RGB;
    case TRACE_SMEM_READ: return (draw_rgb){0.16, 0.68, 0.55};
    case TRACE_MATH: return (draw_rgb){0.93, 0.72, 0.20};
    case TRACE_TMA_ISSUE:
    case TRACE_CPASYNC_ISSUE: return (draw_rgb){0.10, 0.30, 0.75};
    case TRACE_BAR_ARRIVE: return (draw_rgb){0.35, 0.35, 0.35};
    case TRACE_BAR_EXPECT_TX: return (draw_rgb){0.45, 0.45, 0.70};
    case TRACE_BAR_COMPLETE_TX: return (draw_rgb){0.20, 0.45, 0.85};
    case TRACE_PHASE_COMPLETE: return (draw_rgb){0.05, 0.05, 0.05};
    case TRACE_RELEASE: return (draw_rgb){0.10, 0.60, 0.20};
    default: return (draw_rgb){0.5, 0.5, 0.5};
    }
}

draw_rgb draw_stage_rgb(view_stage_state s)
{
    switch (s) {
    case VIEW_STAGE_FILLING: return (draw_rgb){0.26, 0.52, 0.90};
    case VIEW_STAGE_FULL: return (draw_rgb){0.20, 0.70, 0.30};
    case VIEW_STAGE_READING: return (draw_rgb){0.93, 0.72, 0.20};
    default: return (draw_rgb){0.88, 0.88, 0.88};
    }
}

static const draw_rgb FASTER = {0.10, 0.65, 0.20}, SLOWER = {0.85, 0.15, 0.15}, UNMATCHED = {0.60, 0.60, 0.60};

static void set_rgb(cairo_t *cr, draw_rgb c) { cairo_set_source_rgb(cr, c.r, c.g, c.b); }
static draw_rgb mix(draw_rgb a, draw_rgb b, double f)
{
    return (draw_rgb){a.r + (b.r - a.r) * f, a.g + (b.g - a.g) * f, a.b + (b.b - a.b) * f};
}

static void text(cairo_t *cr, double x, double y, double size, const char *s)
{
    cairo_set_font_size(cr, size);
    cairo_move_to(cr, x, y);
    draw_show_text(cr, s);
}

static void fmt_ns(char *buf, size_t cap, double ns)
{
    double a = fabs(ns);
    if (a >= 1e9) snprintf(buf, cap, "%.3f s", ns / 1e9);
    else if (a >= 1e6) snprintf(buf, cap, "%.3f ms", ns / 1e6);
    else if (a >= 1e3) snprintf(buf, cap, "%.3f us", ns / 1e3);
    else snprintf(buf, cap, "%.0f ns", ns);
}

/* At most 7 characters, for the statistics table: "512ns", "3.21us", "12.3ms". */
static void fmt_short(char *buf, size_t cap, double ns)
{
    if (ns < 1e3) snprintf(buf, cap, "%.0fns", ns);
    else if (ns < 1e4) snprintf(buf, cap, "%.2fus", ns / 1e3);
    else if (ns < 1e6) snprintf(buf, cap, "%.0fus", ns / 1e3);
    else if (ns < 1e7) snprintf(buf, cap, "%.2fms", ns / 1e6);
    else if (ns < 1e9) snprintf(buf, cap, "%.0fms", ns / 1e6);
    else snprintf(buf, cap, "%.1fs", ns / 1e9);
}

/* ---- batched rectangles: one fill per colour keeps big frames cheap --------------- */
enum { BUCKETS = TRACE_KIND_COUNT * 5, BUCKET_CAP = 4096 };
typedef struct rect { float x, y, w, h; } rect;
/* A bucket's array grows on demand up to BUCKET_CAP rectangles, so that a frame with few
 * spans does not pay for the 4 MB that a full one holds. */
typedef struct batch {
    rect *r[BUCKETS];
    unsigned n[BUCKETS], cap[BUCKETS];
    draw_rgb c[BUCKETS];
} batch;

static void batch_flush_one(cairo_t *cr, batch *b, unsigned k)
{
    if (!b->n[k]) return;
    set_rgb(cr, b->c[k]);
    for (unsigned i = 0; i < b->n[k]; i++) cairo_rectangle(cr, b->r[k][i].x, b->r[k][i].y, b->r[k][i].w, b->r[k][i].h);
    cairo_fill(cr);
    b->n[k] = 0;
}

static void batch_add(cairo_t *cr, batch *b, unsigned k, draw_rgb c, double x, double y, double w, double h)
{
    /* touching blocks of one colour on one track become one rectangle: zoomed out,
     * merged blocks abut, and the fill cost follows the rectangle count */
    if (b->n[k]) {
        rect *last = &b->r[k][b->n[k] - 1];
        if (last->y == (float)y && last->h == (float)h && (float)x >= last->x && (float)x <= last->x + last->w + 0.5f) {
            float end = (float)(x + w);
            if (end > last->x + last->w) last->w = end - last->x;
            return;
        }
    }
    if (b->n[k] == b->cap[k] && b->cap[k] < BUCKET_CAP) {
        unsigned cap = b->cap[k] ? 2 * b->cap[k] : 64;
        rect *grown = realloc(b->r[k], cap * sizeof *grown);
        if (grown) b->r[k] = grown, b->cap[k] = cap;
    }
    if (b->n[k] == b->cap[k]) batch_flush_one(cr, b, k);
    if (!b->cap[k]) {   /* out of memory: this rectangle on its own */
        set_rgb(cr, c);
        cairo_rectangle(cr, x, y, w, h);
        cairo_fill(cr);
        return;
    }
    b->c[k] = c;
    b->r[k][b->n[k]++] = (rect){(float)x, (float)y, (float)w, (float)h};
}

static void batch_flush(cairo_t *cr, batch *b)
{
    for (unsigned k = 0; k < BUCKETS; k++) batch_flush_one(cr, b, k);
}

/* ---- pane drawing ---------------------------------------------------------------- */
typedef struct pane_ctx {
    cairo_t *cr;
    const view_session *s;
    int p;
    batch *b;
    view_block *blocks;
    size_t cap;
    unsigned visible_issues;
    /* difference pills: drawn after the batched spans, which would otherwise cover them */
    struct pill { float x1, y; int64_t delta; } pills[256];
    unsigned npills;
} pane_ctx;

static double xpix(const view_session *s, int p, int64_t t)
{
    return s->g.tl_x + view_x(&s->port, t + s->offset[p]);
}

static uint32_t match_of(const view_session *s, int p, uint32_t ev)
{
    if (s->ntraces != 2 || ev == UINT32_MAX) return TDIFF_NONE;
    return p == 0 ? s->match.a_to_b[ev] : s->match.b_to_a[ev];
}

static void draw_badge(pane_ctx *c, const view_block *bl, double x0, double x1, double y, int with_text)
{
    const view_session *s = c->s;
    uint32_t other = match_of(s, c->p, bl->event);
    draw_rgb col = UNMATCHED;
    int64_t delta = 0;
    if (other != TDIFF_NONE) {
        const trace_event *me = &s->tr[c->p]->events[bl->event], *ot = &s->tr[1 - c->p]->events[other];
        delta = (int64_t)me->dur_ns - (int64_t)ot->dur_ns;
        col = delta < 0 ? FASTER : delta > 0 ? SLOWER : UNMATCHED;
    }
    /* a 2-px underline on every matched or unmatched span ... */
    unsigned bucket = BUCKETS - 3 + (other == TDIFF_NONE || !delta ? 2u : delta < 0 ? 0u : 1u);
    batch_add(c->cr, c->b, bucket, col, x0, y, x1 - x0, 2);
    /* ... and, where there is room, a pill with the difference at the span's right end */
    if (!with_text || other == TDIFF_NONE || !delta || c->npills == sizeof c->pills / sizeof c->pills[0]) return;
    c->pills[c->npills++] = (struct pill){(float)x1, (float)y, delta};
}

static void draw_pills(pane_ctx *c, double x0_min)
{
    for (unsigned i = 0; i < c->npills; i++) {
        const struct pill *pl = &c->pills[i];
        char buf[32], ns[24];
        fmt_ns(ns, sizeof ns, (double)pl->delta);
        snprintf(buf, sizeof buf, "%s%s", pl->delta > 0 ? "+" : "", ns);
        double w = 5.0 * (double)strlen(buf) + 4, x1 = pl->x1;
        if (x1 - w - 1 < x0_min) continue;
        /* darker than the underlines: a pill must stand out on a red wait and a green read */
        set_rgb(c->cr, pl->delta < 0 ? (draw_rgb){0.0, 0.42, 0.15} : (draw_rgb){0.55, 0.0, 0.12});
        cairo_rectangle(c->cr, x1 - w - 1, pl->y - 7, w, 9);
        cairo_fill(c->cr);
        cairo_set_source_rgb(c->cr, 1, 1, 1);
        text(c->cr, x1 - w + 1, pl->y, 8, buf);
    }
    c->npills = 0;
}

/* One wgmma group in flight: groups issued one after another overlap (the next is issued
 * before wait_group retires the last), so they alternate between two rows of the copy
 * track, coloured by the stage they read and labelled with it where there is room. */
static void draw_wgmma_group(pane_ctx *c, const view_block *bl, double x0, double x1, int y)
{
    static const draw_rgb stage_rgb[6] = {{0.95, 0.55, 0.10}, {0.20, 0.60, 0.85}, {0.55, 0.75, 0.25},
                                          {0.80, 0.35, 0.65}, {0.95, 0.80, 0.20}, {0.45, 0.45, 0.80}};
    const trace_event *ev = &c->s->tr[c->p]->events[bl->event];
    draw_rgb col = stage_rgb[ev->stage % 6];
    int top = y + (ev->iteration & 1 ? 3 : 0), h = 3;
    cairo_set_source_rgb(c->cr, col.r, col.g, col.b);
    cairo_rectangle(c->cr, floor(x0), top, fmax(1, ceil(x1) - floor(x0) - 1), h);
    cairo_fill(c->cr);
    if (x1 - x0 >= 18) {
        char buf[16];
        snprintf(buf, sizeof buf, "s%u", ev->stage);
        cairo_set_source_rgb(c->cr, 0.1, 0.1, 0.1);
        text(c->cr, x0 + 1, top + h, 5, buf);
    }
}

static void draw_lane_track(pane_ctx *c, size_t lane, view_track tr, int y)
{
    const view_session *s = c->s;
    int64_t t0 = s->port.t0 - s->offset[c->p], t1 = view_t1(&s->port) - s->offset[c->p];
    size_t n = view_blocks(s->vt[c->p], lane, tr, t0, t1, s->port.ns_per_px, 3.0, c->blocks, c->cap);
    double xl = s->g.tl_x, xr = s->g.tl_x + s->g.tl_w;
    for (size_t i = 0; i < n; i++) {
        const view_block *bl = &c->blocks[i];
        double x0 = xpix(s, c->p, bl->t0), x1 = xpix(s, c->p, bl->t1);
        if (x0 < xl) x0 = xl;
        if (x1 > xr) x1 = xr;
        if (x1 < x0 + 1) x1 = x0 + 1;
        draw_rgb col = draw_kind_rgb((trace_kind)bl->kind);
        unsigned bucket = bl->kind * 5;
        if (tr == VIEW_TRACK_MARK) {
            if (bl->count > 1) col = mix(col, (draw_rgb){0.6, 0.6, 0.6}, 0.4), bucket += 1;
            batch_add(c->cr, c->b, bucket, col, floor(x0), y + 15, fmax(1, x1 - x0 > 3 ? x1 - x0 : 1), 5);
            if (bl->count == 1 && bl->kind == TRACE_TMA_ISSUE) c->visible_issues++;
            continue;
        }
        int top = tr == VIEW_TRACK_COPY ? y + 1 : y + 6, h = tr == VIEW_TRACK_COPY ? 5 : 9;
        if (bl->count == 1 && bl->kind == TRACE_WGMMA) {
            draw_wgmma_group(c, bl, x0, x1, y);
            continue;
        }
        if (bl->count > 1) {
            /* merged: the work track shows how much of it was stalled */
            unsigned level = (unsigned)lround(bl->stall_frac * 3);
            if (tr == VIEW_TRACK_WORK) col = mix((draw_rgb){0.55, 0.55, 0.55}, DRAW_STALL_RGB, level / 3.0);
            else col = mix(col, (draw_rgb){0.3, 0.3, 0.3}, 0.3);
            bucket = (tr == VIEW_TRACK_WORK ? TRACE_WAIT : bl->kind) * 5 + 1 + level;
        }
        batch_add(c->cr, c->b, bucket, col, floor(x0), top, ceil(x1) - floor(x0), h);
        if (bl->count > 1 && x1 - x0 > 28 && tr == VIEW_TRACK_WORK) {
            char buf[16];
            snprintf(buf, sizeof buf, "%u", bl->count);
            cairo_set_source_rgb(c->cr, 1, 1, 1);
            text(c->cr, x0 + 2, top + h - 1, 8, buf);
        } else if (bl->count == 1 && s->ntraces == 2 && x1 - x0 >= 6) {
            draw_badge(c, bl, x0, x1, top + h - 2, tr == VIEW_TRACK_WORK && x1 - x0 >= 48);
        }
    }
}

static void draw_flows(pane_ctx *c, size_t lane, int y)
{
    const view_session *s = c->s;
    int64_t t0 = s->port.t0 - s->offset[c->p], t1 = view_t1(&s->port) - s->offset[c->p];
    size_t n = view_blocks(s->vt[c->p], lane, VIEW_TRACK_MARK, t0, t1, s->port.ns_per_px, 3.0, c->blocks, c->cap);
    cairo_t *cr = c->cr;
    cairo_set_source_rgba(cr, 0.1, 0.3, 0.75, 0.55);
    cairo_set_line_width(cr, 1);
    for (size_t i = 0; i < n; i++) {
        const view_block *bl = &c->blocks[i];
        if (bl->count != 1 || bl->kind != TRACE_TMA_ISSUE) continue;
        uint32_t tgt[16];
        size_t nt = view_flow_targets(s->vt[c->p], bl->event, tgt, 16);
        double x0 = xpix(s, c->p, bl->t0), y0 = y + 17;
        /* With many consumer warps one curve per waiting warp is a tangle: past two, the
         * copy gets one curve to its first waiting warp and a vertical comb through the
         * others' wait ends (they end when the copy lands, so at about the same x). */
        int comb = nt > 2;
        double cy0 = 0, cy1 = 0, cx = 0;
        for (size_t k = 0; k < nt; k++) {
            const trace_event *w = &s->tr[c->p]->events[tgt[k]];
            int wy = view_lane_y(s, c->p, view_lane_of(s->vt[c->p], w));
            if (wy == VIEW_ROW_HIDDEN) continue;
            double x1 = xpix(s, c->p, w->t_ns + w->dur_ns), y1 = wy + 10;
            if (!comb || k == 0) {
                cairo_move_to(cr, x0, y0);
                cairo_curve_to(cr, x0 + (x1 - x0) * 0.5, y0, x0 + (x1 - x0) * 0.5, y1, x1, y1);
                cairo_stroke(cr);
                cx = x1, cy0 = cy1 = y1;
            } else {
                if (k == 1 && cy0 == 0) cx = x1, cy0 = cy1 = y1;
                cy0 = fmin(cy0, y1), cy1 = fmax(cy1, y1);
            }
            cairo_arc(cr, x1, y1, 2, 0, 6.283185307179586);
            cairo_fill(cr);
        }
        if (comb && cy1 > cy0) {
            cairo_move_to(cr, cx, cy0);
            cairo_line_to(cr, cx, cy1);
            cairo_stroke(cr);
        }
    }
}

static void draw_pane(cairo_t *cr, const view_session *s, int p, batch *b, view_block *blocks, size_t cap)
{
    const view_geom *g = &s->g;
    const trace *t = s->tr[p];
    int top = g->pane_y[p], bottom = g->pane_y[p] + g->pane_h;
    cairo_save(cr);
    cairo_rectangle(cr, 0, top, g->tl_x + g->tl_w, g->pane_h);
    cairo_clip(cr);
    cairo_set_source_rgb(cr, 0.93, 0.94, 0.96);
    cairo_rectangle(cr, 0, top, g->tl_x + g->tl_w, g->title_h);
    cairo_fill(cr);
    char title[400];
    snprintf(title, sizeof title, "%s %d: %s  [%s]  %zu events%s%s  offset %+" PRId64 " ns",
             t->source == TRACE_SRC_HW ? "measured" : "simulated", p + 1, t->name[0] ? t->name : "(unnamed)",
             t->gpu[0] ? t->gpu : "?", t->count, t->truncated ? "  TRUNCATED: intact events only" : "",
             t->count ? "" : "  (empty)", s->offset[p]);
    if (p == 0 && s->nrows < s->nctas && s->nrows) {
        size_t n = strlen(title);
        snprintf(title + n, sizeof title - n, "  CTAs %u-%u of %zu (pgup/pgdn)", s->ctas[s->top],
                 s->ctas[s->top + s->nrows - 1], s->nctas);
    }
    cairo_set_source_rgb(cr, t->truncated ? 0.75 : 0.1, 0.1, 0.1);
    text(cr, 6, top + 13, 11, title);
    cairo_rectangle(cr, 0, top + g->title_h, g->tl_x + g->tl_w, g->pane_h - g->title_h);
    cairo_clip(cr);
    pane_ctx c = {cr, s, p, b, blocks, cap, 0, {{0, 0, 0}}, 0};
    uint32_t last_group = UINT32_MAX;
    (void)bottom;
    for (size_t i = 0; i < s->nshown[p]; i++) {
        size_t l = s->shown[p][i];
        int y = view_lane_y(s, p, l);
        const view_lane *ln = view_lane_at(s->vt[p], l);
        if (l % 2) {
            cairo_set_source_rgb(cr, 0.975, 0.975, 0.975);
            cairo_rectangle(cr, g->tl_x, y, g->tl_w, g->row_h);
            cairo_fill(cr);
        }
        char lab[64];
        if (ln->group != last_group) {
            cairo_set_source_rgb(cr, 0.5, 0.5, 0.6);
            cairo_rectangle(cr, 0, y - 2, g->tl_x + g->tl_w, 1);
            cairo_fill(cr);
            snprintf(lab, sizeof lab, "SM %u CTA %u", ln->sm, ln->cta);
            cairo_set_source_rgb(cr, 0.15, 0.15, 0.35);
            text(cr, 4, y + 8, 9, lab);
            last_group = ln->group;
        }
        snprintf(lab, sizeof lab, "w%u %s", ln->warp, trace_role_name((trace_role)ln->role));
        cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
        text(cr, 40, y + 17, 9, lab);
        for (int tr = 0; tr < VIEW_TRACK_COUNT; tr++) draw_lane_track(&c, l, (view_track)tr, y);
        if (c.npills > sizeof c.pills / sizeof c.pills[0] - 8) {
            batch_flush(cr, b);
            draw_pills(&c, g->tl_x);
        }
    }
    batch_flush(cr, b);
    draw_pills(&c, g->tl_x);
    /* flows only when few issues are visible: at full zoom they would be a solid wash */
    if (c.visible_issues > 0 && c.visible_issues <= 400) {
        cairo_save(cr);
        cairo_rectangle(cr, g->tl_x, top + g->title_h, g->tl_w, g->pane_h - g->title_h);
        cairo_clip(cr);
        for (size_t i = 0; i < s->nshown[p]; i++) {
            size_t l = s->shown[p][i];
            const view_lane *ln = view_lane_at(s->vt[p], l);
            if (ln->count[VIEW_TRACK_MARK] && (ln->role == TRACE_ROLE_PRODUCER || ln->role == TRACE_ROLE_MIXED))
                draw_flows(&c, l, view_lane_y(s, p, l));
        }
        cairo_restore(cr);
    }
    /* selection outline */
    if (s->sel_event != UINT32_MAX && s->sel_trace == p) {
        const trace_event *e = &t->events[s->sel_event];
        size_t l = view_lane_of(s->vt[p], e);
        if (l != SIZE_MAX && view_lane_y(s, p, l) != VIEW_ROW_HIDDEN) {
            view_track tr = view_track_of((trace_kind)e->kind);
            int y = view_lane_y(s, p, l) + (tr == VIEW_TRACK_COPY ? 0 : tr == VIEW_TRACK_WORK ? 5 : 14);
            double x0 = xpix(s, p, e->t_ns), x1 = fmax(xpix(s, p, e->t_ns + e->dur_ns), x0 + 3);
            cairo_set_source_rgb(cr, 0, 0, 0);
            cairo_set_line_width(cr, 2);
            cairo_rectangle(cr, x0 - 1, y, x1 - x0 + 2, tr == VIEW_TRACK_WORK ? 11 : 7);
            cairo_stroke(cr);
        }
    }
    cairo_restore(cr);
}

/* Lines between the panes for matched events: the selection, the hovered event, and
 * every visible matched span when there are few enough to tell apart. */
static void draw_link(cairo_t *cr, const view_session *s, int p, uint32_t ev, double alpha)
{
    uint32_t other = match_of(s, p, ev);
    if (other == TDIFF_NONE) return;
    int q = 1 - p;
    const trace_event *a = &s->tr[p]->events[ev], *b = &s->tr[q]->events[other];
    size_t la = view_lane_of(s->vt[p], a), lb = view_lane_of(s->vt[q], b);
    if (la == SIZE_MAX || lb == SIZE_MAX) return;
    if (view_lane_y(s, p, la) == VIEW_ROW_HIDDEN || view_lane_y(s, q, lb) == VIEW_ROW_HIDDEN) return;
    double xa = xpix(s, p, a->t_ns), xb = xpix(s, q, b->t_ns);
    double ya = view_lane_y(s, p, la) + 10, yb = view_lane_y(s, q, lb) + 10;
    cairo_set_source_rgba(cr, 0.45, 0.1, 0.6, alpha);
    cairo_set_line_width(cr, alpha > 0.6 ? 1.5 : 0.8);
    cairo_move_to(cr, xa, ya);
    cairo_line_to(cr, xb, yb);
    cairo_stroke(cr);
}

/* Above this many visible spans the lines between the panes become a wash. */
enum { LINK_ALL_MAX = 48 };

static void draw_links(cairo_t *cr, const view_session *s, view_block *blocks, size_t cap)
{
    if (s->ntraces != 2) return;
    const view_geom *g = &s->g;
    cairo_save(cr);
    cairo_rectangle(cr, g->tl_x, g->pane_y[0] + g->title_h, g->tl_w, 2 * g->pane_h - g->title_h);
    cairo_clip(cr);
    /* count visible single spans of pane 0 */
    uint32_t *evs = malloc(LINK_ALL_MAX * sizeof *evs);
    size_t nev = 0, too_many = 0;
    int64_t t0 = s->port.t0 - s->offset[0], t1 = view_t1(&s->port) - s->offset[0];
    for (size_t r = 0; r < s->nshown[0] && evs && !too_many; r++) {
        size_t l = s->shown[0][r];
        size_t n = view_blocks(s->vt[0], l, VIEW_TRACK_WORK, t0, t1, s->port.ns_per_px, 3.0, blocks, cap);
        for (size_t i = 0; i < n; i++) {
            if (blocks[i].count != 1) continue;
            if (nev == LINK_ALL_MAX) { too_many = 1; break; }
            evs[nev++] = blocks[i].event;
        }
    }
    if (evs && !too_many)
        for (size_t i = 0; i < nev; i++) draw_link(cr, s, 0, evs[i], 0.25);
    free(evs);
    if (s->hover_event != UINT32_MAX) draw_link(cr, s, s->hover_trace, s->hover_event, 0.7);
    if (s->sel_event != UINT32_MAX) draw_link(cr, s, s->sel_trace, s->sel_event, 0.9);
    cairo_restore(cr);
}

static void draw_axis(cairo_t *cr, const view_session *s)
{
    const view_geom *g = &s->g;
    cairo_set_source_rgb(cr, 0.97, 0.97, 0.97);
    cairo_rectangle(cr, 0, 0, g->width, g->axis_h);
    cairo_fill(cr);
    double span = s->port.ns_per_px * 100;   /* about one label per 100 px */
    double step = pow(10, floor(log10(span)));
    if (span / step >= 5) step *= 5;
    else if (span / step >= 2) step *= 2;
    int64_t istep = step < 1 ? 1 : (int64_t)step;
    int64_t first = s->port.t0 / istep * istep;
    cairo_set_line_width(cr, 1);
    for (int64_t t = first; t <= view_t1(&s->port); t += istep) {
        double x = g->tl_x + view_x(&s->port, t);
        if (x < g->tl_x) continue;
        cairo_set_source_rgb(cr, 0.6, 0.6, 0.6);
        cairo_move_to(cr, floor(x) + 0.5, g->axis_h - 6);
        cairo_line_to(cr, floor(x) + 0.5, g->axis_h);
        cairo_stroke(cr);
        char buf[32];
        fmt_ns(buf, sizeof buf, (double)t);
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        text(cr, x + 2, 12, 9, buf);
    }
    char buf[64], w[32];
    fmt_ns(w, sizeof w, s->port.ns_per_px * s->port.width_px);
    snprintf(buf, sizeof buf, "view %s", w);
    text(cr, 4, 12, 9, buf);
}

static void event_fields(char lines[][96], int *n, const trace *t, uint32_t idx, int64_t offset)
{
    const trace_event *e = &t->events[idx];
    int k = 0;
    snprintf(lines[k++], 96, "%s  (%s)", trace_kind_name((trace_kind)e->kind), trace_role_name((trace_role)e->role));
    snprintf(lines[k++], 96, "t %" PRId64 " ns  dur %" PRIu32 " ns", e->t_ns + offset, e->dur_ns);
    snprintf(lines[k++], 96, "sm %u  cta %u  warp %u", e->sm, e->cta, e->warp);
    uint32_t copies, copy = tdiff_key_copy(t, idx, &copies);
    if (copies > 1) /* the key's copies: one per tensor of the stage (tdiff.h) */
        snprintf(lines[k++], 96, "stage %u  iteration %" PRIu32 "  copy %u/%u", e->stage, e->iteration, copy, copies);
    else
        snprintf(lines[k++], 96, "stage %u  iteration %" PRIu32, e->stage, e->iteration);
    snprintf(lines[k++], 96, "barrier %u  phase %u (parity %u)", e->barrier, e->phase, e->phase & 1);
    snprintf(lines[k++], 96, "bytes %" PRIu32 "  flags 0x%x%s%s", e->bytes, e->flags,
             (e->flags & TRACE_FLAG_FULL_BARRIER) ? " full" : "", (e->flags & TRACE_FLAG_TIMEOUT) ? " TIMEOUT" : "");
    snprintf(lines[k++], 96, "source %s", e->source == TRACE_SRC_HW ? "hw" : "sim");
    if (e->source == TRACE_SRC_HW && e->kind == TRACE_TMA_FLIGHT) {
        /* the runner sees a copy land only when a consumer's wait returns */
        snprintf(lines[k++], 96, "dur: an upper bound, ends when the");
        snprintf(lines[k++], 96, "first consumer sees the data");
    }
    *n = k;
}

static void draw_tooltip(cairo_t *cr, const view_session *s)
{
    if (s->hover_event == UINT32_MAX || s->drag != VIEW_DRAG_NONE) return;
    const trace_event *e = &s->tr[s->hover_trace]->events[s->hover_event];
    char lines[12][96];
    int n;
    event_fields(lines, &n, s->tr[s->hover_trace], s->hover_event, s->offset[s->hover_trace]);
    uint32_t other = match_of(s, s->hover_trace, s->hover_event);
    if (s->ntraces == 2) {
        if (other == TDIFF_NONE) snprintf(lines[n++], 96, "unmatched in the other trace");
        else {
            int64_t d = tdiff_kind_is_span((trace_kind)e->kind)
                            ? (int64_t)e->dur_ns - (int64_t)s->tr[1 - s->hover_trace]->events[other].dur_ns
                            : (e->t_ns + s->offset[s->hover_trace]) -
                                  (s->tr[1 - s->hover_trace]->events[other].t_ns + s->offset[1 - s->hover_trace]);
            snprintf(lines[n++], 96, "vs other trace: %+" PRId64 " ns", d);
        }
    }
    double w = 250, h = 12.0 * n + 8;
    double x = s->mouse_x + 14, y = s->mouse_y + 14;
    if (x + w > s->g.width) x = s->mouse_x - w - 6;
    if (y + h > s->g.height) y = s->mouse_y - h - 6;
    cairo_set_source_rgba(cr, 1, 1, 0.88, 0.96);
    cairo_rectangle(cr, x, y, w, h);
    cairo_fill_preserve(cr);
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    cairo_set_line_width(cr, 1);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    for (int i = 0; i < n; i++) text(cr, x + 5, y + 14 + 12 * i, 10, lines[i]);
}

static double panel_line(cairo_t *cr, const view_session *s, double y, double size, const char *str)
{
    text(cr, s->g.width - s->g.panel_w + 8, y, size, str);
    return y + size + 3;
}

/* Wait durations of both traces over the compared CTAs on one duration scale, each
 * trace's bars as its share of its own waits: a traced handful of CTAs and a simulated
 * grid then have bars of comparable height. */
static void draw_histogram(cairo_t *cr, const view_session *s, double y)
{
    enum { NB = 24 };
    uint32_t bins[VIEW_MAX_TRACES][NB], total[VIEW_MAX_TRACES] = {0};
    uint32_t maxdur = 1;
    double maxshare = 0;
    const uint8_t *mask = s->ntraces == 2 ? s->stats_mask : NULL;
    /* common scale: the longest wait in the range over both traces */
    for (int p = 0; p < s->ntraces; p++) {
        view_stats st;
        if (view_range_stats_ctas(s->vt[p], s->range_a - s->offset[p], s->range_b - s->offset[p], mask, &st, NULL))
            return;
        for (size_t i = 0; i < st.ngroups; i++)
            if (st.groups[i].kind == TRACE_WAIT && st.groups[i].p95_ns > maxdur) maxdur = st.groups[i].p95_ns;
    }
    maxdur += maxdur / 4;
    for (int p = 0; p < s->ntraces; p++) {
        total[p] = view_histogram_ctas(s->vt[p], s->range_a - s->offset[p], s->range_b - s->offset[p], mask, TRACE_WAIT,
                                       -1, maxdur, bins[p], NB);
        for (int i = 0; i < NB && total[p]; i++) maxshare = fmax(maxshare, (double)bins[p][i] / total[p]);
    }
    double x0 = s->g.width - s->g.panel_w + 8, w = s->g.panel_w - 16, h = 60, bw = w / NB;
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    char buf[160], ns[24];
    fmt_ns(ns, sizeof ns, maxdur);
    if (s->ntraces == 2) {
        snprintf(buf, sizeof buf, "wait durations 0..%s, share of each", ns);
        text(cr, x0, y, 9, buf);
        y += 12;
        snprintf(buf, sizeof buf, "trace's waits: red sim n=%u, blue hw n=%u", total[0], total[1]);
    } else {
        snprintf(buf, sizeof buf, "wait durations 0..%s (n=%u)", ns, total[0]);
    }
    text(cr, x0, y, 9, buf);
    y += 4;
    for (int p = 0; p < s->ntraces; p++) {
        if (p == 0) cairo_set_source_rgba(cr, DRAW_STALL_RGB.r, DRAW_STALL_RGB.g, DRAW_STALL_RGB.b, 0.8);
        else cairo_set_source_rgba(cr, 0.2, 0.4, 0.9, 0.8);
        for (int i = 0; i < NB && total[p] && maxshare > 0; i++) {
            double bh = h * ((double)bins[p][i] / total[p]) / maxshare;
            cairo_rectangle(cr, x0 + i * bw + p * bw / 2, y + h - bh, bw / (s->ntraces == 2 ? 2 : 1) - 1, bh);
        }
        cairo_fill(cr);
    }
    cairo_set_source_rgb(cr, 0.5, 0.5, 0.5);
    cairo_rectangle(cr, x0, y + h, w, 1);
    cairo_fill(cr);
}

static void draw_panel(cairo_t *cr, const view_session *s, const view_state *states, const int *have)
{
    const view_geom *g = &s->g;
    if (!g->panel_w) return;
    double x = g->width - g->panel_w;
    cairo_set_source_rgb(cr, 0.96, 0.96, 0.98);
    cairo_rectangle(cr, x, g->axis_h, g->panel_w, g->height - g->axis_h);
    cairo_fill(cr);
    cairo_save(cr);
    cairo_rectangle(cr, x, g->axis_h, g->panel_w, g->height - g->axis_h);
    cairo_clip(cr);
    char buf[128], ns[24];
    double y = g->axis_h + 14;
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    fmt_ns(ns, sizeof ns, (double)s->cursor);
    char speed[24];
    fmt_short(speed, sizeof speed, s->play_speed);
    snprintf(buf, sizeof buf, "cursor %s  CTA %u  %s %s/s", ns, s->state_cta, s->playing ? "PLAYING" : "play", speed);
    y = panel_line(cr, s, y, 11, buf);
    for (int p = 0; p < s->ntraces; p++) {
        if (!have[p]) continue;
        const view_state st = states[p];
        snprintf(buf, sizeof buf, "%sbarrier  kind  phase  arrivals  tx", s->ntraces == 2 ? (p ? "hw:  " : "sim: ") : "");
        cairo_set_source_rgb(cr, 0.3, 0.3, 0.5);
        y = panel_line(cr, s, y, 9, buf);
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        for (unsigned i = 0; i < st.nbarriers && i < 12; i++) {
            const view_barrier_state *b = &st.barriers[i];
            snprintf(buf, sizeof buf, "     %3u  %-5s %5u (%u) %6u  %+6" PRId64, b->barrier, b->full ? "full" : "empty",
                     b->phase, b->phase & 1, b->arrivals, b->tx_count);
            y = panel_line(cr, s, y, 9, buf);
        }
    }
    if (s->sel_event != UINT32_MAX) {
        y += 6;
        char lines[12][96];
        int n;
        event_fields(lines, &n, s->tr[s->sel_trace], s->sel_event, s->offset[s->sel_trace]);
        cairo_set_source_rgb(cr, 0.3, 0.3, 0.5);
        y = panel_line(cr, s, y, 10, "selected");
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        for (int i = 0; i < n; i++) y = panel_line(cr, s, y, 9, lines[i]);
        double bottom = g->height - g->strip_h - 20, room = bottom - y - (s->has_range ? 200 : 0);
        if (s->has_bank) {
            y = draw_bank_grid(cr, &s->bank, x + 8, y + 4, g->panel_w - 16, room > 120 ? room : 120) + 8;
        } else if (s->bank_note[0]) {
            cairo_set_source_rgb(cr, 0.5, 0.3, 0.1);
            y = panel_line(cr, s, y + 4, 9, s->bank_note);
        }
    }
    if (s->has_range) {
        y += 6;
        char a[24];
        fmt_ns(a, sizeof a, (double)(s->range_b - s->range_a));
        snprintf(buf, sizeof buf, "range %s: spans starting in it", a);
        cairo_set_source_rgb(cr, 0.3, 0.3, 0.5);
        y = panel_line(cr, s, y, 10, buf);
        const uint8_t *mask = s->ntraces == 2 ? s->stats_mask : NULL;
        int hw_flight = 0;
        if (mask) {
            snprintf(buf, sizeof buf, "over the %zu CTAs both traces hold", s->nstats_ctas);
            y = panel_line(cr, s, y, 9, buf);
        }
        y = panel_line(cr, s, y, 8, "    kind/role         n   total    mean     p50     p95");
        for (int p = 0; p < s->ntraces; p++) {
            view_stats st;
            if (view_range_stats_ctas(s->vt[p], s->range_a - s->offset[p], s->range_b - s->offset[p], mask, &st, NULL))
                continue;
            cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
            for (size_t i = 0; i < st.ngroups; i++) {
                const view_stat *v = &st.groups[i];
                if (!tdiff_kind_is_span((trace_kind)v->kind)) continue;
                if (v->kind == TRACE_TMA_FLIGHT && s->tr[p]->source == TRACE_SRC_HW) hw_flight = 1;
                char kr[32], tot[16], mean[16], p50[16], p95[16];
                snprintf(kr, sizeof kr, "%.10s/%.4s", trace_kind_name((trace_kind)v->kind), trace_role_name((trace_role)v->role));
                fmt_short(tot, sizeof tot, (double)v->total_ns);
                fmt_short(mean, sizeof mean, v->mean_ns);
                fmt_short(p50, sizeof p50, v->p50_ns);
                fmt_short(p95, sizeof p95, v->p95_ns);
                snprintf(buf, sizeof buf, "%-4s%-15s %5u %7s %7s %7s %7s", s->ntraces == 2 ? (p ? "hw" : "sim") : "", kr,
                         v->count, tot, mean, p50, p95);
                y = panel_line(cr, s, y, 8, buf);
            }
        }
        if (hw_flight) {
            cairo_set_source_rgb(cr, 0.4, 0.3, 0.1);
            y = panel_line(cr, s, y, 8, "hw tma_flight: an upper bound (it ends when the first");
            y = panel_line(cr, s, y, 8, "consumer observes the data, not when the copy lands)");
        }
        draw_histogram(cr, s, y + 8);
        y += 90;
    }
    if (s->status[0]) {
        cairo_set_source_rgb(cr, 0.5, 0.1, 0.1);
        panel_line(cr, s, g->height - g->strip_h - 8, 9, s->status);
    }
    cairo_restore(cr);
}

static void draw_strip(cairo_t *cr, const view_session *s, const view_state *states, const int *have)
{
    const view_geom *g = &s->g;
    double y = g->height - g->strip_h;
    cairo_set_source_rgb(cr, 0.95, 0.95, 0.95);
    cairo_rectangle(cr, 0, y, g->width, g->strip_h);
    cairo_fill(cr);
    for (int p = 0; p < s->ntraces; p++) {
        view_state st;
        double yy = y + 4 + p * 20;
        char buf[64];
        snprintf(buf, sizeof buf, "%s stages CTA %u", s->ntraces == 2 ? (p ? "hw " : "sim") : "", s->state_cta);
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        text(cr, 4, yy + 12, 9, buf);
        if (!have[p]) continue;
        st = states[p];
        for (unsigned k = 0; k < st.nstages; k++) {
            double x = g->tl_x + k * 58;
            set_rgb(cr, draw_stage_rgb((view_stage_state)st.stages[k]));
            cairo_rectangle(cr, x, yy, 54, 16);
            cairo_fill(cr);
            cairo_set_source_rgb(cr, 0, 0, 0);
            snprintf(buf, sizeof buf, "%u %s", k, view_stage_state_name((view_stage_state)st.stages[k]));
            text(cr, x + 3, yy + 12, 9, buf);
        }
    }
}

void draw_timeline(cairo_t *cr, const view_session *s)
{
    const view_geom *g = &s->g;
    cairo_save(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_scale(cr, s->scale, s->scale);
    cairo_select_font_face(cr, "monospace", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    size_t cap = (size_t)(g->tl_w / 3.0) + 16;
    view_block *blocks = malloc(cap * sizeof *blocks);
    batch *b = calloc(1, sizeof *b);
    if (blocks && b) {
        for (int p = 0; p < s->ntraces; p++) draw_pane(cr, s, p, b, blocks, cap);
        draw_links(cr, s, blocks, cap);
    }
    for (unsigned k = 0; b && k < BUCKETS; k++) free(b->r[k]);
    free(b);
    free(blocks);
    /* range and cursor over all panes */
    if (s->has_range) {
        double x0 = fmax(g->tl_x + view_x(&s->port, s->range_a), g->tl_x);
        double x1 = fmin(g->tl_x + view_x(&s->port, s->range_b), g->tl_x + g->tl_w);
        if (x1 > x0) {
            cairo_set_source_rgba(cr, 0.2, 0.4, 1.0, 0.12);
            cairo_rectangle(cr, x0, g->axis_h, x1 - x0, g->height - g->axis_h - g->strip_h);
            cairo_fill(cr);
        }
    }
    double xc = g->tl_x + view_x(&s->port, s->cursor);
    if (xc >= g->tl_x && xc < g->tl_x + g->tl_w) {
        cairo_set_source_rgb(cr, 1.0, 0.55, 0.0);
        cairo_rectangle(cr, floor(xc), g->axis_h, 1, g->height - g->axis_h - g->strip_h);
        cairo_fill(cr);
    }
    cairo_set_source_rgb(cr, 0.7, 0.7, 0.7);
    for (int p = 1; p < s->ntraces; p++) {
        cairo_rectangle(cr, 0, g->pane_y[p] - 1, g->tl_x + g->tl_w, 2);
        cairo_fill(cr);
    }
    draw_axis(cr, s);
    /* the state at the cursor of each pane, for the stage strip and the panel */
    view_state states[2];
    int have[2] = {0, 0};
    for (int p = 0; p < s->ntraces && p < 2; p++)
        have[p] = view_state_at(s->vt[p], s->state_cta, s->cursor - s->offset[p], &states[p], NULL) == ERR_OK;
    draw_strip(cr, s, states, have);
    draw_panel(cr, s, states, have);
    draw_tooltip(cr, s);
    cairo_restore(cr);
}

static int ends_with(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && !strcasecmp(s + n - m, suf);
}

int draw_timeline_file(const view_session *s, const char *path, err_info *e)
{
    int kind = ends_with(path, ".png") ? 0 : ends_with(path, ".svg") ? 1 : ends_with(path, ".pdf") ? 2 : -1;
    if (kind < 0) return err_set(e, ERR_BAD_INPUT, "--render", "'%s' must end in .png, .svg or .pdf", path);
    afile f;
    if (afile_open(&f, path, "--render", e))
        return e ? e->code : ERR_IO;
    cairo_surface_t *surf = kind == 0 ? cairo_image_surface_create(CAIRO_FORMAT_RGB24, s->px_w, s->px_h)
                          : kind == 1 ? cairo_svg_surface_create_for_stream(draw_file_stream, &f, s->px_w, s->px_h)
                                      : cairo_pdf_surface_create_for_stream(draw_file_stream, &f, s->px_w, s->px_h);
    draw_svgtext *texts = NULL;   /* SVG text stays text */
    if (cairo_surface_status(surf) == CAIRO_STATUS_SUCCESS) {
        cairo_t *cr = cairo_create(surf);
        texts = draw_file_texts(cr, kind != 1, &f);
        draw_timeline(cr, s);
        cairo_destroy(cr);
    }
    int rc = draw_file_finish(surf, kind == 0, &f, texts, "--render", e);
    draw_svgtext_free(texts);
    return rc;
}
