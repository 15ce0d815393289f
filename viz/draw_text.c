#include "draw_text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct svg_text {
    double x, y, size;
    double r, g, b, a;
    int bold;
    char *family, *s;
} svg_text;

struct draw_svgtext {
    svg_text *v;
    size_t n, cap;
    int failed;   /* out of memory while recording: the file says nothing wrong, write fails */
};

static const cairo_user_data_key_t KEY;

draw_svgtext *draw_svgtext_attach(cairo_t *cr)
{
    draw_svgtext *c = calloc(1, sizeof *c);
    if (c && cairo_set_user_data(cr, &KEY, c, NULL) != CAIRO_STATUS_SUCCESS) {
        free(c);
        c = NULL;
    }
    return c;
}

static char *dup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

/* The record of s at the current point, in device space (what the SVG's viewBox uses). */
static void record(draw_svgtext *c, cairo_t *cr, const char *s)
{
    double x, y, x0, y0, x1, y1;
    cairo_get_current_point(cr, &x, &y);
    /* what the clip would hide stays hidden */
    cairo_clip_extents(cr, &x0, &y0, &x1, &y1);
    if (x > x1 || y < y0 || y > y1 + 2) return;
    cairo_matrix_t fm;
    cairo_get_font_matrix(cr, &fm);
    double dx = fm.xx, dy = 0;
    cairo_user_to_device_distance(cr, &dx, &dy);
    double dxv = x, dyv = y;
    cairo_user_to_device(cr, &dxv, &dyv);
    svg_text t = {.x = dxv, .y = dyv, .size = hypot(dx, dy), .a = 1};
    cairo_pattern_t *src = cairo_get_source(cr);
    if (cairo_pattern_get_type(src) == CAIRO_PATTERN_TYPE_SOLID) cairo_pattern_get_rgba(src, &t.r, &t.g, &t.b, &t.a);
    cairo_font_face_t *face = cairo_get_font_face(cr);
    const char *family = "sans-serif";
    if (cairo_font_face_get_type(face) == CAIRO_FONT_TYPE_TOY) {
        family = cairo_toy_font_face_get_family(face);
        t.bold = cairo_toy_font_face_get_weight(face) == CAIRO_FONT_WEIGHT_BOLD;
    }
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 256;
        svg_text *v = realloc(c->v, cap * sizeof *v);
        if (!v) {
            c->failed = 1;
            return;
        }
        c->v = v;
        c->cap = cap;
    }
    t.family = dup(family);
    t.s = dup(s);
    if (!t.family || !t.s) {
        free(t.family);
        free(t.s);
        c->failed = 1;
        return;
    }
    c->v[c->n++] = t;
}

void draw_show_text(cairo_t *cr, const char *s)
{
    draw_svgtext *c = cairo_get_user_data(cr, &KEY);
    if (!c) {
        cairo_show_text(cr, s);
        return;
    }
    if (!cairo_has_current_point(cr)) return;
    record(c, cr, s);
    cairo_text_extents_t te;
    cairo_text_extents(cr, s, &te);
    cairo_rel_move_to(cr, te.x_advance, te.y_advance);
}

static void put_escaped(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f); break;
        }
    }
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n + 65536 > cap) {
            cap = cap ? 2 * cap : 1 << 20;
            char *b = realloc(buf, cap + 1);
            if (!b) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = b;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    fclose(f);
    buf[n] = 0;
    *len = n;
    return buf;
}

int draw_svgtext_write(const draw_svgtext *c, const char *path, err_info *e)
{
    if (c->failed) return err_set(e, ERR_IO, "picture", "%s: out of memory for the text of the picture", path);
    size_t len = 0;
    char *svg = slurp(path, &len);
    if (!svg) return err_set(e, ERR_IO, "picture", "cannot read back %s", path);
    char *end = NULL;
    for (char *p = strstr(svg, "</svg>"); p; p = strstr(p + 1, "</svg>")) end = p;
    FILE *f = end ? fopen(path, "wb") : NULL;
    if (!f) {
        free(svg);
        return err_set(e, ERR_IO, "picture", "cannot write %s", path);
    }
    fwrite(svg, 1, (size_t)(end - svg), f);
    fputs("<g xml:space=\"preserve\" style=\"white-space:pre\">\n", f);
    for (size_t i = 0; i < c->n; i++) {
        const svg_text *t = &c->v[i];
        fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" font-family=\"", t->x, t->y);
        put_escaped(f, t->family);
        fprintf(f, "\" font-size=\"%.2f\"%s fill=\"rgb(%d,%d,%d)\"", t->size, t->bold ? " font-weight=\"bold\"" : "",
                (int)lround(t->r * 255), (int)lround(t->g * 255), (int)lround(t->b * 255));
        if (t->a < 1) fprintf(f, " fill-opacity=\"%.2f\"", t->a);
        fputc('>', f);
        put_escaped(f, t->s);
        fputs("</text>\n", f);
    }
    fputs("</g>\n", f);
    fputs(end, f);
    free(svg);
    int bad = ferror(f);
    if (fclose(f) || bad) return err_set(e, ERR_IO, "picture", "cannot write %s", path);
    return ERR_OK;
}

void draw_svgtext_free(draw_svgtext *c)
{
    if (!c) return;
    for (size_t i = 0; i < c->n; i++) {
        free(c->v[i].family);
        free(c->v[i].s);
    }
    free(c->v);
    free(c);
}
