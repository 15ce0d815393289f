/* run_gen: description -> NVRTC source (see run_gen.h). */
#include "run_gen.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"

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
    uint32_t tensor, stage_base, eb, n, cap;
    int bad;
} chunk_ctx;

static int chunk_visit(const tm_element *el, void *user)
{
    chunk_ctx *c = user;
    if ((el->idx[0] * c->eb) % 16)
        return 0;
    if (el->oob) {
        c->bad = 1;
        return 1;
    }
    if (c->n >= c->cap) {
        c->bad = 2;
        return 1;
    }
    c->g->cp_tab[c->n][0] = c->tensor;
    c->g->cp_tab[c->n][1] = el->smem_address - c->stage_base;
    c->g->cp_tab[c->n][2] = (uint32_t)el->global_offset;
    c->n++;
    return 0;
}

static int prepare_reads(const pipe_desc *d, run_gen_info *g, err_info *e)
{
    const char *f = d->file[0] ? d->file : "description";
    g->rd_probe = !d->reads_enabled;
    g->rd_tensor = d->reads_enabled ? d->reads_tensor : 0;
    g->rd_repeat = d->reads_enabled && d->reads_repeat ? d->reads_repeat : 1;
    if (g->rd_probe) {
        /* one conflict-free 128-bit load per lane over the first 512 bytes of tensor 0 */
        if (d->tensors[0].footprint_bytes < 512)
            return err_set(e, ERR_BAD_INPUT, "tensors", "%s: field 'tensors[0]': box of %u bytes (tmahw needs >= 512 "
                           "for its checksum probe when consumer.reads is absent)", f, d->tensors[0].footprint_bytes);
        g->rd_op = BANK_OP_LDS128;
        g->rd_share = 1;
        g->rd_n = 1;
        g->rd_tab = malloc(32 * sizeof *g->rd_tab);
        if (!g->rd_tab)
            return err_set(e, ERR_IO, "out_of_memory", "read table");
        for (uint32_t l = 0; l < 32; l++)
            g->rd_tab[l] = 16 * l;
        return ERR_OK;
    }
    if (d->reads.store)
        return err_set(e, ERR_BAD_INPUT, "consumer.reads", "%s: field 'consumer.reads': store patterns are not run by "
                       "tmahw (allowed: loads rows, cols, ldsm-a, ldsm-b)", f);
    tm_plan plan;
    int rc = plan_of(d, g->rd_tensor, &plan, e);
    if (rc)
        return rc;
    access_layout lay = {.kind = ACCESS_LAYOUT_TMA, .plan = &plan};
    uint32_t n = 0;
    err_info ae = {0};
    if (access_generate(&lay, &d->reads, NULL, 0, &n, &ae) != ERR_OK || n == 0)
        return err_set(e, ERR_BAD_INPUT, "consumer.reads", "%s: field 'consumer.reads': %s: %s", f, ae.rule, ae.detail);
    bank_instr *in = malloc(sizeof *in * n);
    if (!in)
        return err_set(e, ERR_IO, "out_of_memory", "access generator buffer");
    if (access_generate(&lay, &d->reads, in, n, &n, &ae) != ERR_OK) {
        free(in);
        return err_set(e, ERR_BAD_INPUT, "consumer.reads", "%s: field 'consumer.reads': %s: %s", f, ae.rule, ae.detail);
    }
    g->rd_share = d->reads.warps ? d->reads.warps : 1;
    g->rd_op = in[0].op;
    g->rd_trans = in[0].trans;
    /* instruction k belongs to warp k % share (access.c hands passes to warps in turn) */
    g->rd_n = (n + g->rd_share - 1) / g->rd_share;
    if (n % g->rd_share) {
        free(in);
        return err_set(e, ERR_BAD_INPUT, "consumer.reads", "%s: field 'consumer.reads': %u instructions do not split "
                       "evenly over %u warps (tmahw runs the same count in every warp)", f, n, g->rd_share);
    }
    if (g->rd_n > RUN_RD_MAX) {
        free(in);
        return err_set(e, ERR_BAD_INPUT, "consumer.reads", "%s: field 'consumer.reads': %u instructions per warp "
                       "(tmahw keeps at most %d per warp in registers; use a wider bytes_per_lane or warps: 4)", f,
                       g->rd_n, RUN_RD_MAX);
    }
    g->rd_tab = malloc(sizeof *g->rd_tab * 32 * g->rd_share * g->rd_n);
    if (!g->rd_tab) {
        free(in);
        return err_set(e, ERR_IO, "out_of_memory", "read table");
    }
    const uint32_t tbase = d->smem_base + d->tensors[g->rd_tensor].smem_offset;
    uint32_t used = bank_op_matrices(g->rd_op) ? 8 * bank_op_matrices(g->rd_op) : 32;
    for (uint32_t k = 0; k < n; k++) {
        if (in[k].op != g->rd_op || in[k].trans != g->rd_trans) {
            free(in);
            return err_set(e, ERR_BAD_INPUT, "consumer.reads", "%s: field 'consumer.reads': mixed instruction kinds", f);
        }
        uint32_t chunk = k % g->rd_share, q = k / g->rd_share;
        uint32_t mask = in[k].active_mask ? in[k].active_mask : 0xffffffffu;
        if (mask != 0xffffffffu && !bank_op_matrices(g->rd_op)) {
            free(in);
            return err_set(e, ERR_BAD_INPUT, "consumer.reads", "%s: field 'consumer.reads': instruction %u has inactive "
                           "lanes (the tile is not a multiple of 32 chunks)", f, k);
        }
        for (uint32_t l = 0; l < 32; l++) {
            /* lanes an ldmatrix ignores repeat lane 0's row (a valid address) */
            uint32_t a = l < used ? in[k].addr[l] : in[k].addr[0];
            g->rd_tab[(chunk * g->rd_n + q) * 32 + l] = a - tbase;
        }
    }
    free(in);
    return ERR_OK;
}

int run_gen_prepare(const pipe_desc *d, run_gen_info *g, err_info *e)
{
    const char *f = d->file[0] ? d->file : "description";
    memset(g, 0, sizeof *g);
    if (d->copy_bytes == 0)
        return err_set(e, ERR_BAD_INPUT, "desc_not_derived", "call pipe_desc_derive before run_gen_prepare");
    g->nwarps = d->producer_warps + d->consumer_warps;
    g->smem_pad = d->smem_base % 1024u;
    uint32_t stage = 0;
    for (uint32_t t = 0; t < d->ntensors; t++) {
        const desc_tensor *ten = &d->tensors[t];
        if (ten->map.interleave != TM_INTERLEAVE_NONE)
            return err_set(e, ERR_BAD_INPUT, "tensors", "%s: field 'tensors[%u].interleave': tmahw runs non-interleaved "
                           "maps only", f, t);
        if (ten->map.rank > 3 && d->multicast)
            return err_set(e, ERR_BAD_INPUT, "tensors", "%s: field 'tensors[%u]': multicast needs rank <= 3", f, t);
        uint32_t n = 1;
        for (uint32_t k = 0; k < ten->map.rank; k++) {
            uint32_t per = (uint32_t)(ten->map.dims[k] / ten->map.box[k]);
            if (per == 0)
                return err_set(e, ERR_BAD_INPUT, "tensors", "%s: field 'tensors[%u].dims[%u]' = %llu is smaller than the "
                               "box (%u): tmahw loads whole boxes inside the tensor", f, t, k,
                               (unsigned long long)ten->map.dims[k], ten->map.box[k]);
            g->tiles_per_dim[t][k] = per;
            n = n * per > (1u << 30) ? (1u << 30) : n * per;
        }
        g->ntiles[t] = n;
        uint32_t end = ten->smem_offset + ((ten->footprint_bytes + 1023u) & ~1023u);
        if (end > stage)
            stage = end;
        if (d->multicast) {
            tm_plan plan;
            int rc = plan_of(d, t, &plan, e);
            if (rc)
                return rc;
            uint32_t outer = ten->map.box[ten->map.rank - 1];
            uint32_t rows_per_outer = plan.rows / outer;
            if (outer % d->cluster || ((outer / d->cluster) * rows_per_outer * plan.row_pitch) % 128u)
                return err_set(e, ERR_BAD_INPUT, "cluster.multicast", "%s: field 'cluster.multicast': tensors[%u] box "
                               "outer dimension %u does not split into %u slices of 128-byte aligned rows", f, t, outer,
                               d->cluster);
            g->slice_rows[t] = outer / d->cluster;
            g->slice_smem[t] = g->slice_rows[t] * rows_per_outer * plan.row_pitch;
        }
    }
    g->stage_bytes = stage;
    g->dyn_smem_bytes = stage * d->stages + 1024u + g->smem_pad;
    if (g->dyn_smem_bytes > 227u * 1024u)
        return err_set(e, ERR_BAD_INPUT, "stages", "%s: field 'stages' = %u needs %u bytes of dynamic shared memory with "
                       "alignment (227 KB per block)", f, d->stages, g->dyn_smem_bytes);
    /* events per warp and iteration: wait, expect, one issue per tensor (producer); wait,
     * read, math, one release per cluster rank, store (consumer); both for mixed warps */
    uint64_t cap = (uint64_t)d->iterations * (8u + d->ntensors + d->cluster) + 16u;
    if (cap > (1u << 26))
        cap = 1u << 26;
    g->ev_cap = (uint32_t)cap;
    /* the event ring: a power of two of events per warp in the shared memory that is left;
     * both kernel variants request the same amount (same carve-out) */
    uint32_t avail = 227u * 1024u - g->dyn_smem_bytes;
    uint32_t fit = avail / (g->nwarps * 16u), ring = 32u;   /* a power of two: slots by mask */
    while (ring * 2u <= fit && ring < g->ev_cap)
        ring *= 2u;
    if (ring > fit)
        ring = 0;
    if (ring < 32u)
        return err_set(e, ERR_BAD_INPUT, "stages", "%s: field 'stages' = %u leaves %u bytes of shared memory: tmahw "
                       "needs %u for its event ring (32 events per warp)", f, d->stages, avail, g->nwarps * 512u);
    g->ring = ring;
    g->dyn_smem_bytes += ring * g->nwarps * 16u;

    int rc = prepare_reads(d, g, e);
    if (rc)
        return rc;

    if (d->mode == PIPE_CPASYNC || d->mode == PIPE_STASYNC) {
        uint32_t cap_chunks = d->copy_bytes / 16 + 16;
        g->cp_tab = malloc(sizeof *g->cp_tab * cap_chunks);
        if (!g->cp_tab)
            return err_set(e, ERR_IO, "out_of_memory", "copy table");
        chunk_ctx c = {.g = g, .cap = cap_chunks, .stage_base = d->smem_base};
        for (uint32_t t = 0; t < d->ntensors; t++) {
            tm_plan plan;
            rc = plan_of(d, t, &plan, e);
            if (rc)
                return rc;
            c.tensor = t;
            c.eb = elem_bytes(&d->tensors[t].map);
            if (d->tensors[t].map.elem_strides[0] > 1 || (d->tensors[t].map.box[0] * c.eb) % 16)
                return err_set(e, ERR_BAD_INPUT, "tensors", "%s: field 'tensors[%u]': cp.async/st.async copies need "
                               "elementStrides 1 and 16-byte rows", f, t);
            tm_plan_foreach(&plan, chunk_visit, &c);
            if (c.bad)
                return err_set(e, ERR_BAD_INPUT, "tensors", "%s: field 'tensors[%u]': copy table (%s)", f, t,
                               c.bad == 1 ? "box outside the tensor" : "more chunks than copy bytes");
        }
        g->cp_chunks = c.n;
        if (g->cp_chunks * 16u != d->copy_bytes)
            return err_set(e, ERR_BAD_INPUT, "tensors", "%s: field 'tensors': %u chunks of 16 bytes for %u copy bytes", f,
                           g->cp_chunks, d->copy_bytes);
    }
    if (d->store_bytes && d->store_every) {
        const desc_tensor *t0 = &d->tensors[0];
        if (t0->map.rank != 2 || d->store_bytes != t0->tx_bytes)
            return err_set(e, ERR_BAD_INPUT, "store.bytes", "%s: field 'store.bytes' = %u: tmahw stores tensor 0's box "
                           "(rank 2, %u bytes)", f, d->store_bytes, t0->tx_bytes);
        if (d->mode != PIPE_WARP_SPECIALIZED && d->mode != PIPE_MULTISTAGE)
            return err_set(e, ERR_BAD_INPUT, "store", "%s: field 'store': tmahw runs TMA stores in warp_specialized and "
                           "multistage modes", f);
        if (d->store_reduce != PIPE_REDUCE_NONE && d->store_reduce != PIPE_REDUCE_ADD)
            return err_set(e, ERR_BAD_INPUT, "store.reduce", "%s: field 'store.reduce' = %s: tmahw runs and checks "
                           "reduce: add (allowed none, add)", f, pipe_reduce_name(d->store_reduce));
        g->stores_per_cta = d->iterations / d->store_every;
        g->store_rows = t0->map.box[1];
    }
    return ERR_OK;
}

void run_gen_free(run_gen_info *g)
{
    free(g->rd_tab);
    free(g->cp_tab);
    g->rd_tab = NULL;
    g->cp_tab = NULL;
}

static void table_u32(sbuf *b, const char *decl, const uint32_t *v, size_t n)
{
    sb_printf(b, "%s = {", decl);
    for (size_t i = 0; i < n; i++)
        sb_printf(b, "%s%s%u", i ? "," : "", i % 16 == 0 ? "\n  " : "", v[i]);
    sb_printf(b, "};\n");
}

int run_gen_source(const pipe_desc *d, const run_gen_info *g, char **src, err_info *e)
{
    sbuf b = {0};
    sb_printf(&b, "/* generated by tmahw run from %s (%s) */\n", d->file[0] ? d->file : "description", d->name);
    sb_printf(&b, "typedef unsigned int u32;\ntypedef unsigned long long u64;\n");
    sb_printf(&b, "#ifndef TMAHW_RECORD\n#define TMAHW_RECORD 1\n#endif\n");
    sb_printf(&b, "#define MODE %d /* %s */\n", (int)d->mode, pipe_mode_name(d->mode));
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
    sb_printf(&b, "#define MATH %d /* %s */\n#define MATH_N %llu\n", (int)d->math, pipe_math_name(d->math),
              (unsigned long long)(d->math == PIPE_MATH_MMA ? d->math_amount / 4096u : d->math_amount));
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
    /* per-lane tables: global memory (lanes read consecutive words) */
    char decl[96];
    snprintf(decl, sizeof decl, "__device__ const u32 RD_TAB[%u]", 32 * g->rd_share * g->rd_n);
    table_u32(&b, decl, g->rd_tab, (size_t)32 * g->rd_share * g->rd_n);
    if (g->cp_chunks) {
        snprintf(decl, sizeof decl, "__device__ const u32 CP_TAB[%u][3]", g->cp_chunks);
        table_u32(&b, decl, &g->cp_tab[0][0], (size_t)g->cp_chunks * 3);
    } else {
        sb_printf(&b, "__device__ const u32 CP_TAB[1][3] = {{0, 0, 0}};\n");
    }
    sb_printf(&b, "%s", run_kernel_body);
    if (b.oom) {
        free(b.p);
        return err_set(e, ERR_IO, "out_of_memory", "generated source");
    }
    *src = b.p;
    return ERR_OK;
}
