/* hand_tma.cu: a warp-specialized TMA + mbarrier pipeline written by hand (not generated),
 * with its events recorded by hw/record.cuh. Its description is examples/hand_tma.yaml.
 *
 * Weighted row sums of a 16896 x 4096 f16 matrix: out[r] = sum_c A[r][c] * (1 + (c % 8) / 8).
 * Each of the 132 CTAs owns 128 rows and walks along them in 64 boxes of 64 columns x 128
 * rows (16 KB, 128-byte swizzle), loaded by TMA into 4 stages. Warp 0 produces: it waits
 * for a free stage (empty[s]), announces the bytes on full[s] (arrive.expect_tx) and issues
 * the copy. Warps 1 to 4 (a warpgroup) consume: each waits on full[s], loads its 32 rows
 * of the stage into registers (8 ld.shared.v4 per lane, rows in turn), computes, and
 * releases the stage (arrive on empty[s]). The events go where they happen, except that the producer
 * writes its records after the copy is issued and the consumers after the release, and a
 * stall's record is written while the warp stalls (only its end clock after): nothing of
 * the recording but a clock read and that one store sits between a completed wait and the
 * action another warp waits for. Each warp writes at most two records per iteration, 128 in
 * all: a ring of 256 records per warp holds them all (TMASCOPE_RING_HOLDS_ALL), so nothing
 * checks the ring or copies it out during the loop; the warps copy their rings at the end.
 *
 *   nvcc -std=c++17 -arch=sm_90a -Ihw examples/hand_tma.cu -lcuda -o hand_tma
 *   ./hand_tma [--reps N]                          checks the sums, prints the kernel time
 *   tmahw record --desc examples/hand_tma.yaml -o hand.tmt -- ./hand_tma
 * Built with -DTMASCOPE_RECORD=0 the same kernel has no recording at all. */
#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

/* 5 warps of at most 2 x 64 records (a stall and the produced or consumed stage per
 * iteration): 5 rings of 256 records, 20 KB of shared memory */
#define TMASCOPE_WARPS 5
#define TMASCOPE_RING_EVENTS 256
#define TMASCOPE_RING_HOLDS_ALL 1
#define TMASCOPE_1D 1   /* one-dimensional blocks and grid */
#include "record.cuh"

constexpr int kStages = 4, kIters = 64, kCtas = 132, kConsumers = 4;
constexpr int kBoxCols = 64, kBoxRows = 128;                 /* one stage: 64 f16 x 128 rows */
constexpr int kRows = kCtas * kBoxRows, kCols = kIters * kBoxCols;
constexpr unsigned kStageBytes = kBoxCols * kBoxRows * 2;    /* 16384 */
constexpr int kRowsPerWarp = kBoxRows / kConsumers;          /* 32: 8 loads of 4 rows */
constexpr int kLoads = kRowsPerWarp / 4;

__device__ __forceinline__ unsigned smem_addr(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

__device__ __forceinline__ bool mbar_test(unsigned bar, unsigned parity)
{
    unsigned ok;
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(ok) : "r"(bar), "r"(parity) : "memory");
    return ok;
}
__device__ __forceinline__ bool mbar_try(unsigned bar, unsigned parity)
{
    unsigned ok;
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(ok) : "r"(bar), "r"(parity) : "memory");
    return ok;
}
/* Waits for the phase of `parity` to complete (the whole warp). A wait whose first test
 * fails is a stall: its record (since t0, the clock read before the test; the remaining
 * arguments: stage, iteration, barrier, flags[, aux]) is written before the warp waits,
 * its end when it ends. t1 (TMASCOPE_MARK_LATER): where the wait ended, the clock read with
 * the vote on the first test or at the stall's end, so that no clock read stands between
 * the wait and what it unblocks. */
#define MBAR_WAIT(bar, parity, t0, t1, ...)                                                                    \
    do {                                                                                                        \
        if (!TMASCOPE_ALL_AT(mbar_test(bar, parity), t1)) {                                                     \
            TMASCOPE_WAIT_OPEN(t0, __VA_ARGS__);                                                                \
            while (!__all_sync(0xffffffffu, mbar_try(bar, parity)))                                             \
                ;                                                                                               \
            TMASCOPE_WAIT_CLOSE_MARK(t1);                                                                       \
        }                                                                                                       \
    } while (0)

__global__ void __launch_bounds__(32 * (1 + kConsumers), 1) rowsum(const __grid_constant__ CUtensorMap map, float *out)
{
    TMASCOPE_BEGIN();
    extern __shared__ unsigned char dyn[];
    __shared__ __align__(8) unsigned long long bars[2 * kStages];   /* full[0..3], empty[0..3] */
    const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const unsigned stage0 = (smem_addr(dyn) + 1023u) & ~1023u;     /* 128B swizzle: 1024-aligned */
    const unsigned full0 = smem_addr(bars), empty0 = full0 + 8 * kStages;
    if (threadIdx.x == 0) {
        for (int s = 0; s < kStages; s++) {
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(full0 + 8 * s));
            asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(empty0 + 8 * s), "r"(kConsumers));
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();

    if (warp == 0) {
        /* producer */
        for (int i = 0; i < kIters; i++) {
            const unsigned s = i % kStages, phase = i / kStages;
            const unsigned full = full0 + 8 * s, empty = empty0 + 8 * s;
            TMASCOPE_MARK(t0);
            TMASCOPE_MARK_LATER(t1);
            MBAR_WAIT(empty, (phase & 1) ^ 1, t0, t1, s, i, kStages + s, 0u, 1u);   /* the first lap does not block */
            if (lane == 0) {
                asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(full), "r"(kStageBytes)
                             : "memory");
                asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                             " [%0], [%1, {%2, %3}], [%4];" ::"r"(stage0 + s * kStageBytes), "l"(&map),
                             "r"(i * kBoxCols), "r"((int)blockIdx.x * kBoxRows), "r"(full)
                             : "memory");
            }
            __syncwarp();
            TMASCOPE_MARK(t2);
            /* the copy is under way: now its record (the expect_tx and the copy in one) */
            TMASCOPE_PRODUCED(t1, t2, t2, i);
        }
    } else {
        /* consumers: warp 1 + w the rows 32w .. 32w + 31 of each box */
        const unsigned w = warp - 1;
        float acc[kLoads];
        for (int q = 0; q < kLoads; q++)
            acc[q] = 0.f;
        for (int i = 0; i < kIters; i++) {
            const unsigned s = i % kStages, phase = i / kStages;
            const unsigned full = full0 + 8 * s, empty = empty0 + 8 * s;
            TMASCOPE_MARK(t0);
            TMASCOPE_MARK_LATER(t1);
            MBAR_WAIT(full, phase & 1, t0, t1, s, i, s, TMASCOPE_F_FULL);
            /* lane l reads 16 bytes (8 columns) of row 4q + l/8: chunk l%8 of the row,
             * where the 128-byte swizzle put it */
            uint4 v[kLoads];
#pragma unroll
            for (int q = 0; q < kLoads; q++) {
                const unsigned row = w * kRowsPerWarp + 4 * q + lane / 8, chunk = lane % 8;
                const unsigned a = stage0 + s * kStageBytes + row * 128 + ((chunk ^ (row % 8)) * 16);
                asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                             : "=r"(v[q].x), "=r"(v[q].y), "=r"(v[q].z), "=r"(v[q].w) : "r"(a) : "memory");
            }
            TMASCOPE_MARK(t2);
#pragma unroll
            for (int q = 0; q < kLoads; q++) {
                const unsigned words[4] = {v[q].x, v[q].y, v[q].z, v[q].w};
#pragma unroll
                for (int j = 0; j < 4; j++) {
                    const float2 f = __half22float2(*reinterpret_cast<const __half2 *>(&words[j]));
                    acc[q] = fmaf(f.x, 1.f + 0.125f * (2 * j), acc[q]);
                    acc[q] = fmaf(f.y, 1.f + 0.125f * (2 * j + 1), acc[q]);
                }
            }
            TMASCOPE_MARK(t3);
            __syncwarp();
            if (lane == 0)
                asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(empty) : "memory");
            __syncwarp();
            /* the stage is released: now its record (the read, the math and the release in
             * one) */
            TMASCOPE_CONSUMED_RELEASED(t1, t2, t3, i);
        }
        /* the 8 lanes of a row hold its 8 column chunks */
        for (int q = 0; q < kLoads; q++) {
            float r = acc[q];
            for (int o = 1; o < 8; o *= 2)
                r += __shfl_xor_sync(0xffffffffu, r, o);
            if (lane % 8 == 0)
                out[blockIdx.x * kBoxRows + w * kRowsPerWarp + 4 * q + lane / 8] = r;
        }
    }
    TMASCOPE_END();
}

/* ------------------------------------------------------------------------------- host */

static void check(cudaError_t r, const char *what)
{
    if (r != cudaSuccess) {
        fprintf(stderr, "hand_tma: %s: %s\n", what, cudaGetErrorString(r));
        exit(1);
    }
}

/* A[r][c]: multiples of 1/8 in [-1, 1], exact in f16; the sums are exact in float */
static float element(int r, int c) { return (float)((r * 7 + c * 13) % 17 - 8) * 0.125f; }

int main(int argc, char **argv)
{
    int reps = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc && atoi(argv[i + 1]) > 0)
            reps = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: hand_tma [--reps N]\n");
            return 2;
        }
    }
    std::vector<__half> a((size_t)kRows * kCols);
    for (int r = 0; r < kRows; r++)
        for (int c = 0; c < kCols; c++)
            a[(size_t)r * kCols + c] = __float2half(element(r, c));
    void *da = nullptr;
    float *dout = nullptr;
    check(cudaMalloc(&da, a.size() * sizeof(__half)), "cudaMalloc");
    check(cudaMalloc(&dout, kRows * sizeof(float)), "cudaMalloc");
    check(cudaMemcpy(da, a.data(), a.size() * sizeof(__half), cudaMemcpyHostToDevice), "cudaMemcpy");

    CUtensorMap map;
    const cuuint64_t dims[2] = {kCols, kRows}, strides[1] = {kCols * sizeof(__half)};
    const cuuint32_t box[2] = {kBoxCols, kBoxRows}, estr[2] = {1, 1};
    CUresult cr = cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, da, dims, strides, box, estr,
                                         CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                         CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (cr != CUDA_SUCCESS) {
        fprintf(stderr, "hand_tma: cuTensorMapEncodeTiled failed (%d)\n", (int)cr);
        return 1;
    }
    const int smem = kStages * kStageBytes + 1024;
    check(cudaFuncSetAttribute(rowsum, cudaFuncAttributeMaxDynamicSharedMemorySize, smem), "cudaFuncSetAttribute");
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    std::vector<float> ms;
    for (int k = 0; k < reps; k++) {
        check(cudaMemset(dout, 0, kRows * sizeof(float)), "cudaMemset");
        cudaEventRecord(e0);
        rowsum<<<kCtas, 32 * (1 + kConsumers), smem>>>(map, dout);
        cudaEventRecord(e1);
        check(cudaEventSynchronize(e1), "rowsum");
        float t = 0;
        cudaEventElapsedTime(&t, e0, e1);
        ms.push_back(t);
    }
    check(cudaGetLastError(), "rowsum");
    std::vector<float> out(kRows);
    check(cudaMemcpy(out.data(), dout, kRows * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
    int bad = 0;
    double sum = 0;
    for (int r = 0; r < kRows; r++) {
        double want = 0;
        for (int c = 0; c < kCols; c++)
            want += (double)element(r, c) * (1.0 + 0.125 * (c % 8));
        bad += (double)out[r] != want;
        sum += out[r];
    }
    std::sort(ms.begin(), ms.end());
    printf("rowsum %d x %d f16, %d CTAs x %d warps, %d stages, recording %s: %s (checksum %.3f), kernel %.1f us "
           "(median of %d, CUDA events)\n",
           kRows, kCols, kCtas, 1 + kConsumers, kStages, TMASCOPE_RECORD ? "compiled in" : "compiled out",
           bad ? "MISMATCH" : "ok", sum, 1000.0 * ms[ms.size() / 2], reps);
    if (bad)
        fprintf(stderr, "hand_tma: %d of %d row sums differ from the host's\n", bad, kRows);
    cudaFree(da);
    cudaFree(dout);
    return bad ? 1 : 0;
}
