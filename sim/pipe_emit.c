/* pipe_emit: the simulator's trace output, written in time order as the run goes.
 *
 * Trace events go into the output in time order, so that the final sort only has to
 * order ties: events stamped with the simulation clock (`now`, monotonic) are appended
 * at once; events stamped in the near future (a TMA issue after its issue cost) wait
 * in `soon`, a small min-heap on time, and are appended as soon as the clock has
 * passed them. Only spans that start before the last appended event (an st.async
 * flight that began at its first trip) go to `late`, which is sorted alone and merged
 * in from the back at the end. No copy of the whole trace is made. */
#include <stdint.h>
#include <stdlib.h>

#include "pipe_sim.h"

static int append(sim *s, trace *t, const trace_event *ev)
{
    if (t->count < t->capacity) {   /* the run reserves its estimate up front: no call per event */
        t->events[t->count++] = *ev;
        return 1;
    }
    if (trace_push(t, ev, NULL) != ERR_OK) {
        s->trace_failed = 1;
        return 0;
    }
    return 1;
}

static void soon_push(sim *s, const trace_event *ev)
{
    if (s->soon_n == s->soon_cap) {
        size_t cap = s->soon_cap ? 2 * s->soon_cap : 256;
        trace_event *grown = realloc(s->soon, cap * sizeof *grown);
        if (!grown) {
            s->trace_failed = 1;
            return;
        }
        s->soon = grown;
        s->soon_cap = cap;
    }
    size_t i = s->soon_n++;
    while (i > 0 && s->soon[(i - 1) / 2].t_ns > ev->t_ns) {
        s->soon[i] = s->soon[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    s->soon[i] = *ev;
}

/* Appends the waiting future events stamped at or before `upto` (ns) in time order. */
static void soon_flush(sim *s, int64_t upto)
{
    while (s->soon_n && s->soon[0].t_ns <= upto && !s->trace_failed) {
        if (!append(s, s->tr, &s->soon[0]))
            return;
        s->main_last_ns = s->soon[0].t_ns;
        trace_event last = s->soon[--s->soon_n];
        size_t i = 0, n = s->soon_n;
        for (;;) {
            size_t c = 2 * i + 1;
            if (c >= n)
                break;
            if (c + 1 < n && s->soon[c + 1].t_ns < s->soon[c].t_ns)
                c++;
            if (s->soon[c].t_ns >= last.t_ns)
                break;
            s->soon[i] = s->soon[c];
            i = c;
        }
        if (n)
            s->soon[i] = last;
    }
}
/* Appends one event; returns its index in the output trace (NO_SLOT when it went to the
 * late stream or is not recorded), so that a wait's duration can be filled in later. */
size_t pipe_emit(sim *s, int64_t t_ps, int64_t dur_ps, const warp *w, uint32_t cta, uint8_t kind, uint32_t stage,
                 uint32_t iter, uint32_t barrier, uint32_t phase, uint32_t bytes, uint8_t flags)
{
    s->r->trace_events++;
    if (!s->tr || s->trace_failed)
        return NO_SLOT;
    trace_event ev = {
        .t_ns = t_ps / 1000,
        .dur_ns = (uint32_t)(dur_ps > 0 ? (dur_ps + 999) / 1000 : 0),
        .iteration = iter,
        .bytes = bytes,
        .cta = (uint16_t)cta,
        .phase = (uint16_t)phase,
        .sm = (uint8_t)s->cta[cta].sm,
        .warp = w ? w->idx : 0xff,
        .role = w ? w->role : TRACE_ROLE_TMA_UNIT,
        .stage = (uint8_t)stage,
        .kind = kind,
        .barrier = (uint8_t)barrier,
        .source = TRACE_SRC_SIM,
        .flags = flags,
    };
    trace *t = s->tr;
    if (s->two_streams) {
        if (ev.t_ns < s->main_last_ns) {
            t = &s->late;
        } else if (t_ps > s->now) {
            soon_push(s, &ev);
            return NO_SLOT;
        } else {
            if (s->soon_n && s->soon[0].t_ns <= ev.t_ns)
                soon_flush(s, ev.t_ns);
            s->main_last_ns = ev.t_ns;
        }
    }
    if (!append(s, t, &ev))
        return NO_SLOT;
    return t == s->tr ? t->count - 1 : NO_SLOT;
}

/* Appends what still waits in `soon`; sorts the late stream, if any, and merges it into
 * the output from the back (in place); equal times are then put in key order by
 * trace_sort, which sees a time-sorted trace. */
void pipe_merge_streams(sim *s)
{
    trace *t = s->tr, *late = &s->late;
    soon_flush(s, INT64_MAX);
    if (s->trace_failed)
        return;
    if (late->count == 0) {
        trace_sort(t);
        return;
    }
    trace_sort(late);
    size_t m = t->count, k = late->count;
    if (k && trace_reserve(t, m + k, NULL) != ERR_OK) {
        s->trace_failed = 1;
        return;
    }
    size_t out = m + k;
    while (k) {
        if (m && t->events[m - 1].t_ns > late->events[k - 1].t_ns)
            t->events[--out] = t->events[--m];
        else
            t->events[--out] = late->events[--k];
    }
    t->count += late->count;
    trace_sort(t);
}
