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
 * Speed matters (tmasim bank over large tiles, bench >= 20M instructions/s): no
 * allocation, fixed arrays on the stack, per-lane loops without data-dependent
 * branches, sets of rows as 64-bit masks. */
#include "bank.h"

#include <stddef.h>
#include <string.h>

#if defined(__SSE4_1__) && !defined(BANK_NO_SIMD)
#include <smmintrin.h>
#define BANK_SIMD 1
#endif

/* The per-lane loops below have fixed trip counts; let GCC vectorise them at -O2. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize")
#endif

/* Shared memory per SM on the H100 (228 KB); no shared address can lie beyond it. */

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
    /* Fast scan of the usual lanes 0..n-1; the lane is looked for only on failure. */
    if (lanes == 0xffffffffu) {
        uint32_t misaligned = 0, top = 0;
        for (uint32_t l = 0; l < BANK_LANES; l++) {
            uint32_t a = in->addr[l];
            misaligned |= a & (width - 1);
            top = a > top ? a : top;
        }
        if (!misaligned && top <= BANK_SHARED_WINDOW - width)
            return ERR_OK;
    }
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

/* Every access is aligned to its width (checked above), so a lane's 4/8/16 bytes are
 * one "unit" that lies in one 128-byte row and covers width/4 consecutive banks: the
 * unit's "bank group" (unit index modulo 128/width). Two lanes conflict exactly when
 * they ask the same bank group for different units, i.e. different rows. A phase has
 * 128/width groups and there are always 32 (phase, group) slots in all: 1x32 for
 * 32-bit, 2x16 for 64-bit, 4x8 for 128-bit and matrices. */
typedef struct bank_phases {
    uint32_t count;                 /* phases, numbered 0..count-1 */
    int merged;                     /* step 2 combined phases */
    uint32_t group_bits;            /* log2 of the bank groups per phase (128 / width) */
    uint32_t lanes[BANK_LANES];     /* lanes of each phase */
    uint8_t slot_base[BANK_LANES];  /* phase of each lane times the groups per phase */
} bank_phases;

static void bank_split_phases(const bank_instr *in, bank_phases *ph)
{
    uint32_t m = bank_op_matrices(in->op);
    uint32_t width = bank_op_access_bytes(in->op);
    /* A matrix row is 16 bytes like a 128-bit access, and a matrix is eight lanes like
     * a quarter-warp: both give 8-lane phases. */
    uint32_t phase_bits = m ? 3 : (uint32_t)__builtin_ctz(128 / width);
    ph->group_bits = (uint32_t)__builtin_ctz(128 / width);
    ph->merged = 0;
    ph->count = BANK_LANES >> phase_bits;
    uint32_t group = phase_bits == 5 ? 0xffffffffu : (1u << (1u << phase_bits)) - 1;
    for (uint32_t p = 0; p < ph->count; p++)
        ph->lanes[p] = group << (p << phase_bits);
    /* Documented phases have as many lanes as groups, so slot_base[l] is l rounded
     * down to its phase's first lane. */
#define B8(x) x, x, x, x, x, x, x, x
    static const uint8_t slot_base[3][BANK_LANES] = {
        {B8(0), B8(8), B8(16), B8(24)},
        {B8(0), B8(0), B8(16), B8(16)},
        {B8(0), B8(0), B8(0), B8(0)},
    };
#undef B8
    memcpy(ph->slot_base, slot_base[phase_bits - 3], sizeof ph->slot_base);
}

/* ---- step 2: hardware merging of phases --------------------------------------------- */

/* The documented phase rule leaves open what happens when lanes repeat addresses in
 * 64- and 128-bit accesses; the reference sheet records that the H100 disagrees with
 * it for some duplicate patterns. Hardware-derived rule (H100, traces/h100/validation/
 * bank.jsonl, recorded 2026-11-23):
 *   LOADS ONLY (lds64, lds128): when every lane reads the same address as its
 *   neighbour lane^1, or every lane the same as lane^2, the hardware serves two
 *   documented phases together: lds64 becomes one 32-lane phase and lds128 two
 *   16-lane phases (it returns one copy for each pair).
 *   Evidence: lds64 cases 32 45 47 49 52 53 56 57 60 401 (all lanes equal, pairs
 *   [0,0,8,8,...], [0,8,0,8,...]) measured 1 wavefront where the documented rule
 *   says 2; lds128 cases 86 96 99 101 102 103 106 107 110 111 112 114 411 measured 2,
 *   not 4. With conflicts the merged phase still pays per bank: cases 46, 100
 *   ([0,0,128,128,...]) measured 16. The same addresses stored (sts64 172-200,
 *   sts128 226-254, 394, 410) measured the documented 2 and 4: stores never merge.
 *   The same rule was described for CC 7.x by NVIDIA on the developer forum
 *   ("shared memory loads with uniform addresses", thread 77228).
 * A rule may renumber phases (lanes[], slot_base[], count) as long as
 * count << group_bits stays <= 32. */
static int lanes_pair_uniform(const bank_instr *in, uint32_t lanes, uint32_t partner)
{
    for (uint32_t l = 0; l < BANK_LANES; l++) {
        uint32_t on = (lanes >> l) & 1u, other_on = (lanes >> (l ^ partner)) & 1u;
        if (on != other_on || (on && in->addr[l] != in->addr[l ^ partner]))
            return 0;
    }
    return 1;
}

static void bank_merge_phases(const bank_instr *in, uint32_t lanes, bank_phases *ph)
{
    if (in->op != BANK_OP_LDS64 && in->op != BANK_OP_LDS128)
        return;
    if (!lanes_pair_uniform(in, lanes, 1) && !lanes_pair_uniform(in, lanes, 2))
        return;
    uint32_t count = ph->count / 2;
    for (uint32_t p = 0; p < count; p++)
        ph->lanes[p] = ph->lanes[2 * p] | ph->lanes[2 * p + 1];
    for (uint32_t l = 0; l < BANK_LANES; l++) {
        uint32_t phase = ph->slot_base[l] >> ph->group_bits;
        ph->slot_base[l] = (uint8_t)((phase / 2) << ph->group_bits);
    }
    ph->count = count;
    ph->merged = 1;
}

/* ---- step 3: wavefronts of each phase ----------------------------------------------- */

#define BANK_ROWS 2048u /* 128-byte rows of the 228 KB window, rounded up to a power of 2 */

/* Ids for the instruction's rows in address order, taken from a bitmap of the
 * window's rows; used when the rows span 64 or more (at most 32 distinct rows, one
 * per lane, so ids stay below 32). */
static void bank_row_ranks(const uint32_t row[BANK_LANES], uint32_t lanes, uint8_t id[BANK_LANES])
{
    uint64_t seen[BANK_ROWS / 64];
    uint32_t before[BANK_ROWS / 64];
    memset(seen, 0, sizeof seen);
    for (uint32_t rest = lanes; rest; rest &= rest - 1) {
        uint32_t r = row[__builtin_ctz(rest)];
        seen[r >> 6] |= 1ull << (r & 63);
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < BANK_ROWS / 64; i++) {
        before[i] = n;
        n += (uint32_t)__builtin_popcountll(seen[i]);
    }
    for (uint32_t l = 0; l < BANK_LANES; l++) {
        uint32_t r = row[l] & (BANK_ROWS - 1);
        uint64_t below = seen[r >> 6] & ((1ull << (r & 63)) - 1);
        id[l] = (uint8_t)((before[r >> 6] + (uint32_t)__builtin_popcountll(below)) & 63);
    }
}

/* Each (phase, bank group) slot collects the set of rows asked of it as a 64-bit mask
 * of row ids. A phase costs its largest set: the most distinct words one bank must
 * deliver (equal words are one word, broadcast). Wavefront k of a phase serves the
 * lanes whose row is the (k+1)-th lowest in their slot.
 * The common case is written for speed: all used lanes are 0..n-1 (every op with a
 * full or matrix-count mask), rows span less than 64 (a tile region), and no slot is
 * crowded; the per-lane loops then have no data-dependent branches. */
typedef struct bank_requests {
    uint64_t slot[BANK_LANES];      /* row-id set of each (phase, group) slot */
    uint32_t slot_of[BANK_LANES];
    uint32_t id[BANK_LANES];
} bank_requests;

/* All 32 lanes, rows within 64 of the lowest: fixed-count loops the compiler can
 * vectorise. Returns 0 when the rows span more (the caller then ranks them). */
static int bank_gather_warp(const bank_instr *in, const bank_phases *ph, bank_requests *rq)
{
    const uint32_t unit_shift = 7 - ph->group_bits;
    const uint32_t group_mask = (1u << ph->group_bits) - 1;
    uint32_t lo = UINT32_MAX, hi = 0;
    for (uint32_t l = 0; l < BANK_LANES; l++) {
        uint32_t a = in->addr[l];
        lo = a < lo ? a : lo;
        hi = a > hi ? a : hi;
    }
    lo >>= 7;
    hi >>= 7;
    if (hi - lo >= 64)
        return 0;
    for (uint32_t l = 0; l < BANK_LANES; l++) {
        uint32_t a = in->addr[l];
        rq->slot_of[l] = ph->slot_base[l] + ((a >> unit_shift) & group_mask);
        rq->id[l] = (a >> 7) - lo;
    }
    memset(rq->slot, 0, sizeof rq->slot);
    for (uint32_t l = 0; l < BANK_LANES; l++)
        rq->slot[rq->slot_of[l] & (BANK_LANES - 1)] |= 1ull << (rq->id[l] & 63);
    return 1;
}

/* Any lane mask, any rows. */
static void bank_gather_any(const bank_instr *in, uint32_t lanes, const bank_phases *ph, bank_requests *rq)
{
    const uint32_t unit_shift = 7 - ph->group_bits;
    const uint32_t group_mask = (1u << ph->group_bits) - 1;
    memset(rq->slot, 0, sizeof rq->slot);
    if (!lanes)
        return;
    uint32_t lo = UINT32_MAX, hi = 0;
    for (uint32_t rest = lanes; rest; rest &= rest - 1) {
        uint32_t r = in->addr[__builtin_ctz(rest)] >> 7;
        lo = r < lo ? r : lo;
        hi = r > hi ? r : hi;
    }
    uint32_t row[BANK_LANES];
    uint8_t id[BANK_LANES];
    for (uint32_t l = 0; l < BANK_LANES; l++) {
        uint32_t a = in->addr[l];
        row[l] = a >> 7;
        rq->slot_of[l] = (ph->slot_base[l] + ((a >> unit_shift) & group_mask)) & (BANK_LANES - 1);
        id[l] = (uint8_t)((row[l] - lo) & 63);
    }
    if (hi - lo >= 64)
        bank_row_ranks(row, lanes, id);
    for (uint32_t l = 0; l < BANK_LANES; l++)
        rq->id[l] = id[l];
    for (uint32_t rest = lanes; rest; rest &= rest - 1) {
        uint32_t l = (uint32_t)__builtin_ctz(rest);
        rq->slot[rq->slot_of[l]] |= 1ull << rq->id[l];
    }
}

static void bank_gather(const bank_instr *in, uint32_t lanes, const bank_phases *ph, bank_requests *rq)
{
    if (lanes != 0xffffffffu || !bank_gather_warp(in, ph, rq))
        bank_gather_any(in, lanes, ph, rq);
}

static uint32_t bank_phase_wavefronts(const bank_instr *in, uint32_t lanes, const bank_phases *ph,
                                      bank_result *out)
{
    bank_requests rq;
    bank_gather(in, lanes, ph, &rq);
    const uint32_t group_bits = ph->group_bits;
    const uint32_t groups = 1u << group_bits;

    uint64_t crowd = 0;
    for (uint32_t s = 0; s < BANK_LANES; s++)
        crowd |= rq.slot[s] & (rq.slot[s] - 1);
    if (!crowd) {
        /* No bank serves two words: each phase with lanes is one wavefront. */
        uint32_t total = 0;
        for (uint32_t p = 0; p < ph->count; p++) {
            uint32_t on = ph->lanes[p] & lanes;
            out->wf[total].lanes = on;
            total += on != 0;
        }
        out->nwavefronts = total;
        out->worst_bank_words = total != 0;
        if (lanes) {
            uint32_t l = (uint32_t)__builtin_ctz(lanes);
            out->worst_bank = (in->addr[l] >> 2) & (BANK_COUNT - 1) & ~((1u << (5 - group_bits)) - 1);
        }
        return total;
    }

    uint32_t total = 0, crowded = 0; /* bit s: slot s holds more than one row */
    uint32_t base[BANK_LANES];
    for (uint32_t p = 0; p < ph->count; p++) {
        uint32_t most = 0, worst = 0;
        for (uint32_t g = 0; g < groups; g++) {
            uint32_t s = (p << group_bits) + g;
            uint32_t k = (uint32_t)__builtin_popcountll(rq.slot[s]);
            worst = k > most ? g : worst;
            most = k > most ? k : most;
            crowded |= (uint32_t)(k > 1) << s;
        }
        if (most > out->worst_bank_words) {
            out->worst_bank_words = most;
            out->worst_bank = worst << (5 - group_bits);
        }
        base[p] = total;
        total += most;
    }
    uint32_t nwf = total < BANK_MAX_WAVEFRONTS ? total : BANK_MAX_WAVEFRONTS;
    out->nwavefronts = nwf;
    memset(out->wf, 0, sizeof out->wf[0] * nwf);
    const uint32_t banks_per_group = 1u << (5 - group_bits);
    const uint32_t group_banks = (uint32_t)((1ull << banks_per_group) - 1);
    for (uint32_t rest = crowded; rest; rest &= rest - 1) {
        uint32_t g = (uint32_t)__builtin_ctz(rest) & (groups - 1);
        out->colliding_banks |= group_banks << (g * banks_per_group);
    }
    for (uint32_t rest = lanes; rest; rest &= rest - 1) {
        uint32_t l = (uint32_t)__builtin_ctz(rest);
        uint32_t s = rq.slot_of[l] & (BANK_LANES - 1);
        out->colliding_lanes |= ((crowded >> s) & 1u) << l;
        uint64_t below = rq.slot[s] & ((1ull << (rq.id[l] & 63)) - 1);
        uint32_t k = base[ph->slot_base[l] >> group_bits] + (uint32_t)__builtin_popcountll(below);
        if (k < BANK_MAX_WAVEFRONTS)
            out->wf[k].lanes |= 1u << l;
    }
    return total;
}


/* ---- the usual instruction, fast ------------------------------------------------------ */

/* Steps 1-3 again, specialised for the lanes nearly every caller uses: all 32 for
 * ld/st, the first 8 x matrices for ldmatrix/stmatrix, and inlined once per op shape
 * so that lane counts, widths and shifts are constants. The phases are then plain
 * lane ranges (G lanes each, 2G once merged), so a lane's slot is arithmetic. One
 * vector test settles the conflict-free rows (every phase inside one 128-byte row);
 * otherwise each slot's rows are gathered as bit sets, slots with two or more rows
 * found by vector compares, and only those slots are visited to place their lanes in
 * later wavefronts. The result is the same, field for field, as the general path
 * above (tests/test_bank.c compares the two over a million instructions). Where the
 * time goes, measured: the per-wavefront lane sets (wf[]) cost about a quarter of
 * the crowded instructions' time; the rest is the slot row sets and counts. */
#if defined(__GNUC__)
#define BANK_INLINE static inline __attribute__((always_inline))
#else
#define BANK_INLINE static inline
#endif

/* Bit l set where v[l] == x (32 bytes). */
BANK_INLINE uint32_t bytes_equal(const uint8_t v[BANK_LANES], uint32_t x)
{
#ifdef BANK_SIMD
    const __m128i k = _mm_shuffle_epi8(_mm_cvtsi32_si128((int)x), _mm_setzero_si128());
    uint32_t lo = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)v), k));
    uint32_t hi = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(v + 16)), k));
    return lo | hi << 16;
#else
    uint32_t m = 0;
    for (uint32_t l = 0; l < BANK_LANES; l++)
        m |= (uint32_t)(v[l] == x) << l;
    return m;
#endif
}

/* Row ids when the rows span 64 or more: id[l] = how many of the n lanes have a lower
 * row. Equal rows get equal ids and a lower row a lower id, which is all the slot row
 * sets need (they compare rows of one slot only); ids stay below 32. Rows are below
 * 2048 (the window was checked), so they fit 16-bit lanes. */
static void bank_rank_rows(const uint32_t a[BANK_LANES], uint32_t n, uint8_t id[BANK_LANES])
{
#ifdef BANK_SIMD
    /* Four named registers (an array of them ends up in memory). */
    const __m128i none = _mm_set1_epi16(INT16_MAX);
#define BANK_ROWS16(i) (8 * (i) < n ? _mm_packs_epi32(_mm_srli_epi32(_mm_loadu_si128((const __m128i *)(a + 8 * (i))), 7), \
                                                      _mm_srli_epi32(_mm_loadu_si128((const __m128i *)(a + 8 * (i) + 4)), 7)) \
                                    : none)
    const __m128i v0 = BANK_ROWS16(0), v1 = BANK_ROWS16(1), v2 = BANK_ROWS16(2), v3 = BANK_ROWS16(3);
#undef BANK_ROWS16
    __m128i acc0 = _mm_setzero_si128(), acc1 = acc0, acc2 = acc0, acc3 = acc0;
    for (uint32_t j = 0; j < n; j++) {
        const __m128i b = _mm_set1_epi16((short)(a[j] >> 7));
        acc0 = _mm_sub_epi16(acc0, _mm_cmpgt_epi16(v0, b));
        acc1 = _mm_sub_epi16(acc1, _mm_cmpgt_epi16(v1, b));
        acc2 = _mm_sub_epi16(acc2, _mm_cmpgt_epi16(v2, b));
        acc3 = _mm_sub_epi16(acc3, _mm_cmpgt_epi16(v3, b));
    }
    _mm_storeu_si128((__m128i *)id, _mm_packus_epi16(acc0, acc1));
    _mm_storeu_si128((__m128i *)(id + 16), _mm_packus_epi16(acc2, acc3));
#else
    for (uint32_t l = 0; l < BANK_LANES; l++) {
        uint32_t below = 0;
        for (uint32_t j = 0; j < n; j++)
            below += (a[j] >> 7) < (a[l] >> 7);
        id[l] = (uint8_t)below;
    }
#endif
}

/* Lanes of phase p when phases are 2^phase_bits lanes each. */
BANK_INLINE uint32_t phase_lanes(uint32_t phase_bits, uint32_t p)
{
    uint32_t one = phase_bits == 5 ? 0xffffffffu : (1u << (1u << phase_bits)) - 1;
    return one << ((p << phase_bits) & 31);
}

/* No slot asked for two rows: one wavefront per phase. */
BANK_INLINE void bank_usual_clean(const bank_instr *in, bank_result *out, uint32_t group_bits, uint32_t phase_bits,
                                  uint32_t phases, uint32_t ideal, const int detail)
{
    memset(out, 0, offsetof(bank_result, wf));
    out->colliding_banks = 0;
    if (detail)
        for (uint32_t p = 0; p < phases; p++)
            out->wf[p].lanes = phase_lanes(phase_bits, p);
    out->nwavefronts = detail ? phases : 0;
    out->wavefronts = phases;
    out->ideal = ideal;
    out->worst_bank_words = 1;
    out->worst_bank = (in->addr[0] >> 2) & (BANK_COUNT - 1) & ~((1u << (5 - group_bits)) - 1);
    out->conflicts = phases > ideal ? phases - ideal : 0;
}

/* 1 << i */
#define BANK_X4(M, i) M(i), M((i) + 1), M((i) + 2), M((i) + 3)
#define BANK_X16(M, i) BANK_X4(M, i), BANK_X4(M, (i) + 4), BANK_X4(M, (i) + 8), BANK_X4(M, (i) + 12)
#define BANK_X64(M, i) BANK_X16(M, i), BANK_X16(M, (i) + 16), BANK_X16(M, (i) + 32), BANK_X16(M, (i) + 48)
#define BANK_BIT(i) (1ull << (i))
static const uint64_t bank_bit[64] = {BANK_X64(BANK_BIT, 0)};

/* Some slot may be asked for two rows. Every (phase, bank group) slot collects the
 * rows asked of it as a set of row ids (bits of one word, or two when ids reach
 * 127); a phase costs its largest set, and a lane is served in the wavefront of its
 * row's rank within its slot. The sets are built by a fixed-count lane loop into two
 * copies (even and odd lanes), so that a run of lanes on one bank makes two short
 * store-to-load chains instead of one long one; the slot tests are vector compares;
 * only crowded slots are then visited, row by row. */
BANK_INLINE void bank_usual_slots(const bank_instr *in, bank_result *out, const uint32_t group_bits,
                                  const uint32_t n, const uint32_t merged, const uint32_t ideal,
                                  const uint8_t slot[BANK_LANES], const uint8_t id[BANK_LANES], const int wide,
                                  const int detail)
{
    const uint32_t phase_bits = group_bits + merged;
    const uint32_t phases = n >> phase_bits;
    const uint32_t lanes = n == 32 ? 0xffffffffu : (1u << n) - 1;
    const uint32_t group_mask = (1u << group_bits) - 1;

    /* req[word * 64 + copy * 32 + slot]: where[l] = slot | word * 64, bit[l] = id % 64 */
    const uint32_t nslots = phases << group_bits;
    uint8_t where[BANK_LANES], bit[BANK_LANES];
    for (uint32_t l = 0; l < n; l++) {
        where[l] = (uint8_t)((slot[l] & 31) | (wide ? (id[l] & 64) : 0));
        bit[l] = (uint8_t)(id[l] & 63);
    }
    uint64_t req[128];
    memset(req, 0, sizeof req[0] * (wide ? 128 : 64));
    for (uint32_t l = 0; l < n; l += 2) {
        req[where[l]] |= bank_bit[bit[l]];
        req[32 + where[l + 1]] |= bank_bit[bit[l + 1]];
    }

    uint32_t occupied = 0, crowded = 0;
#ifdef BANK_SIMD
    const __m128i zero = _mm_setzero_si128(), one = _mm_set1_epi64x(1);
    for (uint32_t s = 0; s < nslots; s += 2) {
        __m128i lo = _mm_or_si128(_mm_loadu_si128((const __m128i *)&req[s]), _mm_loadu_si128((const __m128i *)&req[32 + s]));
        _mm_storeu_si128((__m128i *)&req[s], lo);
        __m128i empty = _mm_cmpeq_epi64(lo, zero);
        __m128i single = _mm_cmpeq_epi64(_mm_and_si128(lo, _mm_sub_epi64(lo, one)), zero);
        if (wide) {
            __m128i hi = _mm_or_si128(_mm_loadu_si128((const __m128i *)&req[64 + s]),
                                      _mm_loadu_si128((const __m128i *)&req[96 + s]));
            _mm_storeu_si128((__m128i *)&req[64 + s], hi);
            __m128i hi_empty = _mm_cmpeq_epi64(hi, zero);
            __m128i hi_single = _mm_cmpeq_epi64(_mm_and_si128(hi, _mm_sub_epi64(hi, one)), zero);
            /* one row in all: one word single and the other empty */
            single = _mm_or_si128(_mm_and_si128(single, hi_empty), _mm_and_si128(hi_single, empty));
            empty = _mm_and_si128(empty, hi_empty);
        }
        occupied |= (uint32_t)_mm_movemask_pd(_mm_castsi128_pd(empty)) << s;
        crowded |= (uint32_t)_mm_movemask_pd(_mm_castsi128_pd(single)) << s;
    }
    const uint32_t all_slots = nslots == 32 ? 0xffffffffu : (1u << nslots) - 1;
    occupied = ~occupied & all_slots;
    crowded = ~crowded & all_slots;
#else
    for (uint32_t s = 0; s < nslots; s++) {
        req[s] |= req[32 + s];
        req[64 + s] = wide ? req[64 + s] | req[96 + s] : 0;
        uint32_t count = (uint32_t)__builtin_popcountll(req[s]) + (uint32_t)__builtin_popcountll(req[64 + s]);
        occupied |= (uint32_t)(count != 0) << s;
        crowded |= (uint32_t)(count > 1) << s;
    }
#endif
    if (!crowded) {
        bank_usual_clean(in, out, group_bits, phase_bits, phases, merged ? phases : ideal, detail);
        return;
    }

    /* best[p] = distinct rows << 5 | (31 - group): the largest names the phase's
     * costliest slot, the lowest group on ties. A phase without a crowded slot costs
     * 1, named by its first asked group. */
    uint32_t best[BANK_LANES / 8] = {0, 0, 0, 0}, in_slot[BANK_LANES];
    uint32_t colliding = 0, groups = 0, ncrowded = 0;
    for (uint32_t rest = crowded; rest; rest &= rest - 1) {
        uint32_t s = (uint32_t)__builtin_ctz(rest);
        uint32_t these = bytes_equal(slot, s) & lanes;
        in_slot[ncrowded++] = these;
        colliding |= these;
        groups |= 1u << (s & group_mask);
        uint32_t count = (uint32_t)__builtin_popcountll(req[s]) + (wide ? (uint32_t)__builtin_popcountll(req[64 + s]) : 0);
        uint32_t key = count << 5 | (31 - (s & group_mask));
        uint32_t p = (s >> group_bits) & 3;
        best[p] = key > best[p] ? key : best[p];
    }

    memset(out, 0, offsetof(bank_result, wf));
    /* A phase of 2^phase_bits lanes has at most that many wavefronts, and the phases'
     * lanes add up to n <= 32: the wavefronts fit the first 32 entries. */
    if (detail)
        for (uint32_t k = 0; k < BANK_LANES; k++)
            out->wf[k].lanes = 0;
    uint32_t total = 0, base[BANK_LANES / 8];
    for (uint32_t p = 0; p < phases; p++) {
        const uint32_t phase_slots = (group_bits == 5 ? 0xffffffffu : (1u << (1u << group_bits)) - 1) << (p << group_bits);
        uint32_t b = best[p] ? best[p] : 1u << 5 | (31 - ((uint32_t)__builtin_ctz(occupied & phase_slots) & group_mask));
        const uint32_t most = b >> 5;
        if (most > out->worst_bank_words) {
            out->worst_bank_words = most;
            out->worst_bank = (31 - (b & 31)) << (5 - group_bits);
        }
        if (detail)
            out->wf[total].lanes = phase_lanes(phase_bits, p) & ~colliding;
        base[p] = total;
        total += most;
    }

    /* Crowded slots, row by row in address order: the lanes asking for the row with
     * rank k in their slot are served in the phase's wavefront k. */
    uint32_t c = 0;
    for (uint32_t rest = detail ? crowded : 0; rest; rest &= rest - 1, c++) {
        uint32_t s = (uint32_t)__builtin_ctz(rest);
        bank_wavefront *wf = out->wf + base[(s >> group_bits) & 3];
        for (uint32_t w = 0; w < (wide ? 2u : 1u); w++) {
            for (uint64_t r = req[64 * w + s]; r; r &= r - 1, wf++)
                wf->lanes |= bytes_equal(id, 64 * w + (uint32_t)__builtin_ctzll(r)) & in_slot[c];
        }
    }
    out->nwavefronts = detail ? total : 0;

    const uint32_t banks_per_group = 1u << (5 - group_bits);
    const uint32_t group_banks = (uint32_t)((1ull << banks_per_group) - 1);
    uint32_t banks = 0;
    for (uint32_t rest = groups; rest; rest &= rest - 1)
        banks |= group_banks << (((uint32_t)__builtin_ctz(rest) * banks_per_group) & 31);
    out->colliding_banks = banks;
    out->colliding_lanes = colliding;
    out->wavefronts = total;
    out->ideal = merged ? phases : ideal;
    out->conflicts = total > out->ideal ? total - out->ideal : 0;
}

/* Row ids: offsets from the lowest row when the rows span less than 128 (one or two
 * words of row set), else ranks (below 32). */
BANK_INLINE void bank_usual_rows(const bank_instr *in, bank_result *out, const uint32_t group_bits, const uint32_t n,
                                 const uint32_t merged, const uint32_t ideal, const uint8_t slot[BANK_LANES],
                                 const uint32_t lo, const uint32_t hi, const int detail)
{
    uint8_t id[BANK_LANES];
    memset(id, 0xff, sizeof id); /* lanes beyond n match no row */
    if (hi - lo < 128) {
        for (uint32_t l = 0; l < n; l++)
            id[l] = (uint8_t)(((in->addr[l] >> 7) - lo) & 127);
        if (hi - lo >= 64) {
            bank_usual_slots(in, out, group_bits, n, merged, ideal, slot, id, 1, detail);
            return;
        }
    } else {
        bank_rank_rows(in->addr, n, id);
    }
    bank_usual_slots(in, out, group_bits, n, merged, ideal, slot, id, 0, detail);
}

/* Steps 1-3 for one shape, inlined once per op (and merge state) so that widths,
 * lane counts and shifts are constants and the per-lane loops vectorise. */
BANK_INLINE void bank_usual_phases(const bank_instr *in, bank_result *out, const uint32_t width_bits,
                                   const uint32_t n, const uint32_t merged, const uint32_t ideal,
                                   const uint32_t lo, const uint32_t hi, const int detail)
{
    const uint32_t *a = in->addr;
    const uint32_t group_bits = 7 - width_bits;
    const uint32_t group_mask = (1u << group_bits) - 1;
    const uint32_t phase_bits = group_bits + merged; /* lanes per phase: G, or 2G merged */
    const uint32_t phase_size = 1u << phase_bits;
    const uint32_t phases = n >> phase_bits;
    const uint32_t clean_ideal = merged ? phases : ideal;

    /* Every phase inside one 128-byte row: each slot sees one row. */
    uint32_t spread = 0;
    for (uint32_t p = 0; p < phases; p++) {
        const uint32_t lead = a[p * phase_size];
        for (uint32_t j = 0; j < phase_size; j++)
            spread |= a[p * phase_size + j] ^ lead;
    }
    if (spread < 128) {
        bank_usual_clean(in, out, group_bits, phase_bits, phases, clean_ideal, detail);
        return;
    }

    /* slot = phase * G + group; phase * G is the lane number with its low group_bits
     * cleared (after halving it when two phases merged). */
    uint8_t slot[BANK_LANES];
    memset(slot, 0xff, sizeof slot); /* lanes beyond n match no slot */
    for (uint32_t l = 0; l < n; l++)
        slot[l] = (uint8_t)((((l >> merged) & ~group_mask) | ((a[l] >> width_bits) & group_mask)) & 31);
    bank_usual_rows(in, out, group_bits, n, merged, ideal, slot, lo, hi, detail);
}

/* Returns 0 when the instruction is not the usual kind (the caller then takes the
 * general path, which also names any input error). */
BANK_INLINE int bank_usual(const bank_instr *in, bank_result *out, const uint32_t width_bits, const uint32_t n,
                           const uint32_t may_merge, const uint32_t ideal, const int detail)
{
    const uint32_t op_lanes = n == 32 ? 0xffffffffu : (1u << n) - 1;
    if (in->active_mask && (in->active_mask & op_lanes) != op_lanes)
        return 0;
    const uint32_t width = 1u << width_bits;
    uint32_t bits = 0, top = 0, low = UINT32_MAX;
    for (uint32_t l = 0; l < n; l++) {
        uint32_t a = in->addr[l];
        bits |= a;
        top = a > top ? a : top;
        low = a < low ? a : low;
    }
    if ((bits & (width - 1)) || top > BANK_SHARED_WINDOW - width)
        return 0;
    if (may_merge) {
        uint32_t d1 = 0, d2 = 0;
        for (uint32_t l = 0; l < BANK_LANES; l += 4) {
            const uint32_t *q = in->addr + l;
            d1 |= (q[0] ^ q[1]) | (q[2] ^ q[3]);
            d2 |= (q[0] ^ q[2]) | (q[1] ^ q[3]);
        }
        if (!d1 || !d2) {
            bank_usual_phases(in, out, width_bits, n, 1, ideal, low >> 7, top >> 7, detail);
            return 1;
        }
    }
    bank_usual_phases(in, out, width_bits, n, 0, ideal, low >> 7, top >> 7, detail);
    return 1;
}

/* Compiled also for the x86-64-v3 (AVX2, BMI2) and v4 (AVX-512) levels, picked at load
 * time by the CPU (GCC function multiversioning, an ifunc): the same C, encoded with
 * three-operand vector instructions and bit-manipulation ops, runs about a sixth
 * faster than the baseline -march build, which stays the fallback (and the one built
 * with BANK_NO_CLONES, for testing it). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__gnu_linux__) && \
    !defined(BANK_NO_CLONES) && !defined(BANK_NO_SIMD)
__attribute__((target_clones("default", "arch=x86-64-v3", "arch=x86-64-v4")))
#endif
static int bank_analyse_usual(const bank_instr *in, bank_result *out, const int detail)
{
    switch (in->op) {
    case BANK_OP_LDS32: return bank_usual(in, out, 2, 32, 0, 1, detail);
    case BANK_OP_LDS64: return bank_usual(in, out, 3, 32, 1, 2, detail);
    case BANK_OP_LDS128: return bank_usual(in, out, 4, 32, 1, 4, detail);
    case BANK_OP_STS32: return bank_usual(in, out, 2, 32, 0, 1, detail);
    case BANK_OP_STS64: return bank_usual(in, out, 3, 32, 0, 2, detail);
    case BANK_OP_STS128: return bank_usual(in, out, 4, 32, 0, 4, detail);
    case BANK_OP_LDSM_X1:
    case BANK_OP_STSM_X1: return bank_usual(in, out, 4, 8, 0, 1, detail);
    case BANK_OP_LDSM_X2:
    case BANK_OP_STSM_X2: return bank_usual(in, out, 4, 16, 0, 2, detail);
    case BANK_OP_LDSM_X4:
    case BANK_OP_STSM_X4: return bank_usual(in, out, 4, 32, 0, 4, detail);
    default: return 0;
    }
}


/* ---- the instruction ---------------------------------------------------------------- */

uint32_t bank_op_ideal(bank_op op)
{
    uint32_t m = bank_op_matrices(op);
    return m ? m : bank_op_access_bytes(op) / BANK_WIDTH;
}

static int bank_analyse_any(const bank_instr *in, bank_result *out, err_info *e, const int detail)
{
    if (!in || !out)
        return err_set(e, ERR_BAD_INPUT, "bank_analyse", "null instruction or result");
    if ((unsigned)in->op >= BANK_OP_COUNT)
        return err_set(e, ERR_BAD_INPUT, "op", "op value %d is not a bank_op", (int)in->op);
    if (bank_analyse_usual(in, out, detail))
        return ERR_OK;
    uint32_t width = bank_op_access_bytes(in->op);
    uint32_t lanes = used_lanes(in);
    int rc = check_addresses(in, lanes, width, e);
    if (rc)
        return rc;

    /* Only the bookkeeping before wf[] is cleared: wf entries are written as used. */
    memset(out, 0, offsetof(bank_result, wf));
    out->colliding_banks = 0;

    bank_phases ph;
    bank_split_phases(in, &ph);
    bank_merge_phases(in, lanes, &ph);
    uint32_t total = bank_phase_wavefronts(in, lanes, &ph, out);

    out->wavefronts = total;
    /* Merged loads (step 2) count as ideal one wavefront per merged phase: the H100
     * conflict counter reads wavefronts - 1 for merged lds64 and wavefronts - 2 for
     * merged lds128 (cases 46 50 54 58: 16/8/4/2 wavefronts, 15/7/3/1 conflicts). */
    out->ideal = ph.merged ? ph.count : bank_op_ideal(in->op);
    out->conflicts = total > out->ideal ? total - out->ideal : 0;
    if (!detail)
        out->nwavefronts = 0;
    return ERR_OK;
}

int bank_analyse(const bank_instr *in, bank_result *out, err_info *e)
{
    return bank_analyse_any(in, out, e, 1);
}

int bank_analyse_counts(const bank_instr *in, bank_result *out, err_info *e)
{
    return bank_analyse_any(in, out, e, 0);
}
