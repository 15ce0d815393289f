/* pipe_sim: the simulator state shared by the pipe_* modules (private to sim/pipe*.c).
 *
 *   pipe.c         pipe_run: setup, the event loop, CTA launch waves, the result
 *   pipe_emit.c    trace output in time order (the near-future and late streams)
 *   pipe_bar.c     barrier glue: mbarrier operations, waits, wake-ups, cp.async groups, bar.sync
 *   pipe_cost.c    the cost model: issue slots, copy trips, memory transfers, L2 reuse, math
 *   pipe_warp.c    the warp machine: one step function per warp state
 *   pipe_report.c  the deadlock chain, the verdict's evidence and its sentence
 *
 * The event heap and the few one-line helpers of the hot path are inline here. */
#ifndef TMASCOPE_PIPE_SIM_H
#define TMASCOPE_PIPE_SIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "mbar.h"
#include "pipe.h"
#include "pipe_plan.h"

/* ---------------------------------------------------------------- event heap */
enum { EV_WARP = 0, EV_COMPLETE_TX, EV_CP_ARRIVE, EV_CP_GROUP_DONE, EV_ARRIVE };

typedef struct sim_ev {
    int64_t t;                   /* ps */
    uint32_t seq;                /* FIFO among equal times: deterministic */
    uint8_t type, flags;
    uint16_t bar;
    uint32_t target;             /* warp index (global) or CTA */
    uint32_t bytes;
    uint32_t iter;
    uint32_t warp;               /* EV_ARRIVE: the arriving warp (global index) */
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

static inline int heap_push(heap *h, sim_ev ev)
{
    if (h->n == h->cap) {
        /* superseded warp events stay until they come up: room grows for them */
        sim_ev *v = realloc(h->v, 2 * h->cap * sizeof *v);
        if (!v)
            return -1;
        h->v = v;
        h->cap *= 2;
    }
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

static inline sim_ev heap_pop(heap *h)
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
    ST_NEXT = 0, ST_WAIT_EMPTY, ST_ISSUE, ST_STAS_LOOP, ST_STAS_LOADED, ST_WAIT_FULL, ST_READ, ST_MATH, ST_STORE, ST_AFTER_MATH, ST_DONE,
    ST_G_COPY, ST_G_WAIT, ST_G_BAR, ST_G_ISSUE,  /* cp.async commit groups (cpasync.sync: wait_prior) */
    ST_WG_WAIT, ST_WG_EPILOGUE                   /* math kind wgmma: wait_group, the tile's epilogue */
};
enum { GWAIT_NONE = 0, GWAIT_GROUP, GWAIT_BARSYNC };
enum { ACT_PRODUCE, ACT_CONSUME, ACT_FINISH };

typedef struct warp {
    uint32_t cta;
    uint8_t idx, role, state, smsp;
    uint8_t copier, consumer_rank, is_consumer, blocked;
    uint8_t waited;              /* its last wait for a stage to be free blocked (st.async producer) */
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
    int64_t issued_ps;           /* issue slots it has taken on its sub-partition, in ps of cycles */
    int64_t mark_at, mark_smsp, mark_own;  /* time and issue counts at its last chain_scale(move) */
    uint32_t gen;                /* its pending warp event is the one carrying this number */
    size_t math_slot;            /* the math span's trace event, its length set when it ends */
    int64_t math_start;          /* ps: the math span's start (-1: none open) */
    size_t read_slot;            /* the same for the read span */
    int64_t read_start;
    /* the stretch it spends on a shared unit (share_set): its least end (its own chain and
     * issue, and the tail) and what follows its share of the unit; ps */
    int64_t share_floor, share_tail;
    int64_t store_read_done;     /* wgmma epilogue: the TMA store has read the staging buffer */
} warp;

/* A unit that the warps on it share equally (each of n gets 1/n of it), per unit: the
 * warps on it now (PIPE_SHARERS at most), the ps of the unit's work each still needs, how
 * many, and when their remaining work was last brought up to date. */
typedef struct share_set {
    int in_order;                /* a group's share goes to its warp that came first, whole */
    uint32_t *warps, *group;     /* per warp on it: its group (share_join) */
    double *left;
    uint8_t *n;
    int64_t *t;
} share_set;

typedef struct cta_state {
    uint32_t sm, slot;           /* the SM and its CTA slot (0 .. ctas_per_sm - 1) */
    uint32_t warps_left;
    int64_t start, end;          /* ps: when it started and its last warp ended */
    int started;
    uint32_t barsync_arrived;    /* warps arrived at the CTA barrier (bar.sync) */
    uint64_t barsync_waiters;
    int64_t copies_done;         /* GEMM: when the producer thread's last stage of copies completed */
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
    int64_t *tma_free, *port_free;               /* per SM */
    int64_t *ldg_free;                           /* per SM: its cp.async / ld.global intake */
    /* per SM: when the requests of the loads landing in it that miss L2 have been served by
     * DRAM (a share of which a .release.cluster fence there waits for) */
    int64_t *loads_dram_served;
    int64_t last_dram_served;    /* mem_transfer's last transfer: when its DRAM share was served */
    int64_t *issue_free;         /* per SM*4: the sub-partition's issue slots, taken in turn */
    int64_t *issued;             /* per SM*4: the issue slots its warps have taken, in ps of cycles */
    share_set pipe;              /* per SM*4: the sub-partition's math pipe */
    share_set port;              /* per SM: the shared-memory port, read by the consumers' loads */
    int64_t mem_free;
    /* math kind wgmma: each SM's tensor pipe, the GPU's L2 (a queue of its own beside DRAM's),
     * and per consumer warpgroup (its lead warp) the completion time of each group in flight,
     * by iteration modulo stages */
    int gemm;
    int64_t *tensor_free, l2_free, *wg_done;
    int64_t *copies_until;           /* per SM: the end of the TMA loads in flight into its shared memory */
    int64_t *stores_drained;         /* per SM: when its direct epilogue's stores beyond its queue have drained */
    double tensor_busy, l2_busy;
    double chain_busy;               /* GEMM: the producer threads' stage chains (gemm_step_floor), all CTAs */
    uint32_t nw, nbar, sms, next_cta;
    uint32_t *sm_slots;          /* per SM: bit k set while CTA slot k holds a CTA */
    uint8_t *smsp_next;          /* per SM: the sub-partition of the next CTA's first warp */
    double ps_per_cycle;
    double hbm_busy, tma_busy, port_busy, smsp_busy;
    double dram_bytes, l2_bytes;     /* moved from DRAM; through L2 (hits and misses) */
    double l2_hit[DESC_MAX_TENSORS]; /* pipe_l2_hit of each tensor */
    double l2_req_rate[DESC_MAX_TENSORS]; /* pipe_l2_request_rate of each tensor: L2 requests per ns */
    double l2_readers[DESC_MAX_TENSORS]; /* GEMM: SMs loading each tile at once (pipe_gemm_readers) */
    /* st_async: per trip of the copy loop, its cost by source (L1, L2, DRAM) at one producer
     * warp per SM, weighted by the share of its bytes each source serves (stas_prepare);
     * per SM, the producer warps in their copy loops now */
    double (*stas_trip)[PARAMS_STAS_SOURCES];
    double (*stas_share)[PARAMS_STAS_SOURCES];   /* the share of each trip's chunks each source serves */
    uint32_t stas_ntrips;
    double stas_table_miss;   /* the share of the st.async loop's table entries that miss L1 */
    double stas_l1;           /* the share of the st.async loop's trips that L1 serves */
    uint32_t *stas_active;
    int64_t stage_filled_since[DESC_MAX_STAGES];
    double stage_filled_ps;
    int64_t now;
    int trace_failed;
    /* the trace output in time order (pipe_emit.c) */
    trace late;
    trace_event *soon;
    size_t soon_n, soon_cap;
    int64_t main_last_ns;
    int two_streams;
} sim;

#define NO_SLOT SIZE_MAX

/* Math kind wgmma: a consumer warpgroup's four warps run its wgmma, wait_group and arrives
 * together (.sync.aligned); its first warp (the lead) carries the warpgroup in the model, as
 * the generated kernel's recording does, and the other three end at once. */
static inline int wg_lead(const sim *s, const warp *w)
{
    return s->gemm && w->is_consumer && w->consumer_rank % 4 == 0;
}
static inline int wg_follower(const sim *s, const warp *w)
{
    return s->gemm && w->is_consumer && w->consumer_rank % 4 != 0;
}
static inline int64_t *wg_done_slot(sim *s, const warp *w, uint32_t i)
{
    uint32_t per = s->d->producer_warps + s->d->consumer_warps;
    return &s->wg_done[((size_t)w->cta * per + w->idx) * s->d->stages + i % s->d->stages];
}

static inline uint32_t full_bar(const sim *s, uint32_t stage)
{
    (void)s;
    return stage;
}
static inline uint32_t empty_bar(const sim *s, uint32_t stage)
{
    return s->d->stages + stage;
}
/* Pseudo barrier numbers in the trace for the waits of the commit-group protocol. */
static inline uint32_t group_bar(const sim *s)
{
    return 2 * s->d->stages;
}
static inline uint32_t barsync_bar(const sim *s)
{
    return 2 * s->d->stages + 1;
}

#define PIPE_SHARERS 64u

static inline void schedule_warp(sim *s, uint32_t wi, int64_t t)
{
    /* a warp event carries the warp's number of reschedules: an earlier one, superseded
     * when the math pipe's sharers changed, is dropped when it comes up */
    sim_ev ev = {.t = t, .type = EV_WARP, .target = wi, .bytes = s->w[wi].gen};
    heap_push(&s->h, ev);
}

/* A warp that would schedule itself strictly before every pending event would be the next
 * one popped anyway: it runs on at once (same order, same result, no heap traffic). */
static inline int runs_on_now(sim *s, int64_t t)
{
    if (s->h.n && s->h.v[0].t <= t)
        return 0;
    s->now = t;
    s->r->sim_events++;
    return 1;
}

/* pipe_emit.c */
size_t pipe_emit(sim *s, int64_t t_ps, int64_t dur_ps, const warp *w, uint32_t cta, uint8_t kind, uint32_t stage,
                 uint32_t iter, uint32_t barrier, uint32_t phase, uint32_t bytes, uint8_t flags);
void pipe_merge_streams(sim *s);

/* pipe_bar.c */
void note_finding(sim *s, const err_info *fe, uint32_t cta, const warp *w, uint32_t bar, uint32_t iter);
void bar_op(sim *s, uint32_t cta, uint32_t b, const mbar_event *ev, const warp *w, uint32_t iter);
int try_wait(sim *s, warp *w, uint32_t b, int64_t phase, uint32_t parity, uint32_t iter);
void close_wait_span(sim *s, warp *w, int64_t end, uint8_t flags);
int group_wait_done(const warp *w, uint32_t n);
void group_done(sim *s, uint32_t wi);
int barsync_arrive(sim *s, warp *w, uint32_t iter);

/* pipe_cost.c */
int64_t issue_end(sim *s, warp *w, int64_t dur_ps, double slots);
void produce_steps_ns(sim *s, warp *w, double *to_first, double *between, double *tail);
double chain_scale(sim *s, warp *w, int move);
int64_t copy_step_end(sim *s, warp *w);
int stas_prepare(sim *s, err_info *e);
int64_t stas_loop_end(sim *s, warp *w);
void stas_loop_done(sim *s, const warp *w);
/* a load landing in SM sm: mem_transfer's last transfer's DRAM share is waited on there */
void note_loads(sim *s, uint32_t sm);
int64_t release_dram_wait_ps(const sim *s, uint32_t sm, int64_t t);
double remote_arrive_next_ns(const sim *s);
double remote_arrive_first_extra_ns(const sim *s);
int64_t mem_transfer(sim *s, uint32_t sm, int64_t start, uint32_t bytes, double l2_hit, int use_tma, double l2_readers,
                     double request_ns);
/* the L2 requests of one box of the tensor, and the GPU's rate for tensor t's requests given
 * the lines its boxes touch (mem_transfer's request_ns is their quotient) */
double pipe_l2_request_rate(const pipe_desc *d, const pipe_params *p, uint32_t t);
double pipe_box_requests(const desc_tensor *ten);
double tensors_l2_hit(const sim *s);
int64_t read_step_end(sim *s, warp *w);
int64_t math_step_end(sim *s, warp *w);
int64_t store_step(sim *s, warp *w, uint32_t i);
int64_t wgmma_issue(sim *s, warp *w, uint32_t i);
int64_t gemm_epilogue_end(sim *s, warp *w, uint32_t tile);

/* pipe_warp.c */
void warp_run(sim *s, uint32_t wi);

/* pipe.c */
void cta_finished(sim *s, uint32_t cta);

/* pipe_report.c */
void explain_deadlock(sim *s);
void pipe_evidence(const sim *s, pipe_result *r);
void pipe_sentence(const sim *s, pipe_result *r);

#endif
