/* pipe_state: barrier and stage state of one CTA from its events (see pipe_state.h). */
#include "pipe_state.h"

#include <string.h>

void pipe_state_init(pipe_state *s, int64_t t, trace_source source)
{
    memset(s, 0, sizeof *s);
    s->t = t;
    s->source = (uint8_t)source;
    for (int b = 0; b < PIPE_STATE_MAX_BARRIERS; b++) {
        s->bar[b].done = -1;
        for (int k = 0; k < PIPE_STATE_SLOTS; k++)
            s->bar[b].tag[k] = UINT32_MAX;
    }
    for (int k = 0; k < PIPE_STATE_MAX_STAGES; k++)
        s->stage[k].filled = s->stage[k].released = INT64_MIN;
}

void pipe_state_set_count(pipe_state *s, uint32_t b, uint32_t count)
{
    if (b < PIPE_STATE_MAX_BARRIERS)
        s->bar[b].count = count;
}

static void complete(pipe_bar_state *b, uint32_t phase)
{
    if ((int32_t)phase > b->done)
        b->done = (int32_t)phase;
}

/* The slot of phase k: a newer phase takes over a slot, an older one is not counted. */
static int slot_of(pipe_bar_state *b, uint32_t k)
{
    int i = (int)(k % PIPE_STATE_SLOTS);
    if (b->tag[i] == k)
        return i;
    if (b->tag[i] != UINT32_MAX && b->tag[i] > k)
        return -1;
    b->tag[i] = k;
    b->arrivals[i] = 0;
    b->tx[i] = 0;
    return i;
}

/* In a recorded trace an arrival of phase k proves phase k - 1 complete (in a pipeline the
 * arrivals of a phase follow the completion of the one before it), and the arrivals phase
 * k - 1 received are the count that completes a phase. */
static void arrival_proves_previous(pipe_bar_state *b, uint32_t k)
{
    if (k == 0 || (int32_t)(k - 1) <= b->done)
        return;
    int i = (int)((k - 1) % PIPE_STATE_SLOTS);
    if (!b->count && !b->full && b->tag[i] == k - 1)
        b->learned = b->arrivals[i] > b->learned ? b->arrivals[i] : b->learned;
    complete(b, k - 1);
}

static void arrive(pipe_bar_state *b, const trace_event *ev, int recorded)
{
    if (recorded)
        arrival_proves_previous(b, ev->phase);
    int i = slot_of(b, ev->phase);
    if (i < 0)
        return;
    if (ev->kind == TRACE_BAR_COMPLETE_TX) {
        b->tx[i] -= ev->bytes;
        return;
    }
    if (ev->kind == TRACE_BAR_EXPECT_TX)
        b->tx[i] += ev->bytes;
    b->arrivals[i]++;
    if (b->arrivals[i] > b->most)
        b->most = b->arrivals[i];
    uint32_t count = b->count ? b->count : b->learned;
    if (count && b->arrivals[i] >= count && !(b->full && b->tx[i] > 0))
        complete(b, ev->phase);
}

static void track_stage(pipe_state *s, const trace_event *ev, int64_t end)
{
    if (ev->stage >= PIPE_STATE_MAX_STAGES)
        return;
    pipe_stage_track *st = &s->stage[ev->stage];
    int covers = ev->t_ns <= s->t && s->t < end;
    switch (ev->kind) {
    case TRACE_TMA_FLIGHT:
        if (covers)
            st->filling = 1;
        else if (end <= s->t && end > st->filled)
            st->filled = end;
        break;
    case TRACE_PHASE_COMPLETE:
        if ((ev->flags & TRACE_FLAG_FULL_BARRIER) && ev->t_ns > st->filled)
            st->filled = ev->t_ns;
        break;
    case TRACE_SMEM_READ:
        if (covers)
            st->reading = 1;
        break;
    case TRACE_RELEASE:
        if (ev->t_ns > st->released)
            st->released = ev->t_ns;
        break;
    default:
        return;
    }
    if (ev->stage + 1u > s->nstages)
        s->nstages = ev->stage + 1u;
}

void pipe_state_step(const pipe_state *in, const trace_event *ev, pipe_state *out)
{
    if (out != in)
        *out = *in;
    if (ev->t_ns > out->t)
        return;
    int64_t end = ev->t_ns + (int64_t)ev->dur_ns;
    track_stage(out, ev, end);
    if (ev->barrier >= PIPE_STATE_MAX_BARRIERS)
        return;
    pipe_bar_state *b = &out->bar[ev->barrier];
    switch (ev->kind) {
    case TRACE_BAR_ARRIVE:
    case TRACE_BAR_EXPECT_TX:
    case TRACE_BAR_COMPLETE_TX:
    case TRACE_RELEASE:
        b->seen = 1;
        b->stage = ev->stage;
        if (ev->flags & TRACE_FLAG_FULL_BARRIER)
            b->full = 1;
        arrive(b, ev, out->source == TRACE_SRC_HW);
        break;
    case TRACE_PHASE_COMPLETE:
        b->seen = 1;
        b->stage = ev->stage;
        if (ev->flags & TRACE_FLAG_FULL_BARRIER)
            b->full = 1;
        complete(b, ev->phase);
        break;
    case TRACE_WAIT:
        b->seen = 1;
        if (ev->flags & TRACE_FLAG_FULL_BARRIER)
            b->full = 1;
        if (ev->dur_ns && end <= out->t && !(ev->flags & TRACE_FLAG_TIMEOUT))
            complete(b, ev->phase);
        break;
    case TRACE_SMEM_READ:
        /* the consumer passed its wait on the stage's full barrier */
        if (b->full)
            complete(b, ev->phase);
        break;
    case TRACE_TMA_FLIGHT:
        if (out->source == TRACE_SRC_HW && (ev->flags & TRACE_FLAG_FULL_BARRIER) && end <= out->t) {
            b->seen = b->full = 1;
            complete(b, ev->phase);
        }
        break;
    default:
        break;
    }
}

uint32_t pipe_state_phase(const pipe_state *s, uint32_t b)
{
    return b < PIPE_STATE_MAX_BARRIERS ? (uint32_t)(s->bar[b].done + 1) : 0;
}

uint32_t pipe_state_arrivals(const pipe_state *s, uint32_t b)
{
    if (b >= PIPE_STATE_MAX_BARRIERS)
        return 0;
    uint32_t k = (uint32_t)(s->bar[b].done + 1);
    int i = (int)(k % PIPE_STATE_SLOTS);
    return s->bar[b].tag[i] == k ? s->bar[b].arrivals[i] : 0;
}

int64_t pipe_state_tx(const pipe_state *s, uint32_t b)
{
    if (b >= PIPE_STATE_MAX_BARRIERS)
        return 0;
    uint32_t k = (uint32_t)(s->bar[b].done + 1);
    int i = (int)(k % PIPE_STATE_SLOTS);
    return s->bar[b].tag[i] == k ? s->bar[b].tx[i] : 0;
}

pipe_stage_state pipe_state_stage(const pipe_state *s, uint32_t stage)
{
    if (stage >= PIPE_STATE_MAX_STAGES)
        return PIPE_STAGE_EMPTY;
    const pipe_stage_track *st = &s->stage[stage];
    if (st->reading)
        return PIPE_STAGE_READING;
    if (st->filling)
        return PIPE_STAGE_FILLING;
    if (st->filled != INT64_MIN && st->filled > st->released)
        return PIPE_STAGE_FULL;
    return PIPE_STAGE_EMPTY;
}

const char *pipe_stage_state_name(pipe_stage_state s)
{
    static const char *names[] = {"empty", "filling", "full", "reading"};
    return (unsigned)s < 4 ? names[s] : "?";
}
