/* The sampled space (each choice independent unless a rule ties it to another):
 *   mode        warp_specialized 40%, multistage 20%, cp_async 25% (half of them with
 *               commit groups, cpasync.sync: wait_prior), st_async 15% (cluster 2)
 *   warps       consumers 1-8 (st_async 1-4); one producer where the mode has one
 *   tensors     1 (60%) or 2, rank 2, u8 / f16 / bf16 / f32, swizzle none / 32b / 64b /
 *               128b, box rows 16-256 bytes wide (the swizzle span or half of it when
 *               swizzled), 8-256 rows, at most 32 KB; the tensor holds 4 to 32768 boxes,
 *               so that it fits L2 or streams from DRAM (l2_hit is left to the simulator,
 *               which derives it from the tiles the CTAs walk)
 *   stages      1-32 (2-32 where the mode needs two), within shared memory
 *   grid        ctas_per_sm 1-16 within threads and shared memory; a quarter of a wave
 *               to 4 waves of 132 x ctas_per_sm CTAs; clusters 1, 2, 4, 8, 16 with TMA
 *               multicast in half of the clustered TMA pipelines
 *   iterations  4-512 (log-uniform)
 *   consumer    reads none (25%), rows / cols (4, 8, 16 bytes per lane), ldsm-a, ldsm-b;
 *               shared by a warpgroup (warps: 4) when the warps allow, repeat 1-4;
 *               math none / fma (16-4096 FFMA) / mma (4096 to 1 M flops) per warp and
 *               stage; release_lag 0-2 in warp_specialized
 *   store       every 1-16 iterations in 20% of the TMA pipelines, half of them add
 *               reductions
 * Only correct pipelines (no bug seeds). Validity and the simulated time window are
 * the caller's to check (tmasim corpus redraws rejected candidates). */
#include "corpus.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pipe_plan.h"

int corpus_split(const char *name)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * 0x100000001b3ull;
    return (int)(h & 1u) ? CORPUS_TEST : CORPUS_FIT;
}

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t next(rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static uint32_t below(rng *r, uint32_t n)
{
    return n ? (uint32_t)(next(r) % n) : 0;
}
static uint32_t pick(rng *r, const uint32_t *v, uint32_t n)
{
    return v[below(r, n)];
}
/* 2^k for k uniform in [lo, hi] */
static uint32_t pow2(rng *r, uint32_t lo, uint32_t hi)
{
    return 1u << (lo + below(r, hi - lo + 1));
}

typedef struct out {
    char *buf;
    size_t cap, len;
} out;

static void put(out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t room = o->len < o->cap ? o->cap - o->len : 0;
    int n = vsnprintf(room ? o->buf + o->len : NULL, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        o->len += (size_t)n;
}

typedef struct tensor_pick {
    const char *dtype;
    uint32_t eb, span, box0, box1, bytes, pitch;
    uint64_t dims0, dims1;
} tensor_pick;

static void pick_tensor(rng *r, tensor_pick *t)
{
    static const char *const dtypes[] = {"u8", "f16", "bf16", "f32"};
    static const uint32_t ebs[] = {1, 2, 2, 4};
    static const uint32_t spans[] = {0, 32, 64, 128};
    uint32_t k = below(r, 4);
    t->dtype = dtypes[k];
    t->eb = ebs[k];
    t->span = spans[below(r, 4)];
    uint32_t inner = t->span ? (t->span >= 64 && below(r, 4) == 0 ? t->span / 2 : t->span) : pow2(r, 4, 8);
    t->box0 = inner / t->eb;
    if (t->box0 > 256) {
        t->box0 = 256;
        inner = 256 * t->eb;
    }
    t->pitch = inner > t->span ? inner : t->span;
    t->box1 = pow2(r, 3, 8);
    while (t->box1 > 8 && inner * t->box1 > 32768)
        t->box1 /= 2;
    t->bytes = inner * t->box1;
    /* boxes in the tensor: L2-resident (4-64), medium (256-2048) or streaming (8192-32768) */
    static const uint32_t lo[] = {2, 8, 13}, hi[] = {6, 11, 15};
    uint32_t c = below(r, 3), tiles = pow2(r, lo[c], hi[c]);
    while (tiles > 4 && (uint64_t)tiles * t->bytes > (512ull << 20))
        tiles /= 2;
    uint32_t k0 = 1u << below(r, 6);   /* boxes along the row: 1-32 */
    if (k0 > tiles)
        k0 = tiles;
    t->dims0 = (uint64_t)t->box0 * k0;
    t->dims1 = (uint64_t)t->box1 * (tiles / k0);
}

static const char *swizzle_name(uint32_t span)
{
    return span == 32 ? "32b" : span == 64 ? "64b" : span == 128 ? "128b" : "none";
}

static void write_reads(rng *r, out *o, uint32_t cons, const tensor_pick *t0)
{
    if (below(r, 4) == 0)
        return;
    static const char *const pats[] = {"rows", "cols", "ldsm-a", "ldsm-b"};
    const char *pat = pats[t0->eb == 2 ? below(r, 4) : below(r, 2)];   /* ldmatrix reads 16-bit elements */
    static const uint32_t bpl[] = {4, 8, 16};
    uint32_t warps = cons % 4 == 0 && below(r, 2) ? 4 : 1;
    put(o, "  reads: {tensor: 0, pattern: %s", pat);
    if (pat[0] != 'l')
        put(o, ", bytes_per_lane: %u", pick(r, bpl, 3));
    put(o, ", warps: %u, repeat: %u}\n", warps, 1 + below(r, 4));
}

size_t corpus_candidate(uint64_t seed, uint32_t index, uint32_t attempt, char *buf, size_t cap, char name[32])
{
    rng r = {seed * 0x2545F4914F6CDD1Dull ^ ((uint64_t)index << 20) ^ attempt};
    next(&r);
    out o = {buf, cap, 0};
    snprintf(name, 32, "corpus_%04u_%04u", (unsigned)(seed % 10000u), index % 10000u);
    static const char *const modes[] = {"warp_specialized", "multistage", "cp_async", "st_async"};
    uint32_t u = below(&r, 20), mode = u < 8 ? 0 : u < 12 ? 1 : u < 17 ? 2 : 3;
    int tma = mode <= 1;
    uint32_t cons = mode == 3 ? 1 + below(&r, 4) : 1 + below(&r, 8);
    uint32_t warps = cons + (mode == 0 || mode == 3);
    uint32_t ntens = below(&r, 5) < 3 ? 1 : 2;
    tensor_pick t[2];
    for (uint32_t k = 0; k < ntens; k++)
        pick_tensor(&r, &t[k]);
    uint32_t stage = 0;
    for (uint32_t k = 0; k < ntens; k++)
        stage += pipe_plan_slot_bytes(t[k].pitch * t[k].box1);
    /* stages and CTAs per SM within 228 KB per SM (stages, alignment, event ring) and
     * 2048 threads */
    uint32_t cps_max = 2048u / (warps * 32u);
    if (cps_max > 16)
        cps_max = 16;
    uint32_t cps = 1 + (below(&r, 2) ? 0 : below(&r, cps_max));
    uint32_t share = (228u * 1024u) / cps - 2048u - warps * 512u - 2048u;
    uint32_t smax = share > stage ? share / stage : 0;
    if (smax > 32)
        smax = 32;
    uint32_t smin = mode == 0 || mode == 3 ? 1 : 2;
    uint32_t stages = smax >= smin ? smin + below(&r, smax - smin + 1) : smin;
    if (stages > 8 && below(&r, 2))
        stages = 2 + below(&r, 7);   /* most real pipelines have 2-8 */
    uint32_t cluster = 1;
    int mcast = 0;
    if (mode == 3)
        cluster = 2;
    else if (tma && below(&r, 5) < 2) {
        static const uint32_t cl[] = {2, 2, 4, 4, 8, 16};
        cluster = pick(&r, cl, 6);
        mcast = below(&r, 2);
    }
    static const uint32_t quarters[] = {1, 2, 4, 4, 4, 6, 8, 12, 16};
    uint32_t wave = 132u * cps, ctas = wave * pick(&r, quarters, 9) / 4u;
    ctas = ctas < cluster ? cluster : ctas - ctas % cluster;
    if (ctas > 65535)
        ctas = 65535 - 65535 % cluster;
    uint32_t iters = pow2(&r, 2, 9);
    iters += below(&r, iters);

    put(&o, "# generated: tmasim corpus --seed %llu, candidate %u, draw %u\n", (unsigned long long)seed, index, attempt);
    put(&o, "name: %s\nmode: %s\n", name, modes[mode]);
    put(&o, "grid: {ctas: %u, ctas_per_sm: %u}\n", ctas, cps);
    if (cluster > 1)
        put(&o, "cluster: {size: %u, multicast: %s}\n", cluster, mcast ? "true" : "false");
    if (mode == 0 || mode == 3)
        put(&o, "warps: {producer: 1, consumer: %u}\n", cons);
    else
        put(&o, "warps: {consumer: %u}\n", cons);
    put(&o, "stages: %u\niterations: %u\ntensors:\n", stages, iters);
    for (uint32_t k = 0; k < ntens; k++)
        put(&o, "  - {name: %c, dtype: %s, dims: [%llu, %llu], box: [%u, %u], swizzle: %s}\n", 'A' + k, t[k].dtype,
            (unsigned long long)t[k].dims0, (unsigned long long)t[k].dims1, t[k].box0, t[k].box1,
            swizzle_name(t[k].span));
    if (mode == 2 && below(&r, 2))
        put(&o, "cpasync: {sync: wait_prior}\n");
    put(&o, "consumer:\n");
    if (mode == 0 && stages > 1 && below(&r, 3) == 0)
        put(&o, "  release_lag: %u\n", 1 + below(&r, stages - 1 < 2 ? stages - 1 : 2));
    write_reads(&r, &o, cons, &t[0]);
    uint32_t m = below(&r, 10);
    if (m < 3)
        put(&o, "  math: {kind: none}\n");
    else if (m < 6)
        put(&o, "  math: {kind: fma, amount: %u}\n", pow2(&r, 4, 12));
    else
        put(&o, "  math: {kind: mma, amount: %u}\n", PIPE_MMA_FLOPS_PER_INSTR * pow2(&r, 0, 8));
    if (tma && below(&r, 5) == 0) {
        static const uint32_t every[] = {1, 2, 4, 8, 16};
        put(&o, "store: {bytes: %u, every: %u%s}\n", t[0].bytes, pick(&r, every, 5), below(&r, 2) ? ", reduce: add" : "");
    }
    return o.len;
}

/* The wgmma family's space: the GEMM pipelines `tmahw run` generates (pipe_gemm.h).
 *   dtype       bf16 35%, f16 15%, e4m3 35%, e5m2 15%; K-major A and B with 128-byte swizzle,
 *               one 128-byte row of K per operand row and stage
 *   warps       one producer, 1 or 2 consumer warpgroups (64 rows of the tile each)
 *   shape       m64nNk(32 bytes): N 64-256 in steps of 64 with the TMA epilogue (its C boxes
 *               are 64 columns wide), 32-256 in steps of 32 with the direct one
 *   stages      2-8 within shared memory; wgmma_wait 0-2 below the stages; release_lag
 *               wgmma_wait (70%) or one more
 *   grid        132 persistent CTAs (80%) or 64-120; cluster 2 with B multicast (25%);
 *               group_m 1, 4, 8, 16
 *   gemm        M and N multiples of the tile (cluster included), a quarter of a wave to six
 *               waves of tiles over the grid (of the cluster's tile pairs with clusters of 2),
 *               K 4-256 stages of the tile's K (log-uniform, at most 16384) */
static void wgmma_sizes(rng *r, uint32_t bm, uint32_t bn, uint32_t bk, uint32_t ctas, uint32_t g[3])
{
    static const uint32_t quarters[] = {1, 2, 3, 4, 4, 6, 8, 12, 16, 24};
    uint32_t tiles = ctas * pick(r, quarters, 10) / 4u;
    if (tiles < 1)
        tiles = 1;
    /* tiles = mt x nt, each side at most 16384 elements */
    uint32_t mt_max = 16384u / bm, nt_max = 16384u / bn;
    uint32_t mt = 1u << below(r, 8);
    while (mt > 1 && (mt > tiles || mt > mt_max))
        mt /= 2;
    uint32_t nt = (tiles + mt - 1) / mt;
    if (nt > nt_max)
        nt = nt_max;
    g[0] = mt * bm;
    g[1] = nt * bn;
    uint32_t kb = pow2(r, 2, 8);
    kb += below(r, kb);
    if (kb * bk > 16384u)
        kb = 16384u / bk;
    g[2] = kb * bk;
}

size_t corpus_wgmma_candidate(uint64_t seed, uint32_t index, uint32_t attempt, char *buf, size_t cap, char name[32])
{
    rng r = {seed * 0x2545F4914F6CDD1Dull ^ ((uint64_t)index << 20) ^ attempt ^ (0x5747ull << 40)};
    next(&r);
    out o = {buf, cap, 0};
    snprintf(name, 32, "wgmma_%04u_%04u", (unsigned)(seed % 10000u), index % 10000u);
    static const char *const dtypes[] = {"bf16", "f16", "e4m3", "e5m2"};
    static const char *const carriers[] = {"bf16", "f16", "u8", "u8"};
    uint32_t u = below(&r, 20), dt = u < 7 ? 0 : u < 10 ? 1 : u < 17 ? 2 : 3;
    uint32_t eb = dt < 2 ? 2 : 1, bk = 128u / eb, kinst = 32u / eb;
    uint32_t groups = 1 + below(&r, 2), bm = 64u * groups;
    int tma_epi = below(&r, 4) != 0;
    uint32_t bn = tma_epi ? 64u * (1 + below(&r, 4)) : 32u * (1 + below(&r, 8));
    uint32_t cluster = below(&r, 4) == 0 ? 2 : 1;
    /* shared memory as the generated kernel lays it out (hw/gemm_gen.c) within 227 KB */
    uint32_t stage = 128u * (bm + bn), fixed = (tma_epi ? groups * 64u * bn * 2u : 0) + 1024u;
    uint32_t smax = (232448u - fixed) / (stage + 16u);
    if (smax > 8)
        smax = 8;
    uint32_t stages = smax >= 2 ? 2 + below(&r, smax - 1) : 2;
    uint32_t wmax = stages - 1 < 2 ? stages - 1 : 2;
    uint32_t wait = below(&r, wmax + 1);
    uint32_t lag = wait + (wait + 1 < stages && below(&r, 10) >= 7);
    static const uint32_t grids[] = {64, 96, 120};
    uint32_t ctas = below(&r, 5) ? 132 : pick(&r, grids, 3);
    static const uint32_t groups_m[] = {1, 4, 8, 16};
    uint32_t group_m = pick(&r, groups_m, 4);
    uint32_t g[3];
    wgmma_sizes(&r, bm * cluster, bn, bk, ctas, g);

    put(&o, "# generated: tmasim corpus --family wgmma --seed %llu, candidate %u, draw %u\n", (unsigned long long)seed, index,
        attempt);
    put(&o, "name: %s\nmode: warp_specialized\n", name);
    put(&o, "grid: {ctas: %u, ctas_per_sm: 1}\n", ctas);
    if (cluster > 1)
        put(&o, "cluster: {size: %u, multicast: true}\n", cluster);
    put(&o, "warps: {producer: 1, consumer: %u}\nstages: %u\n", 4 * groups, stages);
    put(&o, "gemm: {m: %u, n: %u, k: %u, group_m: %u, epilogue: %s}\ntensors:\n", g[0], g[1], g[2], group_m,
        tma_epi ? "tma" : "direct");
    put(&o, "  - {name: A, dtype: %s, dims: [%u, %u], box: [%u, %u], swizzle: 128b}\n", carriers[dt], g[2], g[0], bk, bm);
    put(&o, "  - {name: B, dtype: %s, dims: [%u, %u], box: [%u, %u], swizzle: 128b}\n", carriers[dt], g[2], g[1], bk, bn);
    put(&o, "consumer:\n  math: {kind: wgmma, shape: m64n%uk%u, dtype: %s, accumulate: f32, a: smem}\n", bn, kinst, dtypes[dt]);
    put(&o, "  wgmma_wait: %u\n  release_lag: %u\n", wait, lag);
    return o.len;
}
