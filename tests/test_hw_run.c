/* tmahw run without a GPU: the kernel generator (hw/run_gen.c), the host
 * reference (hw/run_ref.c) and the trace conversion, checked against facts derived
 * independently of the code (the description's numbers, the PTX ISA's 128B swizzle, the
 * forward placement of sim/tm.h); then the H100 recordings committed under
 * traces/h100/pipelines against the simulator's trace of the same descriptions; and the
 * GPU path itself where a GPU exists (skipped with the reason elsewhere). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The generator and the reference are libc-only C in hw/ (libtmahw). */
#include "pipe.h"
#include "run_gen.h"
#include "run_ref.h"

#ifndef TMAHW_BIN
#define TMAHW_BIN "build/rel/tmahw"
#endif

#define REC_DIR "traces/h100/pipelines"

static void load(const char *name, pipe_desc *d)
{
    char path[256];
    snprintf(path, sizeof path, "examples/%s.yaml", name);
    err_info e = {0};
    cr_assert_eq(desc_load(path, d, &e), ERR_OK, "%s: %s", path, e.detail);
}

static char *source_of(const pipe_desc *d, run_gen_info *g)
{
    err_info e = {0};
    cr_assert_eq(run_gen_prepare(d, g, &e), ERR_OK, "%s", e.detail);
    char *src = NULL;
    cr_assert_eq(run_gen_source(d, g, &src, &e), ERR_OK, "%s", e.detail);
    return src;
}

static void expect_define(const char *src, const char *name, unsigned long long value)
{
    char want[96];
    snprintf(want, sizeof want, "#define %s %llu", name, value);
    const char *at = strstr(src, want);
    cr_expect(at && (at[strlen(want)] == '\n' || at[strlen(want)] == ' ' || at[strlen(want)] == 'u'),
              "generated source lacks '%s'", want);
}

/* ---------------------------------------------------------------- generator */

/* ws4_tma.yaml: 1 producer + 2 consumers, 4 stages, 64 iterations, two f16 boxes of
 * 64 x 128: expect_tx = 2 * 64 * 128 * 2 bytes; full count 1 (the producer's
 * arrive.expect_tx), empty count = 2 consumer warps; MMA 1048576 flops / 4096 per
 * m16n8k16 = 256 instructions; a store every 16 iterations. */
Test(hw_run_gen, ws4_counts_from_the_description)
{
    static pipe_desc d;
    run_gen_info g;
    load("ws4_tma", &d);
    char *src = source_of(&d, &g);
    expect_define(src, "MODE", 0);
    expect_define(src, "NPROD", 1);
    expect_define(src, "NCONS", 2);
    expect_define(src, "STAGES", 4);
    expect_define(src, "ITERS", 64);
    expect_define(src, "FULL_COUNT", 1);
    expect_define(src, "EMPTY_COUNT", 2);
    expect_define(src, "EXPECT_TX", 2ull * 64 * 128 * 2);
    expect_define(src, "MATH_N", 1048576 / (16 * 8 * 16 * 2));
    expect_define(src, "STORE_EVERY", 16);
    expect_define(src, "STAGE_BYTES", 2 * 16384);
    cr_expect(strstr(src, "cp.async.bulk.tensor") != NULL, "TMA loads in the kernel");
    cr_expect(strstr(src, "mbarrier.arrive.expect_tx") != NULL);
    cr_expect(strstr(src, "mma.sync.aligned.m16n8k16") != NULL);
    cr_expect(strstr(src, "extern \"C\" __global__") != NULL);
    free(src);
    run_gen_free(&g);
}

/* The seeded bugs reach the kernel unchanged: the wrong count, the wrong bytes. */
Test(hw_run_gen, seeded_bugs_are_in_the_kernel)
{
    static pipe_desc d;
    run_gen_info g;
    load("bug_expect_tx", &d);
    char *src = source_of(&d, &g);
    expect_define(src, "EXPECT_TX", 8192);   /* the box delivers 64 * 128 * 2 = 16384 */
    free(src);
    run_gen_free(&g);
    load("bug_barrier_count", &d);
    src = source_of(&d, &g);
    expect_define(src, "EMPTY_COUNT", 1);    /* 2 consumer warps arrive */
    expect_define(src, "NCONS", 2);
    free(src);
    run_gen_free(&g);
    load("bug_never_release", &d);
    src = source_of(&d, &g);
    expect_define(src, "NEVER_RELEASE", 1);
    free(src);
    run_gen_free(&g);
    load("bug_parity_lap", &d);
    src = source_of(&d, &g);
    expect_define(src, "PARITY_OFF", 1);
    free(src);
    run_gen_free(&g);
}

/* Multicast over a 2-CTA cluster: every CTA loads half of each box (64 of 128 rows of
 * 128 bytes, 8192 bytes into the second half) and a stage is free when the 2 consumers
 * of both CTAs released it (empty count 4). */
Test(hw_run_gen, multicast_slices_and_counts)
{
    static pipe_desc d;
    run_gen_info g;
    load("cluster2_multicast", &d);
    char *src = source_of(&d, &g);
    expect_define(src, "CLUSTER", 2);
    expect_define(src, "MCAST", 1);
    expect_define(src, "EMPTY_COUNT", 4);
    cr_expect_eq(g.slice_rows[0], 64);
    cr_expect_eq(g.slice_smem[0], 64 * 128);
    cr_expect(strstr(src, ".multicast::cluster") != NULL);
    free(src);
    run_gen_free(&g);
}

/* cp.async: 4 warps each copy a quarter of the 16 KB stage in 16-byte chunks placed as
 * the TMA would place them. PTX ISA 128B swizzle on a 1024-aligned stage: the chunk c
 * (0..7) of row r lands at r * 128 + ((c ^ (r % 8)) * 16). */
Test(hw_run_gen, cpasync_copy_table_is_the_128b_swizzle)
{
    static pipe_desc d;
    run_gen_info g;
    load("cpasync_multistage", &d);
    char *src = source_of(&d, &g);
    expect_define(src, "FULL_COUNT", 4);   /* one .noinc arrival per warp */
    expect_define(src, "CP_CHUNKS", 16384 / 16);
    cr_assert_eq(g.cp_chunks, 1024);
    static int seen[1024];
    memset(seen, 0, sizeof seen);
    for (uint32_t q = 0; q < g.cp_chunks; q++) {
        uint32_t rel = g.cp_tab[q][2], r = rel / 8192, c = (rel % 8192) / 16;   /* row stride 4096 f16 */
        cr_assert_eq(rel % 16, 0);
        cr_assert(r < 128 && c < 8, "chunk %u: global offset %u outside the box", q, rel);
        cr_expect_eq(g.cp_tab[q][1], r * 128 + ((c ^ (r % 8)) * 16), "row %u chunk %u", r, c);
        seen[r * 8 + c]++;
    }
    for (int k = 0; k < 1024; k++)
        cr_assert_eq(seen[k], 1, "box chunk %d copied %d times", k, seen[k]);
    free(src);
    run_gen_free(&g);
}

/* The consumer's read offsets are the access generator's: "cols" with 16 bytes per lane
 * over 128 rows of 128 bytes reads, in instruction q, rows 32q % 128 + lane of column
 * chunk q / 4; swizzled, the chunk index is XORed with row % 8. */
static void cols_offsets(const char *name, int swizzled)
{
    static pipe_desc d;
    run_gen_info g;
    load(name, &d);
    char *src = source_of(&d, &g);
    cr_assert_eq(g.rd_op, BANK_OP_LDS128);
    cr_assert_eq(g.rd_n, 32);
    cr_assert_eq(g.rd_share, 1);
    expect_define(src, "RD_REPEAT", 16);
    for (uint32_t q = 0; q < 32; q++)
        for (uint32_t l = 0; l < 32; l++) {
            uint32_t row = (32 * q + l) % 128, chunk = q / 4;
            uint32_t want = row * 128 + ((swizzled ? chunk ^ (row % 8) : chunk) * 16);
            cr_assert_eq(g.rd_tab[q * 32 + l], want, "%s: instr %u lane %u", name, q, l);
        }
    free(src);
    run_gen_free(&g);
}
Test(hw_run_gen, cols_reads_unswizzled) { cols_offsets("consumer_swizzle_none", 0); }
Test(hw_run_gen, cols_reads_swizzled) { cols_offsets("consumer_swizzle_128b", 1); }

/* No reads described: one conflict-free 16-byte probe per lane over the first 512 bytes. */
Test(hw_run_gen, probe_when_no_reads)
{
    static pipe_desc d;
    run_gen_info g;
    load("streaming", &d);
    char *src = source_of(&d, &g);
    expect_define(src, "RD_PROBE", 1);
    for (uint32_t l = 0; l < 32; l++)
        cr_expect_eq(g.rd_tab[l], 16 * l);
    free(src);
    run_gen_free(&g);
}

Test(hw_run_gen, store_of_other_bytes_is_bad_input)
{
    static const char yaml[] = "name: s\nmode: warp_specialized\ngrid: {ctas: 2, ctas_per_sm: 1}\n"
                               "warps: {producer: 1, consumer: 1}\nstages: 2\niterations: 8\n"
                               "tensors:\n  - name: A\n    dtype: f16\n    dims: [256, 256]\n    box: [64, 32]\n"
                               "store: {bytes: 1024, every: 4}\n";
    static pipe_desc d;
    err_info e = {0};
    /* refused where `tmasim check` refuses it too: one validity (sim/pipe_rules.c) */
    cr_assert_eq(desc_parse_yaml(yaml, sizeof yaml - 1, "s.yaml", &d, &e), ERR_BAD_INPUT);
    cr_expect_str_eq(e.rule, "store_is_box");
    cr_expect(strstr(e.detail, "store.bytes") != NULL, "%s", e.detail);
}

/* The generated source compiles for sm_90a (where nvcc is installed; needs no GPU). */
Test(hw_run_gen, source_compiles_with_nvcc, .timeout = 120)
{
    const char *nvcc = access("/usr/local/cuda/bin/nvcc", X_OK) == 0 ? "/usr/local/cuda/bin/nvcc" : NULL;
    if (!nvcc)
        cr_skip_test("no CUDA toolkit: /usr/local/cuda/bin/nvcc is absent");
    static pipe_desc d;
    run_gen_info g;
    load("cluster2_multicast", &d);
    char *src = source_of(&d, &g);
    char path[64], cmd[512];
    snprintf(path, sizeof path, "/tmp/tmahw_gen_%d.cu", (int)getpid());
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(src, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s -arch=sm_90a -std=c++17 -DTMAHW_RECORD=1 -c %s -o %s.o 2>/dev/null", nvcc, path, path);
    int rc = system(cmd);
    snprintf(cmd, sizeof cmd, "%s.o", path);
    remove(cmd);
    remove(path);
    cr_expect_eq(rc, 0, "nvcc rejected the generated source");
    free(src);
    run_gen_free(&g);
}

/* ---------------------------------------------------------------- reference */

/* The reverse placement (run_ref_sums: which global byte sits at each address read)
 * against the forward one (tm_plan_apply_load builds the stage image; the weighted sum
 * of the kernel is computed from it directly), for one CTA and one iteration. */
static uint32_t image_sum(const run_gen_info *g, const pipe_desc *d, const uint8_t *tensor, uint64_t size, uint32_t id,
                          uint32_t chunk)
{
    tm_desc map = d->tensors[g->rd_tensor].map;
    map.global_address = 0;
    tm_copy c = {.smem_address = d->smem_base + d->tensors[g->rd_tensor].smem_offset};
    run_gen_tile_coords(d, g, g->rd_tensor, id, c.coords);
    tm_plan p;
    cr_assert_eq(tm_plan_copy(&map, &c, &p, NULL), ERR_OK);
    uint8_t *img = calloc(1, p.footprint_bytes);
    cr_assert_eq(tm_plan_apply_load(&p, tensor, size, img, p.footprint_bytes, NULL), ERR_OK);
    uint32_t regs = g->rd_op == BANK_OP_LDS128 ? 4 : g->rd_op == BANK_OP_LDS64 ? 2 : 1, s = 0;
    for (uint32_t q = 0; q < g->rd_n; q++)
        for (uint32_t l = 0; l < 32; l++)
            for (uint32_t j = 0; j < regs; j++) {
                uint32_t a = g->rd_tab[(chunk * g->rd_n + q) * 32 + l] + 4 * j + (c.smem_address - p.footprint_start), v;
                memcpy(&v, img + a, 4);
                s += v * (((q * 32 + l) * 4) * 2 + 1 + 2 * j);
            }
    free(img);
    return s * g->rd_repeat;
}

static void sums_agree(const char *name)
{
    static pipe_desc d;
    run_gen_info g;
    load(name, &d);
    d.ctas = d.cluster;   /* one CTA (or cluster), one iteration */
    d.iterations = 1;
    err_info e = {0};
    cr_assert_eq(run_gen_prepare(&d, &g, &e), ERR_OK, "%s", e.detail);
    uint32_t t = g.rd_tensor;
    uint64_t size = run_ref_tensor_bytes(&d.tensors[t].map);
    uint8_t *buf = malloc(size);
    run_ref_fill(buf, size, t);
    const uint8_t *tens[DESC_MAX_TENSORS] = {0};
    uint64_t sizes[DESC_MAX_TENSORS] = {0};
    tens[t] = buf;
    sizes[t] = size;
    uint32_t sums[64] = {0};
    cr_assert_eq(run_ref_sums(&d, &g, tens, sizes, sums, &e), ERR_OK, "%s", e.detail);
    if (d.producer_warps)
        cr_expect_eq(sums[0], 0, "the producer warp reads nothing");
    for (uint32_t w = d.producer_warps; w < g.nwarps; w++) {
        uint32_t src = d.mode == PIPE_STASYNC ? 1 : 0;
        uint32_t want = image_sum(&g, &d, buf, size, run_gen_tile_id(&d, src, 0) % g.ntiles[t], (w - d.producer_warps) % g.rd_share);
        cr_expect_eq(sums[w], want, "%s warp %u: 0x%08x vs forward placement 0x%08x", name, w, sums[w], want);
    }
    free(buf);
    run_gen_free(&g);
}
Test(hw_run_ref, sums_swizzled_rows) { sums_agree("ws4_tma"); }
Test(hw_run_ref, sums_unswizzled_cols) { sums_agree("consumer_swizzle_none"); }
Test(hw_run_ref, sums_warpgroup_share) { sums_agree("double_buffer"); }

/* Every 8-byte word of a filled tensor differs from its neighbours (no accidental
 * checksum collisions from repeated data). */
Test(hw_run_ref, fill_words_distinct)
{
    uint8_t buf[8 * 1024];
    run_ref_fill(buf, sizeof buf, 0);
    for (size_t w = 1; w < sizeof buf / 8; w++)
        cr_assert(memcmp(buf + 8 * w, buf + 8 * (w - 1), 8) != 0, "word %zu", w);
}

/* Raw records -> trace: a non-blocked wait is not an event (the simulator records only
 * stalls); a TMA issue is an issue plus a flight that ends when the CTA's first consumer
 * saw the stage full; a release to cluster rank 1 is an event of CTA 1 marked remote. */
Test(hw_run_ref, raw_records_to_events)
{
    static pipe_desc d;
    run_gen_info g;
    load("cluster2_multicast", &d);
    d.ctas = 2;
    err_info e = {0};
    cr_assert_eq(run_gen_prepare(&d, &g, &e), ERR_OK, "%s", e.detail);
    size_t nw = (size_t)d.ctas * g.nwarps;
    run_raw_ev *ev = calloc(nw * g.ev_cap, sizeof *ev);
    uint32_t evn[8] = {0}, sm[2] = {5, 9};
    uint64_t ct[8] = {1000000, 0, 1002000, 2000, 1000000, 0, 1002000, 2000};   /* 1 ns per cycle */
    /* CTA 0 producer (warp 0): issue of tensor 0 at cycle 100, iteration 0 */
    ev[0] = (run_raw_ev){.t = 100, .iter = 0, .kind_flags = 0, .stage = 0, .aux = 0};
    evn[0] = 1;
    /* CTA 0 consumer warp 1: wait on full[0] 150..400 (blocked), then a non-blocked one,
     * then a release of iteration 0 to cluster rank 1 */
    run_raw_ev *w1 = ev + 1 * g.ev_cap;
    w1[0] = (run_raw_ev){.t = 150, .dur = 250, .iter = 0, .kind_flags = 6 | (RUN_EVF_BLOCKED | RUN_EVF_FULL) << 4};
    w1[1] = (run_raw_ev){.t = 500, .dur = 5, .iter = 1, .kind_flags = 6 | RUN_EVF_FULL << 4, .stage = 1};
    w1[2] = (run_raw_ev){.t = 600, .iter = 0, .kind_flags = 9, .stage = 0, .aux = 1};
    evn[1] = 3;
    run_raw raw = {ev, evn, ct, sm, 1000000, 0, g.ev_cap, g.nwarps, 0};
    trace tr;
    trace_init(&tr, TRACE_SRC_HW);
    uint32_t over = 9;
    cr_assert_eq(run_ref_trace(&d, &raw, &tr, &over, &e), ERR_OK, "%s", e.detail);
    cr_expect_eq(over, 0);
    cr_assert_eq(tr.count, 4, "issue, flight, one wait, release: got %zu", tr.count);
    int kinds = 0;
    for (size_t k = 0; k < tr.count; k++) {
        const trace_event *x = &tr.events[k];
        cr_expect_eq(x->source, TRACE_SRC_HW);
        if (x->kind == TRACE_TMA_FLIGHT) {
            cr_expect_eq(x->t_ns, 100);
            cr_expect_eq(x->dur_ns, 300, "flight ends at the wait's end (400)");
            cr_expect_eq(x->bytes, 16384 / 2, "a multicast slice");
            kinds |= 1;
        } else if (x->kind == TRACE_WAIT) {
            cr_expect_eq(x->t_ns, 150);
            cr_expect_eq(x->dur_ns, 250);
            cr_expect_eq(x->barrier, 0);
            cr_expect(x->flags & TRACE_FLAG_FULL_BARRIER);
            cr_expect_eq(x->sm, 5);
            kinds |= 2;
        } else if (x->kind == TRACE_RELEASE) {
            cr_expect_eq(x->cta, 1);
            cr_expect_eq(x->warp, 1);
            cr_expect_eq(x->barrier, d.stages + 0);
            cr_expect(x->flags & TRACE_FLAG_REMOTE);
            kinds |= 4;
        }
    }
    cr_expect_eq(kinds, 7);
    /* overflow: a warp that wrote more than its buffer holds */
    evn[2] = g.ev_cap + 5;
    trace tr2;
    trace_init(&tr2, TRACE_SRC_HW);
    cr_assert_eq(run_ref_trace(&d, &raw, &tr2, &over, &e), ERR_OK);
    cr_expect_eq(over, 1);
    cr_expect(tr2.truncated, "an overflow flags the trace incomplete");
    /* a warp the kernel's rings had no room for: counted with the overflows */
    evn[2] = 0;
    evn[3] = RUN_EVN_UNRECORDED;
    trace tr3;
    trace_init(&tr3, TRACE_SRC_HW);
    cr_assert_eq(run_ref_trace(&d, &raw, &tr3, &over, &e), ERR_OK);
    cr_expect_eq(over, 1);
    cr_expect(tr3.truncated);
    trace_free(&tr3);
    trace_free(&tr);
    trace_free(&tr2);
    free(ev);
    run_gen_free(&g);
}

/* A commit-group step written as one record (its clocks as read, a flag per wait that
 * blocked) converts to the events of the wait_group, bar.sync and issue records it
 * replaces: the stalls only, and no issue past the last iteration. */
Test(hw_run_ref, group_step_record_converts_like_its_three_records)
{
    static pipe_desc d;
    run_gen_info g;
    load("cpasync_wait_prior", &d);
    d.ctas = 1;
    err_info e = {0};
    cr_assert_eq(run_gen_prepare(&d, &g, &e), ERR_OK, "%s", e.detail);
    cr_assert(d.cpasync_groups);
    const uint32_t S = d.stages, its[] = {0, 1, 2, d.iterations - 3, d.iterations - 1};
    run_raw_ev *a = calloc((size_t)g.nwarps * g.ev_cap, sizeof *a), *b = calloc((size_t)g.nwarps * g.ev_cap, sizeof *b);
    uint32_t na[8] = {0}, nb[8] = {0}, sm[1] = {3};
    uint64_t ct[4] = {1000000, 0, 1900000, 900000};   /* 1 ns per cycle */
    for (uint32_t k = 0; k < 5; k++) {
        const uint32_t i = its[k], j = i + S - 1, t0 = 1000 + 5000 * k;
        const uint32_t t1 = t0 + (k % 2 ? 50u : 300u), t2 = t1 + (k == 2 || k == 4 ? 450u : 20u);
        const int w_blk = t1 - t0 > 200, b_blk = t2 - t1 > 200;
        if (w_blk)
            a[na[1]++ + g.ev_cap] = (run_raw_ev){.t = t0, .dur = t1 - t0, .iter = i,
                                                 .kind_flags = 6 | (RUN_EVF_FULL | RUN_EVF_BLOCKED) << 4};
        if (b_blk)
            a[na[1]++ + g.ev_cap] = (run_raw_ev){.t = t1, .dur = t2 - t1, .iter = i,
                                                 .kind_flags = 6 | RUN_EVF_BLOCKED << 4, .aux = 1};
        if (j < d.iterations)
            a[na[1]++ + g.ev_cap] = (run_raw_ev){.t = t2, .iter = j, .kind_flags = 10};
        b[nb[1]++ + g.ev_cap] = (run_raw_ev){
            .t = t0, .dur = t1, .iter = t2,
            .kind_flags = (uint8_t)(RUN_KIND_GROUP_STEP_CLK | ((w_blk ? RUN_EVF_BLOCKED : 0u) |
                                                               (b_blk ? RUN_EVF_BAR_BLOCKED : 0u)) << 4),
            .stage = (uint8_t)i, .barrier = (uint8_t)(i >> 8), .aux = (uint8_t)(i >> 16)};
    }
    cr_assert_eq(na[1], 9, "3 blocked wait_groups, 2 blocked bar.syncs, 4 issues");
    run_raw ra = {a, na, ct, sm, 1000000, 0, g.ev_cap, g.nwarps, 0}, rb = {b, nb, ct, sm, 1000000, 0, g.ev_cap, g.nwarps, 0};
    trace ta, tb;
    trace_init(&ta, TRACE_SRC_HW);
    trace_init(&tb, TRACE_SRC_HW);
    uint32_t over = 9;
    cr_assert_eq(run_ref_trace(&d, &ra, &ta, &over, &e), ERR_OK, "%s", e.detail);
    cr_assert_eq(run_ref_trace(&d, &rb, &tb, &over, &e), ERR_OK, "%s", e.detail);
    cr_expect_eq(over, 0);
    cr_assert_eq(ta.count, 13, "5 stalls, 4 issues with their flights: got %zu", ta.count);
    cr_assert_eq(tb.count, ta.count);
    for (size_t k = 0; k < ta.count; k++)
        cr_expect(memcmp(&ta.events[k], &tb.events[k], sizeof(trace_event)) == 0,
                  "event %zu: kind %u at %lld (+%u) against kind %u at %lld (+%u)", k, ta.events[k].kind,
                  (long long)ta.events[k].t_ns, ta.events[k].dur_ns, tb.events[k].kind, (long long)tb.events[k].t_ns,
                  tb.events[k].dur_ns);
    trace_free(&ta);
    trace_free(&tb);
    free(a);
    free(b);
    run_gen_free(&g);
}

/* ---------------------------------------------------------------- H100 recordings */

typedef struct key {
    uint16_t cta;
    uint8_t warp, kind, stage;
    uint32_t iteration;
} key;

static int key_cmp(const void *a, const void *b)
{
    const key *x = a, *y = b;
    if (x->cta != y->cta)
        return x->cta - y->cta;
    if (x->warp != y->warp)
        return x->warp - y->warp;
    if (x->kind != y->kind)
        return x->kind - y->kind;
    if (x->stage != y->stage)
        return x->stage - y->stage;
    return x->iteration < y->iteration ? -1 : x->iteration > y->iteration;
}

/* Distinct keys of warp events (no TMA-unit events: the hardware has no instruction to
 * observe them) and no waits (a wait is an event only when the warp stalled, which
 * depends on timing), CTAs below max_cta. */
static size_t keys_of(const trace *t, uint32_t max_cta, key **out)
{
    key *k = malloc(sizeof *k * (t->count + 1));
    size_t n = 0;
    for (size_t i = 0; i < t->count; i++) {
        const trace_event *e = &t->events[i];
        if (e->warp == 0xff || e->kind == TRACE_WAIT || e->cta >= max_cta)
            continue;
        k[n++] = (key){e->cta, e->warp, e->kind, e->stage, e->iteration};
    }
    qsort(k, n, sizeof *k, key_cmp);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (m == 0 || key_cmp(&k[i], &k[m - 1]))
            k[m++] = k[i];
    *out = k;
    return m;
}

static int recorded(const char *name, trace *hw)
{
    char path[256];
    snprintf(path, sizeof path, REC_DIR "/%s.tmt", name);
    if (access(path, R_OK) != 0)
        return 0;
    err_info e = {0};
    cr_assert_eq(trace_read(path, hw, &e), ERR_OK, "%s", e.detail);
    return 1;
}

static void same_keys_as_sim(const char *name)
{
    trace hw;
    if (!recorded(name, &hw))
        cr_skip_test("no H100 recording of %s under " REC_DIR, name);
    cr_expect_eq(hw.source, TRACE_SRC_HW);
    cr_expect(strstr(hw.gpu, "H100") != NULL, "gpu '%s'", hw.gpu);
    cr_expect(hw.kernel_ns > 0);
    cr_expect(!hw.truncated, "the recording overflowed");
    const char *n = strstr(hw.note, "CTAs traced ");
    cr_assert_not_null(n, "note '%s' names the traced CTAs", hw.note);
    unsigned traced = 0, all = 0;
    cr_assert_eq(sscanf(n, "CTAs traced %u/%u", &traced, &all), 2);
    static pipe_desc d;
    load(name, &d);
    cr_expect_eq(all, d.ctas);
    trace sim;
    trace_init(&sim, TRACE_SRC_SIM);
    pipe_opts o = {.out = &sim};
    pipe_result r;
    err_info e = {0};
    cr_assert_eq(pipe_run(&d, &o, &r, &e), ERR_OK, "%s", e.detail);
    key *a, *b;
    size_t na = keys_of(&hw, traced, &a), nb = keys_of(&sim, traced, &b);
    cr_expect_gt(na, 0);
    size_t i = 0, j = 0, miss = 0, extra = 0;
    key first = {0};
    while (i < na || j < nb) {
        int c = i < na && j < nb ? key_cmp(&a[i], &b[j]) : i < na ? -1 : 1;
        if (c == 0) {
            i++;
            j++;
        } else if (c < 0) {
            if (!extra++ && !miss)
                first = a[i];
            i++;
        } else {
            if (!miss++ && !extra)
                first = b[j];
            j++;
        }
    }
    cr_expect(miss == 0 && extra == 0,
              "%s: %zu simulator keys missing from the H100 trace, %zu extra (first: cta %u warp %u %s stage %u iteration %u)",
              name, miss, extra, first.cta, first.warp, trace_kind_name((trace_kind)first.kind), first.stage,
              first.iteration);
    free(a);
    free(b);
    trace_free(&sim);
    trace_free(&hw);
}

Test(hw_run_rec, ws4_tma_keys) { same_keys_as_sim("ws4_tma"); }
Test(hw_run_rec, double_buffer_keys) { same_keys_as_sim("double_buffer"); }
Test(hw_run_rec, cpasync_multistage_keys) { same_keys_as_sim("cpasync_multistage"); }
Test(hw_run_rec, cpasync_wait_prior_keys) { same_keys_as_sim("cpasync_wait_prior"); }
Test(hw_run_rec, cluster2_multicast_keys) { same_keys_as_sim("cluster2_multicast"); }
Test(hw_run_rec, stasync_cluster_keys) { same_keys_as_sim("stasync_cluster"); }
Test(hw_run_rec, swizzle_128b_keys) { same_keys_as_sim("consumer_swizzle_128b"); }
Test(hw_run_rec, swizzle_none_keys) { same_keys_as_sim("consumer_swizzle_none"); }
Test(hw_run_rec, memory_bound_keys) { same_keys_as_sim("memory_bound"); }
Test(hw_run_rec, compute_bound_keys) { same_keys_as_sim("compute_bound"); }
Test(hw_run_rec, full_grid_keys) { same_keys_as_sim("full_grid"); }
Test(hw_run_rec, splitk_reduce_keys) { same_keys_as_sim("splitk_reduce"); }
Test(hw_run_rec, streaming_keys) { same_keys_as_sim("streaming"); }

/* A hang: the recording holds a wait stopped by the watchdog (timeout flag) of about
 * the watchdog's 200 ms, on the barrier kind the simulator's deadlock names. */
static void hang_recorded(const char *name)
{
    trace hw;
    if (!recorded(name, &hw))
        cr_skip_test("no H100 recording of %s under " REC_DIR, name);
    size_t timeouts = 0;
    for (size_t i = 0; i < hw.count; i++)
        if (hw.events[i].kind == TRACE_WAIT && (hw.events[i].flags & TRACE_FLAG_TIMEOUT)) {
            timeouts++;
            cr_expect_geq(hw.events[i].dur_ns, 200000000u, "a watchdog wait lasts the 200 ms deadline");
        }
    cr_expect_gt(timeouts, 0, "%s: no timeout-flagged wait in the H100 trace", name);
    cr_expect_geq(hw.kernel_ns, 200000000, "the hung kernel ran until the watchdog");
    trace_free(&hw);
}
Test(hw_run_rec, bug_never_release_hangs) { hang_recorded("bug_never_release"); }
Test(hw_run_rec, bug_expect_tx_hangs) { hang_recorded("bug_expect_tx"); }
Test(hw_run_rec, bug_barrier_count_hangs) { hang_recorded("bug_barrier_count"); }
Test(hw_run_rec, bug_parity_lap_hangs) { hang_recorded("bug_parity_lap"); }
Test(hw_run_rec, bug_full_count_hangs) { hang_recorded("bug_full_count"); }
Test(hw_run_rec, bug_phase_lap_hangs) { hang_recorded("bug_phase_lap"); }

/* The recording's side files: meta.json names GPU, driver and date. */
Test(hw_run_rec, meta_names_gpu_driver_date)
{
    FILE *f = fopen(REC_DIR "/meta.json", "r");
    if (!f)
        cr_skip_test("no H100 recording under " REC_DIR);
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    cr_expect(strstr(buf, "\"gpu\":\"NVIDIA H100") != NULL, "%s", buf);
    cr_expect(strstr(buf, "\"driver\":\"") != NULL);
    cr_expect(strstr(buf, "\"date\":\"20") != NULL);
}

/* ---------------------------------------------------------------- GPU */

static int need_gpu(void)
{
    if (access("/dev/nvidia0", F_OK) != 0)
        cr_skip_test("no NVIDIA GPU: /dev/nvidia0 is absent");
    if (access(TMAHW_BIN, X_OK) != 0)
        cr_skip_test("no NVIDIA GPU tooling: %s is not built (needs nvcc)", TMAHW_BIN);
    return 1;
}

static int tmahw_run(const char *args, char *out, size_t size)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s run %s 2>&1", TMAHW_BIN, args);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    size_t n = fread(out, 1, size - 1, p);
    out[n] = 0;
    int st = pclose(p);
    int rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
    if (rc == 2 && strstr(out, "no usable GPU"))
        cr_skip_test("no NVIDIA GPU: %s", out);
    return rc;
}

Test(hw_run_gpu, ws4_tma_runs_correct, .timeout = 120)
{
    need_gpu();
    static char out[16384];
    int rc = tmahw_run("examples/ws4_tma.yaml -o /tmp/tmahw_test_ws4.tmt --no-counters --reps 2 --format json", out,
                       sizeof out);
    cr_expect_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "\"correct\":true") != NULL, "%s", out);
    remove("/tmp/tmahw_test_ws4.tmt");
}

Test(hw_run_gpu, never_release_is_a_hang_not_a_hung_tool, .timeout = 120)
{
    need_gpu();
    static char out[16384];
    int rc = tmahw_run("examples/bug_never_release.yaml -o /tmp/tmahw_test_bnr.tmt --no-counters", out, sizeof out);
    cr_expect_eq(rc, 1, "%s", out);
    cr_expect(strstr(out, "HANG") && strstr(out, "waits empty["), "%s", out);
    remove("/tmp/tmahw_test_bnr.tmt");
}

Test(hw_run_cli, bad_input_is_one_line_exit_2)
{
    if (access(TMAHW_BIN, X_OK) != 0)
        cr_skip_test("%s is not built (needs nvcc)", TMAHW_BIN);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s run examples/ws4_tma.yaml -o /tmp/x.tmt --format xml 2>&1", TMAHW_BIN);
    FILE *p = popen(cmd, "r");
    char out[1024];
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = 0;
    int st = pclose(p);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
        cr_skip_test("tmahw cannot start here (no CUDA driver library): %s", out);
    cr_expect_eq(WEXITSTATUS(st), 2, "%s", out);
    cr_expect(strstr(out, "--format") && strstr(out, "allowed table, json, csv"), "%s", out);
    cr_expect_eq(strchr(out, '\n'), out + strlen(out) - 1, "one line: %s", out);
}

/* ---------------------------------------------------------------- calibrate */

Test(hw_run_cli, calibrate_bad_flags_are_one_line_exit_2)
{
    if (access(TMAHW_BIN, X_OK) != 0)
        cr_skip_test("%s is not built (needs nvcc)", TMAHW_BIN);
    const char *bad[] = {"--only nosuch", "--format xml", "-o /nonexistent/dir/x.params", "--frobnicate"};
    const char *want[] = {"'--only'", "'--format'", "-o", "--frobnicate"};
    for (int k = 0; k < 4; k++) {
        char cmd[512], out[2048];
        snprintf(cmd, sizeof cmd, "%s calibrate %s 2>&1", TMAHW_BIN, bad[k]);
        FILE *p = popen(cmd, "r");
        size_t n = fread(out, 1, sizeof out - 1, p);
        out[n] = 0;
        int st = pclose(p);
        if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
            cr_skip_test("tmahw cannot start here (no CUDA driver library): %s", out);
        cr_expect_eq(WEXITSTATUS(st), 2, "%s: %s", bad[k], out);
        cr_expect(strstr(out, want[k]) != NULL, "%s: %s", bad[k], out);
        cr_expect_eq(strchr(out, '\n'), out + strlen(out) - 1, "one line: %s", out);
    }
}

Test(hw_run_gpu, calibrate_writes_a_parameter_file_the_simulator_loads, .timeout = 300)
{
    need_gpu();
    const char *path = "/tmp/tmahw_test_calib.params";
    char cmd[512], out[8192];
    snprintf(cmd, sizeof cmd, "%s calibrate --only clock,mbarrier,clusters -o %s 2>&1", TMAHW_BIN, path);
    FILE *p = popen(cmd, "r");
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = 0;
    int st = pclose(p);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 2 && strstr(out, "no GPU"))
        cr_skip_test("no NVIDIA GPU: %s", out);
    cr_expect_eq(WEXITSTATUS(st), 0, "%s", out);
    pipe_params prm;
    err_info e = {0};
    cr_assert_eq(params_for_gpu(path, &prm, &e), ERR_OK, "%s", e.detail);
    cr_expect(prm.clock_ghz > 1.0 && prm.clock_ghz < 2.5, "clock %g GHz", prm.clock_ghz);
    cr_expect(prm.wake_ns > 1 && prm.wake_ns < 1000, "wake %g ns", prm.wake_ns);
    cr_expect(prm.clusters16_at1 >= 1, "clusters of 16 resident: %g", prm.clusters16_at1);
    remove(path);
}
