/* bank: wavefronts of one warp shared-memory instruction on an H100.
 *
 * The model is three explicit steps, each a separately named function so that the
 * rules can be refitted to hardware counts without touching the rest:
 *   1. bank_split_phases():  which lanes the hardware considers together (a "phase").
 *      Documented rule: 32-bit accesses as one phase of 32 lanes, 64-bit in half-warp
 *      phases, 128-bit in quarter-warp phases, ldmatrix/stmatrix one phase per 8x8
 *      matrix (its eight 16-byte rows). Every phase then requests at most 128 bytes.
 *   2. bank_merge_phases():  hardware rules that combine phases when lanes repeat
 *      addresses (the documented rule is silent on them; see the comment there).
 *   3. bank_phase_wavefronts(): one phase costs as many wavefronts as the most distinct
 *      4-byte words any single bank must deliver (the same word is broadcast).
 * The instruction's wavefronts are the sum over phases; conflicts are wavefronts minus
 * the ideal count, clamped at 0 as the hardware counter is (it cannot go negative).
 *
 * Speed matters (tmasim bank over large tiles, benches >= 20M instructions/s): no
 * allocation, fixed arrays on the stack, per-bank lists that stay short in the
 * common conflict-free case. */
#include "bank.h"

#include <stddef.h>
#include <string.h>

/* Shared memory per SM on the H100 (228 KB); no shared address can lie beyond it. */
#define BANK_SHARED_WINDOW (228u * 1024u)

/* ---- step 0: input checks ---------------------------------------------------------- */

static uint32_t used_lanes(const bank_instr *in)
{
    uint32_t m = bank_op_matrices(in->op);
    uint32_t op_lanes = m ? (uint32_t)((1ull << (8 * m)) - 1) : 0xffffffffu;
    uint32_t active = in->active_mask ? in->active_mask : 0xffffffffu;
    return op_lanes & active;
}

static int check_addresses(const bank_instr *in, uint32_t lanes, uint32_t width, err_info *e)
{
    const int matrix = bank_op_matrices(in->op) != 0;
    for (uint32_t rest = lanes; rest; rest &= rest - 1) {
        uint32_t l = (uint32_t)__builtin_ctz(rest);
        uint32_t a = in->addr[l];
        if (a & (width - 1))
            return err_set(e, ERR_BAD_INPUT, matrix ? "matrix_row_alignment" : "address_alignment",
                           "lane %u address %u (0x%x) is not a multiple of %u bytes for %s", l, a, a, width,
                           bank_op_name(in->op));
        if (a > BANK_SHARED_WINDOW - width)
            return err_set(e, ERR_BAD_INPUT, "address_beyond_shared_window",
                           "lane %u address %u (0x%x) + %u bytes exceeds the %u-byte shared window", l, a, a,
                           width, BANK_SHARED_WINDOW);
    }
    return ERR_OK;
}

/* ---- step 1: documented phases ------------------------------------------------------ */

typedef struct bank_phases {
    uint32_t count;
    uint32_t lanes[BANK_LANES];
} bank_phases;

static void bank_split_phases(const bank_instr *in, uint32_t lanes, bank_phases *ph)
{
    uint32_t m = bank_op_matrices(in->op);
    uint32_t width = bank_op_access_bytes(in->op);
    /* A matrix row is 16 bytes like a 128-bit access, and a matrix is eight lanes like
     * a quarter-warp: both give 8-lane phases. */
    uint32_t lanes_per_phase = m ? 8 : 128 / width;
    uint32_t group = lanes_per_phase == 32 ? 0xffffffffu : (1u << lanes_per_phase) - 1;
    ph->count = 0;
    for (uint32_t first = 0; first < BANK_LANES; first += lanes_per_phase) {
        uint32_t sel = lanes & (group << first);
        if (sel)
            ph->lanes[ph->count++] = sel;
    }
}

/* ---- step 2: hardware merging of phases --------------------------------------------- */

/* The documented phase rule leaves open what happens when lanes repeat addresses in
 * 64- and 128-bit accesses; the reference sheet records that the H100 disagrees with
 * it in both directions for some duplicate patterns. Hardware-derived rules go here,
 * each with its evidence (traces/h100/validation). Until the recorded corpus says
 * otherwise, phases are kept as documented. */
static void bank_merge_phases(const bank_instr *in, bank_phases *ph)
{
    (void)in;
    (void)ph;
}

/* ---- step 3: wavefronts of one phase ------------------------------------------------ */

typedef struct bank_scratch {
    uint8_t count[BANK_COUNT];            /* distinct words seen in each bank */
    uint32_t lanes[BANK_COUNT];           /* lanes that touched each bank */
    uint32_t words[BANK_COUNT][BANK_LANES];
} bank_scratch;

/* Returns the phase's wavefronts; wavefront k of the phase serves the lanes one of
 * whose words is the (k+1)-th distinct word requested from its bank. */
static uint32_t bank_phase_wavefronts(const bank_instr *in, uint32_t lanes, uint32_t words_per_lane,
                                      bank_scratch *s, bank_result *out)
{
    memset(s->count, 0, sizeof s->count);
    memset(s->lanes, 0, sizeof s->lanes);
    uint32_t base = out->nwavefronts;
    /* Consecutive words of one lane fall in distinct banks, so no bank sees more
     * distinct words than the phase has lanes: that bounds the entries to clear. */
    uint32_t bound = (uint32_t)__builtin_popcount(lanes);
    if (base + bound > BANK_MAX_WAVEFRONTS)
        bound = BANK_MAX_WAVEFRONTS - base;
    memset(out->wf + base, 0, sizeof out->wf[0] * bound);
    uint32_t most = 0, worst = 0;
    for (uint32_t rest = lanes; rest; rest &= rest - 1) {
        uint32_t l = (uint32_t)__builtin_ctz(rest);
        uint32_t bit = 1u << l;
        uint32_t w0 = in->addr[l] >> 2;
        for (uint32_t k = 0; k < words_per_lane; k++) {
            uint32_t w = w0 + k;
            uint32_t b = w & (BANK_COUNT - 1);
            uint32_t n = s->count[b], r = 0;
            const uint32_t *list = s->words[b];
            while (r < n && list[r] != w)
                r++;
            if (r == n) {
                s->words[b][n] = w;
                s->count[b] = (uint8_t)(n + 1);
                if (n + 1 > most) {
                    most = n + 1;
                    worst = b;
                }
            }
            s->lanes[b] |= bit;
            if (base + r < BANK_MAX_WAVEFRONTS)
                out->wf[base + r].lanes |= bit;
        }
    }
    for (uint32_t b = 0; b < BANK_COUNT; b++) {
        if (s->count[b] > 1) {
            out->colliding_lanes |= s->lanes[b];
            out->colliding_banks |= 1u << b;
        }
    }
    if (most > out->worst_bank_words) {
        out->worst_bank_words = most;
        out->worst_bank = worst;
    }
    out->nwavefronts = base + most < BANK_MAX_WAVEFRONTS ? base + most : BANK_MAX_WAVEFRONTS;
    return most;
}

/* ---- the instruction ---------------------------------------------------------------- */

uint32_t bank_op_ideal(bank_op op)
{
    uint32_t m = bank_op_matrices(op);
    return m ? m : bank_op_access_bytes(op) / BANK_WIDTH;
}

int bank_analyse(const bank_instr *in, bank_result *out, err_info *e)
{
    if (!in || !out)
        return err_set(e, ERR_BAD_INPUT, "bank_analyse", "null instruction or result");
    if ((unsigned)in->op >= BANK_OP_COUNT)
        return err_set(e, ERR_BAD_INPUT, "op", "op value %d is not a bank_op", (int)in->op);
    uint32_t width = bank_op_access_bytes(in->op);
    uint32_t lanes = used_lanes(in);
    int rc = check_addresses(in, lanes, width, e);
    if (rc)
        return rc;

    /* Only the bookkeeping before wf[] is cleared: wf entries are cleared as used. */
    memset(out, 0, offsetof(bank_result, wf));
    out->colliding_banks = 0;

    bank_phases ph;
    bank_split_phases(in, lanes, &ph);
    bank_merge_phases(in, &ph);

    bank_scratch s;
    uint32_t total = 0;
    for (uint32_t p = 0; p < ph.count; p++)
        total += bank_phase_wavefronts(in, ph.lanes[p], width / BANK_WIDTH, &s, out);

    out->wavefronts = total;
    out->ideal = bank_op_ideal(in->op);
    out->conflicts = total > out->ideal ? total - out->ideal : 0;
    return ERR_OK;
}
