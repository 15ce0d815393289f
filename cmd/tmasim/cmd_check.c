/* tmasim check DESC: the protocol verdict of a pipeline description. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"
#include "desc.h"
#include "params.h"
#include "pipe.h"

static void usage(FILE *to)
{
    fprintf(to,
            "usage: tmasim check DESC.yaml [--format table|csv|json] [--force]\n"
            "\n"
            "Runs the described pipeline through the mbarrier model (PTX semantics) and reports\n"
            "over-arrival, tx-count out of range, phase aliasing (a waiter lapped by the barrier),\n"
            "wrong parity, arrivals that land on the wrong phase, an arrival before any wait saw the\n"
            "previous phase complete (one wait per phase), re-init of a live barrier, cp.async reads\n"
            "of a stage whose commit group is in flight, and deadlocks with the chain of who waits\n"
            "on whom. Description format: examples/README.md. Runs past about 2e9 simulated events need\n"
            "--force.\n"
            "exit status: 0 protocol ok, 1 bug found (explained), 2 bad input\n");
}

int cmd_check(int argc, char **argv)
{
    const char *path = NULL;
    cli_format fmt = CLI_FORMAT_TABLE;
    err_info e = {0};
    int force = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return EXIT_OK;
        } else if (!strcmp(argv[i], "--force")) {
            force = 1;
        } else if (!strcmp(argv[i], "--format") && i + 1 < argc) {
            if (cli_format_parse(argv[++i], &fmt, &e))
                return cli_report("check", &e);
        } else if (!strcmp(argv[i], "--format")) {
            fprintf(stderr, "tmasim check: --format: needs a value (table csv json)\n");
            return EXIT_BAD_INPUT;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "tmasim check: unknown option '%s' (allowed --format, --force, --help)\n", argv[i]);
            return EXIT_BAD_INPUT;
        } else if (!path) {
            path = argv[i];
        } else {
            fprintf(stderr, "tmasim check: more than one description ('%s')\n", argv[i]);
            return EXIT_BAD_INPUT;
        }
    }
    if (!path) {
        fprintf(stderr, "tmasim check: DESC.yaml: missing (usage: tmasim check DESC.yaml [--format table|csv|json])\n");
        return EXIT_BAD_INPUT;
    }
    pipe_desc d;
    if (desc_load(path, &d, &e))
        return cli_report("check", &e);
    pipe_params p;
    params_defaults("h100", &p, NULL);
    if (cli_sim_budget("check", &d, &p, 0, force, &e))
        return cli_report("check", &e);
    pipe_result r;
    pipe_opts o = {.params = &p};
    if (pipe_run(&d, &o, &r, &e))
        return cli_report("check", &e);
    err_info v = {0};
    int verdict = pipe_verdict(&r, &v);
    const char *status = verdict ? "BUG" : "ok";
    if (fmt == CLI_FORMAT_JSON) {
        printf("{\"description\":");
        cli_json_string(stdout, path);
        printf(",\"name\":");
        cli_json_string(stdout, d.name);
        printf(",\"verdict\":\"%s\",\"rule\":", verdict ? "bug" : "ok");
        cli_json_string(stdout, verdict ? v.rule : "");
        printf(",\"findings\":%u,\"deadlock\":%s,\"explanation\":", r.findings, r.deadlock ? "true" : "false");
        cli_json_string(stdout, verdict ? v.detail : "");
        printf(",\"chain\":");
        cli_json_string(stdout, r.deadlock ? r.chain : "");
        printf("}\n");
    } else if (fmt == CLI_FORMAT_CSV) {
        printf("description,verdict,rule,findings,deadlock\n%s,%s,%s,%u,%d\n", path, verdict ? "bug" : "ok",
               verdict ? v.rule : "", r.findings, r.deadlock);
    } else {
        if (d.cpasync_groups)
            printf("%s (%s, %u stages, %u iterations, commit groups, wait_group %u, bar.sync): %s\n", d.name,
                   pipe_mode_name(d.mode), d.stages, d.iterations, d.cpasync_wait_prior, status);
        else
            printf("%s (%s, %u stages, %u iterations, full count %u, empty count %u, expect_tx %u B/stage): %s\n", d.name,
                   pipe_mode_name(d.mode), d.stages, d.iterations, d.full_count, d.empty_count, d.expect_tx, status);
        if (verdict) {
            printf("  rule: %s\n  %s\n", v.rule, r.findings ? v.detail : r.chain);
            if (r.findings > 1)
                printf("  (%u findings in all; the first is shown)\n", r.findings);
            if (r.deadlock && r.findings)
                printf("  and the run deadlocks: %s\n", r.chain);
        }
    }
    return verdict ? EXIT_FINDING : EXIT_OK;
}
