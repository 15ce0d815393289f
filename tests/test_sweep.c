/* sweep: grids, points, the rejecting rule, threads, result files, shards and merging,
 * and a real job array on a one-node Slurm cluster started on localhost. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_run.h"
#include "desc.h"
#include "params.h"
#include "pipe.h"
#include "sweep.h"

#define WS4 "examples/ws4_tma.yaml"
/* 20 points: 14 run, 6 rejected by the shared-memory rule (two CTAs per SM) */
#define GRID "stages=2..6 ctas_per_sm=1,2 ctas=264,528"

static int sh(const char *cmd)
{
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

Test(sweep, grid_lists_ranges_boxes_and_swizzles)
{
    sweep_grid g;
    err_info e = {0};
    cr_assert_eq(sweep_grid_parse(" stages=2..4,8  box=64x64,64x128 swizzle=64b,128B hbm_bytes_per_ns=2900,3350.5 ", &g, &e),
                 ERR_OK, "%s", e.detail);
    cr_assert_eq(g.naxes, 4);
    cr_assert_eq(g.npoints, 4 * 2 * 2 * 2);
    char *t = sweep_grid_text(&g);
    cr_assert_str_eq(t, "stages=2,3,4,8 box=64x64,64x128 swizzle=64B,128B hbm_bytes_per_ns=2900,3350.5");
    free(t);
    /* the last key fastest */
    char *p = sweep_point_text(&g, 1);
    cr_assert_str_eq(p, "stages=2 box=64x64 swizzle=64B hbm_bytes_per_ns=3350.5");
    free(p);
    p = sweep_point_text(&g, 8 * 3 + 2);
    cr_assert_str_eq(p, "stages=8 box=64x64 swizzle=128B hbm_bytes_per_ns=2900");
    free(p);
    cr_assert_eq(sweep_value_index(&g, 8 * 3 + 2, 0), 3);
    cr_assert(sweep_key_is_param("hbm_bytes_per_ns"));
    cr_assert(!sweep_key_is_param("stages"));
    sweep_grid_free(&g);
}

Test(sweep, grid_refuses_what_it_cannot_set)
{
    const char *bad[][2] = {
        {"", "empty"},
        {"stages", "KEY=VALUES"},
        {"bogus=1,2", "key 'bogus'"},
        {"stages=2..x", "not a range"},
        {"stages=5..2", "not a range"},
        {"stages=2.5", "whole numbers"},
        {"box=64", "not a box"},
        {"box=64x300", "not a box"},
        {"swizzle=96b", "is not one of"},
        {"stages=2 stages=3", "given twice"},
        {"stages=0..65535", "more than 256 values"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sweep_grid g;
        err_info e = {0};
        cr_assert_eq(sweep_grid_parse(bad[i][0], &g, &e), ERR_BAD_INPUT, "'%s' accepted", bad[i][0]);
        cr_assert_str_eq(e.rule, "grid");
        cr_assert(strstr(e.detail, bad[i][1]), "'%s': %s", bad[i][0], e.detail);
    }
}

Test(sweep, spearman_of_known_orders)
{
    double a[] = {1, 2, 3, 4, 5}, up[] = {10, 20, 30, 40, 50}, down[] = {5, 4, 3, 2, 1};
    cr_assert_float_eq(sweep_spearman(a, up, 5), 1.0, 1e-12);
    cr_assert_float_eq(sweep_spearman(a, down, 5), -1.0, 1e-12);
    /* d = (0, 0, 1, -1, 0): 1 - 6 * 2 / (5 * 24) = 0.9 */
    double swap[] = {1, 2, 4, 3, 5};
    cr_assert_float_eq(sweep_spearman(a, swap, 5), 0.9, 1e-12);
    /* ties take their average rank: ranks (1.5, 1.5, 3) against (1, 2, 3), deviations from
     * the mean rank (-0.5, -0.5, 1) and (-1, 0, 1) */
    double tie[] = {7, 7, 9}, b[] = {1, 2, 3};
    cr_assert_float_eq(sweep_spearman(tie, b, 3), 1.5 / sqrt(1.5 * 2.0), 1e-12);
    cr_assert_float_eq(sweep_spearman(tie, tie, 1), 0.0, 1e-12);
}

static void load_ws4(pipe_desc *d)
{
    err_info e = {0};
    cr_assert_eq(desc_load(WS4, d, &e), ERR_OK, "%s", e.detail);
}

Test(sweep, a_point_is_the_description_with_its_keys_set)
{
    pipe_desc base, d;
    load_ws4(&base);
    sweep_grid g;
    err_info e = {0};
    cr_assert_eq(sweep_grid_parse("stages=3,40 ctas=264", &g, &e), ERR_OK);
    sweep_run_opts o = {.jobs = 1};
    sweep_row r;
    /* point 0 predicts what the description with stages 3 and 264 CTAs predicts */
    cr_assert_eq(sweep_eval(&base, &g, 0, &o, &r, &e), ERR_OK);
    cr_assert_eq(r.status, SWEEP_OK);
    d = base;
    cr_assert_eq(sweep_apply_text(&d, NULL, "stages=3 ctas=264", &e), ERR_OK, "%s", e.detail);
    cr_assert_eq(d.stages, 3);
    cr_assert_eq(d.ctas, 264);
    pipe_result pr;
    cr_assert_eq(pipe_run(&d, NULL, &pr, &e), ERR_OK);
    cr_assert_eq(r.kernel_ns, pr.kernel_ns);
    cr_assert_str_eq(r.bottleneck, pr.bottleneck_kind);
    cr_assert_neq(r.kernel_ns, 0);
    free(r.detail);
    /* point 1: 40 stages, rejected by the description's rule on stages */
    cr_assert_eq(sweep_eval(&base, &g, 1, &o, &r, &e), ERR_OK);
    cr_assert_eq(r.status, SWEEP_INVALID);
    cr_assert_str_eq(r.rule, "stages");
    cr_assert(r.detail && strstr(r.detail, "'stages' = 40"), "%s", r.detail);
    free(r.detail);
    /* a timing parameter is not a setting of the kernel */
    d = base;
    cr_assert_eq(sweep_apply_text(&d, NULL, "hbm_bytes_per_ns=1000", &e), ERR_BAD_INPUT);
    cr_assert(strstr(e.detail, "timing parameter"), "%s", e.detail);
    sweep_grid_free(&g);
}

/* the rows of a run on `jobs` threads, in point order */
static sweep_row *run_grid(const pipe_desc *base, const sweep_grid *g, unsigned jobs)
{
    uint64_t *pts = malloc(g->npoints * sizeof *pts);
    sweep_row *rows = calloc(g->npoints, sizeof *rows);
    for (uint64_t i = 0; i < g->npoints; i++)
        pts[i] = i;
    sweep_run_opts o = {.jobs = jobs};
    err_info e = {0};
    cr_assert_eq(sweep_run(base, g, pts, g->npoints, &o, rows, &e), ERR_OK, "%s", e.detail);
    free(pts);
    return rows;
}

Test(sweep, threads_give_the_rows_of_one_thread_and_ranks_order_them)
{
    pipe_desc base;
    load_ws4(&base);
    sweep_grid g;
    err_info e = {0};
    cr_assert_eq(sweep_grid_parse(GRID, &g, &e), ERR_OK);
    sweep_row *one = run_grid(&base, &g, 1), *three = run_grid(&base, &g, 3);
    uint64_t ok = 0, invalid = 0;
    for (uint64_t i = 0; i < g.npoints; i++) {
        cr_assert_eq(one[i].index, i);
        cr_assert_eq(three[i].index, i);
        cr_assert_eq(one[i].status, three[i].status);
        cr_assert_eq(one[i].kernel_ns, three[i].kernel_ns);
        cr_assert_eq(one[i].sim_events, three[i].sim_events);
        cr_assert_str_eq(one[i].rule, three[i].rule);
        ok += one[i].status == SWEEP_OK;
        invalid += one[i].status == SWEEP_INVALID;
        if (one[i].status == SWEEP_INVALID)
            cr_assert_str_eq(one[i].rule, "shared_memory_per_cta");
    }
    cr_assert_eq(ok, 14);
    cr_assert_eq(invalid, 6);
    sweep_rank(three, g.npoints);
    for (uint64_t i = 1; i < g.npoints; i++) {
        const sweep_row *a = &three[i - 1], *b = &three[i];
        cr_assert(a->status < b->status || (a->status == b->status && (a->status != SWEEP_OK || a->kernel_ns < b->kernel_ns ||
                                                                      (a->kernel_ns == b->kernel_ns && a->index < b->index))));
    }
    /* the number of CTAs moves the time most (twice the work), then CTAs per SM */
    double infl[SWEEP_MAX_AXES];
    uint32_t ax, ay;
    sweep_influence(&g, one, g.npoints, infl);
    cr_assert_eq(sweep_top_axes(&g, infl, &ax, &ay), 0);
    cr_assert_eq(ax, 2);
    cr_assert_eq(ay, 1);
    cr_assert_float_eq(infl[2], 1.0, 0.1);
    sweep_rows_free(one, g.npoints);
    sweep_rows_free(three, g.npoints);
    sweep_grid_free(&g);
}

Test(sweep, result_file_reads_back_row_for_row)
{
    pipe_desc base;
    load_ws4(&base);
    sweep_spec s = {.desc = strdup(WS4), .gpu = strdup("h100")};
    err_info e = {0};
    cr_assert_eq(sweep_grid_parse(GRID " swizzle=128b", &s.grid, &e), ERR_OK);
    sweep_row *rows = run_grid(&base, &s.grid, 2);
    free(rows[0].detail);
    rows[0].detail = strdup("a detail, with \"quotes\"\nand a line break");
    char path[] = "/tmp/tmsweepXXXXXX";
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    cr_assert_eq(sweep_write_csv(f, &s, rows, s.grid.npoints, 2, 5), ERR_OK);
    fclose(f);
    sweep_spec r;
    sweep_row *back;
    uint64_t n;
    uint32_t k, ns;
    cr_assert_eq(sweep_read_csv(path, &r, &back, &n, &k, &ns, &e), ERR_OK, "%s", e.detail);
    cr_assert(sweep_spec_same(&s, &r));
    cr_assert_eq(k, 2);
    cr_assert_eq(ns, 5);
    cr_assert_eq(n, s.grid.npoints);
    for (uint64_t i = 0; i < n; i++) {
        cr_assert_eq(back[i].index, rows[i].index);
        cr_assert_eq(back[i].status, rows[i].status);
        cr_assert_eq(back[i].kernel_ns, rows[i].kernel_ns);
        cr_assert_eq(back[i].sim_events, rows[i].sim_events);
        cr_assert_str_eq(back[i].rule, rows[i].rule);
        cr_assert_str_eq(back[i].detail ? back[i].detail : "", rows[i].detail ? rows[i].detail : "");
    }
    /* a row that is not the point its index says is refused, naming the line */
    char cmd[256];
    snprintf(cmd, sizeof cmd, "sed -i '9s/,264,/,999,/' %s", path);
    cr_assert_eq(sh(cmd), 0);
    sweep_spec r2;
    sweep_row *back2 = NULL;
    cr_assert_eq(sweep_read_csv(path, &r2, &back2, &n, &k, &ns, &e), ERR_BAD_INPUT);
    cr_assert(strstr(e.detail, ":9: a row is not a sweep point"), "%s", e.detail);
    unlink(path);
    sweep_rows_free(back, s.grid.npoints);
    sweep_rows_free(rows, s.grid.npoints);
    sweep_spec_free(&r);
    sweep_spec_free(&s);
}

Test(sweep, result_text_reads_back_and_rows_are_bounded_by_the_grid)
{
    pipe_desc base;
    load_ws4(&base);
    sweep_spec s = {.desc = strdup(WS4), .gpu = strdup("h100")};
    err_info e = {0};
    cr_assert_eq(sweep_grid_parse("stages=2,3", &s.grid, &e), ERR_OK);
    sweep_row *rows = run_grid(&base, &s.grid, 1);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_eq(sweep_write_csv(f, &s, rows, s.grid.npoints, 0, 0), ERR_OK);
    fclose(f);
    sweep_spec r;
    sweep_row *back = NULL;
    uint64_t n;
    uint32_t k, ns;
    cr_assert_eq(sweep_read_csv_mem(text, len, "mem.csv", &r, &back, &n, &k, &ns, &e), ERR_OK, "%s", e.detail);
    cr_assert_eq(n, 2);
    cr_assert(sweep_spec_same(&s, &r));
    cr_assert_eq(back[1].kernel_ns, rows[1].kernel_ns);
    sweep_rows_free(back, n);
    sweep_spec_free(&r);
    /* the last row once more: a third row for two points (line 10, after the format line,
     * five header lines, the column line and two rows) is refused there */
    const char *last = text + len - 1;
    while (last > text && last[-1] != '\n')
        last--;
    size_t row = (size_t)(text + len - last);
    char *more = malloc(len + row);
    memcpy(more, text, len);
    memcpy(more + len, last, row);
    cr_assert_eq(sweep_read_csv_mem(more, len + row, "mem.csv", &r, &back, &n, &k, &ns, &e), ERR_BAD_INPUT);
    cr_assert(strstr(e.detail, "mem.csv:10: more rows than the grid has points"), "%s", e.detail);
    cr_assert_null(back);
    cr_assert_eq(n, 0);
    free(more);
    free(text);
    sweep_rows_free(rows, s.grid.npoints);
    sweep_spec_free(&s);
}

Test(sweep, cli_checks_flags_before_any_work)
{
    const char *bad[][2] = {
        {WS4, "--grid or --grid-file"},
        {WS4 " --grid 'stages=2..4' -j 0", "-j"},
        {WS4 " --grid 'stages=2..4' --format xml", "format"},
        {WS4 " --grid 'nonsense=1'", "key 'nonsense'"},
        {WS4 " --grid 'box.C=64x64'", "no tensor 'C'"},
        {WS4 " --grid 'stages=2..4' -o /nonexistent/x.csv", "does not exist"},
        {WS4 " --grid 'stages=2..4' --shards 4", "go with --slurm"},
        {"--merge /tmp " WS4, "--merge DIR reads the sweep"},
        {"--merge /nonexistent-dir", "spec.csv"},
        {WS4 " --grid 'stages=4' --png /tmp/x.png", "two or more values"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        run_result r = cli_run("sweep", bad[i][0]);
        cr_assert_eq(r.status, 2, "'%s': exit %d", bad[i][0], r.status);
        cr_assert(strstr(r.err, bad[i][1]), "'%s': %s", bad[i][0], r.err);
        cr_assert_eq(count_lines(r.err), 1, "'%s': %s", bad[i][0], r.err);
        cr_assert_str_eq(r.out, "");
        done(&r);
    }
}

Test(sweep, cli_table_csv_json_and_picture)
{
    char dir[] = "/tmp/tmsweepcliXXXXXX", cmd[1024];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, WS4 " --grid '" GRID "' -j 2 -o %s/r.csv --png %s/r.png --top 3", dir, dir);
    run_result r = cli_run("sweep", cmd);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "20 points: 14 ok, 0 BUG, 6 invalid"), "%s", r.out);
    cr_assert(strstr(r.out, "(the best 3 of 14;"), "%s", r.out);
    cr_assert(strstr(r.out, "shared_memory_per_cta        6 points, e.g. stages=4 ctas_per_sm=2 ctas=264: "), "%s", r.out);
    done(&r);
    snprintf(cmd, sizeof cmd, "%s/r.png", dir);
    char *png = slurp(cmd);
    cr_assert(!memcmp(png, "\x89PNG", 4));
    free(png);
    /* stdout CSV is the -o file; JSON lists the same 20 points */
    r = cli_run("sweep", WS4 " --grid '" GRID "' -j 1 --format csv");
    snprintf(cmd, sizeof cmd, "%s/r.csv", dir);
    char *file = slurp(cmd);
    cr_assert_str_eq(r.out, file);
    cr_assert_eq(count_lines(file), 7 + 20);
    free(file);
    /* the same grid from a file, one key per line with comments */
    snprintf(cmd, sizeof cmd, "%s/grid.txt", dir);
    FILE *gf = fopen(cmd, "w");
    fprintf(gf, "# the README's grid\nstages=2..6   # stage count\nctas_per_sm=1,2\n\nctas=264,528\n");
    fclose(gf);
    snprintf(cmd, sizeof cmd, WS4 " --grid-file %s/grid.txt -j 1 --format csv", dir);
    run_result rf = cli_run("sweep", cmd);
    cr_assert_eq(rf.status, 0, "%s", rf.err);
    cr_assert_str_eq(rf.out, r.out);
    done(&rf);
    done(&r);
    r = cli_run("sweep", WS4 " --grid '" GRID "' --format json");
    cr_assert_eq(r.status, 0);
    int n = 0;
    for (const char *s = r.out; (s = strstr(s, "\"index\":")); s++)
        n++;
    cr_assert_eq(n, 20);
    cr_assert(strstr(r.out, "\"rule\":\"shared_memory_per_cta\""));
    done(&r);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    sh(cmd);
}

/* A stand-in for sbatch that runs the even array tasks only, one after the other: the
 * merge then computes the odd shards and reads the even ones. */
static void fake_sbatch(const char *bin)
{
    char path[512];
    snprintf(path, sizeof path, "%s/sbatch", bin);
    FILE *f = fopen(path, "w");
    fprintf(f, "#!/bin/sh\nfor a; do case $a in --array=0-*) n=${a#--array=0-};; --*) ;; *) s=$a;; esac; done\n"
               "i=0; while [ $i -le $n ]; do SLURM_ARRAY_TASK_ID=$i sh $s || exit 1; i=$((i+2)); done\necho 42\n");
    fclose(f);
    chmod(path, 0755);
}

Test(sweep, merge_resumes_from_the_shards_written_and_equals_a_local_run)
{
    char dir[] = "/tmp/tmsweepmergeXXXXXX", cmd[2048];
    cr_assert_not_null(mkdtemp(dir));
    fake_sbatch(dir);
    snprintf(cmd, sizeof cmd, "PATH=%s:$PATH %s sweep " WS4 " --grid '" GRID "' --slurm %s/run --shards 4 >%s/submit.txt",
             dir, TMASIM_BIN, dir, dir);
    cr_assert_eq(sh(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s/submit.txt", dir);
    char *sub = slurp(cmd);
    cr_assert(strstr(sub, "submitted Slurm job array 42: 20 points in 4 shards"), "%s", sub);
    free(sub);
    snprintf(cmd, sizeof cmd, "test -s %s/run/shard-00000.csv && test -s %s/run/shard-00002.csv && "
                              "test ! -e %s/run/shard-00001.csv", dir, dir, dir);
    cr_assert_eq(sh(cmd), 0);
    /* shard 2 edited: its first point's predicted time becomes 1 ns; the merge must take it
     * from the file (not compute it again), and rank it first */
    snprintf(cmd, sizeof cmd, "sed -i '9s/^,2,2,2,264,ok,[0-9]*,[0-9.]*,/,2,2,2,264,ok,1,0.001,/' %s/run/shard-00002.csv && "
                              "grep -q '^,2,2,2,264,ok,1,' %s/run/shard-00002.csv", dir, dir);
    cr_assert_eq(sh(cmd), 0);
    snprintf(cmd, sizeof cmd, "--merge %s/run -o %s/merged.csv", dir, dir);
    run_result r = cli_run("sweep", cmd);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.err, "2 of 4 shards missing"), "%s", r.err);
    cr_assert(strstr(r.out, "    1  2       2            264          0.001"), "%s", r.out);
    done(&r);
    /* shard 2 as computed again (removed: the merge computes it) gives the local run's file */
    snprintf(cmd, sizeof cmd, "rm %s/run/shard-00002.csv", dir);
    cr_assert_eq(sh(cmd), 0);
    snprintf(cmd, sizeof cmd, "--merge %s/run -o %s/merged.csv", dir, dir);
    r = cli_run("sweep", cmd);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.err, "1 of 4 shards missing"), "%s", r.err);
    done(&r);
    snprintf(cmd, sizeof cmd, WS4 " --grid '" GRID "' -o %s/local.csv", dir);
    r = cli_run("sweep", cmd);
    cr_assert_eq(r.status, 0);
    done(&r);
    snprintf(cmd, sizeof cmd, "cmp %s/merged.csv %s/local.csv", dir, dir);
    cr_assert_eq(sh(cmd), 0, "the merged result differs from the local run");
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    sh(cmd);
}

Test(sweep, slurm_job_array_on_a_local_cluster_equals_a_local_run, .timeout = 180)
{
    char dir[] = "/tmp/tmslurmXXXXXX", cmd[2048];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "sh tests/slurm-local.sh start %s >%s/start.txt 2>&1", dir, dir);
    if (sh(cmd) != 0) {
        snprintf(cmd, sizeof cmd, "%s/start.txt", dir);
        char *why = slurp(cmd), reason[512];
        why[strcspn(why, "\n")] = 0;
        snprintf(reason, sizeof reason, "%s", why);
        free(why);
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        sh(cmd);
        cr_skip_test("no local Slurm cluster: %s", reason);
    }
    snprintf(cmd, sizeof cmd, "SLURM_CONF=%s/slurm.conf %s sweep " WS4 " --grid '" GRID "' --slurm %s/run --shards 3 --wait "
                              ">%s/submit.txt 2>&1", dir, TMASIM_BIN, dir, dir);
    int submitted = sh(cmd);
    snprintf(cmd, sizeof cmd, "--merge %s/run -o %s/merged.csv", dir, dir);
    run_result m = cli_run("sweep", cmd);
    snprintf(cmd, sizeof cmd, WS4 " --grid '" GRID "' -o %s/local.csv", dir);
    run_result l = cli_run("sweep", cmd);
    snprintf(cmd, sizeof cmd, "sh tests/slurm-local.sh stop %s", dir);
    sh(cmd);
    snprintf(cmd, sizeof cmd, "%s/submit.txt", dir);
    char *sub = slurp(cmd);
    cr_assert_eq(submitted, 0, "sbatch: %s", sub);
    cr_assert(strstr(sub, "20 points in 3 shards"), "%s", sub);
    free(sub);
    cr_assert_eq(m.status, 0, "%s", m.err);
    /* every shard came from the array: the merge computed none */
    cr_assert(!strstr(m.err, "missing"), "%s", m.err);
    cr_assert_eq(l.status, 0);
    done(&m), done(&l);
    snprintf(cmd, sizeof cmd, "cmp %s/merged.csv %s/local.csv", dir, dir);
    cr_assert_eq(sh(cmd), 0, "the merged result of the job array differs from the local run");
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    sh(cmd);
}

/* A sweep past a second draws a progress line on a terminal (script(1) gives it one); a
 * shorter one draws none. The optimised build: the sanitizer one takes far longer for the
 * same points (about 5e7 simulated events: 2 s on two idle cores). */
Test(sweep, progress_on_a_terminal_past_a_second_only)
{
    if (system("command -v script >/dev/null 2>&1") != 0)
        cr_skip_test("script(1) is not installed: no terminal to run under");
    char dir[] = "/tmp/tmsweepttyXXXXXX", cmd[1024];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "script -qec '%s sweep examples/full_grid.yaml --grid \"stages=2..5 release_lag=0,1 "
                              "iterations=1024\" --top 2' %s/long.txt >/dev/null", TMASIM_REL_BIN, dir);
    cr_assert_eq(sh(cmd), 0);
    snprintf(cmd, sizeof cmd, "script -qec '%s sweep " WS4 " --grid \"stages=2,3\"' %s/short.txt >/dev/null",
             TMASIM_REL_BIN, dir);
    cr_assert_eq(sh(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s/long.txt", dir);
    char *tty = slurp(cmd);
    cr_expect(strstr(tty, "\rsweep [") && strstr(tty, "%"), "no progress line on the terminal: %.600s", tty);
    cr_expect(strstr(tty, "8 points: 8 ok"), "%.600s", tty);
    free(tty);
    snprintf(cmd, sizeof cmd, "%s/short.txt", dir);
    tty = slurp(cmd);
    cr_expect(!strstr(tty, "sweep ["), "a sweep of well under a second drew progress: %.600s", tty);
    free(tty);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    sh(cmd);
}
