/* pipe_gemm: a GEMM description's derived facts (see pipe_gemm.h). */
#include "pipe_gemm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipe_plan.h"

static const char *file_of(const pipe_desc *d) { return d->file[0] ? d->file : "description"; }

/* CTAs sharing one tile column through multicast (1 without) */
static uint32_t mcast(const pipe_desc *d) { return d->multicast ? d->cluster : 1u; }

/* The tensor-map element type that carries a wgmma operand type (8-bit types as u8). */
static int tm_type_carries(tm_dtype t, wg_dtype w)
{
    switch (w) {
    case WG_F16: return t == TM_DTYPE_F16;
    case WG_BF16: return t == TM_DTYPE_BF16;
    case WG_TF32: return t == TM_DTYPE_TF32 || t == TM_DTYPE_F32;
    default: return t == TM_DTYPE_U8;
    }
}

static int check_operand(const pipe_desc *d, uint32_t t, uint64_t rows_total, uint32_t rows_box, err_info *e)
{
    const desc_tensor *ten = &d->tensors[t];
    const tm_desc *m = &ten->map;
    const char *f = file_of(d);
    const char *role = t ? "B" : "A";
    wg_dtype w = (wg_dtype)d->wgmma.dtype;
    if (!tm_type_carries(m->dtype, w))
        return err_set(e, ERR_BAD_INPUT, "gemm_operand_dtype",
                       "%s: field 'tensors[%u].dtype' (%s, operand %s) does not carry the wgmma dtype %s", f, t, ten->name,
                       role, wg_dtype_name(w));
    if (m->rank != 2 || m->dims[0] != d->gemm.k || m->dims[1] != rows_total)
        return err_set(e, ERR_BAD_INPUT, "gemm_operand_dims",
                       "%s: field 'tensors[%u].dims' (%s) must be [k, %s] = [%u, %llu] (K-major %s)", f, t, ten->name,
                       t ? "n" : "m", d->gemm.k, (unsigned long long)rows_total, role);
    if (m->swizzle != TM_SWIZZLE_128B || m->box[0] * wg_dtype_bytes(w) != 128)
        return err_set(e, ERR_BAD_INPUT, "gemm_operand_box",
                       "%s: field 'tensors[%u].box' (%s) must be [%u, rows] with swizzle 128b: a stage holds one "
                       "128-byte swizzle row of K per operand row",
                       f, t, ten->name, 128 / wg_dtype_bytes(w));
    if (m->box[1] != rows_box)
        return err_set(e, ERR_BAD_INPUT, "gemm_operand_box",
                       "%s: field 'tensors[%u].box[1]' (%s) = %u must be %u (%s)", f, t, ten->name, m->box[1], rows_box,
                       t ? "the wgmma N" : "64 rows per consumer warpgroup");
    return ERR_OK;
}

int pipe_gemm_derive_shape(pipe_desc *d, err_info *e)
{
    const char *f = file_of(d);
    desc_gemm *g = &d->gemm;
    if (d->math != PIPE_MATH_WGMMA) {
        if (g->given)
            return err_set(e, ERR_BAD_INPUT, "gemm", "%s: field 'gemm' needs consumer.math.kind wgmma", f);
        return ERR_OK;
    }
    if (!g->given)
        return err_set(e, ERR_BAD_INPUT, "gemm", "%s: field 'gemm' (m, n, k) is needed with math kind wgmma", f);
    if (d->mode != PIPE_WARP_SPECIALIZED)
        return err_set(e, ERR_BAD_INPUT, "mode", "%s: field 'mode' = %s (math kind wgmma needs warp_specialized)", f,
                       pipe_mode_name(d->mode));
    if (d->consumer_warps % PIPE_WARPGROUP_WARPS || d->consumer_warps > 3 * PIPE_WARPGROUP_WARPS)
        return err_set(e, ERR_BAD_INPUT, "warps.consumer",
                       "%s: field 'warps.consumer' = %u (math kind wgmma: whole warpgroups, 4, 8 or 12)", f, d->consumer_warps);
    if (d->ntensors != 2)
        return err_set(e, ERR_BAD_INPUT, "tensors", "%s: field 'tensors' has %u maps (a gemm reads two per stage: A, B)", f,
                       d->ntensors);
    if (d->wgmma.a_registers)
        return err_set(e, ERR_BAD_INPUT, "consumer.math.a",
                       "%s: field 'consumer.math.a' = registers (the generated kernel and the simulator take a: smem)", f);
    wg_shape b = {.dtype = (wg_dtype)d->wgmma.dtype, .operand = WG_B, .major = WG_K_MAJOR, .n = d->wgmma.n};
    err_info we = {0};
    if (wg_shape_check(&b, &we) != ERR_OK || d->wgmma.k != wg_k(b.dtype))
        return err_set(e, ERR_BAD_INPUT, "consumer.math.shape", "%s: field 'consumer.math.shape' = m64n%uk%u: %s", f,
                       d->wgmma.n, d->wgmma.k, we.detail[0] ? we.detail : "k must be 32 bytes of the dtype");
    g->consumer_groups = d->consumer_warps / PIPE_WARPGROUP_WARPS;
    g->bm = PIPE_WGMMA_M * g->consumer_groups;
    g->bn = d->wgmma.n;
    g->bk = 128 / wg_dtype_bytes(b.dtype);
    int rc = check_operand(d, 0, g->m, g->bm, e);
    if (rc == ERR_OK)
        rc = check_operand(d, 1, g->n, g->bn, e);
    if (rc != ERR_OK)
        return rc;
    if (g->epilogue == PIPE_EPI_TMA && g->bn % 64)
        return err_set(e, ERR_BAD_INPUT, "gemm.epilogue",
                       "%s: field 'gemm.epilogue' = tma with a tile %u columns wide (the TMA store writes C in boxes of "
                       "64 columns: N a multiple of 64, or epilogue: direct)", f, g->bn);
    if (d->cluster > 1 && (!d->multicast || d->cluster != 2))
        return err_set(e, ERR_BAD_INPUT, "cluster.size",
                       "%s: field 'cluster' (math kind wgmma): clusters of 2 with multicast (the CTAs of a cluster share "
                       "B's tile, each loading half), or no cluster", f);
    if (g->m % (g->bm * d->cluster) || g->n % g->bn || g->k % g->bk)
        return err_set(e, ERR_BAD_INPUT, "gemm", "%s: field 'gemm' = %ux%ux%u is not a multiple of the tile %ux%ux%u", f, g->m,
                       g->n, g->k, g->bm, g->bn, g->bk);
    if (g->group_m == 0)
        g->group_m = 8;
    if (d->wgmma.wait >= d->stages)
        return err_set(e, ERR_BAD_INPUT, "consumer.wgmma_wait", "%s: field 'consumer.wgmma_wait' = %u (allowed 0..stages-1 = %u)",
                       f, d->wgmma.wait, d->stages - 1);
    g->tiles = (g->m / g->bm) * (g->n / g->bn);
    g->k_iters = g->k / g->bk;
    uint64_t iters = (uint64_t)pipe_gemm_cta_tiles(d, 0) * g->k_iters;
    if (iters < 1 || iters > (1u << 24))
        return err_set(e, ERR_BAD_INPUT, "gemm", "%s: field 'gemm': %llu stages for one CTA (allowed 1..16777216)", f,
                       (unsigned long long)iters);
    d->iterations = (uint32_t)iters;
    g->c_stage_bytes = g->epilogue == PIPE_EPI_TMA ? g->consumer_groups * PIPE_WGMMA_M * g->bn * 2 : 0;
    return ERR_OK;
}

wg_shape pipe_gemm_shape(const pipe_desc *d, wg_operand operand)
{
    wg_shape s = {.dtype = (wg_dtype)d->wgmma.dtype, .operand = operand, .major = WG_K_MAJOR, .n = d->wgmma.n};
    return s;
}

/* The tile the copy of `operand` wrote in stage 0, as the descriptor model sees it. */
static int operand_tile(const pipe_desc *d, wg_operand operand, uint32_t group, uint32_t kk, wg_tile *t, err_info *e)
{
    memset(t, 0, sizeof *t);
    tm_copy c = {.smem_address = d->smem_base + d->tensors[operand].smem_offset};
    int rc = tm_plan_copy(&d->tensors[operand].map, &c, &t->plan, e);
    wg_tile_default_roles(WG_K_MAJOR, 2, t->role);
    t->k_block = kk;
    t->row_origin = operand == WG_A ? group * PIPE_WGMMA_M : 0;
    return rc;
}

int pipe_gemm_derive_descriptors(pipe_desc *d, err_info *e)
{
    if (d->math != PIPE_MATH_WGMMA)
        return ERR_OK;
    const char *f = file_of(d);
    for (int op = WG_A; op <= WG_B; op++) {
        wg_shape s = pipe_gemm_shape(d, (wg_operand)op);
        wg_desc k0, k1;
        char why[200] = "";
        wg_tile t0, t1;
        if (operand_tile(d, (wg_operand)op, 0, 0, &t0, e) != ERR_OK || operand_tile(d, (wg_operand)op, 0, 1, &t1, e) != ERR_OK)
            return ERR_BAD_INPUT;
        if (wg_find_desc(&t0, &s, &k0, why, sizeof why) != ERR_OK || wg_find_desc(&t1, &s, &k1, why, sizeof why) != ERR_OK)
            return err_set(e, ERR_BAD_INPUT, "wgmma_descriptor", "%s: tensors[%d] (%s): no wgmma descriptor reads its box: %s",
                           f, op, d->tensors[op].name, why);
        uint32_t kstep = k1.start - k0.start;
        uint32_t stage0 = d->smem_base + d->tensors[op].smem_offset;
        if (k0.start != stage0)
            return err_set(e, ERR_BAD_INPUT, "wgmma_descriptor",
                           "%s: tensors[%d] (%s): the descriptor model reads k-block 0 from 0x%x, not from the box at 0x%x", f,
                           op, d->tensors[op].name, k0.start, stage0);
        k0.start = 0;
        uint64_t tmpl = wg_desc_encode(&k0);
        if (op == WG_A) {
            d->wgmma.kstep_a = kstep;
            if (!d->wgmma.desc_a_given)
                d->wgmma.desc_a = tmpl;
        } else {
            d->wgmma.kstep_b = kstep;
            if (!d->wgmma.desc_b_given)
                d->wgmma.desc_b = tmpl;
        }
    }
    return ERR_OK;
}

uint64_t pipe_gemm_descriptor(const pipe_desc *d, wg_operand operand, uint32_t stage, uint32_t group, uint32_t kk)
{
    uint32_t addr = pipe_plan_stage_address(d, stage, operand);
    if (operand == WG_A)
        addr += group * PIPE_WGMMA_M * 128;
    addr += kk * (operand == WG_A ? d->wgmma.kstep_a : d->wgmma.kstep_b);
    uint64_t tmpl = operand == WG_A ? d->wgmma.desc_a : d->wgmma.desc_b;
    return tmpl + ((addr >> 4) & 0x3FFFu);
}

uint64_t pipe_gemm_instr_flops(const pipe_desc *d) { return 2ull * PIPE_WGMMA_M * d->wgmma.n * d->wgmma.k; }

uint32_t pipe_gemm_instrs_per_stage(const pipe_desc *d) { return d->wgmma.k ? d->gemm.bk / d->wgmma.k : 0; }

uint32_t pipe_gemm_cta_tiles(const pipe_desc *d, uint32_t cta)
{
    uint32_t C = mcast(d), T = d->gemm.tiles / C, id = cta / C, n = d->ctas / C;
    return id < T ? (T - id + n - 1) / n : 0;
}

void pipe_gemm_tile(const pipe_desc *d, uint32_t t, uint32_t *mt, uint32_t *nt)
{
    uint32_t MT = d->gemm.m / d->gemm.bm / mcast(d), NT = d->gemm.n / d->gemm.bn, G = d->gemm.group_m;
    uint32_t per = G * NT, grp = t / per, r = t % per, first = grp * G;
    uint32_t rows = MT - first < G ? MT - first : G;
    *mt = first + r % rows;
    *nt = r / rows;
}

/* The operand's tile loads of the persistent grid's waves (each CTA of a wave loads its
 * tile's row of A or column of B) and how many of them are distinct within their wave. */
static void wave_loads(const pipe_desc *d, wg_operand operand, double *loads, double *unique)
{
    uint32_t C = mcast(d), T = d->gemm.tiles / C, conc = d->ctas / C;
    uint32_t rows = operand == WG_A ? d->gemm.m / d->gemm.bm / C : d->gemm.n / d->gemm.bn;
    uint32_t *seen = calloc(rows ? rows : 1, sizeof *seen);
    *loads = *unique = 0;
    if (!seen || !conc) {
        free(seen);
        return;
    }
    for (uint32_t w0 = 0, wave = 1; w0 < T; w0 += conc, wave++) {
        uint32_t n = T - w0 < conc ? T - w0 : conc;
        for (uint32_t t = w0; t < w0 + n; t++) {
            uint32_t mt, nt;
            pipe_gemm_tile(d, t, &mt, &nt);
            uint32_t r = operand == WG_A ? mt : nt;
            if (seen[r] != wave)
                (*unique)++;
            seen[r] = wave;
        }
        *loads += n;
    }
    free(seen);
}

double pipe_gemm_l2_hit(const pipe_desc *d, wg_operand operand)
{
    double loads, unique;
    wave_loads(d, operand, &loads, &unique);
    /* with multicast each CTA of a cluster loads its own A tile and 1/C of the shared B
     * tile: both counts scale alike, the share is the same */
    return loads > 0 ? 1.0 - unique / loads : 0;
}

double pipe_gemm_readers(const pipe_desc *d, wg_operand operand)
{
    double loads, unique;
    wave_loads(d, operand, &loads, &unique);
    return unique > 0 ? loads / unique : 1;
}

double pipe_gemm_instr_cycles(const pipe_desc *d, double cycles_per_col) { return cycles_per_col * d->wgmma.n; }

static void add(pipe_gemm_finding *out, uint32_t *n, const char *rule, const char *detail)
{
    if (*n >= PIPE_GEMM_FINDINGS_MAX)
        return;
    snprintf(out[*n].rule, sizeof out[*n].rule, "%s", rule);
    snprintf(out[*n].detail, sizeof out[*n].detail, "%s", detail);
    (*n)++;
}

/* The first k instruction of any warpgroup whose descriptor reads the wrong elements. */
static void check_descriptors(const pipe_desc *d, wg_operand op, pipe_gemm_finding *out, uint32_t *n)
{
    wg_shape s = pipe_gemm_shape(d, op);
    uint32_t groups = op == WG_A ? d->gemm.consumer_groups : 1;
    for (uint32_t g = 0; g < groups; g++)
        for (uint32_t kk = 0; kk < pipe_gemm_instrs_per_stage(d); kk++) {
            wg_tile t;
            err_info e = {0};
            if (operand_tile(d, op, g, kk, &t, &e) != ERR_OK)
                return;
            wg_desc wd;
            wg_desc_decode(pipe_gemm_descriptor(d, op, 0, g, kk), &wd);
            wg_check c;
            if (wg_check_tile(&t, &s, &wd, NULL, &c, &e) != ERR_FINDING)
                continue;
            char det[640], fix[240];
            if (c.has_fix)
                snprintf(fix, sizeof fix, "the right one is 0x%016llx", (unsigned long long)wg_desc_encode(&c.fix));
            else
                snprintf(fix, sizeof fix, "no descriptor reads it: %s", c.why_none);
            snprintf(det, sizeof det,
                     "operand %s (%s), warpgroup %u, k instruction %u: descriptor 0x%016llx reads %u of %u elements from "
                     "the wrong place; %s.",
                     op == WG_A ? "A" : "B", d->tensors[op].name, g, kk,
                     (unsigned long long)pipe_gemm_descriptor(d, op, 0, g, kk), c.mismatches, c.elements, fix);
            add(out, n, "wgmma_descriptor_mismatch", det);
            return;
        }
}

uint32_t pipe_gemm_findings(const pipe_desc *d, pipe_gemm_finding out[PIPE_GEMM_FINDINGS_MAX])
{
    uint32_t n = 0;
    if (d->math != PIPE_MATH_WGMMA)
        return 0;
    if (d->release_lag < d->wgmma.wait) {
        char det[640];
        snprintf(det, sizeof det,
                 "consumer.release_lag = %u < consumer.wgmma_wait = %u: after wgmma.wait_group(%u) the groups of the last %u "
                 "stages may still be reading shared memory, yet the stage %u back is released: the producer's next TMA "
                 "copy can overwrite operands a wgmma is reading.",
                 d->release_lag, d->wgmma.wait, d->wgmma.wait, d->wgmma.wait, d->release_lag);
        add(out, &n, "wgmma_release_in_flight", det);
    }
    check_descriptors(d, WG_A, out, &n);
    check_descriptors(d, WG_B, out, &n);
    return n;
}

double pipe_gemm_stage_ns(const pipe_desc *d, const pipe_params *p)
{
    double bytes = 0;
    for (uint32_t t = 0; t < d->ntensors; t++)
        bytes += d->multicast ? (double)d->tensors[t].tx_bytes / d->cluster : (double)d->tensors[t].tx_bytes;
    return p->gemm_step_ns + bytes / p->tma_bytes_per_ns_sm;
}
