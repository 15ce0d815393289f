#include "pipe_budget.h"

#include <string.h>

#include "params.h"
#include "pipe_plan.h"

/* discrete events and trace events per warp and iteration, measured on the examples */
#define SIM_EVENTS_PER_STEP 6.0
#define TRACE_EVENTS_PER_STEP 5.0

/* The clock bound of the header: sums over the parameter table by unit, so a parameter
 * added later is covered without a change here. */
static double clock_bound_ps(const pipe_desc *d, const pipe_params *p, double steps)
{
    size_t n = 0;
    const params_info *t = params_table(&n);
    double ns = 0, cycles = 0, slowest = 0;
    for (size_t i = 0; i < n; i++) {
        double v = params_get(p, t[i].name, NULL);
        if (!strcmp(t[i].unit, "ns"))
            ns += v;
        else if (!strcmp(t[i].unit, "cycles"))
            cycles += v;
        else if (!strcmp(t[i].unit, "B/ns") && (slowest == 0 || v < slowest))
            slowest = v;
    }
    double ps_per_cycle = 1000.0 / pipe_plan_clock_ghz(d, p);
    double bytes = (double)d->copy_bytes * (d->cluster ? d->cluster : 1) + (double)d->store_bytes + (double)d->read_bytes;
    double chunks = 1 + bytes / 16 + d->stages;   /* the finest copy unit is 16 bytes */
    double lsu = p->lsu_bytes_per_cycle_smsp > 0 ? (double)d->read_bytes / p->lsu_bytes_per_cycle_smsp : 0;
    double math = (double)d->math_amount * (p->ffma_cycles + 1.0 / p->mma_flops_per_cycle_smsp + p->mma_latency_cycles);
    double step = 1000.0 * ns * chunks +
                  ps_per_cycle * (cycles * (chunks + d->read_instructions) +
                                  p->smem_cycles_per_wavefront * (double)d->read_wavefronts + lsu + math) +
                  (slowest > 0 ? 1000.0 * bytes / slowest : 0);
    return steps * step + 1000.0 * (p->cta_launch_spread_ns + p->kernel_overhead_ns + p->cta_overhead_ns);
}

int pipe_budget_estimate(const pipe_desc *d, int traced, const pipe_params *p, pipe_budget *b)
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
    if (p)
        b->clock_bound_ps = clock_bound_ps(d, p, steps);
    return ERR_OK;
}

int pipe_budget_check(const pipe_budget *b, int force, err_info *e)
{
    if (!(b->clock_bound_ps <= PIPE_BUDGET_MAX_CLOCK_PS))
        return err_set(e, ERR_BAD_INPUT, "clock_limit",
                       "the kernel could run up to %.3g ps (ctas x iterations x warps x the longest step), past the "
                       "simulator's clock limit of 2^62 ps (53 days); lower iterations, ctas or math.amount",
                       b->clock_bound_ps);
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
