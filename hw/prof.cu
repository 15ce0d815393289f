/* prof: the CUPTI Range Profiler flow (see prof.h). */
#include "prof.h"

#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HW_PROF_MAX_METRICS 64

struct hw_prof {
    CUpti_Profiler_Host_Object *host;
    CUpti_RangeProfiler_Object *rp;
    uint8_t *avail, *config, *cdata;
    size_t config_size, cdata_size;
    const char *chip;
    const char *names[HW_PROF_MAX_METRICS];
    int n;
    uint32_t max_ranges;
    int initialized;
    hw_prof_log_fn log;
    void *log_user;
};

#define PCK(call)                                                                                                      \
    do {                                                                                                               \
        CUptiResult r_ = (call);                                                                                       \
        if (r_ != CUPTI_SUCCESS) {                                                                                     \
            const char *s_ = NULL;                                                                                     \
            cuptiGetResultString(r_, &s_);                                                                             \
            snprintf(msg, msgsz, "%s: %s (%d)", #call, s_ ? s_ : "?", (int)r_);                                        \
            goto fail;                                                                                                 \
        }                                                                                                              \
    } while (0)

static void note(const hw_prof *p, hw_prof_log_kind kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void note(const hw_prof *p, hw_prof_log_kind kind, const char *fmt, ...)
{
    if (!p->log)
        return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    p->log(p->log_user, kind, line);
}

static int host_new(const char *chip, const uint8_t *avail, CUpti_Profiler_Host_Object **obj)
{
    CUpti_Profiler_Host_Initialize_Params hp;
    memset(&hp, 0, sizeof hp);
    hp.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE;
    hp.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    hp.pChipName = chip;
    hp.pCounterAvailabilityImage = avail;
    if (cuptiProfilerHostInitialize(&hp) != CUPTI_SUCCESS)
        return -1;
    *obj = hp.pHostObject;
    return 0;
}

static void host_del(CUpti_Profiler_Host_Object *obj)
{
    CUpti_Profiler_Host_Deinitialize_Params dp;
    memset(&dp, 0, sizeof dp);
    dp.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE;
    dp.pHostObject = obj;
    cuptiProfilerHostDeinitialize(&dp);
}

/* A metric is available when a host object of its own accepts it. */
static int metric_available(const char *chip, const uint8_t *avail, const char *name)
{
    CUpti_Profiler_Host_Object *o;
    if (host_new(chip, avail, &o))
        return 0;
    CUpti_Profiler_Host_ConfigAddMetrics_Params ap;
    memset(&ap, 0, sizeof ap);
    ap.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE;
    ap.pHostObject = o;
    ap.ppMetricNames = &name;
    ap.numMetrics = 1;
    int ok = cuptiProfilerHostConfigAddMetrics(&ap) == CUPTI_SUCCESS;
    host_del(o);
    return ok;
}

static void list_base_metrics(const hw_prof *p, const char *const *filters)
{
    if (!filters || !filters[0])
        return;
    CUpti_Profiler_Host_GetBaseMetrics_Params bp;
    memset(&bp, 0, sizeof bp);
    bp.structSize = CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE;
    bp.pHostObject = p->host;
    bp.metricType = CUPTI_METRIC_TYPE_COUNTER;
    if (cuptiProfilerHostGetBaseMetrics(&bp) != CUPTI_SUCCESS)
        return;
    for (size_t i = 0; i < bp.numMetrics; i++)
        for (const char *const *f = filters; *f; f++)
            if (strstr(bp.ppMetricNames[i], *f)) {
                note(p, HW_PROF_LOG_BASE_METRIC, "%s", bp.ppMetricNames[i]);
                break;
            }
}

/* The chip, its counter availability and the host object. */
static int open_host(hw_prof *p, char *msg, size_t msgsz)
{
    CUcontext cuctx = NULL;
    cuCtxGetCurrent(&cuctx);
    {
        CUpti_Profiler_Initialize_Params ip;
        memset(&ip, 0, sizeof ip);
        ip.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE;
        PCK(cuptiProfilerInitialize(&ip));
        p->initialized = 1;
    }
    {
        CUpti_Device_GetChipName_Params cp;
        memset(&cp, 0, sizeof cp);
        cp.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE;
        cp.deviceIndex = 0;
        PCK(cuptiDeviceGetChipName(&cp));
        p->chip = cp.pChipName;
        note(p, HW_PROF_LOG_NOTE, "chip: %s", p->chip);
    }
    {
        CUpti_Profiler_GetCounterAvailability_Params ap;
        memset(&ap, 0, sizeof ap);
        ap.structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE;
        ap.ctx = cuctx;
        PCK(cuptiProfilerGetCounterAvailability(&ap));
        p->avail = (uint8_t *)calloc(1, ap.counterAvailabilityImageSize);
        ap.pCounterAvailabilityImage = p->avail;
        PCK(cuptiProfilerGetCounterAvailability(&ap));
    }
    if (host_new(p->chip, p->avail, &p->host)) {
        snprintf(msg, msgsz, "cuptiProfilerHostInitialize failed");
        return -1;
    }
    return 0;
fail:
    return -1;
}

/* The configuration image of the chosen metrics, the range profiler and its counter data. */
static int configure(hw_prof *p, char *msg, size_t msgsz)
{
    {
        CUpti_Profiler_Host_ConfigAddMetrics_Params ap;
        memset(&ap, 0, sizeof ap);
        ap.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE;
        ap.pHostObject = p->host;
        ap.ppMetricNames = p->names;
        ap.numMetrics = (size_t)p->n;
        PCK(cuptiProfilerHostConfigAddMetrics(&ap));
        CUpti_Profiler_Host_GetConfigImageSize_Params sp;
        memset(&sp, 0, sizeof sp);
        sp.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE;
        sp.pHostObject = p->host;
        PCK(cuptiProfilerHostGetConfigImageSize(&sp));
        p->config_size = sp.configImageSize;
        p->config = (uint8_t *)calloc(1, p->config_size);
        CUpti_Profiler_Host_GetConfigImage_Params gp;
        memset(&gp, 0, sizeof gp);
        gp.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE;
        gp.pHostObject = p->host;
        gp.configImageSize = p->config_size;
        gp.pConfigImage = p->config;
        PCK(cuptiProfilerHostGetConfigImage(&gp));
        CUpti_Profiler_Host_GetNumOfPasses_Params np;
        memset(&np, 0, sizeof np);
        np.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE;
        np.configImageSize = p->config_size;
        np.pConfigImage = p->config;
        if (cuptiProfilerHostGetNumOfPasses(&np) == CUPTI_SUCCESS)
            note(p, HW_PROF_LOG_NOTE, "metrics: %d, passes: %zu", p->n, np.numOfPasses);
    }
    {
        CUcontext cuctx = NULL;
        cuCtxGetCurrent(&cuctx);
        CUpti_RangeProfiler_Enable_Params ep;
        memset(&ep, 0, sizeof ep);
        ep.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE;
        ep.ctx = cuctx;
        PCK(cuptiRangeProfilerEnable(&ep));
        p->rp = ep.pRangeProfilerObject;
        CUpti_RangeProfiler_GetCounterDataSize_Params sp;
        memset(&sp, 0, sizeof sp);
        sp.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE;
        sp.pRangeProfilerObject = p->rp;
        sp.pMetricNames = p->names;
        sp.numMetrics = (size_t)p->n;
        sp.maxNumOfRanges = p->max_ranges;
        sp.maxNumRangeTreeNodes = p->max_ranges;
        PCK(cuptiRangeProfilerGetCounterDataSize(&sp));
        p->cdata_size = sp.counterDataSize;
        p->cdata = (uint8_t *)calloc(1, p->cdata_size);
    }
    return 0;
fail:
    return -1;
}

int hw_prof_open(const hw_prof_desc *d, hw_prof **out, char *msg, size_t msgsz)
{
    *out = NULL;
    hw_prof *p = (hw_prof *)calloc(1, sizeof *p);
    if (!p) {
        snprintf(msg, msgsz, "out of memory");
        return -1;
    }
    p->log = d->log;
    p->log_user = d->log_user;
    p->max_ranges = d->max_ranges ? d->max_ranges : 1;
    int max = d->max_metrics > 0 && d->max_metrics < HW_PROF_MAX_METRICS ? d->max_metrics : HW_PROF_MAX_METRICS;
    if (open_host(p, msg, msgsz))
        goto fail;
    list_base_metrics(p, d->list_filters);
    for (int i = 0; i < d->nwant && p->n < max; i++) {
        if (metric_available(p->chip, p->avail, d->want[i]))
            p->names[p->n++] = d->want[i];
        else
            note(p, HW_PROF_LOG_UNAVAILABLE, "%s", d->want[i]);
    }
    if (p->n == 0) {
        snprintf(msg, msgsz, "none of the %d metrics is available", d->nwant);
        goto fail;
    }
    if (configure(p, msg, msgsz))
        goto fail;
    *out = p;
    return 0;
fail:
    hw_prof_close(p);
    return -1;
}

int hw_prof_nmetrics(const hw_prof *p)
{
    return p->n;
}

const char *const *hw_prof_names(const hw_prof *p)
{
    return p->names;
}

int hw_prof_collect(hw_prof *p, hw_prof_launch_fn launch, void *ctx, double *values, size_t stride, char *msg,
                    size_t msgsz)
{
    {
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params ip;
        memset(&ip, 0, sizeof ip);
        ip.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE;
        ip.pRangeProfilerObject = p->rp;
        ip.counterDataSize = p->cdata_size;
        ip.pCounterData = p->cdata;
        PCK(cuptiRangeProfilerCounterDataImageInitialize(&ip));
        CUpti_RangeProfiler_SetConfig_Params sc;
        memset(&sc, 0, sizeof sc);
        sc.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE;
        sc.pRangeProfilerObject = p->rp;
        sc.configSize = p->config_size;
        sc.pConfig = p->config;
        sc.counterDataImageSize = p->cdata_size;
        sc.pCounterDataImage = p->cdata;
        sc.range = CUPTI_AutoRange;
        sc.replayMode = CUPTI_KernelReplay;
        sc.maxRangesPerPass = p->max_ranges;
        sc.numNestingLevels = 1;
        sc.minNestingLevel = 1;
        sc.passIndex = 0;
        sc.targetNestingLevel = 1;
        PCK(cuptiRangeProfilerSetConfig(&sc));
    }
    {
        CUpti_RangeProfiler_Start_Params st;
        memset(&st, 0, sizeof st);
        st.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE;
        st.pRangeProfilerObject = p->rp;
        PCK(cuptiRangeProfilerStart(&st));
        if (launch(ctx)) {
            snprintf(msg, msgsz, "launch under the profiler failed: %s", cudaGetErrorString(cudaGetLastError()));
            return -1;
        }
        cudaDeviceSynchronize();
        CUpti_RangeProfiler_Stop_Params so;
        memset(&so, 0, sizeof so);
        so.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
        so.pRangeProfilerObject = p->rp;
        PCK(cuptiRangeProfilerStop(&so));
        if (!so.isAllPassSubmitted)
            note(p, HW_PROF_LOG_NOTE, "warning: not all passes submitted");
        CUpti_RangeProfiler_DecodeData_Params dp;
        memset(&dp, 0, sizeof dp);
        dp.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE;
        dp.pRangeProfilerObject = p->rp;
        PCK(cuptiRangeProfilerDecodeData(&dp));
        if (dp.numOfRangeDropped)
            note(p, HW_PROF_LOG_NOTE, "warning: %zu ranges dropped", dp.numOfRangeDropped);
    }
    {
        CUpti_RangeProfiler_GetCounterDataInfo_Params gi;
        memset(&gi, 0, sizeof gi);
        gi.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE;
        gi.pCounterDataImage = p->cdata;
        gi.counterDataImageSize = p->cdata_size;
        PCK(cuptiRangeProfilerGetCounterDataInfo(&gi));
        for (size_t r = 0; r < gi.numTotalRanges && r < p->max_ranges; r++) {
            CUpti_Profiler_Host_EvaluateToGpuValues_Params ev;
            memset(&ev, 0, sizeof ev);
            ev.structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE;
            ev.pHostObject = p->host;
            ev.pCounterDataImage = p->cdata;
            ev.counterDataImageSize = p->cdata_size;
            ev.rangeIndex = r;
            ev.ppMetricNames = p->names;
            ev.numMetrics = (size_t)p->n;
            ev.pMetricValues = values + r * stride;
            PCK(cuptiProfilerHostEvaluateToGpuValues(&ev));
        }
        return (int)gi.numTotalRanges;
    }
fail:
    return -1;
}

void hw_prof_close(hw_prof *p)
{
    if (!p)
        return;
    if (p->rp) {
        CUpti_RangeProfiler_Disable_Params dp;
        memset(&dp, 0, sizeof dp);
        dp.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE;
        dp.pRangeProfilerObject = p->rp;
        cuptiRangeProfilerDisable(&dp);
    }
    if (p->host)
        host_del(p->host);
    if (p->initialized) {
        CUpti_Profiler_DeInitialize_Params dp;
        memset(&dp, 0, sizeof dp);
        dp.structSize = CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE;
        cuptiProfilerDeInitialize(&dp);
    }
    free(p->avail);
    free(p->config);
    free(p->cdata);
    free(p);
}
