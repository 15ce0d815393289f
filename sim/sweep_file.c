/* sweep_file: result files of a sweep (CSV with the sweep's spec in '# ' header lines, and
 * JSON), and job arrays on Slurm. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "afile.h"
#include "rfile.h"
#include "sweep.h"

#define FORMAT_LINE "# tmasim sweep results, format 1"

void sweep_spec_free(sweep_spec *s)
{
    free(s->desc), free(s->gpu), free(s->params);
    sweep_grid_free(&s->grid);
    memset(s, 0, sizeof *s);
}

int sweep_spec_check(const sweep_spec *s, err_info *e)
{
    const char *v[] = {s->desc, s->gpu, s->params};
    const char *what[] = {"description path", "--gpu", "--params"};
    for (int k = 0; k < 3; k++)
        if (v[k] && strpbrk(v[k], "\r\n"))
            return err_set(e, ERR_BAD_INPUT, "sweep", "%s holds a line break (a result file names it on one line)",
                           what[k]);
    return ERR_OK;
}

static int same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

int sweep_spec_same(const sweep_spec *a, const sweep_spec *b)
{
    char *ga = sweep_grid_text(&a->grid), *gb = sweep_grid_text(&b->grid);
    int same = ga && gb && !strcmp(ga, gb) && same_str(a->desc, b->desc) && same_str(a->gpu, b->gpu) &&
               same_str(a->params, b->params) && a->force == b->force;
    free(ga), free(gb);
    return same;
}

/* ---- writing ----------------------------------------------------------------------------- */

static void csv_field(FILE *f, const char *s)
{
    if (!s)
        return;
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void write_header(FILE *f, const sweep_spec *s, uint32_t shard_k, uint32_t shard_n)
{
    char *grid = sweep_grid_text(&s->grid);
    fprintf(f, FORMAT_LINE "\n# desc: %s\n# gpu: %s\n# params: %s\n# force: %d\n# grid: %s\n", s->desc, s->gpu,
            s->params ? s->params : "", s->force, grid ? grid : "");
    free(grid);
    if (shard_n)
        fprintf(f, "# shard: %u of %u\n", shard_k, shard_n);
    fprintf(f, "rank,index");
    for (uint32_t a = 0; a < s->grid.naxes; a++) {
        fputc(',', f);
        csv_field(f, s->grid.axes[a].key);
    }
    fprintf(f, ",status,kernel_ns,time_us,bottleneck,hbm_util,sim_events,rule,detail\n");
}

int sweep_write_csv(FILE *f, const sweep_spec *s, const sweep_row *rows, uint64_t n, uint32_t shard_k,
                    uint32_t shard_n)
{
    write_header(f, s, shard_k, shard_n);
    uint64_t rank = 0;
    for (uint64_t i = 0; i < n; i++) {
        const sweep_row *r = &rows[i];
        if (shard_n)
            fprintf(f, ",%" PRIu64, r->index);
        else
            fprintf(f, "%" PRIu64 ",%" PRIu64, r->status == SWEEP_OK ? ++rank : 0, r->index);
        for (uint32_t a = 0; a < s->grid.naxes; a++) {
            fputc(',', f);
            csv_field(f, s->grid.axes[a].values[sweep_value_index(&s->grid, r->index, a)]);
        }
        fprintf(f, ",%s,", sweep_status_name(r->status));
        if (r->status != SWEEP_INVALID) {
            fprintf(f, "%" PRId64 ",%.3f,", r->kernel_ns, r->kernel_ns / 1e3);
            csv_field(f, r->bottleneck);
            fprintf(f, ",%.4f,%" PRIu64, r->hbm_util, r->sim_events);
        } else
            fprintf(f, ",,,,");
        fputc(',', f);
        csv_field(f, r->rule);
        fputc(',', f);
        csv_field(f, r->detail);
        fputc('\n', f);
    }
    return ferror(f) ? ERR_IO : ERR_OK;
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

int sweep_write_json(FILE *f, const sweep_spec *s, const sweep_row *rows, uint64_t n)
{
    char *grid = sweep_grid_text(&s->grid);
    fprintf(f, "{\"desc\":");
    json_str(f, s->desc);
    fprintf(f, ",\"gpu\":");
    json_str(f, s->gpu);
    fprintf(f, ",\"params\":");
    if (s->params)
        json_str(f, s->params);
    else
        fprintf(f, "null");
    fprintf(f, ",\"grid\":");
    json_str(f, grid);
    free(grid);
    fprintf(f, ",\"points\":[");
    uint64_t rank = 0;
    for (uint64_t i = 0; i < n; i++) {
        const sweep_row *r = &rows[i];
        fprintf(f, "%s\n{\"rank\":%" PRIu64 ",\"index\":%" PRIu64 ",\"point\":{", i ? "," : "",
                r->status == SWEEP_OK ? ++rank : 0, r->index);
        for (uint32_t a = 0; a < s->grid.naxes; a++) {
            fprintf(f, "%s", a ? "," : "");
            json_str(f, s->grid.axes[a].key);
            fputc(':', f);
            json_str(f, s->grid.axes[a].values[sweep_value_index(&s->grid, r->index, a)]);
        }
        fprintf(f, "},\"status\":\"%s\"", sweep_status_name(r->status));
        if (r->status != SWEEP_INVALID)
            fprintf(f, ",\"kernel_ns\":%" PRId64 ",\"bottleneck\":\"%s\",\"hbm_util\":%.4f,\"sim_events\":%" PRIu64,
                    r->kernel_ns, r->bottleneck, r->hbm_util, r->sim_events);
        if (r->status != SWEEP_OK) {
            fprintf(f, ",\"rule\":");
            json_str(f, r->rule);
            fprintf(f, ",\"detail\":");
            json_str(f, r->detail ? r->detail : "");
        }
        fputc('}', f);
    }
    fprintf(f, "]}\n");
    return ferror(f) ? ERR_IO : ERR_OK;
}

/* ---- reading ------------------------------------------------------------------------------ */

/* Splits one CSV record (quoted fields may hold commas, quotes and line breaks) from *p;
 * fields point into the buffer, which is rewritten in place. Returns the field count, or
 * -1 past max fields or at an unterminated quote. */
static int csv_record(char **p, char **fields, int max)
{
    char *s = *p, *w = s;
    int n = 0;
    for (;;) {
        if (n >= max)
            return -1;
        fields[n++] = w;
        if (*s == '"') {
            s++;
            for (;;) {
                if (!*s)
                    return -1;
                if (*s == '"' && s[1] == '"')
                    *w++ = '"', s += 2;
                else if (*s == '"')
                    break;
                else
                    *w++ = *s++;
            }
            s++;
        } else {
            while (*s && *s != ',' && *s != '\n')
                *w++ = *s++;
        }
        char c = *s;
        *w++ = 0;
        if (c == ',') {
            s++;
            continue;
        }
        if (c == '\n')
            s++;
        else if (c)
            return -1;
        *p = s;
        return n;
    }
}

static char *header_value(char **p, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(*p, "# ", 2) || strncmp(*p + 2, name, n) || strncmp(*p + 2 + n, ": ", 2))
        return NULL;
    char *v = *p + 4 + n, *nl = strchr(v, '\n');
    if (!nl)
        return NULL;
    *nl = 0;
    *p = nl + 1;
    return v;
}

static int bad(err_info *e, const char *path, unsigned line, const char *what)
{
    return err_set(e, ERR_BAD_INPUT, "sweep_results", "%s:%u: %s (not a file `tmasim sweep -o FILE.csv` writes)", path,
                   line, what);
}

static int parse_u64(const char *s, uint64_t *v)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (!*s || *end || errno || *s == '-')
        return -1;
    *v = x;
    return 0;
}

static int read_header(char **p, const char *path, sweep_spec *s, uint32_t *shard_k, uint32_t *shard_n, err_info *e)
{
    size_t fl = strlen(FORMAT_LINE);
    if (strncmp(*p, FORMAT_LINE, fl) || (*p)[fl] != '\n')
        return bad(e, path, 1, "the first line is not '" FORMAT_LINE "'");
    *p += fl + 1;
    const char *names[] = {"desc", "gpu", "params", "force", "grid"};
    char *v[5];
    for (int k = 0; k < 5; k++)
        if (!(v[k] = header_value(p, names[k])))
            return bad(e, path, (unsigned)k + 2, "a header line is missing");
    s->desc = strdup(v[0]);
    s->gpu = strdup(v[1]);
    s->params = v[2][0] ? strdup(v[2]) : NULL;
    s->force = !strcmp(v[3], "1");
    if (!s->desc || !s->gpu || (v[2][0] && !s->params))
        return err_set(e, ERR_IO, "out_of_memory", "%s", path);
    if (sweep_grid_parse(v[4], &s->grid, e))
        return bad(e, path, 6, "the grid does not parse");
    *shard_k = *shard_n = 0;
    char *sh = header_value(p, "shard");
    if (sh && (sscanf(sh, "%u of %u", shard_k, shard_n) != 2 || *shard_n == 0 || *shard_k >= *shard_n))
        return bad(e, path, 7, "the shard line is not 'K of N'");
    return ERR_OK;
}

static int read_row(char **f, int nf, const sweep_spec *s, int shard, sweep_row *r)
{
    uint32_t na = s->grid.naxes;
    if (nf != (int)na + 10 || parse_u64(f[1], &r->index) || r->index >= s->grid.npoints || (shard && f[0][0]))
        return -1;
    for (uint32_t a = 0; a < na; a++)
        if (strcmp(f[2 + a], s->grid.axes[a].values[sweep_value_index(&s->grid, r->index, a)]))
            return -1;
    char **t = f + 2 + na;
    if (!strcmp(t[0], "ok") || !strcmp(t[0], "BUG")) {
        r->status = t[0][0] == 'o' ? SWEEP_OK : SWEEP_BUG;
        char *end;
        r->kernel_ns = strtoll(t[1], &end, 10);
        if (end == t[1] || *end || strlen(t[3]) >= sizeof r->bottleneck || parse_u64(t[5], &r->sim_events))
            return -1;
        snprintf(r->bottleneck, sizeof r->bottleneck, "%s", t[3]);
        r->hbm_util = strtod(t[4], &end);
        if (end == t[4] || *end)
            return -1;
    } else if (!strcmp(t[0], "invalid")) {
        r->status = SWEEP_INVALID;
    } else {
        return -1;
    }
    if (strlen(t[6]) >= sizeof r->rule)
        return -1;
    snprintf(r->rule, sizeof r->rule, "%s", t[6]);
    if (t[7][0] && !(r->detail = strdup(t[7])))
        return -1;
    return 0;
}

/* Parses text (NUL-terminated at len; rewritten in place, then freed) named path. */
static int read_csv_text(char *text, const char *path, sweep_spec *s, sweep_row **rows, uint64_t *n,
                         uint32_t *shard_k, uint32_t *shard_n, err_info *e)
{
    char *p = text;
    int rc = read_header(&p, path, s, shard_k, shard_n, e);
    unsigned line = *shard_n ? 8 : 7;
    char **fields = rc ? NULL : malloc((s->grid.naxes + 11) * sizeof *fields);
    int want = (int)s->grid.naxes + 10;
    if (!rc && (!fields || csv_record(&p, fields, want + 1) != want || strcmp(fields[0], "rank")))
        rc = bad(e, path, line, "the column line differs");
    uint64_t cap_rows = 0;
    while (!rc && *p && rows) {
        line++;
        /* a point has one row at most: the rows are bounded by the grid (SWEEP_MAX_POINTS)
         * before they are allocated, whatever the file's length */
        if (*n >= s->grid.npoints) {
            rc = bad(e, path, line, "more rows than the grid has points");
            break;
        }
        if (*n == cap_rows) {
            sweep_row *r = realloc(*rows, (cap_rows = 2 * cap_rows + 64) * sizeof *r);
            if (!r) {
                rc = err_set(e, ERR_IO, "out_of_memory", "%s", path);
                break;
            }
            *rows = r;
        }
        sweep_row *r = &(*rows)[*n];
        memset(r, 0, sizeof *r);
        int nf = csv_record(&p, fields, want + 1);
        (*n)++;
        if (nf < 0 || read_row(fields, nf, s, *shard_n != 0, r))
            rc = bad(e, path, line, "a row is not a sweep point");
    }
    free(fields);
    free(text);
    if (rc) {
        if (rows) {
            sweep_rows_free(*rows, *n);
            *rows = NULL;
        }
        *n = 0;
        sweep_spec_free(s);
    }
    return rc;
}

static void read_init(sweep_spec *s, sweep_row **rows, uint64_t *n, uint32_t *shard_k, uint32_t *shard_n)
{
    memset(s, 0, sizeof *s);
    if (rows)
        *rows = NULL;
    *n = 0;
    *shard_k = *shard_n = 0;
}

int sweep_read_csv(const char *path, sweep_spec *s, sweep_row **rows, uint64_t *n, uint32_t *shard_k,
                   uint32_t *shard_n, err_info *e)
{
    read_init(s, rows, n, shard_k, shard_n);
    size_t len = 0;
    int err = 0;
    char *text = rfile_load(path, SWEEP_MAX_FILE_BYTES, &len, &err);
    if (!text)
        return err_set(e, err == ENOMEM ? ERR_IO : ERR_BAD_INPUT, "sweep_results", "%s: %s%s", path, strerror(err),
                       err == EFBIG ? " (a result file holds at most 1 GiB)" : "");
    return read_csv_text(text, path, s, rows, n, shard_k, shard_n, e);
}

int sweep_read_csv_mem(const char *data, size_t len, const char *name, sweep_spec *s, sweep_row **rows, uint64_t *n,
                       uint32_t *shard_k, uint32_t *shard_n, err_info *e)
{
    read_init(s, rows, n, shard_k, shard_n);
    if (len > SWEEP_MAX_FILE_BYTES)
        return err_set(e, ERR_BAD_INPUT, "sweep_results", "%s: %s (a result file holds at most 1 GiB)", name,
                       strerror(EFBIG));
    char *text = malloc(len + 1);
    if (!text)
        return err_set(e, ERR_IO, "out_of_memory", "%s", name);
    if (len)
        memcpy(text, data, len);
    text[len] = 0;
    return read_csv_text(text, name, s, rows, n, shard_k, shard_n, e);
}

/* ---- Slurm ----------------------------------------------------------------------------------- */

char *sweep_self_path(void)
{
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        return NULL;
    buf[n] = 0;
    return strdup(buf);
}

/* single-quoted for sh */
static void sh_quote(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++)
        if (*s == '\'')
            fputs("'\\''", f);
        else
            fputc(*s, f);
    fputc('\'', f);
}

static int write_script(const char *script, const char *dir, const char *name, const char *task_cmd, err_info *e)
{
    afile f;
    if (afile_open(&f, script, "job_script", e))
        return e ? e->code : ERR_IO;
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd)) {
        afile_abort(&f);
        return err_set(e, ERR_IO, "job_script", "current directory: %s", strerror(errno));
    }
    fprintf(f.fp, "#!/bin/sh\n# written by tmascope: one array task per shard ($SLURM_ARRAY_TASK_ID)\n"
                  "#SBATCH --job-name=%s\n#SBATCH --output=%s/%s-%%a.log\ncd ",
            name, dir, name);
    sh_quote(f.fp, cwd);
    fprintf(f.fp, " || exit 2\nexec %s\n", task_cmd);
    if (afile_commit(&f, "job_script", e))
        return e ? e->code : ERR_IO;
    return ERR_OK;
}

int sweep_slurm_submit(const char *dir, const char *name, uint32_t ntasks, const char *task_cmd, const char *extra,
                       int wait, char *jobid, size_t jobid_size, err_info *e)
{
    size_t sl = strlen(dir) + strlen(name) + 8;
    char *script = malloc(sl);
    if (!script)
        return err_set(e, ERR_IO, "out_of_memory", "job script");
    snprintf(script, sl, "%s/%s.sh", dir, name);
    if (write_script(script, dir, name, task_cmd, e)) {
        free(script);
        return e ? e->code : ERR_IO;
    }
    char array[48];
    snprintf(array, sizeof array, "--array=0-%u", ntasks ? ntasks - 1 : 0);
    char *words = strdup(extra ? extra : ""), *save = NULL;
    const char *argv[72] = {"sbatch", "--parsable", array};
    int argc = 3;
    for (char *w = words ? strtok_r(words, " \t", &save) : NULL; w && argc < 68; w = strtok_r(NULL, " \t", &save))
        argv[argc++] = w;
    if (wait)
        argv[argc++] = "--wait";
    argv[argc++] = script;
    argv[argc] = NULL;
    int fd[2];
    int rc = ERR_OK;
    if (pipe(fd)) {
        rc = err_set(e, ERR_IO, "sbatch", "pipe: %s", strerror(errno));
    } else {
        pid_t pid = fork();
        if (pid == 0) {
            dup2(fd[1], STDOUT_FILENO);
            close(fd[0]), close(fd[1]);
            execvp("sbatch", (char *const *)argv);
            _exit(127);
        }
        close(fd[1]);
        size_t got = 0;
        ssize_t k;
        while (got + 1 < jobid_size && (k = read(fd[0], jobid + got, jobid_size - 1 - got)) > 0)
            got += (size_t)k;
        jobid[got] = 0;
        jobid[strcspn(jobid, ";\n")] = 0;
        close(fd[0]);
        int st = 0;
        if (pid < 0 || waitpid(pid, &st, 0) < 0)
            rc = err_set(e, ERR_IO, "sbatch", "could not start sbatch: %s", strerror(errno));
        else if (!WIFEXITED(st) || WEXITSTATUS(st) == 127)
            rc = err_set(e, ERR_IO, "sbatch", "sbatch is not installed or did not run (a Slurm cluster's login node has it)");
        else if (WEXITSTATUS(st) != 0)
            rc = err_set(e, ERR_IO, "sbatch", "sbatch %s %s failed with exit status %d (its message is above)", array,
                         script, WEXITSTATUS(st));
    }
    free(words);
    free(script);
    return rc;
}
