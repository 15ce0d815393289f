/* wgmma: descriptor addressing of shared-memory operands (see wgmma.h).
 *
 * Address of operand element (row, k), E bytes per element, W = swizzle row width
 * (16 for none), in "pre-swizzle" bytes from the start address:
 *   K-major,  no swizzle: (row/8)*SBO + (row%8)*16 + (kb/16)*LBO + kb%16       kb = k*E
 *   K-major,  swizzled:   (row/8)*SBO + (row%8)*W  + kb          (LBO not used)
 *   MN-major, no swizzle: (rb/16)*SBO + (k/8)*LBO  + (k%8)*16 + rb%16          rb = row*E
 *   MN-major, swizzled:   (rb/W)*LBO  + (k/8)*SBO  + (k%8)*W  + rb%W
 * That is the PTX ISA's canonical layouts (core matrices of 8 rows by 16 bytes; LBO and
 * SBO exchange roles between MN-major without and with a swizzle). The sum is then
 * swizzled on the absolute address (wg_swizzle_address). Both steps agree with every
 * case recorded under traces/h200/wgmma (tmasim replay --wgmma). */
#include "wgmma.h"

#include <stdio.h>
#include <string.h>

static const char *const dtype_names[WG_DTYPE_COUNT] = {"f16", "bf16", "tf32", "e4m3", "e5m2", "s8", "u8"};
static const uint8_t dtype_bytes[WG_DTYPE_COUNT] = {2, 2, 4, 1, 1, 1, 1};
static const char *const swz_names[4] = {"none", "128B", "64B", "32B"};
static const uint16_t swz_width[4] = {16, 128, 64, 32};

const char *wg_dtype_name(wg_dtype t) { return (unsigned)t < WG_DTYPE_COUNT ? dtype_names[t] : "?"; }
uint32_t wg_dtype_bytes(wg_dtype t) { return (unsigned)t < WG_DTYPE_COUNT ? dtype_bytes[t] : 0; }
uint32_t wg_k(wg_dtype t) { return 32u / wg_dtype_bytes(t); }
const char *wg_swizzle_name(wg_swizzle s) { return (unsigned)s < 4 ? swz_names[s] : "?"; }
uint32_t wg_swizzle_width(wg_swizzle s) { return swz_width[s & 3]; }

int wg_dtype_parse(const char *s, wg_dtype *out, err_info *e)
{
    for (int i = 0; i < WG_DTYPE_COUNT; i++)
        if (!strcmp(s, dtype_names[i])) {
            *out = (wg_dtype)i;
            return ERR_OK;
        }
    return err_set(e, ERR_BAD_INPUT, "dtype", "'%s' is not one of: f16 bf16 tf32 e4m3 e5m2 s8 u8", s);
}

int wg_swizzle_parse(const char *s, wg_swizzle *out, err_info *e)
{
    for (int i = 0; i < 4; i++)
        if (!strcmp(s, swz_names[i])) {
            *out = (wg_swizzle)i;
            return ERR_OK;
        }
    if (s[0] >= '0' && s[0] <= '3' && !s[1]) {
        *out = (wg_swizzle)(s[0] - '0');
        return ERR_OK;
    }
    return err_set(e, ERR_BAD_INPUT, "swizzle", "'%s' is not one of: none 128B 64B 32B (or the codes 0 1 2 3)", s);
}

int wg_swizzle_from_tm(tm_swizzle s)
{
    switch (s) {
    case TM_SWIZZLE_NONE: return WG_SWZ_NONE;
    case TM_SWIZZLE_32B: return WG_SWZ_32B;
    case TM_SWIZZLE_64B: return WG_SWZ_64B;
    case TM_SWIZZLE_128B: return WG_SWZ_128B;
    default: return -1;
    }
}

uint32_t wg_rows(const wg_shape *s) { return s->operand == WG_A ? 64u : s->n; }
uint32_t wg_elements(const wg_shape *s) { return wg_rows(s) * wg_k(s->dtype); }

int wg_shape_check(const wg_shape *s, err_info *e)
{
    if ((unsigned)s->dtype >= WG_DTYPE_COUNT)
        return err_set(e, ERR_BAD_INPUT, "dtype", "%d is not one of: f16 bf16 tf32 e4m3 e5m2 s8 u8", (int)s->dtype);
    if (s->operand != WG_A && s->operand != WG_B)
        return err_set(e, ERR_BAD_INPUT, "operand", "%d is not one of: a b", (int)s->operand);
    if (s->major != WG_K_MAJOR && s->major != WG_MN_MAJOR)
        return err_set(e, ERR_BAD_INPUT, "major", "%d is not one of: k mn", (int)s->major);
    if (s->major == WG_MN_MAJOR && s->dtype != WG_F16 && s->dtype != WG_BF16)
        return err_set(e, ERR_BAD_INPUT, "major", "mn (transposed) operands exist for f16 and bf16 only, not %s",
                       wg_dtype_name(s->dtype));
    if (s->operand == WG_B) {
        int integer = s->dtype == WG_S8 || s->dtype == WG_U8;
        int ok = s->n >= 8 && s->n <= 256 && s->n % 8 == 0 && (!integer || s->n <= 24 || s->n % 16 == 0);
        if (!ok)
            return err_set(e, ERR_BAD_INPUT, "n", "%u is not a valid N for %s (8..256 step 8%s)", s->n,
                           wg_dtype_name(s->dtype), integer ? "; above 24 step 16" : "");
    }
    return ERR_OK;
}

int wg_desc_check(const wg_desc *d, err_info *e)
{
    const struct { const char *name; uint32_t v; } f[3] = {{"start", d->start}, {"lbo", d->lbo}, {"sbo", d->sbo}};
    for (int i = 0; i < 3; i++)
        if (f[i].v % 16 || f[i].v >= (1u << 18))
            return err_set(e, ERR_BAD_INPUT, f[i].name, "%u is not a multiple of 16 below 262144 (bytes)", f[i].v);
    if (d->base_offset > 7)
        return err_set(e, ERR_BAD_INPUT, "base-offset", "%u is not in 0..7", d->base_offset);
    if ((unsigned)d->swizzle > 3)
        return err_set(e, ERR_BAD_INPUT, "swizzle", "%d is not one of: none 128B 64B 32B", (int)d->swizzle);
    return ERR_OK;
}

uint64_t wg_desc_encode(const wg_desc *d)
{
    return (uint64_t)((d->start >> 4) & 0x3FFF) | (uint64_t)((d->lbo >> 4) & 0x3FFF) << 16 |
           (uint64_t)((d->sbo >> 4) & 0x3FFF) << 32 | (uint64_t)(d->base_offset & 7) << 49 |
           (uint64_t)(d->swizzle & 3) << 62;
}

void wg_desc_decode(uint64_t raw, wg_desc *d)
{
    d->start = (uint32_t)(raw & 0x3FFF) << 4;
    d->lbo = (uint32_t)((raw >> 16) & 0x3FFF) << 4;
    d->sbo = (uint32_t)((raw >> 32) & 0x3FFF) << 4;
    d->base_offset = (uint32_t)((raw >> 49) & 7);
    d->swizzle = (wg_swizzle)((raw >> 62) & 3);
}

/* The 16-byte chunk bits (4-6; 4-5 for 64B, 4 for 32B) are XORed with the row bits
 * 7-9 of the absolute address less the base offset. Measured (traces/h200/wgmma,
 * variants base_offset_N): a nonzero base offset shifts the pattern in every mode,
 * 32B included, and a tile that TMA wrote anywhere reads right with base offset 0,
 * because TMA too swizzles on the absolute address. */
uint32_t wg_swizzle_address(wg_swizzle s, uint32_t base_offset, uint32_t a)
{
    static const uint32_t mask[4] = {0, 7, 3, 1};
    uint32_t row = ((a >> 7) - base_offset) & mask[s & 3];
    return a ^ (row << 4);
}

static inline uint32_t pre_offset(wg_major major, uint32_t E, uint32_t W, const wg_desc *d, uint32_t row,
                                  uint32_t k)
{
    if (major == WG_K_MAJOR) {
        uint32_t kb = k * E;
        if (W == 16)
            return (row >> 3) * d->sbo + (row & 7) * 16 + (kb >> 4) * d->lbo + (kb & 15);
        return (row >> 3) * d->sbo + (row & 7) * W + kb;
    }
    uint32_t rb = row * E;
    if (W == 16)
        return (rb >> 4) * d->sbo + (k >> 3) * d->lbo + (k & 7) * 16 + (rb & 15);
    return (rb / W) * d->lbo + (k >> 3) * d->sbo + (k & 7) * W + rb % W;
}

uint32_t wg_element_address(const wg_shape *s, const wg_desc *d, uint32_t row, uint32_t k)
{
    uint32_t E = wg_dtype_bytes(s->dtype), W = wg_swizzle_width(d->swizzle);
    uint32_t pre = d->start + pre_offset(s->major, E, W, d, row, k);
    return wg_swizzle_address(d->swizzle, d->base_offset, pre);
}

void wg_addresses(const wg_shape *s, const wg_desc *d, uint32_t *out)
{
    uint32_t rows = wg_rows(s), K = wg_k(s->dtype), E = wg_dtype_bytes(s->dtype), W = wg_swizzle_width(d->swizzle);
    for (uint32_t r = 0; r < rows; r++)
        for (uint32_t k = 0; k < K; k++)
            *out++ = wg_swizzle_address(d->swizzle, d->base_offset, d->start + pre_offset(s->major, E, W, d, r, k));
}
