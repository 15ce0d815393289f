/* tmasim wgmma: where wgmma.mma_async reads each operand element from its matrix
 * descriptor, and whether that is what the TMA copy of the tile wrote there. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "cmds.h"
#include "draw_wgmma.h"
#include "wgmma.h"
#include "wgmma_flags.h"

static void usage(FILE *to)
{
    fprintf(to,
            "usage: tmasim wgmma (--atype T | --btype T) [descriptor] [tile] [output]\n"
            "The shared-memory byte wgmma.mma_async reads for every element of a descriptor-addressed\n"
            "operand (sm_90a; measured on an H200, traces/h200/wgmma). With a tile (the tensor-map flags\n"
            "of tmasim layout), checks that the k-block reads what TMA wrote and names the right\n"
            "descriptor, or why none exists.\n\n%s"
            "output:\n"
            "  --format F           table (default), csv (row,k,address[,tma_address,agree]), json\n"
            "  --max-rows N         table: operand rows listed (default 8)\n"
            "  --png FILE, --svg FILE  draw the tile and what the k-block reads\n"
            "  --picture-lines N    128-byte lines drawn from the first one touched (default 64)\n"
            "  --help\n\n"
            "exit status: 0 the reads agree with the tile (or no tile), 1 mismatch or no descriptor\n"
            "can read the tile, 2 bad input\n"
            "example: tmasim wgmma --atype f16 --dtype f16 --dims 64,64 --box 64,64 --swizzle 128B \\\n"
            "           --smem-address 0x4400 --k-block 1 --desc 0x4000004000010440\n",
            wg_flags_usage());
}

typedef struct wg_opts {
    wg_flags f;
    cli_format format;
    const char *png, *svg;
    uint64_t max_rows, picture_lines;
    wg_desc desc;
    int has_desc;
    wg_tile tile;
} wg_opts;

static int picture_flag(wg_opts *o, const char *flag, const char *value, err_info *e)
{
    size_t n = strlen(value);
    const char *ext = flag[2] == 'p' ? "png" : "svg";
    if (n < 5 || strcasecmp(value + n - 3, ext) || value[n - 4] != '.')
        return err_set(e, ERR_BAD_INPUT, flag, "'%s' is not a path ending .%s", value, ext);
    *(flag[2] == 'p' ? &o->png : &o->svg) = value;
    return ERR_OK;
}

static int parse_args(int argc, char **argv, wg_opts *o, err_info *e)
{
    for (int i = 1; i < argc; i++) {
        const char *flag = argv[i];
        if (!strcmp(flag, "--help"))
            continue;
        if (strncmp(flag, "--", 2))
            return err_set(e, ERR_BAD_INPUT, "argument", "'%s' is not a flag (see tmasim wgmma --help)", flag);
        if (i + 1 >= argc)
            return err_set(e, ERR_BAD_INPUT, flag, "needs a value");
        const char *v = argv[++i];
        int rc = wg_flags_apply(&o->f, flag, v, e);
        if (rc != TM_FLAGS_NOT_MINE) {
            if (rc)
                return rc;
            continue;
        }
        if (!strcmp(flag, "--format"))
            rc = cli_format_parse(v, &o->format, e);
        else if (!strcmp(flag, "--png") || !strcmp(flag, "--svg"))
            rc = picture_flag(o, flag, v, e);
        else if (!strcmp(flag, "--picture-lines"))
            rc = cli_parse_u64(v, "--picture-lines", 1, 1024, &o->picture_lines, e);
        else if (!strcmp(flag, "--max-rows"))
            rc = cli_parse_u64(v, "--max-rows", 1, 256, &o->max_rows, e);
        else
            rc = err_set(e, ERR_BAD_INPUT, flag, "not a flag of tmasim wgmma (see --help)");
        if (rc)
            return rc;
    }
    int rc = wg_flags_finish(&o->f, &o->desc, &o->has_desc, &o->tile, e);
    if (rc == ERR_OK && !o->has_desc && !o->f.has_tile)
        rc = err_set(e, ERR_BAD_INPUT, "--desc", "give a descriptor (--desc or its fields), a tile, or both");
    if (rc == ERR_OK && o->has_desc)
        rc = wg_desc_check(&o->desc, e);
    return rc;
}

/* ---- table --------------------------------------------------------------------- */

static void print_desc(const char *label, const wg_desc *d)
{
    printf("%s 0x%016" PRIx64 ": start 0x%x, LBO %u B (field %u), SBO %u B (field %u), base offset %u, swizzle %s\n",
           label, wg_desc_encode(d), d->start, d->lbo, d->lbo >> 4, d->sbo, d->sbo >> 4, d->base_offset,
           wg_swizzle_name(d->swizzle));
}

static void print_shape(const wg_shape *s)
{
    char n[16] = "N";
    if (s->operand == WG_B)
        snprintf(n, sizeof n, "%u", s->n);
    printf("operand     %s, %s, %s-major, m64n%sk%u: %u rows x %u k, %u byte%s each\n", s->operand == WG_A ? "A" : "B",
           wg_dtype_name(s->dtype), s->major == WG_K_MAJOR ? "K" : "MN", n, wg_k(s->dtype), wg_rows(s), wg_k(s->dtype),
           wg_dtype_bytes(s->dtype), wg_dtype_bytes(s->dtype) > 1 ? "s" : "");
}

static void print_runs(const uint32_t *a, uint32_t n)
{
    for (uint32_t i = 0; i < n;) {
        uint32_t j = i + 1;
        int64_t step = n > i + 1 ? (int64_t)a[i + 1] - a[i] : 0;
        while (j < n && (int64_t)a[j] - a[j - 1] == step)
            j++;
        if (j - i == 1)
            printf(" 0x%x", a[i]);
        else
            printf(" 0x%x%+" PRId64 "x%u", a[i], step, j - i);
        i = j;
    }
}

static void print_reads(const wg_opts *o)
{
    const wg_shape *s = &o->f.shape;
    uint32_t K = wg_k(s->dtype), rows = wg_rows(s), shown = rows < o->max_rows ? rows : (uint32_t)o->max_rows;
    uint32_t *a = malloc(sizeof *a * K);
    if (!a)
        return;
    printf("reads       per operand row, k = 0..%u (address+step x count):\n", K - 1);
    for (uint32_t r = 0; r < shown; r++) {
        for (uint32_t k = 0; k < K; k++)
            a[k] = wg_element_address(s, &o->desc, r, k);
        printf("  row %3u:", r);
        print_runs(a, K);
        putchar('\n');
    }
    if (shown < rows)
        printf("  ... %u more rows (--max-rows)\n", rows - shown);
    free(a);
}

static void print_tile(const wg_opts *o)
{
    const tm_plan *p = &o->tile.plan;
    uint32_t K = wg_k(o->f.shape.dtype);
    printf("tile        TMA box ");
    for (uint32_t i = 0; i < p->desc.rank; i++)
        printf("%s%u", i ? "x" : "", p->loaded[i]);
    printf(" %s, swizzle %s, at shared 0x%x; k-block %u reads k %u..%u", tm_dtype_get(p->desc.dtype)->name,
           tm_swizzle_name(p->desc.swizzle), p->copy.smem_address, o->tile.k_block, o->tile.k_block * K,
           o->tile.k_block * K + K - 1);
    if (o->tile.row_origin)
        printf(", rows from %u", o->tile.row_origin);
    putchar('\n');
}

static void print_check(const wg_opts *o, const wg_check *c)
{
    if (!c->mismatches)
        printf("verdict     AGREE: all %u elements are read from where TMA put them\n", c->elements);
    else
        printf("verdict     MISMATCH: %u of %u elements are read from the wrong place\n", c->mismatches, c->elements);
    for (uint32_t i = 0; i < c->n_first; i++) {
        const wg_mismatch *m = &c->first[i];
        printf("  (row %u, k %u): TMA put it at ", m->row, m->k + o->tile.k_block * wg_k(o->f.shape.dtype));
        if (m->want_address == WG_NOWHERE)
            printf("no address (the box does not hold it)");
        else
            printf("0x%x", m->want_address);
        printf("; the descriptor reads 0x%x", m->read_address);
        if (m->has_read_element)
            printf(", which holds (row %u, k %u)\n", m->read_row, m->read_k);
        else
            printf(", which holds no element of the tile\n");
    }
    if (c->mismatches > c->n_first)
        printf("  ... %u more\n", c->mismatches - c->n_first);
    if (c->has_fix) {
        if (c->mismatches || !o->has_desc)
            print_desc("right desc ", &c->fix);
        if (!o->has_desc || c->mismatches)
            printf("            --start-address 0x%x --leading-byte-offset %u --stride-byte-offset %u --base-offset %u "
                   "--swizzle-mode %s\n",
                   c->fix.start, c->fix.lbo, c->fix.sbo, c->fix.base_offset, wg_swizzle_name(c->fix.swizzle));
    } else {
        printf("no descriptor can read this k-block: %s\n", c->why_none);
    }
}

/* ---- csv and json -------------------------------------------------------------- */

static void print_csv(const wg_opts *o, const uint32_t *want)
{
    const wg_shape *s = &o->f.shape;
    uint32_t K = wg_k(s->dtype);
    printf("row,k,address%s\n", want ? ",tma_address,agree" : "");
    for (uint32_t i = 0; i < wg_elements(s); i++) {
        uint32_t a = wg_element_address(s, &o->desc, i / K, i % K);
        printf("%u,%u,%u", i / K, i % K + o->tile.k_block * K, a);
        if (want && want[i] == WG_NOWHERE)
            printf(",,0");
        else if (want)
            printf(",%u,%d", want[i], a == want[i]);
        putchar('\n');
    }
}

static void json_desc(const char *key, const wg_desc *d)
{
    printf("\"%s\":{\"raw\":\"0x%016" PRIx64 "\",\"start_address\":%u,\"leading_byte_offset\":%u,"
           "\"stride_byte_offset\":%u,\"base_offset\":%u,\"swizzle_mode\":\"%s\"}",
           key, wg_desc_encode(d), d->start, d->lbo, d->sbo, d->base_offset, wg_swizzle_name(d->swizzle));
}

static void print_json(const wg_opts *o, const wg_check *c, int has_check)
{
    const wg_shape *s = &o->f.shape;
    uint32_t K = wg_k(s->dtype);
    printf("{\"operand\":\"%s\",\"type\":\"%s\",\"major\":\"%s\",\"rows\":%u,\"k\":%u,", s->operand == WG_A ? "a" : "b",
           wg_dtype_name(s->dtype), s->major == WG_K_MAJOR ? "k" : "mn", wg_rows(s), K);
    if (o->has_desc) {
        json_desc("descriptor", &o->desc);
        printf(",\"addresses\":[");
        for (uint32_t i = 0; i < wg_elements(s); i++)
            printf("%s%u", i ? "," : "", wg_element_address(s, &o->desc, i / K, i % K));
        printf("],");
    }
    if (has_check)
        printf("\"k_block\":%u,", o->tile.k_block);
    if (has_check && o->has_desc) {
        printf("\"agree\":%s,\"mismatches\":%u,\"first_mismatches\":[", c->mismatches ? "false" : "true",
               c->mismatches);
        for (uint32_t i = 0; i < c->n_first; i++) {
            const wg_mismatch *m = &c->first[i];
            printf("%s{\"row\":%u,\"k\":%u,\"read\":%u,\"tma\":", i ? "," : "", m->row, m->k + o->tile.k_block * K,
                   m->read_address);
            if (m->want_address == WG_NOWHERE)
                printf("null}");
            else
                printf("%u}", m->want_address);
        }
        printf("],");
    }
    if (has_check) {
        if (c->has_fix)
            json_desc("right_descriptor", &c->fix);
        else
            printf("\"right_descriptor\":null,\"why_none\":\"%s\"", c->why_none);
        printf(",");
    }
    printf("\"model\":\"sim/wgmma.c\"}\n");
}

static int draw(const wg_opts *o, const char *path)
{
    err_info e = {0};
    char title[200];
    const wg_shape *s = &o->f.shape;
    int n = snprintf(title, sizeof title, "%s %s %s-major, desc 0x%016" PRIx64, s->operand == WG_A ? "A" : "B",
                     wg_dtype_name(s->dtype), s->major == WG_K_MAJOR ? "K" : "MN", wg_desc_encode(&o->desc));
    if (o->f.has_tile)
        snprintf(title + n, sizeof title - (size_t)n, ", k-block %u", o->tile.k_block);
    draw_wgmma_opts d = {.path = path, .title = title, .max_lines = (uint32_t)o->picture_lines};
    if (draw_wgmma(o->f.has_tile ? &o->tile : NULL, s, &o->desc, &d, &e))
        return cli_report("wgmma", &e);
    return EXIT_OK;
}

int cmd_wgmma(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return EXIT_OK;
        }
    wg_opts *o = calloc(1, sizeof *o);
    err_info e = {0};
    if (!o)
        return EXIT_BAD_INPUT;
    wg_flags_init(&o->f);
    o->max_rows = 8;
    o->picture_lines = 64;
    int rc = parse_args(argc, argv, o, &e);
    if (rc == ERR_OK && (o->png || o->svg) && !o->has_desc)
        rc = err_set(&e, ERR_BAD_INPUT, o->png ? "--png" : "--svg", "the picture needs a descriptor (--desc or its fields)");
    if (rc) {
        free(o);
        return cli_report("wgmma", &e);
    }
    wg_check c;
    memset(&c, 0, sizeof c);
    int finding = 0;
    if (o->f.has_tile) {
        if (o->has_desc)
            finding = wg_check_tile(&o->tile, &o->f.shape, &o->desc, NULL, &c, &e) != ERR_OK;
        else {
            c.elements = wg_elements(&o->f.shape);
            c.has_fix = wg_find_desc(&o->tile, &o->f.shape, &c.fix, c.why_none, sizeof c.why_none) == ERR_OK;
            finding = !c.has_fix;
        }
    }
    uint32_t *want = NULL;
    if (o->format == CLI_FORMAT_CSV && o->has_desc && o->f.has_tile && (want = malloc(sizeof *want * c.elements)))
        for (uint32_t i = 0; i < c.elements; i++)
            if (!wg_tile_address(&o->tile, &o->f.shape, i / wg_k(o->f.shape.dtype), i % wg_k(o->f.shape.dtype),
                                 &want[i]))
                want[i] = WG_NOWHERE;
    if (o->format == CLI_FORMAT_JSON)
        print_json(o, &c, o->f.has_tile);
    else if (o->format == CLI_FORMAT_CSV) {
        if (o->has_desc)
            print_csv(o, want);
        else if (c.has_fix)
            printf("start_address,leading_byte_offset,stride_byte_offset,base_offset,swizzle_mode,raw\n%u,%u,%u,%u,%s,0x%016" PRIx64 "\n",
                   c.fix.start, c.fix.lbo, c.fix.sbo, c.fix.base_offset, wg_swizzle_name(c.fix.swizzle),
                   wg_desc_encode(&c.fix));
    } else {
        print_shape(&o->f.shape);
        if (o->has_desc)
            print_desc("descriptor ", &o->desc);
        if (o->f.has_tile) {
            print_tile(o);
            if (o->has_desc)
                print_check(o, &c);
            else if (c.has_fix)
                print_check(o, &c);
            else
                printf("no descriptor can read this k-block: %s\n", c.why_none);
        } else
            print_reads(o);
    }
    free(want);
    int xrc = finding ? EXIT_FINDING : EXIT_OK;
    if (o->png && draw(o, o->png))
        xrc = EXIT_BAD_INPUT;
    if (o->svg && draw(o, o->svg))
        xrc = EXIT_BAD_INPUT;
    free(o);
    return xrc;
}

/* ---- replay of the recorded corpus (tmasim replay traces/h200/wgmma) ------------- */

#include "wgmma_rec.h"

int cmd_wgmma_replay(const char *path, cli_format fmt, uint64_t ndetails)
{
    wg_replay_report *r = calloc(1, sizeof *r);
    err_info e = {0};
    if (!r)
        return EXIT_BAD_INPUT;
    int rc = wg_replay_file(path, r, &e);
    if (rc != ERR_OK && rc != ERR_FINDING) {
        free(r);
        return cli_report("replay", &e);
    }
    const struct { const char *what; uint32_t agree, total; } rows[4] = {
        {"addresses", r->addr_agree, r->cases},
        {"tile verdicts", r->verdict_agree, r->tile_cases},
        {"right descriptors", r->fix_confirmed, r->fix_cases},
        {"correct descriptors", r->ok_hw_agree, r->ok_cases},
    };
    if (fmt == CLI_FORMAT_JSON) {
        printf("{\"recording\":\"%s\",\"elements\":%" PRIu64, path, r->elements);
        for (int i = 0; i < 4; i++)
            printf(",\"%s\":{\"agree\":%u,\"cases\":%u}", rows[i].what, rows[i].agree, rows[i].total);
        printf(",\"all_agree\":%s}\n", rc == ERR_OK ? "true" : "false");
    } else if (fmt == CLI_FORMAT_CSV) {
        printf("check,agree,cases\n");
        for (int i = 0; i < 4; i++)
            printf("%s,%u,%u\n", rows[i].what, rows[i].agree, rows[i].total);
    } else {
        printf("wgmma recording %s: %u cases, %" PRIu64 " element addresses\n", path, r->cases, r->elements);
        printf("  %-20s %6s %6s\n", "check", "agree", "cases");
        for (int i = 0; i < 4; i++)
            printf("  %-20s %6u %6u  %s\n", rows[i].what, rows[i].agree, rows[i].total,
                   rows[i].agree == rows[i].total ? "100%" : "DISAGREE");
        printf("  (addresses: model vs hardware, every element; tile verdicts: the cross-check on the\n"
               "  recorded reads vs on the model's; right descriptors: for each recorded mismatch, the\n"
               "  proposed descriptor reads what the hardware read with the recorded correct one)\n");
        for (uint32_t i = 0; i < r->n_details && i < ndetails; i++)
            printf("  %s\n", r->details[i]);
    }
    free(r);
    return rc == ERR_OK ? EXIT_OK : EXIT_FINDING;
}
