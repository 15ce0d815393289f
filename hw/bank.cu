/* bank: one warp shared-memory instruction per kernel launch, measured with the
 * CUPTI Range Profiler (auto range: one range per launch; kernel replay: CUPTI
 * replays each launch for as many passes as the metrics need).
 *
 * The kernel reads its 32 lane addresses and data from global memory and writes the
 * loaded registers back to global memory, so the scaffolding itself issues no
 * shared-memory instruction and ptxas cannot drop the one under test. The counters
 * still give the instruction counts, and a launch with no test instruction is
 * measured as the baseline in every batch. */
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <cupti.h>
#include <stdlib.h>
#include <string.h>

#include "hw.h"

#define BANK_BASELINE_OP (-1)
#define BANK_DYN_SMEM (200u * 1024u)

__global__ void __launch_bounds__(32) bank_kernel(const uint32_t *addr, int op, int trans, uint32_t *sink)
{
    extern __shared__ __align__(1024) uint8_t sm[];
    const uint32_t lane = threadIdx.x;
    const uint32_t a = static_cast<uint32_t>(__cvta_generic_to_shared(sm)) + addr[lane];
    uint32_t v0 = sink[lane * 4 + 0], v1 = sink[lane * 4 + 1], v2 = sink[lane * 4 + 2], v3 = sink[lane * 4 + 3];
    switch (op) {
    case BANK_OP_LDS32:
        asm volatile("ld.shared.b32 %0, [%1];" : "=r"(v0) : "r"(a) : "memory");
        break;
    case BANK_OP_LDS64:
        asm volatile("ld.shared.v2.b32 {%0, %1}, [%2];" : "=r"(v0), "=r"(v1) : "r"(a) : "memory");
        break;
    case BANK_OP_LDS128:
        asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];" : "=r"(v0), "=r"(v1), "=r"(v2), "=r"(v3) : "r"(a) : "memory");
        break;
    case BANK_OP_STS32:
        asm volatile("st.shared.b32 [%0], %1;" :: "r"(a), "r"(v0) : "memory");
        break;
    case BANK_OP_STS64:
        asm volatile("st.shared.v2.b32 [%0], {%1, %2};" :: "r"(a), "r"(v0), "r"(v1) : "memory");
        break;
    case BANK_OP_STS128:
        asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};" :: "r"(a), "r"(v0), "r"(v1), "r"(v2), "r"(v3) : "memory");
        break;
    case BANK_OP_LDSM_X1:
        if (trans)
            asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(v0) : "r"(a) : "memory");
        else
            asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(v0) : "r"(a) : "memory");
        break;
    case BANK_OP_LDSM_X2:
        if (trans)
            asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];" : "=r"(v0), "=r"(v1) : "r"(a) : "memory");
        else
            asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(v0), "=r"(v1) : "r"(a) : "memory");
        break;
    case BANK_OP_LDSM_X4:
        if (trans)
            asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                         : "=r"(v0), "=r"(v1), "=r"(v2), "=r"(v3) : "r"(a) : "memory");
        else
            asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                         : "=r"(v0), "=r"(v1), "=r"(v2), "=r"(v3) : "r"(a) : "memory");
        break;
    case BANK_OP_STSM_X1:
        if (trans)
            asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};" :: "r"(a), "r"(v0) : "memory");
        else
            asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" :: "r"(a), "r"(v0) : "memory");
        break;
    case BANK_OP_STSM_X2:
        if (trans)
            asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};" :: "r"(a), "r"(v0), "r"(v1) : "memory");
        else
            asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};" :: "r"(a), "r"(v0), "r"(v1) : "memory");
        break;
    case BANK_OP_STSM_X4:
        if (trans)
            asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};"
                         :: "r"(a), "r"(v0), "r"(v1), "r"(v2), "r"(v3) : "memory");
        else
            asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};"
                         :: "r"(a), "r"(v0), "r"(v1), "r"(v2), "r"(v3) : "memory");
        break;
    default:
        break;
    }
    sink[lane * 4 + 0] = v0;
    sink[lane * 4 + 1] = v1;
    sink[lane * 4 + 2] = v2;
    sink[lane * 4 + 3] = v3;
}

static uint32_t *g_daddr, *g_dsink;

static int bank_prepare(void)
{
    if (g_daddr)
        return 0;
    if (cudaMalloc(&g_daddr, 32 * sizeof(uint32_t) * 1024) != cudaSuccess)
        return -1;
    if (cudaMalloc(&g_dsink, 32 * 4 * sizeof(uint32_t)) != cudaSuccess)
        return -1;
    cudaMemset(g_dsink, 0, 32 * 4 * sizeof(uint32_t));
    if (cudaFuncSetAttribute(bank_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)BANK_DYN_SMEM) != cudaSuccess)
        return -1;
    return 0;
}

static int launch_one(const bank_instr *in, uint32_t slot)
{
    uint32_t addr[32];
    int op = BANK_BASELINE_OP, trans = 0;
    if (in) {
        memcpy(addr, in->addr, sizeof addr);
        op = (int)in->op;
        trans = in->trans;
    } else {
        memset(addr, 0, sizeof addr);
    }
    uint32_t *dslot = g_daddr + (slot % 1024) * 32;
    if (cudaMemcpy(dslot, addr, sizeof addr, cudaMemcpyHostToDevice) != cudaSuccess)
        return -1;
    bank_kernel<<<1, 32, BANK_DYN_SMEM>>>(dslot, op, trans, g_dsink);
    if (cudaGetLastError() != cudaSuccess)
        return -1;
    return 0;
}

int hw_bank_launch(const bank_instr *in, uint32_t *sink_out)
{
    if (bank_prepare())
        return -1;
    if (launch_one(in, 0) || cudaDeviceSynchronize() != cudaSuccess)
        return -1;
    if (sink_out)
        cudaMemcpy(sink_out, g_dsink, 32 * 4 * sizeof(uint32_t), cudaMemcpyDeviceToHost);
    return 0;
}

/* ------------------------------------------------------------------ CUPTI */

#define CUPTI_CK(call)                                                                        \
    do {                                                                                      \
        CUptiResult r_ = (call);                                                              \
        if (r_ != CUPTI_SUCCESS) {                                                            \
            const char *s_ = NULL;                                                            \
            cuptiGetResultString(r_, &s_);                                                    \
            snprintf(msg, msgsz, "%s: %s (%d)", #call, s_ ? s_ : "?", (int)r_);               \
            goto fail;                                                                        \
        }                                                                                     \
    } while (0)

static int host_object(const char *chip, const uint8_t *avail, CUpti_Profiler_Host_Object **obj)
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

static void host_free(CUpti_Profiler_Host_Object *obj)
{
    CUpti_Profiler_Host_Deinitialize_Params dp;
    memset(&dp, 0, sizeof dp);
    dp.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE;
    dp.pHostObject = obj;
    cuptiProfilerHostDeinitialize(&dp);
}

static int metric_ok(const char *chip, const uint8_t *avail, const char *name)
{
    CUpti_Profiler_Host_Object *o;
    if (host_object(chip, avail, &o))
        return 0;
    CUpti_Profiler_Host_ConfigAddMetrics_Params ap;
    memset(&ap, 0, sizeof ap);
    ap.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE;
    ap.pHostObject = o;
    ap.ppMetricNames = &name;
    ap.numMetrics = 1;
    int ok = cuptiProfilerHostConfigAddMetrics(&ap) == CUPTI_SUCCESS;
    host_free(o);
    return ok;
}

static void list_base_metrics(CUpti_Profiler_Host_Object *o, FILE *log)
{
    CUpti_Profiler_Host_GetBaseMetrics_Params bp;
    memset(&bp, 0, sizeof bp);
    bp.structSize = CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE;
    bp.pHostObject = o;
    bp.metricType = CUPTI_METRIC_TYPE_COUNTER;
    if (cuptiProfilerHostGetBaseMetrics(&bp) != CUPTI_SUCCESS)
        return;
    for (size_t i = 0; i < bp.numMetrics; i++) {
        const char *n = bp.ppMetricNames[i];
        if (strstr(n, "shared") || strstr(n, "ldsm") || strstr(n, "stsm") || strstr(n, "bank"))
            fprintf(log, "base metric: %s\n", n);
    }
}

int hw_bank_profile(const bank_instr *instrs, uint32_t count, hw_bank_metrics *metrics, double *values,
                    double *baseline, FILE *log, char *msg, size_t msgsz)
{
    static const char *candidates[] = {
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
        "smsp__sass_inst_executed_op_shared_ld.sum",
        "smsp__sass_inst_executed_op_shared_st.sum",
        "smsp__sass_inst_executed_op_ldsm.sum",
        "smsp__sass_inst_executed_op_stsm.sum",
        "smsp__sass_inst_executed_op_shared_stsm.sum",
        "smsp__sass_inst_executed_op_shared_ldsm.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
        "smsp__inst_executed.sum",
    };
    CUpti_Profiler_Host_Object *host = NULL;
    CUpti_RangeProfiler_Object *rp = NULL;
    uint8_t *avail = NULL, *config = NULL, *cdata = NULL;
    size_t config_size = 0, cdata_size = 0;
    const char *chip = NULL;
    CUcontext ctx = NULL;
    const uint32_t batch = 200;
    int rc = -1;

    if (bank_prepare()) {
        snprintf(msg, msgsz, "bank kernel setup failed");
        return -1;
    }
    cuCtxGetCurrent(&ctx);
    {
        CUpti_Profiler_Initialize_Params ip;
        memset(&ip, 0, sizeof ip);
        ip.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE;
        CUPTI_CK(cuptiProfilerInitialize(&ip));
    }
    {
        CUpti_Device_GetChipName_Params cp;
        memset(&cp, 0, sizeof cp);
        cp.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE;
        cp.deviceIndex = 0;
        CUPTI_CK(cuptiDeviceGetChipName(&cp));
        chip = cp.pChipName;
        fprintf(log, "chip: %s\n", chip);
    }
    {
        CUpti_Profiler_GetCounterAvailability_Params ap;
        memset(&ap, 0, sizeof ap);
        ap.structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE;
        ap.ctx = ctx;
        CUPTI_CK(cuptiProfilerGetCounterAvailability(&ap));
        avail = (uint8_t *)calloc(1, ap.counterAvailabilityImageSize);
        ap.pCounterAvailabilityImage = avail;
        CUPTI_CK(cuptiProfilerGetCounterAvailability(&ap));
    }
    if (host_object(chip, avail, &host)) {
        snprintf(msg, msgsz, "cuptiProfilerHostInitialize failed");
        goto fail;
    }
    list_base_metrics(host, log);
    metrics->n = 0;
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0] && metrics->n < HW_MAX_METRICS; i++) {
        if (metric_ok(chip, avail, candidates[i]))
            metrics->names[metrics->n++] = candidates[i];
        else
            fprintf(log, "metric not available: %s\n", candidates[i]);
    }
    {
        CUpti_Profiler_Host_ConfigAddMetrics_Params ap;
        memset(&ap, 0, sizeof ap);
        ap.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE;
        ap.pHostObject = host;
        ap.ppMetricNames = metrics->names;
        ap.numMetrics = (size_t)metrics->n;
        CUPTI_CK(cuptiProfilerHostConfigAddMetrics(&ap));
        CUpti_Profiler_Host_GetConfigImageSize_Params sp;
        memset(&sp, 0, sizeof sp);
        sp.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE;
        sp.pHostObject = host;
        CUPTI_CK(cuptiProfilerHostGetConfigImageSize(&sp));
        config_size = sp.configImageSize;
        config = (uint8_t *)calloc(1, config_size);
        CUpti_Profiler_Host_GetConfigImage_Params gp;
        memset(&gp, 0, sizeof gp);
        gp.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE;
        gp.pHostObject = host;
        gp.configImageSize = config_size;
        gp.pConfigImage = config;
        CUPTI_CK(cuptiProfilerHostGetConfigImage(&gp));
        CUpti_Profiler_Host_GetNumOfPasses_Params np;
        memset(&np, 0, sizeof np);
        np.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE;
        np.configImageSize = config_size;
        np.pConfigImage = config;
        if (cuptiProfilerHostGetNumOfPasses(&np) == CUPTI_SUCCESS)
            fprintf(log, "metrics: %d, passes: %zu\n", metrics->n, np.numOfPasses);
    }
    {
        CUpti_RangeProfiler_Enable_Params ep;
        memset(&ep, 0, sizeof ep);
        ep.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE;
        ep.ctx = ctx;
        CUPTI_CK(cuptiRangeProfilerEnable(&ep));
        rp = ep.pRangeProfilerObject;
        CUpti_RangeProfiler_GetCounterDataSize_Params sp;
        memset(&sp, 0, sizeof sp);
        sp.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE;
        sp.pRangeProfilerObject = rp;
        sp.pMetricNames = metrics->names;
        sp.numMetrics = (size_t)metrics->n;
        sp.maxNumOfRanges = batch + 1;
        sp.maxNumRangeTreeNodes = batch + 1;
        CUPTI_CK(cuptiRangeProfilerGetCounterDataSize(&sp));
        cdata_size = sp.counterDataSize;
        cdata = (uint8_t *)calloc(1, cdata_size);
    }
    for (uint32_t b0 = 0; b0 < count || b0 == 0; b0 += batch) {
        uint32_t n = count - b0 < batch ? count - b0 : batch;
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params ip;
        memset(&ip, 0, sizeof ip);
        ip.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE;
        ip.pRangeProfilerObject = rp;
        ip.counterDataSize = cdata_size;
        ip.pCounterData = cdata;
        CUPTI_CK(cuptiRangeProfilerCounterDataImageInitialize(&ip));
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
        sc.maxRangesPerPass = batch + 1;
        sc.numNestingLevels = 1;
        sc.minNestingLevel = 1;
        sc.passIndex = 0;
        sc.targetNestingLevel = 1;
        CUPTI_CK(cuptiRangeProfilerSetConfig(&sc));
        CUpti_RangeProfiler_Start_Params st;
        memset(&st, 0, sizeof st);
        st.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE;
        st.pRangeProfilerObject = rp;
        CUPTI_CK(cuptiRangeProfilerStart(&st));
        /* range 0 of every batch: the scaffolding alone */
        if (launch_one(NULL, 0)) {
            snprintf(msg, msgsz, "baseline launch failed");
            goto fail;
        }
        for (uint32_t i = 0; i < n; i++)
            if (launch_one(&instrs[b0 + i], i + 1)) {
                snprintf(msg, msgsz, "launch of instruction %u failed: %s", b0 + i, cudaGetErrorString(cudaGetLastError()));
                goto fail;
            }
        cudaDeviceSynchronize();
        CUpti_RangeProfiler_Stop_Params sp;
        memset(&sp, 0, sizeof sp);
        sp.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
        sp.pRangeProfilerObject = rp;
        CUPTI_CK(cuptiRangeProfilerStop(&sp));
        if (!sp.isAllPassSubmitted)
            fprintf(log, "warning: not all passes submitted in batch %u\n", b0);
        CUpti_RangeProfiler_DecodeData_Params dp;
        memset(&dp, 0, sizeof dp);
        dp.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE;
        dp.pRangeProfilerObject = rp;
        CUPTI_CK(cuptiRangeProfilerDecodeData(&dp));
        if (dp.numOfRangeDropped)
            fprintf(log, "warning: %zu ranges dropped in batch %u\n", dp.numOfRangeDropped, b0);
        CUpti_RangeProfiler_GetCounterDataInfo_Params gi;
        memset(&gi, 0, sizeof gi);
        gi.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE;
        gi.pCounterDataImage = cdata;
        gi.counterDataImageSize = cdata_size;
        CUPTI_CK(cuptiRangeProfilerGetCounterDataInfo(&gi));
        if (gi.numTotalRanges != n + 1) {
            snprintf(msg, msgsz, "batch %u: %zu ranges for %u launches", b0, gi.numTotalRanges, n + 1);
            goto fail;
        }
        for (size_t r = 0; r < gi.numTotalRanges; r++) {
            double v[HW_MAX_METRICS];
            CUpti_Profiler_Host_EvaluateToGpuValues_Params ev;
            memset(&ev, 0, sizeof ev);
            ev.structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE;
            ev.pHostObject = host;
            ev.pCounterDataImage = cdata;
            ev.counterDataImageSize = cdata_size;
            ev.rangeIndex = r;
            ev.ppMetricNames = metrics->names;
            ev.numMetrics = (size_t)metrics->n;
            ev.pMetricValues = v;
            CUPTI_CK(cuptiProfilerHostEvaluateToGpuValues(&ev));
            if (r == 0) {
                if (b0 == 0)
                    memcpy(baseline, v, sizeof(double) * (size_t)metrics->n);
                else
                    for (int m = 0; m < metrics->n; m++)
                        if (v[m] != baseline[m])
                            fprintf(log, "warning: baseline of batch %u differs for %s: %g vs %g\n", b0,
                                    metrics->names[m], v[m], baseline[m]);
            } else {
                memcpy(values + (size_t)(b0 + r - 1) * HW_MAX_METRICS, v, sizeof(double) * (size_t)metrics->n);
            }
        }
        if (count == 0)
            break;
    }
    rc = 0;
fail:
    if (rp) {
        CUpti_RangeProfiler_Disable_Params dp;
        memset(&dp, 0, sizeof dp);
        dp.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE;
        dp.pRangeProfilerObject = rp;
        cuptiRangeProfilerDisable(&dp);
    }
    if (host)
        host_free(host);
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
