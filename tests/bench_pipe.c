/* Pipeline simulator speed: discrete events per second on one core (target >= 10M/s)
 * and wall time of the full-grid example (132 CTAs, 12 warps, 512 iterations; target
 * < 1 s), with and without recording the trace. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "desc.h"
#include "pipe.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(void)
{
    pipe_desc d;
    err_info e = {0};
    if (desc_load("examples/full_grid.yaml", &d, &e)) {
        fprintf(stderr, "bench_pipe: %s\n", e.detail);
        return 1;
    }
    int fail = 0;
    char missed[256] = "";
    for (int with_trace = 0; with_trace < 2; with_trace++) {
        double best = 1e30;
        pipe_result r;
        for (int rep = 0; rep < 3; rep++) {
            trace t;
            trace_init(&t, TRACE_SRC_SIM);
            pipe_opts o = {.out = with_trace ? &t : NULL};
            double t0 = now_s();
            if (pipe_run(&d, &o, &r, &e)) {
                fprintf(stderr, "bench_pipe: %s\n", e.detail);
                return 1;
            }
            double dt = now_s() - t0;
            if (dt < best)
                best = dt;
            trace_free(&t);
        }
        double rate = r.sim_events / best;
        printf("bench_pipe: full_grid %s trace: %.3f s wall (target < 1 s), %llu sim events = %.1f M events/s "
               "(target >= 10), %llu trace events, predicted %.1f us\n",
               with_trace ? "with" : "without", best, (unsigned long long)r.sim_events, rate / 1e6,
               (unsigned long long)r.trace_events, r.kernel_ns / 1e3);
        char what[96] = "";
        if (best >= 1.0)
            snprintf(what, sizeof what, "wall %s trace %.3f s >= 1 s", with_trace ? "with" : "without", best);
        else if (rate < 10e6)
            snprintf(what, sizeof what, "%s trace %.1f M events/s < 10", with_trace ? "with" : "without", rate / 1e6);
        if (what[0]) {
            size_t len = strlen(missed);
            snprintf(missed + len, sizeof missed - len, "%s%s", len ? "; " : "", what);
        }
        if (best >= 1.0 || rate < 10e6)
            fail = 1;
    }
    printf("bench_pipe: %s%s\n", fail ? "TARGET MISSED: " : "targets met", missed);
    return 0;
}
