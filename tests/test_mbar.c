/* mbarrier rules of the PTX ISA (its mbarrier section), one test each. */
#include <criterion/criterion.h>
#include <string.h>

#include "mbar.h"

static mbar m;
static mbar_result r;
static err_info e;

static int step(mbar_op op, uint32_t count, int32_t tx)
{
    mbar_event ev = {.op = op, .count = count, .tx = tx};
    memset(&e, 0, sizeof e);
    return mbar_step(&m, &ev, &m, &r, &e);
}

static int wait_parity(uint32_t parity)
{
    mbar_event ev = {.op = MBAR_TEST_WAIT, .parity = parity};
    cr_assert_eq(mbar_step(&m, &ev, &m, &r, &e), ERR_OK);
    return r.wait_done;
}

static int wait_intended(int64_t phase, uint32_t parity)
{
    mbar_event ev = {.op = MBAR_TEST_WAIT, .parity = parity, .has_intended = 1, .intended_phase = phase};
    memset(&e, 0, sizeof e);
    return mbar_step(&m, &ev, &m, &r, &e);
}

static void init(uint32_t count)
{
    memset(&m, 0, sizeof m);
    cr_assert_eq(step(MBAR_INIT, count, 0), ERR_OK);
}

Test(mbar, init_sets_phase0_pending_expected)
{
    init(3);
    cr_assert_eq(m.phase, 0);
    cr_assert_eq(m.pending, 3);
    cr_assert_eq(m.expected, 3);
    cr_assert_eq(m.tx, 0);
}

Test(mbar, phase_completes_on_last_arrival_and_reloads_pending)
{
    init(2);
    cr_assert_eq(step(MBAR_ARRIVE, 1, 0), ERR_OK);
    cr_assert_eq(r.phase_completed, 0);
    cr_assert_eq(m.pending, 1);
    cr_assert_eq(step(MBAR_ARRIVE, 1, 0), ERR_OK);
    cr_assert_eq(r.phase_completed, 1);
    cr_assert_eq(m.phase, 1);
    cr_assert_eq(m.pending, 2);
}

Test(mbar, arrive_count_greater_than_one)
{
    init(4);
    cr_assert_eq(step(MBAR_ARRIVE, 4, 0), ERR_OK);
    cr_assert_eq(m.phase, 1);
}

Test(mbar, phase_waits_for_tx_after_arrivals)
{
    init(1);
    cr_assert_eq(step(MBAR_ARRIVE_EXPECT_TX, 0, 16384), ERR_OK);
    cr_assert_eq(m.pending, 0);
    cr_assert_eq(m.tx, 16384);
    cr_assert_eq(m.phase, 0, "pending 0 but tx 16384 outstanding: no completion");
    cr_assert_eq(step(MBAR_COMPLETE_TX, 0, 8192), ERR_OK);
    cr_assert_eq(m.phase, 0);
    cr_assert_eq(step(MBAR_COMPLETE_TX, 0, 8192), ERR_OK);
    cr_assert_eq(r.phase_completed, 1);
    cr_assert_eq(m.phase, 1);
}

Test(mbar, complete_tx_before_expect_tx_goes_negative)
{
    init(1);
    cr_assert_eq(step(MBAR_COMPLETE_TX, 0, 4096), ERR_OK);
    cr_assert_eq(m.tx, -4096);
    cr_assert_eq(m.phase, 0, "pending still 1");
    cr_assert_eq(step(MBAR_ARRIVE_EXPECT_TX, 0, 4096), ERR_OK);
    cr_assert_eq(m.phase, 1);
    cr_assert_eq(m.tx, 0);
}

Test(mbar, expect_tx_alone_does_not_arrive)
{
    init(1);
    cr_assert_eq(step(MBAR_EXPECT_TX, 0, 128), ERR_OK);
    cr_assert_eq(m.pending, 1);
    cr_assert_eq(m.tx, 128);
}

Test(mbar, tx_range_is_20_bits_signed)
{
    init(1);
    cr_assert_eq(step(MBAR_EXPECT_TX, 0, (1 << 20) - 1), ERR_OK);
    cr_assert_eq(step(MBAR_EXPECT_TX, 0, 1), ERR_FINDING);
    cr_assert_str_eq(e.rule, "mbar_tx_range");
    init(1);
    cr_assert_eq(step(MBAR_COMPLETE_TX, 0, (1 << 20) - 1), ERR_OK);
    cr_assert_eq(step(MBAR_COMPLETE_TX, 0, 1), ERR_FINDING);
    cr_assert_str_eq(e.rule, "mbar_tx_range");
}

Test(mbar, count_range)
{
    memset(&m, 0, sizeof m);
    cr_assert_eq(step(MBAR_INIT, 0, 0), ERR_FINDING);
    cr_assert_str_eq(e.rule, "mbar_count_range");
    memset(&m, 0, sizeof m);
    cr_assert_eq(step(MBAR_INIT, 1u << 20, 0), ERR_FINDING);
    memset(&m, 0, sizeof m);
    cr_assert_eq(step(MBAR_INIT, (1u << 20) - 1, 0), ERR_OK);
}

Test(mbar, over_arrival_while_tx_outstanding)
{
    init(1);
    cr_assert_eq(step(MBAR_ARRIVE_EXPECT_TX, 0, 1024), ERR_OK); /* pending 0, tx 1024 */
    cr_assert_eq(step(MBAR_ARRIVE, 1, 0), ERR_FINDING);
    cr_assert_str_eq(e.rule, "mbar_over_arrival");
    cr_assert(strstr(e.detail, "0 pending"), "%s", e.detail);
}

Test(mbar, over_arrival_with_count)
{
    init(2);
    cr_assert_eq(step(MBAR_ARRIVE, 3, 0), ERR_FINDING);
    cr_assert_str_eq(e.rule, "mbar_over_arrival");
}

Test(mbar, reinit_of_live_barrier_is_reported_inval_makes_it_legal)
{
    init(1);
    cr_assert_eq(step(MBAR_INIT, 2, 0), ERR_FINDING);
    cr_assert_str_eq(e.rule, "mbar_reinit_live");
    cr_assert_eq(step(MBAR_INVAL, 0, 0), ERR_OK);
    cr_assert_eq(step(MBAR_INIT, 2, 0), ERR_OK);
    cr_assert_eq(m.expected, 2);
}

Test(mbar, use_before_init)
{
    memset(&m, 0, sizeof m);
    cr_assert_eq(step(MBAR_ARRIVE, 1, 0), ERR_FINDING);
    cr_assert_str_eq(e.rule, "mbar_uninitialised");
}

Test(mbar, arrive_drop_lowers_expected_for_later_phases)
{
    init(3);
    cr_assert_eq(step(MBAR_ARRIVE_DROP, 1, 0), ERR_OK);
    cr_assert_eq(m.pending, 2);
    cr_assert_eq(m.expected, 2);
    cr_assert_eq(step(MBAR_ARRIVE, 2, 0), ERR_OK);
    cr_assert_eq(m.phase, 1);
    cr_assert_eq(m.pending, 2, "next phase starts with the reduced count");
}

Test(mbar, nocomplete_arrival_must_not_complete)
{
    init(1);
    mbar_event ev = {.op = MBAR_ARRIVE, .count = 1, .no_complete = 1};
    cr_assert_eq(mbar_step(&m, &ev, &m, &r, &e), ERR_FINDING);
    cr_assert_str_eq(e.rule, "mbar_nocomplete_completed");
}

Test(mbar, try_wait_parity_semantics)
{
    init(1);
    /* phase 0 running: parity 0 not done; parity 1 (the phase before) done */
    cr_assert_eq(wait_parity(0), 0);
    cr_assert_eq(wait_parity(1), 1);
    step(MBAR_ARRIVE, 1, 0);
    cr_assert_eq(wait_parity(0), 1);
    cr_assert_eq(wait_parity(1), 0);
}

Test(mbar, cpasync_arrive_without_noinc_is_net_zero)
{
    init(2);
    cr_assert_eq(step(MBAR_CPASYNC_ARRIVE, 0, 0), ERR_OK);
    cr_assert_eq(m.pending, 3);
    cr_assert_eq(step(MBAR_ARRIVE, 1, 0), ERR_OK); /* the copies landed */
    cr_assert_eq(m.pending, 2, "net zero on the count");
    cr_assert_eq(m.phase, 0);
}

Test(mbar, cpasync_noinc_arrivals_count_towards_init)
{
    init(2); /* .noinc: the init count includes the two cp.async arrivals */
    step(MBAR_ARRIVE, 1, 0);
    step(MBAR_ARRIVE, 1, 0);
    cr_assert_eq(m.phase, 1);
}

Test(mbar, waiter_two_phases_behind_is_aliasing)
{
    init(1);
    step(MBAR_ARRIVE, 1, 0);
    step(MBAR_ARRIVE, 1, 0); /* barrier now at phase 2 */
    cr_assert_eq(wait_intended(0, 0), ERR_FINDING);
    cr_assert_str_eq(e.rule, "mbar_phase_aliasing");
    cr_assert_eq(r.wait_done, 0, "parity 0 at phase 2 reads as not done: the waiter would hang");
    cr_assert_eq(wait_intended(1, 1), ERR_OK, "one phase behind is legal");
    cr_assert_eq(r.wait_done, 1);
}

Test(mbar, wrong_parity_passes_early)
{
    init(1);
    cr_assert_eq(wait_intended(0, 1), ERR_FINDING);
    cr_assert_str_eq(e.rule, "mbar_wrong_parity");
    cr_assert_eq(r.wait_done, 1, "parity 1 on phase 0 reads as done before any data arrived");
}

Test(mbar, producer_start_phase_minus_one_passes)
{
    init(2);
    /* CUTLASS producer: first pass over the empty barrier waits parity 1 */
    cr_assert_eq(wait_intended(-1, 1), ERR_OK);
    cr_assert_eq(r.wait_done, 1);
}

Test(mbar, arrival_meant_for_a_later_phase)
{
    init(1); /* count 1, but two consumers arrive each phase */
    mbar_event ev = {.op = MBAR_ARRIVE, .count = 1, .has_intended = 1, .intended_phase = 0};
    cr_assert_eq(mbar_step(&m, &ev, &m, &r, &e), ERR_OK);
    cr_assert_eq(mbar_step(&m, &ev, &m, &r, &e), ERR_FINDING);
    cr_assert_str_eq(e.rule, "mbar_arrival_early");
}

Test(mbar, step_is_pure)
{
    init(1);
    mbar before = m, out;
    mbar_event ev = {.op = MBAR_ARRIVE, .count = 1};
    mbar_step(&before, &ev, &out, &r, &e);
    cr_assert_eq(before.phase, 0);
    cr_assert_eq(before.pending, 1);
    cr_assert_eq(out.phase, 1);
}

Test(mbar, cpasync_groups_wait_prior)
{
    mbar_cpasync s = {0};
    int done;
    mbar_cp_event cp = {.op = MBAR_CP_COPY, .n = 16}, commit = {.op = MBAR_CP_COMMIT};
    for (int g = 0; g < 3; g++) {
        cr_assert_eq(mbar_cpasync_step(&s, &cp, &s, NULL, &e), ERR_OK);
        cr_assert_eq(mbar_cpasync_step(&s, &commit, &s, NULL, &e), ERR_OK);
    }
    mbar_cp_event w1 = {.op = MBAR_CP_WAIT_GROUP, .n = 1}, w2 = {.op = MBAR_CP_WAIT_GROUP, .n = 2},
                  gd = {.op = MBAR_CP_GROUP_DONE};
    mbar_cpasync_step(&s, &w2, &s, &done, &e);
    cr_assert_eq(done, 0, "3 pending > 2");
    mbar_cpasync_step(&s, &gd, &s, NULL, &e);
    mbar_cpasync_step(&s, &w2, &s, &done, &e);
    cr_assert_eq(done, 1);
    mbar_cpasync_step(&s, &w1, &s, &done, &e);
    cr_assert_eq(done, 0);
    mbar_cp_event w9 = {.op = MBAR_CP_WAIT_GROUP, .n = 9};
    mbar_cpasync_step(&s, &w9, &s, &done, &e);
    cr_assert_eq(done, 1, "N >= 8 treated as 8");
    mbar_cp_event bad = {.op = MBAR_CP_COPY, .n = 8, .cg = 1};
    cr_assert_eq(mbar_cpasync_step(&s, &bad, &s, NULL, &e), ERR_FINDING);
    mbar_cp_event bad2 = {.op = MBAR_CP_COPY, .n = 12};
    cr_assert_eq(mbar_cpasync_step(&s, &bad2, &s, NULL, &e), ERR_FINDING);
}

Test(mbar, complete_tx_landing_on_a_later_phase)
{
    init(1);
    step(MBAR_ARRIVE_EXPECT_TX, 0, 16384);           /* expect one box */
    step(MBAR_COMPLETE_TX, 0, 16384);                /* phase 0 completes */
    mbar_event ev = {.op = MBAR_COMPLETE_TX, .tx = 16384, .has_intended = 1, .intended_phase = 0};
    cr_assert_eq(mbar_step(&m, &ev, &m, &r, &e), ERR_FINDING, "second box of phase 0 lands on phase 1");
    cr_assert_str_eq(e.rule, "mbar_tx_wrong_phase");
    cr_assert_eq(m.tx, -16384);
}

/* Reference sheet (PTX try_wait.parity names only the current or the immediately preceding
 * phase): at least one wait must succeed in each phase before any arrival of the next. */
Test(mbar, arrival_before_the_completed_phase_was_observed)
{
    init(1);
    cr_assert_eq(step(MBAR_ARRIVE, 1, 0), ERR_OK, "phase 0 has no predecessor to observe");
    cr_assert_eq(m.phase, 1);
    cr_assert_eq(step(MBAR_ARRIVE, 1, 0), ERR_FINDING, "nobody saw phase 0 complete");
    cr_assert_str_eq(e.rule, "mbar_phase_unobserved");
    cr_assert_eq(m.phase, 2, "the barrier still advances as the hardware would");
    /* the consequence: a waiter for phase 0 now reads parity 0 as NOT done (a lap) */
    cr_assert_eq(wait_parity(0), 0);
}

Test(mbar, one_successful_wait_makes_the_next_arrival_legal)
{
    init(1);
    step(MBAR_ARRIVE, 1, 0);
    cr_assert_eq(wait_parity(1), 0, "parity of the running phase 1: not done, does not count");
    cr_assert_eq(wait_parity(0), 1, "phase 0 observed");
    cr_assert_eq(step(MBAR_ARRIVE, 1, 0), ERR_OK);
    cr_assert_eq(m.phase, 2);
    /* the observation is per phase: phase 1 completed unobserved */
    cr_assert_eq(step(MBAR_ARRIVE, 1, 0), ERR_FINDING);
    cr_assert_str_eq(e.rule, "mbar_phase_unobserved");
}

Test(mbar, tx_only_steps_are_not_arrivals_for_the_observation_rule)
{
    init(1);
    step(MBAR_ARRIVE, 1, 0);   /* phase 0 complete, nobody looked */
    cr_assert_eq(step(MBAR_EXPECT_TX, 0, 128), ERR_OK);
    cr_assert_eq(step(MBAR_COMPLETE_TX, 0, 128), ERR_OK);
    cr_assert_eq(m.phase, 1, "tx back to zero with an arrival still pending: no completion");
}

Test(mbar, arrive_drop_below_zero_expected)
{
    init(1);
    mbar_event ev = {.op = MBAR_ARRIVE_DROP, .count = 2};
    memset(&e, 0, sizeof e);
    cr_assert_eq(mbar_step(&m, &ev, &m, &r, &e), ERR_FINDING, "expected 1 cannot drop by 2");
    cr_assert_str_eq(e.rule, "mbar_drop_below_zero");
}

Test(mbar, cpasync_rule_names)
{
    mbar_cpasync s = {0};
    mbar_cp_event done = {.op = MBAR_CP_GROUP_DONE};
    memset(&e, 0, sizeof e);
    cr_assert_eq(mbar_cpasync_step(&s, &done, &s, NULL, &e), ERR_FINDING, "no group committed");
    cr_assert_str_eq(e.rule, "cpasync_nothing_committed");
    /* cp.async copies 4, 8 or 16 bytes; .cg only 16 */
    uint32_t sizes[] = {1, 2, 32};
    for (int i = 0; i < 3; i++) {
        mbar_cp_event cp = {.op = MBAR_CP_COPY, .n = sizes[i]};
        cr_assert_eq(mbar_cpasync_step(&s, &cp, &s, NULL, &e), ERR_FINDING, "%u bytes", sizes[i]);
        cr_assert_str_eq(e.rule, "cpasync_size");
    }
    mbar_cp_event cg4 = {.op = MBAR_CP_COPY, .n = 4, .cg = 1};
    cr_assert_eq(mbar_cpasync_step(&s, &cg4, &s, NULL, &e), ERR_FINDING);
    cr_assert_str_eq(e.rule, "cpasync_size");
    uint32_t ok[] = {4, 8, 16};
    for (int i = 0; i < 3; i++) {
        mbar_cp_event cp = {.op = MBAR_CP_COPY, .n = ok[i]};
        cr_assert_eq(mbar_cpasync_step(&s, &cp, &s, NULL, &e), ERR_OK, "%u bytes", ok[i]);
    }
    cr_assert_eq(s.uncommitted, 3);
}
