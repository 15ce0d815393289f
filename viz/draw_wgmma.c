/* draw_wgmma: cairo picture of one wgmma k-block's reads over the TMA tile (see
 * draw_wgmma.h). Text sizes as in draw_tile (projector-sized); red means "read from
 * the wrong place" and nothing else is red. */
#include "draw_wgmma.h"

#include <cairo.h>
#include <cairo-svg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

typedef struct rgb {
    double r, g, b;
} rgb;
#define HEX(x) {((x) >> 16 & 255) / 255.0, ((x) >> 8 & 255) / 255.0, ((x) & 255) / 255.0}

static const rgb ink = HEX(0x141414), grid = HEX(0x5a5a5a), white = HEX(0xffffff);
static const rgb tile_fill = HEX(0xdde6ef), read_fill = HEX(0x9ad98e), bad_fill = HEX(0xd7191c);
static const rgb unread = HEX(0xf08c00), plain_read = HEX(0x8ec1f0);
static const char *const font = "DejaVu Sans";

enum { CELL_W = 84, CELL_H = 30, ADDR_W = 100, MARGIN = 30, TITLE_H = 78, LEGEND_H = 86, CHUNKS = 8 };

/* One 16-byte chunk of the window. */
typedef struct cell {
    uint8_t in_tile, read, bad, wanted;
    uint32_t first;            /* lowest operand-order index read from it */
} cell;

typedef struct view {
    uint32_t line0, lines;     /* 128-byte lines shown */
    cell *cells;
    uint32_t K, k0, mismatches, elements, hidden_reads; /* k0: the k-block's first k in the tile */
} view;

static void set(cairo_t *cr, rgb c) { cairo_set_source_rgb(cr, c.r, c.g, c.b); }

static void text(cairo_t *cr, double px, int bold, rgb c, double x, double y, int align, const char *s)
{
    cairo_text_extents_t ext;
    cairo_select_font_face(cr, font, CAIRO_FONT_SLANT_NORMAL, bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, px);
    cairo_text_extents(cr, s, &ext);
    set(cr, c);
    cairo_move_to(cr, align == 0 ? x : align == 1 ? x - ext.x_advance / 2 : x - ext.x_advance, y);
    cairo_show_text(cr, s);
}

static cell *cell_at(view *v, uint32_t address)
{
    uint32_t line = address / 128;
    if (line < v->line0 || line >= v->line0 + v->lines)
        return NULL;
    return &v->cells[(line - v->line0) * CHUNKS + (address % 128) / 16];
}

/* The window: the tile's footprint and every read, at most max_lines lines from the
 * first one (reads beyond are counted as hidden). */
static int build(view *v, const wg_tile *t, const wg_shape *s, const wg_desc *d, uint32_t max_lines)
{
    uint32_t n = wg_elements(s), lo = UINT32_MAX, hi = 0;
    uint32_t *a = malloc(sizeof *a * n * 2), *want = a + n;
    if (!a)
        return -1;
    wg_addresses(s, d, a);
    for (uint32_t i = 0; i < n; i++) {
        lo = a[i] < lo ? a[i] : lo;
        hi = a[i] > hi ? a[i] : hi;
        if (!t || !wg_tile_address(t, s, i / v->K, i % v->K, &want[i]))
            want[i] = WG_NOWHERE;
    }
    if (t) {
        uint32_t f0 = t->plan.footprint_start, f1 = f0 + t->plan.footprint_bytes - 1;
        lo = f0 < lo ? f0 : lo;
        hi = f1 > hi ? f1 : hi;
    }
    v->line0 = lo / 128;
    v->lines = hi / 128 - v->line0 + 1;
    if (v->lines > max_lines)
        v->lines = max_lines;
    v->cells = calloc((size_t)v->lines * CHUNKS, sizeof *v->cells);
    if (!v->cells) {
        free(a);
        return -1;
    }
    for (uint32_t c = 0; t && c < v->lines * CHUNKS; c++) {
        tm_element el;
        uint32_t byte;
        v->cells[c].in_tile = tm_plan_element_at(&t->plan, (v->line0 * CHUNKS + c) * 16, &el, &byte) ||
                              tm_plan_element_at(&t->plan, (v->line0 * CHUNKS + c) * 16 + 15, &el, &byte);
    }
    for (uint32_t i = n; i-- > 0;) {
        cell *c = cell_at(v, a[i]);
        int bad = t && a[i] != want[i];
        v->mismatches += bad;
        if (!c) {
            v->hidden_reads++;
            continue;
        }
        c->read = 1;
        c->bad |= bad;
        c->first = i;
        cell *w = want[i] != WG_NOWHERE ? cell_at(v, want[i]) : NULL;
        if (w)
            w->wanted = 1;
    }
    v->elements = n;
    free(a);
    return 0;
}

static void draw_cells(cairo_t *cr, const view *v, int has_tile)
{
    char s[32];
    for (uint32_t l = 0; l < v->lines; l++) {
        double y = TITLE_H + l * CELL_H;
        snprintf(s, sizeof s, "0x%05x", (v->line0 + l) * 128);
        text(cr, 15, 0, ink, MARGIN + ADDR_W - 10, y + CELL_H - 9, 2, s);
        for (uint32_t c = 0; c < CHUNKS; c++) {
            const cell *ce = &v->cells[l * CHUNKS + c];
            double x = MARGIN + ADDR_W + c * CELL_W;
            rgb fill = ce->read ? (ce->bad ? bad_fill : has_tile ? read_fill : plain_read)
                                : ce->in_tile ? tile_fill : white;
            set(cr, fill);
            cairo_rectangle(cr, x, y, CELL_W, CELL_H);
            cairo_fill(cr);
            set(cr, grid);
            cairo_set_line_width(cr, 1);
            cairo_rectangle(cr, x + 0.5, y + 0.5, CELL_W - 1, CELL_H - 1);
            cairo_stroke(cr);
            if (ce->wanted && !ce->read) {
                set(cr, unread);
                cairo_set_line_width(cr, 3);
                cairo_rectangle(cr, x + 2.5, y + 2.5, CELL_W - 5, CELL_H - 5);
                cairo_stroke(cr);
            }
            if (ce->read) {
                snprintf(s, sizeof s, "%u,%u", ce->first / v->K, v->k0 + ce->first % v->K);
                text(cr, 15, 1, ce->bad ? white : ink, x + CELL_W / 2.0, y + CELL_H - 9, 1, s);
            }
        }
    }
    for (uint32_t c = 0; c < CHUNKS; c++) {
        snprintf(s, sizeof s, "+%u", c * 16);
        text(cr, 14, 0, grid, MARGIN + ADDR_W + c * CELL_W + CELL_W / 2.0, TITLE_H - 8, 1, s);
    }
}

static void swatch(cairo_t *cr, double x, double y, rgb fill, int outline, const char *label)
{
    set(cr, outline ? white : fill);
    cairo_rectangle(cr, x, y, 26, 20);
    cairo_fill(cr);
    set(cr, outline ? unread : grid);
    cairo_set_line_width(cr, outline ? 3 : 1);
    cairo_rectangle(cr, x + 0.5, y + 0.5, 25, 19);
    cairo_stroke(cr);
    text(cr, 15, 0, ink, x + 34, y + 16, 0, label);
}

static void draw_legend(cairo_t *cr, const view *v, int has_tile, double y)
{
    double x = MARGIN;
    if (has_tile) {
        swatch(cr, x, y, tile_fill, 0, "tile (TMA)");
        swatch(cr, x + 150, y, read_fill, 0, "read right");
        swatch(cr, x + 300, y, bad_fill, 0, "read wrong");
        swatch(cr, x + 450, y, white, 1, "never read");
    } else
        swatch(cr, x, y, plain_read, 0, "read");
    char s[160];
    text(cr, 15, 0, ink, x, y + 46, 0, "label: the operand element (row,k) read first from the chunk (k in the tile)");
    const char *more = v->hidden_reads ? " (more lines below)" : "";
    if (has_tile && v->mismatches)
        snprintf(s, sizeof s, "%u of %u elements read from the wrong place%s", v->mismatches, v->elements, more);
    else if (has_tile)
        snprintf(s, sizeof s, "all %u elements read right%s", v->elements, more);
    else
        snprintf(s, sizeof s, "%u elements%s", v->elements, more);
    text(cr, 17, 1, v->mismatches ? bad_fill : ink, x, y + 72, 0, s);
}

static int has_ext(const char *p, const char *ext)
{
    size_t n = strlen(p), k = strlen(ext);
    return n > k && !strcasecmp(p + n - k, ext);
}

static int write_surface(const view *v, const wg_tile *t, const draw_wgmma_opts *o, err_info *e)
{
    int png = has_ext(o->path, ".png");
    double w = 2 * MARGIN + ADDR_W + CHUNKS * CELL_W, h = TITLE_H + v->lines * CELL_H + 16 + LEGEND_H;
    if (strlen(o->path) > 4096)
        return err_set(e, ERR_BAD_INPUT, "picture_path", "path longer than 4096 bytes");
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld%s", o->path, (long)getpid() % 100000000L, png ? ".png" : ".svg");
    cairo_surface_t *sf = png ? cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)w, (int)h)
                              : cairo_svg_surface_create(tmp, w, h);
    cairo_t *cr = cairo_create(sf);
    set(cr, white);
    cairo_paint(cr);
    if (o->title)
        text(cr, 18, 1, ink, MARGIN, 30, 0, o->title);
    draw_cells(cr, v, t != NULL);
    draw_legend(cr, v, t != NULL, TITLE_H + v->lines * CELL_H + 16);
    cairo_status_t st = cairo_status(cr);
    cairo_destroy(cr);
    if (st == CAIRO_STATUS_SUCCESS && png)
        st = cairo_surface_write_to_png(sf, tmp);
    cairo_surface_finish(sf);
    if (st == CAIRO_STATUS_SUCCESS)
        st = cairo_surface_status(sf);
    cairo_surface_destroy(sf);
    if (st != CAIRO_STATUS_SUCCESS) {
        unlink(tmp);
        return err_set(e, ERR_IO, "picture_write", "'%s': %s", o->path, cairo_status_to_string(st));
    }
    if (rename(tmp, o->path)) {
        unlink(tmp);
        return err_set(e, ERR_IO, "picture_write", "'%s': cannot rename the temporary file into place", o->path);
    }
    return ERR_OK;
}

int draw_wgmma(const wg_tile *t, const wg_shape *s, const wg_desc *d, const draw_wgmma_opts *o, err_info *e)
{
    if (!has_ext(o->path, ".png") && !has_ext(o->path, ".svg"))
        return err_set(e, ERR_BAD_INPUT, "picture_path", "'%s': the extension chooses the format, one of .png .svg",
                       o->path);
    view v = {.K = wg_k(s->dtype), .k0 = t ? t->k_block * wg_k(s->dtype) : 0};
    if (build(&v, t, s, d, o->max_lines ? o->max_lines : 64))
        return err_set(e, ERR_IO, "memory", "picture of %u elements", wg_elements(s));
    int rc = write_surface(&v, t, o, e);
    free(v.cells);
    return rc;
}
