/* run: `tmahw run DESC -o TRACE`, a pipeline description as a real kernel on the GPU
 * (generator run_gen.h, references and trace conversion run_ref.h, counters prof.h). */
#ifndef TMASCOPE_RUN_H
#define TMASCOPE_RUN_H

#include <stddef.h>

/* The subcommand (argv[0] = "run"). Exit 0 ok, 1 finding (hang, mismatch, over-arrival),
 * 2 bad input or no GPU. */
int hw_cmd_run(int argc, char **argv);

#endif
