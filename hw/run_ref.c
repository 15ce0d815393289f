/* run_ref: references and trace conversion of `tmahw run` (see run_ref.h). */
#include "run_ref.h"

#include <stdlib.h>
#include <string.h>

#include "pipe_plan.h"

static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

void run_ref_fill(uint8_t *buf, uint64_t size, uint32_t tensor)
{
    const uint64_t salt = (uint64_t)(tensor + 1) << 56;
    uint64_t words = size / 8;
    for (uint64_t w = 0; w < words; w++) {
        uint64_t v = mix64(salt ^ w);
        memcpy(buf + 8 * w, &v, 8);
    }
    for (uint64_t b = words * 8; b < size; b++)
        buf[b] = (uint8_t)mix64(salt ^ b);
}

uint64_t run_ref_tensor_bytes(const tm_desc *m)
{
    const tm_dtype_info *inf = tm_dtype_get(m->dtype);
    uint64_t eb = inf && inf->bits >= 8 ? inf->bits / 8 : 1;
    uint64_t end = m->dims[0] * eb;
    for (uint32_t k = 1; k < m->rank; k++)
        end += (m->dims[k] - 1) * m->strides[k - 1];
    return end;
}

/* What one warp's reads of one stage load, as tile-relative global byte offsets: every
 * 32-bit register a lane receives is (16 bits at lo) | (16 bits at hi) << 16, weighted as
 * in hw/run_kernel.cuh (consume). Placement through the layout model (tm_plan_element_at)
 * at tile coordinates 0; tiles are whole boxes inside the tensor, so it is the same for
 * every tile. */
typedef struct read_word {
    uint64_t lo, hi;
    uint32_t weight;
} read_word;

static int rel_of(const tm_plan *p, uint32_t smem, uint64_t *rel)
{
    tm_element el;
    uint32_t byte = 0;
    if (!tm_plan_element_at(p, smem, &el, &byte) || el.oob)
        return -1;
    *rel = el.global_offset + byte;
    return 0;
}

static int read_words(const run_gen_info *g, const tm_plan *p, uint32_t chunk, read_word *out, uint32_t *n, err_info *e)
{
    uint32_t regs = 1;
    switch (g->rd_op) {
    case BANK_OP_LDS64: case BANK_OP_LDSM_X2: regs = 2; break;
    case BANK_OP_LDS128: case BANK_OP_LDSM_X4: regs = 4; break;
    default: regs = 1; break;
    }
    const int matrix = bank_op_matrices(g->rd_op) != 0;
    const uint32_t base = p->copy.smem_address;
    *n = 0;
    for (uint32_t q = 0; q < g->rd_n; q++) {
        const uint32_t *tab = g->rd_tab + (size_t)(chunk * g->rd_n + q) * 32;
        for (uint32_t l = 0; l < 32; l++) {
            uint32_t w0 = ((q * 32 + l) * 4) * 2 + 1;
            for (uint32_t j = 0; j < regs; j++) {
                uint32_t a_lo, a_hi;
                if (!matrix) {
                    a_lo = base + tab[l] + 4 * j;
                    a_hi = a_lo + 2;
                } else if (!g->rd_trans) {
                    a_lo = base + tab[8 * j + l / 4] + 4 * (l % 4);
                    a_hi = a_lo + 2;
                } else {
                    a_lo = base + tab[8 * j + 2 * (l % 4)] + 2 * (l / 4);
                    a_hi = base + tab[8 * j + 2 * (l % 4) + 1] + 2 * (l / 4);
                }
                read_word *w = &out[(*n)++];
                w->weight = w0 + 2 * j;
                if (rel_of(p, a_lo, &w->lo) || rel_of(p, a_lo + 1, &w->lo) || rel_of(p, a_hi, &w->hi) ||
                    rel_of(p, a_hi + 1, &w->hi))
                    return err_set(e, ERR_BAD_INPUT, "consumer.reads", "read of shared byte %u or %u is outside the "
                                   "box (padding): its value is not defined", a_lo, a_hi);
                /* rel_of(a + 1) overwrote lo/hi with the second byte's offset: step back */
                w->lo -= 1;
                w->hi -= 1;
            }
        }
    }
    return ERR_OK;
}

static uint32_t rd16(const uint8_t *b, uint64_t size, uint64_t at)
{
    return at + 2 <= size ? (uint32_t)b[at] | (uint32_t)b[at + 1] << 8 : 0;
}

int run_ref_sums(const pipe_desc *d, const run_gen_info *g, const uint8_t *const tensors[DESC_MAX_TENSORS],
                 const uint64_t sizes[DESC_MAX_TENSORS], uint32_t *sums, err_info *e)
{
    const uint32_t t = g->rd_tensor, nt = g->ntiles[t], share = g->rd_share;
    const uint32_t regs = g->rd_op == BANK_OP_LDS128 || g->rd_op == BANK_OP_LDSM_X4   ? 4
                          : g->rd_op == BANK_OP_LDS64 || g->rd_op == BANK_OP_LDSM_X2 ? 2
                                                                                     : 1;
    const uint32_t per = g->rd_n * 32 * regs;
    uint32_t *cache = calloc((size_t)nt * share, sizeof *cache);
    uint8_t *done = calloc(nt, 1);
    read_word *words = malloc(sizeof *words * (size_t)per * share);
    uint32_t *counts = calloc(share, sizeof *counts);
    tm_plan plan;
    int rc = ERR_OK;
    if (!cache || !done || !words || !counts) {
        rc = err_set(e, ERR_IO, "out_of_memory", "reference of %u tiles", nt);
        goto out;
    }
    tm_desc map = d->tensors[t].map;
    map.global_address = 0;
    tm_copy c0 = {.smem_address = d->smem_base + d->tensors[t].smem_offset};
    if ((rc = tm_plan_copy(&map, &c0, &plan, e)) != ERR_OK)
        goto out;
    for (uint32_t k = 0; k < share && rc == ERR_OK; k++)
        rc = read_words(g, &plan, k, words + (size_t)k * per, &counts[k], e);
    if (rc)
        goto out;
    memset(sums, 0, sizeof *sums * (size_t)d->ctas * g->nwarps);
    for (uint32_t cta = 0; cta < d->ctas; cta++) {
        uint32_t src = cta;
        if (d->mode == PIPE_STASYNC) {
            uint32_t base = cta - cta % d->cluster;
            src = base + ((cta - base) ^ 1u);
        }
        for (uint32_t it = 0; it < d->iterations; it++) {
            uint32_t id = run_gen_tile_id(d, src, it) % nt;
            if (!done[id]) {
                int32_t c[TM_MAX_RANK];
                run_gen_tile_coords(d, g, t, id, c);
                uint64_t origin = 0;
                for (uint32_t k = 0; k < map.rank; k++)
                    origin += (uint64_t)c[k] * plan.gstride[k];
                for (uint32_t k = 0; k < share; k++) {
                    uint32_t s = 0;
                    const read_word *w = words + (size_t)k * per;
                    for (uint32_t m = 0; m < counts[k]; m++)
                        s += (rd16(tensors[t], sizes[t], origin + w[m].lo) |
                              rd16(tensors[t], sizes[t], origin + w[m].hi) << 16) * w[m].weight;
                    cache[(size_t)id * share + k] = s * g->rd_repeat;
                }
                done[id] = 1;
            }
            for (uint32_t w = d->producer_warps; w < g->nwarps; w++)
                sums[(size_t)cta * g->nwarps + w] += cache[(size_t)id * share + (w - d->producer_warps) % share];
        }
    }
out:
    free(cache);
    free(done);
    free(words);
    free(counts);
    return rc;
}

/* A plain store writes the tile's bytes; a reduction add into the zeroed output writes
 * x + 0: the same value, except that NaNs may come back with another payload and -0
 * becomes +0 (IEEE addition), so floats are compared as values there. */
static int same_row(const pipe_desc *d, uint32_t eb, const uint8_t *got, const uint8_t *want, uint32_t n)
{
    if (d->store_reduce == PIPE_REDUCE_NONE || !memcmp(got, want, n))
        return 1;
    const tm_dtype t = d->tensors[0].map.dtype;
    for (uint32_t i = 0; i + eb <= n; i += eb) {
        uint32_t g = 0, w = 0;
        memcpy(&g, got + i, eb);
        memcpy(&w, want + i, eb);
        if (g == w)
            continue;
        if (t == TM_DTYPE_F16 && eb == 2) {
            if ((w & 0x7c00) == 0x7c00 && (w & 0x3ff) && (g & 0x7c00) == 0x7c00 && (g & 0x3ff))
                continue;
            if (w == 0x8000 && g == 0)
                continue;
        } else if (t == TM_DTYPE_BF16 && eb == 2) {
            if ((w & 0x7f80) == 0x7f80 && (w & 0x7f) && (g & 0x7f80) == 0x7f80 && (g & 0x7f))
                continue;
            if (w == 0x8000 && g == 0)
                continue;
        } else if ((t == TM_DTYPE_F32 || t == TM_DTYPE_F32FTZ) && eb == 4) {
            if ((w & 0x7f800000u) == 0x7f800000u && (w & 0x7fffffu) && (g & 0x7f800000u) == 0x7f800000u && (g & 0x7fffffu))
                continue;
            if (w == 0x80000000u && g == 0)
                continue;
        }
        return 0;
    }
    return 1;
}

uint64_t run_ref_check_stores(const pipe_desc *d, const run_gen_info *g, const uint8_t *tensor0, const uint8_t *out,
                              err_info *e)
{
    if (!g->stores_per_cta)
        return 0;
    const tm_desc *m = &d->tensors[0].map;
    const tm_dtype_info *inf = tm_dtype_get(m->dtype);
    uint32_t eb = inf && inf->bits >= 8 ? inf->bits / 8 : 1;
    uint32_t row = m->box[0] * eb, rows = g->store_rows;
    uint64_t bad = 0;
    for (uint32_t cta = 0; cta < d->ctas; cta++)
        for (uint32_t k = 0; k < g->stores_per_cta; k++) {
            uint32_t it = (k + 1) * d->store_every - 1;
            int32_t c[TM_MAX_RANK];
            run_gen_tile_coords(d, g, 0, run_gen_tile_id(d, cta, it), c);
            const uint8_t *o = out + ((uint64_t)cta * g->stores_per_cta + k) * rows * row;
            for (uint32_t r = 0; r < rows; r++) {
                const uint8_t *src = tensor0 + (uint64_t)(c[1] + (int32_t)r) * m->strides[0] + (uint64_t)c[0] * eb;
                if (!same_row(d, eb, o + (uint64_t)r * row, src, row)) {
                    if (bad++ == 0)
                        err_set(e, ERR_FINDING, "store_mismatch",
                                "CTA %u store %u (iteration %u): row %u differs from tensor 0 at (%d, %d)", cta, k, it,
                                r, c[0], c[1] + (int32_t)r);
                    break;
                }
            }
        }
    return bad;
}

/* ---------------------------------------------------------------- trace conversion */
enum { RAW_TMA_ISSUE = 0, RAW_STAS_FLIGHT = 1, RAW_EXPECT_TX = 3, RAW_WAIT = 6, RAW_SMEM_READ = 7, RAW_MATH = 8,
       RAW_RELEASE = 9, RAW_CPASYNC_ISSUE = 10, RAW_TMA_STORE = 11, RAW_CONSUMED = RUN_KIND_CONSUMED,
       RAW_PRODUCED = RUN_KIND_PRODUCED };

/* a record with its kind and flags apart; t and dur in SM cycles */
typedef struct raw_rec {
    uint32_t t, dur, iter;
    uint8_t kind, flags, stage, aux;
} raw_rec;
#define RAW_EXPAND_MAX (DESC_MAX_TENSORS + 3)

run_raw_ev run_raw_norm(const run_raw_ev *r)
{
    run_raw_ev n = *r;
    const uint32_t kind = r->kind_flags & 15u, fl = r->kind_flags >> 4u;
    if (kind == RUN_KIND_CONSUMED_CLK || kind == RUN_KIND_PRODUCED_CLK) {
        /* {t0, t1, t2, iter << 8 | flags << 4 | kind} */
        uint32_t second = r->iter - r->dur;
        second = second < 0xffffffu ? second : 0xffffffu;
        n.dur = r->dur - r->t;
        n.iter = (uint32_t)r->stage | (uint32_t)r->barrier << 8 | (uint32_t)r->aux << 16;
        n.kind_flags = (uint8_t)((kind == RUN_KIND_CONSUMED_CLK ? RUN_KIND_CONSUMED : RUN_KIND_PRODUCED) | fl << 4u);
        n.stage = (uint8_t)second;
        n.barrier = (uint8_t)(second >> 8);
        n.aux = (uint8_t)(second >> 16);
    } else if (kind == TRACE_WAIT && (fl & RUN_EVF_END_CLOCK)) {
        n.dur = r->dur ? r->dur - r->t : 0u;
        n.kind_flags = (uint8_t)(kind | (fl & ~RUN_EVF_END_CLOCK) << 4u);
    }
    return n;
}

/* One device record as the events it stands for (hw/record.cuh): a consumed stage is its
 * read and its math (those the description has) and, flagged, the release of iteration -
 * release_lag at the math's end; a produced stage its expect_tx and one
 * issue per tensor, spread evenly from the first issue to the last. Every event's stage
 * is its iteration's. Returns the number of events. */
static uint32_t expand(const run_raw_ev *dev, const pipe_desc *d, raw_rec out[RAW_EXPAND_MAX])
{
    const run_raw_ev nev = run_raw_norm(dev), *ev = &nev;
    const raw_rec r = {ev->t, ev->dur, ev->iter, (uint8_t)(ev->kind_flags & 15u), (uint8_t)(ev->kind_flags >> 4),
                       (uint8_t)(ev->iter % d->stages), ev->aux};
    const uint32_t hi = (uint32_t)ev->stage | (uint32_t)ev->barrier << 8 | (uint32_t)ev->aux << 16;   /* bits 8..31 */
    uint32_t n = 0;
    if (r.kind == RUN_KIND_GROUP_STEP_CLK) {
        /* the clocks as read: t, dur, iter hold t_wait, t_bar, t_issue */
        const uint32_t i = hi, j = i + d->stages - 1u;
        const uint8_t s = (uint8_t)(i % d->stages);
        if (r.flags & RUN_EVF_BLOCKED)
            out[n++] = (raw_rec){r.t, r.dur - r.t, i, RAW_WAIT, RUN_EVF_FULL | RUN_EVF_BLOCKED, s, 0};
        if (r.flags & RUN_EVF_BAR_BLOCKED)
            out[n++] = (raw_rec){r.dur, r.iter - r.dur, i, RAW_WAIT, RUN_EVF_BLOCKED, s, 1};
        if (j < d->iterations)
            out[n++] = (raw_rec){r.iter, 0, j, RAW_CPASYNC_ISSUE, 0, (uint8_t)(j % d->stages), 0};
        return n;
    }
    if (r.kind == RAW_CONSUMED) {
        if (d->reads_enabled)
            out[n++] = (raw_rec){r.t, r.dur, r.iter, RAW_SMEM_READ, 0, r.stage, 0};
        if (d->math != PIPE_MATH_NONE)
            out[n++] = (raw_rec){r.t + r.dur, hi, r.iter, RAW_MATH, 0, r.stage, 0};
        if ((r.flags & RUN_EVF_RELEASED) && r.iter >= d->release_lag) {
            const uint32_t it = r.iter - d->release_lag;
            out[n++] = (raw_rec){r.t + r.dur + hi, 0, it, RAW_RELEASE, 0, (uint8_t)(it % d->stages), RUN_AUX_OWN_CTA};
        }
        return n;
    }
    if (r.kind == RAW_PRODUCED) {
        out[n++] = (raw_rec){r.t, 0, r.iter, RAW_EXPECT_TX, RUN_EVF_FULL, r.stage, 0};
        const uint32_t nt = d->ntensors ? d->ntensors : 1;
        for (uint32_t k = 0; k < nt; k++)
            out[n++] = (raw_rec){r.t + r.dur + (nt > 1 ? (uint32_t)((uint64_t)hi * k / (nt - 1)) : 0u), 0, r.iter,
                                 RAW_TMA_ISSUE, 0, r.stage, (uint8_t)k};
        return n;
    }
    out[0] = r;
    return 1;
}

/* The stage was seen full at the end of a consumer's stalled wait, or (no stall) at the
 * latest when a consumer read, computed or released it: INT64_MAX when r says nothing. */
static int64_t seen_full(const pipe_desc *d, const raw_rec *r, int64_t t, int64_t dur)
{
    if (r->kind == RAW_WAIT && (r->flags & RUN_EVF_FULL) && !(r->flags & RUN_EVF_TIMEOUT) &&
        (d->cpasync_groups || r->aux == 0))
        return t + dur;
    if (r->kind == RAW_SMEM_READ || r->kind == RAW_MATH || r->kind == RAW_RELEASE)
        return t;
    return INT64_MAX;
}

/* The trace event(s) of one record: te has the time, CTA, SM, warp, role and kind set;
 * flight_end is when the CTA's consumers saw the stage full. */
static int emit(const pipe_desc *d, const raw_rec *r, trace_event te, int64_t dur, int64_t flight_end, trace *out,
                err_info *e)
{
    const uint32_t S = d->stages, k_ = r->iter / S, c = te.cta, base = c - c % d->cluster;
    const int64_t t = te.t_ns;
    switch (r->kind) {
    case RAW_WAIT: {
        if (!(r->flags & (RUN_EVF_BLOCKED | RUN_EVF_TIMEOUT)))
            return ERR_OK;
        int full = (r->flags & RUN_EVF_FULL) != 0;
        te.dur_ns = (uint32_t)dur;
        te.barrier = (uint8_t)(full ? r->stage : S + r->stage);
        /* producer-side waits (aux 1) are for the stage's previous phase */
        te.phase = (uint16_t)(r->aux ? (k_ ? k_ - 1 : 0) : k_);
        if (d->cpasync_groups) {   /* sim numbering: wait_group 2S, bar.sync 2S+1 */
            te.barrier = (uint8_t)(2 * S + (r->aux ? 1u : 0u));
            te.phase = 0;
        }
        te.flags = (uint8_t)((full ? TRACE_FLAG_FULL_BARRIER : 0) | (r->flags & RUN_EVF_TIMEOUT ? TRACE_FLAG_TIMEOUT : 0));
        break;
    }
    case RAW_EXPECT_TX:
        if (r->aux)
            te.cta = (uint16_t)(base + ((c - base) ^ 1u));
        te.bytes = d->expect_tx;
        te.barrier = r->stage;
        te.phase = (uint16_t)k_;
        te.flags = TRACE_FLAG_FULL_BARRIER | (r->aux ? TRACE_FLAG_REMOTE : 0);
        break;
    case RAW_TMA_ISSUE: {
        uint32_t tx = r->aux < d->ntensors ? d->tensors[r->aux].tx_bytes : 0;
        te.bytes = d->multicast ? tx / d->cluster : tx;
        te.barrier = r->stage;
        te.phase = (uint16_t)k_;
        te.flags = d->multicast ? TRACE_FLAG_MULTICAST : 0;
        if (trace_push(out, &te, e) != ERR_OK)
            return e ? e->code : ERR_IO;
        te.kind = TRACE_TMA_FLIGHT;
        te.flags |= TRACE_FLAG_FULL_BARRIER;
        te.dur_ns = flight_end != INT64_MAX && flight_end > t ? (uint32_t)(flight_end - t) : 0;
        break;
    }
    case RAW_CPASYNC_ISSUE:
        te.bytes = d->copy_bytes / d->consumer_warps;
        te.barrier = d->cpasync_groups ? (uint8_t)(2 * S) : r->stage;
        te.phase = d->cpasync_groups ? 0 : (uint16_t)k_;
        if (trace_push(out, &te, e) != ERR_OK)
            return e ? e->code : ERR_IO;
        te.kind = TRACE_TMA_FLIGHT;
        te.flags = TRACE_FLAG_FULL_BARRIER;
        te.dur_ns = flight_end != INT64_MAX && flight_end > t ? (uint32_t)(flight_end - t) : 0;
        break;
    case RAW_STAS_FLIGHT:
        te.kind = TRACE_TMA_FLIGHT;
        te.cta = (uint16_t)(base + ((c - base) ^ 1u));
        te.bytes = d->copy_bytes;
        te.barrier = r->stage;
        te.phase = (uint16_t)k_;
        te.dur_ns = (uint32_t)dur;
        te.flags = TRACE_FLAG_FULL_BARRIER | TRACE_FLAG_REMOTE;
        break;
    case RAW_SMEM_READ:
        te.dur_ns = (uint32_t)dur;
        te.bytes = (uint32_t)d->read_bytes;
        te.barrier = r->stage;
        te.phase = (uint16_t)k_;
        break;
    case RAW_MATH:
        te.dur_ns = (uint32_t)dur;
        break;
    case RAW_RELEASE:
        te.cta = (uint16_t)(r->aux == RUN_AUX_OWN_CTA ? c : base + r->aux);
        te.barrier = (uint8_t)(S + r->stage);
        te.phase = (uint16_t)k_;
        te.flags = te.cta != c ? TRACE_FLAG_REMOTE : 0;
        break;
    case RAW_TMA_STORE:
        te.dur_ns = (uint32_t)dur;
        te.bytes = d->store_bytes;
        te.flags = d->store_reduce != PIPE_REDUCE_NONE ? TRACE_FLAG_REDUCE : 0;
        break;
    default:
        return ERR_OK;
    }
    return trace_push(out, &te, e) != ERR_OK ? (e ? e->code : ERR_IO) : ERR_OK;
}

int run_ref_trace(const pipe_desc *d, const run_raw *raw, trace *out, uint32_t *overflowed, err_info *e)
{
    const uint32_t nw = raw->nwarps;
    *overflowed = 0;
    /* when each CTA's consumers first saw full[s] of an iteration complete: the end of
     * the copies' flight as the hardware lets us observe it (an upper bound when no
     * consumer was waiting) */
    int64_t *seen = malloc(sizeof *seen * (size_t)d->ctas * d->iterations);
    double *npc = malloc(sizeof *npc * d->ctas);
    if (!seen || !npc) {
        free(seen);
        free(npc);
        return err_set(e, ERR_IO, "out_of_memory", "trace conversion");
    }
    for (size_t k = 0; k < (size_t)d->ctas * d->iterations; k++)
        seen[k] = INT64_MAX;
    for (uint32_t c = 0; c < d->ctas; c++) {
        const uint64_t *ct = raw->cta_time + 4 * (size_t)c;
        npc[c] = ct[3] > ct[1] && ct[2] > ct[0] ? (double)(ct[2] - ct[0]) / (double)(ct[3] - ct[1]) : 1.0 / 1.98;
    }
    int rc = ERR_OK;
    for (int pass = 0; pass < 2 && rc == ERR_OK; pass++)
        for (uint32_t c = 0; c < d->ctas && rc == ERR_OK; c++)
            for (uint32_t w = 0; w < nw && rc == ERR_OK; w++) {
                if (pass == 1 && raw->trace_ctas && c >= raw->trace_ctas)
                    break;
                size_t gw = (size_t)c * nw + w;
                uint32_t n = raw->evn[gw];
                if (n == RUN_EVN_UNRECORDED || n > raw->ev_cap) {
                    if (pass == 0)
                        (*overflowed)++;
                    n = n == RUN_EVN_UNRECORDED ? 0 : raw->ev_cap;
                }
                const run_raw_ev *ev = raw->ev + gw * (raw->ev_stride ? raw->ev_stride : raw->ev_cap);
                const uint32_t clk0 = (uint32_t)raw->cta_time[4 * (size_t)c + 1];
                for (uint32_t k = 0; k < n && rc == ERR_OK; k++) {
                    raw_rec x[RAW_EXPAND_MAX];
                    uint32_t nx = expand(&ev[k], d, x);
                    for (uint32_t q = 0; q < nx && rc == ERR_OK; q++) {
                        const raw_rec *r = &x[q];
                        if (r->iter >= d->iterations)
                            continue;
                        /* r->t: low 32 bits of the SM clock; the CTA's start clock is cta_time[1] */
                        int64_t t = (int64_t)raw->cta_time[4 * (size_t)c] + (int64_t)((double)(r->t - clk0) * npc[c]) -
                                    raw->gt_to_kernel_ns;
                        int64_t dur = (int64_t)((double)r->dur * npc[c] + 0.5);
                        int64_t *sf = &seen[(size_t)c * d->iterations + r->iter];
                        if (pass == 0) {
                            int64_t obs = seen_full(d, r, t, dur);
                            if (obs < *sf)
                                *sf = obs;
                            continue;
                        }
                        trace_event te = {.t_ns = t < 0 ? 0 : t, .iteration = r->iter, .cta = (uint16_t)c,
                                          .sm = (uint8_t)raw->cta_sm[c], .warp = (uint8_t)w,
                                          .role = (uint8_t)pipe_plan_role(d, w), .stage = r->stage, .kind = r->kind,
                                          .source = TRACE_SRC_HW};
                        rc = emit(d, r, te, dur, *sf, out, e);
                    }
                }
            }
    free(seen);
    free(npc);
    if (rc != ERR_OK)
        return rc;
    out->truncated = *overflowed != 0;
    trace_sort(out);
    return ERR_OK;
}
