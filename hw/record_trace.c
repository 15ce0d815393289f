/* record_trace: a recorded launch as a trace (see record.h rec_to_trace). libc only. */
#include <stdlib.h>
#include <string.h>

#include "pipe_plan.h"
#include "record.h"

/* The earliest CTA start on %globaltimer: time 0 when the launch was not calibrated. */
static int64_t first_start(const rec_launch *l)
{
    uint64_t m = UINT64_MAX;
    for (uint32_t c = 0; c < l->ctas; c++)
        if (l->cta_time[4 * (size_t)c] && l->cta_time[4 * (size_t)c] < m)
            m = l->cta_time[4 * (size_t)c];
    return m == UINT64_MAX ? 0 : (int64_t)m;
}

static int64_t gt_to_kernel(const rec_launch *l)
{
    if (l->gt_offset != REC_NO_OFFSET && l->cupti_start)
        return (int64_t)l->cupti_start - l->gt_offset;
    return first_start(l);
}

/* Without a description: the role of each warp from what it recorded. */
static uint8_t role_of(const rec_launch *l, size_t gw, uint32_t n)
{
    int copies = 0, work = 0;
    const run_raw_ev *ev = l->ev + gw * l->stride;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t kind = run_raw_norm(&ev[k]).kind_flags & 15u;
        copies |= kind == TRACE_TMA_ISSUE || kind == TRACE_CPASYNC_ISSUE || kind == TRACE_BAR_EXPECT_TX ||
                  kind == TRACE_TMA_FLIGHT || kind == RUN_KIND_PRODUCED;
        work |= kind == TRACE_SMEM_READ || kind == TRACE_MATH || kind == TRACE_RELEASE || kind == RUN_KIND_CONSUMED;
    }
    return copies && work ? TRACE_ROLE_MIXED : copies ? TRACE_ROLE_PRODUCER : TRACE_ROLE_CONSUMER;
}

static uint8_t trace_flags_of(uint32_t raw_flags)
{
    return (uint8_t)((raw_flags & RUN_EVF_FULL ? TRACE_FLAG_FULL_BARRIER : 0) |
                     (raw_flags & RUN_EVF_TIMEOUT ? TRACE_FLAG_TIMEOUT : 0));
}

/* One trace event of a record without a description. */
static int push_generic(trace *out, trace_event te, uint32_t kind, uint32_t fl, int64_t dur, err_info *e)
{
    te.kind = (uint8_t)kind;
    te.flags = trace_flags_of(fl);
    if (kind == TRACE_WAIT || kind == TRACE_SMEM_READ || kind == TRACE_MATH || kind == TRACE_TMA_STORE ||
        kind == TRACE_TMA_FLIGHT)
        te.dur_ns = (uint32_t)(dur < 0 ? 0 : dur);
    return trace_push(out, &te, e) != ERR_OK ? (e ? e->code : ERR_IO) : ERR_OK;
}

/* The records as they are: kind, stage, barrier and times; waits that did not block are
 * dropped (a wait event is a stall, as in the simulator); a consumed stage is its read
 * and its math, a produced stage its expect_tx and one copy issue (stage 0: the record
 * has none). */
static int generic_trace(const rec_launch *l, uint32_t trace_ctas, trace *out, uint32_t *overflowed, err_info *e)
{
    const int64_t t0 = gt_to_kernel(l);
    int rc = ERR_OK;
    for (uint32_t c = 0; c < l->ctas && rc == ERR_OK; c++) {
        const uint64_t *ct = l->cta_time + 4 * (size_t)c;
        double npc = ct[3] > ct[1] && ct[2] > ct[0] ? (double)(ct[2] - ct[0]) / (double)(ct[3] - ct[1]) : 1.0 / 1.98;
        for (uint32_t w = 0; w < l->nwarps && rc == ERR_OK; w++) {
            size_t gw = (size_t)c * l->nwarps + w;
            uint32_t n = l->evn[gw];
            if (n == RUN_EVN_UNRECORDED || n > l->cap) {
                (*overflowed)++;
                n = n == RUN_EVN_UNRECORDED ? 0 : l->cap;
            }
            const uint8_t role = role_of(l, gw, n);
            if (trace_ctas && c >= trace_ctas)
                continue;
            for (uint32_t k = 0; k < n && rc == ERR_OK; k++) {
                const run_raw_ev nr = run_raw_norm(&l->ev[gw * l->stride + k]), *r = &nr;
                const uint32_t kind = r->kind_flags & 15u, fl = r->kind_flags >> 4;
                const uint32_t hi = (uint32_t)r->stage | (uint32_t)r->barrier << 8 | (uint32_t)r->aux << 16;
                int64_t t = (int64_t)ct[0] + (int64_t)((double)(uint32_t)(r->t - (uint32_t)ct[1]) * npc) - t0;
                const int64_t dur = (int64_t)((double)r->dur * npc + 0.5), dhi = (int64_t)((double)hi * npc + 0.5);
                trace_event te = {.t_ns = t < 0 ? 0 : t, .iteration = r->iter, .cta = (uint16_t)c,
                                  .sm = (uint8_t)l->cta_sm[c], .warp = (uint8_t)w, .role = role, .stage = r->stage,
                                  .barrier = r->barrier, .source = TRACE_SRC_HW};
                if (kind == RUN_KIND_CONSUMED || kind == RUN_KIND_PRODUCED) {
                    const int cons = kind == RUN_KIND_CONSUMED;
                    te.stage = te.barrier = 0;
                    rc = push_generic(out, te, cons ? TRACE_SMEM_READ : TRACE_BAR_EXPECT_TX, cons ? 0 : RUN_EVF_FULL,
                                      dur, e);
                    te.t_ns += dur;
                    if (rc == ERR_OK)
                        rc = push_generic(out, te, cons ? TRACE_MATH : TRACE_TMA_ISSUE, 0, dhi, e);
                    te.t_ns += dhi;
                    if (rc == ERR_OK && cons && (fl & RUN_EVF_RELEASED))
                        rc = push_generic(out, te, TRACE_RELEASE, 0, 0, e);
                } else if (kind < TRACE_KIND_COUNT && !(kind == TRACE_WAIT && !(fl & (RUN_EVF_BLOCKED | RUN_EVF_TIMEOUT)))) {
                    rc = push_generic(out, te, kind, fl, dur, e);
                }
            }
        }
    }
    out->truncated = *overflowed != 0;
    trace_sort(out);
    return rc;
}

int rec_to_trace(const rec_launch *l, const pipe_desc *d, const char *desc_text, size_t desc_len, uint32_t trace_ctas,
                 trace *out, rec_summary *s, err_info *e)
{
    memset(s, 0, sizeof *s);
    const size_t warps = (size_t)l->ctas * l->nwarps;
    for (size_t w = 0; w < warps; w++) {
        if (l->evn[w] == RUN_EVN_UNRECORDED)
            s->unrecorded++;
        else
            s->records += l->evn[w] < l->cap ? l->evn[w] : l->cap;
    }
    for (uint32_t c = 0; c < l->ctas; c++)
        s->ctas_missing += l->cta_time[4 * (size_t)c] == 0;
    uint32_t bad = 0;
    int rc;
    if (d) {
        const uint32_t dw = d->producer_warps + d->consumer_warps;
        if (d->ctas != l->ctas)
            return err_set(e, ERR_BAD_INPUT, "grid.ctas", "the description has %u CTAs, kernel %s ran %u", d->ctas,
                           l->kernel, l->ctas);
        if (dw != l->nwarps)
            return err_set(e, ERR_BAD_INPUT, "warps", "the description has %u warps per CTA, kernel %s ran %u", dw,
                           l->kernel, l->nwarps);
        run_raw raw = {l->ev, l->evn, l->cta_time, l->cta_sm, gt_to_kernel(l), trace_ctas, l->cap, l->nwarps, l->stride};
        rc = run_ref_trace(d, &raw, out, &bad, e);
        if (rc == ERR_OK && desc_text)
            rc = trace_set_desc(out, desc_text, desc_len, pipe_plan_hash(d), e);
    } else {
        rc = generic_trace(l, trace_ctas, out, &bad, e);
    }
    if (rc)
        return rc;
    s->overflowed = bad - s->unrecorded;
    out->source = TRACE_SRC_HW;
    if (l->cupti_end > l->cupti_start)
        out->kernel_ns = (int64_t)(l->cupti_end - l->cupti_start);
    return ERR_OK;
}
