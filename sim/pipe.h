/* pipe: discrete-event simulator of a described async-copy pipeline on an H100.
 *
 * Actors are warps (state machines over the description's program), the TMA unit and the
 * shared-memory port of each SM, the SM sub-partitions' math pipes, and one memory
 * system (L2 + HBM bandwidth) shared by all SMs. Barriers are mbar.h state, stepped
 * with mbar_step, so the protocol check and the timing run are the same simulation.
 * Time is integer picoseconds inside, nanoseconds in the trace. The hot path
 * allocates nothing: events live in a preallocated binary heap. */
#ifndef TMASCOPE_PIPE_H
#define TMASCOPE_PIPE_H

#include <stdint.h>

#include "desc.h"
#include "err.h"
#include "params.h"
#include "trace.h"
#include "verdict.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pipe_opts {
    const pipe_params *params;   /* NULL: H100 defaults */
    trace *out;                  /* NULL: no trace (faster) */
    /* called every 2^20 simulated events with the count so far (NULL: none), for a
     * command's progress line; the library itself prints nothing */
    void (*progress)(void *user, uint64_t sim_events);
    void *progress_user;
} pipe_opts;

typedef struct pipe_role_stats {
    uint32_t warps;
    double busy_ns;              /* issue + reads + math, summed over the role's warps */
    double read_ns, math_ns, issue_ns;
    double wait_full_ns, wait_empty_ns;  /* stalled in try_wait */
    double other_ns;             /* waiting for resources (port, math pipe), stores, finished early */
    double life_ns;              /* from its CTA's start to its own end, summed over the role's warps */
} pipe_role_stats;

typedef struct pipe_result {
    int64_t kernel_ns;
    uint64_t sim_events;         /* discrete events processed */
    uint64_t trace_events;
    /* protocol */
    int deadlock;                /* warps blocked forever */
    uint32_t findings;           /* mbarrier misuses (first one in `first`) */
    err_info first;
    char chain[1024];            /* deadlock: who waits on whom; finding: where */
    /* timing */
    pipe_role_stats role[3];     /* producer, consumer, mixed (trace_role order) */
    double hbm_util, tma_util, smem_util, math_util;
    double stages_filled_avg;    /* CTA 0: time-averaged number of stages holding data */
    verdict_evidence evidence;   /* what the verdict rests on (verdict.h) */
    verdict_kind verdict;
    const char *bottleneck_kind; /* verdict_name(verdict): "memory", "smem", "compute", "latency", ... */
    char bottleneck[320];        /* one sentence */
} pipe_result;

/* Runs the description to completion or deadlock. ERR_OK for a run (findings and
 * deadlocks are reported in *r, not as errors); ERR_BAD_INPUT / ERR_IO otherwise. */
/* The clock (picoseconds) stops a run that passes 2^62 ps: ERR_BAD_INPUT "clock_limit". */
#define PIPE_CLOCK_LIMIT_PS ((int64_t)1 << 62)
int pipe_run(const pipe_desc *d, const pipe_opts *o, pipe_result *r, err_info *e);

/* Protocol verdict of a finished run: ERR_OK, or ERR_FINDING with e->rule/detail
 * explaining the first finding or the deadlock. */
int pipe_verdict(const pipe_result *r, err_info *e);
/* Cycles one warp's math of one stage keeps its sub-partition's pipe busy at the pipe's
 * peak rate (no latency chains): the math's share of the machine. */
double pipe_math_pipe_cycles(const pipe_desc *d, const pipe_params *p);
/* The fraction of tensor t's loaded bytes that L2 serves: the description's l2_hit when
 * given, else derived from the tiles the CTAs load in turn and the L2 capacity for reuse. */
double pipe_l2_hit(const pipe_desc *d, uint32_t t, const pipe_params *p);
/* The GPU's L2 read rate (B/ns) for bytes that `readers` SMs read at about the same time:
 * the measured l2_share_bytes_per_ns points, linear in log2 of the readers between them,
 * the last point past 32. */
double pipe_l2_share_rate(const pipe_params *p, double readers);

#ifdef __cplusplus
}
#endif

#endif
