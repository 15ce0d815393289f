/* access: the warp instructions of common shared-memory reads and writes of a 2-D
 * tile, over a TMA placement, a padded array or a CuTe-style XOR swizzle.
 *
 * Thread numbering: thread t of a warp or warpgroup is lane t % 32 of warp t / 32.
 * ROW_WISE and COL_WISE split the tile into "chunks" of bytes_per_lane bytes (the
 * elements one lane moves) and hand consecutive chunks to consecutive threads,
 * row-major for ROW_WISE and column-major for COL_WISE; every pass of the threads
 * over warps x 32 chunks gives one instruction per warp. A last, partial pass leaves
 * the lanes past the tile inactive. The ldmatrix patterns follow the PTX ISA
 * fragment layouts of mma.m16n8k16 for 16-bit elements (see access_generate). */
#include "access.h"

#include <string.h>

static const char *const pattern_names[ACCESS_PATTERN_COUNT] = {
    [ACCESS_ROW_WISE] = "rows",
    [ACCESS_COL_WISE] = "cols",
    [ACCESS_LDSM_A] = "ldsm-a",
    [ACCESS_LDSM_B] = "ldsm-b",
};

const char *access_pattern_name(access_pattern p)
{
    return (unsigned)p < ACCESS_PATTERN_COUNT ? pattern_names[p] : "?";
}

int access_pattern_parse(const char *s, access_pattern *out, err_info *e)
{
    for (int i = 0; s && i < ACCESS_PATTERN_COUNT; i++)
        if (!strcmp(s, pattern_names[i])) {
            *out = (access_pattern)i;
            return ERR_OK;
        }
    return err_set(e, ERR_BAD_INPUT, "access", "'%s' is not one of: rows cols ldsm-a ldsm-b", s ? s : "");
}

/* ---- layouts -------------------------------------------------------------------------- */

int access_layout_shape(const access_layout *l, uint32_t *rows, uint32_t *cols, uint32_t *elem_bytes, err_info *e)
{
    uint32_t r, c, eb;
    if (!l)
        return err_set(e, ERR_BAD_INPUT, "layout", "no layout");
    if (l->kind == ACCESS_LAYOUT_TMA) {
        if (!l->plan)
            return err_set(e, ERR_BAD_INPUT, "layout_plan", "TMA layout without a tm_plan");
        const tm_dtype_info *info = tm_dtype_get(l->plan->desc.dtype);
        if (!info || info->is_packed || info->bits % 8)
            return err_set(e, ERR_BAD_INPUT, "layout_dtype",
                           "%s: packed sub-byte elements have no per-lane byte address; use a whole-byte dtype",
                           info ? info->name : "?");
        if (l->plan->desc.interleave != TM_INTERLEAVE_NONE)
            return err_set(e, ERR_BAD_INPUT, "layout_interleave",
                           "interleave %s: box index 1 is not a row of the tile; use interleave none",
                           tm_interleave_name(l->plan->desc.interleave));
        eb = info->bits / 8;
        c = l->plan->loaded[0] * (l->nboxes > 1 ? l->nboxes : 1);
        r = l->plan->desc.rank >= 2 ? l->plan->loaded[1] : 1;
    } else if (l->kind == ACCESS_LAYOUT_PADDED || l->kind == ACCESS_LAYOUT_XOR) {
        r = l->rows;
        c = l->cols;
        eb = l->elem_bytes;
        if (!r || !c)
            return err_set(e, ERR_BAD_INPUT, "layout_shape", "rows=%u cols=%u: both must be at least 1", r, c);
        if (eb != 1 && eb != 2 && eb != 4 && eb != 8 && eb != 16)
            return err_set(e, ERR_BAD_INPUT, "layout_elem_bytes", "elem_bytes=%u: allowed 1 2 4 8 16", eb);
        if ((uint64_t)c * eb > l->row_pitch)
            return err_set(e, ERR_BAD_INPUT, "layout_row_pitch", "row_pitch=%u is below cols*elem_bytes=%llu",
                           l->row_pitch, (unsigned long long)c * eb);
        /* checked before any instruction is generated: the tile's size bounds their number */
        uint64_t top = (uint64_t)l->base + (uint64_t)(r - 1) * l->row_pitch + (uint64_t)c * eb;
        if (top > BANK_SHARED_WINDOW)
            return err_set(e, ERR_BAD_INPUT, "layout_size",
                           "base %u + (rows-1)*row_pitch + cols*elem_bytes = %llu bytes exceeds the %u-byte shared window",
                           l->base, (unsigned long long)top, BANK_SHARED_WINDOW);
        if (l->kind == ACCESS_LAYOUT_XOR && (l->xor_b > 16 || l->xor_m > 16 || l->xor_s > 16 || !l->xor_s ||
                                             l->xor_s < l->xor_b))
            return err_set(e, ERR_BAD_INPUT, "layout_xor",
                           "Swizzle<%u,%u,%u>: need B,M <= 16 and B <= S <= 16 (S >= 1) so the XOR is one-to-one",
                           l->xor_b, l->xor_m, l->xor_s);
    } else {
        return err_set(e, ERR_BAD_INPUT, "layout_kind", "layout kind %d: allowed TMA PADDED XOR", (int)l->kind);
    }
    if (rows)
        *rows = r;
    if (cols)
        *cols = c;
    if (elem_bytes)
        *elem_bytes = eb;
    return ERR_OK;
}

/* CuTe Swizzle<B,M,S> on a byte offset: the B bits at M+S.. are XORed into M.. */
static uint32_t xor_swizzle(uint32_t off, uint32_t b, uint32_t m, uint32_t s)
{
    return off ^ ((off >> s) & (((1u << b) - 1) << m));
}

static uint32_t unchecked_address(const access_layout *l, uint32_t row, uint32_t col, uint32_t eb)
{
    if (l->kind == ACCESS_LAYOUT_TMA) {
        uint32_t w = l->plan->loaded[0], k = l->nboxes > 1 ? col / w : 0;
        uint32_t idx[TM_MAX_RANK] = {col - k * w, row, 0, 0, 0};
        tm_element el;
        tm_plan_element(&l->plan[k], idx, &el);
        return el.smem_address;
    }
    uint32_t off = row * l->row_pitch + col * eb;
    if (l->kind == ACCESS_LAYOUT_XOR)
        off = xor_swizzle(off, l->xor_b, l->xor_m, l->xor_s);
    return l->base + off;
}

int access_layout_address(const access_layout *l, uint32_t row, uint32_t col, uint32_t *addr, err_info *e)
{
    uint32_t rows, cols, eb;
    int rc = access_layout_shape(l, &rows, &cols, &eb, e);
    if (rc)
        return rc;
    if (row >= rows || col >= cols)
        return err_set(e, ERR_BAD_INPUT, "element_outside_tile", "(row %u, col %u) outside %u x %u", row, col, rows,
                       cols);
    *addr = unchecked_address(l, row, col, eb);
    return ERR_OK;
}

/* ---- generators ---------------------------------------------------------------------- */

typedef struct gen {
    const access_layout *layout;
    uint32_t rows, cols, eb;
    bank_instr *out;
    uint32_t max, count;
    err_info *e;
} gen;

/* Address of the bytes starting at (row, col) that one lane moves; they must be
 * contiguous in shared memory (a layout can split them, e.g. an XOR below 16 bytes). */
static int lane_address(gen *g, uint32_t row, uint32_t col, uint32_t elems, uint32_t *addr)
{
    uint32_t a = unchecked_address(g->layout, row, col, g->eb);
    for (uint32_t k = 1; k < elems; k++)
        if (unchecked_address(g->layout, row, col + k, g->eb) != a + k * g->eb)
            return err_set(g->e, ERR_BAD_INPUT, "lane_bytes_not_contiguous",
                           "elements (row %u, cols %u..%u) of one lane are not contiguous in shared memory "
                           "(0x%x, then 0x%x); use fewer bytes per lane",
                           row, col, col + elems - 1, a, unchecked_address(g->layout, row, col + k, g->eb));
    *addr = a;
    return ERR_OK;
}

static bank_instr *next_instr(gen *g, bank_op op, int trans)
{
    uint32_t i = g->count++;
    if (!g->out || i >= g->max)
        return NULL;
    bank_instr *in = &g->out[i];
    memset(in, 0, sizeof *in);
    in->op = op;
    in->trans = trans;
    return in;
}

static int gen_chunks(gen *g, const access_desc *d, uint32_t warps)
{
    uint32_t bpl = d->bytes_per_lane ? d->bytes_per_lane : 16;
    if (bpl != 4 && bpl != 8 && bpl != 16)
        return err_set(g->e, ERR_BAD_INPUT, "bytes_per_lane", "%u: allowed 4 8 16", bpl);
    if (bpl < g->eb)
        return err_set(g->e, ERR_BAD_INPUT, "bytes_per_lane", "%u is smaller than one %u-byte element", bpl, g->eb);
    uint32_t elems = bpl / g->eb;
    if (g->cols % elems)
        return err_set(g->e, ERR_BAD_INPUT, "bytes_per_lane",
                       "%u bytes per lane = %u elements do not divide a row of %u elements", bpl, elems, g->cols);
    static const bank_op loads[3] = {BANK_OP_LDS32, BANK_OP_LDS64, BANK_OP_LDS128};
    static const bank_op stores[3] = {BANK_OP_STS32, BANK_OP_STS64, BANK_OP_STS128};
    uint32_t w = bpl == 4 ? 0 : bpl == 8 ? 1 : 2;
    bank_op op = d->store ? stores[w] : loads[w];
    uint32_t per_row = g->cols / elems;
    uint64_t chunks = (uint64_t)per_row * g->rows;
    uint64_t threads = 32ull * warps;
    for (uint64_t pass = 0; pass < chunks; pass += threads) {
        for (uint32_t wp = 0; wp < warps; wp++) {
            uint64_t first = pass + 32ull * wp;
            if (first >= chunks)
                break;
            bank_instr *in = next_instr(g, op, 0);
            uint32_t mask = 0;
            for (uint32_t l = 0; l < BANK_LANES; l++) {
                uint64_t k = first + l;
                if (k >= chunks)
                    break;
                uint32_t row, chunk;
                if (d->pattern == ACCESS_ROW_WISE) {
                    row = (uint32_t)(k / per_row);
                    chunk = (uint32_t)(k % per_row);
                } else {
                    row = (uint32_t)(k % g->rows);
                    chunk = (uint32_t)(k / g->rows);
                }
                uint32_t a;
                int rc = lane_address(g, row, chunk * elems, elems, &a);
                if (rc)
                    return rc;
                if (in)
                    in->addr[l] = a;
                mask |= 1u << l;
            }
            if (in)
                in->active_mask = mask == 0xffffffffu ? 0 : mask;
        }
    }
    return ERR_OK;
}

/* mma.m16n8k16 A (16 x 16, row-major: rows are m, columns k) by ldmatrix.x4. PTX ISA
 * fragment layout: a0a1 = (m groupID, k 0-7), a2a3 = (m groupID+8, k 0-7), a4a5 =
 * (m groupID, k 8-15), a6a7 = (m groupID+8, k 8-15); so matrix i of the x4 is rows
 * 8*(i&1)..+7, columns 8*(i>>1)..+7, and lane 8i+r gives the address of its row r.
 * With trans the tile holds A transposed (rows k, columns m) and ldmatrix.x4.trans
 * reads matrix i from rows k 8*(i>>1)..+7, columns m 8*(i&1)..+7. */
static int gen_ldsm_a(gen *g, const access_desc *d)
{
    if (g->eb != 2)
        return err_set(g->e, ERR_BAD_INPUT, "ldsm_elem_bytes",
                       "ldmatrix fragments of mma.m16n8k16 need 16-bit elements, the tile has %u-byte ones", g->eb);
    if (g->rows % 16 || g->cols % 16)
        return err_set(g->e, ERR_BAD_INPUT, "ldsm_a_tile",
                       "tile %u x %u: the A operand needs rows and columns in multiples of 16", g->rows, g->cols);
    bank_op op = d->store ? BANK_OP_STSM_X4 : BANK_OP_LDSM_X4;
    for (uint32_t rb = 0; rb < g->rows; rb += 16)
        for (uint32_t kb = 0; kb < g->cols; kb += 16) {
            bank_instr *in = next_instr(g, op, d->trans);
            for (uint32_t l = 0; l < BANK_LANES; l++) {
                uint32_t i = l / 8, r = l % 8, a;
                uint32_t row = d->trans ? rb + 8 * (i >> 1) + r : rb + 8 * (i & 1) + r;
                uint32_t col = d->trans ? kb + 8 * (i & 1) : kb + 8 * (i >> 1);
                int rc = lane_address(g, row, col, 8, &a);
                if (rc)
                    return rc;
                if (in)
                    in->addr[l] = a;
            }
        }
    return ERR_OK;
}

/* mma.m16n8k16 B (16 x 8, k x n) by ldmatrix.x2: b0b1 = (k 0-7, n groupID), b2b3 =
 * (k 8-15, n groupID). Stored with k contiguous (tile rows are n, columns k) the
 * plain ldmatrix gives it: matrix i is rows n 0-7, columns k 8i..8i+7. Stored with n
 * contiguous (tile rows are k, columns n: trans) ldmatrix.trans gives it: matrix i
 * is rows k 8i..8i+7, columns n 0-7. Lanes 0-15 give the row addresses. */
static int gen_ldsm_b(gen *g, const access_desc *d)
{
    if (g->eb != 2)
        return err_set(g->e, ERR_BAD_INPUT, "ldsm_elem_bytes",
                       "ldmatrix fragments of mma.m16n8k16 need 16-bit elements, the tile has %u-byte ones", g->eb);
    uint32_t row_step = d->trans ? 16 : 8, col_step = d->trans ? 8 : 16;
    if (g->rows % row_step || g->cols % col_step)
        return err_set(g->e, ERR_BAD_INPUT, "ldsm_b_tile",
                       "tile %u x %u: the B operand %s needs rows in multiples of %u and columns of %u", g->rows,
                       g->cols, d->trans ? "(rows k, columns n; .trans)" : "(rows n, columns k)", row_step,
                       col_step);
    bank_op op = d->store ? BANK_OP_STSM_X2 : BANK_OP_LDSM_X2;
    for (uint32_t rb = 0; rb < g->rows; rb += row_step)
        for (uint32_t cb = 0; cb < g->cols; cb += col_step) {
            bank_instr *in = next_instr(g, op, d->trans);
            for (uint32_t l = 0; l < 16; l++) {
                uint32_t i = l / 8, r = l % 8, a;
                uint32_t row = d->trans ? rb + 8 * i + r : rb + r;
                uint32_t col = d->trans ? cb : cb + 8 * i;
                int rc = lane_address(g, row, col, 8, &a);
                if (rc)
                    return rc;
                if (in)
                    in->addr[l] = a;
            }
            if (in)
                in->active_mask = 0xffffu;
        }
    return ERR_OK;
}

int access_generate(const access_layout *l, const access_desc *d, bank_instr *out, uint32_t max, uint32_t *count,
                    err_info *e)
{
    if (!d || !count)
        return err_set(e, ERR_BAD_INPUT, "access", "no access description or count");
    *count = 0;
    gen g = {.layout = l, .out = out, .max = max, .e = e};
    int rc = access_layout_shape(l, &g.rows, &g.cols, &g.eb, e);
    if (rc)
        return rc;
    uint32_t warps = d->warps ? d->warps : 1;
    if (warps != 1 && warps != 4)
        return err_set(e, ERR_BAD_INPUT, "warps", "%u: allowed 1 (a warp) or 4 (a warpgroup)", warps);
    switch (d->pattern) {
    case ACCESS_ROW_WISE:
    case ACCESS_COL_WISE:
        if (d->trans)
            return err_set(e, ERR_BAD_INPUT, "trans", ".trans applies to ldsm-a/ldsm-b only");
        rc = gen_chunks(&g, d, warps);
        break;
    case ACCESS_LDSM_A:
        rc = gen_ldsm_a(&g, d);
        break;
    case ACCESS_LDSM_B:
        rc = gen_ldsm_b(&g, d);
        break;
    default:
        return err_set(e, ERR_BAD_INPUT, "access", "pattern %d: allowed rows cols ldsm-a ldsm-b", (int)d->pattern);
    }
    if (rc)
        return rc;
    *count = g.count;
    if (out && g.count > max)
        return err_set(e, ERR_BAD_INPUT, "access_max", "the tile needs %u instructions, room for %u", g.count, max);
    return ERR_OK;
}
