/* sweep: grids, points, evaluation on threads, ranking and the influence of keys. */
#define _GNU_SOURCE   /* sched_getaffinity */
#include "sweep.h"

#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pipe.h"
#include "pipe_budget.h"
#include "verdict.h"

static const char *const shape_keys[] = {"stages", "iterations", "ctas", "ctas_per_sm", "consumer_warps",
                                         "release_lag", "cluster"};
#define NSHAPE (sizeof shape_keys / sizeof shape_keys[0])

static int is_shape_key(const char *key)
{
    for (size_t k = 0; k < NSHAPE; k++)
        if (!strcmp(key, shape_keys[k]))
            return 1;
    return 0;
}

int sweep_key_is_param(const char *key)
{
    size_t n;
    const params_info *t = params_table(&n);
    for (size_t k = 0; k < n; k++)
        if (!strcmp(key, t[k].name))
            return 1;
    return 0;
}

/* "box", "box.A" -> "box" and the tensor name (or NULL) */
static int tensor_key(const char *key, const char *base, const char **tensor)
{
    size_t n = strlen(base);
    if (strncmp(key, base, n) || (key[n] && key[n] != '.'))
        return 0;
    *tensor = key[n] ? key + n + 1 : NULL;
    return 1;
}

static const char *const allowed_keys = "stages, iterations, ctas, ctas_per_sm, consumer_warps, release_lag, cluster, "
                                        "box, box.TENSOR, swizzle, swizzle.TENSOR, or a timing parameter (tmasim sim "
                                        "--params-list)";

/* ---- grids ----------------------------------------------------------------------------- */

static int add_value(sweep_axis *a, const char *text, err_info *e)
{
    if (a->nvalues >= SWEEP_MAX_VALUES)
        return err_set(e, ERR_BAD_INPUT, "grid", "%s: more than %d values", a->key, SWEEP_MAX_VALUES);
    char **v = realloc(a->values, (a->nvalues + 1) * sizeof *v);
    if (!v)
        return err_set(e, ERR_IO, "out_of_memory", "grid values");
    a->values = v;
    if (!(v[a->nvalues] = strdup(text)))
        return err_set(e, ERR_IO, "out_of_memory", "grid values");
    a->nvalues++;
    return ERR_OK;
}

static int parse_box(const char *s, uint32_t *w, uint32_t *h)
{
    char *end;
    unsigned long a = strtoul(s, &end, 10);
    if (end == s || *end != 'x')
        return -1;
    const char *t = end + 1;
    unsigned long b = strtoul(t, &end, 10);
    if (end == t || *end || a < 1 || a > 256 || b < 1 || b > 256 || !isdigit((unsigned char)*s) ||
        !isdigit((unsigned char)*t))
        return -1;
    *w = (uint32_t)a;
    *h = (uint32_t)b;
    return 0;
}

/* one comma-separated item of a key's values */
static int parse_item(sweep_axis *a, const char *item, err_info *e)
{
    const char *tensor;
    char buf[64];
    if (tensor_key(a->key, "box", &tensor)) {
        uint32_t w, h;
        if (parse_box(item, &w, &h))
            return err_set(e, ERR_BAD_INPUT, "grid", "%s: '%s' is not a box (allowed WxH, each 1..256, e.g. 64x128)",
                           a->key, item);
        snprintf(buf, sizeof buf, "%ux%u", w, h);
        return add_value(a, buf, e);
    }
    if (tensor_key(a->key, "swizzle", &tensor)) {
        tm_swizzle s;
        err_info pe = {0};
        if (tm_swizzle_parse(item, &s, &pe))
            return err_set(e, ERR_BAD_INPUT, "grid", "%s: %s", a->key, pe.detail);
        return add_value(a, tm_swizzle_name(s), e);
    }
    const char *dots = strstr(item, "..");
    char *end;
    if (dots) {
        long lo = strtol(item, &end, 10), hi;
        const char *t = dots + 2;
        if (end != dots || (hi = strtol(t, &end, 10), end == t || *end) || lo > hi || lo < 0 || hi > 65535)
            return err_set(e, ERR_BAD_INPUT, "grid", "%s: '%s' is not a range (allowed A..B, whole numbers, A <= B)",
                           a->key, item);
        if (hi - lo >= SWEEP_MAX_VALUES)
            return err_set(e, ERR_BAD_INPUT, "grid", "%s: '%s' has more than %d values", a->key, item,
                           SWEEP_MAX_VALUES);
        for (long v = lo; v <= hi; v++) {
            snprintf(buf, sizeof buf, "%ld", v);
            if (add_value(a, buf, e))
                return e->code;
        }
        return ERR_OK;
    }
    double v = strtod(item, &end);
    if (end == item || *end || !isfinite(v))
        return err_set(e, ERR_BAD_INPUT, "grid", "%s: '%s' is not a number", a->key, item);
    if (is_shape_key(a->key) && !(v >= 0 && v <= 65535 && v == (double)(uint32_t)v))
        return err_set(e, ERR_BAD_INPUT, "grid", "%s: '%s' (allowed: whole numbers 0..65535)", a->key, item);
    snprintf(buf, sizeof buf, "%.17g", v);
    return add_value(a, buf, e);
}

static int parse_axis(sweep_grid *g, const char *word, err_info *e)
{
    const char *eq = strchr(word, '=');
    if (!eq || eq == word || !eq[1])
        return err_set(e, ERR_BAD_INPUT, "grid", "'%s': expected KEY=VALUES (e.g. stages=2..8)", word);
    if (g->naxes >= SWEEP_MAX_AXES)
        return err_set(e, ERR_BAD_INPUT, "grid", "more than %d keys", SWEEP_MAX_AXES);
    sweep_axis *a = &g->axes[g->naxes];
    if (!(a->key = strndup(word, (size_t)(eq - word))))
        return err_set(e, ERR_IO, "out_of_memory", "grid");
    g->naxes++;
    const char *t;
    if (!is_shape_key(a->key) && !tensor_key(a->key, "box", &t) && !tensor_key(a->key, "swizzle", &t) &&
        !sweep_key_is_param(a->key))
        return err_set(e, ERR_BAD_INPUT, "grid", "key '%s' (allowed %s)", a->key, allowed_keys);
    for (uint32_t k = 0; k + 1 < g->naxes; k++)
        if (!strcmp(g->axes[k].key, a->key))
            return err_set(e, ERR_BAD_INPUT, "grid", "key '%s' given twice", a->key);
    char *list = strdup(eq + 1), *save = NULL;
    if (!list)
        return err_set(e, ERR_IO, "out_of_memory", "grid");
    int rc = ERR_OK;
    for (char *item = strtok_r(list, ",", &save); item && !rc; item = strtok_r(NULL, ",", &save))
        rc = parse_item(a, item, e);
    free(list);
    if (!rc && !a->nvalues)
        rc = err_set(e, ERR_BAD_INPUT, "grid", "%s: no values", a->key);
    return rc;
}

int sweep_grid_parse(const char *spec, sweep_grid *g, err_info *e)
{
    memset(g, 0, sizeof *g);
    char *s = strdup(spec ? spec : ""), *save = NULL;
    if (!s)
        return err_set(e, ERR_IO, "out_of_memory", "grid");
    int rc = ERR_OK;
    for (char *w = strtok_r(s, " \t\r\n", &save); w && !rc; w = strtok_r(NULL, " \t\r\n", &save))
        rc = parse_axis(g, w, e);
    free(s);
    if (!rc && !g->naxes)
        rc = err_set(e, ERR_BAD_INPUT, "grid", "empty (expected KEY=VALUES ..., e.g. 'stages=2..8 box=64x64,64x128')");
    g->npoints = 1;
    for (uint32_t a = 0; a < g->naxes && !rc; a++) {
        g->npoints *= g->axes[a].nvalues;
        if (g->npoints > SWEEP_MAX_POINTS)
            rc = err_set(e, ERR_BAD_INPUT, "grid", "more than %u points", SWEEP_MAX_POINTS);
    }
    if (rc)
        sweep_grid_free(g);
    return rc;
}

void sweep_grid_free(sweep_grid *g)
{
    for (uint32_t a = 0; a < g->naxes; a++) {
        for (uint32_t v = 0; v < g->axes[a].nvalues; v++)
            free(g->axes[a].values[v]);
        free(g->axes[a].values);
        free(g->axes[a].key);
    }
    memset(g, 0, sizeof *g);
}

/* appends to a growing string; *s NULL after a failure */
static void cat(char **s, size_t *len, const char *t)
{
    if (!*s)
        return;
    size_t n = strlen(t);
    char *r = realloc(*s, *len + n + 1);
    if (!r) {
        free(*s);
        *s = NULL;
        return;
    }
    memcpy(r + *len, t, n + 1);
    *len += n;
    *s = r;
}

char *sweep_grid_text(const sweep_grid *g)
{
    size_t len = 0;
    char *s = calloc(1, 1);
    for (uint32_t a = 0; a < g->naxes; a++) {
        cat(&s, &len, a ? " " : "");
        cat(&s, &len, g->axes[a].key);
        for (uint32_t v = 0; v < g->axes[a].nvalues; v++) {
            cat(&s, &len, v ? "," : "=");
            cat(&s, &len, g->axes[a].values[v]);
        }
    }
    return s;
}

uint32_t sweep_value_index(const sweep_grid *g, uint64_t point, uint32_t a)
{
    for (uint32_t k = g->naxes; k-- > a + 1;)
        point /= g->axes[k].nvalues;
    return (uint32_t)(point % g->axes[a].nvalues);
}

char *sweep_point_text(const sweep_grid *g, uint64_t point)
{
    size_t len = 0;
    char *s = calloc(1, 1);
    for (uint32_t a = 0; a < g->naxes; a++) {
        cat(&s, &len, a ? " " : "");
        cat(&s, &len, g->axes[a].key);
        cat(&s, &len, "=");
        cat(&s, &len, g->axes[a].values[sweep_value_index(g, point, a)]);
    }
    return s;
}

static int find_tensor(const pipe_desc *d, const char *name)
{
    for (uint32_t t = 0; t < d->ntensors; t++)
        if (!strcmp(d->tensors[t].name, name))
            return (int)t;
    return -1;
}

int sweep_grid_check(const sweep_grid *g, const pipe_desc *d, err_info *e)
{
    for (uint32_t a = 0; a < g->naxes; a++) {
        const char *t = NULL;
        if ((tensor_key(g->axes[a].key, "box", &t) || tensor_key(g->axes[a].key, "swizzle", &t)) && t &&
            find_tensor(d, t) < 0)
            return err_set(e, ERR_BAD_INPUT, "grid", "key '%s': %s has no tensor '%s'", g->axes[a].key, d->file, t);
    }
    return ERR_OK;
}

/* ---- setting keys ------------------------------------------------------------------------ */

void sweep_forget_derived(pipe_desc *d)
{
    /* a value equal to the derived one is either derived or given; deriving it again gives
     * the correct value for the new shape */
    if (d->full_count == pipe_desc_full_count(d))
        d->full_count = 0;
    if (d->empty_count == pipe_desc_empty_count(d))
        d->empty_count = 0;
    if (d->expect_tx == d->copy_bytes)
        d->expect_tx = 0;
}

int sweep_set_number(pipe_desc *d, pipe_params *p, const char *key, double v, err_info *e)
{
    if (is_shape_key(key)) {
        if (!(v >= 0 && v <= 65535 && v == (double)(uint32_t)v))
            return err_set(e, ERR_BAD_INPUT, "sweep", "%s=%g (allowed: whole numbers 0..65535)", key, v);
        uint32_t u = (uint32_t)v;
        uint32_t *f[] = {&d->stages, &d->iterations, &d->ctas, &d->ctas_per_sm, &d->consumer_warps, &d->release_lag,
                         &d->cluster};
        for (size_t k = 0; k < NSHAPE; k++)
            if (!strcmp(key, shape_keys[k]))
                *f[k] = u;
        return ERR_OK;
    }
    if (!sweep_key_is_param(key))
        return err_set(e, ERR_BAD_INPUT, "sweep", "key '%s' (allowed as a number: stages, iterations, ctas, ctas_per_sm, "
                                                  "consumer_warps, release_lag, cluster, or a timing parameter)", key);
    if (!p)
        return err_set(e, ERR_BAD_INPUT, "sweep", "key '%s' is a timing parameter of the simulator, not a setting of "
                                                  "the kernel", key);
    return params_set(p, key, v, e);
}

int sweep_set(pipe_desc *d, pipe_params *p, const char *key, const char *value, err_info *e)
{
    const char *tensor = NULL;
    int box = tensor_key(key, "box", &tensor), swz = !box && tensor_key(key, "swizzle", &tensor);
    if (box || swz) {
        int only = tensor ? find_tensor(d, tensor) : -1;
        if (tensor && only < 0)
            return err_set(e, ERR_BAD_INPUT, "sweep", "key '%s': no tensor '%s'", key, tensor);
        uint32_t w = 0, h = 0;
        tm_swizzle s = TM_SWIZZLE_NONE;
        err_info pe = {0};
        if (box && parse_box(value, &w, &h))
            return err_set(e, ERR_BAD_INPUT, "sweep", "%s=%s (allowed WxH, each 1..256)", key, value);
        if (swz && tm_swizzle_parse(value, &s, &pe))
            return err_set(e, ERR_BAD_INPUT, "sweep", "%s: %s", key, pe.detail);
        for (uint32_t t = 0; t < d->ntensors; t++) {
            if (only >= 0 && (int)t != only)
                continue;
            tm_desc *m = &d->tensors[t].map;
            if (swz) {
                m->swizzle = s;
            } else {
                m->box[0] = w;
                if (m->rank > 1)
                    m->box[1] = h;
            }
        }
        return ERR_OK;
    }
    char *end;
    double v = strtod(value, &end);
    if (end == value || *end)
        return err_set(e, ERR_BAD_INPUT, "sweep", "%s=%s is not a number", key, value);
    return sweep_set_number(d, p, key, v, e);
}

int sweep_apply_text(pipe_desc *d, pipe_params *p, const char *text, err_info *e)
{
    sweep_grid g;
    int rc = sweep_grid_parse(text, &g, e);
    if (rc)
        return rc;
    for (uint32_t a = 0; a < g.naxes && !rc; a++)
        if (g.axes[a].nvalues != 1)
            rc = err_set(e, ERR_BAD_INPUT, "sweep", "%s: one value per key in a point", g.axes[a].key);
    if (!rc)
        sweep_forget_derived(d);
    for (uint32_t a = 0; a < g.naxes && !rc; a++)
        rc = sweep_set(d, p, g.axes[a].key, g.axes[a].values[0], e);
    sweep_grid_free(&g);
    return rc ? rc : pipe_desc_derive(d, e);
}

/* ---- evaluating points --------------------------------------------------------------------- */

const char *sweep_status_name(sweep_status s)
{
    return s == SWEEP_OK ? "ok" : s == SWEEP_BUG ? "BUG" : "invalid";
}

unsigned sweep_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return (unsigned)CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

static int row_note(sweep_row *row, sweep_status st, const err_info *why, err_info *e)
{
    row->status = st;
    snprintf(row->rule, sizeof row->rule, "%s", why->rule);
    if (!(row->detail = strdup(why->detail)))
        return err_set(e, ERR_IO, "out_of_memory", "sweep row");
    return ERR_OK;
}

int sweep_eval(const pipe_desc *base, const sweep_grid *g, uint64_t point, const sweep_run_opts *o, sweep_row *row,
               err_info *e)
{
    memset(row, 0, sizeof *row);
    row->index = point;
    /* err_info and pipe_desc are large: on the heap, not on a worker thread's stack */
    struct work {
        pipe_desc d;
        pipe_params p;
        pipe_result r;
        err_info why;
    } *w = calloc(1, sizeof *w);
    if (!w)
        return err_set(e, ERR_IO, "out_of_memory", "sweep point");
    w->d = *base;
    if (o && o->params)
        w->p = *o->params;
    else
        params_defaults("h100", &w->p, NULL);
    sweep_forget_derived(&w->d);
    int rc = ERR_OK;
    for (uint32_t a = 0; a < g->naxes && !rc; a++)
        rc = sweep_set(&w->d, &w->p, g->axes[a].key, g->axes[a].values[sweep_value_index(g, point, a)], &w->why);
    pipe_budget b;
    if (!rc && !(rc = pipe_desc_derive(&w->d, &w->why))) {
        pipe_budget_estimate(&w->d, 0, &w->p, &b);
        rc = pipe_budget_check(&b, o ? o->force : 0, &w->why);
    }
    pipe_opts po = {.params = &w->p};
    if (!rc)
        rc = pipe_run(&w->d, &po, &w->r, &w->why);
    int out;
    if (rc == ERR_IO) {
        out = err_set(e, ERR_IO, w->why.rule, "%s", w->why.detail);
    } else if (rc) {
        out = row_note(row, SWEEP_INVALID, &w->why, e);
    } else {
        row->kernel_ns = w->r.kernel_ns;
        row->sim_events = w->r.sim_events;
        row->hbm_util = w->r.hbm_util;
        snprintf(row->bottleneck, sizeof row->bottleneck, "%s", w->r.bottleneck_kind ? w->r.bottleneck_kind : "");
        out = pipe_verdict(&w->r, &w->why) ? row_note(row, SWEEP_BUG, &w->why, e) : ERR_OK;
    }
    free(w);
    return out;
}

typedef struct pool {
    const pipe_desc *base;
    const sweep_grid *g;
    const uint64_t *points;
    uint64_t n;
    const sweep_run_opts *o;
    sweep_row *rows;
    atomic_uint_fast64_t next, done;
    atomic_int failed;
    err_info err;                       /* the first failure (written by the thread that set failed) */
} pool;

static void *worker(void *arg)
{
    pool *P = arg;
    err_info *e = malloc(sizeof *e);
    for (;;) {
        uint64_t i = atomic_fetch_add(&P->next, 1);
        if (i >= P->n || atomic_load(&P->failed))
            break;
        if (sweep_eval(P->base, P->g, P->points[i], P->o, &P->rows[i], e) && e) {
            int expect = 0;
            if (atomic_compare_exchange_strong(&P->failed, &expect, 1))
                P->err = *e;
        }
        atomic_fetch_add(&P->done, 1);
    }
    free(e);
    return NULL;
}

int sweep_run(const pipe_desc *base, const sweep_grid *g, const uint64_t *points, uint64_t n, const sweep_run_opts *o,
              sweep_row *rows, err_info *e)
{
    pool *P = calloc(1, sizeof *P);
    if (!P)
        return err_set(e, ERR_IO, "out_of_memory", "sweep");
    *P = (pool){.base = base, .g = g, .points = points, .n = n, .o = o, .rows = rows};
    memset(rows, 0, n * sizeof *rows);
    unsigned jobs = o && o->jobs ? o->jobs : sweep_cpus();
    if (jobs > n)
        jobs = n ? (unsigned)n : 1;
    /* with a progress report the calling thread only reports; otherwise it is a worker */
    int report = o && o->progress;
    unsigned want = report ? jobs : jobs - 1, started = 0;
    pthread_t *th = calloc(jobs, sizeof *th);
    for (; th && started < want; started++)
        if (pthread_create(&th[started], NULL, worker, P))
            break;
    if (report && started) {
        while (atomic_load(&P->done) < n && !atomic_load(&P->failed)) {
            o->progress(o->progress_user, atomic_load(&P->done));
            nanosleep(&(struct timespec){0, 100000000}, NULL);
        }
    } else {
        worker(P);
    }
    for (unsigned t = 0; t < started; t++)
        pthread_join(th[t], NULL);
    free(th);
    int rc = ERR_OK;
    if (atomic_load(&P->failed))
        rc = err_set(e, P->err.code, P->err.rule, "%s", P->err.detail);
    else if (o && o->progress)
        o->progress(o->progress_user, n);
    free(P);
    return rc;
}

void sweep_rows_free(sweep_row *rows, uint64_t n)
{
    for (uint64_t i = 0; rows && i < n; i++)
        free(rows[i].detail);
    free(rows);
}

static int rank_cmp(const void *pa, const void *pb)
{
    const sweep_row *a = pa, *b = pb;
    if (a->status != b->status)
        return a->status < b->status ? -1 : 1;
    if (a->status == SWEEP_OK && a->kernel_ns != b->kernel_ns)
        return a->kernel_ns < b->kernel_ns ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

void sweep_rank(sweep_row *rows, uint64_t n)
{
    qsort(rows, n, sizeof *rows, rank_cmp);
}

uint64_t sweep_shard_points(const sweep_grid *g, uint32_t k, uint32_t n, uint64_t *points)
{
    uint64_t m = 0;
    for (uint64_t i = k; n && i < g->npoints; i += n)
        points[m++] = i;
    return m;
}

/* ---- reading the result ----------------------------------------------------------------------- */

void sweep_influence(const sweep_grid *g, const sweep_row *rows, uint64_t n, double *out)
{
    for (uint32_t a = 0; a < g->naxes; a++) {
        uint32_t nv = g->axes[a].nvalues;
        double *sum = calloc(nv, sizeof *sum);
        uint64_t *cnt = calloc(nv, sizeof *cnt);
        out[a] = 0;
        if (!sum || !cnt || nv < 2) {
            free(sum), free(cnt);
            continue;
        }
        for (uint64_t i = 0; i < n; i++)
            if (rows[i].status == SWEEP_OK && rows[i].kernel_ns > 0) {
                uint32_t v = sweep_value_index(g, rows[i].index, a);
                sum[v] += log2((double)rows[i].kernel_ns);
                cnt[v]++;
            }
        double lo = INFINITY, hi = -INFINITY;
        for (uint32_t v = 0; v < nv; v++)
            if (cnt[v]) {
                double m = sum[v] / (double)cnt[v];
                lo = m < lo ? m : lo;
                hi = m > hi ? m : hi;
            }
        out[a] = hi > lo ? hi - lo : 0;
        free(sum), free(cnt);
    }
}

int sweep_top_axes(const sweep_grid *g, const double *influence, uint32_t *ax, uint32_t *ay)
{
    int best = -1, second = -1;
    for (uint32_t a = 0; a < g->naxes; a++) {
        if (g->axes[a].nvalues < 2)
            continue;
        if (best < 0 || influence[a] > influence[best]) {
            second = best;
            best = (int)a;
        } else if (second < 0 || influence[a] > influence[second]) {
            second = (int)a;
        }
    }
    if (best < 0)
        return -1;
    *ax = (uint32_t)best;
    *ay = (uint32_t)(second < 0 ? best : second);
    return 0;
}

void sweep_best_map(const sweep_grid *g, const sweep_row *rows, uint64_t n, uint32_t ax, uint32_t ay, double *cells)
{
    uint32_t nx = g->axes[ax].nvalues, ny = ay == ax ? 1 : g->axes[ay].nvalues;
    for (uint32_t c = 0; c < nx * ny; c++)
        cells[c] = -1;
    for (uint64_t i = 0; i < n; i++) {
        if (rows[i].status != SWEEP_OK)
            continue;
        uint32_t x = sweep_value_index(g, rows[i].index, ax), y = ay == ax ? 0 : sweep_value_index(g, rows[i].index, ay);
        double *c = &cells[(size_t)y * nx + x];
        if (*c < 0 || (double)rows[i].kernel_ns < *c)
            *c = (double)rows[i].kernel_ns;
    }
}

/* average ranks (1-based) of v into r */
static void ranks(const double *v, size_t n, double *r)
{
    for (size_t i = 0; i < n; i++) {
        size_t less = 0, same = 0;
        for (size_t j = 0; j < n; j++) {
            less += v[j] < v[i];
            same += v[j] == v[i];
        }
        r[i] = (double)less + (double)(same + 1) / 2.0;
    }
}

double sweep_spearman(const double *a, const double *b, size_t n)
{
    if (n < 2)
        return 0;
    double *ra = malloc(n * sizeof *ra), *rb = malloc(n * sizeof *rb);
    if (!ra || !rb) {
        free(ra), free(rb);
        return 0;
    }
    ranks(a, n, ra);
    ranks(b, n, rb);
    double ma = 0, mb = 0;
    for (size_t i = 0; i < n; i++)
        ma += ra[i], mb += rb[i];
    ma /= (double)n, mb /= (double)n;
    double sab = 0, saa = 0, sbb = 0;
    for (size_t i = 0; i < n; i++) {
        sab += (ra[i] - ma) * (rb[i] - mb);
        saa += (ra[i] - ma) * (ra[i] - ma);
        sbb += (rb[i] - mb) * (rb[i] - mb);
    }
    free(ra), free(rb);
    return saa > 0 && sbb > 0 ? sab / sqrt(saa * sbb) : 0;
}
