/* calib_kern: the microbenchmark kernels of `tmahw calibrate` (hw/calib.cu). Each kernel
 * isolates one mechanism and writes raw clocks; the host turns them into parameters.
 * Clocks: %clock64 (SM cycles) for short spans on one SM, %globaltimer (ns) for spans that
 * cross SMs. Instruction sequences that the simulator charges "as the generated kernel issues
 * them" (the read loop's fold, the FFMA chains, the arrive with its over-arrival check) are
 * written here the same way as in hw/run_kernel.cuh. */
#ifndef TMASCOPE_CALIB_KERN_CUH
#define TMASCOPE_CALIB_KERN_CUH

#include <cuda.h>
#include <stdint.h>

typedef unsigned int u32;
typedef unsigned long long u64;

__device__ __forceinline__ u64 ck_clk(void)
{
    u64 t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t));
    return t;
}
__device__ __forceinline__ u64 ck_gtm(void)
{
    u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
__device__ __forceinline__ u32 ck_sa(const void *p)
{
    return (u32)__cvta_generic_to_shared(p);
}
__device__ __forceinline__ void ck_bar_init(u32 b, u32 n)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(b), "r"(n) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
__device__ __forceinline__ void ck_expect(u32 b, u32 tx)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(tx) : "memory");
}
__device__ __forceinline__ void ck_arrive(u32 b)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(b) : "memory");
}
__device__ __forceinline__ void ck_wait(u32 b, u32 parity)
{
    asm volatile("{\n\t.reg .pred p;\n\tW_%=:\n\t"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n\t"
                 "@!p bra W_%=;\n\t}" ::"r"(b), "r"(parity) : "memory");
}
__device__ __forceinline__ void ck_spin(u32 b, u32 parity)
{
    asm volatile("{\n\t.reg .pred p;\n\tS_%=:\n\t"
                 "mbarrier.test_wait.parity.shared::cta.b64 p, [%0], %1;\n\t"
                 "@!p bra S_%=;\n\t}" ::"r"(b), "r"(parity) : "memory");
}
__device__ __forceinline__ void ck_wait_cluster(u32 b, u32 parity)
{
    asm volatile("{\n\t.reg .pred p;\n\tW_%=:\n\t"
                 "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%0], %1;\n\t"
                 "@!p bra W_%=;\n\t}" ::"r"(b), "r"(parity) : "memory");
}
__device__ __forceinline__ void ck_tma_load(u32 dst, const CUtensorMap *m, int x, int y, u32 bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];" ::"r"(dst), "l"((u64)m), "r"(x), "r"(y), "r"(bar)
                 : "memory");
}
__device__ __forceinline__ u32 ck_align1k(const void *p)
{
    return (ck_sa(p) + 1023u) & ~1023u;
}

/* Per-SM clock rate under load: every CTA runs FFMA chains and reads both clocks. */
__global__ void ck_clock(int n, u64 *out, float *sink)
{
    u64 c0 = ck_clk(), g0 = ck_gtm();
    float a = (float)threadIdx.x, b = a + 1.f, c = a + 2.f, d = a + 3.f;
    for (int i = 0; i < n; i++) {
        a = a * 0.999f + 0.5f;
        b = b * 0.999f + 0.5f;
        c = c * 0.999f + 0.5f;
        d = d * 0.999f + 0.5f;
    }
    u64 c1 = ck_clk(), g1 = ck_gtm();
    if (a + b + c + d == 1234.5f)
        sink[0] = a;
    if (threadIdx.x == 0) {
        out[2 * blockIdx.x] = c1 - c0;
        out[2 * blockIdx.x + 1] = g1 - g0;
    }
}

/* One TMA load at a time from one thread: issue (with its expect_tx) to the full barrier's
 * phase, in cycles. Copy i reads rows (i x row_step) mod rows_mod: step 0 re-reads one box
 * (in L2 after the first copy), a large step reads boxes the L2 does not hold. */
__global__ void ck_tma_latency(const __grid_constant__ CUtensorMap m, int n, long long row_step, long long rows_mod,
                               u32 bytes, u64 *out)
{
    extern __shared__ unsigned char smem[];
    __shared__ __align__(8) u64 bar;
    if (threadIdx.x)
        return;
    const u32 dst = ck_align1k(smem), b = ck_sa(&bar);
    ck_bar_init(b, 1);
    for (int i = 0; i < n; i++) {
        const int row = (int)(((long long)i * row_step) % rows_mod);
        u64 t0 = ck_clk();
        ck_expect(b, bytes);
        ck_tma_load(dst, &m, 0, row, b);
        ck_wait(b, (u32)i & 1u);
        out[i] = ck_clk() - t0;
    }
}

/* TMA fill rate: one thread per CTA keeps `stages` box loads in flight (a ring of full
 * barriers); copy j of CTA c reads box (c + j x grid) mod boxes, the walk of tmahw run's
 * kernel, so `boxes` sets the footprint the grid cycles through. SPIN 1 polls with test_wait
 * instead of try_wait (which may suspend the thread). Odd copies use m2 (the same map, or a
 * second descriptor of the same tensor). */
template <int SPIN>
__global__ void ck_tma_fill(const __grid_constant__ CUtensorMap m, const __grid_constant__ CUtensorMap m2, int n,
                            int stages, int box_rows, u32 bytes, long long boxes, u64 *out)
{
    extern __shared__ unsigned char smem[];
    __shared__ __align__(8) u64 bars[64];   /* warps x stages <= 64 */
    const u32 warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    if (threadIdx.x & 31)
        return;
    /* lane 0 of each warp issues its own ring of `stages` slots; copy j of warp w reads box
     * (cta + (j x warps + w) x grid) mod boxes */
    const u32 base = ck_align1k(smem) + warp * (u32)stages * bytes;
    u64 *wb = bars + warp * (u32)stages;
    for (int s = 0; s < stages; s++)
        ck_bar_init(ck_sa(&wb[s]), 1);
    u64 g0 = ck_gtm(), c0 = ck_clk();
    auto box_of = [&](int j) {
        return (((long long)j * nw + warp) * gridDim.x + blockIdx.x) % boxes;
    };
    for (int j = 0; j < stages && j < n; j++) {
        ck_expect(ck_sa(&wb[j]), bytes);
        ck_tma_load(base + (u32)j * bytes, j & 1 ? &m2 : &m, 0, (int)(box_of(j) * box_rows), ck_sa(&wb[j]));
    }
    for (int j = 0; j < n; j++) {
        const int s = j % stages;
        if (SPIN)
            ck_spin(ck_sa(&wb[s]), (u32)(j / stages) & 1u);
        else
            ck_wait(ck_sa(&wb[s]), (u32)(j / stages) & 1u);
        const int jn = j + stages;
        if (jn < n) {
            ck_expect(ck_sa(&wb[s]), bytes);
            ck_tma_load(base + (u32)s * bytes, jn & 1 ? &m2 : &m, 0, (int)(box_of(jn) * box_rows), ck_sa(&wb[s]));
        }
    }
    u64 c1 = ck_clk(), g1 = ck_gtm();
    if (warp == 0) {
        out[3 * blockIdx.x] = g0;
        out[3 * blockIdx.x + 1] = g1;
        out[3 * blockIdx.x + 2] = c1 - c0;
    }
}

/* One operand of ck_l2_share: boxes of `bytes` (`rows` rows of the map), and which CTAs read
 * the same ones: CTA c is in group (c / div) mod groups. */
struct ck_share {
    u32 bytes, rows, div, groups;
    long long boxes;
};

/* Shared L2 reads: lane 0 of each warp keeps `stages` steps in flight (a ring of full
 * barriers), a step being one box of map a and, when b.bytes, one box of map b on the same
 * barrier, as the GEMM's producer loads a stage. Step j of warp w in CTA c reads box
 * ((j x warps + w) x groups + group of c) mod boxes of each operand: the CTAs of one group
 * read the same boxes in the same order at about the same time. out per CTA: globaltimer
 * at start and end, warp 0's clock span, and the sum of its steps' issue-to-seen-complete
 * clocks (the wait for step j starts right after the issue of step j + stages - 1). */
__global__ void ck_l2_share(const __grid_constant__ CUtensorMap ma, const __grid_constant__ CUtensorMap mb, int n,
                            int stages, ck_share a, ck_share b, u64 *out)
{
    extern __shared__ unsigned char smem[];
    __shared__ __align__(8) u64 bars[64];   /* warps x stages <= 64 */
    __shared__ u32 issued[64];
    const u32 warp = threadIdx.x >> 5, nw = blockDim.x >> 5, step = a.bytes + b.bytes;
    if (threadIdx.x & 31)
        return;
    const u32 base = ck_align1k(smem) + warp * (u32)stages * step;
    u64 *wb = bars + warp * (u32)stages;
    u32 *wi = issued + warp * (u32)stages;
    for (int s = 0; s < stages; s++)
        ck_bar_init(ck_sa(&wb[s]), 1);
    const long long ga = (blockIdx.x / a.div) % a.groups, gb = (blockIdx.x / b.div) % b.groups;
    auto issue = [&](int j, int s) {
        const long long k = (long long)j * nw + warp;
        wi[s] = (u32)ck_clk();
        ck_expect(ck_sa(&wb[s]), step);
        ck_tma_load(base + (u32)s * step, &ma, 0, (int)(((k * a.groups + ga) % a.boxes) * a.rows), ck_sa(&wb[s]));
        if (b.bytes)
            ck_tma_load(base + (u32)s * step + a.bytes, &mb, 0, (int)(((k * b.groups + gb) % b.boxes) * b.rows),
                        ck_sa(&wb[s]));
    };
    u64 g0 = ck_gtm(), c0 = ck_clk(), lat = 0;
    for (int j = 0; j < stages && j < n; j++)
        issue(j, j);
    for (int j = 0; j < n; j++) {
        const int s = j % stages;
        ck_wait(ck_sa(&wb[s]), (u32)(j / stages) & 1u);
        lat += (u32)ck_clk() - wi[s];
        if (j + stages < n)
            issue(j + stages, s);
    }
    u64 c1 = ck_clk(), g1 = ck_gtm();
    if (warp == 0) {
        out[4 * blockIdx.x] = g0;
        out[4 * blockIdx.x + 1] = g1;
        out[4 * blockIdx.x + 2] = c1 - c0;
        out[4 * blockIdx.x + 3] = lat;
    }
}

/* The GEMM's loads without its math, split as the GEMM kernel splits them: lane 0 of warp 0
 * (the producer) waits for a stage's empty barrier, arms its full barrier and loads an A box
 * and a B box (ck_l2_share's boxes and sharing); lane 0 of warp 1 (the consumer) waits for
 * the full barrier and arrives on the empty one. `stages` in the ring, n stages per CTA;
 * PREFETCH: the producer first prefetches both tensor maps (prefetch.tensormap, as the GEMM
 * kernel does). out per CTA: globaltimer at the producer's start and at the consumer's last
 * stage. */
template <int PREFETCH>
__global__ void ck_gemm_loads(const __grid_constant__ CUtensorMap ma, const __grid_constant__ CUtensorMap mb, int n,
                              int stages, ck_share a, ck_share b, u64 *out)
{
    extern __shared__ unsigned char smem[];
    __shared__ __align__(8) u64 full[16], empty[16];
    const u32 step = a.bytes + b.bytes, base = ck_align1k(smem);
    if (threadIdx.x == 0)
        for (int s = 0; s < stages; s++) {
            ck_bar_init(ck_sa(&full[s]), 1);
            ck_bar_init(ck_sa(&empty[s]), 1);
        }
    __syncthreads();
    const long long ga = (blockIdx.x / a.div) % a.groups, gb = (blockIdx.x / b.div) % b.groups;
    if (threadIdx.x == 0) {
        if (PREFETCH) {
            asm volatile("prefetch.tensormap [%0];" ::"l"(&ma) : "memory");
            asm volatile("prefetch.tensormap [%0];" ::"l"(&mb) : "memory");
        }
        out[2 * blockIdx.x] = ck_gtm();
        for (int j = 0; j < n; j++) {
            const int s = j % stages;
            ck_wait(ck_sa(&empty[s]), ((u32)(j / stages) & 1u) ^ 1u);
            ck_expect(ck_sa(&full[s]), step);
            ck_tma_load(base + (u32)s * step, &ma, 0, (int)((((long long)j * a.groups + ga) % a.boxes) * a.rows),
                        ck_sa(&full[s]));
            ck_tma_load(base + (u32)s * step + a.bytes, &mb, 0, (int)((((long long)j * b.groups + gb) % b.boxes) * b.rows),
                        ck_sa(&full[s]));
        }
    } else if (threadIdx.x == 32) {
        for (int j = 0; j < n; j++) {
            const int s = j % stages;
            ck_wait(ck_sa(&full[s]), (u32)(j / stages) & 1u);
            ck_arrive(ck_sa(&empty[s]));
        }
        out[2 * blockIdx.x + 1] = ck_gtm();
    }
}

/* The generated GEMM's producer walk with its loads only: tile t = blockIdx.x, + gridDim.x, ...
 * of `tiles` (row t / ntiles of A, column t % ntiles of B), per tile kt stages of an A box
 * at (kb x kbox, row x arows) and a B box at (kb x kbox, column x brows), `stages` in the
 * ring. Lane 0 of warp 0 (the producer) waits for a stage's empty barrier, arms its full
 * barrier and loads both boxes; lane 0 of warp 1 (the consumer) waits for the full barrier
 * and arrives on the empty one of the stage `lag` stages back (as the GEMM's consumers
 * release after their wgmma of later stages: the ring holds stages - lag ahead). contig: each (row, kb) box is instead its own run of
 * rows of 128 bytes one after another (the l2share and gemm_chain layout). REC 1: the producer also writes a 16-byte record of each
 * stage to global memory (clock before and after its issue), as the GEMM's recording build
 * does; 2: only reads the clocks (summed); 3: only writes a 16-byte record without clocks;
 * 4: writes the clocked record to a ring in shared memory. out per CTA: globaltimer at the producer's start and at the consumer's last stage,
 * and the stages it ran. */
struct ck_walk {
    u32 tiles, ntiles, kt, kbox, arows, brows, a_bytes, b_bytes, contig, lag;
};
template <int REC>
__global__ void ck_gemm_walk(const __grid_constant__ CUtensorMap ma, const __grid_constant__ CUtensorMap mb, ck_walk w,
                             int stages, u64 *out, uint4 *rec)
{
    extern __shared__ unsigned char smem[];
    __shared__ __align__(8) u64 full[16], empty[16];
    const u32 step = w.a_bytes + w.b_bytes, base = ck_align1k(smem);
    if (threadIdx.x == 0)
        for (int s = 0; s < stages; s++) {
            ck_bar_init(ck_sa(&full[s]), 1);
            ck_bar_init(ck_sa(&empty[s]), 1);
        }
    __syncthreads();
    u32 it = 0, sum = 0;
    __shared__ uint4 ring[128];
    if (threadIdx.x == 0) {
        asm volatile("prefetch.tensormap [%0];" ::"l"(&ma) : "memory");
        asm volatile("prefetch.tensormap [%0];" ::"l"(&mb) : "memory");
        out[3 * blockIdx.x] = ck_gtm();
        for (u32 t = blockIdx.x; t < w.tiles; t += gridDim.x)
            for (u32 kb = 0; kb < w.kt; kb++, it++) {
                const int s = (int)(it % (u32)stages);
                const u32 t0 = REC == 3 ? 0u : (u32)ck_clk();
                ck_wait(ck_sa(&empty[s]), ((it / (u32)stages) & 1u) ^ 1u);
                ck_expect(ck_sa(&full[s]), step);
                const u32 ra = t / w.ntiles, rb = t % w.ntiles;
                ck_tma_load(base + (u32)s * step, &ma, w.contig ? 0 : (int)(kb * w.kbox),
                            (int)((w.contig ? ra * w.kt + kb : ra) * w.arows), ck_sa(&full[s]));
                ck_tma_load(base + (u32)s * step + w.a_bytes, &mb, w.contig ? 0 : (int)(kb * w.kbox),
                            (int)((w.contig ? rb * w.kt + kb : rb) * w.brows), ck_sa(&full[s]));
                if (REC == 1)
                    rec[(size_t)blockIdx.x * 4096 + (it & 4095u)] = make_uint4(t0, (u32)ck_clk() - t0, it, s);
                if (REC == 2)
                    sum += (u32)ck_clk() - t0;
                if (REC == 3)
                    rec[(size_t)blockIdx.x * 4096 + (it & 4095u)] = make_uint4(it, it ^ 5u, it, s);
                if (REC == 4)
                    ring[it & 127u] = make_uint4(t0, (u32)ck_clk() - t0, it, s);
            }
        if (REC == 2 && sum == 0xFFFFFFFFu)
            rec[0] = make_uint4(sum, 0, 0, 0);
        if (REC == 4)
            rec[(size_t)blockIdx.x * 4096] = ring[it & 127u];
    } else if (threadIdx.x == 32) {
        for (u32 t = blockIdx.x; t < w.tiles; t += gridDim.x)
            for (u32 kb = 0; kb < w.kt; kb++, it++) {
                const int s = (int)(it % (u32)stages);
                ck_wait(ck_sa(&full[s]), (it / (u32)stages) & 1u);
                if (it >= w.lag)
                    ck_arrive(ck_sa(&empty[(it - w.lag) % (u32)stages]));
            }
        out[3 * blockIdx.x + 1] = ck_gtm();
        out[3 * blockIdx.x + 2] = it;
    }
}

/* Ends a timed span after `dep` is available: a warp issues in order, so the clock read
 * after a volatile store of dep waits for every load or instruction dep depends on. */
__device__ __forceinline__ u64 ck_clk_after(u32 dep, u32 *sink)
{
    asm volatile("st.volatile.global.u32 [%0], %1;" ::"l"(sink), "r"(dep) : "memory");
    return ck_clk();
}

/* Shared-memory reads, 8 per trip at per-lane offsets held in registers, volatile so that
 * every trip loads again. OP: 0 ld.shared.u32, 1 .v2, 2 .v4, 3/4/5 ldmatrix x1/x2/x4, 6
 * ld.shared.u32 with all 32 lanes in one bank (32 wavefronts). FOLD 0: the loaded words go
 * into 8 independent XOR accumulators (the LSU and the port alone); FOLD 1: each load is
 * folded into one checksum as the generated consumer does (a dependent multiply-add chain
 * per loaded word). out: each warp's start and end clock. */
template <int OP, int FOLD>
__global__ void ck_lds(int reps, u64 *out, u32 *sink)
{
    extern __shared__ __align__(16) u32 sw[];
    for (u32 i = threadIdx.x; i < 8192; i += blockDim.x)
        sw[i] = i * 2654435761u;
    __syncthreads();
    const u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5, base = ck_sa(sw);
    const u32 per_lane = OP == 0 ? 4 : OP == 1 ? 8 : OP == 6 ? 128 : 16, stride = OP == 6 ? 4 : per_lane * 32;
    u32 off[8], acc[8];
#pragma unroll
    for (u32 q = 0; q < 8; q++) {
        off[q] = (q * stride + lane * per_lane) % 32768u;
        acc[q] = q;
    }
    u32 sum = lane;
    u64 t0 = ck_clk();
    for (int r = 0; r < reps; r++) {
        /* ldmatrix has no volatile form: each trip reads another 8 KiB quarter */
        const u32 ldsm_step = ((u32)r & 3u) << 13;
#pragma unroll
        for (u32 q = 0; q < 8; q++) {
            const u32 a = base + off[q], w0 = ((q * 32 + lane) * 4) * 2 + 1;
            u32 x = 0, y = 0, z = 0, w = 0;
            if (OP == 0 || OP == 6)
                asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(x) : "r"(a) : "memory");
            else if (OP == 1)
                asm volatile("ld.volatile.shared.v2.u32 {%0, %1}, [%2];" : "=r"(x), "=r"(y) : "r"(a) : "memory");
            else if (OP == 2)
                asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                             : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "r"(a) : "memory");
            else if (OP == 3)
                asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(x) : "r"(a + ldsm_step)
                             : "memory");
            else if (OP == 4)
                asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(x), "=r"(y)
                             : "r"(a + ldsm_step) : "memory");
            else
                asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                             : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "r"(a + ldsm_step) : "memory");
            if (FOLD) {
                const int words = OP == 0 || OP == 3 || OP == 6 ? 1 : OP == 1 || OP == 4 ? 2 : 4;
                sum += x * w0;
                if (words > 1)
                    sum += y * (w0 + 2);
                if (words > 2)
                    sum += z * (w0 + 4) + w * (w0 + 6);
            } else {
                acc[q] ^= x ^ y ^ z ^ w;
            }
        }
    }
#pragma unroll
    for (u32 q = 0; q < 8; q++)
        sum ^= acc[q];
    u64 t1 = ck_clk_after(sum, sink + 1 + (threadIdx.x & 7));
    if (lane == 0) {
        out[(blockIdx.x * 32 + warp) * 2] = t0;
        out[(blockIdx.x * 32 + warp) * 2 + 1] = t1;
    }
}

/* Shared-memory load latency: one lane follows a chain of dependent ld.shared.u32. */
__global__ void ck_smem_chase(int hops, u64 *out, u32 *sink)
{
    __shared__ u32 next[1024];
    for (u32 i = threadIdx.x; i < 1024; i += blockDim.x)
        next[i] = (i * 97u + 13u) & 1023u;
    __syncthreads();
    if (threadIdx.x)
        return;
    u32 i = 0, a = ck_sa(next);
    u64 t0 = ck_clk();
    for (int h = 0; h < hops; h++)
        asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(i) : "r"(a + i * 4u) : "memory");
    u64 t1 = ck_clk_after(i, sink);
    out[0] = t1 - t0;
}

/* FFMA as the generated math block issues it: 8 independent chains per warp. */
__global__ void ck_ffma(int n8, u64 *out, float *sink)
{
    const u32 lane = threadIdx.x & 31;
    float a0 = (float)lane, a1 = a0 + 1.f, a2 = a0 + 2.f, a3 = a0 + 3.f, a4 = a0 + 4.f, a5 = a0 + 5.f, a6 = a0 + 6.f,
          a7 = a0 + 7.f;
    const float m = 0.999f, c = 0.5f;
    u64 t0 = ck_clk();
    for (int n = 0; n < n8; n++)
        asm volatile("fma.rn.f32 %0, %0, %8, %9;\n\tfma.rn.f32 %1, %1, %8, %9;\n\t"
                     "fma.rn.f32 %2, %2, %8, %9;\n\tfma.rn.f32 %3, %3, %8, %9;\n\t"
                     "fma.rn.f32 %4, %4, %8, %9;\n\tfma.rn.f32 %5, %5, %8, %9;\n\t"
                     "fma.rn.f32 %6, %6, %8, %9;\n\tfma.rn.f32 %7, %7, %8, %9;"
                     : "+f"(a0), "+f"(a1), "+f"(a2), "+f"(a3), "+f"(a4), "+f"(a5), "+f"(a6), "+f"(a7)
                     : "f"(m), "f"(c));
    const float r = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
    u64 t1 = ck_clk_after(__float_as_uint(r), (u32 *)sink + 1 + (threadIdx.x & 7));
    if (lane == 0) {
        out[(blockIdx.x * 32 + (threadIdx.x >> 5)) * 2] = t0;
        out[(blockIdx.x * 32 + (threadIdx.x >> 5)) * 2 + 1] = t1;
    }
}

/* Integer instructions on 8 independent chains per warp, 32 per trip (4 per chain), in a
 * mix MIX: 0 mad.lo (IMAD, the FMA pipe), 1 xor (LOP3, the integer ALU), 2 add (IADD3),
 * 3 half mad.lo and half xor, 4 an address-arithmetic mix (per 8: 2 mad.lo, shr, xor, 2 add,
 * or, shl). Each op takes the next chain's value, so that ptxas cannot fold repeated ops;
 * m (a kernel argument) is mad.lo's multiplier. */
__device__ __forceinline__ void ck_iop(int op, u32 &a, u32 b, u32 m)
{
    if (op == 0)
        asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(a) : "r"(m), "r"(b));
    else if (op == 1)
        asm volatile("xor.b32 %0, %0, %1;" : "+r"(a) : "r"(b));
    else if (op == 2)
        asm volatile("add.u32 %0, %0, %1;" : "+r"(a) : "r"(b));
    else if (op == 3)
        asm volatile("shr.u32 %0, %0, %1;" : "+r"(a) : "r"(b));
    else if (op == 4)
        asm volatile("or.b32 %0, %0, %1;" : "+r"(a) : "r"(b));
    else
        asm volatile("shl.b32 %0, %0, %1;" : "+r"(a) : "r"(b));
}
/* n trips of 32 ops of mix MIX on 8 chains per warp (ck_iop's numbering per chain);
 * returns the clocks at the start and after the result is stored. */
template <int MIX>
__device__ __forceinline__ void ck_int_trips(int n, u32 m, u32 *sink, u64 *t0, u64 *t1)
{
    const int ops[5][8] = {{0, 0, 0, 0, 0, 0, 0, 0}, {1, 1, 1, 1, 1, 1, 1, 1}, {2, 2, 2, 2, 2, 2, 2, 2},
                           {0, 1, 0, 1, 0, 1, 0, 1}, {0, 3, 1, 2, 0, 4, 2, 5}};
    u32 a[8];
#pragma unroll
    for (int q = 0; q < 8; q++)
        a[q] = (threadIdx.x & 31) + q;
    *t0 = ck_clk();
    for (int i = 0; i < n; i++) {
#pragma unroll
        for (int r = 0; r < 4; r++)
#pragma unroll
            for (int q = 0; q < 8; q++)
                ck_iop(ops[MIX][q], a[q], a[(q + 1) & 7], m);
    }
    *t1 = ck_clk_after(a[0] ^ a[1] ^ a[2] ^ a[3] ^ a[4] ^ a[5] ^ a[6] ^ a[7], sink + 1 + (threadIdx.x & 7));
}

template <int MIX>
__global__ void ck_int(int n, u32 m, u64 *out, u32 *sink)
{
    u64 t0, t1;
    ck_int_trips<MIX>(n, m, sink, &t0, &t1);
    if ((threadIdx.x & 31) == 0) {
        out[(blockIdx.x * 32 + (threadIdx.x >> 5)) * 2] = t0;
        out[(blockIdx.x * 32 + (threadIdx.x >> 5)) * 2 + 1] = t1;
    }
}

/* Which sub-partition each warp of a CTA runs on: every warp writes %warpid (its warp slot
 * on the SM; slot n issues from sub-partition n % 4) and %smid. Warp `busy` of each CTA
 * then runs n trips of 32 mad.lo on 8 chains while the others exit: its span shows whether
 * the busy warps of the SM's CTAs share one sub-partition. busy < 0: every warp runs them,
 * so that the CTAs stay resident together. */
__global__ void ck_smsp(int n, int busy, u32 m, u64 *out, u32 *sink)
{
    const u32 lane = threadIdx.x & 31, wi = threadIdx.x >> 5;
    u32 wid, sm;
    asm volatile("mov.u32 %0, %%warpid;" : "=r"(wid));
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    u64 *o = out + (blockIdx.x * 32 + wi) * 4;
    if (lane == 0) {
        o[2] = wid;
        o[3] = sm;
    }
    if (busy >= 0 && (int)wi != busy)
        return;
    u64 t0, t1;
    ck_int_trips<0>(n, m, sink, &t0, &t1);
    if (lane == 0) {
        o[0] = t0;
        o[1] = t1;
    }
}

/* The generated math block as the pipeline kernel has it: N8 groups of 8 FFMA on 8 chains,
 * fully unrolled (N8 x 8 x 16 bytes of straight-line code), run `reps` times. Past the
 * instruction cache the warp waits for its instructions to be fetched. */
template <int N8>
__global__ void ck_ffma_block(int reps, u64 *out, float *sink)
{
    const u32 lane = threadIdx.x & 31;
    float a0 = (float)lane, a1 = a0 + 1.f, a2 = a0 + 2.f, a3 = a0 + 3.f, a4 = a0 + 4.f, a5 = a0 + 5.f, a6 = a0 + 6.f,
          a7 = a0 + 7.f;
    const float m = 0.999f, c = 0.5f;
    u64 t0 = ck_clk();
    for (int r = 0; r < reps; r++) {
#pragma unroll
        for (int n = 0; n < N8; n++)
            asm volatile("fma.rn.f32 %0, %0, %8, %9;\n\tfma.rn.f32 %1, %1, %8, %9;\n\t"
                         "fma.rn.f32 %2, %2, %8, %9;\n\tfma.rn.f32 %3, %3, %8, %9;\n\t"
                         "fma.rn.f32 %4, %4, %8, %9;\n\tfma.rn.f32 %5, %5, %8, %9;\n\t"
                         "fma.rn.f32 %6, %6, %8, %9;\n\tfma.rn.f32 %7, %7, %8, %9;"
                         : "+f"(a0), "+f"(a1), "+f"(a2), "+f"(a3), "+f"(a4), "+f"(a5), "+f"(a6), "+f"(a7)
                         : "f"(m), "f"(c));
    }
    const float r = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
    u64 t1 = ck_clk_after(__float_as_uint(r), (u32 *)sink + 1 + (threadIdx.x & 7));
    if (lane == 0) {
        out[(blockIdx.x * 32 + (threadIdx.x >> 5)) * 2] = t0;
        out[(blockIdx.x * 32 + (threadIdx.x >> 5)) * 2 + 1] = t1;
    }
}

/* n trips of mma.sync.m16n8k16 f32 += f16 x f16 into CHAINS independent accumulators per
 * warp; returns the clocks at the start and after the accumulators' sum is stored. */
template <int CHAINS>
__device__ __forceinline__ void ck_mma_trips(int n, float *sink, u64 *t0, u64 *t1)
{
    const u32 lane = threadIdx.x & 31;
    float d[CHAINS][4] = {};
    const u32 a0 = 0x3c003c00u ^ lane, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3, b0 = 0x38003800u, b1 = b0 + lane;
    *t0 = ck_clk();
    for (int i = 0; i < n; i++) {
#pragma unroll
        for (int q = 0; q < CHAINS; q++)
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                         "{%8, %9}, {%0, %1, %2, %3};"
                         : "+f"(d[q][0]), "+f"(d[q][1]), "+f"(d[q][2]), "+f"(d[q][3])
                         : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    }
    float r = 0.f;
#pragma unroll
    for (int q = 0; q < CHAINS; q++)
        r += d[q][0] + d[q][1] + d[q][2] + d[q][3];
    *t1 = ck_clk_after(__float_as_uint(r), (u32 *)sink + 1 + (threadIdx.x & 7));
}

/* mma.sync.m16n8k16 f32 += f16 x f16 into CHAINS independent accumulators per warp. */
template <int CHAINS>
__global__ void ck_mma(int n, u64 *out, float *sink)
{
    u64 t0, t1;
    ck_mma_trips<CHAINS>(n, sink, &t0, &t1);
    if ((threadIdx.x & 31) == 0) {
        out[(blockIdx.x * 32 + (threadIdx.x >> 5)) * 2] = t0;
        out[(blockIdx.x * 32 + (threadIdx.x >> 5)) * 2 + 1] = t1;
    }
}

/* Whether a sub-partition issues other instructions while its tensor pipe runs mma.sync:
 * a CTA of 16 warps per SM, warps 0-7 (two per sub-partition) mma.sync.m16n8k16 in 4 chains
 * (n_mma trips of 4), warps 8-15 (two per sub-partition) integer mix MIX on 8 chains
 * (n_int trips of 32, ck_int_trips). who: 1 the mma warps only, 2 the integer warps only,
 * 3 both at once; the other warps exit at once. */
template <int MIX>
__global__ void ck_mma_mix(int n_mma, int n_int, int who, u32 m, u64 *out, float *sink)
{
    const u32 lane = threadIdx.x & 31, wi = threadIdx.x >> 5;
    const int mma = wi < 8;
    if (!(who & (mma ? 1 : 2)))
        return;
    u64 t0, t1;
    if (mma) {
        ck_mma_trips<4>(n_mma, sink, &t0, &t1);
    } else {
        ck_int_trips<MIX>(n_int, m, (u32 *)sink, &t0, &t1);
    }
    if (lane == 0) {
        out[(blockIdx.x * 32 + wi) * 2] = t0;
        out[(blockIdx.x * 32 + wi) * 2 + 1] = t1;
    }
}

/* The generated math block (hw/run_kernel.cuh MATH 2) as it is compiled there: N mma.sync
 * per block, a compile-time count in 4 accumulator chains that start apart, the
 * accumulators summed after the block; `reps` blocks per warp. */
template <int N>
__global__ void ck_mma_block(int reps, u64 *out, float *sink)
{
    const u32 lane = threadIdx.x & 31;
    const u32 a0 = 0x3c003c00u ^ lane, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3, b0 = 0x38003800u, b1 = b0 + lane;
    float acc = 0.f;
    u64 t0 = ck_clk();
    for (int r = 0; r < reps; r++) {
        float d[4][4] = {{0.f, 0.f, 0.f, 0.f}, {1.f, 1.f, 1.f, 1.f}, {2.f, 2.f, 2.f, 2.f}, {3.f, 3.f, 3.f, 3.f}};
        for (u32 n = 0; n < N / 4; n++) {
#pragma unroll
            for (int q = 0; q < 4; q++)
                asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                             "{%8, %9}, {%0, %1, %2, %3};"
                             : "+f"(d[q][0]), "+f"(d[q][1]), "+f"(d[q][2]), "+f"(d[q][3])
                             : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
        }
#pragma unroll
        for (int q = 0; q < 4; q++)
            acc += d[q][0] + d[q][1] + d[q][2] + d[q][3];
    }
    u64 t1 = ck_clk_after(__float_as_uint(acc), (u32 *)sink + 1 + (threadIdx.x & 7));
    if (lane == 0) {
        out[(blockIdx.x * 32 + (threadIdx.x >> 5)) * 2] = t0;
        out[(blockIdx.x * 32 + (threadIdx.x >> 5)) * 2 + 1] = t1;
    }
}

/* mbarrier costs, one CTA of 2 warps, lane 0 of each:
 * out[0] cycles of 256 local arrives that read the returned state (pending_count, the
 *        generated kernel's over-arrival check); out[1] 256 arrives without a result;
 * out[2] 256 arrive.expect_tx; out[3] a 128-round ping-pong between the warps' lanes 0
 *        (arrive on the other's barrier, try_wait on its own): 256 hand-offs. */
__global__ void ck_mbar(u64 *out, u32 *sink)
{
    __shared__ __align__(8) u64 bars[5];
    const u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (threadIdx.x == 0) {
        ck_bar_init(ck_sa(&bars[0]), 1u << 19);
        ck_bar_init(ck_sa(&bars[1]), 1u << 19);
        ck_bar_init(ck_sa(&bars[2]), 1u << 19);
        ck_bar_init(ck_sa(&bars[3]), 1);
        ck_bar_init(ck_sa(&bars[4]), 1);
    }
    __syncthreads();
    if (warp == 0 && lane == 0) {
        u32 acc = 0;
        u64 t0 = ck_clk();
        for (int i = 0; i < 256; i++) {
            u64 st;
            u32 pc;
            asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(st) : "r"(ck_sa(&bars[0])) : "memory");
            asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(pc) : "l"(st));
            acc += pc;
        }
        u64 t1 = ck_clk();
        for (int i = 0; i < 256; i++)
            ck_arrive(ck_sa(&bars[1]));
        u64 t2 = ck_clk();
        for (int i = 0; i < 256; i++)
            ck_expect(ck_sa(&bars[2]), 16);
        u64 t3 = ck_clk();
        out[0] = t1 - t0;
        out[1] = t2 - t1;
        out[2] = t3 - t2;
        sink[0] = acc;
    }
    __syncthreads();
    if (lane == 0) {
        const u32 mine = ck_sa(&bars[3 + warp]), other = ck_sa(&bars[4 - warp]);
        u64 t0 = ck_clk();
        for (u32 i = 0; i < 128; i++) {
            if (warp == 0) {
                ck_arrive(other);
                ck_wait(mine, i & 1u);
            } else {
                ck_wait(mine, i & 1u);
                ck_arrive(other);
            }
        }
        if (warp == 0)
            out[3] = ck_clk() - t0;
    }
}

/* The waiters one phase wakes: warps 1 .. W-1 of one CTA wait with all their lanes (try_wait,
 * as the generated consumers do) on a barrier of count 1 that warp 0's lane 0 arrives on
 * 2000 cycles after the CTA's barrier, so that every waiter is suspended by then; per
 * round r, out[r x 32 + w] is the clock at which warp w's wait returned (out[r x 32] the
 * arrive's). */
__global__ void ck_wake_spread(u64 *out, int rounds)
{
    __shared__ __align__(8) u64 bar;
    const u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (threadIdx.x == 0)
        ck_bar_init(ck_sa(&bar), 1);
    __syncthreads();
    for (int r = 0; r < rounds; r++) {
        __syncthreads();
        u64 t;
        if (warp == 0) {
            t = ck_clk();
            while (ck_clk() - t < 2000)
                ;
            t = ck_clk();
            if (lane == 0)
                ck_arrive(ck_sa(&bar));
        } else {
            ck_wait(ck_sa(&bar), (u32)r & 1u);
            t = ck_clk();
        }
        if (lane == 0)
            out[r * 32 + warp] = t;
    }
}

/* cp.async.cg of 16 bytes per lane: each warp copies batches of 8 instructions (4 KB) into
 * its own double buffer, commit group per batch, wait_group 1; source warp w of CTA c at
 * ((c x warps + w) x 8 KB + batch x 4 KB) mod footprint. out per warp: cycles of the first
 * batch's 8 instructions (issue), cycles of the whole loop; per CTA the globaltimer span. */
__global__ void ck_cpasync(const unsigned char *g, int batches, unsigned long long footprint, u64 *out)
{
    extern __shared__ __align__(16) unsigned char cbuf[];
    const u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    const u32 buf = ck_sa(cbuf) + warp * 8192u;
    const unsigned long long wbase = ((unsigned long long)blockIdx.x * nw + warp) * 8192ull;
    __syncthreads();
    u64 g0 = ck_gtm(), t0 = ck_clk(), t_issue = 0;
    for (int j = 0; j < batches; j++) {
        const unsigned char *src = g + (wbase + (unsigned long long)j * 4096ull) % footprint;
        const u32 dst = buf + (u32)(j & 1) * 4096u;
        u64 ti = ck_clk();
#pragma unroll
        for (u32 q = 0; q < 8; q++)
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst + q * 512u + lane * 16u),
                         "l"(src + q * 512u + lane * 16u)
                         : "memory");
        if (j == 0)
            t_issue = ck_clk() - ti;
        asm volatile("cp.async.commit_group;" ::: "memory");
        asm volatile("cp.async.wait_group 1;" ::: "memory");
    }
    asm volatile("cp.async.wait_group 0;" ::: "memory");
    u64 t1 = ck_clk();
    __syncthreads();
    u64 g1 = ck_gtm();
    if (lane == 0) {
        out[(blockIdx.x * 32 + warp) * 2] = t_issue;
        out[(blockIdx.x * 32 + warp) * 2 + 1] = t1 - t0;
    }
    if (threadIdx.x == 0) {
        out[gridDim.x * 64 + blockIdx.x * 2] = g0;
        out[gridDim.x * 64 + blockIdx.x * 2 + 1] = g1;
    }
}

/* TMA store (op 0) or add reduction (op 1) of one box from one thread: issue to
 * wait_group.read (the generated kernel's wait before the stage is released) in out[2i],
 * and issue to wait_group 0 (the writes complete) in out[2i+1], in separate trips. */
__global__ void ck_store(const __grid_constant__ CUtensorMap m, int n, int op, int box_rows, u64 *out)
{
    extern __shared__ unsigned char smem[];
    if (threadIdx.x)
        return;
    const u32 src = ck_align1k(smem);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    for (int i = 0; i < 2 * n; i++) {
        const int row = (i % 64) * box_rows;
        u64 t0 = ck_clk();
        if (op == 0)
            asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(
                             (u64)&m),
                         "r"(0), "r"(row), "r"(src)
                         : "memory");
        else
            asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(
                             (u64)&m),
                         "r"(0), "r"(row), "r"(src)
                         : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        if (i & 1)
            asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
        else
            asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
        out[i] = ck_clk() - t0;
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
}

/* bar.sync of all the CTA's warps, 256 times. */
__global__ void ck_barsync(u64 *out)
{
    u64 t0 = ck_clk();
    for (int i = 0; i < 256; i++)
        __syncthreads();
    u64 t1 = ck_clk();
    if (threadIdx.x == 0)
        out[blockIdx.x] = t1 - t0;
}

/* Cluster of 2: out[0] cycles of 64 arrive.release.cluster on the peer's barrier (warp time);
 * out[1] a 128-round ping-pong of remote arrives between the ranks' lanes 0 (256 hand-offs). */
__global__ void ck_cluster(u64 *out)
{
    __shared__ __align__(8) u64 bars[3];
    u32 rank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    if (threadIdx.x == 0) {
        ck_bar_init(ck_sa(&bars[0]), 1u << 19);
        ck_bar_init(ck_sa(&bars[1]), 1);
        ck_bar_init(ck_sa(&bars[2]), 1);
    }
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
    if (threadIdx.x == 0) {
        u32 peer_many, peer_pp;
        asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(peer_many) : "r"(ck_sa(&bars[0])), "r"(rank ^ 1u));
        asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(peer_pp) : "r"(ck_sa(&bars[1 + rank])), "r"(rank ^ 1u));
        const u32 mine = ck_sa(&bars[2 - rank]);
        u64 t0 = ck_clk();
        for (int i = 0; i < 64; i++)
            asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(peer_many) : "memory");
        u64 t1 = ck_clk();
        asm volatile("barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;" ::: "memory");
        u64 t2 = ck_clk();
        for (u32 i = 0; i < 128; i++) {
            if (rank == 0) {
                asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(peer_pp) : "memory");
                ck_wait_cluster(mine, i & 1u);
            } else {
                ck_wait_cluster(mine, i & 1u);
                asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(peer_pp) : "memory");
            }
        }
        u64 t3 = ck_clk();
        if (rank == 0 && blockIdx.x < 2) {
            out[0] = t1 - t0;
            out[1] = t3 - t2;
        }
    } else {
        asm volatile("barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;" ::: "memory");
    }
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

/* Remote arrives as a multicast consumer releases a stage: lane 0 of every warp of every CTA
 * of the cluster arrives, `rounds` times, on barrier 0 of each other rank in turn
 * (mbarrier.arrive.release.cluster, as hw/run_kernel.cuh bar_arrive_remote). out[cta * 32 +
 * warp]: the warp's cycles per remote arrive. The warps of one CTA share an SM, so the sweep
 * over warps per CTA shows how the SM serves several warps' release fences. */
__global__ void ck_remote_many(u64 *out, u32 rounds)
{
    __shared__ __align__(8) u64 bar;
    u32 rank, size;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(size));
    if (threadIdx.x == 0)
        ck_bar_init(ck_sa(&bar), 1u << 19);
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
    const u32 warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    u64 t0 = ck_clk();
    if (lane == 0)
        for (u32 i = 0; i < rounds; i++)
            for (u32 k = 1; k < size; k++) {
                u32 peer;
                asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(peer) : "r"(ck_sa(&bar)), "r"((rank + k) % size));
                asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(peer) : "memory");
            }
    __syncwarp();
    u64 t1 = ck_clk();
    if (lane == 0)
        out[blockIdx.x * 32 + warp] = (t1 - t0) / (rounds * (size - 1));
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

/* A consumer's release on every rank of its cluster, as the generated kernel makes it: after a
 * cluster barrier, lane 0 of warp 0 of every rank arrives on the barrier of ranks 0, 1, ...
 * in turn (rotated: rank + 0, rank + 1, ...), locally on its own and with
 * mbarrier.arrive.release.cluster on the others. One cluster, one CTA per SM. Per round,
 * out[((round x size + rank) x 9 + k] is the clock before arrive k, out[.. + size] the clock
 * after the last; the clocks are kept in shared memory during the sequence, as the generated
 * kernel's records are. With `apart`, rank r starts r x apart cycles after the barrier. */
__global__ void ck_remote_order(u64 *out, u32 rounds, int rotated, u32 apart)
{
    __shared__ __align__(8) u64 bar;
    __shared__ u64 clk[9];
    u32 rank, size;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(size));
    if (threadIdx.x == 0)
        ck_bar_init(ck_sa(&bar), 1u << 19);
    for (u32 i = 0; i < rounds; i++) {
        asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
        if (threadIdx.x == 0) {
            /* rank r starts r x `apart` cycles after the barrier (0: all at once) */
            const u64 t0 = ck_clk();
            while (ck_clk() - t0 < (u64)rank * apart)
                ;
            for (u32 k = 0; k < size; k++) {
                const u32 target = rotated ? (rank + k) % size : k;
                clk[k] = ck_clk();
                if (target == rank) {
                    ck_arrive(ck_sa(&bar));
                } else {
                    u32 peer;
                    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(peer) : "r"(ck_sa(&bar)), "r"(target));
                    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(peer) : "memory");
                }
            }
            clk[size] = ck_clk();
            /* to global memory after the sequence: a .release.cluster arrive waits for the
             * thread's earlier global stores */
            for (u32 k = 0; k <= size; k++)
                out[((u64)i * size + rank) * 9 + k] = clk[k];
        }
    }
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

/* What an SM's CTAs receive from their cluster peers: every rank of each cluster, each round,
 * sends one message to every rank (itself included) and waits for the C messages of that
 * round on its own barrier. KIND 0: the message is an mbarrier.arrive.release.cluster on the
 * rank's barrier (a consumer's release in the generated kernels); KIND 1: a multicast bulk
 * copy of `slice` bytes from global memory to every rank's shared memory, completing on
 * each rank's barrier (a multicast producer's slice). Two barriers alternate by round, so a
 * rank one round ahead completes on the other. out per CTA: clock at the first round's start
 * and the last round's end. */
template <int KIND>
__global__ void ck_cluster_rx(u64 *out, u32 rounds, u32 slice, const unsigned char *src)
{
    extern __shared__ __align__(128) unsigned char rx[];
    __shared__ __align__(8) u64 bars[2];
    u32 rank, size;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(size));
    if (threadIdx.x == 0)
        for (int b = 0; b < 2; b++)
            ck_bar_init(ck_sa(&bars[b]), KIND ? 1u : size);
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
    if (threadIdx.x == 0) {
        const u64 t0 = ck_clk();
        for (u32 i = 0; i < rounds; i++) {
            const u32 bar = ck_sa(&bars[i & 1]);
            if (KIND == 0) {
                for (u32 k = 0; k < size; k++) {
                    if (k == rank) {
                        ck_arrive(bar);
                    } else {
                        u32 peer;
                        asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(peer) : "r"(bar), "r"(k));
                        asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(peer) : "memory");
                    }
                }
            } else {
                ck_expect(bar, slice * size);
                const unsigned short mask = (unsigned short)((1u << size) - 1u);
                asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
                             " [%0], [%1], %2, [%3], %4;" ::"r"(ck_sa(rx) + rank * slice),
                             "l"(src + (size_t)(blockIdx.x * rounds + i) % 4096u * slice), "r"(slice), "r"(bar), "h"(mask)
                             : "memory");
            }
            ck_wait_cluster(bar, (i >> 1) & 1u);
        }
        const u64 t1 = ck_clk();
        out[2 * blockIdx.x] = t0;
        out[2 * blockIdx.x + 1] = t1;
    }
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

/* The round trip of the generated pipeline's two roles without their work, by how many CTAs
 * share the SM: lane 0 of warp 0 (the producer) and of warp 1 (the consumer) pass one stage
 * back and forth `rounds` times. TMA 0: the producer arrives on the full barrier itself;
 * TMA 1: it arms the full barrier and loads a 2 KiB box (from a 1 MiB footprint in L2) that
 * completes it. The consumer waits for the full barrier and arrives on the empty one, which
 * the producer waits for. out per CTA: the producer's clock at the first round and after
 * the last. */
template <int TMA>
__global__ void ck_local_rt(const __grid_constant__ CUtensorMap m, u32 rounds, u64 *out)
{
    extern __shared__ __align__(1024) unsigned char lrx[];
    __shared__ __align__(8) u64 full, empty;
    if (threadIdx.x == 0) {
        ck_bar_init(ck_sa(&full), 1);
        ck_bar_init(ck_sa(&empty), 1);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        const u64 t0 = ck_clk();
        for (u32 i = 0; i < rounds; i++) {
            if (TMA) {
                ck_expect(ck_sa(&full), 2048);
                ck_tma_load(ck_align1k(lrx), &m, 0, (int)(((blockIdx.x * 7u + i) % 512u) * 32u), ck_sa(&full));
            } else {
                ck_arrive(ck_sa(&full));
            }
            ck_wait(ck_sa(&empty), i & 1u);
        }
        out[2 * blockIdx.x] = t0;
        out[2 * blockIdx.x + 1] = ck_clk();
    } else if (threadIdx.x == 32) {
        for (u32 i = 0; i < rounds; i++) {
            ck_wait(ck_sa(&full), i & 1u);
            ck_arrive(ck_sa(&empty));
        }
    }
}

/* A remote arrive while TMA loads stream into the SMs: clusters of 2, one CTA per SM. Lane 0
 * of warp 1 times `rounds` mbarrier.arrive.release.cluster on the peer's barrier (a consumer's
 * release in the generated kernels); lane 0 of warp 0, when bit `rank` of load_ranks is set,
 * keeps `stages` 16 KiB box loads in flight from a footprint of `boxes` boxes until the arrives
 * are done. out[cta * 4]: arrives' total clocks, loads, globaltimer start and end of the loads. */
__global__ void ck_remote_load(const __grid_constant__ CUtensorMap m, u32 rounds, int stages, u32 load_ranks,
                               long long boxes, u64 *out)
{
    extern __shared__ unsigned char smem[];
    __shared__ __align__(8) u64 bars[16];
    __shared__ __align__(8) u64 peer_bar;
    __shared__ volatile u32 done;
    u32 rank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    const u32 warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (threadIdx.x == 0) {
        done = 0;
        ck_bar_init(ck_sa(&peer_bar), 1u << 19);
        for (int s = 0; s < stages; s++)
            ck_bar_init(ck_sa(&bars[s]), 1);
    }
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
    if (warp == 1 && lane == 0) {
        u32 peer;
        asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(peer) : "r"(ck_sa(&peer_bar)), "r"(rank ^ 1u));
        u64 sum = 0;
        for (u32 i = 0; i < rounds; i++) {
            u64 t0 = ck_clk();
            asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(peer) : "memory");
            sum += ck_clk() - t0;
            __nanosleep(200);
        }
        out[4 * blockIdx.x] = sum;
        done = 1;
    }
    if (warp == 0 && lane == 0) {
        u64 n = 0, g0 = ck_gtm();
        if ((load_ranks >> rank) & 1u) {
            const u32 base = ck_align1k(smem);
            auto issue = [&](u64 j) {
                const int s = (int)(j % (u64)stages);
                ck_expect(ck_sa(&bars[s]), 16384);
                ck_tma_load(base + (u32)s * 16384u, &m, 0, (int)(((long long)(j * gridDim.x + blockIdx.x) % boxes) * 64),
                            ck_sa(&bars[s]));
            };
            for (int j = 0; j < stages; j++)
                issue((u64)j);
            for (; !done; n++) {
                ck_wait(ck_sa(&bars[n % (u64)stages]), (u32)(n / (u64)stages) & 1u);
                issue(n + (u64)stages);
            }
            for (u64 j = n; j < n + (u64)stages; j++)
                ck_wait(ck_sa(&bars[j % (u64)stages]), (u32)(j / (u64)stages) & 1u);
        }
        out[4 * blockIdx.x + 1] = n;
        out[4 * blockIdx.x + 2] = g0;
        out[4 * blockIdx.x + 3] = ck_gtm();
    }
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

/* Every CTA spins for spin_ns and keeps its globaltimer start and end: the kernel's time
 * outside its CTAs and the spread of the first wave's starts. */
__global__ void ck_span(u64 spin_ns, u64 *out)
{
    u64 g0 = ck_gtm(), g1 = g0;
    if (threadIdx.x == 0) {
        while (g1 - g0 < spin_ns)
            g1 = ck_gtm();
        out[2 * blockIdx.x] = g0;
        out[2 * blockIdx.x + 1] = g1;
    }
}

/* Where the CTA scheduler puts a grid smaller than the GPU's CTA slots: every CTA writes
 * its SM and start time, then spins spin_ns so that the whole grid is resident at once
 * (dynamic shared memory sets how many CTAs an SM holds). */
__global__ void ck_place(u64 spin_ns, u64 *out)
{
    u64 g0 = ck_gtm(), g1 = g0;
    if (threadIdx.x == 0) {
        u32 smid;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
        while (g1 - g0 < spin_ns)
            g1 = ck_gtm();
        out[2 * blockIdx.x] = smid;
        out[2 * blockIdx.x + 1] = g0;
    }
}

/* The st.async copy loop as the generated producer runs it (hw/run_kernel.cuh MODE 3), in
 * clusters of 2: warp 0 of every CTA writes 4 KiB stages into its peer's shared memory, each
 * lane taking its 16-byte chunk's place from a table (tab[q].y: the offset in the stage,
 * .z: in global memory, read through the non-coherent path as the generated kernel reads its
 * __device__ const table), loading the chunk and storing it with st.async (complete_tx on the
 * peer's barrier), 32 lanes a trip. The generated loop's code (nvcc 13.0, sm_90a: its SASS)
 * issues the loads of 4 trips, then their 4 st.async; the kernel is written in those batches
 * so that the compiler cannot choose otherwise. The stages' expect_tx is made once before the
 * clock starts, so the clock holds the trips alone. Each CTA's stages lie at
 * src + (blockIdx.x % regions) x region, stage j at j x stage_stride; with warm set the CTA
 * first walks its stages once untimed (the data then comes from its own SM's L1, as the
 * global loads are cached there); NOLOAD: the lanes store a constant (the st.async alone).
 * out[blockIdx.x]: cycles of the timed walk (stages x 8 trips). */
#define CK_STAS_CHUNKS 256u
template <bool NOLOAD>
__global__ void ck_stas(const unsigned char *src, unsigned long long region, u32 regions,
                        const uint4 *__restrict__ tab, unsigned long long stage_stride, u32 stages, u32 warm, u64 *out)
{
    __shared__ __align__(128) unsigned char stage[CK_STAS_CHUNKS * 16];
    __shared__ __align__(8) u64 bar;
    u32 rank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    const u32 lane = threadIdx.x & 31, peer = rank ^ 1u;
    if (threadIdx.x == 0)
        ck_bar_init(ck_sa(&bar), 1u << 19);
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
    u32 rbar;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(rbar) : "r"(ck_sa(&bar)), "r"(peer));
    const unsigned char *base = src + (unsigned long long)(blockIdx.x % regions) * region;
    if (lane == 0)
        asm volatile("mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64 _, [%0], %1;" ::"r"(rbar),
                     "r"((warm + 1u) * stages * CK_STAS_CHUNKS * 16u)
                     : "memory");
    __syncwarp();
    u64 t0 = 0;
    for (u32 pass = 0; pass <= warm; pass++) {
        t0 = ck_clk();
        for (u32 j = 0; j < stages; j++) {
            const unsigned char *g = base + j * stage_stride;
            for (u32 q0 = lane; q0 < CK_STAS_CHUNKS; q0 += 4 * 32) {
                uint4 c[4], v[4];
#pragma unroll
                for (int i = 0; i < 4; i++)
                    c[i] = tab[q0 + 32 * i];
#pragma unroll
                for (int i = 0; i < 4; i++)
                    v[i] = NOLOAD ? make_uint4(c[i].z, q0, j, pass) : *(const uint4 *)(g + c[i].z);
#pragma unroll
                for (int i = 0; i < 4; i++) {
                    u32 dst;
                    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(dst) : "r"(ck_sa(stage) + c[i].y), "r"(peer));
                    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%0], {%1, %2, %3, %4}, [%5];"
                                 ::"r"(dst), "r"(v[i].x), "r"(v[i].y), "r"(v[i].z), "r"(v[i].w), "r"(rbar)
                                 : "memory");
                }
            }
            __syncwarp();
        }
    }
    u64 t1 = ck_clk();
    if (lane == 0)
        out[blockIdx.x] = t1 - t0;
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

#endif
