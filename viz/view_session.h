/* view_session: what tmaview shows and how input changes it, without a window.
 * One or two traces share one time axis (display time = trace time + the trace's
 * offset); each trace gets a pane of lanes. Input arrives as plain calls (key, wheel,
 * button, motion) so the window app, the headless renderer and the tests drive the
 * same code. Geometry (panes, rows, panel) lives here too: the drawing code and the
 * hit tests must agree on it. */
#ifndef TMASCOPE_VIEW_SESSION_H
#define TMASCOPE_VIEW_SESSION_H

#include <stdint.h>

#include "tdiff.h"
#include "view_bank.h"
#include "view_timeline.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { VIEW_MAX_TRACES = 2 };

typedef struct view_geom {
    int width, height;
    int gutter_w;      /* lane labels on the left */
    int panel_w;       /* state / statistics panel on the right */
    int axis_h;        /* time ruler on top */
    int strip_h;       /* stage-buffer strip at the bottom */
    int row_h, group_gap, title_h;
    int pane_y[VIEW_MAX_TRACES], pane_h;
    int tl_x, tl_w;    /* the timeline area (x range) */
} view_geom;

typedef enum view_drag { VIEW_DRAG_NONE = 0, VIEW_DRAG_PAN, VIEW_DRAG_RANGE } view_drag;

typedef struct view_session {
    int ntraces;
    const trace *tr[VIEW_MAX_TRACES];
    view_trace *vt[VIEW_MAX_TRACES];
    tdiff_match match;          /* valid when ntraces == 2 */
    int64_t offset[VIEW_MAX_TRACES];
    view_port port;             /* display time */
    view_geom g;
    int sel_trace;
    uint32_t sel_event;         /* UINT32_MAX: none */
    int hover_trace;
    uint32_t hover_event;
    double mouse_x, mouse_y;
    int64_t cursor;             /* display time of the state panel and play head */
    uint16_t state_cta;
    int has_range;
    int64_t range_a, range_b;   /* display time */
    int playing;
    double play_speed;          /* trace ns per wall-clock second */
    view_query query;
    int has_query;
    view_drag drag;
    double drag_x0, drag_y0;
    int64_t drag_t0;
    int drag_moved;
    int quit;
    char status[sizeof(((err_info *)0)->detail) + 128];
    /* Appended: the bank picture of a selected shared-memory read (state panel). */
    const pipe_desc *desc;      /* the description behind the traces; NULL: none known */
    uint32_t bank_instr;        /* which of the read's per-warp instructions is shown ('[' ']') */
    int has_bank;               /* bank is the picture of the current selection */
    view_bank bank;
    char bank_note[sizeof(((err_info *)0)->detail) + 128];   /* why a selected read has no picture */
    /* Appended: presentation scale. Geometry (g) is in logical pixels; the canvas is
     * px_w x px_h device pixels and everything is drawn scaled by `scale`, so labels,
     * pills, the bank grid and the statistics grow together. Input coordinates passed
     * to the calls below are logical (device pixels / scale). */
    double scale;
    int px_w, px_h;
    /* Appended: rows by CTA. Both panes show the same CTAs, whole CTA groups only, in
     * lockstep: ctas[top ...] are the CTA rows from the top, nrows of them fit in both
     * panes now. Range statistics count only CTAs in stats_mask: the shown CTAs that
     * every loaded trace holds, so a simulated grid is compared with the measured CTAs. */
    uint16_t *ctas;             /* shown CTAs, ascending (all, or --ctas) */
    size_t nctas, top, nrows;
    uint8_t *stats_mask;        /* bitmap over CTA ids */
    size_t nstats_ctas;
    uint32_t *bycta[VIEW_MAX_TRACES];   /* lanes of a pane sorted by (cta, lane) */
    int *lane_rel[VIEW_MAX_TRACES];     /* y of each lane below the pane title; VIEW_ROW_HIDDEN */
    uint32_t *shown[VIEW_MAX_TRACES];   /* the lanes drawn now, top to bottom */
    size_t nshown[VIEW_MAX_TRACES];
    int drag_rows;              /* vertical drag in logical px not yet turned into CTA rows */
} view_session;

enum { VIEW_ROW_HIDDEN = -1000000 };

/* Takes the traces (1 or 2; they must outlive the session); fits the whole run. */
int view_session_init(view_session *s, const trace *const *traces, int ntraces, int width, int height, err_info *e);
void view_session_free(view_session *s);
/* width x height are device pixels. */
void view_session_resize(view_session *s, int width, int height);
/* The default scale of a width x height canvas: the logical canvas stays about 1280x720
 * (1 at 1400x800 and below, 1.5 at 1920x1080, 3 at 3840x2160), so a projected frame
 * reads like a laptop screen. */
double view_default_scale(int width, int height);
/* Sets the scale (clamped to [VIEW_SCALE_MIN, VIEW_SCALE_MAX]); the visible time span
 * and the canvas size in device pixels stay. */
enum { VIEW_SCALE_MIN_X4 = 2, VIEW_SCALE_MAX_X4 = 16 };   /* 0.5 .. 4, in quarters */
#define VIEW_SCALE_MIN (VIEW_SCALE_MIN_X4 / 4.0)
#define VIEW_SCALE_MAX (VIEW_SCALE_MAX_X4 / 4.0)
void view_session_set_scale(view_session *s, double scale);
void view_session_fit_all(view_session *s);
/* Display-time extent over all traces. */
void view_session_extent(const view_session *s, int64_t *a, int64_t *b);

/* Shows (and compares) only the CTAs of spec ("0-7", "0,3,9-11"); NULL: all. */
int view_session_set_ctas(view_session *s, const char *spec, err_info *e);
/* Scrolls so that CTA row `top` (index into s->ctas) is the first shown. */
void view_session_scroll_to(view_session *s, size_t top);

/* Geometry: y of a lane's row in pane p; VIEW_ROW_HIDDEN when its CTA is not shown. */
int view_lane_y(const view_session *s, int pane, size_t lane);
/* Hit test: pane, lane, track and event under (x, y); returns 0 if none. */
int view_hit(const view_session *s, double x, double y, int *pane, size_t *lane, view_track *track, uint32_t *event);

/* The description behind the traces (must outlive the session; NULL: none): selecting a
 * shared-memory read then shows its bank picture. */
void view_session_set_desc(view_session *s, const pipe_desc *d);

/* Input. Keys are ASCII ('w','a','s','d','f','o','0',' ','+','-','n','N','[',']') or the
 * VIEW_KEY_* values. */
enum { VIEW_KEY_UP = 0x100, VIEW_KEY_DOWN, VIEW_KEY_ESCAPE, VIEW_KEY_PAGE_UP, VIEW_KEY_PAGE_DOWN,
       VIEW_KEY_SCALE_UP, VIEW_KEY_SCALE_DOWN, VIEW_KEY_SCALE_RESET };   /* ctrl +, ctrl -, ctrl 0 */
void view_session_key(view_session *s, int key, int shift);
void view_session_wheel(view_session *s, double x, double y, double dy);
void view_session_button(view_session *s, double x, double y, int button, int down, int shift);
void view_session_motion(view_session *s, double x, double y);
/* Search: parses the query and jumps to the first hit after the selection. */
int view_session_search(view_session *s, const char *query, err_info *e);
void view_session_search_next(view_session *s, int dir);
/* Snap: shift the other trace so that its match of the selected event starts at the
 * same display time. Returns 0 when there is no matched selection. */
int view_session_snap(view_session *s);
/* Play mode: advance by dt seconds of wall time. */
void view_session_tick(view_session *s, double dt_s);
/* Selects event ev of trace p, moves the cursor to it and scrolls it into view. */
void view_session_select(view_session *s, int p, uint32_t ev);

#ifdef __cplusplus
}
#endif

#endif
