/* view_tile: the picture model asserts what the picture will claim.
 * Known answers: the 128B swizzle permutes the 16-byte chunks of 128-byte row r by
 * XOR with (r mod 8) (PTX ISA tensor swizzling modes; reference sheet); banks are
 * (address / 4) mod 32; an mma.m16n8k16 A fragment read with ldmatrix.x4 from an
 * unswizzled 128-byte-pitch tile puts the 8 rows of every matrix on the same four
 * banks (8 wavefronts per matrix), while the 128B swizzle spreads them (one each). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "view_tile.h"

static tm_plan tile_plan(tm_swizzle swizzle, uint32_t box_cols, uint32_t smem, int32_t col0)
{
    tm_desc d;
    tm_desc_defaults(&d);
    d.dtype = TM_DTYPE_F16;
    d.rank = 2;
    d.dims[0] = 64;
    d.dims[1] = 64;
    d.strides[0] = 128;
    d.box[0] = box_cols;
    d.box[1] = 64;
    d.swizzle = swizzle;
    tm_copy c = {.coords = {col0, 0}, .smem_address = smem};
    tm_plan p;
    err_info e;
    int rc = tm_plan_copy(&d, &c, &p, &e);
    cr_assert_eq(rc, ERR_OK, "tm_plan_copy: %s: %s", e.rule, e.detail);
    return p;
}

/* ldmatrix.x4 for the A operand of mma.m16n8k16: lane l gives the row address of
 * tile row r0 + l % 16 at column c0 + 8 * (l / 16) (PTX ISA, ldmatrix / mma fragments). */
static bank_instr a_fragment(const tm_plan *p, uint32_t r0, uint32_t c0)
{
    bank_instr in;
    memset(&in, 0, sizeof in);
    in.op = BANK_OP_LDSM_X4;
    for (uint32_t l = 0; l < BANK_LANES; l++) {
        uint32_t idx[TM_MAX_RANK] = {c0 + 8 * (l / 16), r0 + l % 16};
        tm_element el;
        tm_plan_element(p, idx, &el);
        in.addr[l] = el.smem_address;
    }
    return in;
}

Test(view_tile, swizzle_128B_chunks_hold_xor_permuted_columns)
{
    tm_plan p = tile_plan(TM_SWIZZLE_128B, 64, 0, 0);
    view_tile v;
    err_info e;
    cr_assert_eq(view_tile_build_plan(&v, &p, NULL, NULL, NULL, &e), ERR_OK, "%s: %s", e.rule, e.detail);
    cr_assert_eq(v.total_rows, 64);   /* 64 rows x 128 bytes = 8 KB footprint */
    cr_assert_eq(v.nrows, 64);
    for (uint32_t r = 0; r < 64; r++) {
        cr_assert_eq(v.row[r].address, r * 128);
        for (uint32_t k = 0; k < 8; k++) {
            const view_chunk *c = &v.row[r].chunk[k];
            uint32_t group = k ^ (r % 8);
            cr_assert_eq(c->kind, VIEW_CHUNK_DATA);
            cr_assert_eq(c->elements, 8, "16 bytes of f16 are 8 elements");
            cr_assert_eq(c->first[1], r);
            cr_assert_eq(c->last[1], r);
            cr_assert_eq(c->first[0], 8 * group, "row %u chunk %u", r, k);
            cr_assert_eq(c->last[0], 8 * group + 7);
            cr_assert_eq(c->colour, group);
            cr_assert_eq(c->oob_elements, 0);
        }
    }
    char expect[32];
    snprintf(expect, sizeof expect, "r9 c%u-%u", 8 * (2 ^ 1), 8 * (2 ^ 1) + 7);
    cr_assert_str_eq(v.row[9].chunk[2].label, expect);
    cr_assert_eq(v.colour_groups, 8);
    view_tile_free(&v);
}

Test(view_tile, no_swizzle_keeps_columns_in_place)
{
    tm_plan p = tile_plan(TM_SWIZZLE_NONE, 64, 0, 0);
    view_tile v;
    err_info e;
    cr_assert_eq(view_tile_build_plan(&v, &p, NULL, NULL, NULL, &e), ERR_OK);
    for (uint32_t r = 0; r < 64; r += 7)
        for (uint32_t k = 0; k < 8; k++)
            cr_assert_eq(v.row[r].chunk[k].first[0], 8 * k);
    view_tile_free(&v);
}

Test(view_tile, narrow_rows_leave_padding_chunks)
{
    /* 32 f16 = 64 bytes per row under a 128-byte swizzle: each row takes a full 128
     * bytes (reference sheet, measured), four chunks of data and four of padding. */
    tm_plan p = tile_plan(TM_SWIZZLE_128B, 32, 0, 0);
    view_tile v;
    err_info e;
    cr_assert_eq(view_tile_build_plan(&v, &p, NULL, NULL, NULL, &e), ERR_OK);
    cr_assert_eq(v.total_rows, 64);
    for (uint32_t r = 0; r < 64; r++) {
        uint32_t data = 0, pad = 0;
        for (uint32_t k = 0; k < 8; k++) {
            const view_chunk *c = &v.row[r].chunk[k];
            data += c->kind == VIEW_CHUNK_DATA;
            pad += c->kind == VIEW_CHUNK_PADDING;
            if (c->kind == VIEW_CHUNK_DATA)
                cr_assert_eq(c->first[0], 8 * (k ^ (r % 8)));
        }
        cr_assert_eq(data, 4, "row %u", r);
        cr_assert_eq(pad, 4, "row %u", r);
    }
    view_tile_free(&v);
}

Test(view_tile, out_of_bounds_columns_are_marked)
{
    /* Box starting at column -8: its first 8 columns lie outside the tensor. */
    tm_plan p = tile_plan(TM_SWIZZLE_NONE, 64, 0, -8);
    view_tile v;
    err_info e;
    cr_assert_eq(view_tile_build_plan(&v, &p, NULL, NULL, NULL, &e), ERR_OK);
    cr_assert_eq(v.row[3].chunk[0].oob_elements, 8);
    cr_assert_eq(v.row[3].chunk[1].oob_elements, 0);
    view_tile_free(&v);
}

Test(view_tile, a_fragment_on_unswizzled_tile_collides_everywhere)
{
    tm_plan p = tile_plan(TM_SWIZZLE_NONE, 64, 0, 0);
    bank_instr in = a_fragment(&p, 0, 0);
    view_tile v;
    err_info e;
    cr_assert_eq(view_tile_build_plan(&v, &p, &in, NULL, NULL, &e), ERR_OK, "%s: %s", e.rule, e.detail);
    cr_assert_eq(v.result.wavefronts, 32, "4 matrices x 8 rows on the same banks");
    cr_assert_eq(v.result.ideal, 4);
    cr_assert_eq(v.result.conflicts, 28);
    cr_assert_str_eq(v.summary, "32 wavefronts, ideal 4, 28 conflicts");
    uint32_t seen_wavefronts = 0;
    for (uint32_t l = 0; l < 32; l++) {
        const view_lane *ln = &v.lane[l];
        cr_assert(ln->used);
        cr_assert_eq(ln->bytes, 16);
        cr_assert_eq(ln->row, l % 16);
        cr_assert_eq(ln->first_bank, 4 * (l / 16), "lane %u", l);
        cr_assert_eq(ln->banks, 4);
        cr_assert(ln->collides, "lane %u", l);
        cr_assert_lt(ln->wavefront, 32);
        seen_wavefronts |= 1u << ln->wavefront;
    }
    /* 32 distinct rows on 8 banks cannot share a wavefront: each lane has its own. */
    cr_assert_eq(seen_wavefronts, 0xffffffffu);
    view_tile_free(&v);
}

Test(view_tile, a_fragment_on_128B_swizzle_is_clean)
{
    tm_plan p = tile_plan(TM_SWIZZLE_128B, 64, 0, 0);
    bank_instr in = a_fragment(&p, 0, 0);
    view_tile v;
    err_info e;
    cr_assert_eq(view_tile_build_plan(&v, &p, &in, NULL, NULL, &e), ERR_OK);
    cr_assert_eq(v.result.wavefronts, 4);
    cr_assert_eq(v.result.conflicts, 0);
    for (uint32_t l = 0; l < 32; l++) {
        /* row l%16, logical chunk l/16, stored at chunk (l/16) ^ (row % 8) */
        uint32_t chunk = (l / 16) ^ (l % 16 % 8);
        cr_assert_eq(v.lane[l].first_bank, 4 * chunk, "lane %u", l);
        cr_assert_eq(v.lane[l].byte_in_row, 16 * chunk);
        cr_assert(!v.lane[l].collides);
        /* matrix i = lanes 8i..8i+7 is one conflict-free wavefront of its own */
        for (uint32_t k = 0; k < 32; k++)
            if (k / 8 == l / 8)
                cr_assert_eq(v.lane[k].wavefront, v.lane[l].wavefront);
            else
                cr_assert_neq(v.lane[k].wavefront, v.lane[l].wavefront);
    }
    view_tile_free(&v);
}

Test(view_tile, window_follows_the_highlighted_lanes)
{
    tm_plan p = tile_plan(TM_SWIZZLE_128B, 64, 0, 0);
    bank_instr in = a_fragment(&p, 32, 16);
    view_tile_opts o = {.max_rows = 16};
    view_tile v;
    err_info e;
    cr_assert_eq(view_tile_build_plan(&v, &p, &in, NULL, &o, &e), ERR_OK);
    cr_assert_eq(v.first_row, 32);
    cr_assert_eq(v.nrows, 16);
    cr_assert_eq(v.lanes_off_picture, 0);
    cr_assert_eq(v.lane[5].row, 5);
    view_tile_free(&v);
}

Test(view_tile, bare_lds32_stride_128_is_32_way)
{
    bank_instr in;
    memset(&in, 0, sizeof in);
    in.op = BANK_OP_LDS32;
    for (uint32_t l = 0; l < 32; l++)
        in.addr[l] = 256 * l;   /* every lane on bank 0, every word distinct */
    view_tile v;
    err_info e;
    cr_assert_eq(view_tile_build_instr(&v, &in, NULL, NULL, &e), ERR_OK, "%s: %s", e.rule, e.detail);
    cr_assert_eq(v.total_rows, 32);
    cr_assert_eq(v.result.wavefronts, 32);
    cr_assert_eq(v.result.conflicts, 31);
    uint32_t seen = 0;
    for (uint32_t l = 0; l < 32; l++) {
        cr_assert_eq(v.row[l].address, 256 * l);
        cr_assert_eq(v.row[l].gap_before, l > 0, "rows 256 bytes apart leave gaps");
        cr_assert_eq(v.lane[l].row, l);
        cr_assert_eq(v.lane[l].first_bank, 0);
        cr_assert(v.lane[l].collides);
        seen |= 1u << v.lane[l].wavefront;
    }
    cr_assert_eq(seen, 0xffffffffu);
    view_tile_free(&v);
}

Test(view_tile, broadcast_and_phases_do_not_collide)
{
    bank_instr in;
    memset(&in, 0, sizeof in);
    in.op = BANK_OP_LDS32;
    for (uint32_t l = 0; l < 32; l++)
        in.addr[l] = 64;   /* one word: a broadcast */
    view_tile v;
    err_info e;
    cr_assert_eq(view_tile_build_instr(&v, &in, NULL, NULL, &e), ERR_OK);
    cr_assert_eq(v.total_rows, 1);
    cr_assert_eq(v.result.wavefronts, 1);
    for (uint32_t l = 0; l < 32; l++) {
        cr_assert_eq(v.lane[l].first_bank, 16);
        cr_assert(!v.lane[l].collides);
    }
    view_tile_free(&v);

    /* lds128 over 512 contiguous bytes: lanes 0 and 8 share banks but sit in
     * different quarter-warp phases, so nothing collides; 4 wavefronts. */
    in.op = BANK_OP_LDS128;
    for (uint32_t l = 0; l < 32; l++)
        in.addr[l] = 16 * l;
    cr_assert_eq(view_tile_build_instr(&v, &in, NULL, NULL, &e), ERR_OK);
    cr_assert_eq(v.total_rows, 4);
    cr_assert_eq(v.result.wavefronts, 4);
    for (uint32_t l = 0; l < 32; l++) {
        cr_assert_eq(v.lane[l].banks, 4);
        cr_assert_eq(v.lane[l].first_bank, (4 * l) % 32);
        cr_assert(!v.lane[l].collides, "lane %u", l);
    }
    view_tile_free(&v);
}

Test(view_tile, matrix_ops_use_only_their_address_lanes)
{
    bank_instr in;
    memset(&in, 0, sizeof in);
    in.op = BANK_OP_LDSM_X1;
    for (uint32_t l = 0; l < 32; l++)
        in.addr[l] = 16 * l;
    view_tile v;
    err_info e;
    cr_assert_eq(view_tile_build_instr(&v, &in, NULL, NULL, &e), ERR_OK);
    for (uint32_t l = 0; l < 32; l++)
        cr_assert_eq(v.lane[l].used, l < 8, "ldmatrix.x1 reads addresses from lanes 0-7 only");
    cr_assert_eq(v.total_rows, 1);
    view_tile_free(&v);
}

Test(view_tile, bad_window_is_bad_input)
{
    tm_plan p = tile_plan(TM_SWIZZLE_128B, 64, 0, 0);
    view_tile_opts o = {.first_row = 64};
    view_tile v;
    err_info e;
    cr_assert_eq(view_tile_build_plan(&v, &p, NULL, NULL, &o, &e), ERR_BAD_INPUT);
    cr_assert_str_eq(e.rule, "first_row");
}
