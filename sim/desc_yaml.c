/* desc_yaml: the pipeline description in YAML (format: examples/README.md), read with
 * libyaml's document API. Every error is one line: FILE:LINE: field 'path': what. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "desc.h"
#include "wgmma.h"
#include "rfile.h"

/* Where each given field sits, so that errors found after parsing (pipe_desc_derive checks
 * the shape as a whole) still name the line. */
#define CTX_MAX_LINES 96
typedef struct field_line {
    char path[48];
    unsigned long line;
} field_line;

typedef struct ctx {
    yaml_document_t *doc;
    const char *file;
    err_info *e;
    field_line lines[CTX_MAX_LINES];
    unsigned nlines;
} ctx;

static void note_line(ctx *c, const char *where, const char *key, const yaml_node_t *n)
{
    if (c->nlines == CTX_MAX_LINES || !n)
        return;
    field_line *f = &c->lines[c->nlines++];
    snprintf(f->path, sizeof f->path, "%s%s%s", where, *where && *key ? "." : "", key);
    f->line = (unsigned long)n->start_mark.line + 1;
}

/* The line of `path` or, when the description left it out, of its nearest given parent;
 * 0 when neither was given. */
static unsigned long line_of(const ctx *c, const char *path)
{
    char want[64];
    snprintf(want, sizeof want, "%s", path);
    for (;;) {
        for (unsigned i = 0; i < c->nlines; i++)
            if (!strcmp(c->lines[i].path, want))
                return c->lines[i].line;
        char *dot = strrchr(want, '.');
        if (!dot)
            return 0;
        *dot = 0;
    }
}

static int fail(ctx *c, const yaml_node_t *n, const char *field, const char *fmt, const char *a, const char *b)
{
    char what[200];
    snprintf(what, sizeof what, fmt, a ? a : "", b ? b : "");
    return err_set(c->e, ERR_BAD_INPUT, field, "%s:%lu: field '%s': %s", c->file,
                   n ? (unsigned long)n->start_mark.line + 1 : 0ul, field, what);
}

static const char *scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static int get_u64(ctx *c, const yaml_node_t *n, const char *field, uint64_t lo, uint64_t hi, uint64_t *out)
{
    const char *s = scalar(n);
    char range[80];
    snprintf(range, sizeof range, "an integer %llu..%llu", (unsigned long long)lo, (unsigned long long)hi);
    if (!s)
        return fail(c, n, field, "expected %s", range, NULL);
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (*s == '-' || *end || errno || end == s || v < lo || v > hi)
        return fail(c, n, field, "'%s' (allowed: %s)", s, range);
    *out = v;
    return ERR_OK;
}

static int get_u32(ctx *c, const yaml_node_t *n, const char *field, uint32_t lo, uint32_t hi, uint32_t *out)
{
    uint64_t v;
    int rc = get_u64(c, n, field, lo, hi, &v);
    if (!rc)
        *out = (uint32_t)v;
    return rc;
}

static int get_bool(ctx *c, const yaml_node_t *n, const char *field, int *out)
{
    const char *s = scalar(n);
    if (s && (!strcmp(s, "true") || !strcmp(s, "yes"))) {
        *out = 1;
        return ERR_OK;
    }
    if (s && (!strcmp(s, "false") || !strcmp(s, "no"))) {
        *out = 0;
        return ERR_OK;
    }
    return fail(c, n, field, "'%s' (allowed true, false)", s ? s : "(not a scalar)", NULL);
}

static int get_double(ctx *c, const yaml_node_t *n, const char *field, double lo, double hi, double *out)
{
    const char *s = scalar(n);
    char *end;
    double v = s ? strtod(s, &end) : 0;
    if (!s || *end || end == s || !(v >= lo && v <= hi)) {
        char range[64];
        snprintf(range, sizeof range, "a number %g..%g", lo, hi);
        return fail(c, n, field, "'%s' (allowed: %s)", s ? s : "(not a scalar)", range);
    }
    *out = v;
    return ERR_OK;
}

/* Calls fn for every key of a mapping, after checking it is one of `allowed`. */
typedef int (*field_fn)(ctx *c, const char *key, yaml_node_t *value, void *user);

static int each_field(ctx *c, yaml_node_t *map, const char *where, const char *allowed, field_fn fn, void *user)
{
    if (!map || map->type != YAML_MAPPING_NODE)
        return fail(c, map, where, "expected a mapping with keys %s", allowed, NULL);
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(c->doc, p->key), *v = yaml_document_get_node(c->doc, p->value);
        const char *key = scalar(k);
        char padded[64];
        snprintf(padded, sizeof padded, " %s,", key ? key : "?");
        char list[400];
        snprintf(list, sizeof list, " %s,", allowed);
        if (!key || !strstr(list, padded)) {
            char field[96];
            snprintf(field, sizeof field, "%s%s%s", where, *where ? "." : "", key ? key : "?");
            return fail(c, k, field, "unknown key (allowed: %s)", allowed, NULL);
        }
        note_line(c, where, key, k);
        int rc = fn(c, key, v, user);
        if (rc)
            return rc;
    }
    return ERR_OK;
}

static int seq_u64(ctx *c, yaml_node_t *n, const char *field, uint64_t lo, uint64_t hi, uint64_t *out, uint32_t max,
                   uint32_t *count)
{
    if (!n || n->type != YAML_SEQUENCE_NODE)
        return fail(c, n, field, "expected a list like [64, 128]", NULL, NULL);
    uint32_t k = 0;
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
        if (k == max) {
            char m[16];
            snprintf(m, sizeof m, "%u", max);
            return fail(c, n, field, "more than %s entries", m, NULL);
        }
        if (get_u64(c, yaml_document_get_node(c->doc, *it), field, lo, hi, &out[k]))
            return ERR_BAD_INPUT;
        k++;
    }
    *count = k;
    return ERR_OK;
}

/* ---------------------------------------------------------------- sections */
typedef struct tensor_user {
    desc_tensor *t;
    uint32_t ndims, nbox, nstrides, nelem;
    int has_dims, has_box;
} tensor_user;

static int tensor_field(ctx *c, const char *key, yaml_node_t *v, void *user)
{
    tensor_user *u = user;
    tm_desc *m = &u->t->map;
    err_info pe = {0};
    char field[64];
    snprintf(field, sizeof field, "tensors.%s", key);
    if (!strcmp(key, "name")) {
        if (!scalar(v))
            return fail(c, v, field, "expected a name", NULL, NULL);
        snprintf(u->t->name, sizeof u->t->name, "%s", scalar(v));
    } else if (!strcmp(key, "dtype")) {
        if (!scalar(v) || tm_dtype_parse(scalar(v), &m->dtype, &pe))
            return fail(c, v, field, "%s", pe.detail[0] ? pe.detail : "expected a data type", NULL);
    } else if (!strcmp(key, "swizzle")) {
        if (!scalar(v) || tm_swizzle_parse(scalar(v), &m->swizzle, &pe))
            return fail(c, v, field, "%s", pe.detail[0] ? pe.detail : "expected a swizzle", NULL);
    } else if (!strcmp(key, "interleave")) {
        if (!scalar(v) || tm_interleave_parse(scalar(v), &m->interleave, &pe))
            return fail(c, v, field, "%s", pe.detail[0] ? pe.detail : "expected an interleave", NULL);
    } else if (!strcmp(key, "l2_promotion")) {
        if (!scalar(v) || tm_l2_parse(scalar(v), &m->l2_promotion, &pe))
            return fail(c, v, field, "%s", pe.detail[0] ? pe.detail : "expected an L2 promotion", NULL);
    } else if (!strcmp(key, "dims")) {
        u->has_dims = 1;
        return seq_u64(c, v, field, 1, 1ull << 32, m->dims, TM_MAX_RANK, &u->ndims);
    } else if (!strcmp(key, "strides")) {
        return seq_u64(c, v, field, 16, 1ull << 40, m->strides, TM_MAX_RANK - 1, &u->nstrides);
    } else if (!strcmp(key, "box")) {
        uint64_t b[TM_MAX_RANK];
        u->has_box = 1;
        if (seq_u64(c, v, field, 1, 256, b, TM_MAX_RANK, &u->nbox))
            return ERR_BAD_INPUT;
        for (uint32_t i = 0; i < u->nbox; i++)
            m->box[i] = (uint32_t)b[i];
    } else if (!strcmp(key, "l2_hit")) {
        return get_double(c, v, field, 0, 1, &u->t->l2_hit);
    } else if (!strcmp(key, "address")) {
        return get_u64(c, v, field, 0, UINT64_MAX, &m->global_address);
    }
    return ERR_OK;
}

static int grid_field(ctx *c, const char *key, yaml_node_t *v, void *user)
{
    pipe_desc *d = user;
    if (!strcmp(key, "ctas"))
        return get_u32(c, v, "grid.ctas", 1, 65535, &d->ctas);
    return get_u32(c, v, "grid.ctas_per_sm", 1, 32, &d->ctas_per_sm);
}

static int cluster_field(ctx *c, const char *key, yaml_node_t *v, void *user)
{
    pipe_desc *d = user;
    if (!strcmp(key, "size"))
        return get_u32(c, v, "cluster.size", 1, 16, &d->cluster);
    return get_bool(c, v, "cluster.multicast", &d->multicast);
}

static int warps_field(ctx *c, const char *key, yaml_node_t *v, void *user)
{
    pipe_desc *d = user;
    if (!strcmp(key, "producer"))
        return get_u32(c, v, "warps.producer", 0, DESC_MAX_WARPS, &d->producer_warps);
    return get_u32(c, v, "warps.consumer", 1, DESC_MAX_WARPS, &d->consumer_warps);
}

static int barriers_field(ctx *c, const char *key, yaml_node_t *v, void *user)
{
    pipe_desc *d = user;
    if (!strcmp(key, "full_count"))
        return get_u32(c, v, "barriers.full_count", 1, (1u << 20) - 1, &d->full_count);
    if (!strcmp(key, "empty_count"))
        return get_u32(c, v, "barriers.empty_count", 1, (1u << 20) - 1, &d->empty_count);
    return get_u32(c, v, "barriers.expect_tx", 1, (1u << 20) - 1, &d->expect_tx);
}

static int reads_field(ctx *c, const char *key, yaml_node_t *v, void *user)
{
    pipe_desc *d = user;
    err_info pe = {0};
    if (!strcmp(key, "tensor"))
        return get_u32(c, v, "consumer.reads.tensor", 0, DESC_MAX_TENSORS - 1, &d->reads_tensor);
    if (!strcmp(key, "pattern")) {
        if (!scalar(v) || access_pattern_parse(scalar(v), &d->reads.pattern, &pe))
            return fail(c, v, "consumer.reads.pattern", "%s", pe.detail[0] ? pe.detail : "expected a pattern", NULL);
        return ERR_OK;
    }
    if (!strcmp(key, "bytes_per_lane")) {
        int rc = get_u32(c, v, "consumer.reads.bytes_per_lane", 4, 16, &d->reads.bytes_per_lane);
        if (!rc && d->reads.bytes_per_lane != 4 && d->reads.bytes_per_lane != 8 && d->reads.bytes_per_lane != 16)
            return fail(c, v, "consumer.reads.bytes_per_lane", "'%s' (allowed 4, 8, 16)", scalar(v), NULL);
        return rc;
    }
    if (!strcmp(key, "warps"))
        return get_u32(c, v, "consumer.reads.warps", 1, 4, &d->reads.warps);
    if (!strcmp(key, "trans"))
        return get_bool(c, v, "consumer.reads.trans", &d->reads.trans);
    return get_u32(c, v, "consumer.reads.repeat", 1, 1u << 16, &d->reads_repeat);
}

/* math kind wgmma: shape m64nNkK, dtype, accumulate f32, a smem|registers */
static int wgmma_field(ctx *c, const char *key, yaml_node_t *v, pipe_desc *d)
{
    const char *s = scalar(v);
    if (!strcmp(key, "amount"))
        return get_u64(c, v, "consumer.math.amount", 0, 1ull << 40, &d->math_amount);
    if (!strcmp(key, "shape")) {
        unsigned m = 0, n = 0, k = 0;
        char tail = 0;
        if (!s || sscanf(s, "m%un%uk%u%c", &m, &n, &k, &tail) != 3 || m != 64)
            return fail(c, v, "consumer.math.shape", "'%s' (allowed m64nNkK, e.g. m64n256k16)", s ? s : "?", NULL);
        d->wgmma.n = n;
        d->wgmma.k = k;
        return ERR_OK;
    }
    if (!strcmp(key, "dtype")) {
        wg_dtype t;
        err_info pe = {0};
        if (!s || wg_dtype_parse(s, &t, &pe) != ERR_OK)
            return fail(c, v, "consumer.math.dtype", "%s", pe.detail[0] ? pe.detail : "expected a dtype", NULL);
        d->wgmma.dtype = (int)t;
        return ERR_OK;
    }
    if (!strcmp(key, "accumulate")) {
        if (!s || strcmp(s, "f32"))
            return fail(c, v, "consumer.math.accumulate", "'%s' (allowed f32)", s ? s : "?", NULL);
        return ERR_OK;
    }
    if (s && !strcmp(s, "smem"))
        d->wgmma.a_registers = 0;
    else if (s && !strcmp(s, "registers"))
        d->wgmma.a_registers = 1;
    else
        return fail(c, v, "consumer.math.a", "'%s' (allowed smem, registers)", s ? s : "?", NULL);
    return ERR_OK;
}

static int descriptors_field(ctx *c, const char *key, yaml_node_t *v, void *user)
{
    pipe_desc *d = user;
    if (!strcmp(key, "a")) {
        d->wgmma.desc_a_given = 1;
        return get_u64(c, v, "consumer.descriptors.a", 0, UINT64_MAX, &d->wgmma.desc_a);
    }
    d->wgmma.desc_b_given = 1;
    return get_u64(c, v, "consumer.descriptors.b", 0, UINT64_MAX, &d->wgmma.desc_b);
}

static int gemm_field(ctx *c, const char *key, yaml_node_t *v, void *user)
{
    pipe_desc *d = user;
    if (!strcmp(key, "m"))
        return get_u32(c, v, "gemm.m", 1, 1u << 20, &d->gemm.m);
    if (!strcmp(key, "n"))
        return get_u32(c, v, "gemm.n", 1, 1u << 20, &d->gemm.n);
    if (!strcmp(key, "k"))
        return get_u32(c, v, "gemm.k", 1, 1u << 20, &d->gemm.k);
    if (!strcmp(key, "group_m"))
        return get_u32(c, v, "gemm.group_m", 1, 1u << 16, &d->gemm.group_m);
    const char *s = scalar(v);
    if (s && !strcmp(s, "tma"))
        d->gemm.epilogue = PIPE_EPI_TMA;
    else if (s && !strcmp(s, "direct"))
        d->gemm.epilogue = PIPE_EPI_DIRECT;
    else
        return fail(c, v, "gemm.epilogue", "'%s' (allowed tma, direct)", s ? s : "?", NULL);
    return ERR_OK;
}

static int math_field(ctx *c, const char *key, yaml_node_t *v, void *user)
{
    pipe_desc *d = user;
    if (!strcmp(key, "kind")) {
        const char *s = scalar(v);
        if (s && !strcmp(s, "fma"))
            d->math = PIPE_MATH_FMA;
        else if (s && !strcmp(s, "mma"))
            d->math = PIPE_MATH_MMA;
        else if (s && !strcmp(s, "wgmma"))
            d->math = PIPE_MATH_WGMMA;
        else if (s && !strcmp(s, "none"))
            d->math = PIPE_MATH_NONE;
        else
            return fail(c, v, "consumer.math.kind", "'%s' (allowed fma, mma, wgmma, none)", s ? s : "?", NULL);
        return ERR_OK;
    }
    return wgmma_field(c, key, v, d);
}

static int consumer_field(ctx *c, const char *key, yaml_node_t *v, void *user)
{
    pipe_desc *d = user;
    if (!strcmp(key, "release_lag")) {
        d->release_lag_given = 1;
        return get_u32(c, v, "consumer.release_lag", 0, DESC_MAX_STAGES, &d->release_lag);
    }
    if (!strcmp(key, "wgmma_wait"))
        return get_u32(c, v, "consumer.wgmma_wait", 0, 7, &d->wgmma.wait);
    if (!strcmp(key, "descriptors"))
        return each_field(c, v, "consumer.descriptors", "a, b", descriptors_field, d);
    if (!strcmp(key, "release")) {
        int rel;
        int rc = get_bool(c, v, "consumer.release", &rel);
        d->never_release = !rel;
        return rc;
    }
    if (!strcmp(key, "wait_parity_offset"))
        return get_u32(c, v, "consumer.wait_parity_offset", 0, 1, (uint32_t *)&d->wait_parity_offset);
    if (!strcmp(key, "reads")) {
        d->reads_enabled = 1;
        return each_field(c, v, "consumer.reads", "tensor, pattern, bytes_per_lane, warps, trans, repeat", reads_field, d);
    }
    return each_field(c, v, "consumer.math", "kind, amount, shape, dtype, accumulate, a", math_field, d);
}

static int store_field(ctx *c, const char *key, yaml_node_t *v, void *user)
{
    pipe_desc *d = user;
    if (!strcmp(key, "bytes"))
        return get_u32(c, v, "store.bytes", 16, 1u << 24, &d->store_bytes);
    if (!strcmp(key, "reduce")) {
        err_info pe = {0};
        if (!scalar(v) || pipe_reduce_parse(scalar(v), &d->store_reduce, &pe))
            return fail(c, v, "store.reduce", "%s", pe.detail[0] ? pe.detail : "expected a reduction op", NULL);
        return ERR_OK;
    }
    return get_u32(c, v, "store.every", 1, 1u << 24, &d->store_every);
}

static int cpasync_field(ctx *c, const char *key, yaml_node_t *v, void *user)
{
    pipe_desc *d = user;
    if (!strcmp(key, "sync")) {
        const char *s = scalar(v);
        if (s && !strcmp(s, "wait_prior"))
            d->cpasync_groups = 1;
        else if (s && !strcmp(s, "mbarrier"))
            d->cpasync_groups = 0;
        else
            return fail(c, v, "cpasync.sync", "'%s' (allowed mbarrier, wait_prior)", s ? s : "?", NULL);
        return ERR_OK;
    }
    d->cpasync_wait_prior_given = 1;
    return get_u32(c, v, "cpasync.wait_prior", 0, DESC_MAX_STAGES, &d->cpasync_wait_prior);
}

static int producer_field(ctx *c, const char *key, yaml_node_t *v, void *user)
{
    pipe_desc *d = user;
    (void)key;   /* each_field admits only waits_on */
    const char *s = scalar(v);
    if (s && !strcmp(s, "empty"))
        d->producer_waits_full = 0;
    else if (s && !strcmp(s, "full"))
        d->producer_waits_full = 1;
    else
        return fail(c, v, "producer.waits_on", "'%s' (allowed empty, full)", s ? s : "?", NULL);
    return ERR_OK;
}

static int top_field(ctx *c, const char *key, yaml_node_t *v, void *user)
{
    pipe_desc *d = user;
    if (!strcmp(key, "name")) {
        if (!scalar(v))
            return fail(c, v, "name", "expected a name", NULL, NULL);
        snprintf(d->name, sizeof d->name, "%s", scalar(v));
    } else if (!strcmp(key, "mode")) {
        err_info pe = {0};
        if (!scalar(v) || pipe_mode_parse(scalar(v), &d->mode, &pe))
            return fail(c, v, "mode", "%s", pe.detail[0] ? pe.detail : "expected a mode", NULL);
    } else if (!strcmp(key, "grid")) {
        return each_field(c, v, "grid", "ctas, ctas_per_sm", grid_field, d);
    } else if (!strcmp(key, "cluster")) {
        return each_field(c, v, "cluster", "size, multicast", cluster_field, d);
    } else if (!strcmp(key, "warps")) {
        return each_field(c, v, "warps", "producer, consumer", warps_field, d);
    } else if (!strcmp(key, "stages")) {
        return get_u32(c, v, "stages", 1, DESC_MAX_STAGES, &d->stages);
    } else if (!strcmp(key, "iterations")) {
        return get_u32(c, v, "iterations", 1, 1u << 24, &d->iterations);
    } else if (!strcmp(key, "smem_base")) {
        return get_u32(c, v, "smem_base", 0, 1u << 18, &d->smem_base);
    } else if (!strcmp(key, "barriers")) {
        return each_field(c, v, "barriers", "full_count, empty_count, expect_tx", barriers_field, d);
    } else if (!strcmp(key, "consumer")) {
        return each_field(c, v, "consumer", "release_lag, release, wait_parity_offset, reads, math, wgmma_wait, descriptors",
                          consumer_field, d);
    } else if (!strcmp(key, "gemm")) {
        d->gemm.given = 1;
        return each_field(c, v, "gemm", "m, n, k, group_m, epilogue", gemm_field, d);
    } else if (!strcmp(key, "producer")) {
        return each_field(c, v, "producer", "waits_on", producer_field, d);
    } else if (!strcmp(key, "cpasync")) {
        return each_field(c, v, "cpasync", "sync, wait_prior", cpasync_field, d);
    } else if (!strcmp(key, "store")) {
        return each_field(c, v, "store", "bytes, every, reduce", store_field, d);
    } else if (!strcmp(key, "tensors")) {
        if (!v || v->type != YAML_SEQUENCE_NODE)
            return fail(c, v, "tensors", "expected a list of tensor maps", NULL, NULL);
        for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
            yaml_node_t *tn = yaml_document_get_node(c->doc, *it);
            char item[24];
            snprintf(item, sizeof item, "tensors[%u]", d->ntensors);
            note_line(c, "", item, tn);
            if (d->ntensors == DESC_MAX_TENSORS)
                return fail(c, tn, "tensors", "more than 4 tensor maps", NULL, NULL);
            desc_tensor *t = &d->tensors[d->ntensors];
            tm_desc_defaults(&t->map);
            t->map.dtype = TM_DTYPE_F16;
            t->l2_hit = -1;   /* not given: the simulator derives it from the tile order */
            snprintf(t->name, sizeof t->name, "t%u", d->ntensors);
            tensor_user u = {.t = t};
            int rc = each_field(c, tn, "tensors",
                                "name, dtype, dims, strides, box, swizzle, interleave, l2_promotion, l2_hit, address",
                                tensor_field, &u);
            if (rc)
                return rc;
            if (!u.has_dims || !u.has_box)
                return fail(c, tn, u.has_dims ? "tensors.box" : "tensors.dims", "missing (a list, innermost first)", NULL,
                            NULL);
            if (u.nbox != u.ndims)
                return fail(c, tn, "tensors.box", "needs as many entries as dims", NULL, NULL);
            t->map.rank = u.ndims;
            if (u.nstrides == 0) {   /* packed row-major */
                uint64_t bytes = (tm_dtype_get(t->map.dtype)->bits + 7) / 8;
                for (uint32_t k = 0; k + 1 < u.ndims; k++) {
                    bytes *= t->map.dims[k];
                    t->map.strides[k] = bytes;
                }
            } else if (u.nstrides + 1 != u.ndims) {
                return fail(c, tn, "tensors.strides", "needs rank-1 entries (bytes, dims[1..])", NULL, NULL);
            }
            if (t->map.global_address == 0)
                t->map.global_address = 0x7f0000000000ull + (uint64_t)d->ntensors * (1ull << 36);
            d->ntensors++;
        }
    }
    return ERR_OK;
}

/* pipe_desc_derive names the file and the field ("FILE: field 'x.y': ..."); insert the
 * line of the field (or of the tensor it is about) so every error reads FILE:LINE. */
static void add_line_to_shape_error(const ctx *c, const pipe_desc *d, err_info *e)
{
    /* derive names the file as the description stores it */
    size_t flen = strlen(d->file);
    if (strncmp(e->detail, d->file, flen) != 0 || e->detail[flen] != ':' || e->detail[flen + 1] != ' ')
        return;
    unsigned long line = 0;
    const char *item = strstr(e->detail, "'tensors[");
    if (item) {
        char path[24];
        unsigned idx = 0;
        if (sscanf(item, "'tensors[%u]", &idx) == 1) {
            snprintf(path, sizeof path, "tensors[%u]", idx);
            line = line_of(c, path);
        }
    }
    if (!line)
        line = line_of(c, e->rule);
    if (!line)
        line = 1;   /* a field the description left to its default: the document itself */
    char num[24];
    snprintf(num, sizeof num, ":%lu", line);
    err_insert(e, flen, num);
    /* the description keeps its file name in a fixed field: put back what it cut off */
    if (strlen(c->file) > flen && !strncmp(c->file, d->file, flen))
        err_insert(e, flen, c->file + flen);
}

int desc_parse_yaml(const char *text, size_t len, const char *filename, pipe_desc *out, err_info *e)
{
    memset(out, 0, sizeof *out);
    snprintf(out->file, sizeof out->file, "%s", filename);
    out->ctas = 1;
    out->ctas_per_sm = 1;
    out->cluster = 1;
    out->producer_warps = 1;
    out->consumer_warps = 1;
    out->stages = 2;
    out->iterations = 1;
    out->reads_repeat = 1;
    yaml_parser_t parser;
    yaml_document_t doc;
    if (!yaml_parser_initialize(&parser))
        return err_set(e, ERR_IO, "yaml", "cannot initialise libyaml");
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, &doc)) {
        int rc = err_set(e, ERR_BAD_INPUT, "yaml_syntax", "%s:%lu: field '(syntax)': %s", filename,
                         (unsigned long)parser.problem_mark.line + 1, parser.problem ? parser.problem : "YAML error");
        yaml_parser_delete(&parser);
        return rc;
    }
    ctx c = {.doc = &doc, .file = filename, .e = e};
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    int rc;
    if (!root)
        rc = err_set(e, ERR_BAD_INPUT, "empty", "%s:1: field '(document)': empty description", filename);
    else
        rc = each_field(&c, root, "",
                        "name, mode, grid, cluster, warps, stages, iterations, smem_base, tensors, barriers, producer, consumer, "
                        "store, cpasync, gemm",
                        top_field, out);
    /* modes without a producer warp: the consumers copy */
    if (!rc && !pipe_desc_has_producer(out) && root) {
        int producer_given = 0;
        yaml_node_t *wn = NULL;
        for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++)
            if (!strcmp(scalar(yaml_document_get_node(&doc, p->key)), "warps"))
                wn = yaml_document_get_node(&doc, p->value);
        if (wn)
            for (yaml_node_pair_t *p = wn->data.mapping.pairs.start; p < wn->data.mapping.pairs.top; p++)
                if (!strcmp(scalar(yaml_document_get_node(&doc, p->key)), "producer"))
                    producer_given = 1;
        if (!producer_given)
            out->producer_warps = 0;
    }
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    if (!rc && (rc = pipe_desc_derive(out, e)) == ERR_BAD_INPUT && e)
        add_line_to_shape_error(&c, out, e);
    return rc;
}

int desc_load(const char *path, pipe_desc *out, err_info *e)
{
    size_t n = 0;
    int err = 0;
    char *buf = rfile_load(path, DESC_MAX_FILE_BYTES, &n, &err);
    if (!buf)
        return err_set(e, err == ENOMEM ? ERR_IO : ERR_BAD_INPUT, "desc_open", "%s:0: field '(file)': %s%s", path,
                       strerror(err), err == EFBIG ? " (a description holds at most 1 MiB)" : "");
    int rc = desc_parse_yaml(buf, n, path, out, e);
    free(buf);
    return rc;
}
