/* wgmma descriptor model: hand-derived addresses, the cross-check against TMA tiles,
 * the flags, and the committed hardware recording (traces/h200/wgmma) replayed at
 * 100% agreement. */
#include <criterion/criterion.h>
#include <string.h>

#include "wgmma.h"
#include "wgmma_flags.h"
#include "wgmma_rec.h"

#define RECORDING "traces/h200/wgmma/wgmma.txt"

static wg_shape shape(wg_dtype t, wg_operand op, wg_major m, uint32_t n)
{
    wg_shape s = {.dtype = t, .operand = op, .major = m, .n = n};
    return s;
}

Test(wgmma, encode_decode_fields)
{
    wg_desc d = {.start = 0x4400, .lbo = 16, .sbo = 1024, .base_offset = 0, .swizzle = WG_SWZ_128B};
    /* start 0x4400 >> 4 = 0x440, LBO 1 at bit 16, SBO 64 at bit 32, mode 1 at bit 62 */
    cr_assert_eq(wg_desc_encode(&d), 0x4000004000010440ull);
    wg_desc back;
    wg_desc_decode(0x4006004000010440ull, &back); /* base offset 3 in bits 49-51 */
    cr_assert_eq(back.start, 0x4400u);
    cr_assert_eq(back.lbo, 16u);
    cr_assert_eq(back.sbo, 1024u);
    cr_assert_eq(back.base_offset, 3u);
    cr_assert_eq(back.swizzle, WG_SWZ_128B);
}

Test(wgmma, k_major_no_swizzle)
{
    wg_shape s = shape(WG_F16, WG_A, WG_K_MAJOR, 0);
    wg_desc d = {.start = 0x1000, .lbo = 256, .sbo = 128};
    /* (9,10): row group 1 (SBO 128) + row 1 in the core matrix (16) + k byte 20: chunk 1
     * (LBO 256) + 4 */
    cr_assert_eq(wg_element_address(&s, &d, 9, 10), 0x1000u + 128 + 16 + 256 + 4);
    cr_assert_eq(wg_element_address(&s, &d, 0, 0), 0x1000u);
}

Test(wgmma, k_major_128B_and_base_offset)
{
    wg_shape s = shape(WG_F16, WG_A, WG_K_MAJOR, 0);
    wg_desc d = {.start = 0x4400, .lbo = 16, .sbo = 1024, .swizzle = WG_SWZ_128B};
    /* (3,9): pre-swizzle 0x4400 + 3*128 + 18 = 0x4592; row bits 7-9 = 3, chunk 1 -> 1^3 = 2 */
    cr_assert_eq(wg_element_address(&s, &d, 3, 9), 0x45a2u);
    d.base_offset = 1; /* row bits less the base offset: 2, chunk 1^2 = 3 */
    cr_assert_eq(wg_element_address(&s, &d, 3, 9), 0x45b2u);
    d.base_offset = 0;
    d.lbo = 4096; /* not used by swizzled K-major layouts */
    cr_assert_eq(wg_element_address(&s, &d, 3, 9), 0x45a2u);
}

Test(wgmma, mn_major_64B)
{
    wg_shape s = shape(WG_F16, WG_B, WG_MN_MAJOR, 64);
    wg_desc d = {.start = 0x2000, .lbo = 2048, .sbo = 512, .swizzle = WG_SWZ_64B};
    /* (40,10): row byte 80 -> atom 1 (LBO 2048) + 16; k 10 -> group 1 (SBO 512) + 2*64:
     * 0x2a90, row bits (0x2a90>>7)&3 = 1, chunk bits 1 -> 0: 0x2a80 */
    cr_assert_eq(wg_element_address(&s, &d, 40, 10), 0x2a80u);
    cr_assert_eq(wg_element_address(&s, &d, 40, 9), 0x2a50u);
}

Test(wgmma, tf32_32B)
{
    wg_shape s = shape(WG_TF32, WG_A, WG_K_MAJOR, 0);
    wg_desc d = {.start = 0x800, .sbo = 256, .swizzle = WG_SWZ_32B};
    cr_assert_eq(wg_k(WG_TF32), 8u);
    cr_assert_eq(wg_element_address(&s, &d, 1, 5), 0x834u);  /* row bit 7 = 0 */
    cr_assert_eq(wg_element_address(&s, &d, 4, 5), 0x884u);  /* 0x894, bit 7 set flips bit 4 */
}

Test(wgmma, shape_and_desc_checks)
{
    err_info e = {0};
    wg_shape s = shape(WG_TF32, WG_A, WG_MN_MAJOR, 0);
    cr_assert_eq(wg_shape_check(&s, &e), ERR_BAD_INPUT);
    cr_assert_str_eq(e.rule, "major");
    s = shape(WG_S8, WG_B, WG_K_MAJOR, 40);
    cr_assert_eq(wg_shape_check(&s, &e), ERR_BAD_INPUT);
    cr_assert_str_eq(e.rule, "n");
    s.n = 48;
    cr_assert_eq(wg_shape_check(&s, &e), ERR_OK);
    wg_desc d = {.start = 0x408};
    cr_assert_eq(wg_desc_check(&d, &e), ERR_BAD_INPUT);
    cr_assert_str_eq(e.rule, "start");
}

static void tile_from(const char *flags, wg_dtype t, wg_operand op, wg_tile *tile, wg_desc *d, int *has)
{
    wg_flags f;
    err_info e = {0};
    wg_flags_init(&f);
    cr_assert_eq(wg_flags_apply(&f, op == WG_A ? "--atype" : "--btype", wg_dtype_name(t), &e), ERR_OK);
    cr_assert_eq(wg_flags_apply_string(&f, flags, &e), ERR_OK, "%s: %s", e.rule, e.detail);
    cr_assert_eq(wg_flags_finish(&f, d, has, tile, &e), ERR_OK, "%s: %s", e.rule, e.detail);
}

Test(wgmma, cross_check_misaligned_128B_tile)
{
    /* 64x64 f16, 128B swizzle, written at 0x4480 (128 past a 1024 boundary); k-block 1
     * starts 32 bytes into row 0. Right: start 0x44a0, SBO 1024, base offset 0. */
    wg_tile t;
    wg_desc d;
    int has;
    tile_from("--dtype f16 --dims 64,64 --box 64,64 --swizzle 128B --smem-address 0x4480 --k-block 1 "
              "--desc 0x400000400001044a", WG_F16, WG_A, &t, &d, &has);
    cr_assert(has);
    wg_shape s = shape(WG_F16, WG_A, WG_K_MAJOR, 0);
    wg_check c;
    cr_assert_eq(wg_check_tile(&t, &s, &d, NULL, &c, NULL), ERR_OK);
    cr_assert_eq(c.mismatches, 0u);
    cr_assert(c.has_fix);
    cr_assert_eq(c.fix.start, 0x44a0u);
    cr_assert_eq(c.fix.sbo, 1024u);
    cr_assert_eq(c.fix.base_offset, 0u);
    cr_assert_eq(c.fix.swizzle, WG_SWZ_128B);
    /* the same with LBO and SBO swapped: every element wrong, the fix named */
    wg_desc w = d;
    w.lbo = d.sbo, w.sbo = d.lbo;
    cr_assert_eq(wg_check_tile(&t, &s, &w, NULL, &c, NULL), ERR_FINDING);
    cr_assert_gt(c.mismatches, 0u);
    cr_assert_eq(c.fix.start, 0x44a0u);
    cr_assert_eq(c.fix.sbo, 1024u);
    /* the tensor map's 128B code (3) used as the descriptor's: 32B */
    w = d;
    w.swizzle = WG_SWZ_32B;
    cr_assert_eq(wg_check_tile(&t, &s, &w, NULL, &c, NULL), ERR_FINDING);
}

Test(wgmma, cross_check_no_swizzle_3d_tile)
{
    /* core-matrix tile: (8 k, 64 rows, 4 k-chunks) f16: rows 16 B apart (SBO 128), the
     * next 16 bytes of k 64*16 = 1024 bytes on (LBO 1024); k-block 1 starts 2 chunks on */
    wg_tile t;
    wg_desc d;
    int has;
    tile_from("--dtype f16 --dims 8,64,4 --box 8,64,4 --smem-address 0x4400 --roles k,row,k --k-block 1", WG_F16,
              WG_A, &t, &d, &has);
    cr_assert(!has);
    wg_shape s = shape(WG_F16, WG_A, WG_K_MAJOR, 0);
    char why[200];
    cr_assert_eq(wg_find_desc(&t, &s, &d, why, sizeof why), ERR_OK, "%s", why);
    cr_assert_eq(d.start, 0x4400u + 2048);
    cr_assert_eq(d.lbo, 1024u);
    cr_assert_eq(d.sbo, 128u);
    cr_assert_eq(d.swizzle, WG_SWZ_NONE);
}

Test(wgmma, cross_check_no_descriptor)
{
    /* a plain 2-D K-major tile with 128-byte rows and no swizzle: core matrices need
     * their 8 rows 16 bytes apart, no descriptor reads it */
    wg_tile t;
    wg_desc d;
    int has;
    tile_from("--dtype f16 --dims 64,64 --box 64,64 --smem-address 0x4400", WG_F16, WG_A, &t, &d, &has);
    wg_shape s = shape(WG_F16, WG_A, WG_K_MAJOR, 0);
    char why[200];
    cr_assert_eq(wg_find_desc(&t, &s, &d, why, sizeof why), ERR_FINDING);
    cr_assert(strstr(why, "128 bytes apart"), "%s", why);
    /* k-block 4 of a 64-wide tile does not exist */
    tile_from("--dtype f16 --dims 64,64 --box 64,64 --swizzle 128B --k-block 4", WG_F16, WG_A, &t, &d, &has);
    cr_assert_eq(wg_find_desc(&t, &s, &d, why, sizeof why), ERR_FINDING);
    cr_assert(strstr(why, "box holds"), "%s", why);
}

Test(wgmma, flags_errors_name_the_flag)
{
    wg_flags f;
    err_info e = {0};
    wg_flags_init(&f);
    cr_assert_eq(wg_flags_apply(&f, "--atype", "f64", &e), ERR_BAD_INPUT);
    cr_assert_str_eq(e.rule, "--atype");
    cr_assert_eq(wg_flags_apply(&f, "--leading-byte-offset", "24", &e), ERR_BAD_INPUT);
    cr_assert_str_eq(e.rule, "--leading-byte-offset");
    cr_assert_eq(wg_flags_apply(&f, "--swizzle-mode", "16B", &e), ERR_BAD_INPUT);
    cr_assert_str_eq(e.rule, "--swizzle-mode");
    cr_assert_eq(wg_flags_apply(&f, "--roles", "k,col", &e), ERR_BAD_INPUT);
    cr_assert_str_eq(e.rule, "--roles");
    cr_assert_eq(wg_flags_apply(&f, "--frobnicate", "1", &e), TM_FLAGS_NOT_MINE);
}

Test(wgmma, runs_parse)
{
    uint32_t a[6];
    err_info e = {0};
    cr_assert_eq(wg_runs_parse(" 4400+2*3 x*2 4c00", a, 6, &e), ERR_OK, "%s", e.detail);
    cr_assert_eq(a[0], 0x4400u);
    cr_assert_eq(a[2], 0x4404u);
    cr_assert_eq(a[3], WG_NOWHERE);
    cr_assert_eq(a[5], 0x4c00u);
    cr_assert_eq(wg_runs_parse(" 4400+2*3", a, 6, &e), ERR_BAD_INPUT);
}

/* The hardware recording: every element address, every tile verdict, every proposed
 * descriptor confirmed by the recorded correct one. */
Test(wgmma, recording_agrees, .timeout = 120)
{
    static wg_replay_report r;
    err_info e = {0};
    int rc = wg_replay_file(RECORDING, &r, &e);
    for (uint32_t i = 0; i < r.n_details; i++)
        cr_log_error("%s", r.details[i]);
    cr_assert_eq(rc, ERR_OK, "%s: %s", e.rule, e.detail);
    cr_assert_geq(r.cases, 400u);
    cr_assert_eq(r.addr_agree, r.cases);
    cr_assert_gt(r.tile_cases, 0u);
    cr_assert_eq(r.verdict_agree, r.tile_cases);
    cr_assert_gt(r.fix_cases, 0u);
    cr_assert_eq(r.fix_confirmed, r.fix_cases);
    cr_assert_eq(r.ok_hw_agree, r.ok_cases);
}
