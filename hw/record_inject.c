/* record_inject: the recorder `tmahw record -- ./app` injects into an application
 * (libtmascope_inject.so, named by CUDA_INJECTION64_PATH: the CUDA driver loads it at
 * cuInit and calls InitializeInjection, as it does for Nsight's collectors). Needs no
 * change to the application: it subscribes to CUPTI's driver-API callbacks of kernel
 * launches (the runtime's launches come through them too), and for every launch of a
 * kernel whose module has the header's tmascope_rec (hw/record.cuh):
 *   enter: binds device buffers to it (hw/record_cuda.h);
 *   exit:  synchronizes, fetches the recording, takes the kernel's start and end from
 *          CUPTI activity records (matched by correlation id), and writes
 *          DIR/launch-NNNNNN.tmraw (hw/record.h), DIR = $TMASCOPE_RAW_DIR.
 * Every launch (recorded or not) is synchronized and its CUPTI time appended to
 * DIR/launches.tsv: seq, recorded (0/1), kernel, grid, block, start, end. The
 * %globaltimer/CUPTI offset is calibrated once, at the first launch's exit. Problems go
 * to DIR/recorder.log; the application's own calls are never failed by the recorder.
 * Environment: TMASCOPE_RAW_DIR (required), TMASCOPE_EVENTS (records per warp, default
 * REC_DEFAULT_EVENTS), TMASCOPE_KERNEL (record only kernels whose name contains it). */
#include <cuda.h>
#include <cupti.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "record_cuda.h"

#define MAX_ACT 4096

typedef struct act_rec {
    uint32_t corr;
    int ours;                  /* the calibration kernel (launched inside an application's launch callback) */
    uint64_t start, end;
} act_rec;

static struct {
    CUpti_SubscriberHandle sub;
    const char *dir, *filter;
    uint32_t want;
    uint64_t seq;
    int busy;                  /* inside our own driver calls */
    int calibrated;
    int64_t offset;
    rec_cuda buf;
    /* the launch in flight */
    int pending;               /* 1: recorded, 2: timed only */
    uint32_t corr;
    rec_launch meta;
    /* CUPTI kernel activity, newest last */
    act_rec act[MAX_ACT];
    uint32_t nact;
    uint64_t last_start, last_end;
    /* a runtime launch whose driver launch callback has not come (yet) */
    int rt_pending;
    uint64_t rt_unseen;
} S;

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_(const char *fmt, ...)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/recorder.log", S.dir);
    FILE *f = fopen(path, "a");
    if (!f)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fputc('\n', f);
    fclose(f);
}

static void CUPTIAPI buf_request(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *size = 1 << 20;
    *buffer = (uint8_t *)aligned_alloc(8, *size);
    *max_records = 0;
}

static void CUPTIAPI buf_complete(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
    (void)ctx;
    (void)stream;
    (void)size;
    CUpti_Activity *rec = NULL;
    while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
        if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || rec->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
            const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)rec;
            const int ours = k->name && !strcmp(k->name, REC_CALIB_KERNEL);
            S.act[S.nact % MAX_ACT] = (act_rec){k->correlationId, ours, k->start, k->end};
            S.nact++;
            S.last_start = k->start;
            S.last_end = k->end;
        }
    }
    free(buffer);
}

/* the times of the kernel launched with correlation id corr (after a synchronize); the
 * calibration kernels, launched inside that launch's callback, may carry its id */
static int times_of(uint32_t corr, uint64_t *start, uint64_t *end)
{
    cuptiActivityFlushAll(1);
    for (uint32_t k = 0; k < S.nact && k < MAX_ACT; k++) {
        const act_rec *a = &S.act[(S.nact - 1 - k) % MAX_ACT];
        if (a->corr == corr && !a->ours) {
            *start = a->start;
            *end = a->end;
            return 0;
        }
    }
    return -1;
}

static int last_kernel(void *user, uint64_t *start, uint64_t *end)
{
    (void)user;
    uint32_t before = S.nact;
    cuptiActivityFlushAll(1);
    if (S.nact == before)
        return -1;
    *start = S.last_start;
    *end = S.last_end;
    return 0;
}

/* The launch's function, grid and block, from the callback's parameters. */
static int launch_of(CUpti_CallbackId id, const void *params, CUfunction *f, uint32_t grid[3], uint32_t block[3])
{
    if (id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel || id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz) {
        const cuLaunchKernel_params *p = params;
        *f = p->f;
        grid[0] = p->gridDimX, grid[1] = p->gridDimY, grid[2] = p->gridDimZ;
        block[0] = p->blockDimX, block[1] = p->blockDimY, block[2] = p->blockDimZ;
        return 0;
    }
    if (id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx || id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz) {
        const cuLaunchKernelEx_params *p = params;
        const CUlaunchConfig *c = p->config;
        *f = p->f;
        grid[0] = c->gridDimX, grid[1] = c->gridDimY, grid[2] = c->gridDimZ;
        block[0] = c->blockDimX, block[1] = c->blockDimY, block[2] = c->blockDimZ;
        return 0;
    }
    return -1;
}

/* The symbol in the function's module (or, for the runtime's context-independent
 * loading, its library). 0, 1 none, -1 error. */
static int symbol_of(CUfunction f, CUdeviceptr *sym, char *msg, size_t msgsz)
{
    CUmodule mod = NULL;
    CUresult r = cuFuncGetModule(&mod, f);
    if (r == CUDA_SUCCESS && mod)
        return rec_cuda_symbol(mod, sym, msg, msgsz);
    CUlibrary lib = NULL;
    if (cuKernelGetLibrary(&lib, (CUkernel)f) == CUDA_SUCCESS && lib) {
        size_t size = 0;
        CUresult lr = cuLibraryGetGlobal(sym, &size, lib, "tmascope_rec");
        if (lr == CUDA_ERROR_NOT_FOUND)
            return 1;
        if (lr != CUDA_SUCCESS || size != sizeof(rec_dev)) {
            snprintf(msg, msgsz, "cuLibraryGetGlobal(tmascope_rec): error %d, %zu bytes", (int)lr, size);
            return -1;
        }
        return 0;
    }
    snprintf(msg, msgsz, "cuFuncGetModule: error %d", (int)r);
    return -1;
}

static void on_enter(CUpti_CallbackId id, const CUpti_CallbackData *cb)
{
    CUfunction f;
    uint32_t grid[3], block[3];
    if (launch_of(id, cb->functionParams, &f, grid, block))
        return;
    memset(&S.meta, 0, sizeof S.meta);
    S.meta.seq = S.seq++;
    snprintf(S.meta.kernel, sizeof S.meta.kernel, "%s", cb->symbolName ? cb->symbolName : "?");
    memcpy(S.meta.grid, grid, sizeof grid);
    memcpy(S.meta.block, block, sizeof block);
    S.meta.ctas = grid[0] * grid[1] * grid[2];
    S.meta.nwarps = (block[0] * block[1] * block[2] + 31) / 32;
    CUdevice dev;
    if (cuCtxGetDevice(&dev) != CUDA_SUCCESS || cuDeviceGetName(S.meta.gpu, sizeof S.meta.gpu, dev) != CUDA_SUCCESS)
        S.meta.gpu[0] = 0;
    cuDriverGetVersion(&S.meta.driver_version);
    S.corr = cb->correlationId;
    S.pending = 2;
    if (S.filter && !strstr(S.meta.kernel, S.filter))
        return;
    char msg[512];
    CUdeviceptr sym = 0;
    int rc = symbol_of(f, &sym, msg, sizeof msg);
    if (rc == 0) {
        uint32_t cap = rec_cap_for(S.meta.ctas, S.meta.nwarps, S.want);
        if (cap < S.want)
            logf_("launch %llu (%s): %u records per warp fit %llu bytes, not %u", (unsigned long long)S.meta.seq,
                  S.meta.kernel, cap, (unsigned long long)REC_MAX_BUFFER_BYTES, S.want);
        rc = rec_cuda_bind(&S.buf, sym, S.meta.ctas, S.meta.nwarps, cap, msg, sizeof msg);
        if (rc == 0)
            S.pending = 1;
    }
    if (rc < 0)
        logf_("launch %llu (%s): not recorded: %s", (unsigned long long)S.meta.seq, S.meta.kernel, msg);
}

static void on_exit_(void)
{
    char msg[512];
    CUresult r = cuCtxSynchronize();
    if (r != CUDA_SUCCESS) {
        logf_("launch %llu (%s): the kernel failed (error %d): not recorded", (unsigned long long)S.meta.seq,
              S.meta.kernel, (int)r);
        return;
    }
    if (!S.calibrated) {
        int64_t spread = 0;
        S.calibrated = 1;
        S.offset = REC_NO_OFFSET;
        if (rec_cuda_calibrate(last_kernel, NULL, &S.offset, &spread, msg, sizeof msg))
            logf_("%s: traces start at their first CTA", msg), S.offset = REC_NO_OFFSET;
        else
            logf_("calibration: CUPTI - globaltimer = %lld ns (spread %lld ns)", (long long)S.offset, (long long)spread);
    }
    uint64_t start = 0, end = 0;
    if (times_of(S.corr, &start, &end))
        logf_("launch %llu (%s): no CUPTI kernel record", (unsigned long long)S.meta.seq, S.meta.kernel);
    char path[4096];
    snprintf(path, sizeof path, "%s/launches.tsv", S.dir);
    FILE *f = fopen(path, "a");
    if (f) {
        fprintf(f, "%llu\t%d\t%s\t%u,%u,%u\t%u,%u,%u\t%llu\t%llu\n", (unsigned long long)S.meta.seq, S.pending == 1,
                S.meta.kernel, S.meta.grid[0], S.meta.grid[1], S.meta.grid[2], S.meta.block[0], S.meta.block[1],
                S.meta.block[2], (unsigned long long)start, (unsigned long long)end);
        fclose(f);
    }
    if (S.pending != 1)
        return;
    rec_launch l = S.meta;
    l.cupti_start = start;
    l.cupti_end = end;
    l.gt_offset = S.offset;
    if (rec_cuda_fetch(&S.buf, &l, msg, sizeof msg)) {
        logf_("launch %llu (%s): %s", (unsigned long long)l.seq, l.kernel, msg);
        return;
    }
    err_info e;
    snprintf(path, sizeof path, "%s/launch-%06llu.tmraw", S.dir, (unsigned long long)l.seq);
    if (rec_raw_write(path, &l, &e) != ERR_OK)
        logf_("launch %llu (%s): %s", (unsigned long long)l.seq, l.kernel, e.detail);
    rec_launch_free(&l);
}

static void CUPTIAPI on_api(void *user, CUpti_CallbackDomain dom, CUpti_CallbackId id, const void *data)
{
    (void)user;
    const CUpti_CallbackData *cb = data;
    if (dom == CUPTI_CB_DOMAIN_RUNTIME_API) {
        /* the runtime's launches reach the driver's launch callbacks; one that does not is
         * counted (and said in the log at the end) */
        if (cb->callbackSite == CUPTI_API_ENTER)
            S.rt_pending = 1;
        else if (S.rt_pending && !S.busy && S.rt_unseen++ == 0)
            logf_("a runtime launch (%s) came without a driver launch callback: not recorded",
                  cb->symbolName ? cb->symbolName : "?");
        return;
    }
    if (dom != CUPTI_CB_DOMAIN_DRIVER_API || S.busy)
        return;
    S.rt_pending = 0;
    S.busy = 1;
    if (cb->callbackSite == CUPTI_API_ENTER) {
        S.pending = 0;
        on_enter(id, cb);
    } else if (S.pending) {
        on_exit_();
        S.pending = 0;
    }
    S.busy = 0;
}

__attribute__((visibility("default"))) int InitializeInjection(void);
int InitializeInjection(void)
{
    S.dir = getenv("TMASCOPE_RAW_DIR");
    if (!S.dir || !S.dir[0])
        return 1;   /* not started by tmahw record: nothing to do */
    S.filter = getenv("TMASCOPE_KERNEL");
    if (S.filter && !S.filter[0])
        S.filter = NULL;
    const char *ev = getenv("TMASCOPE_EVENTS");
    long want = ev ? strtol(ev, NULL, 10) : 0;
    S.want = want > 0 && want <= (1l << 26) ? (uint32_t)want : REC_DEFAULT_EVENTS;
    CUptiResult r = cuptiActivityRegisterCallbacks(buf_request, buf_complete);
    if (r == CUPTI_SUCCESS)
        r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    if (r == CUPTI_SUCCESS)
        r = cuptiSubscribe(&S.sub, (CUpti_CallbackFunc)on_api, NULL);
    const CUpti_CallbackId ids[] = {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
                                    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
                                    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz};
    for (size_t k = 0; k < sizeof ids / sizeof ids[0] && r == CUPTI_SUCCESS; k++)
        r = cuptiEnableCallback(1, S.sub, CUPTI_CB_DOMAIN_DRIVER_API, ids[k]);
    const CUpti_CallbackId rt[] = {CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                                   CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
                                   CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
                                   CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060};
    for (size_t k = 0; k < sizeof rt / sizeof rt[0] && r == CUPTI_SUCCESS; k++)
        r = cuptiEnableCallback(1, S.sub, CUPTI_CB_DOMAIN_RUNTIME_API, rt[k]);
    if (r != CUPTI_SUCCESS) {
        const char *s = NULL;
        cuptiGetResultString(r, &s);
        logf_("CUPTI: %s: nothing is recorded", s ? s : "error");
        return 1;
    }
    logf_("recorder loaded: %u records per warp%s%s", S.want, S.filter ? ", kernels named *" : "",
          S.filter ? S.filter : "");
    return 1;
}
