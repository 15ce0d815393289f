/* bank: one warp shared-memory instruction per kernel launch, measured with the
 * CUPTI Range Profiler (hw/prof.h: one range per launch; kernel replay replays each
 * launch for as many passes as the metrics need).
 *
 * The kernel reads its 32 lane addresses and data from global memory and writes the
 * loaded registers back to global memory, so the scaffolding itself issues no
 * shared-memory instruction and ptxas cannot drop the one under test. The counters
 * still give the instruction counts, and a launch with no test instruction is
 * measured as the baseline in every batch. */
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw.h"
#include "prof.h"

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

/* ------------------------------------------------------------------ counters */
static void log_to_file(void *user, hw_prof_log_kind kind, const char *text)
{
    FILE *log = (FILE *)user;
    if (kind == HW_PROF_LOG_BASE_METRIC)
        fprintf(log, "base metric: %s\n", text);
    else if (kind == HW_PROF_LOG_UNAVAILABLE)
        fprintf(log, "metric not available: %s\n", text);
    else
        fprintf(log, "%s\n", text);
}

/* One batch: range 0 the scaffolding alone (the baseline), then one range per instruction. */
typedef struct bank_batch {
    const bank_instr *instrs;
    uint32_t first, n;
    char *msg;
    size_t msgsz;
} bank_batch;

static int launch_batch(void *ctx)
{
    bank_batch *b = (bank_batch *)ctx;
    if (launch_one(NULL, 0)) {
        snprintf(b->msg, b->msgsz, "baseline launch failed");
        return -1;
    }
    for (uint32_t i = 0; i < b->n; i++)
        if (launch_one(&b->instrs[b->first + i], i + 1)) {
            snprintf(b->msg, b->msgsz, "launch of instruction %u failed: %s", b->first + i,
                     cudaGetErrorString(cudaGetLastError()));
            return -1;
        }
    return 0;
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
    static const char *const filters[] = {"shared", "ldsm", "stsm", "bank", NULL};
    const uint32_t batch = 200;
    if (bank_prepare()) {
        snprintf(msg, msgsz, "bank kernel setup failed");
        return -1;
    }
    hw_prof_desc pd = {};
    pd.want = candidates;
    pd.nwant = (int)(sizeof candidates / sizeof candidates[0]);
    pd.max_metrics = HW_MAX_METRICS;
    pd.max_ranges = batch + 1;
    pd.list_filters = filters;
    pd.log = log_to_file;
    pd.log_user = log;
    hw_prof *prof = NULL;
    if (hw_prof_open(&pd, &prof, msg, msgsz))
        return -1;
    metrics->n = hw_prof_nmetrics(prof);
    for (int m = 0; m < metrics->n; m++)
        metrics->names[m] = hw_prof_names(prof)[m];
    double *v = (double *)calloc((size_t)(batch + 1) * HW_MAX_METRICS, sizeof *v);
    int rc = v ? 0 : -1;
    if (!v)
        snprintf(msg, msgsz, "out of memory");
    for (uint32_t b0 = 0; rc == 0 && (b0 < count || b0 == 0); b0 += batch) {
        bank_batch b = {instrs, b0, count - b0 < batch ? count - b0 : batch, msg, msgsz};
        int ranges = hw_prof_collect(prof, launch_batch, &b, v, HW_MAX_METRICS, msg, msgsz);
        if (ranges < 0) {
            rc = -1;
            break;
        }
        if ((uint32_t)ranges != b.n + 1) {
            snprintf(msg, msgsz, "batch %u: %d ranges for %u launches", b0, ranges, b.n + 1);
            rc = -1;
            break;
        }
        if (b0 == 0)
            memcpy(baseline, v, sizeof(double) * (size_t)metrics->n);
        else
            for (int m = 0; m < metrics->n; m++)
                if (v[m] != baseline[m])
                    fprintf(log, "warning: baseline of batch %u differs for %s: %g vs %g\n", b0, metrics->names[m],
                            v[m], baseline[m]);
        for (uint32_t r = 1; r <= b.n; r++)
            memcpy(values + (size_t)(b0 + r - 1) * HW_MAX_METRICS, v + (size_t)r * HW_MAX_METRICS,
                   sizeof(double) * (size_t)metrics->n);
        if (count == 0)
            break;
    }
    free(v);
    hw_prof_close(prof);
    return rc;
}
