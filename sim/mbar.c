#include "mbar.h"

#include <string.h>

static const char *const op_names[MBAR_OP_COUNT] = {
    "init", "inval", "arrive", "expect_tx", "arrive.expect_tx", "complete_tx", "arrive_drop", "try_wait.parity",
    "cp.async.mbarrier.arrive",
};

const char *mbar_op_name(mbar_op op)
{
    return (unsigned)op < MBAR_OP_COUNT ? op_names[op] : "unknown";
}

static int check_tx(int64_t tx, const mbar *in, const mbar_event *ev, err_info *e)
{
    if (tx > MBAR_TX_MAX || tx < -MBAR_TX_MAX)
        return err_set(e, ERR_FINDING, "mbar_tx_range",
                       "%s of %d bytes takes tx-count from %d to %lld, outside -(2^20-1)..2^20-1", mbar_op_name(ev->op),
                       ev->tx, in->tx, (long long)tx);
    return ERR_OK;
}

/* The arrival part shared by arrive, arrive.expect_tx, arrive_drop. */
static int arrive(mbar *m, const mbar_event *ev, uint32_t count, mbar_result *r, err_info *e)
{
    int rc = ERR_OK;
    /* PTX: try_wait.parity names the current or the immediately preceding phase only, so
     * phase p must be observed by a successful wait before phase p + 1 can complete, or a
     * waiter still looking for p finds the parity of p + 2 and waits a lap too long. The
     * reference sheet's form: at least one wait succeeds in each phase before any arrival
     * of the next one. Phase 0 has no predecessor to observe. */
    if (m->phase > 0 && m->waits_done_in_phase == 0)
        rc = err_set(e, ERR_FINDING, "mbar_phase_unobserved",
                     "%s on phase %u before any wait observed the completion of phase %u: a waiter for "
                     "phase %u that comes later sees the parity of phase %u and waits a whole lap",
                     mbar_op_name(ev->op), m->phase, m->phase - 1, m->phase - 1, m->phase + 1);
    if (ev->has_intended && ev->intended_phase != (int64_t)m->phase) {
        rc = err_set(e, ERR_FINDING, "mbar_arrival_early",
                     "%s meant for phase %lld landed on phase %u: the barrier completed phases without it "
                     "(its count %d is smaller than the arrivals per phase)",
                     mbar_op_name(ev->op), (long long)ev->intended_phase, m->phase, m->expected);
    }
    if ((int64_t)count > m->pending) {
        rc = err_set(e, ERR_FINDING, "mbar_over_arrival",
                     "%s of %u on phase %u with only %d pending arrival(s) (expected %d per phase, tx-count %d)",
                     mbar_op_name(ev->op), count, m->phase, m->pending, m->expected, m->tx);
        m->pending = 0;
    } else {
        m->pending -= (int32_t)count;
    }
    if (m->pending == 0 && m->tx == 0) {
        if (ev->no_complete) {
            rc = err_set(e, ERR_FINDING, "mbar_nocomplete_completed",
                         ".noComplete arrival completed phase %u (it must not be the last arrival)", m->phase);
        }
        m->phase++;
        m->pending = m->expected;
        m->waits_done_in_phase = 0;
        r->phase_completed = 1;
    }
    return rc;
}

int mbar_step(const mbar *in, const mbar_event *ev, mbar *out, mbar_result *r, err_info *e)
{
    mbar m = *in;
    mbar_result res = {0};
    int rc = ERR_OK;
    uint32_t count = ev->count ? ev->count : 1;
    if ((unsigned)ev->op >= MBAR_OP_COUNT)
        return err_set(e, ERR_BAD_INPUT, "mbar_op", "op %d (allowed 0..%d)", (int)ev->op, MBAR_OP_COUNT - 1);
    if (ev->op != MBAR_INIT && !m.live) {
        rc = err_set(e, ERR_FINDING, "mbar_uninitialised", "%s on a barrier that is not initialised",
                     mbar_op_name(ev->op));
        *out = m;
        if (r)
            *r = res;
        return rc;
    }
    switch (ev->op) {
    case MBAR_INIT:
        if (m.live) {
            rc = err_set(e, ERR_FINDING, "mbar_reinit_live",
                         "init(%u) of a live barrier (phase %u, %d pending): undefined, mbarrier.inval first",
                         ev->count, m.phase, m.pending);
        }
        if (ev->count < 1 || ev->count > MBAR_COUNT_MAX) {
            rc = err_set(e, ERR_FINDING, "mbar_count_range", "init count %u outside 1..2^20-1", ev->count);
        }
        memset(&m, 0, sizeof m);
        m.live = 1;
        m.pending = m.expected = (int32_t)ev->count;
        break;
    case MBAR_INVAL:
        memset(&m, 0, sizeof m);
        break;
    case MBAR_ARRIVE:
        if (count > MBAR_COUNT_MAX)
            rc = err_set(e, ERR_FINDING, "mbar_count_range", "arrive count %u outside 1..2^20-1", count);
        else
            rc = arrive(&m, ev, count, &res, e);
        break;
    case MBAR_EXPECT_TX:
        if ((rc = check_tx((int64_t)m.tx + ev->tx, in, ev, e)) == ERR_OK)
            m.tx += ev->tx;
        break;
    case MBAR_ARRIVE_EXPECT_TX:
        if ((rc = check_tx((int64_t)m.tx + ev->tx, in, ev, e)) == ERR_OK) {
            m.tx += ev->tx;
            rc = arrive(&m, ev, 1, &res, e);
        }
        break;
    case MBAR_COMPLETE_TX:
        if ((rc = check_tx((int64_t)m.tx - ev->tx, in, ev, e)) == ERR_OK) {
            if (ev->has_intended && ev->intended_phase != (int64_t)m.phase)
                rc = err_set(e, ERR_FINDING, "mbar_tx_wrong_phase",
                             "complete_tx of %d bytes meant for phase %lld landed on phase %u: the phase completed before "
                             "all its bytes arrived (expect_tx smaller than the bytes the copies deliver)",
                             ev->tx, (long long)ev->intended_phase, m.phase);
            m.tx -= ev->tx;
            if (m.pending == 0 && m.tx == 0) {
                m.phase++;
                m.pending = m.expected;
                m.waits_done_in_phase = 0;
                res.phase_completed = 1;
            }
        }
        break;
    case MBAR_ARRIVE_DROP:
        if ((int64_t)count > m.expected) {
            rc = err_set(e, ERR_FINDING, "mbar_drop_below_zero",
                         "arrive_drop of %u with only %d expected arrivals per phase", count, m.expected);
            m.expected = 0;
        } else {
            m.expected -= (int32_t)count;
        }
        {
            /* the drop below zero is the root cause: it stays the reported finding */
            int rc2 = arrive(&m, ev, count, &res, rc ? NULL : e);
            if (!rc)
                rc = rc2;
        }
        break;
    case MBAR_CPASYNC_ARRIVE:
        if (m.pending + 1 > MBAR_COUNT_MAX)
            rc = err_set(e, ERR_FINDING, "mbar_count_range", "cp.async.mbarrier.arrive takes pending past 2^20-1");
        else
            m.pending += 1;
        break;
    case MBAR_TEST_WAIT: {
        uint32_t parity = ev->parity & 1u;
        res.wait_done = (m.phase & 1u) != parity;
        if (ev->has_intended) {
            int64_t k = ev->intended_phase, c = m.phase;
            if (c >= k + 2) {
                rc = err_set(e, ERR_FINDING, "mbar_phase_aliasing",
                             "waiter for phase %lld (parity %u) arrives when the barrier is at phase %lld: it is %lld "
                             "phases behind and the parity %s",
                             (long long)k, parity, (long long)c, (long long)(c - k),
                             res.wait_done ? "happens to read as done" : "reads as NOT done: it waits for a later phase");
            } else if (((uint64_t)k & 1u) != parity) {
                rc = err_set(e, ERR_FINDING, "mbar_wrong_parity",
                             "waiter for phase %lld uses parity %u (that of phase %lld): at barrier phase %lld the wait %s",
                             (long long)k, parity, (long long)k + 1, (long long)c,
                             res.wait_done ? "passes before its phase completed" : "blocks on a phase it did not mean");
            }
        }
        if (res.wait_done)
            m.waits_done_in_phase++;
        break;
    }
    default:
        break;
    }
    *out = m;
    if (r)
        *r = res;
    return rc;
}

int mbar_cpasync_step(const mbar_cpasync *in, const mbar_cp_event *ev, mbar_cpasync *out, int *wait_done,
                      err_info *e)
{
    mbar_cpasync s = *in;
    int rc = ERR_OK;
    if (wait_done)
        *wait_done = 0;
    switch (ev->op) {
    case MBAR_CP_COPY:
        if (ev->n != 4 && ev->n != 8 && ev->n != 16)
            rc = err_set(e, ERR_FINDING, "cpasync_size", "cp.async of %u bytes (allowed 4, 8, 16)", ev->n);
        else if (ev->cg && ev->n != 16)
            rc = err_set(e, ERR_FINDING, "cpasync_size", "cp.async.cg of %u bytes (.cg allows 16 only)", ev->n);
        else
            s.uncommitted++;
        break;
    case MBAR_CP_COMMIT:
        /* An empty commit still creates a (trivially complete) group. */
        s.committed++;
        s.uncommitted = 0;
        break;
    case MBAR_CP_GROUP_DONE:
        if (s.completed >= s.committed)
            rc = err_set(e, ERR_FINDING, "cpasync_nothing_committed", "a group completed with none pending (%u committed)",
                         s.committed);
        else
            s.completed++;
        break;
    case MBAR_CP_WAIT_GROUP: {
        uint32_t n = ev->n > 8 ? 8 : ev->n;
        if (wait_done)
            *wait_done = s.committed - s.completed <= n;
        break;
    }
    default:
        rc = err_set(e, ERR_BAD_INPUT, "cpasync_op", "op %d (allowed 0..3)", (int)ev->op);
    }
    *out = s;
    return rc;
}
