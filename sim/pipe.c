#include "pipe.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbar.h"

/* ---------------------------------------------------------------- event heap */
enum { EV_WARP = 0, EV_COMPLETE_TX, EV_CP_ARRIVE, EV_CP_GROUP_DONE };

typedef struct sim_ev {
    int64_t t;                   /* ps */
    uint32_t seq;                /* FIFO among equal times: deterministic */
    uint8_t type, flags;
    uint16_t bar;
    uint32_t target;             /* warp index (global) or CTA */
    uint32_t bytes;
    uint32_t iter;
} sim_ev;

typedef struct heap {
    sim_ev *v;
    size_t n, cap;
    uint32_t seq;
} heap;

static inline int ev_less(const sim_ev *a, const sim_ev *b)
{
    /* bitwise, not short-circuit: no branch to mispredict */
    return (a->t < b->t) | ((a->t == b->t) & ((int32_t)(a->seq - b->seq) < 0));
}

static int heap_push(heap *h, sim_ev ev)
{
    if (h->n == h->cap)
        return -1;
    ev.seq = h->seq++;
    size_t i = h->n++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!ev_less(&ev, &h->v[p]))
            break;
        h->v[i] = h->v[p];
        i = p;
    }
    h->v[i] = ev;
    return 0;
}

static sim_ev heap_pop(heap *h)
{
    sim_ev top = h->v[0], last = h->v[--h->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n)
            c += (size_t)ev_less(&h->v[c + 1], &h->v[c]);   /* branch-free: the children are a coin toss */
        if (!ev_less(&h->v[c], &last))
            break;
        h->v[i] = h->v[c];
        i = c;
    }
    if (h->n)
        h->v[i] = last;
    return top;
}

/* ---------------------------------------------------------------- state */
enum {
    ST_NEXT = 0, ST_WAIT_EMPTY, ST_ISSUE, ST_STAS_LOADED, ST_WAIT_FULL, ST_READ, ST_MATH, ST_AFTER_MATH, ST_DONE,
    ST_G_COPY, ST_G_WAIT, ST_G_BAR, ST_G_ISSUE   /* cp.async commit groups (cpasync.sync: wait_prior) */
};
enum { GWAIT_NONE = 0, GWAIT_GROUP, GWAIT_BARSYNC };
enum { ACT_PRODUCE, ACT_CONSUME, ACT_FINISH };

typedef struct warp {
    uint32_t cta;
    uint8_t idx, role, state, smsp;
    uint8_t copier, consumer_rank, is_consumer, blocked;
    uint32_t prod_j, cons_i, released;
    int64_t wait_start, op_start;
    size_t wait_slot;            /* the wait's trace event, written when it starts (NO_SLOT: none) */
    mbar_cpasync cp;             /* commit groups of this warp's cp.async copies */
    int64_t group_last_done;     /* groups retire in commit order */
    uint8_t gwait;               /* GWAIT_*: blocked in cp.async.wait_group or bar.sync */
    int64_t wait_phase;
    uint32_t wait_parity, wait_iter;
    uint16_t wait_bar;
    int64_t store_done;
} warp;

typedef struct cta_state {
    uint32_t sm, slot;           /* the SM and its CTA slot (0 .. ctas_per_sm - 1) */
    uint32_t warps_left;
    int64_t end;
    int started;
    uint32_t barsync_arrived;    /* warps arrived at the CTA barrier (bar.sync) */
    uint64_t barsync_waiters;
} cta_state;

typedef struct sim {
    err_info fe;                 /* the finding of the barrier operation at hand (one, not one per call on the stack) */
    const pipe_desc *d;
    const pipe_params *p;
    trace *tr;
    pipe_result *r;
    heap h;
    warp *w;
    mbar *bar;                   /* ctas x 2*stages */
    uint64_t *waiters;           /* ctas x 2*stages: bitmask of blocked warps */
    cta_state *cta;
    int64_t *tma_free, *port_free, *smsp_free;   /* per SM, per SM, per SM*4 */
    int64_t *ldg_free;                           /* per SM: its cp.async / ld.global intake */
    int64_t *issue_free;         /* per SM*4: the sub-partition's issue slots, taken in turn */
    int64_t mem_free;
    uint32_t nw, nbar, sms, next_cta;
    uint32_t *sm_slots;          /* per SM: bit k set while CTA slot k holds a CTA */
    double ps_per_cycle;
    double hbm_busy, tma_busy, port_busy, smsp_busy;
    double dram_bytes, l2_bytes;     /* moved from DRAM; through L2 (hits and misses) */
    double l2_hit[DESC_MAX_TENSORS]; /* pipe_l2_hit of each tensor */
    int64_t stage_filled_since[DESC_MAX_STAGES];
    double stage_filled_ps;
    int64_t now;
    int trace_failed;
    /* Trace events go into the output in time order, so that the final sort only has to
     * order ties: events stamped with the simulation clock (`now`, monotonic) are appended
     * at once; events stamped in the near future (a TMA issue after its issue cost) wait
     * in `soon`, a small min-heap on time, and are appended as soon as the clock has
     * passed them. Only spans that start before the last appended event (an st.async
     * flight that began at its first trip) go to `late`, which is sorted alone and merged
     * in from the back at the end. No copy of the whole trace is made. */
    trace late;
    trace_event *soon;
    size_t soon_n, soon_cap;
    int64_t main_last_ns;
    int two_streams;
} sim;

static uint32_t full_bar(const sim *s, uint32_t stage)
{
    (void)s;
    return stage;
}
static uint32_t empty_bar(const sim *s, uint32_t stage)
{
    return s->d->stages + stage;
}

#define NO_SLOT SIZE_MAX

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
static size_t emit(sim *s, int64_t t_ps, int64_t dur_ps, const warp *w, uint32_t cta, uint8_t kind, uint32_t stage,
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
static void merge_streams(sim *s)
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

static void note_finding(sim *s, const err_info *fe, uint32_t cta, const warp *w, uint32_t bar, uint32_t iter)
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
static void bar_op(sim *s, uint32_t cta, uint32_t b, const mbar_event *ev, const warp *w, uint32_t iter)
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
        emit(s, s->now, 0, NULL, cta, TRACE_PHASE_COMPLETE, stage, iter, b, phase_before,
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

static void schedule_warp(sim *s, uint32_t wi, int64_t t)
{
    sim_ev ev = {.t = t, .type = EV_WARP, .target = wi};
    heap_push(&s->h, ev);
}

/* A warp that would schedule itself strictly before every pending event would be the next
 * one popped anyway: it runs on at once (same order, same result, no heap traffic). */
static int runs_on_now(sim *s, int64_t t)
{
    if (s->h.n && s->h.v[0].t <= t)
        return 0;
    s->now = t;
    s->r->sim_events++;
    return 1;
}

/* A stretch of a warp's program that lasts dur_ps on its own and needs `cycles` issue
 * slots of its sub-partition: the slots are served in turn among the sub-partition's
 * warps, so with many warps on it the stretch ends when its last instruction could
 * issue. Returns the end time. */
static int64_t issue_end(sim *s, const warp *w, int64_t dur_ps, double cycles)
{
    int64_t *free_at = &s->issue_free[s->cta[w->cta].sm * 4 + w->smsp];
    int64_t served = (s->now > *free_at ? s->now : *free_at) + (int64_t)(cycles * s->ps_per_cycle);
    *free_at = served;
    return served > s->now + dur_ps ? served : s->now + dur_ps;
}

/* The trips of consumer warp `rank`'s cp.async copy loop over its share of a stage, as the
 * generated kernel makes them (hw/run_gen.c: the stage's 16-byte chunks, split evenly over
 * the warps, 32 lanes a trip). */
static uint32_t copy_trips(const pipe_desc *d, uint32_t rank)
{
    uint32_t n = d->copy_bytes / 16, c0 = (uint32_t)((uint64_t)rank * n / d->consumer_warps);
    uint32_t c1 = (uint32_t)((uint64_t)(rank + 1) * n / d->consumer_warps);
    return c1 > c0 ? (c1 - c0 + 31) / 32 : 0;
}

/* A warp's cp.async copy step on its own: its trips and the step around them (the
 * commit-group step has no mbarrier arrives). */
static int64_t copy_step_ps(const sim *s, const warp *w, uint32_t *trips)
{
    *trips = copy_trips(s->d, w->consumer_rank);
    double step = s->d->cpasync_groups ? s->p->ldgsts_group_step_ns : s->p->ldgsts_step_ns;
    return (int64_t)(step * 1000 + *trips * s->p->ldgsts_issue_cycles * s->ps_per_cycle);
}

/* try_wait.parity: passes now, or registers the warp as a waiter. */
static int try_wait(sim *s, warp *w, uint32_t wi, uint32_t b, int64_t phase, uint32_t parity, uint32_t iter)
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
    w->wait_slot = emit(s, s->now, 0, w, w->cta, TRACE_WAIT, b % s->d->stages, iter, b,
                        (uint32_t)(phase < 0 ? 0 : phase), 0, b < s->d->stages ? TRACE_FLAG_FULL_BARRIER : 0);
    (void)wi;
    return 0;
}

/* Ends the wait's trace span at `end` (ps); `flags` adds to the span's flags. */
static void close_wait_span(sim *s, warp *w, int64_t end, uint8_t flags)
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

static void wake_waiters(sim *s, uint32_t cta, uint32_t b)
{
    uint64_t *mask = &s->waiters[(size_t)cta * s->nbar + b];
    uint64_t bits = *mask;
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
            int64_t t = s->now + (int64_t)(s->p->wake_ns * 1000);
            account_wait(s, w, t);
            schedule_warp(s, wi, t);
        }
    }
}

/* ---------------------------------------------------------------- memory system */
/* One copy's transfer: the SM's TMA unit (use_tma) or its cp.async / ld.global intake, the
 * L2 and DRAM shares of the whole GPU, then the latency. */
static int64_t mem_transfer(sim *s, uint32_t sm, int64_t start, uint32_t bytes, double l2_hit, int use_tma)
{
    const pipe_params *p = s->p;
    int64_t t = start;
    if (use_tma) {
        if (s->tma_free[sm] > t)
            t = s->tma_free[sm];
        int64_t busy = (int64_t)(bytes * 1000.0 / p->tma_bytes_per_ns_sm);
        s->tma_free[sm] = t + busy;
        s->tma_busy += (double)busy;
    } else {
        /* cp.async and ld.global: the SM takes in at most ldgsts_bytes_per_ns_sm */
        if (s->ldg_free[sm] > t)
            t = s->ldg_free[sm];
        s->ldg_free[sm] = t + (int64_t)(bytes * 1000.0 / p->ldgsts_bytes_per_ns_sm);
    }
    int64_t g = t > s->mem_free ? t : s->mem_free;
    double hbm_ps = bytes * (1.0 - l2_hit) * 1000.0 / p->hbm_bytes_per_ns;
    double l2_ps = bytes * l2_hit * 1000.0 / p->l2_bytes_per_ns;
    s->mem_free = g + (int64_t)(hbm_ps + l2_ps);
    s->dram_bytes += bytes * (1.0 - l2_hit);
    s->l2_bytes += bytes;
    s->hbm_busy += hbm_ps + l2_ps;
    int64_t lat = (int64_t)((p->hbm_latency_ns * (1.0 - l2_hit) + p->l2_latency_ns * l2_hit) * 1000.0);
    int64_t done = s->mem_free + lat;
    int64_t unit = use_tma ? s->tma_free[sm] : s->ldg_free[sm];
    if (unit + lat > done)
        done = unit + lat;
    return done;
}

/* Tiles of tensor t the CTAs walk: whole boxes inside the tensor, dimension 0 fastest. */
static double tiles_of(const desc_tensor *ten)
{
    double n = 1;
    for (uint32_t k = 0; k < ten->map.rank; k++) {
        uint64_t per = ten->map.box[k] ? ten->map.dims[k] / ten->map.box[k] : 0;
        n *= per ? (double)per : 1;
    }
    return n;
}

double pipe_l2_hit(const pipe_desc *d, uint32_t t, const pipe_params *p)
{
    const desc_tensor *ten = &d->tensors[t];
    if (ten->l2_hit >= 0)
        return ten->l2_hit;
    /* The loads walk the tensor's tiles in order (load j of CTA group g takes tile
     * g + j x groups, modulo the tile count, as tmahw's kernel does): every tile after the
     * first pass is a re-read, which L2 serves while the tiles all tensors cycle through fit
     * in it; a cycle larger than L2 evicts each tile before it comes round again. */
    double groups = d->multicast ? (double)d->ctas / d->cluster : (double)d->ctas;
    double footprint = 0;
    for (uint32_t k = 0; k < d->ntensors; k++) {
        double loads_k = groups * d->iterations, tiles_k = tiles_of(&d->tensors[k]);
        footprint += (loads_k < tiles_k ? loads_k : tiles_k) * d->tensors[k].tx_bytes;
    }
    if (footprint > p->l2_reuse_bytes)
        return 0;
    double loads = groups * d->iterations, tiles = tiles_of(ten);
    return loads > tiles ? 1.0 - tiles / loads : 0;
}

static double tensors_l2_hit(const sim *s)
{
    const pipe_desc *d = s->d;
    double bytes = 0, hit = 0;
    for (uint32_t t = 0; t < d->ntensors; t++) {
        bytes += d->tensors[t].tx_bytes;
        hit += d->tensors[t].tx_bytes * s->l2_hit[t];
    }
    return bytes > 0 ? hit / bytes : 0;
}

/* ---------------------------------------------------------------- math */
/* The MMA work as the kernel issues it (hw/run_kernel.cuh, MATH 2): mma.sync.m16n8k16
 * (2 x 16 x 8 x 16 flops) into MMA_CHAINS independent accumulators per warp. One warp on
 * a sub-partition cannot reach the tensor-core rate: each mma waits for the previous one
 * on its accumulator, so an instruction costs max(rate, latency / chains). */
#define MMA_FLOPS_PER_INSTR 4096.0
#define MMA_CHAINS 4.0

static double math_cycles(const pipe_desc *d, const pipe_params *p)
{
    if (d->math == PIPE_MATH_FMA)
        return (double)d->math_amount * p->ffma_cycles + p->math_tail_cycles;
    double instr = (double)((d->math_amount + (uint64_t)MMA_FLOPS_PER_INSTR - 1) / (uint64_t)MMA_FLOPS_PER_INSTR);
    double rate = MMA_FLOPS_PER_INSTR / p->mma_flops_per_cycle_smsp, dep = p->mma_latency_cycles / MMA_CHAINS;
    return instr * (rate > dep ? rate : dep) + p->math_tail_cycles;
}

double pipe_math_pipe_cycles(const pipe_desc *d, const pipe_params *p)
{
    if (d->math == PIPE_MATH_FMA)
        return (double)d->math_amount * p->ffma_cycles;
    if (d->math == PIPE_MATH_MMA) {
        double instr = (double)((d->math_amount + (uint64_t)MMA_FLOPS_PER_INSTR - 1) / (uint64_t)MMA_FLOPS_PER_INSTR);
        return instr * MMA_FLOPS_PER_INSTR / p->mma_flops_per_cycle_smsp;
    }
    return 0;
}

/* ---------------------------------------------------------------- warp programs */
static int next_action(const sim *s, const warp *w)
{
    const pipe_desc *d = s->d;
    if (w->role == TRACE_ROLE_PRODUCER)
        return w->prod_j < d->iterations ? ACT_PRODUCE : ACT_FINISH;
    /* Mixed warps keep stages - 1 loads ahead: the load of iteration i + stages - 1 (into the
     * stage iteration i - 1 just released) is issued before consuming i, as the double
     * buffer of the async-copy guide loads tile i + 1 while it processes tile i. */
    if (w->role == TRACE_ROLE_MIXED && w->copier && w->prod_j < d->iterations && w->prod_j < w->cons_i + d->stages)
        return ACT_PRODUCE;
    return w->cons_i < d->iterations ? ACT_CONSUME : ACT_FINISH;
}

/* Releases iterations up to upto_excl (exclusive); returns the warp time of the arrives in
 * ps: a local arrive costs arrive_ns, an arrive on a cluster peer's barrier (multicast,
 * st.async) remote_arrive_ns, its .release.cluster ordering being the expensive part. */
static int64_t release_upto(sim *s, warp *w, int64_t upto_excl)
{
    const pipe_desc *d = s->d;
    int64_t cost = 0;
    if (d->never_release)
        return 0;
    for (; (int64_t)w->released < upto_excl; w->released++) {
        uint32_t it = w->released, st = it % d->stages;
        mbar_event ev = {.op = MBAR_ARRIVE, .count = 1, .has_intended = 1, .intended_phase = it / d->stages};
        uint32_t base = w->cta - w->cta % d->cluster;
        uint32_t n = d->multicast ? d->cluster : 1;
        for (uint32_t k = 0; k < n; k++) {
            uint32_t target = d->multicast ? base + k : w->cta;
            if (d->mode == PIPE_STASYNC)   /* the peer's producer wrote this stage */
                target = base + ((w->cta - base) ^ 1u);
            emit(s, s->now, 0, w, target, TRACE_RELEASE, st, it, empty_bar(s, st), it / d->stages, 0,
                 target != w->cta ? TRACE_FLAG_REMOTE : 0);
            bar_op(s, target, empty_bar(s, st), &ev, w, it);
            cost += (int64_t)((target != w->cta ? s->p->remote_arrive_ns : s->p->arrive_ns) * 1000);
        }
    }
    return cost;
}

/* ---------------------------------------------------------------- cp.async commit groups */
/* Pseudo barrier numbers in the trace for the waits of the commit-group protocol. */
static uint32_t group_bar(const sim *s)
{
    return 2 * s->d->stages;
}
static uint32_t barsync_bar(const sim *s)
{
    return 2 * s->d->stages + 1;
}

/* Copies this warp's share of iteration j (j < iterations; otherwise an empty group) and
 * commits it as group j. Returns the warp's issue time in ps. */
static int64_t group_copy_commit(sim *s, warp *w, uint32_t wi, uint32_t j)
{
    const pipe_desc *d = s->d;
    int64_t cost = 0, done = s->now;
    err_info *fe = &s->fe;
    if (j < d->iterations) {
        uint32_t st = j % d->stages, bytes = d->copy_bytes / d->consumer_warps;
        uint32_t instr;
        int64_t own = copy_step_ps(s, w, &instr);
        cost = issue_end(s, w, own, instr * s->p->ldgsts_slot_cycles) - s->now;
        done = mem_transfer(s, s->cta[w->cta].sm, s->now + cost, bytes, tensors_l2_hit(s), 0);
        mbar_cp_event copy = {.op = MBAR_CP_COPY, .n = 16, .cg = 1};
        if (mbar_cpasync_step(&w->cp, &copy, &w->cp, NULL, fe) != ERR_OK)
            note_finding(s, fe, w->cta, w, group_bar(s), j);
        emit(s, s->now, 0, w, w->cta, TRACE_CPASYNC_ISSUE, st, j, group_bar(s), 0, bytes, 0);
        emit(s, s->now, done - s->now, w, w->cta, TRACE_TMA_FLIGHT, st, j, group_bar(s), 0, bytes, TRACE_FLAG_FULL_BARRIER);
    }
    if (done < w->group_last_done)
        done = w->group_last_done;
    w->group_last_done = done;
    mbar_cp_event commit = {.op = MBAR_CP_COMMIT};
    mbar_cpasync_step(&w->cp, &commit, &w->cp, NULL, NULL);
    sim_ev ev = {.t = done, .type = EV_CP_GROUP_DONE, .target = wi, .iter = j};
    heap_push(&s->h, ev);
    return cost;
}

static int group_wait_done(const warp *w, uint32_t n)
{
    mbar_cp_event wait = {.op = MBAR_CP_WAIT_GROUP, .n = n};
    mbar_cpasync tmp;
    int done = 0;
    mbar_cpasync_step(&w->cp, &wait, &tmp, &done, NULL);
    return done;
}

static void group_done(sim *s, uint32_t wi)
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
static int barsync_arrive(sim *s, warp *w, uint32_t iter)
{
    cta_state *cs = &s->cta[w->cta];
    uint32_t per = s->d->producer_warps + s->d->consumer_warps;
    if (++cs->barsync_arrived < per) {
        cs->barsync_waiters |= 1ull << w->idx;
        w->gwait = GWAIT_BARSYNC;
        w->wait_start = s->now;
        w->wait_slot = emit(s, s->now, 0, w, w->cta, TRACE_WAIT, iter % s->d->stages, iter, barsync_bar(s), 0, 0, 0);
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

static void cta_finished(sim *s, uint32_t cta);

static void warp_run(sim *s, uint32_t wi)
{
    const pipe_desc *d = s->d;
    const pipe_params *p = s->p;
    warp *w = &s->w[wi];
    pipe_role_stats *rs = &s->r->role[w->role];
    for (;;) {
        switch (w->state) {
        case ST_NEXT: {
            int act = next_action(s, w);
            if (d->cpasync_groups) {
                act = w->cons_i < d->iterations ? ACT_CONSUME : ACT_FINISH;
                if (act == ACT_CONSUME) {
                    w->state = w->prod_j < d->stages - 1 ? ST_G_COPY : ST_G_WAIT;
                    continue;
                }
            }
            if (act == ACT_PRODUCE) {
                w->state = ST_WAIT_EMPTY;
                continue;
            }
            if (act == ACT_CONSUME) {
                w->state = ST_WAIT_FULL;
                continue;
            }
            if (w->is_consumer && !d->cpasync_groups)
                release_upto(s, w, d->iterations);
            int64_t end = s->now > w->store_done ? s->now : w->store_done;
            w->state = ST_DONE;
            rs->other_ns += (double)(end - s->now) / 1000.0;
            if (end > s->cta[w->cta].end)
                s->cta[w->cta].end = end;
            if (--s->cta[w->cta].warps_left == 0)
                cta_finished(s, w->cta);
            return;
        }
        case ST_WAIT_EMPTY: {
            uint32_t j = w->prod_j, st = j % d->stages;
            int64_t k = j / d->stages;
            uint32_t b = d->producer_waits_full ? full_bar(s, st) : empty_bar(s, st);
            if (!try_wait(s, w, wi, b, k - 1, (uint32_t)((k - 1) & 1), j))
                return;
            w->state = ST_ISSUE;
            continue;
        }
        case ST_ISSUE: {
            uint32_t j = w->prod_j, st = j % d->stages, k = j / d->stages;
            int64_t cost = 0;
            if (d->mode == PIPE_CPASYNC) {
                uint32_t bytes = d->copy_bytes / d->consumer_warps;
                uint32_t instr;
                int64_t own = copy_step_ps(s, w, &instr);
                cost = issue_end(s, w, own, instr * p->ldgsts_slot_cycles) - s->now;
                int64_t done = mem_transfer(s, s->cta[w->cta].sm, s->now + cost, bytes, tensors_l2_hit(s), 0);
                emit(s, s->now, 0, w, w->cta, TRACE_CPASYNC_ISSUE, st, j, full_bar(s, st), k, bytes, 0);
                emit(s, s->now, done - s->now, w, w->cta, TRACE_TMA_FLIGHT, st, j, full_bar(s, st), k, bytes,
                     TRACE_FLAG_FULL_BARRIER);
                sim_ev ev = {.t = done, .type = EV_CP_ARRIVE, .target = w->cta, .bar = (uint16_t)full_bar(s, st), .iter = j};
                heap_push(&s->h, ev);
            } else if (d->mode == PIPE_STASYNC) {
                /* The copy loop (hw/run_kernel.cuh MODE 3): 16 bytes per lane and trip, each trip a
                 * dependent ld.global then the st.async, so the trips run one after another; the
                 * bytes still take their share of L2/HBM bandwidth. */
                uint32_t trips = (d->copy_bytes + 511) / 512;
                int64_t done = mem_transfer(s, s->cta[w->cta].sm, s->now, d->copy_bytes, tensors_l2_hit(s), 0);
                int64_t loop = s->now + (int64_t)(trips * p->stas_trip_ns * 1000);
                if (loop > done)
                    done = loop;
                w->op_start = s->now;
                w->state = ST_STAS_LOADED;
                if (runs_on_now(s, done))
                    continue;
                schedule_warp(s, wi, done);
                return;
            } else {
                uint32_t base = w->cta - w->cta % d->cluster;
                mbar_event ex = {.op = MBAR_ARRIVE_EXPECT_TX, .tx = (int32_t)d->expect_tx, .has_intended = 1,
                                 .intended_phase = k};
                emit(s, s->now, 0, w, w->cta, TRACE_BAR_EXPECT_TX, st, j, full_bar(s, st), k, d->expect_tx,
                     TRACE_FLAG_FULL_BARRIER);
                bar_op(s, w->cta, full_bar(s, st), &ex, w, j);
                cost = (int64_t)(p->expect_tx_ns * 1000);
                for (uint32_t t = 0; t < d->ntensors; t++) {
                    uint32_t bytes = d->tensors[t].tx_bytes;
                    uint32_t slice = d->multicast ? bytes / d->cluster : bytes;
                    cost += (int64_t)(p->tma_issue_ns * 1000);
                    int64_t done = mem_transfer(s, s->cta[w->cta].sm, s->now + cost, slice, s->l2_hit[t], 1);
                    emit(s, s->now + cost, 0, w, w->cta, TRACE_TMA_ISSUE, st, j, full_bar(s, st), k, slice,
                         d->multicast ? TRACE_FLAG_MULTICAST : 0);
                    emit(s, s->now + cost, done - s->now - cost, w, w->cta, TRACE_TMA_FLIGHT, st, j, full_bar(s, st), k,
                         slice, TRACE_FLAG_FULL_BARRIER | (d->multicast ? TRACE_FLAG_MULTICAST : 0));
                    uint32_t n = d->multicast ? d->cluster : 1;
                    for (uint32_t c = 0; c < n; c++) {
                        uint32_t target = d->multicast ? base + c : w->cta;
                        sim_ev ev = {.t = done, .type = EV_COMPLETE_TX, .target = target, .bar = (uint16_t)full_bar(s, st),
                                     .bytes = slice, .iter = j,
                                     .flags = (uint8_t)(target != w->cta ? TRACE_FLAG_REMOTE : 0)};
                        heap_push(&s->h, ev);
                    }
                }
            }
            if (d->mode != PIPE_CPASYNC)
                cost = issue_end(s, w, cost, p->produce_issue_cycles) - s->now;
            rs->issue_ns += (double)cost / 1000.0;
            w->prod_j++;
            w->state = ST_NEXT;
            if (runs_on_now(s, s->now + cost))
                continue;
            schedule_warp(s, wi, s->now + cost);
            return;
        }
        case ST_STAS_LOADED: {
            uint32_t j = w->prod_j, st = j % d->stages, k = j / d->stages;
            uint32_t base = w->cta - w->cta % d->cluster, peer = base + ((w->cta - base) ^ 1u);
            rs->issue_ns += (double)(s->now - w->op_start) / 1000.0;
            mbar_event ex = {.op = MBAR_ARRIVE_EXPECT_TX, .tx = (int32_t)d->expect_tx, .has_intended = 1,
                             .intended_phase = k};
            emit(s, s->now, 0, w, peer, TRACE_BAR_EXPECT_TX, st, j, full_bar(s, st), k, d->expect_tx,
                 TRACE_FLAG_FULL_BARRIER | TRACE_FLAG_REMOTE);
            bar_op(s, peer, full_bar(s, st), &ex, w, j);
            /* the last st.async was issued with the last trip: it lands after the DSMEM latency */
            int64_t cost = (int64_t)(p->remote_arrive_ns * 1000);   /* the remote expect_tx */
            int64_t done = s->now + (int64_t)(p->dsmem_latency_ns * 1000);
            emit(s, w->op_start, done - w->op_start, w, peer, TRACE_TMA_FLIGHT, st, j, full_bar(s, st), k, d->copy_bytes,
                 TRACE_FLAG_FULL_BARRIER | TRACE_FLAG_REMOTE);
            sim_ev ev = {.t = done, .type = EV_COMPLETE_TX, .target = peer, .bar = (uint16_t)full_bar(s, st),
                         .bytes = d->copy_bytes, .iter = j, .flags = TRACE_FLAG_REMOTE};
            heap_push(&s->h, ev);
            rs->issue_ns += (double)cost / 1000.0;
            w->prod_j++;
            w->state = ST_NEXT;
            if (runs_on_now(s, s->now + cost))
                continue;
            schedule_warp(s, wi, s->now + cost);
            return;
        }
        case ST_WAIT_FULL: {
            uint32_t i = w->cons_i, st = i % d->stages;
            int64_t k = i / d->stages;
            uint32_t parity = (uint32_t)((k + d->wait_parity_offset) & 1);
            if (!try_wait(s, w, wi, full_bar(s, st), k, parity, i))
                return;
            w->state = ST_READ;
            continue;
        }
        case ST_READ: {
            uint32_t i = w->cons_i, st = i % d->stages;
            w->state = ST_MATH;
            if (d->read_wavefronts) {
                /* The warp issues its loads at its own pace while the SM's port serves the
                 * wavefronts of every warp in turn: the port's work queues behind what other
                 * warps left on it, the warp's issue runs alongside. */
                uint32_t sm = s->cta[w->cta].sm;
                int64_t port = (int64_t)(d->read_wavefronts * p->smem_cycles_per_wavefront * s->ps_per_cycle);
                /* a warp's load costs it at least lsu_issue_cycles, a wide one its bytes at the
                 * sub-partition's rate */
                double per_instr = (double)d->read_bytes / d->read_instructions / p->lsu_bytes_per_cycle_smsp;
                if (per_instr < p->lsu_issue_cycles)
                    per_instr = p->lsu_issue_cycles;
                int64_t issue = (int64_t)(d->read_instructions * per_instr * s->ps_per_cycle);
                int64_t served = (s->now > s->port_free[sm] ? s->now : s->port_free[sm]) + port;
                s->port_free[sm] = served;
                s->port_busy += (double)port;
                int64_t own = issue_end(s, w, issue, d->read_instructions * p->read_issue_cycles);
                int64_t end = (served > own ? served : own) + (int64_t)(p->smem_latency_cycles * s->ps_per_cycle);
                rs->read_ns += (double)(end - s->now) / 1000.0;
                emit(s, s->now, end - s->now, w, w->cta, TRACE_SMEM_READ, st, i, full_bar(s, st), i / d->stages,
                     (uint32_t)d->read_bytes, 0);
                if (runs_on_now(s, end))
                    continue;
                schedule_warp(s, wi, end);
                return;
            }
            continue;
        }
        case ST_MATH: {
            uint32_t i = w->cons_i, st = i % d->stages;
            w->state = ST_AFTER_MATH;
            if (d->math != PIPE_MATH_NONE && d->math_amount) {
                /* Same shape as the reads: the sub-partition's pipe serves the math of its
                 * warps one after another at its peak rate, while each warp's own chain (its
                 * dependent mma latency) may take longer than its pipe time; the block's tail
                 * (the accumulators' sum) follows the warp's last instruction. */
                uint32_t sm = s->cta[w->cta].sm;
                int64_t *pipe_free = &s->smsp_free[sm * 4 + w->smsp];
                int64_t pipe = (int64_t)(pipe_math_pipe_cycles(d, p) * s->ps_per_cycle);
                int64_t own = (int64_t)(math_cycles(d, p) * s->ps_per_cycle);
                int64_t served = (s->now > *pipe_free ? s->now : *pipe_free) + pipe;
                *pipe_free = served;
                s->smsp_busy += (double)pipe;
                int64_t tail = (int64_t)(p->math_tail_cycles * s->ps_per_cycle);
                int64_t end = served + tail > s->now + own ? served + tail : s->now + own;
                /* FFMA and mma.sync each take an issue slot per warp instruction */
                double instr = d->math == PIPE_MATH_FMA ? (double)d->math_amount
                                                        : ceil((double)d->math_amount / MMA_FLOPS_PER_INSTR);
                int64_t slots = issue_end(s, w, 0, instr) + tail;
                if (slots > end)
                    end = slots;
                rs->math_ns += (double)(end - s->now) / 1000.0;
                emit(s, s->now, end - s->now, w, w->cta, TRACE_MATH, st, i, 0, 0, 0, 0);
                if (runs_on_now(s, end))
                    continue;
                schedule_warp(s, wi, end);
                return;
            }
            continue;
        }
        case ST_AFTER_MATH: {
            uint32_t i = w->cons_i;
            int64_t cost = 0;
            if (!d->cpasync_groups && (int64_t)i - (int64_t)d->release_lag >= 0)
                cost += release_upto(s, w, (int64_t)i - d->release_lag + 1);
            /* The rest of an mbarrier consume step (hw/run_kernel.cuh consume): the loop, the
             * deferred event stores, and the next iteration's non-blocking test_wait probe of
             * its full barrier with the warp vote, before the next read can start. The
             * commit-group loop (cpasync.sync) has no mbarrier probe or arrive. */
            if (!d->cpasync_groups)
                cost += (int64_t)(p->consume_step_ns * 1000);
            if (d->store_bytes && d->store_every && (i + 1) % d->store_every == 0 && w->consumer_rank == 0) {
                /* A reduction combines the tile with global memory in the L2: the old value is read
                 * and the result written, twice the bytes of a store, with its own latency. */
                int reduce = d->store_reduce != PIPE_REDUCE_NONE;
                double latency_ns = reduce ? p->reduce_latency_ns : p->store_latency_ns;
                int64_t c = (int64_t)(p->tma_issue_ns * 1000);
                int64_t done = mem_transfer(s, s->cta[w->cta].sm, s->now + c, d->store_bytes * (reduce ? 2u : 1u), 0, 1) +
                               (int64_t)((latency_ns - p->hbm_latency_ns) * 1000);
                if (done < s->now + c)
                    done = s->now + c;
                emit(s, s->now + c, done - s->now - c, w, w->cta, TRACE_TMA_STORE, i % d->stages, i, 0, 0, d->store_bytes,
                     reduce ? TRACE_FLAG_REDUCE : 0);
                if (done > w->store_done)
                    w->store_done = done;
                /* the generated consumer waits until the box has been read out of shared
                 * memory (bulk wait_group.read) before it releases the stage: the store's
                 * latency to that point, measured for one box alone */
                cost += c + (int64_t)(latency_ns * 1000);
            }
            if (!d->cpasync_groups)
                cost = issue_end(s, w, cost, p->step_issue_cycles) - s->now;
            rs->issue_ns += (double)cost / 1000.0;
            w->cons_i++;
            w->state = ST_NEXT;
            if (cost) {
                if (runs_on_now(s, s->now + cost))
                    continue;
                schedule_warp(s, wi, s->now + cost);
                return;
            }
            continue;
        }
        case ST_G_COPY: {   /* prologue: groups 0 .. stages-2 */
            int64_t cost = group_copy_commit(s, w, wi, w->prod_j++);
            rs->issue_ns += (double)cost / 1000.0;
            w->state = ST_NEXT;
            if (runs_on_now(s, s->now + cost))
                continue;
            schedule_warp(s, wi, s->now + cost);
            return;
        }
        case ST_G_WAIT: {
            if (!group_wait_done(w, d->cpasync_wait_prior)) {
                w->gwait = GWAIT_GROUP;
                w->wait_start = s->now;
                w->wait_slot = emit(s, s->now, 0, w, w->cta, TRACE_WAIT, w->cons_i % d->stages, w->cons_i, group_bar(s), 0,
                                    0, TRACE_FLAG_FULL_BARRIER);
                return;   /* group_done() wakes it */
            }
            w->state = ST_G_BAR;
            continue;
        }
        case ST_G_BAR: {
            w->state = ST_G_ISSUE;
            int last = barsync_arrive(s, w, w->cons_i);
            if (last)
                schedule_warp(s, wi, s->now + (int64_t)(p->barsync_ns * 1000));
            return;
        }
        case ST_G_ISSUE: {
            uint32_t i = w->cons_i, per = d->producer_warps + d->consumer_warps;
            /* A protocol fact, not a race outcome: wait_group(N) with prod_j groups committed
             * guarantees groups 0 .. prod_j-1-N only. Reading stage i outside that range reads
             * data the program never waited for, however the copies happen to be timed (the
             * H100 ran bug_wait_prior clean 23 times: traces/h100/pipelines). */
            if ((uint64_t)i + d->cpasync_wait_prior + 1 > (uint64_t)w->prod_j) {
                int landed = 1;
                for (uint32_t k = 0; k < per; k++)
                    if (s->w[w->cta * per + k].cp.completed <= i) landed = 0;
                err_info *fe = &s->fe;
                err_set(fe, ERR_FINDING, "cpasync_read_before_complete",
                        "reads stage %u (iteration %u) after wait_group %u with %u groups committed: only groups "
                        "older than the %u most recent are guaranteed, so group %u may be in flight (%s in this run); "
                        "stages - 2 = %u would wait for it",
                        i % d->stages, i, d->cpasync_wait_prior, w->prod_j, d->cpasync_wait_prior, i,
                        landed ? "it had landed" : "it had not landed", d->stages - 2);
                note_finding(s, fe, w->cta, w, group_bar(s), i);
            }
            int64_t cost = group_copy_commit(s, w, wi, w->prod_j++);
            rs->issue_ns += (double)cost / 1000.0;
            w->state = ST_READ;
            if (cost) {
                if (runs_on_now(s, s->now + cost))
                    continue;
                schedule_warp(s, wi, s->now + cost);
                return;
            }
            continue;
        }
        default:
            return;
        }
    }
}

/* ---------------------------------------------------------------- CTAs */
static void cta_start(sim *s, uint32_t c, uint32_t sm)
{
    const pipe_desc *d = s->d;
    cta_state *cs = &s->cta[c];
    cs->sm = sm;
    cs->started = 1;
    /* A resident CTA takes the SM's lowest free slot; its warps take the SM's warp slots
     * after those of the CTAs before it, and warp slot n runs on sub-partition n % 4, so
     * the warps of several CTAs on one SM share the sub-partitions evenly. */
    uint32_t used = s->sm_slots[sm], slot = 0;
    while (slot < 31 && (used >> slot) & 1u)
        slot++;
    s->sm_slots[sm] = used | 1u << slot;
    cs->slot = slot;
    uint32_t per = d->producer_warps + d->consumer_warps;
    for (uint32_t k = 0; k < per; k++)
        s->w[c * per + k].smsp = (uint8_t)((slot * per + k) % 4);
    cs->warps_left = d->producer_warps + d->consumer_warps;
    mbar_event fi = {.op = MBAR_INIT, .count = d->full_count}, ei = {.op = MBAR_INIT, .count = d->empty_count};
    for (uint32_t st = 0; st < d->stages; st++) {
        bar_op(s, c, full_bar(s, st), &fi, NULL, 0);
        bar_op(s, c, empty_bar(s, st), &ei, NULL, 0);
    }
    for (uint32_t k = 0; k < per; k++)
        schedule_warp(s, c * per + k, s->now);
}

/* A CTA's slot is free when it ends: a CTA of the next wave takes it. A cluster is
 * co-scheduled: the next cluster starts, on the SMs of the one that left, when the last
 * CTA of that cluster has ended. */
static void cta_finished(sim *s, uint32_t cta)
{
    const pipe_desc *d = s->d;
    uint32_t sm = s->cta[cta].sm;
    s->sm_slots[sm] &= ~(1u << s->cta[cta].slot);
    int64_t saved = s->now;
    if (d->cluster == 1) {
        if (s->next_cta < d->ctas) {
            s->now = s->cta[cta].end > s->now ? s->cta[cta].end : s->now;
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
    s->now = end;
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
        double at1 = d->cluster == 2 ? sms / 2 : d->cluster == 4 ? p->clusters4_at1 : d->cluster == 8 ? p->clusters8_at1
                                                                                                       : p->clusters16_at1;
        double at8 = d->cluster == 2 ? 4.0 * sms : d->cluster == 4 ? p->clusters4_at8 : d->cluster == 8 ? p->clusters8_at8
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

/* ---------------------------------------------------------------- deadlock story */
static void explain_deadlock(sim *s)
{
    const pipe_desc *d = s->d;
    uint32_t per = d->producer_warps + d->consumer_warps;
    char *out = s->r->chain;
    size_t cap = sizeof s->r->chain, len = 0;
    uint32_t blocked = 0, first = UINT32_MAX;
    /* Start from the root cause when there is one: a barrier whose arrivals are all in
     * but whose tx-count never returns to zero. */
    uint32_t tx_stuck = UINT32_MAX;
    for (uint32_t wi = 0; wi < s->nw; wi++)
        if (s->w[wi].blocked) {
            const mbar *m = &s->bar[(size_t)s->w[wi].cta * s->nbar + s->w[wi].wait_bar];
            blocked++;
            if (first == UINT32_MAX)
                first = wi;
            if (tx_stuck == UINT32_MAX && m->pending == 0 && m->tx != 0)
                tx_stuck = wi;
        }
    if (tx_stuck != UINT32_MAX)
        first = tx_stuck;
    len += (size_t)snprintf(out + len, cap - len, "%u warp(s) blocked forever. ", blocked);
    uint8_t seen[DESC_MAX_WARPS] = {0};
    uint32_t wi = first;
    for (int hop = 0; hop < 6 && wi != UINT32_MAX && len < cap; hop++) {
        warp *w = &s->w[wi];
        if (seen[w->idx]) {
            len += (size_t)snprintf(out + len, cap - len, "-> back to warp %u: a cycle.", w->idx);
            break;
        }
        seen[w->idx] = 1;
        const mbar *m = &s->bar[(size_t)w->cta * s->nbar + w->wait_bar];
        int is_full = w->wait_bar < d->stages;
        len += (size_t)snprintf(out + len, cap - len,
                                "CTA %u warp %u (%s) waits %s[%u] phase %lld (iteration %u, parity %u): barrier at phase %u, "
                                "%d of %d arrivals missing, tx-count %d; ",
                                w->cta, w->idx, trace_role_name((trace_role)w->role), is_full ? "full" : "empty",
                                w->wait_bar % d->stages, (long long)w->wait_phase, w->wait_iter, w->wait_parity, m->phase,
                                m->pending, m->expected, m->tx);
        if (len >= cap)
            break;
        if (m->pending == 0 && m->tx != 0) {
            len += (size_t)snprintf(out + len, cap - len,
                                    "all arrivals are in but %d bytes %s (expect_tx %u vs %u bytes the copies deliver). ",
                                    m->tx < 0 ? -m->tx : m->tx, m->tx > 0 ? "never arrive" : "arrived beyond the expected",
                                    d->expect_tx, d->copy_bytes);
            break;
        }
        /* who arrives on this barrier */
        uint32_t next = UINT32_MAX;
        const char *who = is_full ? (d->mode == PIPE_CPASYNC ? "the copying warps" : "the producer")
                                  : "the consumer warps";
        uint32_t base = w->cta * per;
        for (uint32_t k = 0; k < per; k++) {
            warp *a = &s->w[base + k];
            int arrives = is_full ? (a->role == TRACE_ROLE_PRODUCER || a->copier) : a->is_consumer;
            if (!arrives || k == w->idx)
                continue;
            if (a->blocked) {
                next = base + k;
                break;
            }
        }
        if (!is_full && d->never_release) {
            len += (size_t)snprintf(out + len, cap - len, "the consumers never release a stage (consumer.release: false). ");
            break;
        }
        if (next == UINT32_MAX) {
            len += (size_t)snprintf(out + len, cap - len, "arrivals come from %s, which finished or arrived already%s. ",
                                    who,
                                    m->expected > 1 ? ": the init count exceeds the arrivals per phase" : "");
            break;
        }
        len += (size_t)snprintf(out + len, cap - len, "its arrivals come from %s: ", who);
        wi = next;
    }
}

/* ---------------------------------------------------------------- verdict */
/* The evidence the verdict is decided on, the same quantities a recording yields
 * (verdict_hw_evidence): bytes over bandwidth, port wavefronts over cycles, the math
 * priced at the pipe rates, and the consumers' waits and work. */
static void pipe_evidence(const sim *s, pipe_result *r)
{
    const pipe_desc *d = s->d;
    const pipe_params *p = s->p;
    const pipe_role_stats *cons = &r->role[pipe_desc_has_producer(d) ? TRACE_ROLE_CONSUMER : TRACE_ROLE_MIXED];
    double t = r->kernel_ns > 0 ? (double)r->kernel_ns : 1;
    double ctime = (double)cons->warps * t;
    verdict_counters c = {.dram_bytes = s->dram_bytes, .l2_bytes = s->l2_bytes, .smem_wavefronts = -1, .sm_cycles = -1};
    /* work as a recorded trace shows it: reads and math spans (issue steps are not spans there) */
    verdict_hw_evidence(d, p, t, &c, cons->wait_full_ns / ctime, (cons->read_ns + cons->math_ns) / ctime, &r->evidence);
    uint32_t sms_used = d->ctas < s->sms ? d->ctas : s->sms;
    r->evidence.smem_util = s->port_busy / (t * 1000.0 * sms_used);
    r->evidence.hang = r->deadlock;
    r->verdict = verdict_decide(&r->evidence);
    r->bottleneck_kind = verdict_name(r->verdict);
}

/* The verdict in one sentence, with the figures it rests on. */
static void pipe_sentence(const sim *s, pipe_result *r)
{
    const pipe_desc *d = s->d;
    const verdict_evidence *ev = &r->evidence;
    const pipe_role_stats *cons = &r->role[pipe_desc_has_producer(d) ? TRACE_ROLE_CONSUMER : TRACE_ROLE_MIXED];
    double ctime = (double)cons->warps * (double)(r->kernel_ns ? r->kernel_ns : 1);
    const char *data_wait = d->cpasync_groups ? "on their cp.async groups" : "on full barriers";
    char *b = r->bottleneck;
    size_t n = sizeof r->bottleneck;
    switch (r->verdict) {
    case VERDICT_HANG:
        snprintf(b, n, "hang: the pipeline deadlocks: warps wait forever (the deadlock chain says who waits on whom).");
        break;
    case VERDICT_MEMORY:
        snprintf(b, n, "memory: DRAM moves bytes at %.0f%% and L2 at %.0f%% of their bandwidth; consumers wait %s "
                 "%.0f%% of their time.", 100 * ev->dram_util, 100 * ev->l2_util, data_wait, 100 * ev->wait_data);
        break;
    case VERDICT_SMEM:
        snprintf(b, n, "shared-memory port: busy %.0f%% of the kernel serving the consumers' reads (%.2fx the ideal "
                 "wavefronts); DRAM at %.0f%%.", 100 * ev->smem_util,
                 d->read_ideal_wavefronts ? (double)d->read_wavefronts / (double)d->read_ideal_wavefronts : 1.0,
                 100 * ev->dram_util);
        break;
    case VERDICT_COMPUTE:
        snprintf(b, n, "compute: consumers are busy %.0f%% of their time (math %.0f%%, shared-memory reads %.0f%%; "
                 "math pipes at %.0f%% of their peak) while DRAM is at %.0f%%.", 100 * ev->busy,
                 100 * cons->math_ns / ctime, 100 * cons->read_ns / ctime, 100 * ev->math_util, 100 * ev->dram_util);
        break;
    case VERDICT_LATENCY:
        snprintf(b, n, "latency: consumers wait %s %.0f%% of their time while DRAM is only at %.0f%% of its "
                 "bandwidth: %u stage(s) in flight do not cover the ~%.0f ns copy latency.", data_wait,
                 100 * ev->wait_data, 100 * ev->dram_util, d->stages, s->p->hbm_latency_ns);
        break;
    default:
        snprintf(b, n, "synchronization: consumers are busy only %.0f%% and wait on barriers %.0f%% (full) / %.0f%% "
                 "(empty); arrive and wake-up costs dominate.", 100 * ev->busy, 100 * ev->wait_data,
                 100 * cons->wait_empty_ns / ctime);
        break;
    }
}

/* ---------------------------------------------------------------- run */
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
    uint32_t per = d->producer_warps + d->consumer_warps;
    s.nw = d->ctas * per;
    s.nbar = 2 * d->stages;
    s.sms = (uint32_t)p->sm_count;
    if (s.sms < 1)
        s.sms = 1;
    s.ps_per_cycle = 1000.0 / p->clock_ghz;
    for (uint32_t t = 0; t < d->ntensors; t++)
        s.l2_hit[t] = pipe_l2_hit(d, t, p);
    size_t heap_cap = (size_t)d->ctas * (per + (size_t)d->stages * (d->ntensors * d->cluster + per) + 4) + 64;
    s.h.v = malloc(heap_cap * sizeof *s.h.v);
    s.h.cap = heap_cap;
    s.w = calloc(s.nw, sizeof *s.w);
    s.bar = calloc((size_t)d->ctas * s.nbar, sizeof *s.bar);
    s.waiters = calloc((size_t)d->ctas * s.nbar, sizeof *s.waiters);
    s.cta = calloc(d->ctas, sizeof *s.cta);
    s.tma_free = calloc(s.sms, sizeof(int64_t));
    s.ldg_free = calloc(s.sms, sizeof(int64_t));
    s.port_free = calloc(s.sms, sizeof(int64_t));
    s.smsp_free = calloc((size_t)s.sms * 4, sizeof(int64_t));
    s.issue_free = calloc((size_t)s.sms * 4, sizeof(int64_t));
    s.sm_slots = calloc(s.sms, sizeof *s.sm_slots);
    int rc = ERR_OK;
    if (!s.h.v || !s.w || !s.bar || !s.waiters || !s.cta || !s.tma_free || !s.ldg_free || !s.port_free || !s.smsp_free || !s.sm_slots || !s.issue_free) {
        rc = err_set(e, ERR_IO, "out_of_memory", "simulator state for %u CTAs", d->ctas);
        goto out;
    }
    for (uint32_t st = 0; st < DESC_MAX_STAGES; st++)
        s.stage_filled_since[st] = -1;
    trace_init(&s.late, TRACE_SRC_SIM);
    if (s.tr) {
        /* a trace that already holds events is merged by a full sort instead */
        s.two_streams = s.tr->count == 0;
        s.main_last_ns = INT64_MIN;
        uint64_t estimate = d->ctas * (uint64_t)d->iterations * per * 5;
        if (estimate < (1u << 28)) {
            trace_reserve(s.tr, (size_t)estimate, NULL);
        }
    }
    if (s.tr) {
        snprintf(s.tr->name, sizeof s.tr->name, "%s", d->name);
        snprintf(s.tr->gpu, sizeof s.tr->gpu, "H100 SXM (sim)");
    }
    for (uint32_t c = 0; c < d->ctas; c++)
        for (uint32_t k = 0; k < per; k++) {
            warp *w = &s.w[c * per + k];
            w->cta = c;
            w->idx = (uint8_t)k;
            if (k < d->producer_warps) {
                w->role = TRACE_ROLE_PRODUCER;
            } else {
                w->is_consumer = 1;
                w->consumer_rank = (uint8_t)(k - d->producer_warps);
                w->role = pipe_desc_has_producer(d) ? TRACE_ROLE_CONSUMER : TRACE_ROLE_MIXED;
                w->copier = d->mode == PIPE_CPASYNC || (d->mode == PIPE_MULTISTAGE && w->consumer_rank == 0);
            }
            r->role[w->role].warps++;
        }
    uint32_t first_wave = first_wave_ctas(d, p, s.sms);
    /* Launch skew: the first wave does not start at one instant. The CTAs of a cluster are
     * co-scheduled, so the spread is over clusters. */
    uint32_t first_clusters = first_wave / d->cluster;
    for (uint32_t c = 0; c < first_wave; c++) {
        uint32_t k = c / d->cluster;
        s.now = first_clusters > 1 ? (int64_t)(p->cta_launch_spread_ns * 1000.0 * k / (first_clusters - 1)) : 0;
        cta_start(&s, c, c % s.sms);
    }
    s.now = 0;
    s.next_cta = first_wave;

    int64_t clock_over = -1;
    while (s.h.n && !s.trace_failed) {   /* a trace that cannot grow ends the run now */
        sim_ev ev = heap_pop(&s.h);
        if (ev.t > PIPE_CLOCK_LIMIT_PS) {   /* pipe_budget refuses such runs up front: a safety net */
            clock_over = ev.t;
            break;
        }
        s.now = ev.t;
        r->sim_events++;
        if (o && o->progress && (r->sim_events & ((1u << 20) - 1)) == 0)
            o->progress(o->progress_user, r->sim_events);
        switch (ev.type) {
        case EV_WARP:
            warp_run(&s, ev.target);
            break;
        case EV_COMPLETE_TX: {
            mbar_event m = {.op = MBAR_COMPLETE_TX, .tx = (int32_t)ev.bytes, .has_intended = 1,
                            .intended_phase = ev.iter / d->stages};
            uint32_t st = ev.bar % d->stages;
            emit(&s, s.now, 0, NULL, ev.target, TRACE_BAR_COMPLETE_TX, st, ev.iter, ev.bar,
                 ev.iter / d->stages, ev.bytes, TRACE_FLAG_FULL_BARRIER | ev.flags);
            bar_op(&s, ev.target, ev.bar, &m, NULL, ev.iter);
            break;
        }
        case EV_CP_GROUP_DONE:
            group_done(&s, ev.target);
            break;
        case EV_CP_ARRIVE: {
            /* cp.async.mbarrier.arrive.noinc: the warp's copies landed */
            mbar_event m = {.op = MBAR_ARRIVE, .count = 1, .has_intended = 1, .intended_phase = ev.iter / d->stages};
            emit(&s, s.now, 0, NULL, ev.target, TRACE_BAR_ARRIVE, ev.bar % d->stages, ev.iter, ev.bar,
                 ev.iter / d->stages, 0, TRACE_FLAG_FULL_BARRIER);
            bar_op(&s, ev.target, ev.bar, &m, NULL, ev.iter);
            break;
        }
        default:
            break;
        }
    }
    if (clock_over >= 0) {
        rc = err_set(e, ERR_BAD_INPUT, "clock_limit", "simulated time reached %lld ps, past the clock's limit of %lld ps",
                     (long long)clock_over, (long long)PIPE_CLOCK_LIMIT_PS);
        goto out;
    }
    if (s.trace_failed) {
        rc = err_set(e, ERR_IO, "out_of_memory", "trace of %llu events", (unsigned long long)r->trace_events);
        goto out;
    }
    int64_t end = 0;
    for (uint32_t c = 0; c < d->ctas; c++)
        if (s.cta[c].end > end)
            end = s.cta[c].end;
    for (uint32_t wi = 0; wi < s.nw; wi++)
        if (s.w[wi].state != ST_DONE) {
            r->deadlock = 1;
            if (s.now > end)
                end = s.now;
        }
    if (r->deadlock) {
        /* close open waits so the trace shows the hang */
        for (uint32_t wi = 0; wi < s.nw; wi++)
            if (s.w[wi].blocked || s.w[wi].gwait) {
                close_wait_span(&s, &s.w[wi], end, TRACE_FLAG_TIMEOUT);
            }
        explain_deadlock(&s);
    }
    /* the kernel's measured time also holds the launch's start and drain outside the CTAs */
    r->kernel_ns = (end + 999) / 1000 + (int64_t)p->kernel_overhead_ns;
    double kernel_ps = end > 0 ? (double)end : 1;
    uint32_t sms_used = d->ctas < s.sms ? d->ctas : s.sms;
    r->hbm_util = s.hbm_busy / kernel_ps;
    r->tma_util = s.tma_busy / (kernel_ps * sms_used);
    r->smem_util = s.port_busy / (kernel_ps * sms_used);
    r->math_util = s.smsp_busy / (kernel_ps * sms_used * (per < 4 ? per : 4));
    for (uint32_t st = 0; st < d->stages; st++)
        if (s.stage_filled_since[st] >= 0)
            s.stage_filled_ps += (double)(end - s.stage_filled_since[st]);
    r->stages_filled_avg = s.stage_filled_ps / kernel_ps;
    for (int k = 0; k < 3; k++) {
        pipe_role_stats *rs = &r->role[k];
        rs->busy_ns = rs->issue_ns + rs->read_ns + rs->math_ns;
        double total = (double)rs->warps * (double)r->kernel_ns;
        double rest = total - rs->busy_ns - rs->wait_full_ns - rs->wait_empty_ns;
        rs->other_ns = rest > 0 ? rest : 0;
    }
    if (s.tr) {
        s.tr->kernel_ns = r->kernel_ns;
        if (s.two_streams && !s.trace_failed)
            merge_streams(&s);
        else
            trace_sort(s.tr);
    }
    if (s.trace_failed)
        rc = err_set(e, ERR_IO, "out_of_memory", "trace of %llu events", (unsigned long long)r->trace_events);

    pipe_evidence(&s, r);
    pipe_sentence(&s, r);
out:
    trace_free(&s.late);
    free(s.soon);
    free(s.h.v);
    free(s.w);
    free(s.bar);
    free(s.waiters);
    free(s.cta);
    free(s.tma_free);
    free(s.ldg_free);
    free(s.port_free);
    free(s.smsp_free);
    free(s.issue_free);
    free(s.sm_slots);
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
