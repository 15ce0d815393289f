/* run_gen: description -> NVRTC source (see run_gen.h). */
#include "run_gen.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipe_plan.h"
#include "pipe_rules.h"

typedef struct sbuf {
    char *p;
    size_t n, cap;
    int oom;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = b->cap - b->n;
        int k = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? room : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            b->oom = 1;
            return;
        }
        if (b->p && (size_t)k < room) {
            b->n += (size_t)k;
            return;
        }
        size_t cap = b->cap ? b->cap * 2 : 1 << 16;
        while (cap < b->n + (size_t)k + 1)
            cap *= 2;
        char *q = realloc(b->p, cap);
        if (!q) {
            b->oom = 1;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
}

static uint32_t elem_bytes(const tm_desc *m)
{
    const tm_dtype_info *inf = tm_dtype_get(m->dtype);
    return inf && inf->bits >= 8 ? inf->bits / 8 : 1;
}

uint32_t run_gen_tile_id(const pipe_desc *d, uint32_t cta, uint32_t iteration)
{
    if (d->multicast && (d->mode == PIPE_WARP_SPECIALIZED || d->mode == PIPE_MULTISTAGE))
        return cta / d->cluster + iteration * (d->ctas / d->cluster);
    return cta + iteration * d->ctas;
}

void run_gen_tile_coords(const pipe_desc *d, const run_gen_info *g, uint32_t t, uint32_t id, int32_t coords[TM_MAX_RANK])
{
    id %= g->ntiles[t];
    for (uint32_t k = 0; k < TM_MAX_RANK; k++) {
        uint32_t n = g->tiles_per_dim[t][k] ? g->tiles_per_dim[t][k] : 1;
        coords[k] = k < d->tensors[t].map.rank ? (int32_t)((id % n) * d->tensors[t].map.box[k]) : 0;
        id /= n;
    }
}

/* The plan of tensor t's box in stage 0 at tile coordinates 0. */
static int plan_of(const pipe_desc *d, uint32_t t, tm_plan *plan, err_info *e)
{
    tm_copy c = {.smem_address = d->smem_base + d->tensors[t].smem_offset};
    return tm_plan_copy(&d->tensors[t].map, &c, plan, e);
}

typedef struct chunk_ctx {
    run_gen_info *g;
    uint32_t stage_base, n, cap;
} chunk_ctx;

static int chunk_visit(uint32_t tensor, const tm_element *el, void *user)
{
    chunk_ctx *c = user;
    if (c->n >= c->cap)   /* pipe_rules_check refused it */
        return 1;
    c->g->cp_tab[c->n][0] = tensor;
    c->g->cp_tab[c->n][1] = el->smem_address - c->stage_base;
    c->g->cp_tab[c->n][2] = (uint32_t)el->global_offset;
    c->n++;
    return 0;
}

/* Instruction q shares the base of an earlier instruction p when their offsets differ by
 * one constant over every lane of every sharing warp: the kernel then keeps one register
 * per lane pattern (a swizzle period holds at most 8) and the rest are immediates, as a
 * hand-written kernel addresses a tile, instead of one register per instruction (which
 * spilled, or was reloaded from global memory, at the register caps of several CTAs). */
static int read_classes(run_gen_info *g, err_info *e)
{
    const uint32_t n = g->rd_n, S = g->rd_share;
    g->rd_cls = malloc(sizeof *g->rd_cls * n);
    g->rd_d = malloc(sizeof *g->rd_d * n);
    if (!g->rd_cls || !g->rd_d)
        return err_set(e, ERR_IO, "out_of_memory", "read table");
    const uint32_t *t = g->rd_tab;
    g->rd_k = 0;
    for (uint32_t q = 0; q < n; q++) {
        uint32_t p = 0;
        for (; p < q; p++) {
            if (g->rd_cls[p] != p)
                continue; /* compare with the first instruction of each class only */
            const uint32_t dq = t[q * 32] - t[p * 32];
            int same = 1;
            for (uint32_t w = 0; w < S && same; w++)
                for (uint32_t l = 0; l < 32 && same; l++)
                    same = t[(w * n + q) * 32 + l] - t[(w * n + p) * 32 + l] == dq;
            if (same)
                break;
        }
        g->rd_cls[q] = p;
        g->rd_d[q] = t[q * 32] - t[p * 32];
    }
    /* first instructions to base numbers, in order of first use (rd_cls[q] <= q) */
    for (uint32_t q = 0; q < n; q++)
        g->rd_cls[q] = g->rd_cls[q] == q ? g->rd_k++ : g->rd_cls[g->rd_cls[q]];
    return ERR_OK;
}

/* The consumers' read table (pipe_rules_check has checked that the instructions are of
 * one kind, split evenly over the sharing warps and fit in registers). */
static int prepare_reads(const pipe_desc *d, run_gen_info *g, err_info *e)
{
    g->rd_probe = !d->reads_enabled;
    g->rd_tensor = d->reads_enabled ? d->reads_tensor : 0;
    g->rd_repeat = d->reads_enabled && d->reads_repeat ? d->reads_repeat : 1;
    if (g->rd_probe) {
        /* one 128-bit load per lane: the first 32 chunks of tensor 0 that hold box data */
        g->rd_op = BANK_OP_LDS128;
        g->rd_share = 1;
        g->rd_n = 1;
        g->rd_tab = malloc(32 * sizeof *g->rd_tab);
        if (!g->rd_tab)
            return err_set(e, ERR_IO, "out_of_memory", "read table");
        if (pipe_rules_probe_chunks(d, g->rd_tab) < 32)
            return err_set(e, ERR_BAD_INPUT, "probe_box_512", "tensors[0]: fewer than 32 chunks of box data");
        return read_classes(g, e);
    }
    pipe_plan_read *in = NULL;
    uint32_t n = 0, bad;
    int rc = pipe_plan_reads(d, &in, &n, &bad, e);
    if (rc != ERR_OK || n == 0) {
        free(in);
        return rc == ERR_IO ? rc : ERR_BAD_INPUT;
    }
    g->rd_share = d->reads.warps ? d->reads.warps : 1;
    g->rd_n = n / g->rd_share;
    g->rd_tab = malloc(sizeof *g->rd_tab * 32 * n);
    if (!g->rd_tab) {
        free(in);
        return err_set(e, ERR_IO, "out_of_memory", "read table");
    }
    g->rd_op = in[0].in.op;
    g->rd_trans = in[0].in.trans;
    const uint32_t tbase = pipe_plan_stage_address(d, 0, g->rd_tensor);
    uint32_t used = bank_op_matrices(g->rd_op) ? 8 * bank_op_matrices(g->rd_op) : 32;
    /* instruction k belongs to warp k % share (access.c hands passes to warps in turn) */
    for (uint32_t k = 0; k < n; k++) {
        uint32_t chunk = k % g->rd_share, q = k / g->rd_share;
        for (uint32_t l = 0; l < 32; l++) {
            /* lanes an ldmatrix ignores repeat lane 0's row (a valid address) */
            uint32_t a = l < used ? in[k].in.addr[l] : in[k].in.addr[0];
            g->rd_tab[(chunk * g->rd_n + q) * 32 + l] = a - tbase;
        }
    }
    free(in);
    return read_classes(g, e);
}

/* Bytes between the end of the stages and a ring of `ring` events per warp aligned to
 * half a ring (hw/record.cuh): the stages end at smem_pad modulo 1024 in the kernel's
 * 1024-aligned block; a half ring over 1024 bytes may need up to itself. */
static uint32_t ring_slack(const run_gen_info *g, uint32_t ring)
{
    uint32_t half = ring * 8u;
    return half <= 1024u ? (half - g->smem_pad % half) % half : half;
}

/* The most records a warp of the generated kernel writes per iteration (run_kernel.cuh): a
 * producer's wait and its stage's record (st.async: the expect_tx and the copies' flight
 * apart); a consumer's wait, its consumed stage, a store and a release per cluster rank
 * (every iteration is released once, in the loop or after it); with commit groups the
 * step (its waits and issue, one record), a prologue issue and the consumed stage. Where
 * the same warps copy and consume (multistage's copier, cp.async) a warp writes both. */
static uint32_t records_per_iteration(const pipe_desc *d)
{
    const uint32_t store = d->store_every ? 1u : 0u;
    const uint32_t rel = d->never_release ? 0u : d->multicast ? d->cluster : 1u;
    if (d->cpasync_groups)   /* the prologue's issues are at most one per iteration too */
        return 3u + store;
    const uint32_t prod = d->mode == PIPE_STASYNC ? 3u : 2u, cons = 2u + store + rel;
    if (pipe_desc_has_producer(d))
        return prod > cons ? prod : cons;
    return prod + cons;
}

/* The event ring: a power of two of events per warp, in the CTA's share of the SM's
 * shared memory after the stages. The CTA requests its whole share, so that exactly
 * ctas_per_sm CTAs are resident on an SM, and both kernel variants request the same. A
 * ring larger than ev_cap holds every event of the warp (no per-event check). */
static int prepare_ring(const pipe_desc *d, run_gen_info *g, err_info *e)
{
    uint64_t cap = (uint64_t)d->iterations * records_per_iteration(d) + 16u;
    g->ev_cap = (uint32_t)(cap > (1u << 26) ? (1u << 26) : cap);
    uint32_t budget = pipe_rules_cta_smem_budget(d);
    uint64_t left = budget - g->dyn_smem_bytes, ring = PIPE_RING_MIN_EVENTS;
    if ((uint64_t)g->nwarps * ring * 16u + ring_slack(g, (uint32_t)ring) > left)
        return err_set(e, ERR_BAD_INPUT, "shared_memory_per_cta",
                       "%s: a CTA's share of shared memory leaves %llu bytes after the stages; the recording rings "
                       "(%u warps x %llu events of 16 bytes, aligned to half a ring) need %llu",
                       d->file[0] ? d->file : d->name, (unsigned long long)left, g->nwarps, (unsigned long long)ring,
                       (unsigned long long)(g->nwarps * ring * 16u + ring_slack(g, (uint32_t)ring)));
    while ((uint64_t)g->nwarps * ring * 32u + ring_slack(g, (uint32_t)ring * 2u) <= left && ring <= g->ev_cap)
        ring *= 2u;
    g->ring = (uint32_t)ring;
    g->ring_holds_all = g->ring > g->ev_cap;
    g->dyn_smem_bytes = budget;
    return ERR_OK;
}

int run_gen_prepare(const pipe_desc *d, run_gen_info *g, err_info *e)
{
    memset(g, 0, sizeof *g);
    if (d->copy_bytes == 0)
        return err_set(e, ERR_BAD_INPUT, "desc_not_derived", "call pipe_desc_derive before run_gen_prepare");
    /* pipe_desc_derive ran pipe_rules_check: what follows only builds tables */
    g->nwarps = d->producer_warps + d->consumer_warps;
    g->smem_pad = d->smem_base % 1024u;
    for (uint32_t t = 0; t < d->ntensors; t++) {
        const desc_tensor *ten = &d->tensors[t];
        uint32_t n = 1;
        for (uint32_t k = 0; k < ten->map.rank; k++) {
            uint32_t per = (uint32_t)(ten->map.dims[k] / ten->map.box[k]);
            g->tiles_per_dim[t][k] = per;
            n = n * per > (1u << 30) ? (1u << 30) : n * per;
        }
        g->ntiles[t] = n;
        if (d->multicast) {
            tm_plan plan;
            int rc = plan_of(d, t, &plan, e);
            if (rc)
                return rc;
            uint32_t outer = ten->map.box[ten->map.rank - 1];
            g->slice_rows[t] = outer / d->cluster;
            g->slice_smem[t] = g->slice_rows[t] * (plan.rows / outer) * plan.row_pitch;
        }
    }
    g->stage_bytes = pipe_plan_stage_stride(d);
    g->dyn_smem_bytes = pipe_rules_stage_smem(d);
    int rc = prepare_ring(d, g, e);
    if (rc)
        return rc;
    rc = prepare_reads(d, g, e);
    if (rc)
        return rc;

    if (pipe_plan_chunk_copies(d)) {
        uint32_t cap_chunks = d->copy_bytes / 16 + 16;
        g->cp_tab = malloc(sizeof *g->cp_tab * cap_chunks);
        if (!g->cp_tab)
            return err_set(e, ERR_IO, "out_of_memory", "copy table");
        chunk_ctx c = {.g = g, .cap = cap_chunks, .stage_base = d->smem_base};
        rc = pipe_plan_chunks(d, d->smem_base, chunk_visit, &c, e);
        if (rc)
            return rc;
        g->cp_chunks = c.n;
    }
    if (d->store_bytes && d->store_every) {
        g->stores_per_cta = d->iterations / d->store_every;
        g->store_rows = d->tensors[0].map.box[1];
    }
    return ERR_OK;
}

void run_gen_free(run_gen_info *g)
{
    free(g->rd_tab);
    free(g->rd_cls);
    free(g->rd_d);
    free(g->cp_tab);
    g->rd_tab = NULL;
    g->rd_cls = NULL;
    g->rd_d = NULL;
    g->cp_tab = NULL;
}

static void table_u32(sbuf *b, const char *decl, const uint32_t *v, size_t n)
{
    sb_printf(b, "%s = {", decl);
    for (size_t i = 0; i < n; i++)
        sb_printf(b, "%s%s%u", i ? "," : "", i % 16 == 0 ? "\n  " : "", v[i]);
    sb_printf(b, "};\n");
}

/* The read bases (per-lane table in global memory, lanes read consecutive words; loaded
 * once per warp) and the unrolled read list: X(q, base, constant) per instruction. */
static void emit_reads(sbuf *b, const run_gen_info *g)
{
    const uint32_t n = g->rd_n, K = g->rd_k, S = g->rd_share;
    sb_printf(b, "#define RD_K %u\n__device__ const u32 RD_TAB[%u] = {", K, 32 * S * K);
    uint32_t i = 0;
    for (uint32_t w = 0; w < S; w++)
        for (uint32_t k = 0; k < K; k++) {
            uint32_t q = 0;
            while (g->rd_cls[q] != k)
                q++;
            /* the class's first instruction (its constant is 0) */
            const uint32_t *row = g->rd_tab + (size_t)(w * n + q) * 32;
            for (uint32_t l = 0; l < 32; l++, i++)
                sb_printf(b, "%s%s%u", i ? "," : "", i % 16 == 0 ? "\n  " : "", row[l]);
        }
    sb_printf(b, "};\n#define RD_LIST(X)");
    for (uint32_t q = 0; q < n; q++)
        sb_printf(b, " X(%u, %u, %uu)", q, g->rd_cls[q], g->rd_d[q]);
    sb_printf(b, "\n");
}

int run_gen_source(const pipe_desc *d, const run_gen_info *g, char **src, err_info *e)
{
    sbuf b = {0};
    sb_printf(&b, "/* generated by tmahw run from %s (%s) */\n", d->file[0] ? d->file : "description", d->name);
    sb_printf(&b, "typedef unsigned int u32;\ntypedef unsigned long long u64;\n");
    sb_printf(&b, "#ifndef TMAHW_RECORD\n#define TMAHW_RECORD 1\n#endif\n");
    sb_printf(&b, "#define MODE %d /* %s */\n", (int)d->mode, pipe_mode_name(d->mode));
    sb_printf(&b, "#define CTAS_PER_SM %u\n", d->ctas_per_sm);
    sb_printf(&b, "#define NPROD %u\n#define NCONS %u\n", d->producer_warps, d->consumer_warps);
    sb_printf(&b, "#define STAGES %u\n#define ITERS %u\n#define NTENS %u\n", d->stages, d->iterations, d->ntensors);
    sb_printf(&b, "#define CLUSTER %u\n#define MCAST %d\n", d->cluster, d->multicast ? 1 : 0);
    sb_printf(&b, "#define FULL_COUNT %u\n#define EMPTY_COUNT %u\n#define EXPECT_TX %u\n", d->full_count,
              d->empty_count, d->expect_tx);
    sb_printf(&b, "#define RELEASE_LAG %u\n#define NEVER_RELEASE %d\n#define PARITY_OFF %d\n", d->release_lag,
              d->never_release ? 1 : 0, d->wait_parity_offset);
    sb_printf(&b, "#define PRODUCER_WAITS_FULL %d\n", d->producer_waits_full ? 1 : 0);
    sb_printf(&b, "#define STAGE_BYTES %u\n#define SMEM_PAD %u\n#define EV_CAP %u\n#define RING %uu\n", g->stage_bytes,
              g->smem_pad, g->ev_cap, g->ring);
    /* the recording header's configuration, then its text (hw/record.cuh) */
    sb_printf(&b, "#define TMASCOPE_RECORD TMAHW_RECORD\n#define TMASCOPE_WARPS %u\n#define TMASCOPE_RING_EVENTS %u\n"
              "#define TMASCOPE_RING_HOLDS_ALL %d\n", g->nwarps, g->ring, g->ring_holds_all);
    /* one-dimensional blocks and grid; the CTA's clock pairs from its last warp, a consumer
     * (the warps after the producers), which waits for its first stage anyway */
    sb_printf(&b, "#define TMASCOPE_1D 1\n#define TMASCOPE_STAMP_WARP %uu\n", g->nwarps - 1u);
    /* the most records between two ring checks (run_kernel.cuh: a wait, the consumed stage,
     * a store, a release per cluster rank; a wait, the produced stage; with room to spare) */
    const uint32_t step = 8u + d->ntensors + d->cluster;
    if (!g->ring_holds_all && step < g->ring / 2u)
        sb_printf(&b, "#define TMASCOPE_STEP_RECORDS %uu\n", step);
    sb_printf(&b, "%s", record_header_text);
    int op = 2;
    switch (g->rd_op) {
    case BANK_OP_LDS32: op = 0; break;
    case BANK_OP_LDS64: op = 1; break;
    case BANK_OP_LDS128: op = 2; break;
    case BANK_OP_LDSM_X1: op = 3; break;
    case BANK_OP_LDSM_X2: op = 4; break;
    case BANK_OP_LDSM_X4: op = 5; break;
    default:
        free(b.p);
        return err_set(e, ERR_BAD_INPUT, "consumer.reads", "instruction %s is not a load", bank_op_name(g->rd_op));
    }
    sb_printf(&b, "#define RD_OP %d /* %s */\n#define RD_TRANS \"%s\"\n", op, bank_op_name(g->rd_op),
              g->rd_trans ? ".trans" : "");
    sb_printf(&b, "#define RD_PROBE %d\n#define RD_TENSOR %u\n#define RD_SHARE %u\n#define RD_N %u\n#define RD_REPEAT %u\n",
              g->rd_probe, g->rd_tensor, g->rd_share, g->rd_n, g->rd_repeat);
    sb_printf(&b, "#define MMA_CHAINS %u\n", pipe_plan_mma_chains(d));
    sb_printf(&b, "#define MATH %d /* %s */\n#define MATH_N %llu\n", (int)d->math, pipe_math_name(d->math),
              (unsigned long long)(d->math == PIPE_MATH_MMA ? d->math_amount / PIPE_MMA_FLOPS_PER_INSTR : d->math_amount));
    sb_printf(&b, "#define STORE_EVERY %u\n#define ST_ROWS %u\n", g->stores_per_cta ? d->store_every : 0u,
              g->store_rows);
    sb_printf(&b, "#define CP_CHUNKS %u\n", g->cp_chunks);
    sb_printf(&b, "#define CP_GROUPS %d\n#define CP_WAIT_PRIOR %u\n", d->cpasync_groups ? 1 : 0,
              d->cpasync_groups ? d->cpasync_wait_prior : 0u);
    sb_printf(&b, "#define STORE_REDUCE %d\n#define STORE_OP \".%s\"\n", d->store_reduce != PIPE_REDUCE_NONE ? 1 : 0,
              pipe_reduce_name(d->store_reduce));

    /* per-tensor constants (warp-uniform reads: constant memory) */
    uint32_t smem[DESC_MAX_TENSORS] = {0}, rank[DESC_MAX_TENSORS] = {0}, nt[DESC_MAX_TENSORS] = {0};
    uint32_t box[DESC_MAX_TENSORS][TM_MAX_RANK] = {{0}}, tpd[DESC_MAX_TENSORS][TM_MAX_RANK] = {{0}};
    uint32_t srows[DESC_MAX_TENSORS] = {0}, ssmem[DESC_MAX_TENSORS] = {0};
    unsigned long long gs[DESC_MAX_TENSORS][TM_MAX_RANK] = {{0}};
    for (uint32_t t = 0; t < DESC_MAX_TENSORS; t++) {
        const desc_tensor *ten = &d->tensors[t < d->ntensors ? t : 0];
        smem[t] = ten->smem_offset;
        rank[t] = ten->map.rank;
        nt[t] = g->ntiles[t < d->ntensors ? t : 0];
        srows[t] = g->slice_rows[t < d->ntensors ? t : 0];
        ssmem[t] = g->slice_smem[t < d->ntensors ? t : 0];
        for (uint32_t k = 0; k < TM_MAX_RANK; k++) {
            box[t][k] = k < ten->map.rank ? ten->map.box[k] : 1;
            tpd[t][k] = g->tiles_per_dim[t < d->ntensors ? t : 0][k];
            unsigned long long stride = 0;
            if (k < ten->map.rank)
                stride = k == 0 ? elem_bytes(&ten->map) : ten->map.strides[k - 1];
            gs[t][k] = stride;
        }
    }
    table_u32(&b, "__constant__ u32 T_SMEM[4]", smem, 4);
    table_u32(&b, "__constant__ u32 T_RANK[4]", rank, 4);
    table_u32(&b, "__constant__ u32 T_NTILES[4]", nt, 4);
    table_u32(&b, "__constant__ u32 T_SLICE_ROWS[4]", srows, 4);
    table_u32(&b, "__constant__ u32 T_SLICE_SMEM[4]", ssmem, 4);
    table_u32(&b, "__constant__ u32 T_BOX[4][5]", &box[0][0], 20);
    table_u32(&b, "__constant__ u32 T_NT[4][5]", &tpd[0][0], 20);
    sb_printf(&b, "__constant__ u64 T_GSTRIDE[4][5] = {");
    for (uint32_t t = 0; t < 4; t++)
        for (uint32_t k = 0; k < 5; k++)
            sb_printf(&b, "%s%lluull", t + k ? "," : "", gs[t][k]);
    sb_printf(&b, "};\n");
    emit_reads(&b, g);
    if (g->cp_chunks) {
        /* one 16-byte load per chunk: tensor, offset in the stage, offset in the tile, 0 */
        sb_printf(&b, "__device__ const uint4 CP_TAB[%u] = {", g->cp_chunks);
        for (uint32_t q = 0; q < g->cp_chunks; q++)
            sb_printf(&b, "%s%s{%u,%u,%u,0}", q ? "," : "", q % 8 == 0 ? "\n  " : "", g->cp_tab[q][0], g->cp_tab[q][1],
                      g->cp_tab[q][2]);
        sb_printf(&b, "};\n");
    } else {
        sb_printf(&b, "__device__ const uint4 CP_TAB[1] = {{0, 0, 0, 0}};\n");
    }
    sb_printf(&b, "%s", run_kernel_body);
    if (b.oom) {
        free(b.p);
        return err_set(e, ERR_IO, "out_of_memory", "generated source");
    }
    *src = b.p;
    return ERR_OK;
}
