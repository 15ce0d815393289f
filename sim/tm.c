/* tm: data-type table, option names and their parsers (the driver's enums). */
#include "tm.h"

#include <string.h>

/* Bits per element as the driver documents them in cuda.h (CUtensorMapDataType
 * comments): the packed types count individual U4/U6 values. */
static const tm_dtype_info dtype_table[TM_DTYPE_COUNT] = {
    [TM_DTYPE_U8] = {"u8", 8, 0, 0},
    [TM_DTYPE_U16] = {"u16", 16, 0, 0},
    [TM_DTYPE_U32] = {"u32", 32, 0, 0},
    [TM_DTYPE_S32] = {"s32", 32, 0, 0},
    [TM_DTYPE_U64] = {"u64", 64, 0, 0},
    [TM_DTYPE_S64] = {"s64", 64, 0, 0},
    [TM_DTYPE_F16] = {"f16", 16, 1, 0},
    [TM_DTYPE_F32] = {"f32", 32, 1, 0},
    [TM_DTYPE_F64] = {"f64", 64, 1, 0},
    [TM_DTYPE_BF16] = {"bf16", 16, 1, 0},
    [TM_DTYPE_F32FTZ] = {"f32ftz", 32, 1, 0},
    [TM_DTYPE_TF32] = {"tf32", 32, 1, 0},
    [TM_DTYPE_TF32FTZ] = {"tf32ftz", 32, 1, 0},
    /* The packed types hold unsigned sub-byte integers: cuda.h forbids NaN fill for
     * them explicitly, so is_float stays 0. */
    [TM_DTYPE_16U4_ALIGN8B] = {"16u4align8b", 4, 0, 1},
    [TM_DTYPE_16U4_ALIGN16B] = {"16u4align16b", 4, 0, 1},
    [TM_DTYPE_16U6_ALIGN16B] = {"16u6align16b", 6, 0, 1},
};

static const char *const swizzle_names[TM_SWIZZLE_COUNT] = {
    "none", "32B", "64B", "128B", "128B_atom_32B", "128B_atom_32B_flip_8B", "128B_atom_64B",
};
static const char *const interleave_names[TM_INTERLEAVE_COUNT] = {"none", "16B", "32B"};
static const char *const l2_names[TM_L2_COUNT] = {"none", "64B", "128B", "256B"};
static const char *const oob_names[TM_OOB_FILL_COUNT] = {"none", "nan"};

void tm_desc_defaults(tm_desc *d)
{
    memset(d, 0, sizeof *d);
    for (int i = 0; i < TM_MAX_RANK; i++)
        d->elem_strides[i] = 1;
    d->sm_version = 90;
}

const tm_dtype_info *tm_dtype_get(tm_dtype t)
{
    if ((unsigned)t >= TM_DTYPE_COUNT)
        return NULL;
    return &dtype_table[t];
}

/* Case-sensitive lookup first; names like "128b" are accepted case-insensitively
 * because users type them both ways. */
static int lookup(const char *s, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(s, names[i]))
            return i;
    for (int i = 0; i < n; i++) {
        const char *a = s, *b = names[i];
        while (*a && *b) {
            char x = *a, y = *b;
            if (x >= 'A' && x <= 'Z') x = (char)(x - 'A' + 'a');
            if (y >= 'A' && y <= 'Z') y = (char)(y - 'A' + 'a');
            if (x != y) break;
            a++, b++;
        }
        if (!*a && !*b)
            return i;
    }
    return -1;
}

static int parse_named(const char *s, const char *field, const char *const *names, int n, int *out, err_info *e)
{
    int i = s ? lookup(s, names, n) : -1;
    if (i < 0) {
        char allowed[200] = "";
        size_t used = 0;
        for (int k = 0; k < n && used + 1 < sizeof allowed; k++) {
            size_t len = strlen(names[k]);
            if (used + len + 2 >= sizeof allowed) break;
            if (k) allowed[used++] = ' ';
            memcpy(allowed + used, names[k], len);
            used += len;
            allowed[used] = 0;
        }
        return err_set(e, ERR_BAD_INPUT, field, "'%s' is not one of: %s", s ? s : "", allowed);
    }
    *out = i;
    return ERR_OK;
}

int tm_dtype_parse(const char *s, tm_dtype *out, err_info *e)
{
    const char *names[TM_DTYPE_COUNT];
    for (int i = 0; i < TM_DTYPE_COUNT; i++)
        names[i] = dtype_table[i].name;
    int v = 0;
    int rc = parse_named(s, "--dtype", names, TM_DTYPE_COUNT, &v, e);
    if (!rc) *out = (tm_dtype)v;
    return rc;
}

int tm_swizzle_parse(const char *s, tm_swizzle *out, err_info *e)
{
    int v = 0;
    int rc = parse_named(s, "--swizzle", swizzle_names, TM_SWIZZLE_COUNT, &v, e);
    if (!rc) *out = (tm_swizzle)v;
    return rc;
}

int tm_interleave_parse(const char *s, tm_interleave *out, err_info *e)
{
    int v = 0;
    int rc = parse_named(s, "--interleave", interleave_names, TM_INTERLEAVE_COUNT, &v, e);
    if (!rc) *out = (tm_interleave)v;
    return rc;
}

int tm_l2_parse(const char *s, tm_l2_promotion *out, err_info *e)
{
    int v = 0;
    int rc = parse_named(s, "--l2-promotion", l2_names, TM_L2_COUNT, &v, e);
    if (!rc) *out = (tm_l2_promotion)v;
    return rc;
}

int tm_oob_parse(const char *s, tm_oob_fill *out, err_info *e)
{
    int v = 0;
    int rc = parse_named(s, "--oob-fill", oob_names, TM_OOB_FILL_COUNT, &v, e);
    if (!rc) *out = (tm_oob_fill)v;
    return rc;
}

const char *tm_swizzle_name(tm_swizzle s) { return (unsigned)s < TM_SWIZZLE_COUNT ? swizzle_names[s] : "?"; }
const char *tm_interleave_name(tm_interleave i) { return (unsigned)i < TM_INTERLEAVE_COUNT ? interleave_names[i] : "?"; }
const char *tm_l2_name(tm_l2_promotion p) { return (unsigned)p < TM_L2_COUNT ? l2_names[p] : "?"; }
const char *tm_oob_name(tm_oob_fill f) { return (unsigned)f < TM_OOB_FILL_COUNT ? oob_names[f] : "?"; }
