/* tmasim demo: the bundled example. A 64x64 f16 tile loaded by TMA with the 128B
 * swizzle: its layout as a terminal map, the bank conflicts of the mma A-fragment
 * ldmatrix.x4 reads of the whole tile under every swizzle mode, the best mode, and
 * a picture of one read without and with the swizzle. Needs no GPU and no display. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bank.h"
#include "cli.h"
#include "cmds.h"
#include "draw_tile.h"
#include "pipe_plan.h"
#include "tm.h"

#define TILE 64u                /* rows and columns of the f16 tile */
#define ELEM_BYTES 2u
#define MAX_BOXES 4u
#define MAX_INSTR 256u

static const tm_swizzle modes[] = {TM_SWIZZLE_NONE, TM_SWIZZLE_32B, TM_SWIZZLE_64B, TM_SWIZZLE_128B};
#define NMODES (sizeof modes / sizeof modes[0])

/* The tile as the boxes one swizzle mode allows, side by side in shared memory. */
typedef struct mode_tile {
    tm_swizzle swizzle;
    uint32_t box_cols, boxes;
    tm_plan plan[MAX_BOXES];
    uint32_t instructions, wavefronts, ideal, conflicts;
    uint32_t worst_instr_wavefronts;
} mode_tile;

static uint32_t span_bytes(tm_swizzle s)
{
    return s == TM_SWIZZLE_32B ? 32 : s == TM_SWIZZLE_64B ? 64 : s == TM_SWIZZLE_128B ? 128 : 0;
}

static int plan_mode(mode_tile *m, tm_swizzle s, err_info *e)
{
    memset(m, 0, sizeof *m);
    m->swizzle = s;
    /* A swizzled inner box may not exceed the span: 64 f16 (128 B) only fit 128B
     * (and no swizzle); 32B and 64B need boxes of 16 and 32 columns. */
    uint32_t span = span_bytes(s);
    m->box_cols = span && span / ELEM_BYTES < TILE ? span / ELEM_BYTES : TILE;
    m->boxes = TILE / m->box_cols;
    uint32_t smem = 0;
    for (uint32_t b = 0; b < m->boxes; b++) {
        tm_desc d;
        tm_desc_defaults(&d);
        d.dtype = TM_DTYPE_F16;
        d.rank = 2;
        d.dims[0] = TILE;
        d.dims[1] = TILE;
        d.strides[0] = TILE * ELEM_BYTES;
        d.box[0] = m->box_cols;
        d.box[1] = TILE;
        d.swizzle = s;
        tm_copy c = {.coords = {(int32_t)(b * m->box_cols), 0}, .smem_address = smem};
        int rc = tm_plan_copy(&d, &c, &m->plan[b], e);
        if (rc != ERR_OK)
            return rc;
        /* Next box on the next 1024-byte boundary, the strictest swizzle alignment. */
        smem += pipe_plan_slot_bytes(m->plan[b].footprint_bytes);
    }
    return ERR_OK;
}

/* The ldmatrix.x4 that loads the mma.m16n8k16 A fragment at (r0, c0): lane l gives
 * the row address of tile row r0 + l % 16, columns c0 + 8 * (l / 16) .. +7 (PTX ISA:
 * matrices 0-3 = rows 0-7/8-15 of columns 0-7, then of columns 8-15). The demo keeps
 * its own copy of this one mapping so that it depends on the placement and bank
 * models only. */
static void a_fragment(const tm_plan *p, uint32_t r0, uint32_t c0, bank_instr *in)
{
    memset(in, 0, sizeof *in);
    in->op = BANK_OP_LDSM_X4;
    for (uint32_t l = 0; l < BANK_LANES; l++) {
        uint32_t idx[TM_MAX_RANK] = {c0 + 8 * (l / 16), r0 + l % 16};
        tm_element el;
        tm_plan_element(p, idx, &el);
        in->addr[l] = el.smem_address;
    }
}

/* Scores every A-fragment read of the tile; fills first with the first instruction
 * of the first box (rows 0-15, columns 0-15) when asked. */
static int score_mode(mode_tile *m, bank_instr *first, err_info *e)
{
    static bank_instr instrs[MAX_INSTR];
    for (uint32_t b = 0; b < m->boxes; b++) {
        uint32_t count = 0;
        for (uint32_t r0 = 0; r0 < TILE; r0 += 16)
            for (uint32_t c0 = 0; c0 < m->box_cols && count < MAX_INSTR; c0 += 16)
                a_fragment(&m->plan[b], r0, c0, &instrs[count++]);
        for (uint32_t i = 0; i < count; i++) {
            bank_result r;
            int rc = bank_analyse(&instrs[i], &r, e);
            if (rc != ERR_OK)
                return rc;
            m->instructions++;
            m->wavefronts += r.wavefronts;
            m->ideal += r.ideal;
            m->conflicts += r.conflicts;
            if (r.wavefronts > m->worst_instr_wavefronts)
                m->worst_instr_wavefronts = r.wavefronts;
        }
        if (first && b == 0 && count > 0)
            *first = instrs[0];
    }
    return ERR_OK;
}

/* ---- terminal map ------------------------------------------------------------------ */

static int use_colour(void)
{
    const char *term = getenv("TERM");
    return isatty(STDOUT_FILENO) && !getenv("NO_COLOR") && term && strcmp(term, "dumb");
}

/* xterm-256 backgrounds close to the picture's palette. */
static const int ansi_bg[8] = {117, 215, 150, 183, 228, 116, 218, 180};

/* Logical 8-column group held by each 16-byte chunk of 128-byte row r. */
static int chunk_groups(const tm_plan *p, uint32_t r, int group[8])
{
    for (uint32_t k = 0; k < 8; k++) {
        tm_element el;
        uint32_t byte_in = 0;
        if (!tm_plan_element_at(p, p->copy.smem_address + r * 128 + k * 16, &el, &byte_in))
            return 0;
        if (el.idx[1] != r)
            return 0;
        group[k] = (int)(el.idx[0] / 8);
    }
    return 1;
}

static void print_map(const tm_plan *p)
{
    int colour = use_colour();
    printf("Layout in shared memory: one line per 128-byte row (all 32 banks), one cell per 16 bytes.\n"
           "Each cell shows which 8 columns of the tile row it holds (tile row = line number).\n\n");
    printf("  row  address |");  /* header cells name the 4 banks under each chunk */
    for (uint32_t k = 0; k < 8; k++) {
        char head[16];
        snprintf(head, sizeof head, "b%u-%u", 4 * k, 4 * k + 3);
        printf("%-7s|", head);
    }
    printf("\n  ---  ------- +");
    for (uint32_t k = 0; k < 8; k++)
        printf("-------+");
    printf("\n");
    uint32_t rows = p->footprint_bytes / 128, shown = rows < 16 ? rows : 16;
    int ok = 1;
    int g0[8][8];
    for (uint32_t r = 0; r < rows; r++) {
        int g[8];
        if (!chunk_groups(p, r, g)) {
            ok = 0;
            break;
        }
        if (r < 8)
            memcpy(g0[r], g, sizeof g);
        else if (memcmp(g0[r % 8], g, sizeof g))
            ok = 0;
        if (r >= shown)
            continue;
        printf("  %3u  0x%04x  |", r, p->copy.smem_address + r * 128);
        for (uint32_t k = 0; k < 8; k++) {
            char cell[16];
            snprintf(cell, sizeof cell, "c%d-%d", g[k] * 8, g[k] * 8 + 7);
            if (colour)
                printf("\033[48;5;%dm\033[30m%-7s\033[0m|", ansi_bg[g[k] % 8], cell);
            else
                printf("%-7s|", cell);
        }
        printf("\n");
    }
    if (ok && rows > shown)
        printf("  rows %u-%u: row r holds the same permutation as row r mod 8 (checked for all %u rows:\n"
               "  the 128B swizzle XORs the chunk index with bits 7-9 of the address, so it repeats every 1024 B)\n",
               shown, rows - 1, rows);
    else if (rows > shown)
        printf("  (rows %u-%u not shown)\n", shown, rows - 1);
    printf("\n");
}

/* ---- the command --------------------------------------------------------------------- */

static void usage(FILE *to)
{
    fprintf(to,
            "usage: tmasim demo [--out DIR] [--format table|csv|json] [--no-picture]\n\n"
            "The bundled example: a 64x64 f16 tile loaded by TMA (box 64x64, SWIZZLE_128B).\n"
            "Prints its shared-memory layout, the bank conflicts of its mma.m16n8k16 A-fragment\n"
            "ldmatrix.x4 reads under swizzle none/32B/64B/128B, the best mode, and writes\n"
            "DIR/demo.png and DIR/demo.svg (default DIR: the current directory): one read\n"
            "without and with the swizzle, colliding lanes in red. No GPU, no display needed.\n\n"
            "exit status: 0 ok, 2 bad input (or the pictures could not be written)\n");
}

static const char *box_note(const mode_tile *m)
{
    static char buf[96];
    if (m->boxes == 1)
        snprintf(buf, sizeof buf, "one %ux%u box", m->box_cols, TILE);
    else
        snprintf(buf, sizeof buf, "%u boxes of %ux%u: the %u-byte span limits the inner box", m->boxes,
                 m->box_cols, TILE, span_bytes(m->swizzle));
    return buf;
}

int cmd_demo(int argc, char **argv)
{
    const char *out_dir = ".";
    cli_format format = CLI_FORMAT_TABLE;
    int pictures = 1;
    err_info e;
    err_clear(&e);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return EXIT_OK;
        } else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
            out_dir = argv[++i];
        } else if (!strcmp(argv[i], "--format") && i + 1 < argc) {
            if (cli_format_parse(argv[++i], &format, &e) != ERR_OK)
                return cli_report("demo", &e);
        } else if (!strcmp(argv[i], "--no-picture")) {
            pictures = 0;
        } else if (!strcmp(argv[i], "--out") || !strcmp(argv[i], "--format")) {
            fprintf(stderr, "tmasim demo: %s: needs a value (%s)\n", argv[i],
                    !strcmp(argv[i], "--out") ? "a writable directory" : "table csv json");
            return EXIT_BAD_INPUT;
        } else {
            fprintf(stderr, "tmasim demo: flag: '%s' is not one of: --out DIR, --format table|csv|json, --no-picture, --help\n",
                    argv[i]);
            return EXIT_BAD_INPUT;
        }
    }
    struct stat st;
    if (pictures && (stat(out_dir, &st) != 0 || !S_ISDIR(st.st_mode) || access(out_dir, W_OK) != 0)) {
        fprintf(stderr, "tmasim demo: --out: '%s' is not a writable directory\n", out_dir);
        return EXIT_BAD_INPUT;
    }

    static mode_tile tiles[NMODES];
    bank_instr first_none, first_128;
    memset(&first_none, 0, sizeof first_none);
    memset(&first_128, 0, sizeof first_128);
    for (size_t i = 0; i < NMODES; i++) {
        int rc = plan_mode(&tiles[i], modes[i], &e);
        if (rc == ERR_OK)
            rc = score_mode(&tiles[i], modes[i] == TM_SWIZZLE_NONE ? &first_none
                                       : modes[i] == TM_SWIZZLE_128B ? &first_128
                                                                     : NULL,
                            &e);
        if (rc != ERR_OK)
            return cli_report("demo", &e);
    }
    /* Best: fewest wavefronts; among equals, fewest boxes (fewer TMA issues). */
    size_t best = 0;
    for (size_t i = 1; i < NMODES; i++)
        if (tiles[i].wavefronts < tiles[best].wavefronts ||
            (tiles[i].wavefronts == tiles[best].wavefronts && tiles[i].boxes < tiles[best].boxes))
            best = i;
    const mode_tile *m128 = &tiles[NMODES - 1];

    char png[4200], svg[4200];
    snprintf(png, sizeof png, "%.4000s/demo.png", out_dir);
    snprintf(svg, sizeof svg, "%.4000s/demo.svg", out_dir);
    if (pictures) {
        draw_tile_panel panels[2] = {
            {.plan = &tiles[0].plan[0], .highlight = &first_none, .caption = "no swizzle"},
            {.plan = &m128->plan[0], .highlight = &first_128, .caption = "SWIZZLE_128B"},
        };
        draw_tile_opts o = {.title = "ldmatrix.x4 of an mma A fragment (tile rows 0-15, columns 0-15), 64x64 f16 tile",
                            .max_rows = 16};
        const char *paths[2] = {png, svg};
        for (int k = 0; k < 2; k++) {
            o.path = paths[k];
            int rc = draw_tile_panels(panels, 2, &o, &e);
            if (rc != ERR_OK)
                return cli_report("demo", &e);
        }
    }

    if (format == CLI_FORMAT_CSV) {
        printf("swizzle,box_cols,box_rows,boxes,instructions,wavefronts,ideal,conflicts,best\n");
        for (size_t i = 0; i < NMODES; i++)
            printf("%s,%u,%u,%u,%u,%u,%u,%u,%d\n", tm_swizzle_name(tiles[i].swizzle), tiles[i].box_cols, TILE,
                   tiles[i].boxes, tiles[i].instructions, tiles[i].wavefronts, tiles[i].ideal, tiles[i].conflicts,
                   i == best);
        return EXIT_OK;
    }
    if (format == CLI_FORMAT_JSON) {
        printf("{\"tile\":{\"dtype\":\"f16\",\"rows\":%u,\"cols\":%u,\"swizzle\":\"128B\",\"footprint_bytes\":%u,"
               "\"tx_bytes\":%u},\n \"access\":\"ldsm.x4 mma.m16n8k16 A fragments\",\n \"modes\":[",
               TILE, TILE, m128->plan[0].footprint_bytes, m128->plan[0].tx_bytes);
        for (size_t i = 0; i < NMODES; i++)
            printf("%s\n  {\"swizzle\":\"%s\",\"box\":[%u,%u],\"boxes\":%u,\"instructions\":%u,\"wavefronts\":%u,"
                   "\"ideal\":%u,\"conflicts\":%u}",
                   i ? "," : "", tm_swizzle_name(tiles[i].swizzle), tiles[i].box_cols, TILE, tiles[i].boxes,
                   tiles[i].instructions, tiles[i].wavefronts, tiles[i].ideal, tiles[i].conflicts);
        printf("],\n \"best\":\"%s\"", tm_swizzle_name(tiles[best].swizzle));
        if (pictures)
            printf(",\n \"pictures\":[\"%s\",\"%s\"]", png, svg);
        printf("}\n");
        return EXIT_OK;
    }

    const tm_plan *p = &m128->plan[0];
    printf("tmascope demo: a 64x64 f16 tile loaded by one TMA copy with SWIZZLE_128B\n"
           "  tensor 64x64 f16 (global row stride 128 B), box 64x64 at (0,0) -> shared address 0x%x\n"
           "  footprint %u bytes, the mbarrier sees %u transaction bytes\n\n",
           p->copy.smem_address, p->footprint_bytes, p->tx_bytes);
    print_map(p);

    printf("Bank conflicts of ldmatrix.x4 reads of mma.m16n8k16 A fragments (16x16 each) over the whole tile:\n\n");
    printf("  %-8s %-9s %-6s %-7s %-11s %-6s %-10s %s\n", "swizzle", "box", "boxes", "instrs", "wavefronts",
           "ideal", "conflicts", "per instruction");
    for (size_t i = 0; i < NMODES; i++) {
        const mode_tile *m = &tiles[i];
        char box[16];
        snprintf(box, sizeof box, "%ux%u", m->box_cols, TILE);
        printf("  %-8s %-9s %-6u %-7u %-11u %-6u %-10u %u wavefronts (ideal %u)%s\n", tm_swizzle_name(m->swizzle),
               box, m->boxes, m->instructions, m->wavefronts, m->ideal, m->conflicts,
               m->instructions ? m->wavefronts / m->instructions : 0, m->instructions ? m->ideal / m->instructions : 0,
               i == best ? "  <- best" : "");
    }
    printf("\n  box: columns x rows of one TMA box. A swizzled box row may not exceed the swizzle span, so\n"
           "  32B and 64B load the 64-column tile as 4 and 2 boxes side by side (32 and 64 bytes per row).\n");
    printf("\nbest: %s (%s, %u conflicts)", tm_swizzle_name(tiles[best].swizzle), box_note(&tiles[best]),
           tiles[best].conflicts);
    uint32_t ties = 0;
    for (size_t i = 0; i < NMODES; i++)
        ties += i != best && tiles[i].wavefronts == tiles[best].wavefronts;
    printf("\n");
    for (size_t i = 0; ties && i < NMODES; i++)
        if (i != best && tiles[i].wavefronts == tiles[best].wavefronts)
            printf("  as few wavefronts, but more TMA copies: %s (%s)\n", tm_swizzle_name(tiles[i].swizzle),
                   box_note(&tiles[i]));
    if (pictures)
        printf("\npictures: %s and %s (the first A fragment without and with the swizzle)\n", png, svg);
    return EXIT_OK;
}
