/* record.cuh: per-warp event recording for CUDA kernels, in tmascope's trace format
 * (traces/FORMAT.md). Header-only CUDA C++ that needs nothing beyond the toolkit: it
 * compiles with nvcc and with NVRTC, for sm_90.
 *
 * A kernel marks what its warps do: a TMA issue, a wait, a release, the reads and the
 * math of a stage. Lane 0 of each warp writes one 16-byte record per event into the
 * warp's ring in shared memory; the whole warp copies a full half of the ring to global
 * memory (ordinary loads and streaming stores), and the rest at TMASCOPE_END. Times are
 * the SM clock (the low 32 bits of %clock64, read with the fixed-latency CS2R). One warp
 * of each CTA, the stamp warp (TMASCOPE_STAMP_WARP, by default the CTA's last), reads
 * %globaltimer with its clock at its TMASCOPE_BEGIN and at its TMASCOPE_END and writes
 * both pairs to global memory itself, so that the host puts every SM's clock on one time
 * axis and, with CUPTI, on the kernel's; no other warp waits for a timer. TMASCOPE_RECORD 0
 * compiles every macro to nothing (no shared memory, no instruction).
 *
 *     #include "record.cuh"
 *     __global__ void k(...) {
 *         TMASCOPE_BEGIN();                               // every thread, first
 *         ...
 *         TMASCOPE_MARK(t0);                              // a wait that may block
 *         TMASCOPE_MARK_LATER(rd);                        // where it ends: the read's start
 *         if (!TMASCOPE_ALL_AT(test_wait(...), rd)) {     // its first test failed: a stall
 *             TMASCOPE_WAIT_OPEN(t0, stage, it, full_barrier_index, TMASCOPE_F_FULL);
 *             ... try_wait loop ...
 *             TMASCOPE_WAIT_CLOSE_MARK(rd);               // the stall's end, into rd
 *         }
 *         ... ld.shared ...
 *         TMASCOPE_SPAN_END(rd, TMASCOPE_READ, stage, it, full_barrier_index);
 *         TMASCOPE_EVENT(TMASCOPE_RELEASE, stage, it, empty_barrier_index);
 *         ...
 *         TMASCOPE_END();                                 // every thread, last
 *     }
 *
 * Every macro is called by all 32 lanes of a warp together (warp-uniform control flow);
 * a warp that leaves early calls TMASCOPE_END() first. TMASCOPE_NOW() and
 * TMASCOPE_EVENT_AT() split reading the clock from writing the record, so that the store
 * can follow the arrive or copy another warp waits for (what the generated kernels of
 * `tmahw run` do). A stall's record is written while the warp stalls (TMASCOPE_WAIT_OPEN,
 * before its try_wait loop) and only its end clock after (TMASCOPE_WAIT_CLOSE): one
 * shared store between the wait and what it unblocks, and nothing where the wait did not
 * block. The compound records (TMASCOPE_CONSUMED, TMASCOPE_PRODUCED) store their clocks
 * as read (the host takes the differences): such a record costs its clock reads, one
 * shift of the iteration and lane 0's st.shared.v4.
 *
 * The buffers: the __device__ variable tmascope_rec (struct tmascope_dev), which a
 * recorder sets before a launch (hw/record.h; `tmahw record -- ./app` does it for every
 * launch of a kernel that has the variable, without the application's help). Left
 * zero, the kernel writes its rings and copies nothing out. A warp writing more events
 * than the buffer holds counts them all: the host reports the overflow and flags the
 * trace incomplete.
 *
 * Configuration (define before the include):
 *   TMASCOPE_RECORD       1 record (default), 0 compile out; for overhead studies: 2 only
 *                         read the clocks, 3 only store (records without clock reads), 4
 *                         only TMASCOPE_BEGIN and TMASCOPE_END (no record)
 *   TMASCOPE_WARPS        warps per CTA the static rings are for (default 8); warps
 *                         beyond record nothing and are reported by the host
 *   TMASCOPE_RING_EVENTS  records per warp in shared memory, a power of two >= 32
 *                         (default 64: 1 KB per warp)
 *   TMASCOPE_RING_HOLDS_ALL  1: the kernel never writes more than TMASCOPE_RING_EVENTS - 1
 *                         records per warp, so the per-event ring check is left out and
 *                         the ring is copied once, at the end (tmahw run's kernels where
 *                         shared memory allows, examples/hand_tma.cu). Where shared memory
 *                         allows, prefer it: in a bandwidth-bound kernel the checks and
 *                         copy-outs during the loop cost more than the records
 *                         (hw/README.md, "Where the recording costs")
 *   TMASCOPE_STEP_RECORDS N  the kernel writes at most N records between two
 *                         TMASCOPE_FLUSH_POINT()s (e.g. one per loop iteration): the ring
 *                         is checked there only, not after every record
 *   TMASCOPE_STAMP_WARP   the warp that takes the CTA's clock pairs (default: the CTA's
 *                         last warp). Pick one that waits anyway where the CTA starts (a
 *                         consumer, not the producer that issues the first copies) and that
 *                         ends with the CTA: its pairs are the CTA's start and end in the
 *                         trace (a number the CTA has no warp for takes none: `tmahw record`
 *                         then counts the CTAs as missing their clock pairs)
 *   TMASCOPE_1D           1: the kernel's blocks and grid are one-dimensional (threadIdx.x
 *                         and blockIdx.x are the thread's and the CTA's numbers), which
 *                         saves the recording a few instructions where it numbers them
 *   TMASCOPE_EXTERN       1 in all but one translation unit of a relocatable-device-code
 *                         program (the variable is defined once)
 */
#ifndef TMASCOPE_RECORD_CUH
#define TMASCOPE_RECORD_CUH

#ifndef TMASCOPE_RECORD
#define TMASCOPE_RECORD 1
#endif
#ifndef TMASCOPE_WARPS
#define TMASCOPE_WARPS 8
#endif
#ifndef TMASCOPE_RING_EVENTS
#define TMASCOPE_RING_EVENTS 64
#endif
#ifndef TMASCOPE_RING_HOLDS_ALL
#define TMASCOPE_RING_HOLDS_ALL 0
#endif
#ifndef TMASCOPE_1D
#define TMASCOPE_1D 0
#endif

/* Event kinds: the trace format's kind numbers (sim/trace.h). */
#define TMASCOPE_TMA_ISSUE 0      /* instant: a TMA load (or a copy) issued; aux: tensor index */
#define TMASCOPE_TMA_FLIGHT 1     /* span: a copy in flight (st.async: issue to the last store) */
#define TMASCOPE_ARRIVE 2         /* instant: an arrive on a barrier */
#define TMASCOPE_EXPECT_TX 3      /* instant: arrive.expect_tx; aux 1: on a cluster peer's barrier */
#define TMASCOPE_WAIT 6           /* span: a wait that blocked; aux 1: for the stage's previous phase */
#define TMASCOPE_READ 7           /* span: the shared-memory reads of a stage */
#define TMASCOPE_MATH 8           /* span: the math on a stage */
#define TMASCOPE_RELEASE 9        /* instant: the arrive that frees a stage; aux: the cluster rank released */
#define TMASCOPE_CPASYNC_ISSUE 10 /* instant: cp.async copies of a stage issued */
#define TMASCOPE_STORE 11         /* span: a TMA store, issue to its bulk wait */
/* Two events in one record (TMASCOPE_CONSUMED, TMASCOPE_PRODUCED): the host numbers their
 * stage and barriers from the iteration (iteration % stages with a description, else 0).
 * The macros write kinds 14 and 15: the three clocks as read and the iteration's low 24
 * bits in bits 8..31 of the last word. The host also reads kinds 12 and 13, which carry
 * durations instead (t, the first duration, iter, the second duration in bits 8..31). */
#define TMASCOPE_CONSUMED_KIND 12 /* a stage's read [t, t + dur) and math [t + dur, t + dur + w3 >> 8) */
#define TMASCOPE_PRODUCED_KIND 13 /* expect_tx at t; the stage's copies issued from t + dur to t + dur + (w3 >> 8) */
#define TMASCOPE_CONSUMED_CLK_KIND 14 /* {t_read, t_math, t_end, iter << 8 | flags << 4 | 14} */
#define TMASCOPE_PRODUCED_CLK_KIND 15 /* {t_expect, t_first, t_last, iter << 8 | 15} */

/* Record flags (4 bits). */
#define TMASCOPE_F_BLOCKED 1u     /* a wait whose first probe failed: a stall */
#define TMASCOPE_F_TIMEOUT 2u     /* a wait ended by a watchdog */
#define TMASCOPE_F_FULL 4u        /* the barrier is a full barrier (else an empty one) */
#define TMASCOPE_F_RELEASED 8u    /* a consumed stage's record: the stage was released at the math's end */
#define TMASCOPE_F_END_CLOCK 8u   /* a wait's record: dur holds the clock at its end (TMASCOPE_WAIT_OPEN) */

/* The barrier argument when the host is to number barriers as the simulator does from the
 * description (full[s] = s, empty[s] = stages + s). */
#define TMASCOPE_BAR_AUTO 255u

/* One record, 16 bytes: t (SM clock, low 32 bits), dur (cycles; spans), iter, and
 * kind | flags << 4 | stage << 8 | barrier << 16 | aux << 24. */
#define TMASCOPE_WORD3(kind, flags, stage, barrier, aux)                                                        \
    ((unsigned)(kind) | (unsigned)(flags) << 4 | ((unsigned)(stage) & 255u) << 8 | ((unsigned)(barrier) & 255u) << 16 | \
     ((unsigned)(aux) & 255u) << 24)

/* The per-launch buffers, set by the recorder (hw/record.h struct rec_dev mirrors it). */
struct tmascope_dev {
    unsigned long long ev;     /* uint4 records: [cta * nwarps + warp][cap] */
    unsigned long long evn;    /* unsigned per warp: records written (> cap: overflow) */
    unsigned long long cta;    /* per CTA 4 x u64: globaltimer, clock64 at start; at end */
    unsigned long long sm;     /* unsigned per CTA: %smid */
    unsigned cap;              /* records per warp that ev holds */
    unsigned nwarps;           /* warps per CTA ev is laid out for */
    unsigned nctas;            /* CTAs the buffers hold */
    unsigned magic;            /* TMASCOPE_MAGIC once set */
};
#define TMASCOPE_MAGIC 0x746d7363u   /* "tmsc" */

/* The shared header of a CTA: per warp its ring's start and the records copied out. */
#define TMASCOPE_HDR_BYTES (8u * TMASCOPE_WARPS)
#define TMASCOPE_RING_BYTES (16u * TMASCOPE_RING_EVENTS)

#if TMASCOPE_RECORD

/* in constant memory: the few reads of it (at a copy-out and at the end) come from the
 * SM's constant cache */
#if TMASCOPE_EXTERN
extern __constant__ tmascope_dev tmascope_rec;
#else
__constant__ tmascope_dev tmascope_rec;
#endif

/* A warp's recording state: the shared address of its next record (warp-uniform) and
 * whether this thread is the warp's writer (1 or 0). */
struct tmascope_warp {
    unsigned p;
    unsigned writer;
};

__device__ __forceinline__ unsigned tmascope_clock(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t));
    return (unsigned)t;
}
/* The clock in the warp's writer lane (0 elsewhere): a record's clock matters in that lane
 * only, and ptxas compiles a read predicated per lane as a CS2R (fixed latency) and a select
 * on the lane, where it compiles an unpredicated one in warp-uniform code (after a vote, or
 * where two paths join) as an S2UR whose move into a register waits for it (hw/README.md,
 * item 22). */
__device__ __forceinline__ unsigned tmascope_clock_w(unsigned writer)
{
    unsigned long long c = 0;
    asm volatile("{\n\t.reg .pred w;\n\tsetp.ne.u32 w, %1, 0;\n\t@w mov.u64 %0, %%clock64;\n\t}" : "+l"(c) : "r"(writer));
    return (unsigned)c;
}
/* __all_sync(~0u, ok) and the clock read right after the vote (in the writer lane), in one
 * statement. The warp issues in order and the vote needs `ok` (a wait's probe result), so
 * the clock is read once the probe has answered, as a clock read after the wait would be;
 * but it comes before the branch on the vote, so no clock read stands between that branch
 * and what the wait unblocks (ptxas moves no instruction across a clock read: one at the
 * top of a read kept its address and weight arithmetic ahead of its first load,
 * hw/README.md). */
__device__ __forceinline__ unsigned tmascope_all_clock(unsigned ok, unsigned &t, unsigned writer)
{
    unsigned all;
    unsigned long long c = 0;
    asm volatile("{\n\t.reg .pred p, w;\n\tsetp.ne.u32 p, %2, 0;\n\tvote.sync.all.pred p, p, 0xffffffff;\n\t"
                 "selp.u32 %0, 1, 0, p;\n\tsetp.ne.u32 w, %3, 0;\n\t@w mov.u64 %1, %%clock64;\n\t}"
                 : "=r"(all), "+l"(c) : "r"(ok), "r"(writer) : "memory");
    t = (unsigned)c;
    return all;
}
__device__ __forceinline__ unsigned long long tmascope_gtimer(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
__device__ __forceinline__ unsigned tmascope_smem(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ unsigned tmascope_tid(void)
{
#if TMASCOPE_1D
    return threadIdx.x;
#else
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
#endif
}
__device__ __forceinline__ unsigned tmascope_cta(void)
{
#if TMASCOPE_1D
    return blockIdx.x;
#else
    return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
#endif
}

#if TMASCOPE_RECORD == 3 || TMASCOPE_RECORD == 4
#define TMASCOPE_NOW() 0u
#define TMASCOPE_NOW_W() 0u
#define TMASCOPE_ALL_AT(ok, name) ((name) = 0u, __all_sync(0xffffffffu, (ok)))
#else
#define TMASCOPE_NOW() tmascope_clock()
/* the clock in the writer lane (tmascope_clock_w): after TMASCOPE_BEGIN */
#define TMASCOPE_NOW_W() tmascope_clock_w(tmascope_w_.writer)
/* TMASCOPE_ALL_AT(ok, name): __all_sync(~0u, ok), and name = the clock once ok is known
 * (tmascope_all_clock; after TMASCOPE_BEGIN) */
#define TMASCOPE_ALL_AT(ok, name) tmascope_all_clock((ok), (name), tmascope_w_.writer)
#endif

/* The stamp warp's lane 0 (TMASCOPE_STAMP_WARP): %globaltimer and %clock64, read back to
 * back, into the CTA's pair `k` (0 start, 1 end), and at the start its %smid. The stores
 * need no fence: the host reads them after the launch. Reading tmascope_rec at the start
 * also brings it into the SM's constant cache for the warps' copies and counts at the end. */
__device__ __forceinline__ void tmascope_stamp(unsigned k)
{
    const unsigned long long g = tmascope_gtimer();
    unsigned long long c;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(c));
    const unsigned cta = tmascope_cta();
    if (tmascope_rec.magic == TMASCOPE_MAGIC && tmascope_rec.cta && cta < tmascope_rec.nctas) {
        unsigned long long *ct = (unsigned long long *)tmascope_rec.cta + 4ull * cta + 2ull * k;
        asm volatile("st.global.v2.u64 [%0], {%1, %2};" ::"l"(ct), "l"(g), "l"(c) : "memory");
        if (k == 0) {
            unsigned sm;
            asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
            ((unsigned *)tmascope_rec.sm)[cta] = sm;
        }
    }
}
/* the thread that takes the CTA's clock pairs: lane 0 of the stamp warp */
__device__ __forceinline__ unsigned tmascope_stamp_tid(void)
{
#ifdef TMASCOPE_STAMP_WARP
    return 32u * (TMASCOPE_STAMP_WARP);
#elif TMASCOPE_1D
    return (blockDim.x - 1u) & ~31u;
#else
    return (blockDim.x * blockDim.y * blockDim.z - 1u) & ~31u;
#endif
}

/* Every warp's lane 0 notes its ring's start and zeroes its count in the shared header;
 * the stamp warp takes the CTA's start pair. `rings` is aligned to half a ring (the ring
 * check is a mask of the address). */
__device__ __forceinline__ tmascope_warp tmascope_begin(unsigned rings, unsigned hdr)
{
    const unsigned tid = tmascope_tid(), warp = tid >> 5;
    tmascope_warp w;
    w.writer = (tid & 31u) == 0 && warp < TMASCOPE_WARPS;
    w.p = rings + (warp < TMASCOPE_WARPS ? warp : 0u) * TMASCOPE_RING_BYTES;
#if TMASCOPE_RECORD != 2
    if (tid == tmascope_stamp_tid())
        tmascope_stamp(0u);
#endif
    if (w.writer)
        asm volatile("st.shared.v2.u32 [%0], {%1, 0};" ::"r"(hdr + 8u * warp), "r"(w.p) : "memory");
    return w;
}

/* The global address of record `done` of this warp's buffer, or 0 when nothing is bound
 * for it: no buffers, or a warp or CTA beyond those they were sized for (a binding left from
 * an earlier launch of another grid) (tmascope_rec is constant memory: these reads come from
 * the SM's constant cache). */
__device__ __forceinline__ unsigned long long tmascope_dst(unsigned warp, unsigned done)
{
    const unsigned nw = tmascope_rec.nwarps;
    if (tmascope_rec.magic != TMASCOPE_MAGIC || !tmascope_rec.ev || warp >= nw || tmascope_cta() >= tmascope_rec.nctas)
        return 0;
    return tmascope_rec.ev + ((unsigned long long)(tmascope_cta() * nw + warp) * tmascope_rec.cap + done) * 16ull;
}

/* Every lane: records [src, src + 16 n) of this warp to its buffer from record `done` on,
 * 16 bytes per lane and record (streaming stores that nothing waits for); the first
 * `lane` is this thread's. After a __syncwarp (lane 0's records visible). */
__device__ __forceinline__ void tmascope_copy_out(unsigned src, unsigned n, unsigned done, unsigned warp, unsigned lane)
{
    const unsigned long long dst = tmascope_dst(warp, done);
    const unsigned cap = tmascope_rec.cap;
    for (unsigned k = lane; dst && k < n && done + k < cap; k += 32u) {
        unsigned a, b, c, d;
        asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "r"(src + 16u * k)
                     : "memory");
        asm volatile("st.global.cs.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(dst + 16ull * k), "r"(a), "r"(b), "r"(c), "r"(d)
                     : "memory");
    }
}

#if !TMASCOPE_RING_HOLDS_ALL
/* Every lane, when fewer than `records` + 1 slots are left in the current half of the
 * ring: the warp copies the half's records to its buffer with ordinary loads and stores
 * (no proxy fence, no bulk copy: nothing waits for the copy engine or for the stages'
 * copies in flight) and lane 0 adds them to the warp's count. Returns the other half's
 * start; the copied half is written again only after the other half is copied, long after
 * these loads. A warp beyond TMASCOPE_WARPS stores nothing and stays in its half. */
__device__ __forceinline__ unsigned tmascope_close_half(unsigned p, unsigned hdr)
{
    const unsigned tid = tmascope_tid(), warp = tid >> 5, lane = tid & 31u;
    const unsigned half = p & ~(TMASCOPE_RING_BYTES / 2u - 1u);
    if (warp >= TMASCOPE_WARPS)
        return half;
    const unsigned n = (p - half) / 16u, cnt = hdr + 4u + 8u * warp;
    unsigned done, start;
    __syncwarp();   /* lane 0's records are visible to the other lanes */
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(done) : "r"(cnt) : "memory");
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(start) : "r"(hdr + 8u * warp) : "memory");
    tmascope_copy_out(half, n, done, warp, lane);
    __syncwarp();   /* every lane has read the count before lane 0 writes it */
    if (lane == 0)
        asm volatile("st.shared.u32 [%0], %1;" ::"r"(cnt), "r"(done + n) : "memory");
    return half == start ? start + TMASCOPE_RING_BYTES / 2u : start;
}
/* The ring check: a half closes when fewer than `records` + 1 slots are left in it. */
#define TMASCOPE_RING_CHECK_(w, hdr, records)                                                                  \
    do {                                                                                                        \
        if (((w).p & (TMASCOPE_RING_BYTES / 2u - 1u)) >= TMASCOPE_RING_BYTES / 2u - 16u * (records))          \
            (w).p = tmascope_close_half((w).p, (hdr));                                                          \
    } while (0)
#endif

/* The ring check after a record: without TMASCOPE_STEP_RECORDS after every record (a check
 * leaves at least two free slots in the current half); with it, at TMASCOPE_FLUSH_POINT()
 * only. */
__device__ __forceinline__ void tmascope_check(tmascope_warp &w, unsigned hdr)
{
#if (TMASCOPE_RECORD == 1 || TMASCOPE_RECORD == 3) && !TMASCOPE_RING_HOLDS_ALL && !defined(TMASCOPE_STEP_RECORDS)
    TMASCOPE_RING_CHECK_(w, hdr, 1u);
#else
    (void)w;
    (void)hdr;
#endif
}

/* One record (every lane calls; lane 0 stores), without the ring check. The store is
 * predicated inside the asm: no branch, so no divergent region around a record (and none
 * around the wait whose stall it records). */
__device__ __forceinline__ void tmascope_store(tmascope_warp &w, unsigned w0, unsigned w1, unsigned w2, unsigned w3)
{
#if TMASCOPE_RECORD == 1 || TMASCOPE_RECORD == 3
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %0, 0;\n\t@p st.shared.v4.u32 [%1], {%2, %3, %4, %5};\n\t}"
                 ::"r"(w.writer), "r"(w.p), "r"(w0), "r"(w1), "r"(w2), "r"(w3));
    w.p += 16u;
#else
    (void)w;
    (void)w2;
    (void)w3;
#if TMASCOPE_RECORD == 2
    asm volatile("" ::"r"(w0), "r"(w1));   /* keeps the clock reads */
#else
    (void)w0;
    (void)w1;
#endif
#endif
}

/* One record (t, dur, iter, word3) and the ring check. */
__device__ __forceinline__ void tmascope_put(tmascope_warp &w, unsigned hdr, unsigned t, unsigned dur, unsigned iter,
                                             unsigned word3)
{
    tmascope_store(w, t, dur, iter, word3);
    tmascope_check(w, hdr);
}

/* A compound record (kinds 14, 15): three clocks and the iteration's low 24 bits. */
__device__ __forceinline__ void tmascope_put_clocks(tmascope_warp &w, unsigned hdr, unsigned t0, unsigned t1,
                                                    unsigned t2, unsigned iter, unsigned kind_flags)
{
#if TMASCOPE_RECORD == 2
    asm volatile("" ::"r"(t2));   /* keeps the clock read */
#endif
    tmascope_put(w, hdr, t0, t1, t2, iter << 8 | kind_flags);
}

/* A stall's record, opened while the warp waits (its end to follow, tmascope_wait_close):
 * no ring check between the two, so that the record stays where the close writes (the
 * last check left a free slot for it). */
__device__ __forceinline__ void tmascope_wait_open(tmascope_warp &w, unsigned t0, unsigned iter, unsigned word3)
{
    tmascope_store(w, t0, 0u, iter, word3);
}
/* The end of the stall opened last: its clock into the record's second word. */
__device__ __forceinline__ void tmascope_wait_close(tmascope_warp &w, unsigned hdr, unsigned t1)
{
#if TMASCOPE_RECORD == 1 || TMASCOPE_RECORD == 3
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %0, 0;\n\t@p st.shared.u32 [%1], %2;\n\t}" ::"r"(w.writer),
                 "r"(w.p - 12u), "r"(t1));
#elif TMASCOPE_RECORD == 2
    asm volatile("" ::"r"(t1));   /* keeps the clock read */
#else
    (void)t1;
#endif
    tmascope_check(w, hdr);
}
/* The stall opened last, written again whole (a wait that ended otherwise: a timeout). */
__device__ __forceinline__ void tmascope_wait_rewrite(tmascope_warp &w, unsigned hdr, unsigned t0, unsigned t1,
                                                      unsigned iter, unsigned word3)
{
    w.p -= 16u;
    tmascope_put(w, hdr, t0, t1, iter, word3);
}

/* Every thread: each warp copies the rest of its ring to its buffer (all lanes, 16 bytes
 * each, streaming stores that nothing waits for) and lane 0 writes its count; the stamp
 * warp takes the CTA's end pair. */
__device__ __forceinline__ void tmascope_end(tmascope_warp &w, unsigned hdr)
{
#if TMASCOPE_RECORD != 2
    const unsigned tid = tmascope_tid(), warp = tid >> 5, lane = tid & 31u;
    const bool bound = tmascope_rec.magic == TMASCOPE_MAGIC && tmascope_rec.evn && warp < tmascope_rec.nwarps &&
                       tmascope_cta() < tmascope_rec.nctas;
    if (warp < TMASCOPE_WARPS) {
        unsigned start, done;
#if TMASCOPE_RING_HOLDS_ALL
        asm volatile("ld.shared.u32 %0, [%1];" : "=r"(start) : "r"(hdr + 8u * warp) : "memory");
#else
        start = w.p & ~(TMASCOPE_RING_BYTES / 2u - 1u);
#endif
        __syncwarp();   /* lane 0's records are visible to the other lanes */
        asm volatile("ld.shared.u32 %0, [%1];" : "=r"(done) : "r"(hdr + 4u + 8u * warp) : "memory");
        const unsigned n = (w.p - start) / 16u;
        tmascope_copy_out(start, n, done, warp, lane);
        if (lane == 0 && bound)
            ((unsigned *)tmascope_rec.evn)[tmascope_cta() * tmascope_rec.nwarps + warp] = done + n;
    } else if (lane == 0 && bound) {
        /* a warp beyond TMASCOPE_WARPS: recorded nothing, says so */
        ((unsigned *)tmascope_rec.evn)[tmascope_cta() * tmascope_rec.nwarps + warp] = 0xffffffffu;
    }
    if (tid == tmascope_stamp_tid())
        tmascope_stamp(1u);
#else
    (void)w;
    (void)hdr;
#endif
}

/* The static rings and header of TMASCOPE_BEGIN(), or a kernel's own (BEGIN_AT). */
#define TMASCOPE_BEGIN()                                                                                        \
    __shared__ __align__(TMASCOPE_RING_BYTES / 2u) unsigned char tmascope_ring_[TMASCOPE_WARPS * TMASCOPE_RING_BYTES]; \
    __shared__ __align__(16) unsigned char tmascope_hdr_[TMASCOPE_HDR_BYTES];                                   \
    const unsigned tmascope_h_ = tmascope_smem(tmascope_hdr_);                                                  \
    tmascope_warp tmascope_w_ = tmascope_begin(tmascope_smem(tmascope_ring_), tmascope_h_)
/* rings: shared address of TMASCOPE_WARPS rings of TMASCOPE_RING_BYTES each, aligned to
 * half a ring (16 bytes with TMASCOPE_RING_HOLDS_ALL); hdr: TMASCOPE_HDR_BYTES, 16-aligned */
#define TMASCOPE_BEGIN_AT(rings, hdr)                                                                           \
    const unsigned tmascope_h_ = (hdr);                                                                         \
    tmascope_warp tmascope_w_ = tmascope_begin((rings), tmascope_h_)
#define TMASCOPE_END() tmascope_end(tmascope_w_, tmascope_h_)
/* With TMASCOPE_STEP_RECORDS N defined (a kernel that records at most N records between two
 * of these), the ring is checked here instead of after every record. */
#if defined(TMASCOPE_STEP_RECORDS) && !TMASCOPE_RING_HOLDS_ALL && (TMASCOPE_RECORD == 1 || TMASCOPE_RECORD == 3)
#define TMASCOPE_FLUSH_POINT() TMASCOPE_RING_CHECK_(tmascope_w_, tmascope_h_, TMASCOPE_STEP_RECORDS)
#else
#define TMASCOPE_FLUSH_POINT() do { } while (0)
#endif

#define TMASCOPE_EVENT_AT_(t, dur, kind, stage, iter, barrier, flags, aux, ...)                                  \
    tmascope_put(tmascope_w_, tmascope_h_, (t), (dur), (iter), TMASCOPE_WORD3(kind, flags, stage, barrier, aux))
/* TMASCOPE_EVENT_AT(t, dur, kind, stage, iter, barrier[, flags[, aux]]) */
#define TMASCOPE_EVENT_AT(...) TMASCOPE_EVENT_AT_(__VA_ARGS__, 0u, 0u, 0u)
/* TMASCOPE_EVENT(kind, stage, iter, barrier[, flags[, aux]]): an instant, now */
#define TMASCOPE_EVENT(...) TMASCOPE_EVENT_AT_(TMASCOPE_NOW(), 0u, __VA_ARGS__, 0u, 0u, 0u)
#define TMASCOPE_EVENT_IF(cond, ...)                                                                            \
    do {                                                                                                        \
        if (cond)                                                                                               \
            TMASCOPE_EVENT(__VA_ARGS__);                                                                        \
    } while (0)
#define TMASCOPE_SPAN_BEGIN(name) const unsigned name = TMASCOPE_NOW()
/* a time to record later (TMASCOPE_SPAN_AT, TMASCOPE_INSTANT_AT, TMASCOPE_WAIT_AT) */
#define TMASCOPE_MARK(name) const unsigned name = TMASCOPE_NOW()
/* TMASCOPE_SPAN_AT(t0, t1, kind, stage, iter, barrier[, flags[, aux]]): the span [t0, t1) */
#define TMASCOPE_SPAN_AT(t0, t1, ...) TMASCOPE_EVENT_AT_((t0), (t1) - (t0), __VA_ARGS__, 0u, 0u, 0u)
/* TMASCOPE_INSTANT_AT(t, kind, stage, iter, barrier[, flags[, aux]]) */
#define TMASCOPE_INSTANT_AT(t, ...) TMASCOPE_EVENT_AT_((t), 0u, __VA_ARGS__, 0u, 0u, 0u)
/* TMASCOPE_CONSUMED(t_read, t_math, t_end, iter): a stage's read [t_read, t_math) and its
 * math [t_math, t_end), one record (the iteration's low 24 bits; the host clamps the math's
 * duration to 2^24 - 1 cycles) */
#define TMASCOPE_CONSUMED(t_read, t_math, t_end, iter) TMASCOPE_CONSUMED_F(t_read, t_math, t_end, iter, 0u)
/* ... and the release of the stage at t_end (the arrive on its empty barrier follows the
 * math; a description's release_lag applies): three events, one record */
#define TMASCOPE_CONSUMED_RELEASED(t_read, t_math, t_end, iter)                                                \
    TMASCOPE_CONSUMED_F(t_read, t_math, t_end, iter, TMASCOPE_F_RELEASED)
#define TMASCOPE_CONSUMED_F(t_read, t_math, t_end, iter, flags)                                                \
    tmascope_put_clocks(tmascope_w_, tmascope_h_, (t_read), (t_math), (t_end), (iter),                         \
                        TMASCOPE_CONSUMED_CLK_KIND | (unsigned)(flags) << 4)
/* TMASCOPE_PRODUCED(t_expect, t_first, t_last, iter): a stage's arrive.expect_tx at
 * t_expect and its copies issued from t_first to t_last (the host spreads the issues of a
 * description's tensors evenly over that interval), one record (the iteration's low 24
 * bits) */
#define TMASCOPE_PRODUCED(t_expect, t_first, t_last, iter)                                                     \
    tmascope_put_clocks(tmascope_w_, tmascope_h_, (t_expect), (t_first), (t_last), (iter), TMASCOPE_PRODUCED_CLK_KIND)
/* TMASCOPE_WAIT_OPEN(t0, stage, iter, barrier[, flags[, aux]]): a wait that blocked (its
 * first test failed) since t0, written before the warp waits; TMASCOPE_WAIT_CLOSE() (or
 * TMASCOPE_WAIT_CLOSE_AT(t1), t1 a clock read after the wait) writes its end, before any
 * other record */
#define TMASCOPE_WAIT_OPEN_(t0, stage, iter, barrier, flags, aux, ...)                                         \
    tmascope_wait_open(tmascope_w_, (t0), (iter),                                                              \
                       TMASCOPE_WORD3(TMASCOPE_WAIT, (flags) | TMASCOPE_F_BLOCKED | TMASCOPE_F_END_CLOCK, stage,   \
                                      barrier, aux))
#define TMASCOPE_WAIT_OPEN(t0, ...) TMASCOPE_WAIT_OPEN_(t0, __VA_ARGS__, 0u, 0u, 0u)
#define TMASCOPE_WAIT_CLOSE_AT(t1) tmascope_wait_close(tmascope_w_, tmascope_h_, (t1))
#define TMASCOPE_WAIT_CLOSE() TMASCOPE_WAIT_CLOSE_AT(TMASCOPE_NOW())
/* TMASCOPE_MARK_LATER(name): a clock value set later: by TMASCOPE_ALL_AT(ok, name), the
 * vote on a wait's first probe (where the wait ended if it did not block), and by
 * TMASCOPE_WAIT_CLOSE_MARK(name), which closes a stall and sets it to the stall's end. So
 * what follows the wait starts at a clock read before the wait's branch, none after it */
#define TMASCOPE_MARK_LATER(name) unsigned name = 0u
#define TMASCOPE_WAIT_CLOSE_MARK(name)                                                                         \
    do {                                                                                                        \
        name = TMASCOPE_NOW_W();                                                                                \
        TMASCOPE_WAIT_CLOSE_AT(name);                                                                           \
    } while (0)
/* TMASCOPE_WAIT_AT(t0, t1, blocked, stage, iter, barrier, flags[, aux]): the wait [t0, t1)
 * when it blocked (aux 1: a producer's wait for the stage's previous phase) */
#define TMASCOPE_WAIT_AT_(t0, t1, stage, iter, barrier, flags, aux, ...)                                       \
    TMASCOPE_EVENT_AT_((t0), (t1) - (t0), TMASCOPE_WAIT, stage, iter, barrier, (flags) | TMASCOPE_F_BLOCKED, aux, 0u)
#define TMASCOPE_WAIT_AT(t0, t1, blocked, ...)                                                                 \
    do {                                                                                                        \
        if (blocked)                                                                                            \
            TMASCOPE_WAIT_AT_(t0, t1, __VA_ARGS__, 0u, 0u);                                                     \
    } while (0)
/* TMASCOPE_SPAN_END(name, kind, stage, iter, barrier[, flags[, aux]]) */
#define TMASCOPE_SPAN_END(name, ...)                                                                            \
    do {                                                                                                        \
        const unsigned tmascope_t_ = TMASCOPE_NOW();                                                            \
        TMASCOPE_EVENT_AT_((name), tmascope_t_ - (name), __VA_ARGS__, 0u, 0u, 0u);                               \
    } while (0)
#define TMASCOPE_WAIT_BEGIN(name) TMASCOPE_SPAN_BEGIN(name)
/* a wait span, recorded only when the wait blocked (the simulator's waits are stalls) */
#define TMASCOPE_WAIT_END(name, blocked, stage, iter, barrier, flags)                                           \
    do {                                                                                                        \
        if (blocked)                                                                                            \
            TMASCOPE_SPAN_END(name, TMASCOPE_WAIT, stage, iter, barrier, (flags) | TMASCOPE_F_BLOCKED);         \
    } while (0)

#else /* TMASCOPE_RECORD == 0: nothing */

#define TMASCOPE_NOW() 0u
#define TMASCOPE_NOW_W() 0u
#define TMASCOPE_BEGIN() do { } while (0)
#define TMASCOPE_BEGIN_AT(rings, hdr) do { } while (0)
#define TMASCOPE_END() do { } while (0)
#define TMASCOPE_FLUSH_POINT() do { } while (0)
#define TMASCOPE_EVENT_AT(...) do { } while (0)
#define TMASCOPE_EVENT(...) do { } while (0)
#define TMASCOPE_EVENT_IF(cond, ...) do { } while (0)
#define TMASCOPE_SPAN_BEGIN(name) do { } while (0)
#define TMASCOPE_SPAN_END(name, ...) do { } while (0)
#define TMASCOPE_MARK(name) do { } while (0)
#define TMASCOPE_SPAN_AT(t0, t1, ...) do { } while (0)
#define TMASCOPE_INSTANT_AT(t, ...) do { } while (0)
#define TMASCOPE_WAIT_AT(t0, t1, blocked, ...) do { } while (0)
#define TMASCOPE_CONSUMED(t_read, t_math, t_end, iter) do { } while (0)
#define TMASCOPE_CONSUMED_RELEASED(t_read, t_math, t_end, iter) do { } while (0)
#define TMASCOPE_CONSUMED_F(t_read, t_math, t_end, iter, flags) do { } while (0)
#define TMASCOPE_PRODUCED(t_expect, t_first, t_last, iter) do { } while (0)
#define TMASCOPE_WAIT_OPEN(t0, ...) do { } while (0)
#define TMASCOPE_WAIT_CLOSE_AT(t1) do { } while (0)
#define TMASCOPE_WAIT_CLOSE() do { } while (0)
#define TMASCOPE_ALL_AT(ok, name) __all_sync(0xffffffffu, (ok))
#define TMASCOPE_MARK_LATER(name) do { } while (0)
#define TMASCOPE_WAIT_CLOSE_MARK(name) do { } while (0)
#define TMASCOPE_WAIT_BEGIN(name) do { } while (0)
#define TMASCOPE_WAIT_END(name, blocked, stage, iter, barrier, flags) do { } while (0)

#endif
#endif
