/* viz_synth: a small, fully known warp-specialized TMA pipeline trace for the viewer's
 * tests and benchmarks. One producer warp (warp 0) and `consumers` consumer warps per
 * CTA, `stages` buffers; every timing is a parameter, so each test can derive by hand
 * what the viewer must show (e.g. consumers stall when flight > read + math).
 *
 * Per iteration it of a CTA (stage s = it % stages, phase = it / stages):
 *   producer: waits on empty[s] until all consumers released iteration it - stages,
 *             issues at tp: tma_issue, bar_expect_tx(bytes), tma_flight [tp, tp+flight],
 *             bar_complete_tx and phase_complete(full[s]) at tp + flight; tp += issue_gap.
 *   consumer: wait [tc, ready] if the data is not there yet, smem_read [.., +read],
 *             math [.., +math], release at the end; the last release completes empty[s]. */
#ifndef TMASCOPE_VIZ_SYNTH_H
#define TMASCOPE_VIZ_SYNTH_H

#include <stdint.h>
#include <string.h>

#include "trace.h"

typedef struct synth_opts {
    unsigned ctas, consumers, stages, iterations;
    uint32_t flight_ns, read_ns, math_ns, issue_gap_ns;
    uint32_t bytes;
    uint8_t source;
} synth_opts;

static inline void synth_push(trace *t, int64_t ts, uint32_t dur, trace_kind k, unsigned cta, unsigned warp,
                              trace_role role, unsigned stage, unsigned it, unsigned barrier, unsigned phase,
                              uint32_t bytes, uint8_t flags, uint8_t source)
{
    trace_event ev;
    memset(&ev, 0, sizeof ev);
    ev.t_ns = ts;
    ev.dur_ns = dur;
    ev.kind = (uint8_t)k;
    ev.cta = (uint16_t)cta;
    ev.sm = (uint8_t)(cta % 132);
    ev.warp = (uint8_t)warp;
    ev.role = (uint8_t)role;
    ev.stage = (uint8_t)stage;
    ev.iteration = it;
    ev.barrier = (uint8_t)barrier;
    ev.phase = (uint16_t)phase;
    ev.bytes = bytes;
    ev.flags = flags;
    ev.source = source;
    trace_push(t, &ev, NULL);
}

/* Fills t (trace_init'ed by the caller) and sorts it. Returns the kernel end time. */
static inline int64_t synth_fill(trace *t, const synth_opts *o)
{
    enum { MAXS = 32, MAXC = 16 };
    int64_t kernel_end = 0;
    for (unsigned cta = 0; cta < o->ctas; cta++) {
        int64_t released[MAXS];   /* when empty[s] last completed */
        int64_t tc[MAXC];
        int64_t tp = 0;
        for (unsigned s = 0; s < MAXS; s++) released[s] = 0;
        for (unsigned c = 0; c < MAXC; c++) tc[c] = 0;
        for (unsigned it = 0; it < o->iterations; it++) {
            unsigned s = it % o->stages, ph = it / o->stages;
            unsigned full = s, empty = o->stages + s;
            if (it >= o->stages && released[s] > tp) {
                synth_push(t, tp, (uint32_t)(released[s] - tp), TRACE_WAIT, cta, 0, TRACE_ROLE_PRODUCER, s, it, empty,
                           ph - 1, 0, 0, o->source);
                tp = released[s];
            }
            synth_push(t, tp, 0, TRACE_TMA_ISSUE, cta, 0, TRACE_ROLE_PRODUCER, s, it, full, ph, o->bytes,
                       TRACE_FLAG_FULL_BARRIER, o->source);
            synth_push(t, tp, 0, TRACE_BAR_EXPECT_TX, cta, 0, TRACE_ROLE_PRODUCER, s, it, full, ph, o->bytes,
                       TRACE_FLAG_FULL_BARRIER, o->source);
            synth_push(t, tp, o->flight_ns, TRACE_TMA_FLIGHT, cta, 0, TRACE_ROLE_PRODUCER, s, it, full, ph, o->bytes,
                       TRACE_FLAG_FULL_BARRIER, o->source);
            int64_t ready = tp + o->flight_ns;
            synth_push(t, ready, 0, TRACE_BAR_COMPLETE_TX, cta, 0, TRACE_ROLE_PRODUCER, s, it, full, ph, o->bytes,
                       TRACE_FLAG_FULL_BARRIER, o->source);
            synth_push(t, ready, 0, TRACE_PHASE_COMPLETE, cta, 0, TRACE_ROLE_PRODUCER, s, it, full, ph, 0,
                       TRACE_FLAG_FULL_BARRIER, o->source);
            tp += o->issue_gap_ns;
            int64_t last_release = 0;
            for (unsigned c = 0; c < o->consumers; c++) {
                unsigned w = 1 + c;
                if (ready > tc[c]) {
                    synth_push(t, tc[c], (uint32_t)(ready - tc[c]), TRACE_WAIT, cta, w, TRACE_ROLE_CONSUMER, s, it,
                               full, ph, 0, TRACE_FLAG_FULL_BARRIER, o->source);
                    tc[c] = ready;
                }
                synth_push(t, tc[c], o->read_ns, TRACE_SMEM_READ, cta, w, TRACE_ROLE_CONSUMER, s, it, full, ph,
                           o->bytes, 0, o->source);
                tc[c] += o->read_ns;
                synth_push(t, tc[c], o->math_ns, TRACE_MATH, cta, w, TRACE_ROLE_CONSUMER, s, it, full, ph, 0, 0,
                           o->source);
                tc[c] += o->math_ns;
                synth_push(t, tc[c], 0, TRACE_RELEASE, cta, w, TRACE_ROLE_CONSUMER, s, it, empty, ph, 0, 0, o->source);
                if (tc[c] > last_release) last_release = tc[c];
                if (tc[c] > kernel_end) kernel_end = tc[c];
            }
            synth_push(t, last_release, 0, TRACE_PHASE_COMPLETE, cta, 1, TRACE_ROLE_CONSUMER, s, it, empty, ph, 0, 0,
                       o->source);
            released[s] = last_release;
        }
    }
    trace_sort(t);
    t->kernel_ns = kernel_end;
    return kernel_end;
}

#endif
