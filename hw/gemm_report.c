/* gemm_report: the GEMM run's report and trace (see gemm_exec.h). */
#include "gemm_exec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipe_plan.h"
#include "rfile.h"
#include "wgmma.h"

/* 989 TFLOP/s: the dense bf16 / f16 tensor peak NVIDIA states for the H100 SXM and the
 * H200 (same SMs and clocks); fp8 doubles it. */
static double peak_tflops(const pipe_desc *d)
{
    return wg_dtype_bytes((wg_dtype)d->wgmma.dtype) == 1 ? 1979.0 : 989.0;
}

typedef struct conv {
    const pipe_desc *d;
    trace *tr;
    double ghz;
    uint32_t ref;                  /* the CTA's earliest clock */
    uint16_t cta;
    err_info *e;
} conv;

static int64_t ns_of(const conv *c, uint32_t t) { return (int64_t)((double)(int32_t)(t - c->ref) / c->ghz); }

static int push(conv *c, const GmEvHost *x, uint32_t warp, trace_kind kind, int64_t t, int64_t end, uint32_t bytes,
                uint8_t flags, uint8_t barrier, uint16_t phase)
{
    trace_event ev;
    memset(&ev, 0, sizeof ev);
    ev.t_ns = t;
    ev.dur_ns = end > t ? (uint32_t)(end - t) : 0;
    ev.iteration = x->iter;
    ev.bytes = bytes;
    ev.cta = c->cta;
    ev.sm = (uint8_t)(c->cta % 132);
    ev.warp = (uint8_t)warp;
    ev.role = warp < 4 ? TRACE_ROLE_PRODUCER : TRACE_ROLE_CONSUMER;
    ev.stage = x->stage;
    ev.kind = (uint8_t)kind;
    ev.barrier = barrier;
    ev.phase = phase;
    ev.source = TRACE_SRC_HW;
    ev.flags = flags;
    return trace_push(c->tr, &ev, c->e);
}

/* the end of the wait_group that retired the group issued at ev[i] (its iteration) */
static int64_t retired_at(const conv *c, const GmEvHost *ev, uint32_t n, uint32_t i)
{
    for (uint32_t j = i + 1; j < n; j++)
        if (ev[j].kind == GMEV_WAITG && ev[j].iter >= ev[i].iter + ev[j].aux)
            return ns_of(c, ev[j].t + ev[j].dur);
    return ns_of(c, ev[i].t + ev[i].dur);
}

static int convert_warp(conv *c, const GmEvHost *ev, uint32_t n, uint32_t warp)
{
    const pipe_desc *d = c->d;
    uint32_t S = d->stages;
    uint32_t group_bytes = pipe_gemm_instrs_per_stage(d) * 32u * (PIPE_WGMMA_M + d->wgmma.n);
    int rc = ERR_OK;
    for (uint32_t i = 0; i < n && rc == ERR_OK; i++) {
        const GmEvHost *x = &ev[i];
        int64_t t = ns_of(c, x->t), end = ns_of(c, x->t + x->dur);
        uint16_t ph = (uint16_t)(x->iter / S);
        switch (x->kind) {
        case GMEV_LOAD:
            rc = push(c, x, warp, TRACE_TMA_ISSUE, t, t, d->copy_bytes, TRACE_FLAG_FULL_BARRIER, x->stage, ph);
            break;
        case GMEV_WAIT_EMPTY:
            rc = push(c, x, warp, TRACE_WAIT, t, end, 0, 0, (uint8_t)(S + x->stage), ph ? ph - 1 : 0);
            break;
        case GMEV_WAIT_FULL:
            if (x->aux)
                rc = push(c, x, warp, TRACE_WAIT, t, end, 0, TRACE_FLAG_FULL_BARRIER, x->stage, ph);
            break;
        case GMEV_WGMMA:
            rc = push(c, x, warp, TRACE_WGMMA, t, retired_at(c, ev, n, i), group_bytes, 0, 0, 0);
            break;
        case GMEV_WAITG:
            rc = push(c, x, warp, TRACE_WGMMA_WAIT, t, end, 0, 0, 0, x->aux);
            break;
        case GMEV_RELEASE:
            rc = push(c, x, warp, TRACE_RELEASE, t, t, 0, 0, (uint8_t)(S + x->stage), ph);
            break;
        case GMEV_EPI:
            rc = push(c, x, warp, TRACE_TMA_STORE, t, end, PIPE_WGMMA_M * d->gemm.bn * 2u, 0, 0, 0);
            break;
        default:
            break;
        }
    }
    return rc;
}

int gemm_events_to_trace(const pipe_desc *d, const GmEvHost *ev, const uint32_t *evn, uint32_t ctas, uint32_t nwarps,
                         uint32_t cap, double clock_ghz, trace *tr, err_info *e)
{
    for (uint32_t cta = 0; cta < ctas; cta++) {
        conv c = {.d = d, .tr = tr, .ghz = clock_ghz > 0 ? clock_ghz : 1.0, .cta = (uint16_t)cta, .e = e};
        int have = 0;
        for (uint32_t w = 0; w < nwarps; w++) {
            const GmEvHost *x = ev + ((size_t)cta * nwarps + w) * cap;
            uint32_t n = evn[cta * nwarps + w] < cap ? evn[cta * nwarps + w] : cap;
            if (n && (!have || (int32_t)(x[0].t - c.ref) < 0)) {
                c.ref = x[0].t;
                have = 1;
            }
        }
        for (uint32_t w = 0; w < nwarps; w++) {
            uint32_t n = evn[cta * nwarps + w] < cap ? evn[cta * nwarps + w] : cap;
            int rc = convert_warp(&c, ev + ((size_t)cta * nwarps + w) * cap, n, w);
            if (rc != ERR_OK)
                return rc;
        }
    }
    trace_sort(tr);
    return ERR_OK;
}

int gemm_write_trace(const pipe_desc *d, const gemm_run_opts *o, const gemm_report *r, const GmEvHost *ev,
                     const uint32_t *evn, uint32_t ctas, uint32_t nwarps, uint32_t cap)
{
    trace tr;
    trace_init(&tr, TRACE_SRC_HW);
    err_info e = {0};
    int rc = gemm_events_to_trace(d, ev, evn, ctas, nwarps, cap, r->clock_ghz, &tr, &e);
    snprintf(tr.gpu, sizeof tr.gpu, "%.63s", r->gpu);
    snprintf(tr.name, sizeof tr.name, "%.63s", d->name);
    snprintf(tr.note, sizeof tr.note, "driver %d.%d, %s, %u of %u CTAs traced, cycles at %.3f GHz",
             r->driver_version / 1000, (r->driver_version % 1000) / 10, r->date, ctas, d->ctas, r->clock_ghz);
    tr.kernel_ns = (int64_t)r->rec_ns;
    size_t len = 0;
    int rerr = 0;
    char *text = rc == ERR_OK ? rfile_load(o->desc_path, DESC_MAX_FILE_BYTES, &len, &rerr) : NULL;
    if (text)
        rc = trace_set_desc(&tr, text, len, pipe_plan_hash(d), &e);
    free(text);
    if (rc == ERR_OK)
        rc = trace_write(o->out_path, &tr, &e);
    if (rc != ERR_OK)
        fprintf(stderr, "tmahw run: %s: %s\n", o->out_path, e.detail);
    trace_free(&tr);
    return rc;
}

static double tflops(const pipe_desc *d, double ns)
{
    return ns > 0 ? 2.0 * d->gemm.m * d->gemm.n * (double)d->gemm.k / ns / 1e3 : 0;
}

static void print_json(const gemm_report *r)
{
    const pipe_desc *d = r->d;
    double pk = peak_tflops(d);
    printf("{\"name\":\"%s\",\"gpu\":\"%s\",\"driver\":%d,\"date\":\"%s\",\"m\":%u,\"n\":%u,\"k\":%u,\"dtype\":\"%s\",", d->name,
           r->gpu, r->driver_version, r->date, d->gemm.m, d->gemm.n, d->gemm.k, wg_dtype_name((wg_dtype)d->wgmma.dtype));
    printf("\"kernel_ns\":%.0f,\"tflops\":%.1f,\"peak_pct\":%.1f,\"mismatches\":%llu,\"recorded_mismatches\":%llu,", r->kernel_ns,
           tflops(d, r->kernel_ns), 100 * tflops(d, r->kernel_ns) / pk, r->mismatches, r->rec_mismatches);
    printf("\"reference_host_mismatches\":%d,\"cublaslt_ns\":%.0f,\"cublaslt_tflops\":%.1f,\"cublaslt_mismatches\":", r->host_bad,
           r->blas_ns, tflops(d, r->blas_ns));
    if (r->blas_mismatches == ~0ull)
        printf("null,");
    else
        printf("%llu,", r->blas_mismatches);
    printf("\"kernel_event_ns\":%.0f,\"kernel_timing\":\"%s\",", r->event_ns, r->cupti ? "cupti" : "cudaEvent");
    printf("\"recorded_event_ns\":%.0f,", r->rec_ns);   /* the one recorded launch, cudaEvent */
    printf("\"vs_cublaslt\":%.3f,\"reps\":%d,", r->blas_ns > 0 ? r->blas_ns / r->event_ns : 0, r->reps);
    printf("\"correct\":%s,\"hang\":null,",
           r->mismatches || r->rec_mismatches || r->host_bad ? "false" : "true");
    printf("\"kernel_sm_ghz\":%.4f,", r->cupti_sm_ghz);
    printf("\"sm_ghz\":%.4f,\"recorded_sm_ghz\":%.4f,\"cta_start_spread_ns\":%.0f,\"late_ctas\":%u,\"resident_clusters\":%d,",
           r->sm_ghz, r->rec_sm_ghz, r->start_spread_ns, r->late_ctas, r->resident_clusters);
    printf("\"cta_ns_p50\":%.0f,\"ctas_span_ns\":%.0f,", r->cta_ns_p50, r->ctas_span_ns);
    printf("\"findings\":[");
    for (uint32_t i = 0; i < r->nfindings; i++)
        printf("%s{\"rule\":\"%s\",\"detail\":\"%s\"}", i ? "," : "", r->findings[i].rule, r->findings[i].detail);
    printf("]}\n");
}

void gemm_print_report(const gemm_report *r, const char *fmt)
{
    const pipe_desc *d = r->d;
    double pk = peak_tflops(d);
    unsigned long long total = (unsigned long long)d->gemm.m * d->gemm.n;
    if (fmt && !strcmp(fmt, "json")) {
        print_json(r);
        return;
    }
    if (fmt && !strcmp(fmt, "csv")) {
        printf("name,gpu,m,n,k,dtype,kernel_ns,tflops,peak_pct,mismatches,cublaslt_ns,cublaslt_tflops,vs_cublaslt\n");
        printf("%s,%s,%u,%u,%u,%s,%.0f,%.1f,%.1f,%llu,%.0f,%.1f,%.3f\n", d->name, r->gpu, d->gemm.m, d->gemm.n, d->gemm.k,
               wg_dtype_name((wg_dtype)d->wgmma.dtype), r->kernel_ns, tflops(d, r->kernel_ns),
               100 * tflops(d, r->kernel_ns) / pk, r->mismatches, r->blas_ns, tflops(d, r->blas_ns),
               r->blas_ns > 0 ? r->blas_ns / r->event_ns : 0);
        return;
    }
    printf("%s: %ux%ux%u %s -> bf16 (f32 accumulate), tile %ux%ux%u, %u stages, %u consumer warpgroups, wgmma m64n%uk%u, "
           "wait_group %u, release lag %u, %u CTAs, epilogue %s\n",
           d->name, d->gemm.m, d->gemm.n, d->gemm.k, wg_dtype_name((wg_dtype)d->wgmma.dtype), d->gemm.bm, d->gemm.bn,
           d->gemm.bk, d->stages, d->gemm.consumer_groups, d->wgmma.n, d->wgmma.k, d->wgmma.wait, d->release_lag, d->ctas,
           pipe_epilogue_name(d->gemm.epilogue));
    printf("%s, driver %d.%d, %s, median of %d launches each (cudaEvent), alternating\n", r->gpu, r->driver_version / 1000,
           (r->driver_version % 1000) / 10, r->date, r->reps);
    printf("  %-18s %10s %9s %8s  %s\n", "kernel", "time(us)", "TFLOP/s", "%peak", "wrong elements");
    printf("  %-18s %10.1f %9.1f %7.1f%%  %llu of %llu\n", "generated", r->event_ns / 1e3, tflops(d, r->event_ns),
           100 * tflops(d, r->event_ns) / pk, r->mismatches, total);
    if (r->blas_ns > 0)
        printf("  %-18s %10.1f %9.1f %7.1f%%  %llu of %llu\n", "cuBLASLt", r->blas_ns / 1e3, tflops(d, r->blas_ns),
               100 * tflops(d, r->blas_ns) / pk, r->blas_mismatches, total);
    else
        printf("  cuBLASLt: not run: %s\n", r->blas_why);
    printf("  %-18s %10.1f %9s %8s  %llu of %llu\n", "generated, traced", r->rec_ns / 1e3, "", "", r->rec_mismatches, total);
    if (r->blas_ns > 0)
        printf("generated / cuBLASLt throughput: %.1f%%\n", 100 * r->blas_ns / r->event_ns);
    if (r->cupti)
        printf("the generated kernel's own execution (CUPTI kernel records, median): %.1f us\n", r->kernel_ns / 1e3);
    printf("check: operands are integers -2..2, so f32 sums are exact and C must equal the exact sum rounded to bf16 "
           "(tolerance 0); the reference GEMM agreed with the host's sums at %d of 4096 sampled elements\n",
           4096 - r->host_bad);
    printf("peak: %.0f TFLOP/s dense (%s)\n", pk, pk > 1000 ? "fp8" : "bf16");
    if (r->sm_ghz > 0)
        printf("SM clock in the generated kernel (clock64 over globaltimer per CTA, median): %.3f GHz (traced launch %.3f); "
               "CTAs started within %.1f us, %u after the first had ended\n",
               r->sm_ghz, r->rec_sm_ghz, r->start_spread_ns / 1e3, r->late_ctas);
    if (r->cta_ns_p50 > 0)
        printf("CTAs in the CUPTI-timed launches (globaltimer, medians): the median CTA %.2f us, first start to last "
               "end %.2f us of the kernel's %.2f us\n",
               r->cta_ns_p50 / 1e3, r->ctas_span_ns / 1e3, r->kernel_ns / 1e3);
    if (d->cluster > 1)
        printf("resident clusters of %u (cuOccupancyMaxActiveClusters): %d for a grid of %u\n", d->cluster,
               r->resident_clusters, d->ctas / d->cluster);
    for (uint32_t i = 0; i < r->nfindings; i++)
        printf("finding %s: %s\n", r->findings[i].rule, r->findings[i].detail);
}
