/* record: the host side of hw/record.cuh, the recording header for hand-written kernels
 * (and tmahw run's generated ones). libc only: the buffers a launch needs, a launch's raw
 * recording as a file (what the recorder injected into an application writes, per
 * launch), and its conversion into a trace (sim/trace.h) with the description's
 * numbering when one is given. The CUDA side (allocating, binding the buffers to a
 * module's tmascope_rec, calibrating %globaltimer against CUPTI) is hw/record_cuda.h. */
#ifndef TMASCOPE_RECORD_H
#define TMASCOPE_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "desc.h"
#include "err.h"
#include "run_ref.h"
#include "trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* struct tmascope_dev of hw/record.cuh, field for field */
typedef struct rec_dev {
    uint64_t ev, evn, cta, sm;
    uint32_t cap, nwarps, nctas, magic;
} rec_dev;
#define REC_MAGIC 0x746d7363u
#define REC_EVENT_BYTES 16u
/* records per warp a recorder allocates unless told otherwise */
#define REC_DEFAULT_EVENTS 4096u
/* the most device memory a recorder allocates for one launch's records */
#define REC_MAX_BUFFER_BYTES (2ull << 30)

/* One launch's recording as the host holds it. ev: per warp, min(evn, cap) records at
 * stride `stride` (the buffers came back from the device, or a raw file). */
typedef struct rec_launch {
    char kernel[256];          /* the kernel's (mangled) name */
    char gpu[64];              /* the device's name (cuDeviceGetName) */
    int driver_version;        /* cuDriverGetVersion */
    uint32_t grid[3], block[3];
    uint32_t ctas, nwarps;     /* grid and block products (warps rounded up) */
    uint32_t cap;              /* records per warp the device buffer held */
    uint32_t stride;           /* records per warp in ev */
    uint64_t cupti_start, cupti_end;   /* CUPTI kernel timestamps (ns); 0 when not timed */
    int64_t gt_offset;         /* CUPTI time - %globaltimer; REC_NO_OFFSET when not calibrated */
    uint64_t seq;              /* launch number in the process */
    run_raw_ev *ev;
    uint32_t *evn;             /* per warp: records written (> cap: overflow; RUN_EVN_UNRECORDED) */
    uint64_t *cta_time;        /* per CTA: globaltimer, clock64 at start; at end (0: the CTA did not record) */
    uint32_t *cta_sm;
} rec_launch;
#define REC_NO_OFFSET INT64_MIN

/* Records the buffer holds per warp for a launch of ctas x nwarps: `want`, or fewer so
 * that the buffer stays within REC_MAX_BUFFER_BYTES (at least 1). */
uint32_t rec_cap_for(uint32_t ctas, uint32_t nwarps, uint32_t want);
/* Allocates the host arrays of l (ctas, nwarps, stride set); ERR_IO when memory runs out. */
int rec_launch_alloc(rec_launch *l, err_info *e);
void rec_launch_free(rec_launch *l);

/* Raw launch files (`tmahw record` reads what the injected recorder writes). Atomic
 * (temporary file, then rename). Only the records written are stored. */
int rec_raw_write(const char *path, const rec_launch *l, err_info *e);
int rec_raw_read(const char *path, rec_launch *l, err_info *e);

/* What a conversion found. */
typedef struct rec_summary {
    uint32_t overflowed;       /* warps that wrote more records than the buffer held */
    uint32_t unrecorded;       /* warps beyond the kernel's TMASCOPE_WARPS */
    uint32_t ctas_missing;     /* CTAs without a clock pair (did not reach TMASCOPE_END) */
    uint64_t records;          /* records converted */
} rec_summary;

/* Converts a launch into a trace (source hw, kernel_ns from CUPTI when timed), the events
 * of CTAs below trace_ctas only (0: all; every CTA's records are checked for overflow). With a
 * description d (its ctas and warps must be the launch's: ERR_BAD_INPUT naming
 * grid.ctas or warps otherwise), the events get the simulator's stage and barrier
 * numbering, phases and bytes (run_ref_trace) and the trace carries desc_text; without,
 * the records' own stage and barrier, phase 0, no bytes, and roles from what each warp
 * recorded (copies only: producer; reads or math only: consumer; both: mixed). The
 * trace is flagged incomplete when a warp overflowed or was not recorded. */
int rec_to_trace(const rec_launch *l, const pipe_desc *d, const char *desc_text, size_t desc_len, uint32_t trace_ctas,
                 trace *out, rec_summary *s, err_info *e);

#ifdef __cplusplus
}
#endif

#endif
