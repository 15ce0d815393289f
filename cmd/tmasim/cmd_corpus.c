/* tmasim corpus --seed S --count N -o DIR: a seeded random corpus of valid pipeline
 * descriptions (sim/corpus.h) for recording on GPUs (hw/corpus-record.sh). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cmds.h"
#include "corpus.h"
#include "desc.h"
#include "pipe.h"

static void usage(FILE *to)
{
    fprintf(to,
            "usage: tmasim corpus --seed S --count N -o DIR [--family pipelines|wgmma] [--min-us US] [--max-us US]\n"
            "                     [--format table|csv|json]\n"
            "\n"
            "Writes N pipeline descriptions drawn at random (seed S) from the whole space the format allows\n"
            "(every mode, 1-32 stages, 1-16 CTAs per SM, a quarter of a wave to 4 waves, clusters 1-16 with\n"
            "and without multicast, every dtype and swizzle, box shapes, read patterns and widths, math kinds\n"
            "and amounts, stores and reductions; see sim/corpus.c) to DIR/NAME.yaml, and DIR/index.csv with\n"
            "each one's shape, its split (fit or test: a fixed rule on the name) and the simulator's\n"
            "prediction. A candidate is redrawn when `tmasim check` would refuse it (the rule is counted) or\n"
            "when its simulated time is outside [--min-us, --max-us] (default 5 .. 1500), so that the whole\n"
            "corpus records in minutes. The same seed and count give the same files.\n"
            "  --family F   pipelines (default: the space above, names corpus_SSSS_NNNN) or wgmma: GEMM pipelines\n"
            "               (math kind wgmma: bf16, f16, e4m3, e5m2; N 32-256; 1-2 consumer warpgroups; 2-8 stages;\n"
            "               wgmma_wait 0-2; TMA or direct epilogue; cluster 2 with multicast; a quarter of a wave\n"
            "               to six waves of tiles (of tile pairs with clusters); names wgmma_SSSS_NNNN)\n"
            "exit status: 0 ok, 2 bad input\n");
}

typedef struct reject {
    char rule[64];
    uint32_t n;
} reject;

typedef struct tally {
    reject r[64];
    uint32_t nr;
    uint32_t mode[PIPE_MODE_COUNT], cps_gt1, multiwave, cluster[17], mcast, split[2];
    double sim_ns;
} tally;

static void count_reject(tally *t, const char *rule)
{
    for (uint32_t k = 0; k < t->nr; k++)
        if (!strcmp(t->r[k].rule, rule)) {
            t->r[k].n++;
            return;
        }
    if (t->nr < 64) {
        snprintf(t->r[t->nr].rule, sizeof t->r[t->nr].rule, "%s", rule);
        t->r[t->nr++].n = 1;
    }
}

typedef size_t (*candidate_fn)(uint64_t seed, uint32_t index, uint32_t attempt, char *buf, size_t cap, char name[32]);

/* Draws candidates for index i until one is valid and in the time window. */
static int draw(candidate_fn candidate, uint64_t seed, uint32_t i, double min_ns, double max_ns, char *text, size_t cap, char name[32],
                pipe_desc *d, pipe_result *r, tally *t)
{
    for (uint32_t attempt = 0; attempt < 10000; attempt++) {
        size_t len = candidate(seed, i, attempt, text, cap, name);
        if (len >= cap)
            continue;
        char file[48];
        snprintf(file, sizeof file, "%s.yaml", name);
        err_info e = {0};
        if (desc_parse_yaml(text, len, file, d, &e) != ERR_OK) {
            count_reject(t, e.rule[0] ? e.rule : "parse");
            continue;
        }
        if (pipe_run(d, NULL, r, &e) != ERR_OK || r->findings || r->deadlock) {
            count_reject(t, "simulator_finding");
            continue;
        }
        if (r->kernel_ns < min_ns || r->kernel_ns > max_ns) {
            count_reject(t, "simulated_time_window");
            continue;
        }
        return 0;
    }
    return -1;
}

static int write_text(const char *path, const char *text, err_info *e)
{
    cli_outfile f;
    if (cli_outfile_open(&f, path, e))
        return -1;
    fputs(text, f.fp);
    return cli_outfile_commit(&f, e) ? -1 : 0;
}

static void print_tally(const tally *t, uint32_t n, cli_format fmt)
{
    if (fmt == CLI_FORMAT_JSON) {
        printf("{\"count\":%u,\"fit\":%u,\"test\":%u,\"modes\":{", n, t->split[CORPUS_FIT], t->split[CORPUS_TEST]);
        for (int m = 0; m < PIPE_MODE_COUNT; m++)
            printf("%s\"%s\":%u", m ? "," : "", pipe_mode_name((pipe_mode)m), t->mode[m]);
        printf("},\"ctas_per_sm_gt1\":%u,\"multiwave\":%u,\"multicast\":%u,\"simulated_s\":%.6f,\"rejected\":{", t->cps_gt1,
               t->multiwave, t->mcast, t->sim_ns / 1e9);
        for (uint32_t k = 0; k < t->nr; k++)
            printf("%s\"%s\":%u", k ? "," : "", t->r[k].rule, t->r[k].n);
        printf("}}\n");
        return;
    }
    if (fmt == CLI_FORMAT_CSV)
        return;
    printf("%u descriptions (fit %u, test %u); simulated kernel time in all %.1f ms\n", n, t->split[CORPUS_FIT],
           t->split[CORPUS_TEST], t->sim_ns / 1e6);
    for (int m = 0; m < PIPE_MODE_COUNT; m++)
        printf("  %-18s %u\n", pipe_mode_name((pipe_mode)m), t->mode[m]);
    printf("  ctas_per_sm > 1   %u\n  over one wave     %u\n  multicast         %u\n  clusters         ", t->cps_gt1,
           t->multiwave, t->mcast);
    for (int c = 1; c <= 16; c *= 2)
        printf(" %d:%u", c, t->cluster[c]);
    printf("\nredrawn candidates:\n");
    for (uint32_t k = 0; k < t->nr; k++)
        printf("  %-28s %u\n", t->r[k].rule, t->r[k].n);
}

/* Checks the flags; returns 0 with the values set, else an exit status. */
static int parse_args(int argc, char **argv, uint64_t *seed, uint64_t *count, const char **dir, double *min_us,
                      double *max_us, cli_format *fmt, candidate_fn *candidate)
{
    err_info e = {0};
    int have_seed = 0, have_count = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return -1;
        }
        if (i + 1 >= argc || a[0] != '-') {
            fprintf(stderr, "tmasim corpus: '%s': unknown argument or missing value (allowed --seed, --count, -o, "
                            "--family, --min-us, --max-us, --format, --help)\n", a);
            return EXIT_BAD_INPUT;
        }
        const char *v = argv[++i];
        uint64_t x;
        if (!strcmp(a, "--seed")) {
            if (cli_parse_u64(v, "--seed", 0, UINT32_MAX, seed, &e))
                return cli_report("corpus", &e);
            have_seed = 1;
        } else if (!strcmp(a, "--count")) {
            if (cli_parse_u64(v, "--count", 1, 9999, count, &e))
                return cli_report("corpus", &e);
            have_count = 1;
        } else if (!strcmp(a, "-o")) {
            *dir = v;
        } else if (!strcmp(a, "--family")) {
            if (strcmp(v, "pipelines") && strcmp(v, "wgmma")) {
                fprintf(stderr, "tmasim corpus: --family: '%s' (allowed pipelines, wgmma)\n", v);
                return EXIT_BAD_INPUT;
            }
            *candidate = strcmp(v, "wgmma") ? corpus_candidate : corpus_wgmma_candidate;
        } else if (!strcmp(a, "--min-us") || !strcmp(a, "--max-us")) {
            if (cli_parse_u64(v, a, 1, 10000000, &x, &e))
                return cli_report("corpus", &e);
            *(!strcmp(a, "--min-us") ? min_us : max_us) = (double)x;
        } else if (!strcmp(a, "--format")) {
            if (cli_format_parse(v, fmt, &e))
                return cli_report("corpus", &e);
        } else {
            fprintf(stderr, "tmasim corpus: '%s': unknown option (allowed --seed, --count, -o, --family, --min-us, "
                            "--max-us, --format, --help)\n", a);
            return EXIT_BAD_INPUT;
        }
    }
    if (!have_seed || !have_count || !*dir) {
        fprintf(stderr, "tmasim corpus: %s is required (tmasim corpus --seed S --count N -o DIR)\n",
                !have_seed ? "--seed" : !have_count ? "--count" : "-o DIR");
        return EXIT_BAD_INPUT;
    }
    if (*min_us >= *max_us) {
        fprintf(stderr, "tmasim corpus: --min-us %g must be below --max-us %g\n", *min_us, *max_us);
        return EXIT_BAD_INPUT;
    }
    return 0;
}

int cmd_corpus(int argc, char **argv)
{
    uint64_t seed = 0, count = 0;
    const char *dir = NULL;
    double min_us = 5, max_us = 1500;
    cli_format fmt = CLI_FORMAT_TABLE;
    candidate_fn candidate = corpus_candidate;
    int rc = parse_args(argc, argv, &seed, &count, &dir, &min_us, &max_us, &fmt, &candidate);
    if (rc)
        return rc < 0 ? EXIT_OK : rc;
    if (mkdir(dir, 0755) && errno != EEXIST) {
        fprintf(stderr, "tmasim corpus: -o: cannot create '%s': %s\n", dir, strerror(errno));
        return EXIT_BAD_INPUT;
    }
    static tally t;
    static pipe_desc d;
    static char text[8192];
    size_t csv_cap = 256 + (size_t)count * 320, csv_len = 0;
    char *csv = malloc(csv_cap);
    if (!csv)
        return cli_report("corpus", &(err_info){ERR_IO, "out_of_memory", "index"});
    csv_len += (size_t)snprintf(csv, csv_cap, "name,split,mode,ctas,ctas_per_sm,cluster,multicast,stages,iterations,"
                                              "consumer_warps,tensors,reads,math,store,predicted_ns,verdict\n");
    cli_progress bar;
    cli_progress_begin(&bar, "corpus", count);
    err_info e = {0};
    for (uint32_t i = 0; i < count && rc == 0; i++) {
        char name[32], path[4200];
        pipe_result r;
        if (draw(candidate, seed, i, min_us * 1000, max_us * 1000, text, sizeof text, name, &d, &r, &t)) {
            fprintf(stderr, "tmasim corpus: candidate %u: no valid draw in 10000 attempts\n", i);
            rc = EXIT_BAD_INPUT;
            break;
        }
        snprintf(path, sizeof path, "%s/%s.yaml", dir, name);
        if (write_text(path, text, &e)) {
            rc = cli_report("corpus", &e);
            break;
        }
        int split = corpus_split(name);
        t.split[split]++;
        t.mode[d.mode]++;
        t.cps_gt1 += d.ctas_per_sm > 1;
        t.multiwave += d.ctas > 132u * d.ctas_per_sm;
        t.cluster[d.cluster]++;
        t.mcast += d.multicast != 0;
        t.sim_ns += (double)r.kernel_ns;
        csv_len += (size_t)snprintf(csv + csv_len, csv_cap - csv_len, "%s,%s,%s,%u,%u,%u,%d,%u,%u,%u,%u,%s,%s,%u,%lld,%s\n",
                                    name, split == CORPUS_TEST ? "test" : "fit", pipe_mode_name(d.mode), d.ctas,
                                    d.ctas_per_sm, d.cluster, d.multicast, d.stages, d.iterations, d.consumer_warps,
                                    d.ntensors, d.reads_enabled ? access_pattern_name(d.reads.pattern) : "none",
                                    pipe_math_name(d.math), d.store_bytes, (long long)r.kernel_ns, r.bottleneck_kind);
        cli_progress_update(&bar, i + 1);
    }
    cli_progress_end(&bar);
    if (rc == 0) {
        char path[4200];
        snprintf(path, sizeof path, "%s/index.csv", dir);
        if (write_text(path, csv, &e))
            rc = cli_report("corpus", &e);
    }
    free(csv);
    if (rc == 0)
        print_tally(&t, (uint32_t)count, fmt);
    return rc;
}
