#include "view_bank.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "pipe_plan.h"

/* Lanes of ldmatrix/stmatrix past the op's matrices give no address (bank.h). */
static int lane_takes_part(const bank_instr *in, uint32_t lane)
{
    uint32_t mask = in->active_mask ? in->active_mask : 0xffffffffu;
    uint32_t m = bank_op_matrices(in->op);
    return (mask >> lane & 1u) && (m == 0 || lane < 8u * m);
}

/* The consumer's place among the warps that share the generated reads. */
static int warp_slot(const pipe_desc *d, const trace_event *ev, uint32_t warps, uint32_t *slot, err_info *e)
{
    uint32_t idx;
    if (ev->role == TRACE_ROLE_CONSUMER) {
        if (ev->warp < d->producer_warps)
            return err_set(e, ERR_BAD_INPUT, "warp", "warp %u is a producer in '%s' (%u producer warps)", ev->warp,
                           d->name, d->producer_warps);
        idx = ev->warp - d->producer_warps;
    } else if (ev->role == TRACE_ROLE_MIXED) {
        idx = ev->warp;
    } else {
        return err_set(e, ERR_BAD_INPUT, "role", "a %s warp does not read stages (consumer or mixed do)",
                       trace_role_name((trace_role)ev->role));
    }
    if (idx >= d->consumer_warps)
        return err_set(e, ERR_BAD_INPUT, "warp", "warp %u is past the %u reading warps of '%s'", ev->warp,
                       d->consumer_warps, d->name);
    *slot = idx % warps;
    return ERR_OK;
}

int view_bank_build(const pipe_desc *d, const trace_event *ev, uint32_t instr, view_bank *out, err_info *e)
{
    memset(out, 0, sizeof *out);
    if (ev->kind != TRACE_SMEM_READ)
        return err_set(e, ERR_BAD_INPUT, "kind", "%s is not a shared-memory read (smem_read)",
                       trace_kind_name((trace_kind)ev->kind));
    if (!d->reads_enabled)
        return err_set(e, ERR_BAD_INPUT, "consumer.reads", "description '%s' has no consumer reads", d->name);
    if (ev->stage >= d->stages)
        return err_set(e, ERR_BAD_INPUT, "stage", "stage %u is past the %u stages of '%s'", ev->stage, d->stages,
                       d->name);
    if (d->reads_tensor >= d->ntensors)
        return err_set(e, ERR_BAD_INPUT, "consumer.reads.tensor", "tensor %u of %u", d->reads_tensor, d->ntensors);
    pipe_plan plan;
    int rc = pipe_plan_build(d, &plan, e);
    if (rc) return rc;
    uint32_t warps = plan.read_share, n = plan.nreads;
    rc = warp_slot(d, ev, warps, &out->warp_slot, e);
    if (!rc && n == 0) rc = err_set(e, ERR_BAD_INPUT, "consumer.reads", "the access pattern generates no instruction");
    uint32_t mine = out->warp_slot < n ? (n - out->warp_slot + warps - 1) / warps : 0;
    if (!rc && mine == 0) rc = err_set(e, ERR_BAD_INPUT, "warp", "warp slot %u gets no instruction", out->warp_slot);
    if (rc) {
        pipe_plan_free(&plan);
        return rc;
    }
    out->repeat = plan.read_repeat;
    for (uint32_t k = 0; k < mine; k++) {
        out->warp_wavefronts += plan.reads[out->warp_slot + k * warps].wavefronts;
        out->warp_ideal += plan.reads[out->warp_slot + k * warps].ideal;
    }
    out->warp_wavefronts *= out->repeat;
    out->warp_ideal *= out->repeat;
    if (instr >= mine) instr = mine - 1;
    /* the plan's reads are stage 0's; a stage lies a whole number of swizzle atoms
     * further on, so only the addresses move */
    out->in = plan.reads[out->warp_slot + instr * warps].in;
    pipe_plan_free(&plan);
    uint32_t shift = ev->stage * plan.stage_stride;
    for (uint32_t l = 0; l < BANK_LANES; l++)
        if (lane_takes_part(&out->in, l)) out->in.addr[l] += shift;
    uint32_t tile_address = pipe_plan_stage_address(d, ev->stage, d->reads_tensor);
    const desc_tensor *ten = &d->tensors[d->reads_tensor];
    rc = bank_analyse(&out->in, &out->res, e);
    if (rc) return rc;

    out->stage = ev->stage;
    out->tensor = d->reads_tensor;
    out->tile_address = tile_address;
    out->warps = warps;
    out->instr = instr;
    out->warp_instrs = mine;
    out->rows = out->res.nwavefronts < VIEW_BANK_MAX_ROWS ? out->res.nwavefronts : VIEW_BANK_MAX_ROWS;
    uint32_t bytes = bank_op_access_bytes(out->in.op);
    /* words[b]: the distinct 4-byte words of bank b, at most one per lane-bank pair */
    uint32_t words[BANK_COUNT][BANK_LANES * 4];
    for (uint32_t l = 0; l < BANK_LANES; l++) {
        out->lane_wavefront[l] = UINT32_MAX;
        if (!lane_takes_part(&out->in, l)) continue;
        for (uint32_t w = 0; w < out->res.nwavefronts; w++)
            if (out->res.wf[w].lanes >> l & 1u) {
                out->lane_wavefront[l] = w;
                break;
            }
        for (uint32_t k = 0; k < bytes / BANK_WIDTH; k++) {
            uint32_t word = out->in.addr[l] / BANK_WIDTH + k, b = word % BANK_COUNT;
            out->bank_lanes[b] |= 1u << l;
            uint32_t j = 0;
            while (j < out->bank_words[b] && words[b][j] != word) j++;
            if (j == out->bank_words[b]) words[b][out->bank_words[b]++] = word;
            uint32_t w = out->lane_wavefront[l];
            if (w < out->rows) out->grid[w][b] |= 1u << l;
        }
    }
    out->bytes_mismatch = d->read_bytes && ev->bytes != d->read_bytes;
    snprintf(out->caption, sizeof out->caption, "%.31s %s %u B/lane, stage %u @0x%x: instr %u of %u",
             ten->name, access_pattern_name(d->reads.pattern), d->reads.bytes_per_lane ? d->reads.bytes_per_lane : 16,
             ev->stage, tile_address, instr + 1, mine);
    snprintf(out->summary, sizeof out->summary, "%s: %u wavefronts (ideal %u), %u conflicts", bank_op_name(out->in.op),
             out->res.wavefronts, out->res.ideal, out->res.conflicts);
    return ERR_OK;
}
