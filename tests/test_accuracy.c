/* tmasim accuracy against the corpora recorded on an H100 and an H200 (traces/h100/corpus,
 * traces/h200/corpus, the wgmma GEMM corpus traces/h200/corpus-wgmma) and the bundled examples
 * recorded on the H200 (traces/h200/pipelines).
 *
 * The figures asserted are those the model reached when these recordings were made, as
 * bounds it must keep (it may only get better). They are NOT the project's target for
 * pipelines outside the calibration examples (median |error| <= 5%, largest <= 15%,
 * verdicts >= 90% on the test half): README.md "Simulator accuracy" says how far it is. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "cli_run.h"

/* The corpus-wide figures come from the optimised build: they check the model's accuracy, and
 * the sanitizer build of the same code runs every other case here (about 10x slower, it would
 * take most of the suite's time on the 460 recordings) */
#ifndef TMASIM_REL_BIN
#define TMASIM_REL_BIN "build/rel/tmasim"
#endif

/* The value of "key": in the n-th JSON object of the output (0-based). */
static double field(const char *json, int n, const char *key)
{
    const char *p = json;
    for (int k = 0; k <= n && p; k++)
        p = strchr(k ? p + 1 : p, '{');
    cr_assert_not_null(p, "object %d missing in %s", n, json);
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *v = strstr(p, pat);
    cr_assert_not_null(v, "%s missing in %s", key, p);
    return strtod(v + strlen(pat), NULL);
}

Test(accuracy, test_half_of_both_corpora_within_recorded_bounds, .timeout = 300)
{
    run_result r = cli_run_bin(TMASIM_REL_BIN, "accuracy", "traces/h100/corpus traces/h200/corpus --split test --format json");
    cr_assert_eq(r.status, 0, "%s", r.err);
    for (int g = 0; g < 2; g++) {
        double n = field(r.out, g, "n"), med = field(r.out, g, "median_abs_err_pct");
        double max = field(r.out, g, "max_abs_err_pct"), agree = field(r.out, g, "verdict_agree_pct");
        cr_log_info("%s test half: n %.0f, median |error| %.1f%%, max %.1f%%, verdicts %.0f%%", g ? "H200" : "H100", n, med,
                    max, agree);
        /* the H100 recordings of kernels the generator has changed since are superseded
         * (traces/h100/corpus/superseded.txt) until an H100 records them again */
        cr_expect_geq(n, g ? 110 : 34, "usable recordings in the test half");
        /* the largest error on the H200 is corpus_0001_0104 (+34%), which takes 40.7 us when
         * run again, not the 32.8 us recorded (README says more); on the H100
         * corpus_0001_0005 (-36%: 7 CTAs per SM, multicast clusters of 2) and 0212 (-36%: 5
         * CTAs per SM, one stage, multicast and a store). The bounds are the figures of the
         * model as it is, so that a change that makes them worse shows. */
        cr_expect_leq(med, g ? 4.5 : 4.1, "median |error| of the test half");
        cr_expect_leq(max, g ? 34.2 : 36.3, "largest |error| of the test half");
        cr_expect_geq(agree, g ? 89.4 : 85.2, "verdict agreement with the recorded evidence");
    }
    done(&r);
}

/* Recorded after the model was fixed (seed 2): nothing was fitted on it. */
Test(accuracy, held_out_corpus_within_recorded_bounds, .timeout = 300)
{
    run_result r = cli_run_bin(TMASIM_REL_BIN, "accuracy",
                               "traces/h100/corpus-seed2 traces/h200/corpus-seed2 --split all --format json");
    cr_assert_eq(r.status, 0, "%s", r.err);
    for (int g = 0; g < 2; g++) {
        cr_expect_eq(field(r.out, g, "n"), g ? 120 : 34, "every held-out run usable (H100: superseded ones not)");
        /* on the H200 corpus_0002_0044 is the worst, +44%, too slow in the model;
         * corpus_0002_0037 (3 CTAs per SM, 7 consumer warps, ldmatrix) -38%, too fast (-49%
         * with the waiters of one phase woken at one instant, -50% with them 1.7-4 ns apart:
         * its warps settle into one of several drifted states); corpus_0002_0106 (st_async,
         * one stage, 12 CTAs per SM) -40%. The H100's verdicts: corpus_0002_0010 (st_async)
         * recorded its consumers waiting on data 0.30 of their time, at the verdict's 0.30
         * threshold (synchronization), the model 0.35 (latency); corpus_0002_0025 (8 consumer
         * warps, 32 stages, clusters of 4) sits between latency and synchronization too. Seed
         * 2's 0098 and 0079 read latency, as recorded, once L2 serves few requests per ns from
         * a small footprint. */
        cr_expect_leq(field(r.out, g, "median_abs_err_pct"), g ? 6.7 : 7.3);
        cr_expect_leq(field(r.out, g, "max_abs_err_pct"), g ? 44.3 : 40.6);
        cr_expect_geq(field(r.out, g, "verdict_agree_pct"), g ? 91.6 : 82.3);
    }
    done(&r);
}

/* Recorded after this model's mechanisms were chosen (seed 3, the H200): the first 140
 * draws and 20 later ones for the mechanisms then new (copy tables over 18 KiB, multicast
 * clusters of 4-16). Its median is above the other sets': they were looked at while the
 * model was built, this one was not. */
Test(accuracy, fresh_corpus_within_recorded_bounds, .timeout = 300)
{
    run_result r = cli_run_bin(TMASIM_REL_BIN, "accuracy", "traces/h200/corpus-seed3 --split all --format json");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(field(r.out, 0, "n"), 160, "every run usable");
    cr_expect_leq(field(r.out, 0, "median_abs_err_pct"), 7.6);
    cr_expect_leq(field(r.out, 0, "max_abs_err_pct"), 50.8);
    cr_expect_geq(field(r.out, 0, "verdict_agree_pct"), 86.8);
    done(&r);
}

/* Recorded on 2026-12-07 (seed 4, the H200) when nobody had looked at these descriptions: the
 * model's figure for pipelines it had not seen was median 7.7%, largest 66.1%. Its fit half has
 * been looked at since (the st.async shares per tensor: 7.6%, 61.0%); the largest is still
 * corpus_0004_0045, an st.async producer at 3 CTAs per SM the model prices about twice its
 * recorded copy loop. */
Test(accuracy, unseen_corpus_within_recorded_bounds, .timeout = 300)
{
    run_result r = cli_run_bin(TMASIM_REL_BIN, "accuracy", "traces/h200/corpus-seed4 --split all --format json");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(field(r.out, 0, "n"), 160, "every run usable");
    cr_log_info("seed 4: median |error| %.1f%%, max %.1f%%, verdicts %.0f%%", field(r.out, 0, "median_abs_err_pct"),
                field(r.out, 0, "max_abs_err_pct"), field(r.out, 0, "verdict_agree_pct"));
    cr_expect_leq(field(r.out, 0, "median_abs_err_pct"), 7.6);
    cr_expect_leq(field(r.out, 0, "max_abs_err_pct"), 61.0);
    cr_expect_geq(field(r.out, 0, "verdict_agree_pct"), 83.7);
    done(&r);
}

/* The random wgmma GEMM corpus (traces/h200/corpus-wgmma, tmasim corpus --family wgmma):
 * both halves within the figures the model reached when it was recorded and its GEMM
 * mechanisms measured (the fit half is what those measurements looked at). Far from the
 * project's targets: README.md "GEMM pipelines in the random corpus". */
Test(accuracy, wgmma_corpus_within_recorded_bounds, .timeout = 120)
{
    run_result r = cli_run_bin(TMASIM_REL_BIN, "accuracy",
                               "traces/h200/corpus-wgmma --split test --format json");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(field(r.out, 0, "n"), 30, "every test-half recording usable");
    cr_log_info("wgmma corpus test half: median |error| %.1f%%, max %.1f%%, verdicts %.0f%%",
                field(r.out, 0, "median_abs_err_pct"), field(r.out, 0, "max_abs_err_pct"),
                field(r.out, 0, "verdict_agree_pct"));
    cr_expect_leq(field(r.out, 0, "median_abs_err_pct"), 9.9);
    cr_expect_leq(field(r.out, 0, "max_abs_err_pct"), 78.1);
    cr_expect_geq(field(r.out, 0, "verdict_agree_pct"), 83.0);
    done(&r);
    run_result f = cli_run_bin(TMASIM_REL_BIN, "accuracy", "traces/h200/corpus-wgmma --split fit --format json");
    cr_assert_eq(f.status, 0, "%s", f.err);
    cr_expect_eq(field(f.out, 0, "n"), 30);
    cr_expect_leq(field(f.out, 0, "median_abs_err_pct"), 9.6);
    cr_expect_leq(field(f.out, 0, "max_abs_err_pct"), 46.6);
    cr_expect_geq(field(f.out, 0, "verdict_agree_pct"), 90.0);
    done(&f);
}

Test(accuracy, bundled_examples_on_the_h200, .timeout = 120)
{
    run_result r = cli_run("accuracy", "traces/h200/pipelines --split all --format json");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(field(r.out, 0, "n"), 13);
    /* recorded again with the generator of commit fbb0976 (read addresses as bases plus
     * constants, copy sources from per-stage tile bases): compute_bound is the worst at
     * 9.1%, stasync_cluster -4.6% (-8.2% before the st.async table misses and expect_tx;
     * +11.9% with the st.async trip of 133 ns) */
    cr_expect_leq(field(r.out, 0, "median_abs_err_pct"), 5.1);
    cr_expect_leq(field(r.out, 0, "max_abs_err_pct"), 9.2);
    done(&r);
}

Test(accuracy, requirements_and_bad_input, .timeout = 300)
{
    run_result loose = cli_run("accuracy", "traces/h200/pipelines --split all --require-median 50 --require-max 90");
    cr_expect_eq(loose.status, 0, "%s", loose.err);
    done(&loose);
    run_result strict = cli_run("accuracy", "traces/h200/pipelines --split all --require-max 0.1");
    cr_expect_eq(strict.status, 1, "a missed requirement is a finding");
    done(&strict);
    run_result none = cli_run("accuracy", "/nonexistent/dir");
    cr_expect_eq(none.status, 2);
    cr_expect_eq(count_lines(none.err), 1, "%s", none.err);
    done(&none);
    run_result split = cli_run("accuracy", "traces/h200/pipelines --split half");
    cr_expect_eq(split.status, 2);
    cr_expect(strstr(split.err, "--split"), "%s", split.err);
    done(&split);
}

/* The parameter files `tmahw calibrate` wrote on the two GPUs: every line loads as a
 * parameter the simulator knows, and carries its spread and the benchmark it comes from. */
#include "params.h"

static void check_calibration(const char *path, double hbm_lo, double hbm_hi)
{
    pipe_params p;
    err_info e = {0};
    cr_assert_eq(params_for_gpu(path, &p, &e), ERR_OK, "%s: %s", path, e.detail);
    int found = 0;
    double hbm = params_get(&p, "hbm_bytes_per_ns", &found);
    cr_expect(found && hbm >= hbm_lo && hbm <= hbm_hi, "%s: hbm_bytes_per_ns %g", path, hbm);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    char line[4096];
    int params = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        params++;
        const char *c = strchr(line, '#');
        cr_expect(c && strstr(c, "[") && strstr(c, "..") && strstr(c, ", n ") && strstr(c, "] ") && strstr(c, ": "),
                  "%s: no spread or benchmark: %s", path, line);
    }
    fclose(f);
    cr_expect_geq(params, 25, "%s: parameters measured", path);
}

Test(accuracy, calibration_files_load_with_provenance)
{
    /* the two GPUs' copy bandwidths as the corpora recorded them (README.md) */
    check_calibration("traces/h100/calibration/calibration.params", 2900, 3100);
    check_calibration("traces/h200/calibration/calibration.params", 4100, 4300);
    run_result r = cli_run("sim", "examples/ws4_tma.yaml --gpu traces/h200/calibration/calibration.params");
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "predicted kernel time"), "%s", r.out);
    done(&r);
}

/* A deadlocking description has no kernel time, and its wait chain is printed whole. */
Test(accuracy, a_deadlock_has_no_predicted_time_and_a_whole_chain)
{
    run_result r = cli_run("sim", "examples/bug_expect_tx.yaml");
    cr_expect_eq(r.status, 1, "a deadlock is a finding: %s", r.err);
    cr_expect(strstr(r.out, "predicted kernel time: none, the pipeline deadlocks"), "%s", r.out);
    cr_expect(strstr(r.out, "\ndeadlock: ") && strstr(r.out, "(expect_tx 8192 vs 16384 bytes the copies deliver)."),
              "%s", r.out);
    done(&r);
    run_result j = cli_run("sim", "examples/bug_expect_tx.yaml --format json");
    cr_expect(strstr(j.out, "\"chain\":\"12 warp(s) blocked forever.") && strstr(j.out, "the copies deliver)."), "%s",
              j.out);
    done(&j);
}

/* --list names where the recording's warps spent their cycles, from the warp-state counters
 * of traces/h200/corpus-fit-stalls: corpus_0001_0006 (6 consumer warps reading 4-byte rows,
 * 2-3 CTAs per SM) issues on 44% of its active cycles and waits mostly on shared-memory
 * results (short_scoreboard 41%); recordings without those counters show none. */
Test(accuracy, list_shows_the_recorded_issue_share_and_stall_reason, .timeout = 120)
{
    char dir[] = "/tmp/tmaccXXXXXX", cmd[512];
    cr_assert_not_null(mkdtemp(dir));
    const char *src = "traces/h200/corpus-fit-stalls";
    snprintf(cmd, sizeof cmd, "cp %s/meta.json %s/corpus_0001_0006.* %s/", src, src, dir);
    cr_assert_eq(system(cmd), 0);
    char args[256];
    snprintf(args, sizeof args, "%s --split all --list --format csv", dir);
    run_result r = cli_run("accuracy", args);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "hw_issue,hw_stall,hw_stall_share,hw_mem,") != NULL, "%s", r.out);
    cr_expect(strstr(r.out, ",sim_wait_data,sim_busy\n") != NULL, "%s", r.out);
    const char *row = strstr(r.out, "corpus_0001_0006,");
    cr_assert_not_null(row, "%s", r.out);
    const char *stall = strstr(row, ",short_scoreboard,");
    cr_assert_not_null(stall, "%s", row);
    double issue = strtod(stall - 6, NULL), share = strtod(stall + strlen(",short_scoreboard,"), NULL);
    cr_expect(issue > 0.43 && issue < 0.45, "issue share %g", issue);
    cr_expect(share > 0.40 && share < 0.42, "stall share %g", share);
    done(&r);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);

    /* the H100 corpus was recorded without the warp-state counters */
    char dir2[] = "/tmp/tmaccXXXXXX";
    cr_assert_not_null(mkdtemp(dir2));
    snprintf(cmd, sizeof cmd, "cp traces/h100/corpus/meta.json traces/h100/corpus/corpus_0001_0002.* %s/", dir2);
    cr_assert_eq(system(cmd), 0);
    snprintf(args, sizeof args, "%s --split all --list", dir2);
    run_result old = cli_run("accuracy", args);
    cr_expect_eq(old.status, 0, "%s", old.err);
    cr_expect(strstr(old.out, "hw stall (share)") != NULL, "%s", old.out);
    cr_expect(strstr(old.out, "corpus_0001_0002") && strstr(old.out, "short_scoreboard") == NULL &&
                  strstr(old.out, "  -  ") != NULL, "%s", old.out);
    done(&old);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir2);
    cr_assert_eq(system(cmd), 0);
}
