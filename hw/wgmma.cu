/* tmahw wgmma-record: which shared-memory byte wgmma.mma_async reads for every element
 * of a descriptor-addressed operand, measured.
 *
 * Method: a 1024-aligned region of shared memory is filled with a bit plane of each
 * element's slot number (slot = byte offset / element size; the element holds 1 where
 * bit b of its slot is set, else 0), the instruction multiplies the operand under test
 * by an identity held in a separate area (B = I for A, A = I for B, K-major, no
 * swizzle), and the accumulator then holds, for every operand element, bit b of the
 * slot it was read from. One plane per bit plus an all-ones and an all-zeros fill: an
 * element that reads 1 and 0 under those two was read from inside the region; the bit
 * planes give its slot. A pattern written with st.shared rather than a TMA copy: the
 * question is the descriptor's addressing alone (TMA placement is recorded separately,
 * traces/h100/validation), and every byte of the region is then distinguishable.
 * One CTA per case; cases of one instruction form share one NVRTC-compiled kernel. */
#include <algorithm>
#include <cuda.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <string>
#include <time.h>
#include <vector>

#include "hw.h"
#include "wgmma.h"
#include "wgmma_gen.h"

#define WG_REGION (160u * 1024u)

static const char *kernel_src = R"(
typedef unsigned int u32;
typedef unsigned long long u64;
#define ID_ROWS (TEST_A ? N : 64)
extern "C" __global__ void __launch_bounds__(128) wg_probe(const u64 *descs, u32 *out, u32 region, u32 nbits, u32 *base_out)
{
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    u32 raw = (u32)__cvta_generic_to_shared(smem_raw);
    u32 base = (raw + 1023u) & ~1023u;
    unsigned char *sm = smem_raw + (base - raw);
    int t = threadIdx.x;
    if (blockIdx.x == 0 && t == 0)
        *base_out = base;
    u64 dt = descs[blockIdx.x];
    u64 st = ((dt & 0x3FFFull) + (base >> 4)) & 0x3FFFull;
    dt = (dt & ~0x3FFFull) | st;
    /* identity: ID_ROWS x K, K-major, no swizzle: SBO 128, LBO = ID_ROWS/8 * 128 */
    unsigned char *idp = sm + region;
    for (u32 i = t * 4; i < 4096u; i += 512u)
        *(u32 *)(idp + i) = 0u;
    __syncthreads();
    if (t < KK) {
        u32 kb = t * EB;
        u32 off = (t / 8) * 128u + (t % 8) * 16u + (kb / 16) * ((ID_ROWS / 8) * 128u) + kb % 16;
        for (int b = 0; b < EB; b++)
            idp[off + b] = (unsigned char)(ONE >> (8 * b));
    }
    u32 ida = base + region;
    u64 idd = (u64)((ida >> 4) & 0x3FFF) | ((u64)(((ID_ROWS / 8) * 128u) >> 4) << 16) | ((u64)(128u >> 4) << 32);
    u64 da = TEST_A ? dt : idd, db = TEST_A ? idd : dt;
    for (u32 pass = 0; pass < nbits + 2; pass++) {
        for (u32 w = t; w < region / 4; w += 128) {
            u32 v = 0;
            for (int j = 0; j < 4 / EB; j++) {
                u32 slot = (w * 4) / EB + j;
                u32 bit = pass < nbits ? (slot >> pass) & 1u : (pass == nbits);
                if (bit)
                    v |= (u32)ONE << (8 * EB * j);
            }
            *(u32 *)(sm + w * 4) = v;
        }
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        __syncthreads();
        ACC d[N / 2];
#pragma unroll
        for (int i = 0; i < N / 2; i++)
            d[i] = 0;
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
        WGMMA_ASM
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        u32 *o = out + ((u64)(blockIdx.x * (nbits + 2) + pass) * 128u + t) * (N / 2);
#pragma unroll
        for (int i = 0; i < N / 2; i++)
            o[i] = *(u32 *)&d[i];
        __syncthreads();
    }
}
)";

struct wg_form {
    wg_dtype dtype;
    int test_a, trans;
    uint32_t n;        /* the instruction's N */
};

static std::string asm_text(const wg_form &f)
{
    static const char *ptx_type[] = {"f16", "bf16", "tf32", "e4m3", "e5m2", "s8", "u8"};
    int integer = f.dtype == WG_S8 || f.dtype == WG_U8;
    char head[160];
    snprintf(head, sizeof head, "wgmma.mma_async.sync.aligned.m64n%uk%u.%s.%s.%s ", f.n, wg_k(f.dtype),
             integer ? "s32" : "f32", ptx_type[f.dtype], ptx_type[f.dtype]);
    std::string s = "asm volatile(\"{\\n.reg .pred p;\\nsetp.ne.b32 p, %" + std::to_string(f.n / 2 + 2) +
                    ", 0;\\n" + head + "{";
    for (uint32_t i = 0; i < f.n / 2; i++)
        s += (i ? ", %" : "%") + std::to_string(i);
    s += "}, %" + std::to_string(f.n / 2) + ", %" + std::to_string(f.n / 2 + 1) + ", p";
    if (!integer)
        s += ", 1, 1";
    if (f.dtype == WG_F16 || f.dtype == WG_BF16)
        s += std::string(", ") + (f.test_a && f.trans ? "1" : "0") + ", " + (!f.test_a && f.trans ? "1" : "0");
    s += ";\\n}\\n\" : ";
    for (uint32_t i = 0; i < f.n / 2; i++)
        s += std::string(i ? ", " : "") + (integer ? "\"+r\"(d[" : "\"+f\"(d[") + std::to_string(i) + "])";
    s += " : \"l\"(da), \"l\"(db), \"r\"(1) : \"memory\");";
    return s;
}

static int compile_form(const wg_form &f, CUmodule *mod, CUfunction *fn, std::string &msg)
{
    static const uint32_t one[] = {0x3C00u, 0x3F80u, 0x3F800000u, 0x38u, 0x3Cu, 1u, 1u};
    int integer = f.dtype == WG_S8 || f.dtype == WG_U8;
    char defs[512];
    snprintf(defs, sizeof defs, "#define N %u\n#define KK %u\n#define EB %u\n#define ONE %uu\n#define TEST_A %d\n#define ACC %s\n",
             f.n, wg_k(f.dtype), wg_dtype_bytes(f.dtype), one[f.dtype], f.test_a, integer ? "u32" : "float");
    std::string src = std::string(defs) + "#define WGMMA_ASM " + asm_text(f) + "\n" + kernel_src;
    char err[600];
    if (hw_nvrtc_load(src.c_str(), "wg_probe.cu", NULL, 0, "wg_probe", mod, fn, err, sizeof err)) {
        msg = err;
        return -1;
    }
    CUresult cr = cuFuncSetAttribute(*fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, WG_REGION + 4096 + 1024);
    if (cr != CUDA_SUCCESS) {
        msg = std::string("loading the module: ") + hw_cu_name(cr);
        return -1;
    }
    return 0;
}

/* The accumulator word holding D[m][n] of an m64nN result: thread and register. */
static void d_slot(uint32_t m, uint32_t n, uint32_t *thread, uint32_t *reg)
{
    uint32_t r = m % 16;
    *thread = (m / 16) * 32 + (r % 8) * 4 + (n % 8) / 2;
    *reg = (n / 8) * 4 + (r / 8) * 2 + (n % 2);
}

static int word_bit(uint32_t w, int integer, int *bit)
{
    float f;
    memcpy(&f, &w, 4);
    if (integer ? w == 1u : f == 1.0f)
        return *bit = 1, 1;
    if (integer ? w == 0u : f == 0.0f)
        return *bit = 0, 1;
    return 0;
}

/* Decodes one case's planes into absolute addresses (WG_NOWHERE: not from the region
 * or not a clean 0/1). */
static void decode(const wg_case *c, const wg_form &f, const uint32_t *planes, uint32_t nbits, uint32_t base,
                   uint32_t *addr)
{
    const wg_shape *s = &c->shape;
    uint32_t K = wg_k(s->dtype), E = wg_dtype_bytes(s->dtype), words = f.n / 2;
    int integer = s->dtype == WG_S8 || s->dtype == WG_U8;
    for (uint32_t row = 0; row < wg_rows(s); row++)
        for (uint32_t k = 0; k < K; k++) {
            uint32_t th, rg;
            if (f.test_a)
                d_slot(row, k, &th, &rg);
            else
                d_slot(k, row, &th, &rg);
            uint32_t slot = 0;
            int ok = 1, b1 = -1, b0 = -1;
            for (uint32_t p = 0; p < nbits + 2 && ok; p++) {
                int bit = 0;
                ok = word_bit(planes[((size_t)p * 128 + th) * words + rg], integer, &bit);
                if (p < nbits)
                    slot |= (uint32_t)bit << p;
                else if (p == nbits)
                    b1 = bit;
                else
                    b0 = bit;
            }
            addr[row * K + k] = ok && b1 == 1 && b0 == 0 ? base + slot * E : WG_NOWHERE;
        }
}

/* Runs of equal steps: "start+step*count", hex start, decimal step/count. */
static void write_runs(FILE *o, const uint32_t *a, uint32_t n)
{
    for (uint32_t i = 0; i < n;) {
        uint32_t j = i + 1;
        int64_t step = n > i + 1 ? (int64_t)a[i + 1] - (int64_t)a[i] : 0;
        if (a[i] != WG_NOWHERE)
            while (j < n && a[j] != WG_NOWHERE && (int64_t)a[j] - (int64_t)a[j - 1] == step)
                j++;
        else
            while (j < n && a[j] == WG_NOWHERE)
                j++;
        if (a[i] == WG_NOWHERE)
            fprintf(o, " x*%u", j - i);
        else if (j - i == 1)
            fprintf(o, " %x", a[i]);
        else
            fprintf(o, " %x%+lld*%u", a[i], (long long)step, j - i);
        i = j;
    }
}

static int form_less(const wg_form &a, const wg_form &b)
{
    if (a.dtype != b.dtype)
        return a.dtype < b.dtype;
    if (a.test_a != b.test_a)
        return a.test_a < b.test_a;
    if (a.trans != b.trans)
        return a.trans < b.trans;
    return a.n < b.n;
}

static wg_form form_of(const wg_case *c)
{
    wg_form f;
    f.dtype = c->shape.dtype;
    f.test_a = c->shape.operand == WG_A;
    f.trans = c->shape.major == WG_MN_MAJOR;
    f.n = f.test_a ? wg_k(c->shape.dtype) : c->shape.n;
    return f;
}

int hw_cmd_wgmma_record(int argc, char **argv)
{
    const char *out = NULL, *commit = "unknown";
    size_t limit = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help")) {
            printf("usage: tmahw wgmma-record --out FILE [--limit N] [--commit HASH]\n"
                   "Records, for every case of the wgmma descriptor corpus (sim/wgmma_gen.c), the shared\n"
                   "address each operand element was read from (see traces/FORMAT.md, wgmma).\n");
            return 0;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "tmahw wgmma-record: %s: missing value\n", argv[i]);
            return 2;
        }
        if (!strcmp(argv[i], "--out"))
            out = argv[++i];
        else if (!strcmp(argv[i], "--limit"))
            limit = strtoul(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--commit"))
            commit = argv[++i];
        else {
            fprintf(stderr, "tmahw wgmma-record: %s: unknown flag (see --help)\n", argv[i]);
            return 2;
        }
    }
    if (!out) {
        fprintf(stderr, "tmahw wgmma-record: --out: required\n");
        return 2;
    }
    size_t n = wg_gen_cases(NULL, 0, WG_REGION);
    std::vector<wg_case> cases(n);
    wg_gen_cases(cases.data(), n, WG_REGION);
    if (limit && limit < n)
        n = limit;
    hw_device dev;
    char msg[256];
    if (hw_open(&dev, msg, sizeof msg)) {
        fprintf(stderr, "tmahw: no usable GPU: %s\n", msg);
        return 2;
    }
    std::string tmp = std::string(out) + ".tmp";
    FILE *o = fopen(tmp.c_str(), "w");
    if (!o) {
        fprintf(stderr, "tmahw wgmma-record: --out: cannot write %s\n", tmp.c_str());
        return 2;
    }
    std::vector<size_t> order(n);
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return form_less(form_of(&cases[a]), form_of(&cases[b])); });
    std::vector<std::vector<uint32_t>> addrs(n);
    uint32_t base = 0, faults = 0;
    for (size_t i = 0; i < n;) {
        wg_form f = form_of(&cases[order[i]]);
        size_t j = i;
        while (j < n && !form_less(f, form_of(&cases[order[j]])) && !form_less(form_of(&cases[order[j]]), f))
            j++;
        CUmodule mod;
        CUfunction fn;
        std::string err;
        if (compile_form(f, &mod, &fn, err)) {
            fprintf(stderr, "tmahw wgmma-record: %s n%u: %s\n", wg_dtype_name(f.dtype), f.n, err.c_str());
            return 2;
        }
        uint32_t E = wg_dtype_bytes(f.dtype), nbits = 0;
        while ((1u << nbits) < WG_REGION / E)
            nbits++;
        size_t cnt = j - i, words = (size_t)(nbits + 2) * 128 * (f.n / 2);
        std::vector<uint64_t> descs(cnt);
        for (size_t c = 0; c < cnt; c++)
            descs[c] = wg_desc_encode(&cases[order[i + c]].desc);
        CUdeviceptr dd, dout, dbase;
        cuMemAlloc(&dd, cnt * 8);
        cuMemAlloc(&dout, cnt * words * 4);
        cuMemAlloc(&dbase, 4);
        cuMemcpyHtoD(dd, descs.data(), cnt * 8);
        uint32_t region = WG_REGION;
        void *args[] = {&dd, &dout, &region, &nbits, &dbase};
        CUresult cr = cuLaunchKernel(fn, (unsigned)cnt, 1, 1, 128, 1, 1, WG_REGION + 4096 + 1024, NULL, args, NULL);
        if (cr == CUDA_SUCCESS)
            cr = cuCtxSynchronize();
        if (cr != CUDA_SUCCESS) {
            fprintf(stderr, "tmahw wgmma-record: %s n%u: launch: %s\n", wg_dtype_name(f.dtype), f.n, hw_cu_name(cr));
            return 2;
        }
        std::vector<uint32_t> planes(cnt * words);
        cuMemcpyDtoH(planes.data(), dout, cnt * words * 4);
        cuMemcpyDtoH(&base, dbase, 4);
        for (size_t c = 0; c < cnt; c++) {
            const wg_case *wc = &cases[order[i + c]];
            addrs[order[i + c]].resize(wg_elements(&wc->shape));
            decode(wc, f, planes.data() + c * words, nbits, base, addrs[order[i + c]].data());
        }
        cuMemFree(dd);
        cuMemFree(dout);
        cuMemFree(dbase);
        cuModuleUnload(mod);
        fprintf(stderr, "\r%zu/%zu cases", j, n);
        i = j;
    }
    fprintf(stderr, "\n");
    time_t now = time(NULL);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    fprintf(o, "# tmahw wgmma-record: shared address read for each operand element (traces/FORMAT.md)\n");
    fprintf(o, "# gpu %s\n# driver %d\n# date %s\n# commit %s\n# region_base 0x%x\n# region_bytes %u\n", dev.name,
            dev.driver_version, date, commit, base, WG_REGION);
    for (size_t i = 0; i < n; i++) {
        const wg_case *c = &cases[i];
        wg_desc d = c->desc;
        d.start += base;
        char tile[400] = "-";
        if (c->has_tile)
            wg_case_tile_flags(c, base, tile, sizeof tile);
        fprintf(o, "%s\t%s\t%s\t%s\t%u\t0x%016llx\t%s\t%s\t", c->name, wg_dtype_name(c->shape.dtype),
                c->shape.operand == WG_A ? "a" : "b", c->shape.major == WG_K_MAJOR ? "k" : "mn", c->shape.n,
                (unsigned long long)wg_desc_encode(&d), c->variant, tile);
        write_runs(o, addrs[i].data(), (uint32_t)addrs[i].size());
        fputc('\n', o);
        for (uint32_t a : addrs[i])
            faults += a == WG_NOWHERE;
    }
    fclose(o);
    rename(tmp.c_str(), out);
    fprintf(stderr, "tmahw wgmma-record: %zu cases, %u element reads not decoded, base 0x%x -> %s\n", n, faults, base,
            out);
    return 0;
}
