/* tmasim accuracy DIR...: the simulator against hardware recordings of a corpus.
 * Each DIR holds what hw/corpus-record.sh brought back from one GPU: meta.json (GPU,
 * driver, date, commit) and per description NAME.yaml, NAME.json (the `tmahw run`
 * report: kernel time without recording, correctness), NAME.counters.json (Range
 * Profiler counters) and optionally NAME.tmt (the trace of the first CTAs). For every
 * description the simulator predicts the kernel time with the GPU's parameter set and
 * names the bottleneck; the recording's evidence (counters, trace waits) names the
 * bottleneck by the same rule (sim/verdict.h). The table gives, per GPU and split (the
 * corpus's fixed fit/test rule), the median and largest |error| and the verdict
 * agreement. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>

#include "cli.h"
#include "cmds.h"
#include "corpus.h"
#include "desc.h"
#include "params.h"
#include "pipe.h"
#include "trace.h"
#include "verdict.h"

static void usage(FILE *to)
{
    fprintf(to,
            "usage: tmasim accuracy DIR [DIR...] [--split test|fit|all] [--gpu SET] [--params FILE]\n"
            "                       [--list] [--write-shares] [--format table|csv|json]\n"
            "                       [--require-median PCT] [--require-max PCT] [--require-verdict PCT]\n"
            "\n"
            "Compares the simulator with a corpus recorded on a GPU (hw/corpus-record.sh: NAME.yaml,\n"
            "NAME.json, NAME.counters.json, NAME.tmt and meta.json per DIR). Per GPU and split: how many\n"
            "descriptions, median / p90 / largest |kernel-time error|, how many within 5%% and 15%%, and how\n"
            "often the simulator's bottleneck verdict equals the one the recording's evidence gives\n"
            "(DRAM and L2 bytes, shared-memory wavefronts per cycle, math pipe load, consumers' waits).\n"
            "Descriptions named in DIR/superseded.txt (recordings of a kernel that did not do the stated\n"
            "work) count as not usable.\n"
            "  --split S        test (default: the half calibration never looks at), fit, or all\n"
            "  --gpu SET        parameter set for every DIR (default: from meta.json's GPU name: %s)\n"
            "  --params FILE    'name = value' lines over the set\n"
            "  --list           one line per description (name, split, measured, predicted, error, verdicts;\n"
            "                   where the recording has them, its sub-partitions' issue-active share and the\n"
            "                   stall reason that held its warps longest, with its share of warp cycles)\n"
            "  --write-shares   write NAME.shares.json beside each trace: the consumers' wait and work shares\n"
            "                   the verdict uses, so that a corpus may keep them without every trace\n"
            "  --require-*      exit 1 when a DIR's median or largest |error| exceeds PCT, or its\n"
            "                   verdict agreement is below PCT\n"
            "exit status: 0 ok, 1 a requirement missed, 2 bad input\n",
            params_gpus());
}

typedef struct row {
    char name[64];
    int split;                 /* CORPUS_FIT / CORPUS_TEST */
    double hw_ns, sim_ns, err; /* err = sim / hw - 1 */
    verdict_kind v_sim, v_hw;
    verdict_evidence ev_hw, ev_sim;
    double issue;              /* the recording's issue-active share of active cycles; < 0: not recorded */
    double stall_share;        /* the largest stall reason's share of warp cycles */
    char stall[40];            /* its name ("short_scoreboard"), "" when not recorded */
} row;

typedef struct summary {
    size_t n, within5, within15, agree, unusable;
    double median, p90, max;
    char worst[64];
} summary;

typedef struct opts {
    int split;                 /* -1 all */
    const char *gpu, *params_file;
    int list, write_shares;
    cli_format fmt;
    double req_median, req_max, req_verdict;   /* < 0: none */
} opts;

static double jnum(json_t *o, const char *key, double dflt)
{
    json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : dflt;
}

static const char *gpu_set_of(const char *gpu_name)
{
    if (strstr(gpu_name, "H200"))
        return "h200";
    if (strstr(gpu_name, "PCIe"))
        return "h100-pcie";
    return "h100";
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The consumers' shares of waiting for data and of work in the recorded trace
 * (NAME.tmt), or as a earlier run wrote them down (NAME.shares.json, for corpora that keep
 * the shares and not every trace). */
static void trace_shares(const char *dir, const char *name, int write, double *wait, double *busy)
{
    char path[4200], spath[4200];
    snprintf(path, sizeof path, "%s/%s.tmt", dir, name);
    snprintf(spath, sizeof spath, "%s/%s.shares.json", dir, name);
    struct stat st;
    if (stat(path, &st) == 0) {
        trace t;
        err_info e = {0};
        trace_init(&t, TRACE_SRC_HW);
        if (trace_read(path, &t, &e) == ERR_OK)
            verdict_trace_shares(&t, wait, busy);
        trace_free(&t);
        cli_outfile f;
        if (write && *wait >= 0 && cli_outfile_open(&f, spath, &e) == ERR_OK) {
            fprintf(f.fp, "{\"wait_data\":%.6f,\"busy\":%.6f,\"from\":\"%s.tmt: consumer warps' waits on full "
                          "barriers and cp.async groups, and reads + math, over their lifetimes\"}\n", *wait, *busy, name);
            cli_outfile_commit(&f, &e);
        }
        return;
    }
    json_t *j = json_load_file(spath, 0, NULL);
    if (j) {
        *wait = jnum(j, "wait_data", -1);
        *busy = jnum(j, "busy", -1);
        json_decref(j);
    }
}

/* Where the recorded kernel's warps spent their cycles: the sub-partitions' issue-active
 * share of their active cycles, and the warp-state counter other than "selected" (issuing)
 * that holds the most warp cycles. Recordings without these counters leave issue < 0. */
static void hw_issue_profile(json_t *m, row *r)
{
    static const char prefix[] = "smsp__warps_issue_stalled_";
    double act = jnum(m, "smsp__cycles_active.sum", -1), iss = jnum(m, "smsp__issue_active.sum", -1);
    r->issue = act > 0 && iss >= 0 ? iss / act : -1;
    r->stall[0] = 0;
    r->stall_share = 0;
    double total = 0, best = 0;
    const char *key;
    json_t *v;
    json_object_foreach(m, key, v) {
        if (strncmp(key, prefix, sizeof prefix - 1) || !json_is_number(v))
            continue;
        double x = json_number_value(v);
        total += x;
        const char *reason = key + sizeof prefix - 1;
        size_t len = strcspn(reason, ".");
        if (x > best && strncmp(reason, "selected", len) && len < sizeof r->stall) {
            best = x;
            snprintf(r->stall, sizeof r->stall, "%.*s", (int)len, reason);
        }
    }
    r->stall_share = total > 0 ? best / total : 0;
}

/* The recording's counters and trace waits -> its evidence. */
static void hw_evidence(const char *dir, const char *name, const pipe_desc *d, const pipe_params *p, double hw_ns,
                        int write_shares, row *r)
{
    verdict_evidence *ev = &r->ev_hw;
    r->issue = -1;
    char path[4200];
    verdict_counters c = {-1, -1, -1, -1, -1, -1};
    snprintf(path, sizeof path, "%s/%s.counters.json", dir, name);
    json_t *cj = json_load_file(path, 0, NULL);
    json_t *m = cj ? json_object_get(cj, "metrics") : NULL;
    if (m) {
        double rd = jnum(m, "dram__bytes_read.sum", -1), wr = jnum(m, "dram__bytes_write.sum", 0);
        c.dram_bytes = rd >= 0 ? rd + wr : -1;
        c.l2_bytes = jnum(m, "lts__t_bytes.sum", -1);
        c.smem_wavefronts = jnum(m, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", -1);
        c.sm_cycles = jnum(m, "sm__cycles_elapsed.max", -1);
        c.tensor_cycles = jnum(m, "sm__pipe_tensor_op_hmma_cycles_active.sum", -1);
        double sectors = jnum(m, "lts__t_sectors_srcunit_tex_op_read.sum", -1);
        c.l2_read_bytes = sectors >= 0 ? 32 * sectors : -1;
        hw_issue_profile(m, r);
    }
    json_decref(cj);
    double wait = -1, busy = -1;
    trace_shares(dir, name, write_shares, &wait, &busy);
    if (d->math == PIPE_MATH_WGMMA)
        verdict_gemm_hw_evidence(d, p, hw_ns, &c, wait, ev);
    else
        verdict_hw_evidence(d, p, hw_ns, &c, wait, busy, ev);
}

/* Whether DIR/superseded.txt names the description: a recording whose kernel did not do
 * the work its description states (a fault of the generated code found after it was
 * made), kept for the record and not compared. One name per line, first word; '#' and
 * blank lines are comments. */
static int superseded(const char *dir, const char *name)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/superseded.txt", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[512];
    size_t len = strlen(name);
    int found = 0;
    while (!found && fgets(line, sizeof line, f))
        found = !strncmp(line, name, len) && (line[len] == ' ' || line[len] == '\t' || line[len] == '\n' ||
                                               line[len] == '\0');
    fclose(f);
    return found;
}

/* One description of DIR: 1 a row, 0 not usable (hang, mismatch, no time, superseded),
 * 2 bad input. */
static int one(const char *dir, const char *name, const pipe_params *p, int write_shares, row *r, err_info *e)
{
    char path[4200];
    if (superseded(dir, name))
        return 0;
    snprintf(path, sizeof path, "%s/%s.json", dir, name);
    json_t *rep = json_load_file(path, 0, NULL);
    if (!rep)
        return 0;
    double hw_ns = jnum(rep, "kernel_ns", 0);
    int ok = json_is_true(json_object_get(rep, "correct")) && json_is_null(json_object_get(rep, "hang")) && hw_ns > 0;
    json_decref(rep);
    if (!ok)
        return 0;
    snprintf(path, sizeof path, "%s/%s.yaml", dir, name);
    static pipe_desc d;
    /* a recording of a description the rules now refuse (say, an instruction the GPU
     * faulted on before a rule named it) is not usable; a file that cannot be read is bad input */
    if (desc_load(path, &d, e))
        return e->code == ERR_BAD_INPUT && strcmp(e->rule, "desc_open") ? 0 : 2;
    pipe_result res;
    pipe_opts o = {.params = p};
    if (pipe_run(&d, &o, &res, e))
        return 2;
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "%s", name);
    r->split = corpus_split(name);
    r->hw_ns = hw_ns;
    r->sim_ns = (double)res.kernel_ns;
    r->err = r->sim_ns / r->hw_ns - 1.0;
    r->v_sim = res.verdict;
    r->ev_sim = res.evidence;
    hw_evidence(dir, name, &d, p, hw_ns, write_shares, r);
    r->v_hw = d.math == PIPE_MATH_WGMMA ? verdict_decide_gemm(&r->ev_hw) : verdict_decide(&r->ev_hw);
    return 1;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The description names of DIR that have a report, sorted. */
static char **names_of(const char *dir, size_t *count, err_info *e);

static void summarise(const row *rows, size_t n, int split, summary *s)
{
    memset(s, 0, sizeof *s);
    double *abs_err = malloc((n ? n : 1) * sizeof *abs_err);
    if (!abs_err)
        return;
    for (size_t k = 0; k < n; k++) {
        if (split >= 0 && rows[k].split != split)
            continue;
        double a = fabs(rows[k].err);
        abs_err[s->n++] = a;
        s->within5 += a <= 0.05;
        s->within15 += a <= 0.15;
        s->agree += rows[k].v_sim == rows[k].v_hw;
        if (a >= s->max) {
            s->max = a;
            snprintf(s->worst, sizeof s->worst, "%s", rows[k].name);
        }
    }
    if (s->n) {
        qsort(abs_err, s->n, sizeof *abs_err, cmp_double);
        s->median = s->n % 2 ? abs_err[s->n / 2] : (abs_err[s->n / 2 - 1] + abs_err[s->n / 2]) / 2;
        s->p90 = abs_err[(size_t)ceil(0.9 * (double)s->n) - 1];
    }
    free(abs_err);
}

static char **names_of(const char *dir, size_t *count, err_info *e)
{
    *count = 0;
    DIR *dp = opendir(dir);
    if (!dp) {
        err_set(e, ERR_BAD_INPUT, "dir", "'%s': cannot open the recording directory", dir);
        return NULL;
    }
    size_t cap = 64, n = 0;
    char **v = malloc(cap * sizeof *v);
    struct dirent *de;
    while (v && (de = readdir(dp))) {
        size_t len = strlen(de->d_name);
        if (len < 6 || strcmp(de->d_name + len - 5, ".yaml"))
            continue;
        if (n == cap) {
            char **grown = realloc(v, 2 * cap * sizeof *v);
            if (!grown)
                break;
            v = grown;
            cap *= 2;
        }
        v[n] = strndup(de->d_name, len - 5);
        if (v[n])
            n++;
    }
    closedir(dp);
    if (!v) {
        err_set(e, ERR_IO, "out_of_memory", "names of '%s'", dir);
        return NULL;
    }
    qsort(v, n, sizeof *v, name_cmp);
    *count = n;
    return v;
}

static void free_names(char **v, size_t n)
{
    for (size_t k = 0; k < n; k++)
        free(v[k]);
    free(v);
}

static const char *split_name(int split)
{
    return split == CORPUS_FIT ? "fit" : split == CORPUS_TEST ? "test" : "all";
}

/* The shares a verdict is decided on (verdict_decide), -1 where the recording lacks one. */
static void print_evidence(const verdict_evidence *ev)
{
    double mem = ev->dram_util > ev->l2_util ? ev->dram_util : ev->l2_util;
    printf(",%.4f,%.4f,%.4f,%.4f,%.4f", mem, ev->smem_util, ev->math_util, ev->wait_data, ev->busy);
}

static void print_rows(const char *gpu, const row *rows, size_t n, const opts *o)
{
    for (size_t k = 0; k < n; k++) {
        const row *r = &rows[k];
        if (o->split >= 0 && r->split != o->split)
            continue;
        char issue[16] = "-", stall[64] = "-", cissue[16] = "", cshare[16] = "";
        if (r->issue >= 0) {
            snprintf(issue, sizeof issue, "%.0f%%", 100 * r->issue);
            snprintf(stall, sizeof stall, "%s %.0f%%", r->stall[0] ? r->stall : "none", 100 * r->stall_share);
            snprintf(cissue, sizeof cissue, "%.4f", r->issue);
            snprintf(cshare, sizeof cshare, "%.4f", r->stall_share);
        }
        if (o->fmt == CLI_FORMAT_CSV) {
            printf("%s,%s,%s,%.0f,%.0f,%.4f,%s,%s,%s,%s,%s", gpu, r->name, split_name(r->split), r->hw_ns, r->sim_ns,
                   r->err, verdict_name(r->v_hw), verdict_name(r->v_sim), cissue, r->stall, cshare);
            print_evidence(&r->ev_hw);
            print_evidence(&r->ev_sim);
            printf("\n");
        }
        else if (o->fmt == CLI_FORMAT_TABLE)
            printf("  %-22s %-4s %11.1f %11.1f %+7.1f%%  %-15s %-15s %5s  %-24s%s\n", r->name, split_name(r->split),
                   r->hw_ns / 1e3, r->sim_ns / 1e3, 100 * r->err, verdict_name(r->v_hw), verdict_name(r->v_sim), issue,
                   stall, r->v_hw == r->v_sim ? "" : "  *");
    }
}

static void print_summary(const char *dir, const char *gpu, const char *set, const summary *s, const opts *o, int first)
{
    double agree = s->n ? 100.0 * (double)s->agree / (double)s->n : 0;
    if (o->fmt == CLI_FORMAT_JSON) {
        printf("%s{\"dir\":\"%s\",\"gpu\":\"%s\",\"params\":\"%s\",\"split\":\"%s\",\"n\":%zu,\"unusable\":%zu,"
               "\"median_abs_err_pct\":%.2f,\"p90_abs_err_pct\":%.2f,\"max_abs_err_pct\":%.2f,\"worst\":\"%s\","
               "\"within5\":%zu,\"within15\":%zu,\"verdict_agree_pct\":%.1f}",
               first ? "" : ",", dir, gpu, set, split_name(o->split), s->n, s->unusable, 100 * s->median, 100 * s->p90,
               100 * s->max, s->worst, s->within5, s->within15, agree);
        return;
    }
    if (o->fmt == CLI_FORMAT_CSV)
        return;
    printf("%-28s %-5s %4zu %8.1f%% %7.1f%% %7.1f%% %6zu %7zu %8.0f%%   %s (%zu not usable)\n", gpu, split_name(o->split),
           s->n, 100 * s->median, 100 * s->p90, 100 * s->max, s->within5, s->within15, agree, s->worst, s->unusable);
}

/* Returns the exit status for this DIR (0, 1 a requirement missed, 2 bad input). */
static int one_dir(const char *dir, const opts *o, int first)
{
    err_info e = {0};
    char path[4200], gpu[96] = "unknown GPU";
    snprintf(path, sizeof path, "%s/meta.json", dir);
    json_t *meta = json_load_file(path, 0, NULL);
    if (meta && json_is_string(json_object_get(meta, "gpu")))
        snprintf(gpu, sizeof gpu, "%s", json_string_value(json_object_get(meta, "gpu")));
    json_decref(meta);
    const char *set = o->gpu ? o->gpu : gpu_set_of(gpu);
    pipe_params p;
    if (params_for_gpu(set, &p, &e) || (o->params_file && params_load(&p, o->params_file, &e)))
        return cli_report("accuracy", &e);
    size_t n = 0;
    char **names = names_of(dir, &n, &e);
    if (!names)
        return cli_report("accuracy", &e);
    row *rows = calloc(n ? n : 1, sizeof *rows);
    size_t used = 0, unusable = 0;
    int rc = EXIT_OK;
    cli_progress bar;
    cli_progress_begin(&bar, "accuracy", n);
    for (size_t k = 0; k < n && rows; k++) {
        int got = one(dir, names[k], &p, o->write_shares, &rows[used], &e);
        if (got == 2) {
            rc = cli_report("accuracy", &e);
            break;
        }
        if (got == 1)
            used++;
        else if (o->split < 0 || corpus_split(names[k]) == o->split)
            unusable++;
        cli_progress_update(&bar, k + 1);
    }
    cli_progress_end(&bar);
    free_names(names, n);
    if (!rows || rc) {
        free(rows);
        return rows ? rc : EXIT_BAD_INPUT;
    }
    summary s;
    summarise(rows, used, o->split, &s);
    s.unusable = unusable;
    if (o->list)
        print_rows(gpu, rows, used, o);
    print_summary(dir, gpu, set, &s, o, first);
    free(rows);
    if ((o->req_median >= 0 && 100 * s.median > o->req_median) || (o->req_max >= 0 && 100 * s.max > o->req_max) ||
        (o->req_verdict >= 0 && (s.n == 0 || 100.0 * (double)s.agree / (double)s.n < o->req_verdict)))
        return EXIT_FINDING;
    return s.n ? EXIT_OK : EXIT_FINDING;
}

static int parse_pct(const char *flag, const char *v, double *out)
{
    char *end = NULL;
    double x = strtod(v, &end);
    if (!end || *end || !(x >= 0 && x <= 1000)) {
        fprintf(stderr, "tmasim accuracy: %s: '%s' (allowed a percentage 0..1000)\n", flag, v);
        return -1;
    }
    *out = x;
    return 0;
}

int cmd_accuracy(int argc, char **argv)
{
    opts o = {.split = CORPUS_TEST, .req_median = -1, .req_max = -1, .req_verdict = -1};
    const char *dirs[64];
    int ndirs = 0;
    err_info e = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return EXIT_OK;
        } else if (!strcmp(a, "--list")) {
            o.list = 1;
        } else if (!strcmp(a, "--write-shares")) {
            o.write_shares = 1;
        } else if (has && !strcmp(a, "--format")) {
            if (cli_format_parse(argv[++i], &o.fmt, &e))
                return cli_report("accuracy", &e);
        } else if (has && !strcmp(a, "--split")) {
            const char *v = argv[++i];
            if (!strcmp(v, "test"))
                o.split = CORPUS_TEST;
            else if (!strcmp(v, "fit"))
                o.split = CORPUS_FIT;
            else if (!strcmp(v, "all"))
                o.split = -1;
            else {
                fprintf(stderr, "tmasim accuracy: --split: '%s' (allowed test, fit, all)\n", v);
                return EXIT_BAD_INPUT;
            }
        } else if (has && !strcmp(a, "--gpu")) {
            o.gpu = argv[++i];
            pipe_params p;
            if (params_for_gpu(o.gpu, &p, &e))
                return cli_report("accuracy", &e);
        } else if (has && !strcmp(a, "--params")) {
            o.params_file = argv[++i];
        } else if (has && (!strcmp(a, "--require-median") || !strcmp(a, "--require-max") ||
                           !strcmp(a, "--require-verdict"))) {
            double *slot = !strcmp(a, "--require-median") ? &o.req_median
                           : !strcmp(a, "--require-max")  ? &o.req_max
                                                          : &o.req_verdict;
            if (parse_pct(a, argv[++i], slot))
                return EXIT_BAD_INPUT;
        } else if (a[0] == '-') {
            fprintf(stderr, "tmasim accuracy: '%s': unknown option or missing value (allowed --split, --gpu, --params, "
                            "--list, --write-shares, --format, --require-median, --require-max, --require-verdict, --help)\n", a);
            return EXIT_BAD_INPUT;
        } else if (ndirs < 64) {
            dirs[ndirs++] = a;
        } else {
            fprintf(stderr, "tmasim accuracy: '%s': at most 64 directories\n", a);
            return EXIT_BAD_INPUT;
        }
    }
    if (!ndirs) {
        fprintf(stderr, "tmasim accuracy: DIR: missing (usage: tmasim accuracy DIR [DIR...] [--split test|fit|all])\n");
        return EXIT_BAD_INPUT;
    }
    for (int k = 0; k < ndirs; k++) {
        struct stat st;
        if (stat(dirs[k], &st) || !S_ISDIR(st.st_mode)) {
            fprintf(stderr, "tmasim accuracy: DIR: '%s' is not a directory\n", dirs[k]);
            return EXIT_BAD_INPUT;
        }
    }
    if (o.fmt == CLI_FORMAT_CSV)
        printf("gpu,name,split,hw_ns,sim_ns,err,verdict_hw,verdict_sim,hw_issue,hw_stall,hw_stall_share,"
               "hw_mem,hw_smem,hw_math,hw_wait_data,hw_busy,sim_mem,sim_smem,sim_math,sim_wait_data,sim_busy\n");
    else if (o.fmt == CLI_FORMAT_JSON)
        printf("[");
    else
        printf("%-28s %-5s %4s %9s %8s %8s %6s %7s %9s   %s\n", "gpu", "split", "n", "median", "p90", "max", "<=5%",
               "<=15%", "verdict", "worst");
    int rc = EXIT_OK;
    for (int k = 0; k < ndirs; k++) {
        if (o.list && o.fmt == CLI_FORMAT_TABLE)
            printf("  %-22s %-4s %11s %11s %8s  %-15s %-15s %5s  %-24s\n", "name", "split", "hw (us)", "sim (us)", "error",
                   "verdict (hw)", "verdict (sim)", "issue", "hw stall (share)");
        int r = one_dir(dirs[k], &o, k == 0);
        if (r == EXIT_BAD_INPUT)
            return r;
        if (r > rc)
            rc = r;
    }
    if (o.fmt == CLI_FORMAT_JSON)
        printf("]\n");
    return rc;
}
