/* tmahw record -- APP ARGS: runs an application built with hw/record.cuh under the
 * injected recorder (hw/record_inject.c, loaded by the CUDA driver through
 * CUDA_INJECTION64_PATH), then turns each recorded launch into a trace. */
#define _DEFAULT_SOURCE   /* mkdtemp, readlink */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "desc.h"
#include "hw_record.h"
#include "record.h"
#include "rfile.h"

enum { OK_ = 0, FINDING_ = 1, BAD_ = 2 };

static void usage(FILE *to)
{
    fprintf(to,
            "usage: tmahw record [-o TRACE.tmt] [--desc DESC.yaml] [--events N] [--kernel NAME] [--trace-ctas N]\n"
            "                    [--raw DIR] [--format table|json|csv] -- APP [ARGS...]\n"
            "\n"
            "Runs APP with the recorder injected (CUDA_INJECTION64_PATH: the CUDA driver loads it, APP's host code\n"
            "is unchanged). Every launch of a kernel built with hw/record.cuh (TMASCOPE_RECORD 1) gets device\n"
            "buffers for its events; launches are serialized and timed with CUPTI; each recorded launch becomes\n"
            "a trace (traces/FORMAT.md): TRACE.tmt, or TRACE-N.tmt for launch N when there are several.\n"
            "  -o TRACE       trace path (default record.tmt)\n"
            "  --desc FILE    the pipeline description the kernel implements: the trace carries it and uses its\n"
            "                 barrier numbering, phases and bytes (launches of another grid are converted without)\n"
            "  --events N     records per warp in the device buffer (default %u; more written: overflow, reported)\n"
            "  --kernel NAME  record only kernels whose (mangled) name contains NAME\n"
            "  --trace-ctas N write the events of the first N CTAs only (every CTA records; all are checked)\n"
            "  --raw DIR      keep the raw launch files in DIR (default: a temporary folder, removed)\n"
            "  --format F     the launch table as table (default), json or csv\n"
            "exit status: 0 ok, 1 finding (APP failed, a warp overflowed its buffer or was not recorded), 2 bad input\n",
            REC_DEFAULT_EVENTS);
}

typedef struct opts {
    const char *out, *desc, *kernel, *raw, *fmt;
    long events, trace_ctas;
    char **app;
} opts;

/* -1 to go on, else the exit status. */
static int parse(int argc, char **argv, opts *o)
{
    memset(o, 0, sizeof *o);
    o->out = "record.tmt";
    o->fmt = "table";
    o->events = REC_DEFAULT_EVENTS;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            if (i + 1 >= argc)
                break;
            o->app = argv + i + 1;
            return -1;
        }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return OK_;
        }
        if (i + 1 >= argc || a[0] != '-') {
            fprintf(stderr, "tmahw record: '%s': %s (see --help)\n", a,
                    a[0] == '-' ? "missing value" : "the application follows --");
            return BAD_;
        }
        const char *v = argv[++i];
        char *end = NULL;
        if (!strcmp(a, "-o"))
            o->out = v;
        else if (!strcmp(a, "--desc"))
            o->desc = v;
        else if (!strcmp(a, "--kernel"))
            o->kernel = v;
        else if (!strcmp(a, "--raw"))
            o->raw = v;
        else if (!strcmp(a, "--format")) {
            if (strcmp(v, "table") && strcmp(v, "json") && strcmp(v, "csv")) {
                fprintf(stderr, "tmahw record: --format: '%s' (allowed table, json, csv)\n", v);
                return BAD_;
            }
            o->fmt = v;
        } else if (!strcmp(a, "--trace-ctas")) {
            o->trace_ctas = strtol(v, &end, 10);
            if (!end || *end || o->trace_ctas < 1 || o->trace_ctas > 65535) {
                fprintf(stderr, "tmahw record: --trace-ctas: '%s' (allowed 1..65535)\n", v);
                return BAD_;
            }
        } else if (!strcmp(a, "--events")) {
            o->events = strtol(v, &end, 10);
            if (!end || *end || o->events < 1 || o->events > (1l << 26)) {
                fprintf(stderr, "tmahw record: --events: '%s' (allowed 1..67108864)\n", v);
                return BAD_;
            }
        } else {
            fprintf(stderr, "tmahw record: %s: unknown flag (see --help)\n", a);
            return BAD_;
        }
    }
    fprintf(stderr, "tmahw record: the application is missing (tmahw record [flags] -- APP [ARGS...])\n");
    return BAD_;
}

/* libtmascope_inject.so beside this executable */
static int inject_path(char *path, size_t cap)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return -1;
    self[n] = 0;
    char *slash = strrchr(self, '/');
    if (!slash)
        return -1;
    *slash = 0;
    if (snprintf(path, cap, "%s/libtmascope_inject.so", self) >= (int)cap)
        return -1;
    return access(path, R_OK);
}

/* runs the application; its exit status, or -1 when it could not start */
static int run_app(const opts *o, const char *lib, const char *dir)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        char ev[32];
        snprintf(ev, sizeof ev, "%ld", o->events);
        setenv("CUDA_INJECTION64_PATH", lib, 1);
        setenv("TMASCOPE_RAW_DIR", dir, 1);
        setenv("TMASCOPE_EVENTS", ev, 1);
        if (o->kernel)
            setenv("TMASCOPE_KERNEL", o->kernel, 1);
        else
            unsetenv("TMASCOPE_KERNEL");
        execvp(o->app[0], o->app);
        fprintf(stderr, "tmahw record: cannot run '%s'\n", o->app[0]);
        _exit(127);
    }
    int st = 0;
    if (waitpid(pid, &st, 0) < 0)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* One line of launches.tsv. */
typedef struct launch_row {
    unsigned long long seq, start, end;
    int recorded;
    char kernel[256], grid[48], block[48];
    /* filled when converted */
    char trace[PATH_MAX];
    rec_summary sum;
    int converted;
    char problem[300];
} launch_row;

static size_t read_launches(const char *dir, launch_row **rows)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%.3000s/launches.tsv", dir);
    FILE *f = fopen(path, "r");
    *rows = NULL;
    if (!f)
        return 0;
    size_t n = 0, cap = 0;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            launch_row *r = realloc(*rows, cap * sizeof **rows);
            if (!r)
                break;
            *rows = r;
        }
        launch_row *r = &(*rows)[n];
        memset(r, 0, sizeof *r);
        if (sscanf(line, "%llu\t%d\t%255s\t%47s\t%47s\t%llu\t%llu", &r->seq, &r->recorded, r->kernel, r->grid, r->block,
                   &r->start, &r->end) == 7)
            n++;
    }
    fclose(f);
    return n;
}

/* TRACE.tmt, or TRACE-N.tmt when several launches were recorded */
static void trace_name(const char *out, int several, unsigned long long seq, char *path, size_t cap)
{
    size_t len = strlen(out);
    if (!several) {
        snprintf(path, cap, "%s", out);
        return;
    }
    if (len > 4 && !strcmp(out + len - 4, ".tmt"))
        len -= 4;
    snprintf(path, cap, "%.*s-%llu.tmt", (int)len, out, seq);
}

static int convert(const char *dir, launch_row *r, const pipe_desc *d, const char *text, size_t len, int several,
                   const opts *o)
{
    char raw[PATH_MAX];
    snprintf(raw, sizeof raw, "%.3000s/launch-%06llu.tmraw", dir, r->seq);
    rec_launch l;
    err_info e = {0};
    if (rec_raw_read(raw, &l, &e) != ERR_OK) {
        snprintf(r->problem, sizeof r->problem, "%.290s", e.detail);
        return -1;
    }
    const pipe_desc *use = d;
    if (d && (d->ctas != l.ctas || d->producer_warps + d->consumer_warps != l.nwarps)) {
        snprintf(r->problem, sizeof r->problem, "grid %u x %u warps is not the description's %u x %u: converted "
                 "without it", l.ctas, l.nwarps, d->ctas, d->producer_warps + d->consumer_warps);
        use = NULL;
    }
    trace tr;
    trace_init(&tr, TRACE_SRC_HW);
    int rc = rec_to_trace(&l, use, use ? text : NULL, len, (uint32_t)o->trace_ctas, &tr, &r->sum, &e);
    if (rc == ERR_OK) {
        snprintf(tr.gpu, sizeof tr.gpu, "%.63s", l.gpu[0] ? l.gpu : "?");
        snprintf(tr.name, sizeof tr.name, "%.63s", use ? d->name : l.kernel);
        time_t now = time(NULL);
        char date[32];
        strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
        char note[512];
        snprintf(note, sizeof note, "tmahw record; CUDA %d.%d; %s; launch %llu of %.40s; CTAs traced %u/%u",
                 l.driver_version / 1000, (l.driver_version % 1000) / 10, date, r->seq, l.kernel,
                 o->trace_ctas && o->trace_ctas < l.ctas ? (unsigned)o->trace_ctas : l.ctas, l.ctas);
        snprintf(tr.note, sizeof tr.note, "%.127s", note);
        trace_name(o->out, several, r->seq, r->trace, sizeof r->trace);
        rc = trace_write(r->trace, &tr, &e);
    }
    if (rc != ERR_OK)
        snprintf(r->problem, sizeof r->problem, "%.290s", e.detail);
    else
        r->converted = 1;
    trace_free(&tr);
    rec_launch_free(&l);
    return rc == ERR_OK ? 0 : -1;
}

static void report(const char *fmt, const launch_row *rows, size_t n)
{
    if (!strcmp(fmt, "json")) {
        printf("[");
        for (size_t k = 0; k < n; k++) {
            const launch_row *r = &rows[k];
            printf("%s{\"launch\":%llu,\"kernel\":\"%s\",\"grid\":\"%s\",\"block\":\"%s\",\"kernel_ns\":%llu,"
                   "\"recorded\":%s,\"records\":%llu,\"overflowed_warps\":%u,\"unrecorded_warps\":%u,"
                   "\"ctas_missing\":%u,\"trace\":\"%s\",\"problem\":\"%s\"}",
                   k ? "," : "", r->seq, r->kernel, r->grid, r->block, r->end > r->start ? r->end - r->start : 0,
                   r->recorded ? "true" : "false", (unsigned long long)r->sum.records, r->sum.overflowed,
                   r->sum.unrecorded, r->sum.ctas_missing, r->trace, r->problem);
        }
        printf("]\n");
        return;
    }
    if (!strcmp(fmt, "csv"))
        printf("launch,kernel,grid,block,kernel_ns,recorded,records,overflowed_warps,unrecorded_warps,trace\n");
    else
        printf("%-6s %-28s %-12s %-10s %12s %8s %9s %s\n", "launch", "kernel", "grid", "block", "kernel_us", "records",
               "overflow", "trace");
    for (size_t k = 0; k < n; k++) {
        const launch_row *r = &rows[k];
        double us = r->end > r->start ? (double)(r->end - r->start) / 1000.0 : 0;
        if (!strcmp(fmt, "csv"))
            printf("%llu,%s,\"%s\",\"%s\",%llu,%d,%llu,%u,%u,%s\n", r->seq, r->kernel, r->grid, r->block,
                   r->end > r->start ? r->end - r->start : 0, r->recorded, (unsigned long long)r->sum.records,
                   r->sum.overflowed, r->sum.unrecorded, r->trace);
        else
            printf("%-6llu %-28.28s %-12s %-10s %12.2f %8llu %9u %s%s%s\n", r->seq, r->kernel, r->grid, r->block, us,
                   (unsigned long long)r->sum.records, r->sum.overflowed + r->sum.unrecorded,
                   r->recorded ? r->trace : "(not recorded)", r->problem[0] ? "  " : "", r->problem);
    }
}

static void remove_dir(const char *dir)
{
    DIR *dp = opendir(dir);
    if (!dp)
        return;
    struct dirent *de;
    char path[PATH_MAX];
    while ((de = readdir(dp)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
            snprintf(path, sizeof path, "%.3000s/%.900s", dir, de->d_name);
            remove(path);
        }
    closedir(dp);
    rmdir(dir);
}

int hw_cmd_record(int argc, char **argv)
{
    opts o;
    int rc = parse(argc, argv, &o);
    if (rc >= 0)
        return rc;
    static pipe_desc d;
    char *text = NULL;
    size_t len = 0;
    err_info e = {0};
    if (o.desc) {
        int rerr = 0;
        if (desc_load(o.desc, &d, &e) != ERR_OK) {
            fprintf(stderr, "tmahw record: %s\n", e.detail);
            return BAD_;
        }
        text = rfile_load(o.desc, DESC_MAX_FILE_BYTES, &len, &rerr);
    }
    char lib[PATH_MAX];
    if (inject_path(lib, sizeof lib)) {
        fprintf(stderr, "tmahw record: libtmascope_inject.so is not beside tmahw (make hw builds both)\n");
        free(text);
        return BAD_;
    }
    char dir[PATH_MAX];
    if (o.raw) {
        snprintf(dir, sizeof dir, "%s", o.raw);
        if (mkdir(dir, 0755) != 0 && access(dir, W_OK) != 0) {
            fprintf(stderr, "tmahw record: --raw: cannot create '%s'\n", dir);
            free(text);
            return BAD_;
        }
        char old[PATH_MAX];
        snprintf(old, sizeof old, "%.3000s/launches.tsv", dir);
        remove(old);
    } else {
        snprintf(dir, sizeof dir, "/tmp/tmascope-record-XXXXXX");
        if (!mkdtemp(dir)) {
            fprintf(stderr, "tmahw record: cannot create a temporary folder in /tmp\n");
            free(text);
            return BAD_;
        }
    }
    int app = run_app(&o, lib, dir);
    launch_row *rows = NULL;
    size_t n = read_launches(dir, &rows);
    int several = 0, finding = app != 0;
    for (size_t k = 0, rec = 0; k < n; k++)
        rec += rows[k].recorded, several = rec > 1;
    for (size_t k = 0; k < n; k++)
        if (rows[k].recorded) {
            if (convert(dir, &rows[k], o.desc ? &d : NULL, text, len, several, &o))
                finding = 1;
            finding |= rows[k].sum.overflowed || rows[k].sum.unrecorded;
        }
    report(o.fmt, rows, n);
    if (app)
        fprintf(stderr, "tmahw record: %s exited with status %d\n", o.app[0], app);
    size_t recorded = 0;
    for (size_t k = 0; k < n; k++)
        recorded += rows[k].converted;
    if (!recorded)
        fprintf(stderr, "tmahw record: no launch was recorded (%zu launches; a kernel records when it is built with "
                "hw/record.cuh and TMASCOPE_RECORD 1; see %s/recorder.log)\n", n, o.raw ? dir : "the recorder log");
    for (size_t k = 0; k < n; k++)
        if (rows[k].sum.overflowed || rows[k].sum.unrecorded)
            fprintf(stderr, "tmahw record: warning: launch %llu: %u warp(s) overflowed their %s-record buffer, %u "
                    "were beyond the kernel's TMASCOPE_WARPS: trace flagged incomplete\n", rows[k].seq,
                    rows[k].sum.overflowed, "--events", rows[k].sum.unrecorded);
    if (!o.raw) {
        if (finding || !recorded) {   /* the recorder's log says why */
            char logp[PATH_MAX + 16];
            snprintf(logp, sizeof logp, "%.3000s/recorder.log", dir);
            size_t ll = 0;
            int lerr = 0;
            char *log = rfile_load(logp, 1 << 16, &ll, &lerr);
            if (log && ll)
                fprintf(stderr, "recorder log:\n%.*s", (int)ll, log);
            free(log);
        }
        remove_dir(dir);
    }
    free(rows);
    free(text);
    return app < 0 ? BAD_ : finding ? FINDING_ : OK_;
}
