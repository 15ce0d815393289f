/* tmasim layout: where a TMA box lands in shared memory, from the flags of
 * cuTensorMapEncodeTiled (parsed by tm_flags, shared with tmahw layout). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "cmds.h"
#include "draw_tile.h"
#include "tm.h"
#include "tm_flags.h"

static void usage(FILE *to)
{
    fprintf(to,
            "usage: tmasim layout --dtype T --dims D0,... --box B0,... [flags]\n"
            "Where a TMA tiled load (cp.async.bulk.tensor) puts each element of its box in shared\n"
            "memory, for a tensor map encoded with cuTensorMapEncodeTiled on an H100 (sm_90).\n\n"
            "tensor-map flags (named after the driver's parameters):\n%s\n"
            "output:\n"
            "  --format F           table (default: a map of 128-byte shared-memory rows), csv, json\n"
            "                       csv: smem_offset,c0,...,c{rank-1},oob per loaded element\n"
            "  --reverse ADDR       which element sits at absolute shared byte ADDR\n"
            "  --max-rows N         table: shared-memory rows shown before eliding (default 96)\n"
            "  --png FILE, --svg FILE  draw the tile (chunks coloured by coordinate)\n"
            "  --help\n\n"
            "exit status: 0 ok, 1 the driver would reject the map (prints 'rejected: <rule>: <value>'),\n"
            "2 bad input\n"
            "example: tmasim layout --dtype f16 --dims 64,64 --box 64,64 --swizzle 128B\n",
            tm_flags_usage());
}

typedef struct layout_opts {
    tm_flags f;
    cli_format format;
    const char *png, *svg;
    int has_reverse;
    uint64_t reverse;
    uint64_t max_rows;
} layout_opts;

static int bad(const char *flag, const char *fmt, const char *value)
{
    fprintf(stderr, "tmasim layout: %s: ", flag);
    fprintf(stderr, fmt, value);
    fputc('\n', stderr);
    return EXIT_BAD_INPUT;
}

static int parse_args(int argc, char **argv, layout_opts *o)
{
    err_info e = {0};
    for (int i = 1; i < argc; i++) {
        char flag[64];
        const char *arg = argv[i], *value = NULL;
        const char *eq = strchr(arg, '=');
        if (strncmp(arg, "--", 2) != 0)
            return bad("argument", "'%s' is not a flag (see tmasim layout --help)", arg);
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        if (len >= sizeof flag)
            return bad("argument", "'%s' is not a flag (see tmasim layout --help)", arg);
        memcpy(flag, arg, len);
        flag[len] = 0;
        if (!strcmp(flag, "--help"))
            continue; /* handled by the caller */
        if (eq) value = eq + 1;
        else if (i + 1 < argc) value = argv[++i];
        else {
            /* a known flag lacks its value; anything else is not a flag at all */
            int known = tm_flags_is_mine(flag) || !strcmp(flag, "--format") ||
                        !strcmp(flag, "--png") || !strcmp(flag, "--svg") || !strcmp(flag, "--reverse") ||
                        !strcmp(flag, "--max-rows");
            if (!known) return bad(flag, "'%s' is not a flag of tmasim layout (see --help)", flag);
            return bad(flag, "%s needs a value", flag);
        }

        int rc = tm_flags_apply(&o->f, flag, value, &e);
        if (rc == ERR_OK) continue;
        if (rc != TM_FLAGS_NOT_MINE) return cli_report("layout", &e);
        if (!strcmp(flag, "--format")) {
            if (cli_format_parse(value, &o->format, &e)) return cli_report("layout", &e);
        } else if (!strcmp(flag, "--png") || !strcmp(flag, "--svg")) {
            /* checked here, before any work: the extension names the format */
            const char *ext = flag + 1;   /* ".png" / ".svg" after the first dash */
            size_t n = strlen(value), k = strlen(ext + 1);
            if (n <= k || strcasecmp(value + n - k, ext + 1) || value[n - k - 1] != '.') {
                err_set(&e, ERR_BAD_INPUT, "picture_path", "field '%s' = '%s' (allowed: a path ending .%s)", flag, value,
                        ext + 1);
                return cli_report("layout", &e);
            }
            if (cli_check_outpath(flag, value, &e)) return cli_report("layout", &e);
            if (flag[2] == 'p')
                o->png = value;
            else
                o->svg = value;
        } else if (!strcmp(flag, "--reverse")) {
            if (cli_parse_u64(value, "--reverse", 0, UINT32_MAX, &o->reverse, &e)) return cli_report("layout", &e);
            o->has_reverse = 1;
        } else if (!strcmp(flag, "--max-rows")) {
            if (cli_parse_u64(value, "--max-rows", 1, 1u << 20, &o->max_rows, &e)) return cli_report("layout", &e);
        } else {
            return bad(flag, "'%s' is not a flag of tmasim layout (see --help)", flag);
        }
    }
    if (tm_flags_finish(&o->f, &e))
        return cli_report("layout", &e);
    return EXIT_OK;
}

/* ---- table ------------------------------------------------------------------------- */

static void list_u64(FILE *out, const uint64_t *v, unsigned n)
{
    for (unsigned i = 0; i < n; i++) fprintf(out, "%s%" PRIu64, i ? "," : "", v[i]);
}
static void list_u32(FILE *out, const uint32_t *v, unsigned n)
{
    for (unsigned i = 0; i < n; i++) fprintf(out, "%s%" PRIu32, i ? "," : "", v[i]);
}

static void print_header(FILE *out, const tm_plan *p)
{
    const tm_desc *d = &p->desc;
    fprintf(out, "tensor map  %s, rank %u, dims ", tm_dtype_get(d->dtype)->name, d->rank);
    list_u64(out, d->dims, d->rank);
    fprintf(out, ", strides ");
    if (d->rank > 1) list_u64(out, d->strides, d->rank - 1);
    else fprintf(out, "-");
    fprintf(out, " B, box ");
    list_u32(out, d->box, d->rank);
    fprintf(out, ", elem-strides ");
    list_u32(out, d->elem_strides, d->rank);
    fprintf(out, "\n            interleave %s, swizzle %s, l2-promotion %s, oob-fill %s, global 0x%" PRIx64 ", sm_%u\n",
            tm_interleave_name(d->interleave), tm_swizzle_name(d->swizzle), tm_l2_name(d->l2_promotion),
            tm_oob_name(d->oob_fill), d->global_address, d->sm_version);
    fprintf(out, "copy        coords ");
    for (unsigned i = 0; i < d->rank; i++) fprintf(out, "%s%" PRId32, i ? "," : "", p->copy.coords[i]);
    fprintf(out, " -> shared 0x%x\n", p->copy.smem_address);
    fprintf(out, "placement   %" PRIu64 " elements (", p->elements);
    for (unsigned i = 0; i < d->rank; i++) fprintf(out, "%s%u", i ? "x" : "", p->loaded[i]);
    fprintf(out, "), row %u B, row pitch %u B, footprint %u B at 0x%x..0x%x, tx bytes %u\n", p->row_bytes,
            p->row_pitch, p->footprint_bytes, p->footprint_start, p->footprint_start + p->footprint_bytes, p->tx_bytes);
    if (d->interleave != TM_INTERLEAVE_NONE)
        fprintf(out, "            interleave (measured on the H100): an element is a %u B granule, dims[0] and coords[0]\n"
                     "            count granules, dimension %u is not traversed (only coords[%u] is copied)\n",
                p->elem_bits / 8, d->rank - 2, d->rank - 2);
}

/* The label of one 16-byte chunk: the coordinates of the first element in it, with
 * '*' for out of bounds, '.' for padding. */
static void chunk_label(const tm_plan *p, uint32_t addr, char *buf, size_t size)
{
    tm_element el;
    uint32_t byte = 0;
    for (uint32_t k = 0; k < 16; k++) {
        if (tm_plan_element_at(p, addr + k, &el, &byte)) {
            size_t used = 0;
            for (uint32_t i = 0; i < p->desc.rank && used + 1 < size; i++) {
                int w = snprintf(buf + used, size - used, "%s%" PRId64, i ? "," : "", el.coord[i]);
                if (w < 0) break;
                used += (size_t)w;
            }
            if (el.oob && used + 2 < size) buf[used++] = '*', buf[used] = 0;
            return;
        }
    }
    snprintf(buf, size, ".");
}

static void print_map(FILE *out, const tm_plan *p, uint64_t max_rows)
{
    print_header(out, p);
    uint32_t first = p->footprint_start & ~127u;
    uint64_t end = (uint64_t)p->footprint_start + p->footprint_bytes;
    uint32_t lines = (uint32_t)((end - first + 127) / 128);
    char label[8][96];
    size_t width = 1;
    /* Width from a sample of lines so huge boxes do not cost two passes. */
    for (uint32_t l = 0; l < lines && l < 64; l++)
        for (uint32_t c = 0; c < 8; c++) {
            chunk_label(p, first + l * 128 + c * 16, label[0], sizeof label[0]);
            size_t n = strlen(label[0]);
            if (n > width) width = n;
        }
    if (lines > 64) width += 2;
    fprintf(out, "\nshared memory, 128 B per line (8 chunks of 16 B = banks 0-31); each chunk shows the\n"
                 "coordinates (c0,c1,...) of its first element, * out of bounds (filled), . not written\n");
    fprintf(out, "%-10s", "address");
    for (uint32_t c = 0; c < 8; c++) {
        char h[32];
        snprintf(h, sizeof h, "+%u b%u", c * 16, c * 4);
        fprintf(out, " %-*s", (int)width, h);
    }
    fputc('\n', out);
    uint64_t head = lines, tail = 0;
    if (lines > max_rows) {
        tail = max_rows / 4;
        head = max_rows - tail;
    }
    for (uint32_t l = 0; l < lines; l++) {
        if (l == head && tail) {
            fprintf(out, "... %" PRIu64 " lines not shown (--max-rows, or --format csv for every element) ...\n",
                    lines - head - tail);
            l = lines - (uint32_t)tail;
        }
        uint32_t a = first + l * 128;
        fprintf(out, "0x%-8x", a);
        for (uint32_t c = 0; c < 8; c++) {
            uint32_t ca = a + c * 16;
            if (ca < p->footprint_start || ca >= end) snprintf(label[c], sizeof label[c], " ");
            else chunk_label(p, ca, label[c], sizeof label[c]);
            fprintf(out, " %-*s", (int)width, label[c]);
        }
        fputc('\n', out);
    }
}

/* ---- csv / json ------------------------------------------------------------------ */

typedef struct emit_ctx {
    FILE *out;
    const tm_plan *p;
    int json;
    uint64_t n;
} emit_ctx;

static int emit(const tm_element *el, void *user)
{
    emit_ctx *x = user;
    int64_t off = (int64_t)el->smem_address - (int64_t)x->p->copy.smem_address;
    if (x->json) {
        fprintf(x->out, "%s\n    {\"smem_offset\": %" PRId64 ", \"coords\": [", x->n ? "," : "", off);
        for (uint32_t i = 0; i < x->p->desc.rank; i++) fprintf(x->out, "%s%" PRId64, i ? ", " : "", el->coord[i]);
        fprintf(x->out, "], \"oob\": %s}", el->oob ? "true" : "false");
    } else {
        fprintf(x->out, "%" PRId64, off);
        for (uint32_t i = 0; i < x->p->desc.rank; i++) fprintf(x->out, ",%" PRId64, el->coord[i]);
        fprintf(x->out, ",%d\n", el->oob);
    }
    x->n++;
    return 0;
}

static void json_u64s(FILE *out, const char *key, const uint64_t *v, unsigned n)
{
    fprintf(out, "  \"%s\": [", key);
    for (unsigned i = 0; i < n; i++) fprintf(out, "%s%" PRIu64, i ? ", " : "", v[i]);
    fprintf(out, "],\n");
}
static void json_u32s(FILE *out, const char *key, const uint32_t *v, unsigned n)
{
    fprintf(out, "  \"%s\": [", key);
    for (unsigned i = 0; i < n; i++) fprintf(out, "%s%" PRIu32, i ? ", " : "", v[i]);
    fprintf(out, "],\n");
}

static void print_json(FILE *out, const tm_plan *p, const tm_element *rev, int rev_found, int has_rev, uint32_t rev_addr)
{
    const tm_desc *d = &p->desc;
    fprintf(out, "{\n  \"dtype\": \"%s\",\n  \"rank\": %u,\n", tm_dtype_get(d->dtype)->name, d->rank);
    json_u64s(out, "dims", d->dims, d->rank);
    json_u64s(out, "strides", d->strides, d->rank ? d->rank - 1 : 0);
    json_u32s(out, "box", d->box, d->rank);
    json_u32s(out, "elem_strides", d->elem_strides, d->rank);
    fprintf(out, "  \"interleave\": \"%s\",\n  \"swizzle\": \"%s\",\n  \"l2_promotion\": \"%s\",\n  \"oob_fill\": \"%s\",\n",
            tm_interleave_name(d->interleave), tm_swizzle_name(d->swizzle), tm_l2_name(d->l2_promotion), tm_oob_name(d->oob_fill));
    fprintf(out, "  \"global_address\": %" PRIu64 ",\n  \"sm\": %u,\n  \"coords\": [", d->global_address, d->sm_version);
    for (unsigned i = 0; i < d->rank; i++) fprintf(out, "%s%" PRId32, i ? ", " : "", p->copy.coords[i]);
    fprintf(out, "],\n  \"smem_address\": %u,\n", p->copy.smem_address);
    json_u32s(out, "loaded", p->loaded, d->rank);
    fprintf(out, "  \"element_count\": %" PRIu64 ",\n  \"row_bytes\": %u,\n  \"row_pitch\": %u,\n"
                 "  \"footprint_start\": %u,\n  \"footprint_bytes\": %u,\n  \"tx_bytes\": %u,\n",
            p->elements, p->row_bytes, p->row_pitch, p->footprint_start, p->footprint_bytes, p->tx_bytes);
    if (has_rev) {
        fprintf(out, "  \"reverse\": {\"smem_address\": %u, \"found\": %s", rev_addr, rev_found ? "true" : "false");
        if (rev_found) {
            fprintf(out, ", \"coords\": [");
            for (unsigned i = 0; i < d->rank; i++) fprintf(out, "%s%" PRId64, i ? ", " : "", rev->coord[i]);
            fprintf(out, "], \"oob\": %s", rev->oob ? "true" : "false");
        }
        fprintf(out, "},\n");
    }
    fprintf(out, "  \"elements\": [");
    emit_ctx x = {out, p, 1, 0};
    tm_plan_foreach(p, emit, &x);
    fprintf(out, "\n  ]\n}\n");
}

int cmd_layout(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return EXIT_OK;
        }
    layout_opts *o = calloc(1, sizeof *o);
    if (!o) return bad("memory", "%s", "out of memory");
    tm_flags_init(&o->f);
    o->max_rows = 96;
    int rc = parse_args(argc, argv, o);
    if (rc) {
        free(o);
        return rc;
    }
    tm_plan plan;
    err_info e = {0};
    int prc = tm_plan_copy(&o->f.desc, &o->f.copy, &plan, &e);
    if (prc == ERR_FINDING) {
        fprintf(stderr, "rejected: %s: %s\n", e.rule, e.detail);
        free(o);
        return EXIT_FINDING;
    }
    if (prc) {
        free(o);
        return cli_report("layout", &e);
    }

    tm_element rev;
    uint32_t rev_byte = 0;
    int rev_found = o->has_reverse && tm_plan_element_at(&plan, (uint32_t)o->reverse, &rev, &rev_byte);

    if (o->format == CLI_FORMAT_CSV) {
        printf("smem_offset");
        for (uint32_t i = 0; i < plan.desc.rank; i++) printf(",c%u", i);
        printf(",oob\n");
        emit_ctx x = {stdout, &plan, 0, 0};
        tm_plan_foreach(&plan, emit, &x);
    } else if (o->format == CLI_FORMAT_JSON) {
        print_json(stdout, &plan, &rev, rev_found, o->has_reverse, (uint32_t)o->reverse);
    } else {
        if (o->has_reverse) {
            print_header(stdout, &plan);
            printf("\nshared 0x%" PRIx64 ": ", o->reverse);
            if (!rev_found) {
                printf("no element (padding, or outside the footprint)\n");
            } else {
                printf("byte %u of element (", rev_byte);
                for (uint32_t i = 0; i < plan.desc.rank; i++) printf("%s%" PRId64, i ? "," : "", rev.coord[i]);
                printf(")%s, box index (", rev.oob ? " out of bounds" : "");
                for (uint32_t i = 0; i < plan.desc.rank; i++) printf("%s%u", i ? "," : "", rev.idx[i]);
                printf(")\n");
            }
        } else {
            print_map(stdout, &plan, o->max_rows);
        }
    }
    fflush(stdout);

    const char *pics[2] = {o->png, o->svg};
    for (int k = 0; k < 2; k++) {
        if (!pics[k]) continue;
        char title[160];
        snprintf(title, sizeof title, "%s box, swizzle %s, shared 0x%x", tm_dtype_get(plan.desc.dtype)->name,
                 tm_swizzle_name(plan.desc.swizzle), plan.copy.smem_address);
        draw_tile_opts d = {.path = pics[k], .title = title};
        if (draw_tile_plan(&plan, &d, &e)) {
            free(o);
            return cli_report("layout", &e);
        }
    }
    free(o);
    return EXIT_OK;
}
