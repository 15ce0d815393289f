/* record_cuda: device buffers of hw/record.cuh and the %globaltimer/CUPTI offset (see
 * record_cuda.h). */
#include "record_cuda.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cu_fail(CUresult r, const char *what, char *msg, size_t msgsz)
{
    const char *s = NULL;
    cuGetErrorName(r, &s);
    snprintf(msg, msgsz, "%s: %s", what, s ? s : "CUDA error");
    return -1;
}

int rec_cuda_symbol(CUmodule mod, CUdeviceptr *sym, char *msg, size_t msgsz)
{
    size_t size = 0;
    CUresult r = cuModuleGetGlobal(sym, &size, mod, "tmascope_rec");
    if (r == CUDA_ERROR_NOT_FOUND)
        return 1;
    if (r != CUDA_SUCCESS)
        return cu_fail(r, "cuModuleGetGlobal(tmascope_rec)", msg, msgsz);
    if (size != sizeof(rec_dev)) {
        snprintf(msg, msgsz, "tmascope_rec is %zu bytes, this recorder expects %zu (another version of record.cuh)",
                 size, sizeof(rec_dev));
        return -1;
    }
    return 0;
}

/* at least `need` bytes at *p (contents undefined) */
static int grow(CUdeviceptr *p, size_t *have, size_t need, const char *what, char *msg, size_t msgsz)
{
    if (*have >= need && *p)
        return 0;
    if (*p)
        cuMemFree(*p);
    *p = 0;
    *have = 0;
    CUresult r = cuMemAlloc(p, need ? need : 16);
    if (r != CUDA_SUCCESS) {
        char w[96];
        snprintf(w, sizeof w, "cuMemAlloc of %zu bytes for the %s", need, what);
        return cu_fail(r, w, msg, msgsz);
    }
    *have = need;
    return 0;
}

int rec_cuda_bind(rec_cuda *b, CUdeviceptr sym, uint32_t ctas, uint32_t nwarps, uint32_t cap, char *msg, size_t msgsz)
{
    const size_t warps = (size_t)ctas * nwarps;
    if (grow(&b->ev, &b->ev_bytes, warps * cap * REC_EVENT_BYTES, "records", msg, msgsz) ||
        grow(&b->evn, &b->evn_bytes, warps * 4, "record counts", msg, msgsz) ||
        grow(&b->cta, &b->cta_bytes, (size_t)ctas * 32, "clock pairs", msg, msgsz) ||
        grow(&b->sm, &b->sm_bytes, (size_t)ctas * 4, "SM numbers", msg, msgsz))
        return -1;
    CUresult r;
    if ((r = cuMemsetD32(b->evn, 0, warps)) != CUDA_SUCCESS || (r = cuMemsetD32(b->cta, 0, (size_t)ctas * 8)) != CUDA_SUCCESS)
        return cu_fail(r, "cuMemsetD32", msg, msgsz);
    rec_dev d = {b->ev, b->evn, b->cta, b->sm, cap, nwarps, ctas, REC_MAGIC};
    if ((r = cuMemcpyHtoD(sym, &d, sizeof d)) != CUDA_SUCCESS)
        return cu_fail(r, "cuMemcpyHtoD(tmascope_rec)", msg, msgsz);
    b->dev = d;
    return 0;
}

int rec_cuda_fetch(const rec_cuda *b, rec_launch *l, char *msg, size_t msgsz)
{
    err_info e;
    l->ctas = b->dev.nctas;
    l->nwarps = b->dev.nwarps;
    l->cap = b->dev.cap;
    l->stride = b->dev.cap;
    if (rec_launch_alloc(l, &e) != ERR_OK) {
        snprintf(msg, msgsz, "%s", e.detail);
        return -1;
    }
    const size_t warps = (size_t)l->ctas * l->nwarps;
    CUresult r;
    if ((r = cuMemcpyDtoH(l->evn, b->evn, warps * 4)) != CUDA_SUCCESS ||
        (r = cuMemcpyDtoH(l->cta_time, b->cta, (size_t)l->ctas * 32)) != CUDA_SUCCESS ||
        (r = cuMemcpyDtoH(l->cta_sm, b->sm, (size_t)l->ctas * 4)) != CUDA_SUCCESS ||
        (r = cuMemcpyDtoH(l->ev, b->ev, warps * l->cap * REC_EVENT_BYTES)) != CUDA_SUCCESS) {
        rec_launch_free(l);
        return cu_fail(r, "cuMemcpyDtoH of the recording", msg, msgsz);
    }
    return 0;
}

void rec_cuda_free(rec_cuda *b)
{
    CUdeviceptr *p[4] = {&b->ev, &b->evn, &b->cta, &b->sm};
    for (int k = 0; k < 4; k++)
        if (*p[k])
            cuMemFree(*p[k]);
    memset(b, 0, sizeof *b);
}

/* one thread stores %globaltimer, read first */
static const char calib_ptx[] =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry tmascope_gt(.param .u64 out)\n{\n"
    "  .reg .b64 %rd<4>;\n"
    "  mov.u64 %rd1, %globaltimer;\n"
    "  ld.param.u64 %rd2, [out];\n"
    "  cvta.to.global.u64 %rd3, %rd2;\n"
    "  st.global.u64 [%rd3], %rd1;\n"
    "  ret;\n}\n";

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

int rec_cuda_calibrate(rec_cupti_last_fn last, void *user, int64_t *offset, int64_t *spread, char *msg, size_t msgsz)
{
    CUmodule mod = NULL;
    CUfunction fn = NULL;
    CUdeviceptr d = 0;
    CUresult r = cuModuleLoadData(&mod, calib_ptx);
    if (r != CUDA_SUCCESS)
        return cu_fail(r, "cuModuleLoadData(calibration PTX)", msg, msgsz);
    int64_t v[16];
    int n = 0;
    if ((r = cuModuleGetFunction(&fn, mod, REC_CALIB_KERNEL)) != CUDA_SUCCESS || (r = cuMemAlloc(&d, 8)) != CUDA_SUCCESS) {
        cuModuleUnload(mod);
        return cu_fail(r, "calibration kernel", msg, msgsz);
    }
    for (int i = 0; i < 17 && r == CUDA_SUCCESS; i++) {
        void *args[1] = {&d};
        r = cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL);
        if (r == CUDA_SUCCESS)
            r = cuCtxSynchronize();
        uint64_t s = 0, e = 0, g = 0;
        if (r != CUDA_SUCCESS || last(user, &s, &e) || cuMemcpyDtoH(&g, d, 8) != CUDA_SUCCESS)
            continue;
        if (i > 0)   /* the first launch loads the module */
            v[n++] = (int64_t)s - (int64_t)g;
    }
    cuMemFree(d);
    cuModuleUnload(mod);
    if (n == 0) {
        snprintf(msg, msgsz, "calibration: no CUPTI kernel record%s", r == CUDA_SUCCESS ? "" : " (launch failed)");
        return -1;
    }
    qsort(v, (size_t)n, sizeof v[0], cmp_i64);
    *offset = v[n / 2];
    *spread = v[n - 1] - v[0];
    return 0;
}
