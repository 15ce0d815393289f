/* tmasim diff SIM_TRACE HW_TRACE: where the model and the measurement disagree. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"
#include "tdiff.h"
#include "trace.h"

static void usage(FILE *to)
{
    fprintf(to,
            "usage: tmasim diff SIM_TRACE HW_TRACE [--format table|csv|json] [--tolerance PCT]\n"
            "\n"
            "Matches events by (cta, warp, kind, stage, iteration) and reports, per kind and role,\n"
            "the median and p95 of (simulated - measured): durations for spans, times rebased to\n"
            "each trace's first event for instants; the kernel-time error; the unmatched events;\n"
            "and the ten largest discrepancies.\n"
            "\n"
            "  --tolerance PCT  exit 1 when |kernel-time error| or any span group's\n"
            "                   |median difference| / measured median exceeds PCT percent\n"
            "exit status: 0 within tolerance, 1 tolerance exceeded, 2 bad input\n");
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

/* The key of event i of t; "copy k/n" when n events share it (two tensors per stage). */
static void event_key(char *buf, size_t cap, const trace *t, size_t i)
{
    const trace_event *ev = &t->events[i];
    uint32_t n, k = tdiff_key_copy(t, i, &n);
    int len = snprintf(buf, cap, "cta %u warp %u %s stage %u iter %" PRIu32, ev->cta, ev->warp,
                       trace_kind_name((trace_kind)ev->kind), ev->stage, ev->iteration);
    if (n > 1 && len > 0 && (size_t)len < cap) snprintf(buf + len, cap - (size_t)len, " copy %u/%u", k, n);
}

static double group_rel(const tdiff_group *g)
{
    if (!g->matched || g->b_median <= 0) return 0.0;
    return fabs((double)g->median) / (double)g->b_median;
}

/* The tolerance verdict and what exceeded it: the kernel time and every span group whose
 * median difference is more than tol percent of the measured median. */
static void print_tolerance(const tdiff_report *r, double tol, int exceeded)
{
    printf("\ntolerance %g%%: %s", tol, exceeded ? "EXCEEDED by" : "ok");
    const char *sep = " ";
    if (fabs(r->kernel_err) * 100.0 > tol) {
        printf("%skernel time (%+.1f%%)", sep, 100.0 * r->kernel_err);
        sep = ", ";
    }
    for (size_t i = 0; i < r->ngroups; i++) {
        const tdiff_group *g = &r->groups[i];
        if (!tdiff_kind_is_span((trace_kind)g->kind) || group_rel(g) * 100.0 <= tol)
            continue;
        printf("%s%s/%s (median %+.1f%% of the measured)", sep, trace_kind_name((trace_kind)g->kind),
               trace_role_name((trace_role)g->role), 100.0 * (double)g->median / (double)g->b_median);
        sep = ", ";
    }
    printf("\n");
}

static int load(const char *path, trace *t)
{
    err_info e = {0};
    if (trace_read(path, t, &e)) {
        /* the trace reader names the file in its detail already */
        int named = !strncmp(e.detail, path, strlen(path));
        fprintf(stderr, "tmasim diff: %s%s%s%s%s\n", named ? "" : path, named ? "" : ": ", err_rule_label(e.rule),
                e.rule[0] ? ": " : "", e.detail);
        return EXIT_BAD_INPUT;
    }
    if (t->truncated)
        fprintf(stderr, "tmasim diff: %s: truncated file, loaded the %zu intact events\n", path, t->count);
    return EXIT_OK;
}

/* A measured tma_flight is matched: the runner cannot see a copy land, only the first
 * consumer that observes it. */
static int flight_bound(const trace *b, const tdiff_report *r)
{
    if (b->source != TRACE_SRC_HW) return 0;
    for (size_t i = 0; i < r->ngroups; i++)
        if (r->groups[i].kind == TRACE_TMA_FLIGHT && r->groups[i].matched) return 1;
    return 0;
}

static void print_table(const trace *a, const trace *b, const tdiff_report *r)
{
    printf("kernel time: sim %.3f us, measured %.3f us, error %+.1f%%\n", r->kernel_a / 1e3, r->kernel_b / 1e3,
           r->kernel_err * 100.0);
    printf("events: sim %zu, measured %zu, matched %zu, only in sim %zu, only measured %zu\n", a->count, b->count,
           r->matched, r->unmatched_a, r->unmatched_b);
    if (r->untraced_a || r->untraced_b)
        printf("not compared: %zu sim and %zu measured events of CTAs the other trace did not record "
               "(sim holds %" PRIu32 " CTAs, measured %" PRIu32 ")\n",
               r->untraced_a, r->untraced_b, r->ctas_a, r->ctas_b);
    if (r->unobservable_a || r->unobservable_b)
        printf("not compared: %zu TMA-unit events (complete_tx, phase completion) that the hardware trace cannot "
               "observe\n", r->unobservable_a + r->unobservable_b);
    printf("\n");
    printf("%-16s %-9s %8s %8s %8s %11s %11s %11s %11s\n", "kind", "role", "matched", "only-sim", "only-hw",
           "median(ns)", "p95(ns)", "p95|d|(ns)", "hw-median");
    for (size_t i = 0; i < r->ngroups; i++) {
        const tdiff_group *g = &r->groups[i];
        printf("%-16s %-9s %8" PRIu32 " %8" PRIu32 " %8" PRIu32 " %+11" PRId64 " %+11" PRId64 " %11" PRId64
               " %11" PRId64 "\n",
               trace_kind_name((trace_kind)g->kind), trace_role_name((trace_role)g->role), g->matched, g->only_a,
               g->only_b, g->median, g->p95, g->p95_abs, g->b_median);
    }
    if (flight_bound(b, r))
        printf("tma_flight: the measured flight ends when the first consumer's wait on the stage returns, not\n"
               "  when the copy lands: an upper bound, so sim - measured reads low by up to that consumer's lag\n");
    if (r->ntop) printf("\nlargest discrepancies (sim - measured):\n");
    for (size_t i = 0; i < r->ntop; i++) {
        char key[128];
        event_key(key, sizeof key, a, r->top[i].a);
        int bound = b->source == TRACE_SRC_HW && a->events[r->top[i].a].kind == TRACE_TMA_FLIGHT;
        printf("  %+12" PRId64 " ns  %s%s\n", r->top[i].delta, key, bound ? "  (measured: an upper bound)" : "");
    }
    if (r->nfirst_only_a) printf("\nfirst events only in sim:\n");
    for (size_t i = 0; i < r->nfirst_only_a; i++) {
        char key[128];
        event_key(key, sizeof key, a, r->first_only_a[i]);
        printf("  t=%" PRId64 "  %s\n", a->events[r->first_only_a[i]].t_ns, key);
    }
    if (r->nfirst_only_b) printf("\nfirst events only measured:\n");
    for (size_t i = 0; i < r->nfirst_only_b; i++) {
        char key[128];
        event_key(key, sizeof key, b, r->first_only_b[i]);
        printf("  t=%" PRId64 "  %s\n", b->events[r->first_only_b[i]].t_ns, key);
    }
}

static void print_csv(const tdiff_report *r)
{
    printf("kind,role,matched,only_sim,only_hw,median_ns,p95_ns,p95_abs_ns,hw_median_ns\n");
    for (size_t i = 0; i < r->ngroups; i++) {
        const tdiff_group *g = &r->groups[i];
        printf("%s,%s,%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 "\n",
               trace_kind_name((trace_kind)g->kind), trace_role_name((trace_role)g->role), g->matched, g->only_a,
               g->only_b, g->median, g->p95, g->p95_abs, g->b_median);
    }
    printf("kernel,all,%zu,%zu,%zu,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 "\n", r->matched, r->unmatched_a,
           r->unmatched_b, r->kernel_a - r->kernel_b, r->kernel_a - r->kernel_b, r->kernel_a > r->kernel_b ? r->kernel_a - r->kernel_b : r->kernel_b - r->kernel_a, r->kernel_b);
}

static void json_event(const trace *t, size_t i)
{
    const trace_event *ev = &t->events[i];
    uint32_t n, k = tdiff_key_copy(t, i, &n);
    printf("{\"cta\": %u, \"warp\": %u, \"kind\": \"%s\", \"stage\": %u, \"iteration\": %" PRIu32
           ", \"copy\": %u, \"copies\": %u, \"t_ns\": %" PRId64 ", \"dur_ns\": %" PRIu32 "}",
           ev->cta, ev->warp, trace_kind_name((trace_kind)ev->kind), ev->stage, ev->iteration, k, n, ev->t_ns,
           ev->dur_ns);
}

static void print_json(const trace *a, const trace *b, const tdiff_report *r, double tol, int exceeded)
{
    printf("{\n  \"sim\": {\"name\": ");
    json_str(stdout, a->name);
    printf(", \"events\": %zu, \"kernel_ns\": %" PRId64 ", \"truncated\": %s},\n", a->count, r->kernel_a,
           a->truncated ? "true" : "false");
    printf("  \"measured\": {\"name\": ");
    json_str(stdout, b->name);
    printf(", \"gpu\": ");
    json_str(stdout, b->gpu);
    printf(", \"events\": %zu, \"kernel_ns\": %" PRId64 ", \"truncated\": %s},\n", b->count, r->kernel_b,
           b->truncated ? "true" : "false");
    printf("  \"kernel_error\": %.6f,\n  \"matched\": %zu, \"unmatched_sim\": %zu, \"unmatched_measured\": %zu,\n"
           "  \"untraced_sim\": %zu, \"untraced_measured\": %zu, \"ctas_sim\": %" PRIu32 ", \"ctas_measured\": %" PRIu32 ",\n"
           "  \"unobservable_sim\": %zu, \"unobservable_measured\": %zu,\n",
           r->kernel_err, r->matched, r->unmatched_a, r->unmatched_b, r->untraced_a, r->untraced_b, r->ctas_a, r->ctas_b,
           r->unobservable_a, r->unobservable_b);
    printf("  \"measured_tma_flight_is_upper_bound\": %s,\n", flight_bound(b, r) ? "true" : "false");
    printf("  \"groups\": [");
    for (size_t i = 0; i < r->ngroups; i++) {
        const tdiff_group *g = &r->groups[i];
        printf("%s\n    {\"kind\": \"%s\", \"role\": \"%s\", \"matched\": %" PRIu32 ", \"only_sim\": %" PRIu32
               ", \"only_measured\": %" PRIu32 ", \"median_ns\": %" PRId64 ", \"p95_ns\": %" PRId64
               ", \"p95_abs_ns\": %" PRId64 ", \"measured_median_ns\": %" PRId64 "}",
               i ? "," : "", trace_kind_name((trace_kind)g->kind), trace_role_name((trace_role)g->role), g->matched,
               g->only_a, g->only_b, g->median, g->p95, g->p95_abs, g->b_median);
    }
    printf("\n  ],\n  \"largest\": [");
    for (size_t i = 0; i < r->ntop; i++) {
        printf("%s\n    {\"delta_ns\": %" PRId64 ", \"sim\": ", i ? "," : "", r->top[i].delta);
        json_event(a, r->top[i].a);
        printf(", \"measured\": ");
        json_event(b, r->top[i].b);
        printf("}");
    }
    printf("\n  ],\n  \"first_only_sim\": [");
    for (size_t i = 0; i < r->nfirst_only_a; i++) {
        printf("%s", i ? ", " : "");
        json_event(a, r->first_only_a[i]);
    }
    printf("],\n  \"first_only_measured\": [");
    for (size_t i = 0; i < r->nfirst_only_b; i++) {
        printf("%s", i ? ", " : "");
        json_event(b, r->first_only_b[i]);
    }
    printf("],\n  \"tolerance_pct\": ");
    if (tol >= 0) printf("%g", tol); else printf("null");
    printf(",\n  \"exceeded\": %s\n}\n", exceeded ? "true" : "false");
}

static int parse_tolerance(const char *s, double *out)
{
    char *end = NULL;
    double v = strtod(s, &end);
    if (end == s || (*end && strcmp(end, "%")) || !(v >= 0) || v > 1e6) {
        fprintf(stderr, "tmasim diff: --tolerance: '%s' is not a percentage (e.g. 10 or 10%%)\n", s);
        return EXIT_BAD_INPUT;
    }
    *out = v;
    return EXIT_OK;
}

int cmd_diff(int argc, char **argv)
{
    const char *paths[2] = {NULL, NULL};
    int npaths = 0;
    cli_format fmt = CLI_FORMAT_TABLE;
    double tol = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return EXIT_OK;
        } else if (!strcmp(a, "--format") || !strcmp(a, "--tolerance")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "tmasim diff: %s: missing value\n", a);
                return EXIT_BAD_INPUT;
            }
            const char *v = argv[++i];
            if (!strcmp(a, "--format")) {
                err_info e = {0};
                if (cli_format_parse(v, &fmt, &e)) return cli_report("diff", &e);
            } else if (parse_tolerance(v, &tol)) {
                return EXIT_BAD_INPUT;
            }
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "tmasim diff: option: '%s' is not one of: --format --tolerance --help\n", a);
            return EXIT_BAD_INPUT;
        } else if (npaths < 2) {
            paths[npaths++] = a;
        } else {
            fprintf(stderr, "tmasim diff: arguments: expected exactly two traces (SIM_TRACE HW_TRACE), got '%s' too\n", a);
            return EXIT_BAD_INPUT;
        }
    }
    if (npaths != 2) {
        fprintf(stderr, "tmasim diff: arguments: expected two traces (SIM_TRACE HW_TRACE), got %d\n", npaths);
        return EXIT_BAD_INPUT;
    }
    trace a, b;
    trace_init(&a, TRACE_SRC_SIM);
    trace_init(&b, TRACE_SRC_HW);
    int rc = load(paths[0], &a);
    if (!rc) rc = load(paths[1], &b);
    /* comparing the runs of two different kernels is allowed but rarely meant */
    if (!rc && a.desc_text && b.desc_text && a.desc_hash != b.desc_hash)
        fprintf(stderr,
                "tmasim diff: warning: %s and %s come from different descriptions (hash %016llx vs %016llx)\n",
                paths[0], paths[1], (unsigned long long)a.desc_hash, (unsigned long long)b.desc_hash);
    tdiff_match m = {0};
    tdiff_report *r = calloc(1, sizeof *r);
    err_info e = {0};
    if (!rc && !r) {
        fprintf(stderr, "tmasim diff: memory: out of memory\n");
        rc = EXIT_BAD_INPUT;
    }
    if (!rc && (tdiff_match_traces(&a, &b, &m, &e) || tdiff_compare(&a, &b, &m, r, &e)))
        rc = cli_report("diff", &e);
    if (!rc) {
        int exceeded = 0;
        if (tol >= 0) {
            if (fabs(r->kernel_err) * 100.0 > tol) exceeded = 1;
            for (size_t i = 0; i < r->ngroups; i++)
                if (tdiff_kind_is_span((trace_kind)r->groups[i].kind) && group_rel(&r->groups[i]) * 100.0 > tol)
                    exceeded = 1;
        }
        if (fmt == CLI_FORMAT_JSON) print_json(&a, &b, r, tol, exceeded);
        else if (fmt == CLI_FORMAT_CSV) print_csv(r);
        else {
            print_table(&a, &b, r);
            if (tol >= 0)
                print_tolerance(r, tol, exceeded);
        }
        rc = exceeded ? EXIT_FINDING : EXIT_OK;
    }
    free(r);
    tdiff_match_free(&m);
    trace_free(&a);
    trace_free(&b);
    return rc;
}
