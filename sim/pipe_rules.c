#include "pipe_rules.h"

#include <stdlib.h>

#include "access.h"
#include "bank.h"
#include "tm.h"

#define FILE_OF(d) ((d)->file[0] ? (d)->file : "description")

uint32_t pipe_rules_stage_smem(const pipe_desc *d)
{
    uint32_t stage = pipe_plan_stage_stride(d);
    /* stage 0 sits at smem_base % 1024 inside a 1024-aligned block, after up to 1023 bytes
     * of alignment slack of the dynamic shared window */
    return stage * d->stages + d->gemm.c_stage_bytes + 1024u + d->smem_base % 1024u;
}

uint32_t pipe_rules_cta_smem_budget(const pipe_desc *d)
{
    uint32_t n = d->ctas_per_sm ? d->ctas_per_sm : 1;
    uint32_t share = PIPE_SMEM_PER_SM / n;
    uint32_t overhead = PIPE_SMEM_RESERVED_PER_BLOCK + PIPE_STATIC_SMEM_BYTES;
    uint32_t budget = share > overhead ? share - overhead : 0;
    budget &= ~127u;   /* shared memory is allocated in 128-byte units */
    return budget < PIPE_SMEM_PER_BLOCK ? budget : PIPE_SMEM_PER_BLOCK;
}

static uint32_t elem_bytes(const tm_desc *m)
{
    const tm_dtype_info *inf = tm_dtype_get(m->dtype);
    return inf && inf->bits >= 8 ? inf->bits / 8 : 1;
}

/* Residency: threads and shared memory (stages + the recording ring) of ctas_per_sm CTAs. */
static int check_residency(const pipe_desc *d, err_info *e)
{
    const char *f = FILE_OF(d);
    uint32_t warps = d->producer_warps + d->consumer_warps;
    if (d->ctas_per_sm * warps * 32u > PIPE_THREADS_PER_SM)
        return err_set(e, ERR_BAD_INPUT, "ctas_per_sm_threads",
                       "%s: field 'grid.ctas_per_sm' = %u: %u CTAs of %u warps are %u threads (an SM holds %u)", f,
                       d->ctas_per_sm, d->ctas_per_sm, warps, d->ctas_per_sm * warps * 32u, PIPE_THREADS_PER_SM);
    /* the GEMM kernel records into global memory: no ring */
    uint64_t ring = d->math == PIPE_MATH_WGMMA ? 0 : (uint64_t)warps * PIPE_RING_MIN_EVENTS * 16u;
    uint64_t need = (uint64_t)pipe_rules_stage_smem(d) + ring;
    uint32_t budget = pipe_rules_cta_smem_budget(d);
    if (need > budget)
        return err_set(e, ERR_BAD_INPUT, "shared_memory_per_cta",
                       "%s: field 'stages' = %u: a CTA needs %llu bytes of shared memory (stages with alignment and "
                       "the runner's event ring) and %u CTAs per SM leave each %u (228 KB per SM, 227 KB per block)",
                       f, d->stages, (unsigned long long)need, d->ctas_per_sm, budget);
    return ERR_OK;
}

typedef struct chunk_count {
    uint32_t eb, n;
    int oob;
} chunk_count;

static int count_chunk(const tm_element *el, void *user)
{
    chunk_count *c = user;
    if ((el->idx[0] * c->eb) % 16)
        return 0;
    if (el->oob) {
        c->oob = 1;
        return 1;
    }
    c->n++;
    return 0;
}

/* Per tensor: maps the runner encodes and tiles it loads. */
static int check_tensor(const pipe_desc *d, uint32_t t, uint32_t *chunks, err_info *e)
{
    const char *f = FILE_OF(d);
    const desc_tensor *ten = &d->tensors[t];
    if (ten->map.interleave != TM_INTERLEAVE_NONE)
        return err_set(e, ERR_BAD_INPUT, "pipe_interleaved_map",
                       "%s: field 'tensors[%u].interleave': pipelines load non-interleaved maps only", f, t);
    if (ten->map.rank > 3 && d->multicast)
        return err_set(e, ERR_BAD_INPUT, "multicast_rank", "%s: field 'tensors[%u]': multicast needs rank <= 3 (rank %u)",
                       f, t, ten->map.rank);
    for (uint32_t k = 0; k < ten->map.rank; k++)
        if (ten->map.dims[k] < ten->map.box[k])
            return err_set(e, ERR_BAD_INPUT, "tensor_smaller_than_box",
                           "%s: field 'tensors[%u].dims[%u]' = %llu is smaller than the box (%u): the CTAs load whole "
                           "boxes inside the tensor", f, t, k, (unsigned long long)ten->map.dims[k], ten->map.box[k]);
    tm_plan plan;
    tm_copy c = {.smem_address = d->smem_base + ten->smem_offset};
    if (tm_plan_copy(&ten->map, &c, &plan, e) != ERR_OK)
        return ERR_BAD_INPUT;
    if (d->multicast) {
        uint32_t outer = ten->map.box[ten->map.rank - 1];
        uint32_t rows_per_outer = outer ? plan.rows / outer : 0;
        if (outer % d->cluster || ((outer / d->cluster) * rows_per_outer * plan.row_pitch) % 128u)
            return err_set(e, ERR_BAD_INPUT, "multicast_slice",
                           "%s: field 'cluster.multicast': tensors[%u] box outer dimension %u does not split into %u "
                           "slices of 128-byte aligned rows", f, t, outer, d->cluster);
    }
    if (pipe_plan_chunk_copies(d)) {
        uint32_t eb = elem_bytes(&ten->map);
        if (ten->map.elem_strides[0] > 1 || (ten->map.box[0] * eb) % 16)
            return err_set(e, ERR_BAD_INPUT, "copy_rows_16_bytes",
                           "%s: field 'tensors[%u]': cp.async/st.async copies need elementStrides 1 and rows of a "
                           "multiple of 16 bytes (box[0] = %u x %u bytes)", f, t, ten->map.box[0], eb);
        chunk_count cc = {.eb = eb};
        tm_plan_foreach(&plan, count_chunk, &cc);
        if (cc.oob)
            return err_set(e, ERR_BAD_INPUT, "copy_box_outside",
                           "%s: field 'tensors[%u]': the box reaches outside the tensor (cp.async/st.async copy whole "
                           "16-byte chunks from inside it)", f, t);
        *chunks += cc.n;
    }
    return ERR_OK;
}

/* Whether the bytes [addr, addr + n) of the stage hold box data (not padding). */
static int box_bytes(const tm_plan *p, uint32_t addr, uint32_t n)
{
    tm_element el;
    uint32_t byte;
    for (uint32_t b = 0; b < n; b++)
        if (!tm_plan_element_at(p, addr + b, &el, &byte) || el.oob)
            return 0;
    return 1;
}

uint32_t pipe_rules_probe_chunks(const pipe_desc *d, uint32_t offsets[32])
{
    const desc_tensor *ten = &d->tensors[0];
    tm_plan plan;
    tm_copy c = {.smem_address = d->smem_base + ten->smem_offset};
    if (tm_plan_copy(&ten->map, &c, &plan, NULL) != ERR_OK)
        return 0;
    uint32_t n = 0;
    for (uint32_t off = 0; off + 16 <= ten->footprint_bytes && n < 32; off += 16)
        if (box_bytes(&plan, c.smem_address + off, 16))
            offsets[n++] = off;
    return n;
}

/* Every byte each lane of each instruction reads is box data: padding has no defined
 * value to check against. */
static int check_reads_in_box(const pipe_desc *d, const tm_plan *p, const bank_instr *in, uint32_t n, err_info *e)
{
    for (uint32_t k = 0; k < n; k++) {
        uint32_t m = bank_op_matrices(in[k].op), lanes = m ? 8 * m : 32;
        uint32_t width = m ? 16 : bank_op_access_bytes(in[k].op);
        uint32_t mask = in[k].active_mask ? in[k].active_mask : 0xffffffffu;
        for (uint32_t l = 0; l < lanes; l++)
            if ((mask >> l & 1u) && !box_bytes(p, in[k].addr[l], width))
                return err_set(e, ERR_BAD_INPUT, "reads_padding", "%s: field 'consumer.reads': instruction %u lane %u "
                               "reads shared bytes 0x%x..0x%x, padding of the box (a row narrower than the swizzle span): "
                               "its value is not defined", FILE_OF(d), k, l, in[k].addr[l], in[k].addr[l] + width - 1);
    }
    return ERR_OK;
}

/* The consumers' reads as the runner executes them: one instruction kind, the same
 * count in every warp, full warps (ldmatrix excepted), in registers, box bytes only. */
static int check_reads(const pipe_desc *d, err_info *e)
{
    const char *f = FILE_OF(d);
    if (!d->reads_enabled) {
        uint32_t off[32];
        if (pipe_rules_probe_chunks(d, off) < 32)
            return err_set(e, ERR_BAD_INPUT, "probe_box_512",
                           "%s: field 'tensors[0]': a box of %u bytes holds fewer than 32 chunks of 16 data bytes (a "
                           "consumer without reads still probes 32 of them for its checksum)", f, d->tensors[0].tx_bytes);
        return ERR_OK;
    }
    if (d->reads.store)
        return err_set(e, ERR_BAD_INPUT, "reads_store", "%s: field 'consumer.reads': store patterns are not run "
                       "(allowed: loads rows, cols, ldsm-a, ldsm-b)", f);
    const desc_tensor *ten = &d->tensors[d->reads_tensor];
    tm_plan plan;
    tm_copy c = {.smem_address = d->smem_base + ten->smem_offset};
    if (tm_plan_copy(&ten->map, &c, &plan, e) != ERR_OK)
        return ERR_BAD_INPUT;
    access_layout lay = {.kind = ACCESS_LAYOUT_TMA, .plan = &plan};
    uint32_t n = 0, share = d->reads.warps ? d->reads.warps : 1;
    /* one generation, into room for every count the checks below accept */
    uint32_t room = PIPE_READS_MAX_PER_WARP * share;
    bank_instr *in = malloc(sizeof *in * room);
    if (!in)
        return err_set(e, ERR_IO, "out_of_memory", "access generator buffer");
    err_info ae = {0};
    int rc = access_generate(&lay, &d->reads, in, room, &n, &ae);
    if (n > room)   /* past the room the generator still counts (access_max): the checks below name the count */
        rc = ERR_OK;
    if (rc != ERR_OK || n == 0)
        rc = err_set(e, ERR_BAD_INPUT, "consumer.reads", "%s: field 'consumer.reads': %s: %s", f, ae.rule, ae.detail);
    else if (n % share)
        rc = err_set(e, ERR_BAD_INPUT, "reads_split", "%s: field 'consumer.reads': %u instructions do not split evenly "
                     "over %u warps (every warp runs the same count)", f, n, share);
    else if (n / share > PIPE_READS_MAX_PER_WARP)
        rc = err_set(e, ERR_BAD_INPUT, "reads_per_warp", "%s: field 'consumer.reads': %u instructions per warp (at "
                     "most %u are kept in registers; use a wider bytes_per_lane or warps: 4)", f, n / share,
                     PIPE_READS_MAX_PER_WARP);
    for (uint32_t k = 0; rc == ERR_OK && k < n; k++) {
        uint32_t mask = in[k].active_mask ? in[k].active_mask : 0xffffffffu;
        if (in[k].op != in[0].op || in[k].trans != in[0].trans)
            rc = err_set(e, ERR_BAD_INPUT, "reads_mixed", "%s: field 'consumer.reads': mixed instruction kinds", f);
        else if (mask != 0xffffffffu && !bank_op_matrices(in[k].op))
            rc = err_set(e, ERR_BAD_INPUT, "reads_partial_warp", "%s: field 'consumer.reads': instruction %u has inactive "
                         "lanes (the tile is not a whole number of 32-lane loads)", f, k);
    }
    if (rc == ERR_OK)
        rc = check_reads_in_box(d, &plan, in, n, e);
    free(in);
    return rc;
}

static int check_store(const pipe_desc *d, err_info *e)
{
    const char *f = FILE_OF(d);
    if (!d->store_bytes || !d->store_every)
        return ERR_OK;
    const desc_tensor *t0 = &d->tensors[0];
    if (t0->map.rank != 2 || d->store_bytes != t0->tx_bytes)
        return err_set(e, ERR_BAD_INPUT, "store_is_box", "%s: field 'store.bytes' = %u: the store writes tensor 0's box "
                       "(rank 2, %u bytes)", f, d->store_bytes, t0->tx_bytes);
    if (d->mode != PIPE_WARP_SPECIALIZED && d->mode != PIPE_MULTISTAGE)
        return err_set(e, ERR_BAD_INPUT, "store_mode", "%s: field 'store': TMA stores run in modes warp_specialized and "
                       "multistage (mode is %s)", f, pipe_mode_name(d->mode));
    if (d->store_reduce != PIPE_REDUCE_NONE && d->store_reduce != PIPE_REDUCE_ADD)
        return err_set(e, ERR_BAD_INPUT, "store_reduce_op", "%s: field 'store.reduce' = %s: the runner checks add "
                       "reductions against its host reference (allowed none, add)", f, pipe_reduce_name(d->store_reduce));
    /* cp.reduce.async.bulk.tensor .add takes these element types (PTX ISA); another type
     * is an illegal instruction on the GPU (seen on an H100 and an H200 with u8) */
    static const tm_dtype add_types[] = {TM_DTYPE_U32, TM_DTYPE_S32, TM_DTYPE_U64, TM_DTYPE_F16,
                                         TM_DTYPE_F32, TM_DTYPE_BF16};
    int ok = d->store_reduce == PIPE_REDUCE_NONE;
    for (size_t k = 0; k < sizeof add_types / sizeof add_types[0]; k++)
        ok |= t0->map.dtype == add_types[k];
    if (!ok)
        return err_set(e, ERR_BAD_INPUT, "store_reduce_dtype", "%s: field 'store.reduce' = add on tensors[0] of %s "
                       "(allowed u32, s32, u64, f16, bf16, f32)", f, tm_dtype_get(t0->map.dtype)->name);
    return ERR_OK;
}

int pipe_rules_check(const pipe_desc *d, err_info *e)
{
    uint32_t chunks = 0;
    for (uint32_t t = 0; t < d->ntensors; t++) {
        int rc = check_tensor(d, t, &chunks, e);
        if (rc)
            return rc;
    }
    if (pipe_plan_chunk_copies(d) && chunks * 16u != d->copy_bytes)
        return err_set(e, ERR_BAD_INPUT, "copy_chunks", "%s: field 'tensors': %u chunks of 16 bytes for %u copy bytes "
                       "(cp.async/st.async copy every byte of the stage in 16-byte chunks)", FILE_OF(d), chunks,
                       d->copy_bytes);
    int rc = check_residency(d, e);
    if (!rc && d->math == PIPE_MATH_WGMMA && (d->reads_enabled || d->store_bytes))
        rc = err_set(e, ERR_BAD_INPUT, "gemm_reads_store",
                     "%s: field 'consumer.reads' / 'store': math kind wgmma reads the stage with its descriptors and "
                     "stores C in its epilogue (gemm.epilogue)", FILE_OF(d));
    if (!rc)
        rc = check_reads(d, e);
    if (!rc)
        rc = check_store(d, e);
    return rc;
}
