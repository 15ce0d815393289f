/* tm_flags: the driver-named command-line flags of `tmasim layout` and `tmahw layout`,
 * parsed into a tm_desc + tm_copy. Pure C, callable from C++ (nvcc).
 *
 * Flags (lists comma-separated, innermost dimension first as the driver takes them;
 * numbers decimal or 0x hex):
 *   --dtype T            u8 u16 u32 s32 u64 s64 f16 f32 f64 bf16 f32ftz tf32 tf32ftz
 *                        16u4align8b 16u4align16b 16u6align16b          (required)
 *   --dims D0,...        globalDim; its length is the rank              (required)
 *   --strides S1,...     globalStrides in bytes, rank-1 of them
 *                        (default: dense, S1 = D0 * element size, S2 = S1 * D1, ...)
 *   --box B0,...         boxDim, rank of them                           (required)
 *   --elem-strides E0,.. elementStrides, rank of them (default all 1)
 *   --interleave I       none 16B 32B                                   (default none)
 *   --swizzle S          none 32B 64B 128B 128B_atom_32B 128B_atom_32B_flip_8B 128B_atom_64B
 *   --l2-promotion L     none 64B 128B 256B                             (default none)
 *   --oob-fill F         none nan                                       (default none)
 *   --global-address A   device address of element 0 (default TM_FLAGS_DEFAULT_GLOBAL_ADDRESS)
 *   --coords C0,...      box start, signed, rank of them (default all 0)
 *   --smem-address A     absolute shared-memory destination (default TM_FLAGS_DEFAULT_SMEM_ADDRESS)
 *   --sm N               target architecture, 90 = H100 (default 90)
 *
 * Usage: tm_flags_init(); tm_flags_apply() for each (flag, value) pair, in any order
 * (a flag given twice: the last one wins); tm_flags_finish(). Values outside what the
 * flag can hold (not a number, a name not in the list, more than 5 entries) are
 * ERR_BAD_INPUT; values the driver would reject (box 257, stride 24, ...) are NOT
 * checked here: tm_validate() reports those as findings. */
#ifndef TMASCOPE_TM_FLAGS_H
#define TMASCOPE_TM_FLAGS_H

#include "err.h"
#include "tm.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TM_FLAGS_DEFAULT_GLOBAL_ADDRESS 0x10000000ull /* 1024-byte aligned, like cudaMalloc's */
#define TM_FLAGS_DEFAULT_SMEM_ADDRESS 0x400u          /* 1024-byte aligned */

/* tm_flags_apply's answer for a flag that is not one of the above: the caller's own. */
#define TM_FLAGS_NOT_MINE (-1)

typedef struct tm_flags {
    tm_desc desc;
    tm_copy copy;
    unsigned n_dims, n_strides, n_box, n_elem_strides, n_coords; /* entries given */
    unsigned given;                                              /* TM_FLAG_* bits */
} tm_flags;

enum {
    TM_FLAG_DTYPE = 1u << 0,
    TM_FLAG_DIMS = 1u << 1,
    TM_FLAG_STRIDES = 1u << 2,
    TM_FLAG_BOX = 1u << 3,
    TM_FLAG_ELEM_STRIDES = 1u << 4,
    TM_FLAG_INTERLEAVE = 1u << 5,
    TM_FLAG_SWIZZLE = 1u << 6,
    TM_FLAG_L2_PROMOTION = 1u << 7,
    TM_FLAG_OOB_FILL = 1u << 8,
    TM_FLAG_GLOBAL_ADDRESS = 1u << 9,
    TM_FLAG_COORDS = 1u << 10,
    TM_FLAG_SMEM_ADDRESS = 1u << 11,
    TM_FLAG_SM = 1u << 12,
};

/* Zeroes *f and sets the defaults listed above. */
void tm_flags_init(tm_flags *f);

/* 1 if flag (with or without the leading "--") is one of the flags above; each of
 * them takes exactly one value. */
int tm_flags_is_mine(const char *flag);

/* Applies one flag. Returns ERR_OK, ERR_BAD_INPUT (e->rule is the flag, e->detail the
 * value and what is allowed), or TM_FLAGS_NOT_MINE (e untouched). */
int tm_flags_apply(tm_flags *f, const char *flag, const char *value, err_info *e);

/* Cross-flag input checks and defaults that depend on other flags: --dtype, --dims and
 * --box present; --box, --elem-strides, --coords with rank entries and --strides with
 * rank-1; dense strides when --strides is absent. ERR_OK or ERR_BAD_INPUT. */
int tm_flags_finish(tm_flags *f, err_info *e);

/* The flag summary above, for --help texts. */
const char *tm_flags_usage(void);

/* Writes the flags that reproduce (d, c) on one line, e.g. for recorded cases.
 * Returns the length it needed (snprintf style). */
int tm_flags_format(const tm_desc *d, const tm_copy *c, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
