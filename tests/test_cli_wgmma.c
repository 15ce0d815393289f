/* tmasim wgmma as a user runs it: exit status, one-line errors, formats, picture. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_run.h"

#define TILE "--atype f16 --dtype f16 --dims 64,64 --box 64,64 --swizzle 128B --smem-address 0x4480 --k-block 1"

static run_result run(const char *args) { return cli_run("wgmma", args); }

static int lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

Test(cli_wgmma, right_descriptor_agrees_exit_0)
{
    run_result r = run(TILE " --desc 0x400000400001044a");
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_assert(strstr(r.out, "AGREE"), "%s", r.out);
    done(&r);
}

Test(cli_wgmma, wrong_descriptor_exit_1_names_the_fix)
{
    /* LBO and SBO swapped */
    run_result r = run(TILE " --start-address 0x44a0 --leading-byte-offset 1024 --stride-byte-offset 16 "
                            "--swizzle-mode 128B");
    cr_assert_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_assert(strstr(r.out, "MISMATCH"), "%s", r.out);
    cr_assert(strstr(r.out, "--start-address 0x44a0 --leading-byte-offset 16 --stride-byte-offset 1024 "
                            "--base-offset 0 --swizzle-mode 128B"), "%s", r.out);
    done(&r);
}

Test(cli_wgmma, tile_alone_prints_the_right_descriptor)
{
    run_result r = run(TILE " --format csv");
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_assert(strstr(r.out, "17568,16,1024,0,128B,0x400000400001044a"), "%s", r.out);
    done(&r);
}

Test(cli_wgmma, csv_one_row_per_element)
{
    run_result r = run(TILE " --desc 0x400000400001044a --format csv");
    cr_assert_eq(r.status, 0);
    cr_assert_eq(lines(r.out), 1 + 64 * 16);
    cr_assert(!strncmp(r.out, "row,k,address,tma_address,agree\n0,16,17584,17584,1\n", 50), "%.80s", r.out);
    done(&r);
}

Test(cli_wgmma, json_has_the_verdict)
{
    run_result r = run(TILE " --desc 0x400200400001044a --format json");
    cr_assert_eq(r.status, 1);
    cr_assert(strstr(r.out, "\"agree\":false"), "%.200s", r.out);
    cr_assert(strstr(r.out, "\"right_descriptor\":{\"raw\":\"0x400000400001044a\""), "%.200s", r.out);
    done(&r);
}

Test(cli_wgmma, bad_input_one_line_exit_2)
{
    const char *bad[][2] = {
        {"--atype f64 --desc 0", "--atype"},
        {"--atype f16 --leading-byte-offset 24", "--leading-byte-offset"},
        {"--btype tf32 --major mn --desc 0", "--major"},
        {"--btype s8 --n 40 --desc 0", "--n"},
        {"--atype f16", "--desc"},
        {"--atype f16 --desc 0x10 --start-address 16", "--desc"},
        {"--atype f16 --desc zz", "--desc"},
        {"--atype f16 --desc 0 --png out.jpg", "--png"},
        {"--atype f16 --desc 0 --k-block 1", "--dims"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        run_result r = run(bad[i][0]);
        cr_assert_eq(r.status, 2, "%s: exit %d", bad[i][0], r.status);
        cr_assert_eq(lines(r.err), 1, "%s: %s", bad[i][0], r.err);
        cr_assert(strstr(r.err, bad[i][1]), "%s: %s", bad[i][0], r.err);
        done(&r);
    }
}

Test(cli_wgmma, png_is_written)
{
    char path[] = "/tmp/tmwgXXXXXX";
    cr_assert_not_null(mkdtemp(path));
    char png[64], args[512];
    snprintf(png, sizeof png, "%s/t.png", path);
    snprintf(args, sizeof args, TILE " --desc 0x400200400001044a --png %s", png);
    run_result r = run(args);
    cr_assert_eq(r.status, 1, "%s", r.err);
    struct stat st;
    cr_assert_eq(stat(png, &st), 0);
    cr_assert_gt(st.st_size, 1000);
    done(&r);
    unlink(png);
    rmdir(path);
}

Test(cli_wgmma, replay_of_the_recording)
{
    run_result r = cli_run("replay", "traces/h200/wgmma --format csv");
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_assert(strstr(r.out, "addresses,1782,1782"), "%s", r.out);
    done(&r);
}
