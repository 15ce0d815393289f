/* tm_plan: where a TMA tiled copy puts each element of its box in shared memory.
 *
 * The model (sm_90, CUDA 13.0):
 *  - Elements traversed per dimension: loaded[i] = ceil(boxDim[i] / elementStrides[i]);
 *    with interleave none elementStrides[0] is ignored (cuda.h), so loaded[0] = boxDim[0].
 *  - Shared memory holds the traversed elements densely, dimension 0 fastest, in "rows"
 *    of loaded[0] elements. A row occupies row_pitch bytes: its own size without
 *    swizzle; the full swizzle span with one (measured: narrow rows occupy a full span,
 *    while the mbarrier still sees the dense box size).
 *  - The swizzle permutes 16-byte chunks by the ABSOLUTE shared address (measured):
 *    address = swizzle(smem_address + row * row_pitch + byte in row).
 *  - Out-of-bounds elements (negative coordinates included) still occupy their place and
 *    count in the transaction bytes (measured); a load fills them with zero, or with NaN
 *    when oob_fill is nan; a store skips them.
 * Parts modelled from documentation only, TO BE CONFIRMED BY THE RECORDING
 * (traces/h100/validation/): interleaved layouts (row pitch rounded up to the
 * interleave granule), element strides along dimension 0 with interleave, the packed
 * sub-byte types (16 values per 8- or 16-byte group, gaps left unwritten, transaction
 * bytes counting the gaps), the 128B_atom swizzles, NaN bit patterns, and destinations
 * that are 16- but not span-aligned under a swizzle. Each lives in one small function. */
#include "tm.h"

#include <string.h>

/* ---- swizzle -------------------------------------------------------------------- */

uint32_t tm_swizzle_address(tm_swizzle s, uint32_t a)
{
    uint32_t line = a >> 7; /* index of the 128-byte line */
    switch (s) {
    case TM_SWIZZLE_32B: return a ^ ((line & 1u) << 4);
    case TM_SWIZZLE_64B: return a ^ ((line & 3u) << 4);
    case TM_SWIZZLE_128B: return a ^ ((line & 7u) << 4);
    /* sm_100 only (rejected on sm_90). From the cuda.h one-line descriptions: 32-byte
     * or 64-byte atoms permuted inside the 128-byte span; FLIP_8B also swaps the 8-byte
     * halves of each 16-byte chunk on alternate rows. UNCONFIRMED. */
    case TM_SWIZZLE_128B_ATOM_32B: return a ^ ((line & 3u) << 5);
    case TM_SWIZZLE_128B_ATOM_32B_FLIP_8B: return a ^ ((line & 3u) << 5) ^ ((line & 1u) << 3);
    case TM_SWIZZLE_128B_ATOM_64B: return a ^ ((line & 1u) << 6);
    default: return a;
    }
}

static uint32_t swizzle_span(tm_swizzle s)
{
    static const uint32_t span[TM_SWIZZLE_COUNT] = {0, 32, 64, 128, 128, 128, 128};
    return (unsigned)s < TM_SWIZZLE_COUNT ? span[s] : 0;
}

/* ---- element geometry inside one row -------------------------------------------- */

/* Packed types: 16 values form a group stored in group_bytes of shared memory; the
 * data of a group is 16 * bits / 8 bytes (8 or 12), the rest is a gap. */
static uint32_t packed_group_bytes(tm_dtype t)
{
    return t == TM_DTYPE_16U4_ALIGN8B ? 8u : 16u;
}

/* Byte in the row, and bit inside that byte, of box index i0 along dimension 0. */
static inline uint32_t row_position(const tm_plan *p, uint32_t i0, uint32_t *bit)
{
    if (p->elem_bits >= 8) {
        *bit = 0;
        return i0 * (p->elem_bits >> 3);
    }
    uint32_t pos = (i0 & 15u) * p->elem_bits;
    *bit = pos & 7u;
    return (i0 >> 4) * packed_group_bytes(p->desc.dtype) + (pos >> 3);
}

static uint32_t row_data_bytes(const tm_desc *d, uint32_t loaded0)
{
    const tm_dtype_info *ti = tm_dtype_get(d->dtype);
    if (!ti->is_packed)
        return loaded0 * (ti->bits / 8);
    return (loaded0 + 15) / 16 * packed_group_bytes(d->dtype);
}

static uint32_t round_up(uint32_t v, uint32_t m) { return m ? (v + m - 1) / m * m : v; }

/* UNCONFIRMED for interleave: each row rounded up to the interleave granule (the
 * NC/8HWC8 "C8" chunk of 16 bytes, or 32 bytes), then to the swizzle span. */
static uint32_t row_pitch_for(const tm_desc *d, uint32_t row_bytes)
{
    uint32_t pitch = row_bytes;
    if (d->interleave == TM_INTERLEAVE_16B) pitch = round_up(pitch, 16);
    if (d->interleave == TM_INTERLEAVE_32B) pitch = round_up(pitch, 32);
    if (d->swizzle != TM_SWIZZLE_NONE) pitch = round_up(pitch, swizzle_span(d->swizzle));
    return pitch;
}

/* ---- planning ------------------------------------------------------------------------ */

int tm_plan_copy(const tm_desc *d, const tm_copy *c, tm_plan *p, err_info *e)
{
    int rc = tm_validate(d, e);
    if (rc)
        return rc;
    if (!c)
        return err_set(e, ERR_BAD_INPUT, "copy", "NULL copy");
    /* The destination needs 16-byte alignment only; the reference sheet records a
     * 128B-swizzled copy accepted at a 16-byte aligned address. */
    if (c->smem_address % 16)
        return err_set(e, ERR_FINDING, "smem_address_aligned_16", "smem address = 0x%x (must be 16-byte aligned)", c->smem_address);

    memset(p, 0, sizeof *p);
    p->desc = *d;
    if (!p->desc.sm_version) p->desc.sm_version = 90;
    p->copy = *c;
    const tm_dtype_info *ti = tm_dtype_get(d->dtype);
    p->elem_bits = ti->bits;

    uint64_t elements = 1, rows = 1;
    for (uint32_t i = 0; i < TM_MAX_RANK; i++) {
        if (i >= d->rank) {
            p->loaded[i] = 1;
            p->step[i] = 1;
            continue;
        }
        uint32_t es = d->elem_strides[i];
        if (i == 0 && d->interleave == TM_INTERLEAVE_NONE)
            es = 1; /* "the first element of this array is ignored" (cuda.h) */
        p->step[i] = es;
        p->loaded[i] = (d->box[i] + es - 1) / es;
        elements *= p->loaded[i];
        if (i >= 1) {
            p->row_mul[i] = (uint32_t)rows;
            rows *= p->loaded[i];
        }
    }
    for (uint32_t i = d->rank; i < TM_MAX_RANK; i++)
        p->row_mul[i] = (uint32_t)rows;
    p->elements = elements;
    p->rows = (uint32_t)rows;

    p->gstride[0] = ti->bits >= 8 ? ti->bits / 8 : 0; /* packed: bit arithmetic instead */
    for (uint32_t i = 1; i < d->rank; i++)
        p->gstride[i] = d->strides[i - 1];

    p->row_bytes = row_data_bytes(d, p->loaded[0]);
    p->row_pitch = row_pitch_for(d, p->row_bytes);
    uint64_t dense = rows * p->row_bytes;
    uint64_t linear = rows * p->row_pitch;
    p->tx_bytes = (uint32_t)dense;
    p->smem_align_required = 16;

    uint32_t span = swizzle_span(d->swizzle);
    uint64_t start = c->smem_address, end = (uint64_t)c->smem_address + linear;
    if (span) {
        /* The swizzle flips address bits below the span only, so whole spans stay put. */
        start = start / span * span;
        end = (end + span - 1) / span * span;
    }
    /* Not an encoder rule: the copy itself would fault. An H100 SM has 228 KB of shared
     * memory (227 KB usable by one block), so no destination window reaches past it. */
    if (end > 228u * 1024u)
        return err_set(e, ERR_FINDING, "smem_footprint_within_228kb", "smem 0x%x + %llu bytes ends at 0x%llx, past 228 KB",
                       c->smem_address, (unsigned long long)linear, (unsigned long long)end);
    p->footprint_start = (uint32_t)start;
    p->footprint_bytes = (uint32_t)(end - start);
    p->swizzle_xor_mask = span ? (span == 32 ? 0x10u : span == 64 ? 0x30u : 0x78u) : 0u;
    err_clear(e);
    return ERR_OK;
}

/* ---- forward query ------------------------------------------------------------------- */

void tm_plan_element(const tm_plan *p, const uint32_t idx[TM_MAX_RANK], tm_element *out)
{
    const tm_desc *d = &p->desc;
    uint32_t row = 0;
    int64_t goff = 0;
    int oob = 0;
    for (uint32_t i = 0; i < TM_MAX_RANK; i++) {
        out->idx[i] = i < d->rank ? idx[i] : 0;
        int64_t coord = i < d->rank ? (int64_t)p->copy.coords[i] + (int64_t)out->idx[i] * p->step[i] : 0;
        out->coord[i] = coord;
        if (i >= d->rank)
            continue;
        if (coord < 0 || (uint64_t)coord >= d->dims[i])
            oob = 1;
        if (i >= 1) {
            row += out->idx[i] * p->row_mul[i];
            goff += coord * (int64_t)p->gstride[i];
        }
    }
    uint32_t bit = 0;
    uint32_t in_row = row_position(p, out->idx[0], &bit);
    if (p->elem_bits >= 8) {
        goff += out->coord[0] * (int64_t)p->gstride[0];
        out->bytes = p->elem_bits >> 3;
    } else {
        goff += out->coord[0] * (int64_t)p->elem_bits / 8; /* byte holding the first bit */
        out->bytes = (bit + p->elem_bits + 7) / 8;
    }
    out->smem_address = tm_swizzle_address(d->swizzle, p->copy.smem_address + row * p->row_pitch + in_row);
    out->bit_offset = bit;
    out->bits = p->elem_bits;
    out->global_offset = (uint64_t)goff;
    out->oob = oob;
}

/* Row by row: the outer dimensions are worked out once per row, the inner loop only
 * adds. This is the path `make bench` measures. */
int tm_plan_foreach(const tm_plan *p, tm_element_fn fn, void *user)
{
    const tm_desc *d = &p->desc;
    uint32_t idx[TM_MAX_RANK] = {0};
    tm_element el;
    const uint32_t loaded0 = p->loaded[0];
    const int64_t c0 = p->copy.coords[0], step0 = p->step[0];
    const uint64_t dim0 = d->dims[0];
    /* tm_swizzle_address as one branch-free formula: a ^ (((a >> 7) & m) << sh) ^
     * (((a >> 7) & flip) << 3); checked against it by the property tests. */
    static const uint32_t sw_m[TM_SWIZZLE_COUNT] = {0, 1, 3, 7, 3, 3, 1};
    static const uint32_t sw_sh[TM_SWIZZLE_COUNT] = {4, 4, 4, 4, 5, 5, 6};
    static const uint32_t sw_flip[TM_SWIZZLE_COUNT] = {0, 0, 0, 0, 0, 1, 0};
    const uint32_t m = sw_m[d->swizzle], sh = sw_sh[d->swizzle], flip = sw_flip[d->swizzle];
    const int whole_bytes = p->elem_bits >= 8;
    const uint32_t ebytes = p->elem_bits >> 3;
    for (uint32_t row = 0; row < p->rows; row++) {
        tm_plan_element(p, idx, &el);
        int outer_oob = 0;
        for (uint32_t i = 1; i < d->rank; i++)
            if (el.coord[i] < 0 || (uint64_t)el.coord[i] >= d->dims[i])
                outer_oob = 1;
        const uint32_t row_base = p->copy.smem_address + row * p->row_pitch;
        const uint64_t row_goff = el.global_offset - (uint64_t)(c0 * (int64_t)(whole_bytes ? ebytes : 0));
        for (uint32_t i0 = 0; i0 < loaded0; i0++) {
            int64_t coord0 = c0 + (int64_t)i0 * step0;
            el.idx[0] = i0;
            el.coord[0] = coord0;
            el.oob = outer_oob | (coord0 < 0) | ((uint64_t)coord0 >= dim0);
            if (whole_bytes) {
                uint32_t a = row_base + i0 * ebytes;
                el.smem_address = a ^ (((a >> 7) & m) << sh) ^ (((a >> 7) & flip) << 3);
                el.global_offset = row_goff + (uint64_t)(coord0 * (int64_t)ebytes);
            } else {
                idx[0] = i0; /* packed types: rare, so the general path */
                tm_plan_element(p, idx, &el);
            }
            int rc = fn(&el, user);
            if (rc)
                return rc;
        }
        idx[0] = 0;
        for (uint32_t i = 1; i < d->rank; i++) {
            if (++idx[i] < p->loaded[i])
                break;
            idx[i] = 0;
        }
    }
    return 0;
}

/* ---- reverse query ------------------------------------------------------------------- */

int tm_plan_element_at(const tm_plan *p, uint32_t smem_address, tm_element *out, uint32_t *byte_in_element)
{
    if (smem_address < p->footprint_start || smem_address - p->footprint_start >= p->footprint_bytes)
        return 0;
    /* Every swizzle only flips bits below bit 7 with bits 7 and up: it is its own inverse. */
    uint32_t linear = tm_swizzle_address(p->desc.swizzle, smem_address);
    if (linear < p->copy.smem_address)
        return 0;
    uint32_t off = linear - p->copy.smem_address;
    uint32_t row = off / p->row_pitch, in_row = off % p->row_pitch;
    if (row >= p->rows || in_row >= p->row_bytes)
        return 0;
    uint32_t idx[TM_MAX_RANK] = {0};
    uint32_t byte = 0;
    if (p->elem_bits >= 8) {
        idx[0] = in_row / (p->elem_bits >> 3);
        byte = in_row % (p->elem_bits >> 3);
    } else {
        uint32_t gb = packed_group_bytes(p->desc.dtype);
        uint32_t data = 16 * p->elem_bits / 8;
        uint32_t group = in_row / gb, in_group = in_row % gb;
        if (in_group >= data)
            return 0; /* gap of an ALIGN16B group */
        /* The first value that has a bit in this byte. */
        uint32_t j = in_group * 8 / p->elem_bits;
        idx[0] = group * 16 + j;
        byte = in_group - (j * p->elem_bits) / 8;
    }
    if (idx[0] >= p->loaded[0])
        return 0;
    for (uint32_t i = p->desc.rank; i-- > 1;) {
        idx[i] = row / p->row_mul[i];
        row %= p->row_mul[i];
    }
    tm_plan_element(p, idx, out);
    if (byte_in_element)
        *byte_in_element = byte;
    return 1;
}

/* ---- data movement ------------------------------------------------------------------- */

/* UNCONFIRMED: the documentation does not give the NaN; these are the canonical
 * all-ones-mantissa quiet NaNs NVIDIA GPUs produce. The recording decides. */
static uint64_t nan_pattern(tm_dtype t)
{
    switch (t) {
    case TM_DTYPE_F16:
    case TM_DTYPE_BF16: return 0x7FFFu;
    case TM_DTYPE_F32:
    case TM_DTYPE_F32FTZ:
    case TM_DTYPE_TF32:
    case TM_DTYPE_TF32FTZ: return 0x7FFFFFFFu;
    case TM_DTYPE_F64: return 0x7FFFFFFFFFFFFFFFull;
    default: return 0;
    }
}

static uint32_t get_bits(const uint8_t *base, uint64_t bitpos, uint32_t n)
{
    uint32_t v = 0;
    for (uint32_t k = 0; k < n; k++, bitpos++)
        v |= (uint32_t)((base[bitpos >> 3] >> (bitpos & 7)) & 1u) << k;
    return v;
}

static void put_bits(uint8_t *base, uint64_t bitpos, uint32_t n, uint32_t v)
{
    for (uint32_t k = 0; k < n; k++, bitpos++) {
        uint8_t m = (uint8_t)(1u << (bitpos & 7));
        if ((v >> k) & 1u) base[bitpos >> 3] |= m;
        else base[bitpos >> 3] &= (uint8_t)~m;
    }
}

typedef struct move_ctx {
    const tm_plan *p;
    uint8_t *smem;
    const uint8_t *smem_in;
    size_t smem_size;
    uint8_t *global;
    const uint8_t *global_in;
    uint64_t global_size;
    uint64_t nan;
    int store;
    err_info *e;
} move_ctx;

/* Global bit position of a packed element: the row's byte offset plus coord0 * bits. */
static uint64_t packed_global_bit(const tm_plan *p, const tm_element *el)
{
    int64_t bytes = 0;
    for (uint32_t i = 1; i < p->desc.rank; i++)
        bytes += el->coord[i] * (int64_t)p->gstride[i];
    return (uint64_t)(bytes * 8 + el->coord[0] * (int64_t)p->elem_bits);
}

static int move_one(const tm_element *el, void *user)
{
    move_ctx *m = user;
    const tm_plan *p = m->p;
    uint32_t s = el->smem_address - p->footprint_start;
    if (m->store && el->oob)
        return 0;
    if (p->elem_bits < 8) {
        uint64_t gbit = el->oob ? 0 : packed_global_bit(p, el);
        if (!el->oob && (gbit + p->elem_bits + 7) / 8 > m->global_size)
            return err_set(m->e, ERR_BAD_INPUT, "global_buffer_size", "element at bit %llu past %llu bytes",
                           (unsigned long long)gbit, (unsigned long long)m->global_size);
        uint64_t sbit = (uint64_t)s * 8 + el->bit_offset;
        if (m->store)
            put_bits(m->global, gbit, p->elem_bits, get_bits(m->smem_in, sbit, p->elem_bits));
        else
            put_bits(m->smem, sbit, p->elem_bits, el->oob ? 0u : get_bits(m->global_in, gbit, p->elem_bits));
        return 0;
    }
    uint32_t n = el->bytes;
    if (!el->oob && (el->global_offset > m->global_size || m->global_size - el->global_offset < n))
        return err_set(m->e, ERR_BAD_INPUT, "global_buffer_size", "element at global offset %llu + %u past %llu bytes",
                       (unsigned long long)el->global_offset, n, (unsigned long long)m->global_size);
    if (m->store) {
        memcpy(m->global + el->global_offset, m->smem_in + s, n);
    } else if (el->oob) {
        for (uint32_t k = 0; k < n; k++) /* little-endian */
            m->smem[s + k] = (uint8_t)(m->nan >> (8 * k));
    } else {
        memcpy(m->smem + s, m->global_in + el->global_offset, n);
    }
    return 0;
}

int tm_plan_apply_load(const tm_plan *p, const uint8_t *global_bytes, uint64_t global_size,
                       uint8_t *smem, size_t smem_size, err_info *e)
{
    if (smem_size < p->footprint_bytes)
        return err_set(e, ERR_BAD_INPUT, "smem_buffer_size", "%zu bytes < footprint %u", smem_size, p->footprint_bytes);
    move_ctx m = {p, smem, NULL, smem_size, NULL, global_bytes, global_size, 0, 0, e};
    if (p->desc.oob_fill == TM_OOB_FILL_NAN)
        m.nan = nan_pattern(p->desc.dtype);
    int rc = tm_plan_foreach(p, move_one, &m);
    if (!rc) err_clear(e);
    return rc;
}

int tm_plan_apply_store(const tm_plan *p, const uint8_t *smem, size_t smem_size,
                        uint8_t *global_bytes, uint64_t global_size, err_info *e)
{
    if (smem_size < p->footprint_bytes)
        return err_set(e, ERR_BAD_INPUT, "smem_buffer_size", "%zu bytes < footprint %u", smem_size, p->footprint_bytes);
    move_ctx m = {p, NULL, smem, smem_size, global_bytes, NULL, global_size, 0, 1, e};
    int rc = tm_plan_foreach(p, move_one, &m);
    if (!rc) err_clear(e);
    return rc;
}
