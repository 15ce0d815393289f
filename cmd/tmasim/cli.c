#include "cli.h"
#include "desc.h"
#include "pipe_budget.h"
#include "rfile.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cli_format_parse(const char *s, cli_format *out, err_info *e)
{
    if (!strcmp(s, "table") || !strcmp(s, "human")) *out = CLI_FORMAT_TABLE;
    else if (!strcmp(s, "csv")) *out = CLI_FORMAT_CSV;
    else if (!strcmp(s, "json")) *out = CLI_FORMAT_JSON;
    else return err_set(e, ERR_BAD_INPUT, "--format", "'%s' is not one of: table csv json", s);
    return ERR_OK;
}

static int parse_signed(const char *s, const char *field, int64_t *out, err_info *e)
{
    const char *p = s;
    int neg = 0;
    if (*p == '-') { neg = 1; p++; }
    else if (*p == '+') p++;
    if (!*p || *p == '-' || *p == '+' || *p == ' ')
        return err_set(e, ERR_BAD_INPUT, field, "'%s' is not a number (decimal or 0x hex)", s);
    errno = 0;
    char *end = NULL;
    unsigned long long v = (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) ? strtoull(p + 2, &end, 16)
                                                                         : strtoull(p, &end, 10);
    if ((p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && end == p + 2) || end == p || *end)
        return err_set(e, ERR_BAD_INPUT, field, "'%s' is not a number (decimal or 0x hex)", s);
    if (errno == ERANGE || v > (unsigned long long)INT64_MAX + (neg ? 1ull : 0ull))
        return err_set(e, ERR_BAD_INPUT, field, "'%s' is out of range", s);
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return ERR_OK;
}

int cli_parse_u64(const char *s, const char *field, uint64_t min, uint64_t max, uint64_t *out, err_info *e)
{
    if (s[0] == '-')
        return err_set(e, ERR_BAD_INPUT, field, "'%s' must not be negative (allowed %" PRIu64 "..%" PRIu64 ")", s, min, max);
    const char *p = s[0] == '+' ? s + 1 : s;
    errno = 0;
    char *end = NULL;
    int hex = p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
    unsigned long long v = hex ? strtoull(p + 2, &end, 16) : strtoull(p, &end, 10);
    if (!*p || end == p || (hex && end == p + 2) || *end || *p == ' ' || *p == '-' || (hex && (p[2] == '-' || p[2] == '+' || p[2] == ' ')))
        return err_set(e, ERR_BAD_INPUT, field, "'%s' is not a number (decimal or 0x hex)", s);
    if (errno == ERANGE || v < min || v > max)
        return err_set(e, ERR_BAD_INPUT, field, "%s is out of range (allowed %" PRIu64 "..%" PRIu64 ")", s, min, max);
    *out = v;
    return ERR_OK;
}

int cli_parse_i64(const char *s, const char *field, int64_t min, int64_t max, int64_t *out, err_info *e)
{
    int64_t v = 0;
    int rc = parse_signed(s, field, &v, e);
    if (rc) return rc;
    if (v < min || v > max)
        return err_set(e, ERR_BAD_INPUT, field, "%s is out of range (allowed %" PRId64 "..%" PRId64 ")", s, min, max);
    *out = v;
    return ERR_OK;
}

/* Splits a comma list into a scratch copy and hands each item to fn. */
static int each_item(const char *s, const char *field, unsigned max_count, unsigned *count, err_info *e,
                     int (*fn)(const char *item, unsigned i, void *ctx), void *ctx)
{
    size_t n = strlen(s);
    if (n == 0)
        return err_set(e, ERR_BAD_INPUT, field, "empty list (expected comma-separated numbers)");
    char *buf = malloc(n + 1);
    if (!buf)
        return err_set(e, ERR_IO, field, "out of memory");
    memcpy(buf, s, n + 1);
    unsigned i = 0;
    int rc = ERR_OK;
    char *item = buf;
    for (;;) {
        char *comma = strchr(item, ',');
        if (comma) *comma = 0;
        if (i >= max_count) {
            rc = err_set(e, ERR_BAD_INPUT, field, "'%s' has more than %u values", s, max_count);
            break;
        }
        rc = fn(item, i, ctx);
        if (rc) break;
        i++;
        if (!comma) break;
        item = comma + 1;
    }
    free(buf);
    if (!rc) *count = i;
    return rc;
}

struct u64_ctx { const char *field; uint64_t min, max; uint64_t *out; err_info *e; };
static int u64_item(const char *item, unsigned i, void *vctx)
{
    struct u64_ctx *c = vctx;
    char name[96];
    snprintf(name, sizeof name, "%s[%u]", c->field, i);
    return cli_parse_u64(item, name, c->min, c->max, &c->out[i], c->e);
}
int cli_parse_u64_list(const char *s, const char *field, uint64_t min, uint64_t max,
                       uint64_t *out, unsigned max_count, unsigned *count, err_info *e)
{
    struct u64_ctx c = {field, min, max, out, e};
    return each_item(s, field, max_count, count, e, u64_item, &c);
}

struct i64_ctx { const char *field; int64_t min, max; int64_t *out; err_info *e; };
static int i64_item(const char *item, unsigned i, void *vctx)
{
    struct i64_ctx *c = vctx;
    char name[96];
    snprintf(name, sizeof name, "%s[%u]", c->field, i);
    return cli_parse_i64(item, name, c->min, c->max, &c->out[i], c->e);
}
int cli_parse_i64_list(const char *s, const char *field, int64_t min, int64_t max,
                       int64_t *out, unsigned max_count, unsigned *count, err_info *e)
{
    struct i64_ctx c = {field, min, max, out, e};
    return each_item(s, field, max_count, count, e, i64_item, &c);
}

int cli_report(const char *cmd, const err_info *e)
{
    if (e->rule[0])
        fprintf(stderr, "tmasim %s: %s: %s\n", cmd, err_rule_label(e->rule), e->detail);
    else
        fprintf(stderr, "tmasim %s: %s\n", cmd, e->detail);
    return e->code == ERR_FINDING ? EXIT_FINDING : e->code == ERR_OK ? EXIT_OK : EXIT_BAD_INPUT;
}

int cli_check_outpath(const char *flag, const char *path, err_info *e)
{
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) : 0;
    char *dir = malloc(n + 2);
    if (!dir) return err_set(e, ERR_IO, flag, "out of memory");
    if (!slash) strcpy(dir, ".");
    else if (n == 0) strcpy(dir, "/");
    else memcpy(dir, path, n), dir[n] = 0;
    int ok = access(dir, W_OK | X_OK) == 0;
    int err = errno;
    int rc = ok ? ERR_OK
                : err_set(e, ERR_BAD_INPUT, flag, "'%s': directory '%s' %s", path, dir,
                          err == ENOENT || err == ENOTDIR ? "does not exist" : "is not writable");
    free(dir);
    return rc;
}

int cli_outfile_open(cli_outfile *o, const char *path, err_info *e)
{
    int rc = afile_open(&o->f, path, "output", e);
    o->fp = o->f.fp;
    return rc;
}

int cli_outfile_commit(cli_outfile *o, err_info *e)
{
    o->fp = NULL;
    return afile_commit(&o->f, "output", e);
}

void cli_outfile_abort(cli_outfile *o)
{
    o->fp = NULL;
    afile_abort(&o->f);
}

void cli_progress_begin(cli_progress *p, const char *label, uint64_t total)
{
    p->label = label;
    p->total = total ? total : 1;
    p->last_drawn = UINT64_MAX;
    p->enabled = isatty(STDERR_FILENO);
}

void cli_progress_update(cli_progress *p, uint64_t done)
{
    if (!p->enabled) return;
    uint64_t pct = done * 100 / p->total;
    if (pct == p->last_drawn) return;
    p->last_drawn = pct;
    int filled = (int)(pct * 30 / 100);
    fprintf(stderr, "\r%s [%.*s%*s] %3u%%", p->label, filled, "==============================",
            30 - filled, "", (unsigned)pct);
}

void cli_progress_end(cli_progress *p)
{
    if (p->enabled) fprintf(stderr, "\r%*s\r", 60, "");
    p->last_drawn = UINT64_MAX;   /* the next update draws again */
}

int cli_read_file(const char *path, char **text, size_t *len, err_info *e)
{
    size_t n = 0;
    int err = 0;
    char *buf = rfile_load(path, CLI_MAX_FILE_BYTES, &n, &err);
    if (!buf)
        return err_set(e, err == ENOMEM ? ERR_IO : ERR_BAD_INPUT, "file", "cannot read %s: %s%s", path, strerror(err),
                       err == EFBIG ? " (at most 64 MiB)" : "");
    *text = buf;
    if (len) *len = n;
    return ERR_OK;
}

void cli_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20 || c == 0x7f)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

int cli_sim_budget(const char *cmd, const pipe_desc *d, const pipe_params *p, int traced, int force, err_info *e)
{
    pipe_budget b;
    pipe_budget_estimate(d, traced, p, &b);
    int rc = pipe_budget_check(&b, force, e);
    if (rc)
        return rc;
    double secs = b.sim_events / CLI_SIM_EVENTS_PER_S;
    if (secs > 1 && isatty(STDERR_FILENO))
        fprintf(stderr, "tmasim %s: about %.3g simulated events, roughly %.0f s%s\n", cmd, b.sim_events, secs,
                traced ? " (and the trace)" : "");
    return ERR_OK;
}
