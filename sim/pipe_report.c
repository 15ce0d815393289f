/* pipe_report: what a finished run says in words. The deadlock chain (who waits on whom,
 * from the blocked warps and their barriers), the evidence the verdict is decided on, and
 * the verdict's sentence with its figures. */
#include <stdint.h>
#include <stdio.h>

#include "pipe_gemm.h"
#include "pipe_sim.h"

void explain_deadlock(sim *s)
{
    const pipe_desc *d = s->d;
    uint32_t per = d->producer_warps + d->consumer_warps;
    char *out = s->r->chain;
    size_t cap = sizeof s->r->chain, len = 0;
    uint32_t blocked = 0, first = UINT32_MAX;
    /* Start from the root cause when there is one: a barrier whose arrivals are all in
     * but whose tx-count never returns to zero. */
    uint32_t tx_stuck = UINT32_MAX;
    for (uint32_t wi = 0; wi < s->nw; wi++)
        if (s->w[wi].blocked) {
            const mbar *m = &s->bar[(size_t)s->w[wi].cta * s->nbar + s->w[wi].wait_bar];
            blocked++;
            if (first == UINT32_MAX)
                first = wi;
            if (tx_stuck == UINT32_MAX && m->pending == 0 && m->tx != 0)
                tx_stuck = wi;
        }
    if (tx_stuck != UINT32_MAX)
        first = tx_stuck;
    len += (size_t)snprintf(out + len, cap - len, "%u warp(s) blocked forever. ", blocked);
    uint8_t seen[DESC_MAX_WARPS] = {0};
    uint32_t wi = first;
    for (int hop = 0; hop < 6 && wi != UINT32_MAX && len < cap; hop++) {
        warp *w = &s->w[wi];
        if (seen[w->idx]) {
            len += (size_t)snprintf(out + len, cap - len, "-> back to warp %u: a cycle.", w->idx);
            break;
        }
        seen[w->idx] = 1;
        const mbar *m = &s->bar[(size_t)w->cta * s->nbar + w->wait_bar];
        int is_full = w->wait_bar < d->stages;
        len += (size_t)snprintf(out + len, cap - len,
                                "CTA %u warp %u (%s) waits %s[%u] phase %lld (iteration %u, parity %u): barrier at phase %u, "
                                "%d of %d arrivals missing, tx-count %d; ",
                                w->cta, w->idx, trace_role_name((trace_role)w->role), is_full ? "full" : "empty",
                                w->wait_bar % d->stages, (long long)w->wait_phase, w->wait_iter, w->wait_parity, m->phase,
                                m->pending, m->expected, m->tx);
        if (len >= cap)
            break;
        if (m->pending == 0 && m->tx != 0) {
            len += (size_t)snprintf(out + len, cap - len,
                                    "all arrivals are in but %d bytes %s (expect_tx %u vs %u bytes the copies deliver). ",
                                    m->tx < 0 ? -m->tx : m->tx, m->tx > 0 ? "never arrive" : "arrived beyond the expected",
                                    d->expect_tx, d->copy_bytes);
            break;
        }
        /* who arrives on this barrier */
        uint32_t next = UINT32_MAX;
        const char *who = is_full ? (d->mode == PIPE_CPASYNC ? "the copying warps" : "the producer")
                                  : "the consumer warps";
        uint32_t base = w->cta * per;
        for (uint32_t k = 0; k < per; k++) {
            warp *a = &s->w[base + k];
            int arrives = is_full ? (a->role == TRACE_ROLE_PRODUCER || a->copier) : a->is_consumer;
            if (!arrives || k == w->idx)
                continue;
            if (a->blocked) {
                next = base + k;
                break;
            }
        }
        if (!is_full && d->never_release) {
            len += (size_t)snprintf(out + len, cap - len, "the consumers never release a stage (consumer.release: false). ");
            break;
        }
        if (next == UINT32_MAX) {
            len += (size_t)snprintf(out + len, cap - len, "arrivals come from %s, which finished or arrived already%s. ",
                                    who,
                                    m->expected > 1 ? ": the init count exceeds the arrivals per phase" : "");
            break;
        }
        len += (size_t)snprintf(out + len, cap - len, "its arrivals come from %s: ", who);
        wi = next;
    }
}

/* The evidence the verdict is decided on, the same quantities a recording yields
 * (verdict_hw_evidence): bytes over bandwidth, port wavefronts over cycles, the math
 * priced at the pipe rates, and the consumers' waits and work. */
/* The share of the kernel the CTAs' producer threads spend on their chains of stages (one
 * thread's stages complete one after another). */
static double gemm_chain_util(const sim *s, const pipe_result *r)
{
    double t = (r->kernel_ns > 0 ? (double)r->kernel_ns : 1) * 1000.0;
    return s->d->ctas ? s->chain_busy / (t * s->d->ctas) : 0;
}

/* A wgmma GEMM's evidence: the tensor pipes' busy share of the SMs in use, L2's share of
 * its rate (every operand byte crosses it), DRAM's (the misses) and the producer threads'
 * chains of stages; the busiest is the bottleneck: compute for the tensor pipes, memory for
 * L2 or DRAM, latency for the producer (the consumers wait for stages that one thread's
 * copies deliver one after another while memory has room). */
static void gemm_evidence(const sim *s, pipe_result *r)
{
    const pipe_role_stats *cons = &r->role[pipe_plan_consumer_role(s->d)];
    double t = (r->kernel_ns > 0 ? (double)r->kernel_ns : 1) * 1000.0;
    uint32_t sms_used = s->d->ctas < s->sms ? s->d->ctas : s->sms;
    verdict_evidence *ev = &r->evidence;
    ev->math_util = s->tensor_busy / (t * sms_used);
    ev->l2_util = s->l2_busy / t;
    ev->dram_util = s->hbm_busy / t;
    ev->smem_util = s->port_busy / (t * sms_used);
    /* the leads carry their warpgroups: shares of the leads' time */
    double leads = (double)cons->warps / PIPE_WARPGROUP_WARPS * (double)r->kernel_ns;
    ev->wait_data = leads > 0 ? cons->wait_full_ns / leads : 0;
    ev->busy = leads > 0 ? (cons->issue_ns + cons->math_ns) / leads : 0;
    ev->hang = r->deadlock;
    r->math_util = ev->math_util;
    ev->chain_util = gemm_chain_util(s, r);
    r->verdict = verdict_decide_gemm(ev);
    r->bottleneck_kind = verdict_name(r->verdict);
}

static void gemm_sentence(const sim *s, pipe_result *r)
{
    const verdict_evidence *ev = &r->evidence;
    if (r->verdict == VERDICT_HANG) {
        snprintf(r->bottleneck, sizeof r->bottleneck, "hang: the pipeline deadlocks: warps wait forever (the deadlock "
                 "chain says who waits on whom).");
        return;
    }
    const char *lead = r->verdict == VERDICT_COMPUTE  ? "compute: the tensor pipes"
                       : r->verdict == VERDICT_MEMORY ? (ev->l2_util >= ev->dram_util ? "memory: L2" : "memory: DRAM")
                                                      : "latency: one producer thread's stages of copies, one after "
                                                        "another";
    snprintf(r->bottleneck, sizeof r->bottleneck,
             "%s; busy: producer chains %.0f%%, tensor pipes %.0f%% at %.3f GHz, L2 %.0f%% (at its rate for the "
             "operands' readers), DRAM %.0f%%; the consumers wait on full barriers %.0f%% of their time.",
             lead, 100 * gemm_chain_util(s, r), 100 * ev->math_util, 1000.0 / s->ps_per_cycle, 100 * ev->l2_util,
             100 * ev->dram_util, 100 * ev->wait_data);
}

void pipe_evidence(const sim *s, pipe_result *r)
{
    if (s->gemm) {
        gemm_evidence(s, r);
        return;
    }
    const pipe_desc *d = s->d;
    const pipe_params *p = s->p;
    const pipe_role_stats *cons = &r->role[pipe_plan_consumer_role(d)];
    double t = r->kernel_ns > 0 ? (double)r->kernel_ns : 1;
    /* shares of the consumers' lifetimes, as a recorded trace gives them (a CTA of a later
     * wave lives for part of the kernel) */
    double ctime = cons->life_ns > 0 ? cons->life_ns : (double)cons->warps * t;
    verdict_counters c = {.dram_bytes = s->dram_bytes, .l2_bytes = s->l2_bytes, .smem_wavefronts = -1, .sm_cycles = -1, .tensor_cycles = -1, .l2_read_bytes = -1};
    /* work as a recorded trace shows it: reads and math spans (issue steps are not spans there) */
    verdict_hw_evidence(d, p, t, &c, cons->wait_full_ns / ctime, (cons->read_ns + cons->math_ns) / ctime, &r->evidence);
    uint32_t sms_used = d->ctas < s->sms ? d->ctas : s->sms;
    r->evidence.smem_util = s->port_busy / (t * 1000.0 * sms_used);
    r->evidence.hang = r->deadlock;
    r->verdict = verdict_decide(&r->evidence);
    r->bottleneck_kind = verdict_name(r->verdict);
}

/* The verdict in one sentence, with the figures it rests on. */
void pipe_sentence(const sim *s, pipe_result *r)
{
    if (s->gemm) {
        gemm_sentence(s, r);
        return;
    }
    const pipe_desc *d = s->d;
    const verdict_evidence *ev = &r->evidence;
    const pipe_role_stats *cons = &r->role[pipe_plan_consumer_role(d)];
    double ctime = (double)cons->warps * (double)(r->kernel_ns ? r->kernel_ns : 1);
    const char *data_wait = d->cpasync_groups ? "on their cp.async groups" : "on full barriers";
    char *b = r->bottleneck;
    size_t n = sizeof r->bottleneck;
    switch (r->verdict) {
    case VERDICT_HANG:
        snprintf(b, n, "hang: the pipeline deadlocks: warps wait forever (the deadlock chain says who waits on whom).");
        break;
    case VERDICT_MEMORY:
        snprintf(b, n, "memory: DRAM moves bytes at %.0f%% and L2 at %.0f%% of their bandwidth; consumers wait %s "
                 "%.0f%% of their time.", 100 * ev->dram_util, 100 * ev->l2_util, data_wait, 100 * ev->wait_data);
        break;
    case VERDICT_SMEM:
        snprintf(b, n, "shared-memory port: busy %.0f%% of the kernel serving the consumers' reads (%.2fx the ideal "
                 "wavefronts); DRAM at %.0f%%.", 100 * ev->smem_util,
                 d->read_ideal_wavefronts ? (double)d->read_wavefronts / (double)d->read_ideal_wavefronts : 1.0,
                 100 * ev->dram_util);
        break;
    case VERDICT_COMPUTE:
        snprintf(b, n, "compute: consumers are busy %.0f%% of their time (math %.0f%%, shared-memory reads %.0f%%; "
                 "math pipes at %.0f%% of their peak) while DRAM is at %.0f%%.", 100 * ev->busy,
                 100 * cons->math_ns / ctime, 100 * cons->read_ns / ctime, 100 * ev->math_util, 100 * ev->dram_util);
        break;
    case VERDICT_LATENCY:
        snprintf(b, n, "latency: consumers wait %s %.0f%% of their time while DRAM is only at %.0f%% of its "
                 "bandwidth: %u stage(s) in flight do not cover the ~%.0f ns copy latency.", data_wait,
                 100 * ev->wait_data, 100 * ev->dram_util, d->stages, s->p->hbm_latency_ns);
        break;
    default:
        snprintf(b, n, "synchronization: consumers are busy only %.0f%% and wait on barriers %.0f%% (full) / %.0f%% "
                 "(empty); arrive and wake-up costs dominate.", 100 * ev->busy, 100 * ev->wait_data,
                 100 * cons->wait_empty_ns / ctime);
        break;
    }
}
