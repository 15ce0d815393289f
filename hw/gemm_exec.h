/* gemm_exec: `tmahw run` of a GEMM description (math kind wgmma): generated kernel checked
 * against a reference, timed beside cuBLASLt, traced (gemm_exec.cu); the report and the
 * trace conversion are plain C (gemm_report.c) so that tests run them without a GPU. */
#ifndef TMASCOPE_GEMM_EXEC_H
#define TMASCOPE_GEMM_EXEC_H

#include <stdint.h>

#include "desc.h"
#include "err.h"
#include "pipe_gemm.h"
#include "trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One event as the generated kernel records it (GmEv in hw/gemm_kernel.cuh). */
typedef struct GmEvHost {
    uint32_t t, dur, iter;         /* low 32 bits of clock64, cycles, stage counter (tile for GMEV_EPI) */
    uint8_t kind, stage, warp, aux;
} GmEvHost;
enum { GMEV_LOAD = 0, GMEV_WAIT_FULL, GMEV_WGMMA, GMEV_WAITG, GMEV_RELEASE, GMEV_EPI, GMEV_WAIT_EMPTY };

typedef struct gemm_run_opts {
    const char *desc_path, *out_path, *fmt, *src_path;
    int reps;
    uint32_t trace_ctas;
    const char *lock_path;         /* --gpu-lock: GPU work under an exclusive lock on this file (NULL: none) */
    int counters;                  /* Range Profiler counters of one untimed launch beside the trace */
    int record_level;              /* --record-level: 1 full, 2 clock reads only, 3 stores only, 4 none (no trace) */
} gemm_run_opts;

typedef struct gemm_report {
    const pipe_desc *d;
    char gpu[128], date[32];
    int driver_version;
    double clock_ghz;              /* SM clock the trace's cycles are converted with: the recorded launch's own
                                      (rec_sm_ghz), else the device's clock rate */
    double kernel_ns, blas_ns, rec_ns;   /* medians (rec: the one recorded launch); kernel_ns from CUPTI's
                                            kernel records where CUPTI works, else as event_ns */
    double event_ns;               /* the generated kernel's median by cudaEvents around its launch (as cuBLASLt's) */
    int cupti;                     /* kernel_ns is CUPTI's */
    double sm_ghz, rec_sm_ghz;     /* SM clock in the kernel: median over CTAs of clock64 / globaltimer
                                      (sm_ghz: the median over the timed launches; 0: not measured) */
    double cupti_sm_ghz;           /* the same over the launches CUPTI timed (kernel_ns) */
    double start_spread_ns;        /* the last timed launch: first to last CTA start */
    double cta_ns_p50, ctas_span_ns;   /* over the launches CUPTI timed, medians: the median CTA's time
                                          (globaltimer at its start, after its barriers' set-up, to its end)
                                          and the first CTA start to the last CTA end */
    unsigned late_ctas;            /* ... CTAs that started after the first CTA ended (a second wave) */
    int resident_clusters;         /* cuOccupancyMaxActiveClusters (clusters > 1; 0 none, -1 failed) */
    int reps;
    unsigned long long mismatches, rec_mismatches, blas_mismatches;   /* elements != reference (blas: ~0 not run) */
    int host_bad;                  /* reference elements != the host's sums (of 4096) */
    uint32_t nfindings;
    pipe_gemm_finding findings[PIPE_GEMM_FINDINGS_MAX];
    char blas_why[160];
} gemm_report;

/* The recorded events of `ctas` CTAs (nwarps per CTA, cap events each, evn[] written)
 * as trace events: loads, waits, wgmma groups in flight (issue to the retiring
 * wait_group), wait_group spans, releases and the epilogue's store. */
int gemm_events_to_trace(const pipe_desc *d, const GmEvHost *ev, const uint32_t *evn, uint32_t ctas, uint32_t nwarps,
                         uint32_t cap, double clock_ghz, trace *tr, err_info *e);
/* The trace file (-o): events, header (GPU, driver, date, the description and its hash). */
int gemm_write_trace(const pipe_desc *d, const gemm_run_opts *o, const gemm_report *r, const GmEvHost *ev,
                     const uint32_t *evn, uint32_t ctas, uint32_t nwarps, uint32_t cap);
/* Table (default), json or csv on stdout. */
void gemm_print_report(const gemm_report *r, const char *fmt);

#ifdef __cplusplus
}

/* The subcommand's GEMM path (hw/gemm_exec.cu): exit 0 correct, 1 wrong C, 2 bad input / no GPU. */
int gemm_cmd_run(const pipe_desc *d, const gemm_run_opts *o);
#endif

#endif
