/* tm_flags: driver-named flags -> tm_desc + tm_copy (see tm_flags.h). Its own small
 * number parsers: libtmasim must not depend on the commands (cmd/). */
#include "tm_flags.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
    "  --dtype T            u8 u16 u32 s32 u64 s64 f16 f32 f64 bf16 f32ftz tf32 tf32ftz\n"
    "                       16u4align8b 16u4align16b 16u6align16b (required)\n"
    "  --dims D0,...        globalDim, innermost first; its length is the rank (required)\n"
    "  --strides S1,...     globalStrides in bytes, rank-1 values (default: dense)\n"
    "  --box B0,...         boxDim, rank values (required)\n"
    "  --elem-strides E0,.. elementStrides, rank values (default 1,...)\n"
    "  --interleave I       none 16B 32B (default none)\n"
    "  --swizzle S          none 32B 64B 128B 128B_atom_32B 128B_atom_32B_flip_8B 128B_atom_64B\n"
    "                       (default none)\n"
    "  --l2-promotion L     none 64B 128B 256B (default none)\n"
    "  --oob-fill F         none nan (default none)\n"
    "  --global-address A   global address of element 0 (default 0x10000000)\n"
    "  --coords C0,...      box start coordinates, may be negative (default 0,...)\n"
    "  --smem-address A     absolute shared-memory destination (default 0x400)\n"
    "  --sm N               target architecture, 90 = H100 (default 90)\n"
    "  numbers: decimal or 0x hex; lists: comma-separated, innermost dimension first\n";

const char *tm_flags_usage(void) { return usage_text; }

void tm_flags_init(tm_flags *f)
{
    memset(f, 0, sizeof *f);
    tm_desc_defaults(&f->desc);
    f->desc.global_address = TM_FLAGS_DEFAULT_GLOBAL_ADDRESS;
    f->copy.smem_address = TM_FLAGS_DEFAULT_SMEM_ADDRESS;
}

/* ---- numbers ------------------------------------------------------------------ */

static int bad_number(err_info *e, const char *field, const char *s)
{
    return err_set(e, ERR_BAD_INPUT, field, "'%s' is not a number (decimal or 0x hex)", s);
}

/* Whole string, optional leading '-', decimal or 0x hex, magnitude into *mag. */
static int parse_magnitude(const char *s, const char *field, int allow_negative, int *neg, uint64_t *mag, err_info *e)
{
    const char *p = s;
    *neg = 0;
    if (*p == '-' && allow_negative) { *neg = 1; p++; }
    int hex = p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
    const char *digits = hex ? p + 2 : p;
    if (!*digits)
        return bad_number(e, field, s);
    for (const char *q = digits; *q; q++) {
        int ok = hex ? ((*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'f') || (*q >= 'A' && *q <= 'F'))
                     : (*q >= '0' && *q <= '9');
        if (!ok) {
            if (*q == '-' && !allow_negative)
                return err_set(e, ERR_BAD_INPUT, field, "'%s' must not be negative", s);
            return bad_number(e, field, s);
        }
    }
    errno = 0;
    char *end = NULL;
    unsigned long long v = strtoull(digits, &end, hex ? 16 : 10);
    if (errno == ERANGE)
        return err_set(e, ERR_BAD_INPUT, field, "'%s' is out of range", s);
    *mag = v;
    return ERR_OK;
}

static int parse_u64(const char *s, const char *field, uint64_t max, uint64_t *out, err_info *e)
{
    int neg = 0;
    uint64_t v = 0;
    int rc = parse_magnitude(s, field, 0, &neg, &v, e);
    if (rc) return rc;
    if (v > max)
        return err_set(e, ERR_BAD_INPUT, field, "%s is out of range (allowed 0..%" PRIu64 ")", s, max);
    *out = v;
    return ERR_OK;
}

static int parse_i64(const char *s, const char *field, int64_t min, int64_t max, int64_t *out, err_info *e)
{
    int neg = 0;
    uint64_t mag = 0;
    int rc = parse_magnitude(s, field, 1, &neg, &mag, e);
    if (rc) return rc;
    if ((!neg && mag > (uint64_t)max) || (neg && mag > (uint64_t)0 - (uint64_t)min))
        return err_set(e, ERR_BAD_INPUT, field, "%s is out of range (allowed %" PRId64 "..%" PRId64 ")", s, min, max);
    *out = neg ? (int64_t)(0 - mag) : (int64_t)mag;
    return ERR_OK;
}

/* Comma list of at most TM_MAX_RANK numbers; signed selects parse_i64. */
static int parse_list(const char *s, const char *field, int is_signed, int64_t min, uint64_t max,
                      uint64_t *out_u, int64_t *out_i, unsigned *count, err_info *e)
{
    if (!*s)
        return err_set(e, ERR_BAD_INPUT, field, "empty list (expected 1..%d comma-separated numbers)", TM_MAX_RANK);
    char item[64];
    unsigned n = 0;
    const char *p = s;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (n >= TM_MAX_RANK)
            return err_set(e, ERR_BAD_INPUT, field, "'%s' has more than %d values (rank is at most %d)", s, TM_MAX_RANK, TM_MAX_RANK);
        if (len == 0 || len >= sizeof item)
            return err_set(e, ERR_BAD_INPUT, field, "'%s': item %u is not a number (decimal or 0x hex)", s, n);
        memcpy(item, p, len);
        item[len] = 0;
        char name[48];
        snprintf(name, sizeof name, "%s[%u]", field, n);
        int rc = is_signed ? parse_i64(item, name, min, (int64_t)max, &out_i[n], e)
                           : parse_u64(item, name, max, &out_u[n], e);
        if (rc) return rc;
        n++;
        if (!comma) break;
        p = comma + 1;
    }
    *count = n;
    return ERR_OK;
}

/* ---- flags ------------------------------------------------------------------------ */

static const struct {
    const char *name;
    unsigned bit;
} flag_table[] = {
    {"dtype", TM_FLAG_DTYPE},           {"dims", TM_FLAG_DIMS},
    {"strides", TM_FLAG_STRIDES},       {"box", TM_FLAG_BOX},
    {"elem-strides", TM_FLAG_ELEM_STRIDES}, {"interleave", TM_FLAG_INTERLEAVE},
    {"swizzle", TM_FLAG_SWIZZLE},       {"l2-promotion", TM_FLAG_L2_PROMOTION},
    {"oob-fill", TM_FLAG_OOB_FILL},     {"global-address", TM_FLAG_GLOBAL_ADDRESS},
    {"coords", TM_FLAG_COORDS},         {"smem-address", TM_FLAG_SMEM_ADDRESS},
    {"sm", TM_FLAG_SM},
};

static unsigned flag_bit(const char *flag)
{
    if (!flag) return 0;
    if (flag[0] == '-' && flag[1] == '-') flag += 2;
    for (size_t i = 0; i < sizeof flag_table / sizeof flag_table[0]; i++)
        if (!strcmp(flag, flag_table[i].name))
            return flag_table[i].bit;
    return 0;
}

int tm_flags_is_mine(const char *flag) { return flag_bit(flag) != 0; }

int tm_flags_apply(tm_flags *f, const char *flag, const char *value, err_info *e)
{
    unsigned bit = flag_bit(flag);
    if (!bit)
        return TM_FLAGS_NOT_MINE;
    tm_desc *d = &f->desc;
    uint64_t u[TM_MAX_RANK] = {0};
    int64_t s[TM_MAX_RANK] = {0};
    unsigned n = 0;
    int rc = ERR_OK;
    if (!value)
        return err_set(e, ERR_BAD_INPUT, flag, "needs a value");
    switch (bit) {
    case TM_FLAG_DTYPE: rc = tm_dtype_parse(value, &d->dtype, e); break;
    case TM_FLAG_INTERLEAVE: rc = tm_interleave_parse(value, &d->interleave, e); break;
    case TM_FLAG_SWIZZLE: rc = tm_swizzle_parse(value, &d->swizzle, e); break;
    case TM_FLAG_L2_PROMOTION: rc = tm_l2_parse(value, &d->l2_promotion, e); break;
    case TM_FLAG_OOB_FILL: rc = tm_oob_parse(value, &d->oob_fill, e); break;
    case TM_FLAG_DIMS:
        /* The driver's limit is 2^32; larger values are accepted here so that
         * tm_validate can name the rule. */
        rc = parse_list(value, "--dims", 0, 0, UINT64_MAX, u, NULL, &n, e);
        if (!rc) { memset(d->dims, 0, sizeof d->dims); memcpy(d->dims, u, n * sizeof u[0]); f->n_dims = n; }
        break;
    case TM_FLAG_STRIDES:
        rc = parse_list(value, "--strides", 0, 0, UINT64_MAX, u, NULL, &n, e);
        if (!rc && n > TM_MAX_RANK - 1)
            rc = err_set(e, ERR_BAD_INPUT, "--strides", "'%s' has %u values (at most %d: rank-1)", value, n, TM_MAX_RANK - 1);
        if (!rc) { memset(d->strides, 0, sizeof d->strides); memcpy(d->strides, u, n * sizeof u[0]); f->n_strides = n; }
        break;
    case TM_FLAG_BOX:
        rc = parse_list(value, "--box", 0, 0, UINT32_MAX, u, NULL, &n, e);
        if (!rc) { for (unsigned i = 0; i < TM_MAX_RANK; i++) d->box[i] = i < n ? (uint32_t)u[i] : 0; f->n_box = n; }
        break;
    case TM_FLAG_ELEM_STRIDES:
        rc = parse_list(value, "--elem-strides", 0, 0, UINT32_MAX, u, NULL, &n, e);
        if (!rc) { for (unsigned i = 0; i < TM_MAX_RANK; i++) d->elem_strides[i] = i < n ? (uint32_t)u[i] : 1; f->n_elem_strides = n; }
        break;
    case TM_FLAG_COORDS:
        rc = parse_list(value, "--coords", 1, INT32_MIN, INT32_MAX, NULL, s, &n, e);
        if (!rc) { for (unsigned i = 0; i < TM_MAX_RANK; i++) f->copy.coords[i] = i < n ? (int32_t)s[i] : 0; f->n_coords = n; }
        break;
    case TM_FLAG_GLOBAL_ADDRESS: rc = parse_u64(value, "--global-address", UINT64_MAX, &d->global_address, e); break;
    case TM_FLAG_SMEM_ADDRESS:
        rc = parse_u64(value, "--smem-address", UINT32_MAX, u, e);
        if (!rc) f->copy.smem_address = (uint32_t)u[0];
        break;
    case TM_FLAG_SM:
        rc = parse_u64(value, "--sm", 1000, u, e);
        if (!rc && u[0] < 10)
            rc = err_set(e, ERR_BAD_INPUT, "--sm", "%s is not an architecture number like 90 or 100", value);
        if (!rc) d->sm_version = (uint32_t)u[0];
        break;
    default: break;
    }
    if (!rc)
        f->given |= bit;
    return rc;
}

int tm_flags_finish(tm_flags *f, err_info *e)
{
    tm_desc *d = &f->desc;
    if (!(f->given & TM_FLAG_DTYPE))
        return err_set(e, ERR_BAD_INPUT, "--dtype", "is required (u8 u16 u32 s32 u64 s64 f16 f32 f64 bf16 f32ftz tf32 tf32ftz 16u4align8b 16u4align16b 16u6align16b)");
    if (!(f->given & TM_FLAG_DIMS))
        return err_set(e, ERR_BAD_INPUT, "--dims", "is required (globalDim, 1..5 comma-separated values, innermost first)");
    if (!(f->given & TM_FLAG_BOX))
        return err_set(e, ERR_BAD_INPUT, "--box", "is required (boxDim, one value per dimension of --dims)");
    unsigned rank = f->n_dims;
    d->rank = rank;
    if (f->n_box != rank)
        return err_set(e, ERR_BAD_INPUT, "--box", "has %u values, --dims has %u (one per dimension)", f->n_box, rank);
    if ((f->given & TM_FLAG_ELEM_STRIDES) && f->n_elem_strides != rank)
        return err_set(e, ERR_BAD_INPUT, "--elem-strides", "has %u values, --dims has %u (one per dimension)", f->n_elem_strides, rank);
    if ((f->given & TM_FLAG_COORDS) && f->n_coords != rank)
        return err_set(e, ERR_BAD_INPUT, "--coords", "has %u values, --dims has %u (one per dimension)", f->n_coords, rank);
    if (f->given & TM_FLAG_STRIDES) {
        if (f->n_strides != rank - 1)
            return err_set(e, ERR_BAD_INPUT, "--strides", "has %u values, expected rank-1 = %u", f->n_strides, rank - 1);
    } else if (rank > 1) {
        /* Dense: row bytes of the packed data, each stride the previous times the dim.
         * Saturates rather than wraps so an absurd size is rejected by tm_validate. */
        const tm_dtype_info *ti = tm_dtype_get(d->dtype);
        uint64_t bits = (uint64_t)ti->bits;
        uint64_t s = d->dims[0] > UINT64_MAX / bits ? UINT64_MAX : (d->dims[0] * bits + 7) / 8;
        for (unsigned i = 0; i + 1 < rank; i++) {
            d->strides[i] = s;
            uint64_t next = d->dims[i + 1];
            s = (next && s > UINT64_MAX / next) ? UINT64_MAX : s * next;
        }
        f->n_strides = rank - 1;
    }
    return ERR_OK;
}

int tm_flags_format(const tm_desc *d, const tm_copy *c, char *buf, size_t size)
{
    char lists[5][160];
    unsigned rank = d->rank > TM_MAX_RANK ? TM_MAX_RANK : d->rank;
    for (int l = 0; l < 5; l++) {
        size_t used = 0;
        unsigned n = l == 1 ? (rank ? rank - 1 : 0) : rank;
        lists[l][0] = 0;
        for (unsigned i = 0; i < n; i++) {
            int w = 0;
            size_t room = sizeof lists[l] - used;
            const char *sep = i ? "," : "";
            switch (l) {
            case 0: w = snprintf(lists[l] + used, room, "%s%" PRIu64, sep, d->dims[i]); break;
            case 1: w = snprintf(lists[l] + used, room, "%s%" PRIu64, sep, d->strides[i]); break;
            case 2: w = snprintf(lists[l] + used, room, "%s%" PRIu32, sep, d->box[i]); break;
            case 3: w = snprintf(lists[l] + used, room, "%s%" PRIu32, sep, d->elem_strides[i]); break;
            default: w = snprintf(lists[l] + used, room, "%s%" PRId32, sep, c ? c->coords[i] : 0); break;
            }
            if (w > 0 && (size_t)w < room) used += (size_t)w;
        }
    }
    const tm_dtype_info *ti = tm_dtype_get(d->dtype);
    return snprintf(buf, size,
                    "--dtype %s --dims %s%s%s --box %s --elem-strides %s --interleave %s --swizzle %s "
                    "--l2-promotion %s --oob-fill %s --global-address 0x%" PRIx64 " --coords %s "
                    "--smem-address 0x%" PRIx32 " --sm %u",
                    ti ? ti->name : "?", lists[0], rank > 1 ? " --strides " : "", rank > 1 ? lists[1] : "",
                    lists[2], lists[3], tm_interleave_name(d->interleave), tm_swizzle_name(d->swizzle),
                    tm_l2_name(d->l2_promotion), tm_oob_name(d->oob_fill), d->global_address, lists[4],
                    c ? c->smem_address : 0u, d->sm_version ? d->sm_version : 90u);
}
