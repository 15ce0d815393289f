/* gpu_time: how the hardware runner times the GPU: kernel start and end from CUPTI's
 * activity records (the kernel's own execution, without the launch's host overhead), and
 * the device-to-device copy bandwidth that every recording states beside its kernels. */
#ifndef TMASCOPE_GPU_TIME_H
#define TMASCOPE_GPU_TIME_H

#include <stddef.h>
#include <stdint.h>

typedef struct gt_kernel_time {
    uint64_t start, end;   /* CUPTI timestamps, ns */
} gt_kernel_time;

/* Enables CUPTI kernel activity records once per process; 0, or -1 with msg. */
int gt_cupti_on(char *msg, size_t msgsz);
/* The newest kernel record after a synchronize: 0, or -1 when none came in. */
int gt_cupti_last(gt_kernel_time *out);
/* cudaMemcpy device to device of 1 GiB, n timed copies after one warm-up: bytes read +
 * written per ns of each copy into samples[0..n-1]; returns how many were taken. */
int gt_d2d_samples(double *samples, int n);
/* The median of 10 such copies in GB/s (bytes/ns), its time in *ms_out; 0 on failure. */
double gt_d2d_bandwidth(double *ms_out);

#endif
