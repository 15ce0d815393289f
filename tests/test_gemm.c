/* GEMM descriptions (math kind wgmma): what pipe_gemm derives, the findings, the generated
 * source and the trace conversion of the runner's events. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "desc.h"
#include "gemm_exec.h"
#include "gemm_gen.h"
#include "cli_run.h"
#include "params.h"
#include "pipe.h"
#include "pipe_gemm.h"

static pipe_desc load(const char *path)
{
    static pipe_desc d;
    err_info e = {0};
    cr_assert_eq(desc_load(path, &d, &e), ERR_OK, "%s: %s", path, e.detail);
    return d;
}

Test(gemm, derives_the_tile_the_tiles_and_the_descriptors)
{
    pipe_desc d = load("examples/gemm_bf16_8192.yaml");
    cr_expect_eq(d.gemm.bm, 128);
    cr_expect_eq(d.gemm.bn, 256);
    cr_expect_eq(d.gemm.bk, 64);
    cr_expect_eq(d.gemm.tiles, 64 * 32);
    cr_expect_eq(d.gemm.k_iters, 128);
    /* 2048 tiles over 132 CTAs: the busiest takes 16, 16 x 128 stages */
    cr_expect_eq(d.iterations, 2048);
    cr_expect_eq(pipe_gemm_cta_tiles(&d, 0), 16);
    cr_expect_eq(pipe_gemm_cta_tiles(&d, 131), 15);
    /* K-major, 128-byte swizzle: SBO 1024 B (field 64), LBO field 1, mode 1; 32 B per k16 */
    cr_expect_eq(d.wgmma.desc_a, 0x4000004000010000ull);
    cr_expect_eq(d.wgmma.desc_b, 0x4000004000010000ull);
    cr_expect_eq(d.wgmma.kstep_a, 32);
    cr_expect_eq(d.release_lag, 1);
    cr_expect_eq(pipe_gemm_instrs_per_stage(&d), 4);
    cr_expect_eq(pipe_gemm_instr_flops(&d), 2ull * 64 * 256 * 16);
    pipe_gemm_finding f[PIPE_GEMM_FINDINGS_MAX];
    cr_expect_eq(pipe_gemm_findings(&d, f), 0, "%s", f[0].detail);
    /* the fp8 one: k32 per instruction, 128 values of K per stage */
    pipe_desc e8 = load("examples/gemm_e4m3_8192.yaml");
    cr_expect_eq(e8.gemm.bk, 128);
    cr_expect_eq(pipe_gemm_instrs_per_stage(&e8), 4);
}

Test(gemm, tile_order_walks_groups_of_m_tiles)
{
    pipe_desc d = load("examples/gemm_bf16_8192.yaml");
    uint32_t mt, nt;
    pipe_gemm_tile(&d, 0, &mt, &nt);
    cr_expect(mt == 0 && nt == 0);
    pipe_gemm_tile(&d, 7, &mt, &nt);
    cr_expect(mt == 7 && nt == 0);
    pipe_gemm_tile(&d, 8, &mt, &nt);
    cr_expect(mt == 0 && nt == 1);
    pipe_gemm_tile(&d, 8 * 32, &mt, &nt);
    cr_expect(mt == 8 && nt == 0);
}

Test(gemm, findings_of_the_bug_examples)
{
    pipe_gemm_finding f[PIPE_GEMM_FINDINGS_MAX];
    pipe_desc r = load("examples/bug_wgmma_release.yaml");
    cr_assert_eq(pipe_gemm_findings(&r, f), 1);
    cr_expect_str_eq(f[0].rule, "wgmma_release_in_flight");
    pipe_desc d = load("examples/bug_wgmma_descriptor.yaml");
    cr_assert_eq(pipe_gemm_findings(&d, f), 1);
    cr_expect_str_eq(f[0].rule, "wgmma_descriptor_mismatch");
    cr_expect(strstr(f[0].detail, "operand B") && strstr(f[0].detail, "0x4000004000010440"), "%s", f[0].detail);
}

Test(gemm, rejects_what_the_kernel_cannot_run)
{
    static const char *bad[][2] = {
        {"stages: 3\n", "stages: 3\nconsumer:\n  math: {kind: wgmma, shape: m64n256k16, dtype: bf16, a: registers}\n"},
        {"gemm: {m: 8192", "gemm: {m: 8100"},
        {"box: [64, 256]", "box: [32, 256]"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        FILE *f = fopen("examples/gemm_bf16_8192.yaml", "r");
        cr_assert(f);
        static char text[8192], out[8192];
        size_t n = fread(text, 1, sizeof text - 1, f);
        fclose(f);
        text[n] = 0;
        char *at = strstr(text, bad[i][0]);
        cr_assert(at, "%s", bad[i][0]);
        snprintf(out, sizeof out, "%.*s%s%s", (int)(at - text), text, bad[i][1], at + strlen(bad[i][0]));
        if (i == 0) {   /* the consumer block given twice: drop the original one */
            char *c2 = strstr(out + (at - text) + strlen(bad[i][1]), "consumer:");
            if (c2)
                *c2 = 0;
        }
        pipe_desc d;
        err_info e = {0};
        cr_expect_eq(desc_parse_yaml(out, strlen(out), "bad.yaml", &d, &e), ERR_BAD_INPUT, "case %zu accepted", i);
    }
}

Test(gemm, generated_source_holds_the_shape_and_the_plan)
{
    pipe_desc d = load("examples/gemm_e4m3_8192.yaml");
    char *src = NULL;
    err_info e = {0};
    cr_assert_eq(gemm_gen_source(&d, &src, &e), ERR_OK, "%s", e.detail);
    cr_expect(strstr(src, "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3"));
    cr_expect(strstr(src, "#define GM_BK 128u"));
    cr_expect(strstr(src, "#define GM_DESC_B 0x4000004000010000ull"));
    cr_expect(strstr(src, "extern \"C\" __global__"));
    free(src);
    cr_expect_leq(gemm_gen_smem_bytes(&d), 227u * 1024u);
    cr_expect_eq(gemm_gen_consumer_regs(&d) % 8, 0);
    cr_expect_leq(40 * 128 + 2 * 128 * gemm_gen_consumer_regs(&d), 65536);
}

/* One consumer warpgroup, wait_group(1): the group of stage i is retired by the wait of
 * stage i + 1; the last by the tile's wait_group(0). */
Test(gemm, trace_of_recorded_events)
{
    pipe_desc d = load("examples/gemm_bf16_4096.yaml");
    enum { W = 12, CAP = 16 };
    GmEvHost ev[W * CAP];
    uint32_t evn[W] = {0};
    memset(ev, 0, sizeof ev);
    GmEvHost *c = ev + 4 * CAP;   /* warp 4: the first consumer warpgroup's lead */
    c[0] = (GmEvHost){.t = 1000, .dur = 100, .iter = 0, .kind = GMEV_WGMMA, .stage = 0};
    c[1] = (GmEvHost){.t = 1100, .dur = 10, .iter = 0, .kind = GMEV_WAITG, .stage = 0, .aux = 1};
    c[2] = (GmEvHost){.t = 1200, .dur = 100, .iter = 1, .kind = GMEV_WGMMA, .stage = 1};
    c[3] = (GmEvHost){.t = 1300, .dur = 500, .iter = 1, .kind = GMEV_WAITG, .stage = 1, .aux = 1};
    c[4] = (GmEvHost){.t = 1800, .dur = 300, .iter = 1, .kind = GMEV_WAITG, .stage = 1, .aux = 0};
    evn[4] = 5;
    ev[0] = (GmEvHost){.t = 900, .dur = 5, .iter = 0, .kind = GMEV_LOAD, .stage = 0};
    evn[0] = 1;
    trace tr;
    trace_init(&tr, TRACE_SRC_HW);
    err_info e = {0};
    cr_assert_eq(gemm_events_to_trace(&d, ev, evn, 1, W, CAP, 1.0, &tr, &e), ERR_OK, "%s", e.detail);
    int groups = 0;
    for (size_t i = 0; i < tr.count; i++) {
        const trace_event *x = &tr.events[i];
        if (x->kind != TRACE_WGMMA)
            continue;
        groups++;
        /* times from the CTA's first event (900) at 1 GHz */
        if (x->iteration == 0)
            cr_expect(x->t_ns == 100 && x->dur_ns == 800, "group 0: %lld + %u", (long long)x->t_ns, x->dur_ns);
        else
            cr_expect(x->t_ns == 300 && x->dur_ns == 900, "group 1: %lld + %u", (long long)x->t_ns, x->dur_ns);
        cr_expect_eq(x->warp, 4);
        cr_expect_eq(x->role, TRACE_ROLE_CONSUMER);
    }
    cr_expect_eq(groups, 2);
    trace_free(&tr);
}

Test(gemm, l2_serves_the_operand_rows_other_ctas_of_the_wave_loaded)
{
    /* 8192^3, 128x256 tiles, group_m 8: a wave of 132 concurrent tiles holds 8 (16 where it
     * straddles two groups) distinct A tile rows and 17 B tile columns */
    pipe_desc d = load("examples/gemm_bf16_8192.yaml");
    double a = pipe_gemm_l2_hit(&d, WG_A), b = pipe_gemm_l2_hit(&d, WG_B);
    cr_expect(a >= 1.0 - 16.0 / 132 && a <= 1.0 - 8.0 / 132, "A: %f", a);
    cr_expect(b >= 1.0 - 18.0 / 132 && b <= 1.0 - 16.0 / 132, "B: %f", b);
    cr_expect_float_eq(pipe_gemm_instr_cycles(&d, 0.5), 128.0, 1e-9);
}

Test(gemm, readers_of_each_tile_set_the_l2_rate_of_the_operand_copies)
{
    /* 132 CTAs on consecutive tiles of 8-row groups: each A tile row is loaded by 132/8
     * CTAs (132/16 where the wave straddles two groups), each B column by 132/17 */
    pipe_desc d = load("examples/gemm_bf16_8192.yaml");
    double ra = pipe_gemm_readers(&d, WG_A), rb = pipe_gemm_readers(&d, WG_B);
    cr_expect(ra >= 132.0 / 16 && ra <= 132.0 / 8, "A: %f", ra);
    cr_expect(rb >= 132.0 / 18 && rb <= 132.0 / 16, "B: %f", rb);
    cr_expect_float_eq(1.0 / (1.0 - pipe_gemm_l2_hit(&d, WG_A)), ra, 1e-9);
    /* the measured points are 1, 2, 4, ... 32 readers; linear in log2 between them */
    pipe_params p = {0};
    for (int k = 0; k < PARAMS_L2_SHARE_POINTS; k++)
        p.l2_share_bytes_per_ns[k] = 1000.0 * (k + 1);
    cr_expect_float_eq(pipe_l2_share_rate(&p, 1), 1000, 1e-9);
    cr_expect_float_eq(pipe_l2_share_rate(&p, 0.5), 1000, 1e-9);
    cr_expect_float_eq(pipe_l2_share_rate(&p, 8), 4000, 1e-9);
    cr_expect_float_eq(pipe_l2_share_rate(&p, 8 * sqrt(2.0)), 4500, 1e-6);
    cr_expect_float_eq(pipe_l2_share_rate(&p, 500), 6000, 1e-9);
}

/* The two mechanisms of the GEMM's loads, each against the model without it: L2 serves bytes
 * that 8-16 SMs read at once at the shared rate (with every byte at the one-reader rate the
 * 8192^3 GEMM is L2 bound and slower), and one producer thread's stages complete one after
 * another (without it the small-N GEMM would run at its tensor pipes' rate, twice as fast
 * as measured). */
static pipe_result sim_with(const char *path, const pipe_params *p)
{
    pipe_desc d = load(path);
    pipe_opts o = {.params = p};
    pipe_result r;
    err_info e = {0};
    cr_assert_eq(pipe_run(&d, &o, &r, &e), ERR_OK, "%s: %s", path, e.detail);
    return r;
}

Test(gemm, shared_l2_reads_and_the_producer_chain_change_the_kernel_time, .timeout = 300)
{
    pipe_params p, flat, nochain;
    params_defaults("h200", &p, NULL);
    flat = nochain = p;
    for (int k = 1; k < PARAMS_L2_SHARE_POINTS; k++)
        flat.l2_share_bytes_per_ns[k] = p.l2_share_bytes_per_ns[0];
    nochain.gemm_step_ns = 1e-6;
    pipe_result shared = sim_with("examples/gemm_bf16_8192.yaml", &p);
    pipe_result one = sim_with("examples/gemm_bf16_8192.yaml", &flat);
    cr_expect(one.kernel_ns > 1.05 * shared.kernel_ns, "one reader %lld ns, shared %lld ns", (long long)one.kernel_ns,
              (long long)shared.kernel_ns);
    cr_expect_str_eq(one.bottleneck_kind, "memory", "%s", one.bottleneck);
    pipe_result chain = sim_with("examples/gemm_bf16_n64.yaml", &p);
    pipe_result free_ = sim_with("examples/gemm_bf16_n64.yaml", &nochain);
    /* 8064 stages of 24 KiB, each at least gemm_step_ns + 24 KiB at the SM's TMA rate */
    double floor_ns = 8064 * (p.gemm_step_ns + 24576 / p.tma_bytes_per_ns_sm);
    cr_expect(chain.kernel_ns >= floor_ns, "%lld ns < %.0f", (long long)chain.kernel_ns, floor_ns);
    /* without the chain the producer's issue slots (produce_issue_cycles per tensor, at
     * int_issue_cycles each) bind at about four fifths of the chained time */
    cr_expect(free_.kernel_ns < 0.85 * chain.kernel_ns, "without the chain %lld ns, with %lld ns",
              (long long)free_.kernel_ns, (long long)chain.kernel_ns);
}

/* The simulator against the bundled GEMMs' kernel times on the H200 (traces/h200/gemm/
 * 2026-11-25/NAME.json, `tmahw run --format json`: median of 20 launches). The bounds are the
 * errors the model has now (README, "GEMM pipelines"), each widened to the next percent both
 * ways: they record where it stands (the target is 5%), so that a change that moves it shows
 * here. */
static double measured_ns(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "traces/h200/gemm/2026-11-25/%s.json", name);
    return recorded_number(path, "kernel_ns");
}

Test(gemm, simulator_times_the_bundled_gemms_within_the_recorded_errors, .timeout = 300)
{
    static const struct {
        const char *name, *kind;
        double lo, hi, tensor_lo, tensor_hi;
    } ex[] = {
        {"gemm_bf16_8192", "compute", 0.01, 0.02, 0.90, 1.00},
        {"gemm_bf16_4096", "compute", -0.04, -0.03, 0.90, 1.00},
        {"gemm_e4m3_8192", "compute", -0.03, -0.02, 0.90, 1.00},
        {"gemm_bf16_n64", "latency", 0.03, 0.04, 0.30, 0.50},
    };
    pipe_params p;
    err_info e = {0};
    cr_assert_eq(params_defaults("h200", &p, &e), ERR_OK);
    for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++) {
        char path[256];
        snprintf(path, sizeof path, "examples/%s.yaml", ex[i].name);
        pipe_desc d = load(path);
        pipe_opts o = {.params = &p};
        pipe_result r;
        cr_assert_eq(pipe_run(&d, &o, &r, &e), ERR_OK, "%s: %s", path, e.detail);
        cr_expect_eq(r.deadlock, 0, "%s", path);
        cr_expect_eq(r.findings, 0, "%s: %s", path, r.first.detail);
        double err = (double)r.kernel_ns / measured_ns(ex[i].name) - 1.0;
        cr_expect(err >= ex[i].lo && err <= ex[i].hi, "%s: predicted %lld ns, error %+.1f%% (recorded %+.0f..%+.0f%%)",
                  ex[i].name, (long long)r.kernel_ns, 100 * err, 100 * ex[i].lo, 100 * ex[i].hi);
        /* the verdict: the tensor pipes bound the n256 ones in this model, the producer
         * thread's chain of stages the small-N one; the tensor pipes' share shows how far
         * each is from compute bound */
        cr_expect_str_eq(r.bottleneck_kind, ex[i].kind, "%s: %s", ex[i].name, r.bottleneck);
        cr_expect(r.math_util >= ex[i].tensor_lo && r.math_util <= ex[i].tensor_hi, "%s: tensor pipes %.2f",
                  ex[i].name, r.math_util);
    }
}

/* The tensor pipe beside copies: while the producer's loads land in the SM's shared memory
 * the pipe runs at wgmma_copy_cycles_per_col, so the compute-bound 4096^3 GEMM takes about
 * the ratio of the two rates longer than with the pipe's rate alone (its epilogues and its
 * last stages, without loads, run at the rate alone). */
Test(gemm, copies_into_shared_memory_slow_the_tensor_pipe, .timeout = 120)
{
    pipe_params p, alone;
    params_defaults("h200", &p, NULL);
    alone = p;
    alone.wgmma_copy_cycles_per_col = p.wgmma_cycles_per_col;
    pipe_result slow = sim_with("examples/gemm_bf16_4096.yaml", &p);
    pipe_result fast = sim_with("examples/gemm_bf16_4096.yaml", &alone);
    double ratio = (double)slow.kernel_ns / (double)fast.kernel_ns, rates = p.wgmma_copy_cycles_per_col / p.wgmma_cycles_per_col;
    cr_expect(ratio > 1.0 + 0.8 * (rates - 1.0) && ratio <= rates + 1e-9, "slower by %.4f, the rates' ratio %.4f", ratio,
              rates);
    cr_expect_str_eq(slow.bottleneck_kind, "compute", "%s", slow.bottleneck);
}

/* The direct epilogue (st.global of the accumulators): a CTA stores gemm_store_queue_bytes
 * before its warps wait, the rest drains at gemm_store_bytes_per_ns shared by the CTAs that
 * store a tile of the same round, so a wide tile's epilogue holds its warps. wgmma_0001_0010
 * of the corpus (two warpgroups of 64 x 192 on 132 CTAs, 384 tiles: rounds of 132, 132 and
 * 120 CTAs, six stages a tile): the rounds' drains add to the kernel over the model whose GPU
 * takes every store at once, less what the next tile's loads, issued during a drain, no
 * longer make the consumers wait (8.3 of 10.4 us). */
Test(gemm, the_direct_epilogue_waits_for_the_stores, .timeout = 120)
{
    const char *path = "traces/h200/corpus-wgmma/wgmma_0001_0010.yaml";
    pipe_params p, at_once;
    params_defaults("h200", &p, NULL);
    at_once = p;
    at_once.gemm_store_bytes_per_ns = 1e7;
    pipe_desc d = load(path);
    cr_assert_eq(d.gemm.epilogue, PIPE_EPI_DIRECT);
    cr_assert_eq(d.gemm.tiles, 384);
    cr_assert_eq(pipe_gemm_cta_tiles(&d, 0), 3);
    double bytes = (double)d.gemm.consumer_groups * 64 * d.gemm.bn * 2;
    double drain_ns = (bytes - p.gemm_store_queue_bytes) * (132 + 132 + 120) / p.gemm_store_bytes_per_ns;
    pipe_result slow = sim_with(path, &p), fast = sim_with(path, &at_once);
    double added = (double)(slow.kernel_ns - fast.kernel_ns);
    cr_expect(added >= 0.7 * drain_ns && added <= 1.05 * drain_ns, "the stores add %.0f ns; the three rounds' drains %.0f ns",
              added, drain_ns);
    /* a narrow tile's stores fit in the queue: nothing added */
    pipe_result narrow = sim_with("traces/h200/corpus-wgmma/wgmma_0001_0014.yaml", &p);
    pipe_result narrow_fast = sim_with("traces/h200/corpus-wgmma/wgmma_0001_0014.yaml", &at_once);
    cr_expect_eq(narrow.kernel_ns, narrow_fast.kernel_ns);
}

/* The GEMM runs at clock_gemm_ghz, with 8-bit operands at clock_gemm_fp8_ghz: the
 * compute-bound 8192^3 GEMMs' times scale with them (their latencies in ns do not, hence the
 * slack), each clock only its own dtype's. */
Test(gemm, the_gemm_runs_at_its_measured_clock, .timeout = 120)
{
    pipe_params p, fast;
    params_defaults("h200", &p, NULL);
    fast = p;
    fast.clock_gemm_ghz = fast.clock_gemm_fp8_ghz = p.clock_tensor_ghz;
    cr_assert(p.clock_gemm_ghz < p.clock_tensor_ghz && p.clock_gemm_fp8_ghz < p.clock_gemm_ghz);
    static const char *const path[2] = {"examples/gemm_bf16_8192.yaml", "examples/gemm_e4m3_8192.yaml"};
    for (int k = 0; k < 2; k++) {
        pipe_result at = sim_with(path[k], &p), quick = sim_with(path[k], &fast);
        double ratio = (double)at.kernel_ns / (double)quick.kernel_ns;
        double clocks = p.clock_tensor_ghz / (k ? p.clock_gemm_fp8_ghz : p.clock_gemm_ghz);
        cr_expect(ratio > 1.0 + 0.8 * (clocks - 1.0) && ratio < 1.0 + 1.2 * (clocks - 1.0), "%s: slower by %.4f, the clocks %.4f",
                  path[k], ratio, clocks);
    }
}

Test(gemm, simulator_reports_the_release_bug_and_times_it, .timeout = 120)
{
    pipe_desc d = load("examples/bug_wgmma_release.yaml");
    pipe_params p;
    params_defaults("h200", &p, NULL);
    pipe_opts o = {.params = &p};
    pipe_result r;
    err_info e = {0};
    cr_assert_eq(pipe_run(&d, &o, &r, &e), ERR_OK, "%s", e.detail);
    cr_expect_eq(pipe_verdict(&r, &e), ERR_FINDING);
    cr_expect_str_eq(e.rule, "wgmma_release_in_flight");
    cr_expect(r.kernel_ns > 100000, "%lld", (long long)r.kernel_ns);
}

/* wait_group(N) as the simulator runs it, from its trace (CTA 0): each wait_group(N) after
 * iteration i's group returns no earlier than group i - N completes, and every stage is
 * released after the group that read it completed when release_lag >= wgmma_wait; with the
 * release bug (lag 0 < wait 2) stages are released while their group still runs. */
typedef struct wg_timing {
    uint32_t releases, early_releases, waits, early_waits;
} wg_timing;

static wg_timing gemm_timing(const char *path)
{
    pipe_desc d = load(path);
    pipe_params p;
    params_defaults("h200", &p, NULL);
    trace t;
    trace_init(&t, TRACE_SRC_SIM);
    pipe_opts o = {.params = &p, .out = &t};
    pipe_result r;
    err_info e = {0};
    cr_assert_eq(pipe_run(&d, &o, &r, &e), ERR_OK, "%s: %s", path, e.detail);
    size_t n = (size_t)256 * d.iterations;
    int64_t *end = calloc(n, sizeof *end);
    cr_assert(end);
    for (size_t k = 0; k < t.count; k++) {
        const trace_event *ev = &t.events[k];
        if (ev->cta == 0 && ev->kind == TRACE_WGMMA && ev->iteration < d.iterations)
            end[(size_t)ev->warp * d.iterations + ev->iteration] = ev->t_ns + ev->dur_ns;
    }
    wg_timing w = {0};
    for (size_t k = 0; k < t.count; k++) {
        const trace_event *ev = &t.events[k];
        if (ev->cta != 0 || ev->iteration >= d.iterations)
            continue;
        const int64_t *mine = end + (size_t)ev->warp * d.iterations;
        if (ev->kind == TRACE_RELEASE) {
            w.releases++;
            cr_assert(mine[ev->iteration] > 0, "release of iteration %u without its group", ev->iteration);
            w.early_releases += ev->t_ns + 1 < mine[ev->iteration];
        } else if (ev->kind == TRACE_WGMMA_WAIT && ev->iteration >= ev->phase) {
            w.waits++;
            w.early_waits += ev->t_ns + ev->dur_ns + 1 < mine[ev->iteration - ev->phase];
        }
    }
    free(end);
    trace_free(&t);
    return w;
}

Test(gemm, wait_group_and_release_follow_the_groups, .timeout = 120)
{
    wg_timing ok = gemm_timing("examples/gemm_bf16_4096.yaml");
    /* CTA 0: 4 tiles x 64 stages, released by each of its 2 warpgroups' leads */
    cr_expect_eq(ok.releases, 2 * 256);
    cr_expect_eq(ok.waits, 2 * 256 - 2, "%u", ok.waits);   /* wait_group(1) after group 0 waits for none */
    cr_expect_eq(ok.early_releases, 0);
    cr_expect_eq(ok.early_waits, 0);
    wg_timing bug = gemm_timing("examples/bug_wgmma_release.yaml");
    cr_expect_eq(bug.early_waits, 0);
    cr_expect_gt(bug.early_releases, bug.releases / 2, "%u of %u", bug.early_releases, bug.releases);
}

/* The TMA epilogue stores C in boxes of 64 columns: a narrower tile needs the direct one. */
Test(gemm, tma_epilogue_needs_tiles_of_64_columns)
{
    FILE *f = fopen("examples/gemm_bf16_n64.yaml", "r");
    cr_assert(f);
    static char text[8192], out[8192];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    const char *epis[] = {"epilogue: tma", "epilogue: direct"};
    for (int k = 0; k < 2; k++) {
        char *epi = strstr(text, "epilogue: tma"), *box = epi ? strstr(epi, "box: [64, 64]") : NULL;
        char *shape = box ? strstr(box, "m64n64k16") : NULL;
        cr_assert(shape);
        snprintf(out, sizeof out, "%.*s%s%.*sbox: [64, 32]%.*sm64n32k16%s", (int)(epi - text), text, epis[k],
                 (int)(box - epi - strlen("epilogue: tma")), epi + strlen("epilogue: tma"),
                 (int)(shape - box - strlen("box: [64, 64]")), box + strlen("box: [64, 64]"), shape + strlen("m64n64k16"));
        pipe_desc d;
        err_info e = {0};
        int rc = desc_parse_yaml(out, strlen(out), "n32.yaml", &d, &e);
        if (k == 0) {
            cr_expect_eq(rc, ERR_BAD_INPUT);
            cr_expect_str_eq(e.rule, "gemm.epilogue", "%s", e.detail);
        } else {
            cr_expect_eq(rc, ERR_OK, "%s", e.detail);
        }
    }
}
