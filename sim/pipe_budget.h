/* pipe_budget: the simulator's work and trace size, estimated from a description before
 * running it, so that `tmasim sim` and `check` can refuse a run of hours (or a trace of
 * gigabytes) up front instead of discovering it at the end. libc only.
 *
 * The estimate counts warp steps: every warp of every CTA handles every iteration, and
 * each handling costs a few discrete events (issue, arrive, wait, read, math, release,
 * complete_tx) and emits about as many trace events. It is an estimate, within a small
 * factor of what the run does (tests/test_pipe_budget.c checks the examples), not a bound. */
#ifndef TMASCOPE_PIPE_BUDGET_H
#define TMASCOPE_PIPE_BUDGET_H

#include "desc.h"
#include "err.h"
#include "params.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Past these a run needs --force: about a minute of simulation on one core, and a trace
 * of 2^26 events (2 GiB at 32 bytes each). */
#define PIPE_BUDGET_MAX_SIM_EVENTS 2e9
#define PIPE_BUDGET_MAX_TRACE_EVENTS 67108864.0

/* The simulator's clock counts picoseconds in an int64_t; a run is refused (even with
 * --force) when its kernel time could pass 2^62 ps (53 days), so that no time sum
 * overflows and every trace time stays within TRACE_MAX_NS. */
#define PIPE_BUDGET_MAX_CLOCK_PS 4611686018427387904.0

typedef struct pipe_budget {
    double sim_events;     /* discrete events the run processes */
    double trace_events;   /* events its trace holds (0 when not traced) */
    double trace_bytes;
    double clock_bound_ps; /* at most this simulated time (0 when no parameters were given) */
} pipe_budget;

/* Fills *b for a derived description; traced: a trace is written; p (NULL: no clock
 * bound) the parameters the run uses. The clock bound serialises every warp's every
 * step at the most any step can cost under p (all latencies, issue and port cycles,
 * copy bytes at the slowest bandwidth, the math block), so the real clock stays below
 * it. */
int pipe_budget_estimate(const pipe_desc *d, int traced, const pipe_params *p, pipe_budget *b);
/* ERR_BAD_INPUT naming the estimate and the limit when the run is past a limit and not
 * forced, or when its clock bound passes PIPE_BUDGET_MAX_CLOCK_PS (forced or not);
 * ERR_OK otherwise. */
int pipe_budget_check(const pipe_budget *b, int force, err_info *e);

#ifdef __cplusplus
}
#endif

#endif
