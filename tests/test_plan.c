/* pipe_plan: the stage map, the roles, the reads with their bank scores and the hash of
 * a description, against what the description says and what derive computed. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "pipe_plan.h"
#include "pipe_state.h"

static void load(const char *name, pipe_desc *d)
{
    char path[128];
    snprintf(path, sizeof path, "examples/%s.yaml", name);
    err_info e = {0};
    cr_assert_eq(desc_load(path, d, &e), ERR_OK, "%s: %s", path, e.detail);
}

Test(plan, stage_map_of_two_tensors)
{
    pipe_desc d;
    load("ws4_tma", &d);
    cr_assert_geq(d.ntensors, 2);
    uint32_t stride = 0;
    for (uint32_t t = 0; t < d.ntensors; t++) {
        cr_assert_eq(d.tensors[t].smem_offset, stride, "tensor %u follows the slots before it", t);
        stride += (d.tensors[t].footprint_bytes + 1023u) / 1024u * 1024u;
    }
    cr_assert_eq(pipe_plan_stage_stride(&d), stride);
    cr_assert_eq(pipe_plan_stage_address(&d, 2, 1), d.smem_base + 2 * stride + d.tensors[1].smem_offset);
    cr_assert_eq(pipe_plan_slot_bytes(1), 1024u);
    cr_assert_eq(pipe_plan_slot_bytes(1024), 1024u);
    cr_assert_eq(pipe_plan_slot_bytes(1025), 2048u);
}

Test(plan, roles_per_mode)
{
    pipe_desc d;
    load("ws4_tma", &d);   /* warp_specialized: warp 0 produces */
    cr_assert_eq(pipe_plan_role(&d, 0), TRACE_ROLE_PRODUCER);
    cr_assert_eq(pipe_plan_role(&d, 1), TRACE_ROLE_CONSUMER);
    cr_assert_eq(pipe_plan_copier(&d, 0), 0);
    load("double_buffer", &d);   /* multistage: consumer rank 0 issues the TMA loads */
    cr_assert_eq(pipe_plan_role(&d, 0), TRACE_ROLE_MIXED);
    cr_assert_eq(pipe_plan_copier(&d, 0), 1);
    cr_assert_eq(pipe_plan_copier(&d, 1), 0);
    cr_assert_eq(pipe_plan_chunk_copies(&d), 0);
    load("cpasync_multistage", &d);   /* cp_async: every warp copies and consumes */
    cr_assert_eq(pipe_plan_role(&d, 0), TRACE_ROLE_MIXED);
    cr_assert_eq(pipe_plan_copier(&d, 0), 1);
    cr_assert_eq(pipe_plan_copier(&d, 3), 1);
    cr_assert_eq(pipe_plan_chunk_copies(&d), 1);
    pipe_plan p;
    err_info e = {0};
    cr_assert_eq(pipe_plan_build(&d, &p, &e), ERR_OK, "%s", e.detail);
    cr_assert_eq(p.nwarps, 4);
    cr_assert_eq(p.consumer_role, TRACE_ROLE_MIXED);
    cr_assert_eq(p.warp[2].consumer_rank, 2);
    pipe_plan_free(&p);
}

Test(plan, reads_add_up_to_the_derived_figures)
{
    const char *names[] = {"consumer_swizzle_128b", "consumer_swizzle_none", "cpasync_multistage"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        pipe_desc d;
        load(names[k], &d);
        pipe_plan p;
        err_info e = {0};
        cr_assert_eq(pipe_plan_build(&d, &p, &e), ERR_OK, "%s", e.detail);
        cr_assert_gt(p.nreads, 0, "%s", names[k]);
        uint64_t wf = 0, ideal = 0;
        for (uint32_t i = 0; i < p.nreads; i++) {
            wf += p.reads[i].wavefronts;
            ideal += p.reads[i].ideal;
            cr_assert_geq(p.reads[i].wavefronts, p.reads[i].ideal);
        }
        cr_assert_eq(wf * p.read_repeat / p.read_share, d.read_wavefronts, "%s", names[k]);
        cr_assert_eq(ideal * p.read_repeat / p.read_share, d.read_ideal_wavefronts, "%s", names[k]);
        pipe_plan_free(&p);
    }
    /* the unswizzled layout conflicts, the 128B-swizzled one does not */
    pipe_desc a, b;
    load("consumer_swizzle_128b", &a);
    load("consumer_swizzle_none", &b);
    cr_assert_gt(b.read_wavefronts, a.read_wavefronts);
}

Test(plan, hash_follows_the_meaning_not_the_name)
{
    pipe_desc a, b;
    load("double_buffer", &a);
    load("double_buffer", &b);
    snprintf(b.name, sizeof b.name, "other");
    snprintf(b.file, sizeof b.file, "elsewhere.yaml");
    cr_assert_eq(pipe_plan_hash(&a), pipe_plan_hash(&b));
    b.stages++;
    cr_assert_neq(pipe_plan_hash(&a), pipe_plan_hash(&b));
    load("double_buffer", &b);
    b.tensors[0].map.swizzle = (tm_swizzle)((int)b.tensors[0].map.swizzle ^ 1);
    cr_assert_neq(pipe_plan_hash(&a), pipe_plan_hash(&b));
}

/* The step function on its own: a barrier given its arrival count completes a phase with
 * the last arrival; a wait stopped by the watchdog completes nothing. */
Test(plan, pipe_state_steps_arrivals_and_waits)
{
    pipe_state s;
    pipe_state_init(&s, 1000, TRACE_SRC_HW);
    pipe_state_set_count(&s, 5, 2);
    trace_event rel = {.t_ns = 10, .kind = TRACE_RELEASE, .barrier = 5, .stage = 1, .phase = 0};
    pipe_state_step(&s, &rel, &s);
    cr_expect_eq(pipe_state_phase(&s, 5), 0);
    cr_expect_eq(pipe_state_arrivals(&s, 5), 1);
    rel.t_ns = 20;
    pipe_state next;
    pipe_state_step(&s, &rel, &next);
    cr_expect_eq(pipe_state_arrivals(&s, 5), 1, "the input state is left as it was");
    cr_expect_eq(pipe_state_phase(&next, 5), 1);
    cr_expect_eq(pipe_state_arrivals(&next, 5), 0);
    trace_event hang = {.t_ns = 30, .dur_ns = 500, .kind = TRACE_WAIT, .barrier = 1, .phase = 0,
                        .flags = TRACE_FLAG_FULL_BARRIER | TRACE_FLAG_TIMEOUT};
    pipe_state_step(&next, &hang, &next);
    cr_expect_eq(pipe_state_phase(&next, 1), 0);
    hang.flags = TRACE_FLAG_FULL_BARRIER;
    pipe_state_step(&next, &hang, &next);
    cr_expect_eq(pipe_state_phase(&next, 1), 1, "a wait that returned completed its phase");
    trace_event late = {.t_ns = 2000, .kind = TRACE_RELEASE, .barrier = 5, .phase = 1};
    pipe_state_step(&next, &late, &next);
    cr_expect_eq(pipe_state_arrivals(&next, 5), 0, "an event after the observation time is not stepped");
}
