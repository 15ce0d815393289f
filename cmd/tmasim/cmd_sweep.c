/* tmasim sweep: a grid of configurations of one description, predicted on every core,
 * ranked by predicted time; split into shards for a Slurm job array and merged again. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cmds.h"
#include "desc.h"
#include "draw_sweep.h"
#include "params.h"
#include "sweep.h"

static void usage(FILE *to)
{
    fprintf(to,
            "usage: tmasim sweep DESC.yaml (--grid 'KEY=VALUES ...' | --grid-file FILE) [-j N] [--gpu SET|FILE]\n"
            "                    [--params FILE] [--format table|csv|json] [-o FILE.csv|FILE.json] [--png FILE]\n"
            "                    [--top N] [--force]\n"
            "       tmasim sweep DESC.yaml --grid ... --slurm DIR [--shards N] [--sbatch 'ARGS'] [--wait]\n"
            "       tmasim sweep --merge DIR [--shard K] [-j N] [--format ...] [-o FILE] [--png FILE]\n"
            "\n"
            "Predicts every point of a grid of configurations of the description (the product of the keys'\n"
            "values) and ranks them by predicted time, with the bottleneck of each. Points the description\n"
            "rules reject are listed with the rule and skipped.\n"
            "  --grid SPEC     'KEY=VALUES KEY=VALUES ...'; VALUES is a comma list of numbers, ranges A..B,\n"
            "                  box shapes WxH (innermost first) or swizzle names. KEY: stages, iterations, ctas,\n"
            "                  ctas_per_sm, consumer_warps, release_lag, cluster, box, swizzle (every tensor),\n"
            "                  box.NAME, swizzle.NAME (one tensor), or a timing parameter (sim --params-list)\n"
            "  --grid-file F   the grid from a file (KEY=VALUES per line, '#' comments)\n"
            "  -j N            threads (default: every CPU this process may use)\n"
            "  --gpu, --params the timing parameters, as for `tmasim sim`\n"
            "  -o FILE         the whole result, CSV (or JSON for .json), for `tmahw sweep` and --merge\n"
            "  --png FILE      the least predicted time over the two most influential keys (or .svg)\n"
            "  --top N         table rows (default 20)\n"
            "  --force         run points past the work limits\n"
            "  --slurm DIR     write DIR/spec.csv and a job script, submit one Slurm array task per shard\n"
            "                  (each writes DIR/shard-K.csv); then `tmasim sweep --merge DIR`\n"
            "  --shards N      shards for --slurm (default: 16, at most one per point)\n"
            "  --sbatch ARGS   more sbatch options (e.g. '--partition=cpu --cpus-per-task=8')\n"
            "  --wait          sbatch --wait: return when the array has finished\n"
            "  --merge DIR     combine the shards into the result a local run gives; a shard missing or\n"
            "                  unreadable is computed here (a shard already written is not computed again)\n"
            "  --shard K       with --merge: compute shard K only, unless it is written (an array task)\n"
            "exit status: 0 ok, 2 bad input\n");
}

typedef struct opts {
    const char *desc, *grid, *grid_file, *gpu, *params, *out, *png, *slurm, *sbatch, *merge;
    cli_format fmt;
    uint64_t jobs, top, shards, shard;
    int force, wait, have_shard;
} opts;

static const char *const value_flags[] = {"--grid", "--grid-file", "-j", "--gpu", "--params", "--format", "-o",
                                          "--png", "--top", "--slurm", "--shards", "--sbatch", "--merge", "--shard"};

static int parse_flag(opts *o, const char *a, const char *v, err_info *e)
{
    if (!strcmp(a, "--grid"))
        o->grid = v;
    else if (!strcmp(a, "--grid-file"))
        o->grid_file = v;
    else if (!strcmp(a, "-j"))
        return cli_parse_u64(v, "-j", 1, 1024, &o->jobs, e);
    else if (!strcmp(a, "--gpu"))
        o->gpu = v;
    else if (!strcmp(a, "--params"))
        o->params = v;
    else if (!strcmp(a, "--format"))
        return cli_format_parse(v, &o->fmt, e);
    else if (!strcmp(a, "-o") || !strcmp(a, "--png")) {
        *(!strcmp(a, "-o") ? &o->out : &o->png) = v;
        return cli_check_outpath(a, v, e);
    } else if (!strcmp(a, "--top"))
        return cli_parse_u64(v, "--top", 1, SWEEP_MAX_POINTS, &o->top, e);
    else if (!strcmp(a, "--slurm"))
        o->slurm = v;
    else if (!strcmp(a, "--shards"))
        return cli_parse_u64(v, "--shards", 1, 100000, &o->shards, e);
    else if (!strcmp(a, "--sbatch"))
        o->sbatch = v;
    else if (!strcmp(a, "--merge"))
        o->merge = v;
    else if (!strcmp(a, "--shard")) {
        o->have_shard = 1;
        return cli_parse_u64(v, "--shard", 0, 99999, &o->shard, e);
    }
    return ERR_OK;
}

static int parse_args(int argc, char **argv, opts *o, int *done)
{
    err_info e = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int takes = 0;
        for (size_t k = 0; k < sizeof value_flags / sizeof *value_flags; k++)
            takes |= !strcmp(a, value_flags[k]);
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            *done = 1;
            return EXIT_OK;
        } else if (!strcmp(a, "--force") || !strcmp(a, "--wait")) {
            *(!strcmp(a, "--force") ? &o->force : &o->wait) = 1;
        } else if (takes && i + 1 >= argc) {
            fprintf(stderr, "tmasim sweep: %s: needs a value (see --help)\n", a);
            return EXIT_BAD_INPUT;
        } else if (takes) {
            if (parse_flag(o, a, argv[++i], &e))
                return cli_report("sweep", &e);
        } else if (a[0] == '-') {
            fprintf(stderr, "tmasim sweep: unknown option '%s' (allowed --grid, --grid-file, -j, --gpu, --params, "
                            "--format, -o, --png, --top, --force, --slurm, --shards, --sbatch, --wait, --merge, --shard, "
                            "--help)\n", a);
            return EXIT_BAD_INPUT;
        } else if (!o->desc) {
            o->desc = a;
        } else {
            fprintf(stderr, "tmasim sweep: more than one description ('%s')\n", a);
            return EXIT_BAD_INPUT;
        }
    }
    const char *why = NULL;
    if (o->merge && (o->desc || o->grid || o->grid_file || o->slurm))
        why = "--merge DIR reads the sweep from DIR/spec.csv: no description, grid or --slurm with it";
    else if (!o->merge && !o->desc)
        why = "DESC.yaml: missing (usage: tmasim sweep DESC.yaml --grid 'KEY=VALUES ...')";
    else if (!o->merge && !o->grid == !o->grid_file)
        why = "--grid or --grid-file: exactly one is needed";
    else if (o->have_shard && !o->merge)
        why = "--shard K goes with --merge DIR (the task of a Slurm array)";
    else if ((o->shards || o->sbatch || o->wait) && !o->slurm)
        why = "--shards, --sbatch and --wait go with --slurm DIR";
    if (why) {
        fprintf(stderr, "tmasim sweep: %s\n", why);
        return EXIT_BAD_INPUT;
    }
    return EXIT_OK;
}

/* the grid text of --grid-file: lines joined, comments dropped */
static int grid_from_file(const char *path, char **spec, err_info *e)
{
    char *text;
    size_t len;
    if (cli_read_file(path, &text, &len, e))
        return e->code;
    for (char *s = text; *s;) {
        char *nl = strchr(s, '\n');
        char *hash = strchr(s, '#');
        if (hash && (!nl || hash < nl))
            memset(hash, ' ', (size_t)((nl ? nl : s + strlen(s)) - hash));
        if (!nl)
            break;
        *nl = ' ';
        s = nl + 1;
    }
    *spec = text;
    return ERR_OK;
}

/* ---- evaluation ---------------------------------------------------------------------------- */

typedef struct ctx {
    sweep_spec spec;
    pipe_desc base;
    pipe_params params;
    unsigned jobs;
    int force;
} ctx;

static int load_base(const opts *o, ctx *c, err_info *e)
{
    int drawable = 0;
    for (uint32_t a = 0; a < c->spec.grid.naxes; a++)
        drawable |= c->spec.grid.axes[a].nvalues > 1;
    if (o->png && !drawable)
        return err_set(e, ERR_BAD_INPUT, "--png", "the grid has no key with two or more values: nothing to draw");
    if (params_for_gpu(c->spec.gpu, &c->params, e) || (c->spec.params && params_load(&c->params, c->spec.params, e)))
        return e->code;
    if (desc_load(c->spec.desc, &c->base, e) || sweep_grid_check(&c->spec.grid, &c->base, e))
        return e->code;
    return ERR_OK;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/* the progress line of a sweep, drawn once it has run for a second */
typedef struct progress {
    cli_progress bar;
    double t0;
} progress;

static void on_progress(void *user, uint64_t done)
{
    progress *p = user;
    if (now_s() - p->t0 > 1.0)
        cli_progress_update(&p->bar, done);
}

/* runs the points, reporting the rate on stderr for a run of more than a second */
static int run_points(ctx *c, const uint64_t *points, uint64_t n, sweep_row *rows, err_info *e)
{
    progress pr = {.t0 = now_s()};
    cli_progress_begin(&pr.bar, "sweep", n);
    sweep_run_opts ro = {.params = &c->params, .force = c->force, .jobs = c->jobs,
                         .progress = pr.bar.enabled ? on_progress : NULL, .progress_user = &pr};
    int rc = sweep_run(&c->base, &c->spec.grid, points, n, &ro, rows, e);
    double dt = now_s() - pr.t0;
    if (dt > 1.0)
        cli_progress_end(&pr.bar);
    if (rc)
        return rc;
    uint64_t ev = 0;
    for (uint64_t i = 0; i < n; i++)
        ev += rows[i].sim_events;
    if (dt > 1)
        fprintf(stderr, "tmasim sweep: %" PRIu64 " points, %.3g simulated events in %.1f s on %u threads (%.1f M events/s)\n",
                n, (double)ev, dt, c->jobs ? c->jobs : sweep_cpus(), ev / dt / 1e6);
    return ERR_OK;
}

/* ---- output -------------------------------------------------------------------------------- */

static int write_file(const char *path, const sweep_spec *s, const sweep_row *rows, uint64_t n, uint32_t shard_k,
                      uint32_t shard_n, err_info *e)
{
    cli_outfile f;
    if (cli_outfile_open(&f, path, e))
        return e->code;
    size_t len = strlen(path);
    int json = len > 5 && !strcmp(path + len - 5, ".json");
    int rc = json ? sweep_write_json(f.fp, s, rows, n) : sweep_write_csv(f.fp, s, rows, n, shard_k, shard_n);
    if (rc) {
        cli_outfile_abort(&f);
        return err_set(e, ERR_IO, "output", "%s: write failed", path);
    }
    return cli_outfile_commit(&f, e);
}

/* the rows of one status, grouped by rule: each rule's count and first point (rules are few:
 * one pass over the rows per rule at most) */
static void print_invalid(const sweep_spec *s, const sweep_row *rows, uint64_t n, sweep_status st)
{
    uint64_t count = 0;
    for (uint64_t i = 0; i < n; i++)
        count += rows[i].status == st;
    if (!count)
        return;
    printf("\n%s points: %" PRIu64 "%s, by rule (first point of each):\n", sweep_status_name(st), count,
           st == SWEEP_INVALID ? " (skipped)" : " (protocol bugs: `tmasim check` explains them)");
    char *done = calloc(n, 1);   /* rows already counted under their rule */
    for (uint64_t i = 0; done && i < n; i++) {
        if (rows[i].status != st || done[i])
            continue;
        uint64_t same = 0;
        for (uint64_t j = i; j < n; j++)
            if (!done[j] && rows[j].status == st && !strcmp(rows[j].rule, rows[i].rule)) {
                done[j] = 1;
                same++;
            }
        char *pt = sweep_point_text(&s->grid, rows[i].index);
        printf("  %-24s %5" PRIu64 " points, e.g. %s: %s\n", rows[i].rule, same, pt ? pt : "?",
               rows[i].detail ? rows[i].detail : "");
        free(pt);
    }
    free(done);
}

static void print_table(const sweep_spec *s, const sweep_row *rows, uint64_t n, uint64_t top)
{
    uint64_t cnt[3] = {0};
    for (uint64_t i = 0; i < n; i++)
        cnt[rows[i].status]++;
    printf("%s (gpu %s): %" PRIu64 " points: %" PRIu64 " ok, %" PRIu64 " BUG, %" PRIu64 " invalid\n", s->desc, s->gpu, n,
           cnt[SWEEP_OK], cnt[SWEEP_BUG], cnt[SWEEP_INVALID]);
    double infl[SWEEP_MAX_AXES];
    sweep_influence(&s->grid, rows, n, infl);
    printf("influence (spread of the mean log2 time over a key's values):");
    for (uint32_t a = 0; a < s->grid.naxes; a++)
        printf("%s %s %.2f", a ? "," : "", s->grid.axes[a].key, infl[a]);
    printf("\n\n%5s", "rank");
    int w[SWEEP_MAX_AXES];
    for (uint32_t a = 0; a < s->grid.naxes; a++) {
        w[a] = (int)strlen(s->grid.axes[a].key);
        for (uint32_t v = 0; v < s->grid.axes[a].nvalues; v++) {
            int l = (int)strlen(s->grid.axes[a].values[v]);
            w[a] = l > w[a] ? l : w[a];
        }
        printf("  %-*s", w[a], s->grid.axes[a].key);
    }
    printf("  %12s  %-15s %6s\n", "time(us)", "bottleneck", "hbm%");
    uint64_t shown = 0;
    for (uint64_t i = 0; i < n && shown < top; i++) {
        if (rows[i].status != SWEEP_OK)
            continue;
        printf("%5" PRIu64, ++shown);
        for (uint32_t a = 0; a < s->grid.naxes; a++)
            printf("  %-*s", w[a], s->grid.axes[a].values[sweep_value_index(&s->grid, rows[i].index, a)]);
        printf("  %12.3f  %-15s %6.0f\n", rows[i].kernel_ns / 1e3, rows[i].bottleneck, 100 * rows[i].hbm_util);
    }
    if (shown < cnt[SWEEP_OK])
        printf("(the best %" PRIu64 " of %" PRIu64 "; -o FILE.csv or --format csv lists every point)\n", shown,
               cnt[SWEEP_OK]);
    print_invalid(s, rows, n, SWEEP_BUG);
    print_invalid(s, rows, n, SWEEP_INVALID);
}

static int emit(const opts *o, const sweep_spec *s, const sweep_row *rows, uint64_t n, err_info *e)
{
    if (o->out && write_file(o->out, s, rows, n, 0, 0, e))
        return e->code;
    if (o->png && draw_sweep_map(s, rows, n, o->png, e))
        return e->code;
    if (o->fmt == CLI_FORMAT_CSV)
        sweep_write_csv(stdout, s, rows, n, 0, 0);
    else if (o->fmt == CLI_FORMAT_JSON)
        sweep_write_json(stdout, s, rows, n);
    else
        print_table(s, rows, n, o->top ? o->top : 20);
    return ERR_OK;
}

/* ---- the three ways ------------------------------------------------------------------------ */

static int sweep_local(const opts *o, ctx *c, err_info *e)
{
    uint64_t n = c->spec.grid.npoints;
    uint64_t *points = malloc(n * sizeof *points);
    sweep_row *rows = calloc(n, sizeof *rows);
    int rc = points && rows ? ERR_OK : err_set(e, ERR_IO, "out_of_memory", "%" PRIu64 " points", n);
    if (!rc) {
        for (uint64_t i = 0; i < n; i++)
            points[i] = i;
        rc = run_points(c, points, n, rows, e);
    }
    if (!rc) {
        sweep_rank(rows, n);
        rc = emit(o, &c->spec, rows, n, e);
    }
    free(points);
    sweep_rows_free(rows, rows ? n : 0);
    return rc;
}

static char *path_in(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", dir, name);
    return p;
}

static char *shard_path(const char *dir, uint32_t k)
{
    char name[40];
    snprintf(name, sizeof name, "shard-%05u.csv", k);
    return path_in(dir, name);
}

static int sweep_slurm(const opts *o, ctx *c, err_info *e)
{
    uint64_t ns = o->shards ? o->shards : 16;
    if (ns > c->spec.grid.npoints)
        ns = c->spec.grid.npoints;
    if (mkdir(o->slurm, 0777) && errno != EEXIST)
        return err_set(e, ERR_BAD_INPUT, "--slurm", "cannot make directory '%s': %s", o->slurm, strerror(errno));
    /* the spec: an empty result file whose shard line gives the number of shards */
    char *spec = path_in(o->slurm, "spec.csv");
    int rc = spec ? write_file(spec, &c->spec, NULL, 0, 0, (uint32_t)ns, e) : err_set(e, ERR_IO, "out_of_memory", "path");
    free(spec);
    char *self = sweep_self_path();
    if (!rc && !self)
        rc = err_set(e, ERR_IO, "sweep", "cannot find the path of tmasim itself (/proc/self/exe)");
    char *cmd = NULL;
    size_t len = 0;
    FILE *f = rc ? NULL : open_memstream(&cmd, &len);
    if (f) {
        /* the task's threads: what Slurm gives it (its CPU affinity), the default of -j */
        fprintf(f, "'%s' sweep --merge '%s' --shard \"$SLURM_ARRAY_TASK_ID\"%s", self, o->slurm, c->force ? " --force" : "");
        fclose(f);
    }
    char jobid[64] = "";
    if (!rc && !cmd)
        rc = err_set(e, ERR_IO, "out_of_memory", "job command");
    if (!rc && (strchr(self, '\'') || strchr(o->slurm, '\'')))
        rc = err_set(e, ERR_BAD_INPUT, "--slurm", "a path with a single quote cannot go into the job script");
    if (!rc)
        rc = sweep_slurm_submit(o->slurm, "tmasim-sweep", (uint32_t)ns, cmd, o->sbatch, o->wait, jobid, sizeof jobid, e);
    free(cmd);
    free(self);
    if (!rc)
        printf("submitted Slurm job array %s: %" PRIu64 " points in %" PRIu64 " shards (%s/shard-K.csv)%s\n"
               "combine them with: tmasim sweep --merge %s\n",
               jobid, c->spec.grid.npoints, ns, o->slurm, o->wait ? ", finished" : "", o->slurm);
    return rc;
}

/* shard k of n from its file when it is there and belongs to this sweep */
static int read_shard(const ctx *c, const char *path, uint32_t k, uint32_t n, sweep_row **rows, uint64_t *count)
{
    sweep_spec s;
    uint32_t sk, sn;
    err_info e = {0};
    if (access(path, F_OK) || sweep_read_csv(path, &s, rows, count, &sk, &sn, &e))
        return -1;
    int ok = sweep_spec_same(&s, &c->spec) && sk == k && sn == n;
    uint64_t *want = ok ? malloc((c->spec.grid.npoints / n + 1) * sizeof *want) : NULL;
    uint64_t m = want ? sweep_shard_points(&c->spec.grid, k, n, want) : 0;
    ok = ok && want && m == *count;
    for (uint64_t i = 0; ok && i < m; i++)
        ok = (*rows)[i].index == want[i];
    free(want);
    sweep_spec_free(&s);
    if (!ok) {
        sweep_rows_free(*rows, *count);
        *rows = NULL;
        *count = 0;
        fprintf(stderr, "tmasim sweep: %s belongs to another sweep or is incomplete: computed again\n", path);
    }
    return ok ? 0 : -1;
}

static int compute_shards(ctx *c, const char *dir, const uint32_t *ks, uint32_t nk, uint32_t n, sweep_row *all,
                          err_info *e)
{
    uint64_t per = c->spec.grid.npoints / n + 1, total = 0;
    uint64_t *points = calloc((size_t)nk * per, sizeof *points);
    uint64_t *count = calloc(nk, sizeof *count);
    sweep_row *rows = calloc((size_t)nk * per, sizeof *rows);
    int rc = points && count && rows ? ERR_OK : err_set(e, ERR_IO, "out_of_memory", "shards");
    for (uint32_t j = 0; !rc && j < nk; j++) {
        count[j] = sweep_shard_points(&c->spec.grid, ks[j], n, points + total);
        total += count[j];
    }
    if (!rc)
        rc = run_points(c, points, total, rows, e);
    uint64_t at = 0;
    for (uint32_t j = 0; !rc && j < nk; at += count[j], j++) {
        char *p = shard_path(dir, ks[j]);
        rc = p ? write_file(p, &c->spec, rows + at, count[j], ks[j], n, e) : err_set(e, ERR_IO, "out_of_memory", "path");
        free(p);
    }
    for (uint64_t i = 0; !rc && all && i < total; i++) {
        all[points[i]] = rows[i];
        rows[i].detail = NULL;
    }
    free(points), free(count);
    sweep_rows_free(rows, rows ? total : 0);
    return rc;
}

static int sweep_merge(const opts *o, ctx *c, err_info *e)
{
    char *spec = path_in(o->merge, "spec.csv");
    uint32_t k0, n;
    uint64_t none;
    int rc = spec ? sweep_read_csv(spec, &c->spec, NULL, &none, &k0, &n, e) : err_set(e, ERR_IO, "out_of_memory", "path");
    free(spec);
    if (!rc && !n)
        rc = err_set(e, ERR_BAD_INPUT, "--merge", "%s/spec.csv has no shard count (written by --slurm)", o->merge);
    if (!rc && o->have_shard && o->shard >= n)
        rc = err_set(e, ERR_BAD_INPUT, "--shard", "%" PRIu64 " (allowed 0..%u)", o->shard, n - 1);
    c->force |= c->spec.force;
    if (rc || (rc = load_base(o, c, e)))
        return rc;
    if (o->have_shard) {   /* one array task */
        char *p = shard_path(o->merge, (uint32_t)o->shard);
        sweep_row *rows = NULL;
        uint64_t count = 0;
        if (p && read_shard(c, p, (uint32_t)o->shard, n, &rows, &count) == 0)
            fprintf(stderr, "tmasim sweep: %s is written already\n", p);
        else if (p)
            rc = compute_shards(c, o->merge, &(uint32_t){(uint32_t)o->shard}, 1, n, NULL, e);
        sweep_rows_free(rows, count);
        free(p);
        return rc;
    }
    uint64_t np = c->spec.grid.npoints;
    sweep_row *all = calloc(np, sizeof *all);
    uint32_t *missing = calloc(n, sizeof *missing), nmiss = 0;
    if (!all || !missing)
        rc = err_set(e, ERR_IO, "out_of_memory", "merge");
    for (uint32_t k = 0; !rc && k < n; k++) {
        char *p = shard_path(o->merge, k);
        sweep_row *rows = NULL;
        uint64_t count = 0;
        if (p && read_shard(c, p, k, n, &rows, &count) == 0) {
            for (uint64_t i = 0; i < count; i++)
                all[rows[i].index] = rows[i];
            free(rows);
        } else {
            missing[nmiss++] = k;
        }
        free(p);
    }
    if (!rc && nmiss) {
        fprintf(stderr, "tmasim sweep: %u of %u shards missing in %s: computing them here\n", nmiss, n, o->merge);
        rc = compute_shards(c, o->merge, missing, nmiss, n, all, e);
    }
    if (!rc) {
        sweep_rank(all, np);
        rc = emit(o, &c->spec, all, np, e);
    }
    free(missing);
    sweep_rows_free(all, all ? np : 0);
    return rc;
}

int cmd_sweep(int argc, char **argv)
{
    opts o = {.gpu = "h100"};
    int done = 0;
    int rc = parse_args(argc, argv, &o, &done);
    if (rc || done)
        return rc;
    ctx *c = calloc(1, sizeof *c);
    err_info e = {0};
    if (!c)
        return cli_report("sweep", &(err_info){.code = ERR_IO, .rule = "out_of_memory"});
    c->jobs = (unsigned)o.jobs;
    c->force = o.force;
    if (o.merge) {
        rc = sweep_merge(&o, c, &e);
    } else {
        char *spec = NULL;
        c->spec.desc = strdup(o.desc);
        c->spec.gpu = strdup(o.gpu);
        c->spec.params = o.params ? strdup(o.params) : NULL;
        c->spec.force = o.force;
        rc = o.grid_file ? grid_from_file(o.grid_file, &spec, &e) : ERR_OK;
        if (!rc)
            rc = sweep_grid_parse(o.grid ? o.grid : spec, &c->spec.grid, &e);
        free(spec);
        if (!rc)
            rc = sweep_spec_check(&c->spec, &e);
        if (!rc)
            rc = load_base(&o, c, &e);
        if (!rc)
            rc = o.slurm ? sweep_slurm(&o, c, &e) : sweep_local(&o, c, &e);
    }
    sweep_spec_free(&c->spec);
    free(c);
    return rc ? cli_report("sweep", &e) : EXIT_OK;
}
