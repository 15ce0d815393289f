/* wgmma_check: a descriptor against the TMA copy that wrote its tile (see wgmma.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wgmma.h"

void wg_tile_default_roles(wg_major m, uint32_t rank, wg_role role[TM_MAX_RANK])
{
    wg_role inner = m == WG_K_MAJOR ? WG_ROLE_K : WG_ROLE_ROW;
    wg_role outer = m == WG_K_MAJOR ? WG_ROLE_ROW : WG_ROLE_K;
    for (uint32_t i = 0; i < TM_MAX_RANK; i++)
        role[i] = outer;
    role[0] = inner;
    if (rank >= 3)
        role[2] = inner;
}

/* Splits a logical index of one role over the box dimensions of that role. */
static int split_role(const wg_tile *t, wg_role r, uint32_t v, uint32_t idx[TM_MAX_RANK])
{
    int last = -1;
    for (uint32_t i = 0; i < t->plan.desc.rank; i++) {
        if (t->role[i] != r)
            continue;
        idx[i] = v % t->plan.loaded[i];
        v /= t->plan.loaded[i];
        last = (int)i;
    }
    return last >= 0 && v == 0;
}

int wg_tile_address(const wg_tile *t, const wg_shape *s, uint32_t row, uint32_t k, uint32_t *address)
{
    uint32_t idx[TM_MAX_RANK] = {0};
    if (!split_role(t, WG_ROLE_ROW, t->row_origin + row, idx) ||
        !split_role(t, WG_ROLE_K, t->k_block * wg_k(s->dtype) + k, idx))
        return 0;
    tm_element el;
    tm_plan_element(&t->plan, idx, &el);
    *address = el.smem_address;
    return 1;
}

int wg_tile_element_at(const wg_tile *t, uint32_t address, uint32_t *row, uint32_t *k)
{
    tm_element el;
    uint32_t byte;
    if (!tm_plan_element_at(&t->plan, address, &el, &byte) || byte != 0)
        return 0;
    uint32_t v[2] = {0, 0}, mul[2] = {1, 1};
    for (uint32_t i = 0; i < t->plan.desc.rank; i++) {
        v[t->role[i]] += el.idx[i] * mul[t->role[i]];
        mul[t->role[i]] *= t->plan.loaded[i];
    }
    if (v[WG_ROLE_ROW] < t->row_origin)
        return 0;
    *row = v[WG_ROLE_ROW] - t->row_origin;
    *k = v[WG_ROLE_K];
    return 1;
}

static int tile_addresses(const wg_tile *t, const wg_shape *s, uint32_t *want)
{
    uint32_t rows = wg_rows(s), K = wg_k(s->dtype), held = 0;
    for (uint32_t r = 0; r < rows; r++)
        for (uint32_t k = 0; k < K; k++) {
            uint32_t a;
            want[r * K + k] = wg_tile_address(t, s, r, k, &a) ? a : WG_NOWHERE;
            held += want[r * K + k] != WG_NOWHERE;
        }
    return held == rows * K;
}

static int agrees(const wg_shape *s, const wg_desc *d, const uint32_t *want)
{
    uint32_t rows = wg_rows(s), K = wg_k(s->dtype);
    for (uint32_t r = 0; r < rows; r++)
        for (uint32_t k = 0; k < K; k++)
            if (wg_element_address(s, d, r, k) != want[r * K + k])
                return 0;
    return 1;
}

/* The fields one candidate (swizzle mode, base offset) implies: the pre-swizzle
 * addresses of the first element and of its neighbours one core-matrix step away. */
static int candidate(const wg_shape *s, const uint32_t *want, wg_swizzle sw, uint32_t bo, wg_desc *d)
{
    uint32_t K = wg_k(s->dtype), E = wg_dtype_bytes(s->dtype), W = wg_swizzle_width(sw), rows = wg_rows(s);
    uint32_t per16 = 16 / E;
#define PRE(r, k) wg_swizzle_address(sw, bo, want[(r) * K + (k)])
    memset(d, 0, sizeof *d);
    d->swizzle = sw;
    d->base_offset = bo;
    d->start = PRE(0, 0);
    if (d->start % 16)
        return 0;
    uint32_t step_row = s->major == WG_K_MAJOR ? 8 : (W == 16 ? per16 : W / E);
    uint32_t a = rows > step_row ? PRE(step_row, 0) - d->start : 0;
    uint32_t b = 0;
    if (s->major == WG_K_MAJOR) {
        b = W == 16 ? PRE(0, per16) - d->start : 16; /* LBO is not used by swizzled K-major */
        d->sbo = rows > 8 ? a : 16;
        d->lbo = b;
    } else {
        b = PRE(0, 8) - d->start;
        if (W == 16) {
            d->sbo = rows > step_row ? a : 16;
            d->lbo = b;
        } else {
            d->lbo = rows > step_row ? a : 16;
            d->sbo = b;
        }
    }
#undef PRE
    return d->lbo % 16 == 0 && d->sbo % 16 == 0 && d->lbo < (1u << 18) && d->sbo < (1u << 18) && d->lbo &&
           d->sbo;
}

static int find_desc(const wg_tile *t, const wg_shape *s, const uint32_t *want, wg_desc *fix, char *why,
                     size_t why_size)
{
    int tm_mode = wg_swizzle_from_tm(t->plan.desc.swizzle);
    if (t->plan.desc.interleave != TM_INTERLEAVE_NONE) {
        snprintf(why, why_size, "the tensor map interleaves (%s); wgmma reads plain or swizzled rows only",
                 tm_interleave_name(t->plan.desc.interleave));
        return ERR_FINDING;
    }
    if (tm_mode < 0) {
        snprintf(why, why_size, "the tensor map swizzle %s has no wgmma descriptor mode (none 32B 64B 128B)",
                 tm_swizzle_name(t->plan.desc.swizzle));
        return ERR_FINDING;
    }
    for (int m = 0; m < 4; m++) {
        wg_swizzle sw = (wg_swizzle)(m == 0 ? tm_mode : (m == tm_mode ? 0 : m));
        for (uint32_t bo = 0; bo < 8; bo++) {
            wg_desc d;
            if (candidate(s, want, sw, bo, &d) && agrees(s, &d, want)) {
                *fix = d;
                return ERR_OK;
            }
        }
    }
    if (want[0] % 16)
        snprintf(why, why_size, "element (0,0) is at 0x%x, not on a 16-byte boundary as a start address must be",
                 want[0]);
    else
        snprintf(why, why_size,
                 "no start, LBO, SBO, base offset and swizzle reproduce the tile: with swizzle %s wgmma reads "
                 "core matrices of 8 rows %u bytes apart; this tile's rows are %u bytes apart",
                 wg_swizzle_name((wg_swizzle)tm_mode), wg_swizzle_width((wg_swizzle)tm_mode), t->plan.row_pitch);
    return ERR_FINDING;
}

static int tile_lacks(const wg_tile *t, const wg_shape *s, char *why, size_t why_size)
{
    uint32_t rows = 1, ks = 1;
    for (uint32_t i = 0; i < t->plan.desc.rank; i++)
        *(t->role[i] == WG_ROLE_K ? &ks : &rows) *= t->plan.loaded[i];
    snprintf(why, why_size,
             "the box holds %u rows x %u k; k-block %u of a %s operand needs rows %u..%u and k %u..%u",
             rows, ks, t->k_block, s->operand == WG_A ? "A" : "B", t->row_origin, t->row_origin + wg_rows(s) - 1,
             t->k_block * wg_k(s->dtype), (t->k_block + 1) * wg_k(s->dtype) - 1);
    return ERR_FINDING;
}

int wg_find_desc(const wg_tile *t, const wg_shape *s, wg_desc *fix, char *why, size_t why_size)
{
    uint32_t *want = malloc(sizeof *want * wg_elements(s));
    if (!want) {
        snprintf(why, why_size, "out of memory");
        return ERR_IO;
    }
    int rc = tile_addresses(t, s, want) ? find_desc(t, s, want, fix, why, why_size) : tile_lacks(t, s, why, why_size);
    free(want);
    return rc;
}

int wg_check_tile(const wg_tile *t, const wg_shape *s, const wg_desc *d, const uint32_t *observed, wg_check *out,
                  err_info *e)
{
    if (wg_shape_check(s, e) || wg_desc_check(d, e))
        return ERR_BAD_INPUT;
    memset(out, 0, sizeof *out);
    uint32_t n = wg_elements(s), K = wg_k(s->dtype);
    uint32_t *want = malloc(sizeof *want * n * 2);
    if (!want)
        return err_set(e, ERR_IO, "memory", "%u addresses", n);
    uint32_t *read = want + n;
    if (observed)
        memcpy(read, observed, sizeof *read * n);
    else
        wg_addresses(s, d, read);
    int whole = tile_addresses(t, s, want);
    out->elements = n;
    for (uint32_t i = 0; i < n; i++) {
        if (read[i] == want[i] && want[i] != WG_NOWHERE)
            continue;
        int seen = 0; /* one line per pair of 16-byte chunks: the elements of a chunk go together */
        for (uint32_t j = 0; j < out->n_first && !seen; j++)
            seen = out->first[j].read_address / 16 == read[i] / 16 && out->first[j].want_address / 16 == want[i] / 16;
        if (!seen && out->n_first < WG_MISMATCH_MAX) {
            wg_mismatch *m = &out->first[out->n_first++];
            m->row = i / K;
            m->k = i % K;
            m->read_address = read[i];
            m->want_address = want[i];
            m->has_read_element = read[i] != WG_NOWHERE && wg_tile_element_at(t, read[i], &m->read_row, &m->read_k);
        }
        out->mismatches++;
    }
    int rc = whole ? find_desc(t, s, want, &out->fix, out->why_none, sizeof out->why_none)
                   : tile_lacks(t, s, out->why_none, sizeof out->why_none);
    out->has_fix = rc == ERR_OK;
    free(want);
    return out->mismatches ? ERR_FINDING : ERR_OK;
}
