/* util: driver setup, names and JSON helpers of the hardware runner. */
#include <cuda.h>
#include <nvrtc.h>
#include <stdio.h>
#include <string.h>
#include <vector>

#include "hw.h"

const char *hw_cu_name(CUresult r)
{
    const char *s = NULL;
    if (cuGetErrorName(r, &s) != CUDA_SUCCESS || !s)
        return "CUDA_ERROR_UNKNOWN_CODE";
    return s;
}

int hw_open(hw_device *d, char *msg, size_t msgsz)
{
    memset(d, 0, sizeof *d);
    CUresult r = cuInit(0);
    if (r != CUDA_SUCCESS) {
        snprintf(msg, msgsz, "cuInit: %s", hw_cu_name(r));
        return (int)r;
    }
    int n = 0;
    cuDeviceGetCount(&n);
    if (n < 1) {
        snprintf(msg, msgsz, "no CUDA device");
        return (int)CUDA_ERROR_NO_DEVICE;
    }
    if ((r = cuDeviceGet(&d->dev, 0)) != CUDA_SUCCESS || (r = cuDevicePrimaryCtxRetain(&d->ctx, d->dev)) != CUDA_SUCCESS ||
        (r = cuCtxSetCurrent(d->ctx)) != CUDA_SUCCESS) {
        snprintf(msg, msgsz, "context: %s", hw_cu_name(r));
        return (int)r;
    }
    cuDeviceGetName(d->name, sizeof d->name, d->dev);
    cuDriverGetVersion(&d->driver_version);
    cuDeviceGetAttribute(&d->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d->dev);
    cuDeviceGetAttribute(&d->cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d->dev);
    return 0;
}

void hw_close(hw_device *d)
{
    if (d->ctx)
        cuDevicePrimaryCtxRelease(d->dev);
    d->ctx = NULL;
}

/* Spellings of the driver enums as the CLI writes them; the recording keeps the raw
 * numbers too, so values outside the enums (probes) are still exact. */
static const char *const dtype_names[] = {"u8", "u16", "u32", "s32", "u64", "s64", "f16", "f32", "f64", "bf16",
                                          "f32ftz", "tf32", "tf32ftz", "16u4align8b", "16u4align16b", "16u6align16b"};
static const char *const swizzle_names[] = {"none", "32B", "64B", "128B", "128B_atom_32B", "128B_atom_32B_flip_8B",
                                            "128B_atom_64B"};
static const char *const interleave_names[] = {"none", "16B", "32B"};
static const char *const l2_names[] = {"none", "64B", "128B", "256B"};
static const char *const oob_names[] = {"none", "nan"};
#define NAME(tab, v) ((unsigned)(v) < sizeof tab / sizeof tab[0] ? tab[(unsigned)(v)] : "invalid")

void hw_json_desc(FILE *f, const tm_desc *d)
{
    uint32_t r = d->rank < TM_MAX_RANK ? d->rank : TM_MAX_RANK;
    fprintf(f, "\"dtype\":\"%s\",\"dtype_id\":%d,\"rank\":%u,\"dims\":[", NAME(dtype_names, d->dtype), (int)d->dtype, d->rank);
    for (uint32_t i = 0; i < r; i++)
        fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)d->dims[i]);
    fprintf(f, "],\"strides\":[");
    for (uint32_t i = 0; i + 1 < r; i++)
        fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)d->strides[i]);
    fprintf(f, "],\"box\":[");
    for (uint32_t i = 0; i < r; i++)
        fprintf(f, "%s%u", i ? "," : "", d->box[i]);
    fprintf(f, "],\"elem_strides\":[");
    for (uint32_t i = 0; i < r; i++)
        fprintf(f, "%s%u", i ? "," : "", d->elem_strides[i]);
    fprintf(f, "],\"interleave\":\"%s\",\"interleave_id\":%d,\"swizzle\":\"%s\",\"swizzle_id\":%d,"
               "\"l2_promotion\":\"%s\",\"l2_promotion_id\":%d,\"oob_fill\":\"%s\",\"oob_fill_id\":%d,"
               "\"global_address\":%llu",
            NAME(interleave_names, d->interleave), (int)d->interleave, NAME(swizzle_names, d->swizzle), (int)d->swizzle,
            NAME(l2_names, d->l2_promotion), (int)d->l2_promotion, NAME(oob_names, d->oob_fill), (int)d->oob_fill,
            (unsigned long long)d->global_address);
}

void hw_json_hex(FILE *f, const uint8_t *p, size_t n)
{
    static const char hx[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        fputc(hx[p[i] >> 4], f);
        fputc(hx[p[i] & 15], f);
    }
}

const char *hw_bank_op_str(const bank_instr *in)
{
    static char buf[32];
    snprintf(buf, sizeof buf, "%s%s", bank_op_name(in->op), in->trans ? ".trans" : "");
    return buf;
}

int hw_nvrtc_load(const char *src, const char *file, const char *const *opts, int nopts, const char *kernel,
                  CUmodule *mod, CUfunction *fn, char *msg, size_t msgsz)
{
    nvrtcProgram prog;
    if (nvrtcCreateProgram(&prog, src, file, 0, NULL, NULL) != NVRTC_SUCCESS) {
        snprintf(msg, msgsz, "nvrtcCreateProgram failed");
        return -1;
    }
    std::vector<const char *> all = {"-arch=sm_90a", "-std=c++17"};
    all.insert(all.end(), opts, opts + nopts);
    nvrtcResult r = nvrtcCompileProgram(prog, (int)all.size(), all.data());
    if (r != NVRTC_SUCCESS) {
        size_t n = 0;
        nvrtcGetProgramLogSize(prog, &n);
        std::vector<char> log(n + 1, 0);
        nvrtcGetProgramLog(prog, log.data());
        char *nl = strchr(log.data(), '\n');
        if (nl && strchr(nl + 1, '\n'))
            *strchr(nl + 1, '\n') = 0;
        for (char *c = log.data(); *c; c++)
            if (*c == '\n')
                *c = ' ';
        snprintf(msg, msgsz, "NVRTC: %s: %.400s", nvrtcGetErrorString(r), log.data());
        nvrtcDestroyProgram(&prog);
        return -1;
    }
    size_t n = 0;
    nvrtcGetCUBINSize(prog, &n);
    std::vector<char> cubin(n);
    nvrtcGetCUBIN(prog, cubin.data());
    nvrtcDestroyProgram(&prog);
    CUresult cr = cuModuleLoadData(mod, cubin.data());
    if (cr == CUDA_SUCCESS && (cr = cuModuleGetFunction(fn, *mod, kernel)) != CUDA_SUCCESS)
        cuModuleUnload(*mod);
    if (cr != CUDA_SUCCESS) {
        snprintf(msg, msgsz, "loading the module: %s", hw_cu_name(cr));
        return -1;
    }
    return 0;
}
