/* calib: `tmahw calibrate`, the simulator's timing parameters measured on this GPU by
 * microbenchmarks (one mechanism each), written as a `--params` file with provenance. */
#ifndef TMASCOPE_CALIB_H
#define TMASCOPE_CALIB_H

/* argv[0] = "calibrate". Exit 0 ok, 1 a benchmark failed, 2 bad input or no GPU. */
int hw_cmd_calibrate(int argc, char **argv);

#endif
