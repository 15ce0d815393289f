/* tdiff and `tmasim diff`: matching by key and the statistics of (sim - measured).
 * The expected numbers are derived by hand from the synthetic pipeline's schedule
 * (tests/viz_synth.h): 1 CTA, 1 consumer, 2 stages, 4 iterations, flight 1000 ns,
 * issue gap 10 ns, read 100 ns; math 100 ns in "sim" and 120 ns in "hw".
 *   sim: consumer waits 0..1000 (it 0) and 1400..2200 (it 2); producer waits 20..1200
 *        and 1210..1400; the last math ends at 2600.
 *   hw:  consumer waits 0..1000 and 1440..2220; producer waits 20..1220 and
 *        1230..1440; the last math ends at 2660. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tdiff.h"
#include "viz_synth.h"

static void make_pair(trace *a, trace *b)
{
    synth_opts o = {.ctas = 1, .consumers = 1, .stages = 2, .iterations = 4, .flight_ns = 1000, .read_ns = 100,
                    .math_ns = 100, .issue_gap_ns = 10, .bytes = 8192, .source = TRACE_SRC_SIM};
    trace_init(a, TRACE_SRC_SIM);
    synth_fill(a, &o);
    o.math_ns = 120;
    o.source = TRACE_SRC_HW;
    trace_init(b, TRACE_SRC_HW);
    synth_fill(b, &o);
}

static const tdiff_group *group(const tdiff_report *r, trace_kind k, trace_role role)
{
    for (size_t i = 0; i < r->ngroups; i++)
        if (r->groups[i].kind == k && r->groups[i].role == role) return &r->groups[i];
    return NULL;
}

Test(tdiff, nearest_rank_percentile_matches_the_textbook_example)
{
    /* Nearest-rank method, worked example: {15, 20, 35, 40, 50}: P30 = 20, P40 = 20,
     * P50 = 35, P100 = 50. */
    int64_t v[] = {15, 20, 35, 40, 50};
    cr_expect_eq(tdiff_percentile(v, 5, 30), 20);
    cr_expect_eq(tdiff_percentile(v, 5, 40), 20);
    cr_expect_eq(tdiff_percentile(v, 5, 50), 35);
    cr_expect_eq(tdiff_percentile(v, 5, 100), 50);
    cr_expect_eq(tdiff_percentile(v, 0, 50), 0);
}

Test(tdiff, identical_traces_match_everything_with_zero_difference)
{
    trace a, b;
    make_pair(&a, &b);
    tdiff_match m;
    tdiff_report r;
    cr_assert_eq(tdiff_match_traces(&a, &a, &m, NULL), ERR_OK);
    cr_expect_eq(m.matched, a.count);
    for (size_t i = 0; i < a.count; i++) cr_expect_eq(m.a_to_b[i], i);
    cr_assert_eq(tdiff_compare(&a, &a, &m, &r, NULL), ERR_OK);
    cr_expect_eq(r.unmatched_a + r.unmatched_b, 0);
    for (size_t i = 0; i < r.ngroups; i++) cr_expect_eq(r.groups[i].p95, 0);
    cr_expect_eq(r.kernel_err, 0.0);
    tdiff_match_free(&m);
    trace_free(&a);
    trace_free(&b);
}

Test(tdiff, slower_math_shows_per_kind_and_role)
{
    trace a, b;
    make_pair(&a, &b);
    cr_assert_eq(a.count, b.count);
    tdiff_match m;
    tdiff_report r;
    cr_assert_eq(tdiff_match_traces(&a, &b, &m, NULL), ERR_OK);
    cr_expect_eq(m.matched, a.count);
    cr_assert_eq(tdiff_compare(&a, &b, &m, &r, NULL), ERR_OK);
    const tdiff_group *math = group(&r, TRACE_MATH, TRACE_ROLE_CONSUMER);
    cr_assert(math);
    cr_expect_eq(math->matched, 4);
    cr_expect_eq(math->median, -20);
    cr_expect_eq(math->p95, -20);
    cr_expect_eq(math->b_median, 120);
    const tdiff_group *rd = group(&r, TRACE_SMEM_READ, TRACE_ROLE_CONSUMER);
    cr_expect_eq(rd->median, 0);
    /* consumer waits: 1000 vs 1000, 800 vs 780 -> deltas {0, +20} */
    const tdiff_group *cw = group(&r, TRACE_WAIT, TRACE_ROLE_CONSUMER);
    cr_expect_eq(cw->matched, 2);
    cr_expect_eq(cw->median, 0);
    cr_expect_eq(cw->p95, 20);
    cr_expect_eq(cw->p95_abs, 20);
    cr_expect_eq(group(&r, TRACE_MATH, TRACE_ROLE_CONSUMER)->p95_abs, 20);
    /* producer waits: 1180 vs 1200, 190 vs 210 -> both -20 */
    const tdiff_group *pw = group(&r, TRACE_WAIT, TRACE_ROLE_PRODUCER);
    cr_expect_eq(pw->median, -20);
    cr_expect_eq(r.kernel_a, 2600);
    cr_expect_eq(r.kernel_b, 2660);
    cr_expect_float_eq(r.kernel_err, -60.0 / 2660.0, 1e-12);
    /* largest |delta|: the release instants of iteration 3 (2600 vs 2660) */
    cr_assert(r.ntop >= 1);
    cr_expect_eq(r.top[0].delta, -60);
    cr_expect_eq(a.events[r.top[0].a].iteration, 3);
    tdiff_match_free(&m);
    trace_free(&a);
    trace_free(&b);
}

Test(tdiff, a_missing_event_is_unmatched_in_its_group)
{
    trace a, b;
    make_pair(&a, &b);
    /* drop b's last event (the release of iteration 3 or its phase completion) */
    trace_kind dropped = (trace_kind)b.events[b.count - 1].kind;
    trace_role dropped_role = (trace_role)b.events[b.count - 1].role;
    b.count--;
    tdiff_match m;
    tdiff_report r;
    cr_assert_eq(tdiff_match_traces(&a, &b, &m, NULL), ERR_OK);
    cr_assert_eq(tdiff_compare(&a, &b, &m, &r, NULL), ERR_OK);
    cr_expect_eq(r.unmatched_a, 1);
    cr_expect_eq(r.unmatched_b, 0);
    cr_expect_eq(group(&r, dropped, dropped_role)->only_a, 1);
    cr_expect_eq(r.nfirst_only_a, 1);
    tdiff_match_free(&m);
    trace_free(&a);
    trace_free(&b);
}

Test(tdiff, ctas_the_measured_trace_did_not_record_are_not_compared)
{
    /* sim holds 3 CTAs; the "measured" trace recorded only CTA 0 (as tmahw does with
     * --trace-ctas) and lost one event of it: only that one is unmatched. */
    synth_opts o = {.ctas = 3, .consumers = 1, .stages = 2, .iterations = 4, .flight_ns = 1000, .read_ns = 100,
                    .math_ns = 100, .issue_gap_ns = 10, .bytes = 8192, .source = TRACE_SRC_SIM};
    trace a, b;
    trace_init(&a, TRACE_SRC_SIM);
    synth_fill(&a, &o);
    o.ctas = 1;
    o.source = TRACE_SRC_HW;
    trace_init(&b, TRACE_SRC_HW);
    synth_fill(&b, &o);
    size_t per_cta = b.count;
    cr_assert_eq(a.count, 3 * per_cta, "the synthetic CTAs are alike");
    b.count--;
    tdiff_match m;
    tdiff_report r;
    cr_assert_eq(tdiff_match_traces(&a, &b, &m, NULL), ERR_OK);
    cr_assert_eq(tdiff_compare(&a, &b, &m, &r, NULL), ERR_OK);
    cr_expect_eq(r.ctas_a, 3);
    cr_expect_eq(r.ctas_b, 1);
    cr_expect_eq(r.untraced_a, 2 * per_cta);
    cr_expect_eq(r.untraced_b, 0);
    cr_expect_eq(r.unmatched_a, 1);
    cr_expect_eq(r.matched, per_cta - 1);
    tdiff_match_free(&m);
    trace_free(&a);
    trace_free(&b);
}

Test(tdiff, tma_unit_events_are_not_unmatched_against_a_hardware_trace)
{
    /* The simulator's copy engine (role tma_unit) emits complete_tx and phase completion;
     * no instruction observes them on the GPU, so a hardware trace has none. */
    trace a, b;
    make_pair(&a, &b);
    size_t engine = 0, kept = 0;
    for (size_t i = 0; i < a.count; i++)
        if (a.events[i].kind == TRACE_BAR_COMPLETE_TX || a.events[i].kind == TRACE_PHASE_COMPLETE) {
            a.events[i].role = TRACE_ROLE_TMA_UNIT;
            engine++;
        }
    for (size_t i = 0; i < b.count; i++)
        if (b.events[i].kind != TRACE_BAR_COMPLETE_TX && b.events[i].kind != TRACE_PHASE_COMPLETE)
            b.events[kept++] = b.events[i];
    b.count = kept;
    cr_assert_gt(engine, 0);
    tdiff_match m;
    tdiff_report r;
    cr_assert_eq(tdiff_match_traces(&a, &b, &m, NULL), ERR_OK);
    cr_assert_eq(tdiff_compare(&a, &b, &m, &r, NULL), ERR_OK);
    cr_expect_eq(r.unobservable_a, engine);
    cr_expect_eq(r.unmatched_a + r.unmatched_b, 0);
    /* against another simulated trace they are ordinary unmatched events */
    b.source = TRACE_SRC_SIM;
    cr_assert_eq(tdiff_compare(&a, &b, &m, &r, NULL), ERR_OK);
    cr_expect_eq(r.unobservable_a, 0);
    cr_expect_eq(r.unmatched_a, engine);
    tdiff_match_free(&m);
    trace_free(&a);
    trace_free(&b);
}

Test(tdiff, repeated_keys_pair_in_time_order)
{
    trace a, b;
    trace_init(&a, TRACE_SRC_SIM);
    trace_init(&b, TRACE_SRC_HW);
    for (int i = 0; i < 3; i++) {
        synth_push(&a, 100 * i, 10 + i, TRACE_WAIT, 0, 1, TRACE_ROLE_CONSUMER, 0, 0, 0, 0, 0, 0, 0);
        synth_push(&b, 100 * i + 5, 20 + i, TRACE_WAIT, 0, 1, TRACE_ROLE_CONSUMER, 0, 0, 0, 0, 0, 0, 1);
    }
    tdiff_match m;
    cr_assert_eq(tdiff_match_traces(&a, &b, &m, NULL), ERR_OK);
    for (uint32_t i = 0; i < 3; i++) cr_expect_eq(m.a_to_b[i], i);
    tdiff_match_free(&m);
    trace_free(&a);
    trace_free(&b);
}

/* ---- the command ------------------------------------------------------------------- */
static char tmpdir[64];
static char cwd[1024];

static void setup_files(void)
{
    cr_assert(getcwd(cwd, sizeof cwd));
    snprintf(tmpdir, sizeof tmpdir, "/tmp/test_tdiff.XXXXXX");
    cr_assert(mkdtemp(tmpdir));
    trace a, b;
    make_pair(&a, &b);
    char p[128];
    snprintf(p, sizeof p, "%s/sim.tmt", tmpdir);
    cr_assert_eq(trace_write(p, &a, NULL), ERR_OK);
    snprintf(p, sizeof p, "%s/hw.tmt", tmpdir);
    cr_assert_eq(trace_write(p, &b, NULL), ERR_OK);
    snprintf(p, sizeof p, "%s/junk.tmt", tmpdir);
    FILE *f = fopen(p, "w");
    fputs("this is not a trace\n", f);
    fclose(f);
    trace_free(&a);
    trace_free(&b);
}

static void teardown_files(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    cr_expect_eq(system(cmd), 0);
}

static int run(const char *args, char *out, size_t cap)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd %s && %s/%s diff %s 2>&1", tmpdir, cwd, TMASIM_BIN, args);
    FILE *p = popen(cmd, "r");
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

TestSuite(tdiff_cli, .init = setup_files, .fini = teardown_files);

Test(tdiff_cli, tolerance_gates_the_exit_status)
{
    static char out[65536];
    /* kernel error 60/2660 = 2.26 %, math 20/120 = 16.7 % */
    cr_expect_eq(run("sim.tmt hw.tmt --tolerance 1", out, sizeof out), 1, "%s", out);
    cr_expect_eq(run("sim.tmt hw.tmt --tolerance 10%", out, sizeof out), 1, "%s", out);
    cr_expect_eq(run("sim.tmt hw.tmt --tolerance 20", out, sizeof out), 0, "%s", out);
    cr_expect(strstr(out, "math"), "%s", out);
    cr_expect(strstr(out, "tolerance 20%: ok"), "%s", out);
    /* the verdict names what exceeded: the kernel time at 1%, only the math group at 10% */
    run("sim.tmt hw.tmt --tolerance 1", out, sizeof out);
    cr_expect(strstr(out, "EXCEEDED by kernel time (-2.3%)") && strstr(out, "math/"), "%s", out);
    run("sim.tmt hw.tmt --tolerance 10", out, sizeof out);
    const char *v = strstr(out, "tolerance 10%: EXCEEDED by ");
    cr_expect(v && strstr(v, "math/") && !strstr(v, "kernel time"), "%s", out);
}

Test(tdiff_cli, json_reports_groups_and_kernel_error)
{
    static char out[65536];
    cr_assert_eq(run("sim.tmt hw.tmt --format json", out, sizeof out), 0, "%s", out);
    json_error_t je;
    json_t *root = json_loads(out, 0, &je);
    cr_assert(root, "not JSON: %s\n%s", je.text, out);
    cr_expect_float_eq(json_real_value(json_object_get(root, "kernel_error")), -60.0 / 2660.0, 1e-6);
    json_t *groups = json_object_get(root, "groups");
    int found = 0;
    for (size_t i = 0; i < json_array_size(groups); i++) {
        json_t *g = json_array_get(groups, i);
        if (!strcmp(json_string_value(json_object_get(g, "kind")), "math")) {
            found = 1;
            cr_expect_eq(json_integer_value(json_object_get(g, "median_ns")), -20);
        }
    }
    cr_expect(found);
    cr_expect_eq(json_array_size(json_object_get(root, "largest")), 10);
    json_decref(root);
}

Test(tdiff_cli, traces_of_different_descriptions_are_compared_with_a_warning)
{
    static char out[65536];
    cr_assert_eq(run("sim.tmt hw.tmt --tolerance 20", out, sizeof out), 0, "%s", out);
    cr_expect_null(strstr(out, "different descriptions"), "%s", out);
    trace t;
    char p[128];
    const char *which[2] = {"sim", "hw"};
    for (int k = 0; k < 2; k++) {
        snprintf(p, sizeof p, "%s/%s.tmt", tmpdir, which[k]);
        cr_assert_eq(trace_read(p, &t, NULL), ERR_OK);
        cr_assert_eq(trace_set_desc(&t, "name: t\n", 8, 100u + (uint64_t)k, NULL), ERR_OK);
        snprintf(p, sizeof p, "%s/%s_d.tmt", tmpdir, which[k]);
        cr_assert_eq(trace_write(p, &t, NULL), ERR_OK);
        trace_free(&t);
    }
    cr_assert_eq(run("sim_d.tmt hw_d.tmt --tolerance 20", out, sizeof out), 0, "%s", out);
    cr_expect(strstr(out, "warning: sim_d.tmt and hw_d.tmt come from different descriptions"), "%s", out);
    cr_expect(strstr(out, "tolerance 20%: ok"), "%s", out);
}

Test(tdiff_cli, bad_input_is_one_line_and_exit_2)
{
    static char out[4096];
    cr_expect_eq(run("sim.tmt junk.tmt", out, sizeof out), 2);
    cr_expect(strstr(out, "junk.tmt"), "%s", out);
    cr_expect_eq(strchr(out, '\n'), out + strlen(out) - 1, "more than one line: %s", out);
    cr_expect_eq(run("sim.tmt missing.tmt", out, sizeof out), 2);
    cr_expect_eq(run("sim.tmt", out, sizeof out), 2);
    cr_expect_eq(run("sim.tmt hw.tmt --tolerance abc", out, sizeof out), 2);
    cr_expect_eq(run("sim.tmt hw.tmt --format xml", out, sizeof out), 2);
}

Test(tdiff, key_copies_number_the_events_sharing_a_key_in_time_order)
{
    trace t;
    trace_init(&t, TRACE_SRC_SIM);
    /* stage 0 of iteration 0 loaded from two tensors: two flights; one wait */
    synth_push(&t, 0, 500, TRACE_TMA_FLIGHT, 0, 0, TRACE_ROLE_PRODUCER, 0, 0, 0, 0, 8192, 1, 0);
    synth_push(&t, 10, 600, TRACE_TMA_FLIGHT, 0, 0, TRACE_ROLE_PRODUCER, 0, 0, 0, 0, 8192, 1, 0);
    synth_push(&t, 20, 100, TRACE_WAIT, 0, 1, TRACE_ROLE_CONSUMER, 0, 0, 0, 0, 0, 1, 0);
    uint32_t n;
    cr_expect_eq(tdiff_key_copy(&t, 0, &n), 1);
    cr_expect_eq(n, 2);
    cr_expect_eq(tdiff_key_copy(&t, 1, &n), 2);
    cr_expect_eq(n, 2);
    cr_expect_eq(tdiff_key_copy(&t, 2, &n), 1);
    cr_expect_eq(n, 1);
    trace_free(&t);
}

/* ws4_tma loads each stage from two tensors: every key the report names is unique
 * (copy k/n), and the measured tma_flight is called an upper bound where it is read. */
Test(tdiff_cli, keys_are_unique_and_the_measured_flight_is_an_upper_bound)
{
    static char out[65536], cmd[8192];
    snprintf(cmd, sizeof cmd,
             "cd %s && %s/%s sim %s/examples/ws4_tma.yaml -o ws4.tmt >/dev/null && %s/%s diff ws4.tmt "
             "%s/traces/h100/pipelines/ws4_tma.tmt 2>&1",
             tmpdir, cwd, TMASIM_BIN, cwd, cwd, TMASIM_BIN, cwd);
    FILE *p = popen(cmd, "r");
    size_t len = fread(out, 1, sizeof out - 1, p);
    out[len] = 0;
    cr_assert_eq(pclose(p), 0, "%s", out);
    cr_expect(strstr(out, "tma_flight: the measured flight ends when the first consumer's wait"), "%s", out);
    const char *l = strstr(out, "largest discrepancies");
    cr_assert(l, "%s", out);
    char keys[10][128];
    int n = 0;
    for (const char *q = strchr(l, '\n') + 1; n < 10 && *q == ' '; q = strchr(q, '\n') + 1) {
        const char *k = strstr(q, " ns  ");
        cr_assert(k && k < strchr(q, '\n'));
        size_t kl = (size_t)(strchr(q, '\n') - (k + 5));
        snprintf(keys[n], sizeof keys[n], "%.*s", (int)kl, k + 5);
        for (int j = 0; j < n; j++) cr_expect_str_neq(keys[j], keys[n], "key listed twice: %s", keys[n]);
        if (strstr(keys[n], "tma_flight")) {
            cr_expect(strstr(keys[n], " copy "), "%s", keys[n]);
            cr_expect(strstr(keys[n], "(measured: an upper bound)"), "%s", keys[n]);
        }
        n++;
    }
    cr_expect_eq(n, 10, "%s", out);
}
