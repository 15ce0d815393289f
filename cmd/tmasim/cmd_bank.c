/* tmasim bank: wavefronts and bank conflicts of warp shared-memory instructions, given
 * one by one (--op/--addr, --pattern FILE) or generated over a tile (tensor-map flags,
 * --padded, --xor) by an access pattern. Exit 0 no conflict, 1 conflicts, 2 bad input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "bank.h"
#include "cli.h"
#include "cmds.h"
#include "draw_tile.h"
#include "pipe_plan.h"
#include "tm_flags.h"

static void usage(FILE *to)
{
    fprintf(to,
            "usage: tmasim bank --op OP --addr A0,...,A31 [options]\n"
            "       tmasim bank --pattern FILE [options]\n"
            "       tmasim bank TILE --access rows|cols|ldsm-a|ldsm-b [--bytes-per-lane 4|8|16] [--warps 1|4]\n"
            "                   [--trans] [--store] [--compare-swizzles] [options]\n"
            "\n"
            "Wavefronts, ideal wavefronts and bank conflicts (= wavefronts - ideal) of warp\n"
            "shared-memory instructions on an H100 (32 banks of 4 bytes).\n"
            "\n"
            "  --op OP            lds32 lds64 lds128 sts32 sts64 sts128 ldsm.x1 ldsm.x2 ldsm.x4\n"
            "                     stsm.x1 stsm.x2 stsm.x4 (matrix ops may end in .trans)\n"
            "  --addr LIST        32 lane byte addresses (8*matrices for ldsm/stsm), decimal or 0x hex\n"
            "  --pattern FILE     one instruction per line: 'op a0 ... a31', '#' comments\n"
            "\n"
            "TILE is a tensor map (the flags of tmasim layout, below), or a layout without one:\n"
            "  --padded R,C,E,P   R rows x C columns of E-byte elements, P bytes between rows,\n"
            "                     starting at --smem-address\n"
            "  --xor B,M,S        with --padded: CuTe Swizzle<B,M,S> on byte offsets\n"
            "  --access A         rows / cols: lanes read bytes-per-lane chunks along rows / down\n"
            "                     columns; ldsm-a: ldmatrix.x4 fragments of an mma.m16n8k16 A (16x16);\n"
            "                     ldsm-b: ldmatrix.x2 fragments of B (tile rows n, columns k; with\n"
            "                     --trans rows k, columns n)\n"
            "  --store            sts / stmatrix instead of loads\n"
            "  --compare-swizzles the same tile and access over swizzle none 32B 64B 128B\n"
            "                     (tensor maps only); names the best; exit 1 if even the best conflicts\n"
            "\n"
            "  --format F         table (default), csv, json\n"
            "  --png FILE, --svg FILE  picture of the tile (or the instruction's rows), colliding\n"
            "                     lanes highlighted\n"
            "  --instr N          instruction to highlight in the picture (default: the worst)\n"
            "\n"
            "tensor-map flags:\n%s\n"
            "exit status: 0 no conflict, 1 conflicts found (or map rejected), 2 bad input\n",
            tm_flags_usage());
}

typedef struct bank_opts {
    tm_flags f;
    int tile_flags;            /* any tensor-map flag given */
    cli_format format;
    const char *op, *addr, *pattern, *png, *svg;
    const char *padded, *xor_swizzle, *access;
    uint64_t bytes_per_lane, warps, instr;
    int has_instr, trans, store, compare;
} bank_opts;

static int bad(const char *field, const char *detail)
{
    fprintf(stderr, "tmasim bank: %s: %s\n", field, detail);
    return EXIT_BAD_INPUT;
}

#define BANK_VALUE_FLAGS \
    "--op, --addr, --pattern, --format, --png, --svg, --padded, --xor, --access, --bytes-per-lane, --warps, --instr"

/* Flags that take a value: an unknown flag is named as such, not as one missing its value. */
static int is_value_flag(const char *flag)
{
    static const char *const mine[] = {"--op",  "--addr",   "--pattern", "--format",         "--png",   "--svg",
                                       "--padded", "--xor", "--access", "--bytes-per-lane", "--warps", "--instr"};
    for (size_t k = 0; k < sizeof mine / sizeof mine[0]; k++)
        if (!strcmp(flag, mine[k])) return 1;
    return tm_flags_is_mine(flag);
}

static int parse_args(int argc, char **argv, bank_opts *o)
{
    err_info e = {0};
    char msg[512];
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value = NULL;
        char flag[64];
        if (strncmp(arg, "--", 2) != 0) {
            snprintf(msg, sizeof msg, "'%s' is not a flag (see tmasim bank --help)", arg);
            return bad("argument", msg);
        }
        const char *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        if (len >= sizeof flag) {
            snprintf(msg, sizeof msg, "'%.80s' is not a flag (see tmasim bank --help)", arg);
            return bad("argument", msg);
        }
        memcpy(flag, arg, len);
        flag[len] = 0;
        if (!strcmp(flag, "--trans") || !strcmp(flag, "--store") || !strcmp(flag, "--compare-swizzles")) {
            if (eq) {
                snprintf(msg, sizeof msg, "%s takes no value", flag);
                return bad(flag, msg);
            }
            if (!strcmp(flag, "--trans")) o->trans = 1;
            else if (!strcmp(flag, "--store")) o->store = 1;
            else o->compare = 1;
            continue;
        }
        if (!is_value_flag(flag)) {
            snprintf(msg, sizeof msg,
                     "'%s' is not a flag of tmasim bank (allowed: %s, --trans, --store, --compare-swizzles, "
                     "the tensor-map flags of tmasim layout, --help)", flag, BANK_VALUE_FLAGS);
            return bad(flag, msg);
        }
        if (eq) value = eq + 1;
        else if (i + 1 < argc) value = argv[++i];
        else {
            snprintf(msg, sizeof msg, "%s needs a value", flag);
            return bad(flag, msg);
        }
        int rc = tm_flags_apply(&o->f, flag, value, &e);
        if (rc == ERR_OK) {
            /* --smem-address also places --padded layouts; it alone is no tensor map */
            if (strcmp(flag, "--smem-address") != 0)
                o->tile_flags = 1;
            continue;
        }
        if (rc != TM_FLAGS_NOT_MINE) return cli_report("bank", &e);
        if (!strcmp(flag, "--format")) {
            if (cli_format_parse(value, &o->format, &e)) return cli_report("bank", &e);
        } else if (!strcmp(flag, "--op")) o->op = value;
        else if (!strcmp(flag, "--addr")) o->addr = value;
        else if (!strcmp(flag, "--pattern")) o->pattern = value;
        else if (!strcmp(flag, "--png") || !strcmp(flag, "--svg")) {
            if (cli_check_outpath(flag, value, &e)) return cli_report("bank", &e);
            if (flag[2] == 'p') o->png = value;
            else o->svg = value;
        }
        else if (!strcmp(flag, "--padded")) o->padded = value;
        else if (!strcmp(flag, "--xor")) o->xor_swizzle = value;
        else if (!strcmp(flag, "--access")) o->access = value;
        else if (!strcmp(flag, "--bytes-per-lane")) {
            if (cli_parse_u64(value, "--bytes-per-lane", 4, 16, &o->bytes_per_lane, &e)) return cli_report("bank", &e);
            if (o->bytes_per_lane != 4 && o->bytes_per_lane != 8 && o->bytes_per_lane != 16)
                return bad("--bytes-per-lane", "allowed 4 8 16");
        } else if (!strcmp(flag, "--warps")) {
            if (cli_parse_u64(value, "--warps", 1, 4, &o->warps, &e)) return cli_report("bank", &e);
            if (o->warps != 1 && o->warps != 4) return bad("--warps", "allowed 1 (a warp) or 4 (a warpgroup)");
        } else if (!strcmp(flag, "--instr")) {
            if (cli_parse_u64(value, "--instr", 0, UINT32_MAX, &o->instr, &e)) return cli_report("bank", &e);
            o->has_instr = 1;
        } else {
            snprintf(msg, sizeof msg, "'%s' is not a flag of tmasim bank (see --help)", flag);
            return bad(flag, msg);
        }
    }
    return EXIT_OK;
}

/* ---- per-instruction output ---------------------------------------------------------- */

static const char *op_label(const bank_instr *in, char *buf, size_t n)
{
    snprintf(buf, n, "%s%s", bank_op_name(in->op), in->trans ? ".trans" : "");
    return buf;
}

static void json_bits(FILE *out, uint32_t bits)
{
    fputc('[', out);
    for (uint32_t b = 0, first = 1; b < 32; b++)
        if ((bits >> b) & 1) {
            fprintf(out, "%s%u", first ? "" : ",", b);
            first = 0;
        }
    fputc(']', out);
}

static void print_instructions(FILE *out, cli_format fmt, const bank_instr *ins, const uint32_t *lines, uint32_t n,
                               const bank_result *res)
{
    char name[32];
    uint64_t wf = 0, ideal = 0, conf = 0;
    for (uint32_t i = 0; i < n; i++) {
        wf += res[i].wavefronts;
        ideal += res[i].ideal;
        conf += res[i].conflicts;
    }
    if (fmt == CLI_FORMAT_CSV) {
        fprintf(out, "op,wavefronts,ideal,conflicts\n");
        for (uint32_t i = 0; i < n; i++)
            fprintf(out, "%s,%u,%u,%u\n", op_label(&ins[i], name, sizeof name), res[i].wavefronts, res[i].ideal,
                    res[i].conflicts);
        return;
    }
    if (fmt == CLI_FORMAT_JSON) {
        fprintf(out, "{\"instructions\":[");
        for (uint32_t i = 0; i < n; i++) {
            const bank_result *r = &res[i];
            fprintf(out, "%s\n {\"index\":%u,", i ? "," : "", i);
            if (lines) fprintf(out, "\"line\":%u,", lines[i]);
            fprintf(out, "\"op\":\"%s\",\"wavefronts\":%u,\"ideal\":%u,\"conflicts\":%u,",
                    op_label(&ins[i], name, sizeof name), r->wavefronts, r->ideal, r->conflicts);
            fprintf(out, "\"worst_bank\":%u,\"worst_bank_words\":%u,\"colliding_lanes\":", r->worst_bank,
                    r->worst_bank_words);
            json_bits(out, r->colliding_lanes);
            fprintf(out, ",\"colliding_banks\":");
            json_bits(out, r->colliding_banks);
            fprintf(out, ",\"wavefront_lanes\":[");
            for (uint32_t k = 0; k < r->nwavefronts; k++) {
                if (k) fputc(',', out);
                json_bits(out, r->wf[k].lanes);
            }
            fprintf(out, "]}");
        }
        fprintf(out, "],\n\"totals\":{\"instructions\":%u,\"wavefronts\":%llu,\"ideal\":%llu,\"conflicts\":%llu}}\n", n,
                (unsigned long long)wf, (unsigned long long)ideal, (unsigned long long)conf);
        return;
    }
    fprintf(out, "%5s %6s  %-14s %10s %6s %9s  %-10s %s\n", "#", "line", "op", "wavefronts", "ideal", "conflicts",
            "worst bank", "colliding lanes");
    for (uint32_t i = 0; i < n; i++) {
        const bank_result *r = &res[i];
        char lines_s[16] = "-";
        if (lines) snprintf(lines_s, sizeof lines_s, "%u", lines[i]);
        char worst[24] = "-";
        if (r->conflicts || r->worst_bank_words > 1)
            snprintf(worst, sizeof worst, "%u (%u words)", r->worst_bank, r->worst_bank_words);
        fprintf(out, "%5u %6s  %-14s %10u %6u %9u  %-10s ", i, lines_s, op_label(&ins[i], name, sizeof name),
                r->wavefronts, r->ideal, r->conflicts, worst);
        if (!r->colliding_lanes) fprintf(out, "none");
        for (uint32_t b = 0, first = 1; b < 32; b++)
            if ((r->colliding_lanes >> b) & 1) {
                fprintf(out, "%s%u", first ? "" : ",", b);
                first = 0;
            }
        fputc('\n', out);
    }
    fprintf(out, "total: %u instructions, %llu wavefronts, %llu ideal, %llu conflicts\n", n, (unsigned long long)wf,
            (unsigned long long)ideal, (unsigned long long)conf);
}

static uint32_t worst_instr(const bank_result *res, uint32_t n)
{
    uint32_t w = 0;
    for (uint32_t i = 1; i < n; i++)
        if (res[i].conflicts > res[w].conflicts) w = i;
    return w;
}

static int draw_pictures(const bank_opts *o, const tm_plan *plan, const bank_instr *ins, const bank_result *res,
                         uint32_t n)
{
    /* --instr out of range is bad input even without a picture to put it in. */
    if (o->has_instr && o->instr >= n) {
        char msg[128];
        snprintf(msg, sizeof msg, "%llu is beyond the last instruction (allowed 0..%u)", (unsigned long long)o->instr,
                 n ? n - 1 : 0);
        return bad("--instr", msg);
    }
    if (!o->png && !o->svg) return EXIT_OK;
    if (!n) return bad("--png/--svg", "no instruction to draw");
    uint32_t pick = o->has_instr ? (uint32_t)o->instr : worst_instr(res, n);
    const char *paths[2] = {o->png, o->svg};
    for (int k = 0; k < 2; k++) {
        if (!paths[k]) continue;
        char title[128];
        char name[32];
        snprintf(title, sizeof title, "instruction %u: %s, %u wavefronts, %u conflicts", pick,
                 op_label(&ins[pick], name, sizeof name), res[pick].wavefronts, res[pick].conflicts);
        draw_tile_opts d = {.path = paths[k], .title = title, .highlight = &ins[pick]};
        err_info e = {0};
        int rc = plan ? draw_tile_plan(plan, &d, &e) : draw_tile_instr(&ins[pick], &d, &e);
        if (rc) return cli_report("bank", &e);
    }
    return EXIT_OK;
}

static int analyse_all(const bank_instr *ins, const uint32_t *lines, uint32_t n, bank_result *res)
{
    for (uint32_t i = 0; i < n; i++) {
        err_info e = {0};
        if (bank_analyse(&ins[i], &res[i], &e)) {
            if (lines) fprintf(stderr, "tmasim bank: line %u: %s: %s\n", lines[i], err_rule_label(e.rule), e.detail);
            else fprintf(stderr, "tmasim bank: instruction %u: %s: %s\n", i, err_rule_label(e.rule), e.detail);
            return EXIT_BAD_INPUT;
        }
    }
    return EXIT_OK;
}

static int any_conflict(const bank_result *res, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (res[i].conflicts) return 1;
    return 0;
}

static int run_instructions(const bank_opts *o)
{
    err_info e = {0};
    bank_pattern p = {0};
    bank_instr one;
    const bank_instr *ins;
    const uint32_t *lines = NULL;
    uint32_t n;
    if (o->pattern) {
        if (o->op || o->addr) return bad("--pattern", "give either --pattern or --op/--addr, not both");
        if (bank_pattern_load(o->pattern, &p, &e)) return cli_report("bank", &e);
        ins = p.instrs;
        lines = p.lines;
        n = p.count;
    } else {
        if (!o->op) return bad("--op", "missing (or give --pattern FILE, or tile flags; see --help)");
        if (!o->addr) return bad("--addr", "missing: 32 comma-separated lane addresses");
        memset(&one, 0, sizeof one);
        if (bank_op_parse(o->op, &one.op, &one.trans, &e)) return cli_report("bank", &e);
        uint64_t a[BANK_LANES];
        unsigned count = 0;
        if (cli_parse_u64_list(o->addr, "--addr", 0, UINT32_MAX, a, BANK_LANES, &count, &e))
            return cli_report("bank", &e);
        uint32_t rows = 8 * bank_op_matrices(one.op);
        if (count != BANK_LANES && !(rows && count == rows)) {
            char msg[128];
            if (rows) snprintf(msg, sizeof msg, "%s takes %u or 32 addresses, got %u", bank_op_name(one.op), rows, count);
            else snprintf(msg, sizeof msg, "%s takes 32 addresses, got %u", bank_op_name(one.op), count);
            return bad("--addr", msg);
        }
        for (unsigned l = 0; l < count; l++) one.addr[l] = (uint32_t)a[l];
        one.active_mask = count == BANK_LANES ? 0 : (uint32_t)((1ull << count) - 1);
        ins = &one;
        n = 1;
    }
    bank_result *res = calloc(n, sizeof *res);
    if (!res) {
        bank_pattern_free(&p);
        return bad("memory", "out of memory");
    }
    int rc = analyse_all(ins, lines, n, res);
    if (rc == EXIT_OK) rc = draw_pictures(o, NULL, ins, res, n);
    if (rc == EXIT_OK) {
        print_instructions(stdout, o->format, ins, lines, n, res);
        rc = any_conflict(res, n) ? EXIT_FINDING : EXIT_OK;
    }
    free(res);
    bank_pattern_free(&p);
    return rc;
}

/* ---- tile mode -------------------------------------------------------------------------- */

typedef struct tile_totals {
    uint32_t instructions;
    uint64_t wavefronts, ideal, conflicts;
} tile_totals;

/* Generates and scores the tile's instructions; the caller frees ins and res. */
static int score_tile(const access_layout *l, const access_desc *d, bank_instr **ins, bank_result **res,
                      tile_totals *t, err_info *e)
{
    uint32_t n = 0;
    *ins = NULL;
    *res = NULL;
    memset(t, 0, sizeof *t);
    int rc = access_generate(l, d, NULL, 0, &n, e);
    if (rc) return rc;
    *ins = calloc(n ? n : 1, sizeof **ins);
    *res = calloc(n ? n : 1, sizeof **res);
    if (!*ins || !*res) return err_set(e, ERR_IO, "memory", "out of memory for %u instructions", n);
    rc = access_generate(l, d, *ins, n, &n, e);
    if (rc) return rc;
    for (uint32_t i = 0; i < n; i++) {
        rc = bank_analyse(&(*ins)[i], &(*res)[i], e);
        if (rc) return rc;
        t->wavefronts += (*res)[i].wavefronts;
        t->ideal += (*res)[i].ideal;
        t->conflicts += (*res)[i].conflicts;
    }
    t->instructions = n;
    return ERR_OK;
}

static int parse_layout(const bank_opts *o, access_layout *l, int *is_tma)
{
    err_info e = {0};
    memset(l, 0, sizeof *l);
    *is_tma = 0;
    if (o->padded) {
        if (o->tile_flags) return bad("--padded", "give either tensor-map flags or --padded, not both");
        uint64_t v[4];
        unsigned n = 0;
        if (cli_parse_u64_list(o->padded, "--padded", 1, UINT32_MAX, v, 4, &n, &e)) return cli_report("bank", &e);
        if (n != 4) return bad("--padded", "expected ROWS,COLS,ELEM_BYTES,PITCH (4 numbers)");
        l->kind = ACCESS_LAYOUT_PADDED;
        l->rows = (uint32_t)v[0];
        l->cols = (uint32_t)v[1];
        l->elem_bytes = (uint32_t)v[2];
        l->row_pitch = (uint32_t)v[3];
        l->base = o->f.copy.smem_address;
        if (o->xor_swizzle) {
            if (cli_parse_u64_list(o->xor_swizzle, "--xor", 0, 16, v, 3, &n, &e)) return cli_report("bank", &e);
            if (n != 3) return bad("--xor", "expected B,M,S (3 numbers, CuTe Swizzle<B,M,S>)");
            l->kind = ACCESS_LAYOUT_XOR;
            l->xor_b = (uint32_t)v[0];
            l->xor_m = (uint32_t)v[1];
            l->xor_s = (uint32_t)v[2];
        }
        if (access_layout_shape(l, NULL, NULL, NULL, &e)) return cli_report("bank", &e);
        return EXIT_OK;
    }
    if (o->xor_swizzle) return bad("--xor", "needs --padded ROWS,COLS,ELEM_BYTES,PITCH for the tile's shape");
    *is_tma = 1;
    l->kind = ACCESS_LAYOUT_TMA;
    return EXIT_OK;
}

static void print_totals(FILE *out, cli_format fmt, const char *label, const tile_totals *t)
{
    double ratio = t->ideal ? (double)t->wavefronts / (double)t->ideal : 0.0;
    if (fmt == CLI_FORMAT_CSV) {
        fprintf(out, "layout,instructions,wavefronts,ideal,conflicts,ratio\n%s,%u,%llu,%llu,%llu,%.3f\n", label,
                t->instructions, (unsigned long long)t->wavefronts, (unsigned long long)t->ideal,
                (unsigned long long)t->conflicts, ratio);
    } else if (fmt == CLI_FORMAT_JSON) {
        fprintf(out,
                "{\"layout\":\"%s\",\"instructions\":%u,\"wavefronts\":%llu,\"ideal\":%llu,\"conflicts\":%llu,"
                "\"ratio\":%.3f}\n",
                label, t->instructions, (unsigned long long)t->wavefronts, (unsigned long long)t->ideal,
                (unsigned long long)t->conflicts, ratio);
    } else {
        fprintf(out, "layout:        %s\ninstructions:  %u\nwavefronts:    %llu\nideal:         %llu\n"
                     "conflicts:     %llu\nratio:         %.3f (wavefronts / ideal)\n",
                label, t->instructions, (unsigned long long)t->wavefronts, (unsigned long long)t->ideal,
                (unsigned long long)t->conflicts, ratio);
    }
}

enum { SPLIT_MAX = 16 };

/* The tile loaded under swizzle mode `sw`: one box as the flags give it or, when its
 * inner extent exceeds the swizzle span, as the boxes of the span side by side (as
 * tmasim demo loads its 64x64 f16 tile under 32B and 64B), each box on the next
 * 1024-byte boundary. Returns the number of boxes in plans (0 on error). */
static uint32_t plan_mode(const bank_opts *o, tm_swizzle sw, tm_plan *plans, err_info *e)
{
    tm_desc desc = o->f.desc;
    desc.swizzle = sw;
    err_info first = {0};
    if (!tm_plan_copy(&desc, &o->f.copy, &plans[0], &first)) return 1;
    const tm_dtype_info *info = tm_dtype_get(desc.dtype);
    uint32_t span = sw == TM_SWIZZLE_32B ? 32 : sw == TM_SWIZZLE_64B ? 64 : sw == TM_SWIZZLE_128B ? 128 : 0;
    uint32_t eb = info && !info->is_packed && info->bits % 8 == 0 ? info->bits / 8 : 0;
    uint32_t w = eb ? span / eb : 0, n = w ? desc.box[0] / w : 0;
    if (strcmp(first.rule, "box_inner_bytes_within_swizzle_span") || !w) {
        *e = first;
        return 0;
    }
    if (desc.box[0] % w || n > SPLIT_MAX) {
        err_set(e, first.code, first.rule, "%s; its %u columns do not split into %s boxes of %u (the span)", first.detail,
                desc.box[0], desc.box[0] % w ? "whole" : "at most 16", w);
        return 0;
    }
    desc.box[0] = w;
    tm_copy c = o->f.copy;
    for (uint32_t k = 0; k < n; k++) {
        if (tm_plan_copy(&desc, &c, &plans[k], e)) return 0;
        c.coords[0] += (int32_t)w;
        c.smem_address += pipe_plan_slot_bytes(plans[k].footprint_bytes);
    }
    return n;
}

static int compare_swizzles(const bank_opts *o, const access_desc *d)
{
    static const tm_swizzle modes[] = {TM_SWIZZLE_NONE, TM_SWIZZLE_32B, TM_SWIZZLE_64B, TM_SWIZZLE_128B};
    tile_totals t[4];
    int ok[4] = {0};
    uint32_t boxes[4] = {0}, box_w[4] = {0};
    char why[4][sizeof(((err_info *)0)->rule) + sizeof(((err_info *)0)->detail) + 8];
    int best = -1;
    for (int m = 0; m < 4; m++) {
        static tm_plan plans[SPLIT_MAX];
        err_info e = {0};
        why[m][0] = 0;
        boxes[m] = plan_mode(o, modes[m], plans, &e);
        if (!boxes[m]) {
            snprintf(why[m], sizeof why[m], "%s: %s", e.rule, e.detail);
            continue;
        }
        box_w[m] = plans[0].loaded[0];
        access_layout l = {.kind = ACCESS_LAYOUT_TMA, .plan = plans, .nboxes = boxes[m]};
        bank_instr *ins;
        bank_result *res;
        int rc = score_tile(&l, d, &ins, &res, &t[m], &e);
        free(ins);
        free(res);
        if (rc) {
            if (rc == ERR_BAD_INPUT && m == 0) return cli_report("bank", &e);
            snprintf(why[m], sizeof why[m], "%s: %s", e.rule, e.detail);
            continue;
        }
        ok[m] = 1;
        /* fewest conflicts, then fewest wavefronts, then fewest boxes (TMA copies) */
        if (best < 0 || t[m].conflicts < t[best].conflicts ||
            (t[m].conflicts == t[best].conflicts && t[m].wavefronts < t[best].wavefronts) ||
            (t[m].conflicts == t[best].conflicts && t[m].wavefronts == t[best].wavefronts && boxes[m] < boxes[best]))
            best = m;
    }
    FILE *out = stdout;
    if (o->format == CLI_FORMAT_CSV) {
        fprintf(out, "swizzle,status,boxes,box_cols,instructions,wavefronts,ideal,conflicts,ratio\n");
        for (int m = 0; m < 4; m++) {
            if (ok[m])
                fprintf(out, "%s,%s,%u,%u,%u,%llu,%llu,%llu,%.3f\n", tm_swizzle_name(modes[m]), m == best ? "best" : "ok",
                        boxes[m], box_w[m], t[m].instructions, (unsigned long long)t[m].wavefronts, (unsigned long long)t[m].ideal,
                        (unsigned long long)t[m].conflicts, (double)t[m].wavefronts / (double)t[m].ideal);
            else
                fprintf(out, "%s,skipped,,,,,,,\n", tm_swizzle_name(modes[m]));
        }
    } else if (o->format == CLI_FORMAT_JSON) {
        fprintf(out, "{\"modes\":[");
        for (int m = 0; m < 4; m++) {
            fprintf(out, "%s\n {\"swizzle\":\"%s\",", m ? "," : "", tm_swizzle_name(modes[m]));
            if (ok[m])
                fprintf(out, "\"boxes\":%u,\"box_cols\":%u,\"instructions\":%u,\"wavefronts\":%llu,\"ideal\":%llu,"
                             "\"conflicts\":%llu,\"ratio\":%.3f}",
                        boxes[m], box_w[m], t[m].instructions, (unsigned long long)t[m].wavefronts, (unsigned long long)t[m].ideal,
                        (unsigned long long)t[m].conflicts, (double)t[m].wavefronts / (double)t[m].ideal);
            else {
                fprintf(out, "\"skipped\":\"");
                for (const char *c = why[m]; *c; c++) {
                    if (*c == '"' || *c == '\\') fputc('\\', out);
                    fputc(*c, out);
                }
                fprintf(out, "\"}");
            }
        }
        fprintf(out, "],\n\"best\":%s%s%s}\n", best >= 0 ? "\"" : "", best >= 0 ? tm_swizzle_name(modes[best]) : "null",
                best >= 0 ? "\"" : "");
    } else {
        fprintf(out, "%-8s %6s %12s %10s %8s %9s %7s\n", "swizzle", "boxes", "instructions", "wavefronts", "ideal",
                "conflicts", "ratio");
        int split = 0;
        for (int m = 0; m < 4; m++) {
            char bx[24];
            snprintf(bx, sizeof bx, boxes[m] > 1 ? "%ux%u" : "%u", boxes[m], box_w[m]);
            split |= ok[m] && boxes[m] > 1;
            if (ok[m])
                fprintf(out, "%-8s %6s %12u %10llu %8llu %9llu %7.3f%s\n", tm_swizzle_name(modes[m]), bx, t[m].instructions,
                        (unsigned long long)t[m].wavefronts, (unsigned long long)t[m].ideal,
                        (unsigned long long)t[m].conflicts, (double)t[m].wavefronts / (double)t[m].ideal,
                        m == best ? "  <- best" : "");
            else
                fprintf(out, "%-8s skipped: %s\n", tm_swizzle_name(modes[m]), why[m]);
        }
        if (split)
            fprintf(out, "boxes NxW: a box row may not exceed the swizzle span, so the tile loads as N boxes of W\n"
                         "columns side by side (each on a 1024-byte boundary), as tmasim demo does\n");
        if (best >= 0) fprintf(out, "best: %s\n", tm_swizzle_name(modes[best]));
        else fprintf(out, "best: none (every mode was skipped)\n");
    }
    if (best < 0) return EXIT_FINDING;
    return t[best].conflicts ? EXIT_FINDING : EXIT_OK;
}

static int run_tile(bank_opts *o)
{
    err_info e = {0};
    access_desc d = {0};
    if (!o->access) return bad("--access", "missing: rows cols ldsm-a ldsm-b");
    if (access_pattern_parse(o->access, &d.pattern, &e)) return cli_report("bank", &e);
    d.bytes_per_lane = (uint32_t)o->bytes_per_lane;
    d.warps = (uint32_t)o->warps;
    d.trans = o->trans;
    d.store = o->store;
    if (o->bytes_per_lane && (d.pattern == ACCESS_LDSM_A || d.pattern == ACCESS_LDSM_B))
        return bad("--bytes-per-lane", "applies to --access rows/cols only (ldmatrix rows are 16 bytes)");

    access_layout l;
    int is_tma;
    int rc = parse_layout(o, &l, &is_tma);
    if (rc) return rc;
    tm_plan plan;
    if (is_tma) {
        if (tm_flags_finish(&o->f, &e)) return cli_report("bank", &e);
        if (o->compare) {
            if (o->png || o->svg) return bad("--compare-swizzles", "draws no picture; drop --png/--svg");
            return compare_swizzles(o, &d);
        }
        if (tm_plan_copy(&o->f.desc, &o->f.copy, &plan, &e)) {
            if (e.code == ERR_FINDING) {
                printf("rejected: %s: %s\n", e.rule, e.detail);
                return EXIT_FINDING;
            }
            return cli_report("bank", &e);
        }
        l.plan = &plan;
    } else if (o->compare) {
        return bad("--compare-swizzles", "needs a tensor map (tmasim layout flags), not --padded/--xor");
    }
    bank_instr *ins;
    bank_result *res;
    tile_totals t;
    rc = score_tile(&l, &d, &ins, &res, &t, &e);
    if (rc) {
        free(ins);
        free(res);
        return cli_report("bank", &e);
    }
    rc = draw_pictures(o, is_tma ? &plan : NULL, ins, res, t.instructions);
    if (rc == EXIT_OK) {
        char label[64];
        if (is_tma) snprintf(label, sizeof label, "tma swizzle %s", tm_swizzle_name(o->f.desc.swizzle));
        else if (l.kind == ACCESS_LAYOUT_XOR) snprintf(label, sizeof label, "xor %u,%u,%u", l.xor_b, l.xor_m, l.xor_s);
        else snprintf(label, sizeof label, "padded pitch %u", l.row_pitch);
        print_totals(stdout, o->format, label, &t);
        rc = t.conflicts ? EXIT_FINDING : EXIT_OK;
    }
    free(ins);
    free(res);
    return rc;
}

int cmd_bank(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return EXIT_OK;
        }
    bank_opts *o = calloc(1, sizeof *o);
    if (!o) return bad("memory", "out of memory");
    tm_flags_init(&o->f);
    int rc = parse_args(argc, argv, o);
    if (rc == EXIT_OK) {
        int tile = o->tile_flags || o->padded || o->xor_swizzle || o->access || o->compare;
        if (tile && (o->op || o->addr || o->pattern))
            rc = bad("mode", "give instructions (--op/--addr or --pattern) or a tile, not both");
        else if (tile) rc = run_tile(o);
        else if (o->trans || o->store || o->bytes_per_lane || o->warps)
            rc = bad("mode", "--trans/--store/--bytes-per-lane/--warps belong to tile mode (add --access)");
        else rc = run_instructions(o);
    }
    free(o);
    return rc;
}
