/* pipe_warp: the warp machine. Each warp runs its role's program (the generated kernel's
 * loop, hw/run_kernel.cuh) as a state machine: one step function per state, which does the
 * state's work and says when the warp goes on. */
#include <stdint.h>

#include "pipe_gemm.h"
#include "pipe_sim.h"

static int next_action(const sim *s, const warp *w)
{
    const pipe_desc *d = s->d;
    if (w->role == TRACE_ROLE_PRODUCER)
        return w->prod_j < d->iterations ? ACT_PRODUCE : ACT_FINISH;
    if (wg_follower(s, w))
        return ACT_FINISH;
    /* Mixed warps keep stages - 1 loads ahead: the load of iteration i + stages - 1 (into the
     * stage iteration i - 1 just released) is issued before consuming i, as the double
     * buffer of the async-copy guide loads tile i + 1 while it processes tile i. */
    if (w->role == TRACE_ROLE_MIXED && w->copier && w->prod_j < d->iterations && w->prod_j < w->cons_i + d->stages)
        return ACT_PRODUCE;
    return w->cons_i < d->iterations ? ACT_CONSUME : ACT_FINISH;
}

/* A release of iteration it on CTA target's empty barrier that takes effect at `at`: a
 * cluster peer's when the arrive reaches it, the warp's own CTA's after the remote arrives
 * before it. */
static void arrive_later(sim *s, warp *w, uint32_t target, uint32_t it, uint32_t count, int64_t at)
{
    sim_ev ev = {.t = at, .type = EV_ARRIVE, .target = target,
                 .bar = (uint16_t)empty_bar(s, it % s->d->stages), .bytes = count, .iter = it,
                 .warp = (uint32_t)(w - s->w)};
    heap_push(&s->h, ev);
}

/* The st.async consumer's release of iteration it: an arrive.release.cluster on the peer's
 * empty barrier, which reaches it dsmem_latency_ns later (the calibrated remote hand-off)
 * while the warp goes on after stas_release_ns. */
static int64_t stas_release(sim *s, warp *w, uint32_t target, uint32_t it, uint32_t count)
{
    arrive_later(s, w, target, it, count, s->now + (int64_t)(s->p->dsmem_latency_ns * 1000));
    return (int64_t)(s->p->stas_release_ns * 1000);
}

/* Releases iterations up to upto_excl (exclusive); returns the warp time of the arrives in
 * ps: a local arrive costs arrive_ns, the first arrive on a multicast cluster peer's barrier
 * remote_arrive_ns (its .release.cluster orders the step's memory operations before it),
 * each further peer's remote_arrive_next_ns (tmahw calibrate's arrives on every rank), each
 * release_dram_wait_ps (the wait for its SM's loads from DRAM) and reaches the peer's barrier
 * dsmem_latency_ns after that wait (tmahw calibrate's cluster ping-pong: issue to the
 * peer's phase completing), not at once; the st.async consumer's arrive on its peer's
 * barrier: stas_release. The GEMM kernel's consumer warp arrives on every CTA of its
 * cluster in one instruction at CTA scope (hw/gemm_kernel.cuh gm_release): arrive_ns for
 * all of them. */
static int64_t release_upto(sim *s, warp *w, int64_t upto_excl)
{
    const pipe_desc *d = s->d;
    int64_t cost = 0;
    if (d->never_release)
        return 0;
    for (; (int64_t)w->released < upto_excl; w->released++) {
        uint32_t it = w->released, st = it % d->stages;
        /* a wgmma lead arrives for the four warps of its warpgroup */
        uint32_t count = wg_lead(s, w) ? PIPE_WARPGROUP_WARPS : 1;
        mbar_event ev = {.op = MBAR_ARRIVE, .count = count, .has_intended = 1, .intended_phase = it / d->stages};
        uint32_t base = w->cta - w->cta % d->cluster;
        uint32_t n = d->multicast ? d->cluster : 1, remotes = 0;
        for (uint32_t k = 0; k < n; k++) {
            uint32_t target = d->multicast ? base + k : w->cta;
            if (d->mode == PIPE_STASYNC)   /* the peer's producer wrote this stage */
                target = base + ((w->cta - base) ^ 1u);
            pipe_emit(s, s->now + cost, 0, w, target, TRACE_RELEASE, st, it, empty_bar(s, st), it / d->stages, 0,
                      target != w->cta ? TRACE_FLAG_REMOTE : 0);
            if (d->mode == PIPE_STASYNC) {
                cost += stas_release(s, w, target, it, count);
                continue;
            }
            if (target != w->cta && !s->gemm) {
                int64_t wait = release_dram_wait_ps(s, s->cta[w->cta].sm, s->now + cost);
                arrive_later(s, w, target, it, count,
                               s->now + cost + wait + (int64_t)(s->p->dsmem_latency_ns * 1000));
                double flat = remotes++ ? remote_arrive_next_ns(s) : s->p->remote_arrive_ns + remote_arrive_first_extra_ns(s);
                cost += wait + (int64_t)(flat * 1000);
            } else if (cost > 0 && !s->gemm) {
                /* the kernel arrives on the cluster's ranks in order: a CTA of rank r makes
                 * its own arrive after the remote ones on ranks 0 .. r-1 */
                arrive_later(s, w, target, it, count, s->now + cost);
                cost += (int64_t)(s->p->arrive_ns * 1000);
            } else {
                bar_op(s, target, empty_bar(s, st), &ev, w, it);
                if (!s->gemm || k == 0)
                    cost += (int64_t)(s->p->arrive_ns * 1000);
            }
        }
    }
    return cost;
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
        cost = copy_step_end(s, w) - s->now;
        /* the loop's steps after the prologue, in a launch without recording: the step
         * costs come from recorded traces, where each of these steps also reads clocks
         * and writes its records and its consume's */
        if (j + 1 >= d->stages)
            cost = cost > (int64_t)(s->p->group_record_ns * 1000) ? cost - (int64_t)(s->p->group_record_ns * 1000) : 0;
        done = mem_transfer(s, s->cta[w->cta].sm, s->now + cost, bytes, tensors_l2_hit(s), 0, 1, 0);
        note_loads(s, s->cta[w->cta].sm);
        mbar_cp_event copy = {.op = MBAR_CP_COPY, .n = 16, .cg = 1};
        if (mbar_cpasync_step(&w->cp, &copy, &w->cp, NULL, fe) != ERR_OK)
            note_finding(s, fe, w->cta, w, group_bar(s), j);
        pipe_emit(s, s->now, 0, w, w->cta, TRACE_CPASYNC_ISSUE, st, j, group_bar(s), 0, bytes, 0);
        pipe_emit(s, s->now, done - s->now, w, w->cta, TRACE_TMA_FLIGHT, st, j, group_bar(s), 0, bytes, TRACE_FLAG_FULL_BARRIER);
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

/* ---------------------------------------------------------------- the warp machine */
/* What a state's step asks of the machine next: run the next state at once (STEP_ON),
 * stop until another event wakes the warp (STEP_PARK), or go on at a time (>= 0, ps). */
#define STEP_ON INT64_MIN
#define STEP_PARK (INT64_MIN + 1)

static int64_t step_next(sim *s, warp *w)
{
    const pipe_desc *d = s->d;
    int act = next_action(s, w);
    if (d->cpasync_groups) {
        act = w->cons_i < d->iterations ? ACT_CONSUME : ACT_FINISH;
        if (act == ACT_CONSUME) {
            w->state = w->prod_j < d->stages - 1 ? ST_G_COPY : ST_G_WAIT;
            return STEP_ON;
        }
    }
    if (act == ACT_PRODUCE) {
        w->state = ST_WAIT_EMPTY;
        return STEP_ON;
    }
    if (act == ACT_CONSUME) {
        w->state = ST_WAIT_FULL;
        return STEP_ON;
    }
    if (w->is_consumer && !d->cpasync_groups && !wg_follower(s, w))
        release_upto(s, w, d->iterations);
    int64_t end = s->now > w->store_done ? s->now : w->store_done;
    w->state = ST_DONE;
    s->r->role[w->role].other_ns += (double)(end - s->now) / 1000.0;
    s->r->role[w->role].life_ns += (double)(end - s->cta[w->cta].start) / 1000.0;
    if (end > s->cta[w->cta].end)
        s->cta[w->cta].end = end;
    if (--s->cta[w->cta].warps_left == 0)
        cta_finished(s, w->cta);
    return STEP_PARK;
}

static int64_t step_wait_empty(sim *s, warp *w)
{
    const pipe_desc *d = s->d;
    uint32_t j = w->prod_j, st = j % d->stages;
    int64_t k = j / d->stages;
    uint32_t b = d->producer_waits_full ? full_bar(s, st) : empty_bar(s, st);
    if (!try_wait(s, w, b, k - 1, (uint32_t)((k - 1) & 1), j)) {
        w->waited = 1;
        return STEP_PARK;
    }
    w->state = ST_ISSUE;
    return STEP_ON;
}

/* A produce step has been issued: the warp spent `cost` (ps) on it. */
static int64_t produced(sim *s, warp *w, int64_t cost)
{
    s->r->role[w->role].issue_ns += (double)cost / 1000.0;
    w->prod_j++;
    w->state = ST_NEXT;
    return s->now + cost;
}

/* cp.async copies of the warp's share of the stage, arriving on its full barrier
 * (cp.async.mbarrier.arrive.noinc) when they land. Returns the warp's cost. */
static int64_t produce_cpasync(sim *s, warp *w)
{
    const pipe_desc *d = s->d;
    uint32_t j = w->prod_j, st = j % d->stages, k = j / d->stages;
    uint32_t bytes = d->copy_bytes / d->consumer_warps;
    int64_t cost = copy_step_end(s, w) - s->now;
    int64_t done = mem_transfer(s, s->cta[w->cta].sm, s->now + cost, bytes, tensors_l2_hit(s), 0, 1, 0);
    note_loads(s, s->cta[w->cta].sm);
    pipe_emit(s, s->now, 0, w, w->cta, TRACE_CPASYNC_ISSUE, st, j, full_bar(s, st), k, bytes, 0);
    pipe_emit(s, s->now, done - s->now, w, w->cta, TRACE_TMA_FLIGHT, st, j, full_bar(s, st), k, bytes,
              TRACE_FLAG_FULL_BARRIER);
    sim_ev ev = {.t = done, .type = EV_CP_ARRIVE, .target = w->cta, .bar = (uint16_t)full_bar(s, st), .iter = j};
    heap_push(&s->h, ev);
    return cost;
}

/* The GEMM producer thread's stages complete one after another (tmahw calibrate --only
 * l2share, the GEMM's loads without math: the time per stage stays the same with 2, 3 or 4
 * in flight): a stage's copies complete no earlier than gemm_step_ns plus its bytes at the
 * SM's TMA rate after the previous stage's. Returns that floor for the stage being issued
 * and moves the chain on (0 outside GEMMs). */
static int64_t gemm_step_floor(sim *s, const warp *w)
{
    if (!s->gemm)
        return 0;
    cta_state *c = &s->cta[w->cta];
    int64_t from = c->copies_done > s->now ? c->copies_done : s->now;
    int64_t step = (int64_t)(pipe_gemm_stage_ns(s->d, s->p) * 1000);
    c->copies_done = from + step;
    s->chain_busy += (double)step;
    return c->copies_done;
}

/* The producer's arrive.expect_tx and one TMA load per tensor (a slice to each CTA of the
 * cluster when multicast). Returns the warp's time before its issue slots. */
static int64_t produce_tma(sim *s, warp *w)
{
    const pipe_desc *d = s->d;
    uint32_t j = w->prod_j, st = j % d->stages, k = j / d->stages;
    uint32_t base = w->cta - w->cta % d->cluster;
    mbar_event ex = {.op = MBAR_ARRIVE_EXPECT_TX, .tx = (int32_t)d->expect_tx, .has_intended = 1,
                     .intended_phase = k};
    pipe_emit(s, s->now, 0, w, w->cta, TRACE_BAR_EXPECT_TX, st, j, full_bar(s, st), k, d->expect_tx,
              TRACE_FLAG_FULL_BARRIER);
    bar_op(s, w->cta, full_bar(s, st), &ex, w, j);
    double to_first, between, tail;
    produce_steps_ns(s, w, &to_first, &between, &tail);
    int64_t cost = (int64_t)(to_first * 1000);
    int64_t after = gemm_step_floor(s, w);
    for (uint32_t t = 0; t < d->ntensors; t++) {
        uint32_t bytes = d->tensors[t].tx_bytes;
        uint32_t slice = d->multicast ? bytes / d->cluster : bytes;
        cost += t ? (int64_t)(between * 1000) : 0;
        double req = s->gemm ? 0
                              : pipe_box_requests(&d->tensors[t]) / (d->multicast ? d->cluster : 1) / s->l2_req_rate[t];
        int64_t done = mem_transfer(s, s->cta[w->cta].sm, s->now + cost, slice, s->l2_hit[t], 1, s->l2_readers[t], req);
        if (done < after)
            done = after;
        pipe_emit(s, s->now + cost, 0, w, w->cta, TRACE_TMA_ISSUE, st, j, full_bar(s, st), k, slice,
                  d->multicast ? TRACE_FLAG_MULTICAST : 0);
        pipe_emit(s, s->now + cost, done - s->now - cost, w, w->cta, TRACE_TMA_FLIGHT, st, j, full_bar(s, st), k,
                  slice, TRACE_FLAG_FULL_BARRIER | (d->multicast ? TRACE_FLAG_MULTICAST : 0));
        uint32_t n = d->multicast ? d->cluster : 1;
        for (uint32_t c = 0; c < n; c++) {
            uint32_t target = d->multicast ? base + c : w->cta;
            note_loads(s, s->cta[target].sm);
            if (s->gemm && done > s->copies_until[s->cta[target].sm])
                s->copies_until[s->cta[target].sm] = done;
            sim_ev ev = {.t = done, .type = EV_COMPLETE_TX, .target = target, .bar = (uint16_t)full_bar(s, st),
                         .bytes = slice, .iter = j, .flags = (uint8_t)(target != w->cta ? TRACE_FLAG_REMOTE : 0)};
            heap_push(&s->h, ev);
        }
    }
    return cost + (int64_t)(tail * 1000);
}

/* The st.async producer's step begins with its remote arrive.expect_tx on the peer's full
 * barrier (hw/run_kernel.cuh MODE 3), whose .release.cluster orders the previous stage's
 * loads and stores. After a wait for the stage to be free it is the lone remote arrive
 * (remote_arrive_alone_ns); right after a loop whose data came from L2 or DRAM it takes
 * remote_arrive_ns, after one that L1 served the lone arrive, linear in the L1 share between
 * them (the fit half's traces: 198 + 132 x (1 - L1 share) ns, scripts/stas-expect.py). */
static int64_t stas_expect(sim *s, warp *w)
{
    const pipe_params *p = s->p;
    double alone = p->remote_arrive_alone_ns;
    double ns = w->waited ? alone : alone + (p->remote_arrive_ns - alone) * (1.0 - s->stas_l1);
    int64_t cost = (int64_t)(ns * 1000);
    w->waited = 0;
    s->r->role[w->role].issue_ns += (double)cost / 1000.0;
    w->state = ST_STAS_LOOP;
    return s->now + cost;
}

/* The st.async copy loop: 16 bytes per lane and trip, each trip a dependent ld.global then
 * the st.async, so the trips run one after another; the bytes still take their share of
 * L2/HBM bandwidth. The warp goes on when the loop is done. */
static int64_t stas_load(sim *s, warp *w)
{
    const pipe_desc *d = s->d;
    int64_t done = mem_transfer(s, s->cta[w->cta].sm, s->now, d->copy_bytes, tensors_l2_hit(s), 0, 1, 0);
    note_loads(s, s->cta[w->cta].sm);
    int64_t loop = stas_loop_end(s, w);
    if (loop > done)
        done = loop;
    w->op_start = s->now;
    w->state = ST_STAS_LOADED;
    return done;
}

static int64_t step_issue(sim *s, warp *w)
{
    if (s->d->mode == PIPE_STASYNC)
        return stas_expect(s, w);
    if (s->d->mode == PIPE_CPASYNC)
        return produced(s, w, produce_cpasync(s, w));
    int64_t own = produce_tma(s, w);
    double slots = s->gemm ? s->p->gemm_produce_slots : s->d->ntensors * s->p->produce_issue_cycles;
    return produced(s, w, issue_end(s, w, own, slots) - s->now);
}

/* The st.async loop is done: the remote expect_tx on the peer's full barrier; the last
 * st.async, issued with the last trip, lands stas_land_ns later. */
static int64_t step_stas_loaded(sim *s, warp *w)
{
    const pipe_desc *d = s->d;
    const pipe_params *p = s->p;
    uint32_t j = w->prod_j, st = j % d->stages, k = j / d->stages;
    uint32_t base = w->cta - w->cta % d->cluster, peer = base + ((w->cta - base) ^ 1u);
    s->r->role[w->role].issue_ns += (double)(s->now - w->op_start) / 1000.0;
    stas_loop_done(s, w);
    mbar_event ex = {.op = MBAR_ARRIVE_EXPECT_TX, .tx = (int32_t)d->expect_tx, .has_intended = 1,
                     .intended_phase = k};
    pipe_emit(s, s->now, 0, w, peer, TRACE_BAR_EXPECT_TX, st, j, full_bar(s, st), k, d->expect_tx,
              TRACE_FLAG_FULL_BARRIER | TRACE_FLAG_REMOTE);
    bar_op(s, peer, full_bar(s, st), &ex, w, j);
    /* from the loop's end to the next step (stas_tail_ns) */
    int64_t cost = (int64_t)(p->stas_tail_ns * 1000);
    int64_t done = s->now + (int64_t)(p->stas_land_ns * 1000);
    pipe_emit(s, w->op_start, done - w->op_start, w, peer, TRACE_TMA_FLIGHT, st, j, full_bar(s, st), k, d->copy_bytes,
              TRACE_FLAG_FULL_BARRIER | TRACE_FLAG_REMOTE);
    sim_ev ev = {.t = done, .type = EV_COMPLETE_TX, .target = peer, .bar = (uint16_t)full_bar(s, st),
                 .bytes = d->copy_bytes, .iter = j, .flags = TRACE_FLAG_REMOTE};
    heap_push(&s->h, ev);
    return produced(s, w, cost);
}

static int64_t step_wait_full(sim *s, warp *w)
{
    const pipe_desc *d = s->d;
    uint32_t i = w->cons_i, st = i % d->stages;
    int64_t k = i / d->stages;
    uint32_t parity = (uint32_t)((k + d->wait_parity_offset) & 1);
    if (!try_wait(s, w, full_bar(s, st), k, parity, i))
        return STEP_PARK;
    w->state = ST_READ;
    return STEP_ON;
}

static int64_t step_read(sim *s, warp *w)
{
    const pipe_desc *d = s->d;
    uint32_t i = w->cons_i, st = i % d->stages;
    w->state = ST_MATH;
    w->read_start = -1;
    if (!d->read_wavefronts)
        return STEP_ON;
    int64_t end = read_step_end(s, w);
    /* the span is written now and its length when it ends: warps that come to the port
     * later move its end */
    w->read_start = s->now;
    w->read_slot = pipe_emit(s, s->now, end - s->now, w, w->cta, TRACE_SMEM_READ, st, i, full_bar(s, st), i / d->stages,
                             (uint32_t)d->read_bytes, 0);
    return end;
}

/* A span whose end others may have moved is over: its time and its trace event's length. */
static void span_ended(sim *s, int64_t *start, size_t slot, double *role_ns)
{
    if (*start < 0)
        return;
    int64_t dur = s->now - *start;
    *role_ns += (double)dur / 1000.0;
    if (slot != NO_SLOT && !s->trace_failed)
        s->tr->events[slot].dur_ns = (uint32_t)(dur > 0 ? (dur + 999) / 1000 : 0);
    *start = -1;
}

static int64_t step_math(sim *s, warp *w)
{
    const pipe_desc *d = s->d;
    uint32_t i = w->cons_i, st = i % d->stages;
    span_ended(s, &w->read_start, w->read_slot, &s->r->role[w->role].read_ns);
    w->state = ST_STORE;
    w->math_slot = NO_SLOT;
    w->math_start = -1;
    if (d->math == PIPE_MATH_WGMMA) {
        w->state = ST_WG_WAIT;
        int64_t end = wgmma_issue(s, w, i);
        s->r->role[w->role].issue_ns += (double)(end - s->now) / 1000.0;
        w->op_start = s->now;
        return end > s->now ? end : STEP_ON;
    }
    if (d->math == PIPE_MATH_NONE || !d->math_amount)
        return STEP_ON;
    int64_t end = math_step_end(s, w);
    /* the span is written now and its length when it ends: warps that join the pipe
     * later move its end */
    w->math_start = s->now;
    w->math_slot = pipe_emit(s, s->now, end - s->now, w, w->cta, TRACE_MATH, st, i, 0, 0, 0, 0);
    return end;
}

static void math_ended(sim *s, warp *w)
{
    span_ended(s, &w->math_start, w->math_slot, &s->r->role[w->role].math_ns);
}

/* The last iteration of an output tile (math kind wgmma). */
static int tile_end(const pipe_desc *d, uint32_t i)
{
    return (i + 1) % d->gemm.k_iters == 0;
}

/* wgmma.wait_group(N) after iteration i's group: the group N back must have completed, at
 * a tile's end every group (wait_group 0). Its span in the trace, and each group's span from
 * its issue to its completion. */
static int64_t step_wg_wait(sim *s, warp *w)
{
    const pipe_desc *d = s->d;
    uint32_t i = w->cons_i, st = i % d->stages, n = tile_end(d, i) ? 0 : d->wgmma.wait;
    int64_t done = *wg_done_slot(s, w, i);
    uint32_t bytes = pipe_gemm_instrs_per_stage(d) * (PIPE_WGMMA_M + d->wgmma.n) * 32;
    pipe_emit(s, w->op_start, done - w->op_start, w, w->cta, TRACE_WGMMA, st, i, 0, 0, bytes, 0);
    int64_t until = s->now;
    if (i >= n) {
        int64_t g = *wg_done_slot(s, w, i - n);
        if (g > until)
            until = g;
    }
    pipe_emit(s, s->now, until - s->now, w, w->cta, TRACE_WGMMA_WAIT, st, i, 0, n, 0, 0);
    s->r->role[w->role].math_ns += (double)(until - s->now) / 1000.0;
    w->state = ST_AFTER_MATH;
    return until > s->now ? until : STEP_ON;
}

/* The wgmma consume step's end: release the stage release_lag back (every stage of the tile
 * at its end, after wait_group 0), then at a tile's end the epilogue. */
static int64_t wg_after(sim *s, warp *w)
{
    const pipe_desc *d = s->d;
    uint32_t i = w->cons_i;
    int64_t cost = 0;
    if (tile_end(d, i))
        cost = release_upto(s, w, (int64_t)i + 1);
    else if ((int64_t)i - (int64_t)d->release_lag >= 0)
        cost = release_upto(s, w, (int64_t)i - d->release_lag + 1);
    s->r->role[w->role].issue_ns += (double)cost / 1000.0;
    w->state = tile_end(d, i) ? ST_WG_EPILOGUE : ST_NEXT;
    if (!tile_end(d, i))
        w->cons_i++;
    return cost ? s->now + cost : STEP_ON;
}

static int64_t step_wg_epilogue(sim *s, warp *w)
{
    int64_t end = gemm_epilogue_end(s, w, w->cons_i / s->d->gemm.k_iters);
    s->r->role[w->role].issue_ns += (double)(end - s->now) / 1000.0;
    w->cons_i++;
    w->state = ST_NEXT;
    return end > s->now ? end : STEP_ON;
}

/* The consumer of rank 0 stores the stage's box (hw/run_kernel.cuh consume) after its math
 * and before its release: the release waits until the store has read the box out of
 * shared memory. */
static int64_t step_store(sim *s, warp *w)
{
    const pipe_desc *d = s->d;
    uint32_t i = w->cons_i;
    w->state = ST_AFTER_MATH;
    math_ended(s, w);
    if (!d->store_bytes || !d->store_every || (i + 1) % d->store_every != 0 || w->consumer_rank != 0)
        return STEP_ON;
    int64_t cost = store_step(s, w, i);
    s->r->role[w->role].issue_ns += (double)cost / 1000.0;
    return cost ? s->now + cost : STEP_ON;
}

static int64_t step_after_math(sim *s, warp *w)
{
    if (s->gemm)
        return wg_after(s, w);
    const pipe_desc *d = s->d;
    const pipe_params *p = s->p;
    uint32_t i = w->cons_i;
    int64_t cost = 0;
    math_ended(s, w);
    if (!d->cpasync_groups && (int64_t)i - (int64_t)d->release_lag >= 0)
        cost += release_upto(s, w, (int64_t)i - d->release_lag + 1);
    /* The rest of an mbarrier consume step (hw/run_kernel.cuh consume): the loop, the
     * deferred event stores, and the next iteration's non-blocking test_wait probe of
     * its full barrier with the warp vote, before the next read can start. The
     * commit-group loop (cpasync.sync) has no mbarrier probe or arrive. */
    if (!d->cpasync_groups)
        cost += (int64_t)(p->consume_step_ns * 1000);
    cost = issue_end(s, w, cost, d->cpasync_groups ? p->group_step_issue_cycles : p->step_issue_cycles) - s->now;
    s->r->role[w->role].issue_ns += (double)cost / 1000.0;
    w->cons_i++;
    w->state = ST_NEXT;
    return cost ? s->now + cost : STEP_ON;
}

/* prologue: groups 0 .. stages-2 */
static int64_t step_g_copy(sim *s, warp *w, uint32_t wi)
{
    int64_t cost = group_copy_commit(s, w, wi, w->prod_j++);
    s->r->role[w->role].issue_ns += (double)cost / 1000.0;
    w->state = ST_NEXT;
    return s->now + cost;
}

static int64_t step_g_wait(sim *s, warp *w)
{
    const pipe_desc *d = s->d;
    if (!group_wait_done(w, d->cpasync_wait_prior)) {
        w->gwait = GWAIT_GROUP;
        w->wait_start = s->now;
        w->wait_slot = pipe_emit(s, s->now, 0, w, w->cta, TRACE_WAIT, w->cons_i % d->stages, w->cons_i, group_bar(s), 0,
                                 0, TRACE_FLAG_FULL_BARRIER);
        return STEP_PARK;   /* group_done() wakes it */
    }
    w->state = ST_G_BAR;
    return STEP_ON;
}

static int64_t step_g_bar(sim *s, warp *w, uint32_t wi)
{
    w->state = ST_G_ISSUE;
    if (barsync_arrive(s, w, w->cons_i))
        schedule_warp(s, wi, s->now + (int64_t)(s->p->barsync_ns * 1000));
    return STEP_PARK;
}

static int64_t step_g_issue(sim *s, warp *w, uint32_t wi)
{
    const pipe_desc *d = s->d;
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
    s->r->role[w->role].issue_ns += (double)cost / 1000.0;
    w->state = ST_READ;
    return cost ? s->now + cost : STEP_ON;
}

static int64_t warp_step(sim *s, warp *w, uint32_t wi)
{
    switch (w->state) {
    case ST_NEXT: return step_next(s, w);
    case ST_WAIT_EMPTY: return step_wait_empty(s, w);
    case ST_ISSUE: return step_issue(s, w);
    case ST_STAS_LOOP: return stas_load(s, w);
    case ST_STAS_LOADED: return step_stas_loaded(s, w);
    case ST_WAIT_FULL: return step_wait_full(s, w);
    case ST_READ: return step_read(s, w);
    case ST_MATH: return step_math(s, w);
    case ST_STORE: return step_store(s, w);
    case ST_AFTER_MATH: return step_after_math(s, w);
    case ST_G_COPY: return step_g_copy(s, w, wi);
    case ST_G_WAIT: return step_g_wait(s, w);
    case ST_G_BAR: return step_g_bar(s, w, wi);
    case ST_G_ISSUE: return step_g_issue(s, w, wi);
    case ST_WG_WAIT: return step_wg_wait(s, w);
    case ST_WG_EPILOGUE: return step_wg_epilogue(s, w);
    default: return STEP_PARK;
    }
}

/* Runs warp wi's program from its current state until it blocks, finishes, or has to
 * wait for a later time than the next pending event. */
void warp_run(sim *s, uint32_t wi)
{
    warp *w = &s->w[wi];
    for (;;) {
        int64_t t = warp_step(s, w, wi);
        if (t == STEP_ON)
            continue;
        if (t == STEP_PARK)
            return;
        if (!runs_on_now(s, t)) {
            schedule_warp(s, wi, t);
            return;
        }
    }
}
