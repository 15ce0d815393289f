/* Bank model: known answers from the CUDA programming guide / PTX ISA and hand
 * derivation (32 banks x 4 bytes; bank = (address / 4) % 32; same word broadcast;
 * 64-bit half-warp and 128-bit quarter-warp phases; one wavefront per conflict-free
 * 8x8 matrix of ldmatrix), properties, input checks and the pattern-file parser. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "bank.h"

static bank_result analyse_ok(bank_op op, const uint32_t addr[32])
{
    bank_instr in = {.op = op};
    memcpy(in.addr, addr, sizeof in.addr);
    bank_result r;
    err_info e = {0};
    int rc = bank_analyse(&in, &r, &e);
    cr_assert_eq(rc, ERR_OK, "bank_analyse failed: %s: %s", e.rule, e.detail);
    return r;
}

static bank_result strided(bank_op op, uint32_t base, uint32_t stride)
{
    uint32_t a[32];
    for (uint32_t l = 0; l < 32; l++)
        a[l] = base + l * stride;
    return analyse_ok(op, a);
}

/* ---- 32-bit ------------------------------------------------------------------------ */

Test(bank32, consecutive_words_are_one_wavefront)
{
    bank_result r = strided(BANK_OP_LDS32, 0, 4);
    cr_assert_eq(r.wavefronts, 1);
    cr_assert_eq(r.ideal, 1);
    cr_assert_eq(r.conflicts, 0);
    cr_assert_eq(r.colliding_lanes, 0);
}

Test(bank32, stride_two_words_is_two_way)
{
    /* Lanes l and l+16 both land in bank (2l) % 32 with different words. */
    bank_result r = strided(BANK_OP_LDS32, 0, 8);
    cr_assert_eq(r.wavefronts, 2);
    cr_assert_eq(r.conflicts, 1);
    cr_assert_eq(r.colliding_lanes, 0xffffffffu);
    cr_assert_eq(r.worst_bank_words, 2);
    cr_assert_eq(r.nwavefronts, 2);
    cr_assert_eq(r.wf[0].lanes, 0x0000ffffu);
    cr_assert_eq(r.wf[1].lanes, 0xffff0000u);
}

Test(bank32, stride_n_words_is_gcd_way)
{
    /* Stride s words: 32/gcd(s,32) distinct banks, each asked for gcd(s,32) distinct words. */
    static const uint32_t expect[] = {[1] = 1, [2] = 2, [3] = 1, [4] = 4, [5] = 1, [6] = 2, [8] = 8,
                                      [16] = 16, [17] = 1, [32] = 32, [33] = 1, [64] = 32};
    for (uint32_t s = 1; s < sizeof expect / sizeof expect[0]; s++) {
        if (!expect[s])
            continue;
        bank_result r = strided(BANK_OP_LDS32, 0, 4 * s);
        cr_assert_eq(r.wavefronts, expect[s], "stride %u words: %u wavefronts, want %u", s, r.wavefronts,
                     expect[s]);
    }
}

Test(bank32, same_word_is_broadcast)
{
    bank_result r = strided(BANK_OP_LDS32, 256, 0);
    cr_assert_eq(r.wavefronts, 1);
    cr_assert_eq(r.conflicts, 0);
    cr_assert_eq(r.colliding_lanes, 0);
}

Test(bank32, one_bank_distinct_words_is_32_way)
{
    bank_result r = strided(BANK_OP_STS32, 0, 128);
    cr_assert_eq(r.wavefronts, 32);
    cr_assert_eq(r.conflicts, 31);
    cr_assert_eq(r.worst_bank, 0);
    cr_assert_eq(r.worst_bank_words, 32);
    cr_assert_eq(r.colliding_banks, 1u);
    for (uint32_t k = 0; k < 32; k++)
        cr_assert_eq(r.wf[k].lanes, 1u << k);
}

Test(bank32, broadcast_does_not_hide_a_second_word)
{
    /* 30 lanes read word 0, lanes 30 and 31 read words 32 and 64 (bank 0 too). */
    uint32_t a[32] = {0};
    a[30] = 128;
    a[31] = 256;
    bank_result r = analyse_ok(BANK_OP_LDS32, a);
    cr_assert_eq(r.wavefronts, 3);
    cr_assert_eq(r.conflicts, 2);
}

Test(bank32, lane_pairs_on_one_word_are_one_wavefront)
{
    uint32_t a[32];
    for (uint32_t l = 0; l < 32; l++)
        a[l] = (l / 2) * 4;
    bank_result r = analyse_ok(BANK_OP_LDS32, a);
    cr_assert_eq(r.wavefronts, 1);
}

/* ---- 64 / 128-bit ------------------------------------------------------------------- */

Test(bank64, consecutive_is_two_half_warps)
{
    bank_result r = strided(BANK_OP_LDS64, 0, 8);
    cr_assert_eq(r.wavefronts, 2);
    cr_assert_eq(r.ideal, 2);
    cr_assert_eq(r.conflicts, 0);
    cr_assert_eq(r.wf[0].lanes, 0x0000ffffu);
    cr_assert_eq(r.wf[1].lanes, 0xffff0000u);
}

Test(bank64, stride_16_bytes_is_two_way_per_half)
{
    /* Half-warp spans 256 bytes: each bank holds two distinct words. */
    bank_result r = strided(BANK_OP_LDS64, 0, 16);
    cr_assert_eq(r.wavefronts, 4);
    cr_assert_eq(r.conflicts, 2);
}

Test(bank128, consecutive_is_four_quarter_warps)
{
    bank_result r = strided(BANK_OP_LDS128, 0, 16);
    cr_assert_eq(r.wavefronts, 4);
    cr_assert_eq(r.ideal, 4);
    cr_assert_eq(r.conflicts, 0);
    for (uint32_t q = 0; q < 4; q++)
        cr_assert_eq(r.wf[q].lanes, 0xffu << (8 * q));
}

Test(bank128, stride_32_bytes_is_two_way)
{
    bank_result r = strided(BANK_OP_STS128, 0, 32);
    cr_assert_eq(r.wavefronts, 8);
    cr_assert_eq(r.conflicts, 4);
}

Test(bank128, column_of_128_byte_rows_is_eight_way)
{
    /* Lane l reads 16 bytes at row l of a 128-byte-pitch array: all hit banks 0-3. */
    bank_result r = strided(BANK_OP_LDS128, 0, 128);
    cr_assert_eq(r.wavefronts, 32);
    cr_assert_eq(r.conflicts, 28);
    cr_assert_eq(r.colliding_banks, 0xfu);
}

/* ---- ldmatrix / stmatrix ------------------------------------------------------------ */

/* ldmatrix.x4 of a 64-column f16 tile (128-byte rows), matrix i = 16-byte chunk i of
 * rows 0..7. Lane 8i+r gives the address of row r of matrix i. */
static void ldsm_rows(uint32_t a[32], int swizzle128)
{
    for (uint32_t i = 0; i < 4; i++)
        for (uint32_t r = 0; r < 8; r++) {
            uint32_t chunk = swizzle128 ? (i ^ r) : i;
            a[8 * i + r] = r * 128 + chunk * 16;
        }
}

Test(ldsm, x4_on_128B_swizzled_tile_is_conflict_free)
{
    uint32_t a[32];
    ldsm_rows(a, 1);
    bank_result r = analyse_ok(BANK_OP_LDSM_X4, a);
    cr_assert_eq(r.wavefronts, 4);
    cr_assert_eq(r.ideal, 4);
    cr_assert_eq(r.conflicts, 0);
}

Test(ldsm, x4_on_unswizzled_128_byte_rows_is_eight_way_per_matrix)
{
    uint32_t a[32];
    ldsm_rows(a, 0);
    bank_result r = analyse_ok(BANK_OP_LDSM_X4, a);
    cr_assert_eq(r.wavefronts, 32);
    cr_assert_eq(r.conflicts, 28);
    cr_assert_eq(r.worst_bank_words, 8);
}

Test(ldsm, padded_rows_are_conflict_free)
{
    /* 144-byte pitch (64 f16 + 8 f16 padding): eight rows step through 8 chunks. */
    uint32_t a[32];
    for (uint32_t i = 0; i < 4; i++)
        for (uint32_t r = 0; r < 8; r++)
            a[8 * i + r] = r * 144 + i * 16;
    bank_result res = analyse_ok(BANK_OP_STSM_X4, a);
    cr_assert_eq(res.wavefronts, 4);
    cr_assert_eq(res.conflicts, 0);
}

Test(ldsm, x1_and_x2_ignore_unused_lanes)
{
    uint32_t a[32];
    ldsm_rows(a, 1);
    for (uint32_t l = 8; l < 32; l++)
        a[l] = 0xdeadbeefu; /* unaligned and out of the window: ignored for x1 */
    bank_result r = analyse_ok(BANK_OP_LDSM_X1, a);
    cr_assert_eq(r.wavefronts, 1);
    cr_assert_eq(r.ideal, 1);
    ldsm_rows(a, 0);
    for (uint32_t l = 16; l < 32; l++)
        a[l] = 3;
    r = analyse_ok(BANK_OP_LDSM_X2, a);
    cr_assert_eq(r.wavefronts, 16);
    cr_assert_eq(r.ideal, 2);
    cr_assert_eq(r.conflicts, 14);
}

Test(ldsm, trans_does_not_change_addressing)
{
    uint32_t a[32];
    for (int sw = 0; sw < 2; sw++) {
        ldsm_rows(a, sw);
        bank_instr in = {.op = BANK_OP_LDSM_X4};
        memcpy(in.addr, a, sizeof a);
        bank_result plain, trans;
        cr_assert_eq(bank_analyse(&in, &plain, NULL), ERR_OK);
        in.trans = 1;
        cr_assert_eq(bank_analyse(&in, &trans, NULL), ERR_OK);
        cr_assert_eq(plain.wavefronts, trans.wavefronts);
    }
}

/* ---- properties --------------------------------------------------------------------- */

static uint32_t rng_state = 12345;
static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

Test(properties, distinct_addresses_never_beat_ideal)
{
    static const bank_op ops[] = {BANK_OP_LDS32, BANK_OP_LDS64, BANK_OP_LDS128, BANK_OP_LDSM_X4};
    for (int t = 0; t < 2000; t++) {
        bank_op op = ops[t % 4];
        uint32_t w = bank_op_access_bytes(op);
        uint32_t a[32];
        /* distinct slots of a 16 KB region */
        for (uint32_t l = 0; l < 32; l++) {
            int again;
            do {
                a[l] = (rnd() % (16384 / w)) * w;
                again = 0;
                for (uint32_t k = 0; k < l; k++)
                    again |= a[k] == a[l];
            } while (again);
        }
        bank_result r = analyse_ok(op, a);
        cr_assert_geq(r.wavefronts, r.ideal, "%s: %u < ideal %u", bank_op_name(op), r.wavefronts, r.ideal);
        cr_assert_eq(r.conflicts, r.wavefronts - r.ideal);
        cr_assert_leq(r.wavefronts, 32);
    }
}

Test(properties, permuting_lanes_within_a_phase_keeps_counts)
{
    static const bank_op ops[] = {BANK_OP_LDS32, BANK_OP_LDS64, BANK_OP_LDS128, BANK_OP_LDSM_X4};
    static const uint32_t phase_lanes[] = {32, 16, 8, 8};
    for (int t = 0; t < 1000; t++) {
        int k = t % 4;
        uint32_t w = bank_op_access_bytes(ops[k]);
        uint32_t a[32], b[32];
        for (uint32_t l = 0; l < 32; l++)
            a[l] = (rnd() % (4096 / w)) * w;
        memcpy(b, a, sizeof a);
        uint32_t n = phase_lanes[k];
        for (uint32_t p = 0; p < 32; p += n)
            for (uint32_t i = n - 1; i > 0; i--) {
                uint32_t j = rnd() % (i + 1);
                uint32_t tmp = b[p + i];
                b[p + i] = b[p + j];
                b[p + j] = tmp;
            }
        bank_result ra = analyse_ok(ops[k], a), rb = analyse_ok(ops[k], b);
        cr_assert_eq(ra.wavefronts, rb.wavefronts);
        cr_assert_eq(ra.colliding_banks, rb.colliding_banks);
    }
}

Test(properties, shifting_by_128_bytes_keeps_counts)
{
    /* Banks repeat every 128 bytes: moving every address by 128*k changes nothing. */
    for (int t = 0; t < 500; t++) {
        uint32_t a[32], b[32];
        uint32_t shift = 128 * (rnd() % 64);
        for (uint32_t l = 0; l < 32; l++) {
            a[l] = (rnd() % 1024) * 4;
            b[l] = a[l] + shift;
        }
        cr_assert_eq(analyse_ok(BANK_OP_LDS32, a).wavefronts, analyse_ok(BANK_OP_LDS32, b).wavefronts);
    }
}

Test(properties, wavefront_lane_sets_cover_every_lane)
{
    for (int t = 0; t < 500; t++) {
        uint32_t a[32];
        for (uint32_t l = 0; l < 32; l++)
            a[l] = (rnd() % 512) * 8;
        bank_result r = analyse_ok(BANK_OP_LDS64, a);
        uint32_t all = 0;
        cr_assert_eq(r.nwavefronts, r.wavefronts);
        for (uint32_t k = 0; k < r.nwavefronts; k++) {
            cr_assert_neq(r.wf[k].lanes, 0);
            all |= r.wf[k].lanes;
        }
        cr_assert_eq(all, 0xffffffffu);
    }
}

Test(properties, inactive_lanes_do_not_count)
{
    bank_instr in = {.op = BANK_OP_LDS32, .active_mask = 0x1u};
    for (uint32_t l = 0; l < 32; l++)
        in.addr[l] = l * 128;
    bank_result r;
    cr_assert_eq(bank_analyse(&in, &r, NULL), ERR_OK);
    cr_assert_eq(r.wavefronts, 1);
}

/* ---- input checks ------------------------------------------------------------------- */

Test(checks, misaligned_address_names_lane_and_value)
{
    bank_instr in = {.op = BANK_OP_LDS64};
    for (uint32_t l = 0; l < 32; l++)
        in.addr[l] = l * 8;
    in.addr[5] = 44;
    bank_result r;
    err_info e = {0};
    cr_assert_eq(bank_analyse(&in, &r, &e), ERR_BAD_INPUT);
    cr_assert_str_eq(e.rule, "address_alignment");
    cr_assert(strstr(e.detail, "lane 5") && strstr(e.detail, "44"), "%s", e.detail);
}

Test(checks, matrix_rows_need_16_bytes)
{
    bank_instr in = {.op = BANK_OP_LDSM_X4};
    for (uint32_t l = 0; l < 32; l++)
        in.addr[l] = l * 16;
    in.addr[17] = 8;
    err_info e = {0};
    bank_result r;
    cr_assert_eq(bank_analyse(&in, &r, &e), ERR_BAD_INPUT);
    cr_assert_str_eq(e.rule, "matrix_row_alignment");
    cr_assert(strstr(e.detail, "lane 17"), "%s", e.detail);
}

Test(checks, shared_window_is_228_KB)
{
    bank_instr in = {.op = BANK_OP_LDS32};
    in.addr[3] = 228 * 1024 - 4; /* last word: fine */
    bank_result r;
    err_info e = {0};
    cr_assert_eq(bank_analyse(&in, &r, &e), ERR_OK);
    in.addr[3] = 228 * 1024;
    cr_assert_eq(bank_analyse(&in, &r, &e), ERR_BAD_INPUT);
    cr_assert_str_eq(e.rule, "address_beyond_shared_window");
    cr_assert(strstr(e.detail, "lane 3"), "%s", e.detail);
    in.op = BANK_OP_LDS128;
    in.addr[3] = 228 * 1024 - 16;
    cr_assert_eq(bank_analyse(&in, &r, &e), ERR_OK);
    in.addr[3] = 228 * 1024 - 8;
    cr_assert_eq(bank_analyse(&in, &r, &e), ERR_BAD_INPUT);
}

/* ---- op names ----------------------------------------------------------------------- */

Test(ops, names_round_trip)
{
    for (int i = 0; i < BANK_OP_COUNT; i++) {
        bank_op op;
        int trans = -1;
        cr_assert_eq(bank_op_parse(bank_op_name((bank_op)i), &op, &trans, NULL), ERR_OK);
        cr_assert_eq(op, (bank_op)i);
        cr_assert_eq(trans, 0);
    }
}

Test(ops, properties_and_trans)
{
    bank_op op;
    int trans = 0;
    cr_assert_eq(bank_op_parse("ldsm.x2.trans", &op, &trans, NULL), ERR_OK);
    cr_assert_eq(op, BANK_OP_LDSM_X2);
    cr_assert_eq(trans, 1);
    cr_assert_eq(bank_op_matrices(op), 2);
    cr_assert_eq(bank_op_is_store(op), 0);
    cr_assert_eq(bank_op_parse("stsm.x4.trans", &op, &trans, NULL), ERR_OK);
    cr_assert(bank_op_is_store(op));
    cr_assert_eq(bank_op_access_bytes(BANK_OP_LDS64), 8);
    cr_assert_eq(bank_op_ideal(BANK_OP_STS128), 4);
    err_info e = {0};
    cr_assert_eq(bank_op_parse("lds32.trans", &op, &trans, &e), ERR_BAD_INPUT);
    cr_assert_eq(bank_op_parse("lds16", &op, &trans, &e), ERR_BAD_INPUT);
    cr_assert(strstr(e.detail, "lds16") && strstr(e.detail, "ldsm.x4"), "%s", e.detail);
}

/* ---- pattern files ------------------------------------------------------------------ */

Test(pattern, parses_comments_hex_and_short_matrix_lines)
{
    const char *text = "# header\n"
                       "\n"
                       "lds32 0 4 8 12 16 20 24 28 32 36 40 44 48 52 56 60 64 68 72 76 80 84 88 92 96 100 "
                       "104 108 112 0x70 0x74 0x78 # trailing\n"
                       "   ldsm.x1.trans 0x0 0x80 0x100 0x180 0x200 0x280 0x300 0x380\n";
    bank_pattern p;
    err_info e = {0};
    cr_assert_eq(bank_pattern_parse(text, "t.pat", &p, &e), ERR_OK, "%s", e.detail);
    cr_assert_eq(p.count, 2);
    cr_assert_eq(p.lines[0], 3);
    cr_assert_eq(p.lines[1], 4);
    cr_assert_eq(p.instrs[0].op, BANK_OP_LDS32);
    cr_assert_eq(p.instrs[0].addr[29], 0x70);
    cr_assert_eq(p.instrs[0].addr[31], 0x78);
    cr_assert_eq(p.instrs[1].op, BANK_OP_LDSM_X1);
    cr_assert_eq(p.instrs[1].trans, 1);
    cr_assert_eq(p.instrs[1].addr[7], 0x380);
    bank_result r;
    cr_assert_eq(bank_analyse(&p.instrs[1], &r, NULL), ERR_OK);
    cr_assert_eq(r.wavefronts, 8);
    bank_pattern_free(&p);
}

static void expect_pattern_error(const char *text, const char *rule, const char *where)
{
    bank_pattern p;
    err_info e = {0};
    cr_assert_eq(bank_pattern_parse(text, "bad.pat", &p, &e), ERR_BAD_INPUT, "accepted: %s", text);
    cr_assert_str_eq(e.rule, rule);
    cr_assert(strstr(e.detail, where), "detail '%s' lacks '%s'", e.detail, where);
    cr_assert_eq(p.count, 0);
    cr_assert_null(p.instrs);
}

Test(pattern, errors_name_line_and_field)
{
    expect_pattern_error("\n\nlds33 0\n", "pattern_op", "bad.pat:3: field op");
    expect_pattern_error("lds32 0 4 8\n", "pattern_address_count", "bad.pat:1:");
    expect_pattern_error("# c\nlds32 0 4 8 12 16 20 24 28 32 36 40 44 48 52 56 60 64 68 72 76 80 84 88 92 96 100 "
                         "104 108 112 116 zz 124\n",
                         "pattern_address", "bad.pat:2: field a30");
    expect_pattern_error("ldsm.x2 0 16 32 48 64 80 96 112\n", "pattern_address_count", "bad.pat:1:");
    expect_pattern_error("lds32 -4 4 8 12 16 20 24 28 32 36 40 44 48 52 56 60 64 68 72 76 80 84 88 92 96 100 "
                         "104 108 112 116 120 124\n",
                         "pattern_address", "field a0");
    expect_pattern_error("lds32 0x100000000 4 8 12 16 20 24 28 32 36 40 44 48 52 56 60 64 68 72 76 80 84 88 92 "
                         "96 100 104 108 112 116 120 124\n",
                         "pattern_address", "field a0");
    expect_pattern_error("# nothing\n\n", "pattern_empty", "bad.pat");
}

Test(pattern, load_missing_file_is_bad_input)
{
    bank_pattern p;
    err_info e = {0};
    cr_assert_eq(bank_pattern_load("/nonexistent/x.pat", &p, &e), ERR_BAD_INPUT);
    cr_assert(strstr(e.detail, "/nonexistent/x.pat"));
}

/* ---- recorded H100 results (traces/h100/validation/bank.jsonl) -------------------- */

static bank_result pairs(bank_op op, uint32_t stride, uint32_t partner)
{
    uint32_t a[32];
    for (uint32_t l = 0; l < 32; l++)
        a[l] = (partner == 1 ? l / 2 : (l / 4) * 2 + (l % 2)) * stride;
    return analyse_ok(op, a);
}

Test(h100, pair_uniform_loads_merge_phases)
{
    bank_result r = strided(BANK_OP_LDS64, 0, 0); /* case 32: all lanes one address */
    cr_assert_eq(r.wavefronts, 1);
    cr_assert_eq(r.conflicts, 0);
    r = pairs(BANK_OP_LDS64, 8, 1); /* case 45: [0,0,8,8,...] */
    cr_assert_eq(r.wavefronts, 1);
    r = pairs(BANK_OP_LDS128, 16, 1); /* case 99: [0,0,16,16,...] */
    cr_assert_eq(r.wavefronts, 2);
    cr_assert_eq(r.conflicts, 0);
    r = pairs(BANK_OP_LDS64, 128, 1); /* case 46: [0,0,128,128,...]: 16 wavefronts, 15 conflicts */
    cr_assert_eq(r.wavefronts, 16);
    cr_assert_eq(r.conflicts, 15);
}

Test(h100, stores_never_merge)
{
    bank_result r = strided(BANK_OP_STS64, 0, 0); /* case 172 */
    cr_assert_eq(r.wavefronts, 2);
    r = pairs(BANK_OP_STS128, 16, 1); /* case 239 */
    cr_assert_eq(r.wavefronts, 4);
}
/* The reference model the fast one is checked against (a fixture, kept out of the way). */
#include "fixtures/bank_ref.h"

/* ---- equivalence: the fast model against the reference ----------------------------- */

static uint32_t eq_state = 0x9e3779b9u;
static uint32_t eq_rnd(void)
{
    eq_state ^= eq_state << 13;
    eq_state ^= eq_state >> 17;
    eq_state ^= eq_state << 5;
    return eq_state;
}

/* Addresses that reach every path: conflict-free, strided, broadcast, few distinct
 * words, pair-uniform (merging loads), rows spanning more than 64, the window's top,
 * and now and then a misaligned or out-of-window lane or a partial active mask. */
static void eq_instr(bank_instr *in)
{
    memset(in, 0, sizeof *in);
    in->op = (bank_op)(eq_rnd() % BANK_OP_COUNT);
    in->trans = bank_op_matrices(in->op) ? (int)(eq_rnd() & 1) : 0;
    uint32_t w = bank_op_access_bytes(in->op);
    uint32_t kind = eq_rnd() % 10, base = (eq_rnd() % 1024) * 128, stride = w << (eq_rnd() % 6);
    uint32_t pool[4];
    for (uint32_t i = 0; i < 4; i++)
        pool[i] = (eq_rnd() % (4096 / w)) * w;
    for (uint32_t l = 0; l < BANK_LANES; l++) {
        uint32_t r = eq_rnd();
        switch (kind) {
        case 0: in->addr[l] = base + l * w; break;
        case 1: in->addr[l] = base + l * stride; break;
        case 2: in->addr[l] = base; break;
        case 3: in->addr[l] = pool[r % 4]; break;
        case 4: in->addr[l] = ((l * 128) ^ ((l % 8) << 4)) & ~(w - 1); break;
        case 5: in->addr[l] = (r % (228u * 1024u / w)) * w; break;
        case 6: in->addr[l] = (r % (8192 / w)) * w; break;
        case 7: in->addr[l] = (l & 1) ? in->addr[l - 1] : (r % (16384 / w)) * w; break;
        case 8: in->addr[l] = (l & 2) ? in->addr[l - 2] : pool[r % 4] + (l & 1) * 128; break;
        default: in->addr[l] = 228u * 1024u - w * (1 + r % 64); break;
        }
    }
    uint32_t odd = eq_rnd() % 64;
    if (odd == 0)
        in->addr[eq_rnd() % 32] += 1 + eq_rnd() % (w - 1 > 0 ? w - 1 : 1); /* misaligned */
    else if (odd == 1)
        in->addr[eq_rnd() % 32] = 228u * 1024u + (eq_rnd() % 64) * w;    /* beyond the window */
    else if (odd < 6)
        in->active_mask = eq_rnd();
    else if (odd < 8)
        in->active_mask = 0xffffffffu;
    else if (odd < 10)
        in->active_mask = (uint32_t)((1ull << (8 * (bank_op_matrices(in->op) ? bank_op_matrices(in->op) : 4))) - 1);
}

Test(equivalence, fast_model_matches_reference_on_a_million_instructions)
{
    bank_instr in;
    uint32_t checked = 0, conflicting = 0, rejected = 0;
    for (uint32_t i = 0; i < 1000000; i++) {
        eq_instr(&in);
        bank_result want, got;
        err_info ew = {0}, eg = {0};
        int rw = ref_bank_analyse(&in, &want, &ew), rg = bank_analyse(&in, &got, &eg);
        cr_assert_eq(rg, rw, "instruction %u (%s): rc %d, reference %d", i, bank_op_name(in.op), rg, rw);
        if (rw != ERR_OK) {
            cr_assert_str_eq(eg.rule, ew.rule, "instruction %u: rule %s, reference %s", i, eg.rule, ew.rule);
            cr_assert_str_eq(eg.detail, ew.detail, "instruction %u", i);
            rejected++;
            continue;
        }
        cr_assert_eq(got.wavefronts, want.wavefronts, "instruction %u (%s)", i, bank_op_name(in.op));
        cr_assert_eq(got.ideal, want.ideal, "instruction %u (%s)", i, bank_op_name(in.op));
        cr_assert_eq(got.conflicts, want.conflicts, "instruction %u (%s)", i, bank_op_name(in.op));
        cr_assert_eq(got.worst_bank, want.worst_bank, "instruction %u (%s)", i, bank_op_name(in.op));
        cr_assert_eq(got.worst_bank_words, want.worst_bank_words, "instruction %u (%s)", i, bank_op_name(in.op));
        cr_assert_eq(got.colliding_lanes, want.colliding_lanes, "instruction %u (%s)", i, bank_op_name(in.op));
        cr_assert_eq(got.colliding_banks, want.colliding_banks, "instruction %u (%s)", i, bank_op_name(in.op));
        cr_assert_eq(got.nwavefronts, want.nwavefronts, "instruction %u (%s)", i, bank_op_name(in.op));
        for (uint32_t k = 0; k < want.nwavefronts; k++)
            cr_assert_eq(got.wf[k].lanes, want.wf[k].lanes, "instruction %u (%s) wavefront %u", i,
                         bank_op_name(in.op), k);
        checked++;
        conflicting += want.conflicts != 0;
    }
    /* The mix must reach both outcomes and the error path, or it proves little. */
    cr_assert_gt(conflicting, checked / 10);
    cr_assert_lt(conflicting, checked - checked / 10);
    cr_assert_gt(rejected, 1000);
}

/* bank_analyse_counts: the same checks and counts as bank_analyse, minus the
 * per-wavefront lane sets. */
Test(counts, same_counts_as_the_full_analysis_without_lane_sets)
{
    bank_instr in;
    uint32_t checked = 0;
    for (uint32_t i = 0; i < 200000; i++) {
        eq_instr(&in);
        bank_result full, counts;
        err_info ef = {0}, ec = {0};
        int rf = bank_analyse(&in, &full, &ef), rc = bank_analyse_counts(&in, &counts, &ec);
        cr_assert_eq(rc, rf, "instruction %u (%s)", i, bank_op_name(in.op));
        if (rf != ERR_OK) {
            cr_assert_str_eq(ec.rule, ef.rule, "instruction %u", i);
            continue;
        }
        cr_assert_eq(counts.wavefronts, full.wavefronts, "instruction %u (%s)", i, bank_op_name(in.op));
        cr_assert_eq(counts.ideal, full.ideal, "instruction %u", i);
        cr_assert_eq(counts.conflicts, full.conflicts, "instruction %u", i);
        cr_assert_eq(counts.worst_bank, full.worst_bank, "instruction %u", i);
        cr_assert_eq(counts.worst_bank_words, full.worst_bank_words, "instruction %u", i);
        cr_assert_eq(counts.colliding_lanes, full.colliding_lanes, "instruction %u", i);
        cr_assert_eq(counts.colliding_banks, full.colliding_banks, "instruction %u", i);
        cr_assert_eq(counts.nwavefronts, 0, "instruction %u", i);
        checked++;
    }
    cr_assert_gt(checked, 150000);
}
