/* wgmma_flags: see wgmma_flags.h. */
#include "wgmma_flags.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void wg_flags_init(wg_flags *f)
{
    memset(f, 0, sizeof *f);
    f->shape.n = 64;
    tm_flags_init(&f->tm);
}

static int parse_u32(const char *flag, const char *v, uint64_t max, uint32_t *out, err_info *e)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 0);
    if (!*v || *end || errno || x > max || v[0] == '-')
        return err_set(e, ERR_BAD_INPUT, flag, "'%s' is not a number in 0..%llu", v, (unsigned long long)max);
    *out = (uint32_t)x;
    return ERR_OK;
}

static int parse_bytes16(const char *flag, const char *v, uint32_t *out, err_info *e)
{
    int rc = parse_u32(flag, v, (1u << 18) - 16, out, e);
    if (rc == ERR_OK && *out % 16)
        return err_set(e, ERR_BAD_INPUT, flag, "%s bytes is not a multiple of 16 (the descriptor holds 16-byte units)",
                       v);
    return rc;
}

static int parse_roles(wg_flags *f, const char *v, err_info *e)
{
    f->n_roles = 0;
    for (const char *p = v; *p;) {
        size_t l = strcspn(p, ",");
        if (f->n_roles == TM_MAX_RANK)
            return err_set(e, ERR_BAD_INPUT, "--roles", "'%s' has more than %d entries", v, TM_MAX_RANK);
        if (l == 1 && *p == 'k')
            f->role[f->n_roles++] = WG_ROLE_K;
        else if ((l == 3 && !strncmp(p, "row", 3)) || (l == 2 && !strncmp(p, "mn", 2)))
            f->role[f->n_roles++] = WG_ROLE_ROW;
        else
            return err_set(e, ERR_BAD_INPUT, "--roles", "'%.*s' is not one of: k row (comma-separated, dimension 0 first)",
                           (int)l, p);
        p += l + (p[l] == ',');
    }
    f->has_roles = 1;
    return ERR_OK;
}

static int apply_desc(wg_flags *f, const char *flag, const char *v, err_info *e)
{
    f->has_fields = 1;
    if (!strcmp(flag, "start-address"))
        return parse_bytes16("--start-address", v, &f->desc.start, e);
    if (!strcmp(flag, "leading-byte-offset"))
        return parse_bytes16("--leading-byte-offset", v, &f->desc.lbo, e);
    if (!strcmp(flag, "stride-byte-offset"))
        return parse_bytes16("--stride-byte-offset", v, &f->desc.sbo, e);
    if (!strcmp(flag, "base-offset"))
        return parse_u32("--base-offset", v, 7, &f->desc.base_offset, e);
    int rc = wg_swizzle_parse(v, &f->desc.swizzle, e);
    if (rc)
        snprintf(e->rule, sizeof e->rule, "--swizzle-mode");
    return rc;
}

int wg_flags_apply(wg_flags *f, const char *flag, const char *v, err_info *e)
{
    const char *name = flag[0] == '-' && flag[1] == '-' ? flag + 2 : flag;
    if (!strcmp(name, "atype") || !strcmp(name, "btype")) {
        f->shape.operand = name[0] == 'a' ? WG_A : WG_B;
        f->has_type = 1;
        int rc = wg_dtype_parse(v, &f->shape.dtype, e);
        if (rc)
            snprintf(e->rule, sizeof e->rule, "--%s", name);
        return rc;
    }
    if (!strcmp(name, "n"))
        return parse_u32("--n", v, 256, &f->shape.n, e);
    if (!strcmp(name, "major")) {
        if (strcmp(v, "k") && strcmp(v, "mn"))
            return err_set(e, ERR_BAD_INPUT, "--major", "'%s' is not one of: k mn", v);
        f->shape.major = v[0] == 'k' ? WG_K_MAJOR : WG_MN_MAJOR;
        return ERR_OK;
    }
    if (!strcmp(name, "desc")) {
        char *end;
        errno = 0;
        f->raw = strtoull(v, &end, 0);
        if (!*v || *end || errno || v[0] == '-')
            return err_set(e, ERR_BAD_INPUT, "--desc", "'%s' is not a 64-bit number (e.g. 0x4000004000010040)", v);
        f->has_raw = 1;
        return ERR_OK;
    }
    if (!strcmp(name, "start-address") || !strcmp(name, "leading-byte-offset") ||
        !strcmp(name, "stride-byte-offset") || !strcmp(name, "base-offset") || !strcmp(name, "swizzle-mode"))
        return apply_desc(f, name, v, e);
    if (!strcmp(name, "k-step"))
        return parse_bytes16("--k-step", v, &f->k_step, e);
    if (!strcmp(name, "k-block"))
        return parse_u32("--k-block", v, 255, &f->k_block, e);
    if (!strcmp(name, "row-origin"))
        return parse_u32("--row-origin", v, 255, &f->row_origin, e);
    if (!strcmp(name, "roles"))
        return parse_roles(f, v, e);
    int rc = tm_flags_apply(&f->tm, flag, v, e);
    if (rc != TM_FLAGS_NOT_MINE)
        f->has_tile = 1;
    return rc;
}

int wg_flags_apply_string(wg_flags *f, const char *s, err_info *e)
{
    char *copy = strdup(s), *save = NULL;
    if (!copy)
        return err_set(e, ERR_IO, "memory", "flags");
    int rc = ERR_OK;
    for (char *flag = strtok_r(copy, " ", &save); flag && rc == ERR_OK; flag = strtok_r(NULL, " ", &save)) {
        char *v = strtok_r(NULL, " ", &save);
        rc = v ? wg_flags_apply(f, flag, v, e) : err_set(e, ERR_BAD_INPUT, flag, "missing value");
        if (rc == TM_FLAGS_NOT_MINE)
            rc = err_set(e, ERR_BAD_INPUT, flag, "unknown flag");
    }
    free(copy);
    return rc;
}

static int finish_tile(wg_flags *f, wg_tile *t, err_info *e)
{
    int rc = tm_flags_finish(&f->tm, e);
    if (rc)
        return rc;
    memset(t, 0, sizeof *t);
    uint32_t rank = f->tm.desc.rank;
    if (f->has_roles && f->n_roles != rank)
        return err_set(e, ERR_BAD_INPUT, "--roles", "%u entries for a rank-%u box", f->n_roles, rank);
    wg_tile_default_roles(f->shape.major, rank, t->role);
    if (f->has_roles)
        memcpy(t->role, f->role, sizeof t->role);
    t->k_block = f->k_block;
    t->row_origin = f->row_origin;
    rc = tm_plan_copy(&f->tm.desc, &f->tm.copy, &t->plan, e);
    return rc == ERR_OK ? ERR_OK : ERR_FINDING;
}

int wg_flags_finish(wg_flags *f, wg_desc *desc, int *has_desc, wg_tile *tile, err_info *e)
{
    if (!f->has_type)
        return err_set(e, ERR_BAD_INPUT, "--atype", "required (or --btype for operand B): f16 bf16 tf32 e4m3 e5m2 s8 u8");
    if (f->shape.operand == WG_A)
        f->shape.n = wg_k(f->shape.dtype);
    int rc = wg_shape_check(&f->shape, e);
    if (rc) {
        memmove(e->rule + 2, e->rule, sizeof e->rule - 2);
        e->rule[0] = e->rule[1] = '-';
        if (!strcmp(e->rule, "--dtype"))
            snprintf(e->rule, sizeof e->rule, "--%ctype", f->shape.operand == WG_A ? 'a' : 'b');
        return rc;
    }
    if (f->has_raw && f->has_fields)
        return err_set(e, ERR_BAD_INPUT, "--desc", "give the raw value or the fields (--start-address ...), not both");
    *has_desc = f->has_raw || f->has_fields;
    if (f->has_raw)
        wg_desc_decode(f->raw, desc);
    else
        *desc = f->desc;
    if (*has_desc) {
        uint64_t start = (uint64_t)desc->start + (uint64_t)f->k_block * f->k_step;
        if (start >= (1u << 18))
            return err_set(e, ERR_BAD_INPUT, "--k-step", "start 0x%x + %u * %u is past the 18-bit address range",
                           desc->start, f->k_block, f->k_step);
        desc->start = (uint32_t)start;
    }
    if (!f->has_tile && (f->has_roles || f->k_block || f->row_origin))
        return err_set(e, ERR_BAD_INPUT, "--dims", "--roles, --k-block and --row-origin need a tile (tensor-map flags)");
    return f->has_tile ? finish_tile(f, tile, e) : ERR_OK;
}

const char *wg_flags_usage(void)
{
    return "operand:\n"
           "  --atype T | --btype T   f16 bf16 tf32 e4m3 e5m2 s8 u8 (the flag picks operand A or B)\n"
           "  --n N                   the instruction's N, operand B (default 64)\n"
           "  --major k|mn            K-major (default) or MN-major (imm-trans-a/b 1; f16 and bf16)\n"
           "descriptor (omit it with a tile to be told the right one):\n"
           "  --desc 0xRAW            the 64-bit matrix descriptor, or its fields, in bytes:\n"
           "  --start-address A  --leading-byte-offset B  --stride-byte-offset B\n"
           "  --base-offset 0..7  --swizzle-mode none|128B|64B|32B (or the codes 0 1 2 3)\n"
           "  --k-step B              bytes the kernel adds to the start address per k-block (default 0)\n"
           "tile (optional): the tensor-map flags of tmasim layout, and\n"
           "  --roles k,row[,...]     what each box dimension counts, dimension 0 first\n"
           "                          (default K-major k,row[,k]; MN-major row,k[,row])\n"
           "  --k-block J             the k-block the instruction reads (k from J*K; default 0)\n"
           "  --row-origin R          the first box row it reads (default 0)\n";
}
