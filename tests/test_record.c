/* The recording header (hw/record.cuh) and its host side (hw/record.h): raw launch
 * files, the conversion of records into trace events (with and without a description),
 * overflow reports; the header compiled by nvcc and by NVRTC for sm_90a (where the CUDA
 * toolkit is installed; no GPU needed); the committed recording of the hand-written
 * kernel (examples/hand_tma.cu) against the simulation of its description; and, where a
 * GPU exists, the kernel run with and without the header, same results. */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pipe.h"
#include "pipe_plan.h"
#include "record.h"

#ifndef TMASIM_REL_BIN
#define TMASIM_REL_BIN "build/rel/tmasim"
#endif
#ifndef TMAHW_BIN
#define TMAHW_BIN "build/rel/tmahw"
#endif
#define NVCC "/usr/local/cuda/bin/nvcc"
#define HAND_REC "traces/h200/hand_tma/hand_tma.tmt"

/* A launch of 2 CTAs x 5 warps (hand_tma's warps), 8 records per warp, 1 ns per cycle:
 * CTA c starts at globaltimer 1000000 + c, clock 0. */
static void launch_init(rec_launch *l, uint32_t ctas)
{
    memset(l, 0, sizeof *l);
    snprintf(l->kernel, sizeof l->kernel, "_Z6rowsum14CUtensorMap_stPf");
    snprintf(l->gpu, sizeof l->gpu, "NVIDIA H200");
    l->driver_version = 13000;
    l->grid[0] = ctas, l->grid[1] = l->grid[2] = 1;
    l->block[0] = 160, l->block[1] = l->block[2] = 1;
    l->ctas = ctas;
    l->nwarps = 5;
    l->cap = l->stride = 8;
    l->gt_offset = REC_NO_OFFSET;
    err_info e = {0};
    cr_assert_eq(rec_launch_alloc(l, &e), ERR_OK, "%s", e.detail);
    for (uint32_t c = 0; c < ctas; c++) {
        l->cta_time[4 * c + 0] = 1000000;
        l->cta_time[4 * c + 1] = 0;
        l->cta_time[4 * c + 2] = 1100000;
        l->cta_time[4 * c + 3] = 100000;
        l->cta_sm[c] = 10 + c;
    }
}

static run_raw_ev rec(uint32_t kind, uint32_t flags, uint32_t t, uint32_t dur, uint32_t iter, uint32_t hi)
{
    run_raw_ev r = {.t = t, .dur = dur, .iter = iter, .kind_flags = (uint8_t)(kind | flags << 4),
                    .stage = (uint8_t)hi, .barrier = (uint8_t)(hi >> 8), .aux = (uint8_t)(hi >> 16)};
    return r;
}

/* CTA 0: the producer's produced stage 0 at cycle 100 (copy issued at 130); consumer warp
 * 1's stalled wait on full[0] 150..400, its consumed stage (read 400..500, math 500..800)
 * and its release at 800. */
static void fill_cta0(rec_launch *l)
{
    l->ev[0] = rec(RUN_KIND_PRODUCED, 0, 100, 30, 0, 0);
    l->evn[0] = 1;
    run_raw_ev *w1 = l->ev + 1 * l->stride;
    w1[0] = rec(TRACE_WAIT, RUN_EVF_BLOCKED | RUN_EVF_FULL, 150, 250, 0, 0);
    w1[1] = rec(RUN_KIND_CONSUMED, 0, 400, 100, 0, 300);
    w1[2] = rec(TRACE_RELEASE, 0, 800, 0, 0, 0);
    l->evn[1] = 3;
}

static const trace_event *find(const trace *t, uint8_t kind, uint8_t warp)
{
    for (size_t k = 0; k < t->count; k++)
        if (t->events[k].kind == kind && t->events[k].warp == warp)
            return &t->events[k];
    return NULL;
}

static void load_hand(pipe_desc *d)
{
    err_info e = {0};
    cr_assert_eq(desc_load("examples/hand_tma.yaml", d, &e), ERR_OK, "%s", e.detail);
}

/* With the description: the simulator's numbering and bytes; the copy's flight ends where
 * the consumer's stalled wait ends; the consumed record is a read, a math and (flagged) the
 * release at the math's end. */
Test(record, records_to_events_with_the_description)
{
    static pipe_desc d;
    load_hand(&d);
    d.ctas = 2;
    rec_launch l;
    launch_init(&l, 2);
    fill_cta0(&l);
    /* the consumed record carries the release (at the math's end, 800) */
    l.ev[1 * l.stride + 1] = rec(RUN_KIND_CONSUMED, RUN_EVF_RELEASED, 400, 100, 0, 300);
    l.evn[1] = 2;
    trace tr;
    trace_init(&tr, TRACE_SRC_HW);
    rec_summary s;
    err_info e = {0};
    cr_assert_eq(rec_to_trace(&l, &d, "name: x\n", 8, 0, &tr, &s, &e), ERR_OK, "%s", e.detail);
    cr_expect_eq(s.overflowed, 0);
    cr_expect_eq(s.records, 3);
    cr_expect(!tr.truncated);
    cr_expect_eq(tr.count, 7, "expect_tx, issue, flight, wait, read, math, release: %zu", tr.count);
    const trace_event *x = find(&tr, TRACE_BAR_EXPECT_TX, 0);
    cr_assert_not_null(x);
    cr_expect_eq(x->t_ns, 100);
    cr_expect_eq(x->bytes, 16384);
    x = find(&tr, TRACE_TMA_ISSUE, 0);
    cr_assert_not_null(x);
    cr_expect_eq(x->t_ns, 130, "the copy was issued 30 cycles after the expect_tx");
    x = find(&tr, TRACE_TMA_FLIGHT, 0);
    cr_assert_not_null(x);
    cr_expect_eq(x->t_ns + x->dur_ns, 400, "the flight ends where the consumer's wait ended");
    x = find(&tr, TRACE_WAIT, 1);
    cr_assert_not_null(x);
    cr_expect_eq(x->dur_ns, 250);
    cr_expect_eq(x->barrier, 0);
    cr_expect_eq(x->sm, 10);
    x = find(&tr, TRACE_SMEM_READ, 1);
    cr_assert_not_null(x);
    cr_expect_eq(x->t_ns, 400);
    cr_expect_eq(x->dur_ns, 100);
    cr_expect_eq(x->role, TRACE_ROLE_CONSUMER);
    x = find(&tr, TRACE_MATH, 1);
    cr_assert_not_null(x);
    cr_expect_eq(x->t_ns, 500);
    cr_expect_eq(x->dur_ns, 300);
    x = find(&tr, TRACE_RELEASE, 1);
    cr_assert_not_null(x);
    cr_expect_eq(x->t_ns, 800);
    cr_expect_eq(x->cta, 0);
    cr_expect_eq(x->barrier, d.stages + 0);
    cr_expect(tr.desc_text && !strcmp(tr.desc_text, "name: x\n"), "the trace carries the description");
    trace_free(&tr);
    /* another grid than the description's is bad input naming the field */
    d.ctas = 3;
    trace_init(&tr, TRACE_SRC_HW);
    cr_expect_eq(rec_to_trace(&l, &d, NULL, 0, 0, &tr, &s, &e), ERR_BAD_INPUT);
    cr_expect_str_eq(e.rule, "grid.ctas");
    trace_free(&tr);
    rec_launch_free(&l);
}

/* Without a description: the records' own stage and barrier, roles from what each warp
 * recorded; overflowed and unrecorded warps are counted and flag the trace incomplete. */
Test(record, records_to_events_without_a_description)
{
    rec_launch l;
    launch_init(&l, 2);
    fill_cta0(&l);
    l.ev[1 * l.stride + 2] = rec(TRACE_RELEASE, 0, 800, 0, 0, 2u | 6u << 8);   /* stage 2, barrier 6 */
    l.evn[2] = 9;                     /* more than cap 8 */
    l.evn[3] = RUN_EVN_UNRECORDED;    /* beyond the kernel's TMASCOPE_WARPS */
    trace tr;
    trace_init(&tr, TRACE_SRC_HW);
    rec_summary s;
    err_info e = {0};
    cr_assert_eq(rec_to_trace(&l, NULL, NULL, 0, 0, &tr, &s, &e), ERR_OK, "%s", e.detail);
    cr_expect_eq(s.overflowed, 1);
    cr_expect_eq(s.unrecorded, 1);
    cr_expect(tr.truncated, "overflow and unrecorded warps flag the trace incomplete");
    const trace_event *x = find(&tr, TRACE_RELEASE, 1);
    cr_assert_not_null(x);
    cr_expect_eq(x->stage, 2);
    cr_expect_eq(x->barrier, 6);
    x = find(&tr, TRACE_TMA_ISSUE, 0);
    cr_assert_not_null(x);
    cr_expect_eq(x->role, TRACE_ROLE_PRODUCER);
    cr_expect_eq(find(&tr, TRACE_MATH, 1)->role, TRACE_ROLE_CONSUMER);
    trace_free(&tr);
    rec_launch_free(&l);
}

/* CTA 0 of fill_cta0 as the header writes it now: the produced and consumed stages as
 * their clocks (kinds 14, 15), the stall with its end clock. */
static void fill_cta0_clocks(rec_launch *l)
{
    l->ev[0] = rec(RUN_KIND_PRODUCED_CLK, 0, 100, 130, 130, 0);
    l->evn[0] = 1;
    run_raw_ev *w1 = l->ev + 1 * l->stride;
    w1[0] = rec(TRACE_WAIT, RUN_EVF_BLOCKED | RUN_EVF_FULL | RUN_EVF_END_CLOCK, 150, 400, 0, 0);
    w1[1] = rec(RUN_KIND_CONSUMED_CLK, 0, 400, 500, 800, 0);
    w1[2] = rec(TRACE_RELEASE, 0, 800, 0, 0, 0);
    l->evn[1] = 3;
}

static void convert(const rec_launch *l, const pipe_desc *d, trace *tr)
{
    rec_summary s;
    err_info e = {0};
    trace_init(tr, TRACE_SRC_HW);
    cr_assert_eq(rec_to_trace(l, d, NULL, 0, 0, tr, &s, &e), ERR_OK, "%s", e.detail);
}

static void expect_same_events(const trace *a, const trace *b)
{
    cr_assert_eq(a->count, b->count);
    for (size_t k = 0; k < a->count; k++) {
        const trace_event *x = &a->events[k], *y = &b->events[k];
        cr_expect(x->t_ns == y->t_ns && x->dur_ns == y->dur_ns && x->kind == y->kind && x->warp == y->warp &&
                      x->stage == y->stage && x->barrier == y->barrier && x->iteration == y->iteration &&
                      x->flags == y->flags && x->bytes == y->bytes && x->role == y->role,
                  "event %zu: kind %u at %lld (+%u) against kind %u at %lld (+%u)", k, x->kind, (long long)x->t_ns,
                  x->dur_ns, y->kind, (long long)y->t_ns, y->dur_ns);
    }
}

/* The records the header writes (clocks as read; a stall's end clock) convert to the same
 * events as the same stages recorded with durations, with and without a description. */
Test(record, clock_records_convert_like_duration_records)
{
    static pipe_desc d;
    load_hand(&d);
    d.ctas = 2;
    rec_launch a, b;
    launch_init(&a, 2);
    launch_init(&b, 2);
    fill_cta0(&a);
    fill_cta0_clocks(&b);
    for (int with = 0; with < 2; with++) {
        trace ta, tb;
        convert(&a, with ? &d : NULL, &ta);
        convert(&b, with ? &d : NULL, &tb);
        cr_expect_gt(ta.count, 5);
        expect_same_events(&ta, &tb);
        trace_free(&ta);
        trace_free(&tb);
    }
    rec_launch_free(&a);
    rec_launch_free(&b);
    /* the iteration's 24 bits; the second duration clamped to 24 bits, as the older records
     * were; a stall never closed (its end clock still 0) lasts 0 cycles */
    run_raw_ev n = run_raw_norm(&(run_raw_ev){.t = 0xfffffff0u, .dur = 0x10u, .iter = 0x02000010u,
                                              .kind_flags = RUN_KIND_CONSUMED_CLK | RUN_EVF_RELEASED << 4,
                                              .stage = 0x56, .barrier = 0x34, .aux = 0x12});
    cr_expect_eq(n.kind_flags, RUN_KIND_CONSUMED | RUN_EVF_RELEASED << 4);
    cr_expect_eq(n.t, 0xfffffff0u);
    cr_expect_eq(n.dur, 0x20u, "the read across the clock's wrap");
    cr_expect_eq(n.iter, 0x123456u);
    cr_expect(n.stage == 0xff && n.barrier == 0xff && n.aux == 0xff, "the math's 0x2000000 cycles clamped");
    n = run_raw_norm(&(run_raw_ev){.t = 500, .kind_flags = TRACE_WAIT | (RUN_EVF_BLOCKED | RUN_EVF_END_CLOCK) << 4});
    cr_expect_eq(n.dur, 0);
    cr_expect_eq(n.kind_flags, TRACE_WAIT | RUN_EVF_BLOCKED << 4);
}

/* A raw launch file reads back as written; a damaged one is bad input naming the file. */
Test(record, raw_file_round_trip)
{
    rec_launch l, m;
    launch_init(&l, 2);
    fill_cta0(&l);
    l.cupti_start = 5000;
    l.cupti_end = 9000;
    l.gt_offset = -77;
    l.seq = 3;
    l.evn[4] = 20;   /* overflowed: 8 kept, 20 counted */
    char path[64];
    snprintf(path, sizeof path, "/tmp/tmascope_raw_%d.tmraw", (int)getpid());
    err_info e = {0};
    cr_assert_eq(rec_raw_write(path, &l, &e), ERR_OK, "%s", e.detail);
    cr_assert_eq(rec_raw_read(path, &m, &e), ERR_OK, "%s", e.detail);
    cr_expect_str_eq(m.kernel, l.kernel);
    cr_expect_str_eq(m.gpu, "NVIDIA H200");
    cr_expect_eq(m.driver_version, 13000);
    cr_expect_eq(m.ctas, 2);
    cr_expect_eq(m.nwarps, 5);
    cr_expect_eq(m.cap, 8);
    cr_expect_eq(m.stride, 8, "the most records a warp kept");
    cr_expect_eq(m.cupti_end - m.cupti_start, 4000);
    cr_expect_eq(m.gt_offset, -77);
    cr_expect_eq(m.seq, 3);
    cr_expect_eq(m.evn[4], 20);
    cr_expect_eq(m.cta_sm[1], 11);
    cr_expect(!memcmp(m.ev + m.stride, l.ev + l.stride, 3 * sizeof *l.ev), "warp 1's records");
    rec_launch_free(&m);
    /* cut short */
    FILE *f = fopen(path, "r+b");
    cr_assert_not_null(f);
    cr_assert_eq(ftruncate(fileno(f), 100), 0);
    fclose(f);
    cr_expect_eq(rec_raw_read(path, &m, &e), ERR_BAD_INPUT);
    cr_expect(strstr(e.detail, path) != NULL, "%s", e.detail);
    remove(path);
    rec_launch_free(&l);
}

/* The buffer a recorder allocates stays within its limit. */
Test(record, buffer_cap)
{
    cr_expect_eq(rec_cap_for(132, 5, 4096), 4096);
    uint32_t cap = rec_cap_for(100000, 32, 4096);
    cr_expect_lt((uint64_t)cap * 100000 * 32 * REC_EVENT_BYTES, REC_MAX_BUFFER_BYTES + 1);
    cr_expect_gt(cap, 0);
}

/* ---------------------------------------------------------------- the header compiles */

static const char kernel_src[] =
    "__global__ void k(float *out, int n)\n"
    "{\n"
    "    TMASCOPE_BEGIN();\n"
    "    float acc = 0.f;\n"
    "    for (int i = 0; i < n; i++) {\n"
    "        TMASCOPE_MARK(t0);\n"
    "        acc = acc * 0.99f + (float)i;\n"
    "        TMASCOPE_MARK(t1);\n"
    "        TMASCOPE_CONSUMED(t0, t1, t1, i);\n"
    "        TMASCOPE_PRODUCED(t0, t1, t1, i);\n"
    "        TMASCOPE_SPAN_AT(t0, t1, TMASCOPE_MATH, i % 4, i, TMASCOPE_BAR_AUTO);\n"
    "        TMASCOPE_EVENT(TMASCOPE_RELEASE, i % 4, i, 4 + i % 4);\n"
    "        TMASCOPE_WAIT_AT(t0, t1, i == 3, i % 4, i, i % 4, TMASCOPE_F_FULL, 1u);\n"
    "        if (acc > 1e30f) {\n"
    "            TMASCOPE_WAIT_OPEN(t0, i % 4, i, i % 4, TMASCOPE_F_FULL);\n"
    "            TMASCOPE_WAIT_CLOSE();\n"
    "        }\n"
    "        TMASCOPE_FLUSH_POINT();\n"
    "    }\n"
    "    out[threadIdx.x] = acc;\n"
    "    TMASCOPE_END();\n"
    "}\n";

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = 0;
    fclose(f);
    return s;
}

Test(record_header, compiles_with_nvcc_for_sm_90a, .timeout = 180)
{
    if (access(NVCC, X_OK) != 0)
        cr_skip_test("no CUDA toolkit: " NVCC " is absent");
    char path[64];
    snprintf(path, sizeof path, "/tmp/tmascope_hdr_%d.cu", (int)getpid());
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "#include \"record.cuh\"\n%s", kernel_src);
    fclose(f);
    /* compiled out; recorded with a ring check per record; with one per TMASCOPE_FLUSH_POINT */
    for (int r = 0; r <= 2; r++) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, NVCC " -arch=sm_90a -std=c++17 -Ihw -DTMASCOPE_RECORD=%d%s -Werror all-warnings -cubin "
                 "%s -o %s.cubin 2>&1", r ? 1 : 0, r == 2 ? " -DTMASCOPE_STEP_RECORDS=8" : "", path, path);
        FILE *p = popen(cmd, "r");
        char out[4096];
        size_t n = fread(out, 1, sizeof out - 1, p);
        out[n] = 0;
        int st = pclose(p);
        cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "variant %d: %s", r, out);
    }
    char cubin[80];
    snprintf(cubin, sizeof cubin, "%s.cubin", path);
    remove(cubin);
    remove(path);
}

/* NVRTC, loaded at run time (what tmahw run compiles its kernels with) */
typedef int (*nvrtc_create_fn)(void **, const char *, const char *, int, const char *const *, const char *const *);
typedef int (*nvrtc_compile_fn)(void *, int, const char *const *);
typedef int (*nvrtc_logsize_fn)(void *, size_t *);
typedef int (*nvrtc_log_fn)(void *, char *);
typedef int (*nvrtc_destroy_fn)(void **);

Test(record_header, compiles_with_nvrtc_for_sm_90a, .timeout = 120)
{
    void *lib = dlopen("/usr/local/cuda/lib64/libnvrtc.so", RTLD_NOW);
    if (!lib)
        cr_skip_test("no NVRTC: /usr/local/cuda/lib64/libnvrtc.so cannot be loaded");
    nvrtc_create_fn create = (nvrtc_create_fn)dlsym(lib, "nvrtcCreateProgram");
    nvrtc_compile_fn compile = (nvrtc_compile_fn)dlsym(lib, "nvrtcCompileProgram");
    nvrtc_logsize_fn logsize = (nvrtc_logsize_fn)dlsym(lib, "nvrtcGetProgramLogSize");
    nvrtc_log_fn getlog = (nvrtc_log_fn)dlsym(lib, "nvrtcGetProgramLog");
    nvrtc_destroy_fn destroy = (nvrtc_destroy_fn)dlsym(lib, "nvrtcDestroyProgram");
    cr_assert(create && compile && logsize && getlog && destroy);
    char *hdr = read_text("hw/record.cuh");
    const char *headers[1] = {hdr}, *names[1] = {"record.cuh"};
    char *src = malloc(strlen(kernel_src) + 64);
    sprintf(src, "#include \"record.cuh\"\n%s", kernel_src);
    for (int r = 0; r <= 1; r++) {
        void *prog = NULL;
        cr_assert_eq(create(&prog, src, "k.cu", 1, headers, names), 0);
        const char *opts[2] = {"--gpu-architecture=sm_90a", r ? "-DTMASCOPE_RECORD=1" : "-DTMASCOPE_RECORD=0"};
        int rc = compile(prog, 2, opts);
        size_t n = 0;
        logsize(prog, &n);
        char *log = malloc(n + 1);
        getlog(prog, log);
        log[n] = 0;
        cr_expect_eq(rc, 0, "TMASCOPE_RECORD=%d: %s", r, log);
        free(log);
        destroy(&prog);
    }
    free(src);
    free(hdr);
    /* not closed: NVRTC's own allocations stay attributed to it (tests/lsan.supp) */
}

/* ---------------------------------------------------------------- the hand-written kernel */

static int run(const char *cmd, char *out, size_t cap)
{
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* Its recording (H200) and the simulation of its description: `tmasim diff` matches their
 * events by key; every kind the kernel records has matches. */
Test(record_hand, recording_diffs_with_its_simulation, .timeout = 120)
{
    cr_assert(access(HAND_REC, R_OK) == 0, "the committed recording " HAND_REC " is missing");
    if (access(TMASIM_REL_BIN, X_OK) != 0)
        cr_skip_test("%s is not built (it needs cairo, libyaml and jansson)", TMASIM_REL_BIN);
    trace hw;
    err_info e = {0};
    cr_assert_eq(trace_read(HAND_REC, &hw, &e), ERR_OK, "%s", e.detail);
    cr_expect_eq(hw.source, TRACE_SRC_HW);
    cr_expect(!hw.truncated, "the recording overflowed");
    cr_expect(hw.desc_text != NULL, "the recording carries its description");
    static pipe_desc d;
    load_hand(&d);
    cr_expect_eq(hw.desc_hash, pipe_plan_hash(&d), "recorded with this description");
    trace_free(&hw);
    char cmd[512], out[65536];
    snprintf(cmd, sizeof cmd, "%s sim examples/hand_tma.yaml --gpu h200 -o /tmp/hand_sim_%d.tmt >/dev/null 2>&1 && %s diff "
             "/tmp/hand_sim_%d.tmt " HAND_REC " --format json 2>&1", TMASIM_REL_BIN, (int)getpid(), TMASIM_REL_BIN,
             (int)getpid());
    int rc = run(cmd, out, sizeof out);
    snprintf(cmd, sizeof cmd, "/tmp/hand_sim_%d.tmt", (int)getpid());
    remove(cmd);
    cr_expect(rc == 0 || rc == 1, "tmasim diff exit %d: %s", rc, out);
    unsigned matched = 0;
    const char *m = strstr(out, "\"matched\": ");
    cr_assert(m && sscanf(m, "\"matched\": %u", &matched) == 1, "%s", out);
    cr_expect_gt(matched, 8u * 4 * 64 * 2, "the 8 traced CTAs' reads and maths at least: %u matched", matched);
    const char *kinds[] = {"\"smem_read\"", "\"math\"", "\"release\"", "\"tma_issue\"", "\"bar_expect_tx\""};
    for (int k = 0; k < 5; k++)
        cr_expect(strstr(out, kinds[k]) != NULL, "no %s group in the diff: %s", kinds[k], out);
}

/* On a GPU: the kernel with and without the header computes the same sums, and `tmahw
 * record` turns its launch into a complete trace. */
Test(record_hand, same_results_with_and_without_recording, .timeout = 300)
{
    if (access("/dev/nvidia0", F_OK) != 0)
        cr_skip_test("no NVIDIA GPU: /dev/nvidia0 is absent");
    if (access(NVCC, X_OK) != 0 || access(TMAHW_BIN, X_OK) != 0)
        cr_skip_test("no CUDA toolkit or %s: the example cannot be built", TMAHW_BIN);
    char out[8192], a[8192], b[8192];
    cr_assert_eq(run("make -s build/rel/examples/hand_tma build/rel/examples/hand_tma_norec "
                     "build/rel/libtmascope_inject.so 2>&1", out, sizeof out), 0, "%s", out);
    cr_expect_eq(run("build/rel/examples/hand_tma 2>&1", a, sizeof a), 0, "%s", a);
    cr_expect_eq(run("build/rel/examples/hand_tma_norec 2>&1", b, sizeof b), 0, "%s", b);
    const char *ca = strstr(a, "checksum"), *cb = strstr(b, "checksum");
    cr_assert(ca && cb, "%s / %s", a, b);
    cr_expect(!strncmp(ca, cb, strcspn(ca, ")")), "with: %s\nwithout: %s", a, b);
    cr_expect(strstr(a, ": ok (") && strstr(b, ": ok ("), "%s / %s", a, b);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s record --desc examples/hand_tma.yaml -o /tmp/hand_rec_%d.tmt --format json -- "
             "build/rel/examples/hand_tma 2>&1", TMAHW_BIN, (int)getpid());
    cr_expect_eq(run(cmd, out, sizeof out), 0, "%s", out);
    cr_expect(strstr(out, "\"overflowed_warps\":0") && strstr(out, "\"recorded\":true"), "%s", out);
    snprintf(cmd, sizeof cmd, "/tmp/hand_rec_%d.tmt", (int)getpid());
    trace t;
    err_info e = {0};
    cr_assert_eq(trace_read(cmd, &t, &e), ERR_OK, "%s", e.detail);
    cr_expect_gt(t.count, 132 * 4 * 64, "a read, a math and a release per consumer warp and iteration at least");
    cr_expect(!t.truncated);
    trace_free(&t);
    remove(cmd);
}
