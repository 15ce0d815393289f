#include "view_timeline.h"

#include "pipe_state.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tdiff.h"

struct view_trace {
    const trace *t;
    view_lane *lanes;
    size_t nlanes, ngroups;
    uint32_t *idx;          /* per lane, per track: trace indices sorted by start */
    uint32_t *work_pre;     /* per lane: WORK prefix sums (count+1 entries each), stall then busy */
    uint32_t *pre_first;    /* per lane: offset of its prefix block in work_pre (pairs) */
    int64_t t_min, t_max;
};

view_track view_track_of(trace_kind k)
{
    switch (k) {
    case TRACE_TMA_FLIGHT:
    case TRACE_TMA_STORE:
    case TRACE_WGMMA: return VIEW_TRACK_COPY;
    case TRACE_WAIT:
    case TRACE_WGMMA_WAIT:
    case TRACE_SMEM_READ:
    case TRACE_MATH: return VIEW_TRACK_WORK;
    default: return VIEW_TRACK_MARK;
    }
}

/* ---- lane table: open addressing on the packed (sm, cta, role, warp) key -------- */
static uint64_t lane_key(const trace_event *ev)
{
    return (uint64_t)ev->sm << 32 | (uint64_t)ev->cta << 16 | (uint64_t)ev->role << 8 | ev->warp;
}

typedef struct lane_map {
    uint64_t *keys;     /* key + 1; 0 = empty slot */
    uint32_t *ids;
    size_t cap, n;
} lane_map;

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

static int map_grow(lane_map *m)
{
    size_t ncap = m->cap ? m->cap * 2 : 256;
    uint64_t *nk = calloc(ncap, sizeof *nk);
    uint32_t *ni = calloc(ncap, sizeof *ni);
    if (!nk || !ni) {
        free(nk); free(ni);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->keys[i]) continue;
        size_t h = mix(m->keys[i]) & (ncap - 1);
        while (nk[h]) h = (h + 1) & (ncap - 1);
        nk[h] = m->keys[i];
        ni[h] = m->ids[i];
    }
    free(m->keys); free(m->ids);
    m->keys = nk; m->ids = ni; m->cap = ncap;
    return 0;
}

/* Returns the lane id of key, adding it if new; UINT32_MAX on allocation failure. */
static uint32_t map_get(lane_map *m, uint64_t key)
{
    if ((m->n + 1) * 2 > m->cap && map_grow(m)) return UINT32_MAX;
    uint64_t k = key + 1;
    size_t h = mix(k) & (m->cap - 1);
    while (m->keys[h]) {
        if (m->keys[h] == k) return m->ids[h];
        h = (h + 1) & (m->cap - 1);
    }
    m->keys[h] = k;
    m->ids[h] = (uint32_t)m->n;
    return (uint32_t)m->n++;
}

typedef struct lane_sort { uint64_t order; uint32_t id; } lane_sort;
static int lane_sort_cmp(const void *pa, const void *pb)
{
    const lane_sort *a = pa, *b = pb;
    return a->order < b->order ? -1 : a->order > b->order;
}

int view_trace_build(const trace *t, view_trace **out, err_info *e)
{
    *out = NULL;
    if (t->count >= UINT32_MAX)
        return err_set(e, ERR_BAD_INPUT, "events", "%zu events; the viewer holds at most %u", t->count, UINT32_MAX - 1);
    for (size_t i = 1; i < t->count; i++)
        if (t->events[i].t_ns < t->events[i - 1].t_ns)
            return err_set(e, ERR_BAD_INPUT, "t_ns", "events not sorted by time (event %zu at %lld ns after %lld ns)",
                           i, (long long)t->events[i].t_ns, (long long)t->events[i - 1].t_ns);
    view_trace *v = calloc(1, sizeof *v);
    lane_map m = {0};
    uint32_t *lane_of_id = NULL, *pos = NULL;
    if (!v) goto oom;
    v->t = t;
    /* Pass 1: discover lanes, count events per (lane, track). The per-event lane is not
     * stored (it would cost 4 bytes per event); pass 2 looks it up again. */
    uint32_t *counts = NULL;
    size_t counts_cap = 0;
    uint64_t last_key = UINT64_MAX;
    uint32_t last_id = 0;
    for (size_t i = 0; i < t->count; i++) {
        const trace_event *ev = &t->events[i];
        uint64_t k = lane_key(ev);
        uint32_t id = k == last_key ? last_id : map_get(&m, k);
        if (id == UINT32_MAX) { free(counts); goto oom; }
        last_key = k; last_id = id;
        if ((size_t)id * VIEW_TRACK_COUNT + VIEW_TRACK_COUNT > counts_cap) {
            size_t nc = counts_cap ? counts_cap * 2 : 256 * VIEW_TRACK_COUNT;
            uint32_t *c = realloc(counts, nc * sizeof *c);
            if (!c) { free(counts); goto oom; }
            memset(c + counts_cap, 0, (nc - counts_cap) * sizeof *c);
            counts = c; counts_cap = nc;
        }
        counts[(size_t)id * VIEW_TRACK_COUNT + view_track_of((trace_kind)ev->kind)]++;
    }
    v->nlanes = m.n;
    v->lanes = calloc(m.n ? m.n : 1, sizeof *v->lanes);
    lane_sort *ls = calloc(m.n ? m.n : 1, sizeof *ls);
    lane_of_id = calloc(m.n ? m.n : 1, sizeof *lane_of_id);
    v->pre_first = calloc(m.n ? m.n : 1, sizeof *v->pre_first);
    if (!v->lanes || !ls || !lane_of_id || !v->pre_first) { free(ls); free(counts); goto oom; }
    for (size_t s = 0; s < m.cap; s++) {
        if (!m.keys[s]) continue;
        uint64_t k = m.keys[s] - 1;
        uint64_t sm = k >> 32, cta = (k >> 16) & 0xffff, role = (k >> 8) & 0xff, warp = k & 0xff;
        ls[m.ids[s]] = (lane_sort){sm << 40 | cta << 16 | role << 8 | warp, m.ids[s]};
    }
    qsort(ls, m.n, sizeof *ls, lane_sort_cmp);
    size_t off = 0, pre_off = 0;
    for (size_t l = 0; l < m.n; l++) {
        view_lane *ln = &v->lanes[l];
        uint64_t o = ls[l].order;
        ln->sm = (uint8_t)(o >> 40);
        ln->cta = (uint16_t)(o >> 16);
        ln->role = (uint8_t)(o >> 8);
        ln->warp = (uint8_t)o;
        if (l > 0 && (ln->cta != v->lanes[l - 1].cta || ln->sm != v->lanes[l - 1].sm)) v->ngroups++;
        ln->group = (uint32_t)v->ngroups;
        lane_of_id[ls[l].id] = (uint32_t)l;
        for (int tr = 0; tr < VIEW_TRACK_COUNT; tr++) {
            ln->first[tr] = (uint32_t)off;
            ln->count[tr] = counts[(size_t)ls[l].id * VIEW_TRACK_COUNT + tr];
            off += ln->count[tr];
        }
        v->pre_first[l] = (uint32_t)pre_off;
        pre_off += ln->count[VIEW_TRACK_WORK] + 1;
    }
    if (m.n) v->ngroups++;
    free(ls);
    free(counts);
    v->idx = malloc((t->count ? t->count : 1) * sizeof *v->idx);
    v->work_pre = calloc(pre_off ? pre_off * 2 : 2, sizeof *v->work_pre);
    pos = malloc((m.n ? m.n : 1) * VIEW_TRACK_COUNT * sizeof *pos);
    if (!v->idx || !v->work_pre || !pos) goto oom;
    for (size_t l = 0; l < m.n; l++)
        for (int tr = 0; tr < VIEW_TRACK_COUNT; tr++) pos[l * VIEW_TRACK_COUNT + tr] = v->lanes[l].first[tr];
    /* Pass 2: scatter indices; time order is kept because the trace is time-sorted. */
    last_key = UINT64_MAX;
    v->t_min = t->count ? t->events[0].t_ns : 0;
    v->t_max = v->t_min;
    for (size_t i = 0; i < t->count; i++) {
        const trace_event *ev = &t->events[i];
        uint64_t k = lane_key(ev);
        uint32_t id = k == last_key ? last_id : map_get(&m, k);
        last_key = k; last_id = id;
        uint32_t l = lane_of_id[id];
        view_track tr = view_track_of((trace_kind)ev->kind);
        view_lane *ln = &v->lanes[l];
        uint32_t p = pos[(size_t)l * VIEW_TRACK_COUNT + tr]++;
        v->idx[p] = (uint32_t)i;
        if (ev->dur_ns > ln->max_dur[tr]) ln->max_dur[tr] = ev->dur_ns;
        if (ev->stage > ln->max_stage && ev->kind != TRACE_BAR_ARRIVE && ev->kind != TRACE_PHASE_COMPLETE)
            ln->max_stage = ev->stage;
        if (ev->t_ns + ev->dur_ns > v->t_max) v->t_max = ev->t_ns + ev->dur_ns;
        if (tr == VIEW_TRACK_WORK) {
            /* Running sums modulo 2^32: a difference is exact while the durations it
             * adds up stay below 2^32 ns (4.29 s, far more than any kernel); view_blocks
             * adds the events themselves where they might not. */
            uint32_t k2 = p - ln->first[VIEW_TRACK_WORK];
            uint32_t *pre = v->work_pre + 2 * (size_t)v->pre_first[l];
            pre[2 * (k2 + 1)] = pre[2 * k2] + (ev->kind == TRACE_WAIT ? ev->dur_ns : 0);
            pre[2 * (k2 + 1) + 1] = pre[2 * k2 + 1] + ev->dur_ns;
        }
    }
    free(pos);
    free(lane_of_id);
    free(m.keys);
    free(m.ids);
    *out = v;
    return ERR_OK;
oom:
    free(pos);
    free(lane_of_id);
    free(m.keys);
    free(m.ids);
    view_trace_free(v);
    return err_set(e, ERR_IO, "memory", "out of memory indexing %zu events", t->count);
}

void view_trace_free(view_trace *v)
{
    if (!v) return;
    free(v->lanes);
    free(v->idx);
    free(v->work_pre);
    free(v->pre_first);
    free(v);
}

const trace *view_trace_get(const view_trace *v) { return v->t; }
size_t view_lane_count(const view_trace *v) { return v->nlanes; }
const view_lane *view_lane_at(const view_trace *v, size_t i) { return i < v->nlanes ? &v->lanes[i] : NULL; }
size_t view_group_count(const view_trace *v) { return v->ngroups; }
int64_t view_t_min(const view_trace *v) { return v->t_min; }
int64_t view_t_max(const view_trace *v) { return v->t_max; }

size_t view_trace_bytes(const view_trace *v)
{
    size_t pre = 0;
    for (size_t l = 0; l < v->nlanes; l++) pre += v->lanes[l].count[VIEW_TRACK_WORK] + 1;
    return sizeof *v + v->nlanes * (sizeof *v->lanes + sizeof *v->pre_first) + v->t->count * sizeof *v->idx +
           pre * 2 * sizeof *v->work_pre;
}

size_t view_lane_of(const view_trace *v, const trace_event *ev)
{
    for (size_t l = 0; l < v->nlanes; l++) {
        const view_lane *ln = &v->lanes[l];
        if (ln->sm == ev->sm && ln->cta == ev->cta && ln->role == ev->role && ln->warp == ev->warp) return l;
    }
    return SIZE_MAX;
}

/* ---- time <-> pixels ----------------------------------------------------------------- */
double view_x(const view_port *p, int64_t t) { return (double)(t - p->t0) / p->ns_per_px; }
int64_t view_t(const view_port *p, double x) { return p->t0 + (int64_t)llround(x * p->ns_per_px); }
int64_t view_t1(const view_port *p) { return view_t(p, p->width_px); }

void view_fit(view_port *p, int64_t a, int64_t b)
{
    if (b <= a) b = a + 1;
    if (p->width_px < 1) p->width_px = 1;
    p->t0 = a;
    p->ns_per_px = (double)(b - a) / p->width_px;
}

/* Below 1/1000 ns per pixel nothing more can be seen; above 1e12 the axis is meaningless. */
static double clamp_scale(double s) { return s < 1e-3 ? 1e-3 : s > 1e12 ? 1e12 : s; }

void view_zoom_at(view_port *p, double x, double factor)
{
    if (!(factor > 0)) return;
    double t_at = (double)p->t0 + x * p->ns_per_px;
    p->ns_per_px = clamp_scale(p->ns_per_px / factor);
    p->t0 = (int64_t)llround(t_at - x * p->ns_per_px);
}

void view_pan_px(view_port *p, double dx) { p->t0 -= (int64_t)llround(dx * p->ns_per_px); }

/* ---- level of detail ------------------------------------------------------------------- */
static const trace_event *ev_at(const view_trace *v, const uint32_t *ids, size_t i) { return &v->t->events[ids[i]]; }

/* First position in ids[0, n) whose event starts at or after t. */
static size_t lower_start(const view_trace *v, const uint32_t *ids, size_t n, int64_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ev_at(v, ids, mid)->t_ns < t) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static int64_t ev_end(const trace_event *ev) { return ev->t_ns + ev->dur_ns; }

size_t view_blocks(const view_trace *v, size_t lane, view_track tr, int64_t t0, int64_t t1, double ns_per_px,
                   double min_px, view_block *out, size_t cap)
{
    if (lane >= v->nlanes || tr >= VIEW_TRACK_COUNT || !(ns_per_px > 0)) return 0;
    const view_lane *ln = &v->lanes[lane];
    const uint32_t *ids = v->idx + ln->first[tr];
    size_t n = ln->count[tr];
    const uint32_t *pre = tr == VIEW_TRACK_WORK ? v->work_pre + 2 * (size_t)v->pre_first[lane] : NULL;
    int64_t min_ns = (int64_t)ceil(min_px * ns_per_px);
    if (min_ns < 1) min_ns = 1;
    size_t i = lower_start(v, ids, n, t0 - (int64_t)ln->max_dur[tr]);
    size_t nout = 0;
    while (i < n && nout < cap) {
        const trace_event *ev = ev_at(v, ids, i);
        if (ev->t_ns > t1) break;
        if (ev_end(ev) < t0) { i++; continue; }
        int64_t s = ev->t_ns, end = ev_end(ev);
        view_block b = {.t0 = s, .count = 1, .event = ids[i], .kind = ev->kind};
        size_t j = i + 1;
        if (end - s >= min_ns) {
            b.t1 = end;   /* wide enough to be drawn as itself */
        } else {
            int64_t block_end = s + min_ns;
            j = lower_start(v, ids, n, block_end);
            if (j < i + 1) j = i + 1;
            const trace_event *last = ev_at(v, ids, j - 1);
            if (j - 1 > i && ev_end(last) - last->t_ns >= min_ns) {
                /* a wide event ends the merge: it is drawn on its own next */
                j--;
                block_end = last->t_ns;
            } else if (ev_end(last) > block_end) {
                block_end = ev_end(last);
            }
            b.t1 = block_end;
            b.count = (uint32_t)(j - i);
        }
        if (pre) {
            uint64_t stall = (uint32_t)(pre[2 * j] - pre[2 * i]), busy = (uint32_t)(pre[2 * j + 1] - pre[2 * i + 1]);
            if ((uint64_t)(j - i) * ln->max_dur[tr] >= (uint64_t)1 << 32) {
                /* zoomed out over a trace longer than 4.29 s: the sums modulo 2^32 may
                 * have wrapped (and made the share anything), so add the events */
                stall = busy = 0;
                for (size_t k = i; k < j; k++) {
                    const trace_event *w = ev_at(v, ids, k);
                    busy += w->dur_ns;
                    stall += w->kind == TRACE_WAIT ? w->dur_ns : 0;
                }
            }
            b.stall_frac = busy ? (float)((double)stall / (double)busy) : 0.0f;   /* stall <= busy: 0..1 */
        } else {
            b.stall_frac = 0.0f;
        }
        out[nout++] = b;
        i = j;
    }
    return nout;
}

uint32_t view_pick(const view_trace *v, size_t lane, view_track tr, int64_t t, int64_t tol_ns)
{
    if (lane >= v->nlanes || tr >= VIEW_TRACK_COUNT) return UINT32_MAX;
    const view_lane *ln = &v->lanes[lane];
    const uint32_t *ids = v->idx + ln->first[tr];
    size_t n = ln->count[tr];
    size_t i = lower_start(v, ids, n, t - (int64_t)ln->max_dur[tr] - tol_ns);
    uint32_t best = UINT32_MAX;
    int64_t best_dist = INT64_MAX;
    for (size_t scanned = 0; i < n && scanned < 4096; i++, scanned++) {
        const trace_event *ev = ev_at(v, ids, i);
        if (ev->t_ns > t + tol_ns) break;
        int64_t dist = t < ev->t_ns ? ev->t_ns - t : t > ev_end(ev) ? t - ev_end(ev) : 0;
        if (dist <= tol_ns && dist <= best_dist) {
            best_dist = dist;
            best = ids[i];
        }
    }
    return best;
}

size_t view_flow_targets(const view_trace *v, uint32_t issue, uint32_t *out, size_t cap)
{
    if (issue >= v->t->count) return 0;
    const trace_event *is = &v->t->events[issue];
    if (is->kind != TRACE_TMA_ISSUE && is->kind != TRACE_CPASYNC_ISSUE) return 0;
    /* the copy's landing time: its flight span (same lane, same stage and iteration) */
    size_t lane = view_lane_of(v, is);
    if (lane == SIZE_MAX) return 0;
    const view_lane *ln = &v->lanes[lane];
    const uint32_t *ids = v->idx + ln->first[VIEW_TRACK_COPY];
    size_t n = ln->count[VIEW_TRACK_COPY];
    int64_t landed = INT64_MIN;
    for (size_t i = lower_start(v, ids, n, is->t_ns); i < n && ev_at(v, ids, i)->t_ns == is->t_ns; i++) {
        const trace_event *f = ev_at(v, ids, i);
        if (f->kind == TRACE_TMA_FLIGHT && f->stage == is->stage && f->iteration == is->iteration) landed = ev_end(f);
    }
    if (landed == INT64_MIN) return 0;
    size_t nout = 0;
    for (size_t l = 0; l < v->nlanes && nout < cap; l++) {
        if (v->lanes[l].cta != is->cta || l == lane) continue;
        uint32_t w = view_pick(v, l, VIEW_TRACK_WORK, landed - 1, 0);
        if (w == UINT32_MAX) continue;
        const trace_event *we = &v->t->events[w];
        if (we->kind == TRACE_WAIT && we->stage == is->stage && we->iteration == is->iteration &&
            (we->flags & TRACE_FLAG_FULL_BARRIER) && ev_end(we) >= landed)
            out[nout++] = w;
    }
    return nout;
}

/* ---- search --------------------------------------------------------------------------- */
static int query_hit(const view_query *q, const trace_event *ev)
{
    return (q->kind < 0 || ev->kind == q->kind) && (q->stage < 0 || ev->stage == q->stage) &&
           (q->iteration < 0 || ev->iteration == (uint64_t)q->iteration) && (q->role < 0 || ev->role == q->role);
}

uint32_t view_search(const view_trace *v, const view_query *q, size_t from, int dir)
{
    size_t n = v->t->count;
    if (dir >= 0) {
        for (size_t i = from == SIZE_MAX ? 0 : from + 1; i < n; i++)
            if (query_hit(q, &v->t->events[i])) return (uint32_t)i;
    } else {
        for (size_t i = from == SIZE_MAX || from > n ? n : from; i-- > 0;)
            if (query_hit(q, &v->t->events[i])) return (uint32_t)i;
    }
    return UINT32_MAX;
}

int view_query_parse(const char *s, view_query *q, err_info *e)
{
    *q = (view_query){-1, -1, -1, -1};
    char buf[256];
    if (strlen(s) >= sizeof buf) return err_set(e, ERR_BAD_INPUT, "query", "longer than %zu characters", sizeof buf - 1);
    strcpy(buf, s);
    for (char *tok = strtok(buf, " ,"); tok; tok = strtok(NULL, " ,")) {
        char *eq = strchr(tok, '=');
        if (!eq) return err_set(e, ERR_BAD_INPUT, "query", "'%s' is not key=value (keys: kind stage iter role)", tok);
        *eq = 0;
        const char *val = eq + 1;
        char *end = NULL;
        if (!strcmp(tok, "kind")) {
            trace_kind k;
            int found = 0;
            for (int i = 0; i < TRACE_KIND_COUNT; i++)
                if (!strcasecmp(val, trace_kind_name((trace_kind)i))) { k = (trace_kind)i; found = 1; q->kind = k; }
            if (!found) return err_set(e, ERR_BAD_INPUT, "kind", "'%s' is not a trace kind (e.g. wait, tma_flight, smem_read)", val);
        } else if (!strcmp(tok, "role")) {
            int found = 0;
            for (int i = 0; i < TRACE_ROLE_COUNT; i++)
                if (!strcasecmp(val, trace_role_name((trace_role)i))) { q->role = i; found = 1; }
            if (!found) return err_set(e, ERR_BAD_INPUT, "role", "'%s' is not a role (producer consumer mixed tma_unit)", val);
        } else if (!strcmp(tok, "stage") || !strcmp(tok, "iter") || !strcmp(tok, "iteration")) {
            long long x = strtoll(val, &end, 10);
            int is_stage = !strcmp(tok, "stage");
            if (!*val || *end || x < 0 || x > (is_stage ? 255 : (long long)UINT32_MAX))
                return err_set(e, ERR_BAD_INPUT, tok, "'%s' is not a number in 0..%s", val, is_stage ? "255" : "4294967295");
            if (is_stage) q->stage = (int)x; else q->iteration = x;
        } else {
            return err_set(e, ERR_BAD_INPUT, "query", "'%s' is not one of: kind stage iter role", tok);
        }
    }
    return ERR_OK;
}

/* ---- range statistics ---------------------------------------------------------------- */
/* Events starting in [a, b] are contiguous in the time-sorted trace. */
static void time_range(const trace *t, int64_t a, int64_t b, size_t *lo_out, size_t *hi_out)
{
    size_t lo = 0, hi = t->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->events[mid].t_ns < a) lo = mid + 1; else hi = mid;
    }
    size_t lo2 = lo, hi2 = t->count;
    while (lo2 < hi2) {
        size_t mid = lo2 + (hi2 - lo2) / 2;
        if (t->events[mid].t_ns <= b) lo2 = mid + 1; else hi2 = mid;
    }
    *lo_out = lo;
    *hi_out = lo2;
}

static int u32_cmp(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    return a < b ? -1 : a > b;
}

static uint32_t pct_u32(const uint32_t *sorted, size_t n, unsigned pct)
{
    if (!n) return 0;
    size_t rank = ((size_t)pct * n + 99) / 100;
    return sorted[(rank ? rank : 1) - 1];
}

static int in_mask(const uint8_t *mask, uint16_t cta) { return !mask || (mask[cta >> 3] >> (cta & 7) & 1); }

int view_range_stats(const view_trace *v, int64_t a, int64_t b, view_stats *out, err_info *e)
{
    return view_range_stats_ctas(v, a, b, NULL, out, e);
}

int view_range_stats_ctas(const view_trace *v, int64_t a, int64_t b, const uint8_t *cta_mask, view_stats *out,
                          err_info *e)
{
    memset(out, 0, sizeof *out);
    const trace *t = v->t;
    size_t lo, hi;
    time_range(t, a, b, &lo, &hi);
    enum { NG = TRACE_KIND_COUNT * TRACE_ROLE_COUNT };
    size_t cnt[NG] = {0}, off[NG + 1] = {0};
    for (size_t i = lo; i < hi; i++) {
        const trace_event *ev = &t->events[i];
        if (ev->kind < TRACE_KIND_COUNT && ev->role < TRACE_ROLE_COUNT && in_mask(cta_mask, ev->cta))
            cnt[ev->kind * TRACE_ROLE_COUNT + ev->role]++;
    }
    for (int g = 0; g < NG; g++) off[g + 1] = off[g] + cnt[g];
    uint32_t *dur = malloc((off[NG] ? off[NG] : 1) * sizeof *dur);
    if (!dur) return err_set(e, ERR_IO, "memory", "out of memory for %zu events", off[NG]);
    size_t fill[NG];
    memcpy(fill, off, sizeof fill);
    for (size_t i = lo; i < hi; i++) {
        const trace_event *ev = &t->events[i];
        if (ev->kind < TRACE_KIND_COUNT && ev->role < TRACE_ROLE_COUNT && in_mask(cta_mask, ev->cta))
            dur[fill[ev->kind * TRACE_ROLE_COUNT + ev->role]++] = ev->dur_ns;
    }
    for (int g = 0; g < NG; g++) {
        if (!cnt[g]) continue;
        view_stat *s = &out->groups[out->ngroups++];
        s->kind = (uint8_t)(g / TRACE_ROLE_COUNT);
        s->role = (uint8_t)(g % TRACE_ROLE_COUNT);
        s->count = (uint32_t)cnt[g];
        uint32_t *d = dur + off[g];
        qsort(d, cnt[g], sizeof *d, u32_cmp);
        for (size_t k = 0; k < cnt[g]; k++) s->total_ns += d[k];
        s->mean_ns = (double)s->total_ns / (double)cnt[g];
        s->p50_ns = pct_u32(d, cnt[g], 50);
        s->p95_ns = pct_u32(d, cnt[g], 95);
        out->events += s->count;
    }
    free(dur);
    return ERR_OK;
}

uint32_t view_histogram(const view_trace *v, int64_t a, int64_t b, int kind, int role, uint32_t max_ns,
                        uint32_t *bins, unsigned nbins)
{
    return view_histogram_ctas(v, a, b, NULL, kind, role, max_ns, bins, nbins);
}

uint32_t view_histogram_ctas(const view_trace *v, int64_t a, int64_t b, const uint8_t *cta_mask, int kind, int role,
                             uint32_t max_ns, uint32_t *bins, unsigned nbins)
{
    if (!nbins) return 0;
    memset(bins, 0, nbins * sizeof *bins);
    size_t lo, hi;
    time_range(v->t, a, b, &lo, &hi);
    uint32_t n = 0;
    for (size_t i = lo; i < hi; i++) {
        const trace_event *ev = &v->t->events[i];
        if ((kind >= 0 && ev->kind != kind) || (role >= 0 && ev->role != role) || !in_mask(cta_mask, ev->cta)) continue;
        uint64_t bin = max_ns ? (uint64_t)ev->dur_ns * nbins / max_ns : 0;
        bins[bin >= nbins ? nbins - 1 : bin]++;
        n++;
    }
    return n;
}

/* ---- state at the cursor ------------------------------------------------------------- */
const char *view_stage_state_name(view_stage_state s)
{
    return pipe_stage_state_name((pipe_stage_state)s);
}

/* One sorted run of event indices (a track of one lane). */
typedef struct id_run { const uint32_t *ids; size_t n, at; } id_run;

static void sift_down(id_run *h, size_t n, size_t i)
{
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) return;
        if (c + 1 < n && h[c + 1].ids[h[c + 1].at] < h[c].ids[h[c].at]) c++;
        if (h[i].ids[h[i].at] <= h[c].ids[h[c].at]) return;
        id_run tmp = h[i];
        h[i] = h[c];
        h[c] = tmp;
        i = c;
    }
}

/* The indices of CTA cta's events that start at or before t, in trace order (the trace
 * is time-sorted, each track's run of indices ascending: a k-way merge of the runs).
 * NULL when there are none (*n = 0) or memory runs out (*n = SIZE_MAX). */
static uint32_t *cta_events(const view_trace *v, uint16_t cta, int64_t t, size_t *n, uint32_t *nstages, int *found)
{
    size_t runs = 0, total = 0;
    for (size_t l = 0; l < v->nlanes; l++)
        if (v->lanes[l].cta == cta) {
            *found = 1;
            runs += VIEW_TRACK_COUNT;
            if (v->lanes[l].max_stage + 1u > *nstages) *nstages = v->lanes[l].max_stage + 1u;
        }
    *n = 0;
    id_run *h = runs ? malloc(runs * sizeof *h) : NULL;
    if (runs && !h) {
        *n = SIZE_MAX;
        return NULL;
    }
    size_t k = 0;
    for (size_t l = 0; l < v->nlanes; l++)
        if (v->lanes[l].cta == cta)
            for (int tr = 0; tr < VIEW_TRACK_COUNT; tr++) {
                const uint32_t *ids = v->idx + v->lanes[l].first[tr];
                size_t m = lower_start(v, ids, v->lanes[l].count[tr], t == INT64_MAX ? t : t + 1);
                if (m) h[k++] = (id_run){ids, m, 0};
                total += m;
            }
    uint32_t *out = total ? malloc(total * sizeof *out) : NULL;
    if (total && !out) {
        free(h);
        *n = SIZE_MAX;
        return NULL;
    }
    for (size_t i = k; i-- > 0;) sift_down(h, k, i);
    size_t o = 0;
    while (k) {
        out[o++] = h[0].ids[h[0].at++];
        if (h[0].at == h[0].n) h[0] = h[--k];
        sift_down(h, k, 0);
    }
    free(h);
    *n = total;
    return out;
}

int view_state_at(const view_trace *v, uint16_t cta, int64_t t, view_state *out, err_info *e)
{
    memset(out, 0, sizeof *out);
    out->cta = cta;
    out->t = t;
    size_t n = 0;
    uint32_t nstages = 0;
    int found = 0;
    uint32_t *ids = cta_events(v, cta, t, &n, &nstages, &found);
    if (n == SIZE_MAX) return err_set(e, ERR_IO, "memory", "out of memory for the events of CTA %u", cta);
    if (!found) return err_set(e, ERR_BAD_INPUT, "cta", "CTA %u has no events in this trace", cta);
    pipe_state at;
    pipe_state_init(&at, t, (trace_source)v->t->source);
    for (size_t i = 0; i < n; i++) pipe_state_step(&at, &v->t->events[ids[i]], &at);
    free(ids);
    out->nstages = nstages > at.nstages ? nstages : at.nstages;
    if (out->nstages > VIEW_MAX_STAGES) out->nstages = VIEW_MAX_STAGES;
    for (uint32_t b = 0; b < VIEW_MAX_BARRIERS && b < PIPE_STATE_MAX_BARRIERS; b++) {
        const pipe_bar_state *pb = &at.bar[b];
        if (!pb->seen && pb->done < 0) continue;
        view_barrier_state *vb = &out->barriers[out->nbarriers++];
        vb->seen = 1;
        vb->barrier = (uint8_t)b;
        vb->full = pb->full;
        vb->stage = pb->stage;
        vb->phase = pipe_state_phase(&at, b);
        vb->arrivals = pipe_state_arrivals(&at, b);
        vb->tx_count = pipe_state_tx(&at, b);
    }
    for (unsigned st = 0; st < out->nstages; st++) out->stages[st] = (uint8_t)pipe_state_stage(&at, st);
    return ERR_OK;
}

int view_play_advance(int64_t *cursor, double speed, double dt_s, int64_t end)
{
    double step = speed * dt_s;
    if (step < 0) step = 0;
    int64_t next = *cursor + (int64_t)llround(step);
    if (next >= end) {
        *cursor = end;
        return 0;
    }
    *cursor = next;
    return 1;
}
