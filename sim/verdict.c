#include "verdict.h"

#include <stdlib.h>

#include "pipe.h"
#include "pipe_gemm.h"
#include "pipe_plan.h"

verdict_kind verdict_decide(const verdict_evidence *ev)
{
    if (ev->hang)
        return VERDICT_HANG;
    double mem = ev->dram_util > ev->l2_util ? ev->dram_util : ev->l2_util;
    /* the most loaded unit at or past saturation names the limit */
    double top = VERDICT_SATURATED;
    verdict_kind k = VERDICT_COUNT;
    if (mem >= top) {
        top = mem;
        k = VERDICT_MEMORY;
    }
    if (ev->smem_util >= top) {
        top = ev->smem_util;
        k = VERDICT_SMEM;
    }
    if (ev->math_util >= top)
        k = VERDICT_COMPUTE;
    if (k != VERDICT_COUNT)
        return k;
    if (ev->wait_data >= VERDICT_WAIT_DATA)
        return VERDICT_LATENCY;
    if (ev->busy >= VERDICT_BUSY)
        return VERDICT_COMPUTE;
    return VERDICT_SYNC;
}

const char *verdict_name(verdict_kind k)
{
    static const char *const names[VERDICT_COUNT] = {"memory", "smem", "compute", "latency", "synchronization", "hang"};
    return k < VERDICT_COUNT ? names[k] : "unknown";
}

typedef struct warp_span {
    int64_t first, last;
    double wait, busy;
} warp_span;

void verdict_trace_shares(const trace *t, double *wait_data, double *busy)
{
    *wait_data = -1;
    *busy = -1;
    /* warps are keyed by (cta, warp); the traces the runner keeps hold a few CTAs */
    size_t cap = 0;
    for (size_t i = 0; i < t->count; i++) {
        size_t key = (size_t)t->events[i].cta * 256u + t->events[i].warp;
        if (key + 1 > cap)
            cap = key + 1;
    }
    if (cap == 0 || cap > (1u << 24))
        return;
    warp_span *w = calloc(cap, sizeof *w);
    if (!w)
        return;
    for (size_t i = 0; i < cap; i++)
        w[i].first = INT64_MAX;
    for (size_t i = 0; i < t->count; i++) {
        const trace_event *ev = &t->events[i];
        if (ev->role != TRACE_ROLE_CONSUMER && ev->role != TRACE_ROLE_MIXED)
            continue;
        warp_span *s = &w[(size_t)ev->cta * 256u + ev->warp];
        int64_t end = ev->t_ns + ev->dur_ns;
        if (ev->t_ns < s->first)
            s->first = ev->t_ns;
        if (end > s->last)
            s->last = end;
        if (ev->kind == TRACE_WAIT && (ev->flags & TRACE_FLAG_FULL_BARRIER))
            s->wait += ev->dur_ns;
        else if (ev->kind == TRACE_SMEM_READ || ev->kind == TRACE_MATH)
            s->busy += ev->dur_ns;
    }
    double life = 0, wait = 0, work = 0;
    for (size_t i = 0; i < cap; i++)
        if (w[i].first != INT64_MAX && w[i].last > w[i].first) {
            life += (double)(w[i].last - w[i].first);
            wait += w[i].wait;
            work += w[i].busy;
        }
    free(w);
    if (life > 0) {
        *wait_data = wait / life;
        *busy = work / life;
    }
}

/* The GPU's block scheduler spreads a grid over every SM before it doubles up (the
 * simulator places CTAs the same way, CTA c on SM c mod SMs): a grid smaller than the SMs'
 * CTA slots uses min(ctas, SMs) SMs with ceil(ctas / SMs) CTAs on the busiest. */
static uint32_t sms_in_use(const pipe_desc *d, const pipe_params *p)
{
    uint32_t sms = p->sm_count >= 1 ? (uint32_t)p->sm_count : 1;
    return d->ctas < sms ? (d->ctas ? d->ctas : 1) : sms;
}

/* The sub-partitions that hold consumer warps, summed over the SMs in use: SM k holds
 * ceil or floor of ctas / SMs CTAs (at most ctas_per_sm), and a CTA's consumers fill the
 * 4 sub-partitions of its SM in turn. */
static double busy_subpartitions(const pipe_desc *d, const pipe_params *p)
{
    uint32_t sms = sms_in_use(d, p), per = d->ctas_per_sm ? d->ctas_per_sm : 1;
    uint32_t lo = d->ctas / sms, extra = d->ctas % sms;
    double total = 0;
    for (uint32_t k = 0; k < 2; k++) {
        uint32_t ctas = lo + k, n = k ? extra : sms - extra;
        if (ctas > per)
            ctas = per;
        uint32_t warps = d->consumer_warps * ctas;
        total += (double)n * (warps < 4 ? warps : 4);
    }
    return total;
}

void verdict_hw_evidence(const pipe_desc *d, const pipe_params *p, double kernel_ns, const verdict_counters *c,
                         double wait_data, double busy, verdict_evidence *out)
{
    const double t = kernel_ns > 0 ? kernel_ns : 1;
    const uint32_t sms = sms_in_use(d, p);
    out->hang = 0;
    out->dram_util = c->dram_bytes >= 0 ? c->dram_bytes / (t * p->hbm_bytes_per_ns) : -1;
    out->l2_util = c->l2_bytes >= 0 ? c->l2_bytes / (t * p->l2_bytes_per_ns) : -1;
    out->smem_util = c->smem_wavefronts >= 0 && c->sm_cycles > 0
                         ? c->smem_wavefronts * p->smem_cycles_per_wavefront / (c->sm_cycles * sms)
                         : -1;
    double warps = (double)d->ctas * d->consumer_warps * d->iterations;
    double pipe = warps * pipe_math_pipe_cycles(d, p);
    double smsp = busy_subpartitions(d, p);
    out->math_util = pipe / (t * pipe_plan_clock_ghz(d, p) * smsp);
    out->wait_data = wait_data;
    out->busy = busy;
    out->chain_util = -1;
}

verdict_kind verdict_decide_gemm(const verdict_evidence *ev)
{
    if (ev->hang)
        return VERDICT_HANG;
    double mem = ev->l2_util > ev->dram_util ? ev->l2_util : ev->dram_util;
    if (ev->chain_util > mem && ev->chain_util > ev->math_util)
        return VERDICT_LATENCY;
    return ev->math_util >= mem ? VERDICT_COMPUTE : VERDICT_MEMORY;
}

double verdict_gemm_chain_util(const pipe_desc *d, const pipe_params *p, double kernel_ns)
{
    double step = pipe_gemm_stage_ns(d, p), stages = 0;
    for (uint32_t c = 0; c < d->ctas; c++)
        stages += (double)pipe_gemm_cta_tiles(d, c) * d->gemm.k_iters;
    return d->ctas && kernel_ns > 0 ? stages * step / (kernel_ns * d->ctas) : 0;
}

void verdict_gemm_hw_evidence(const pipe_desc *d, const pipe_params *p, double kernel_ns, const verdict_counters *c,
                              double wait_data, verdict_evidence *out)
{
    verdict_hw_evidence(d, p, kernel_ns, c, wait_data, -1, out);
    const double t = kernel_ns > 0 ? kernel_ns : 1;
    const uint32_t sms = sms_in_use(d, p);
    if (c->tensor_cycles >= 0 && c->sm_cycles > 0) {
        out->math_util = c->tensor_cycles / (4.0 * c->sm_cycles * sms);
    } else {
        double instr = 0;
        for (uint32_t k = 0; k < d->ctas; k++)
            instr += (double)pipe_gemm_cta_tiles(d, k) * d->gemm.k_iters * d->gemm.consumer_groups *
                     pipe_gemm_instrs_per_stage(d);
        double cycles = instr * pipe_gemm_instr_cycles(d, p->wgmma_cycles_per_col);
        out->math_util = cycles / (t * pipe_plan_clock_ghz(d, p) * sms);
    }
    if (c->l2_read_bytes >= 0) {
        /* each operand's share of the bytes a CTA loads (a multicast slice for B) at L2's
         * rate for that operand's readers */
        double per_byte = 0, total = 0;
        for (uint32_t k = 0; k < 2; k++) {
            double b = d->multicast ? (double)d->tensors[k].tx_bytes / d->cluster : (double)d->tensors[k].tx_bytes;
            per_byte += b / pipe_l2_share_rate(p, pipe_gemm_readers(d, k ? WG_B : WG_A));
            total += b;
        }
        out->l2_util = total > 0 ? c->l2_read_bytes * per_byte / total / t : -1;
    }
    out->chain_util = verdict_gemm_chain_util(d, p, kernel_ns);
}
