/* gemm_kernel.cuh: the body of the GEMM kernel that `tmahw run` compiles with NVRTC for a
 * description with `math: {kind: wgmma}` and a `gemm:` problem. hw/gemm_gen.c writes the
 * description's plan as #defines in front of this text (and the wgmma instruction of the
 * described shape as gm_wgmma()), so every tile size, stage count and descriptor is a
 * compile-time constant.
 *
 * C[M][N] = A[M][K] * B[N][K]^T, A and B K-major (rows of K contiguous), C row-major.
 * Warpgroup 0 is the producer (one thread issues the TMA loads of A and B into a ring of
 * GM_STAGES stages, full/empty mbarriers); warpgroups 1..GM_CONSUMERS are consumers, each
 * owning 64 rows of the BM x BN tile: per stage they issue BK / GM_KINST wgmma.mma_async
 * (both operands in shared memory, descriptors from the descriptor model), commit one
 * group, wait until at most GM_WAIT groups are in flight and release the stage GM_LAG
 * stages back (GM_LAG >= GM_WAIT is the correct protocol: a smaller lag releases a stage
 * that a wgmma may still be reading). The grid is persistent: CTA b takes tiles b,
 * b + gridDim.x, ... in GM_GROUP-row groups of M tiles. With GM_CLUSTER 2 the CTAs of a
 * cluster take the two M tiles of one tile column: each loads its own A and one half of B,
 * multicast to both, and a stage is free only when the consumers of both CTAs released it
 * (they arrive on both CTAs' empty barriers). The epilogue converts the f32
 * accumulators to bf16 and stores them: through shared memory and TMA stores
 * (GM_EPI_TMA 1) or straight from registers (0).
 * Embedded into tmahw as a C string by hw/embed.sh (hw/gemm_kernel_str.c). */

struct __align__(64) TMap { u64 w[16]; };   /* CUtensorMap: 128 opaque bytes */

struct __align__(16) GmEv {   /* one recorded event (converted by the host, hw/gemm_exec.cu) */
    u32 t, dur, iter;
    unsigned char kind, stage, warp, aux;
};
/* event kinds, the trace's (sim/trace.h) numbers are assigned by the host */
#define GMEV_LOAD 0      /* producer: TMA issue of one stage (A and B) */
#define GMEV_WAIT_FULL 1 /* consumer: wait for a full stage */
#define GMEV_WGMMA 2     /* consumer: the stage's wgmma issue + commit (aux: groups in flight after it) */
#define GMEV_WAITG 3     /* consumer: wgmma.wait_group */
#define GMEV_RELEASE 4   /* consumer: arrive on empty[stage] */
#define GMEV_EPI 5       /* consumer: epilogue (registers to shared / global, store issue) */
#define GMEV_WAIT_EMPTY 6/* producer: wait for an empty stage */

#define GM_THREADS ((GM_CONSUMERS + 1) * 128)
#define GM_A_BYTES (GM_BM * 128)
#define GM_B_BYTES (GM_BN * 128)
#define GM_STAGE_BYTES (GM_A_BYTES + GM_B_BYTES)
#ifndef GM_CLUSTER
#define GM_CLUSTER 1
#endif
#define GM_MT (GM_M / GM_BM / GM_CLUSTER)   /* rows of tile clusters */
#define GM_NT (GM_N / GM_BN)
#define GM_KT (GM_K / GM_BK)
#define GM_TILES (GM_MT * GM_NT)
#define GM_C_BYTES (64 * GM_BN * 2)              /* one consumer's staging of C (bf16) */
#define GM_CSTAGE_OFF (GM_STAGES * GM_STAGE_BYTES)
#define GM_BAR_OFF (GM_CSTAGE_OFF + (GM_EPI_TMA ? GM_CONSUMERS * GM_C_BYTES : 0))

/* two f32 as bf16x2: lo in the low half (the lower column) */
__device__ __forceinline__ u32 gm_bf16x2(float lo, float hi)
{
    u32 r;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}
__device__ __forceinline__ u32 gm_smem(const void *p) { return (u32)__cvta_generic_to_shared(p); }
__device__ __forceinline__ u32 gm_clk(void)
{
    u64 t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t));
    return (u32)t;
}
__device__ __forceinline__ void gm_bar_init(u32 bar, u32 count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count));
}
__device__ __forceinline__ int gm_try_wait(u32 bar, u32 parity)
{
    u32 ok;
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                 "selp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(ok)
                 : "r"(bar), "r"(parity)
                 : "memory");
    return (int)ok;
}
/* returns 1 if the first try failed (the warp stalled) */
__device__ __forceinline__ int gm_wait(u32 bar, u32 parity)
{
    if (gm_try_wait(bar, parity))
        return 0;
    while (!gm_try_wait(bar, parity))
        ;
    return 1;
}
__device__ __forceinline__ void gm_arrive(u32 bar)
{
    asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void gm_expect_tx(u32 bar, u32 bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void gm_tma_load(const TMap *m, u32 dst, u32 bar, int c0, int c1)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 ::"r"(dst), "l"(m), "r"(c0), "r"(c1), "r"(bar)
                 : "memory");
}
__device__ __forceinline__ void gm_tma_store(const TMap *m, u32 src, int c0, int c1)
{
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];"
                 ::"l"(m), "r"(c0), "r"(c1), "r"(src)
                 : "memory");
}
__device__ __forceinline__ u32 gm_rank(void)
{
    u32 r = 0;
#if GM_CLUSTER > 1
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
#endif
    return r;
}
__device__ __forceinline__ void gm_cluster_sync(void)
{
#if GM_CLUSTER > 1
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
#else
    __syncthreads();
#endif
}
/* half of B to both CTAs of the cluster: complete_tx on each CTA's barrier at the same offset */
__device__ __forceinline__ void gm_tma_load_mc(const TMap *m, u32 dst, u32 bar, int c0, int c1)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
                 " [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(dst), "l"(m), "r"(c0), "r"(c1), "r"(bar), "h"((unsigned short)3)
                 : "memory");
}
__device__ __forceinline__ void gm_named_sync(u32 id)
{
    asm volatile("bar.sync %0, 128;" ::"r"(id) : "memory");
}

/* tile t -> (m tile, n tile): GM_GROUP rows of M tiles walked column by column */
__device__ __forceinline__ void gm_tile(u32 t, u32 *mt, u32 *nt)
{
    u32 per = GM_GROUP * GM_NT;
    u32 g = t / per, r = t % per;
    u32 first = g * GM_GROUP;
    u32 rows = GM_MT - first < GM_GROUP ? GM_MT - first : GM_GROUP;
    *mt = first + r % rows;
    *nt = r / rows;
}

/* The recording's parts, for the overhead study of tmahw run --record-level: 1 all of it,
 * 2 its clock reads only, 3 its stores only, 4 neither (the recording build's other code),
 * 5 the producer's records only (the consumers read their clocks but store nothing). */
#ifndef GM_REC_LEVEL
#define GM_REC_LEVEL 1
#endif
#define GM_REC_CLOCKS (GM_RECORD && GM_REC_LEVEL != 3 && GM_REC_LEVEL != 4)
#define GM_REC_STORES (GM_RECORD && GM_REC_LEVEL != 2 && GM_REC_LEVEL != 4)
#define GM_RCLK() (GM_REC_CLOCKS ? gm_clk() : 0u)

struct GmRec {   /* per warp event recording (GM_RECORD) */
    GmEv *ev;
    u32 n, cap, sink;
    __device__ __forceinline__ void put(u32 t0, u32 kind, u32 stage, u32 iter, u32 aux, u32 warp)
    {
#if GM_RECORD
        u32 t1 = GM_RCLK();
        if (!GM_REC_STORES || (GM_REC_LEVEL == 5 && warp)) {
            sink += t1 - t0;   /* keeps the clock reads where nothing is stored */
            return;
        }
        if (ev && n < cap) {
            GmEv e;
            e.t = t0;
            e.dur = t1 - t0;
            e.iter = iter;
            e.kind = (unsigned char)kind;
            e.stage = (unsigned char)stage;
            e.warp = (unsigned char)warp;
            e.aux = (unsigned char)aux;
            ev[n] = e;
        }
        n++;
#else
        (void)t0; (void)kind; (void)stage; (void)iter; (void)aux; (void)warp;
#endif
    }
    /* the study levels that store nothing: their clock sum, where it cannot matter */
    __device__ __forceinline__ void finish(void)
    {
#if GM_RECORD
        if (ev && sink == 0xFFFFFFFFu)
            ev[0].t = sink;
#endif
    }
};

__device__ __forceinline__ void gm_producer(const TMap *ma, const TMap *mb, u32 sb, GmRec &rec)
{
    u32 it = 0, rank = gm_rank();
    for (u32 t = blockIdx.x / GM_CLUSTER; t < GM_TILES; t += gridDim.x / GM_CLUSTER) {
        u32 mt, nt;
        gm_tile(t, &mt, &nt);
        mt = mt * GM_CLUSTER + rank;
        for (u32 kb = 0; kb < GM_KT; kb++, it++) {
            u32 s = it % GM_STAGES, ph = (it / GM_STAGES) & 1;
            u32 full = sb + GM_BAR_OFF + 8 * s, empty = full + 8 * GM_STAGES;
            u32 t0 = GM_RCLK();
            int blocked = gm_wait(empty, ph ^ 1);
            if (blocked)
                rec.put(t0, GMEV_WAIT_EMPTY, s, it, 1, 0);
            t0 = GM_RCLK();
            gm_expect_tx(full, GM_STAGE_BYTES);
            u32 a = sb + s * GM_STAGE_BYTES;
            gm_tma_load(ma, a, full, (int)(kb * GM_BK), (int)(mt * GM_BM));
#if GM_CLUSTER > 1
            gm_tma_load_mc(mb, a + GM_A_BYTES + rank * (GM_BN / 2) * 128, full, (int)(kb * GM_BK),
                           (int)(nt * GM_BN + rank * (GM_BN / 2)));
#else
            gm_tma_load(mb, a + GM_A_BYTES, full, (int)(kb * GM_BK), (int)(nt * GM_BN));
#endif
            rec.put(t0, GMEV_LOAD, s, it, 0, 0);
        }
    }
    rec.finish();
}

/* the epilogue of one consumer: 64 rows x GM_BN columns of accumulators to C */
__device__ __forceinline__ void gm_epilogue(float (&acc)[GM_BN / 2], u32 sb, u32 c, u32 mt, u32 nt, const TMap *mc, bf16 *C,
                                            u32 first)
{
    u32 tid = threadIdx.x % 128, w = tid / 32, l = tid % 32;
    u32 r0 = 16 * w + l / 4;
#if GM_EPI_TMA
    u32 stg = sb + GM_CSTAGE_OFF + c * GM_C_BYTES;
    if (!first) {
        /* the previous tile's TMA stores must have read the staging buffer */
        if (tid == 0)
            asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
        gm_named_sync(1 + c);
    }
#pragma unroll
    for (u32 j = 0; j < GM_BN / 8; j++) {
        u32 col = 8 * j + 2 * (l % 4);
        u32 box = col / 64, byte = (col % 64) * 2, chunk = byte / 16;
#pragma unroll
        for (u32 h = 0; h < 2; h++) {
            u32 r = r0 + 8 * h;
            u32 v = gm_bf16x2(acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]);
            u32 addr = stg + box * 8192 + r * 128 + ((chunk ^ (r & 7)) << 4) + (byte & 15);
            asm volatile("st.shared.b32 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
        }
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    gm_named_sync(1 + c);
    if (tid == 0) {
        for (u32 b = 0; b < GM_BN / 64; b++)
            gm_tma_store(mc, stg + b * 8192, (int)(nt * GM_BN + 64 * b), (int)(mt * GM_BM + 64 * c));
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    }
    (void)C;
#else
    (void)sb; (void)mc; (void)first;
    bf16 *base = C + (size_t)(mt * GM_BM + 64 * c + r0) * GM_N + nt * GM_BN + 2 * (l % 4);
#pragma unroll
    for (u32 j = 0; j < GM_BN / 8; j++) {
#pragma unroll
        for (u32 h = 0; h < 2; h++) {
            *(u32 *)(base + (size_t)8 * h * GM_N + 8 * j) = gm_bf16x2(acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]);
        }
    }
#endif
}

/* Each consumer warp releases the stage on every CTA of its cluster: lane r arrives on CTA
 * r's barrier, all lanes in one instruction (release at CTA scope, as a local arrive: the
 * stage's wgmma reads are complete after wait_group, and the peer's producer only writes
 * after it sees the phase). */
__device__ __forceinline__ void gm_release(u32 sb, u32 g)
{
    u32 bar = sb + GM_BAR_OFF + 8 * (GM_STAGES + g % GM_STAGES);
#if GM_CLUSTER > 1
    u32 r = threadIdx.x % 32;
    if (r < GM_CLUSTER) {
        u32 rb;
        asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(rb) : "r"(bar), "r"(r));
        asm volatile("mbarrier.arrive.release.cta.shared::cluster.b64 _, [%0];" ::"r"(rb) : "memory");
    }
#else
    if (threadIdx.x % 32 == 0)
        gm_arrive(bar);
#endif
}

__device__ __forceinline__ void gm_consumer(u32 c, u32 sb, const TMap *mc, bf16 *C, GmRec &rec)
{
    float acc[GM_BN / 2];
    u32 it = 0, warp = 1 * 4 + c * 4 + (threadIdx.x % 128) / 32;
    int lead = threadIdx.x % 128 < 32 && threadIdx.x % 32 == 0;   /* records this warpgroup's events */
    u32 first = 1, rank = gm_rank();
    for (u32 t = blockIdx.x / GM_CLUSTER; t < GM_TILES; t += gridDim.x / GM_CLUSTER) {
        u32 mt, nt;
        gm_tile(t, &mt, &nt);
        mt = mt * GM_CLUSTER + rank;
#pragma unroll
        for (u32 i = 0; i < GM_BN / 2; i++)
            acc[i] = 0.f;
        u32 start = it;
        for (u32 kb = 0; kb < GM_KT; kb++, it++) {
            u32 s = it % GM_STAGES, ph = (it / GM_STAGES) & 1;
            u32 t0 = GM_RCLK();
            int blocked = gm_wait(sb + GM_BAR_OFF + 8 * s, ph);
            if (lead)
                rec.put(t0, GMEV_WAIT_FULL, s, it, blocked, warp);
            t0 = GM_RCLK();
            u32 a = sb + s * GM_STAGE_BYTES + c * 64 * 128, b = sb + s * GM_STAGE_BYTES + GM_A_BYTES;
            asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
            for (u32 k = 0; k < GM_BK / GM_KINST; k++)
                gm_wgmma(acc, GM_DESC_A | (u64)(((a + k * GM_KSTEP_A) >> 4) & 0x3FFF),
                         GM_DESC_B | (u64)(((b + k * GM_KSTEP_B) >> 4) & 0x3FFF));
            asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
            if (lead)
                rec.put(t0, GMEV_WGMMA, s, it, 0, warp);
            t0 = GM_RCLK();
            asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(GM_WAIT) : "memory");
            if (lead)
                rec.put(t0, GMEV_WAITG, s, it, GM_WAIT, warp);
            if (it >= start + GM_LAG) {
                gm_release(sb, it - GM_LAG);
                if (lead)
                    rec.put(GM_RCLK(), GMEV_RELEASE, (it - GM_LAG) % GM_STAGES, it - GM_LAG, 0, warp);
            }
        }
        u32 t0 = GM_RCLK();
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        if (lead)
            rec.put(t0, GMEV_WAITG, (it - 1) % GM_STAGES, it - 1, 0, warp);
        for (u32 g = (it - start > GM_LAG ? it - GM_LAG : start); g < it; g++) {
            gm_release(sb, g);
            if (lead)
                rec.put(GM_RCLK(), GMEV_RELEASE, g % GM_STAGES, g, 0, warp);
        }
        t0 = GM_RCLK();
        gm_epilogue(acc, sb, c, mt, nt, mc, C, first);
        if (lead)
            rec.put(t0, GMEV_EPI, 0, t, 0, warp);
        first = 0;
    }
#if GM_EPI_TMA
    if (threadIdx.x % 128 == 0)
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
#endif
    if (lead)
        rec.finish();
}

extern "C" __global__ void __launch_bounds__(GM_THREADS, 1)
    tmahw_gemm(const __grid_constant__ TMap ma, const __grid_constant__ TMap mb, const __grid_constant__ TMap mc,
               bf16 *C, GmEv *ev, u32 *evn, u32 ev_cap, u32 rec_ctas, u64 *clk)
{
    extern __shared__ __align__(1024) unsigned char gm_raw[];
    u32 sb = (gm_smem(gm_raw) + 1023) & ~1023u;
    u32 wg = threadIdx.x / 128;
    if (threadIdx.x == 0) {
        for (u32 s = 0; s < GM_STAGES; s++) {
            gm_bar_init(sb + GM_BAR_OFF + 8 * s, 1);
            gm_bar_init(sb + GM_BAR_OFF + 8 * (GM_STAGES + s), GM_CONSUMERS * 4 * GM_CLUSTER);
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        asm volatile("prefetch.tensormap [%0];" ::"l"(&ma) : "memory");
        asm volatile("prefetch.tensormap [%0];" ::"l"(&mb) : "memory");
    }
    gm_cluster_sync();   /* every CTA's barriers exist before a peer arrives on them or multicasts */
    if (clk && threadIdx.x == 0)   /* the CTA's start: globaltimer and SM clock (the host's clock figure) */
        asm volatile("mov.u64 %0, %%globaltimer;\n\tmov.u64 %1, %%clock64;" : "=l"(clk[4 * blockIdx.x]), "=l"(clk[4 * blockIdx.x + 1]));
    GmRec rec;
    u32 w = threadIdx.x / 32;
    rec.ev = (GM_RECORD && blockIdx.x < rec_ctas) ? ev + ((size_t)blockIdx.x * (GM_THREADS / 32) + w) * ev_cap : 0;
    rec.n = 0;
    rec.sink = 0;
    rec.cap = ev_cap;
    if (wg == 0) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(GM_PRODUCER_REGS));
        if (threadIdx.x == 0)
            gm_producer(&ma, &mb, sb, rec);
        __syncwarp();
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(GM_CONSUMER_REGS));
        gm_consumer(wg - 1, sb, &mc, C, rec);
    }
#if GM_RECORD
    if (rec.ev && (threadIdx.x % 32) == 0)
        evn[(size_t)blockIdx.x * (GM_THREADS / 32) + w] = rec.n;
#else
    (void)evn;
#endif
#if GM_CLUSTER > 1
    gm_cluster_sync();   /* no CTA leaves while its peer may still multicast into it or arrive on it */
#endif
    if (clk) {   /* the CTA's end, once all its warps are done */
        __syncthreads();
        if (threadIdx.x == 0)
            asm volatile("mov.u64 %0, %%clock64;\n\tmov.u64 %1, %%globaltimer;" : "=l"(clk[4 * blockIdx.x + 3]), "=l"(clk[4 * blockIdx.x + 2]));
    }
}
