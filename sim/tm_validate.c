/* tm_validate: what cuTensorMapEncodeTiled accepts, one named rule per requirement.
 *
 * Source of every rule: the driver's documentation of cuTensorMapEncodeTiled in
 * cuda.h (CUDA 13.0) and the rejections measured on an H100 (traces/h100/validation).
 * The driver itself only answers CUDA_ERROR_INVALID_VALUE, so the rule names are ours.
 * Rules marked UNCERTAIN are documented ambiguously; the H100 recording under
 * traces/h100/validation/ decides them. Each rule is one entry of the table below so
 * that a recording that disagrees changes one line (its check or its `enforced` flag).
 * The first failing rule in table order is reported. */
#include "tm.h"

#include <inttypes.h>
#include <stddef.h>

typedef int (*rule_check)(const tm_desc *d, const char *rule, err_info *e);

static uint32_t target_sm(const tm_desc *d) { return d->sm_version ? d->sm_version : 90; }

static int is_packed_16b(tm_dtype t)
{
    return t == TM_DTYPE_16U4_ALIGN16B || t == TM_DTYPE_16U6_ALIGN16B;
}

/* Enum values are checked first: every later rule may index tables with them. */
static int check_enums(const tm_desc *d, const char *rule, err_info *e)
{
    if ((unsigned)d->dtype >= TM_DTYPE_COUNT)
        return err_set(e, ERR_FINDING, rule, "tensorDataType = %d (allowed 0..%d)", (int)d->dtype, TM_DTYPE_COUNT - 1);
    if ((unsigned)d->interleave >= TM_INTERLEAVE_COUNT)
        return err_set(e, ERR_FINDING, rule, "interleave = %d (allowed 0..%d)", (int)d->interleave, TM_INTERLEAVE_COUNT - 1);
    if ((unsigned)d->swizzle >= TM_SWIZZLE_COUNT)
        return err_set(e, ERR_FINDING, rule, "swizzle = %d (allowed 0..%d)", (int)d->swizzle, TM_SWIZZLE_COUNT - 1);
    if ((unsigned)d->l2_promotion >= TM_L2_COUNT)
        return err_set(e, ERR_FINDING, rule, "l2Promotion = %d (allowed 0..%d)", (int)d->l2_promotion, TM_L2_COUNT - 1);
    if ((unsigned)d->oob_fill >= TM_OOB_FILL_COUNT)
        return err_set(e, ERR_FINDING, rule, "oobFill = %d (allowed 0..%d)", (int)d->oob_fill, TM_OOB_FILL_COUNT - 1);
    return ERR_OK;
}

/* Tensor maps exist from compute capability 9.0 on (cuda.h). */
static int check_sm_at_least_90(const tm_desc *d, const char *rule, err_info *e)
{
    if (target_sm(d) < 90)
        return err_set(e, ERR_FINDING, rule, "sm_%u (tensor maps need sm_90 or newer)", target_sm(d));
    return ERR_OK;
}

/* UNCERTAIN: cuda.h lists the packed 16U4/16U6 types without naming an architecture;
 * they feed Blackwell's sub-byte MMA and Hopper's TMA predates them, so the model
 * assumes the driver refuses them on sm_90 like the 128B_atom swizzles (measured). */
static int check_packed_needs_sm100(const tm_desc *d, const char *rule, err_info *e)
{
    if (tm_dtype_get(d->dtype)->is_packed && target_sm(d) < 100)
        return err_set(e, ERR_FINDING, rule, "%s on sm_%u (packed types need sm_100 or newer)",
                       tm_dtype_get(d->dtype)->name, target_sm(d));
    return ERR_OK;
}

static int check_rank_range(const tm_desc *d, const char *rule, err_info *e)
{
    if (d->rank < 1 || d->rank > TM_MAX_RANK)
        return err_set(e, ERR_FINDING, rule, "tensorRank = %u (allowed 1..%d)", d->rank, TM_MAX_RANK);
    return ERR_OK;
}

/* Measured: INTERLEAVE_32B at rank 2 rejected. */
static int check_rank_interleave(const tm_desc *d, const char *rule, err_info *e)
{
    if (d->interleave != TM_INTERLEAVE_NONE && d->rank < 3)
        return err_set(e, ERR_FINDING, rule, "tensorRank = %u with interleave %s (needs >= 3)", d->rank,
                       tm_interleave_name(d->interleave));
    return ERR_OK;
}

/* Measured: an 8-byte aligned address rejected. */
static int check_address_16(const tm_desc *d, const char *rule, err_info *e)
{
    if (d->global_address % 16)
        return err_set(e, ERR_FINDING, rule, "globalAddress = 0x%" PRIx64 " (must be 16-byte aligned)", d->global_address);
    return ERR_OK;
}

static int check_address_32_interleave(const tm_desc *d, const char *rule, err_info *e)
{
    if (d->interleave == TM_INTERLEAVE_32B && d->global_address % 32)
        return err_set(e, ERR_FINDING, rule, "globalAddress = 0x%" PRIx64 " with interleave 32B (must be 32-byte aligned)", d->global_address);
    return ERR_OK;
}

static int check_address_32_packed(const tm_desc *d, const char *rule, err_info *e)
{
    if (is_packed_16b(d->dtype) && d->global_address % 32)
        return err_set(e, ERR_FINDING, rule, "globalAddress = 0x%" PRIx64 " with %s (must be 32-byte aligned)",
                       d->global_address, tm_dtype_get(d->dtype)->name);
    return ERR_OK;
}

static int check_dims_range(const tm_desc *d, const char *rule, err_info *e)
{
    for (uint32_t i = 0; i < d->rank; i++)
        if (d->dims[i] < 1 || d->dims[i] > (1ull << 32))
            return err_set(e, ERR_FINDING, rule, "globalDim[%u] = %" PRIu64 " (allowed 1..2^32)", i, d->dims[i]);
    return ERR_OK;
}

static int check_dims0_packed_16b(const tm_desc *d, const char *rule, err_info *e)
{
    if (is_packed_16b(d->dtype) && d->dims[0] % 128)
        return err_set(e, ERR_FINDING, rule, "globalDim[0] = %" PRIu64 " with %s (must be a multiple of 128)",
                       d->dims[0], tm_dtype_get(d->dtype)->name);
    return ERR_OK;
}

static int check_dims0_packed_8b(const tm_desc *d, const char *rule, err_info *e)
{
    if (d->dtype == TM_DTYPE_16U4_ALIGN8B && d->dims[0] % 2)
        return err_set(e, ERR_FINDING, rule, "globalDim[0] = %" PRIu64 " with 16u4align8b (must be a multiple of 2)", d->dims[0]);
    return ERR_OK;
}

/* Measured: a stride not a multiple of 16 rejected. */
static int check_strides_16(const tm_desc *d, const char *rule, err_info *e)
{
    for (uint32_t i = 0; i + 1 < d->rank; i++)
        if (d->strides[i] % 16)
            return err_set(e, ERR_FINDING, rule, "globalStrides[%u] = %" PRIu64 " (must be a multiple of 16)", i, d->strides[i]);
    return ERR_OK;
}

static int check_strides_32_interleave(const tm_desc *d, const char *rule, err_info *e)
{
    if (d->interleave != TM_INTERLEAVE_32B)
        return ERR_OK;
    for (uint32_t i = 0; i + 1 < d->rank; i++)
        if (d->strides[i] % 32)
            return err_set(e, ERR_FINDING, rule, "globalStrides[%u] = %" PRIu64 " with interleave 32B (must be a multiple of 32)", i, d->strides[i]);
    return ERR_OK;
}

static int check_strides_32_packed(const tm_desc *d, const char *rule, err_info *e)
{
    if (!is_packed_16b(d->dtype))
        return ERR_OK;
    for (uint32_t i = 0; i + 1 < d->rank; i++)
        if (d->strides[i] % 32)
            return err_set(e, ERR_FINDING, rule, "globalStrides[%u] = %" PRIu64 " with %s (must be a multiple of 32)", i,
                           d->strides[i], tm_dtype_get(d->dtype)->name);
    return ERR_OK;
}

static int check_strides_below_2_40(const tm_desc *d, const char *rule, err_info *e)
{
    for (uint32_t i = 0; i + 1 < d->rank; i++)
        if (d->strides[i] >= (1ull << 40))
            return err_set(e, ERR_FINDING, rule, "globalStrides[%u] = %" PRIu64 " (must be < 2^40)", i, d->strides[i]);
    return ERR_OK;
}

/* UNCERTAIN, not enforced: cuda.h shows strides built as
 * "globalStrides[0] = globalDim[0] * elementSize + padding[0]" (so stride >= the row it
 * steps over), but only as an example, and its assert compares a byte stride with an
 * element count. Overlapping views (stride smaller than the row) are legal memory-wise.
 * Enable if the recording shows the driver rejecting them. */
static int check_stride_covers_row(const tm_desc *d, const char *rule, err_info *e)
{
    uint64_t bits = tm_dtype_get(d->dtype)->bits;
    uint64_t span = (d->dims[0] * bits + 7) / 8;
    for (uint32_t i = 0; i + 1 < d->rank; i++) {
        if (d->strides[i] < span)
            return err_set(e, ERR_FINDING, rule, "globalStrides[%u] = %" PRIu64 " < %" PRIu64 " bytes it steps over", i, d->strides[i], span);
        span = d->strides[i] * d->dims[i + 1];
    }
    return ERR_OK;
}

/* Measured: boxDim 257 and a zero box dimension rejected, 256 accepted. */
static int check_box_range(const tm_desc *d, const char *rule, err_info *e)
{
    for (uint32_t i = 0; i < d->rank; i++)
        if (d->box[i] < 1 || d->box[i] > 256)
            return err_set(e, ERR_FINDING, rule, "boxDim[%u] = %u (allowed 1..256)", i, d->box[i]);
    return ERR_OK;
}

/* Measured: an inner box that is not a multiple of 16 bytes rejected. cuda.h states
 * the rule for interleave none only, but the H100 driver applies it with interleave too:
 * encode 33 (f16 box 4 = 8 bytes, INTERLEAVE_16B) rejected, while 40 50 54 (f16 box 8 =
 * 16 bytes, 16B) and 41 (f16 box 64 = 128 bytes, 16B) and 51-53 (f16 box 16 = 32 bytes,
 * 32B) are accepted. "Multiple of 16" and ">= 16" both fit these cases; the model keeps
 * the documented form (an interleaved box of 24 bytes would tell them apart). */
static int check_box_inner_16(const tm_desc *d, const char *rule, err_info *e)
{
    uint64_t bits = (uint64_t)d->box[0] * tm_dtype_get(d->dtype)->bits;
    if (bits % 128)
        return err_set(e, ERR_FINDING, rule, "boxDim[0] = %u of %s = %" PRIu64 "%s bytes (must be a multiple of 16)", d->box[0],
                       tm_dtype_get(d->dtype)->name, bits / 8, bits % 8 ? ".5" : "");
    return ERR_OK;
}

static int check_box0_packed_16b(const tm_desc *d, const char *rule, err_info *e)
{
    if (is_packed_16b(d->dtype) && d->box[0] != 128)
        return err_set(e, ERR_FINDING, rule, "boxDim[0] = %u with %s (must be 128)", d->box[0], tm_dtype_get(d->dtype)->name);
    return ERR_OK;
}

/* The documentation says "elementStrides[0] is ignored" with no interleave; the model
 * still checks it like the others because the parameter is validated as an array
 * (UNCERTAIN: the recording decides whether elementStrides[0] = 9 passes). */
static int check_elem_strides_range(const tm_desc *d, const char *rule, err_info *e)
{
    for (uint32_t i = 0; i < d->rank; i++)
        if (d->elem_strides[i] < 1 || d->elem_strides[i] > 8)
            return err_set(e, ERR_FINDING, rule, "elementStrides[%u] = %u (allowed 1..8)", i, d->elem_strides[i]);
    return ERR_OK;
}

/* Measured: swizzle values 4, 5, 6 rejected on the H100. */
static int check_atom_swizzle_sm100(const tm_desc *d, const char *rule, err_info *e)
{
    if (d->swizzle >= TM_SWIZZLE_128B_ATOM_32B && target_sm(d) < 100)
        return err_set(e, ERR_FINDING, rule, "swizzle %s on sm_%u (needs sm_100 or newer)", tm_swizzle_name(d->swizzle), target_sm(d));
    return ERR_OK;
}

/* Measured: an inner box wider than the swizzle span rejected. */
static int check_box_inner_swizzle_span(const tm_desc *d, const char *rule, err_info *e)
{
    static const uint32_t span[TM_SWIZZLE_COUNT] = {0, 32, 64, 128, 128, 128, 128};
    if (d->interleave != TM_INTERLEAVE_NONE || d->swizzle == TM_SWIZZLE_NONE)
        return ERR_OK;
    uint64_t bytes = ((uint64_t)d->box[0] * tm_dtype_get(d->dtype)->bits + 7) / 8;
    if (bytes > span[d->swizzle])
        return err_set(e, ERR_FINDING, rule, "boxDim[0] = %u of %s = %" PRIu64 " bytes > %u (swizzle %s)", d->box[0],
                       tm_dtype_get(d->dtype)->name, bytes, span[d->swizzle], tm_swizzle_name(d->swizzle));
    return ERR_OK;
}

/* cuda.h: "When interleave is CU_TENSOR_MAP_INTERLEAVE_32B, swizzle must be
 * CU_TENSOR_MAP_SWIZZLE_32B". The H100 driver does not enforce it: encode 51
 * (INTERLEAVE_32B, SWIZZLE_NONE) and 52 (INTERLEAVE_32B, SWIZZLE_128B) are accepted,
 * like 53 (32B/32B), and the layout probes 635 636 637 (u8 INTERLEAVE_32B with swizzle
 * none, 64B, 128B) were encoded and ran. Kept, not enforced. */
static int check_interleave_32b_swizzle(const tm_desc *d, const char *rule, err_info *e)
{
    if (d->interleave == TM_INTERLEAVE_32B && d->swizzle != TM_SWIZZLE_32B)
        return err_set(e, ERR_FINDING, rule, "interleave 32B with swizzle %s (needs 32B)", tm_swizzle_name(d->swizzle));
    return ERR_OK;
}

static int check_u6_no_interleave(const tm_desc *d, const char *rule, err_info *e)
{
    if (d->dtype == TM_DTYPE_16U6_ALIGN16B && d->interleave != TM_INTERLEAVE_NONE)
        return err_set(e, ERR_FINDING, rule, "16u6align16b with interleave %s (needs none)", tm_interleave_name(d->interleave));
    return ERR_OK;
}

/* The encoder does not know whether the map will load or store, so a mode allowed for
 * either direction is accepted (128B_atom_64B is "store only" for 16U6). */
static int check_packed_swizzle(const tm_desc *d, const char *rule, err_info *e)
{
    if (!is_packed_16b(d->dtype))
        return ERR_OK;
    int ok = d->swizzle == TM_SWIZZLE_NONE || d->swizzle == TM_SWIZZLE_128B || d->swizzle == TM_SWIZZLE_128B_ATOM_32B ||
             (d->dtype == TM_DTYPE_16U6_ALIGN16B && d->swizzle == TM_SWIZZLE_128B_ATOM_64B);
    if (!ok)
        return err_set(e, ERR_FINDING, rule, "%s with swizzle %s (allowed: none 128B 128B_atom_32B%s)", tm_dtype_get(d->dtype)->name,
                       tm_swizzle_name(d->swizzle), d->dtype == TM_DTYPE_16U6_ALIGN16B ? " 128B_atom_64B" : "");
    return ERR_OK;
}

/* Measured: NaN fill on INT32 rejected. */
static int check_nan_fill_float(const tm_desc *d, const char *rule, err_info *e)
{
    if (d->oob_fill == TM_OOB_FILL_NAN && !tm_dtype_get(d->dtype)->is_float)
        return err_set(e, ERR_FINDING, rule, "oobFill nan with %s (only for floating-point types)", tm_dtype_get(d->dtype)->name);
    return ERR_OK;
}

static const struct tm_rule {
    tm_rule_info info;
    rule_check check;
} rules[] = {
    {{"enum_value_valid", "every enum parameter holds one of the driver's values", 1}, check_enums},
    {{"sm_at_least_90", "tensor maps need compute capability 9.0+", 1}, check_sm_at_least_90},
    {{"packed_dtype_needs_sm100", "UNCERTAIN: packed 16U4/16U6 types only on sm_100+", 1}, check_packed_needs_sm100},
    {{"rank_range", "tensorRank 1..5", 1}, check_rank_range},
    {{"rank_at_least_3_with_interleave", "interleave != none needs tensorRank >= 3", 1}, check_rank_interleave},
    {{"global_address_aligned_16", "globalAddress 16-byte aligned", 1}, check_address_16},
    {{"global_address_aligned_32_interleave_32b", "globalAddress 32-byte aligned with interleave 32B", 1}, check_address_32_interleave},
    {{"global_address_aligned_32_packed_align16b", "globalAddress 32-byte aligned with 16U4/16U6 ALIGN16B", 1}, check_address_32_packed},
    {{"global_dim_range", "globalDim 1..2^32", 1}, check_dims_range},
    {{"global_dim0_multiple_of_128_packed_align16b", "globalDim[0] multiple of 128 with 16U4/16U6 ALIGN16B", 1}, check_dims0_packed_16b},
    {{"global_dim0_multiple_of_2_16u4_align8b", "globalDim[0] even with 16U4_ALIGN8B", 1}, check_dims0_packed_8b},
    {{"global_stride_multiple_of_16", "globalStrides multiple of 16", 1}, check_strides_16},
    {{"global_stride_multiple_of_32_interleave_32b", "globalStrides multiple of 32 with interleave 32B", 1}, check_strides_32_interleave},
    {{"global_stride_multiple_of_32_packed_align16b", "globalStrides multiple of 32 with 16U4/16U6 ALIGN16B", 1}, check_strides_32_packed},
    {{"global_stride_below_2_pow_40", "globalStrides < 2^40", 1}, check_strides_below_2_40},
    {{"global_stride_covers_previous_dim", "UNCERTAIN, off: stride >= bytes of the dimension it steps over", 0}, check_stride_covers_row},
    {{"box_dim_range", "boxDim 1..256", 1}, check_box_range},
    {{"box_inner_bytes_multiple_of_16", "boxDim[0] * element size multiple of 16 bytes (interleave too: H100 encode 33)", 1}, check_box_inner_16},
    {{"box_dim0_is_128_packed_align16b", "boxDim[0] == 128 with 16U4/16U6 ALIGN16B", 1}, check_box0_packed_16b},
    {{"element_stride_range", "elementStrides 1..8", 1}, check_elem_strides_range},
    {{"swizzle_128b_atom_needs_sm100", "128B_atom_* swizzles only on sm_100+", 1}, check_atom_swizzle_sm100},
    {{"packed_align16b_swizzle_mode", "16U4/16U6 ALIGN16B allow only some swizzle modes", 1}, check_packed_swizzle},
    {{"box_inner_bytes_within_swizzle_span", "boxDim[0] * element size <= swizzle span when interleave none", 1}, check_box_inner_swizzle_span},
    {{"interleave_32b_needs_swizzle_32b", "documented, off: H100 accepts interleave 32B with swizzle none/64B/128B (encode 51 52, layout 635-637)", 0}, check_interleave_32b_swizzle},
    {{"16u6_needs_interleave_none", "16U6_ALIGN16B requires interleave none", 1}, check_u6_no_interleave},
    {{"oob_nan_fill_needs_float", "NaN OOB fill only for floating-point types", 1}, check_nan_fill_float},
};

#define RULE_COUNT (sizeof rules / sizeof rules[0])

size_t tm_rule_count(void) { return RULE_COUNT; }

const tm_rule_info *tm_rule_get(size_t i) { return i < RULE_COUNT ? &rules[i].info : NULL; }

int tm_validate(const tm_desc *d, err_info *e)
{
    if (!d)
        return err_set(e, ERR_BAD_INPUT, "desc", "NULL tensor-map description");
    /* Rank first: later checks walk the arrays up to rank. */
    for (size_t i = 0; i < RULE_COUNT; i++) {
        if (!rules[i].info.enforced)
            continue;
        if (i > 3 && (d->rank < 1 || d->rank > TM_MAX_RANK))
            break;
        int rc = rules[i].check(d, rules[i].info.name, e);
        if (rc)
            return rc;
    }
    err_clear(e);
    return ERR_OK;
}

int tm_validate_rule(const tm_desc *d, const char *rule, err_info *e)
{
    for (size_t i = 0; i < RULE_COUNT; i++) {
        const char *a = rules[i].info.name, *b = rule;
        while (*a && *a == *b) a++, b++;
        if (*a || *b)
            continue;
        if (i > 0 && check_enums(d, rules[0].info.name, e))
            return ERR_FINDING;
        if (i > 3 && (d->rank < 1 || d->rank > TM_MAX_RANK))
            return ERR_OK;
        return rules[i].check(d, rules[i].info.name, e);
    }
    return err_set(e, ERR_BAD_INPUT, "rule", "'%s' is not a tm_validate rule", rule);
}
