/* trace: the event format shared by the simulator (sim/), the hardware runner (hw/)
 * and the viewer (viz/). The on-disk layout is documented in traces/FORMAT.md.
 *
 * An event is 32 bytes in memory and on disk. Timestamps are integer nanoseconds
 * from the start of the kernel. The key (cta, warp, kind, stage, iteration, copy) names
 * the same event in a simulated and in a measured trace; copy (not stored) numbers the
 * events sharing the other five fields in time order (tdiff.h). */
#ifndef TMASCOPE_TRACE_H
#define TMASCOPE_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum trace_source { TRACE_SRC_SIM = 0, TRACE_SRC_HW = 1 } trace_source;

typedef enum trace_role {
    TRACE_ROLE_PRODUCER = 0,   /* issues TMA / cp.async copies */
    TRACE_ROLE_CONSUMER,       /* reads stages and computes */
    TRACE_ROLE_MIXED,          /* multistage: the same warps copy and compute */
    TRACE_ROLE_TMA_UNIT,       /* the SM's copy engine (sim only) */
    TRACE_ROLE_COUNT
} trace_role;

typedef enum trace_kind {
    TRACE_TMA_ISSUE = 0,       /* instant: a copy instruction issued */
    TRACE_TMA_FLIGHT,          /* span: copy in flight, issue to complete_tx */
    TRACE_BAR_ARRIVE,          /* instant */
    TRACE_BAR_EXPECT_TX,       /* instant: bytes = expected tx */
    TRACE_BAR_COMPLETE_TX,     /* instant: bytes = delivered tx */
    TRACE_PHASE_COMPLETE,      /* instant: a barrier phase completed */
    TRACE_WAIT,                /* span: a warp blocked in try_wait (a stall) */
    TRACE_SMEM_READ,           /* span: shared-memory reads of a stage */
    TRACE_MATH,                /* span: FMA / MMA work on a stage */
    TRACE_RELEASE,             /* instant: a consumer released a stage (empty arrive) */
    TRACE_CPASYNC_ISSUE,       /* instant: cp.async group committed */
    TRACE_TMA_STORE,           /* span: TMA store / reduction back to global */
    TRACE_WGMMA,               /* span: one wgmma group in flight, from its issue to the wait_group that
                                * retired it (stage: the stage it reads; bytes: shared bytes it reads) */
    TRACE_WGMMA_WAIT,          /* span: wgmma.wait_group (phase: its N) */
    TRACE_KIND_COUNT
} trace_kind;

typedef enum trace_flag {
    TRACE_FLAG_FULL_BARRIER = 1u << 0,   /* barrier is a "full" barrier (else "empty") */
    TRACE_FLAG_REMOTE = 1u << 1,         /* arrive / complete_tx from a cluster peer */
    TRACE_FLAG_MULTICAST = 1u << 2,
    TRACE_FLAG_TIMEOUT = 1u << 3,        /* a wait that hit the watchdog (hang) */
    TRACE_FLAG_REDUCE = 1u << 4,         /* tma_store: a TMA reduction (cp.reduce.async.bulk.tensor) */
} trace_flag;

typedef struct trace_event {
    int64_t t_ns;          /* start (spans) or time (instants) */
    uint32_t dur_ns;       /* 0 for instants */
    uint32_t iteration;
    uint32_t bytes;        /* tx bytes, copy bytes, or bytes read */
    uint16_t cta;
    uint16_t phase;        /* barrier phase number (parity = phase & 1) */
    uint8_t sm;
    uint8_t warp;          /* warp index inside the CTA */
    uint8_t role;          /* trace_role */
    uint8_t stage;
    uint8_t kind;          /* trace_kind */
    uint8_t barrier;       /* barrier index inside the CTA */
    uint8_t source;        /* trace_source */
    uint8_t flags;         /* trace_flag bits */
} trace_event;

#ifndef __cplusplus
_Static_assert(sizeof(trace_event) == 32, "trace_event must stay 32 bytes");
#endif

/* A whole trace in memory. Metadata travels in the file header (traces/FORMAT.md). */
typedef struct trace {
    trace_event *events;       /* sorted by t_ns */
    size_t count;
    size_t capacity;
    uint8_t source;            /* trace_source of the run */
    int truncated;             /* set by trace_read when the file ended early */
    int64_t kernel_ns;         /* kernel duration (predicted or measured) */
    char gpu[64];              /* "H100 (sim)", "NVIDIA H100 80GB HBM3", ... */
    char name[64];             /* the description's name */
    char note[128];            /* driver, date, parameter set */
    /* The pipeline description the run came from (its YAML text, NUL-terminated, owned:
     * trace_free frees it) and pipe_plan_hash of it; NULL and 0 when the trace does not
     * carry one (traces written before the header had the field). */
    char *desc_text;
    uint64_t desc_hash;
} trace;

void trace_init(trace *t, trace_source src);
int trace_push(trace *t, const trace_event *ev, err_info *e);
void trace_sort(trace *t);
void trace_free(trace *t);
/* Atomic: writes PATH.tmp then renames. */
int trace_write(const char *path, const trace *t, err_info *e);
/* A truncated file loads the intact events, sets t->truncated and returns ERR_OK;
 * anything else malformed returns ERR_BAD_INPUT naming the file and the field. */
int trace_read(const char *path, trace *t, err_info *e);
/* trace_read of a file's bytes held in memory; name stands for the path in messages. */
int trace_read_mem(const void *data, size_t size, const char *name, trace *t, err_info *e);

/* Attaches a copy of the description text (len bytes) and its hash; ERR_IO when memory
 * runs out, ERR_BAD_INPUT past TRACE_MAX_DESC_BYTES. */
#define TRACE_MAX_DESC_BYTES (1u << 19)
int trace_set_desc(trace *t, const char *text, size_t len, uint64_t hash, err_info *e);

const char *trace_kind_name(trace_kind k);
const char *trace_role_name(trace_role r);

#define TRACE_FORMAT_VERSION 1
/* Times (t_ns, kernel_ns) lie within -TRACE_MAX_NS..TRACE_MAX_NS, 2^53 ns (104 days):
 * then a time plus a duration and the difference of any two times fit in int64_t, and
 * every time is exact as a double (Chrome JSON microseconds, the viewer's pixels).
 * Readers reject a time outside the range naming the field; writers never produce one. */
#define TRACE_MAX_NS ((int64_t)1 << 53)
/* Grows the event array to hold at least capacity events (ERR_IO when memory runs out). */
int trace_reserve(trace *t, size_t capacity, err_info *e);
/* Name <-> enum for text formats (Chrome JSON import, CLI filters); return 1 when found. */
int trace_kind_from_name(const char *s, trace_kind *out);
int trace_role_from_name(const char *s, trace_role *out);
/* Field range check used by every reader and writer (kind, role, source, flags, and t_ns
 * within TRACE_MAX_NS); index and path only colour the message. */
int trace_validate_event(const trace_event *ev, size_t index, const char *path, err_info *e);

#ifdef __cplusplus
}
#endif

#endif
