/* pipe: pipe_run, the simulator's entry point: the state, the CTA launch waves, the
 * event loop, and the result. The other parts are in the pipe_* modules (pipe_sim.h). */
#include "pipe_gemm.h"
#include "pipe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipe_sim.h"

/* ---------------------------------------------------------------- CTAs */
static void cta_start(sim *s, uint32_t c, uint32_t sm)
{
    const pipe_desc *d = s->d;
    cta_state *cs = &s->cta[c];
    cs->sm = sm;
    cs->started = 1;
    cs->start = s->now;
    /* A resident CTA takes the SM's lowest free slot. Its warps run on consecutive
     * sub-partitions from the SM's next one, which moves on by the CTA's warps and by one
     * more when that count is a multiple of 4, so that the first warps of CTAs of 4 or 8
     * warps do not all share one sub-partition (the warp slots that %warpid shows on an
     * H200: tmahw calibrate --only smsp). */
    uint32_t used = s->sm_slots[sm], slot = 0;
    while (slot < 31 && (used >> slot) & 1u)
        slot++;
    s->sm_slots[sm] = used | 1u << slot;
    cs->slot = slot;
    uint32_t per = d->producer_warps + d->consumer_warps, first = s->smsp_next[sm];
    for (uint32_t k = 0; k < per; k++)
        s->w[c * per + k].smsp = (uint8_t)((first + k) % 4);
    s->smsp_next[sm] = (uint8_t)((first + per + (per % 4 == 0)) % 4);
    cs->warps_left = d->producer_warps + d->consumer_warps;
    mbar_event fi = {.op = MBAR_INIT, .count = d->full_count}, ei = {.op = MBAR_INIT, .count = d->empty_count};
    for (uint32_t st = 0; st < d->stages; st++) {
        bar_op(s, c, full_bar(s, st), &fi, NULL, 0);
        bar_op(s, c, empty_bar(s, st), &ei, NULL, 0);
    }
    for (uint32_t k = 0; k < per; k++)
        schedule_warp(s, c * per + k, s->now);
}

/* A CTA's own start and end outside its pipeline (barrier and table set-up, the final
 * waits and stores), paid by every CTA after the first wave (the kernel's overhead holds
 * the first wave's). */
static double cta_overhead_ns(const sim *s)
{
    return s->gemm ? s->p->gemm_cta_overhead_ns : s->p->cta_overhead_ns;
}

static int64_t turnover_ps(const sim *s)
{
    return (int64_t)(cta_overhead_ns(s) * 1000.0);
}

/* A CTA's slot is free when it ends: a CTA of the next wave takes it. A cluster is
 * co-scheduled: the next cluster starts, on the SMs of the one that left, when the last
 * CTA of that cluster has ended. */
void cta_finished(sim *s, uint32_t cta)
{
    const pipe_desc *d = s->d;
    uint32_t sm = s->cta[cta].sm;
    s->sm_slots[sm] &= ~(1u << s->cta[cta].slot);
    int64_t saved = s->now;
    if (d->cluster == 1) {
        if (s->next_cta < d->ctas) {
            s->now = (s->cta[cta].end > s->now ? s->cta[cta].end : s->now) + turnover_ps(s);
            cta_start(s, s->next_cta++, sm);
        }
        s->now = saved;
        return;
    }
    uint32_t base = cta - cta % d->cluster, left = 0;
    int64_t end = s->now;
    for (uint32_t k = 0; k < d->cluster; k++) {
        left += s->cta[base + k].warps_left != 0 || !s->cta[base + k].started;
        if (s->cta[base + k].end > end)
            end = s->cta[base + k].end;
    }
    if (left || s->next_cta >= d->ctas)
        return;
    s->now = end + turnover_ps(s);
    for (uint32_t k = 0; k < d->cluster && s->next_cta < d->ctas; k++)
        cta_start(s, s->next_cta++, s->cta[base + k].sm);
    s->now = saved;
}

/* CTAs of the first wave: every CTA slot of the SMs, or as many whole clusters as the
 * GPCs hold at once (clustersN_at1 / _at8). */
static uint32_t first_wave_ctas(const pipe_desc *d, const pipe_params *p, uint32_t sms)
{
    uint32_t slots = sms * d->ctas_per_sm;
    uint32_t n = d->ctas < slots ? d->ctas : slots;
    if (d->cluster > 1) {
        uint32_t per = d->ctas_per_sm < 8 ? d->ctas_per_sm : 8;
        double at1 = d->cluster == 2 ? p->clusters2_at1 : d->cluster == 4 ? p->clusters4_at1 : d->cluster == 8 ? p->clusters8_at1
                                                                                                       : p->clusters16_at1;
        double at8 = d->cluster == 2 ? p->clusters2_at8 : d->cluster == 4 ? p->clusters4_at8 : d->cluster == 8 ? p->clusters8_at8
                                                                                                        : p->clusters16_at8;
        uint32_t clusters = (uint32_t)(per == 1 ? at1 : per * at8 / 8.0);
        if (clusters < 1)
            clusters = 1;
        if ((uint64_t)clusters * d->cluster < n)
            n = clusters * d->cluster;
        n -= n % d->cluster;
    }
    return n ? n : d->cluster;
}

/* ---------------------------------------------------------------- run */
static int share_alloc(share_set *sh, size_t units)
{
    sh->warps = calloc(units * PIPE_SHARERS, sizeof *sh->warps);
    sh->group = calloc(units * PIPE_SHARERS, sizeof *sh->group);
    sh->left = calloc(units * PIPE_SHARERS, sizeof *sh->left);
    sh->n = calloc(units, sizeof *sh->n);
    sh->t = calloc(units, sizeof *sh->t);
    return sh->warps && sh->group && sh->left && sh->n && sh->t;
}

static void share_free(share_set *sh)
{
    free(sh->warps);
    free(sh->group);
    free(sh->left);
    free(sh->n);
    free(sh->t);
}

static void sim_free(sim *s)
{
    trace_free(&s->late);
    free(s->soon);
    free(s->h.v);
    free(s->w);
    free(s->bar);
    free(s->waiters);
    free(s->cta);
    free(s->tma_free);
    free(s->ldg_free);
    free(s->loads_dram_served);
    free(s->port_free);
    free(s->issue_free);
    free(s->issued);
    share_free(&s->pipe);
    share_free(&s->port);
    free(s->sm_slots);
    free(s->smsp_next);
    free(s->tensor_free);
    free(s->copies_until);
    free(s->stores_drained);
    free(s->wg_done);
    free(s->stas_trip);
    free(s->stas_share);
    free(s->stas_active);
}

/* The state of a run: the heap holds every event that can be pending at once. */
static int sim_alloc(sim *s, err_info *e)
{
    const pipe_desc *d = s->d;
    const pipe_params *p = s->p;
    uint32_t per = d->producer_warps + d->consumer_warps;
    s->nw = d->ctas * per;
    s->nbar = 2 * d->stages;
    s->sms = (uint32_t)p->sm_count;
    if (s->sms < 1)
        s->sms = 1;
    s->ps_per_cycle = 1000.0 / pipe_plan_clock_ghz(d, p);
    for (uint32_t t = 0; t < d->ntensors; t++) {
        s->l2_hit[t] = pipe_l2_hit(d, t, p);
        s->l2_readers[t] = d->math == PIPE_MATH_WGMMA ? pipe_gemm_readers(d, t ? WG_B : WG_A) : 1;
        s->l2_req_rate[t] = pipe_l2_request_rate(d, p, t);
    }
    size_t heap_cap = (size_t)d->ctas * (per + (size_t)d->stages * (d->ntensors * d->cluster + per) + 4) + 64;
    s->h.v = malloc(heap_cap * sizeof *s->h.v);
    s->h.cap = heap_cap;
    s->w = calloc(s->nw, sizeof *s->w);
    s->bar = calloc((size_t)d->ctas * s->nbar, sizeof *s->bar);
    s->waiters = calloc((size_t)d->ctas * s->nbar, sizeof *s->waiters);
    s->cta = calloc(d->ctas, sizeof *s->cta);
    s->tma_free = calloc(s->sms, sizeof(int64_t));
    s->ldg_free = calloc(s->sms, sizeof(int64_t));
    s->loads_dram_served = calloc(s->sms, sizeof(int64_t));
    s->port_free = calloc(s->sms, sizeof(int64_t));
    s->issue_free = calloc((size_t)s->sms * 4, sizeof(int64_t));
    s->issued = calloc((size_t)s->sms * 4, sizeof(int64_t));
    int shares = share_alloc(&s->pipe, (size_t)s->sms * 4) && share_alloc(&s->port, s->sms);
    s->pipe.in_order = d->math == PIPE_MATH_MMA;
    s->sm_slots = calloc(s->sms, sizeof *s->sm_slots);
    s->smsp_next = calloc(s->sms, sizeof *s->smsp_next);
    s->gemm = d->math == PIPE_MATH_WGMMA;
    if (s->gemm) {
        s->tensor_free = calloc(s->sms, sizeof(int64_t));
        s->copies_until = calloc(s->sms, sizeof(int64_t));
        s->stores_drained = calloc(s->sms, sizeof(int64_t));
        s->wg_done = calloc((size_t)s->nw * d->stages, sizeof(int64_t));
        if (!s->tensor_free || !s->copies_until || !s->stores_drained || !s->wg_done)
            return err_set(e, ERR_IO, "out_of_memory", "wgmma state for %u CTAs", d->ctas);
    }
    if (d->mode == PIPE_STASYNC) {
        s->stas_active = calloc(s->sms, sizeof *s->stas_active);
        int rc = s->stas_active ? stas_prepare(s, e) : err_set(e, ERR_IO, "out_of_memory", "st.async state");
        if (rc)
            return rc;
    }
    trace_init(&s->late, TRACE_SRC_SIM);
    if (!s->h.v || !s->w || !s->bar || !s->waiters || !s->cta || !s->tma_free || !s->ldg_free || !s->loads_dram_served || !s->port_free ||
        !s->sm_slots || !s->smsp_next || !s->issue_free || !s->issued || !shares)
        return err_set(e, ERR_IO, "out_of_memory", "simulator state for %u CTAs", d->ctas);
    for (uint32_t st = 0; st < DESC_MAX_STAGES; st++)
        s->stage_filled_since[st] = -1;
    return ERR_OK;
}

static void trace_begin(sim *s)
{
    const pipe_desc *d = s->d;
    if (!s->tr)
        return;
    /* a trace that already holds events is merged by a full sort instead */
    s->two_streams = s->tr->count == 0;
    s->main_last_ns = INT64_MIN;
    uint64_t estimate = d->ctas * (uint64_t)d->iterations * (d->producer_warps + d->consumer_warps) * 5;
    if (estimate < (1u << 28)) {
        trace_reserve(s->tr, (size_t)estimate, NULL);
    }
    snprintf(s->tr->name, sizeof s->tr->name, "%s", d->name);
    snprintf(s->tr->gpu, sizeof s->tr->gpu, "H100 SXM (sim)");
}

/* Each warp's role and whether it copies (pipe_plan's role rule). */
static void assign_roles(sim *s)
{
    const pipe_desc *d = s->d;
    uint32_t per = d->producer_warps + d->consumer_warps;
    for (uint32_t c = 0; c < d->ctas; c++)
        for (uint32_t k = 0; k < per; k++) {
            warp *w = &s->w[c * per + k];
            w->cta = c;
            w->idx = (uint8_t)k;
            if (k < d->producer_warps) {
                w->role = TRACE_ROLE_PRODUCER;
            } else {
                w->is_consumer = 1;
                w->consumer_rank = (uint8_t)(k - d->producer_warps);
                w->role = (uint8_t)pipe_plan_consumer_role(d);
                w->copier = (uint8_t)pipe_plan_copier(d, w->consumer_rank);
            }
            s->r->role[w->role].warps++;
        }
}

/* Launch skew: the first wave does not start at one instant. The CTAs of a cluster are
 * co-scheduled, so the spread is over clusters. */
static void launch_first_wave(sim *s)
{
    const pipe_desc *d = s->d;
    uint32_t first_wave = first_wave_ctas(d, s->p, s->sms);
    uint32_t first_clusters = first_wave / d->cluster;
    for (uint32_t c = 0; c < first_wave; c++) {
        uint32_t k = c / d->cluster;
        s->now = first_clusters > 1 ? (int64_t)(s->p->cta_launch_spread_ns * 1000.0 * k / (first_clusters - 1)) : 0;
        cta_start(s, c, c % s->sms);
    }
    s->now = 0;
    s->next_cta = first_wave;
}

/* One event at the clock's time. */
static void apply_event(sim *s, const sim_ev *ev)
{
    const pipe_desc *d = s->d;
    switch (ev->type) {
    case EV_WARP:
        if (ev->bytes == s->w[ev->target].gen)
            warp_run(s, ev->target);
        break;
    case EV_COMPLETE_TX: {
        mbar_event m = {.op = MBAR_COMPLETE_TX, .tx = (int32_t)ev->bytes, .has_intended = 1,
                        .intended_phase = ev->iter / d->stages};
        uint32_t st = ev->bar % d->stages;
        pipe_emit(s, s->now, 0, NULL, ev->target, TRACE_BAR_COMPLETE_TX, st, ev->iter, ev->bar,
                  ev->iter / d->stages, ev->bytes, TRACE_FLAG_FULL_BARRIER | ev->flags);
        bar_op(s, ev->target, ev->bar, &m, NULL, ev->iter);
        break;
    }
    case EV_CP_GROUP_DONE:
        group_done(s, ev->target);
        break;
    case EV_CP_ARRIVE: {
        /* cp.async.mbarrier.arrive.noinc: the warp's copies landed */
        mbar_event m = {.op = MBAR_ARRIVE, .count = 1, .has_intended = 1, .intended_phase = ev->iter / d->stages};
        pipe_emit(s, s->now, 0, NULL, ev->target, TRACE_BAR_ARRIVE, ev->bar % d->stages, ev->iter, ev->bar,
                  ev->iter / d->stages, 0, TRACE_FLAG_FULL_BARRIER);
        bar_op(s, ev->target, ev->bar, &m, NULL, ev->iter);
        break;
    }
    case EV_ARRIVE: {
        /* a release's arrive taking effect later than its issue (release_upto) */
        mbar_event m = {.op = MBAR_ARRIVE, .count = ev->bytes, .has_intended = 1, .intended_phase = ev->iter / d->stages};
        bar_op(s, ev->target, ev->bar, &m, &s->w[ev->warp], ev->iter);
        break;
    }
    default:
        break;
    }
}

/* Pops and applies events until none is left or the trace cannot grow. Returns the time
 * of an event past the clock's limit, -1 when there was none. */
static int64_t run_events(sim *s, const pipe_opts *o)
{
    while (s->h.n && !s->trace_failed) {   /* a trace that cannot grow ends the run now */
        sim_ev ev = heap_pop(&s->h);
        if (ev.t > PIPE_CLOCK_LIMIT_PS)   /* pipe_budget refuses such runs up front: a safety net */
            return ev.t;
        s->now = ev.t;
        s->r->sim_events++;
        if (o && o->progress && (s->r->sim_events & ((1u << 20) - 1)) == 0)
            o->progress(o->progress_user, s->r->sim_events);
        apply_event(s, &ev);
    }
    return -1;
}

/* The run's end: the last CTA's end, or the clock when warps are blocked forever (their
 * open waits closed so the trace shows the hang, and the chain explained). */
static int64_t run_end(sim *s)
{
    pipe_result *r = s->r;
    int64_t end = 0;
    for (uint32_t c = 0; c < s->d->ctas; c++)
        if (s->cta[c].end > end)
            end = s->cta[c].end;
    for (uint32_t wi = 0; wi < s->nw; wi++)
        if (s->w[wi].state != ST_DONE) {
            r->deadlock = 1;
            if (s->now > end)
                end = s->now;
        }
    if (r->deadlock) {
        for (uint32_t wi = 0; wi < s->nw; wi++)
            if (s->w[wi].blocked || s->w[wi].gwait) {
                close_wait_span(s, &s->w[wi], end, TRACE_FLAG_TIMEOUT);
            }
        explain_deadlock(s);
    }
    return end;
}

/* Kernel time, utilisations, stage occupancy and the roles' time shares. */
static void run_figures(sim *s, int64_t end)
{
    const pipe_desc *d = s->d;
    pipe_result *r = s->r;
    uint32_t per = d->producer_warps + d->consumer_warps;
    /* the kernel's measured time also holds the launch's start and drain outside the CTAs */
    /* the launch's own time, and the last wave's CTAs' start and end outside their
     * pipeline (earlier waves pay theirs before the next CTA starts) */
    r->kernel_ns = (end + 999) / 1000 + (int64_t)(s->p->kernel_overhead_ns + cta_overhead_ns(s));
    double kernel_ps = end > 0 ? (double)end : 1;
    uint32_t sms_used = d->ctas < s->sms ? d->ctas : s->sms;
    r->hbm_util = s->hbm_busy / kernel_ps;
    r->tma_util = s->tma_busy / (kernel_ps * sms_used);
    r->smem_util = s->port_busy / (kernel_ps * sms_used);
    r->math_util = s->smsp_busy / (kernel_ps * sms_used * (per < 4 ? per : 4));
    for (uint32_t st = 0; st < d->stages; st++)
        if (s->stage_filled_since[st] >= 0)
            s->stage_filled_ps += (double)(end - s->stage_filled_since[st]);
    r->stages_filled_avg = s->stage_filled_ps / kernel_ps;
    for (int k = 0; k < 3; k++) {
        pipe_role_stats *rs = &r->role[k];
        rs->busy_ns = rs->issue_ns + rs->read_ns + rs->math_ns;
        double total = (double)rs->warps * (double)r->kernel_ns;
        double rest = total - rs->busy_ns - rs->wait_full_ns - rs->wait_empty_ns;
        rs->other_ns = rest > 0 ? rest : 0;
    }
}

/* A GEMM description's protocol findings (pipe_gemm.h) join the run's: the first one
 * found anywhere is the verdict's. */
static void gemm_findings(const pipe_desc *d, pipe_result *r)
{
    pipe_gemm_finding f[PIPE_GEMM_FINDINGS_MAX];
    uint32_t n = pipe_gemm_findings(d, f);
    for (uint32_t i = 0; i < n; i++)
        if (r->findings++ == 0)
            err_set(&r->first, ERR_FINDING, f[i].rule, "%s", f[i].detail);
}

int pipe_run(const pipe_desc *d, const pipe_opts *o, pipe_result *r, err_info *e)
{
    pipe_params defaults;
    const pipe_params *p = o && o->params ? o->params : NULL;
    if (!p) {
        params_defaults("h100", &defaults, NULL);
        p = &defaults;
    }
    memset(r, 0, sizeof *r);
    if (d->copy_bytes == 0 || d->stages == 0)
        return err_set(e, ERR_BAD_INPUT, "desc_not_derived", "call pipe_desc_derive before pipe_run");
    sim s = {.d = d, .p = p, .tr = o ? o->out : NULL, .r = r};
    int rc = sim_alloc(&s, e);
    if (rc != ERR_OK)
        goto out;
    trace_begin(&s);
    assign_roles(&s);
    launch_first_wave(&s);
    int64_t clock_over = run_events(&s, o);
    if (clock_over >= 0) {
        rc = err_set(e, ERR_BAD_INPUT, "clock_limit", "simulated time reached %lld ps, past the clock's limit of %lld ps",
                     (long long)clock_over, (long long)PIPE_CLOCK_LIMIT_PS);
        goto out;
    }
    if (s.trace_failed) {
        rc = err_set(e, ERR_IO, "out_of_memory", "trace of %llu events", (unsigned long long)r->trace_events);
        goto out;
    }
    run_figures(&s, run_end(&s));
    if (s.tr) {
        s.tr->kernel_ns = r->kernel_ns;
        if (s.two_streams && !s.trace_failed)
            pipe_merge_streams(&s);
        else
            trace_sort(s.tr);
    }
    if (s.trace_failed)
        rc = err_set(e, ERR_IO, "out_of_memory", "trace of %llu events", (unsigned long long)r->trace_events);

    gemm_findings(d, r);
    pipe_evidence(&s, r);
    pipe_sentence(&s, r);
out:
    sim_free(&s);
    return rc;
}

int pipe_verdict(const pipe_result *r, err_info *e)
{
    if (r->findings)
        return err_set(e, ERR_FINDING, r->first.rule, "%s", r->first.detail);
    if (r->deadlock)
        return err_set(e, ERR_FINDING, "deadlock", "%s", r->chain);
    return ERR_OK;
}
