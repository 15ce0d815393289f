/* The pipeline simulator against the H100: for every non-bug example with a committed
 * recording (traces/h100/pipelines/NAME.tmt, `tmahw run`), the predicted kernel time must
 * be within TOLERANCE of the recorded trace header's kernel_ns (CUPTI duration of the
 * traced launch). The recordings are read as committed, so a re-recording re-checks the
 * model; an example without a recording is skipped by name, never silently passed.
 *
 * Tolerance 25%: the recorded launch carries the recording overhead, measured in the same
 * run at up to 9.5% (double_buffer) and 12.9% (full_grid) and varying 2-16% between runs
 * (traces/h100/pipelines/README.md); the model's parameters are medians of spans whose
 * p10-p90 spread is a few percent; and the model has no L2/DRAM contention detail beyond
 * one shared bandwidth. 25% separates a model that has the mechanism right from one that
 * is off by a factor (before the calibration of 2026-11-23: 4x-15x on five examples).
 *
 * Known disagreements are listed below with their numbers and reasons; they are reported
 * (cr_log_info with the numbers: Criterion 2.4 exits 1 after any cr_log_warn), not passed, and the tolerance is not widened for them. Remove an entry once its cause is fixed: the test then holds it to 25%. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "desc.h"
#include "pipe.h"
#include "trace.h"

#define TOLERANCE 0.25

static const char *const examples[] = {
    "double_buffer", "ws4_tma",       "cpasync_multistage",    "cpasync_wait_prior",    "cluster2_multicast",
    "stasync_cluster", "consumer_swizzle_128b", "consumer_swizzle_none", "memory_bound", "compute_bound",
    "full_grid",     "splitk_reduce", "streaming",
};

typedef struct known {
    const char *name, *why;
} known;

/* The copy-loop examples, below. The recording of 2026-11-23 11:58 (code of 4b76c2e) against the model
 * after the consumer-step calibration (sim/params.c consume_step_ns, arrive_ns,
 * remote_arrive_ns): double_buffer -7%, ws4_tma -9%, cluster2_multicast -5%, splitk_reduce
 * -11%, which were listed here before (the consumers' step between math and the next read,
 * 350 ns local / 719 ns with a remote release, was not modelled; double_buffer's hw loop
 * loaded one stage too late until 4b76c2e). Add an entry {"name", "reason with numbers"}
 * before the terminator when a re-recording shows a cause the model lacks. */
static const known disagreements[] = {
    {"stasync_cluster", "recorded with the copy loop before commit fbb0976 (each 16-byte chunk's tile address by "
                        "the coordinates' division chain): on the H200 the example runs in 0.32 of that time with the "
                        "loop of fbb0976; no H100 was lent to record it again"},
    {"cpasync_wait_prior", "recorded with the copy loop before commit fbb0976: 0.33 of that time on the H200 with "
                           "the loop of fbb0976; no H100 was lent to record it again"},
    {"cpasync_multistage", "recorded with the copy loop before commit fbb0976: 0.42 of that time on the H200 with "
                           "the loop of fbb0976; no H100 was lent to record it again"},
    {NULL, NULL},
};

static const char *known_reason(const char *name)
{
    for (size_t i = 0; disagreements[i].name; i++)
        if (!strcmp(disagreements[i].name, name))
            return disagreements[i].why;
    return NULL;
}

/* Returns 0 when the example has no recording; else fills predicted and recorded ns. */
static int compare(const char *name, int64_t *predicted, int64_t *recorded)
{
    char path[160];
    snprintf(path, sizeof path, "traces/h100/pipelines/%s.tmt", name);
    struct stat st;
    if (stat(path, &st) != 0)
        return 0;
    trace hw;
    trace_init(&hw, TRACE_SRC_HW);
    err_info e = {0};
    cr_assert_eq(trace_read(path, &hw, &e), ERR_OK, "%s: %s", path, e.detail);
    cr_assert_eq(hw.source, TRACE_SRC_HW, "%s is not a hardware recording", path);
    cr_assert_gt(hw.kernel_ns, 0, "%s: no kernel_ns in the header", path);
    *recorded = hw.kernel_ns;
    trace_free(&hw);

    char yaml[160];
    snprintf(yaml, sizeof yaml, "examples/%s.yaml", name);
    pipe_desc d;
    cr_assert_eq(desc_load(yaml, &d, &e), ERR_OK, "%s: %s", yaml, e.detail);
    pipe_result r;
    pipe_opts o = {0};
    cr_assert_eq(pipe_run(&d, &o, &r, &e), ERR_OK, "%s: %s", name, e.detail);
    cr_assert_eq(r.deadlock, 0, "%s deadlocks in the simulator", name);
    *predicted = r.kernel_ns;
    return 1;
}

Test(pipe_h100, predicted_kernel_time_within_tolerance_of_the_recording)
{
    unsigned checked = 0;
    for (size_t i = 0; i < sizeof examples / sizeof examples[0]; i++) {
        int64_t pred, rec;
        if (!compare(examples[i], &pred, &rec)) {
            cr_log_info("%s: no recording under traces/h100/pipelines, not compared", examples[i]);
            continue;
        }
        double err = ((double)pred - (double)rec) / (double)rec;
        const char *why = known_reason(examples[i]);
        if (why) {
            cr_expect(strlen(why) > 0, "%s: a known disagreement needs its reason", examples[i]);
            /* a warning, not a failure: a re-recording must not break CI */
            if (fabs(err) <= TOLERANCE)
                cr_log_info("%s is now within %.0f%% (%+.1f%%): remove it from the known disagreements", examples[i],
                            100 * TOLERANCE, 100 * err);
            else
                cr_log_info("%s: known disagreement, predicted %.1f us vs recorded %.1f us (%+.0f%%): %s", examples[i],
                            pred / 1e3, rec / 1e3, 100 * err, why);
            continue;
        }
        checked++;
        cr_log_info("%s: predicted %.1f us vs recorded %.1f us (%+.1f%%)", examples[i], pred / 1e3, rec / 1e3, 100 * err);
        cr_expect(fabs(err) <= TOLERANCE, "%s: predicted %.1f us vs recorded %.1f us (%+.1f%%, tolerance %.0f%%)",
                  examples[i], pred / 1e3, rec / 1e3, 100 * err, 100 * TOLERANCE);
    }
    cr_assert_gt(checked, 0, "no example was compared with a recording");
}
