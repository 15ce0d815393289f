/* pipe_state: the barrier and stage state of one CTA as its trace events tell it, as a
 * step function (state + event -> state), for a simulated and for a recorded trace.
 *
 * Events are stepped in time order (t_ns); the state answers for an observation time t
 * (pipe_state_init): an event that starts after t is not stepped, and a span's end
 * counts only once it is at or before t. A barrier's phase k is known complete:
 *   - at a recorded phase completion (the simulator writes them);
 *   - when a wait on phase k returns (a span that ended without the watchdog's flag);
 *   - for a full barrier, when a consumer starts reading the stage of phase k, and, in
 *     a recorded trace, when a copy of phase k lands (the runner ends a measured flight
 *     when the first consumer's wait returns);
 *   - for a barrier given its arrival count (pipe_state_set_count), when the arrivals of
 *     phase k reach it;
 *   - in a recorded trace, when an arrival of phase k + 1 comes (the arrivals of a phase
 *     follow the completion of the one before it), which also teaches the barrier its
 *     count: later phases complete when their arrivals reach it.
 * A recorded trace holds no phase completions, no complete_tx and no waits of zero
 * length: these rules read the phases from what could only happen after them. */
#ifndef TMASCOPE_PIPE_STATE_H
#define TMASCOPE_PIPE_STATE_H

#include <stdint.h>

#include "trace.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { PIPE_STATE_MAX_BARRIERS = 72, PIPE_STATE_MAX_STAGES = 32, PIPE_STATE_SLOTS = 8 };

typedef enum pipe_stage_state {
    PIPE_STAGE_EMPTY = 0, PIPE_STAGE_FILLING, PIPE_STAGE_FULL, PIPE_STAGE_READING
} pipe_stage_state;

typedef struct pipe_bar_state {
    int32_t done;                  /* last phase known complete (-1: none) */
    uint8_t seen, full, stage;
    uint32_t count;                /* arrivals that complete a phase (0: unknown) */
    uint32_t learned;              /* recorded trace: the arrivals a completed phase received */
    uint32_t most;                 /* the most arrivals any phase received */
    /* arrivals and tx of recent phases, slot k % PIPE_STATE_SLOTS holding phase tag[k] */
    uint32_t tag[PIPE_STATE_SLOTS], arrivals[PIPE_STATE_SLOTS];
    int64_t tx[PIPE_STATE_SLOTS];
} pipe_bar_state;

typedef struct pipe_stage_track {
    int64_t filled, released;      /* last landing / release at or before t (INT64_MIN: none) */
    uint8_t filling, reading;      /* a copy in flight / a read under way at t */
} pipe_stage_track;

typedef struct pipe_state {
    int64_t t;                     /* observation time (ns) */
    uint8_t source;                /* trace_source of the events */
    uint32_t nstages;              /* stages seen */
    pipe_bar_state bar[PIPE_STATE_MAX_BARRIERS];
    pipe_stage_track stage[PIPE_STATE_MAX_STAGES];
} pipe_state;

void pipe_state_init(pipe_state *s, int64_t t, trace_source source);
/* The arrival count that completes a phase of barrier b (its init count). */
void pipe_state_set_count(pipe_state *s, uint32_t b, uint32_t count);
/* Steps one event. out may be in (the state is updated in place). */
void pipe_state_step(const pipe_state *in, const trace_event *ev, pipe_state *out);

/* The current phase of barrier b (phases completed), its arrivals and outstanding tx bytes. */
uint32_t pipe_state_phase(const pipe_state *s, uint32_t b);
uint32_t pipe_state_arrivals(const pipe_state *s, uint32_t b);
int64_t pipe_state_tx(const pipe_state *s, uint32_t b);
pipe_stage_state pipe_state_stage(const pipe_state *s, uint32_t stage);
const char *pipe_stage_state_name(pipe_stage_state s);

#ifdef __cplusplus
}
#endif

#endif
