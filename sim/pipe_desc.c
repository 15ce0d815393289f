/* pipe_desc: names of the description's enums and the values derived from it. */
#include "desc.h"

#include <stdlib.h>
#include <string.h>

#include "bank.h"
#include "pipe_gemm.h"
#include "pipe_plan.h"
#include "pipe_rules.h"

static const char *const mode_names[PIPE_MODE_COUNT] = {"warp_specialized", "multistage", "cp_async", "st_async"};
static const char *const math_names[PIPE_MATH_COUNT] = {"none", "fma", "mma", "wgmma"};
static const char *const epilogue_names[PIPE_EPI_COUNT] = {"tma", "direct"};

const char *pipe_epilogue_name(pipe_epilogue p) { return (unsigned)p < PIPE_EPI_COUNT ? epilogue_names[p] : "unknown"; }

static const char *const reduce_names[PIPE_REDUCE_COUNT] = {"none", "add", "min", "max", "inc",
                                                            "dec", "and", "or", "xor"};

const char *pipe_reduce_name(pipe_reduce r)
{
    return (unsigned)r < PIPE_REDUCE_COUNT ? reduce_names[r] : "unknown";
}

int pipe_reduce_parse(const char *s, pipe_reduce *out, err_info *e)
{
    for (int i = 0; i < PIPE_REDUCE_COUNT; i++)
        if (strcmp(s, reduce_names[i]) == 0) {
            *out = (pipe_reduce)i;
            return ERR_OK;
        }
    return err_set(e, ERR_BAD_INPUT, "store.reduce", "'%s' (allowed none, add, min, max, inc, dec, and, or, xor)", s);
}

const char *pipe_mode_name(pipe_mode m)
{
    return (unsigned)m < PIPE_MODE_COUNT ? mode_names[m] : "unknown";
}

const char *pipe_math_name(pipe_math m)
{
    return (unsigned)m < PIPE_MATH_COUNT ? math_names[m] : "unknown";
}

int pipe_mode_parse(const char *s, pipe_mode *out, err_info *e)
{
    for (int i = 0; i < PIPE_MODE_COUNT; i++)
        if (strcmp(s, mode_names[i]) == 0) {
            *out = (pipe_mode)i;
            return ERR_OK;
        }
    return err_set(e, ERR_BAD_INPUT, "mode", "'%s' (allowed warp_specialized, multistage, cp_async, st_async)", s);
}

int pipe_desc_has_producer(const pipe_desc *d)
{
    return d->mode == PIPE_WARP_SPECIALIZED || d->mode == PIPE_STASYNC;
}

uint32_t pipe_desc_full_count(const pipe_desc *d)
{
    switch (d->mode) {
    case PIPE_CPASYNC:
        return d->consumer_warps;          /* one cp.async.mbarrier.arrive.noinc per warp */
    case PIPE_MULTISTAGE:
    case PIPE_WARP_SPECIALIZED:
    case PIPE_STASYNC:
    default:
        return 1;                          /* the producer's arrive.expect_tx; bytes do the rest */
    }
}

uint32_t pipe_desc_empty_count(const pipe_desc *d)
{
    /* Multicast writes every peer's stage, so a stage is free only when the consumers
     * of every CTA in the cluster released it (CUTLASS: consumers arrive on each peer). */
    uint32_t per_cta = d->consumer_warps;
    return d->multicast ? per_cta * d->cluster : per_cta;
}

int pipe_desc_derive(pipe_desc *d, err_info *e)
{
    const char *f = d->file[0] ? d->file : "description";
    if (d->ctas < 1 || d->ctas > 65535)
        return err_set(e, ERR_BAD_INPUT, "grid.ctas", "%s: field 'grid.ctas' = %u (allowed 1..65535)", f, d->ctas);
    if (d->ctas_per_sm < 1 || d->ctas_per_sm > 32)
        return err_set(e, ERR_BAD_INPUT, "grid.ctas_per_sm", "%s: field 'grid.ctas_per_sm' = %u (allowed 1..32)", f,
                       d->ctas_per_sm);
    if (d->cluster < 1 || d->cluster > 16 || (d->cluster & (d->cluster - 1)) || d->ctas % d->cluster)
        return err_set(e, ERR_BAD_INPUT, "cluster.size",
                       "%s: field 'cluster.size' = %u (allowed 1, 2, 4, 8, 16 dividing grid.ctas = %u)", f, d->cluster,
                       d->ctas);
    if (d->multicast && d->cluster < 2)
        return err_set(e, ERR_BAD_INPUT, "cluster.multicast", "%s: field 'cluster.multicast' needs cluster.size >= 2", f);
    if (d->mode == PIPE_STASYNC && d->cluster != 2)
        return err_set(e, ERR_BAD_INPUT, "cluster.size", "%s: field 'cluster.size' = %u (st_async needs 2: CTAs feed their peer)",
                       f, d->cluster);
    if (pipe_desc_has_producer(d) && d->producer_warps != 1)
        return err_set(e, ERR_BAD_INPUT, "warps.producer", "%s: field 'warps.producer' = %u (allowed 1 in mode %s)", f,
                       d->producer_warps, pipe_mode_name(d->mode));
    if (!pipe_desc_has_producer(d) && d->producer_warps != 0)
        return err_set(e, ERR_BAD_INPUT, "warps.producer",
                       "%s: field 'warps.producer' = %u (mode %s has no producer warp: the consumers copy)", f,
                       d->producer_warps, pipe_mode_name(d->mode));
    if (d->consumer_warps < 1 || d->producer_warps + d->consumer_warps > DESC_MAX_WARPS)
        return err_set(e, ERR_BAD_INPUT, "warps.consumer", "%s: field 'warps.consumer' = %u (allowed 1..%u)", f,
                       d->consumer_warps, DESC_MAX_WARPS - d->producer_warps);
    if (d->stages < 1 || d->stages > DESC_MAX_STAGES)
        return err_set(e, ERR_BAD_INPUT, "stages", "%s: field 'stages' = %u (allowed 1..%d)", f, d->stages, DESC_MAX_STAGES);
    if (!pipe_desc_has_producer(d) && d->stages < 2)
        return err_set(e, ERR_BAD_INPUT, "stages", "%s: field 'stages' = 1 (mode %s needs 2 or more)", f,
                       pipe_mode_name(d->mode));
    int grc = pipe_gemm_derive_shape(d, e);
    if (grc != ERR_OK)
        return grc;
    if (d->math == PIPE_MATH_WGMMA && !d->release_lag_given)
        d->release_lag = d->wgmma.wait;
    if (d->iterations < 1 || d->iterations > (1u << 24))
        return err_set(e, ERR_BAD_INPUT, "iterations", "%s: field 'iterations' = %u (allowed 1..16777216)", f,
                       d->iterations);
    if (d->ntensors < 1)
        return err_set(e, ERR_BAD_INPUT, "tensors", "%s: field 'tensors' is empty (at least one tensor map)", f);
    if (d->release_lag >= d->stages)
        return err_set(e, ERR_BAD_INPUT, "consumer.release_lag",
                       "%s: field 'consumer.release_lag' = %u (allowed 0..stages-1 = %u)", f, d->release_lag,
                       d->stages - 1);
    if ((d->mode == PIPE_MULTISTAGE || (d->mode == PIPE_CPASYNC && !d->cpasync_groups)) && d->release_lag)
        return err_set(e, ERR_BAD_INPUT, "consumer.release_lag",
                       "%s: field 'consumer.release_lag' = %u (mode %s: the copying warps refill the stage of "
                       "iteration i - 1 before consuming i, so it must be released at once: allowed 0)",
                       f, d->release_lag, pipe_mode_name(d->mode));
    if (d->smem_base == 0)
        d->smem_base = 1024;
    if (d->producer_waits_full && d->mode != PIPE_WARP_SPECIALIZED)
        return err_set(e, ERR_BAD_INPUT, "producer.waits_on",
                       "%s: field 'producer.waits_on' = full needs mode warp_specialized (mode is %s)", f,
                       pipe_mode_name(d->mode));
    if (d->cpasync_groups && d->mode != PIPE_CPASYNC)
        return err_set(e, ERR_BAD_INPUT, "cpasync.sync",
                       "%s: field 'cpasync.sync' = wait_prior needs mode cp_async (mode is %s)", f, pipe_mode_name(d->mode));
    if (d->cpasync_groups && !d->cpasync_wait_prior_given)
        d->cpasync_wait_prior = d->stages - 2;
    if (d->cpasync_groups && d->cpasync_wait_prior > d->stages)
        return err_set(e, ERR_BAD_INPUT, "cpasync.wait_prior", "%s: field 'cpasync.wait_prior' = %u (allowed 0..stages = %u)", f,
                       d->cpasync_wait_prior, d->stages);
    if ((unsigned)d->store_reduce >= PIPE_REDUCE_COUNT)
        return err_set(e, ERR_BAD_INPUT, "store.reduce", "%s: field 'store.reduce' = %d (allowed 0..%d)", f,
                       (int)d->store_reduce, PIPE_REDUCE_COUNT - 1);
    if (d->store_reduce != PIPE_REDUCE_NONE && !(d->store_bytes && d->store_every))
        return err_set(e, ERR_BAD_INPUT, "store.reduce",
                       "%s: field 'store.reduce' = %s needs store.bytes and store.every (the tile it reduces)", f,
                       pipe_reduce_name(d->store_reduce));

    uint32_t offset = 0, copy = 0;
    for (uint32_t t = 0; t < d->ntensors; t++) {
        desc_tensor *ten = &d->tensors[t];
        tm_plan plan;
        tm_copy c = {.smem_address = d->smem_base + offset};
        err_info te = {0};
        if (tm_plan_copy(&ten->map, &c, &plan, &te) != ERR_OK)
            return err_set(e, ERR_BAD_INPUT, "tensors", "%s: field 'tensors[%u]' (%s): %s: %s", f, t, ten->name, te.rule,
                           te.detail);
        ten->tx_bytes = plan.tx_bytes;
        ten->footprint_bytes = plan.footprint_bytes;
        ten->smem_offset = offset;
        offset += pipe_plan_slot_bytes(plan.footprint_bytes);
        copy += plan.tx_bytes;
    }
    uint64_t smem = (uint64_t)offset * d->stages + d->gemm.c_stage_bytes;
    if (smem > PIPE_SMEM_PER_BLOCK)
        return err_set(e, ERR_BAD_INPUT, "stages",
                       "%s: field 'stages' = %u needs %llu bytes of shared memory (227 KB per block on Hopper)", f,
                       d->stages, (unsigned long long)smem);
    d->copy_bytes = copy;
    grc = pipe_gemm_derive_descriptors(d, e);
    if (grc != ERR_OK)
        return grc;
    if (d->full_count == 0)
        d->full_count = pipe_desc_full_count(d);
    if (d->empty_count == 0)
        d->empty_count = pipe_desc_empty_count(d);
    if (d->expect_tx == 0 && d->mode != PIPE_CPASYNC)
        d->expect_tx = copy;

    d->read_instructions = 0;
    d->read_wavefronts = d->read_ideal_wavefronts = d->read_bytes = 0;
    if (d->reads_enabled) {
        if (d->reads_tensor >= d->ntensors)
            return err_set(e, ERR_BAD_INPUT, "consumer.reads.tensor", "%s: field 'consumer.reads.tensor' = %u (allowed 0..%u)",
                           f, d->reads_tensor, d->ntensors - 1);
        pipe_plan_read *in = NULL;
        uint32_t n = 0, bad = 0;
        err_info ae = {0};
        int rc = pipe_plan_reads(d, &in, &n, &bad, &ae);
        if (rc == ERR_IO)
            return err_set(e, ERR_IO, ae.rule, "%s", ae.detail);
        if (rc != ERR_OK && bad == UINT32_MAX)
            return err_set(e, ERR_BAD_INPUT, "consumer.reads", "%s: field 'consumer.reads': %s: %s", f, ae.rule, ae.detail);
        if (rc != ERR_OK)
            return err_set(e, ERR_BAD_INPUT, "consumer.reads", "%s: field 'consumer.reads': instruction %u: %s: %s", f, bad,
                           ae.rule, ae.detail);
        uint64_t wf = 0, ideal = 0, bytes = 0;
        for (uint32_t i = 0; i < n; i++) {
            wf += in[i].wavefronts;
            ideal += in[i].ideal;
            bytes += in[i].bytes;
        }
        free(in);
        uint32_t rep = d->reads_repeat ? d->reads_repeat : 1;
        /* Every consumer warp reads its share of the tile: the generator covers the whole tile
         * for `warps` warps, so one warp executes n / warps instructions. */
        uint32_t share = d->reads.warps ? d->reads.warps : 1;
        d->read_instructions = (uint32_t)((uint64_t)n * rep / share);
        d->read_wavefronts = wf * rep / share;
        d->read_ideal_wavefronts = ideal * rep / share;
        d->read_bytes = bytes * rep / share;
    }
    return pipe_rules_check(d, e);
}
