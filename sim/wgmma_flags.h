/* wgmma_flags: the command-line flags of `tmasim wgmma` (also used to read the tile
 * flags of the recorded corpus). Pure C.
 *
 *   operand:    --atype T | --btype T   (f16 bf16 tf32 e4m3 e5m2 s8 u8; the flag picks A or B)
 *               --n N                   the instruction's N (B only; default 64)
 *               --major k|mn            K-major (default) or MN-major (imm-trans 1; f16/bf16)
 *   descriptor: --desc 0xRAW            the 64-bit value, or the fields (bytes, not 16-byte units):
 *               --start-address A  --leading-byte-offset B  --stride-byte-offset B
 *               --base-offset 0..7  --swizzle-mode none|128B|64B|32B (or the codes 0..3)
 *               --k-step B              bytes a kernel adds to the start per k-block (default 0)
 *   tile:       the tensor-map flags of `tmasim layout` (tm_flags.h), and
 *               --roles k,row[,..]      what each box dimension counts (default by --major)
 *               --k-block J             the k-block the instruction reads (default 0)
 *               --row-origin R          first row of the box it reads (default 0) */
#ifndef TMASCOPE_WGMMA_FLAGS_H
#define TMASCOPE_WGMMA_FLAGS_H

#include "err.h"
#include "tm_flags.h"
#include "wgmma.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wg_flags {
    wg_shape shape;
    int has_type, has_raw, has_fields, has_roles, has_tile;
    uint64_t raw;
    wg_desc desc;
    uint32_t k_step, k_block, row_origin;
    unsigned n_roles;
    wg_role role[TM_MAX_RANK];
    tm_flags tm;
} wg_flags;

void wg_flags_init(wg_flags *f);
/* ERR_OK, ERR_BAD_INPUT (rule = the flag), or TM_FLAGS_NOT_MINE. */
int wg_flags_apply(wg_flags *f, const char *flag, const char *value, err_info *e);
/* Cross-flag checks; fills *desc (the descriptor for the k-block: start plus
 * k_block * k_step) when one was given (returns has_desc), and *tile when tile flags
 * were given. ERR_OK, ERR_BAD_INPUT, or ERR_FINDING (the driver would reject the map:
 * e names its rule). */
int wg_flags_finish(wg_flags *f, wg_desc *desc, int *has_desc, wg_tile *tile, err_info *e);
/* Reads a space-separated "--flag value ..." string (the corpus's tile column) into f. */
int wg_flags_apply_string(wg_flags *f, const char *s, err_info *e);
const char *wg_flags_usage(void);

#ifdef __cplusplus
}
#endif

#endif
