/* tmasim replay DIR: the committed H100 observations against the current models. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"
#include "replay_json.h"

static void usage(FILE *to)
{
    fprintf(to, "usage: tmasim replay [DIR] [--format table|csv|json] [--details N]\n"
                "Re-runs every case recorded by `tmahw validate` (default DIR traces/h100/validation)\n"
                "(or, for a DIR holding wgmma.txt such as traces/h200/wgmma, by `tmahw wgmma-record`)\n"
                "through the current models and counts agreements per kind (encode, load, store, bank).\n"
                "Prints the first N disagreements (default 10) with the case and the first difference.\n"
                "Exit 0: all agree; 1: any disagreement; 2: unreadable recording or bad flags.\n");
}

static void json_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            printf("\\%c", *s);
        else if ((unsigned char)*s < 32)
            printf("\\u%04x", (unsigned char)*s);
        else
            putchar(*s);
    }
    putchar('"');
}

static void csv_field(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"')
            putchar('"');
        putchar(*s);
    }
    putchar('"');
}

int cmd_replay(int argc, char **argv)
{
    const char *dir = "traces/h100/validation";
    cli_format fmt = CLI_FORMAT_TABLE;
    uint64_t ndetails = 10;
    err_info e;
    err_clear(&e);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return EXIT_OK;
        }
        if (!strcmp(argv[i], "--format") || !strcmp(argv[i], "--details")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "tmasim replay: %s: missing value\n", argv[i]);
                return EXIT_BAD_INPUT;
            }
            int rc = !strcmp(argv[i], "--format") ? cli_format_parse(argv[i + 1], &fmt, &e)
                                                  : cli_parse_u64(argv[i + 1], "--details", 0, REPLAY_MAX_DETAILS,
                                                                  &ndetails, &e);
            if (rc != ERR_OK)
                return cli_report("replay", &e);
            i++;
            continue;
        }
        if (argv[i][0] == '-') {
            fprintf(stderr, "tmasim replay: %s: unknown flag (allowed: --format --details --help)\n", argv[i]);
            return EXIT_BAD_INPUT;
        }
        dir = argv[i];
    }
    char wg_path[4096];
    snprintf(wg_path, sizeof wg_path, "%s/wgmma.txt", dir);
    FILE *wg = fopen(wg_path, "r");
    if (wg) {
        fclose(wg);
        return cmd_wgmma_replay(wg_path, fmt, ndetails);
    }
    replay_report *r = calloc(1, sizeof *r);
    if (!r) {
        fprintf(stderr, "tmasim replay: out of memory\n");
        return EXIT_BAD_INPUT;
    }
    if (replay_dir(dir, r, &e) != ERR_OK) {
        int rc = cli_report("replay", &e);
        free(r);
        return rc;
    }
    int any = 0;
    for (int k = 0; k < REPLAY_KIND_COUNT; k++)
        any |= r->counts[k].disagree != 0;
    uint32_t shown = r->ndetails < ndetails ? r->ndetails : (uint32_t)ndetails;
    if (fmt == CLI_FORMAT_CSV) {
        printf("kind,cases,agree,disagree,unusable\n");
        for (int k = 0; k < REPLAY_KIND_COUNT; k++)
            printf("%s,%u,%u,%u,%u\n", replay_kind_name((replay_kind)k), r->counts[k].cases, r->counts[k].agree,
                   r->counts[k].disagree, r->counts[k].unusable);
    } else if (fmt == CLI_FORMAT_JSON) {
        printf("{\"recording\":");
        json_string(dir);
        printf(",\"gpu\":");
        json_string(r->gpu);
        printf(",\"driver\":");
        json_string(r->driver);
        printf(",\"date\":");
        json_string(r->date);
        printf(",\"kinds\":{");
        for (int k = 0; k < REPLAY_KIND_COUNT; k++)
            printf("%s\"%s\":{\"cases\":%u,\"agree\":%u,\"disagree\":%u,\"unusable\":%u}", k ? "," : "",
                   replay_kind_name((replay_kind)k), r->counts[k].cases, r->counts[k].agree, r->counts[k].disagree,
                   r->counts[k].unusable);
        printf("},\"disagreements\":[");
        for (uint32_t i = 0; i < shown; i++) {
            printf("%s{\"kind\":\"%s\",\"id\":%u,\"params\":", i ? "," : "", replay_kind_name(r->details[i].kind),
                   r->details[i].id);
            json_string(r->details[i].params);
            printf(",\"detail\":");
            json_string(r->details[i].detail);
            printf("}");
        }
        printf("]}\n");
    } else {
        printf("recording %s: %s, %s, %s\n", dir, r->gpu, r->driver, r->date);
        printf("%-8s %7s %7s %9s %9s\n", "kind", "cases", "agree", "disagree", "unusable");
        for (int k = 0; k < REPLAY_KIND_COUNT; k++)
            printf("%-8s %7u %7u %9u %9u\n", replay_kind_name((replay_kind)k), r->counts[k].cases, r->counts[k].agree,
                   r->counts[k].disagree, r->counts[k].unusable);
        for (uint32_t i = 0; i < shown; i++) {
            printf("\n%s case %u: %s\n  %s\n", replay_kind_name(r->details[i].kind), r->details[i].id,
                   r->details[i].params, r->details[i].detail);
        }
    }
    if (fmt == CLI_FORMAT_CSV && shown) {
        printf("\nkind,id,params,detail\n");
        for (uint32_t i = 0; i < shown; i++) {
            printf("%s,%u,", replay_kind_name(r->details[i].kind), r->details[i].id);
            csv_field(r->details[i].params);
            putchar(',');
            csv_field(r->details[i].detail);
            putchar('\n');
        }
    }
    free(r);
    return any ? EXIT_FINDING : EXIT_OK;
}
