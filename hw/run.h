/* run: `tmahw run DESC -o TRACE`, a pipeline description as a real kernel on the GPU
 * (generator run_gen.h, references and trace conversion run_ref.h, counters prof.h). */
#ifndef TMASCOPE_RUN_H
#define TMASCOPE_RUN_H

#include <stddef.h>

/* The subcommand (argv[0] = "run"). Exit 0 ok, 1 finding (hang, mismatch, over-arrival),
 * 2 bad input or no GPU. */
int hw_cmd_run(int argc, char **argv);

#ifdef __cplusplus
#include "desc.h"
#include "prof.h"

/* Several runs may compile at once; the GPU work of one at a time (--gpu-lock FILE): an
 * exclusive flock on path, held until the process ends. The descriptor, or -1 (no path,
 * or the lock failed). */
int run_gpu_lock(const char *path);

/* The Range Profiler counters of one untimed launch (launch_fn(ctx), auto range, kernel
 * replay), written beside the trace out_path as NAME.counters.json (its path into path):
 * memory bytes, shared-memory wavefronts, SM cycles, issue and warp-state counters. A
 * warning on stderr when the profiler gives none. */
void run_write_counters(const pipe_desc *d, const char *gpu, const char *date, hw_prof_launch_fn launch_fn, void *ctx,
                        const char *out_path, char *path, size_t pathcap);
#endif

#endif
