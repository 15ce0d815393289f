/* tmahw sweep: the best predicted points of a `tmasim sweep` result measured on the GPUs
 * of this host, one worker per GPU (a `tmahw run` child with CUDA_VISIBLE_DEVICES naming
 * its GPU, the next point started when one ends), or one Slurm array task per point;
 * predicted against measured with Spearman's rank agreement. */
#define _DEFAULT_SOURCE   /* realpath */
#include <cuda.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "afile.h"
#include "hw_sweep.h"
#include "sweep.h"

enum { OK_ = 0, FINDING_ = 1, BAD_ = 2 };
#define MAX_GPUS 64

static void usage(FILE *to)
{
    fprintf(to,
            "usage: tmahw sweep RESULTS.csv --top K [--desc FILE] [--reps N] [-o FILE.csv] [--gpus 0,1,...]\n"
            "       tmahw sweep RESULTS.csv --top K --slurm DIR [--sbatch 'ARGS'] [--wait]\n"
            "       tmahw sweep RESULTS.csv --top K --merge DIR [-o FILE.csv]\n"
            "\n"
            "Runs the K best predicted points of a `tmasim sweep ... -o RESULTS.csv` as real kernels (`tmahw run\n"
            "DESC --set POINT`), one worker per GPU of this host, and prints predicted against measured time\n"
            "with the rank agreement (Spearman) of prediction and measurement.\n"
            "  --top K        the points ranked 1..K (ok points of the result)\n"
            "  --desc FILE    the description (default: the path the result names)\n"
            "  --reps N       timed launches per point (default 5)\n"
            "  --gpus LIST    the GPUs (default: CUDA_VISIBLE_DEVICES, else every GPU)\n"
            "  -o FILE        the table as CSV\n"
            "  --slurm DIR    one Slurm array task per point (--gres=gpu:1), each writing DIR/hw-K.csv\n"
            "  --merge DIR    the points' files from DIR; points without one are run here\n"
            "  --only K       run point K (0-based) on the GPU this process sees, into DIR (--merge DIR)\n"
            "exit status: 0 ok, 1 a point failed on the GPU (hang, mismatch), 2 bad input or no GPU\n");
}

typedef struct opts {
    const char *results, *desc, *out, *gpus, *slurm, *sbatch, *merge;
    long top, reps, only;
    int wait;
} opts;

typedef struct point {
    const sweep_row *row;
    char *text;                 /* KEY=VALUE ... */
    double measured_ns;         /* -1 until measured */
    int exit_code, correct;
    char gpu[24];               /* the CUDA_VISIBLE_DEVICES entry it ran on */
    double wall_s;
} point;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static int parse_long(const char *flag, const char *v, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (!*v || *end || errno || x < lo || x > hi) {
        fprintf(stderr, "tmahw sweep: %s: '%s' (allowed %ld..%ld)\n", flag, v, lo, hi);
        return -1;
    }
    *out = x;
    return 0;
}

static int parse_args(int argc, char **argv, opts *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 1;
        }
        if (!strcmp(a, "--wait")) {
            o->wait = 1;
            continue;
        }
        if (a[0] != '-') {
            if (o->results) {
                fprintf(stderr, "tmahw sweep: '%s': one result file only\n", a);
                return -1;
            }
            o->results = a;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "tmahw sweep: %s: needs a value (see --help)\n", a);
            return -1;
        }
        const char *v = argv[++i];
        if (!strcmp(a, "--top")) {
            if (parse_long(a, v, 1, 10000, &o->top))
                return -1;
        } else if (!strcmp(a, "--reps")) {
            if (parse_long(a, v, 1, 100, &o->reps))
                return -1;
        } else if (!strcmp(a, "--only")) {
            if (parse_long(a, v, 0, 9999, &o->only))
                return -1;
        } else if (!strcmp(a, "--desc")) {
            o->desc = v;
        } else if (!strcmp(a, "-o")) {
            o->out = v;
        } else if (!strcmp(a, "--gpus")) {
            o->gpus = v;
        } else if (!strcmp(a, "--slurm")) {
            o->slurm = v;
        } else if (!strcmp(a, "--sbatch")) {
            o->sbatch = v;
        } else if (!strcmp(a, "--merge")) {
            o->merge = v;
        } else {
            fprintf(stderr, "tmahw sweep: unknown option '%s' (allowed --top, --desc, --reps, --gpus, -o, --slurm, "
                            "--sbatch, --wait, --merge, --only, --help)\n", a);
            return -1;
        }
    }
    const char *why = !o->results ? "RESULTS.csv: missing (a file `tmasim sweep ... -o FILE.csv` wrote)"
                      : !o->top   ? "--top K: missing (how many of the best predicted points to run)"
                      : o->only >= 0 && !o->merge ? "--only K goes with --merge DIR (the task of a Slurm array)"
                      : o->slurm && o->merge     ? "--slurm and --merge: one at a time"
                      : (o->sbatch || o->wait) && !o->slurm ? "--sbatch and --wait go with --slurm DIR"
                                                            : NULL;
    if (why) {
        fprintf(stderr, "tmahw sweep: %s\n", why);
        return -1;
    }
    return 0;
}

/* ---- GPUs and workers ------------------------------------------------------------------------ */

static int gpu_list(const opts *o, char gpus[][24], int *n)
{
    const char *list = o->gpus ? o->gpus : getenv("CUDA_VISIBLE_DEVICES");
    *n = 0;
    if (list && *list) {
        char *s = strdup(list), *save = NULL;
        for (char *t = strtok_r(s, ",", &save); t && *n < MAX_GPUS; t = strtok_r(NULL, ",", &save))
            snprintf(gpus[(*n)++], 24, "%s", t);
        free(s);
        return *n ? 0 : -1;
    }
    int count = 0;
    if (cuInit(0) != CUDA_SUCCESS || cuDeviceGetCount(&count) != CUDA_SUCCESS || count < 1)
        return -1;
    for (int k = 0; k < count && k < MAX_GPUS; k++)
        snprintf(gpus[(*n)++], 24, "%d", k);
    return 0;
}

/* a `tmahw run` of point k with its output in dir/p-K.{json,err,tmt} */
static pid_t start_point(const char *self, const char *desc, const point *p, long k, const char *dir, const char *gpu,
                         long reps)
{
    char js[4096], er[4096], tr[4096], rp[16];
    snprintf(js, sizeof js, "%s/p-%05ld.json", dir, k);
    snprintf(er, sizeof er, "%s/p-%05ld.err", dir, k);
    snprintf(tr, sizeof tr, "%s/p-%05ld.tmt", dir, k);
    snprintf(rp, sizeof rp, "%ld", reps);
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    if (strcmp(gpu, "any"))   /* "any": the GPU(s) this process was given (a Slurm task) */
        setenv("CUDA_VISIBLE_DEVICES", gpu, 1);
    int fo = open(js, O_WRONLY | O_CREAT | O_TRUNC, 0644), fe = open(er, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fo < 0 || fe < 0)
        _exit(2);
    dup2(fo, STDOUT_FILENO);
    dup2(fe, STDERR_FILENO);
    execl(self, self, "run", desc, "--set", p->text, "-o", tr, "--format", "json", "--no-counters", "--reps", rp,
          "--trace-ctas", "1", (char *)NULL);
    _exit(127);
}

static double json_number(const char *text, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *s = text ? strstr(text, pat) : NULL;
    return s ? strtod(s + strlen(pat), NULL) : -1;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    char chunk[4096];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
        fwrite(chunk, 1, got, m);
    fclose(f);
    fclose(m);
    return buf;
}

/* the point's file in dir: "K measured_ns correct exit gpu wall_s" */
static int write_point(const char *dir, long k, const point *p)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/hw-%05ld.txt", dir, k);
    afile f;
    err_info e = {0};
    if (afile_open(&f, path, "point", &e))
        return -1;
    fprintf(f.fp, "%ld %.0f %d %d %s %.3f\n", k, p->measured_ns, p->correct, p->exit_code, p->gpu, p->wall_s);
    return afile_commit(&f, "point", &e) ? -1 : 0;
}

static int read_point(const char *dir, long k, point *p)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/hw-%05ld.txt", dir, k);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    long kk;
    int ok = fscanf(f, "%ld %lf %d %d %23s %lf", &kk, &p->measured_ns, &p->correct, &p->exit_code, p->gpu, &p->wall_s) == 6 &&
             kk == k;
    fclose(f);
    return ok && p->exit_code == 0 ? 0 : -1;   /* a point that failed is run again */
}

static void finish_point(const char *dir, long k, point *p, int status, double wall)
{
    char js[4096];
    snprintf(js, sizeof js, "%s/p-%05ld.json", dir, k);
    char *text = slurp(js);
    p->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    p->measured_ns = json_number(text, "kernel_ns");
    p->correct = text && strstr(text, "\"correct\":true") != NULL;
    p->wall_s = wall;
    free(text);
    if (p->exit_code) {
        snprintf(js, sizeof js, "%s/p-%05ld.err", dir, k);
        char *err = slurp(js);
        fprintf(stderr, "tmahw sweep: point %ld (%s) on GPU %s: exit %d: %.600s\n", k + 1, p->text, p->gpu, p->exit_code,
                err ? err : "");
        free(err);
    }
    write_point(dir, k, p);
}

/* Runs the points without a file in dir, one worker per GPU, the next point started on a
 * GPU as soon as its last one ends. */
static int run_points(const char *self, const char *desc, point *pts, long n, const char *dir, char gpus[][24], int ngpu,
                      long reps)
{
    pid_t busy[MAX_GPUS] = {0};
    long on[MAX_GPUS];
    double t0[MAX_GPUS];
    long next = 0, running = 0, done = 0;
    int tty = isatty(STDERR_FILENO);
    for (;;) {
        for (int g = 0; g < ngpu && next < n; g++) {
            if (busy[g])
                continue;
            while (next < n && pts[next].measured_ns >= 0)
                next++;   /* read from its file */
            if (next >= n)
                break;
            snprintf(pts[next].gpu, sizeof pts[next].gpu, "%s", gpus[g]);
            t0[g] = now_s();
            busy[g] = start_point(self, desc, &pts[next], next, dir, gpus[g], reps);
            if (busy[g] < 0)
                return -1;
            on[g] = next++;
            running++;
        }
        if (!running)
            return 0;
        int st;
        pid_t pid = waitpid(-1, &st, 0);
        if (pid < 0)
            return -1;
        for (int g = 0; g < ngpu; g++)
            if (busy[g] == pid) {
                finish_point(dir, on[g], &pts[on[g]], st, now_s() - t0[g]);
                busy[g] = 0;
                running--;
                done++;
                if (tty)
                    fprintf(stderr, "\rtmahw sweep: %ld of %ld points measured", done, n);
            }
    }
}

/* ---- report ------------------------------------------------------------------------------- */

static int report(const opts *o, const sweep_spec *s, point *pts, long n, int ngpu, double wall)
{
    if (isatty(STDERR_FILENO))
        fprintf(stderr, "\r%60s\r", "");
    double *pred = malloc((size_t)n * sizeof *pred), *meas = malloc((size_t)n * sizeof *meas), serial = 0;
    long m = 0, failed = 0;
    printf("%s (predicted with gpu %s): the %ld best predicted points on %d GPU%s\n\n", s->desc, s->gpu, n, ngpu,
           ngpu == 1 ? "" : "s");
    printf("%5s  %-44s %12s %12s %7s %5s  %s\n", "rank", "point", "pred(us)", "meas(us)", "meas/p", "gpu", "check");
    for (long k = 0; k < n; k++) {
        point *p = &pts[k];
        int good = p->exit_code == 0 && p->measured_ns > 0;
        printf("%5ld  %-44s %12.3f ", k + 1, p->text, p->row->kernel_ns / 1e3);
        if (good)
            printf("%12.3f %7.2f %5s  %s\n", p->measured_ns / 1e3, p->measured_ns / (double)p->row->kernel_ns, p->gpu,
                   p->correct ? "ok" : "MISMATCH");
        else
            printf("%12s %7s %5s  exit %d\n", "-", "-", p->gpu, p->exit_code);
        serial += p->wall_s;
        if (good) {
            pred[m] = (double)p->row->kernel_ns;
            meas[m++] = p->measured_ns;
        }
        failed += !good || !p->correct;
    }
    double rho = sweep_spearman(pred, meas, (size_t)m);
    printf("\nrank agreement (Spearman) of predicted and measured time over %ld points: %.3f\n", m, rho);
    printf("wall %.1f s on %d GPU%s; the points' runs took %.1f s together\n", wall, ngpu, ngpu == 1 ? "" : "s", serial);
    if (o->out) {
        afile f;
        err_info e = {0};
        if (afile_open(&f, o->out, "-o", &e) == ERR_OK) {
            fprintf(f.fp, "rank,point,predicted_ns,measured_ns,gpu,correct,exit,run_s\n");
            for (long k = 0; k < n; k++)
                fprintf(f.fp, "%ld,%s,%" PRId64 ",%.0f,%s,%d,%d,%.3f\n", k + 1, pts[k].text, pts[k].row->kernel_ns,
                        pts[k].measured_ns, pts[k].gpu, pts[k].correct, pts[k].exit_code, pts[k].wall_s);
            fprintf(f.fp, "# spearman,%.4f,points,%ld,gpus,%d,wall_s,%.3f\n", rho, m, ngpu, wall);
        }
        if (afile_commit(&f, "-o", &e)) {
            fprintf(stderr, "tmahw sweep: %s: %s\n", e.rule, e.detail);
            failed++;
        }
    }
    free(pred), free(meas);
    /* no point ran (every run exits 2: no GPU, or a description it cannot run) is bad input */
    return !m && failed ? BAD_ : failed ? FINDING_ : OK_;
}

/* ---- the command ------------------------------------------------------------------------------ */

static int load_points(const opts *o, sweep_spec *s, sweep_row **rows, uint64_t *nrows, point **pts, long *n)
{
    uint32_t sk, sn;
    err_info e = {0};
    if (sweep_read_csv(o->results, s, rows, nrows, &sk, &sn, &e)) {
        fprintf(stderr, "tmahw sweep: %s: %s\n", e.rule, e.detail);
        return -1;
    }
    if (sn) {
        fprintf(stderr, "tmahw sweep: %s is shard %u of %u: merge the shards first (tmasim sweep --merge DIR -o FILE)\n",
                o->results, sk, sn);
        return -1;
    }
    for (uint32_t a = 0; a < s->grid.naxes; a++)
        if (sweep_key_is_param(s->grid.axes[a].key)) {
            fprintf(stderr, "tmahw sweep: grid key '%s' is a timing parameter of the simulator: the GPU runs the same "
                            "kernel for each of its values\n", s->grid.axes[a].key);
            return -1;
        }
    *pts = calloc((size_t)o->top, sizeof **pts);
    *n = 0;
    const char *desc = o->desc ? o->desc : s->desc;
    pipe_desc base;
    if (desc_load(desc, &base, &e)) {
        fprintf(stderr, "tmahw sweep: %s\n", e.detail);
        return -1;
    }
    for (uint64_t i = 0; i < *nrows && *n < o->top; i++) {
        if ((*rows)[i].status != SWEEP_OK)
            continue;
        point *p = &(*pts)[(*n)++];
        p->row = &(*rows)[i];
        p->text = sweep_point_text(&s->grid, p->row->index);
        p->measured_ns = -1;
        pipe_desc d = base;
        if (!p->text || sweep_apply_text(&d, NULL, p->text, &e)) {   /* checked before any GPU work */
            fprintf(stderr, "tmahw sweep: point %ld (%s): %s\n", *n, p->text ? p->text : "?", e.detail);
            return -1;
        }
    }
    if (*n < o->top)
        fprintf(stderr, "tmahw sweep: %s has %ld ok points; running those\n", o->results, *n);
    return *n ? 0 : -1;
}

static int submit(const opts *o, long n)
{
    char *self = sweep_self_path(), *cmd = NULL, *res = realpath(o->results, NULL);
    size_t len = 0;
    FILE *f = open_memstream(&cmd, &len);
    fprintf(f, "'%s' sweep '%s' --top %ld --reps %ld --merge '%s' --only \"$SLURM_ARRAY_TASK_ID\"", self ? self : "",
            res ? res : o->results, o->top, o->reps, o->slurm);
    if (o->desc)
        fprintf(f, " --desc '%s'", o->desc);
    fclose(f);
    size_t el = strlen(o->sbatch ? o->sbatch : "") + 16;
    char *extra = malloc(el);
    snprintf(extra, el, "--gres=gpu:1 %s", o->sbatch ? o->sbatch : "");
    char jobid[64] = "";
    err_info e = {0};
    int rc = mkdir(o->slurm, 0777) && errno != EEXIST ? -1 : 0;
    if (rc)
        fprintf(stderr, "tmahw sweep: --slurm: cannot make '%s': %s\n", o->slurm, strerror(errno));
    else if ((rc = sweep_slurm_submit(o->slurm, "tmahw-sweep", (uint32_t)n, cmd, extra, o->wait, jobid, sizeof jobid, &e)))
        fprintf(stderr, "tmahw sweep: %s: %s\n", e.rule, e.detail);
    else
        printf("submitted Slurm job array %s: %ld points, one GPU each (%s/hw-K.txt)\ncombine them with: tmahw sweep %s "
               "--top %ld --merge %s\n", jobid, n, o->slurm, o->results, o->top, o->slurm);
    free(self), free(cmd), free(res), free(extra);
    return rc ? BAD_ : OK_;
}

int hw_cmd_sweep(int argc, char **argv)
{
    opts o = {.reps = 5, .only = -1};
    int a = parse_args(argc, argv, &o);
    if (a)
        return a > 0 ? OK_ : BAD_;
    sweep_spec s;
    sweep_row *rows = NULL;
    uint64_t nrows = 0;
    point *pts = NULL;
    long n = 0;
    int rc = BAD_;
    char *self = sweep_self_path();
    char tmp[] = "/tmp/tmahw-sweepXXXXXX", gpus[MAX_GPUS][24];
    int ngpu = 0;
    const char *dir = o.merge;
    if (load_points(&o, &s, &rows, &nrows, &pts, &n)) {
        /* messages printed */
    } else if (o.slurm) {
        rc = submit(&o, n);
    } else if (o.only >= n) {
        fprintf(stderr, "tmahw sweep: --only %ld (allowed 0..%ld)\n", o.only, n - 1);
    } else if (o.only < 0 && gpu_list(&o, gpus, &ngpu)) {
        fprintf(stderr, "tmahw sweep: no usable GPU (CUDA_VISIBLE_DEVICES, --gpus or the driver's device count)\n");
    } else if (!self || (dir && mkdir(dir, 0777) && errno != EEXIST) || (!dir && !(dir = mkdtemp(tmp)))) {
        fprintf(stderr, "tmahw sweep: cannot make a folder for the runs: %s\n", strerror(errno));
    } else {
        for (long k = 0; o.merge && k < n; k++)
            if (read_point(o.merge, k, &pts[k]))
                pts[k].measured_ns = -1;
        double t0 = now_s();
        if (o.only >= 0) {   /* one array task: the GPU Slurm gave this process */
            snprintf(gpus[0], sizeof gpus[0], "any");
            for (long k = 0; k < n; k++)
                if (k != o.only)
                    pts[k].measured_ns = 0;   /* not this task's */
            rc = run_points(self, o.desc ? o.desc : s.desc, pts, n, dir, gpus, 1, o.reps) ? BAD_
                 : pts[o.only].exit_code                                               ? FINDING_
                                                                                       : OK_;
        } else {
            rc = run_points(self, o.desc ? o.desc : s.desc, pts, n, dir, gpus, ngpu, o.reps)
                     ? BAD_
                     : report(&o, &s, pts, n, ngpu, now_s() - t0);
        }
    }
    if (dir == tmp) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
        if (system(cmd) != 0)
            fprintf(stderr, "tmahw sweep: could not remove %s\n", tmp);
    }
    for (long k = 0; pts && k < n; k++)
        free(pts[k].text);
    free(pts);
    free(self);
    sweep_rows_free(rows, nrows);
    sweep_spec_free(&s);
    return rc;
}
