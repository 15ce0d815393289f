/* The viewer's model without a window. Expected values are derived by hand from the
 * synthetic schedule (tests/viz_synth.h) with 1 CTA, 1 consumer, 2 stages, 4 iterations,
 * flight 1000 ns, issue gap 10 ns, read 100 ns, math 100 ns. The consumer's WORK track:
 *   wait 0..1000, read 1000..1100, math 1100..1200, read 1200..1300, math 1300..1400,
 *   wait 1400..2200, read 2200..2300, math 2300..2400, read 2400..2500, math 2500..2600
 * (stall 1800 ns of 2600 ns busy). Producer waits on empty[s]: 20..1200 and 1210..1400.
 * Barriers: full[s] = s, empty[s] = 2 + s. */
#include <criterion/criterion.h>
#include <math.h>

#include "view_timeline.h"
#include "viz_synth.h"

static trace tr;
static view_trace *vt;

static void hand_setup(void)
{
    synth_opts o = {.ctas = 1, .consumers = 1, .stages = 2, .iterations = 4, .flight_ns = 1000, .read_ns = 100,
                    .math_ns = 100, .issue_gap_ns = 10, .bytes = 8192};
    trace_init(&tr, TRACE_SRC_SIM);
    synth_fill(&tr, &o);
    cr_assert_eq(view_trace_build(&tr, &vt, NULL), ERR_OK);
}

static void hand_teardown(void)
{
    view_trace_free(vt);
    trace_free(&tr);
}

TestSuite(view, .init = hand_setup, .fini = hand_teardown);

static size_t consumer_lane(void)
{
    for (size_t l = 0; l < view_lane_count(vt); l++)
        if (view_lane_at(vt, l)->role == TRACE_ROLE_CONSUMER) return l;
    cr_assert_fail("no consumer lane");
    return 0;
}

Test(view, lanes_one_per_warp_ordered_by_sm_cta_role_warp)
{
    view_trace_free(vt);
    trace_free(&tr);
    synth_opts o = {.ctas = 2, .consumers = 2, .stages = 2, .iterations = 3, .flight_ns = 500, .read_ns = 50,
                    .math_ns = 50, .issue_gap_ns = 10, .bytes = 1024};
    trace_init(&tr, TRACE_SRC_SIM);
    synth_fill(&tr, &o);
    cr_assert_eq(view_trace_build(&tr, &vt, NULL), ERR_OK);
    cr_assert_eq(view_lane_count(vt), 6);
    cr_expect_eq(view_group_count(vt), 2);
    const uint8_t want_warp[6] = {0, 1, 2, 0, 1, 2};
    for (size_t l = 0; l < 6; l++) {
        const view_lane *ln = view_lane_at(vt, l);
        cr_expect_eq(ln->cta, l / 3);
        cr_expect_eq(ln->sm, l / 3);
        cr_expect_eq(ln->group, l / 3);
        cr_expect_eq(ln->warp, want_warp[l]);
        cr_expect_eq(ln->role, want_warp[l] ? TRACE_ROLE_CONSUMER : TRACE_ROLE_PRODUCER);
    }
    /* every event is in exactly one track of one lane */
    size_t sum = 0;
    for (size_t l = 0; l < 6; l++)
        for (int t = 0; t < VIEW_TRACK_COUNT; t++) sum += view_lane_at(vt, l)->count[t];
    cr_expect_eq(sum, tr.count);
    /* index arrays, not copies: well under the 16 bytes per event left beside the
     * 32-byte event itself by the 48 bytes per event target */
    cr_expect_leq(view_trace_bytes(vt), tr.count * 16 + 4096);
}

Test(view, port_maps_time_to_pixels_and_zooms_about_the_cursor)
{
    view_port p = {.width_px = 100};
    view_fit(&p, 1000, 2000);
    cr_expect_float_eq(p.ns_per_px, 10.0, 1e-12);
    cr_expect_float_eq(view_x(&p, 1500), 50.0, 1e-9);
    cr_expect_eq(view_t(&p, 100), 2000);
    view_zoom_at(&p, 25, 2.0);   /* the time under x = 25 (1250) stays under it */
    cr_expect_float_eq(p.ns_per_px, 5.0, 1e-12);
    cr_expect_eq(view_t(&p, 25), 1250);
    view_pan_px(&p, 10);          /* content moves right: 10 px = 50 ns earlier at the left edge */
    cr_expect_eq(view_t(&p, 0), 1125 - 50);
    view_zoom_at(&p, 0, 0.0);     /* nonsense factor: ignored */
    cr_expect_float_eq(p.ns_per_px, 5.0, 1e-12);
}

Test(view, zoomed_in_every_span_is_its_own_block)
{
    view_block b[64];
    size_t n = view_blocks(vt, consumer_lane(), VIEW_TRACK_WORK, 0, 2600, 10.0, 3.0, b, 64);
    cr_assert_eq(n, 10);
    cr_expect_eq(b[0].t0, 0);
    cr_expect_eq(b[0].t1, 1000);
    cr_expect_eq(b[0].kind, TRACE_WAIT);
    cr_expect_eq(b[5].t0, 1400);
    cr_expect_eq(b[5].t1, 2200);
    for (size_t i = 0; i < n; i++) cr_expect_eq(b[i].count, 1);
}

Test(view, zoomed_out_narrow_spans_merge_with_a_count)
{
    view_block b[64];
    /* 100 ns per pixel, min 3 px = 300 ns: the waits (1000, 800 ns) stay whole; the
     * 100-ns reads and maths merge, a merge stops before a wide span. */
    size_t n = view_blocks(vt, consumer_lane(), VIEW_TRACK_WORK, 0, 2600, 100.0, 3.0, b, 64);
    cr_assert_eq(n, 6);
    uint32_t total = 0;
    for (size_t i = 0; i < n; i++) {
        total += b[i].count;
        cr_expect_geq(b[i].t1 - b[i].t0, 100);
    }
    cr_expect_eq(total, 10);
    cr_expect(b[0].count == 1 && b[0].kind == TRACE_WAIT && b[0].t1 == 1000);
    cr_expect_eq(b[1].count, 3);   /* read, math, read: 1000..1300 */
    cr_expect_eq(b[1].t0, 1000);
    cr_expect_eq(b[2].count, 1);   /* math 1300 ends at the wide wait */
    cr_expect_eq(b[2].t1, 1400);
    cr_expect(b[3].count == 1 && b[3].kind == TRACE_WAIT && b[3].t0 == 1400 && b[3].t1 == 2200);
    /* the whole lane in one pixel: one block, stall share 1800 / 2600 */
    n = view_blocks(vt, consumer_lane(), VIEW_TRACK_WORK, 0, 2600, 2600.0, 3.0, b, 64);
    cr_assert_eq(n, 1);
    cr_expect_eq(b[0].count, 10);
    cr_expect_float_eq(b[0].stall_frac, 1800.0f / 2600.0f, 1e-6);
}

Test(view, a_span_that_started_before_the_window_is_visible)
{
    view_block b[8];
    size_t n = view_blocks(vt, consumer_lane(), VIEW_TRACK_WORK, 1500, 1600, 1.0, 3.0, b, 8);
    cr_assert_eq(n, 1);
    cr_expect_eq(b[0].t0, 1400);
    cr_expect_eq(b[0].kind, TRACE_WAIT);
    /* the cap is honoured */
    n = view_blocks(vt, consumer_lane(), VIEW_TRACK_WORK, 0, 2600, 1.0, 3.0, b, 4);
    cr_expect_eq(n, 4);
}

Test(view, pick_finds_the_event_under_the_cursor)
{
    uint32_t i = view_pick(vt, consumer_lane(), VIEW_TRACK_WORK, 500, 0);
    cr_assert_neq(i, UINT32_MAX);
    cr_expect_eq(tr.events[i].kind, TRACE_WAIT);
    cr_expect_eq(tr.events[i].t_ns, 0);
    i = view_pick(vt, consumer_lane(), VIEW_TRACK_WORK, 1150, 0);
    cr_expect_eq(tr.events[i].kind, TRACE_MATH);
    cr_expect_eq(view_pick(vt, consumer_lane(), VIEW_TRACK_WORK, 3000, 10), UINT32_MAX);
}

Test(view, flow_from_a_tma_issue_to_the_wait_it_ends)
{
    /* iteration 2 (stage 0) is issued at 1200 and lands at 2200; the consumer waits
     * 1400..2200 for it. Iteration 0's copy ends the consumer's first wait (0..1000). */
    view_query q = {TRACE_TMA_ISSUE, 0, 2, -1};
    uint32_t issue = view_search(vt, &q, SIZE_MAX, 1);
    cr_assert_neq(issue, UINT32_MAX);
    cr_expect_eq(tr.events[issue].t_ns, 1200);
    uint32_t w[4];
    size_t n = view_flow_targets(vt, issue, w, 4);
    cr_assert_eq(n, 1);
    cr_expect_eq(tr.events[w[0]].kind, TRACE_WAIT);
    cr_expect_eq(tr.events[w[0]].t_ns, 1400);
    cr_expect_eq(tr.events[w[0]].t_ns + tr.events[w[0]].dur_ns, 2200);
    /* iteration 1 lands at 1010 while the consumer is busy: no wait, no flow */
    q.stage = 1;
    q.iteration = 1;
    issue = view_search(vt, &q, SIZE_MAX, 1);
    cr_expect_eq(view_flow_targets(vt, issue, w, 4), 0);
}

Test(view, search_by_kind_stage_iteration_and_role)
{
    view_query q;
    cr_assert_eq(view_query_parse("kind=wait stage=0 iter=2 role=consumer", &q, NULL), ERR_OK);
    uint32_t i = view_search(vt, &q, SIZE_MAX, 1);
    cr_assert_neq(i, UINT32_MAX);
    cr_expect_eq(tr.events[i].t_ns, 1400);
    cr_expect_eq(tr.events[i].dur_ns, 800);
    cr_expect_eq(view_search(vt, &q, i, 1), UINT32_MAX);   /* only one */
    cr_expect_eq(view_search(vt, &q, SIZE_MAX, -1), i);
    err_info e = {0};
    cr_expect_eq(view_query_parse("kind=sleep", &q, &e), ERR_BAD_INPUT);
    cr_expect_str_eq(e.rule, "kind");
    cr_expect_eq(view_query_parse("stage=300", &q, &e), ERR_BAD_INPUT);
    cr_expect_eq(view_query_parse("colour=red", &q, &e), ERR_BAD_INPUT);
}

static const view_stat *stat_of(const view_stats *s, trace_kind k, trace_role r)
{
    for (size_t i = 0; i < s->ngroups; i++)
        if (s->groups[i].kind == k && s->groups[i].role == r) return &s->groups[i];
    return NULL;
}

Test(view, range_statistics_per_kind_and_role)
{
    view_stats s;
    cr_assert_eq(view_range_stats(vt, 0, 2600, &s, NULL), ERR_OK);
    cr_expect_eq(s.events, tr.count);
    const view_stat *m = stat_of(&s, TRACE_MATH, TRACE_ROLE_CONSUMER);
    cr_assert(m);
    cr_expect_eq(m->count, 4);
    cr_expect_eq(m->total_ns, 400);
    cr_expect_float_eq(m->mean_ns, 100.0, 1e-9);
    cr_expect_eq(m->p50_ns, 100);
    const view_stat *cw = stat_of(&s, TRACE_WAIT, TRACE_ROLE_CONSUMER);
    cr_expect_eq(cw->count, 2);
    cr_expect_eq(cw->total_ns, 1800);
    cr_expect_eq(cw->p50_ns, 800);
    cr_expect_eq(cw->p95_ns, 1000);
    const view_stat *pw = stat_of(&s, TRACE_WAIT, TRACE_ROLE_PRODUCER);
    cr_expect_eq(pw->p50_ns, 190);
    cr_expect_eq(pw->p95_ns, 1180);
    /* a range that only holds the second half: events starting in [1400, 2600] */
    cr_assert_eq(view_range_stats(vt, 1400, 2600, &s, NULL), ERR_OK);
    cw = stat_of(&s, TRACE_WAIT, TRACE_ROLE_CONSUMER);
    cr_expect_eq(cw->count, 1);
    cr_expect_eq(cw->total_ns, 800);
}

Test(view, histogram_of_wait_durations)
{
    uint32_t bins[2];
    uint32_t n = view_histogram(vt, 0, 2600, TRACE_WAIT, TRACE_ROLE_CONSUMER, 2000, bins, 2);
    cr_expect_eq(n, 2);
    cr_expect_eq(bins[0], 1);   /* 800 ns */
    cr_expect_eq(bins[1], 1);   /* 1000 ns */
}

static const view_barrier_state *bar_of(const view_state *s, unsigned b)
{
    for (unsigned i = 0; i < s->nbarriers; i++)
        if (s->barriers[i].barrier == b) return &s->barriers[i];
    return NULL;
}

Test(view, state_at_cursor_stages_and_barriers)
{
    view_state s;
    cr_assert_eq(view_state_at(vt, 0, 1050, &s, NULL), ERR_OK);
    cr_expect_eq(s.nstages, 2);
    cr_expect_eq(s.stages[0], VIEW_STAGE_READING);   /* read of it 0: 1000..1100 */
    cr_expect_eq(s.stages[1], VIEW_STAGE_FULL);      /* landed at 1010, not yet read */
    cr_assert(bar_of(&s, 0));
    cr_expect_eq(bar_of(&s, 0)->phase, 1);           /* full[0] completed phase 0 at 1000 */
    cr_expect_eq(bar_of(&s, 0)->tx_count, 0);
    cr_assert_eq(view_state_at(vt, 0, 1250, &s, NULL), ERR_OK);
    cr_expect_eq(s.stages[0], VIEW_STAGE_FILLING);   /* it 2 in flight 1200..2200 */
    cr_expect_eq(s.stages[1], VIEW_STAGE_READING);   /* read of it 1: 1200..1300 */
    cr_expect_eq(bar_of(&s, 0)->tx_count, 8192);     /* expect_tx of it 2, not yet delivered */
    cr_assert(bar_of(&s, 2));
    cr_expect_eq(bar_of(&s, 2)->phase, 1);           /* empty[0] completed phase 0 at 1200 */
    cr_expect_eq(view_state_at(vt, 7, 1250, &s, NULL), ERR_BAD_INPUT);
}

Test(view_state, pending_arrivals_reset_when_the_phase_completes)
{
    trace t;
    trace_init(&t, TRACE_SRC_SIM);
    synth_push(&t, 10, 0, TRACE_BAR_ARRIVE, 0, 1, TRACE_ROLE_CONSUMER, 0, 0, 5, 0, 0, 0, 0);
    synth_push(&t, 20, 0, TRACE_BAR_ARRIVE, 0, 2, TRACE_ROLE_CONSUMER, 0, 0, 5, 0, 0, 0, 0);
    synth_push(&t, 30, 0, TRACE_PHASE_COMPLETE, 0, 2, TRACE_ROLE_CONSUMER, 0, 0, 5, 0, 0, 0, 0);
    synth_push(&t, 40, 0, TRACE_BAR_ARRIVE, 0, 1, TRACE_ROLE_CONSUMER, 0, 1, 5, 1, 0, 0, 0);
    view_trace *v;
    cr_assert_eq(view_trace_build(&t, &v, NULL), ERR_OK);
    view_state s;
    view_state_at(v, 0, 25, &s, NULL);
    cr_expect_eq(bar_of(&s, 5)->phase, 0);
    cr_expect_eq(bar_of(&s, 5)->arrivals, 2);
    view_state_at(v, 0, 35, &s, NULL);
    cr_expect_eq(bar_of(&s, 5)->phase, 1);
    cr_expect_eq(bar_of(&s, 5)->arrivals, 0);
    view_state_at(v, 0, 45, &s, NULL);
    cr_expect_eq(bar_of(&s, 5)->arrivals, 1);
    view_trace_free(v);
    trace_free(&t);
}

Test(view_build, unsorted_and_empty_traces)
{
    trace t;
    trace_init(&t, TRACE_SRC_SIM);
    view_trace *v = NULL;
    cr_assert_eq(view_trace_build(&t, &v, NULL), ERR_OK);
    cr_expect_eq(view_lane_count(v), 0);
    view_block b[4];
    cr_expect_eq(view_blocks(v, 0, VIEW_TRACK_WORK, 0, 100, 1, 3, b, 4), 0);
    view_trace_free(v);
    synth_push(&t, 50, 0, TRACE_BAR_ARRIVE, 0, 1, TRACE_ROLE_CONSUMER, 0, 0, 0, 0, 0, 0, 0);
    synth_push(&t, 10, 0, TRACE_BAR_ARRIVE, 0, 1, TRACE_ROLE_CONSUMER, 0, 0, 0, 0, 0, 0, 0);
    err_info e = {0};
    cr_expect_eq(view_trace_build(&t, &v, &e), ERR_BAD_INPUT);
    cr_expect_str_eq(e.rule, "t_ns");
    trace_free(&t);
}

/* Zoomed out over a trace of many seconds, a block merges spans whose durations add up
 * past 2^32 ns: its stalled share is still the exact one (here 3 waits and 1 math of
 * 4e9 ns each: 3/4), not one from sums that wrapped. */
Test(view_build, stalled_share_of_a_block_longer_than_2_to_32_ns)
{
    trace t;
    trace_init(&t, TRACE_SRC_SIM);
    const uint32_t d = 4000000000u;
    for (int k = 0; k < 4; k++)
        synth_push(&t, (int64_t)k * d, d, k == 2 ? TRACE_MATH : TRACE_WAIT, 0, 1, TRACE_ROLE_CONSUMER, 0, (unsigned)k, 0, 0,
                   0, 0, 0);
    view_trace *v = NULL;
    cr_assert_eq(view_trace_build(&t, &v, NULL), ERR_OK);
    view_block b[4];
    /* 1e10 ns per pixel: every span is narrower than the 3-pixel minimum, one block */
    size_t n = view_blocks(v, 0, VIEW_TRACK_WORK, 0, 4 * (int64_t)d, 1e10, 3.0, b, 4);
    cr_assert_eq(n, 1);
    cr_expect_eq(b[0].count, 4);
    cr_expect_float_eq(b[0].stall_frac, 0.75f, 1e-6);
    view_trace_free(v);
    trace_free(&t);
}

Test(view_play, cursor_advances_at_the_chosen_speed_and_stops_at_the_end)
{
    int64_t c = 0;
    cr_expect_eq(view_play_advance(&c, 1000.0, 0.5, 10000), 1);
    cr_expect_eq(c, 500);
    cr_expect_eq(view_play_advance(&c, 1e6, 1.0, 10000), 0);
    cr_expect_eq(c, 10000);
}

/* ---- the session: two panes on one axis, input, snapping ------------------------------ */
#include "view_session.h"

Test(session, two_traces_share_the_axis_and_snap_aligns_a_matched_event)
{
    synth_opts o = {.ctas = 1, .consumers = 1, .stages = 2, .iterations = 4, .flight_ns = 1000, .read_ns = 100,
                    .math_ns = 100, .issue_gap_ns = 10, .bytes = 8192};
    trace a, b;
    trace_init(&a, TRACE_SRC_SIM);
    synth_fill(&a, &o);
    o.math_ns = 120;
    trace_init(&b, TRACE_SRC_HW);
    synth_fill(&b, &o);
    /* a measured clock starts elsewhere: shift every event of b by 5000 ns */
    for (size_t i = 0; i < b.count; i++) b.events[i].t_ns += 5000;
    const trace *tp[2] = {&a, &b};
    view_session s;
    cr_assert_eq(view_session_init(&s, tp, 2, 1000, 600, NULL), ERR_OK);
    cr_expect_eq(s.offset[1], -5000);   /* first events lined up */
    cr_expect_eq(s.match.matched, a.count);
    /* select the consumer wait of iteration 2 in a (1400..2200); in b it is 1440..2220
     * (+5000), so snapping puts b's copy at 1400: offset 1400 - 6440 */
    view_query q = {TRACE_WAIT, 0, 2, TRACE_ROLE_CONSUMER};
    uint32_t ev = view_search(s.vt[0], &q, SIZE_MAX, 1);
    cr_assert_neq(ev, UINT32_MAX);
    view_session_select(&s, 0, ev);
    cr_expect_eq(s.cursor, 1400);
    cr_assert(view_session_snap(&s));
    cr_expect_eq(s.offset[1], 1400 - 6440);
    cr_expect(strstr(s.status, "snapped"), "%s", s.status);
    view_session_key(&s, '0', 0);
    cr_expect_eq(s.offset[1], -5000);
    cr_expect(!strstr(s.status, "snapped") && strstr(s.status, "offsets reset"), "after 0: '%s'", s.status);
    view_session_free(&s);
    trace_free(&a);
    trace_free(&b);
}

Test(session, wheel_zooms_about_the_mouse_and_click_selects_what_is_drawn_there)
{
    synth_opts o = {.ctas = 1, .consumers = 1, .stages = 2, .iterations = 4, .flight_ns = 1000, .read_ns = 100,
                    .math_ns = 100, .issue_gap_ns = 10, .bytes = 8192};
    trace a;
    trace_init(&a, TRACE_SRC_SIM);
    synth_fill(&a, &o);
    const trace *tp[1] = {&a};
    view_session s;
    cr_assert_eq(view_session_init(&s, tp, 1, 1000, 600, NULL), ERR_OK);
    /* timeline x 120..700 (580 px); show 0..2900 ns: 5 ns per pixel */
    view_fit(&s.port, 0, 2900);
    int64_t t_under = view_t(&s.port, 300 - 120);
    view_session_wheel(&s, 300, 72, 2);
    cr_expect_float_eq(s.port.ns_per_px, 5.0 / 1.5625, 1e-9);   /* 1.25^2 */
    cr_expect_eq(view_t(&s.port, 300 - 120), t_under);
    /* consumer row: 62..82, work track 68..77. At 5 ns/px, x = 120 + 1150/5 = 350 is
     * inside math 1100..1200 */
    view_fit(&s.port, 0, 2900);
    view_session_button(&s, 350, 72, 1, 1, 0);
    view_session_button(&s, 350, 72, 1, 0, 0);
    cr_assert_neq(s.sel_event, UINT32_MAX);
    cr_expect_eq(a.events[s.sel_event].kind, TRACE_MATH);
    cr_expect_eq(a.events[s.sel_event].t_ns, 1100);
    /* f fits the selection with 10% margins: 1100 - 10 - 1 .. 1200 + 10 + 1 */
    view_session_key(&s, 'f', 0);
    cr_expect_eq(s.port.t0, 1089);
    cr_expect_eq(view_t1(&s.port), 1211);
    /* a right-drag selects a range */
    view_fit(&s.port, 0, 2900);
    view_session_button(&s, 120, 72, 3, 1, 0);
    view_session_motion(&s, 300, 72);
    view_session_button(&s, 320, 72, 3, 0, 0);
    cr_expect(s.has_range);
    cr_expect_eq(s.range_a, 0);
    cr_expect_eq(s.range_b, 1000);
    /* play: the whole run in 10 s, so half a second moves the cursor by 1/20 of it */
    int64_t lo, hi;
    view_session_extent(&s, &lo, &hi);
    s.cursor = lo;
    view_session_key(&s, ' ', 0);
    view_session_tick(&s, 0.5);
    cr_expect_eq(s.cursor, lo + (hi - lo) / 20);
    view_session_free(&s);
    trace_free(&a);
}

/* Rows by CTA: a simulated grid of 12 CTAs (1 producer + 3 consumers) beside a measured
 * trace of CTAs 0..4 (1 producer + 2 consumers). Both panes show the same CTAs, whole
 * groups only; page down moves both by the CTA rows shown; statistics count the CTAs
 * both hold; --ctas narrows the rows. */
Test(session, rows_by_cta_in_lockstep_whole_groups_and_compared_ctas)
{
    synth_opts o = {.ctas = 12, .consumers = 3, .stages = 2, .iterations = 4, .flight_ns = 1000, .read_ns = 100,
                    .math_ns = 100, .issue_gap_ns = 10, .bytes = 8192};
    trace a, b;
    trace_init(&a, TRACE_SRC_SIM);
    synth_fill(&a, &o);
    o.ctas = 5;
    o.consumers = 2;
    trace_init(&b, TRACE_SRC_HW);
    synth_fill(&b, &o);
    const trace *tp[2] = {&a, &b};
    view_session s;
    cr_assert_eq(view_session_init(&s, tp, 2, 1000, 600, NULL), ERR_OK);
    cr_expect_eq(s.nctas, 12);
    cr_expect_eq(s.nstats_ctas, 5);
    /* pane height (600 - 24 - 44) / 2 = 266, 248 below the title: sim groups of 4 rows
     * (80 px + 8 gap) fit 2 whole (the third would end at 256), measured groups of 3 fit 3 */
    cr_expect_eq(s.nrows, 2);
    for (int pg = 0; pg < 3; pg++) {
        for (int p = 0; p < 2; p++)
            for (size_t i = 0; i < s.nshown[p]; i++) {
                size_t l = s.shown[p][i];
                uint16_t cta = view_lane_at(s.vt[p], l)->cta;
                cr_expect(cta >= s.ctas[s.top] && cta < s.ctas[s.top] + s.nrows, "pane %d shows CTA %u at top %zu", p,
                          cta, s.top);
                int y = view_lane_y(&s, p, l);
                cr_expect_leq(y + s.g.row_h, s.g.pane_y[p] + s.g.pane_h, "pane %d lane %zu cut at the bottom", p, l);
            }
        cr_expect_eq(view_lane_at(s.vt[1], s.shown[1][0])->cta, view_lane_at(s.vt[0], s.shown[0][0])->cta);
        view_session_key(&s, VIEW_KEY_PAGE_DOWN, 0);
        cr_expect_eq(s.top, (size_t)(pg + 1) * 2);
    }
    /* past the measured CTAs its pane is empty; the simulated one goes on */
    cr_expect_eq(s.nshown[1], 0);
    cr_expect_gt(s.nshown[0], 0);
    /* statistics over the CTAs both hold: the simulated waits of CTAs 0..4 only */
    view_stats all, both;
    cr_assert_eq(view_range_stats(s.vt[0], INT64_MIN / 2, INT64_MAX / 2, &all, NULL), ERR_OK);
    cr_assert_eq(view_range_stats_ctas(s.vt[0], INT64_MIN / 2, INT64_MAX / 2, s.stats_mask, &both, NULL), ERR_OK);
    cr_expect_eq(both.events * 12, all.events * 5);
    uint32_t bins[8];
    cr_expect_eq(view_histogram_ctas(s.vt[0], INT64_MIN / 2, INT64_MAX / 2, s.stats_mask, TRACE_WAIT, -1, 4000, bins, 8) *
                     12,
                 view_histogram(s.vt[0], INT64_MIN / 2, INT64_MAX / 2, TRACE_WAIT, -1, 4000, bins, 8) * 5);
    /* --ctas: rows and statistics narrow to the CTAs named */
    err_info e = {0};
    cr_assert_eq(view_session_set_ctas(&s, "3-4,9", &e), ERR_OK);
    cr_expect_eq(s.nctas, 3);
    cr_expect_eq(s.ctas[2], 9);
    cr_expect_eq(s.nstats_ctas, 2);
    cr_expect_eq(view_lane_at(s.vt[0], s.shown[0][0])->cta, 3);
    cr_expect_eq(view_session_set_ctas(&s, "7-x", &e), ERR_BAD_INPUT);
    cr_expect(strstr(e.detail, "'7-x' is not a list of CTA ids"), "%s", e.detail);
    cr_expect_eq(view_session_set_ctas(&s, "500", &e), ERR_BAD_INPUT);
    cr_expect(strstr(e.detail, "names no CTA"), "%s", e.detail);
    view_session_free(&s);
    trace_free(&a);
    trace_free(&b);
}

/* The hardware pane's barriers from a recorded H100 trace, which holds no phase
 * completions: ws4_tma (1 producer, 2 consumers, 4 stages), CTA 0, stage 1. Read off the
 * file: the copies of iteration 5 (full[1] phase 1) land at 10973 ns; the consumers
 * release iteration 5 (empty[1] = barrier 5, phase 1) at 12279 and 12292 ns; the producer's
 * expect_tx of iteration 9 (full[1] phase 2) is at 12379 ns; its copies land at 17850 ns. */
Test(view_state, recorded_h100_barriers_follow_their_phases)
{
    trace t;
    err_info e = {0};
    cr_assert_eq(trace_read("traces/h100/pipelines/ws4_tma.tmt", &t, &e), ERR_OK, "%s", e.detail);
    cr_assert_eq(t.source, TRACE_SRC_HW);
    view_trace *v;
    cr_assert_eq(view_trace_build(&t, &v, NULL), ERR_OK);
    view_state s;
    /* between the two releases: empty[1] holds one of its two arrivals of phase 1 */
    cr_assert_eq(view_state_at(v, 0, 12285, &s, NULL), ERR_OK);
    cr_assert(bar_of(&s, 1) && bar_of(&s, 5));
    cr_expect_eq(bar_of(&s, 1)->phase, 2);
    cr_expect_eq(bar_of(&s, 1)->arrivals, 0);
    cr_expect_eq(bar_of(&s, 5)->phase, 1);
    cr_expect_eq(bar_of(&s, 5)->arrivals, 1);
    /* after the expect_tx of iteration 9: empty[1] completed phase 1 with its second
     * release, full[1] has the producer's arrival of phase 2 and its bytes outstanding */
    cr_assert_eq(view_state_at(v, 0, 12400, &s, NULL), ERR_OK);
    cr_expect_eq(bar_of(&s, 5)->phase, 2);
    cr_expect_eq(bar_of(&s, 5)->arrivals, 0);
    cr_expect_eq(bar_of(&s, 1)->phase, 2);
    cr_expect_eq(bar_of(&s, 1)->arrivals, 1);
    cr_expect_gt(bar_of(&s, 1)->tx_count, 0);
    /* the copies of iteration 9 have landed: full[1] is in phase 3, stage 1 full or read */
    cr_assert_eq(view_state_at(v, 0, 18000, &s, NULL), ERR_OK);
    cr_expect_eq(bar_of(&s, 1)->phase, 3);
    cr_expect_eq(bar_of(&s, 1)->arrivals, 0);
    cr_expect_eq(bar_of(&s, 5)->phase, 2);
    cr_expect_eq(s.stages[1], VIEW_STAGE_READING);
    view_trace_free(v);
    trace_free(&t);
}
