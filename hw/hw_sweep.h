/* hw_sweep: `tmahw sweep RESULTS --top K`, the best predicted points of a `tmasim sweep` on the
 * GPUs of this host (one worker per GPU) or as a Slurm job array (hw/sweep.c). */
#ifndef TMASCOPE_HW_SWEEP_H
#define TMASCOPE_HW_SWEEP_H

#ifdef __cplusplus
extern "C" {
#endif

/* argv[0] = "sweep". Exit 0 ok, 1 a point failed on the GPU, 2 bad input or no GPU. */
int hw_cmd_sweep(int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif
