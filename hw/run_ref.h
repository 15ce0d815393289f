/* run_ref: the host side of `tmahw run` that needs no GPU: tensor contents, the
 * checksums the consumers must report (computed through the layout model, sim/tm.h,
 * from the bytes uploaded), the check of TMA-stored tiles, and the conversion of the
 * raw per-warp records into the shared trace format (sim/trace.h). libc only. */
#ifndef TMASCOPE_RUN_REF_H
#define TMASCOPE_RUN_REF_H

#include <stdint.h>

#include "desc.h"
#include "err.h"
#include "run_gen.h"
#include "trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Tensor t's bytes: a hash of (t, 8-byte word index), so every word is distinct. */
void run_ref_fill(uint8_t *buf, uint64_t size, uint32_t tensor);
/* Bytes from the tensor's base to its last element + 1 (strides from the map). */
uint64_t run_ref_tensor_bytes(const tm_desc *m);

/* Checksum each warp must report (producers 0): sums[cta * nwarps + warp]. tensors[t]
 * holds the uploaded bytes of tensor t (size bytes). */
int run_ref_sums(const pipe_desc *d, const run_gen_info *g, const uint8_t *const tensors[DESC_MAX_TENSORS],
                 const uint64_t sizes[DESC_MAX_TENSORS], uint32_t *sums, err_info *e);

/* The TMA store output: rows of tensor 0 boxes, store k of CTA c at rows
 * (c * stores_per_cta + k) * store_rows. Returns the number of mismatching stores
 * (first one described in e, rule "store_mismatch"). */
uint64_t run_ref_check_stores(const pipe_desc *d, const run_gen_info *g, const uint8_t *tensor0, const uint8_t *out,
                              err_info *e);

/* ---- raw records -> trace ---------------------------------------------------------- */

/* One device record, 16 bytes (hw/record.cuh): t, dur, iter, then kind | flags << 4,
 * stage, barrier, aux. */
typedef struct run_raw_ev {
    uint32_t t, dur, iter;     /* t: low 32 bits of clock64; dur: cycles */
    uint8_t kind_flags;        /* kind (low 4 bits) | RUN_EVF_* << 4 */
    uint8_t stage, barrier;    /* as recorded; tmahw run's kernels leave 0 (numbered from the iteration) */
    uint8_t aux;               /* tensor (tma_issue), cluster rank (release), 1: producer side (wait) or remote (expect_tx) */
} run_raw_ev;
/* record kinds beyond the trace's: two events in one record (TMASCOPE_CONSUMED: read and
 * math, the math's cycles in bits 8..31 of the last word; TMASCOPE_PRODUCED: expect_tx and
 * the copies, issued from t + dur to t + dur + bits 8..31) */
#define RUN_KIND_CONSUMED 12u
#define RUN_KIND_PRODUCED 13u
/* the same two as the device writes them: three clocks (t, dur, iter hold them) and the
 * iteration's low 24 bits in bits 8..31 of the last word; run_raw_norm makes them 12, 13 */
#define RUN_KIND_CONSUMED_CLK 14u
#define RUN_KIND_PRODUCED_CLK 15u
/* a commit-group step of tmahw run's cp.async kernels (cpasync.sync: wait_prior), written
 * as one record: {t_wait, t_bar, t_issue, iter << 8 | flags << 4 | 5}: iteration iter's
 * wait_group [t_wait, t_bar) (a stall where flag RUN_EVF_BLOCKED), its bar.sync [t_bar,
 * t_issue) (a stall where flag RUN_EVF_BAR_BLOCKED) and the cp.async issue of iteration
 * iter + stages - 1 at t_issue where that iteration exists. The host numbers it with the
 * description (kind 5 is no event the device records otherwise). */
#define RUN_KIND_GROUP_STEP_CLK 5u
#define RUN_EVF_BAR_BLOCKED 2u
#define RUN_EVF_BLOCKED 1u
#define RUN_EVF_TIMEOUT 2u
#define RUN_EVF_FULL 4u
#define RUN_EVF_RELEASED 8u   /* a consumed record: the stage (iteration - release_lag) was released at the math's end */
#define RUN_EVF_END_CLOCK 8u  /* a wait: dur holds the clock at the wait's end (0: never closed) */
#define RUN_AUX_OWN_CTA 0xffu /* a release's aux: the recording CTA itself */
/* evn of a warp that recorded nothing because the kernel's rings were for fewer warps */
#define RUN_EVN_UNRECORDED 0xffffffffu

typedef struct run_raw {
    const run_raw_ev *ev;      /* nwarps * ctas * ev_cap */
    const uint32_t *evn;       /* per warp */
    const uint64_t *cta_time;  /* per CTA: globaltimer, clock64 at start; at end */
    const uint32_t *cta_sm;
    int64_t gt_to_kernel_ns;   /* subtract from globaltimer to get ns from the kernel start (CUPTI) */
    uint32_t trace_ctas;       /* convert the events of CTAs below this only (0: all) */
    uint32_t ev_cap;           /* records per warp the device buffer held (more written: overflow) */
    uint32_t nwarps;           /* warps per CTA */
    uint32_t ev_stride;        /* records per warp in ev (0: ev_cap) */
} run_raw;

/* A device record with durations: the clock records (kinds 14, 15) as kinds 12 and 13 (the
 * second duration clamped to 24 bits), a wait with its end clock (RUN_EVF_END_CLOCK) with
 * its duration; other records as they are. */
run_raw_ev run_raw_norm(const run_raw_ev *r);

/* Converts to trace events (source hw, the simulator's kinds and keys, the description's
 * barrier numbering and bytes). Sets *overflowed to the number of warps whose buffer
 * overflowed (or that recorded nothing: RUN_EVN_UNRECORDED); the trace is then flagged
 * incomplete. */
int run_ref_trace(const pipe_desc *d, const run_raw *raw, trace *out, uint32_t *overflowed, err_info *e);

#ifdef __cplusplus
}
#endif

#endif
