/* wgmma_gen: the wgmma descriptor corpus (see wgmma_gen.h). */
#include "wgmma_gen.h"

#include <stdio.h>
#include <string.h>

#include "tm.h"

enum { TILE_AT = 0x4000 }; /* tiles start 16 KiB into the region: wrong descriptors read around them */

typedef struct gen {
    wg_case *out;
    size_t n, max;
    uint32_t region;
    uint64_t rng;
} gen;

static uint32_t rnd(gen *g, uint32_t n)
{
    g->rng = g->rng * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(g->rng >> 33) % n;
}

/* The highest byte a descriptor reads, to keep every case inside the region. */
static int fits(const wg_shape *s, const wg_desc *d, uint32_t region)
{
    uint32_t K = wg_k(s->dtype), E = wg_dtype_bytes(s->dtype);
    for (uint32_t r = 0; r < wg_rows(s); r++)
        for (uint32_t k = 0; k < K; k++) {
            uint32_t a = wg_element_address(s, d, r, k);
            if (a + E > region || a >= (1u << 18))
                return 0;
        }
    return 1;
}

static void add(gen *g, const wg_shape *s, const wg_desc *d, const char *variant, const char *tile, uint32_t smem)
{
    if (!fits(s, d, g->region) || wg_desc_check(d, NULL))
        return;
    if (g->n < g->max) {
        wg_case *c = &g->out[g->n];
        memset(c, 0, sizeof *c);
        snprintf(c->name, sizeof c->name, "w%04zu", g->n);
        snprintf(c->variant, sizeof c->variant, "%s", variant);
        c->shape = *s;
        c->desc = *d;
        c->has_tile = tile != NULL;
        if (tile)
            snprintf(c->tile, sizeof c->tile, "%s", tile);
        c->tile_smem = smem;
    }
    g->n++;
}

static const char *tm_name(wg_dtype t)
{
    return t == WG_F16 ? "f16" : t == WG_BF16 ? "bf16" : t == WG_TF32 ? "tf32" : "u8";
}

static tm_dtype tm_type(wg_dtype t)
{
    return t == WG_F16 ? TM_DTYPE_F16 : t == WG_BF16 ? TM_DTYPE_BF16 : t == WG_TF32 ? TM_DTYPE_TF32 : TM_DTYPE_U8;
}

static const tm_swizzle tm_of[4] = {TM_SWIZZLE_NONE, TM_SWIZZLE_128B, TM_SWIZZLE_64B, TM_SWIZZLE_32B};

/* The box of one tile: K-major swizzled rows of W bytes (2-D), otherwise 16-byte
 * chunks in a 3-D box; MN-major swizzled with W-byte rows along MN. */
static int tile_box(const wg_shape *s, wg_swizzle sw, uint32_t kt, uint32_t *rank, uint32_t box[3], wg_role role[3])
{
    uint32_t E = wg_dtype_bytes(s->dtype), W = wg_swizzle_width(sw), R = wg_rows(s);
    if (s->major == WG_K_MAJOR && sw != WG_SWZ_NONE) {
        *rank = 2, box[0] = W / E, box[1] = R, role[0] = WG_ROLE_K, role[1] = WG_ROLE_ROW;
        return 1;
    }
    if (s->major == WG_K_MAJOR) {
        *rank = 3, box[0] = 16 / E, box[1] = R, box[2] = kt * E / 16;
        role[0] = WG_ROLE_K, role[1] = WG_ROLE_ROW, role[2] = WG_ROLE_K;
        return 1;
    }
    if (R * E < W)
        return 0;
    *rank = 3, box[0] = W / E, box[1] = kt, box[2] = R * E / W;
    role[0] = WG_ROLE_ROW, role[1] = WG_ROLE_K, role[2] = WG_ROLE_ROW;
    return box[2] >= 1;
}

static void tile_flags(char *out, size_t size, const wg_shape *s, wg_swizzle sw, uint32_t rank, const uint32_t box[3],
                       const wg_role role[3], uint32_t smem, uint32_t kb)
{
    char dims[64] = "", roles[32] = "";
    for (uint32_t i = 0; i < rank; i++) {
        size_t l = strlen(dims);
        snprintf(dims + l, sizeof dims - l, "%s%u", i ? "," : "", box[i]);
        l = strlen(roles);
        snprintf(roles + l, sizeof roles - l, "%s%s", i ? "," : "", role[i] == WG_ROLE_K ? "k" : "row");
    }
    snprintf(out, size, "--dtype %s --dims %s --box %s --swizzle %s --smem-address 0x%x --roles %s --k-block %u",
             tm_name(s->dtype), dims, dims, tm_swizzle_name(tm_of[sw]), smem, roles, kb);
}

static int plan_tile(const wg_shape *s, wg_swizzle sw, uint32_t rank, const uint32_t box[3], const wg_role role[3],
                     uint32_t smem, uint32_t kb, wg_tile *t)
{
    tm_desc d;
    tm_desc_defaults(&d);
    d.dtype = tm_type(s->dtype);
    d.rank = rank;
    d.global_address = 0x10000000ull;
    uint64_t stride = wg_dtype_bytes(s->dtype);
    for (uint32_t i = 0; i < rank; i++) {
        d.dims[i] = d.box[i] = box[i];
        stride *= box[i];
        if (i + 1 < rank)
            d.strides[i] = stride;
    }
    d.swizzle = tm_of[sw];
    tm_copy c = {.smem_address = smem};
    memset(t, 0, sizeof *t);
    for (uint32_t i = 0; i < rank; i++)
        t->role[i] = role[i];
    t->k_block = kb;
    return tm_plan_copy(&d, &c, &t->plan, NULL) == ERR_OK;
}

/* The wrong descriptors of the kinds users write, for one tile and k-block. */
static void add_wrong(gen *g, const wg_shape *s, const wg_desc *ok, const char *tile, uint32_t smem, int all_bo)
{
    wg_desc d = *ok;
    d.lbo = ok->sbo, d.sbo = ok->lbo;
    add(g, s, &d, "lbo_sbo_swapped", tile, smem);
    d = *ok;
    if (ok->lbo < 1024 && ok->sbo < 1024) {
        d.lbo = ok->lbo * 16, d.sbo = ok->sbo * 16;
        add(g, s, &d, "bytes_not_units", tile, smem);
    }
    d = *ok;
    d.swizzle = ok->swizzle == WG_SWZ_128B ? WG_SWZ_32B : ok->swizzle == WG_SWZ_32B ? WG_SWZ_128B : ok->swizzle;
    if (d.swizzle != ok->swizzle)
        add(g, s, &d, "swizzle_tm_code", tile, smem);
    if (ok->swizzle == WG_SWZ_NONE)
        return;
    for (uint32_t bo = 1; bo < 8; bo++) {
        uint32_t ptx = (ok->start >> 7) & 7;
        if (!all_bo && bo != ptx && bo != (ptx ^ 1))
            continue;
        d = *ok;
        d.base_offset = bo;
        char v[32];
        snprintf(v, sizeof v, "base_offset_%u", bo);
        add(g, s, &d, v, tile, smem);
    }
}

static void gen_tiles(gen *g)
{
    static const uint32_t ns[] = {8, 16, 32, 64, 128, 256, 24, 48};
    uint32_t turn = 0;
    for (int dt = 0; dt < WG_DTYPE_COUNT; dt++)
        for (int mj = 0; mj < 2; mj++) {
            if (mj == WG_MN_MAJOR && dt != WG_F16 && dt != WG_BF16)
                continue;
            for (int op = 0; op < 3; op++)
                for (int sw = 0; sw < 4; sw++) {
                    wg_shape s = {.dtype = (wg_dtype)dt, .operand = op ? WG_B : WG_A, .major = (wg_major)mj};
                    s.n = op ? ns[(turn++) % 8] : wg_k(s.dtype);
                    if ((s.dtype == WG_S8 || s.dtype == WG_U8) && s.n == 48)
                        s.n = 64;
                    uint32_t kt = mj == WG_K_MAJOR && sw != WG_SWZ_NONE ? wg_swizzle_width((wg_swizzle)sw) /
                                                                                wg_dtype_bytes(s.dtype)
                                                                          : 2 * wg_k(s.dtype);
                    if (s.major == WG_MN_MAJOR && wg_rows(&s) * 2 < wg_swizzle_width((wg_swizzle)sw))
                        s.n = 64;
                    uint32_t rank, box[3];
                    wg_role role[3];
                    if (wg_shape_check(&s, NULL) || !tile_box(&s, (wg_swizzle)sw, kt, &rank, box, role))
                        continue;
                    uint32_t offs[2] = {0, 128u * (1 + turn % 7)};
                    for (int oi = 0; oi < 2; oi++) {
                        uint32_t smem = TILE_AT + offs[oi];
                        uint32_t nkb = kt / wg_k(s.dtype), start0 = 0;
                        for (uint32_t kb = 0; kb < nkb; kb++) {
                            wg_tile t;
                            wg_desc ok;
                            char why[200], tile[320];
                            if (!plan_tile(&s, (wg_swizzle)sw, rank, box, role, smem, kb, &t) ||
                                wg_find_desc(&t, &s, &ok, why, sizeof why) != ERR_OK)
                                continue;
                            tile_flags(tile, sizeof tile, &s, (wg_swizzle)sw, rank, box, role, smem, kb);
                            add(g, &s, &ok, "ok", tile, smem);
                            if (kb == 0)
                                start0 = ok.start;
                            if (kb == nkb - 1)
                                add_wrong(g, &s, &ok, tile, smem, oi == 1 && op == 0);
                            if (kb > 0 && kb == nkb - 1) {
                                wg_desc d = ok;
                                d.start = start0;
                                add(g, &s, &d, "no_k_step", tile, smem);
                            }
                        }
                    }
                }
        }
}

/* Random descriptors (no tile): every field, start positions across the region, LBO
 * and SBO also where the layout does not use them. */
static void gen_random(gen *g, size_t count)
{
    size_t want = g->n + count;
    for (size_t tries = 0; tries < count * 20 && g->n < want; tries++) {
        wg_shape s = {.dtype = (wg_dtype)rnd(g, WG_DTYPE_COUNT), .operand = rnd(g, 2) ? WG_B : WG_A};
        s.major = (s.dtype == WG_F16 || s.dtype == WG_BF16) && rnd(g, 2) ? WG_MN_MAJOR : WG_K_MAJOR;
        s.n = 8 * (1 + rnd(g, 32));
        if ((s.dtype == WG_S8 || s.dtype == WG_U8) && s.n > 24)
            s.n &= ~15u;
        uint32_t span = rnd(g, 2) ? 64 : 260;
        wg_desc d = {.start = 16 * rnd(g, g->region / 32), .lbo = 16 * rnd(g, span), .sbo = 16 * rnd(g, span),
                     .base_offset = rnd(g, 8), .swizzle = (wg_swizzle)rnd(g, 4)};
        add(g, &s, &d, "random", NULL, 0);
    }
}

size_t wg_gen_cases(wg_case *cases, size_t max, uint32_t region)
{
    gen g = {.out = cases, .max = max, .region = region, .rng = 0x9E3779B97F4A7C15ull};
    gen_tiles(&g);
    gen_random(&g, 320);
    return g.n;
}

void wg_case_tile_flags(const wg_case *c, uint32_t base, char *out, size_t out_size)
{
    const char *at = strstr(c->tile, "--smem-address 0x");
    if (!at) {
        snprintf(out, out_size, "%s", c->tile);
        return;
    }
    const char *rest = strchr(at + 17, ' ');
    snprintf(out, out_size, "%.*s--smem-address 0x%x%s", (int)(at - c->tile), c->tile, base + c->tile_smem,
             rest ? rest : "");
}
