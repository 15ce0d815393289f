/* tmasim layout as a user runs it: exit codes 0/1/2, one-line errors, csv and json. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_run.h"

static run_result run(const char *args) { return cli_run("layout", args); }

#define TILE "--dtype f16 --dims 64,64 --box 64,64 --swizzle 128B"

Test(cli_layout, help_exits_0)
{
    run_result r = run("--help");
    cr_expect_eq(r.status, 0);
    cr_expect_neq(strstr(r.out, "--elem-strides"), NULL);
    cr_expect_neq(strstr(r.out, "--smem-address"), NULL);
    done(&r);
}

Test(cli_layout, default_map_shows_the_128b_swizzle)
{
    run_result r = run(TILE);
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cr_expect_neq(strstr(r.out, "footprint 8192 B"), NULL);
    cr_expect_neq(strstr(r.out, "tx bytes 8192"), NULL);
    /* Line 1 of a 1024-aligned 128B-swizzled tile: chunks swapped pairwise (c ^ 1). */
    cr_expect_neq(strstr(r.out, "8,1"), NULL);
    char *line1 = strstr(r.out, "\n0x480");
    cr_assert_not_null(line1);
    char *a = strstr(line1, "8,1"), *b = strstr(line1, "0,1");
    cr_expect(a && b && a < b, "chunk holding x=8 comes before x=0 in line 1");
    done(&r);
}

Test(cli_layout, csv_has_header_and_one_row_per_element)
{
    run_result r = run(TILE " --coords -8,4 --format csv");
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cr_expect_eq(strncmp(r.out, "smem_offset,c0,c1,oob\n", 22), 0);
    cr_expect_eq(count_lines(r.out), 1 + 64 * 64);
    /* First element: box index (0,0) = coordinate (-8,4), offset 0, out of bounds. */
    cr_expect_eq(strncmp(r.out + 22, "0,-8,4,1\n", 9), 0);
    done(&r);
    r = run("--dtype f32 --dims 8,8,8 --box 4,2,2 --format csv");
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cr_expect_eq(strncmp(r.out, "smem_offset,c0,c1,c2,oob\n", 25), 0);
    cr_expect_eq(count_lines(r.out), 1 + 16);
    done(&r);
}

Test(cli_layout, json_parses_with_footprint_and_tx)
{
    run_result r = run("--dtype f16 --dims 64,64 --box 16,8 --swizzle 128B --smem-address 0x480 --format json");
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    json_error_t je;
    json_t *j = json_loads(r.out, 0, &je);
    cr_assert_not_null(j, "json: %s at line %d", je.text, je.line);
    /* narrow rows: 8 rows of 32 bytes each occupy a 128-byte span; tx is dense */
    cr_expect_eq(json_integer_value(json_object_get(j, "footprint_bytes")), 1024);
    cr_expect_eq(json_integer_value(json_object_get(j, "tx_bytes")), 256);
    cr_expect_eq(json_integer_value(json_object_get(j, "row_pitch")), 128);
    json_t *els = json_object_get(j, "elements");
    cr_assert(json_is_array(els));
    cr_expect_eq(json_array_size(els), 128);
    /* element (0,0) at 0x480 (line 1 of a 1024 block): chunk 0 -> chunk 1, offset 16 */
    json_t *e0 = json_array_get(els, 0);
    cr_expect_eq(json_integer_value(json_object_get(e0, "smem_offset")), 16);
    json_decref(j);
    done(&r);
}

Test(cli_layout, reverse_query)
{
    run_result r = run(TILE " --reverse 0x492");
    cr_assert_eq(r.status, 0);
    /* 0x492 = line 1, chunk 1, byte 2: chunk 1 ^ 1 = logical chunk 0, so element (1,1) */
    cr_expect_neq(strstr(r.out, "element (1,1)"), NULL, "%s", r.out);
    done(&r);
    r = run("--dtype f16 --dims 64,64 --box 8,8 --swizzle 128B --reverse 0x410");
    cr_assert_eq(r.status, 0);
    cr_expect_neq(strstr(r.out, "no element"), NULL, "padding of a narrow row: %s", r.out);
    done(&r);
}

Test(cli_layout, rejected_maps_exit_1_with_the_rule)
{
    static const struct { const char *args, *rule; } cases[] = {
        {"--dtype f16 --dims 64,64 --box 72,8 --swizzle 128B", "rejected: box_inner_bytes_within_swizzle_span: "},
        {"--dtype f16 --dims 64,64 --box 12,8", "rejected: box_inner_bytes_multiple_of_16: "},
        {"--dtype f16 --dims 64,64 --box 64,257", "rejected: box_dim_range: "},
        {"--dtype f16 --dims 64,64 --strides 136 --box 64,8", "rejected: global_stride_multiple_of_16: "},
        {"--dtype f16 --dims 64,64 --box 64,8 --global-address 0x10000008", "rejected: global_address_aligned_16: "},
        {"--dtype s32 --dims 64,64 --box 32,8 --oob-fill nan", "rejected: oob_nan_fill_needs_float: "},
        {"--dtype f16 --dims 64,64 --box 64,8 --swizzle 128B_atom_32B", "rejected: swizzle_128b_atom_needs_sm100: "},
        {"--dtype f16 --dims 64,64 --box 64,8 --smem-address 0x408", "rejected: smem_address_aligned_128: "},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_result r = run(cases[i].args);
        cr_expect_eq(r.status, 1, "%s: status %d, stderr %s", cases[i].args, r.status, r.err);
        cr_expect_eq(strncmp(r.err, cases[i].rule, strlen(cases[i].rule)), 0, "%s: stderr %s", cases[i].args, r.err);
        cr_expect_eq(count_lines(r.err), 1, "one line: %s", r.err);
        cr_expect_eq(r.out[0], 0, "nothing on stdout");
        done(&r);
    }
}

Test(cli_layout, bad_input_exits_2_with_one_line)
{
    static const char *cases[] = {
        "--dtype f17 --dims 64,64 --box 64,64",
        "--dtype f16 --dims 64,64 --box 64",
        "--dtype f16 --box 64,64",
        "--dtype f16 --dims 64,x --box 64,64",
        "--dtype f16 --dims 64,64 --box 64,64 --swizzle 256B",
        "--dtype f16 --dims 64,64 --box 64,64 --format xml",
        "--dtype f16 --dims 64,64 --box 64,64 --nonsense 1",
        "--dtype f16 --dims 64,64 --box 64,64 --coords",
        "--dtype f16 --dims 1,2,3,4,5,6 --box 1,1,1,1,1,1",
        "--dtype f16 --dims 64,64 --box 64,64 --smem-address 0x100000000",
        "stray",
        "",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_result r = run(cases[i]);
        cr_expect_eq(r.status, 2, "'%s': status %d, stderr %s", cases[i], r.status, r.err);
        cr_expect_eq(count_lines(r.err), 1, "'%s': one line: %s", cases[i], r.err);
        cr_expect_eq(r.out[0], 0, "'%s': nothing on stdout", cases[i]);
        done(&r);
    }
}

/* A picture path whose extension is not its flag's format is refused before any work:
 * nothing on stdout, one line naming the flag. */
Test(cli_layout, picture_extension_checked_before_the_table)
{
    run_result r = cli_run("layout", "--dtype f16 --dims 128,128 --box 64,64 --swizzle 128B --png /tmp/tmcli_x.pdf");
    cr_expect_eq(r.status, 2, "%s", r.err);
    cr_expect_eq(strlen(r.out), 0, "the table was printed first: %.80s", r.out);
    cr_expect(strstr(r.err, "'--png'") && strstr(r.err, "ending .png"), "%s", r.err);
    cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
    done(&r);
}
