/* GEMM descriptions (math kind wgmma): what pipe_gemm derives, the findings, the generated
 * source and the trace conversion of the runner's events. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "desc.h"
#include "gemm_exec.h"
#include "gemm_gen.h"
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
