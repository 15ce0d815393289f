#include "pipe_budget.h"

#include <string.h>

/* discrete events and trace events per warp and iteration, measured on the examples */
#define SIM_EVENTS_PER_STEP 6.0
#define TRACE_EVENTS_PER_STEP 5.0

int pipe_budget_estimate(const pipe_desc *d, int traced, pipe_budget *b)
{
    memset(b, 0, sizeof *b);
    double warps = (double)d->producer_warps + (double)d->consumer_warps;
    double steps = (double)d->ctas * (double)d->iterations * (warps > 0 ? warps : 1);
    /* each repeat of a consumer's reads is one more event per step */
    double reads = d->reads_enabled ? (double)(d->reads_repeat ? d->reads_repeat : 1) : 0;
    b->sim_events = steps * (SIM_EVENTS_PER_STEP + reads);
    if (traced) {
        b->trace_events = steps * TRACE_EVENTS_PER_STEP;
        b->trace_bytes = b->trace_events * 32.0;
    }
    return ERR_OK;
}

int pipe_budget_check(const pipe_budget *b, int force, err_info *e)
{
    if (force)
        return ERR_OK;
    if (b->sim_events > PIPE_BUDGET_MAX_SIM_EVENTS)
        return err_set(e, ERR_BAD_INPUT, "work_limit",
                       "about %.3g simulated events (ctas x iterations x warps), past the limit of %.3g "
                       "(about a minute); pass --force to run it anyway",
                       b->sim_events, PIPE_BUDGET_MAX_SIM_EVENTS);
    if (b->trace_events > PIPE_BUDGET_MAX_TRACE_EVENTS)
        return err_set(e, ERR_BAD_INPUT, "trace_limit",
                       "the trace would hold about %.3g events (%.1f GiB), past the limit of %.0f events "
                       "(2 GiB); drop -o, or pass --force",
                       b->trace_events, b->trace_bytes / 1073741824.0, PIPE_BUDGET_MAX_TRACE_EVENTS);
    return ERR_OK;
}
