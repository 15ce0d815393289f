/* Sweep speed: the simulator's event rate in a sweep (simulated events per second of one
 * core; target >= 20 M on the full-grid example) and the scaling of the same sweep from
 * one thread to every CPU this process may use (target >= 1.9x on 2 cores). The rate is
 * per CPU second (the process's CPU time), so that other work on the machine does not
 * lower it; the scaling is wall time and needs the cores free: the load average is
 * printed with it, and the CPU time of both runs (what the threads add to the work, the
 * ceiling of the scaling on free cores). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "desc.h"
#include "sweep.h"

static double clock_s(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* the grid on `jobs` threads: wall and CPU seconds, simulated events */
static int run(const pipe_desc *d, const sweep_grid *g, unsigned jobs, double *wall, double *cpu, double *events)
{
    uint64_t *pts = malloc(g->npoints * sizeof *pts);
    sweep_row *rows = calloc(g->npoints, sizeof *rows);
    for (uint64_t i = 0; i < g->npoints; i++)
        pts[i] = i;
    sweep_run_opts o = {.jobs = jobs};
    err_info e = {0};
    double w0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    int rc = sweep_run(d, g, pts, g->npoints, &o, rows, &e);
    *wall = clock_s(CLOCK_MONOTONIC) - w0;
    *cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    *events = 0;
    for (uint64_t i = 0; i < g->npoints; i++)
        *events += (double)rows[i].sim_events;
    if (rc)
        fprintf(stderr, "bench_sweep: %s\n", e.detail);
    free(pts);
    sweep_rows_free(rows, g->npoints);
    return rc;
}

int main(void)
{
    pipe_desc d;
    sweep_grid g;
    err_info e = {0};
    if (desc_load("examples/full_grid.yaml", &d, &e) || sweep_grid_parse("stages=2..5 release_lag=0,1", &g, &e)) {
        fprintf(stderr, "bench_sweep: %s\n", e.detail);
        return 1;
    }
    unsigned cpus = sweep_cpus();
    double w1 = 1e30, c1 = 1e30, wn = 1e30, cn = 1e30, ev = 0;
    for (int rep = 0; rep < 2; rep++) {   /* the better of two runs of each */
        double w, c;
        if (run(&d, &g, 1, &w, &c, &ev))
            return 1;
        w1 = w < w1 ? w : w1;
        c1 = c < c1 ? c : c1;
        if (run(&d, &g, cpus, &w, &c, &ev))
            return 1;
        wn = w < wn ? w : wn;
        cn = c < cn ? c : cn;
    }
    double rate = ev / c1, scaling = w1 / wn;
    double load = 0;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &load) != 1)
            load = 0;
        fclose(f);
    }
    printf("bench_sweep: full_grid stages=2..5 release_lag=0,1 (%llu points, %.3g simulated events): %.1f M events per "
           "CPU second of one thread (target >= 20)\n", (unsigned long long)g.npoints, ev, rate / 1e6);
    printf("bench_sweep: 1 thread %.2f s wall, %u threads %.2f s wall: %.2fx (target >= 1.9x on 2 cores; load average "
           "%.2f before the runs ended)\n", w1, cpus, wn, scaling, load);
    /* the work the threads add (the wall scaling's ceiling on free cores) */
    printf("bench_sweep: CPU time 1 thread %.2f s, %u threads %.2f s (%+.1f%%)\n", c1, cpus, cn, 100 * (cn / c1 - 1));
    int met = rate >= 20e6 && (cpus < 2 || scaling >= 1.9);
    printf("bench_sweep: %s%s%s\n", met ? "targets met" : "TARGET MISSED: ", rate < 20e6 ? "event rate < 20 M/s " : "",
           cpus >= 2 && scaling < 1.9 ? "scaling < 1.9x" : "");
    sweep_grid_free(&g);
    return 0;
}
