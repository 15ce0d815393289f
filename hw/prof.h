/* prof: the CUPTI Range Profiler flow of tmahw, written once. Each kernel launch between
 * the start and the stop of hw_prof_collect is one range (auto range, kernel replay: the
 * kernel is replayed once per pass, so counter runs are never timed). Used by the bank
 * measurement (hw/bank.cu, one range per instruction) and by `tmahw run`'s counters of
 * a pipeline kernel (hw/run_exec.cu, one range). */
#ifndef TMASCOPE_HW_PROF_H
#define TMASCOPE_HW_PROF_H

#include <stddef.h>
#include <stdint.h>

typedef struct hw_prof hw_prof;

typedef enum hw_prof_log_kind {
    HW_PROF_LOG_NOTE = 0,          /* chip name, pass count, warnings */
    HW_PROF_LOG_BASE_METRIC,       /* a base metric matching a list filter */
    HW_PROF_LOG_UNAVAILABLE,       /* a wanted metric the device does not offer */
} hw_prof_log_kind;
typedef void (*hw_prof_log_fn)(void *user, hw_prof_log_kind kind, const char *text);
/* Launches the kernels of one pass (each launch is a range); 0 when they launched. */
typedef int (*hw_prof_launch_fn)(void *ctx);

typedef struct hw_prof_desc {
    const char *const *want;       /* metrics to measure, in order; those the device lacks are skipped */
    int nwant;
    int max_metrics;               /* at most this many of them (0: all) */
    uint32_t max_ranges;           /* launches per hw_prof_collect (0: 1) */
    const char *const *list_filters;   /* NULL-terminated substrings: matching base metrics are logged */
    hw_prof_log_fn log;            /* NULL: nothing is logged */
    void *log_user;
} hw_prof_desc;

/* Sets the profiler up on the current context for the wanted metrics the device offers.
 * 0, or -1 with msg (no metric available, a CUPTI call that failed). */
int hw_prof_open(const hw_prof_desc *d, hw_prof **out, char *msg, size_t msgsz);
/* The metrics measured, in the order of want[] (valid until hw_prof_close). */
int hw_prof_nmetrics(const hw_prof *p);
const char *const *hw_prof_names(const hw_prof *p);
/* Runs launch(ctx) under the profiler and evaluates every recorded range r into
 * values[r * stride + m] (r < max_ranges). Returns the number of ranges recorded, or -1
 * with msg. */
int hw_prof_collect(hw_prof *p, hw_prof_launch_fn launch, void *ctx, double *values, size_t stride, char *msg,
                    size_t msgsz);
void hw_prof_close(hw_prof *p);

#endif
