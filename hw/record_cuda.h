/* record_cuda: the CUDA side of hw/record.cuh's recording (driver API, C): the device
 * buffers of a launch bound to a module's tmascope_rec, the recording fetched back, and
 * the offset between %globaltimer and CUPTI's timestamps. Used by `tmahw run` (its
 * generated kernels) and by the recorder injected into applications
 * (hw/record_inject.c, `tmahw record`). */
#ifndef TMASCOPE_RECORD_CUDA_H
#define TMASCOPE_RECORD_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include <cuda.h>

#include "record.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Device buffers, grown as launches need; zero-initialise. */
typedef struct rec_cuda {
    CUdeviceptr ev, evn, cta, sm;
    size_t ev_bytes, evn_bytes, cta_bytes, sm_bytes;   /* allocated */
    rec_dev dev;               /* what the last bind wrote to the symbol */
} rec_cuda;

/* The address of the module's tmascope_rec: 0, 1 when the module has none (a kernel
 * built without the header, or with TMASCOPE_RECORD 0), -1 with msg. */
int rec_cuda_symbol(CUmodule mod, CUdeviceptr *sym, char *msg, size_t msgsz);
/* Sizes the buffers for ctas x nwarps x cap records, zeroes the counts and clock pairs,
 * and writes their addresses to the symbol at sym. 0, or -1 with msg. */
int rec_cuda_bind(rec_cuda *b, CUdeviceptr sym, uint32_t ctas, uint32_t nwarps, uint32_t cap, char *msg, size_t msgsz);
/* Copies the last bound launch's recording into l (allocated here: rec_launch_free);
 * l's kernel name, grid, block, times are the caller's. 0, or -1 with msg. */
int rec_cuda_fetch(const rec_cuda *b, rec_launch *l, char *msg, size_t msgsz);
void rec_cuda_free(rec_cuda *b);

/* the calibration kernel's name */
#define REC_CALIB_KERNEL "tmascope_gt"
/* The CUPTI start and end (ns) of the newest kernel after a synchronize: 0, or -1. */
typedef int (*rec_cupti_last_fn)(void *user, uint64_t *start, uint64_t *end);
/* CUPTI time - %globaltimer: the median over 16 launches of a one-thread kernel that
 * reads %globaltimer first (PTX, JIT-compiled by the driver), against CUPTI's start of
 * each; spread = max - min. 0, or -1 with msg. */
int rec_cuda_calibrate(rec_cupti_last_fn last, void *user, int64_t *offset, int64_t *spread, char *msg, size_t msgsz);

#ifdef __cplusplus
}
#endif

#endif
