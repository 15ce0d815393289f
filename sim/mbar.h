/* mbar: the PTX mbarrier as a pure step function, plus cp.async commit groups.
 *
 * State and rules follow the PTX ISA's mbarrier section: a phase completes when pending == 0 and tx == 0;
 * then phase += 1 and pending = expected. Steps that the ISA leaves undefined are
 * reported as findings (ERR_FINDING) whose rule names the misuse:
 *   mbar_reinit_live, mbar_uninitialised, mbar_count_range, mbar_over_arrival,
 *   mbar_tx_range, mbar_nocomplete_completed, mbar_drop_below_zero,
 *   mbar_phase_aliasing, mbar_wrong_parity, mbar_arrival_early, mbar_tx_wrong_phase,
 *   mbar_phase_unobserved (an arrival on phase p >= 1 before any successful wait saw
 *   phase p - 1 complete: the reference sheet's "one wait per phase" rule).
 * The output state is still filled (as the hardware would plausibly continue), so a
 * simulator can keep going after reporting. */
#ifndef TMASCOPE_MBAR_H
#define TMASCOPE_MBAR_H

#include <stdint.h>

#include "err.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MBAR_COUNT_MAX ((1 << 20) - 1)   /* expected and pending: 1..2^20-1 / 0..2^20-1 */
#define MBAR_TX_MAX ((1 << 20) - 1)      /* tx-count: -(2^20-1)..2^20-1 */

typedef struct mbar {
    int live;            /* initialised and not invalidated */
    uint32_t phase;      /* number of the current (incomplete) phase; parity = phase & 1 */
    int32_t pending;     /* arrivals still missing in the current phase */
    int32_t expected;    /* arrivals each phase starts with */
    int32_t tx;          /* tx-count: expected minus delivered bytes */
    uint32_t waits_done_in_phase; /* successful waits on the previous phase since it completed */
} mbar;

typedef enum mbar_op {
    MBAR_INIT = 0,            /* count */
    MBAR_INVAL,
    MBAR_ARRIVE,              /* count (1 when 0); no_complete for .noComplete */
    MBAR_EXPECT_TX,           /* tx */
    MBAR_ARRIVE_EXPECT_TX,    /* tx, then one arrival, atomically */
    MBAR_COMPLETE_TX,         /* tx: bytes delivered by a TMA / bulk copy / st.async */
    MBAR_ARRIVE_DROP,         /* count */
    MBAR_TEST_WAIT,           /* parity: try_wait.parity / test_wait.parity */
    MBAR_CPASYNC_ARRIVE,      /* issue of cp.async.mbarrier.arrive (no .noinc): pending += 1;
                                 the arrival itself is a later MBAR_ARRIVE when the copies land */
    MBAR_OP_COUNT
} mbar_op;

typedef struct mbar_event {
    mbar_op op;
    uint32_t count;
    int32_t tx;
    uint32_t parity;
    int no_complete;
    /* Optional knowledge a simulator has and a kernel does not: the phase number the
     * actor means (the waiter waits for its completion; the arriver counts towards it).
     * -1 is the phase "before init", which counts as complete (producers start there). */
    int has_intended;
    int64_t intended_phase;
} mbar_event;

typedef struct mbar_result {
    int phase_completed;     /* this step completed a phase (out->phase is the new one) */
    int wait_done;           /* TEST_WAIT: the waited-for phase is complete */
} mbar_result;

/* Pure: computes *out from *in and *ev. Returns ERR_OK, ERR_FINDING (a misuse the ISA
 * leaves undefined; e says which and why) or ERR_BAD_INPUT (op out of range). */
int mbar_step(const mbar *in, const mbar_event *ev, mbar *out, mbar_result *r, err_info *e);

const char *mbar_op_name(mbar_op op);

/* cp.async commit groups of one thread (LDGSTS, sm_80+). A group is identified by the
 * sequence number commit gave it; wait_group N returns once at most N of the newest
 * groups are pending. */
#define MBAR_CPASYNC_MAX_GROUPS 64
typedef struct mbar_cpasync {
    uint32_t uncommitted;            /* copies issued since the last commit */
    uint32_t committed;              /* groups committed so far */
    uint32_t completed;              /* groups completed (in order: groups retire in commit order) */
} mbar_cpasync;

typedef enum mbar_cp_op { MBAR_CP_COPY = 0, MBAR_CP_COMMIT, MBAR_CP_GROUP_DONE, MBAR_CP_WAIT_GROUP } mbar_cp_op;

typedef struct mbar_cp_event {
    mbar_cp_op op;
    uint32_t n;                      /* WAIT_GROUP: N; COPY: bytes per thread (4, 8, 16) */
    int cg;                          /* COPY: .cg (16 bytes only) */
} mbar_cp_event;

/* wait_done is set for WAIT_GROUP when at most N groups are pending (N >= 8 treated as
 * 8, as __pipeline_wait_prior does). Findings: cpasync_size (not 4/8/16, or .cg not 16),
 * cpasync_nothing_committed (GROUP_DONE with no pending group). */
int mbar_cpasync_step(const mbar_cpasync *in, const mbar_cp_event *ev, mbar_cpasync *out, int *wait_done,
                      err_info *e);

#ifdef __cplusplus
}
#endif

#endif
