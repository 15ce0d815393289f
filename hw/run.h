/* run: `tmahw run DESC -o TRACE`, a pipeline description as a real kernel on the GPU
 * (generator run_gen.h, references and trace conversion run_ref.h, counters run_prof). */
#ifndef TMASCOPE_RUN_H
#define TMASCOPE_RUN_H

#include <stddef.h>

/* The subcommand (argv[0] = "run"). Exit 0 ok, 1 finding (hang, mismatch, over-arrival),
 * 2 bad input or no GPU. */
int hw_cmd_run(int argc, char **argv);

/* One Range Profiler range around launch(ctx) (auto range, kernel replay). Fills up to
 * max metrics that the device offers from want[] (names[] / values[]), returns their
 * number or -1 with msg. Base metric names containing `list_filter` go to log. */
typedef int (*run_prof_launch_fn)(void *ctx);
int run_prof_counters(const char *const *want, int nwant, run_prof_launch_fn launch, void *ctx, const char **names,
                      double *values, int max, const char *list_filter, char *log, size_t logsz, char *msg, size_t msgsz);

#endif
