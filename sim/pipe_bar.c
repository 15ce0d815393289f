/* pipe_bar: the simulator's barrier glue. mbarrier operations go through mbar_step, so a
 * misuse is a finding of the same run that times it; a completed phase wakes the warps
 * blocked on it. The cp.async commit groups (mbar_cpasync_step) and the CTA barrier
 * (bar.sync) of the commit-group protocol live here too. */
#include <stdint.h>
#include <stdio.h>

#include "pipe_sim.h"

void note_finding(sim *s, const err_info *fe, uint32_t cta, const warp *w, uint32_t bar, uint32_t iter)
{
    if (s->r->findings++ == 0) {
        char where[96], what[24];
        uint32_t S = s->d->stages;
        if (bar < 2 * S)
            snprintf(what, sizeof what, "%s[%u]", bar < S ? "full" : "empty", bar % S);
        else
            snprintf(what, sizeof what, "%s", bar == 2 * S ? "cp.async group" : "bar.sync");
        if (w)
            snprintf(where, sizeof where, "CTA %u warp %u (%s), iteration %u, %s", cta, w->idx,
                     trace_role_name((trace_role)w->role), iter, what);
        else
            snprintf(where, sizeof where, "CTA %u, copy of iteration %u, %s", cta, iter, what);
        s->r->first = *fe;
        err_set(&s->r->first, fe->code, fe->rule, "%s: %s", where, fe->detail);
    }
}

static void wake_waiters(sim *s, uint32_t cta, uint32_t b);

/* Applies one mbarrier operation and handles a completed phase. */
void bar_op(sim *s, uint32_t cta, uint32_t b, const mbar_event *ev, const warp *w, uint32_t iter)
{
    mbar *m = &s->bar[(size_t)cta * s->nbar + b];
    mbar_result res;
    err_info *fe = &s->fe;
    uint32_t phase_before = m->phase;
    if (mbar_step(m, ev, m, &res, fe) != ERR_OK)
        note_finding(s, fe, cta, w, b, iter);
    if (res.phase_completed) {
        uint32_t stage = b % s->d->stages;
        int is_full = b < s->d->stages;
        pipe_emit(s, s->now, 0, NULL, cta, TRACE_PHASE_COMPLETE, stage, iter, b, phase_before,
             0, is_full ? TRACE_FLAG_FULL_BARRIER : 0);
        if (cta == 0) {
            if (is_full)
                s->stage_filled_since[stage] = s->now;
            else if (s->stage_filled_since[stage] >= 0 && phase_before > 0) {
                s->stage_filled_ps += (double)(s->now - s->stage_filled_since[stage]);
                s->stage_filled_since[stage] = -1;
            }
        }
        wake_waiters(s, cta, b);
    }
}

/* try_wait.parity: passes now, or registers the warp as a waiter. */
int try_wait(sim *s, warp *w, uint32_t b, int64_t phase, uint32_t parity, uint32_t iter)
{
    mbar *m = &s->bar[(size_t)w->cta * s->nbar + b];
    mbar_event ev = {.op = MBAR_TEST_WAIT, .parity = parity, .has_intended = 1, .intended_phase = phase};
    mbar_result res;
    err_info *fe = &s->fe;
    if (mbar_step(m, &ev, m, &res, fe) != ERR_OK)
        note_finding(s, fe, w->cta, w, b, iter);
    if (res.wait_done)
        return 1;
    w->blocked = 1;
    w->wait_start = s->now;
    w->wait_bar = (uint16_t)b;
    w->wait_phase = phase;
    w->wait_parity = parity;
    w->wait_iter = iter;
    s->waiters[(size_t)w->cta * s->nbar + b] |= 1ull << w->idx;
    /* The wait span is written now, in time order, and its duration when it ends: a span
     * emitted at its end would start in the past and need sorting. */
    w->wait_slot = pipe_emit(s, s->now, 0, w, w->cta, TRACE_WAIT, b % s->d->stages, iter, b,
                        (uint32_t)(phase < 0 ? 0 : phase), 0, b < s->d->stages ? TRACE_FLAG_FULL_BARRIER : 0);
    return 0;
}

/* Ends the wait's trace span at `end` (ps); `flags` adds to the span's flags. */
void close_wait_span(sim *s, warp *w, int64_t end, uint8_t flags)
{
    int64_t dur_ps = end - w->wait_start;
    if (w->wait_slot != NO_SLOT && !s->trace_failed) {
        trace_event *ev = &s->tr->events[w->wait_slot];
        ev->dur_ns = (uint32_t)(dur_ps > 0 ? (dur_ps + 999) / 1000 : 0);
        ev->flags |= flags;
    }
    w->wait_slot = NO_SLOT;
}

static void account_wait(sim *s, warp *w, int64_t end)
{
    pipe_role_stats *rs = &s->r->role[w->role];
    double ns = (double)(end - w->wait_start) / 1000.0;
    if (w->wait_bar < s->d->stages)
        rs->wait_full_ns += ns;
    else
        rs->wait_empty_ns += ns;
    close_wait_span(s, w, end, 0);
}

/* What a warp does between its blocked wait's return and its next step: the end of the
 * producer's wait and its loop before the next expect_tx, the generated pipeline kernel's,
 * its st.async producer's or the GEMM kernel's (each measured in its own kernels' traces). */
static int64_t resume_after_wait(sim *s, warp *w)
{
    if (!w->is_consumer && s->d->mode == PIPE_STASYNC)
        return (int64_t)(s->p->stas_resume_ns * 1000);
    if (w->is_consumer || s->d->mode != PIPE_WARP_SPECIALIZED)
        return 0;
    if (s->gemm)
        return (int64_t)(s->p->gemm_produce_resume_ns * 1000);
    return (int64_t)(chain_scale(s, w, 0) * s->p->produce_resume_ns * 1000);
}

/* From the phase completing to the suspended try_wait's return: the calibrated hand-off,
 * and for a generated pipeline's consumer consume_resume_ns more. */
static int64_t wake_after(sim *s, warp *w)
{
    double ns = s->p->wake_ns + (w->is_consumer && !s->gemm ? chain_scale(s, w, 1) * s->p->consume_resume_ns : 0);
    return (int64_t)(ns * 1000);
}

/* The waiters a phase wakes return one after another, wake_stagger_ns apart (in warp order
 * here; on the GPU the order varies). It is about 1 ns, but warps that go on to share the
 * port or a pipe equally stay in step only while nothing sets them apart: the warp that
 * starts first takes a larger share, ends earlier and comes back earlier, and the GPU's
 * warps drift apart so (the c_cw8s* probes); woken at one instant, the model's would not. */
static void wake_waiters(sim *s, uint32_t cta, uint32_t b)
{
    uint64_t *mask = &s->waiters[(size_t)cta * s->nbar + b];
    uint64_t bits = *mask;
    int64_t stagger = (int64_t)(s->p->wake_stagger_ns * 1000), after = 0;
    while (bits) {
        uint32_t idx = (uint32_t)__builtin_ctzll(bits);
        bits &= bits - 1;
        uint32_t wi = cta * (s->d->producer_warps + s->d->consumer_warps) + idx;
        warp *w = &s->w[wi];
        mbar *m = &s->bar[(size_t)cta * s->nbar + b];
        if (((m->phase & 1u) != w->wait_parity)) {
            /* the suspended try_wait returns true: the phase is observed */
            mbar_event ok = {.op = MBAR_TEST_WAIT, .parity = w->wait_parity};
            mbar_step(m, &ok, m, NULL, NULL);
            *mask &= ~(1ull << idx);
            w->blocked = 0;
            int64_t t = s->now + wake_after(s, w) + after;
            after += stagger;
            account_wait(s, w, t);
            schedule_warp(s, wi, t + resume_after_wait(s, w));
        }
    }
}

int group_wait_done(const warp *w, uint32_t n)
{
    mbar_cp_event wait = {.op = MBAR_CP_WAIT_GROUP, .n = n};
    mbar_cpasync tmp;
    int done = 0;
    mbar_cpasync_step(&w->cp, &wait, &tmp, &done, NULL);
    return done;
}

void group_done(sim *s, uint32_t wi)
{
    warp *w = &s->w[wi];
    err_info *fe = &s->fe;
    mbar_cp_event ev = {.op = MBAR_CP_GROUP_DONE};
    if (mbar_cpasync_step(&w->cp, &ev, &w->cp, NULL, fe) != ERR_OK)
        note_finding(s, fe, w->cta, w, group_bar(s), w->cons_i);
    if (w->gwait == GWAIT_GROUP && group_wait_done(w, s->d->cpasync_wait_prior)) {
        s->r->role[w->role].wait_full_ns += (double)(s->now - w->wait_start) / 1000.0;
        close_wait_span(s, w, s->now, 0);
        w->gwait = GWAIT_NONE;
        schedule_warp(s, wi, s->now);
    }
}

/* bar.sync of all the CTA's warps; returns 1 when this warp was the last to arrive. */
int barsync_arrive(sim *s, warp *w, uint32_t iter)
{
    cta_state *cs = &s->cta[w->cta];
    uint32_t per = s->d->producer_warps + s->d->consumer_warps;
    if (++cs->barsync_arrived < per) {
        cs->barsync_waiters |= 1ull << w->idx;
        w->gwait = GWAIT_BARSYNC;
        w->wait_start = s->now;
        w->wait_slot = pipe_emit(s, s->now, 0, w, w->cta, TRACE_WAIT, iter % s->d->stages, iter, barsync_bar(s), 0, 0, 0);
        return 0;
    }
    int64_t t = s->now + (int64_t)(s->p->barsync_ns * 1000);
    for (uint64_t bits = cs->barsync_waiters; bits; bits &= bits - 1) {
        uint32_t idx = (uint32_t)__builtin_ctzll(bits);
        warp *o = &s->w[w->cta * per + idx];
        close_wait_span(s, o, t, 0);
        o->gwait = GWAIT_NONE;
        schedule_warp(s, w->cta * per + idx, t);
    }
    cs->barsync_arrived = 0;
    cs->barsync_waiters = 0;
    return 1;
}
