/* draw_sweep: the best predicted time over the two most influential keys of a sweep. */
#include "draw_sweep.h"

#include <cairo-svg.h>
#include <cairo.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw_file.h"
#include "draw_text.h"

static const char *const font = "DejaVu Sans";

typedef struct rgb {
    double r, g, b;
} rgb;

static const rgb ink = {0.10, 0.10, 0.12}, white = {1, 1, 1}, grey = {0.80, 0.80, 0.80}, faint = {0.45, 0.45, 0.50};

static void set(cairo_t *cr, rgb c)
{
    cairo_set_source_rgb(cr, c.r, c.g, c.b);
}

static double text_width(cairo_t *cr, double px, int bold, const char *s)
{
    cairo_text_extents_t x;
    cairo_select_font_face(cr, font, CAIRO_FONT_SLANT_NORMAL, bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, px);
    cairo_text_extents(cr, s, &x);
    return x.x_advance;
}

/* align 0 left, 1 centre, 2 right */
static void text(cairo_t *cr, double px, int bold, rgb c, double x, double y, int align, const char *s)
{
    double w = text_width(cr, px, bold, s);
    set(cr, c);
    cairo_move_to(cr, align == 0 ? x : align == 1 ? x - w / 2 : x - w, y);
    draw_show_text(cr, s);
}

/* green (the best) through yellow to red (the worst), f in 0..1 */
static rgb heat(double f)
{
    static const rgb stops[3] = {{0.42, 0.76, 0.47}, {0.99, 0.86, 0.42}, {0.90, 0.36, 0.31}};
    f = f < 0 ? 0 : f > 1 ? 1 : f;
    int k = f < 0.5 ? 0 : 1;
    double t = f < 0.5 ? f * 2 : (f - 0.5) * 2;
    return (rgb){stops[k].r + t * (stops[k + 1].r - stops[k].r), stops[k].g + t * (stops[k + 1].g - stops[k].g),
                 stops[k].b + t * (stops[k + 1].b - stops[k].b)};
}

typedef struct layout {
    const sweep_grid *g;
    uint32_t ax, ay, nx, ny;
    const double *cells;
    double best, worst;
    double x0, y0, cw, ch, width, height;
    const char *title, *sub;
} layout;

static void time_text(char *buf, size_t n, double ns)
{
    snprintf(buf, n, ns < 1e4 ? "%.2f" : ns < 1e6 ? "%.1f" : "%.0f", ns / 1e3);
}

static void draw(cairo_t *cr, const layout *L)
{
    set(cr, white);
    cairo_paint(cr);
    text(cr, 22, 1, ink, 24, 38, 0, L->title);
    text(cr, 15, 0, faint, 24, 62, 0, L->sub);
    const sweep_axis *X = &L->g->axes[L->ax], *Y = L->ay == L->ax ? NULL : &L->g->axes[L->ay];
    text(cr, 16, 1, ink, L->x0 + L->nx * L->cw / 2, L->y0 - 34, 1, X->key);
    if (Y)
        text(cr, 16, 1, ink, L->x0 - 12, L->y0 - 10, 2, Y->key);
    double lr = L->worst > L->best ? log(L->worst / L->best) : 1;
    for (uint32_t x = 0; x < L->nx; x++)
        text(cr, 15, 0, ink, L->x0 + (x + 0.5) * L->cw, L->y0 - 10, 1, X->values[x]);
    for (uint32_t y = 0; y < L->ny; y++) {
        double cy = L->y0 + y * L->ch;
        if (Y)
            text(cr, 15, 0, ink, L->x0 - 12, cy + L->ch / 2 + 5, 2, Y->values[y]);
        for (uint32_t x = 0; x < L->nx; x++) {
            double v = L->cells[(size_t)y * L->nx + x], cx = L->x0 + x * L->cw;
            char buf[32] = "-";
            set(cr, v < 0 ? grey : heat(log(v / L->best) / lr));
            cairo_rectangle(cr, cx + 1, cy + 1, L->cw - 2, L->ch - 2);
            cairo_fill(cr);
            if (v >= 0)
                time_text(buf, sizeof buf, v);
            text(cr, 16, v == L->best, ink, cx + L->cw / 2, cy + L->ch / 2 + 6, 1, buf);
            if (v == L->best) {
                set(cr, ink);
                cairo_set_line_width(cr, 3);
                cairo_rectangle(cr, cx + 2.5, cy + 2.5, L->cw - 5, L->ch - 5);
                cairo_stroke(cr);
            }
        }
    }
    /* legend: the colour scale and the grey of cells without a valid point */
    double ly = L->y0 + L->ny * L->ch + 30, lx = 24;
    char buf[96];
    text(cr, 14, 0, ink, lx, ly + 14, 0, "time / best:");
    lx += text_width(cr, 14, 0, "time / best:") + 10;
    for (int k = 0; k < 60; k++) {
        set(cr, heat(k / 59.0));
        cairo_rectangle(cr, lx + k * 3, ly, 3, 18);
        cairo_fill(cr);
    }
    snprintf(buf, sizeof buf, "1.00x .. %.2fx", L->worst / L->best);
    text(cr, 14, 0, ink, lx + 190, ly + 14, 0, buf);
    lx += 190 + text_width(cr, 14, 0, buf) + 24;
    set(cr, grey);
    cairo_rectangle(cr, lx, ly, 18, 18);
    cairo_fill(cr);
    text(cr, 14, 0, ink, lx + 26, ly + 14, 0, "no valid point");
}

static int prepare(const sweep_spec *s, const sweep_row *rows, uint64_t n, layout *L, double **cells, char **title,
                   char **sub, err_info *e)
{
    double infl[SWEEP_MAX_AXES];
    sweep_influence(&s->grid, rows, n, infl);
    if (sweep_top_axes(&s->grid, infl, &L->ax, &L->ay))
        return err_set(e, ERR_BAD_INPUT, "--png", "the grid has no key with two or more values: nothing to draw");
    L->g = &s->grid;
    L->nx = s->grid.axes[L->ax].nvalues;
    L->ny = L->ay == L->ax ? 1 : s->grid.axes[L->ay].nvalues;
    if (!(*cells = malloc((size_t)L->nx * L->ny * sizeof **cells)))
        return err_set(e, ERR_IO, "out_of_memory", "picture");
    sweep_best_map(&s->grid, rows, n, L->ax, L->ay, *cells);
    L->cells = *cells;
    L->best = INFINITY, L->worst = 0;
    for (uint32_t c = 0; c < L->nx * L->ny; c++)
        if ((*cells)[c] >= 0) {
            L->best = fmin(L->best, (*cells)[c]);
            L->worst = fmax(L->worst, (*cells)[c]);
        }
    if (!(L->best < INFINITY) || L->best <= 0)
        return err_set(e, ERR_BAD_INPUT, "--png", "no point of the grid ran: nothing to draw");
    const char *name = strrchr(s->desc, '/') ? strrchr(s->desc, '/') + 1 : s->desc;
    int name_len = (int)strcspn(name, ".");
    char bt[32];
    time_text(bt, sizeof bt, L->best);
    size_t tl = strlen(name) + 96, sl = 256;
    for (uint32_t a = 0; a < s->grid.naxes; a++)
        sl += strlen(s->grid.axes[a].key) + 2;
    *title = malloc(tl), *sub = malloc(sl);
    if (!*title || !*sub)
        return err_set(e, ERR_IO, "out_of_memory", "picture");
    snprintf(*title, tl, "%.*s: least predicted time (us), best %s us", name_len, name, bt);
    /* the keys a cell takes the least time over: those not on an axis */
    int at = snprintf(*sub, sl, "gpu %s; each cell: the least time over", s->gpu), others = 0;
    for (uint32_t a = 0; a < s->grid.naxes && at > 0 && (size_t)at < sl; a++)
        if (a != L->ax && a != L->ay)
            at += snprintf(*sub + at, sl - (size_t)at, "%s %s", others++ ? "," : "", s->grid.axes[a].key);
    if (!others)
        snprintf(*sub, sl, "gpu %s; each cell: one point", s->gpu);
    return ERR_OK;
}

int draw_sweep_map(const sweep_spec *s, const sweep_row *rows, uint64_t n, const char *path, err_info *e)
{
    layout L = {0};
    double *cells = NULL;
    char *title = NULL, *sub = NULL;
    int rc = prepare(s, rows, n, &L, &cells, &title, &sub, e);
    if (rc) {
        free(cells), free(title), free(sub);
        return rc;
    }
    L.title = title, L.sub = sub;
    /* geometry from the text it holds, measured on a scratch surface */
    cairo_surface_t *scratch = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 8, 8);
    cairo_t *m = cairo_create(scratch);
    double label_w = L.ay == L.ax ? 0 : text_width(m, 16, 1, s->grid.axes[L.ay].key);
    for (uint32_t y = 0; L.ay != L.ax && y < L.ny; y++)
        label_w = fmax(label_w, text_width(m, 15, 0, s->grid.axes[L.ay].values[y]));
    L.cw = 84;
    for (uint32_t x = 0; x < L.nx; x++)
        L.cw = fmax(L.cw, text_width(m, 15, 0, s->grid.axes[L.ax].values[x]) + 16);
    L.ch = 44;
    L.x0 = 24 + label_w + (label_w > 0 ? 16 : 0);
    L.y0 = 130;
    L.width = fmax(fmax(L.x0 + L.nx * L.cw + 24, text_width(m, 22, 1, title) + 48),
                   fmax(text_width(m, 15, 0, sub) + 48, 560));
    L.height = L.y0 + L.ny * L.ch + 70;
    cairo_destroy(m);
    cairo_surface_destroy(scratch);

    size_t pl = strlen(path);
    int png = !(pl > 4 && !strcmp(path + pl - 4, ".svg"));
    afile f;
    if (afile_open(&f, path, "picture_write", e)) {
        free(cells), free(title), free(sub);
        return e ? e->code : ERR_IO;
    }
    cairo_surface_t *surface = png ? cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)ceil(L.width), (int)ceil(L.height))
                                   : cairo_svg_surface_create_for_stream(draw_file_stream, &f, L.width, L.height);
    draw_svgtext *texts = NULL;
    if (cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS) {
        cairo_t *cr = cairo_create(surface);
        texts = draw_file_texts(cr, png, &f);
        draw(cr, &L);
        cairo_destroy(cr);
    }
    rc = draw_file_finish(surface, png, &f, texts, "picture_write", e);
    draw_svgtext_free(texts);
    free(cells), free(title), free(sub);
    return rc;
}
