/* Access generators: hand-derived addresses for small tiles, the PTX ISA ldmatrix
 * fragment mapping of mma.m16n8k16, CuTe Swizzle<3,4,3> equal to the TMA 128B
 * swizzle, coverage properties and the documented bank answers for whole tiles. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"

static access_layout padded(uint32_t rows, uint32_t cols, uint32_t eb, uint32_t pitch)
{
    access_layout l = {.kind = ACCESS_LAYOUT_PADDED, .base = 0x400, .rows = rows, .cols = cols,
                       .elem_bytes = eb, .row_pitch = pitch};
    return l;
}

static uint32_t gen(const access_layout *l, access_desc d, bank_instr *out, uint32_t max)
{
    uint32_t n = 0;
    err_info e = {0};
    int rc = access_generate(l, &d, out, max, &n, &e);
    cr_assert_eq(rc, ERR_OK, "access_generate: %s: %s", e.rule, e.detail);
    return n;
}

Test(layout, padded_and_xor_addresses)
{
    access_layout l = padded(8, 64, 2, 144);
    uint32_t a;
    cr_assert_eq(access_layout_address(&l, 3, 5, &a, NULL), ERR_OK);
    cr_assert_eq(a, 0x400 + 3 * 144 + 10);
    err_info e = {0};
    cr_assert_eq(access_layout_address(&l, 8, 0, &a, &e), ERR_BAD_INPUT);
    cr_assert_str_eq(e.rule, "element_outside_tile");

    /* CuTe Swizzle<3,4,3> on 128-byte rows: chunk c of row r lands at chunk c ^ (r % 8). */
    access_layout x = {.kind = ACCESS_LAYOUT_XOR, .base = 0, .rows = 16, .cols = 64, .elem_bytes = 2,
                       .row_pitch = 128, .xor_b = 3, .xor_m = 4, .xor_s = 3};
    for (uint32_t r = 0; r < 16; r++)
        for (uint32_t c = 0; c < 64; c++) {
            cr_assert_eq(access_layout_address(&x, r, c, &a, NULL), ERR_OK);
            uint32_t chunk = (c / 8) ^ (r % 8);
            cr_assert_eq(a, r * 128 + chunk * 16 + (c % 8) * 2, "row %u col %u", r, c);
            /* and equal to the TMA 128B swizzle of the same absolute address */
            cr_assert_eq(a, tm_swizzle_address(TM_SWIZZLE_128B, r * 128 + c * 2));
        }
}

Test(layout, bad_shapes_are_named)
{
    err_info e = {0};
    access_layout l = padded(4, 64, 2, 100);
    cr_assert_eq(access_layout_shape(&l, NULL, NULL, NULL, &e), ERR_BAD_INPUT);
    cr_assert_str_eq(e.rule, "layout_row_pitch");
    l = padded(4, 64, 3, 256);
    cr_assert_eq(access_layout_shape(&l, NULL, NULL, NULL, &e), ERR_BAD_INPUT);
    cr_assert_str_eq(e.rule, "layout_elem_bytes");
    access_layout x = {.kind = ACCESS_LAYOUT_XOR, .rows = 1, .cols = 8, .elem_bytes = 4, .row_pitch = 32,
                       .xor_b = 4, .xor_m = 4, .xor_s = 3};
    cr_assert_eq(access_layout_shape(&x, NULL, NULL, NULL, &e), ERR_BAD_INPUT);
    cr_assert_str_eq(e.rule, "layout_xor");
}

Test(rows, lanes_walk_rows_in_turn)
{
    access_layout l = padded(4, 64, 2, 128);
    bank_instr in[4];
    uint32_t n = gen(&l, (access_desc){.pattern = ACCESS_ROW_WISE, .bytes_per_lane = 16}, in, 4);
    cr_assert_eq(n, 1);
    cr_assert_eq(in[0].op, BANK_OP_LDS128);
    cr_assert_eq(in[0].active_mask, 0);
    for (uint32_t lane = 0; lane < 32; lane++)
        cr_assert_eq(in[0].addr[lane], 0x400 + (lane / 8) * 128 + (lane % 8) * 16);
    bank_result r;
    cr_assert_eq(bank_analyse(&in[0], &r, NULL), ERR_OK);
    cr_assert_eq(r.wavefronts, 4);
}

Test(rows, partial_last_pass_leaves_lanes_inactive)
{
    access_layout l = padded(3, 8, 4, 32);
    bank_instr in[2];
    uint32_t n = gen(&l, (access_desc){.pattern = ACCESS_ROW_WISE, .bytes_per_lane = 4, .store = 1}, in, 2);
    cr_assert_eq(n, 1);
    cr_assert_eq(in[0].op, BANK_OP_STS32);
    cr_assert_eq(in[0].active_mask, 0x00ffffffu);
    cr_assert_eq(in[0].addr[23], 0x400 + 2 * 32 + 7 * 4);
}

Test(cols, lane_l_reads_row_l)
{
    access_layout l = padded(64, 8, 4, 32);
    bank_instr in[16];
    uint32_t n = gen(&l, (access_desc){.pattern = ACCESS_COL_WISE, .bytes_per_lane = 4}, in, 16);
    cr_assert_eq(n, 16);
    /* instruction 0: rows 0-31 of column 0; instruction 2: rows 0-31 of column 1 */
    for (uint32_t lane = 0; lane < 32; lane++) {
        cr_assert_eq(in[0].addr[lane], 0x400 + lane * 32);
        cr_assert_eq(in[1].addr[lane], 0x400 + (32 + lane) * 32);
        cr_assert_eq(in[2].addr[lane], 0x400 + lane * 32 + 4);
    }
    /* 32-byte pitch: rows l and l+4 share banks, 8 distinct words per bank */
    bank_result r;
    cr_assert_eq(bank_analyse(&in[0], &r, NULL), ERR_OK);
    cr_assert_eq(r.wavefronts, 8);
}

Test(cols, warpgroup_covers_the_same_chunks)
{
    access_layout l = padded(64, 32, 4, 128);
    bank_instr a[64], b[64];
    uint32_t na = gen(&l, (access_desc){.pattern = ACCESS_COL_WISE, .bytes_per_lane = 8}, a, 64);
    uint32_t nb = gen(&l, (access_desc){.pattern = ACCESS_COL_WISE, .bytes_per_lane = 8, .warps = 4}, b, 64);
    cr_assert_eq(na, 32);
    cr_assert_eq(nb, na);
    /* thread t = 32w + l: the same linear chunk order, so instruction i is the same */
    for (uint32_t i = 0; i < na; i++)
        cr_assert_eq(memcmp(a[i].addr, b[i].addr, sizeof a[i].addr), 0);
}

Test(coverage, every_chunk_once)
{
    static const access_pattern pats[] = {ACCESS_ROW_WISE, ACCESS_COL_WISE};
    access_layout l = {.kind = ACCESS_LAYOUT_XOR, .base = 0x800, .rows = 24, .cols = 40, .elem_bytes = 4,
                       .row_pitch = 176, .xor_b = 2, .xor_m = 4, .xor_s = 3};
    static bank_instr in[64];
    for (int p = 0; p < 2; p++)
        for (uint32_t bpl = 4; bpl <= 16; bpl *= 2) {
            if (40 % (bpl / 4))
                continue;
            uint32_t n = gen(&l, (access_desc){.pattern = pats[p], .bytes_per_lane = bpl}, in, 64);
            uint32_t chunks = 24 * 40 * 4 / bpl;
            cr_assert_eq(n, (chunks + 31) / 32);
            uint32_t seen = 0;
            static uint8_t hit[24 * 176 + 64];
            memset(hit, 0, sizeof hit);
            for (uint32_t i = 0; i < n; i++)
                for (uint32_t lane = 0; lane < 32; lane++) {
                    if (in[i].active_mask && !((in[i].active_mask >> lane) & 1))
                        continue;
                    uint32_t off = in[i].addr[lane] - 0x800;
                    cr_assert_lt(off, sizeof hit);
                    cr_assert_eq(hit[off], 0, "chunk at offset %u twice", off);
                    hit[off] = 1;
                    seen++;
                }
            cr_assert_eq(seen, chunks);
        }
}

/* ldmatrix fragments: PTX ISA mma.m16n8k16 .f16 A layout by ldmatrix.x4 */
Test(ldsm, a_fragment_lane_rows)
{
    access_layout l = padded(16, 16, 2, 32);
    bank_instr in[1];
    cr_assert_eq(gen(&l, (access_desc){.pattern = ACCESS_LDSM_A}, in, 1), 1);
    cr_assert_eq(in[0].op, BANK_OP_LDSM_X4);
    /* lane 8i+r -> row 8*(i&1)+r, column 8*(i>>1) */
    cr_assert_eq(in[0].addr[0], 0x400);
    cr_assert_eq(in[0].addr[9], 0x400 + 9 * 32);
    cr_assert_eq(in[0].addr[16], 0x400 + 16);
    cr_assert_eq(in[0].addr[31], 0x400 + 15 * 32 + 16);
    /* equivalently lane l -> row l % 16, column (l / 16) * 8 (the usual CUTLASS mapping) */
    for (uint32_t lane = 0; lane < 32; lane++)
        cr_assert_eq(in[0].addr[lane], 0x400 + (lane % 16) * 32 + (lane / 16) * 16);
}

Test(ldsm, b_fragment_lane_rows)
{
    /* rows n, columns k: matrix i = (n 0-7, k 8i..8i+7) */
    access_layout l = padded(8, 16, 2, 32);
    bank_instr in[1];
    cr_assert_eq(gen(&l, (access_desc){.pattern = ACCESS_LDSM_B}, in, 1), 1);
    cr_assert_eq(in[0].op, BANK_OP_LDSM_X2);
    cr_assert_eq(in[0].active_mask, 0xffffu);
    for (uint32_t lane = 0; lane < 16; lane++)
        cr_assert_eq(in[0].addr[lane], 0x400 + (lane % 8) * 32 + (lane / 8) * 16);
    /* rows k, columns n (trans): matrix i = (k 8i..8i+7, n 0-7) */
    access_layout t = padded(16, 8, 2, 16);
    cr_assert_eq(gen(&t, (access_desc){.pattern = ACCESS_LDSM_B, .trans = 1, .store = 1}, in, 1), 1);
    cr_assert_eq(in[0].op, BANK_OP_STSM_X2);
    cr_assert_eq(in[0].trans, 1);
    for (uint32_t lane = 0; lane < 16; lane++)
        cr_assert_eq(in[0].addr[lane], 0x400 + lane * 16);
}

Test(ldsm, tile_must_fit_the_fragment)
{
    access_layout l = padded(8, 64, 2, 128);
    access_desc d = {.pattern = ACCESS_LDSM_A};
    uint32_t n = 0;
    err_info e = {0};
    cr_assert_eq(access_generate(&l, &d, NULL, 0, &n, &e), ERR_BAD_INPUT);
    cr_assert_str_eq(e.rule, "ldsm_a_tile");
    access_layout f = padded(16, 16, 4, 64);
    cr_assert_eq(access_generate(&f, &d, NULL, 0, &n, &e), ERR_BAD_INPUT);
    cr_assert_str_eq(e.rule, "ldsm_elem_bytes");
    access_desc rows = {.pattern = ACCESS_ROW_WISE, .bytes_per_lane = 4};
    access_layout wide = padded(4, 4, 8, 32);
    cr_assert_eq(access_generate(&wide, &rows, NULL, 0, &n, &e), ERR_BAD_INPUT);
    cr_assert_str_eq(e.rule, "bytes_per_lane");
    rows.warps = 2;
    cr_assert_eq(access_generate(&l, &rows, NULL, 0, &n, &e), ERR_BAD_INPUT);
    cr_assert_str_eq(e.rule, "warps");
}

Test(sizing, null_out_counts_and_small_max_fails)
{
    access_layout l = padded(64, 64, 2, 128);
    access_desc d = {.pattern = ACCESS_LDSM_A};
    uint32_t n = 0;
    cr_assert_eq(access_generate(&l, &d, NULL, 0, &n, NULL), ERR_OK);
    cr_assert_eq(n, 16);
    bank_instr in[4];
    err_info e = {0};
    cr_assert_eq(access_generate(&l, &d, in, 4, &n, &e), ERR_BAD_INPUT);
    cr_assert_str_eq(e.rule, "access_max");
}

Test(xor, lane_split_by_fine_swizzle_is_named)
{
    /* Swizzle<1,2,3> moves 4-byte pieces: a 16-byte lane is no longer contiguous. */
    access_layout l = {.kind = ACCESS_LAYOUT_XOR, .rows = 8, .cols = 32, .elem_bytes = 4, .row_pitch = 128,
                       .xor_b = 1, .xor_m = 2, .xor_s = 3};
    access_desc d = {.pattern = ACCESS_ROW_WISE, .bytes_per_lane = 16};
    uint32_t n;
    err_info e = {0};
    cr_assert_eq(access_generate(&l, &d, NULL, 0, &n, &e), ERR_BAD_INPUT);
    cr_assert_str_eq(e.rule, "lane_bytes_not_contiguous");
}

/* ---- whole tiles over TMA placements: the documented answers ------------------------- */

static int tma_64x64_f16(tm_swizzle sw, tm_plan *plan)
{
    tm_desc d;
    tm_desc_defaults(&d);
    d.dtype = TM_DTYPE_F16;
    d.rank = 2;
    d.global_address = 0x10000000;
    d.dims[0] = 64;
    d.dims[1] = 64;
    d.strides[0] = 128;
    d.box[0] = 64;
    d.box[1] = 64;
    d.swizzle = sw;
    tm_copy c = {.smem_address = 0x400};
    err_info e = {0};
    int rc = tm_plan_copy(&d, &c, plan, &e);
    cr_assert_eq(rc, ERR_OK, "tm_plan_copy: %s: %s", e.rule, e.detail);
    return rc;
}

static void totals(const access_layout *l, access_desc d, uint32_t *ninstr, uint32_t *wf, uint32_t *conf)
{
    static bank_instr in[1024];
    uint32_t n = gen(l, d, in, 1024);
    *ninstr = n;
    *wf = *conf = 0;
    for (uint32_t i = 0; i < n; i++) {
        bank_result r;
        err_info e = {0};
        cr_assert_eq(bank_analyse(&in[i], &r, &e), ERR_OK, "%s: %s", e.rule, e.detail);
        *wf += r.wavefronts;
        *conf += r.conflicts;
    }
}

Test(tma, ldsm_a_on_128B_swizzle_is_conflict_free)
{
    tm_plan plan;
    tma_64x64_f16(TM_SWIZZLE_128B, &plan);
    access_layout l = {.kind = ACCESS_LAYOUT_TMA, .plan = &plan};
    uint32_t rows, cols, eb;
    cr_assert_eq(access_layout_shape(&l, &rows, &cols, &eb, NULL), ERR_OK);
    cr_assert_eq(rows, 64);
    cr_assert_eq(cols, 64);
    cr_assert_eq(eb, 2);
    uint32_t n, wf, conf;
    totals(&l, (access_desc){.pattern = ACCESS_LDSM_A}, &n, &wf, &conf);
    cr_assert_eq(n, 16);
    cr_assert_eq(wf, 64);
    cr_assert_eq(conf, 0);
}

Test(tma, ldsm_a_unswizzled_is_eight_way)
{
    tm_plan plan;
    tma_64x64_f16(TM_SWIZZLE_NONE, &plan);
    access_layout l = {.kind = ACCESS_LAYOUT_TMA, .plan = &plan};
    uint32_t n, wf, conf;
    totals(&l, (access_desc){.pattern = ACCESS_LDSM_A}, &n, &wf, &conf);
    cr_assert_eq(n, 16);
    cr_assert_eq(wf, 16 * 32);
    cr_assert_eq(conf, 16 * 28);
}

Test(tma, rows_read_is_conflict_free_in_every_mode)
{
    /* Row-wise 16-byte reads: each quarter-warp reads one 128-byte row, whatever the
     * chunk permutation inside it. */
    static const tm_swizzle modes[] = {TM_SWIZZLE_NONE, TM_SWIZZLE_128B};
    for (int m = 0; m < 2; m++) {
        tm_plan plan;
        tma_64x64_f16(modes[m], &plan);
        access_layout l = {.kind = ACCESS_LAYOUT_TMA, .plan = &plan};
        uint32_t n, wf, conf;
        totals(&l, (access_desc){.pattern = ACCESS_ROW_WISE, .bytes_per_lane = 16}, &n, &wf, &conf);
        cr_assert_eq(n, 64 * 8 / 32);
        cr_assert_eq(conf, 0);
        cr_assert_eq(wf, 4 * n);
    }
}

Test(names, parse_round_trip)
{
    for (int i = 0; i < ACCESS_PATTERN_COUNT; i++) {
        access_pattern p;
        cr_assert_eq(access_pattern_parse(access_pattern_name((access_pattern)i), &p, NULL), ERR_OK);
        cr_assert_eq(p, (access_pattern)i);
    }
    access_pattern p;
    err_info e = {0};
    cr_assert_eq(access_pattern_parse("diag", &p, &e), ERR_BAD_INPUT);
    cr_assert(strstr(e.detail, "ldsm-a"));
}
