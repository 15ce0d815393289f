/* hw: the hardware side of tmascope (tmahw). Runs TMA copies and single warp
 * shared-memory instructions on a real sm_90 GPU and records what the hardware did,
 * raw, so that sim/replay_json.c can later compare any model version with it.
 * C++17 compiled by nvcc; the models (sim/ headers) are plain C with extern "C" guards. */
#ifndef TMASCOPE_HW_H
#define TMASCOPE_HW_H

#include <stdint.h>
#include <stdio.h>

#include <cuda.h>

#include "bank.h"
#include "replay.h"
#include "tm.h"

/* ---- driver / context ------------------------------------------------------ */

typedef struct hw_device {
    CUdevice dev;
    CUcontext ctx;
    char name[128];
    int driver_version;     /* cuDriverGetVersion */
    int cc_major, cc_minor;
} hw_device;

/* cuInit + primary context. Returns 0, or a CUresult with msg filled. */
int hw_open(hw_device *d, char *msg, size_t msgsz);
void hw_close(hw_device *d);
const char *hw_cu_name(CUresult r);
/* Compiles src with NVRTC for sm_90a (opts: further options), loads the module and finds
 * `kernel`; on failure msg holds the first two lines of the compiler's log or the driver's
 * error, and nothing is left loaded. */
int hw_nvrtc_load(const char *src, const char *file, const char *const *opts, int nopts, const char *kernel,
                  CUmodule *mod, CUfunction *fn, char *msg, size_t msgsz);

/* ---- tensor maps ------------------------------------------------------------ */

/* Encodes with the real cuTensorMapEncodeTiled; the map's fields come from d
 * (global_address included). Returns the CUresult. */
CUresult hw_encode(const tm_desc *d, CUtensorMap *map);

/* One TMA copy case as the runner sees it. */
typedef struct hw_layout_case {
    uint32_t id;
    const char *group;       /* corpus group name (static string) */
    int store;               /* 0 load (global -> shared), 1 store (shared -> global) */
    tm_desc desc;            /* global_address is set by the runner */
    int32_t coords[TM_MAX_RANK];
    uint32_t smem_offset;    /* from the 1024-aligned base of the dynamic buffer */
    uint32_t global_misalign;/* bytes added to a 1024-aligned device address */
} hw_layout_case;

/* Global-memory extent of a tensor (bytes from global_address to its last byte + 1). */
uint64_t hw_tensor_extent(const tm_desc *d);
/* Dense box bytes computed from the parameters alone (not from the model): the
 * runner's expect_tx. */
uint32_t hw_dense_box_bytes(const tm_desc *d);

#define HW_SMEM_BUF (96u * 1024u)       /* dynamic shared buffer after 1024-alignment */
#define HW_TIMEOUT_NS 20000000ull       /* bounded mbarrier wait: 20 ms */

/* Runs one case and writes its JSON line to out. Returns 0 ok (whatever the
 * hardware did), or a CUDA error that left the context unusable (the case line
 * is then written with "fault"). */
int hw_run_layout_case(const hw_layout_case *c, FILE *out, FILE *verdicts);
/* The case's parameters as the start of its JSON line (no closing brace). */
void hw_case_head(FILE *f, const hw_layout_case *c, const tm_desc *d);
/* Verdict lines: kind \t id \t verdict (REPLAY_*) \t parameters \t detail */

/* ---- bank instructions -------------------------------------------------------- */

#define HW_MAX_METRICS 16
typedef struct hw_bank_metrics {
    int n;
    const char *names[HW_MAX_METRICS];
} hw_bank_metrics;

/* Profiles each instruction as one kernel launch (auto range, kernel replay).
 * values[i * HW_MAX_METRICS + m] is metric m of instruction i; baseline[m] comes from an
 * instruction-free kernel.
 * Returns 0 or -1 with msg. */
int hw_bank_profile(const bank_instr *instrs, uint32_t count, hw_bank_metrics *metrics,
                    double *values, double *baseline, FILE *log, char *msg, size_t msgsz);
/* Launches the instruction kernel without the profiler (for sanity). */
int hw_bank_launch(const bank_instr *in, uint32_t *sink_out);

/* ---- corpus -------------------------------------------------------------------- */

uint32_t hw_corpus_layout(hw_layout_case *out, uint32_t max);
uint32_t hw_corpus_bank(bank_instr *out, uint32_t max);
typedef struct hw_encode_case {
    uint32_t id;
    const char *rule;        /* the rule probed */
    int expect_accept;       /* what the documentation says (for reading the file only) */
    tm_desc desc;
    uint32_t global_misalign;
} hw_encode_case;
uint32_t hw_corpus_encode(hw_encode_case *out, uint32_t max);

/* ---- JSON writing ----------------------------------------------------------------- */
void hw_json_desc(FILE *f, const tm_desc *d);
void hw_json_hex(FILE *f, const uint8_t *p, size_t n);
const char *hw_bank_op_str(const bank_instr *in);

#endif
