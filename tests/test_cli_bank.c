/* tmasim bank as a user runs it: exit codes 0 (no conflict) / 1 (conflicts) / 2 (bad
 * input), one-line errors, csv rows in input order, json details, tile mode totals
 * and the swizzle comparison on the documented 64x64 f16 ldmatrix case. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_run.h"

static run_result run(const char *args) { return cli_run("bank", args); }

static void strided(char *buf, size_t n, uint32_t stride, uint32_t lanes)
{
    size_t at = 0;
    for (uint32_t l = 0; l < lanes; l++) at += (size_t)snprintf(buf + at, n - at, "%s%u", l ? "," : "", l * stride);
}

Test(cli_bank, conflict_free_exits_0_conflict_exits_1)
{
    char addr[512], args[600];
    strided(addr, sizeof addr, 4, 32);
    snprintf(args, sizeof args, "--op lds32 --addr %s --format csv", addr);
    run_result r = run(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_str_eq(r.out, "op,wavefronts,ideal,conflicts\nlds32,1,1,0\n");
    done(&r);

    strided(addr, sizeof addr, 128, 32); /* one bank, 32 distinct words */
    snprintf(args, sizeof args, "--op sts32 --addr %s --format csv", addr);
    r = run(args);
    cr_assert_eq(r.status, 1);
    cr_assert_str_eq(r.out, "op,wavefronts,ideal,conflicts\nsts32,32,1,31\n");
    done(&r);
}

Test(cli_bank, pattern_csv_rows_follow_input_order)
{
    char path[] = "/tmp/tmbankpatXXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    FILE *f = fdopen(fd, "w");
    char a[512];
    fprintf(f, "# three instructions\n\n");
    strided(a, sizeof a, 16, 32);
    fprintf(f, "lds128 %s\n", a);
    strided(a, sizeof a, 8, 32);
    fprintf(f, "lds32 %s   # two-way\n", a);
    strided(a, sizeof a, 128, 8);
    fprintf(f, "ldsm.x1.trans %s\n", a);
    fclose(f);
    char args[256];
    snprintf(args, sizeof args, "--pattern %s --format csv", path);
    run_result r = run(args);
    cr_assert_eq(r.status, 1, "%s", r.err);
    cr_assert_str_eq(r.out, "op,wavefronts,ideal,conflicts\nlds128,4,4,0\nlds32,2,1,1\nldsm.x1.trans,8,1,7\n");
    done(&r);

    snprintf(args, sizeof args, "--pattern %s --format json", path);
    r = run(args);
    cr_assert_eq(r.status, 1);
    json_error_t je;
    json_t *root = json_loads(r.out, 0, &je);
    cr_assert_not_null(root, "json: %s", je.text);
    json_t *ins = json_object_get(root, "instructions");
    cr_assert_eq(json_array_size(ins), 3);
    json_t *second = json_array_get(ins, 1);
    cr_assert_eq(json_integer_value(json_object_get(second, "line")), 4);
    /* stride-2 words: every lane collides, banks 0,2,...,30 */
    cr_assert_eq(json_array_size(json_object_get(second, "colliding_lanes")), 32);
    cr_assert_eq(json_array_size(json_object_get(second, "colliding_banks")), 16);
    cr_assert_eq(json_array_size(json_object_get(second, "wavefront_lanes")), 2);
    json_decref(root);
    done(&r);
    unlink(path);
}

Test(cli_bank, bad_input_is_one_line_exit_2)
{
    static const char *cases[] = {
        "--op lds16 --addr 0",
        "--op lds64 --addr 0,8",
        "--op lds32 --addr 0,x",
        "--pattern /nonexistent/file.pat",
        "--op lds32",
        "--bogus 1",
        "--format xml --op lds32 --addr 0",
        "--padded 4,4 --access rows",
        "--padded 64,64,2,128 --access diagonal",
        "--padded 8,64,2,128 --access ldsm-a",
        "--dtype f16 --dims 64,64 --box 64,64 --access rows --bytes-per-lane 3",
        "--xor 3,4,3 --access rows",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_result r = run(cases[i]);
        cr_assert_eq(r.status, 2, "'%s' exited %d: %s", cases[i], r.status, r.err);
        cr_assert_eq(count_lines(r.err), 1, "'%s': stderr '%s'", cases[i], r.err);
        cr_assert(strstr(r.err, "tmasim bank: "), "'%s': %s", cases[i], r.err);
        cr_assert_str_eq(r.out, "", "'%s' printed to stdout", cases[i]);
        done(&r);
    }
    /* misaligned: the error names the lane and value */
    char addr[512], args[600];
    strided(addr, sizeof addr, 4, 32);
    snprintf(args, sizeof args, "--op lds64 --addr %s", addr);
    run_result r = run(args);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "lane 1") && strstr(r.err, "address_alignment"), "%s", r.err);
    done(&r);
}

Test(cli_bank, pattern_errors_name_line_and_field)
{
    char path[] = "/tmp/tmbankbadXXXXXX";
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "# ok so far\nlds32 0 4\n");
    fclose(f);
    char args[256];
    snprintf(args, sizeof args, "--pattern %s", path);
    run_result r = run(args);
    cr_assert_eq(r.status, 2);
    char where[300];
    snprintf(where, sizeof where, "%s:2:", path);
    cr_assert(strstr(r.err, where), "%s", r.err);
    done(&r);
    unlink(path);
}

Test(cli_bank, compare_swizzles_names_128B_for_ldmatrix_of_64_f16_rows)
{
    run_result r = run("--dtype f16 --dims 64,64 --box 64,64 --access ldsm-a --compare-swizzles --format csv");
    cr_assert_eq(r.status, 0, "%s", r.err);
    /* 16 ldmatrix.x4: none = 8-way per matrix (512 wavefronts); 32B and 64B load the
     * 128-byte-wide box as 4 and 2 boxes of 16 and 32 columns side by side, as `tmasim
     * demo` does, conflict-free (64) like 128B, which wins with one box. */
    cr_assert(strstr(r.out, "none,ok,1,64,16,512,64,448,8.000\n"), "%s", r.out);
    cr_assert(strstr(r.out, "32B,ok,4,16,16,64,64,0,1.000\n"), "%s", r.out);
    cr_assert(strstr(r.out, "64B,ok,2,32,16,64,64,0,1.000\n"), "%s", r.out);
    cr_assert(strstr(r.out, "128B,best,1,64,16,64,64,0,1.000\n"), "%s", r.out);
    done(&r);
    /* the same figures as the demo's table */
    run_result dm = cli_run("demo", "--format csv --no-picture");
    cr_assert(strstr(dm.out, "32B,16,64,4,16,64,64,0,0\n") && strstr(dm.out, "64B,32,64,2,16,64,64,0,0\n"), "%s",
              dm.out);
    done(&dm);
    /* 24 columns do not split into boxes of 16: 32B is skipped and says why */
    r = run("--dtype f16 --dims 64,64 --box 24,64 --access rows --compare-swizzles");
    cr_assert(strstr(r.out, "32B      skipped: box_inner_bytes_within_swizzle_span") &&
                  strstr(r.out, "its 24 columns do not split into whole boxes of 16 (the span)"),
              "%s", r.out);
    done(&r);

    r = run("--dtype f16 --dims 64,64 --box 64,64 --access ldsm-a --compare-swizzles");
    cr_assert(strstr(r.out, "best: 128B"), "%s", r.out);
    done(&r);
}

Test(cli_bank, tile_totals_and_exit_codes)
{
    run_result r = run("--dtype f16 --dims 64,64 --box 64,64 --access ldsm-a --format json");
    cr_assert_eq(r.status, 1);
    json_error_t je;
    json_t *root = json_loads(r.out, 0, &je);
    cr_assert_not_null(root, "%s", r.out);
    cr_assert_eq(json_integer_value(json_object_get(root, "instructions")), 16);
    cr_assert_eq(json_integer_value(json_object_get(root, "conflicts")), 448);
    json_decref(root);
    done(&r);

    /* 144-byte pitch (8 f16 of padding) removes the conflicts; so does Swizzle<3,4,3> */
    r = run("--padded 64,64,2,144 --access ldsm-a --format csv");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, ",16,64,64,0,1.000\n"), "%s", r.out);
    done(&r);
    r = run("--padded 64,64,2,128 --xor 3,4,3 --access ldsm-a --format csv");
    cr_assert_eq(r.status, 0, "%s", r.err);
    done(&r);
    /* a rejected tensor map is a finding */
    r = run("--dtype f16 --dims 64,64 --box 64,64 --swizzle 32B --access rows");
    cr_assert_eq(r.status, 1);
    cr_assert(strstr(r.out, "rejected: "), "%s", r.out);
    done(&r);
}

Test(cli_bank, help_and_picture)
{
    run_result r = run("--help");
    cr_assert_eq(r.status, 0);
    cr_assert(strstr(r.out, "--compare-swizzles") && strstr(r.out, "--pattern"));
    done(&r);
    char png[] = "/tmp/tmbankpngXXXXXX";
    int fd = mkstemp(png);
    close(fd);
    char path[64], args[256];
    snprintf(path, sizeof path, "%s.png", png);
    snprintf(args, sizeof args, "--dtype f16 --dims 64,64 --box 64,64 --swizzle 128B --access ldsm-a --png %s", path);
    r = run(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f);
    unsigned char sig[8] = {0};
    cr_assert_eq(fread(sig, 1, 8, f), 8);
    fclose(f);
    cr_assert_eq(memcmp(sig, "\x89PNG\r\n\x1a\n", 8), 0);
    unlink(path);
    unlink(png);
    done(&r);
}

/* The README's picture command draws the instruction the README names: --instr 0, the
 * demo's unswizzled ldmatrix.x4 (the SVG keeps its title as text). */
Test(cli_bank, readme_pattern_picture_is_the_named_instruction)
{
    FILE *f = fopen("README.md", "r");
    cr_assert(f);
    static char line[1024];
    int found = 0;
    while (fgets(line, sizeof line, f))
        if (strstr(line, "tmasim bank --pattern examples/tiles/ldmatrix_a_fragment.pattern --instr 0 --png bank.png"))
            found = 1;
    fclose(f);
    cr_assert(found, "README no longer shows the --instr 0 picture command");
    char dir[] = "/tmp/tmbankpicXXXXXX", args[256], path[128];
    cr_assert(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/b.svg", dir);
    snprintf(args, sizeof args, "--pattern examples/tiles/ldmatrix_a_fragment.pattern --instr 0 --svg %s", path);
    run_result r = run(args);
    cr_assert_eq(r.status, 1, "%s", r.err);
    char *svg = slurp(path);
    cr_expect(strstr(svg, ">instruction 0: ldsm.x4, 32 wavefronts, 28 conflicts</text>"), "title not found");
    free(svg);
    done(&r);
    snprintf(args, sizeof args, "--pattern examples/tiles/ldmatrix_a_fragment.pattern --svg %s", path);
    r = run(args);
    svg = slurp(path);
    cr_expect(strstr(svg, ">instruction 2: lds32, 32 wavefronts, 31 conflicts</text>"), "without --instr: not the worst");
    free(svg);
    done(&r);
    unlink(path), rmdir(dir);
}
