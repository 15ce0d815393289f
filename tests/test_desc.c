/* Pipeline descriptions: every example parses; malformed ones give one line with file,
 * line and field. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "desc.h"

static int parse(const char *text, pipe_desc *d, err_info *e)
{
    memset(e, 0, sizeof *e);
    return desc_parse_yaml(text, strlen(text), "t.yaml", d, e);
}

static const char *base =
    "name: t\n"
    "mode: warp_specialized\n"
    "warps: {producer: 1, consumer: 2}\n"
    "stages: 4\n"
    "iterations: 8\n"
    "tensors:\n"
    "  - name: A\n"
    "    dtype: f16\n"
    "    dims: [4096, 4096]\n"
    "    box: [64, 128]\n"
    "    swizzle: 128b\n";

Test(desc, examples_all_parse)
{
    const char *names[] = {"double_buffer", "ws4_tma", "cpasync_multistage", "cluster2_multicast", "stasync_cluster",
                           "consumer_swizzle_128b", "consumer_swizzle_none", "memory_bound", "compute_bound", "full_grid",
                           "bug_barrier_count", "bug_expect_tx", "bug_never_release", "bug_parity_lap", "splitk_reduce",
                           "cpasync_wait_prior", "bug_wait_prior", "bug_full_count", "bug_phase_lap"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[128];
        snprintf(path, sizeof path, "examples/%s.yaml", names[i]);
        pipe_desc d;
        err_info e = {0};
        cr_assert_eq(desc_load(path, &d, &e), ERR_OK, "%s: %s", path, e.detail);
        cr_assert_str_eq(d.name, names[i]);
    }
}

Test(desc, derived_counts_and_tx_follow_the_box)
{
    pipe_desc d;
    err_info e;
    cr_assert_eq(parse(base, &d, &e), ERR_OK, "%s", e.detail);
    /* box 64 x 128 f16 = 16384 bytes: what complete_tx delivers and expect_tx must announce */
    cr_assert_eq(d.tensors[0].tx_bytes, 64 * 128 * 2);
    cr_assert_eq(d.expect_tx, 16384);
    cr_assert_eq(d.full_count, 1, "producer's arrive.expect_tx is the only arrival");
    cr_assert_eq(d.empty_count, 2, "one arrival per consumer warp");
}

Test(desc, multicast_empty_count_covers_the_cluster)
{
    pipe_desc d;
    err_info e;
    char text[2048];
    snprintf(text, sizeof text, "%sgrid: {ctas: 4}\ncluster: {size: 2, multicast: true}\n", base);
    cr_assert_eq(parse(text, &d, &e), ERR_OK, "%s", e.detail);
    cr_assert_eq(d.empty_count, 4, "2 consumers x 2 CTAs");
}

Test(desc, cpasync_counts_one_noinc_arrival_per_warp)
{
    pipe_desc d;
    err_info e;
    const char *t = "mode: cp_async\nwarps: {consumer: 4}\nstages: 3\ntensors:\n  - {dims: [4096, 4096], box: [64, 64]}\n";
    cr_assert_eq(parse(t, &d, &e), ERR_OK, "%s", e.detail);
    cr_assert_eq(d.producer_warps, 0);
    cr_assert_eq(d.full_count, 4);
}

Test(desc, overrides_are_kept)
{
    pipe_desc d;
    err_info e;
    char text[2048];
    snprintf(text, sizeof text, "%sbarriers: {empty_count: 1, expect_tx: 8192}\n", base);
    cr_assert_eq(parse(text, &d, &e), ERR_OK, "%s", e.detail);
    cr_assert_eq(d.empty_count, 1);
    cr_assert_eq(d.expect_tx, 8192);
}

static void expect_bad(const char *text, const char *needle_line, const char *needle_field)
{
    pipe_desc d;
    err_info e;
    cr_assert_eq(parse(text, &d, &e), ERR_BAD_INPUT, "accepted:\n%s", text);
    cr_assert(strstr(e.detail, "t.yaml"), "no file in '%s'", e.detail);
    cr_assert(strstr(e.detail, needle_line), "no '%s' in '%s'", needle_line, e.detail);
    cr_assert(strstr(e.detail, needle_field), "no '%s' in '%s'", needle_field, e.detail);
    cr_assert_null(strchr(e.detail, '\n'), "more than one line: '%s'", e.detail);
}

Test(desc, malformed_inputs_name_line_and_field)
{
    char text[2048];
    expect_bad("name: [unclosed\n", "t.yaml:", "syntax");
    snprintf(text, sizeof text, "%sstagez: 3\n", base);
    expect_bad(text, ":12:", "stagez");
    snprintf(text, sizeof text, "%sconsumer: {release_lag: -1}\n", base);
    expect_bad(text, ":12:", "consumer.release_lag");
    expect_bad("mode: pipelined\n", ":1:", "mode");
    snprintf(text, sizeof text, "%sgrid: {ctas: 0}\n", base);
    expect_bad(text, ":12:", "grid.ctas");
    expect_bad("tensors:\n  - {dims: [4096, 4096], box: [64, 512]}\n", ":2:", "tensors.box");
    snprintf(text, sizeof text, "%sconsumer:\n  math: {kind: tensor}\n", base);
    expect_bad(text, ":13:", "consumer.math.kind");
    snprintf(text, sizeof text, "%sstages: 64\n", base);
    expect_bad(text, "", "stages");
}

Test(desc, tensor_map_rejected_by_the_driver_rules)
{
    /* inner box bytes must be a multiple of 16: 6 x f16 = 12 bytes */
    pipe_desc d;
    err_info e;
    cr_assert_eq(parse("tensors:\n  - {dims: [4096, 4096], box: [6, 64]}\n", &d, &e), ERR_BAD_INPUT);
    cr_assert(strstr(e.detail, "tensors[0]"), "%s", e.detail);
}

Test(desc, shared_memory_budget)
{
    char text[2048];
    /* 8 stages x 2 tensors... one 32 KB box per stage: 8 x 32 KB = 256 KB > 227 KB */
    snprintf(text, sizeof text,
             "stages: 8\ntensors:\n  - {dims: [4096, 4096], box: [64, 256], swizzle: 128b}\n");
    pipe_desc d;
    err_info e;
    cr_assert_eq(parse(text, &d, &e), ERR_BAD_INPUT);
    cr_assert(strstr(e.detail, "227"), "%s", e.detail);
}

Test(desc, shape_errors_found_after_parsing_still_name_the_line)
{
    char text[2048];
    /* line 4 is "stages: 4"; release_lag must stay below the stage count */
    snprintf(text, sizeof text, "%sconsumer:\n  release_lag: 4\n", base);
    expect_bad(text, "t.yaml:13:", "consumer.release_lag");
    /* 3 CTAs cannot form clusters of 2: the error points at the cluster size (line 14) */
    snprintf(text, sizeof text, "%sgrid: {ctas: 3}\ncluster:\n  size: 2\n", base);
    expect_bad(text, "t.yaml:14:", "cluster.size");
    /* the second tensor (line 12) has a 12-byte inner box */
    snprintf(text, sizeof text, "%s  - {dims: [64, 64], box: [6, 64]}\n", base);
    expect_bad(text, "t.yaml:12:", "tensors[1]");
    /* the 227 KB budget is about the stage count (line 4) */
    expect_bad("name: t\nwarps: {producer: 1, consumer: 2}\niterations: 8\nstages: 8\n"
               "tensors:\n  - {dims: [4096, 4096], box: [64, 256], swizzle: 128b}\n",
               "t.yaml:4:", "stages");
}

Test(desc, store_reduce_ops_are_ptx_red_ops)
{
    /* PTX cp.reduce.async.bulk.tensor .redOp = { .add, .min, .max, .inc, .dec, .and, .or, .xor } */
    const char *ops[] = {"add", "min", "max", "inc", "dec", "and", "or", "xor"};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        char text[2048];
        snprintf(text, sizeof text, "%sstore: {bytes: 16384, every: 4, reduce: %s}\n", base, ops[i]);
        pipe_desc d;
        err_info e;
        pipe_reduce r;
        cr_assert_eq(pipe_reduce_parse(ops[i], &r, &e), ERR_OK, "%s: %s", ops[i], e.detail);
        cr_assert_str_eq(pipe_reduce_name(r), ops[i]);
        cr_assert_neq(r, PIPE_REDUCE_NONE);
        /* the description names every PTX op; the GPU runner checks add only, and what it
         * cannot run `tmasim check` refuses with the same rule */
        if (i == 0) {
            cr_assert_eq(parse(text, &d, &e), ERR_OK, "%s: %s", ops[i], e.detail);
            cr_assert_eq(d.store_reduce, PIPE_REDUCE_ADD);
        } else {
            cr_assert_eq(parse(text, &d, &e), ERR_BAD_INPUT, "%s accepted", ops[i]);
            cr_assert_str_eq(e.rule, "store_reduce_op");
            cr_assert(strstr(e.detail, "store.reduce") != NULL, "%s", e.detail);
        }
    }
    char text[2048];
    snprintf(text, sizeof text, "%sstore: {bytes: 16384, every: 4, reduce: mul}\n", base);
    expect_bad(text, "t.yaml:12:", "store.reduce");
    snprintf(text, sizeof text, "%sstore:\n  reduce: add\n", base);
    expect_bad(text, "t.yaml:13:", "store.reduce");
}

Test(desc, commit_group_sync_is_for_cp_async_only)
{
    pipe_desc d;
    err_info e;
    const char *ok = "mode: cp_async\nwarps: {consumer: 4}\nstages: 4\ncpasync: {sync: wait_prior}\n"
                     "tensors:\n  - {dims: [4096, 4096], box: [64, 128]}\n";
    cr_assert_eq(parse(ok, &d, &e), ERR_OK, "%s", e.detail);
    cr_assert(d.cpasync_groups);
    cr_assert_eq(d.cpasync_wait_prior, 2, "4 stages: 3 groups in flight ahead, wait until 2 remain");
    char text[2048];
    snprintf(text, sizeof text, "%scpasync: {sync: wait_prior}\n", base);
    expect_bad(text, "t.yaml:12:", "cpasync.sync");
    expect_bad("mode: cp_async\nwarps: {consumer: 4}\ncpasync: {sync: pipeline}\n"
               "tensors:\n  - {dims: [4096, 4096], box: [64, 128]}\n",
               "t.yaml:3:", "cpasync.sync");
}

/* The consumers' reads the runner keeps in registers: at most 64 instructions per warp,
 * the same count in every warp; past those limits the rules (run by the parser) name
 * the count. */
static void expect_reads(const char *reads, const char *rule, const char *needle)
{
    char text[2048];
    pipe_desc d;
    err_info e;
    snprintf(text, sizeof text, "%sconsumer:\n  reads: %s\n", base, reads);
    if (!rule) {
        cr_assert_eq(parse(text, &d, &e), ERR_OK, "%s: %s", reads, e.detail);
        return;
    }
    cr_assert_eq(parse(text, &d, &e), ERR_BAD_INPUT, "%s", reads);
    cr_assert_str_eq(e.rule, rule, "%s: %s: %s", reads, e.rule, e.detail);
    cr_assert(strstr(e.detail, needle), "%s: %s", reads, e.detail);
}

Test(desc, reads_per_warp_and_split_are_checked_by_count)
{
    /* 64 x 128 f16 = 16 KiB: 32 instructions of 16 bytes per lane, 128 of 4 bytes */
    expect_reads("{tensor: 0, pattern: rows, bytes_per_lane: 16}", NULL, NULL);
    expect_reads("{tensor: 0, pattern: rows, bytes_per_lane: 4}", "reads_per_warp", "128 instructions per warp");
    expect_reads("{tensor: 0, pattern: rows, bytes_per_lane: 4, warps: 4}", NULL, NULL);
}

Test(desc, reads_past_the_generators_first_room_are_counted)
{
    /* 256 x 256 f16 = 128 KiB: 1024 instructions of 4 bytes per lane, 256 per warp of 4 */
    const char *wide = "mode: warp_specialized\nwarps: {producer: 1, consumer: 4}\nstages: 1\niterations: 2\n"
                       "tensors:\n  - {name: A, dtype: f16, dims: [4096, 4096], box: [256, 256], swizzle: none}\n"
                       "consumer:\n  reads: {tensor: 0, pattern: rows, bytes_per_lane: 4, warps: 4}\n";
    pipe_desc d;
    err_info e;
    cr_assert_eq(parse(wide, &d, &e), ERR_BAD_INPUT);
    cr_assert_str_eq(e.rule, "reads_per_warp", "%s: %s", e.rule, e.detail);
    cr_assert(strstr(e.detail, "256 instructions per warp"), "%s", e.detail);
}
