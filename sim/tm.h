/* tm: a CPU mirror of cuTensorMapEncodeTiled and of what a TMA tiled load or store
 * does with the encoded map on an sm_90 GPU.
 *
 * Conventions (the driver's): dimension 0 is the innermost; strides are in bytes and
 * there are rank-1 of them (stride[i] is the byte distance between consecutive
 * coordinates of dimension i+1); coordinates are signed element indices. */
#ifndef TMASCOPE_TM_H
#define TMASCOPE_TM_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TM_MAX_RANK 5

/* Values equal the driver's CUtensorMapDataType. */
typedef enum tm_dtype {
    TM_DTYPE_U8 = 0,
    TM_DTYPE_U16,
    TM_DTYPE_U32,
    TM_DTYPE_S32,
    TM_DTYPE_U64,
    TM_DTYPE_S64,
    TM_DTYPE_F16,
    TM_DTYPE_F32,
    TM_DTYPE_F64,
    TM_DTYPE_BF16,
    TM_DTYPE_F32FTZ,
    TM_DTYPE_TF32,
    TM_DTYPE_TF32FTZ,
    TM_DTYPE_16U4_ALIGN8B,
    TM_DTYPE_16U4_ALIGN16B,
    TM_DTYPE_16U6_ALIGN16B,
    TM_DTYPE_COUNT
} tm_dtype;

/* Values equal CUtensorMapInterleave. */
typedef enum tm_interleave { TM_INTERLEAVE_NONE = 0, TM_INTERLEAVE_16B, TM_INTERLEAVE_32B, TM_INTERLEAVE_COUNT } tm_interleave;

/* Values equal CUtensorMapSwizzle. */
typedef enum tm_swizzle {
    TM_SWIZZLE_NONE = 0,
    TM_SWIZZLE_32B,
    TM_SWIZZLE_64B,
    TM_SWIZZLE_128B,
    TM_SWIZZLE_128B_ATOM_32B,
    TM_SWIZZLE_128B_ATOM_32B_FLIP_8B,
    TM_SWIZZLE_128B_ATOM_64B,
    TM_SWIZZLE_COUNT
} tm_swizzle;

/* Values equal CUtensorMapL2promotion. */
typedef enum tm_l2_promotion { TM_L2_NONE = 0, TM_L2_64B, TM_L2_128B, TM_L2_256B, TM_L2_COUNT } tm_l2_promotion;

/* Values equal CUtensorMapFloatOOBfill. */
typedef enum tm_oob_fill { TM_OOB_FILL_NONE = 0, TM_OOB_FILL_NAN, TM_OOB_FILL_COUNT } tm_oob_fill;

/* Every parameter of cuTensorMapEncodeTiled. Zero-initialise, then set what you need.
 * Fields are stored exactly as given (no defaults are substituted) so that validation
 * sees what the driver would see; elem_strides of 0 is therefore rejected, as by the
 * driver. Use tm_desc_defaults() to get elem_strides of 1 everywhere. */
typedef struct tm_desc {
    tm_dtype dtype;
    uint32_t rank;                           /* 1..5 */
    uint64_t global_address;                 /* device address of element (0,...,0) */
    uint64_t dims[TM_MAX_RANK];              /* globalDim */
    uint64_t strides[TM_MAX_RANK - 1];       /* globalStrides, bytes, rank-1 used */
    uint32_t box[TM_MAX_RANK];               /* boxDim */
    uint32_t elem_strides[TM_MAX_RANK];      /* elementStrides */
    tm_interleave interleave;
    tm_swizzle swizzle;
    tm_l2_promotion l2_promotion;
    tm_oob_fill oob_fill;
    uint32_t sm_version;                     /* target architecture, 90 for H100; 0 means 90 */
} tm_desc;

/* Sets elem_strides to 1 and sm_version to 90; leaves everything else at zero. */
void tm_desc_defaults(tm_desc *d);

/* ---- data types and option names ---------------------------------------------- */

/* What the encoder and the copy engine need to know of a data type. The packed
 * types move groups of 16 sub-byte values; bits gives the per-value width. */
typedef struct tm_dtype_info {
    const char *name;          /* the CLI spelling: "f16", "16u4align8b", ... */
    uint32_t bits;             /* bits per element: 8, 16, 32, 64, 4 or 6 */
    int is_float;              /* NaN OOB fill is allowed */
    int is_packed;             /* one of the three 16-element packed types */
} tm_dtype_info;

const tm_dtype_info *tm_dtype_get(tm_dtype t);
/* Name lookups for the CLI: return 0 and set *out, or ERR_BAD_INPUT with a message
 * that lists the allowed spellings. */
int tm_dtype_parse(const char *s, tm_dtype *out, err_info *e);
int tm_swizzle_parse(const char *s, tm_swizzle *out, err_info *e);
int tm_interleave_parse(const char *s, tm_interleave *out, err_info *e);
int tm_l2_parse(const char *s, tm_l2_promotion *out, err_info *e);
int tm_oob_parse(const char *s, tm_oob_fill *out, err_info *e);
const char *tm_swizzle_name(tm_swizzle s);
const char *tm_interleave_name(tm_interleave i);
const char *tm_l2_name(tm_l2_promotion p);
const char *tm_oob_name(tm_oob_fill f);

/* ---- validation ------------------------------------------------------------------- */

/* Accepts exactly what cuTensorMapEncodeTiled accepts on the target architecture.
 * Returns ERR_OK, or ERR_FINDING with e->rule naming the rule and e->detail the value
 * (the driver itself only says CUDA_ERROR_INVALID_VALUE). */
int tm_validate(const tm_desc *d, err_info *e);

/* The rules tm_validate applies, in the order it applies them (the first failing one
 * is reported). enforced = 0 marks a documented-but-unconfirmed rule kept for when
 * the hardware recording shows the driver applies it. */
typedef struct tm_rule_info {
    const char *name;      /* the e->rule tm_validate reports */
    const char *doc;       /* one line: what is required */
    int enforced;
} tm_rule_info;
size_t tm_rule_count(void);
const tm_rule_info *tm_rule_get(size_t i);
/* Applies one rule by name (enforced or not): ERR_OK, ERR_FINDING, or ERR_BAD_INPUT
 * for an unknown name. */
int tm_validate_rule(const tm_desc *d, const char *rule, err_info *e);

/* ---- placement of one box ------------------------------------------------------- */

/* One TMA tiled copy with an encoded map: where the box starts in the tensor and
 * where it lands in shared memory (absolute shared-window byte address, as the
 * cp.async.bulk.tensor destination operand; swizzles use the absolute address). */
typedef struct tm_copy {
    int32_t coords[TM_MAX_RANK];
    uint32_t smem_address;
    /* Appended: 1 for a tensor store (shared -> global), 0 (the zero default) for a
     * load. The H100 refuses some copies in one direction only (see tm_plan.c). */
    int store;
} tm_copy;

/* The result of planning one copy: everything needed to place any element. */
typedef struct tm_plan {
    tm_desc desc;
    tm_copy copy;
    uint32_t loaded[TM_MAX_RANK];  /* elements traversed per dimension: ceil(box/elem_stride) */
    uint64_t elements;             /* product of loaded[] */
    uint32_t row_bytes;            /* bytes of one inner row as the data occupies it */
    uint32_t row_pitch;            /* bytes between consecutive inner rows in shared memory */
    uint32_t footprint_bytes;      /* shared-memory bytes from smem_address that the copy touches */
    uint32_t tx_bytes;             /* bytes complete_tx delivers to the mbarrier */
    uint32_t smem_align_required;  /* alignment the shared address needs: 128 on the H100 (tm_plan.c) */
    /* Appended: the footprint is [footprint_start, footprint_start + footprint_bytes).
     * footprint_start == copy.smem_address unless a swizzled copy starts inside a
     * 128-byte line: the swizzle then permutes chunks of that whole line. */
    uint32_t footprint_start;
    uint32_t rows;                 /* inner rows: product of loaded[1..rank-1] */
    /* Precomputed for the per-element path (read-only for callers). */
    uint32_t elem_bits;            /* bits per element in global memory */
    uint32_t step[TM_MAX_RANK];    /* coordinate step per box index (element stride) */
    uint32_t row_mul[TM_MAX_RANK]; /* row number = sum idx[i] * row_mul[i], i >= 1 */
    uint64_t gstride[TM_MAX_RANK]; /* global bytes per coordinate (dimension 0: element bytes) */
    uint32_t swizzle_xor_mask;     /* address bits the swizzle may flip */
} tm_plan;

/* Validates the map and the copy (destination alignment) and fills *p. */
int tm_plan_copy(const tm_desc *d, const tm_copy *c, tm_plan *p, err_info *e);

/* One element of the box. idx[] is the element's index inside the box (0..loaded-1
 * per dimension); coord[] the tensor coordinate it comes from. */
typedef struct tm_element {
    uint32_t idx[TM_MAX_RANK];
    int64_t coord[TM_MAX_RANK];
    uint32_t smem_address;         /* absolute address of the element's first byte */
    uint32_t bytes;                /* bytes the element occupies in shared memory */
    uint64_t global_offset;        /* byte offset from global_address (valid if !oob) */
    int oob;                       /* outside the tensor: filled with zero or NaN */
    /* Appended for the packed sub-byte types (bits 4 or 6): the element starts at bit
     * bit_offset of the byte at smem_address and spans bits bits (bytes counts every
     * byte it touches). For whole-byte types bit_offset is 0 and bits = 8 * bytes. */
    uint32_t bit_offset;
    uint32_t bits;
} tm_element;

/* Appended, interleave (tm_plan.c rules I1-I4, measured on the H100): with
 * INTERLEAVE_16B / 32B an element is a whole 16- / 32-byte granule (tm_plan.elem_bits
 * 128 / 256, bytes 16 / 32) and dimension rank-2 is not traversed (loaded[rank-2] = 1).
 * An element of more than 16 bytes is swizzled chunk by chunk: its byte b lies at
 * tm_swizzle_address(s, tm_swizzle_address(s, smem_address) + b), which for elements of
 * at most 16 bytes is simply smem_address + b. */

/* Forward query: the element with box index idx. */
void tm_plan_element(const tm_plan *p, const uint32_t idx[TM_MAX_RANK], tm_element *out);

/* Visits every element in box order (dimension 0 fastest). Stops early and returns
 * the callback's value if it returns non-zero. */
typedef int (*tm_element_fn)(const tm_element *el, void *user);
int tm_plan_foreach(const tm_plan *p, tm_element_fn fn, void *user);

/* Reverse query: which element occupies the shared-memory byte at smem_address.
 * Returns 1 and fills *out (byte_in_element says which byte of it), or 0 if the byte
 * is padding or outside the footprint. */
int tm_plan_element_at(const tm_plan *p, uint32_t smem_address, tm_element *out, uint32_t *byte_in_element);

/* The bytes TMA writes into shared memory for a load, given the global tensor's
 * bytes: smem[0..footprint_bytes) relative to footprint_start (which is smem_address
 * except for a swizzled copy that starts inside a 128-byte line; see tm_plan). Bytes the copy does not
 * write are left as they were. global_bytes is indexed by global byte offset from
 * global_address; global_size bounds it. */
int tm_plan_apply_load(const tm_plan *p, const uint8_t *global_bytes, uint64_t global_size,
                       uint8_t *smem, size_t smem_size, err_info *e);

/* The bytes a TMA store writes into the global tensor from shared memory.
 * Out-of-bounds elements are not written, except that the H100 writes each row on
 * to the next 16-byte boundary past the tensor's last element of dimension 0
 * (tm_plan.c, "stores"): global_size must therefore cover the bytes the caller
 * really has, which can be up to 15 bytes past the tensor's last byte; a write past
 * global_size is ERR_BAD_INPUT "global_buffer_size". */
int tm_plan_apply_store(const tm_plan *p, const uint8_t *smem, size_t smem_size,
                        uint8_t *global_bytes, uint64_t global_size, err_info *e);

/* The swizzle function on an absolute shared-memory byte address. */
uint32_t tm_swizzle_address(tm_swizzle s, uint32_t address);

#ifdef __cplusplus
}
#endif

#endif
