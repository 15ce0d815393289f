/* wgmma_gen: the cases of the wgmma descriptor corpus (recorded by `tmahw wgmma-record`,
 * replayed by `tmasim replay --wgmma`): TMA tiles of every dtype, operand, major-ness
 * and swizzle at aligned and misaligned shared addresses, the descriptor that reads each
 * k-block of them right, the wrong descriptors users write for the same tiles, and
 * random descriptors. Addresses are relative to a 1024-aligned region of `region` bytes;
 * the recorder adds the region's absolute address. Pure C. */
#ifndef TMASCOPE_WGMMA_GEN_H
#define TMASCOPE_WGMMA_GEN_H

#include <stddef.h>

#include "wgmma.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wg_case {
    char name[64];
    char variant[32];       /* ok, lbo_sbo_swapped, bytes_not_units, swizzle_tm_code, base_offset_N, ... */
    wg_shape shape;
    wg_desc desc;           /* start relative to the region */
    int has_tile;
    char tile[320];         /* tmasim wgmma tile flags; --smem-address relative to the region */
    uint32_t tile_smem;     /* the tile's relative shared address */
} wg_case;

/* Fills cases[0..max) and returns how many there are (call with max 0 to count). */
size_t wg_gen_cases(wg_case *cases, size_t max, uint32_t region);

/* Rewrites the tile flags with the absolute shared address base + tile_smem. */
void wg_case_tile_flags(const wg_case *c, uint32_t base, char *out, size_t out_size);

#ifdef __cplusplus
}
#endif

#endif
