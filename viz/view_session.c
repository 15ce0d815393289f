#include "view_session.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void relayout_rows(view_session *s);

double view_default_scale(int width, int height)
{
    double k = fmin(width / 1280.0, height / 720.0);
    /* quarter steps, so that glyphs and one-pixel lines land on whole pixels often */
    k = floor(k * 4) / 4;
    return k < 1 ? 1 : k > VIEW_SCALE_MAX ? VIEW_SCALE_MAX : k;
}

static void layout(view_session *s, int width, int height)
{
    view_geom *g = &s->g;
    if (!(s->scale >= VIEW_SCALE_MIN)) s->scale = 1;
    s->px_w = width;
    s->px_h = height;
    width = (int)floor(width / s->scale);
    height = (int)floor(height / s->scale);
    g->width = width < 200 ? 200 : width;
    g->height = height < 150 ? 150 : height;
    g->gutter_w = 120;
    g->panel_w = g->width >= 900 ? 300 : 0;
    g->axis_h = 24;
    g->strip_h = 44;
    g->row_h = 20;
    g->group_gap = 8;
    g->title_h = 18;
    g->tl_x = g->gutter_w;
    g->tl_w = g->width - g->gutter_w - g->panel_w;
    int avail = g->height - g->axis_h - g->strip_h;
    int n = s->ntraces > 0 ? s->ntraces : 1;
    g->pane_h = avail / n;
    for (int p = 0; p < VIEW_MAX_TRACES; p++) g->pane_y[p] = g->axis_h + p * g->pane_h;
    s->port.width_px = g->tl_w;
    relayout_rows(s);
}

/* ---- rows by CTA ------------------------------------------------------------------- */
static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Lanes of pane p holding CTA c: [*lo, *hi) in bycta[p]. */
static void cta_lanes(const view_session *s, int p, uint16_t c, size_t *lo, size_t *hi)
{
    size_t n = view_lane_count(s->vt[p]), a = 0, b = n;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (view_lane_at(s->vt[p], s->bycta[p][m])->cta < c) a = m + 1; else b = m;
    }
    *lo = a;
    while (a < n && view_lane_at(s->vt[p], s->bycta[p][a])->cta == c) a++;
    *hi = a;
}

static void relayout_rows(view_session *s)
{
    if (!s->ctas && s->nctas) return;
    for (int p = 0; p < s->ntraces; p++) {
        if (!s->lane_rel[p]) return;
        for (size_t l = 0; l < view_lane_count(s->vt[p]); l++) s->lane_rel[p][l] = VIEW_ROW_HIDDEN;
        s->nshown[p] = 0;
    }
    if (s->top >= s->nctas) s->top = s->nctas ? s->nctas - 1 : 0;
    int used[VIEW_MAX_TRACES] = {0}, avail = s->g.pane_h - s->g.title_h;
    size_t k = s->top;
    for (; k < s->nctas; k++) {
        size_t lo[VIEW_MAX_TRACES], hi[VIEW_MAX_TRACES];
        int fits = 1;
        for (int p = 0; p < s->ntraces; p++) {
            cta_lanes(s, p, s->ctas[k], &lo[p], &hi[p]);
            if (hi[p] > lo[p] && used[p] + (int)(hi[p] - lo[p]) * s->g.row_h > avail) fits = 0;
        }
        if (!fits && k > s->top) break;   /* whole CTA groups only; the first one always */
        for (int p = 0; p < s->ntraces; p++) {
            for (size_t i = lo[p]; i < hi[p]; i++) {
                uint32_t l = s->bycta[p][i];
                s->lane_rel[p][l] = used[p] + (int)(i - lo[p]) * s->g.row_h;
                s->shown[p][s->nshown[p]++] = l;
            }
            if (hi[p] > lo[p]) used[p] += (int)(hi[p] - lo[p]) * s->g.row_h + s->g.group_gap;
        }
    }
    s->nrows = k - s->top;
}

static int parse_ctas(const char *spec, uint8_t *mask, err_info *e)
{
    const char *c = spec;
    int any = 0;
    while (*c) {
        char *end;
        long a = strtol(c, &end, 10), b = a;
        if (end == c || a < 0 || a > UINT16_MAX) break;
        c = end;
        if (*c == '-') {
            b = strtol(c + 1, &end, 10);
            if (end == c + 1 || b < a || b > UINT16_MAX) break;
            c = end;
        }
        for (long x = a; x <= b; x++) mask[x >> 3] |= (uint8_t)(1u << (x & 7));
        any = 1;
        if (*c == ',') c++;
        else if (*c) break;
    }
    if (!any || *c)
        return err_set(e, ERR_BAD_INPUT, "--ctas",
                       "'%s' is not a list of CTA ids and ranges from 0 to 65535 (e.g. 0-7 or 0,3,9-11)", spec);
    return ERR_OK;
}

static void free_rows(view_session *s)
{
    free(s->ctas);
    free(s->stats_mask);
    s->ctas = NULL;
    s->stats_mask = NULL;
    s->nctas = s->nstats_ctas = 0;
    for (int p = 0; p < VIEW_MAX_TRACES; p++) {
        free(s->bycta[p]);
        free(s->lane_rel[p]);
        free(s->shown[p]);
        s->bycta[p] = NULL;
        s->lane_rel[p] = NULL;
        s->shown[p] = NULL;
        s->nshown[p] = 0;
    }
}

/* The CTA of a sort key (cta << 32 | lane). */
#define KEY_CTA(key) ((uint16_t)((key) >> 32))

/* Rows are the CTAs some pane holds (and spec names), statistics count the CTAs every
 * pane holds: one merge of the panes' lanes sorted by CTA, so the work follows the
 * lanes, not the 65 536 possible CTA ids. */
static void merge_ctas(view_session *s, uint64_t *const *key, const size_t *n, const uint8_t *want)
{
    size_t at[VIEW_MAX_TRACES] = {0};
    for (;;) {
        uint32_t c = UINT32_MAX;
        for (int p = 0; p < s->ntraces; p++)
            if (at[p] < n[p] && KEY_CTA(key[p][at[p]]) < c) c = KEY_CTA(key[p][at[p]]);
        if (c == UINT32_MAX) return;
        int all = 1;
        for (int p = 0; p < s->ntraces; p++) {
            if (at[p] >= n[p] || KEY_CTA(key[p][at[p]]) != c) all = 0;
            while (at[p] < n[p] && KEY_CTA(key[p][at[p]]) == c) at[p]++;
        }
        uint8_t bit = (uint8_t)(1u << (c & 7));
        if (want && !(want[c >> 3] & bit)) continue;
        s->ctas[s->nctas++] = (uint16_t)c;
        if (all) s->stats_mask[c >> 3] |= bit, s->nstats_ctas++;
    }
}

int view_session_set_ctas(view_session *s, const char *spec, err_info *e)
{
    enum { MASK = (UINT16_MAX + 1) / 8 };
    uint8_t *want = spec ? calloc(MASK, 1) : NULL;
    int rc = spec && !want ? err_set(e, ERR_IO, "memory", "out of memory for the CTA rows") : ERR_OK;
    if (!rc && spec) rc = parse_ctas(spec, want, e);
    if (rc) {
        free(want);
        return rc;
    }
    free_rows(s);
    uint64_t *key[VIEW_MAX_TRACES] = {0};
    size_t n[VIEW_MAX_TRACES] = {0}, lanes = 0;
    for (int p = 0; p < s->ntraces; p++) lanes += n[p] = view_lane_count(s->vt[p]);
    s->stats_mask = calloc(MASK, 1);
    s->ctas = malloc((lanes ? lanes : 1) * sizeof *s->ctas);
    int ok = s->stats_mask && s->ctas;
    for (int p = 0; p < s->ntraces && ok; p++) {
        key[p] = malloc((n[p] ? n[p] : 1) * sizeof *key[p]);
        s->bycta[p] = malloc((n[p] ? n[p] : 1) * sizeof *s->bycta[p]);
        s->lane_rel[p] = malloc((n[p] ? n[p] : 1) * sizeof *s->lane_rel[p]);
        s->shown[p] = malloc((n[p] ? n[p] : 1) * sizeof *s->shown[p]);
        ok = key[p] && s->bycta[p] && s->lane_rel[p] && s->shown[p];
        for (size_t l = 0; l < n[p] && ok; l++) key[p][l] = (uint64_t)view_lane_at(s->vt[p], l)->cta << 32 | l;
        if (ok) qsort(key[p], n[p], sizeof *key[p], u64_cmp);
        for (size_t l = 0; l < n[p] && ok; l++) s->bycta[p][l] = (uint32_t)key[p][l];
    }
    if (ok) merge_ctas(s, key, n, want);
    for (int p = 0; p < VIEW_MAX_TRACES; p++) free(key[p]);
    free(want);
    if (!ok) {
        free_rows(s);
        return err_set(e, ERR_IO, "memory", "out of memory for the CTA rows");
    }
    if (spec && !s->nctas) {
        free_rows(s);
        view_session_set_ctas(s, NULL, NULL);
        return err_set(e, ERR_BAD_INPUT, "--ctas", "'%s' names no CTA that the traces hold", spec);
    }
    s->top = 0;
    relayout_rows(s);
    return ERR_OK;
}

void view_session_scroll_to(view_session *s, size_t top)
{
    s->top = top;
    relayout_rows(s);
}

/* Scrolls by whole CTA rows (negative: up). */
static void scroll_rows(view_session *s, long rows)
{
    long t = (long)s->top + rows;
    view_session_scroll_to(s, t < 0 ? 0 : (size_t)t);
}

void view_session_extent(const view_session *s, int64_t *a, int64_t *b)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (int p = 0; p < s->ntraces; p++) {
        if (!s->tr[p]->count) continue;
        int64_t x = view_t_min(s->vt[p]) + s->offset[p], y = view_t_max(s->vt[p]) + s->offset[p];
        if (x < lo) lo = x;
        if (y > hi) hi = y;
    }
    if (lo > hi) lo = 0, hi = 1000;
    *a = lo;
    *b = hi;
}

void view_session_fit_all(view_session *s)
{
    int64_t a, b;
    view_session_extent(s, &a, &b);
    int64_t margin = (b - a) / 50 + 1;
    view_fit(&s->port, a - margin, b + margin);
}

int view_session_init(view_session *s, const trace *const *traces, int ntraces, int width, int height, err_info *e)
{
    memset(s, 0, sizeof *s);
    if (ntraces < 1 || ntraces > VIEW_MAX_TRACES)
        return err_set(e, ERR_BAD_INPUT, "traces", "%d traces given; the viewer shows 1 or 2", ntraces);
    s->ntraces = ntraces;
    for (int p = 0; p < ntraces; p++) {
        s->tr[p] = traces[p];
        int rc = view_trace_build(traces[p], &s->vt[p], e);
        if (rc) {
            view_session_free(s);
            return rc;
        }
    }
    if (ntraces == 2) {
        int rc = tdiff_match_traces(traces[0], traces[1], &s->match, e);
        if (rc) {
            view_session_free(s);
            return rc;
        }
        /* Measured clocks start anywhere: line the second trace up on the first. */
        s->offset[1] = tdiff_trace_start(traces[0]) - tdiff_trace_start(traces[1]);
    }
    s->sel_event = s->hover_event = UINT32_MAX;
    s->scale = view_default_scale(width, height);
    int rc = view_session_set_ctas(s, NULL, e);
    if (rc) {
        view_session_free(s);
        return rc;
    }
    layout(s, width, height);
    view_session_fit_all(s);
    int64_t a, b;
    view_session_extent(s, &a, &b);
    s->cursor = a;
    s->play_speed = (double)(b - a) / 10.0;   /* the whole run in 10 s */
    if (s->play_speed < 1) s->play_speed = 1;
    if (view_lane_count(s->vt[0])) s->state_cta = view_lane_at(s->vt[0], 0)->cta;
    return ERR_OK;
}

void view_session_free(view_session *s)
{
    for (int p = 0; p < VIEW_MAX_TRACES; p++) {
        view_trace_free(s->vt[p]);
        s->vt[p] = NULL;
    }
    tdiff_match_free(&s->match);
    free_rows(s);
}

void view_session_resize(view_session *s, int width, int height)
{
    double t_mid = (double)view_t(&s->port, s->port.width_px / 2.0);
    double span = s->port.ns_per_px * s->port.width_px;
    layout(s, width, height);
    s->port.ns_per_px = span / s->port.width_px;
    s->port.t0 = (int64_t)llround(t_mid - span / 2);
}

void view_session_set_scale(view_session *s, double scale)
{
    if (!(scale >= VIEW_SCALE_MIN)) scale = VIEW_SCALE_MIN;
    if (scale > VIEW_SCALE_MAX) scale = VIEW_SCALE_MAX;
    s->scale = scale;
    view_session_resize(s, s->px_w, s->px_h);
}

/* ---- geometry --------------------------------------------------------------------- */
int view_lane_y(const view_session *s, int pane, size_t lane)
{
    if (!s->lane_rel[pane] || s->lane_rel[pane][lane] == VIEW_ROW_HIDDEN) return VIEW_ROW_HIDDEN;
    return s->g.pane_y[pane] + s->g.title_h + s->lane_rel[pane][lane];
}

int view_hit(const view_session *s, double x, double y, int *pane, size_t *lane, view_track *track, uint32_t *event)
{
    const view_geom *g = &s->g;
    if (x < g->tl_x || x >= g->tl_x + g->tl_w) return 0;
    int p = -1;
    for (int i = 0; i < s->ntraces; i++)
        if (y >= g->pane_y[i] + g->title_h && y < g->pane_y[i] + g->pane_h) p = i;
    if (p < 0) return 0;
    int yy = (int)floor(y) - g->pane_y[p] - g->title_h;
    size_t l = SIZE_MAX;
    for (size_t i = 0; i < s->nshown[p]; i++) {
        int top = s->lane_rel[p][s->shown[p][i]];
        if (yy >= top && yy < top + g->row_h) l = s->shown[p][i];
    }
    if (l == SIZE_MAX) return 0;
    int in_row = yy - s->lane_rel[p][l];
    view_track tr = in_row < 6 ? VIEW_TRACK_COPY : in_row < 15 ? VIEW_TRACK_WORK : VIEW_TRACK_MARK;
    int64_t t = view_t(&s->port, x - g->tl_x) - s->offset[p];
    int64_t tol = (int64_t)ceil(3 * s->port.ns_per_px);
    *pane = p;
    *lane = l;
    *track = tr;
    *event = view_pick(s->vt[p], l, tr, t, tol);
    return 1;
}

/* ---- selection ---------------------------------------------------------------------- */
/* The bank picture follows the selection: rebuilt whenever the selection or the shown
 * instruction may have changed (cheap: one stage's reads of one warp). */
static void sync_bank(view_session *s)
{
    s->has_bank = 0;
    s->bank_note[0] = 0;
    if (s->sel_event == UINT32_MAX) return;
    const trace_event *e = &s->tr[s->sel_trace]->events[s->sel_event];
    if (e->kind != TRACE_SMEM_READ) return;
    if (!s->desc) {
        snprintf(s->bank_note, sizeof s->bank_note, "bank picture: no pipeline description (tmaview --desc FILE)");
        return;
    }
    err_info err = {0};
    if (view_bank_build(s->desc, e, s->bank_instr, &s->bank, &err)) {
        snprintf(s->bank_note, sizeof s->bank_note, "bank picture: %s: %s", err_rule_label(err.rule), err.detail);
        return;
    }
    s->bank_instr = s->bank.instr;
    s->has_bank = 1;
}

void view_session_set_desc(view_session *s, const pipe_desc *d)
{
    s->desc = d;
    sync_bank(s);
}

void view_session_select(view_session *s, int p, uint32_t ev)
{
    if (ev != s->sel_event || p != s->sel_trace) s->bank_instr = 0;
    s->sel_trace = p;
    s->sel_event = ev;
    sync_bank(s);
    if (ev == UINT32_MAX) return;
    const trace_event *e = &s->tr[p]->events[ev];
    s->cursor = e->t_ns + s->offset[p];
    s->state_cta = e->cta;
    int64_t a = e->t_ns + s->offset[p], b = a + e->dur_ns;
    if (b < s->port.t0 || a > view_t1(&s->port)) {
        double span = s->port.ns_per_px * s->port.width_px;
        s->port.t0 = (int64_t)llround((double)a - span / 2);
    }
    size_t lane = view_lane_of(s->vt[p], e);
    if (lane != SIZE_MAX && view_lane_y(s, p, lane) == VIEW_ROW_HIDDEN)
        for (size_t k = 0; k < s->nctas; k++)
            if (s->ctas[k] == e->cta) view_session_scroll_to(s, k);
}

static void fit_selection(view_session *s)
{
    if (s->sel_event != UINT32_MAX) {
        const trace_event *e = &s->tr[s->sel_trace]->events[s->sel_event];
        int64_t a = e->t_ns + s->offset[s->sel_trace], d = e->dur_ns ? e->dur_ns : 100;
        view_fit(&s->port, a - d / 10 - 1, a + d + d / 10 + 1);
    } else if (s->has_range) {
        view_fit(&s->port, s->range_a, s->range_b);
    } else {
        view_session_fit_all(s);
    }
}

int view_session_snap(view_session *s)
{
    if (s->ntraces != 2 || s->sel_event == UINT32_MAX) return 0;
    int p = s->sel_trace, q = 1 - p;
    uint32_t other = p == 0 ? s->match.a_to_b[s->sel_event] : s->match.b_to_a[s->sel_event];
    if (other == TDIFF_NONE) {
        snprintf(s->status, sizeof s->status, "snap: the selected event has no match in the other trace");
        return 0;
    }
    int64_t want = s->tr[p]->events[s->sel_event].t_ns + s->offset[p];
    s->offset[q] = want - s->tr[q]->events[other].t_ns;
    snprintf(s->status, sizeof s->status, "snapped: trace %d offset %lld ns", q + 1, (long long)s->offset[q]);
    return 1;
}

int view_session_search(view_session *s, const char *query, err_info *e)
{
    int rc = view_query_parse(query, &s->query, e);
    if (rc) {
        snprintf(s->status, sizeof s->status, "search: %s: %s", e ? err_rule_label(e->rule) : "query",
                 e ? e->detail : "bad query");
        return rc;
    }
    s->has_query = 1;
    view_session_search_next(s, 1);
    return ERR_OK;
}

void view_session_search_next(view_session *s, int dir)
{
    if (!s->has_query) return;
    int p = s->sel_event != UINT32_MAX ? s->sel_trace : 0;
    size_t from = s->sel_event != UINT32_MAX ? s->sel_event : SIZE_MAX;
    uint32_t hit = view_search(s->vt[p], &s->query, from, dir);
    if (hit == UINT32_MAX) {
        snprintf(s->status, sizeof s->status, "search: no %s match", dir >= 0 ? "further" : "earlier");
        return;
    }
    view_session_select(s, p, hit);
    snprintf(s->status, sizeof s->status, "search: event %u", hit);
}

/* ---- input ---------------------------------------------------------------------------- */
/* The hovered event is whatever lies under the mouse now: after a key, a scroll or a
 * play step moved the content, the tooltip follows (or goes). */
static void rehover(view_session *s)
{
    int p;
    size_t lane;
    view_track tr;
    uint32_t ev;
    if (s->hover_event == UINT32_MAX) return;
    if (view_hit(s, s->mouse_x, s->mouse_y, &p, &lane, &tr, &ev) && ev != UINT32_MAX) {
        s->hover_trace = p;
        s->hover_event = ev;
    } else {
        s->hover_event = UINT32_MAX;
    }
}

static double zoom_x(const view_session *s)
{
    double x = s->mouse_x - s->g.tl_x;
    return x >= 0 && x < s->g.tl_w ? x : s->g.tl_w / 2.0;
}

void view_session_key(view_session *s, int key, int shift)
{
    (void)shift;
    long page = s->nrows > 1 ? (long)s->nrows : 1;
    switch (key) {
    case 'w': view_zoom_at(&s->port, zoom_x(s), 1.5); break;
    case 's': view_zoom_at(&s->port, zoom_x(s), 1 / 1.5); break;
    case 'a': view_pan_px(&s->port, s->g.tl_w * 0.2); break;
    case 'd': view_pan_px(&s->port, -s->g.tl_w * 0.2); break;
    case 'f': fit_selection(s); break;
    case 'o': view_session_snap(s); break;
    case '0':
        s->offset[0] = 0;
        if (s->ntraces == 2) s->offset[1] = tdiff_trace_start(s->tr[0]) - tdiff_trace_start(s->tr[1]);
        if (s->ntraces == 2)
            snprintf(s->status, sizeof s->status, "offsets reset: first events lined up (trace 2 offset %lld ns)",
                     (long long)s->offset[1]);
        break;
    case ' ': {
        int64_t a, b;
        view_session_extent(s, &a, &b);
        s->playing = !s->playing;
        if (s->playing && s->cursor >= b) s->cursor = a;
        break;
    }
    case '+': s->play_speed *= 2; break;
    case '-': s->play_speed = s->play_speed / 2 < 1 ? 1 : s->play_speed / 2; break;
    case 'n': view_session_search_next(s, 1); break;
    case 'N': view_session_search_next(s, -1); break;
    case VIEW_KEY_UP: scroll_rows(s, -1); break;
    case VIEW_KEY_DOWN: scroll_rows(s, 1); break;
    case VIEW_KEY_PAGE_UP: scroll_rows(s, -page); break;
    case VIEW_KEY_PAGE_DOWN: scroll_rows(s, page); break;
    case VIEW_KEY_ESCAPE:
        s->sel_event = UINT32_MAX;
        s->has_range = 0;
        break;
    case 'q': s->quit = 1; break;
    case VIEW_KEY_SCALE_UP: view_session_set_scale(s, (floor(s->scale * 4 + 1e-9) + 1) / 4); break;
    case VIEW_KEY_SCALE_DOWN: view_session_set_scale(s, (ceil(s->scale * 4 - 1e-9) - 1) / 4); break;
    case VIEW_KEY_SCALE_RESET: view_session_set_scale(s, view_default_scale(s->px_w, s->px_h)); break;
    case '[':
        if (s->bank_instr > 0) s->bank_instr--;
        break;
    case ']': s->bank_instr++; break;   /* sync_bank clamps it to the warp's last */
    default: break;
    }
    rehover(s);
    sync_bank(s);
}

void view_session_wheel(view_session *s, double x, double y, double dy)
{
    s->mouse_x = x;
    s->mouse_y = y;
    if (x < s->g.tl_x) scroll_rows(s, -(long)lround(dy));
    else view_zoom_at(&s->port, zoom_x(s), pow(1.25, dy));
    rehover(s);
}

void view_session_button(view_session *s, double x, double y, int button, int down, int shift)
{
    s->mouse_x = x;
    s->mouse_y = y;
    if (down) {
        if (x < s->g.tl_x || x >= s->g.tl_x + s->g.tl_w) return;
        s->drag = (button == 3 || shift) ? VIEW_DRAG_RANGE : VIEW_DRAG_PAN;
        s->drag_x0 = x;
        s->drag_y0 = y;
        s->drag_t0 = view_t(&s->port, x - s->g.tl_x);
        s->drag_moved = 0;
        s->drag_rows = 0;
        return;
    }
    view_drag d = s->drag;
    s->drag = VIEW_DRAG_NONE;
    if (d == VIEW_DRAG_NONE) return;
    if (!s->drag_moved) {
        int p;
        size_t lane;
        view_track tr;
        uint32_t ev;
        s->cursor = view_t(&s->port, x - s->g.tl_x);
        if (view_hit(s, x, y, &p, &lane, &tr, &ev)) {
            s->state_cta = view_lane_at(s->vt[p], lane)->cta;
            if (ev != s->sel_event || p != s->sel_trace) s->bank_instr = 0;
            s->sel_trace = p;
            s->sel_event = ev;
        } else {
            s->sel_event = UINT32_MAX;
        }
        sync_bank(s);
        return;
    }
    if (d == VIEW_DRAG_RANGE) {
        int64_t t = view_t(&s->port, x - s->g.tl_x);
        s->range_a = t < s->drag_t0 ? t : s->drag_t0;
        s->range_b = t < s->drag_t0 ? s->drag_t0 : t;
        s->has_range = s->range_b > s->range_a;
    }
}

void view_session_motion(view_session *s, double x, double y)
{
    double dx = x - s->mouse_x, dy = y - s->mouse_y;
    s->mouse_x = x;
    s->mouse_y = y;
    if (s->drag != VIEW_DRAG_NONE && (fabs(x - s->drag_x0) > 2 || fabs(y - s->drag_y0) > 2)) s->drag_moved = 1;
    if (s->drag == VIEW_DRAG_PAN && s->drag_moved) {
        view_pan_px(&s->port, dx);
        /* content follows the mouse: dragging down by about a CTA group's height shows
         * the CTA row above */
        s->drag_rows -= (int)lround(dy);
        int step = 3 * s->g.row_h;
        if (s->drag_rows <= -step || s->drag_rows >= step) {
            scroll_rows(s, s->drag_rows / step);
            s->drag_rows %= step;
        }
    } else if (s->drag == VIEW_DRAG_RANGE && s->drag_moved) {
        int64_t t = view_t(&s->port, x - s->g.tl_x);
        s->range_a = t < s->drag_t0 ? t : s->drag_t0;
        s->range_b = t < s->drag_t0 ? s->drag_t0 : t;
        s->has_range = s->range_b > s->range_a;
    }
    int p;
    size_t lane;
    view_track tr;
    uint32_t ev;
    if (view_hit(s, x, y, &p, &lane, &tr, &ev)) {
        s->hover_trace = p;
        s->hover_event = ev;
    } else {
        s->hover_event = UINT32_MAX;
    }
}

void view_session_tick(view_session *s, double dt_s)
{
    if (!s->playing) return;
    int64_t a, b;
    view_session_extent(s, &a, &b);
    s->playing = view_play_advance(&s->cursor, s->play_speed, dt_s, b);
    /* keep the play head on screen: page forward when it leaves the right edge */
    if (s->cursor > view_t1(&s->port) || s->cursor < s->port.t0) {
        double span = s->port.ns_per_px * s->port.width_px;
        s->port.t0 = s->cursor - (int64_t)llround(span * 0.1);
        rehover(s);
    }
}
