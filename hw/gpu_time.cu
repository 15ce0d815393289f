/* gpu_time: CUPTI kernel activity records and the device-to-device copy bandwidth (see
 * gpu_time.h). */
#include <cuda_runtime.h>
#include <cupti.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <vector>

#include "gpu_time.h"

namespace {

std::vector<gt_kernel_time> g_act;

void CUPTIAPI buf_request(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *size = 1 << 20;
    *buffer = (uint8_t *)aligned_alloc(8, *size);
    *max_records = 0;
}

void CUPTIAPI buf_complete(CUcontext, uint32_t, uint8_t *buffer, size_t, size_t valid)
{
    CUpti_Activity *rec = NULL;
    while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
        if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || rec->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
            const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)rec;
            g_act.push_back({k->start, k->end});
        }
    }
    free(buffer);
}

} // namespace

int gt_cupti_on(char *msg, size_t msgsz)
{
    static int done = 0;
    if (done)
        return 0;
    CUptiResult r = cuptiActivityRegisterCallbacks(buf_request, buf_complete);
    if (r == CUPTI_SUCCESS)
        r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    if (r != CUPTI_SUCCESS) {
        const char *s = NULL;
        cuptiGetResultString(r, &s);
        snprintf(msg, msgsz, "CUPTI activity: %s", s ? s : "?");
        return -1;
    }
    done = 1;
    return 0;
}

int gt_cupti_last(gt_kernel_time *out)
{
    size_t before = g_act.size();
    cuptiActivityFlushAll(1);
    if (g_act.size() <= before && g_act.empty())
        return -1;
    *out = g_act.back();
    return g_act.size() > before ? 0 : -1;
}

int gt_d2d_samples(double *samples, int n)
{
    const size_t bytes = 1ull << 30;
    void *a = NULL, *b = NULL;
    if (cudaMalloc(&a, bytes) != cudaSuccess || cudaMalloc(&b, bytes) != cudaSuccess) {
        cudaFree(a);
        return 0;
    }
    cudaMemset(a, 1, bytes);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    int got = 0;
    for (int i = 0; i <= n; i++) {
        cudaEventRecord(e0);
        cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float t = 0;
        cudaEventElapsedTime(&t, e0, e1);
        if (i > 0 && t > 0)
            samples[got++] = 2.0 * (double)bytes / (t * 1e6);   /* read + written, per ns */
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaFree(a);
    cudaFree(b);
    return got;
}

double gt_d2d_bandwidth(double *ms_out)
{
    std::vector<double> s(10);
    int n = gt_d2d_samples(s.data(), 10);
    if (n == 0)
        return 0;
    s.resize((size_t)n);
    std::sort(s.begin(), s.end());
    double bw = s[s.size() / 2];
    *ms_out = 2.0 * (double)(1ull << 30) / (bw * 1e6);
    return bw;
}
