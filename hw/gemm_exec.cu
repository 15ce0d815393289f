/* gemm_exec: `tmahw run` of a GEMM description (math kind wgmma): the generated kernel
 * (hw/gemm_gen.c + hw/gemm_kernel.cuh, NVRTC), checked element by element against a
 * reference GEMM, timed beside cuBLASLt on the same operands in the same run, and traced
 * per warp for the first CTAs.
 *
 * Check: A and B hold integers in -2..2 (exact in bf16, f16, e4m3 and e5m2), so every product and
 * every partial sum of K <= 2^21 terms is an integer below 2^24: f32 accumulation is exact
 * in any order, and the right C is the exact sum rounded once to bf16. The generated
 * kernel must match that bit for bit (tolerance 0); the reference is a plain GPU kernel
 * (one thread per element, f32), itself checked against sums computed on the host in
 * double at 4096 random elements. */
#include "gemm_exec.h"

#include <algorithm>
#include <string.h>
#include <time.h>
#include <vector>

#include <cublasLt.h>
#include <cuda_runtime.h>

#include "gemm_gen.h"
#include "gpu_time.h"
#include "hw.h"
#include "pipe_gemm.h"
#include "pipe_plan.h"
#include "rfile.h"
#include "run.h"
#include "trace.h"
#include "wgmma.h"

namespace {

enum { EXIT_OK = 0, EXIT_FINDING = 1, EXIT_BAD = 2 };

/* The operand type's encodings of -2, -1, 0, 1, 2 (every operand value is one of them). */
struct enc {
    int eb;
    unsigned v[5];
};
enc enc_of(wg_dtype t)
{
    switch (t) {
    case WG_F16: return {2, {0xC000, 0xBC00, 0x0000, 0x3C00, 0x4000}};
    case WG_E4M3: return {1, {0xC0, 0xB8, 0x00, 0x38, 0x40}};
    case WG_E5M2: return {1, {0xC0, 0xBC, 0x00, 0x3C, 0x40}};
    default: return {2, {0xC000, 0xBF80, 0x0000, 0x3F80, 0x4000}};   /* bf16 */
    }
}

/* the integer an operand element holds: 0, +-1 (`one`'s magnitude) or +-2 */
__host__ __device__ int int_of(unsigned x, int eb, unsigned one)
{
    unsigned sign = eb == 2 ? 0x8000u : 0x80u, mag = x & (sign - 1);
    int a = mag == 0 ? 0 : mag == one ? 1 : 2;
    return x & sign ? -a : a;
}

/* the reference: C[m][n] = sum_k A[m][k] B[n][k], operands decoded from integers */
__device__ float ref_val(const unsigned char *p, size_t i, int eb, unsigned one)
{
    return (float)int_of(eb == 2 ? ((const unsigned short *)p)[i] : p[i], eb, one);
}
__global__ void ref_gemm(const unsigned char *A, const unsigned char *B, unsigned short *C, int M, int N, int K, int eb,
                         unsigned one)
{
    __shared__ float as[16][17], bs[16][17];
    int n = blockIdx.x * 16 + threadIdx.x, m = blockIdx.y * 16 + threadIdx.y;
    float acc = 0.f;
    for (int k0 = 0; k0 < K; k0 += 16) {
        as[threadIdx.y][threadIdx.x] = ref_val(A, (size_t)(blockIdx.y * 16 + threadIdx.y) * K + k0 + threadIdx.x, eb, one);
        bs[threadIdx.y][threadIdx.x] = ref_val(B, (size_t)(blockIdx.x * 16 + threadIdx.y) * K + k0 + threadIdx.x, eb, one);
        __syncthreads();
        for (int k = 0; k < 16; k++)
            acc += as[threadIdx.y][k] * bs[threadIdx.x][k];
        __syncthreads();
    }
    if (m < M && n < N) {
        unsigned u = __float_as_uint(acc);
        u += 0x7fff + ((u >> 16) & 1);   /* round to nearest even (finite values) */
        C[(size_t)m * N + n] = (unsigned short)(u >> 16);
    }
}
__global__ void count_diff(const unsigned short *a, const unsigned short *b, size_t n, unsigned long long *out)
{
    unsigned long long local = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        local += a[i] != b[i];
    atomicAdd(out, local);
}

struct lcg {
    unsigned long long s;
    unsigned next() { return (unsigned)((s = s * 6364136223846793005ull + 1442695040888963407ull) >> 33); }
};

/* integers -2..2 as the operand type */
void fill(std::vector<unsigned char> &v, size_t n, const enc &en, unsigned long long seed)
{
    lcg r{seed};
    v.resize(n * en.eb);
    for (size_t i = 0; i < n; i++) {
        unsigned x = en.v[r.next() % 5];
        if (en.eb == 2)
            ((unsigned short *)v.data())[i] = (unsigned short)x;
        else
            v[i] = (unsigned char)x;
    }
}
int host_val(const std::vector<unsigned char> &v, size_t i, const enc &en)
{
    return int_of(en.eb == 2 ? ((const unsigned short *)v.data())[i] : v[i], en.eb, en.v[3]);
}
unsigned short host_bf16(double x)
{
    float f = (float)x;
    unsigned u;
    memcpy(&u, &f, 4);
    u += 0x7fff + ((u >> 16) & 1);
    return (unsigned short)(u >> 16);
}

#define CK(x)                                                                                                          \
    do {                                                                                                               \
        cudaError_t err_ = (x);                                                                                        \
        if (err_ != cudaSuccess) {                                                                                     \
            fprintf(stderr, "tmahw run: %s: %s\n", #x, cudaGetErrorString(err_));                                      \
            return EXIT_BAD;                                                                                           \
        }                                                                                                              \
    } while (0)

struct gemm_bufs {
    unsigned char *A = nullptr, *B = nullptr;
    unsigned short *C = nullptr, *Cref = nullptr, *Cblas = nullptr;
    void *ws = nullptr;
    size_t ws_bytes = 64u << 20;
    GmEvHost *ev = nullptr;
    unsigned *evn = nullptr;
    unsigned long long *diff = nullptr;
    unsigned long long *clk = nullptr;   /* per CTA: start globaltimer, clock64, end globaltimer, clock64 */
};

/* cuBLASLt: C row-major (M x N) is D column-major (N x M) = B (N x K) times A^T: the "TN"
 * GEMM of two K-major operands */
struct blas {
    cublasLtHandle_t h = nullptr;
    cublasLtMatmulDesc_t op = nullptr;
    cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
    cublasLtMatmulHeuristicResult_t heur{};
    float alpha = 1.f, beta = 0.f;
    int ok = 0;
    char why[160] = "";
};
int blas_setup(blas &b, int M, int N, int K, wg_dtype dt, size_t ws_bytes)
{
    cudaDataType_t t = dt == WG_F16 ? CUDA_R_16F : dt == WG_E4M3 ? CUDA_R_8F_E4M3 : dt == WG_E5M2 ? CUDA_R_8F_E5M2 : CUDA_R_16BF;
    if (cublasLtCreate(&b.h) != CUBLAS_STATUS_SUCCESS)
        return snprintf(b.why, sizeof b.why, "cublasLtCreate failed"), -1;
    cublasLtMatmulDescCreate(&b.op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
    cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    cublasLtMatmulDescSetAttribute(b.op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta);
    cublasLtMatmulDescSetAttribute(b.op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb);
    /* cuBLAS's A is our B (N x K, ld K, transposed), its B our A (K x M column-major) */
    cublasLtMatrixLayoutCreate(&b.la, t, K, N, K);
    cublasLtMatrixLayoutCreate(&b.lb, t, K, M, K);
    cublasLtMatrixLayoutCreate(&b.lc, CUDA_R_16BF, N, M, N);
    cublasLtMatmulPreference_t pref;
    cublasLtMatmulPreferenceCreate(&pref);
    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes, sizeof ws_bytes);
    int n = 0;
    cublasStatus_t s = cublasLtMatmulAlgoGetHeuristic(b.h, b.op, b.la, b.lb, b.lc, b.lc, pref, 1, &b.heur, &n);
    cublasLtMatmulPreferenceDestroy(pref);
    if (s != CUBLAS_STATUS_SUCCESS || n == 0)
        return snprintf(b.why, sizeof b.why, "cublasLtMatmulAlgoGetHeuristic: no algorithm (status %d)", (int)s), -1;
    b.ok = 1;
    return 0;
}
int blas_run(blas &b, const gemm_bufs &g)
{
    cublasStatus_t s = cublasLtMatmul(b.h, b.op, &b.alpha, g.B, b.la, g.A, b.lb, &b.beta, g.Cblas, b.lc, g.Cblas, b.lc,
                                      &b.heur.algo, g.ws, g.ws_bytes, 0);
    return s == CUBLAS_STATUS_SUCCESS ? 0 : -1;
}
void blas_free(blas &b)
{
    if (b.la) cublasLtMatrixLayoutDestroy(b.la);
    if (b.lb) cublasLtMatrixLayoutDestroy(b.lb);
    if (b.lc) cublasLtMatrixLayoutDestroy(b.lc);
    if (b.op) cublasLtMatmulDescDestroy(b.op);
    if (b.h) cublasLtDestroy(b.h);
}

double median(std::vector<double> v)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

/* One launch's per-CTA clocks (see tmahw_gemm): the median SM clock over CTAs (clock64
 * cycles over globaltimer ns), how far apart the CTAs started, and how many started after
 * the first CTA had ended (a second wave: the grid did not fit at once). */
struct cta_clocks {
    double ghz = 0, start_spread_ns = 0, cta_ns = 0, span_ns = 0;
    unsigned late = 0;
};
cta_clocks clocks_of(const std::vector<unsigned long long> &c, unsigned ctas)
{
    cta_clocks r;
    std::vector<double> g, ns;
    unsigned long long s0 = ~0ull, s1 = 0, e0 = ~0ull, e1 = 0;
    for (unsigned b = 0; b < ctas; b++) {
        const unsigned long long *x = &c[4 * (size_t)b];
        if (x[2] <= x[0] || x[3] <= x[1])
            continue;
        g.push_back((double)(x[3] - x[1]) / (double)(x[2] - x[0]));
        ns.push_back((double)(x[2] - x[0]));
        s0 = std::min(s0, x[0]);
        s1 = std::max(s1, x[0]);
        e0 = std::min(e0, x[2]);
        e1 = std::max(e1, x[2]);
    }
    if (g.empty())
        return r;
    std::sort(g.begin(), g.end());
    std::sort(ns.begin(), ns.end());
    r.ghz = g[g.size() / 2];
    r.cta_ns = ns[ns.size() / 2];
    r.span_ns = (double)(e1 - s0);
    r.start_spread_ns = (double)(s1 - s0);
    for (unsigned b = 0; b < ctas; b++)
        r.late += c[4 * (size_t)b] > e0 && c[4 * (size_t)b + 2] > c[4 * (size_t)b];
    return r;
}

/* the Range Profiler's launch callback: one untimed launch of the generated kernel */
template <class F> int launch_untimed(void *f) { return (*(F *)f)(0) == CUDA_SUCCESS ? 0 : -1; }

} // namespace

int gemm_encode_maps(const pipe_desc *d, const unsigned char *A, const unsigned char *B, const unsigned short *C,
                     CUtensorMap maps[3])
{
    tm_desc a = d->tensors[0].map, b = d->tensors[1].map;
    a.global_address = (uint64_t)(uintptr_t)A;
    b.global_address = (uint64_t)(uintptr_t)B;
    a.l2_promotion = b.l2_promotion = TM_L2_256B;
    if (d->multicast)
        b.box[1] /= d->cluster;   /* each CTA of the cluster loads its slice of B's tile for both */
    tm_desc c;
    tm_desc_defaults(&c);
    c.dtype = TM_DTYPE_BF16;
    c.rank = 2;
    c.global_address = (uint64_t)(uintptr_t)C;
    c.dims[0] = d->gemm.n;
    c.dims[1] = d->gemm.m;
    c.strides[0] = (uint64_t)d->gemm.n * 2;
    c.box[0] = 64;
    c.box[1] = 64;
    c.swizzle = TM_SWIZZLE_128B;
    CUresult r = hw_encode(&a, &maps[0]);
    if (r == CUDA_SUCCESS)
        r = hw_encode(&b, &maps[1]);
    if (r == CUDA_SUCCESS)
        r = hw_encode(&c, &maps[2]);
    return (int)r;
}

int gemm_cmd_run(const pipe_desc *d, const gemm_run_opts *o)
{
    err_info e = {};
    char *src = NULL;
    if (gemm_gen_source(d, &src, &e) != ERR_OK) {
        fprintf(stderr, "tmahw run: %s\n", e.detail);
        return EXIT_BAD;
    }
    if (o->src_path) {
        FILE *f = fopen(o->src_path, "w");
        if (!f || fputs(src, f) < 0 || fclose(f)) {
            fprintf(stderr, "tmahw run: --source: cannot write '%s'\n", o->src_path);
            return EXIT_BAD;
        }
    }
    pipe_gemm_finding fnd[PIPE_GEMM_FINDINGS_MAX];
    uint32_t nfnd = pipe_gemm_findings(d, fnd);
    hw_device dev;
    char msg[600];
    if (hw_open(&dev, msg, sizeof msg)) {
        fprintf(stderr, "tmahw run: no usable GPU: %s\n", msg);
        return EXIT_BAD;
    }
    if (dev.cc_major != 9) {
        fprintf(stderr, "tmahw run: no usable GPU: %s is sm_%d%d (needs sm_90)\n", dev.name, dev.cc_major, dev.cc_minor);
        return EXIT_BAD;
    }
    CUmodule mod[2];
    CUfunction fn[2];
    char level_opt[40];
    snprintf(level_opt, sizeof level_opt, "-DGM_REC_LEVEL=%d", o->record_level > 0 ? o->record_level : 1);
    for (int rec = 0; rec < 2; rec++) {
        const char *opts[2] = {rec ? "-DGM_RECORD=1" : "-DGM_RECORD=0", level_opt};
        if (hw_nvrtc_load(src, "tmahw_gemm.cu", opts, 2, "tmahw_gemm", &mod[rec], &fn[rec], msg, sizeof msg)) {
            fprintf(stderr, "tmahw run: %s\n", msg);
            return EXIT_BAD;
        }
    }
    free(src);
    const int M = (int)d->gemm.m, N = (int)d->gemm.n, K = (int)d->gemm.k;
    const wg_dtype dt = (wg_dtype)d->wgmma.dtype;
    const enc en = enc_of(dt);
    std::vector<unsigned char> hA, hB;
    fill(hA, (size_t)M * K, en, 1);
    fill(hB, (size_t)N * K, en, 2);
    gemm_bufs g;
    const uint32_t rec_ctas = std::min<uint32_t>(o->trace_ctas ? o->trace_ctas : 2, d->ctas);
    const uint32_t nwarps = 4 * (d->gemm.consumer_groups + 1);
    const uint32_t ev_cap = 4 * d->iterations + 4 * pipe_gemm_cta_tiles(d, 0) + 64;
    CK(cudaMalloc(&g.A, hA.size()));
    CK(cudaMalloc(&g.B, hB.size()));
    CK(cudaMalloc(&g.C, (size_t)M * N * 2));
    CK(cudaMalloc(&g.Cref, (size_t)M * N * 2));
    CK(cudaMalloc(&g.Cblas, (size_t)M * N * 2));
    CK(cudaMalloc(&g.ws, g.ws_bytes));
    CK(cudaMalloc(&g.ev, (size_t)rec_ctas * nwarps * ev_cap * sizeof(GmEvHost)));
    CK(cudaMalloc(&g.evn, (size_t)rec_ctas * nwarps * 4));
    CK(cudaMalloc(&g.diff, 8));
    CK(cudaMalloc(&g.clk, (size_t)d->ctas * 4 * 8));
    CK(cudaMemcpy(g.A, hA.data(), hA.size(), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(g.B, hB.data(), hB.size(), cudaMemcpyHostToDevice));
    CUtensorMap maps[3];
    if (gemm_encode_maps(d, g.A, g.B, g.C, maps)) {
        fprintf(stderr, "tmahw run: cuTensorMapEncodeTiled rejected a map of the gemm\n");
        return EXIT_BAD;
    }
    const uint32_t smem = gemm_gen_smem_bytes(d), threads = 128 * (d->gemm.consumer_groups + 1);
    for (int rec = 0; rec < 2; rec++)
        cuFuncSetAttribute(fn[rec], CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)smem);
    unsigned zero_cap = 0, cap = ev_cap;
    auto launch = [&](int rec) -> CUresult {
        unsigned rc_ctas = rec ? rec_ctas : 0;
        void *args[] = {&maps[0], &maps[1], &maps[2], &g.C, &g.ev, &g.evn, rec ? &cap : &zero_cap, &rc_ctas, &g.clk};
        CUlaunchConfig cfg = {};
        cfg.gridDimX = d->ctas;
        cfg.gridDimY = cfg.gridDimZ = 1;
        cfg.blockDimX = threads;
        cfg.blockDimY = cfg.blockDimZ = 1;
        cfg.sharedMemBytes = smem;
        CUlaunchAttribute attr[1];
        if (d->cluster > 1) {
            attr[0].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
            attr[0].value.clusterDim.x = d->cluster;
            attr[0].value.clusterDim.y = attr[0].value.clusterDim.z = 1;
            cfg.attrs = attr;
            cfg.numAttrs = 1;
        }
        return cuLaunchKernelEx(&cfg, fn[rec], args, NULL);
    };
    /* the GPU work of one run at a time (--gpu-lock), from the first launch to the end */
    const int lock_fd = run_gpu_lock(o->lock_path);
    if (o->lock_path && lock_fd < 0) {
        fprintf(stderr, "tmahw run: --gpu-lock: cannot lock '%s'\n", o->lock_path);
        return EXIT_BAD;
    }
    /* reference and correctness */
    dim3 rb(16, 16), rg((unsigned)(N + 15) / 16, (unsigned)(M + 15) / 16);
    ref_gemm<<<rg, rb>>>(g.A, g.B, g.Cref, M, N, K, en.eb, en.v[3]);
    CK(cudaGetLastError());
    CK(cudaMemset(g.C, 0xff, (size_t)M * N * 2));
    CUresult lr = launch(0);
    if (lr != CUDA_SUCCESS || cuCtxSynchronize() != CUDA_SUCCESS) {
        fprintf(stderr, "tmahw run: the generated gemm failed: %s\n", hw_cu_name(lr != CUDA_SUCCESS ? lr : cuCtxSynchronize()));
        return EXIT_FINDING;
    }
    std::vector<unsigned short> hRef((size_t)M * N);
    CK(cudaMemcpy(hRef.data(), g.Cref, hRef.size() * 2, cudaMemcpyDeviceToHost));
    lcg r{7};
    int host_bad = 0;
    for (int i = 0; i < 4096; i++) {
        int m = (int)(r.next() % (unsigned)M), n = (int)(r.next() % (unsigned)N);
        double s = 0;
        for (int k = 0; k < K; k++)
            s += (double)host_val(hA, (size_t)m * K + k, en) * host_val(hB, (size_t)n * K + k, en);
        host_bad += host_bf16(s) != hRef[(size_t)m * N + n];
    }
    auto diffs = [&](const unsigned short *x) -> unsigned long long {
        unsigned long long h = 0;
        cudaMemset(g.diff, 0, 8);
        count_diff<<<1024, 256>>>(x, g.Cref, (size_t)M * N, g.diff);
        cudaMemcpy(&h, g.diff, 8, cudaMemcpyDeviceToHost);
        return h;
    };
    unsigned long long bad = diffs(g.C);
    /* cuBLASLt beside it */
    blas bl;
    blas_setup(bl, M, N, K, dt, g.ws_bytes);
    unsigned long long blas_bad = ~0ull;
    if (bl.ok && blas_run(bl, g) == 0 && cudaDeviceSynchronize() == cudaSuccess)
        blas_bad = diffs(g.Cblas);
    /* timing beside cuBLASLt: alternate launches, cudaEvent around each, median (before CUPTI's
     * kernel records are on: with them every launch took ~0.2 ms longer between the events) */
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    std::vector<double> t_ours, t_blas, ghz_ours;
    std::vector<unsigned long long> hclk((size_t)d->ctas * 4);
    cta_clocks last = {};
    int reps = o->reps < 10 ? 10 : o->reps;
    for (int i = -2; i < reps; i++) {
        float ms = 0;
        cudaEventRecord(e0);
        launch(0);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        cudaEventElapsedTime(&ms, e0, e1);
        if (i >= 0) {
            t_ours.push_back(ms * 1e6);
            cudaMemcpy(hclk.data(), g.clk, hclk.size() * 8, cudaMemcpyDeviceToHost);
            last = clocks_of(hclk, d->ctas);
            ghz_ours.push_back(last.ghz);
        }
        if (bl.ok) {
            cudaEventRecord(e0);
            blas_run(bl, g);
            cudaEventRecord(e1);
            cudaEventSynchronize(e1);
            cudaEventElapsedTime(&ms, e0, e1);
            if (i >= 0)
                t_blas.push_back(ms * 1e6);
        }
    }
    CK(cudaDeviceSynchronize());
    /* one recorded launch for the trace */
    CK(cudaMemset(g.evn, 0, (size_t)rec_ctas * nwarps * 4));
    std::vector<GmEvHost> ev((size_t)rec_ctas * nwarps * ev_cap);
    std::vector<unsigned> evn((size_t)rec_ctas * nwarps);
    cudaEventRecord(e0);
    launch(1);
    cudaEventRecord(e1);
    CK(cudaEventSynchronize(e1));
    float rec_ms = 0;
    cudaEventElapsedTime(&rec_ms, e0, e1);
    CK(cudaMemcpy(ev.data(), g.ev, ev.size() * sizeof(GmEvHost), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(evn.data(), g.evn, evn.size() * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hclk.data(), g.clk, hclk.size() * 8, cudaMemcpyDeviceToHost));
    cta_clocks recc = clocks_of(hclk, d->ctas);
    unsigned long long rec_bad = diffs(g.C);
    /* the kernel's own execution: CUPTI's kernel records of as many launches again (the time
     * the corpus and the simulator compare; cudaEvents add the launch's overhead) */
    std::vector<double> t_cupti, ghz_cupti, cta_cupti, span_cupti;
    const int cupti = gt_cupti_on(msg, sizeof msg) == 0;
    if (!cupti)
        fprintf(stderr, "tmahw run: warning: CUPTI: %s; kernel_ns is the cudaEvent time\n", msg);
    for (int i = -1; cupti && i < reps; i++) {
        gt_kernel_time kt = {0, 0};
        launch(0);
        CK(cudaDeviceSynchronize());
        if (gt_cupti_last(&kt) == 0 && kt.end > kt.start && i >= 0) {
            t_cupti.push_back((double)(kt.end - kt.start));
            CK(cudaMemcpy(hclk.data(), g.clk, hclk.size() * 8, cudaMemcpyDeviceToHost));
            cta_clocks cc = clocks_of(hclk, d->ctas);
            ghz_cupti.push_back(cc.ghz);
            cta_cupti.push_back(cc.cta_ns);
            span_cupti.push_back(cc.span_ns);
        }
    }
    int resident = 0;
    if (d->cluster > 1) {
        CUlaunchConfig cfg = {};
        CUlaunchAttribute attr[1];
        cfg.gridDimX = d->ctas;
        cfg.gridDimY = cfg.gridDimZ = 1;
        cfg.blockDimX = threads;
        cfg.blockDimY = cfg.blockDimZ = 1;
        cfg.sharedMemBytes = smem;
        attr[0].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        attr[0].value.clusterDim.x = d->cluster;
        attr[0].value.clusterDim.y = attr[0].value.clusterDim.z = 1;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
        if (cuOccupancyMaxActiveClusters(&resident, fn[0], &cfg) != CUDA_SUCCESS)
            resident = -1;
    }

    gemm_report rep = {};
    rep.d = d;
    snprintf(rep.gpu, sizeof rep.gpu, "%s", dev.name);
    rep.driver_version = dev.driver_version;
    int khz = 0;
    cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0);
    rep.clock_ghz = recc.ghz > 0 ? recc.ghz : khz / 1e6;   /* the recorded launch's own SM clock */
    time_t now = time(NULL);
    strftime(rep.date, sizeof rep.date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    rep.event_ns = median(t_ours);
    rep.cupti = cupti && t_cupti.size() == (size_t)reps;
    rep.kernel_ns = rep.cupti ? median(t_cupti) : rep.event_ns;
    rep.blas_ns = median(t_blas);
    rep.reps = reps;
    rep.mismatches = bad;
    rep.rec_mismatches = rec_bad;
    rep.blas_mismatches = blas_bad;
    rep.host_bad = host_bad;
    rep.rec_ns = rec_ms * 1e6;
    rep.sm_ghz = median(ghz_ours);
    rep.cupti_sm_ghz = median(ghz_cupti);
    rep.rec_sm_ghz = recc.ghz;
    rep.start_spread_ns = last.start_spread_ns;
    rep.cta_ns_p50 = median(cta_cupti);
    rep.ctas_span_ns = median(span_cupti);
    rep.late_ctas = last.late;
    rep.resident_clusters = resident;
    rep.nfindings = nfnd;
    memcpy(rep.findings, fnd, sizeof fnd);
    snprintf(rep.blas_why, sizeof rep.blas_why, "%s", bl.why);
    if (o->counters) {
        char cpath[4200];
        run_write_counters(d, dev.name, rep.date, launch_untimed<decltype(launch)>, &launch, o->out_path, cpath,
                           sizeof cpath);
    }
    /* an overhead study's recorded launch keeps no events worth a trace */
    int rc = o->record_level > 1 ? EXIT_OK : gemm_write_trace(d, o, &rep, ev.data(), evn.data(), rec_ctas, nwarps, ev_cap);
    gemm_print_report(&rep, o->fmt);
    blas_free(bl);
    cudaFree(g.A); cudaFree(g.B); cudaFree(g.C); cudaFree(g.Cref); cudaFree(g.Cblas); cudaFree(g.ws);
    cudaFree(g.ev); cudaFree(g.evn); cudaFree(g.diff); cudaFree(g.clk);
    if (rc)
        return EXIT_BAD;
    return bad || rec_bad || host_bad ? EXIT_FINDING : EXIT_OK;
}
