/* tmasim sim DESC -o TRACE: predicted time, per-role breakdown, bottleneck, trace. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"
#include "desc.h"
#include "params.h"
#include "pipe.h"
#include "pipe_budget.h"
#include "pipe_plan.h"
#include "sweep.h"
#include "trace.h"

static void usage(FILE *to)
{
    fprintf(to,
            "usage: tmasim sim DESC.yaml [-o TRACE] [--gpu h100|h200|h100-pcie|FILE] [--params FILE] [--sweep KEY=V1,V2,...]\n"
            "                  [--format table|csv|json] [--params-list] [--force]\n"
            "\n"
            "Simulates the described pipeline on an H100 (discrete events: warps, per-SM TMA unit and\n"
            "shared-memory port, shared L2/HBM bandwidth, latencies, wake-up costs, bank-conflict\n"
            "wavefronts of the consumers' reads) and prints the predicted kernel time, the busy and\n"
            "stalled time of each role, the bottleneck, the stage occupancy; -o writes the trace\n"
            "(traces/FORMAT.md).\n"
            "  --gpu SET|FILE  parameter set: h100 (H100 SXM, default), h200, h100-pcie, or a file written\n"
            "                  by `tmahw calibrate` on your GPU; --params-list shows the set's values and\n"
            "                  where each comes from\n"
            "  --params FILE   'name = value' lines overriding timing parameters (--params-list)\n"
            "  --sweep KEY=... re-runs with KEY set to each value; KEY is stages, iterations, ctas,\n"
            "                  ctas_per_sm, consumer_warps, release_lag, cluster or a parameter name\n"
            "                  (a grid of several keys on every core: tmasim sweep)\n"
            "  --force         run past the work limits (about 2e9 simulated events, a trace of 2^26 events)\n"
            "exit status: 0 ok, 1 protocol bug (hang or mbarrier misuse), 2 bad input\n");
}

static const char *role_label(int k)
{
    return trace_role_name((trace_role)k);
}

static void print_result(const pipe_desc *d, const pipe_result *r, cli_format fmt, const char *trace_path)
{
    if (fmt == CLI_FORMAT_JSON) {
        printf("{\"name\":");
        cli_json_string(stdout, d->name);
        printf(",\"kernel_ns\":%lld,\"bottleneck_kind\":\"%s\",\"bottleneck\":", (long long)r->kernel_ns,
               r->bottleneck_kind);
        cli_json_string(stdout, r->bottleneck);
        printf(",\"chain\":");
        cli_json_string(stdout, r->deadlock ? r->chain : "");
        printf(",");
        printf("\"hbm_util\":%.4f,\"tma_util\":%.4f,\"smem_util\":%.4f,\"math_util\":%.4f,"
               "\"stages_filled_avg\":%.3f,\"deadlock\":%s,\"findings\":%u,\"sim_events\":%llu,\"trace_events\":%llu,"
               "\"read_wavefronts\":%llu,\"read_ideal_wavefronts\":%llu,\"roles\":[",
               r->hbm_util, r->tma_util, r->smem_util, r->math_util, r->stages_filled_avg, r->deadlock ? "true" : "false",
               r->findings, (unsigned long long)r->sim_events, (unsigned long long)r->trace_events,
               (unsigned long long)d->read_wavefronts, (unsigned long long)d->read_ideal_wavefronts);
        int first = 1;
        for (int k = 0; k < 3; k++) {
            const pipe_role_stats *s = &r->role[k];
            if (!s->warps)
                continue;
            printf("%s{\"role\":\"%s\",\"warps\":%u,\"busy_ns\":%.0f,\"issue_ns\":%.0f,\"read_ns\":%.0f,\"math_ns\":%.0f,"
                   "\"wait_full_ns\":%.0f,\"wait_empty_ns\":%.0f,\"other_ns\":%.0f}",
                   first ? "" : ",", role_label(k), s->warps, s->busy_ns, s->issue_ns, s->read_ns, s->math_ns,
                   s->wait_full_ns, s->wait_empty_ns, s->other_ns);
            first = 0;
        }
        printf("]}\n");
        return;
    }
    if (fmt == CLI_FORMAT_CSV) {
        printf("role,warps,busy_pct,issue_pct,read_pct,math_pct,wait_full_pct,wait_empty_pct,other_pct,kernel_ns\n");
        for (int k = 0; k < 3; k++) {
            const pipe_role_stats *s = &r->role[k];
            if (!s->warps)
                continue;
            double t = (double)s->warps * (double)(r->kernel_ns ? r->kernel_ns : 1) / 100.0;
            printf("%s,%u,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%lld\n", role_label(k), s->warps, s->busy_ns / t,
                   s->issue_ns / t, s->read_ns / t, s->math_ns / t, s->wait_full_ns / t, s->wait_empty_ns / t,
                   s->other_ns / t, (long long)r->kernel_ns);
        }
        return;
    }
    printf("%s: %s, %u CTAs (%u per SM, cluster %u%s), %u stages, %u iterations\n", d->name, pipe_mode_name(d->mode),
           d->ctas, d->ctas_per_sm, d->cluster, d->multicast ? ", multicast" : "", d->stages, d->iterations);
    if (r->deadlock)
        printf("predicted kernel time: none, the pipeline deadlocks (the last warp stops at %.3f us)\n", r->kernel_ns / 1e3);
    else
        printf("predicted kernel time: %.3f us\n", r->kernel_ns / 1e3);
    printf("bottleneck: %s\n", r->bottleneck);
    if (r->deadlock)
        printf("deadlock: %s\n", r->chain);
    printf("\n");
    printf("%-9s %5s %7s %7s %7s %7s %10s %11s %7s\n", "role", "warps", "busy%", "issue%", "read%", "math%", "wait-full%",
           "wait-empty%", "other%");
    for (int k = 0; k < 3; k++) {
        const pipe_role_stats *s = &r->role[k];
        if (!s->warps)
            continue;
        double t = (double)s->warps * (double)(r->kernel_ns ? r->kernel_ns : 1) / 100.0;
        printf("%-9s %5u %7.1f %7.1f %7.1f %7.1f %10.1f %11.1f %7.1f\n", role_label(k), s->warps, s->busy_ns / t,
               s->issue_ns / t, s->read_ns / t, s->math_ns / t, s->wait_full_ns / t, s->wait_empty_ns / t, s->other_ns / t);
    }
    printf("\nutilisation: L2/HBM %.0f%%, TMA units %.0f%%, shared-memory ports %.0f%%, math pipes %.0f%%\n",
           100 * r->hbm_util, 100 * r->tma_util, 100 * r->smem_util, 100 * r->math_util);
    if (d->read_wavefronts)
        printf("consumer reads per warp and stage: %u instructions, %llu wavefronts (ideal %llu)\n", d->read_instructions,
               (unsigned long long)d->read_wavefronts, (unsigned long long)d->read_ideal_wavefronts);
    printf("stage occupancy (CTA 0): %.2f of %u stages hold data on average\n", r->stages_filled_avg, d->stages);
    if (r->findings || r->deadlock)
        printf("protocol: BUG (%s) - run `tmasim check` for the explanation\n",
               r->findings ? r->first.rule : "deadlock");
    if (trace_path)
        printf("trace: %s (%llu events)\n", trace_path, (unsigned long long)r->trace_events);
}

/* pipe_opts.progress: the share of the estimated events simulated so far (the estimate may
 * fall short: the bar stays at 99% until the run ends) */
static void sim_progress(void *user, uint64_t events)
{
    cli_progress *bar = user;
    uint64_t cap = bar->total - bar->total / 100;
    cli_progress_update(bar, events < cap ? events : cap);
}

int cmd_sim(int argc, char **argv)
{
    const char *path = NULL, *out = NULL, *gpu = "h100", *params_file = NULL, *sweep = NULL;
    cli_format fmt = CLI_FORMAT_TABLE;
    err_info e = {0};
    int list = 0, force = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return EXIT_OK;
        } else if (!strcmp(a, "--params-list")) {
            list = 1;
        } else if (!strcmp(a, "--force")) {
            force = 1;
        } else if (i + 1 < argc && !strcmp(a, "--format")) {
            if (cli_format_parse(argv[++i], &fmt, &e))
                return cli_report("sim", &e);
        } else if (i + 1 < argc && !strcmp(a, "-o")) {
            out = argv[++i];
            if (cli_check_outpath("-o", out, &e))
                return cli_report("sim", &e);
        } else if (i + 1 < argc && !strcmp(a, "--gpu")) {
            gpu = argv[++i];
        } else if (i + 1 < argc && !strcmp(a, "--params")) {
            params_file = argv[++i];
        } else if (i + 1 < argc && !strcmp(a, "--sweep")) {
            sweep = argv[++i];
        } else if (!strcmp(a, "--format") || !strcmp(a, "-o") || !strcmp(a, "--gpu") || !strcmp(a, "--params") ||
                   !strcmp(a, "--sweep")) {
            fprintf(stderr, "tmasim sim: %s: needs a value (%s)\n", a,
                    !strcmp(a, "--format") ? "table csv json"
                    : !strcmp(a, "-o")     ? "a trace file to write"
                    : !strcmp(a, "--gpu")  ? params_gpus()
                    : !strcmp(a, "--params") ? "a file of 'name = value' lines"
                                             : "KEY=V1,V2,...");
            return EXIT_BAD_INPUT;
        } else if (a[0] == '-') {
            fprintf(stderr, "tmasim sim: unknown option '%s' (allowed -o, --gpu, --params, --sweep, --format, "
                            "--params-list, --force, --help)\n", a);
            return EXIT_BAD_INPUT;
        } else if (!path) {
            path = a;
        } else {
            fprintf(stderr, "tmasim sim: more than one description ('%s')\n", a);
            return EXIT_BAD_INPUT;
        }
    }
    pipe_params p;
    if (params_for_gpu(gpu, &p, &e))
        return cli_report("sim", &e);
    if (list) {
        size_t n;
        const params_info *t = params_table(&n);
        printf("%-26s %10s %-10s %s\n", "parameter", gpu, "unit", "source");
        for (size_t k = 0; k < n; k++)
            printf("%-26s %10g %-10s %s\n", t[k].name, params_get(&p, t[k].name, NULL), t[k].unit,
                   params_source(gpu, t[k].name));
        return EXIT_OK;
    }
    if (!path) {
        fprintf(stderr, "tmasim sim: DESC.yaml: missing (usage: tmasim sim DESC.yaml [-o TRACE] [--gpu h100] "
                        "[--params FILE] [--sweep KEY=V1,V2,...] [--format table|csv|json])\n");
        return EXIT_BAD_INPUT;
    }
    if (params_file && params_load(&p, params_file, &e))
        return cli_report("sim", &e);
    pipe_desc d;
    if (desc_load(path, &d, &e))
        return cli_report("sim", &e);
    if (d.math == PIPE_MATH_WGMMA) {
        fprintf(stderr, "tmasim sim: %s: field 'consumer.math.kind' = wgmma: the simulator does not time wgmma "
                        "pipelines yet (tmasim check checks their protocol and descriptors; tmahw run times them)\n",
                path);
        return EXIT_BAD_INPUT;
    }

    if (sweep) {
        char key[64];
        const char *eq = strchr(sweep, '=');
        if (!eq || eq == sweep || (size_t)(eq - sweep) >= sizeof key) {
            fprintf(stderr, "tmasim sim: --sweep '%s': expected KEY=V1,V2,...\n", sweep);
            return EXIT_BAD_INPUT;
        }
        memcpy(key, sweep, (size_t)(eq - sweep));
        key[eq - sweep] = 0;
        double vals[64];
        unsigned nv = 0;
        for (const char *s = eq + 1; *s && nv < 64;) {
            char *end;
            vals[nv] = strtod(s, &end);
            if (end == s || (*end && *end != ',')) {
                fprintf(stderr, "tmasim sim: --sweep %s: '%s' is not a list of numbers\n", key, eq + 1);
                return EXIT_BAD_INPUT;
            }
            nv++;
            s = *end ? end + 1 : end;
        }
        if (nv == 0) {
            fprintf(stderr, "tmasim sim: --sweep %s: no values (expected KEY=V1,V2,...)\n", key);
            return EXIT_BAD_INPUT;
        }
        for (unsigned k = 0; k < nv; k++) {   /* every value is checked before the table starts */
            pipe_desc dk = d;
            pipe_params pk = p;
            sweep_forget_derived(&dk);
            if (sweep_set_number(&dk, &pk, key, vals[k], &e) || pipe_desc_derive(&dk, &e) ||
                cli_sim_budget("sim", &dk, &pk, 0, force, &e))
                return cli_report("sim", &e);
        }
        if (fmt == CLI_FORMAT_CSV)
            printf("%s,kernel_ns,bottleneck,hbm_util,consumer_wait_full_pct,verdict\n", key);
        else if (fmt == CLI_FORMAT_JSON)
            printf("[");
        else
            printf("%-12s %12s  %-15s %6s %10s  %s\n", key, "time(us)", "bottleneck", "hbm%", "wait-full%", "protocol");
        cli_progress bar;
        cli_progress_begin(&bar, "sweep", nv);
        for (unsigned k = 0; k < nv; k++) {
            pipe_desc dk = d;
            pipe_params pk = p;
            sweep_forget_derived(&dk);
            if (sweep_set_number(&dk, &pk, key, vals[k], &e) || pipe_desc_derive(&dk, &e)) {
                cli_progress_end(&bar);
                return cli_report("sim", &e);
            }
            pipe_result r;
            pipe_opts o = {.params = &pk};
            if (pipe_run(&dk, &o, &r, &e))
                return cli_report("sim", &e);
            int cons = pipe_plan_consumer_role(&dk);
            double wf = 100.0 * r.role[cons].wait_full_ns / ((double)r.role[cons].warps * (double)(r.kernel_ns ? r.kernel_ns : 1));
            const char *verdict = r.findings || r.deadlock ? "BUG" : "ok";
            cli_progress_end(&bar);   /* the bar's line is cleared before a row is written */
            if (fmt == CLI_FORMAT_CSV)
                printf("%g,%lld,%s,%.4f,%.1f,%s\n", vals[k], (long long)r.kernel_ns, r.bottleneck_kind, r.hbm_util, wf,
                       verdict);
            else if (fmt == CLI_FORMAT_JSON)
                printf("%s{\"%s\":%g,\"kernel_ns\":%lld,\"bottleneck\":\"%s\",\"hbm_util\":%.4f,\"consumer_wait_full_pct\":%.1f,"
                       "\"verdict\":\"%s\"}",
                       k ? "," : "", key, vals[k], (long long)r.kernel_ns, r.bottleneck_kind, r.hbm_util, wf, verdict);
            else
                printf("%-12g %12.3f  %-15s %6.0f %10.1f  %s\n", vals[k], r.kernel_ns / 1e3, r.bottleneck_kind,
                       100 * r.hbm_util, wf, verdict);
            fflush(stdout);
            cli_progress_update(&bar, k + 1);
        }
        cli_progress_end(&bar);
        if (fmt == CLI_FORMAT_JSON)
            printf("]\n");
        return EXIT_OK;
    }

    if (cli_sim_budget("sim", &d, &p, out != NULL, force, &e))
        return cli_report("sim", &e);
    trace t;
    trace_init(&t, TRACE_SRC_SIM);
    pipe_result r;
    /* a progress line on a terminal for a run of more than about a second */
    pipe_budget est;
    pipe_budget_estimate(&d, out != NULL, &p, &est);
    cli_progress bar;
    cli_progress_begin(&bar, "sim", (uint64_t)est.sim_events);
    int long_run = est.sim_events / CLI_SIM_EVENTS_PER_S > 1;
    pipe_opts o = {.params = &p, .out = out ? &t : NULL, .progress = long_run && bar.enabled ? sim_progress : NULL,
                   .progress_user = &bar};
    int rc = pipe_run(&d, &o, &r, &e);
    cli_progress_end(&bar);
    if (rc) {
        trace_free(&t);
        return cli_report("sim", &e);
    }
    if (out) {
        snprintf(t.gpu, sizeof t.gpu, "%s (sim: %s)", strcmp(gpu, "h100") ? "H100 PCIe" : "H100 SXM", gpu);
        snprintf(t.note, sizeof t.note, "tmasim sim %s%s%s", path, params_file ? " --params " : "",
                 params_file ? params_file : "");
        /* the trace carries its description, so that a viewer rebuilds the plan from it */
        char *text = NULL;
        size_t len = 0;
        if (cli_read_file(path, &text, &len, &e) == ERR_OK)
            trace_set_desc(&t, text, len, pipe_plan_hash(&d), &e);
        free(text);
        if (trace_write(out, &t, &e)) {
            trace_free(&t);
            return cli_report("sim", &e);
        }
    }
    trace_free(&t);
    print_result(&d, &r, fmt, out);
    return r.findings || r.deadlock ? EXIT_FINDING : EXIT_OK;
}
