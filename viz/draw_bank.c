#include "draw_bank.h"

#include "draw_text.h"
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

const double DRAW_BANK_OK_RGB[3] = {40 / 255.0, 150 / 255.0, 90 / 255.0};
const double DRAW_BANK_CONFLICT_RGB[3] = {200 / 255.0, 30 / 255.0, 110 / 255.0};

static void text(cairo_t *cr, double x, double y, double size, const char *s)
{
    cairo_set_font_size(cr, size);
    cairo_move_to(cr, x, y);
    draw_show_text(cr, s);
}

double draw_bank_grid(cairo_t *cr, const view_bank *b, double x, double y, double w, double max_h)
{
    double top = y;
    char buf[160];
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.5);
    text(cr, x, y += 10, 10, "bank picture (from the description)");
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    text(cr, x, y += 12, 9, b->caption);
    if (b->res.conflicts) cairo_set_source_rgb(cr, 0.7, 0.05, 0.05);   /* not the cell colour: tests find cells by it */
    text(cr, x, y += 12, 9, b->summary);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    snprintf(buf, sizeof buf, "stage: %u instr%s x %u = %" PRIu64 " wavefronts (ideal %" PRIu64 ")", b->warp_instrs,
             b->warp_instrs == 1 ? "" : "s", b->repeat, b->warp_wavefronts, b->warp_ideal);
    text(cr, x, y += 12, 9, buf);
    if (b->bytes_mismatch) {
        cairo_set_source_rgb(cr, 0.75, 0.1, 0.1);
        text(cr, x, y += 12, 9, "event bytes differ from the description's reads");
    }
    double cw = w / BANK_COUNT;
    /* bank numbers: every fourth column, the first bank of each 16-byte chunk */
    y += 12;
    cairo_set_source_rgb(cr, 0.35, 0.35, 0.35);
    for (unsigned k = 0; k < BANK_COUNT; k += 4) {
        snprintf(buf, sizeof buf, "%u", k);
        text(cr, x + k * cw + 1, y, 7, buf);
    }
    y += 2;
    double footer = 26;
    double avail = max_h - (y - top) - footer;
    unsigned rows = b->rows;
    double rh = rows ? avail / rows : 11;
    if (rh > 12) rh = 12;
    rh = floor(rh);   /* whole pixels: crisp rows at any panel height */
    y = ceil(y);
    if (rh < 4) {
        rh = 4;
        rows = avail > 4 ? (unsigned)(avail / 4) : 0;
        if (rows > b->rows) rows = b->rows;
    }
    for (unsigned r = 0; r < rows; r++) {
        /* neighbouring banks serving the same lanes (one lane's 8 or 16 bytes) form one cell */
        for (unsigned k = 0, next; k < BANK_COUNT; k = next) {
            uint32_t lanes = b->grid[r][k];
            int conflict = (int)(b->res.colliding_banks >> k & 1u);
            for (next = k + 1; next < BANK_COUNT && b->grid[r][next] == lanes &&
                               (int)(b->res.colliding_banks >> next & 1u) == conflict;
                 next++)
                if (!lanes) break;
            double cx = x + k * cw, cy = y + r * rh, cwidth = (next - k) * cw;
            if (!lanes) cairo_set_source_rgb(cr, 0.90, 0.90, 0.90);
            else if (conflict)
                cairo_set_source_rgb(cr, DRAW_BANK_CONFLICT_RGB[0], DRAW_BANK_CONFLICT_RGB[1], DRAW_BANK_CONFLICT_RGB[2]);
            else cairo_set_source_rgb(cr, DRAW_BANK_OK_RGB[0], DRAW_BANK_OK_RGB[1], DRAW_BANK_OK_RGB[2]);
            cairo_rectangle(cr, cx + 0.5, cy + 0.5, cwidth - 1, rh - 1);
            cairo_fill(cr);
            if (!lanes || rh < 7) continue;
            int n = __builtin_popcount(lanes);
            if (cwidth >= 24) snprintf(buf, sizeof buf, n > 1 ? "L%d+%d" : "L%d", __builtin_ctz(lanes), n - 1);
            else snprintf(buf, sizeof buf, "%d", __builtin_ctz(lanes));
            double size = rh - 3 < 8 ? rh - 3 : 8;
            cairo_text_extents_t te;
            cairo_set_font_size(cr, size);
            cairo_text_extents(cr, buf, &te);
            if (te.x_advance > cwidth - 1) continue;
            cairo_set_source_rgb(cr, 1, 1, 1);
            text(cr, cx + (cwidth - te.x_advance) / 2, cy + rh - 2.5, size, buf);
        }
    }
    /* 16-byte chunk rules */
    cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
    for (unsigned k = 0; k <= BANK_COUNT; k += 4) cairo_rectangle(cr, x + k * cw - 0.5, y, 1, rows * rh);
    cairo_fill(cr);
    y += rows * rh;
    if (rows < b->res.nwavefronts || b->res.nwavefronts < b->res.wavefronts) {
        snprintf(buf, sizeof buf, "... %u more wavefronts not shown", b->res.wavefronts - rows);
        cairo_set_source_rgb(cr, 0.4, 0.1, 0.1);
        text(cr, x, y += 9, 8, buf);
    }
    /* lanes touching each bank */
    y += 9;
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    cairo_set_font_size(cr, 7);
    for (unsigned k = 0, next; k < BANK_COUNT; k = next) {
        /* a count too wide for its column is written once over the run of equal
         * counts inside the bank's 16-byte chunk */
        int n = __builtin_popcount(b->bank_lanes[k]);
        snprintf(buf, sizeof buf, "%d", n);
        cairo_text_extents_t te;
        cairo_text_extents(cr, buf, &te);
        next = k + 1;
        if (te.x_advance > cw - 1)
            while (next % 4 && __builtin_popcount(b->bank_lanes[next]) == n) next++;
        text(cr, x + k * cw + ((next - k) * cw - te.x_advance) / 2, y, 7, buf);
    }
    cairo_set_source_rgb(cr, 0.4, 0.4, 0.4);
    text(cr, x, y += 10, 8, "cols: banks, rows: wavefronts, bottom: lanes per bank");
    return y + 4;
}
