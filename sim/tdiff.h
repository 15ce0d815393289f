/* tdiff: matching the events of two traces (a simulated and a measured run of the same
 * kernel) and the statistics of their differences. Used by `tmasim diff` and by the
 * viewer (tmaview), so both agree on what "the same event" is.
 *
 * Matching: two events match when their key (cta, warp, kind, stage, iteration, copy)
 * is equal. `copy` numbers the events that share the first five fields in time order
 * (1, 2, ...): a stage loaded from two tensors has two TMA issues, flights and
 * expect_tx per iteration, and a warp may wait twice on one stage; the n-th copy of one
 * trace matches the n-th copy of the other.
 *
 * The difference of a matched pair ("a - b", a = simulated, b = measured):
 *   spans (TMA in flight, waits, shared-memory reads, math, TMA stores): a.dur - b.dur;
 *   instants: (a.t - start of a) - (b.t - start of b), i.e. times rebased to the first
 *   event of each trace, since the two clocks have different origins.
 * Percentiles are nearest-rank: the p-th percentile of n sorted values is value
 * number ceil(p/100 * n) (1-based). */
#ifndef TMASCOPE_TDIFF_H
#define TMASCOPE_TDIFF_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "trace.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TDIFF_NONE UINT32_MAX
#define TDIFF_TOP 10

typedef struct tdiff_match {
    uint32_t *a_to_b;   /* per event of a: index of its match in b, or TDIFF_NONE */
    uint32_t *b_to_a;
    size_t na, nb;
    size_t matched;     /* number of pairs */
} tdiff_match;

int tdiff_match_traces(const trace *a, const trace *b, tdiff_match *m, err_info *e);
void tdiff_match_free(tdiff_match *m);

/* The copy number (1-based) of event idx among the events of t with its (cta, warp,
 * kind, stage, iteration), in time order; *copies (may be NULL) gets how many there are.
 * Linear in the trace: for the few events a report or a tooltip names. */
uint32_t tdiff_key_copy(const trace *t, size_t idx, uint32_t *copies);

/* 1 for kinds that are spans (their duration is what is compared). */
int tdiff_kind_is_span(trace_kind k);
/* First event time of a trace (0 for an empty trace). */
int64_t tdiff_trace_start(const trace *t);
/* Kernel time: t->kernel_ns when set, else last end - first start. */
int64_t tdiff_kernel_ns(const trace *t);
/* Difference of a matched pair as defined above. */
int64_t tdiff_delta(const trace *a, size_t ia, const trace *b, size_t ib);
/* Nearest-rank percentile (pct 0..100) of sorted values; 0 when n == 0. */
int64_t tdiff_percentile(const int64_t *sorted, size_t n, unsigned pct);
/* Sorts v in place (ascending). */
void tdiff_sort_i64(int64_t *v, size_t n);

typedef struct tdiff_group {
    uint8_t kind, role;
    uint32_t matched, only_a, only_b;
    int64_t median, p95;          /* of (a - b) over matched pairs (signed) */
    int64_t p95_abs;              /* of |a - b|: how far off 95% of the pairs are at most */
    int64_t b_median;             /* median of b's own value (duration for spans) */
} tdiff_group;

typedef struct tdiff_pair {
    uint32_t a, b;                /* event indices */
    int64_t delta;
} tdiff_pair;

typedef struct tdiff_report {
    tdiff_group groups[TRACE_KIND_COUNT * TRACE_ROLE_COUNT];
    size_t ngroups;               /* groups with at least one event, by kind then role */
    int64_t kernel_a, kernel_b;
    double kernel_err;            /* (a - b) / b; 0 when b is 0 */
    size_t matched, unmatched_a, unmatched_b;
    tdiff_pair top[TDIFF_TOP];    /* largest |delta|, largest first */
    size_t ntop;
    uint32_t first_only_a[TDIFF_TOP], first_only_b[TDIFF_TOP];   /* earliest unmatched */
    size_t nfirst_only_a, nfirst_only_b;
    /* Events of a CTA the other trace holds no event of (a hardware recording usually
     * traces the first few CTAs while every CTA runs): neither matched nor counted in
     * only_a / only_b / unmatched_*, since there was nothing to match them against. */
    size_t untraced_a, untraced_b;
    uint32_t ctas_a, ctas_b;      /* distinct CTAs with events in each trace */
    /* Events of the simulated TMA unit (role tma_unit: complete_tx, phase completion) when
     * the other trace is a hardware recording: no instruction observes them on the GPU, so
     * they are not counted as unmatched either. */
    size_t unobservable_a, unobservable_b;
} tdiff_report;

int tdiff_compare(const trace *a, const trace *b, const tdiff_match *m, tdiff_report *r, err_info *e);

#ifdef __cplusplus
}
#endif

#endif
