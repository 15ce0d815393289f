#include "view_session.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void layout(view_session *s, int width, int height)
{
    view_geom *g = &s->g;
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
}

void view_session_resize(view_session *s, int width, int height)
{
    double t_mid = (double)view_t(&s->port, s->port.width_px / 2.0);
    double span = s->port.ns_per_px * s->port.width_px;
    layout(s, width, height);
    s->port.ns_per_px = span / s->port.width_px;
    s->port.t0 = (int64_t)llround(t_mid - span / 2);
}

/* ---- geometry --------------------------------------------------------------------- */
static int lane_rel_y(const view_session *s, int pane, size_t lane)
{
    const view_lane *ln = view_lane_at(s->vt[pane], lane);
    return (int)lane * s->g.row_h + (int)ln->group * s->g.group_gap;
}

int view_lane_y(const view_session *s, int pane, size_t lane)
{
    return s->g.pane_y[pane] + s->g.title_h + lane_rel_y(s, pane, lane) - s->scroll_y;
}

int view_hit(const view_session *s, double x, double y, int *pane, size_t *lane, view_track *track, uint32_t *event)
{
    const view_geom *g = &s->g;
    if (x < g->tl_x || x >= g->tl_x + g->tl_w) return 0;
    int p = -1;
    for (int i = 0; i < s->ntraces; i++)
        if (y >= g->pane_y[i] + g->title_h && y < g->pane_y[i] + g->pane_h) p = i;
    if (p < 0) return 0;
    size_t n = view_lane_count(s->vt[p]);
    int yy = (int)floor(y) - g->pane_y[p] - g->title_h + s->scroll_y;
    /* last lane whose row starts at or above yy */
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (lane_rel_y(s, p, mid) <= yy) lo = mid + 1; else hi = mid;
    }
    if (lo == 0) return 0;
    size_t l = lo - 1;
    int in_row = yy - lane_rel_y(s, p, l);
    if (in_row >= g->row_h) return 0;
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
        snprintf(s->bank_note, sizeof s->bank_note, "bank picture: %.30s: %.110s", err.rule, err.detail);
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
    if (lane != SIZE_MAX) {
        int y = view_lane_y(s, p, lane);
        int top = s->g.pane_y[p] + s->g.title_h, bottom = s->g.pane_y[p] + s->g.pane_h - s->g.row_h;
        if (y < top || y > bottom) s->scroll_y += y - (top + bottom) / 2;
        if (s->scroll_y < 0) s->scroll_y = 0;
    }
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
        snprintf(s->status, sizeof s->status, "search: %.40s: %.100s", e ? e->rule : "query", e ? e->detail : "bad query");
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
static double zoom_x(const view_session *s)
{
    double x = s->mouse_x - s->g.tl_x;
    return x >= 0 && x < s->g.tl_w ? x : s->g.tl_w / 2.0;
}

void view_session_key(view_session *s, int key, int shift)
{
    (void)shift;
    double page = s->g.pane_h - s->g.title_h;
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
    case VIEW_KEY_UP: s->scroll_y -= s->g.row_h; break;
    case VIEW_KEY_DOWN: s->scroll_y += s->g.row_h; break;
    case VIEW_KEY_PAGE_UP: s->scroll_y -= (int)page; break;
    case VIEW_KEY_PAGE_DOWN: s->scroll_y += (int)page; break;
    case VIEW_KEY_ESCAPE:
        s->sel_event = UINT32_MAX;
        s->has_range = 0;
        break;
    case 'q': s->quit = 1; break;
    case '[':
        if (s->bank_instr > 0) s->bank_instr--;
        break;
    case ']': s->bank_instr++; break;   /* sync_bank clamps it to the warp's last */
    default: break;
    }
    if (s->scroll_y < 0) s->scroll_y = 0;
    sync_bank(s);
}

void view_session_wheel(view_session *s, double x, double y, double dy)
{
    s->mouse_x = x;
    s->mouse_y = y;
    if (x < s->g.tl_x) {
        s->scroll_y -= (int)(dy * s->g.row_h);
        if (s->scroll_y < 0) s->scroll_y = 0;
        return;
    }
    view_zoom_at(&s->port, zoom_x(s), pow(1.25, dy));
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
        s->scroll_y -= (int)dy;
        if (s->scroll_y < 0) s->scroll_y = 0;
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
    }
}
