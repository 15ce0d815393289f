/* draw_tile: cairo rendering of the view_tile model to PNG or SVG.
 * Sizes are chosen for a projector: 15-30 px text, dark text on light fills, one
 * saturated warning colour that nothing else uses. */
#include "draw_tile.h"
#include "draw_file.h"

#include "draw_text.h"
#include <cairo.h>
#include <cairo-svg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "view_tile.h"

typedef struct rgb {
    double r, g, b;
} rgb;

#define HEX(x) {((x) >> 16 & 255) / 255.0, ((x) >> 8 & 255) / 255.0, ((x) & 255) / 255.0}

/* Eight light hues that stay apart on a washed-out projector; no red among them,
 * red means "collision". */
static const rgb palette[VIEW_PALETTE] = {
    HEX(0x8ec1f0), HEX(0xf9b872), HEX(0x9ad98e), HEX(0xc7a8e8),
    HEX(0xf2e36b), HEX(0x7dd6cf), HEX(0xf5a9d0), HEX(0xd6b98f),
};
static const rgb ink = HEX(0x141414);
static const rgb grid_line = HEX(0x5a5a5a);
static const rgb padding_fill = HEX(0xdcdcdc);
static const rgb outside_fill = HEX(0xffffff);
static const rgb bare_fill = HEX(0xf0f0f0);
static const rgb lane_fill = HEX(0xbcd9f5);
static const rgb warn_fill = HEX(0xd7191c);
static const rgb warn_text = HEX(0xb00010);
static const rgb good_text = HEX(0x1a7a1a);
static const rgb white = HEX(0xffffff);

static const char *const font = "DejaVu Sans";
static const char *const mono = "DejaVu Sans Mono";

/* Geometry of one panel, in pixels. */
typedef struct geom {
    double cw, rh;          /* chunk width, row height */
    double left;            /* width of the address axis */
    double label_px, lane_px, axis_px;
    double gap;             /* extra height where shown rows are not contiguous */
} geom;

static geom choose_geom(uint32_t panels, uint32_t nrows)
{
    geom g;
    g.cw = panels > 1 ? 104 : 150;
    g.rh = nrows > 32 ? 32 : 42;
    g.left = panels > 1 ? 96 : 110;
    g.label_px = nrows > 32 ? 13 : (panels > 1 ? 14 : 16);
    g.lane_px = nrows > 32 ? 12 : 14;
    g.axis_px = panels > 1 ? 13 : 15;
    g.gap = 18;
    return g;
}

static void set(cairo_t *cr, rgb c)
{
    cairo_set_source_rgb(cr, c.r, c.g, c.b);
}

static rgb shaded(rgb c, uint32_t shade)
{
    double f = shade == 0 ? 1.0 : shade == 1 ? 0.82 : 0.66;
    return (rgb){c.r * f, c.g * f, c.b * f};
}

static double text_width(cairo_t *cr, const char *face, double px, int bold, const char *s)
{
    cairo_text_extents_t ext;
    cairo_select_font_face(cr, face, CAIRO_FONT_SLANT_NORMAL, bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, px);
    cairo_text_extents(cr, s, &ext);
    return ext.x_advance;
}

/* Draws s with its baseline at y; align: 0 left of x, 1 centred on x, 2 right of x. */
static void text(cairo_t *cr, const char *face, double px, int bold, rgb c, double x, double y, int align,
                 const char *s)
{
    double w = text_width(cr, face, px, bold, s);
    set(cr, c);
    cairo_move_to(cr, align == 0 ? x : align == 1 ? x - w / 2 : x - w, y);
    draw_show_text(cr, s);
}

/* Centred text, shrunk down to min_px to fit width; skipped if it still does not. */
static void fit_text(cairo_t *cr, const char *face, double px, double min_px, int bold, rgb c, double cx,
                     double y, double width, const char *s)
{
    for (; px >= min_px; px -= 1)
        if (text_width(cr, face, px, bold, s) <= width - 4) {
            text(cr, face, px, bold, c, cx, y, 1, s);
            return;
        }
}

static double rows_height(const view_tile *v, const geom *g)
{
    double h = v->nrows * g->rh;
    for (uint32_t r = 0; r < v->nrows; r++)
        h += v->row[r].gap_before ? g->gap : 0;
    return h;
}

static double row_top(const view_tile *v, const geom *g, double y0, uint32_t row)
{
    double y = y0;
    for (uint32_t r = 0; r <= row && r < v->nrows; r++) {
        y += v->row[r].gap_before ? g->gap : 0;
        if (r < row)
            y += g->rh;
    }
    return y;
}

/* Panel header height: caption, summary line, bank axis. */
#define HEADER_H 104.0
#define FOOTNOTE_H 30.0

static double panel_width(const geom *g)
{
    return g->left + VIEW_CHUNKS_PER_ROW * g->cw;
}

static double panel_height(const view_tile *v, const geom *g)
{
    return HEADER_H + rows_height(v, g) + FOOTNOTE_H;
}

static void draw_hatch(cairo_t *cr, double x, double y, double w, double h)
{
    cairo_save(cr);
    cairo_rectangle(cr, x, y, w, h);
    cairo_clip(cr);
    cairo_set_source_rgba(cr, 0, 0, 0, 0.35);
    cairo_set_line_width(cr, 1.5);
    for (double d = -h; d < w; d += 10) {
        cairo_move_to(cr, x + d, y + h);
        cairo_line_to(cr, x + d + h, y);
    }
    cairo_stroke(cr);
    cairo_restore(cr);
}

/* Lanes that share the same bytes are drawn once with all their numbers. */
static void lane_group_label(const view_tile *v, uint32_t lead, char *buf, size_t size, int short_form)
{
    const view_lane *a = &v->lane[lead];
    uint32_t count = 0;
    for (uint32_t l = 0; l < BANK_LANES; l++)
        if (v->lane[l].used && v->lane[l].address == a->address)
            count++;
    if (short_form)
        snprintf(buf, size, count > 1 ? "%u+%u" : "%u", lead, count - 1);
    else if (count > 1)
        snprintf(buf, size, "L%u+%u w%u", lead, count - 1, a->wavefront);
    else
        snprintf(buf, size, "L%u w%u", lead, a->wavefront);
}

static int lane_is_lead(const view_tile *v, uint32_t l)
{
    for (uint32_t k = 0; k < l; k++)
        if (v->lane[k].used && v->lane[k].address == v->lane[l].address)
            return 0;
    return 1;
}

static void draw_panel(cairo_t *cr, const view_tile *v, const geom *g, double x0, double y0, const char *caption)
{
    char buf[128];
    double gx = x0 + g->left, gy = y0 + HEADER_H;
    double gw = VIEW_CHUNKS_PER_ROW * g->cw;
    double bank_w = g->cw / VIEW_BANKS_PER_CHUNK;

    if (caption && *caption)
        text(cr, font, 22, 1, ink, x0, y0 + 24, 0, caption);
    if (v->has_instr) {
        int bad = v->result.conflicts > 0;
        snprintf(buf, sizeof buf, "%s %s: %s", bank_op_name(v->instr.op), v->instr.trans ? ".trans" : "",
                 v->summary);
        if (!v->instr.trans)
            snprintf(buf, sizeof buf, "%s: %s", bank_op_name(v->instr.op), v->summary);
        text(cr, font, 20, 1, bad ? warn_text : good_text, x0, y0 + 54, 0, buf);
    }

    /* Bank axis: 4 banks per 16-byte chunk. */
    text(cr, font, g->axis_px, 1, ink, gx - 8, y0 + 96, 2, "bank");
    for (uint32_t b = 0; b < BANK_COUNT; b++) {
        snprintf(buf, sizeof buf, "%u", b);
        text(cr, mono, g->axis_px, 0, ink, gx + (b + 0.5) * bank_w, y0 + 96, 1, buf);
    }
    text(cr, font, g->axis_px, 1, ink, gx - 8, y0 + 74, 2, "address");
    for (uint32_t k = 0; k < VIEW_CHUNKS_PER_ROW; k++) {
        snprintf(buf, sizeof buf, "+%u", k * VIEW_CHUNK_BYTES);
        text(cr, mono, g->axis_px - 1, 0, grid_line, gx + (k + 0.5) * g->cw, y0 + 76, 1, buf);
    }

    /* Chunks. */
    for (uint32_t r = 0; r < v->nrows; r++) {
        const view_row *row = &v->row[r];
        double y = row_top(v, g, gy, r);
        if (row->gap_before)
            text(cr, font, 16, 1, grid_line, gx - 50, y - 3, 1, "...");
        snprintf(buf, sizeof buf, "0x%04x", row->address);
        text(cr, mono, g->label_px + 1, 0, ink, gx - 8, y + g->rh / 2 + 6, 2, buf);
        for (uint32_t k = 0; k < VIEW_CHUNKS_PER_ROW; k++) {
            const view_chunk *c = &row->chunk[k];
            double x = gx + k * g->cw;
            rgb fill = !v->has_plan ? bare_fill
                       : c->kind == VIEW_CHUNK_DATA ? shaded(palette[c->colour], c->shade)
                       : c->kind == VIEW_CHUNK_PADDING ? padding_fill
                                                       : outside_fill;
            set(cr, fill);
            cairo_rectangle(cr, x, y, g->cw, g->rh);
            cairo_fill(cr);
            if (c->kind == VIEW_CHUNK_DATA && c->oob_elements)
                draw_hatch(cr, x, y, g->cw, g->rh);
        }
    }

    /* Lane cells: fill (collisions in the warning colour) before any text. */
    if (v->has_instr)
        for (uint32_t l = 0; l < BANK_LANES; l++) {
            const view_lane *ln = &v->lane[l];
            if (!ln->used || ln->row == VIEW_LANE_OFF_PICTURE)
                continue;
            double y = row_top(v, g, gy, ln->row);
            double x = gx + ln->byte_in_row * (g->cw / VIEW_CHUNK_BYTES);
            double w = ln->bytes * (g->cw / VIEW_CHUNK_BYTES);
            if (ln->collides) {
                set(cr, warn_fill);
                cairo_rectangle(cr, x, y, w, g->rh);
                cairo_fill(cr);
            } else if (!v->has_plan) {
                set(cr, lane_fill);
                cairo_rectangle(cr, x, y, w, g->rh);
                cairo_fill(cr);
            }
        }

    /* Grid: thin bank lines, strong chunk lines. */
    double gh = rows_height(v, g);
    cairo_set_source_rgba(cr, 0.35, 0.35, 0.35, 0.35);
    cairo_set_line_width(cr, 1);
    for (uint32_t b = 1; b < BANK_COUNT; b++) {
        if (b % VIEW_BANKS_PER_CHUNK == 0)
            continue;
        cairo_move_to(cr, gx + b * bank_w, gy);
        cairo_line_to(cr, gx + b * bank_w, gy + gh);
    }
    cairo_stroke(cr);
    set(cr, grid_line);
    cairo_set_line_width(cr, 1.5);
    for (uint32_t r = 0; r < v->nrows; r++) {
        double y = row_top(v, g, gy, r);
        for (uint32_t k = 0; k < VIEW_CHUNKS_PER_ROW; k++)
            cairo_rectangle(cr, gx + k * g->cw, y, g->cw, g->rh);
    }
    cairo_stroke(cr);

    /* Chunk labels, in white where a collision fill sits under them. */
    uint32_t lane_bytes = v->has_instr ? view_lane_bytes(&v->instr) : 0;
    int lane_text_line = v->has_instr && v->has_plan;
    for (uint32_t r = 0; r < v->nrows; r++) {
        double y = row_top(v, g, gy, r);
        for (uint32_t k = 0; k < VIEW_CHUNKS_PER_ROW; k++) {
            const view_chunk *c = &v->row[r].chunk[k];
            int on_red = 0, on_lane = 0;
            for (uint32_t l = 0; v->has_instr && l < BANK_LANES; l++) {
                const view_lane *ln = &v->lane[l];
                if (ln->used && ln->row == r && ln->byte_in_row / VIEW_CHUNK_BYTES == k) {
                    on_lane = 1;
                    on_red |= ln->collides && ln->bytes >= VIEW_CHUNK_BYTES;
                }
            }
            const char *label = c->kind == VIEW_CHUNK_DATA ? c->label : c->kind == VIEW_CHUNK_PADDING ? "pad" : "";
            if (!*label)
                continue;
            double ty = (on_lane && lane_text_line) ? y + g->rh * 0.42 : y + g->rh / 2 + g->label_px * 0.36;
            fit_text(cr, font, g->label_px, 10, 0, on_red ? white : ink, gx + (k + 0.5) * g->cw, ty, g->cw, label);
        }
    }

    /* Lane outlines and labels "L5 w1" (lane, wavefront). */
    if (v->has_instr) {
        for (uint32_t l = 0; l < BANK_LANES; l++) {
            const view_lane *ln = &v->lane[l];
            if (!ln->used || ln->row == VIEW_LANE_OFF_PICTURE || !lane_is_lead(v, l))
                continue;
            double y = row_top(v, g, gy, ln->row);
            double x = gx + ln->byte_in_row * (g->cw / VIEW_CHUNK_BYTES);
            double w = ln->bytes * (g->cw / VIEW_CHUNK_BYTES);
            set(cr, ink);
            cairo_set_line_width(cr, 3.5);
            cairo_rectangle(cr, x + 2, y + 2, w - 4, g->rh - 4);
            cairo_stroke(cr);
            int narrow = lane_bytes < 8;
            lane_group_label(v, l, buf, sizeof buf, narrow);
            double ty = lane_text_line ? y + g->rh * 0.42 + g->lane_px + 2 : y + g->rh / 2 + g->lane_px * 0.36;
            if (narrow && !lane_text_line)
                ty = y + g->rh * 0.45;
            fit_text(cr, font, g->lane_px, 9, 1, ln->collides ? white : ink, x + w / 2, ty, w, buf);
            if (narrow && !lane_text_line) {
                snprintf(buf, sizeof buf, "w%u", ln->wavefront);
                fit_text(cr, font, g->lane_px - 2, 8, 0, ln->collides ? white : ink, x + w / 2,
                         y + g->rh * 0.45 + g->lane_px, w, buf);
            }
        }
    }

    /* Footnote: what the window leaves out. */
    double fy = gy + gh + 22;
    buf[0] = 0;
    if (v->nrows < v->total_rows)
        snprintf(buf, sizeof buf, "showing rows %u-%u of %u (128 bytes each)", v->first_row,
                 v->first_row + v->nrows - 1, v->total_rows);
    if (v->lanes_off_picture) {
        size_t n = strlen(buf);
        snprintf(buf + n, sizeof buf - n, "%s%u lanes fall in rows not shown", n ? "; " : "", v->lanes_off_picture);
    }
    if (buf[0])
        text(cr, font, 15, 0, grid_line, gx, fy, 0, buf);
    (void)gw;
}

static void swatch(cairo_t *cr, double x, double y, rgb fill, int outline, int hatch)
{
    set(cr, fill);
    cairo_rectangle(cr, x, y, 34, 24);
    cairo_fill(cr);
    if (hatch)
        draw_hatch(cr, x, y, 34, 24);
    set(cr, ink);
    cairo_set_line_width(cr, outline ? 3.5 : 1.2);
    cairo_rectangle(cr, x + (outline ? 2 : 0), y + (outline ? 2 : 0), 34 - (outline ? 4 : 0), 24 - (outline ? 4 : 0));
    cairo_stroke(cr);
}

#define LEGEND_LINE 34.0

/* The legend explains every colour used; returns its height (for layout). */
/* oob: 0 asks for padding chunks, 1 for zero-filled ones, 2 for darker shades. */
static int any_chunk(const view_tile *views, uint32_t count, int oob)
{
    for (uint32_t i = 0; i < count; i++)
        for (uint32_t r = 0; r < views[i].nrows; r++)
            for (uint32_t k = 0; k < VIEW_CHUNKS_PER_ROW; k++) {
                const view_chunk *c = &views[i].row[r].chunk[k];
                int hit = oob == 2   ? (c->kind == VIEW_CHUNK_DATA && c->shade > 0)
                          : oob == 1 ? (c->kind == VIEW_CHUNK_DATA && c->oob_elements)
                                     : c->kind == VIEW_CHUNK_PADDING;
                if (hit)
                    return 1;
            }
    return 0;
}

static double draw_legend(cairo_t *cr, const view_tile *v, int has_padding, int has_oob, int has_shades, double x0,
                          double y0, double width, int draw)
{
    char buf[160];
    double y = y0, x = x0;
    int any_plan = v->has_plan;
    if (any_plan) {
        if (draw) {
            snprintf(buf, sizeof buf, "Colour: which 16 bytes of the box row a chunk holds (%u-bit elements); "
                                      "text: box row r, columns c",
                     v->elem_bits);
            text(cr, font, 17, 1, ink, x, y + 18, 0, buf);
        }
        y += LEGEND_LINE;
        uint32_t per_group = v->elem_bits ? 128u / v->elem_bits : 0;
        for (uint32_t gi = 0; gi < VIEW_PALETTE; gi++) {
            if (!(v->colour_mask >> gi & 1u))
                continue;
            if (per_group)
                snprintf(buf, sizeof buf, "c%u-%u", gi * per_group, gi * per_group + per_group - 1);
            else
                snprintf(buf, sizeof buf, "group %u", gi);
            double w = 34 + 10 + text_width(cr, font, 16, 0, buf) + 26;
            if (x + w > x0 + width) {
                x = x0;
                y += LEGEND_LINE;
            }
            if (draw) {
                swatch(cr, x, y, palette[gi], 0, 0);
                text(cr, font, 16, 0, ink, x + 44, y + 18, 0, buf);
            }
            x += w;
        }
        if (draw && has_shades)
            text(cr, font, 16, 0, ink, x, y + 18, 0, "(next 128 B of the row: darker)");
        y += LEGEND_LINE;
        x = x0;
    }
    struct {
        rgb fill;
        int outline, hatch, needs_plan, needs_instr;
        const char *what;
    } items[] = {
        {padding_fill, 0, 0, has_padding ? 1 : 2, 0, "padding (row narrower than the swizzle span)"},
        {palette[0], 0, 1, has_oob ? 1 : 2, 0, "zero/NaN filled (outside the tensor)"},
        {any_plan ? palette[0] : lane_fill, 1, 0, 0, 1, "a lane's bytes: L = lane, w = wavefront"},
        {warn_fill, 1, 0, 0, 1, "collides: same bank, different word"},
    };
    for (size_t i = 0; i < sizeof items / sizeof items[0]; i++) {
        if ((items[i].needs_plan && !any_plan) || items[i].needs_plan == 2 || (items[i].needs_instr && !v->has_instr))
            continue;
        double w = 34 + 10 + text_width(cr, font, 16, 0, items[i].what) + 30;
        if (x + w > x0 + width) {
            x = x0;
            y += LEGEND_LINE;
        }
        if (draw) {
            swatch(cr, x, y, items[i].fill, items[i].outline, items[i].hatch);
            text(cr, font, 16, 0, ink, x + 44, y + 18, 0, items[i].what);
        }
        x += w;
    }
    y += LEGEND_LINE;
    return y - y0;
}

static int has_extension(const char *path, const char *ext)
{
    size_t n = strlen(path), k = strlen(ext);
    return n > k && !strcasecmp(path + n - k, ext);
}

static int render(const view_tile *views, const char *const *captions, uint32_t count, const draw_tile_opts *o,
                  err_info *e)
{
    int png = has_extension(o->path, ".png"), svg = has_extension(o->path, ".svg");
    if (!png && !svg)
        return err_set(e, ERR_BAD_INPUT, "picture_path", "'%s': the extension chooses the format, one of .png .svg",
                       o->path);
    uint32_t max_rows = 0;
    for (uint32_t i = 0; i < count; i++)
        max_rows = views[i].nrows > max_rows ? views[i].nrows : max_rows;
    geom g = choose_geom(count, max_rows);

    const double margin = 36, panel_gap = 56, title_h = o->title && *o->title ? 58 : 14;
    double pw = panel_width(&g), ph = 0;
    for (uint32_t i = 0; i < count; i++) {
        double h = panel_height(&views[i], &g);
        ph = h > ph ? h : ph;
    }
    double width = 2 * margin + count * pw + (count - 1) * panel_gap;

    /* Measure the legend on a scratch surface, then draw for real. */
    const view_tile *legend_view = &views[0];
    view_tile merged = views[0];
    for (uint32_t i = 1; i < count; i++) {
        merged.has_plan |= views[i].has_plan;
        merged.has_instr |= views[i].has_instr;
        merged.colour_mask |= views[i].colour_mask;
        if (!merged.elem_bits)
            merged.elem_bits = views[i].elem_bits;
    }
    legend_view = &merged;
    cairo_surface_t *scratch = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 8, 8);
    cairo_t *mcr = cairo_create(scratch);
    int has_padding = any_chunk(views, count, 0), has_oob = any_chunk(views, count, 1);
    int has_shades = any_chunk(views, count, 2);
    double legend_h = draw_legend(mcr, legend_view, has_padding, has_oob, has_shades, margin, 0, width - 2 * margin, 0);
    cairo_destroy(mcr);
    cairo_surface_destroy(scratch);
    double height = title_h + ph + 16 + legend_h + margin / 2;

    afile f;
    if (afile_open(&f, o->path, "picture_write", e))
        return e ? e->code : ERR_IO;
    cairo_surface_t *surface = png ? cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)width, (int)height)
                                   : cairo_svg_surface_create_for_stream(draw_file_stream, &f, width, height);
    draw_svgtext *texts = NULL;   /* SVG text stays text */
    if (cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS) {
        cairo_t *cr = cairo_create(surface);
        texts = draw_file_texts(cr, png, &f);
        set(cr, white);
        cairo_paint(cr);
        if (o->title && *o->title)
            text(cr, font, 28, 1, ink, margin, 42, 0, o->title);
        for (uint32_t i = 0; i < count; i++)
            draw_panel(cr, &views[i], &g, margin + i * (pw + panel_gap), title_h, captions[i]);
        draw_legend(cr, legend_view, has_padding, has_oob, has_shades, margin, title_h + ph + 8, width - 2 * margin, 1);
        cairo_destroy(cr);
    }
    int rc = draw_file_finish(surface, png, &f, texts, "picture_write", e);
    draw_svgtext_free(texts);
    return rc;
}

static view_tile_opts window(const draw_tile_opts *o)
{
    view_tile_opts w = {.first_row = o->first_row, .max_rows = o->max_rows};
    return w;
}

static int check_opts(const draw_tile_opts *o, err_info *e)
{
    if (!o || !o->path || !*o->path)
        return err_set(e, ERR_BAD_INPUT, "picture_path", "no output file given (a .png or .svg path)");
    return ERR_OK;
}

int draw_tile_panels(const draw_tile_panel *panels, uint32_t count, const draw_tile_opts *o, err_info *e)
{
    int rc = check_opts(o, e);
    if (rc != ERR_OK)
        return rc;
    if (!panels || count == 0 || count > DRAW_TILE_MAX_PANELS)
        return err_set(e, ERR_BAD_INPUT, "panels", "%u panels, allowed 1..%d", count, DRAW_TILE_MAX_PANELS);
    view_tile views[DRAW_TILE_MAX_PANELS];
    const char *captions[DRAW_TILE_MAX_PANELS];
    view_tile_opts w = window(o);
    uint32_t built = 0;
    for (; built < count; built++) {
        const draw_tile_panel *p = &panels[built];
        captions[built] = p->caption;
        if (p->plan)
            rc = view_tile_build_plan(&views[built], p->plan, p->highlight, NULL, &w, e);
        else if (p->highlight)
            rc = view_tile_build_instr(&views[built], p->highlight, NULL, &w, e);
        else
            rc = err_set(e, ERR_BAD_INPUT, "panels", "panel %u has neither a placement nor an instruction", built);
        if (rc != ERR_OK)
            break;
    }
    if (rc == ERR_OK)
        rc = render(views, captions, count, o, e);
    for (uint32_t i = 0; i < built; i++)
        view_tile_free(&views[i]);
    return rc;
}

int draw_tile_plan(const tm_plan *plan, const draw_tile_opts *o, err_info *e)
{
    int rc = check_opts(o, e);
    if (rc != ERR_OK)
        return rc;
    draw_tile_panel p = {.plan = plan, .highlight = o->highlight, .caption = NULL};
    if (!plan)
        return err_set(e, ERR_BAD_INPUT, "plan", "no tensor-map placement given");
    return draw_tile_panels(&p, 1, o, e);
}

int draw_tile_instr(const bank_instr *in, const draw_tile_opts *o, err_info *e)
{
    int rc = check_opts(o, e);
    if (rc != ERR_OK)
        return rc;
    if (!in)
        return err_set(e, ERR_BAD_INPUT, "instr", "no instruction given");
    draw_tile_panel p = {.plan = NULL, .highlight = in, .caption = NULL};
    return draw_tile_panels(&p, 1, o, e);
}

/* fontconfig (under cairo's toy text API) keeps its configuration for the life of
 * the process; LeakSanitizer in the san build would report it at exit. This hook is
 * read only by LeakSanitizer and names that library alone: by its file where it is a
 * shared library, by its functions (all named Fc...) where it is linked statically. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libfontconfig\nleak:^Fc\n";
}
