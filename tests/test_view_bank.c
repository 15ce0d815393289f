/* The bank picture of a selected shared-memory read, rebuilt from the description.
 * Expected values are derived by hand from the layout rules:
 *   - a 64x128 f16 box is 128 rows of 128 bytes (16 KB); stage s of a one-tensor
 *     description starts at smem_base (1024) + s * 16384;
 *   - "cols" with 16 bytes per lane hands lane l of instruction 0 row l, bytes 0-15;
 *   - without a swizzle row r starts at r * 128, so all 32 lanes hit banks 0-3;
 *     with SWIZZLE_128B the 16-byte chunk c of row r moves to chunk c ^ (r % 8)
 *     (CUDA driver docs, CU_TENSOR_MAP_SWIZZLE_128B), so lanes 8p..8p+7 cover all 32
 *     banks once;
 *   - 128-bit accesses are served per quarter warp (8 lanes) and a bank delivers one
 *     4-byte word per wavefront (the CUDA programming guide's shared-memory rules):
 *     8 distinct words in banks 0-3 per quarter = 8 wavefronts, 32 for the warp. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "desc.h"
#include "view_bank.h"
#include "view_session.h"
#include "viz_synth.h"

static pipe_desc load(const char *swizzle, const char *mode_warps, const char *reads)
{
    char text[1024];
    snprintf(text, sizeof text,
             "name: t\n"
             "%s"
             "stages: 4\n"
             "iterations: 8\n"
             "tensors:\n"
             "  - name: A\n"
             "    dtype: f16\n"
             "    dims: [4096, 4096]\n"
             "    box: [64, 128]\n"
             "    swizzle: %s\n"
             "consumer:\n"
             "  reads: %s\n",
             mode_warps, swizzle, reads);
    pipe_desc d;
    err_info e = {0};
    cr_assert_eq(desc_parse_yaml(text, strlen(text), "t.yaml", &d, &e), ERR_OK, "%s: %s", e.rule, e.detail);
    return d;
}

static const char *WS = "mode: warp_specialized\nwarps: {producer: 1, consumer: 2}\n";

static trace_event read_event(uint8_t warp, uint8_t stage)
{
    trace_event ev = {.kind = TRACE_SMEM_READ, .role = TRACE_ROLE_CONSUMER, .warp = warp, .stage = stage,
                      .t_ns = 100, .dur_ns = 50};
    return ev;
}

Test(view_bank, unswizzled_column_read_piles_32_lanes_on_banks_0_to_3)
{
    pipe_desc d = load("none", WS, "{tensor: 0, pattern: cols, bytes_per_lane: 16, warps: 1, repeat: 16}");
    trace_event ev = read_event(1, 2);
    view_bank v;
    err_info e = {0};
    cr_assert_eq(view_bank_build(&d, &ev, 0, &v, &e), ERR_OK, "%s: %s", e.rule, e.detail);
    cr_expect_eq(v.tile_address, 1024u + 2u * 16384u);
    cr_expect_eq(v.in.op, BANK_OP_LDS128);
    for (uint32_t l = 0; l < 32; l++) cr_expect_eq(v.in.addr[l], v.tile_address + 128u * l, "lane %u", l);
    cr_expect_eq(v.res.wavefronts, 32u);
    cr_expect_eq(v.res.ideal, 4u);
    cr_expect_eq(v.res.conflicts, 28u);
    for (uint32_t b = 0; b < 32; b++) {
        cr_expect_eq(v.bank_lanes[b], b < 4 ? 0xffffffffu : 0u, "bank %u", b);
        cr_expect_eq(v.bank_words[b], b < 4 ? 32u : 0u, "bank %u", b);
    }
    /* one lane per wavefront, quarter by quarter, on the four banks */
    cr_assert_eq(v.rows, 32u);
    for (uint32_t w = 0; w < 32; w++) {
        cr_expect_eq(v.lane_wavefront[w], w);
        cr_expect_eq(v.grid[w][0], 1u << w, "wavefront %u", w);
        cr_expect_eq(v.grid[w][3], 1u << w, "wavefront %u", w);
        cr_expect_eq(v.grid[w][4], 0u, "wavefront %u", w);
    }
    /* the whole stage: 1024 chunks of 16 B = 32 instructions, every one a column of 32
     * rows (32 wavefronts, ideal 4), executed 16 times */
    cr_expect_eq(v.warp_instrs, 32u);
    cr_expect_eq(v.warp_wavefronts, 32u * 32u * 16u);
    cr_expect_eq(v.warp_ideal, 4u * 32u * 16u);
    cr_expect(strstr(v.summary, "32 wavefronts (ideal 4), 28 conflicts"), "%s", v.summary);
}

Test(view_bank, swizzle_128b_spreads_each_quarter_over_all_banks)
{
    pipe_desc d = load("128b", WS, "{tensor: 0, pattern: cols, bytes_per_lane: 16, warps: 1, repeat: 16}");
    trace_event ev = read_event(2, 0);
    view_bank v;
    cr_assert_eq(view_bank_build(&d, &ev, 0, &v, NULL), ERR_OK);
    cr_expect_eq(v.res.wavefronts, 4u);
    cr_expect_eq(v.res.conflicts, 0u);
    cr_assert_eq(v.rows, 4u);
    for (uint32_t b = 0; b < 32; b++) {
        uint32_t c = b / 4;   /* lane l (row l, chunk 0) sits in chunk l % 8 */
        uint32_t want = 1u << c | 1u << (c + 8) | 1u << (c + 16) | 1u << (c + 24);
        cr_expect_eq(v.bank_lanes[b], want, "bank %u: 0x%x", b, v.bank_lanes[b]);
        for (uint32_t w = 0; w < 4; w++) cr_expect_eq(v.grid[w][b], 1u << (8 * w + c), "wavefront %u bank %u", w, b);
    }
    cr_expect_eq(v.warp_wavefronts, 4u * 32u * 16u);
}

Test(view_bank, warpgroup_reads_are_shared_out_instruction_by_instruction)
{
    /* rows, 16 B/lane, 4 warps: generated instruction i belongs to warp i % 4; warp 1's
     * first one covers chunks 32..63 = rows 4..7; lane 0 reads row 4, chunk 0, which
     * the 128B swizzle moves to chunk 4: 1024 + 4 * 128 + 4 * 16 = 1600 */
    pipe_desc d = load("128b", "mode: multistage\nwarps: {consumer: 4}\n", "{tensor: 0, pattern: rows, bytes_per_lane: 16, warps: 4}");
    trace_event ev = read_event(1, 0);
    ev.role = TRACE_ROLE_MIXED;
    view_bank v;
    cr_assert_eq(view_bank_build(&d, &ev, 0, &v, NULL), ERR_OK);
    cr_expect_eq(v.warp_slot, 1u);
    cr_expect_eq(v.warp_instrs, 8u);   /* 1024 chunks / 32 lanes / 4 warps */
    cr_expect_eq(v.in.addr[0], 1600u);
    cr_expect_eq(v.res.wavefronts, 4u);
    /* asking past the warp's list shows its last instruction (instruction 29 = 1 + 7 * 4:
     * chunks 928..959, rows 116..119; lane 0: row 116 chunk 0 -> chunk 116 % 8 = 4) */
    cr_assert_eq(view_bank_build(&d, &ev, 99, &v, NULL), ERR_OK);
    cr_expect_eq(v.instr, 7u);
    cr_expect_eq(v.in.addr[0], 1024u + 116u * 128u + 4u * 16u);
}

Test(view_bank, events_that_do_not_fit_the_description_name_the_field)
{
    pipe_desc d = load("128b", WS, "{tensor: 0, pattern: rows, bytes_per_lane: 16, warps: 1}");
    view_bank v;
    err_info e = {0};
    trace_event ev = read_event(1, 4);
    cr_expect_eq(view_bank_build(&d, &ev, 0, &v, &e), ERR_BAD_INPUT);
    cr_expect_str_eq(e.rule, "stage");
    ev = read_event(3, 0);   /* warps 1 and 2 are the consumers */
    cr_expect_eq(view_bank_build(&d, &ev, 0, &v, &e), ERR_BAD_INPUT);
    cr_expect_str_eq(e.rule, "warp");
    ev = read_event(1, 0);
    ev.kind = TRACE_TMA_FLIGHT;
    cr_expect_eq(view_bank_build(&d, &ev, 0, &v, &e), ERR_BAD_INPUT);
    cr_expect_str_eq(e.rule, "kind");
    ev = read_event(0, 0);
    ev.role = TRACE_ROLE_PRODUCER;
    cr_expect_eq(view_bank_build(&d, &ev, 0, &v, &e), ERR_BAD_INPUT);
    cr_expect_str_eq(e.rule, "role");
    /* the byte count of the event tells a wrong description apart: 32 instructions of
     * 32 lanes x 16 B = 16384 bytes per stage */
    ev = read_event(1, 0);
    ev.bytes = 16384;
    cr_assert_eq(view_bank_build(&d, &ev, 0, &v, &e), ERR_OK);
    cr_expect_eq(v.bytes_mismatch, 0);
    ev.bytes = 8192;
    cr_assert_eq(view_bank_build(&d, &ev, 0, &v, &e), ERR_OK);
    cr_expect_eq(v.bytes_mismatch, 1);
}

/* The session keeps the picture in step with the selection: a selected read gets one,
 * '[' and ']' walk the warp's instructions (clamped to 0..31 for 32 instructions),
 * anything else selected has none, and without a description the panel says why. */
Test(view_bank, session_follows_the_selection_and_the_bracket_keys)
{
    pipe_desc d = load("none", WS, "{tensor: 0, pattern: cols, bytes_per_lane: 16, warps: 1}");
    synth_opts o = {.ctas = 1, .consumers = 2, .stages = 2, .iterations = 4, .flight_ns = 1000, .read_ns = 100,
                    .math_ns = 100, .issue_gap_ns = 10, .bytes = 16384};
    trace t;
    trace_init(&t, TRACE_SRC_SIM);
    synth_fill(&t, &o);
    const trace *tp[1] = {&t};
    static view_session s;
    cr_assert_eq(view_session_init(&s, tp, 1, 1000, 600, NULL), ERR_OK);
    cr_assert_eq(view_session_search(&s, "kind=smem_read", NULL), ERR_OK);
    cr_expect_eq(s.has_bank, 0);
    cr_expect(strstr(s.bank_note, "--desc"), "%s", s.bank_note);
    view_session_set_desc(&s, &d);
    cr_assert_eq(s.has_bank, 1);
    cr_expect_eq(s.bank.instr, 0u);
    view_session_key(&s, ']', 0);
    cr_expect_eq(s.bank.instr, 1u);
    /* instruction 1: chunks 32..63 of the column-major order = rows 32..63, bytes 0-15 */
    cr_expect_eq(s.bank.in.addr[0], s.bank.tile_address + 32u * 128u);
    for (int i = 0; i < 40; i++) view_session_key(&s, ']', 0);
    cr_expect_eq(s.bank.instr, 31u);
    view_session_key(&s, '[', 0);
    cr_expect_eq(s.bank.instr, 30u);
    view_session_search_next(&s, 1);   /* the next read restarts at its first instruction */
    cr_expect_eq(s.has_bank, 1);
    cr_expect_eq(s.bank.instr, 0u);
    cr_assert_eq(view_session_search(&s, "kind=math", NULL), ERR_OK);
    cr_expect_eq(s.has_bank, 0);
    cr_expect_eq(s.bank_note[0], 0);
    view_session_free(&s);
    trace_free(&t);
}
