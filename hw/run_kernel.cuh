/* run_kernel.cuh: the body of the pipeline kernel that `tmahw run` compiles with NVRTC.
 * hw/run_gen.c writes the description's numbers and tables as #defines and arrays in
 * front of this text (see run_gen.h for the list), so every count, byte number, stage
 * and access offset is a compile-time constant of the generated kernel. The protocol is
 * the one sim/pipe.c simulates (examples/README.md): same barriers, same parities,
 * same order of arrivals, same event keys. Events are recorded with hw/record.cuh, whose
 * text run_gen.c puts in front of this one (with TMASCOPE_RECORD = TMAHW_RECORD, the ring
 * size and the warp count of the description).
 * Embedded into tmahw as a C string by hw/embed.sh (hw/run_kernel_str.c). */

/* u32 and u64 are typedef'd by the generated prologue (run_gen.c). */

struct __align__(64) TMap { u64 w[16]; };   /* CUtensorMap: 128 opaque bytes */

/* raw record flags (record.cuh's TMASCOPE_F_*) */
#define EVF_BLOCKED TMASCOPE_F_BLOCKED
#define EVF_TIMEOUT TMASCOPE_F_TIMEOUT
#define EVF_FULL TMASCOPE_F_FULL

/* The CTA's clock pairs and %smid are the recording's (record.cuh's stamp warp): the
 * variant without recording reads no timer. */
struct Params {
    u32 *sums;         /* per warp: checksum of the bytes read */
    float *sink;       /* per warp: math results (keeps the math alive) */
    u32 *hang;         /* [0] flag, cta, warp, barrier, phase, iteration, parity */
    u32 *arrivals;     /* per CTA and barrier: histogram of pending counts seen by local arrivals (4 bins) */
    const unsigned char *g[4];
    u64 timeout_ns;
};

#define NWARPS (NPROD + NCONS)
#define FULL(s) (s)
#define EMPTY(s) (STAGES + (s))

__device__ __forceinline__ u64 gtimer(void)
{
    u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
__device__ __forceinline__ u32 cluster_rank(void)
{
#if CLUSTER > 1
    u32 r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
#else
    return 0;
#endif
}
__device__ __forceinline__ u32 smem_u32(const void *p) { return (u32)__cvta_generic_to_shared(p); }
__device__ __forceinline__ u32 remote(u32 a, u32 rank)
{
    u32 r;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(rank));
    return r;
}

/* ---- mbarrier ---------------------------------------------------------------- */
__device__ __forceinline__ void bar_init(u32 b, u32 count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(b), "r"(count) : "memory");
}
/* Non-blocking probe: tells whether the warp will stall (try_wait itself may suspend). */
__device__ __forceinline__ u32 bar_test(u32 b, u32 parity)
{
    u32 ok;
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                 "selp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(ok) : "r"(b), "r"(parity) : "memory");
    return ok;
}
__device__ __forceinline__ u32 bar_try(u32 b, u32 parity)
{
    u32 ok;
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                 "selp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(ok) : "r"(b), "r"(parity) : "memory");
    return ok;
}
/* Local arrive; returns the pending count the returned state reports. */
__device__ __forceinline__ u32 bar_arrive(u32 b)
{
    u64 st;
    u32 pc;
    asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(st) : "r"(b) : "memory");
    asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(pc) : "l"(st));
    return pc;
}
__device__ __forceinline__ void bar_arrive_remote(u32 b, u32 rank)
{
    u32 r = remote(b, rank);
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(r) : "memory");
}
__device__ __forceinline__ void bar_expect_tx(u32 b, u32 tx)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(tx) : "memory");
}
__device__ __forceinline__ void bar_expect_tx_remote(u32 b, u32 rank, u32 tx)
{
    u32 r = remote(b, rank);
    asm volatile("mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64 _, [%0], %1;" ::"r"(r), "r"(tx)
                 : "memory");
}

/* ---- recording ------------------------------------------------------------------ */
/* REC(kind, stage, iter, flags, aux, t0, dur) writes one record (record.cuh's
 * TMASCOPE_EVENT_AT); REC_IF only when `cond`. Called by the whole warp (uniform). The
 * stage and barrier fields are left 0: the host numbers them from the iteration, as the
 * simulator does. Deferred: the call sites read the clock where the event happens but
 * write the record after the arrive, copy issue or release that the other warps wait
 * for, so neither the stores nor their operands sit between a completed wait and the
 * action it unblocks; a stall's record is written while the warp stalls, its end clock
 * (one store) when it ends (TMASCOPE_WAIT_OPEN / _CLOSE_AT). The rings live in the dynamic shared memory after the stages; the
 * generator sizes them to hold every event of a warp when the CTA's share of shared
 * memory allows (TMASCOPE_RING_HOLDS_ALL: no check, one copy at the end), else the ring is
 * checked once per produce / consume step (TMASCOPE_FLUSH_POINT, TMASCOPE_STEP_RECORDS:
 * the most records a step writes). */
#define REC_IF(cond_, kind_, stage_, iter_, flags_, aux_, t0_, dur_)                                     \
    do {                                                                                                 \
        if (cond_)                                                                                       \
            TMASCOPE_EVENT_AT((t0_), (dur_), (kind_), 0u, (iter_), 0u, (flags_), (aux_));                \
    } while (0)
#define NOW() TMASCOPE_NOW()
#define REC(kind_, stage_, iter_, flags_, aux_, t0_, dur_) REC_IF(true, kind_, stage_, iter_, flags_, aux_, t0_, dur_)

/* trace kinds (sim/trace.h) */
#define K_EXPECT_TX 3
#define K_WAIT 6
#define K_RELEASE 9
#define K_CPASYNC_ISSUE 10
#define K_TMA_STORE 11
#define K_STAS_FLIGHT 1
#define K_GROUP_STEP 5      /* run_ref.h RUN_KIND_GROUP_STEP_CLK */
#define EVF_BAR_BLOCKED 2u  /* run_ref.h RUN_EVF_BAR_BLOCKED */
/* commit-group waits: wait_group and bar.sync have no non-blocking probe; a wait longer
 * than this is recorded as a stall */
#define WAIT_BLOCKED_CYCLES 200

/* ---- tiles ------------------------------------------------------------------------- */
/* Tile `id` of tensor t: box-aligned coordinates, dimension 0 fastest. */
__device__ __forceinline__ void tile_coords(u32 t, u32 id, int *c)
{
    id %= T_NTILES[t];
#pragma unroll
    for (int d = 0; d < 5; d++) {
        u32 n = T_NT[t][d] ? T_NT[t][d] : 1;
        c[d] = (int)((id % n) * T_BOX[t][d]);
        id /= n;
    }
}
/* tensor t's global base: a select over constant indices, as indexing p.g with a value
 * known only at run time would copy the whole parameter block to local memory */
__device__ __forceinline__ const unsigned char *tensor_base(const Params &p, u32 t)
{
    const unsigned char *g = p.g[0];
    g = t == 1 ? p.g[1] : g;
    g = t == 2 ? p.g[2] : g;
    g = t == 3 ? p.g[3] : g;
    return g;
}
__device__ __forceinline__ u64 tile_offset(u32 t, u32 id)
{
    int c[5];
    tile_coords(t, id, c);
    u64 off = 0;
#pragma unroll
    for (int d = 0; d < 5; d++)
        off += (u64)c[d] * T_GSTRIDE[t][d];
    return off;
}

__device__ __forceinline__ void tma_load(const TMap *m, u32 rank, const int *c, u32 dst, u32 bar, u32 mask)
{
    u64 mp = (u64)m;
#if MCAST
    unsigned short mk = (unsigned short)mask;
    if (rank == 2)
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
                     " [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(dst), "l"(mp), "r"(c[0]), "r"(c[1]), "r"(bar), "h"(mk)
                     : "memory");
    else if (rank == 3)
        asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
                     " [%0], [%1, {%2, %3, %4}], [%5], %6;" ::"r"(dst), "l"(mp), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(bar),
                     "h"(mk)
                     : "memory");
    else
        asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
                     " [%0], [%1, {%2}], [%3], %4;" ::"r"(dst), "l"(mp), "r"(c[0]), "r"(bar), "h"(mk)
                     : "memory");
#else
    (void)mask;
    if (rank == 2)
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3}], [%4];" ::"r"(dst), "l"(mp), "r"(c[0]), "r"(c[1]), "r"(bar)
                     : "memory");
    else if (rank == 3)
        asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3, %4}], [%5];" ::"r"(dst), "l"(mp), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(bar)
                     : "memory");
    else if (rank == 4)
        asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3, %4, %5}], [%6];" ::"r"(dst), "l"(mp), "r"(c[0]), "r"(c[1]), "r"(c[2]),
                     "r"(c[3]), "r"(bar)
                     : "memory");
    else if (rank == 5)
        asm volatile("cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3, %4, %5, %6}], [%7];" ::"r"(dst), "l"(mp), "r"(c[0]), "r"(c[1]), "r"(c[2]),
                     "r"(c[3]), "r"(c[4]), "r"(bar)
                     : "memory");
    else
        asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2}], [%3];" ::"r"(dst), "l"(mp), "r"(c[0]), "r"(bar)
                     : "memory");
#endif
}

/* ---- the kernel ------------------------------------------------------------------- */
/* one read of the unrolled list: instruction q at base k plus the constant dq, folded
 * into a checksum so that the loads are not removed */
#define RD_ADDR(k, dq) (tbase + off[k] + (dq))
#define RD_W0(q) ((((q) * 32u + lane) * 4u) * 2u + 1u)
#if RD_OP == 0
#define RD_ONE(q, k, dq)                                                                              \
    {                                                                                                 \
        u32 x;                                                                                        \
        asm volatile("ld.shared.u32 %0, [%1];" : "=r"(x) : "r"(RD_ADDR(k, dq)) : "memory");           \
        sum += x * RD_W0(q);                                                                          \
    }
#elif RD_OP == 1
#define RD_ONE(q, k, dq)                                                                              \
    {                                                                                                 \
        u32 x, y;                                                                                     \
        asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(x), "=r"(y) : "r"(RD_ADDR(k, dq)) : "memory"); \
        sum += x * RD_W0(q) + y * (RD_W0(q) + 2);                                                     \
    }
#elif RD_OP == 2
#define RD_ONE(q, k, dq)                                                                              \
    {                                                                                                 \
        u32 x, y, z, w;                                                                               \
        asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(x), "=r"(y), "=r"(z), "=r"(w)  \
                     : "r"(RD_ADDR(k, dq)) : "memory");                                               \
        sum += x * RD_W0(q) + y * (RD_W0(q) + 2) + z * (RD_W0(q) + 4) + w * (RD_W0(q) + 6);           \
    }
#elif RD_OP == 3
#define RD_ONE(q, k, dq)                                                                              \
    {                                                                                                 \
        u32 x;                                                                                        \
        asm volatile("ldmatrix.sync.aligned.m8n8.x1" RD_TRANS ".shared.b16 {%0}, [%1];" : "=r"(x)     \
                     : "r"(RD_ADDR(k, dq)) : "memory");                                               \
        sum += x * RD_W0(q);                                                                          \
    }
#elif RD_OP == 4
#define RD_ONE(q, k, dq)                                                                              \
    {                                                                                                 \
        u32 x, y;                                                                                     \
        asm volatile("ldmatrix.sync.aligned.m8n8.x2" RD_TRANS ".shared.b16 {%0, %1}, [%2];"           \
                     : "=r"(x), "=r"(y) : "r"(RD_ADDR(k, dq)) : "memory");                            \
        sum += x * RD_W0(q) + y * (RD_W0(q) + 2);                                                     \
    }
#else
#define RD_ONE(q, k, dq)                                                                              \
    {                                                                                                 \
        u32 x, y, z, w;                                                                               \
        asm volatile("ldmatrix.sync.aligned.m8n8.x4" RD_TRANS ".shared.b16 {%0, %1, %2, %3}, [%4];"   \
                     : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "r"(RD_ADDR(k, dq)) : "memory");          \
        sum += x * RD_W0(q) + y * (RD_W0(q) + 2) + z * (RD_W0(q) + 4) + w * (RD_W0(q) + 6);           \
    }
#endif

extern "C" __global__ void __launch_bounds__(NWARPS * 32, CTAS_PER_SM)
    tmahw_pipe(const __grid_constant__ TMap m0, const __grid_constant__ TMap m1, const __grid_constant__ TMap m2,
               const __grid_constant__ TMap m3, const __grid_constant__ TMap mst, const Params p)
{
    extern __shared__ __align__(1024) unsigned char dyn[];
    __shared__ __align__(8) u64 bars[2 * STAGES];
    __shared__ u32 abort_s;
    const u32 warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const u32 cta = blockIdx.x;
    const u32 gw = cta * NWARPS + warp;
    const u32 crank = cluster_rank();
    const u32 raw = smem_u32(dyn);
    const u32 base = ((raw + 1023u) & ~1023u) + SMEM_PAD;   /* stage 0, as smem_base modulo 1024 */
    const u32 bar0 = smem_u32(bars);
    volatile u32 *hang = p.hang;
    const TMap *maps[4] = {&m0, &m1, &m2, &m3};
    (void)maps;
    (void)mst;

    if (threadIdx.x == 0) {
        for (u32 s = 0; s < STAGES; s++) {
            bar_init(bar0 + 8 * FULL(s), FULL_COUNT);
            bar_init(bar0 + 8 * EMPTY(s), EMPTY_COUNT);
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        abort_s = 0;
    }
#if CLUSTER > 1
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
#else
    __syncthreads();
#endif
#if TMAHW_RECORD
    /* the rings after the stages, aligned to half a ring (run_gen.c budgets the slack) */
    __shared__ __align__(16) unsigned char rec_hdr[TMASCOPE_HDR_BYTES];
    TMASCOPE_BEGIN_AT((base + STAGES * STAGE_BYTES + RING * 8u - 1u) & ~(RING * 8u - 1u), smem_u32(rec_hdr));
#endif
    u32 sum = 0;
    float sink = 0.f;
    int stop = 0;

    /* Bounded wait: every lane polls; lane 0 owns the deadline and the hang record. A wait
     * whose first probe fails is a stall (as in the simulator): its record is written
     * before the warp polls, its end clock when the wait ends; a failed wait's record is
     * written again with its flags. The path of a wait that did not block has nothing of
     * the recording but the clock reads before the probe and with its vote. t_done: the
     * clock where the wait ended, read with the vote on the probe (after its result, before
     * the branch on it: TMASCOPE_ALL_AT) or at the stall's end, so that no clock read (which
     * ptxas schedules nothing across) stands between the wait and what follows it: the
     * unrecorded kernel's loads and their weights interleave after the branch, and a clock
     * read there keeps the weights ahead of the first load (hw/README.md). */
    auto wait = [&](u32 b, u32 parity, u32 stage, u32 iter, u32 phase, u32 full, u32 side, u32 &t_done) -> int {
        const u32 t0 = NOW();
        t_done = 0;
        if (TMASCOPE_ALL_AT(bar_test(bar0 + 8 * b, parity), t_done))
            return 0;
        const u32 wflags = full ? EVF_FULL : 0u;
        TMASCOPE_WAIT_OPEN(t0, 0u, iter, 0u, wflags, side);
        u32 timeout = 0, failed = 0;
        u64 g0 = gtimer();
        while (!__all_sync(0xffffffffu, bar_try(bar0 + 8 * b, parity))) {
            u32 bail = 0;
            if (lane == 0) {
                if (*hang || *(volatile u32 *)&abort_s)
                    bail = 1;
                else if (gtimer() - g0 > p.timeout_ns) {
                    bail = 2;
                    if (atomicCAS(p.hang, 0u, 1u) == 0u) {
                        p.hang[1] = cta;
                        p.hang[2] = warp;
                        p.hang[3] = b;
                        p.hang[4] = phase;
                        p.hang[5] = iter;
                        p.hang[6] = parity;
                        __threadfence();
                    }
                    *(volatile u32 *)&abort_s = 1;
                }
            }
            bail = __shfl_sync(0xffffffffu, bail, 0);
            if (bail) {
                timeout = bail == 2;
                failed = 1;
                break;
            }
        }
        const u32 t_end = TMASCOPE_NOW_W();
        t_done = t_end;
        TMASCOPE_WAIT_CLOSE_AT(t_end);
        if (!failed)
            return 0;
#if TMAHW_RECORD
        tmascope_wait_rewrite(tmascope_w_, tmascope_h_, t0, t_end, iter,
                              TMASCOPE_WORD3(K_WAIT, EVF_BLOCKED | TMASCOPE_F_END_CLOCK | wflags | (timeout ? EVF_TIMEOUT : 0u),
                                             0u, 0u, side));
#endif
        (void)t0;
        (void)t_end;
        (void)wflags;
        (void)timeout;
        (void)side;
        (void)stage;
        return -1;
    };

    /* iteration j's tile of each tensor in global memory, once per stage: per chunk, the
     * division chain of tile_coords would be most of a copy loop's work */
    auto tile_bases = [&](u32 j, const unsigned char **tb) {
        const u32 id = cta + j * gridDim.x;
#pragma unroll
        for (u32 t_ = 0; t_ < NTENS; t_++)
            tb[t_] = tensor_base(p, t_) + tile_offset(t_, id);
    };
    /* a chunk's source: a select over the tensors (tb indexed by a value known only at
     * run time would live in local memory) */
    auto chunk_src = [&](const unsigned char *const *tb, const uint4 &c) {
        const unsigned char *g = tb[0];
#pragma unroll
        for (u32 t_ = 1; t_ < NTENS; t_++)
            g = c.x == t_ ? tb[t_] : g;
        return g + c.z;
    };
    (void)chunk_src;
    (void)tile_bases;
    /* cp.async: this warp's share of iteration j's stage, 16 bytes per lane and instruction */
    auto copy_share = [&](u32 j) {
        const u32 rank = warp - NPROD, stage_addr = base + (j % STAGES) * STAGE_BYTES;
        const u32 c0 = rank * CP_CHUNKS / NCONS, c1 = (rank + 1) * CP_CHUNKS / NCONS;
        const unsigned char *tb[NTENS];
        tile_bases(j, tb);
        for (u32 q = c0 + lane; q < c1; q += 32) {
            const uint4 c = CP_TAB[q];
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(stage_addr + c.y), "l"(chunk_src(tb, c))
                         : "memory");
        }
    };
    (void)copy_share;

    /* ---- producer side: one stage's copies for iteration j ---- */
    auto produce = [&](u32 j) -> int {
        const u32 s = j % STAGES, k = j / STAGES;
        /* producer side (aux 1): the release of the stage's previous use; the
         * producer.waits_on: full bug waits for its own previous copy instead */
        u32 t_free;
        if (wait(PRODUCER_WAITS_FULL ? FULL(s) : EMPTY(s), (k + 1) & 1, s, j, k ? k - 1 : 0, PRODUCER_WAITS_FULL, 1, t_free))
            return -1;
        (void)t_free;
        const u32 stage_addr = base + s * STAGE_BYTES;
        const u32 full = bar0 + 8 * FULL(s);
#if MODE == 0 || MODE == 1
        {
            /* the expect_tx; the first and the last copy issue */
            const u32 t = NOW();
            u32 t_first = 0, t_last = 0;
            if (lane == 0)
                bar_expect_tx(full, EXPECT_TX);
            const u32 group = MCAST ? cta / CLUSTER : cta, ngroups = MCAST ? gridDim.x / CLUSTER : gridDim.x;
            for (u32 t_ = 0; t_ < NTENS; t_++) {
                int c[5];
                tile_coords(t_, group + j * ngroups, c);
                u32 dst = stage_addr + T_SMEM[t_];
#if MCAST
                {
                    /* this rank's slice: a select per coordinate, as indexing c with the
                     * tensor's rank (known only at run time) puts c in local memory */
                    const int row = (int)T_RANK[t_] - 1, add = (int)(crank * T_SLICE_ROWS[t_]);
#pragma unroll
                    for (int d_ = 0; d_ < 5; d_++)
                        c[d_] += d_ == row ? add : 0;
                }
                dst += crank * T_SLICE_SMEM[t_];
#endif
                if (t_ == 0)
                    t_first = NOW();
                if (t_ == NTENS - 1)
                    t_last = t_ == 0 ? t_first : NOW();
                if (lane == 0)
                    tma_load(maps[t_], T_RANK[t_], c, dst, full, (1u << CLUSTER) - 1u);
            }
            /* the event, after the copies are under way: the expect_tx and the copies in
             * one record */
            TMASCOPE_PRODUCED(t, t_first, t_last, j);
            (void)t;
            (void)t_first;
            (void)t_last;
        }
        __syncwarp();
#elif MODE == 2
        /* cp.async: this warp's share of the stage, 16 bytes per lane and instruction */
        {
            u32 ti = NOW();
            copy_share(j);
            /* lanes 1..31: net-zero arrivals that hold the phase until their copies land;
             * lane 0: the warp's one counted arrival (.noinc), after its own copies. */
            if (lane != 0)
                asm volatile("cp.async.mbarrier.arrive.shared::cta.b64 [%0];" ::"r"(full) : "memory");
            __syncwarp();
            if (lane == 0)
                asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(full) : "memory");
            REC(K_CPASYNC_ISSUE, s, j, 0, 0, ti, 0);
            (void)ti;
        }
#elif MODE == 3
        /* st.async: load the tile into registers, write it into the peer's stage */
        {
            const u32 peer = crank ^ 1u;
            u32 te_x;
            {
                te_x = NOW();
                if (lane == 0)
                    bar_expect_tx_remote(full, peer, EXPECT_TX);
            }
            __syncwarp();
            u32 ti = NOW();
            const u32 rfull = remote(full, peer);
            const unsigned char *tb[NTENS];
            tile_bases(j, tb);
            for (u32 q = lane; q < CP_CHUNKS; q += 32) {
                const uint4 c = CP_TAB[q];
                const uint4 v = *(const uint4 *)chunk_src(tb, c);
                const u32 dst = remote(stage_addr + c.y, peer);
                asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%0], {%1, %2, %3, %4}, [%5];"
                             ::"r"(dst), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w), "r"(rfull)
                             : "memory");
            }
            __syncwarp();
            u32 te = NOW();
            REC(K_EXPECT_TX, s, j, EVF_FULL, 1, te_x, 0);
            REC(K_STAS_FLIGHT, s, j, EVF_FULL, 1, ti, te - ti);
            (void)te;
            (void)te_x;
            (void)ti;
        }
#endif
        TMASCOPE_FLUSH_POINT();
        return 0;
    };

    /* ---- consumer side ---- */
    /* this warp's read bases (the access generator's table), loaded once; each read adds
     * a constant to one of them (RD_LIST) */
    u32 off[RD_K];
#pragma unroll
    for (u32 k = 0; k < RD_K; k++)
        off[k] = warp >= NPROD ? RD_TAB[(((warp - NPROD) % RD_SHARE) * RD_K + k) * 32 + lane] : 0u;
    u32 released = 0;
    u32 rdep = 0;
    /* the releases of the iterations before `upto` not released yet (tail: after the last
     * iteration, with a ring check per iteration; in the loop consume's covers them).
     * folded: the release of a CTA's own stage is not recorded here; the caller's consumed
     * record carries it (TMASCOPE_F_RELEASED: at the math's end, for iteration - lag) */
    auto release_upto = [&](u32 upto, bool tail, bool folded) {
#if !NEVER_RELEASE
        for (; released < upto; released++) {
            const u32 it = released, s = it % STAGES;
            const u32 empty = bar0 + 8 * EMPTY(s);
            {
#if MCAST
                for (u32 r = 0; r < CLUSTER; r++) {
                    u32 t = NOW();
                    if (lane == 0) {
                        if (r == crank) {
                            u32 pc = bar_arrive(empty);
                            (void)pc;
                        } else {
                            bar_arrive_remote(empty, r);
                        }
                    }
                    REC(K_RELEASE, s, it, 0, r, t, 0);
                    (void)t;
                }
#elif MODE == 3
                u32 t = NOW();
                if (lane == 0)
                    bar_arrive_remote(empty, crank ^ 1u);
                REC(K_RELEASE, s, it, 0, crank ^ 1u, t, 0);
                (void)t;
#else
                u32 t = folded ? 0u : NOW();
                if (lane == 0) {
                    u32 pc = bar_arrive(empty);
                    atomicAdd(&p.arrivals[((u64)cta * 2 * STAGES + EMPTY(s)) * 4 + (pc < 3 ? pc : 3)], 1u);
                }
                REC_IF(!folded, K_RELEASE, s, it, 0, crank, t, 0);
                (void)t;
#endif
            }
            if (tail)
                TMASCOPE_FLUSH_POINT();
        }
#else
        (void)upto;
#endif
        (void)tail;
        (void)folded;
    };

    /* t_start: where the read starts with commit groups (no wait of its own) */
    auto consume = [&](u32 i, u32 t_start) -> int {
        const u32 s = i % STAGES, k = i / STAGES;
        (void)k;
        /* clocks of the read and the math: their events are written after the release. The
         * read starts where the stage's wait ended (its clock, read before the wait's branch) */
        u32 t_rd, te_rd, te_m = 0;
#if !CP_GROUPS
        if (wait(FULL(s), (k + PARITY_OFF) & 1, s, i, k, 1, 0, t_rd))
            return -1;
#else
        t_rd = t_start;
#endif
        (void)t_start;
        const u32 rank = warp - NPROD;
        const u32 tbase = base + s * STAGE_BYTES + T_SMEM[RD_TENSOR];
        {
            for (u32 r = 0; r < RD_REPEAT; r++) {
                RD_LIST(RD_ONE)
#if RD_REPEAT > 1
                /* each repeat reads shared memory again: without a warp barrier between them
                 * ptxas hoists the loads of the same addresses out of the repeat loop and
                 * only the fold repeats (seen in the SASS of the generated kernel) */
                __syncwarp();
#endif
            }
            /* the stage is read before the math starts (and before the clock is read):
             * a data-dependent branch on the loaded values, in both variants */
            rdep = __shfl_sync(0xffffffffu, sum, 0) == 0x9e3779b9u;
            if (rdep)
                sink += 1.f;
            te_rd = NOW();
        }
#if MATH == 1
        {
            float a0 = (float)(lane + rdep), a1 = a0 + 1.f, a2 = a0 + 2.f, a3 = a0 + 3.f, a4 = a0 + 4.f, a5 = a0 + 5.f,
                  a6 = a0 + 6.f, a7 = a0 + 7.f;
            const float m = 0.999f, c = 0.5f;
            for (u32 n = 0; n < MATH_N / 8; n++) {
                asm volatile("fma.rn.f32 %0, %0, %8, %9;\n\tfma.rn.f32 %1, %1, %8, %9;\n\t"
                             "fma.rn.f32 %2, %2, %8, %9;\n\tfma.rn.f32 %3, %3, %8, %9;\n\t"
                             "fma.rn.f32 %4, %4, %8, %9;\n\tfma.rn.f32 %5, %5, %8, %9;\n\t"
                             "fma.rn.f32 %6, %6, %8, %9;\n\tfma.rn.f32 %7, %7, %8, %9;"
                             : "+f"(a0), "+f"(a1), "+f"(a2), "+f"(a3), "+f"(a4), "+f"(a5), "+f"(a6), "+f"(a7)
                             : "f"(m), "f"(c));
            }
            for (u32 n = 0; n < MATH_N % 8; n++)
                asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(a0) : "f"(m), "f"(c));
            const float r = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
            if (__shfl_sync(0xffffffffu, r, 0) == 1234.5f)   /* the math completes before the release */
                sink += 1.f;
            sink += r;
            te_m = NOW();
        }
#elif MATH == 2
        {
            /* the chains start apart: chains equal in every operand would be one chain to
             * the compiler, which then issues a quarter of the mma */
            float d[MMA_CHAINS][4];
#pragma unroll
            for (int q = 0; q < MMA_CHAINS; q++)
                d[q][0] = d[q][1] = d[q][2] = d[q][3] = (float)q;
            const u32 a0 = 0x3c003c00u ^ lane ^ rdep, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3, b0 = 0x38003800u, b1 = b0 + lane;
            for (u32 n = 0; n < MATH_N / MMA_CHAINS; n++) {
#pragma unroll
                for (int q = 0; q < MMA_CHAINS; q++)
                    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                                 "{%8, %9}, {%0, %1, %2, %3};"
                                 : "+f"(d[q][0]), "+f"(d[q][1]), "+f"(d[q][2]), "+f"(d[q][3])
                                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
            }
            for (u32 n = 0; n < MATH_N % MMA_CHAINS; n++)
                asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                             "{%8, %9}, {%0, %1, %2, %3};"
                             : "+f"(d[0][0]), "+f"(d[0][1]), "+f"(d[0][2]), "+f"(d[0][3])
                             : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
            float r = 0.f;
#pragma unroll
            for (int q = 0; q < MMA_CHAINS; q++)
                r += d[q][0] + d[q][1] + d[q][2] + d[q][3];
            if (__shfl_sync(0xffffffffu, r, 0) == 1234.5f)   /* the math completes before the release */
                sink += 1.f;
            sink += r;
            te_m = NOW();
        }
#endif
        u32 t_st = 0, te_st = 0;
        bool st_ev = false;
#if STORE_EVERY
        /* TMA store of the stage's tensor-0 box; waits until the stage has been read out
         * before the release below lets the producer overwrite it. */
        if ((i + 1) % STORE_EVERY == 0 && rank == 0) {
            u32 t = NOW();
            if (lane == 0) {
                const u32 src = base + s * STAGE_BYTES + T_SMEM[0];
                const int c0 = 0, c1 = (int)((cta * (ITERS / STORE_EVERY) + i / STORE_EVERY) * ST_ROWS);
                asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#if STORE_REDUCE
                asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta" STORE_OP ".tile.bulk_group [%0, {%1, %2}], [%3];"
                             ::"l"((u64)&mst), "r"(c0), "r"(c1), "r"(src)
                             : "memory");
#else
                asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];"
                             ::"l"((u64)&mst), "r"(c0), "r"(c1), "r"(src)
                             : "memory");
#endif
                asm volatile("cp.async.bulk.commit_group;" ::: "memory");
                asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
            }
            __syncwarp();
            te_st = NOW();
            t_st = t;
            st_ev = true;
        }
#endif
        /* a CTA's own release, right after the math, goes into the consumed record (not
         * after a store, nor the cluster's releases: their own records) */
        const bool fold = !MCAST && MODE != 3 && !NEVER_RELEASE && !CP_GROUPS && !st_ev && (int)i - (int)RELEASE_LAG >= 0;
#if !CP_GROUPS
        if ((int)i - (int)RELEASE_LAG >= 0)
            release_upto(i - RELEASE_LAG + 1, false, fold);
#endif
        /* the events of the read and the math (the math starts where the read ends) and
         * the folded release, one record, after the release the producer waits for */
        TMASCOPE_CONSUMED_F(t_rd, te_rd, MATH != 0 ? te_m : te_rd, i, fold ? TMASCOPE_F_RELEASED : 0u);
        REC_IF(st_ev, K_TMA_STORE, s, i, 0, 0, t_st, te_st - t_st);
        (void)t_st;
        (void)te_st;
        (void)st_ev;
        TMASCOPE_FLUSH_POINT();
        (void)t_rd;
        (void)te_rd;
        (void)te_m;
        return 0;
    };

    /* ---- the warp programs (sim/pipe_warp.c next_action) ---- */
#if MODE == 0 || MODE == 3
    if (warp < NPROD) {
        for (u32 j = 0; j < ITERS && !stop; j++)
            stop = produce(j);
    } else {
        for (u32 i = 0; i < ITERS && !stop; i++)
            stop = consume(i, 0u);
        if (!stop)
            release_upto(ITERS, true, false);
    }
#elif CP_GROUPS
    /* commit groups (the guide's __pipeline_commit / __pipeline_wait_prior): prologue
     * groups 0 .. stages-2; iteration i: wait_group(N), bar.sync, copy + commit group
     * i + stages - 1 (empty past the end), consume i. No mbarriers. */
    for (u32 j = 0; j + 1 < STAGES; j++) {
        u32 ti = NOW();
        if (j < ITERS)
            copy_share(j);
        asm volatile("cp.async.commit_group;" ::: "memory");
        if (j < ITERS)
            REC(K_CPASYNC_ISSUE, j % STAGES, j, 0, 0, ti, 0);
        TMASCOPE_FLUSH_POINT();
        (void)ti;
    }
    for (u32 i = 0; i < ITERS; i++) {
        u32 t0 = NOW();
        asm volatile("cp.async.wait_group %0;" ::"n"(CP_WAIT_PRIOR) : "memory");
        u32 t1 = NOW();
        __syncthreads();
        u32 t2 = NOW();
        const u32 j = i + STAGES - 1;
        if (j < ITERS)
            copy_share(j);
        /* the read of stage i starts at the commit: the clock in the commit's statement, not
         * one of its own before the first load (ptxas moves no instruction across a clock
         * read: the read's weights would stay ahead of its loads, hw/README.md) */
        u32 t_rd = 0;
#if TMAHW_RECORD == 1 || TMAHW_RECORD == 2
        {
            u64 t64;
            asm volatile("cp.async.commit_group;\n\tmov.u64 %0, %%clock64;" : "=l"(t64)::"memory");
            t_rd = (u32)t64;
        }
#else
        asm volatile("cp.async.commit_group;" ::: "memory");
#endif
        consume(i, t_rd);
        /* the step's events after the stage's read and math (no store between the commit
         * and the read), one record whatever blocked (no branch): the wait_group [t0, t1)
         * and the bar.sync [t1, t2), each flagged where it took longer than
         * WAIT_BLOCKED_CYCLES, and the issue of iteration j at t2 (the host knows whether j
         * exists; run_ref.h) */
#if TMAHW_RECORD
        tmascope_put_clocks(tmascope_w_, tmascope_h_, t0, t1, t2, i,
                            K_GROUP_STEP | ((t1 - t0 > WAIT_BLOCKED_CYCLES ? EVF_BLOCKED : 0u) |
                                            (t2 - t1 > WAIT_BLOCKED_CYCLES ? EVF_BAR_BLOCKED : 0u)) << 4);
#endif
        (void)t0;
        (void)t1;
        (void)t2;
    }
#else
    {
        const int copier = MODE == 2 || warp == NPROD;
        u32 pj = 0; /* load i + stages - 1 before consuming i (examples/README.md, sim/pipe_warp.c) */
        for (u32 i = 0; i < ITERS && !stop; i++) {
            while (copier && pj < ITERS && pj < i + STAGES && !stop)
                stop = produce(pj++);
            if (!stop)
                stop = consume(i, 0u);
        }
        if (!stop)
            release_upto(ITERS, true, false);
    }
#endif

    /* bulk stores (and any bulk group) must be complete before the CTA exits */
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
#if MODE == 2
    asm volatile("cp.async.wait_all;" ::: "memory");
#endif
    /* checksum of the bytes read: lanes' weighted sums, added */
#pragma unroll
    for (int o = 16; o > 0; o /= 2)
        sum += __shfl_xor_sync(0xffffffffu, sum, o);
    TMASCOPE_END();   /* the rest of each ring, the counts, the CTA's clock pairs */
    if (lane == 0) {
        p.sums[gw] = sum;
        p.sink[gw] = sink;
    }
#if CLUSTER > 1
    /* a CTA's shared memory (its barriers, its stages) stays until its cluster peers are
     * done with it */
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
#endif
}
