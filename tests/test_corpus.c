/* tmasim corpus: the seeded generator is deterministic, its descriptions are valid, the
 * fit/test split is a fixed rule, and the sampled space is covered. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "cli_run.h"
#include "corpus.h"
#include "desc.h"
#include "pipe.h"

Test(corpus, same_seed_same_text_other_seed_other_text)
{
    static char a[8192], b[8192], c[8192];
    char na[32], nb[32], nc[32];
    for (uint32_t i = 0; i < 50; i++) {
        size_t la = corpus_candidate(7, i, 0, a, sizeof a, na);
        size_t lb = corpus_candidate(7, i, 0, b, sizeof b, nb);
        corpus_candidate(8, i, 0, c, sizeof c, nc);
        cr_assert_lt(la, sizeof a);
        cr_assert_eq(la, lb);
        cr_assert_str_eq(a, b, "candidate %u differs between two draws of seed 7", i);
        cr_assert_str_eq(na, nb);
        cr_assert(strcmp(a + strcspn(a, "\n"), c + strcspn(c, "\n")), "seed 8 repeats seed 7 at %u", i);
    }
}

Test(corpus, split_is_a_fixed_half)
{
    uint32_t test = 0;
    char name[32];
    for (uint32_t i = 0; i < 2000; i++) {
        snprintf(name, sizeof name, "corpus_0001_%04u", i);
        int s = corpus_split(name);
        cr_assert(s == CORPUS_FIT || s == CORPUS_TEST);
        cr_assert_eq(s, corpus_split(name), "the rule depends on the name only");
        test += s == CORPUS_TEST;
    }
    cr_assert(test > 900 && test < 1100, "%u of 2000 in the test half", test);
    /* two names of the recorded corpus, one in each half (traces/h100/corpus/index: fit, test) */
    cr_assert_eq(corpus_split("corpus_0001_0000"), CORPUS_FIT);
    cr_assert_eq(corpus_split("corpus_0001_0001"), CORPUS_TEST);
}

/* Over 300 candidates: every mode, swizzle, read pattern and math kind appears, clusters of
 * every size, several CTAs per SM and grids of several waves. Most candidates are valid. */
Test(corpus, candidates_cover_the_space, .timeout = 120)
{
    static char text[8192];
    static pipe_desc d;
    uint32_t modes[PIPE_MODE_COUNT] = {0}, math[PIPE_MATH_COUNT] = {0}, clusters[17] = {0}, swz[8] = {0};
    uint32_t valid = 0, cps = 0, waves = 0, reads[4] = {0}, mcast = 0;
    for (uint32_t i = 0; i < 300; i++) {
        char name[32], file[48];
        size_t len = corpus_candidate(3, i, 0, text, sizeof text, name);
        snprintf(file, sizeof file, "%s.yaml", name);
        err_info e = {0};
        if (desc_parse_yaml(text, len, file, &d, &e) != ERR_OK)
            continue;
        valid++;
        modes[d.mode]++;
        math[d.math]++;
        clusters[d.cluster]++;
        swz[d.tensors[0].map.swizzle & 7]++;
        cps += d.ctas_per_sm > 1;
        waves += d.ctas > 132u * d.ctas_per_sm;
        mcast += d.multicast != 0;
        if (d.reads_enabled)
            reads[d.reads.pattern & 3]++;
    }
    cr_assert_gt(valid, 200, "%u of 300 candidates valid", valid);
    for (int m = 0; m < PIPE_MODE_COUNT; m++)
        cr_expect_gt(modes[m], 0, "mode %s never drawn", pipe_mode_name((pipe_mode)m));
    /* every math kind the simulator times (wgmma pipelines are checked, not timed, and the
     * corpus is for judging the simulator's timing) */
    for (int m = 0; m < PIPE_MATH_WGMMA; m++)
        cr_expect_gt(math[m], 0, "math %d never drawn", m);
    cr_expect_eq(math[PIPE_MATH_WGMMA], 0, "the corpus drew a wgmma pipeline (wgmma pipelines are not part of the random corpus yet)");
    for (int c = 1; c <= 16; c *= 2)
        cr_expect_gt(clusters[c], 0, "cluster %d never drawn", c);
    for (int k = 0; k < 4; k++) {
        cr_expect_gt(reads[k], 0, "read pattern %d never drawn", k);
        cr_expect_gt(swz[k], 0, "swizzle %d never drawn", k);
    }
    cr_expect_gt(cps, 30);
    cr_expect_gt(waves, 30);
    cr_expect_gt(mcast, 5);
}

/* The command writes the same files twice and refuses bad flags before any work. */
Test(corpus, command_is_deterministic_and_checks_flags, .timeout = 120)
{
    char d1[] = "/tmp/tmcorpusXXXXXX", d2[] = "/tmp/tmcorpusXXXXXX", args[512];
    cr_assert_not_null(mkdtemp(d1));
    cr_assert_not_null(mkdtemp(d2));
    snprintf(args, sizeof args, "--seed 5 --count 6 -o %s", d1);
    run_result r1 = cli_run("corpus", args);
    snprintf(args, sizeof args, "--seed 5 --count 6 -o %s", d2);
    run_result r2 = cli_run("corpus", args);
    cr_assert_eq(r1.status, 0, "%s", r1.err);
    cr_assert_eq(r2.status, 0, "%s", r2.err);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "diff -r %s %s >/dev/null", d1, d2);
    cr_assert_eq(system(cmd), 0, "two runs of seed 5 differ");
    snprintf(cmd, sizeof cmd, "test $(ls %s/*.yaml | wc -l) = 6 && test $(wc -l < %s/index.csv) = 7", d1, d1);
    cr_assert_eq(system(cmd), 0, "6 descriptions and an index of 6 rows");
    snprintf(cmd, sizeof cmd, "rm -rf %s %s", d1, d2);
    cr_assert_eq(system(cmd), 0);
    done(&r1), done(&r2);
    run_result bad = cli_run("corpus", "--seed 1 --count 0 -o /tmp/never");
    cr_expect_eq(bad.status, 2);
    cr_expect_eq(count_lines(bad.err), 1, "%s", bad.err);
    cr_expect(strstr(bad.err, "--count"), "%s", bad.err);
    done(&bad);
}

/* The wgmma family: deterministic, apart from the pipelines family's stream, every
 * candidate a GEMM the simulator accepts without findings, and the space covered: every
 * dtype, one and two consumer warpgroups, both epilogues, multicast clusters, grids of one
 * to several waves of tiles. */
Test(corpus, wgmma_family_is_valid_and_covers_its_space, .timeout = 120)
{
    static char text[8192], again[8192], other[8192];
    static pipe_desc d;
    uint32_t dtypes[8] = {0}, groups[4] = {0}, epi[PIPE_EPI_COUNT] = {0}, mcast = 0, several = 0, under = 0, valid = 0;
    for (uint32_t i = 0; i < 120; i++) {
        char name[32], n2[32], file[48];
        size_t len = corpus_wgmma_candidate(11, i, 0, text, sizeof text, name);
        cr_assert_lt(len, sizeof text);
        corpus_wgmma_candidate(11, i, 0, again, sizeof again, n2);
        cr_assert_str_eq(text, again, "candidate %u differs between two draws", i);
        corpus_candidate(11, i, 0, other, sizeof other, n2);
        cr_assert(strcmp(text, other), "candidate %u repeats the pipelines family", i);
        cr_assert(strncmp(name, "wgmma_0011_", 11) == 0, "%s", name);
        snprintf(file, sizeof file, "%s.yaml", name);
        err_info e = {0};
        cr_assert_eq(desc_parse_yaml(text, len, file, &d, &e), ERR_OK, "%s: %s\n%s", name, e.detail, text);
        pipe_result r;
        cr_assert_eq(pipe_run(&d, NULL, &r, &e), ERR_OK, "%s: %s", name, e.detail);
        cr_expect_eq(r.findings, 0, "%s: a finding in a drawn GEMM", name);
        valid += r.findings == 0 && !r.deadlock;
        cr_assert_eq(d.math, PIPE_MATH_WGMMA);
        dtypes[d.wgmma.dtype & 7]++;
        groups[d.gemm.consumer_groups & 3]++;
        epi[d.gemm.epilogue]++;
        mcast += d.multicast && d.cluster == 2;
        uint32_t tiles = d.gemm.tiles;
        several += tiles > 2 * d.ctas;
        under += tiles < d.ctas;
    }
    cr_expect_eq(valid, 120);
    for (int t = 0; t < 5; t++)
        if (t != 2)   /* tf32 is not drawn */
            cr_expect_gt(dtypes[t], 5, "wgmma dtype %d drawn %u times", t, dtypes[t]);
    cr_expect_gt(groups[1], 20);
    cr_expect_gt(groups[2], 20);
    cr_expect_gt(epi[PIPE_EPI_TMA], 20);
    cr_expect_gt(epi[PIPE_EPI_DIRECT], 10);
    cr_expect_gt(mcast, 10);
    cr_expect_gt(several, 10);
    cr_expect_gt(under, 5);
}
