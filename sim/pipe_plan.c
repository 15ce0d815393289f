/* pipe_plan: a derived description's plan (see pipe_plan.h). */
#include "pipe_plan.h"

#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "tm.h"
#include "wgmma.h"

uint32_t pipe_plan_slot_bytes(uint32_t footprint)
{
    return (footprint + PIPE_PLAN_SLOT_ALIGN - 1u) & ~(PIPE_PLAN_SLOT_ALIGN - 1u);
}

uint32_t pipe_plan_stage_stride(const pipe_desc *d)
{
    uint32_t stride = 0;
    for (uint32_t t = 0; t < d->ntensors; t++)
        stride += pipe_plan_slot_bytes(d->tensors[t].footprint_bytes);
    return stride;
}

uint32_t pipe_plan_stage_address(const pipe_desc *d, uint32_t stage, uint32_t tensor)
{
    uint32_t base = d->smem_base ? d->smem_base : PIPE_PLAN_SLOT_ALIGN;
    return base + stage * pipe_plan_stage_stride(d) + d->tensors[tensor].smem_offset;
}

trace_role pipe_plan_consumer_role(const pipe_desc *d)
{
    return pipe_desc_has_producer(d) ? TRACE_ROLE_CONSUMER : TRACE_ROLE_MIXED;
}

trace_role pipe_plan_role(const pipe_desc *d, uint32_t warp)
{
    return warp < d->producer_warps ? TRACE_ROLE_PRODUCER : pipe_plan_consumer_role(d);
}

int pipe_plan_copier(const pipe_desc *d, uint32_t rank)
{
    return d->mode == PIPE_CPASYNC || (d->mode == PIPE_MULTISTAGE && rank == 0);
}

int pipe_plan_chunk_copies(const pipe_desc *d)
{
    return d->mode == PIPE_CPASYNC || d->mode == PIPE_STASYNC;
}

typedef struct chunk_filter {
    pipe_plan_chunk_fn visit;
    void *user;
    uint32_t tensor, eb;
} chunk_filter;

static int chunk_start(const tm_element *el, void *user)
{
    chunk_filter *f = user;
    if ((el->idx[0] * f->eb) % 16)
        return 0;
    return el->oob ? 1 : f->visit(f->tensor, el, f->user);
}

int pipe_plan_chunks(const pipe_desc *d, uint32_t stage_base, pipe_plan_chunk_fn visit, void *user, err_info *e)
{
    chunk_filter f = {.visit = visit, .user = user};
    for (uint32_t t = 0; t < d->ntensors; t++) {
        tm_plan plan;
        tm_copy c = {.smem_address = stage_base + d->tensors[t].smem_offset};
        int rc = tm_plan_copy(&d->tensors[t].map, &c, &plan, e);
        if (rc)
            return rc;
        const tm_dtype_info *inf = tm_dtype_get(d->tensors[t].map.dtype);
        f.tensor = t;
        f.eb = inf && inf->bits >= 8 ? inf->bits / 8 : 1;
        tm_plan_foreach(&plan, chunk_start, &f);
    }
    return ERR_OK;
}

typedef struct chunk_walk {
    pipe_plan_trip *trips;
    uint64_t line[32];          /* the current trip's lines, as tensor << 56 | line */
    uint32_t in_trip, n, cap;
} chunk_walk;

/* A chunk of the walk: counts its line in the current trip unless a chunk before it touched
 * the same. */
static int chunk_step(uint32_t tensor, const tm_element *el, void *user)
{
    chunk_walk *w = user;
    if (w->in_trip == 32)
        w->in_trip = 0, w->n++;
    if (w->n >= w->cap)
        return 1;
    pipe_plan_trip *t = &w->trips[w->n];
    uint64_t key = (uint64_t)tensor << 56 | el->global_offset / 128u;
    uint32_t seen = 0;
    for (uint32_t k = 0; k < w->in_trip && !seen; k++)
        seen = w->line[k] == key;
    w->line[w->in_trip++] = key;
    t->lines += !seen;
    t->chunks[tensor]++;
    return 0;
}

int pipe_plan_copy_trips(const pipe_desc *d, pipe_plan_trip **out, uint32_t *n, err_info *e)
{
    chunk_walk w = {.cap = d->copy_bytes / 512u + 2u};
    w.trips = calloc(w.cap, sizeof *w.trips);
    if (!w.trips)
        return err_set(e, ERR_IO, "out_of_memory", "copy trips");
    int rc = pipe_plan_chunks(d, pipe_plan_stage_address(d, 0, 0) - d->tensors[0].smem_offset, chunk_step, &w, e);
    if (rc) {
        free(w.trips);
        return rc;
    }
    *out = w.trips;
    *n = w.in_trip ? w.n + 1 : w.n;
    return ERR_OK;
}

uint64_t pipe_plan_mma_instructions(const pipe_desc *d)
{
    return (d->math_amount + PIPE_MMA_FLOPS_PER_INSTR - 1u) / PIPE_MMA_FLOPS_PER_INSTR;
}

uint32_t pipe_plan_mma_chains(const pipe_desc *d)
{
    uint32_t threads = (d->producer_warps + d->consumer_warps) * 32u * (d->ctas_per_sm ? d->ctas_per_sm : 1u);
    uint32_t regs = threads ? 65536u / threads / 8u * 8u : 255u;
    return regs >= 64u ? 4u : 2u;
}

/* The GPU lowers its clock while the tensor pipe runs: 1.805 GHz under wgmma (tmahw
 * calibrate --only wgmma_load), and the corpus's mma.sync kernels ran at a median of
 * 1.81 GHz (profiler cycles over the timed launch's ns) where the others ran at 1.98; the
 * generated GEMMs, loading and storing beside the pipe, at their own measured clock, lower
 * with 8-bit operands. */
double pipe_plan_clock_ghz(const pipe_desc *d, const pipe_params *p)
{
    if (d->math == PIPE_MATH_WGMMA) {
        double g = wg_dtype_bytes((wg_dtype)d->wgmma.dtype) == 1 ? p->clock_gemm_fp8_ghz : p->clock_gemm_ghz;
        if (g > 0)
            return g;
    }
    int tensor = d->math == PIPE_MATH_MMA || d->math == PIPE_MATH_WGMMA;
    return tensor && p->clock_tensor_ghz > 0 ? p->clock_tensor_ghz : p->clock_ghz;
}

int pipe_plan_reads(const pipe_desc *d, pipe_plan_read **out, uint32_t *n, uint32_t *bad_instr, err_info *e)
{
    *out = NULL;
    *n = 0;
    *bad_instr = UINT32_MAX;
    const desc_tensor *ten = &d->tensors[d->reads_tensor];
    tm_plan plan;
    tm_copy c = {.smem_address = pipe_plan_stage_address(d, 0, d->reads_tensor)};
    if (tm_plan_copy(&ten->map, &c, &plan, e) != ERR_OK)
        return ERR_BAD_INPUT;
    access_layout lay = {.kind = ACCESS_LAYOUT_TMA, .plan = &plan};
    /* the generator's limit: a pattern needing more instructions is refused (access_max,
     * from the generator itself when asked for more than MAX_INSTR) */
    enum { MAX_INSTR = 1 << 16 };
    uint32_t count = 0;
    if (access_generate(&lay, &d->reads, NULL, 0, &count, e) != ERR_OK)
        return ERR_BAD_INPUT;
    uint32_t cap = count < MAX_INSTR ? count : MAX_INSTR;
    bank_instr *in = malloc(sizeof *in * (cap ? cap : 1));
    if (!in)
        return err_set(e, ERR_IO, "out_of_memory", "access generator buffer");
    int rc = access_generate(&lay, &d->reads, in, cap, &count, e);
    pipe_plan_read *r = rc == ERR_OK && count ? calloc(count, sizeof *r) : NULL;
    if (rc == ERR_OK && count && !r)
        rc = err_set(e, ERR_IO, "out_of_memory", "%u read instructions", count);
    for (uint32_t i = 0; rc == ERR_OK && i < count; i++) {
        bank_result br;
        if (bank_analyse_counts(&in[i], &br, e) != ERR_OK) {
            *bad_instr = i;
            rc = ERR_BAD_INPUT;
            break;
        }
        r[i].in = in[i];
        r[i].wavefronts = br.wavefronts;
        r[i].ideal = br.ideal;
        uint32_t lanes = in[i].active_mask ? (uint32_t)__builtin_popcount(in[i].active_mask) : 32u;
        uint32_t m = bank_op_matrices(in[i].op);
        r[i].bytes = m ? m * 128u : lanes * bank_op_access_bytes(in[i].op);
    }
    free(in);
    if (rc != ERR_OK) {
        free(r);
        return rc;
    }
    *out = r;
    *n = count;
    return ERR_OK;
}

int pipe_plan_build(const pipe_desc *d, pipe_plan *p, err_info *e)
{
    memset(p, 0, sizeof *p);
    if (d->copy_bytes == 0 || d->stages == 0)
        return err_set(e, ERR_BAD_INPUT, "desc_not_derived", "call pipe_desc_derive before pipe_plan_build");
    p->hash = pipe_plan_hash(d);
    p->nwarps = d->producer_warps + d->consumer_warps;
    p->stage_stride = pipe_plan_stage_stride(d);
    p->consumer_role = pipe_plan_consumer_role(d);
    for (uint32_t k = 0; k < p->nwarps && k < DESC_MAX_WARPS; k++) {
        pipe_plan_warp *w = &p->warp[k];
        w->role = (uint8_t)pipe_plan_role(d, k);
        if (k >= d->producer_warps) {
            w->is_consumer = 1;
            w->consumer_rank = (uint8_t)(k - d->producer_warps);
            w->copier = (uint8_t)pipe_plan_copier(d, w->consumer_rank);
        }
    }
    p->read_share = d->reads.warps ? d->reads.warps : 1;
    p->read_repeat = d->reads_repeat ? d->reads_repeat : 1;
    if (!d->reads_enabled)
        return ERR_OK;
    if (d->reads_tensor >= d->ntensors)
        return err_set(e, ERR_BAD_INPUT, "consumer.reads.tensor", "tensor %u of %u", d->reads_tensor, d->ntensors);
    uint32_t bad;
    return pipe_plan_reads(d, &p->reads, &p->nreads, &bad, e);
}

void pipe_plan_free(pipe_plan *p)
{
    free(p->reads);
    p->reads = NULL;
    p->nreads = 0;
}

/* ---------------------------------------------------------------- hash */
typedef struct fnv {
    uint64_t h;
} fnv;

static void mix(fnv *f, uint64_t v)
{
    for (int k = 0; k < 8; k++) {
        f->h ^= (v >> (8 * k)) & 0xffu;
        f->h *= 0x100000001b3ull;
    }
}

static void mix_double(fnv *f, double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    mix(f, bits);
}

static void mix_map(fnv *f, const tm_desc *m)
{
    mix(f, (uint64_t)m->dtype);
    mix(f, m->rank);
    mix(f, m->global_address);
    for (uint32_t k = 0; k < TM_MAX_RANK; k++) {
        mix(f, m->dims[k]);
        mix(f, k + 1 < TM_MAX_RANK ? m->strides[k] : 0);
        mix(f, m->box[k]);
        mix(f, m->elem_strides[k]);
    }
    mix(f, (uint64_t)m->interleave);
    mix(f, (uint64_t)m->swizzle);
    mix(f, (uint64_t)m->l2_promotion);
    mix(f, (uint64_t)m->oob_fill);
    mix(f, m->sm_version);
}

uint64_t pipe_plan_hash(const pipe_desc *d)
{
    fnv f = {.h = 0xcbf29ce484222325ull};
    const uint64_t head[] = {
        (uint64_t)d->mode, d->ctas, d->ctas_per_sm, d->cluster, (uint64_t)d->multicast, d->producer_warps,
        d->consumer_warps, d->stages, d->iterations, d->ntensors, d->smem_base, d->full_count, d->empty_count,
        d->expect_tx, d->release_lag, (uint64_t)d->never_release, (uint64_t)(int64_t)d->wait_parity_offset,
        (uint64_t)d->reads_enabled, d->reads_tensor, (uint64_t)d->reads.pattern, d->reads.bytes_per_lane,
        d->reads.warps, (uint64_t)d->reads.trans, (uint64_t)d->reads.store, d->reads_repeat, (uint64_t)d->math,
        d->math_amount, d->store_bytes, d->store_every, (uint64_t)d->store_reduce, (uint64_t)d->cpasync_groups,
        d->cpasync_wait_prior, (uint64_t)d->producer_waits_full,
    };
    for (size_t k = 0; k < sizeof head / sizeof head[0]; k++)
        mix(&f, head[k]);
    for (uint32_t t = 0; t < d->ntensors && t < DESC_MAX_TENSORS; t++) {
        mix_map(&f, &d->tensors[t].map);
        mix_double(&f, d->tensors[t].l2_hit);
    }
    return f.h;
}
