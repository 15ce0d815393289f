/* view_timeline: the GUI-free model behind tmaview. It knows lanes, time and pixels,
 * but nothing about windows or cairo, so every rule here is unit-tested.
 *
 * Lanes: one per (sm, cta, role, warp), ordered by SM, then CTA, then role, then warp;
 * a new group starts where the CTA changes. Each lane has three tracks:
 *   COPY  TMA copies in flight and TMA stores (they overlap: several stages in flight)
 *   WORK  waits (stalls), shared-memory reads and math (one after the other)
 *   MARK  instants: issues, arrivals, expect/complete tx, phase completions, releases
 * Memory: a uint32 index per event (lane/track order, sorted by start) plus, for WORK
 * events, a running sum of stall and busy time; the events themselves are not copied.
 *
 * Level of detail: view_blocks() walks a track with binary search; anything narrower
 * than min_px merges with its neighbours into one block carrying a count, so the work
 * per frame is bounded by (visible lanes) x (width / min_px) x log(events). */
#ifndef TMASCOPE_VIEW_TIMELINE_H
#define TMASCOPE_VIEW_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "trace.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum view_track { VIEW_TRACK_COPY = 0, VIEW_TRACK_WORK, VIEW_TRACK_MARK, VIEW_TRACK_COUNT } view_track;

view_track view_track_of(trace_kind k);

typedef struct view_lane {
    uint16_t cta;
    uint8_t sm, role, warp;
    uint32_t group;                        /* index of the lane's CTA group (0, 1, ...) */
    uint32_t first[VIEW_TRACK_COUNT];      /* start of the track in the index array */
    uint32_t count[VIEW_TRACK_COUNT];
    uint32_t max_dur[VIEW_TRACK_COUNT];    /* longest span: bounds the backward search */
    uint8_t max_stage;                     /* highest stage index of the lane's events */
} view_lane;

typedef struct view_trace view_trace;     /* opaque */

/* Builds lanes over t (which must stay alive and time-sorted). */
int view_trace_build(const trace *t, view_trace **out, err_info *e);
void view_trace_free(view_trace *v);
const trace *view_trace_get(const view_trace *v);
size_t view_lane_count(const view_trace *v);
const view_lane *view_lane_at(const view_trace *v, size_t i);
size_t view_group_count(const view_trace *v);
/* Trace time extent: first start, last end (without offset). */
int64_t view_t_min(const view_trace *v);
int64_t view_t_max(const view_trace *v);
/* Bytes held by the model itself (index arrays, lanes), not counting the trace. */
size_t view_trace_bytes(const view_trace *v);
/* Lane of an event (SIZE_MAX if none). Linear in lanes, for UI use. */
size_t view_lane_of(const view_trace *v, const trace_event *ev);

/* ---- time <-> pixels ---------------------------------------------------------- */
typedef struct view_port {
    int64_t t0;          /* time at x = 0 */
    double ns_per_px;
    int width_px;
} view_port;

double view_x(const view_port *p, int64_t t);
int64_t view_t(const view_port *p, double x);
int64_t view_t1(const view_port *p);                    /* time at the right edge */
void view_fit(view_port *p, int64_t a, int64_t b);      /* [a, b] fills the width */
void view_zoom_at(view_port *p, double x, double factor);   /* factor > 1 zooms in; t(x) stays */
void view_pan_px(view_port *p, double dx);              /* content moves right by dx */

/* ---- level of detail ------------------------------------------------------------ */
typedef struct view_block {
    int64_t t0, t1;      /* extent in trace time (offset not applied) */
    uint32_t count;      /* events merged; 1 = one event drawn as itself */
    uint32_t event;      /* trace index of the first event */
    uint8_t kind;        /* kind of the first event */
    float stall_frac;    /* WORK track: share of the block's span time that is waiting */
} view_block;

/* Blocks of one track visible in [t0, t1] (trace time), at ns_per_px. At most cap are
 * written; returns how many there are (cap >= width_px / min_px + 4 is always enough). */
size_t view_blocks(const view_trace *v, size_t lane, view_track tr, int64_t t0, int64_t t1, double ns_per_px,
                   double min_px, view_block *out, size_t cap);

/* Event of the track under time t (within tol_ns for instants); UINT32_MAX if none. */
uint32_t view_pick(const view_trace *v, size_t lane, view_track tr, int64_t t, int64_t tol_ns);

/* Flow: the waits that the TMA copy issued by event `issue` ends (consumer waits of
 * the same CTA, stage and iteration on a full barrier, ending when the copy lands).
 * Writes up to cap trace indices; returns how many. */
size_t view_flow_targets(const view_trace *v, uint32_t issue, uint32_t *out, size_t cap);

/* ---- search ------------------------------------------------------------------------ */
typedef struct view_query {
    int kind;            /* trace_kind or -1 for any */
    int stage;           /* -1 for any */
    int64_t iteration;   /* -1 for any */
    int role;            /* -1 for any */
} view_query;

/* Next (dir > 0) or previous (dir < 0) matching event strictly after/before event
 * index `from` (use SIZE_MAX to start at the beginning/end); UINT32_MAX if none. */
uint32_t view_search(const view_trace *v, const view_query *q, size_t from, int dir);
/* Parses "kind=wait stage=2 iter=5 role=consumer" (any subset, space separated). */
int view_query_parse(const char *s, view_query *q, err_info *e);

/* ---- range statistics and histograms ---------------------------------------------- */
typedef struct view_stat {
    uint8_t kind, role;
    uint32_t count;
    uint64_t total_ns;
    double mean_ns;
    uint32_t p50_ns, p95_ns;   /* nearest-rank percentiles of durations */
} view_stat;

typedef struct view_stats {
    view_stat groups[TRACE_KIND_COUNT * TRACE_ROLE_COUNT];
    size_t ngroups;
    uint32_t events;           /* events starting in the range */
} view_stats;

/* Events that start in [a, b] (trace time). */
int view_range_stats(const view_trace *v, int64_t a, int64_t b, view_stats *out, err_info *e);
/* The same over the events of the CTAs whose bit is set in cta_mask (a bitmap over CTA
 * ids, 8192 bytes; NULL: every CTA), so that two traces are compared over the CTAs both
 * hold. */
int view_range_stats_ctas(const view_trace *v, int64_t a, int64_t b, const uint8_t *cta_mask, view_stats *out,
                          err_info *e);

/* Histogram of durations of `kind` (and role, -1 any) starting in [a, b] over nbins
 * equal bins of [0, max_ns]; longer ones land in the last bin. Returns events counted. */
uint32_t view_histogram(const view_trace *v, int64_t a, int64_t b, int kind, int role, uint32_t max_ns,
                        uint32_t *bins, unsigned nbins);
uint32_t view_histogram_ctas(const view_trace *v, int64_t a, int64_t b, const uint8_t *cta_mask, int kind, int role,
                             uint32_t max_ns, uint32_t *bins, unsigned nbins);

/* ---- state at the cursor ------------------------------------------------------------ */
enum { VIEW_MAX_BARRIERS = 32, VIEW_MAX_STAGES = 32 };

typedef enum view_stage_state {
    VIEW_STAGE_EMPTY = 0, VIEW_STAGE_FILLING, VIEW_STAGE_FULL, VIEW_STAGE_READING
} view_stage_state;

typedef struct view_barrier_state {
    uint8_t barrier, full;          /* full = a "full" barrier (consumers wait on it) */
    uint8_t stage;                  /* stage of its last event */
    uint32_t phase;                 /* phases completed so far (parity = phase & 1) */
    uint32_t arrivals;              /* arrivals since the last phase completion */
    int64_t tx_count;               /* expected - delivered bytes since the last completion */
    int seen;
} view_barrier_state;

typedef struct view_state {
    uint16_t cta;
    int64_t t;
    view_barrier_state barriers[VIEW_MAX_BARRIERS];
    unsigned nbarriers;
    uint8_t stages[VIEW_MAX_STAGES];   /* view_stage_state */
    unsigned nstages;
} view_state;

/* State of CTA `cta` at time t: the CTA's events up to t stepped in time order through
 * pipe_state (sim/pipe_state.h), for a simulated trace and for a recorded one alike
 * (a recorded trace's phases come from its waits, reads, landings and arrivals). */
int view_state_at(const view_trace *v, uint16_t cta, int64_t t, view_state *out, err_info *e);
const char *view_stage_state_name(view_stage_state s);

/* ---- play mode ------------------------------------------------------------------------ */
/* Advances the cursor by speed (trace ns per wall second) x dt; stops at end. Returns 1
 * while playing, 0 once the end is reached. */
int view_play_advance(int64_t *cursor, double speed, double dt_s, int64_t end);

#ifdef __cplusplus
}
#endif

#endif
