/* Pipeline simulator: protocol verdicts of the examples and timing properties that can
 * be derived by hand from the parameters. */
#include <math.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_run.h"
#include "desc.h"
#include "params.h"
#include "pipe.h"
#include "pipe_plan.h"

static void load(const char *name, pipe_desc *d)
{
    char path[128];
    snprintf(path, sizeof path, "examples/%s.yaml", name);
    err_info e = {0};
    cr_assert_eq(desc_load(path, d, &e), ERR_OK, "%s: %s", path, e.detail);
}

/* A description given as text. */
static void parse(const char *text, pipe_desc *d)
{
    err_info e = {0};
    cr_assert_eq(desc_parse_yaml(text, strlen(text), "t.yaml", d, &e), ERR_OK, "%s", e.detail);
}

static void run(const pipe_desc *d, pipe_result *r, trace *t)
{
    err_info e = {0};
    pipe_opts o = {.out = t};
    cr_assert_eq(pipe_run(d, &o, r, &e), ERR_OK, "%s", e.detail);
}

static void verdict_of(const char *name, int *code, err_info *v, pipe_result *r)
{
    pipe_desc d;
    load(name, &d);
    if (d.ctas > 16)
        d.ctas = 16;   /* the protocol does not depend on the grid size; keeps the suite fast */
    run(&d, r, NULL);
    memset(v, 0, sizeof *v);
    *code = pipe_verdict(r, v);
}

Test(pipe, correct_examples_pass_the_protocol_check)
{
    const char *ok[] = {"double_buffer", "ws4_tma", "cpasync_multistage", "cluster2_multicast", "stasync_cluster",
                        "consumer_swizzle_128b", "consumer_swizzle_none", "memory_bound", "compute_bound", "full_grid",
                        "splitk_reduce", "cpasync_wait_prior"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        int code;
        err_info v;
        pipe_result r;
        verdict_of(ok[i], &code, &v, &r);
        cr_assert_eq(code, ERR_OK, "%s: %s: %s", ok[i], v.rule, v.detail);
        cr_assert_eq(r.deadlock, 0, "%s", ok[i]);
    }
}

/* Property: every correct protocol passes, over a grid of shapes (mode, cluster, stages,
 * release lag, warps, an iteration count that is not a multiple of the stages). Checks
 * the mbarrier rules (one wait per phase included) against protocols known to be right. */
Test(pipe, correct_protocols_pass_over_a_grid_of_shapes)
{
    static const char *const shapes[] = {
        "mode: warp_specialized\nwarps: {producer: 1, consumer: %u}\n",
        "mode: warp_specialized\ncluster: {size: 2, multicast: true}\nwarps: {producer: 1, consumer: %u}\n",
        "mode: multistage\nwarps: {consumer: %u}\n",
        "mode: cp_async\nwarps: {consumer: %u}\n",
        "mode: cp_async\ncpasync: {sync: wait_prior}\nwarps: {consumer: %u}\n",
        "mode: st_async\ncluster: {size: 2}\nwarps: {producer: 1, consumer: %u}\n",
    };
    unsigned runs = 0;
    for (size_t m = 0; m < sizeof shapes / sizeof shapes[0]; m++)
        for (unsigned stages = 2; stages <= 5; stages++)
            /* the mixed modes (multistage, cp_async with mbarriers) release at once: lag 0 */
            for (unsigned lag = 0; lag < ((m == 2 || m == 3) ? 1 : stages); lag++)
                for (unsigned warps = 1; warps <= 3; warps++) {
                    char head[256], text[1024];
                    snprintf(head, sizeof head, shapes[m], warps);
                    snprintf(text, sizeof text,
                             "%sgrid: {ctas: 4}\nstages: %u\niterations: 13\n"
                             "tensors:\n  - {dims: [4096, 4096], box: [64, 32]}\n"
                             "consumer:\n  release_lag: %u\n  math: {kind: fma, amount: %u}\n",
                             head, stages, lag, 64u << (warps + stages % 3));
                    pipe_desc d;
                    err_info e = {0};
                    cr_assert_eq(desc_parse_yaml(text, strlen(text), "grid.yaml", &d, &e), ERR_OK, "%s\n%s", text,
                                 e.detail);
                    pipe_result r;
                    run(&d, &r, NULL);
                    err_info v = {0};
                    cr_assert_eq(pipe_verdict(&r, &v), ERR_OK, "%s\n%s: %s", text, v.rule, v.detail);
                    runs++;
                }
    cr_assert_eq(runs, (4 * (2 + 3 + 4 + 5) + 2 * 4) * 3);
}

/* The guide's Pattern 1: with two buffers, the load of tile i + 1 is issued before tile i is
 * processed (and lands while it is), in every CTA. */
Test(pipe, double_buffer_loads_the_next_tile_while_computing_this_one)
{
    pipe_desc d;
    load("double_buffer", &d);
    d.ctas = 4;
    trace t;
    trace_init(&t, TRACE_SRC_SIM);
    pipe_result r;
    run(&d, &r, &t);
    static int64_t issue[4][64], math0[4][64];
    for (int c = 0; c < 4; c++)
        for (int i = 0; i < 64; i++)
            issue[c][i] = math0[c][i] = -1;
    for (size_t k = 0; k < t.count; k++) {
        const trace_event *ev = &t.events[k];
        if (ev->cta >= 4 || ev->iteration >= 64)
            continue;
        if (ev->kind == TRACE_TMA_ISSUE)
            issue[ev->cta][ev->iteration] = ev->t_ns;
        if (ev->kind == TRACE_MATH && ev->warp == 0)
            math0[ev->cta][ev->iteration] = ev->t_ns;
    }
    for (int c = 0; c < 4; c++)
        for (uint32_t i = 0; i + 1 < d.iterations; i++) {
            cr_assert(issue[c][i + 1] >= 0 && math0[c][i] >= 0, "CTA %d iteration %u missing", c, i);
            cr_assert_leq(issue[c][i + 1], math0[c][i], "CTA %d: tile %u loaded at %lld ns, after tile %u's math at %lld ns",
                          c, i + 1, (long long)issue[c][i + 1], i, (long long)math0[c][i]);
        }
    trace_free(&t);
}

Test(pipe, wrong_barrier_count_is_an_early_arrival)
{
    int code;
    err_info v;
    pipe_result r;
    verdict_of("bug_barrier_count", &code, &v, &r);
    cr_assert_eq(code, ERR_FINDING);
    cr_assert_str_eq(v.rule, "mbar_arrival_early", "%s", v.detail);
    cr_assert(strstr(v.detail, "empty["), "%s", v.detail);
}

Test(pipe, expect_tx_short_of_the_box_hangs_with_negative_tx)
{
    int code;
    err_info v;
    pipe_result r;
    verdict_of("bug_expect_tx", &code, &v, &r);
    cr_assert_eq(code, ERR_FINDING);
    cr_assert(r.deadlock);
    /* 8192 announced, 16384 delivered: tx-count ends at -8192 */
    cr_assert(strstr(v.detail, "tx-count -8192") || strstr(v.detail, "8192 bytes"), "%s", v.detail);
}

Test(pipe, consumer_that_never_releases_deadlocks_the_producer)
{
    int code;
    err_info v;
    pipe_result r;
    verdict_of("bug_never_release", &code, &v, &r);
    cr_assert_eq(code, ERR_FINDING);
    cr_assert_str_eq(v.rule, "deadlock");
    cr_assert(strstr(v.detail, "(producer) waits empty[0]"), "%s", v.detail);
    /* the producer fills the 4 stages and blocks on iteration 4 */
    cr_assert(strstr(v.detail, "iteration 4"), "%s", v.detail);
}

Test(pipe, waiter_with_the_next_phase_parity_is_reported)
{
    int code;
    err_info v;
    pipe_result r;
    verdict_of("bug_parity_lap", &code, &v, &r);
    cr_assert_eq(code, ERR_FINDING);
    cr_assert_str_eq(v.rule, "mbar_wrong_parity", "%s", v.detail);
    cr_assert(strstr(v.detail, "passes before its phase completed"), "%s", v.detail);
}

Test(pipe, full_count_of_the_block_size_hangs_with_one_arrival_per_phase)
{
    int code;
    err_info v;
    pipe_result r;
    verdict_of("bug_full_count", &code, &v, &r);
    cr_assert_eq(code, ERR_FINDING);
    cr_assert_str_eq(v.rule, "deadlock");
    /* init(96) and one arrive.expect_tx per phase: 95 arrivals never come, while the
     * bytes did land (expect_tx matches the box, tx-count back at 0) */
    cr_assert(strstr(r.chain, "95 of 96 arrivals missing, tx-count 0"), "%s", r.chain);
}

Test(pipe, producer_not_held_by_the_consumers_laps_their_phase)
{
    int code;
    err_info v;
    pipe_result r;
    verdict_of("bug_phase_lap", &code, &v, &r);
    cr_assert_eq(code, ERR_FINDING);
    cr_assert_str_eq(v.rule, "mbar_phase_aliasing", "%s", v.detail);
    /* 16 iterations over 4 stages: the producer, waiting only for its own copies, fills
     * every stage 4 times while the consumers compute iteration 0 (8.3 us of MMA); a
     * consumer's wait for phase 0 of full[1] finds the barrier at phase 16 / 4 = 4, and
     * parity 0 = parity of phase 4, which never completes: the waiter hangs */
    cr_assert(strstr(v.detail, "full[1]: waiter for phase 0 (parity 0) arrives when the barrier is at phase 4"), "%s",
              v.detail);
    cr_assert(r.deadlock);
}

Test(pipe, too_large_full_count_deadlocks_with_a_chain)
{
    const char *t = "warps: {producer: 1, consumer: 2}\nstages: 2\niterations: 4\n"
                    "tensors:\n  - {dims: [4096, 4096], box: [64, 64]}\nbarriers: {full_count: 2}\n";
    pipe_desc d;
    parse(t, &d);
    pipe_result r;
    run(&d, &r, NULL);
    cr_assert(r.deadlock);
    cr_assert(strstr(r.chain, "waits full[0] phase 0"), "%s", r.chain);
    cr_assert(strstr(r.chain, "1 of 2 arrivals missing"), "%s", r.chain);
}

Test(pipe, memory_bound_consumers_stall_on_full_barriers)
{
    pipe_desc d;
    load("memory_bound", &d);
    pipe_result r;
    run(&d, &r, NULL);
    const pipe_role_stats *c = &r.role[TRACE_ROLE_CONSUMER];
    /* When memory is the bottleneck the consumers are never what the kernel waits for:
     * the time they are not busy is spent stalled on full barriers (waiting for data),
     * not on anything else, and that stall is a large share of their time. */
    double total = c->warps * (double)r.kernel_ns;
    double idle = total - c->busy_ns;
    double stalled = c->wait_full_ns / total;
    cr_assert_gt(idle, 0.0);
    cr_assert_gt(c->wait_full_ns, 0.9 * idle, "of %.0f ns idle consumer time only %.0f ns stalled on full barriers",
                 idle, c->wait_full_ns);
    cr_assert_str_eq(r.bottleneck_kind, "memory", "%s", r.bottleneck);
    /* lower bound by hand: every byte crosses HBM once at 3000 B/ns */
    pipe_params p;
    params_defaults("h100", &p, NULL);
    double bytes = (double)d.ctas * d.iterations * d.copy_bytes;
    double bound_ns = bytes / p.hbm_bytes_per_ns;
    /* By hand, a consumer's step per stage is its reads (instruction-bound: each costs the
     * most of lsu_issue_cycles and its bytes at lsu_bytes_per_cycle_smsp, plus the load latency), its FFMA block, the release arrive, the
     * rest of the mbarrier consume step and the wake-up after its stall; HBM delivers a stage to every CTA in bound_ns /
     * iterations. What the step leaves of that is stalled on full barriers (at least 90%
     * of it: the first wave's launch spread and the prologue blur the steady state). */
    double per_read = (double)d.read_bytes / d.read_instructions / p.lsu_bytes_per_cycle_smsp;
    if (per_read < p.lsu_issue_cycles)
        per_read = p.lsu_issue_cycles;
    double step_ns = ((double)d.read_instructions * per_read + p.smem_latency_cycles +
                      (double)d.math_amount * p.ffma_cycles + p.math_tail_cycles) / p.clock_ghz +
                     p.arrive_ns + p.consume_step_ns + p.wake_ns;
    double idle_share = 1.0 - step_ns / (bound_ns / d.iterations);
    cr_assert_gt(idle_share, 0.1, "by hand the consumers would not wait: step %.0f ns", step_ns);
    cr_assert_gt(stalled, 0.9 * idle_share, "consumers stalled on full only %.2f of the time (by hand %.2f)", stalled,
                 idle_share);
    cr_assert_geq(r.kernel_ns, bound_ns);
    cr_assert_lt(r.kernel_ns, bound_ns * 1.1, "kernel %lld ns vs HBM bound %.0f ns", (long long)r.kernel_ns, bound_ns);
}

Test(pipe, compute_bound_time_is_the_math)
{
    pipe_desc d;
    load("compute_bound", &d);
    pipe_result r;
    run(&d, &r, NULL);
    cr_assert_str_eq(r.bottleneck_kind, "compute", "%s", r.bottleneck);
    pipe_params p;
    params_defaults("h100", &p, NULL);
    /* each consumer warp runs on its own sub-partition and issues mma.sync.m16n8k16 (4096 flops) into 4
     * independent accumulators (hw/run_kernel.cuh): an instruction costs max(4096 / rate, latency / 4)
     * cycles, plus the block's tail (recorded: traces/h100/pipelines/compute_bound.tmt, 6.8 cycles per mma) */
    double per = 4096.0 / p.mma_flops_per_cycle_smsp;
    if (p.mma_latency_cycles / 4 > per)
        per = p.mma_latency_cycles / 4;
    double math_ns = d.iterations * ((double)d.math_amount / 4096.0 * per + p.math_tail_cycles) / pipe_plan_clock_ghz(&d, &p);
    /* plus, per stage, the release arrive and the rest of the mbarrier consume step
     * (recorded: 376 ns from the math's end to the next read in the same trace) */
    double step_ns = d.iterations * (p.arrive_ns + p.consume_step_ns);
    cr_assert_geq(r.kernel_ns, math_ns + step_ns);
    cr_assert_lt(r.kernel_ns, (math_ns + step_ns) * 1.05, "kernel %lld ns vs math %.0f ns + steps %.0f ns",
                 (long long)r.kernel_ns, math_ns, step_ns);
}

/* The first iteration's math spans of warps 1 and 5 (sub-partition 1; warp 0, which
 * issues the stage's copies, starts later) of a one-CTA run of 8 consumer warps, two per
 * sub-partition, released by the same full barrier; and one warp's pipe time in ns. */
static void math_pair(const char *math, int64_t start[2], int64_t dur[2], double *pipe_ns)
{
    char text[400];
    snprintf(text, sizeof text,
             "mode: multistage\nwarps: {consumer: 8}\nstages: 2\niterations: 2\ngrid: {ctas: 1}\n"
             "tensors:\n  - {dims: [4096, 4096], box: [64, 64], swizzle: 128b}\nconsumer:\n  math: %s\n", math);
    pipe_desc d;
    parse(text, &d);
    trace t;
    trace_init(&t, TRACE_SRC_SIM);
    pipe_result r;
    run(&d, &r, &t);
    pipe_params p;
    params_defaults("h100", &p, NULL);
    *pipe_ns = pipe_math_pipe_cycles(&d, &p) / pipe_plan_clock_ghz(&d, &p);
    int seen = 0;
    for (size_t k = 0; k < t.count; k++) {
        const trace_event *ev = &t.events[k];
        if (ev->kind == TRACE_MATH && ev->iteration == 0 && (ev->warp == 1 || ev->warp == 5)) {
            start[ev->warp == 5] = ev->t_ns;
            dur[ev->warp == 5] = ev->dur_ns;
            seen++;
        }
    }
    cr_assert_eq(seen, 2);
    /* one phase wakes both, warps 1 and 5 of the eight, four wake_stagger_ns apart */
    double apart = 4 * p.wake_stagger_ns;
    cr_assert_leq(fabs((double)(start[1] - start[0]) - apart), 1.0, "both start as one phase wakes them: %lld, %lld",
                  (long long)start[0], (long long)start[1]);
    trace_free(&t);
}

/* FFMA warps share their sub-partition's pipe: two that reach their math together each get
 * half of it and end together, after twice one warp's pipe time, as the traced math spans
 * of the H200 corpus's fit half show (corpus_0001_0118, 0222: eight warps start within
 * 30 ns, spans 1086-1112 ns; a warp served after the other would end after one pipe time). */
Test(pipe, ffma_warps_on_one_sub_partition_share_its_pipe)
{
    int64_t start[2], dur[2];
    double pipe_ns;
    math_pair("{kind: fma, amount: 16384}", start, dur, &pipe_ns);
    cr_assert_leq(llabs(dur[0] - dur[1]), 2, "and end together: %lld, %lld ns", (long long)dur[0], (long long)dur[1]);
    cr_assert_geq(dur[0], 2 * pipe_ns, "span %lld ns vs twice the pipe time %.0f ns", (long long)dur[0], pipe_ns);
    cr_assert_lt(dur[0], 2 * pipe_ns * 1.05 + 100, "span %lld ns vs twice the pipe time %.0f ns", (long long)dur[0],
                 pipe_ns);
}

/* mma.sync warps take their sub-partition's tensor pipe in the order they come: the first
 * ends after its own chain (a little over one pipe time, well short of the two an equal
 * share gives), the second after two pipe times (corpus_0001_0084: the second warp of each
 * pair starts its math 730-820 ns after the first). */
Test(pipe, mma_warps_on_one_sub_partition_take_its_pipe_in_turn)
{
    int64_t start[2], dur[2];
    double pipe_ns;
    math_pair("{kind: mma, amount: 1048576}", start, dur, &pipe_ns);
    int64_t first = dur[0] < dur[1] ? dur[0] : dur[1], second = dur[0] < dur[1] ? dur[1] : dur[0];
    cr_assert_geq(first, pipe_ns, "first span %lld ns vs the pipe time %.0f ns", (long long)first, pipe_ns);
    cr_assert_lt(first, pipe_ns * 1.5, "first span %lld ns vs the pipe time %.0f ns", (long long)first, pipe_ns);
    cr_assert_geq(second, 2 * pipe_ns, "second span %lld ns vs twice the pipe time %.0f ns", (long long)second, pipe_ns);
    cr_assert_lt(second, 2 * pipe_ns * 1.05 + 100, "second span %lld ns vs twice the pipe time %.0f ns",
                 (long long)second, pipe_ns);
}

/* The read starts of eight warps reading one stage (no math, 13 stages, the producer far
 * ahead) at iteration 80, earliest to latest, with the waiters of one phase woken
 * wake_stagger_ns apart (`staggered`) or at one instant. */
static double read_spread(int staggered)
{
    pipe_desc d;
    parse("mode: warp_specialized\nwarps: {producer: 1, consumer: 8}\nstages: 13\niterations: 100\n"
          "grid: {ctas: 1}\ntensors:\n  - {dtype: bf16, dims: [64, 65536], box: [16, 64], swizzle: none}\n"
          "consumer:\n  reads: {tensor: 0, pattern: rows, bytes_per_lane: 16, warps: 1, repeat: 8}\n"
          "  math: {kind: none}\n",
          &d);
    pipe_params p;
    params_defaults("h100", &p, NULL);
    if (!staggered)
        p.wake_stagger_ns = 0;
    trace t;
    trace_init(&t, TRACE_SRC_SIM);
    pipe_result r;
    err_info e = {0};
    pipe_opts o = {.params = &p, .out = &t};
    cr_assert_eq(pipe_run(&d, &o, &r, &e), ERR_OK, "%s", e.detail);
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    int seen = 0;
    for (size_t k = 0; k < t.count; k++) {
        const trace_event *ev = &t.events[k];
        if (ev->kind == TRACE_SMEM_READ && ev->iteration == 80) {
            lo = ev->t_ns < lo ? ev->t_ns : lo;
            hi = ev->t_ns > hi ? ev->t_ns : hi;
            seen++;
        }
    }
    trace_free(&t);
    cr_assert_eq(seen, 8);
    return (double)(hi - lo);
}

/* Warps that read together share the port equally, a balance that does not hold: the one
 * that starts first takes more, ends first and comes back first (the GPU's eight reading
 * warps drift apart so, traces/h200/probes/producer c_cw8s*). Woken at one instant, the
 * model's warps would stay in step for ever; the measured stagger of a wake sets them
 * apart within a few stages. */
Test(pipe, reading_warps_woken_a_few_ns_apart_drift_apart)
{
    double together = read_spread(0), apart = read_spread(1);
    cr_assert_leq(together, 1.0, "woken at once, the reads stay in step: spread %.0f ns", together);
    cr_assert_gt(apart, 100.0, "woken wake_stagger_ns apart, the reads drift apart: spread %.0f ns", apart);
}

/* The recorded kernel time (kernel_ns) of a probe under traces/h200/probes/producer. */
static double probe_kernel_ns(const char *stem)
{
    char path[160];
    snprintf(path, sizeof path, "traces/h200/probes/producer/%s.json", stem);
    return recorded_number(path, "kernel_ns");
}

/* A probe's time per iteration: its kernel at 300 iterations less at 100, over 200; the
 * model's (H200 set) or the GPU's recorded one. */
static double probe_slope(const char *variant, int model)
{
    double k[2];
    for (int i = 0; i < 2; i++) {
        char stem[64];
        snprintf(stem, sizeof stem, "r_%s_i%d", variant, i ? 300 : 100);
        if (!model) {
            k[i] = probe_kernel_ns(stem);
            continue;
        }
        char path[160];
        snprintf(path, sizeof path, "traces/h200/probes/producer/%s.yaml", stem);
        pipe_desc d;
        err_info e = {0};
        cr_assert_eq(desc_load(path, &d, &e), ERR_OK, "%s: %s", path, e.detail);
        pipe_params p;
        params_defaults("h200", &p, NULL);
        pipe_opts o = {.params = &p};
        pipe_result r;
        cr_assert_eq(pipe_run(&d, &o, &r, &e), ERR_OK, "%s", e.detail);
        k[i] = (double)r.kernel_ns;
    }
    return (k[1] - k[0]) / 200.0;
}

/* Releases on every rank of a cluster take longer the more CTAs of an SM make them (tmahw
 * calibrate --only cluster_rx, remote_arrive_next_c*_ns): the multicast round trip in
 * clusters of 4, one wave, at 8 CTAs per SM against 1 (r_rtm4w8, r_rtm4w1): the GPU's
 * iteration 1.41x; the model's 1.06x before the per-CTA costs, 1.34x with them. */
Test(pipe, remote_releases_slow_with_the_ctas_per_sm, .timeout = 120)
{
    double gpu = probe_slope("rtm4w8", 0) / probe_slope("rtm4w1", 0);
    double sim = probe_slope("rtm4w8", 1) / probe_slope("rtm4w1", 1);
    cr_assert_gt(gpu, 1.3, "the recording: %.2f", gpu);
    cr_assert_gt(sim, 1.15, "model: 8 CTAs per SM %.2fx of 1", sim);
    cr_assert_lt(fabs(sim / gpu - 1.0), 0.15, "model %.2fx against the GPU's %.2fx", sim, gpu);
}

Test(pipe, more_stages_help_until_the_bottleneck_moves)
{
    /* 8 CTAs: HBM is far from saturated, so copy latency is what stages hide */
    const char *fmt = "warps: {producer: 1, consumer: 2}\nstages: %u\niterations: 64\ngrid: {ctas: 8}\n"
                      "tensors:\n  - {dims: [4096, 4096], box: [64, 128], swizzle: 128b}\n"
                      "consumer:\n  math: {kind: mma, amount: 1048576}\n";
    int64_t t[5];
    const char *kind[5];
    double wait_share = 0;
    unsigned stages[5] = {1, 2, 3, 4, 8};
    for (int k = 0; k < 5; k++) {
        char text[512];
        snprintf(text, sizeof text, fmt, stages[k]);
        pipe_desc d;
        parse(text, &d);
        pipe_result r;
        run(&d, &r, NULL);
        t[k] = r.kernel_ns;
        kind[k] = r.bottleneck_kind;
        if (k == 0)
            wait_share = r.role[1].wait_full_ns / r.role[1].life_ns;
    }
    cr_assert_lt(t[1], t[0] * 0.8, "2 stages %lld vs 1 stage %lld", (long long)t[1], (long long)t[0]);
    for (int k = 1; k < 5; k++)
        cr_assert_leq(t[k], t[k - 1] + t[k - 1] / 100, "stages %u: %lld > %lld", stages[k], (long long)t[k],
                      (long long)t[k - 1]);
    /* one stage: the consumers wait for each copy (its latency and the producer's step before
     * it, about half and half here, so the verdict sits at the latency / synchronization line) */
    cr_assert_geq(wait_share, 0.25, "consumers' share waiting for data at one stage: %.2f", wait_share);
    cr_assert(!strcmp(kind[0], "latency") || !strcmp(kind[0], "synchronization"), "one stage: %s", kind[0]);
    cr_assert_str_eq(kind[4], "compute");
    /* once compute-bound, doubling the stages gains (almost) nothing */
    cr_assert_gt(t[4], t[3] * 0.97, "8 stages %lld vs 4 stages %lld", (long long)t[4], (long long)t[3]);
}

Test(pipe, swizzled_consumer_faster_by_the_wavefront_ratio)
{
    pipe_desc sw, un;
    load("consumer_swizzle_128b", &sw);
    load("consumer_swizzle_none", &un);
    /* 16-byte column reads of 128-byte rows: unswizzled, the 8 lanes of each quarter-warp
     * phase hit the same 4 banks (8 wavefronts instead of 1); the 128B swizzle XORs the
     * chunk index with the row and removes the conflict: ratio 8 by hand. */
    double wf_ratio = (double)un.read_wavefronts / (double)sw.read_wavefronts;
    cr_assert_float_eq(wf_ratio, 8.0, 1e-9, "wavefront ratio %.3f", wf_ratio);
    pipe_result rs, ru;
    run(&sw, &rs, NULL);
    run(&un, &ru, NULL);
    double time_ratio = (double)ru.kernel_ns / (double)rs.kernel_ns;
    /* The H100 does not follow the wavefront ratio (recorded: 1105.0 us / 317.4 us = 3.48,
     * traces/h100/pipelines/consumer_swizzle_*.json): the unswizzled reads are bound by the
     * shared port (both consumer warps' wavefronts, one per cycle), the swizzled ones by each
     * warp's cost per instruction (its 512 bytes at lsu_bytes_per_cycle_smsp). The ratio by hand: */
    pipe_params p;
    params_defaults("h100", &p, NULL);
    double port = 2.0 * (double)un.read_wavefronts * p.smem_cycles_per_wavefront;
    double per_read = (double)sw.read_bytes / sw.read_instructions / p.lsu_bytes_per_cycle_smsp;
    double issue = (double)sw.read_instructions * (per_read > p.lsu_issue_cycles ? per_read : p.lsu_issue_cycles);
    double sw_port = 2.0 * (double)sw.read_wavefronts * p.smem_cycles_per_wavefront;
    double want = port / (issue > sw_port ? issue : sw_port);
    cr_assert(want < wf_ratio, "the swizzled consumer is instruction-bound, not port-bound");
    cr_assert(time_ratio > 1.0 && time_ratio > want * 0.9 && time_ratio < want * 1.1,
              "time ratio %.2f vs read-cost ratio %.2f (wavefront ratio %.2f)", time_ratio, want, wf_ratio);
}

Test(pipe, trace_is_consistent)
{
    pipe_desc d;
    load("ws4_tma", &d);
    d.ctas = 2;
    trace t;
    trace_init(&t, TRACE_SRC_SIM);
    pipe_result r;
    run(&d, &r, &t);
    cr_assert_eq(t.count, r.trace_events);
    cr_assert_eq(t.kernel_ns, r.kernel_ns);
    size_t issues = 0, phases_full = 0, releases = 0;
    for (size_t i = 0; i < t.count; i++) {
        const trace_event *ev = &t.events[i];
        if (i)
            cr_assert_geq(ev->t_ns, t.events[i - 1].t_ns, "sorted");
        cr_assert_leq(ev->t_ns + ev->dur_ns, r.kernel_ns + 1);
        if (ev->kind == TRACE_TMA_ISSUE)
            issues++;
        if (ev->kind == TRACE_PHASE_COMPLETE && (ev->flags & TRACE_FLAG_FULL_BARRIER))
            phases_full++;
        if (ev->kind == TRACE_RELEASE)
            releases++;
        if (ev->kind == TRACE_TMA_FLIGHT)   /* no copy beats the L2 latency */
            cr_assert_geq(ev->dur_ns, 300);
    }
    /* 2 CTAs x 64 iterations x 2 tensors; one full phase per iteration; every consumer releases every stage */
    cr_assert_eq(issues, 2 * 64 * 2);
    cr_assert_eq(phases_full, 2 * 64);
    cr_assert_eq(releases, 2 * 64 * 2);
    trace_free(&t);
}

static void store_spans(const char *reduce, double *mean_ns, size_t *count, int *flagged)
{
    char text[1024];
    snprintf(text, sizeof text,
             "warps: {producer: 1, consumer: 2}\nstages: 4\niterations: 32\ngrid: {ctas: 4}\n"
             "tensors:\n  - {dims: [4096, 4096], box: [64, 128], swizzle: 128b}\n"
             "consumer:\n  math: {kind: mma, amount: 1048576}\nstore: {bytes: 16384, every: 8%s%s}\n",
             reduce ? ", reduce: " : "", reduce ? reduce : "");
    pipe_desc d;
    parse(text, &d);
    trace t;
    trace_init(&t, TRACE_SRC_SIM);
    pipe_result r;
    run(&d, &r, &t);
    double sum = 0;
    *count = 0;
    *flagged = 0;
    for (size_t i = 0; i < t.count; i++)
        if (t.events[i].kind == TRACE_TMA_STORE) {
            sum += t.events[i].dur_ns;
            (*count)++;
            *flagged += (t.events[i].flags & TRACE_FLAG_REDUCE) != 0;
        }
    *mean_ns = *count ? sum / (double)*count : 0;
    trace_free(&t);
}

Test(pipe, tma_reduction_is_a_store_with_its_own_cost)
{
    double store_ns, reduce_ns;
    size_t n_store, n_reduce;
    int f_store, f_reduce;
    store_spans(NULL, &store_ns, &n_store, &f_store);
    store_spans("add", &reduce_ns, &n_reduce, &f_reduce);
    /* 4 CTAs x 32 iterations, one store by the first consumer every 8 iterations */
    cr_assert_eq(n_store, 4 * 32 / 8);
    cr_assert_eq(n_reduce, n_store, "a reduction is traced as a tma_store");
    cr_assert_eq(f_store, 0);
    cr_assert_eq((size_t)f_reduce, n_reduce, "every reduction carries TRACE_FLAG_REDUCE");
    /* a reduction moves twice the bytes (read of the old value + write) and waits
     * reduce_latency_ns instead of store_latency_ns: at least the latency difference longer */
    pipe_params p;
    params_defaults("h100", &p, NULL);
    cr_assert_geq(reduce_ns - store_ns, p.reduce_latency_ns - p.store_latency_ns - 1, "store %.1f ns, reduce %.1f ns",
                  store_ns, reduce_ns);
}

/* tmahw calibrate on the H100 (traces/h100/calibration/calibration.params, tma_latency): one
 * 4 KB TMA box alone completes a median 186 ns after issue from L2 and 447 ns from DRAM.
 * One CTA, one 64 x 32 f16 box (4096 bytes), from L2 and from DRAM: within 10%. */
Test(pipe, isolated_4kb_tma_load_matches_the_measured_latency)
{
    for (int hit = 0; hit <= 1; hit++) {
        char text[512];
        snprintf(text, sizeof text,
                 "warps: {producer: 1, consumer: 1}\nstages: 1\niterations: 1\n"
                 "tensors:\n  - {dims: [4096, 4096], box: [64, 32], l2_hit: %d}\n", hit);
        pipe_desc d;
        parse(text, &d);
        cr_assert_eq(d.copy_bytes, 4096);
        trace t;
        trace_init(&t, TRACE_SRC_SIM);
        pipe_result r;
        run(&d, &r, &t);
        size_t flights = 0;
        for (size_t i = 0; i < t.count; i++)
            if (t.events[i].kind == TRACE_TMA_FLIGHT) {
                flights++;
                double want = hit ? 186 : 447;
                cr_assert(t.events[i].dur_ns >= 0.9 * want && t.events[i].dur_ns <= 1.1 * want,
                          "l2_hit %d: %u ns (measured %.0f)", hit, t.events[i].dur_ns, want);
            }
        cr_assert_eq(flights, 1);
        trace_free(&t);
    }
}

/* measured on an H100: the CTAs of one 132-CTA launch started within about 320 ns */
Test(pipe, first_wave_starts_within_the_measured_launch_spread)
{
    pipe_desc d;
    load("ws4_tma", &d);
    d.iterations = 1;
    trace t;
    trace_init(&t, TRACE_SRC_SIM);
    pipe_result r;
    run(&d, &r, &t);
    int64_t first[132];
    for (int c = 0; c < 132; c++)
        first[c] = INT64_MAX;
    for (size_t i = 0; i < t.count; i++) {
        const trace_event *ev = &t.events[i];
        if (ev->kind == TRACE_BAR_EXPECT_TX && ev->cta < 132 && ev->t_ns < first[ev->cta])
            first[ev->cta] = ev->t_ns;
    }
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (int c = 0; c < 132; c++) {
        cr_assert_neq(first[c], INT64_MAX, "CTA %d never announced its copy", c);
        lo = first[c] < lo ? first[c] : lo;
        hi = first[c] > hi ? first[c] : hi;
    }
    cr_assert(hi - lo > 0 && hi - lo <= 320, "first-wave starts spread over %lld ns", (long long)(hi - lo));
    trace_free(&t);
}

Test(pipe, every_timing_parameter_names_its_source)
{
    size_t n;
    const params_info *t = params_table(&n);
    pipe_params p;
    params_defaults("h100", &p, NULL);
    for (size_t i = 0; i < n; i++) {
        const char *s = t[i].source;
        /* a committed recording (traces/h100/, traces/h200/) is a named source too */
        int sourced = strstr(s, "estimate") || strstr(s, "arXiv") || strstr(s, "whitepaper") ||
                      strstr(s, "traces/h100/") || strstr(s, "traces/h200/");
        cr_assert(sourced, "%s: source '%s' is neither an estimate nor a named source", t[i].name, s);
        int found = 0;
        cr_assert_eq(params_get(&p, t[i].name, &found), t[i].h100);
        cr_assert(found);
    }
}

/* The guide's low-level pipeline API: commit groups, wait_group(stages - 2), bar.sync. */
static void group_run(const char *name, trace *t, pipe_result *r, pipe_desc *d)
{
    load(name, d);
    d->ctas = 8;
    trace_init(t, TRACE_SRC_SIM);
    run(d, r, t);
}

/* Largest over (cta, iteration) of: last copy landing of any warp minus the first read of
 * that stage by any warp (> 0: a warp read data still in flight). */
static int64_t worst_read_before_landing(const trace *t, const pipe_desc *d)
{
    static int64_t landed[8][64], first_read[8][64];
    for (int c = 0; c < 8; c++)
        for (int i = 0; i < 64; i++) {
            landed[c][i] = INT64_MIN;
            first_read[c][i] = INT64_MAX;
        }
    for (size_t k = 0; k < t->count; k++) {
        const trace_event *ev = &t->events[k];
        if (ev->cta >= 8 || ev->iteration >= 64)
            continue;
        if (ev->kind == TRACE_TMA_FLIGHT && ev->t_ns + ev->dur_ns > landed[ev->cta][ev->iteration])
            landed[ev->cta][ev->iteration] = ev->t_ns + ev->dur_ns;
        if (ev->kind == TRACE_SMEM_READ && ev->t_ns < first_read[ev->cta][ev->iteration])
            first_read[ev->cta][ev->iteration] = ev->t_ns;
    }
    int64_t worst = INT64_MIN;
    for (int c = 0; c < 8; c++)
        for (uint32_t i = 0; i < d->iterations && i < 64; i++)
            if (landed[c][i] - first_read[c][i] > worst)
                worst = landed[c][i] - first_read[c][i];
    return worst;
}

Test(pipe, commit_groups_read_a_stage_only_after_every_warps_copies_landed)
{
    pipe_desc d;
    trace t;
    pipe_result r;
    group_run("cpasync_wait_prior", &t, &r, &d);
    err_info v = {0};
    cr_assert_eq(pipe_verdict(&r, &v), ERR_OK, "%s: %s", v.rule, v.detail);
    cr_assert_eq(d.cpasync_wait_prior, d.stages - 2, "derived: wait_group(stages - 2)");
    size_t commits = 0, mbar_events = 0;
    for (size_t k = 0; k < t.count; k++) {
        uint8_t kind = t.events[k].kind;
        commits += kind == TRACE_CPASYNC_ISSUE;
        mbar_events += kind == TRACE_BAR_ARRIVE || kind == TRACE_BAR_EXPECT_TX || kind == TRACE_BAR_COMPLETE_TX ||
                       kind == TRACE_PHASE_COMPLETE || kind == TRACE_RELEASE;
    }
    /* every warp copies its share of every stage once; no mbarrier in this protocol */
    cr_assert_eq(commits, (size_t)d.ctas * d.consumer_warps * d.iterations);
    cr_assert_eq(mbar_events, 0);
    cr_assert_leq(worst_read_before_landing(&t, &d), 0, "a stage was read before its copies landed");
    trace_free(&t);
}

Test(pipe, wait_prior_too_large_is_a_read_of_data_in_flight)
{
    pipe_desc d;
    trace t;
    pipe_result r;
    group_run("bug_wait_prior", &t, &r, &d);
    err_info v = {0};
    cr_assert_eq(pipe_verdict(&r, &v), ERR_FINDING);
    cr_assert_str_eq(v.rule, "cpasync_read_before_complete", "%s", v.detail);
    /* By hand: 3 stages, prologue commits groups 0 and 1; wait_group 2 with 2 groups
     * committed guarantees none of them, so the very first read (iteration 0) is
     * unguaranteed, whatever the timing. */
    cr_assert(strstr(v.detail, "iteration 0") != NULL, "%s", v.detail);
    /* the correct count (stages - 2 = 1) guarantees group i before every read i */
    pipe_desc ok = d;
    ok.cpasync_wait_prior = d.stages - 2;
    pipe_result r2;
    run(&ok, &r2, NULL);
    cr_assert_eq(pipe_verdict(&r2, &v), ERR_OK, "%s: %s", v.rule, v.detail);
    trace_free(&t);
}

/* ---- the command line: exit codes, trace output, Chrome export round trip ---- */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static int sh(const char *cmd)
{
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

Test(pipe_cli, exit_codes_follow_the_verdict)
{
    cr_assert_eq(sh(TMASIM_BIN " check examples/ws4_tma.yaml >/dev/null"), 0);
    cr_assert_eq(sh(TMASIM_BIN " check examples/bug_never_release.yaml >/dev/null"), 1);
    cr_assert_eq(sh(TMASIM_BIN " check examples/does_not_exist.yaml 2>/dev/null"), 2);
    cr_assert_eq(sh(TMASIM_BIN " sim examples/ws4_tma.yaml --sweep stages= 2>/dev/null >/dev/null"), 2);
    cr_assert_eq(sh(TMASIM_BIN " sim examples/ws4_tma.yaml --gpu a100 2>/dev/null"), 2);
}

Test(pipe_cli, sweep_rederives_the_counts_the_description_left_to_derive)
{
    /* empty_count is derived (= consumer warps), so every swept warp count stays a correct
     * protocol; bug_barrier_count sets empty_count: 1 and stays a bug at every value */
    cr_assert_eq(sh(TMASIM_BIN " sim examples/ws4_tma.yaml --sweep consumer_warps=1,3,4 --format csv"
                               " | grep -c ',ok$' | grep -qx 3"), 0);
    cr_assert_eq(sh(TMASIM_BIN " sim examples/bug_barrier_count.yaml --sweep consumer_warps=2,3 --format csv"
                               " | grep -c ',BUG$' | grep -qx 2"), 0);
    /* a fractional stage count is bad input, refused before any row is printed */
    cr_assert_eq(sh(TMASIM_BIN " sim examples/ws4_tma.yaml --sweep stages=2,2.5 2>/dev/null | grep -q ."), 1);
    cr_assert_eq(sh(TMASIM_BIN " sim examples/ws4_tma.yaml --sweep stages=2,2.5 >/dev/null 2>&1"), 2);
}

static long long kernel_ns_of(const char *cmd)
{
    FILE *f = popen(cmd, "r");
    cr_assert_not_null(f);
    char buf[4096] = {0};
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    pclose(f);
    buf[n] = 0;
    long long ns = -1;
    const char *k = strstr(buf, "\"kernel_ns\":");
    cr_assert_not_null(k, "no kernel_ns in '%s'", buf);
    sscanf(k, "\"kernel_ns\":%lld", &ns);
    return ns;
}

Test(pipe_cli, parameters_overridden_from_a_file)
{
    char path[64], cmd[512];
    snprintf(path, sizeof path, "/tmp/test_pipe_params.%ld", (long)getpid());
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "# half the DRAM bandwidth\nhbm_bytes_per_ns = 1500   # B/ns\n");
    fclose(f);
    long long base = kernel_ns_of(TMASIM_BIN " sim examples/memory_bound.yaml --format json");
    snprintf(cmd, sizeof cmd, TMASIM_BIN " sim examples/memory_bound.yaml --params %s --format json", path);
    long long half = kernel_ns_of(cmd);
    /* memory-bound: the time is the bytes over the DRAM bandwidth, so halving it doubles the time */
    double ratio = (double)half / (double)base;
    cr_assert(ratio > 1.9 && ratio < 2.1, "%lld ns vs %lld ns (ratio %.3f)", half, base, ratio);
    /* a bad line: exit 2 with FILE:LINE and the field on one line */
    f = fopen(path, "w");
    fprintf(f, "hbm_bytes_per_ns = 1500\nwake_ns = soon\n");
    fclose(f);
    snprintf(cmd, sizeof cmd, TMASIM_BIN " sim examples/memory_bound.yaml --params %s 2>&1 >/dev/null | grep -c \"%s:2: field 'wake_ns'\" | grep -qx 1",
             path, path);
    cr_assert_eq(sh(cmd), 0);
    snprintf(cmd, sizeof cmd, TMASIM_BIN " sim examples/memory_bound.yaml --params %s >/dev/null 2>&1", path);
    cr_assert_eq(sh(cmd), 2);
    remove(path);
}

Test(pipe_cli, gpu_selects_a_parameter_set_with_its_sources)
{
    pipe_params sxm, pcie;
    err_info e = {0};
    cr_assert_eq(params_defaults("h100", &sxm, &e), ERR_OK);
    cr_assert_eq(params_defaults("h100-pcie", &pcie, &e), ERR_OK);
    cr_assert_eq(pcie.sm_count, 114, "the PCIe card has 114 SMs (datasheet)");
    cr_assert(strstr(params_source("h100-pcie", "sm_count"), "datasheet"));
    cr_assert_str_eq(params_source("h100-pcie", "wake_ns"), params_source("h100", "wake_ns"), "not replaced: inherited");
    cr_assert_eq(params_defaults("a100", &pcie, &e), ERR_BAD_INPUT);
    cr_assert(strstr(e.detail, "h100-pcie"), "%s", e.detail);
    /* memory-bound: the time follows the DRAM bandwidth of the set, when the grid is one
     * wave on both (114 CTAs: the PCIe card's SM count; with 132 the PCIe run has a tail
     * wave of 18 CTAs that cannot saturate DRAM, so the ratio is no longer bandwidth's) */
    char yaml[64], cmd[256];
    snprintf(yaml, sizeof yaml, "/tmp/test_pipe_mb114.%ld.yaml", (long)getpid());
    snprintf(cmd, sizeof cmd, "sed 's/ctas: 132/ctas: 114/' examples/memory_bound.yaml > %s", yaml);
    cr_assert_eq(sh(cmd), 0);
    snprintf(cmd, sizeof cmd, TMASIM_BIN " sim %s --format json", yaml);
    long long t_sxm = kernel_ns_of(cmd);
    snprintf(cmd, sizeof cmd, TMASIM_BIN " sim %s --gpu h100-pcie --format json", yaml);
    long long t_pcie = kernel_ns_of(cmd);
    unlink(yaml);
    params_defaults("h100-pcie", &pcie, NULL);
    double want = sxm.hbm_bytes_per_ns / pcie.hbm_bytes_per_ns, got = (double)t_pcie / (double)t_sxm;
    cr_assert(got > want * 0.95 && got < want * 1.05, "time ratio %.3f, bandwidth ratio %.3f", got, want);
    cr_assert_eq(sh(TMASIM_BIN " sim --params-list --gpu h100-pcie | grep -q '^sm_count  *114 '"), 0);
}

Test(pipe_cli, malformed_chrome_import_names_file_line_and_field)
{
    char path[64], cmd[512];
    snprintf(path, sizeof path, "/tmp/test_pipe_chrome.%ld.json", (long)getpid());
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    /* line 4 starts traceEvents[1], whose kind is out of range */
    fprintf(f, "{\"traceEvents\": [\n"
               "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"args\":{\"name\":\"a, [b]\"}},\n"
               "\n"
               "{\"ph\":\"i\",\"args\":{\"t_ns\":0,\"dur_ns\":0,\"iteration\":0,\"bytes\":0,\"cta\":0,\"phase\":0,"
               "\"sm\":0,\"warp\":0,\"role\":0,\"stage\":0,\"kind\":42,\"barrier\":0,\"source\":0,\"flags\":0}}\n]}\n");
    fclose(f);
    snprintf(cmd, sizeof cmd, TMASIM_BIN " export --import %s -o %s.tmt 2>&1 | grep -c \"%s:4: traceEvents\\[1\\]: field 'args.kind'\" | grep -qx 1",
             path, path, path);
    cr_assert_eq(sh(cmd), 0);
    snprintf(cmd, sizeof cmd, TMASIM_BIN " export --import %s -o %s.tmt >/dev/null 2>&1", path, path);
    cr_assert_eq(sh(cmd), 2);
    /* a syntax error: jansson's line */
    f = fopen(path, "w");
    fprintf(f, "{\"traceEvents\": [\n{\"ph\": \"X\",,}\n]}\n");
    fclose(f);
    snprintf(cmd, sizeof cmd, TMASIM_BIN " export --import %s -o %s.tmt 2>&1 | grep -q \"%s:2:\"", path, path, path);
    cr_assert_eq(sh(cmd), 0);
    remove(path);
}

Test(pipe_cli, sim_trace_exports_to_chrome_and_back_exactly)
{
    char dir[48], cmd[1024];
    snprintf(dir, sizeof dir, "/tmp/test_pipe_cli.%ld", (long)getpid());
    snprintf(cmd, sizeof cmd,
             /* 4 CTAs of double_buffer: every event kind of the pattern, and seconds, not
              * minutes, through jansson under the sanitizers */
             "mkdir -p %s && sed 's/ctas: 132/ctas: 4/' examples/double_buffer.yaml > %s/d.yaml && " TMASIM_BIN
             " sim %s/d.yaml -o %s/a.tmt >/dev/null && " TMASIM_BIN
             " export %s/a.tmt --chrome %s/a.json >/dev/null && " TMASIM_BIN
             " export --import %s/a.json -o %s/b.tmt >/dev/null && cmp -s %s/a.tmt %s/b.tmt",
             dir, dir, dir, dir, dir, dir, dir, dir, dir, dir);
    int rc = sh(cmd);
    snprintf(cmd, sizeof cmd, "grep -q '\"ph\":\"f\",\"bp\":\"e\"' %s/a.json && grep -q 'process_name' %s/a.json", dir, dir);
    int flows = sh(cmd);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    sh(cmd);
    cr_assert_eq(rc, 0, "sim -> export -> import did not reproduce the trace byte for byte");
    cr_assert_eq(flows, 0, "no flow or process names in the Chrome JSON");
}
