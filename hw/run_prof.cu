/* run_prof: counters of one kernel launch through the CUPTI Range Profiler (the flow of
 * hw/bank.cu's hw_bank_profile, for any launch and metric list). Counter runs are
 * never timed: the kernel is replayed once per pass. */
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

#include "run.h"

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

static void logf_(char *log, size_t logsz, const char *fmt, ...)
{
    size_t n = strlen(log);
    if (n + 1 >= logsz)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(log + n, logsz - n, fmt, ap);
    va_end(ap);
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

int run_prof_counters(const char *const *want, int nwant, run_prof_launch_fn launch, void *ctx, const char **names,
                      double *values, int max, const char *list_filter, char *log, size_t logsz, char *msg, size_t msgsz)
{
    CUpti_Profiler_Host_Object *host = NULL;
    CUpti_RangeProfiler_Object *rp = NULL;
    uint8_t *avail = NULL, *config = NULL, *cdata = NULL;
    size_t config_size = 0, cdata_size = 0;
    const char *chip = NULL;
    CUcontext cuctx = NULL;
    int n = 0, rc = -1;
    cuCtxGetCurrent(&cuctx);
    {
        CUpti_Profiler_Initialize_Params ip;
        memset(&ip, 0, sizeof ip);
        ip.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE;
        PCK(cuptiProfilerInitialize(&ip));
    }
    {
        CUpti_Device_GetChipName_Params cp;
        memset(&cp, 0, sizeof cp);
        cp.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE;
        cp.deviceIndex = 0;
        PCK(cuptiDeviceGetChipName(&cp));
        chip = cp.pChipName;
    }
    {
        CUpti_Profiler_GetCounterAvailability_Params ap;
        memset(&ap, 0, sizeof ap);
        ap.structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE;
        ap.ctx = cuctx;
        PCK(cuptiProfilerGetCounterAvailability(&ap));
        avail = (uint8_t *)calloc(1, ap.counterAvailabilityImageSize);
        ap.pCounterAvailabilityImage = avail;
        PCK(cuptiProfilerGetCounterAvailability(&ap));
    }
    if (host_new(chip, avail, &host)) {
        snprintf(msg, msgsz, "cuptiProfilerHostInitialize failed");
        goto fail;
    }
    if (list_filter) {
        CUpti_Profiler_Host_GetBaseMetrics_Params bp;
        memset(&bp, 0, sizeof bp);
        bp.structSize = CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE;
        bp.pHostObject = host;
        bp.metricType = CUPTI_METRIC_TYPE_COUNTER;
        if (cuptiProfilerHostGetBaseMetrics(&bp) == CUPTI_SUCCESS)
            for (size_t i = 0; i < bp.numMetrics; i++)
                if (strstr(bp.ppMetricNames[i], list_filter))
                    logf_(log, logsz, "%s%s", strlen(log) ? "," : "", bp.ppMetricNames[i]);
    }
    for (int i = 0; i < nwant && n < max; i++)
        if (metric_available(chip, avail, want[i]))
            names[n++] = want[i];
    if (n == 0) {
        snprintf(msg, msgsz, "none of the %d metrics is available", nwant);
        goto fail;
    }
    {
        CUpti_Profiler_Host_ConfigAddMetrics_Params ap;
        memset(&ap, 0, sizeof ap);
        ap.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE;
        ap.pHostObject = host;
        ap.ppMetricNames = names;
        ap.numMetrics = (size_t)n;
        PCK(cuptiProfilerHostConfigAddMetrics(&ap));
        CUpti_Profiler_Host_GetConfigImageSize_Params sp;
        memset(&sp, 0, sizeof sp);
        sp.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE;
        sp.pHostObject = host;
        PCK(cuptiProfilerHostGetConfigImageSize(&sp));
        config_size = sp.configImageSize;
        config = (uint8_t *)calloc(1, config_size);
        CUpti_Profiler_Host_GetConfigImage_Params gp;
        memset(&gp, 0, sizeof gp);
        gp.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE;
        gp.pHostObject = host;
        gp.configImageSize = config_size;
        gp.pConfigImage = config;
        PCK(cuptiProfilerHostGetConfigImage(&gp));
    }
    {
        CUpti_RangeProfiler_Enable_Params ep;
        memset(&ep, 0, sizeof ep);
        ep.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE;
        ep.ctx = cuctx;
        PCK(cuptiRangeProfilerEnable(&ep));
        rp = ep.pRangeProfilerObject;
        CUpti_RangeProfiler_GetCounterDataSize_Params sp;
        memset(&sp, 0, sizeof sp);
        sp.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE;
        sp.pRangeProfilerObject = rp;
        sp.pMetricNames = names;
        sp.numMetrics = (size_t)n;
        sp.maxNumOfRanges = 2;
        sp.maxNumRangeTreeNodes = 2;
        PCK(cuptiRangeProfilerGetCounterDataSize(&sp));
        cdata_size = sp.counterDataSize;
        cdata = (uint8_t *)calloc(1, cdata_size);
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params ip;
        memset(&ip, 0, sizeof ip);
        ip.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE;
        ip.pRangeProfilerObject = rp;
        ip.counterDataSize = cdata_size;
        ip.pCounterData = cdata;
        PCK(cuptiRangeProfilerCounterDataImageInitialize(&ip));
        CUpti_RangeProfiler_SetConfig_Params sc;
        memset(&sc, 0, sizeof sc);
        sc.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE;
        sc.pRangeProfilerObject = rp;
        sc.configSize = config_size;
        sc.pConfig = config;
        sc.counterDataImageSize = cdata_size;
        sc.pCounterDataImage = cdata;
        sc.range = CUPTI_AutoRange;
        sc.replayMode = CUPTI_KernelReplay;
        sc.maxRangesPerPass = 2;
        sc.numNestingLevels = 1;
        sc.minNestingLevel = 1;
        sc.passIndex = 0;
        sc.targetNestingLevel = 1;
        PCK(cuptiRangeProfilerSetConfig(&sc));
        CUpti_RangeProfiler_Start_Params st;
        memset(&st, 0, sizeof st);
        st.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE;
        st.pRangeProfilerObject = rp;
        PCK(cuptiRangeProfilerStart(&st));
        if (launch(ctx)) {
            snprintf(msg, msgsz, "launch under the profiler failed: %s", cudaGetErrorString(cudaGetLastError()));
            goto fail;
        }
        cudaDeviceSynchronize();
        CUpti_RangeProfiler_Stop_Params so;
        memset(&so, 0, sizeof so);
        so.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
        so.pRangeProfilerObject = rp;
        PCK(cuptiRangeProfilerStop(&so));
        if (!so.isAllPassSubmitted)
            logf_(log, logsz, "%swarning: not all passes submitted", strlen(log) ? "; " : "");
        CUpti_RangeProfiler_DecodeData_Params dp;
        memset(&dp, 0, sizeof dp);
        dp.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE;
        dp.pRangeProfilerObject = rp;
        PCK(cuptiRangeProfilerDecodeData(&dp));
        CUpti_RangeProfiler_GetCounterDataInfo_Params gi;
        memset(&gi, 0, sizeof gi);
        gi.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE;
        gi.pCounterDataImage = cdata;
        gi.counterDataImageSize = cdata_size;
        PCK(cuptiRangeProfilerGetCounterDataInfo(&gi));
        if (gi.numTotalRanges < 1) {
            snprintf(msg, msgsz, "no range recorded");
            goto fail;
        }
        CUpti_Profiler_Host_EvaluateToGpuValues_Params ev;
        memset(&ev, 0, sizeof ev);
        ev.structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE;
        ev.pHostObject = host;
        ev.pCounterDataImage = cdata;
        ev.counterDataImageSize = cdata_size;
        ev.rangeIndex = gi.numTotalRanges - 1;
        ev.ppMetricNames = names;
        ev.numMetrics = (size_t)n;
        ev.pMetricValues = values;
        PCK(cuptiProfilerHostEvaluateToGpuValues(&ev));
    }
    rc = n;
fail:
    if (rp) {
        CUpti_RangeProfiler_Disable_Params dp;
        memset(&dp, 0, sizeof dp);
        dp.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE;
        dp.pRangeProfilerObject = rp;
        cuptiRangeProfilerDisable(&dp);
    }
    if (host)
        host_del(host);
    {
        CUpti_Profiler_DeInitialize_Params dp;
        memset(&dp, 0, sizeof dp);
        dp.structSize = CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE;
        cuptiProfilerDeInitialize(&dp);
    }
    free(avail);
    free(config);
    free(cdata);
    return rc;
}
