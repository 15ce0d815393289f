/* calib: `tmahw calibrate [-o FILE]`, the simulator's timing parameters measured on the GPU
 * present, one mechanism per microbenchmark (kernels: calib_kern.cuh). Each benchmark sweeps
 * the variable its mechanism depends on (copy size, data source, warps per sub-partition,
 * warps per SM, footprint); the parameter file holds every value with its benchmark, the
 * sweep point it comes from and the spread (p10..p90) of its samples, in the `--params`
 * format that `tmasim sim --gpu FILE` reads. Values that are not simulator parameters (the
 * other points of a sweep) are written as comments beside them. */
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "calib.h"
#include "calib_kern.cuh"
#include "gpu_time.h"
#include "gemm_gen.h"
#include "hw.h"
#include "wgmma.h"

namespace {

enum { EXIT_OK = 0, EXIT_FINDING = 1, EXIT_BAD = 2 };

struct entry {
    std::string bench, param, unit, how;
    double value, lo, hi;
    int n;
    bool is_param;   /* a simulator parameter (else a measurement shown beside them) */
};

struct ctx {
    std::vector<entry> out;
    std::vector<std::string> failed;
    double ghz = 1.98;
    double tma_sm = 0;      /* tma_bytes_per_ns_sm when tma_fill ran before */
    int sms = 132;
    u64 *dout = NULL;       /* device buffer for the kernels' clocks */
    std::vector<u64> hout;  /* its host copy */
    u32 *dsink = NULL;
    std::string err;
};

const size_t OUT_WORDS = 1 << 20;

double quantile(std::vector<double> v, double q)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    double x = q * (double)(v.size() - 1);
    size_t i = (size_t)x;
    return i + 1 < v.size() ? v[i] + (x - (double)i) * (v[i + 1] - v[i]) : v[i];
}

void add(ctx &c, const char *bench, const char *param, const char *unit, bool is_param, const std::vector<double> &s,
         const std::string &how)
{
    entry e{bench, param, unit, how, quantile(s, 0.5), quantile(s, 0.1), quantile(s, 0.9), (int)s.size(), is_param};
    c.out.push_back(e);
}

void add1(ctx &c, const char *bench, const char *param, const char *unit, bool is_param, double v,
          const std::string &how)
{
    add(c, bench, param, unit, is_param, std::vector<double>{v}, how);
}

std::string fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    int n = vsnprintf(NULL, 0, f, ap);
    va_end(ap);
    std::string s((size_t)(n > 0 ? n : 0) + 1, '\0');
    va_start(ap, f);
    vsnprintf(&s[0], s.size(), f, ap);
    va_end(ap);
    s.resize((size_t)(n > 0 ? n : 0));
    return s;
}

#define CK(x)                                                                                  \
    do {                                                                                       \
        cudaError_t e_ = (x);                                                                  \
        if (e_ != cudaSuccess) {                                                               \
            c.err = fmt("%s: %s", #x, cudaGetErrorString(e_));                                 \
            return -1;                                                                         \
        }                                                                                      \
    } while (0)

int fetch(ctx &c, size_t words)
{
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(c.hout.data(), c.dout, words * 8, cudaMemcpyDeviceToHost));
    return 0;
}

/* ---- tensor maps: f32 rows of `inner` elements, boxes of inner x box_rows ---- */
/* f32 rows of `inner` elements `pitch` bytes apart, boxes of box_inner x box_rows */
int encode_pitched(ctx &c, void *g, uint32_t inner, uint64_t rows, uint64_t pitch, uint32_t box_inner, uint32_t box_rows,
                   CUtensorMap *m, CUtensorMapSwizzle sw, CUtensorMapL2promotion promo)
{
    cuuint64_t dims[2] = {inner, rows}, strides[1] = {pitch};
    cuuint32_t box[2] = {box_inner, box_rows}, es[2] = {1, 1};
    CUresult r = cuTensorMapEncodeTiled(m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, g, dims, strides, box, es,
                                        CU_TENSOR_MAP_INTERLEAVE_NONE, sw,
                                        promo, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        c.err = fmt("cuTensorMapEncodeTiled (box %u x %u f32, rows %llu B apart): %s", box_inner, box_rows,
                    (unsigned long long)pitch, hw_cu_name(r));
        return -1;
    }
    return 0;
}

int encode_rows(ctx &c, void *g, uint32_t inner, uint64_t rows, uint32_t box_rows, CUtensorMap *m,
                CUtensorMapSwizzle sw = CU_TENSOR_MAP_SWIZZLE_NONE,
                CUtensorMapL2promotion promo = CU_TENSOR_MAP_L2_PROMOTION_NONE)
{
    return encode_pitched(c, g, inner, rows, inner * 4ull, inner, box_rows, m, sw, promo);
}

int encode(ctx &c, void *g, uint64_t rows, uint32_t box_rows, CUtensorMap *m)
{
    return encode_rows(c, g, 64, rows, box_rows, m);
}

/* ------------------------------------------------------------------ benchmarks */

int b_clock(ctx &c)
{
    std::vector<double> s;
    for (int rep = 0; rep < 5; rep++) {
        ck_clock<<<c.sms, 256>>>(200000, c.dout, (float *)c.dsink);
        if (fetch(c, 2 * (size_t)c.sms))
            return -1;
        for (int b = 0; rep > 0 && b < c.sms; b++)
            s.push_back((double)c.hout[2 * b] / (double)c.hout[2 * b + 1]);
    }
    add(c, "clock", "clock_ghz", "GHz", true, s,
        fmt("clock64 over globaltimer of %d CTAs x 256 threads running FFMA chains for ~0.5 ms, 4 launches", c.sms));
    c.ghz = quantile(s, 0.5);
    add1(c, "clock", "sm_count", "SMs", true, c.sms, "cudaDevAttrMultiProcessorCount");
    return 0;
}

int b_d2d(ctx &c)
{
    double s[10];
    int n = gt_d2d_samples(s, 10);
    if (n == 0) {
        c.err = "cudaMemcpy device to device of 1 GiB failed";
        return -1;
    }
    add(c, "d2d", "hbm_bytes_per_ns", "B/ns", true, std::vector<double>(s, s + n),
        "cudaMemcpy device to device of 1 GiB, bytes read + written per ns, 10 copies");
    return 0;
}

/* single TMA load latency by size, from L2 and from DRAM; intercept of a line through the
 * medians = the latency the simulator adds to a copy's transfer time */
int b_tma_latency(ctx &c, void *big, void *flush, size_t flush_bytes)
{
    const uint32_t rows_of[4] = {4, 16, 64, 128};
    const uint64_t rows_total = 1u << 21;   /* 512 MiB */
    CK(cudaFuncSetAttribute(ck_tma_latency, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 << 10));
    for (int src = 0; src < 2; src++) {
        double sx = 0, sy = 0, sxx = 0, sxy = 0;
        std::string pts;
        for (int k = 0; k < 4; k++) {
            CUtensorMap m;
            if (encode(c, big, rows_total, rows_of[k], &m))
                return -1;
            const uint32_t bytes = rows_of[k] * 256;
            if (src == 1)
                CK(cudaMemset(flush, k + 1, flush_bytes));   /* evicts the boxes from L2 */
            const long long step = src ? 1024 : 0;
            ck_tma_latency<<<1, 32, bytes + 1024>>>(m, 33, step, (long long)(rows_total - 128), bytes, c.dout);
            if (fetch(c, 33))
                return -1;
            std::vector<double> ns;
            for (int i = 1; i < 33; i++)
                ns.push_back((double)c.hout[i] / c.ghz);
            double med = quantile(ns, 0.5), x = bytes;
            sx += x, sy += med, sxx += x * x, sxy += x * med;
            pts += fmt("%s%u B %.0f ns", k ? ", " : "", bytes, med);
            add(c, "tma_latency", src ? "tma_dram_copy_ns" : "tma_l2_copy_ns", "ns", false, ns,
                fmt("%u-byte box, issue to full barrier, 32 copies", bytes));
        }
        double slope = (4 * sxy - sx * sy) / (4 * sxx - sx * sx), icpt = (sy - slope * sx) / 4;
        add1(c, "tma_latency", src ? "hbm_latency_ns" : "l2_latency_ns", "ns", true, icpt,
             fmt("one thread, one TMA load at a time (expect_tx, copy, try_wait), data %s: intercept of the line "
                 "through the medians (%s); slope %.0f B/ns",
                 src ? "from DRAM (256 MiB written between sizes, boxes 256 KiB apart)" : "in L2 (one box re-read)",
                 pts.c_str(), 1.0 / slope));
    }
    return 0;
}

/* one fill run: grid CTAs, each keeps `stages` 16 KiB boxes in flight, n copies; returns
 * the aggregate rate (bytes / globaltimer span) and each CTA's own rate in *per_cta */
int fill_run(ctx &c, const CUtensorMap &m, int grid, int n, int stages, long long boxes, double *agg,
             std::vector<double> *per_cta, uint32_t bytes = 16384, int box_rows = 64, int spin = 0,
             const CUtensorMap *m2 = NULL, int warps = 1)
{
    const CUtensorMap &odd = m2 ? *m2 : m;
    const size_t sm = (size_t)warps * stages * bytes + 1024;
    if (spin)
        ck_tma_fill<1><<<grid, 32 * warps, sm>>>(m, odd, n, stages, box_rows, bytes, boxes, c.dout);
    else
        ck_tma_fill<0><<<grid, 32 * warps, sm>>>(m, odd, n, stages, box_rows, bytes, boxes, c.dout);
    if (fetch(c, 3 * (size_t)grid))
        return -1;
    u64 g0 = ~0ull, g1 = 0;
    for (int b = 0; b < grid; b++) {
        g0 = std::min(g0, c.hout[3 * b]);
        g1 = std::max(g1, c.hout[3 * b + 1]);
        if (per_cta)
            per_cta->push_back((double)warps * n * bytes / ((double)c.hout[3 * b + 2] / c.ghz));
    }
    *agg = (double)grid * warps * n * bytes / (double)(g1 - g0);
    return 0;
}

/* TMA time per box by shape: one thread keeps 104-208 KiB of boxes in flight from L2 and
 * polls its full barriers. Boxes of 2-32 KiB with inner rows of 32-256 B and 8-256 rows
 * each take the same time, and more threads divide it: a thread's copies complete one after
 * another. Then many threads with one box each give the SM's byte rate. */
int fill_shapes(ctx &c, void *big)
{
    const uint32_t pts[][2] = {{8, 256}, {8, 128}, {16, 256}, {16, 64}, {32, 128}, {32, 32},
                               {64, 64}, {64, 16}, {64, 8},   {32, 16}, {64, 128}, {64, 256}};
    const int np = sizeof pts / sizeof pts[0];
    CK(cudaFuncSetAttribute(ck_tma_fill<0>, cudaFuncAttributeMaxDynamicSharedMemorySize, 13 * 16384 + 1024));
    CK(cudaFuncSetAttribute(ck_tma_fill<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, 13 * 16384 + 1024));
    std::vector<double> small;
    double big_ns = 0;
    std::string list;
    for (int k = 0; k < np; k++) {
        CUtensorMap m;
        const uint32_t inner = pts[k][0], rows = pts[k][1], bytes = inner * 4 * rows;
        if (encode_rows(c, big, inner, (64ull << 20) / (inner * 4), rows, &m))
            return -1;
        const int stages = (int)std::min(16u, 13u * 16384u / bytes);   /* 104 KiB or more in flight, up to 208 */
        std::vector<double> r, rs;
        double a;
        for (int rep = 0; rep < 3; rep++)
            if (fill_run(c, m, 1, 1000, stages, 64, &a, &r, bytes, (int)rows) ||
                fill_run(c, m, 1, 1000, stages, 64, &a, &rs, bytes, (int)rows, 1))
                return -1;
        const double ns = bytes / quantile(r, 0.5);
        if (bytes <= 32768)
            small.push_back(ns);
        else
            big_ns = ns;
        list += fmt("%s%u B x %u rows %.0f ns (test_wait polling %.0f)", k ? ", " : "", inner * 4, rows, ns,
                    bytes / quantile(rs, 0.5));
    }
    {   /* the same with a 128B-swizzled box of 128-byte rows */
        CUtensorMap m;
        if (encode_rows(c, big, 32, (64ull << 20) / 128, 64, &m, CU_TENSOR_MAP_SWIZZLE_128B))
            return -1;
        std::vector<double> rs;
        double a;
        for (int rep = 0; rep < 3; rep++)
            if (fill_run(c, m, 1, 1000, 16, 64, &a, &rs, 8192, 64, 1))
                return -1;
        add1(c, "tma_fill", "tma_box_128b_ns", "ns", false, 8192 / quantile(rs, 0.5),
             "as tma_box_ns, 8 KiB boxes of 64 rows of 128 B under SWIZZLE_128B: ns per box");
    }
    {   /* one SM, 1-8 issuing warps of one CTA, each with 2 boxes of 8 KiB in flight: the
         * per-box time belongs to the issuing thread; then as many threads as it takes to
         * find the SM's own byte rate */
        CUtensorMap m;
        if (encode_rows(c, big, 64, (64ull << 20) / 256, 32, &m))
            return -1;
        std::string pts;
        for (int w = 1; w <= 8; w *= 2) {
            std::vector<double> rs;
            double a;
            for (int rep = 0; rep < 3; rep++)
                if (fill_run(c, m, 1, 500, 2, 256, &a, &rs, 8192, 32, 1, NULL, w))
                    return -1;
            pts += fmt("%s%d warps %.0f ns per box (%.0f B/ns)", w > 1 ? ", " : "", w, 8192 / quantile(rs, 0.5),
                       quantile(rs, 0.5));
        }
        for (int st = 1; st <= 8; st *= 2) {
            std::vector<double> rs;
            double a;
            for (int rep = 0; rep < 3; rep++)
                if (fill_run(c, m, 1, 500, st, 256, &a, &rs, 8192, 32, 1, NULL, 1))
                    return -1;
            pts += fmt("; 1 warp, %d in flight: %.0f ns per box", st, 8192 / quantile(rs, 0.5));
        }
        add1(c, "tma_fill", "tma_box_warps", "-", false, 0,
             fmt("one CTA on one SM, lane 0 of each of 1-8 warps keeping 2 boxes of 8 KiB in flight: the SM's "
                 "time per box (%s)",
                 pts.c_str()));
        const int warps[3] = {8, 16, 32};
        const uint32_t rows[3] = {64, 32, 16};
        double best = 0;
        std::string rp;
        for (int k = 0; k < 3; k++) {
            CUtensorMap mk;
            if (encode_rows(c, big, 64, (64ull << 20) / 256, rows[k], &mk))
                return -1;
            std::vector<double> rs;
            double a;
            for (int rep = 0; rep < 3; rep++)
                if (fill_run(c, mk, 1, 500, 1, 512, &a, &rs, rows[k] * 256, (int)rows[k], 1, NULL, warps[k]))
                    return -1;
            best = std::max(best, quantile(rs, 0.5));
            rp += fmt("%s%d warps x %u KiB %.0f", k ? ", " : "", warps[k], rows[k] / 4, quantile(rs, 0.5));
        }
        c.tma_sm = best;
        add1(c, "tma_fill", "tma_bytes_per_ns_sm", "B/ns", true, best,
             fmt("one CTA on one SM, lane 0 of 8-32 warps with one box each in flight (128 KiB) from L2: the most "
                 "bytes per ns (%s); a lower bound of the SM's rate where the threads' per-box time still binds",
                 rp.c_str()));
    }
    add(c, "tma_fill", "tma_box_ns", "ns", false, small,
        fmt("one thread keeping 104-208 KiB of TMA loads in flight from L2, waiting with try_wait as the generated "
            "kernels do: ns per box, the "
            "median over the boxes of 2-32 KiB, whose time depends on neither rows nor bytes (%s; 64 KiB: %.0f "
            "ns): one issuing thread's boxes complete one after another",
            list.c_str(), big_ns));
    return 0;
}

int b_tma_fill(ctx &c, void *big)
{
    CUtensorMap m;
    if (encode(c, big, 1u << 21, 64, &m))
        return -1;
    const int stages = 12;
    CK(cudaFuncSetAttribute(ck_tma_fill<0>, cudaFuncAttributeMaxDynamicSharedMemorySize, stages * 16384 + 1024));
    std::vector<double> one, agg_l2, agg_dram, per;
    double a;
    for (int rep = 0; rep < 4; rep++) {
        std::vector<double> r;
        if (fill_run(c, m, 1, 2000, stages, 64, &a, &r))
            return -1;
        one.push_back(r[0]);
        if (fill_run(c, m, c.sms, 1000, stages, 512, &a, rep ? &per : NULL))
            return -1;
        agg_l2.push_back(a);
        if (fill_run(c, m, c.sms, 400, stages, 32768, &a, NULL))
            return -1;
        agg_dram.push_back(a);
    }
    {   /* two CTAs per SM (6 stages each): does the per-copy time belong to the thread or the SM? */
        std::vector<double> two;
        CK(cudaFuncSetAttribute(ck_tma_fill<0>, cudaFuncAttributeMaxDynamicSharedMemorySize, 6 * 16384 + 1024));
        if (fill_run(c, m, 2 * c.sms, 500, 6, 1024, &a, &two))
            return -1;
        add(c, "tma_fill", "tma_fill_2cta_bytes_per_ns", "B/ns", false, two,
            fmt("%d CTAs (two per SM), each one thread keeping 6 loads of 16 KiB in flight from L2: each CTA's "
                "rate; the GPU's %.0f B/ns", 2 * c.sms, a));
        CUtensorMap m2;
        if (encode(c, big, 1u << 21, 64, &m2))
            return -1;
        std::vector<double> alt;
        CK(cudaFuncSetAttribute(ck_tma_fill<0>, cudaFuncAttributeMaxDynamicSharedMemorySize, 12 * 16384 + 1024));
        for (int rep = 0; rep < 3; rep++)
            if (fill_run(c, m, 1, 2000, 12, 64, &a, &alt, 16384, 64, 0, &m2))
                return -1;
        add(c, "tma_fill", "tma_fill_2maps_bytes_per_ns", "B/ns", false, alt,
            "one CTA as tma_fill_16k but alternating two tensor maps of the same tensor");
    }
    add(c, "tma_fill", "tma_fill_16k_bytes_per_ns_sm", "B/ns", false, one,
        "one CTA, one thread keeping 12 TMA loads of 16 KiB boxes (64 f32 x 64 rows) in flight from a 1 MiB "
        "footprint (L2), 2000 copies, 4 launches");
    if (fill_shapes(c, big))
        return -1;
    add(c, "tma_fill", "l2_bytes_per_ns", "B/ns", true, agg_l2,
        fmt("%d CTAs (one per SM) as above cycling through an 8 MiB footprint: bytes over the globaltimer span, "
            "4 launches; per CTA p50 %.0f B/ns",
            c.sms, quantile(per, 0.5)));
    add(c, "tma_fill", "tma_dram_read_bytes_per_ns", "B/ns", false, agg_dram,
        fmt("%d CTAs as above through a 512 MiB footprint (DRAM): TMA read rate of the whole GPU", c.sms));
    /* the footprint the whole grid cycles through, past which L2 no longer serves re-reads */
    const double l2r = quantile(agg_l2, 0.5), dr = quantile(agg_dram, 0.5), mid = (l2r + dr) / 2;
    const int mb[] = {16, 24, 32, 40, 48, 56, 64, 80, 96};
    double prev_mb = 8, prev_r = l2r, cross = -1;
    std::string pts;
    for (int k = 0; k < 9; k++) {
        std::vector<double> r;
        for (int rep = 0; rep < 2; rep++) {
            if (fill_run(c, m, c.sms, 400, stages, (long long)mb[k] * 64, &a, NULL))
                return -1;
            r.push_back(a);
        }
        double rate = quantile(r, 0.5);
        pts += fmt("%s%d MiB %.0f", k ? ", " : "", mb[k], rate);
        if (cross < 0 && rate < mid)
            cross = prev_mb + (mb[k] - prev_mb) * (prev_r - mid) / (prev_r - rate);
        prev_mb = mb[k], prev_r = rate;
    }
    if (cross > 0)
        add1(c, "tma_fill", "l2_reuse_bytes", "bytes", true, cross * 1048576.0,
             fmt("the grid's TMA read rate by footprint cycled through (B/ns: 8 MiB %.0f, %s; DRAM %.0f): where it "
                 "falls half way from the L2 rate to the DRAM rate, interpolated",
                 l2r, pts.c_str(), dr));
    else
        c.failed.push_back(fmt("l2_reuse_bytes: the rate stayed above half way up to 96 MiB (%s)", pts.c_str()));
    return 0;
}

/* Each CTA's span, first warp start to last warp end on its SM's clock (out: t0, t1 per
 * warp at (cta x 32 + warp) x 2), for `warps` warps per CTA from warp `first` and the first
 * `ctas` CTAs (0: one per SM). */
std::vector<double> cta_spans(const ctx &c, int warps, int ctas = 0, int first = 0)
{
    std::vector<double> s;
    for (int b = 0; b < (ctas ? ctas : c.sms); b++) {
        u64 t0 = ~0ull, t1 = 0;
        for (int w = first; w < first + warps; w++) {
            t0 = std::min(t0, c.hout[(b * 32 + w) * 2]);
            t1 = std::max(t1, c.hout[(b * 32 + w) * 2 + 1]);
        }
        s.push_back((double)(t1 - t0));
    }
    return s;
}

typedef void (*lds_kernel)(int, u64 *, u32 *);

/* cycles per instruction per warp at 1, 2, 4, 8 warps per sub-partition (one CTA per SM) */
int lds_sweep(ctx &c, lds_kernel k, double cyc[4], std::string &pts)
{
    const int per[4] = {1, 2, 4, 8};
    for (int i = 0; i < 4; i++) {
        const int threads = 128 * per[i];
        CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 32768));
        k<<<c.sms, threads, 32768>>>(64, c.dout, c.dsink);
        if (fetch(c, 64 * (size_t)c.sms))
            return -1;
        cyc[i] = quantile(cta_spans(c, threads / 32), 0.5) / 512.0;
        pts += fmt("%s%d/SMSP %.1f", i ? ", " : "", per[i], cyc[i]);
    }
    return 0;
}

int b_lds(ctx &c)
{
    struct op {
        const char *name;
        lds_kernel k;
        int wavefronts, words;
    };
    const op ops[] = {{"ld.shared.u32", ck_lds<0, 0>, 1, 1},    {"ld.shared.v2", ck_lds<1, 0>, 2, 2},
                      {"ld.shared.v4", ck_lds<2, 0>, 4, 4},     {"ldmatrix.x1", ck_lds<3, 0>, 1, 1},
                      {"ldmatrix.x2", ck_lds<4, 0>, 2, 2},      {"ldmatrix.x4", ck_lds<5, 0>, 4, 4},
                      {"ld.shared.u32 32-way", ck_lds<6, 0>, 32, 1}, {"ld.shared.v4 folded", ck_lds<2, 1>, 4, 4},
                      {"ld.shared.u32 folded", ck_lds<0, 1>, 1, 1}};
    double cyc[9][4];
    for (int i = 0; i < 9; i++) {
        std::string pts;
        if (lds_sweep(c, ops[i].k, cyc[i], pts))
            return -1;
        add1(c, "lds", fmt("lds_%d_cycles", i).c_str(), "cycles", false, cyc[i][0],
             fmt("%s (%d wavefront%s), conflict-free unless named, volatile: cycles per instruction per warp by warps "
                 "per sub-partition, one CTA per SM (%s)",
                 ops[i].name, ops[i].wavefronts, ops[i].wavefronts > 1 ? "s" : "", pts.c_str()));
    }
    /* the port: wavefronts the SM serves per cycle with 32 warps issuing 4-wavefront loads,
     * and with 16 warps issuing 32-wavefront loads */
    add1(c, "lds", "smem_cycles_per_wavefront", "cycles", true, cyc[2][3] / (32 * 4),
         fmt("ld.shared.v4 (4 wavefronts), 8 warps per sub-partition: %.1f cycles per instruction per warp / (32 "
             "warps x 4 wavefronts); the 32-way conflicting u32 at 4 warps per sub-partition gives %.3f",
             cyc[2][3], cyc[6][2] / (16 * 32)));
    add1(c, "lds", "lsu_issue_cycles", "cycles", true, cyc[0][0],
         fmt("ld.shared.u32 (128 bytes per warp instruction) without a dependent fold, one warp per "
             "sub-partition: cycles per instruction per warp, the least a shared load costs its warp (v2 %.1f, "
             "ldmatrix x1/x2/x4 %.1f/%.1f/%.1f)",
             cyc[1][0], cyc[3][0], cyc[4][0], cyc[5][0]));
    add1(c, "lds", "lsu_bytes_per_cycle_smsp", "B/cycle", true, 512.0 / cyc[2][0],
         fmt("ld.shared.v4 (512 bytes per warp instruction), one warp per sub-partition: 512 / %.1f cycles per "
             "instruction, the bytes a sub-partition's loads return per cycle",
             cyc[2][0]));
    add1(c, "lds", "read_fold_cycles", "cycles", false, cyc[7][0] / 4,
         fmt("ld.shared.v4 folded into one checksum as the generated consumer does, one warp per sub-partition: "
             "%.1f cycles per instruction / 4 words (u32 folded: %.1f): the fold hides behind the loads",
             cyc[7][0], cyc[8][0]));
    return 0;
}

int b_smem_latency(ctx &c)
{
    std::vector<double> s;
    for (int rep = 0; rep < 5; rep++) {
        ck_smem_chase<<<1, 32>>>(4096, c.dout, c.dsink);
        if (fetch(c, 1))
            return -1;
        s.push_back((double)c.hout[0] / 4096);
    }
    add(c, "smem_latency", "smem_latency_cycles", "cycles", true, s,
        "one lane following 4096 dependent ld.shared.u32 (index scaled by 4 in the loop), 5 launches");
    return 0;
}

/* mma.sync flops per cycle per sub-partition with `per_sm` CTAs of `threads` threads on
 * every SM at once (4 chains per warp), from the kernel's event-timed duration: the
 * pipe's rate when the warps come from several CTAs. -1 on a launch error. */
static double mma_ctas_rate(ctx &c, int threads, int per_sm)
{
    const int n = 4096;
    cudaEvent_t e0, e1;
    if (cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess)
        return -1;
    float ms = 0;
    ck_mma<4><<<c.sms * per_sm, threads>>>(64, c.dout, (float *)c.dsink);   /* warm-up */
    cudaEventRecord(e0);
    ck_mma<4><<<c.sms * per_sm, threads>>>(n, c.dout, (float *)c.dsink);
    cudaEventRecord(e1);
    bool ok = cudaEventSynchronize(e1) == cudaSuccess && cudaGetLastError() == cudaSuccess &&
              cudaEventElapsedTime(&ms, e0, e1) == cudaSuccess && ms > 0;
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    if (!ok)
        return -1;
    double flops = 4096.0 * 4 * n * (threads / 32) * per_sm * c.sms;
    return flops / (ms * 1e-3 * c.ghz * 1e9) / (4.0 * c.sms);
}

int b_math(ctx &c)
{
    const int per[4] = {1, 2, 4, 8};
    double f[4];
    std::string pts;
    for (int k = 0; k < 4; k++) {
        ck_ffma<<<c.sms, 128 * per[k]>>>(1024, c.dout, (float *)c.dsink);
        if (fetch(c, 64 * (size_t)c.sms))
            return -1;
        f[k] = quantile(cta_spans(c, 4 * per[k]), 0.5) / 8192.0 / per[k];
        pts += fmt("%s%d/SMSP %.2f", k ? ", " : "", per[k], f[k]);
    }
    add1(c, "ffma", "ffma_cycles", "cycles", true, f[2],
         fmt("8 independent FFMA chains per warp (the generated math block), 4 warps per sub-partition: cycles per "
             "warp instruction on the sub-partition (%s)",
             pts.c_str()));
    ck_mma<1><<<c.sms, 128>>>(1024, c.dout, (float *)c.dsink);
    if (fetch(c, 64 * (size_t)c.sms))
        return -1;
    std::vector<double> lat;
    for (int b = 0; b < c.sms; b++)
        for (int w = 0; w < 4; w++)
            lat.push_back((double)(c.hout[(b * 32 + w) * 2 + 1] - c.hout[(b * 32 + w) * 2]) / 1024.0);
    add(c, "mma", "mma_chain_cycles", "cycles", false, lat,
        "mma.sync.m16n8k16 f32+=f16 in one dependent chain, one warp per sub-partition: cycles per instruction");
    /* the pipe's rate by warps per sub-partition (1, 2, 4, 8), each warp 4 chains as the
     * generated math block: the simulator interpolates it over the math warps resident on
     * a sub-partition */
    std::string mp;
    double best = 0, r[4];
    for (int k = 0; k < 4; k++) {
        ck_mma<4><<<c.sms, 128 * per[k]>>>(512, c.dout, (float *)c.dsink);
        if (fetch(c, 64 * (size_t)c.sms))
            return -1;
        r[k] = 4096.0 * 4 * 512 * per[k] / quantile(cta_spans(c, 4 * per[k]), 0.5);
        best = std::max(best, r[k]);
        mp += fmt("%s%d/SMSP %.0f", k ? ", " : "", per[k], r[k]);
    }
    add1(c, "mma", "mma_flops_per_cycle_smsp", "flop/cycle", true, best,
         fmt("mma.sync.m16n8k16 in 4 chains per warp: flops per cycle per sub-partition, the most of (%s)", mp.c_str()));
    for (int k = 1; k < 4; k++)
        add1(c, "mma", fmt("mma_flops_%dw_smsp", per[k]).c_str(), "flop/cycle", true, r[k],
             fmt("mma.sync.m16n8k16 in 4 chains per warp, %d warps per sub-partition (one CTA of %d threads per SM): "
                 "flops per cycle per sub-partition",
                 per[k], 128 * per[k]));
    /* the generated block's shape: 256 mma with a compile-time count, 1-8 warps per sub-partition */
    for (int k = 0; k < 4; k++) {
        ck_mma_block<256><<<c.sms, 128 * per[k]>>>(8, c.dout, (float *)c.dsink);
        if (fetch(c, 64 * (size_t)c.sms))
            return -1;
        double rb = 4096.0 * 256 * 8 * per[k] / quantile(cta_spans(c, 4 * per[k]), 0.5);
        add1(c, "mma", fmt("mma_block_flops_%dw", per[k]).c_str(), "flop/cycle", false, rb,
             fmt("the generated math block (256 mma.sync, a compile-time count, 4 chains), %d warps per "
                 "sub-partition: flops per cycle per sub-partition",
                 per[k]));
    }
    const int shapes[5][2] = {{128, 1}, {128, 2}, {128, 4}, {128, 8}, {160, 10}};
    for (int k = 0; k < 5; k++) {
        double rc = mma_ctas_rate(c, shapes[k][0], shapes[k][1]);
        if (rc < 0)
            return -1;
        add1(c, "mma", fmt("mma_flops_%dx%dw", shapes[k][1], shapes[k][0] / 32).c_str(), "flop/cycle", false, rc,
             fmt("mma.sync.m16n8k16 in 4 chains per warp, %d CTAs of %d warps on every SM at once: flops per cycle "
                 "per sub-partition from the kernel's event time",
                 shapes[k][1], shapes[k][0] / 32));
    }
    /* the simulator prices one warp's mma as the most of the pipe rate and latency / 4 chains */
    add1(c, "mma", "mma_latency_cycles", "cycles", true, 4 * 4096.0 / r[0],
         fmt("one warp per sub-partition with 4 chains as the generated math block: 4096 / %.0f flops per cycle = "
             "%.2f cycles per instruction, x 4 chains (one chain alone: %.1f)",
             r[0], 4096.0 / r[0], quantile(lat, 0.5)));
    return 0;
}

typedef void (*ffma_block_kernel)(int, u64 *, float *);

/* The generated math block's FFMA rate by its code size and warps per sub-partition:
 * small blocks run from the instruction cache, large ones wait for fetches. */
int b_ifetch(ctx &c)
{
    const int n8s[8] = {64, 128, 192, 256, 320, 384, 512, 1024};
    const ffma_block_kernel ks[8] = {ck_ffma_block<64>,  ck_ffma_block<128>, ck_ffma_block<192>, ck_ffma_block<256>,
                                     ck_ffma_block<320>, ck_ffma_block<384>, ck_ffma_block<512>, ck_ffma_block<1024>};
    const int per[4] = {1, 2, 4, 8};
    double cyc[4][8];
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 8; i++) {
            const int reps = 16384 / n8s[i];
            ks[i]<<<c.sms, 128 * per[k]>>>(reps, c.dout, (float *)c.dsink);
            if (fetch(c, 64 * (size_t)c.sms))
                return -1;
            /* the sub-partition's cycles per FFMA: the CTA's span over the instructions of the
             * warps on one sub-partition */
            cyc[k][i] = quantile(cta_spans(c, 4 * per[k]), 0.5) / (8.0 * n8s[i] * reps * per[k]);
        }
    std::string one;
    int knee = 0;   /* the largest block one warp still runs at the smallest's rate (within 5%) */
    for (int i = 0; i < 8; i++) {
        one += fmt("%s%d KiB %.2f", i ? ", " : "", n8s[i] * 8 * 16 / 1024, cyc[0][i]);
        if (cyc[0][i] <= 1.05 * cyc[0][0])
            knee = i;
    }
    add1(c, "ifetch", "ffma_unrolled_cycles", "cycles", true, cyc[0][0],
         "the generated FFMA block fully unrolled (8 KiB of code), one warp per sub-partition, one CTA per SM: "
         "cycles per FFMA");
    add1(c, "ifetch", "ffma_unrolled_smsp_cycles", "cycles", true, cyc[2][0],
         fmt("the same with 4 warps per sub-partition: cycles per FFMA on the sub-partition (1 warp %.3f, 2 %.3f, "
             "8 %.3f)",
             cyc[0][0], cyc[1][0], cyc[3][0]));
    add1(c, "ifetch", "icache_bytes", "bytes", true, n8s[knee] * 8 * 16.0,
         fmt("the largest unrolled FFMA block one warp runs at the 8 KiB block's rate, within 5%% (cycles per FFMA "
             "by code size: %s)",
             one.c_str()));
    for (int k = 0; k < 4; k++) {
        std::string pts;
        for (int i = 0; i < 8; i++)
            pts += fmt("%s%d KiB %.2f", i ? ", " : "", n8s[i] * 8 * 16 / 1024, cyc[k][i]);
        add1(c, "ifetch", fmt("ffma_fetch_%dw_cycles", per[k]).c_str(), "cycles", true, cyc[k][6],
             fmt("the unrolled FFMA block of 64 KiB (past the instruction cache), %d warp(s) per sub-partition: "
                 "cycles per FFMA on the sub-partition (by code size: %s)",
                 per[k], pts.c_str()));
    }
    return 0;
}

typedef void (*int_kernel)(int, u32, u64 *, u32 *);

/* How fast a sub-partition issues integer instructions by warps on it: 8 independent chains
 * per warp (ck_int), 1-16 warps per sub-partition (16: two CTAs of 1024 threads per SM).
 * Cycles per warp instruction on the sub-partition, from the median CTA span. */
int b_issue(ctx &c)
{
    const int_kernel ks[5] = {ck_int<0>, ck_int<1>, ck_int<2>, ck_int<3>, ck_int<4>};
    const char *names[5] = {"mad", "xor", "add", "madxor", "addr"};
    const int per[5] = {1, 2, 4, 8, 16}, n = 512;
    double cyc[5][5];
    for (int k = 0; k < 5; k++)
        for (int i = 0; i < 5; i++) {
            const int ctas = per[i] > 8 ? 2 : 1, threads = 128 * per[i] / ctas;
            ks[k]<<<c.sms * ctas, threads>>>(n, 0x9e3779b1u, c.dout, c.dsink);
            if (fetch(c, 64 * (size_t)c.sms * ctas))
                return -1;
            cyc[k][i] = quantile(cta_spans(c, threads / 32, c.sms * ctas), 0.5) / (32.0 * n * per[i]);
        }
    for (int k = 0; k < 5; k++) {
        std::string pts;
        for (int i = 0; i < 5; i++)
            pts += fmt("%s%d/SMSP %.3f", i ? ", " : "", per[i], cyc[k][i]);
        add1(c, "issue", fmt("int_%s_cycles", names[k]).c_str(), "cycles", false, cyc[k][3],
             fmt("%s: 8 independent integer chains per warp (%s), 8 warps per sub-partition: cycles per warp "
                 "instruction on the sub-partition (%s)",
                 names[k],
                 k == 0   ? "mad.lo"
                 : k == 1 ? "xor"
                 : k == 2 ? "add"
                 : k == 3 ? "mad.lo and xor in turn"
                          : "per 8: 2 mad.lo, shr, xor, 2 add, or, shl",
                 pts.c_str()));
    }
    return 0;
}

typedef void (*mma_mix_kernel)(int, int, int, u32, u64 *, float *);

/* mma.sync beside integer work on one sub-partition (ck_mma_mix): two warps of mma.sync
 * chains and two warps of integer chains per sub-partition, each pair alone and both at
 * once. If the tensor pipe's work and the other instructions' issue overlapped, both at once
 * would take about the longer of the two alone; if an mma.sync holds its sub-partition for its
 * pipe time, about their sum. Work sized so that each alone takes about the same time. */
int b_mma_mix(ctx &c)
{
    const mma_mix_kernel ks[3] = {ck_mma_mix<0>, ck_mma_mix<1>, ck_mma_mix<4>};
    const char *names[3] = {"mad", "xor", "addr"};
    const int n_mma = 1024, n_ints[3] = {384, 640, 640};
    for (int k = 0; k < 3; k++) {
        double span[3];
        for (int who = 1; who <= 3; who++) {
            ks[k]<<<c.sms, 512>>>(n_mma, n_ints[k], who, 0x9e3779b1u, c.dout, (float *)c.dsink);
            if (fetch(c, 64 * (size_t)c.sms))
                return -1;
            span[who - 1] = quantile(cta_spans(c, who == 3 ? 16 : 8, 0, who == 2 ? 8 : 0), 0.5);
        }
        const double sum = span[0] + span[1], most = std::max(span[0], span[1]);
        /* 0: both at once take the longer alone (full overlap); 1: their sum (none) */
        add1(c, "mma_mix", fmt("mma_mix_%s_serial", names[k]).c_str(), "share", false, (span[2] - most) / (sum - most),
             fmt("two warps of mma.sync.m16n8k16 (4 chains, %d x 4 per warp) and two of %s integer chains (8 chains, "
                 "%d x 32 per warp) per sub-partition, one CTA of 16 warps per SM: cycles alone %.0f (mma) and %.0f "
                 "(integer), both at once %.0f; (both - longer) / (sum - longer): 0 the two overlap, 1 they add up",
                 n_mma, names[k], n_ints[k], span[0], span[1], span[2]));
    }
    return 0;
}

/* One SM's sub-partitions as the warps of its CTAs fill them (%warpid % 4 of each warp, the
 * SM's CTAs in the order of their first warp's slot): "CTA: residues of warps 0..W-1". */
std::string smsp_map(const ctx &c, int grid, int warps)
{
    std::vector<std::pair<u64, int>> mine;   /* (warp 0's slot, CTA) of SM 0's CTAs */
    for (int b = 0; b < grid; b++)
        if (c.hout[(size_t)b * 32 * 4 + 3] == 0)
            mine.push_back({c.hout[(size_t)b * 32 * 4 + 2], b});
    std::sort(mine.begin(), mine.end());
    std::string m;
    for (auto &e : mine) {
        m += m.empty() ? "" : " | ";
        for (int w = 0; w < warps; w++)
            m += fmt("%llu", (unsigned long long)(c.hout[((size_t)e.second * 32 + w) * 4 + 2] % 4));
    }
    return m;
}

/* Where the warps of several CTAs on one SM issue (%warpid: slot n issues from
 * sub-partition n % 4). CTAs of 4 warps, k per SM (k = 1, 2, 4, 8), only warp 0 of each
 * busy: if all their warps 0 shared one sub-partition the span would grow k-fold, spread
 * over four it grows with k / 4. Then CTAs of 1, 2, 3, 5 and 6 warps, 4 per SM: SM 0's map. */
int b_smsp(ctx &c)
{
    const int ks[4] = {1, 2, 4, 8}, n = 256;
    double base = 0;
    for (int i = 0; i < 4; i++) {
        const int grid = c.sms * ks[i];
        ck_smsp<<<grid, 128>>>(n, 0, 0x9e3779b1u, c.dout, c.dsink);
        if (fetch(c, (size_t)grid * 32 * 4))
            return -1;
        std::vector<double> span;
        int res[4] = {0, 0, 0, 0};
        for (int b = 0; b < grid; b++) {
            const u64 *o = &c.hout[(size_t)b * 32 * 4];
            span.push_back((double)(o[1] - o[0]));
            res[o[2] % 4]++;
        }
        double med = quantile(span, 0.5);
        if (i == 0)
            base = med;
        add1(c, "smsp", fmt("smsp_busy_%dctas", ks[i]).c_str(), "ratio", false, med / base,
             fmt("%d CTAs of 4 warps per SM, warp 0 of each issuing mad.lo on 8 chains (%d trips of 32): its span "
                 "over one CTA per SM's (%.0f cycles); warp 0's %%warpid %% 4 = 0/1/2/3 in %d/%d/%d/%d CTAs; SM 0: %s",
                 ks[i], n, base, res[0], res[1], res[2], res[3], smsp_map(c, grid, 4).c_str()));
    }
    const int ws[5] = {1, 2, 3, 5, 6};
    for (int i = 0; i < 5; i++) {
        const int grid = c.sms * 4;
        ck_smsp<<<grid, 32 * ws[i]>>>(64, -1, 0x9e3779b1u, c.dout, c.dsink);
        if (fetch(c, (size_t)grid * 32 * 4))
            return -1;
        add1(c, "smsp", fmt("smsp_map_%dw", ws[i]).c_str(), "CTAs", false, 4,
             fmt("4 CTAs of %d warps per SM: each warp's %%warpid %% 4 on SM 0, CTAs in slot order: %s", ws[i],
                 smsp_map(c, grid, ws[i]).c_str()));
    }
    return 0;
}

/* wgmma.mma_async from shared memory (SS), the generated GEMM kernel's inner step: each
 * warpgroup issues 4 instructions over one 128-byte swizzle row of K, commits a group and
 * waits with wait_group(1) (throughput) or wait_group(0) (latency of a group of 4).
 * Built with NVRTC from the generator's instruction (gemm_gen_wgmma_source). */
const char WGMMA_BENCH[] =
    "extern \"C\" __global__ void ck_wgmma(int n, int wait0, u64 *out)\n"
    "{\n"
    "    extern __shared__ __align__(1024) unsigned char sm[];\n"
    "    u32 sb = ((u32)__cvta_generic_to_shared(sm) + 1023) & ~1023u;\n"
    "    float acc[NACC];\n"
    "    for (int i = 0; i < NACC; i++) acc[i] = 0.f;\n"
    "    u64 t0; asm volatile(\"mov.u64 %0, %%clock64;\" : \"=l\"(t0));\n"
    "    for (int i = 0; i < n; i++) {\n"
    "        asm volatile(\"wgmma.fence.sync.aligned;\" ::: \"memory\");\n"
    "#pragma unroll\n"
    "        for (u32 k = 0; k < 4; k++)\n"
    "            gm_wgmma(acc, 0x4000004000010000ull | ((sb + 32 * k) >> 4), 0x4000004000010000ull | ((sb + 16384 + 32 * k) >> 4));\n"
    "        asm volatile(\"wgmma.commit_group.sync.aligned;\" ::: \"memory\");\n"
    "        if (wait0) asm volatile(\"wgmma.wait_group.sync.aligned 0;\" ::: \"memory\");\n"
    "        else asm volatile(\"wgmma.wait_group.sync.aligned 1;\" ::: \"memory\");\n"
    "    }\n"
    "    asm volatile(\"wgmma.wait_group.sync.aligned 0;\" ::: \"memory\");\n"
    "    float r = 0.f;\n"
    "    for (int i = 0; i < NACC; i++) r += acc[i];\n"
    "    u64 t1; asm volatile(\"mov.u64 %0, %%clock64;\" : \"=l\"(t1));\n"
    "    if (r == 1234.5f) out[0] = 0;\n"
    "    if ((threadIdx.x & 31) == 0) { out[(blockIdx.x * 32 + threadIdx.x / 32) * 2] = t0; out[(blockIdx.x * 32 + threadIdx.x / 32) * 2 + 1] = t1; }\n"
    "}\n";

int wgmma_kernel(ctx &c, uint32_t n, int dtype, CUfunction *fn, CUmodule *mod)
{
    static pipe_desc d;
    memset(&d, 0, sizeof d);
    d.wgmma.n = n;
    d.wgmma.dtype = dtype;
    d.wgmma.k = wg_k((wg_dtype)dtype);
    char *head = NULL;
    err_info e = {};
    if (gemm_gen_wgmma_source(&d, &head, &e) != ERR_OK) {
        c.err = e.detail;
        return -1;
    }
    std::string src = fmt("#define NACC %u\n", n / 2) + head + WGMMA_BENCH;
    free(head);
    char msg[600];
    if (hw_nvrtc_load(src.c_str(), "ck_wgmma.cu", NULL, 0, "ck_wgmma", mod, fn, msg, sizeof msg)) {
        c.err = msg;
        return -1;
    }
    cuFuncSetAttribute(*fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 64 * 1024);
    return 0;
}

/* Per shape: cycles per instruction on the SM with 1 and 2 warpgroups issuing (the tensor
 * pipe's rate, or the shared-memory port's where the operands' bytes bound it), and the
 * latency of one group of 4 instructions. */
int b_wgmma(ctx &c)
{
    const uint32_t ns[3] = {64, 128, 256};
    const int types[2] = {WG_BF16, WG_E4M3};
    for (int ti = 0; ti < 2; ti++)
        for (int ni = 0; ni < 3; ni++) {
            CUfunction fn;
            CUmodule mod;
            if (wgmma_kernel(c, ns[ni], types[ti], &fn, &mod))
                return -1;
            const int iters = 256;
            double cyc[2], lat = 0;
            for (int g = 0; g < 3; g++) {
                int n = iters, wait0 = g == 2;
                void *args[] = {&n, &wait0, &c.dout};
                unsigned threads = g == 1 ? 256 : 128;
                if (cuLaunchKernel(fn, c.sms, 1, 1, threads, 1, 1, 64 * 1024, 0, args, NULL) != CUDA_SUCCESS ||
                    fetch(c, 64 * (size_t)c.sms)) {
                    c.err = "ck_wgmma launch failed";
                    return -1;
                }
                double span = quantile(cta_spans(c, threads / 32), 0.5);
                if (g < 2)
                    cyc[g] = span / (4.0 * iters * (g + 1));
                else
                    lat = span / iters;
            }
            cuModuleUnload(mod);
            const char *tn = ti ? "e4m3" : "bf16";
            uint32_t k = wg_k((wg_dtype)types[ti]);
            add1(c, "wgmma", fmt("wgmma_n%u_%s_cycles", ns[ni], tn).c_str(), "cycles", false, std::min(cyc[0], cyc[1]),
                 fmt("wgmma.mma_async m64n%uk%u %s from shared memory, 4 per group, wait_group(1): cycles per "
                     "instruction on the SM, the least of 1 and 2 warpgroups (%.1f, %.1f): %.0f flops per cycle",
                     ns[ni], k, tn, cyc[0], cyc[1], 2.0 * 64 * ns[ni] * k / std::min(cyc[0], cyc[1])));
            add1(c, "wgmma", fmt("wgmma_n%u_%s_group_latency_cycles", ns[ni], tn).c_str(), "cycles", false, lat,
                 fmt("one warpgroup: a group of 4 m64n%uk%u, commit, wait_group(0): cycles from issue to its end", ns[ni],
                     k));
        }
    return 0;
}

/* wgmma under the GEMM's conditions, on every SM: two warpgroups reading the same A rows or
 * their own 64 rows each (as the GEMM's consumers), optionally beside a copy thread that
 * keeps `inflight` bulk copies (cp.async.bulk) of 12 KiB in flight into other shared memory
 * (the producer's writes), cycling through `foot` blocks (64: 768 KiB that every SM reads,
 * in L2; more: each SM its own stretch of a footprint past L2, from DRAM); the operands are
 * what shared memory held (fill 0) or integers -2..2 in bf16 as the GEMM's (fill 1: the
 * tensor pipes' power depends on the values); and long runs of each SM's tensor pipe with
 * clock64 and globaltimer read at both ends: the SM clock while the tensor pipes of all
 * SMs are busy. */
const char WGMMA_LOAD_BENCH[] =
    "extern \"C\" __global__ void ck_wgmma_load(int n, int distinct, int copy, const unsigned char *src, u64 *out,\n"
    "                                         int fill, int inflight, u32 foot, int rec, uint4 *recbuf)\n"
    "{\n"
    "    extern __shared__ __align__(1024) unsigned char sm[];\n"
    "    __shared__ __align__(8) u64 bars[8];\n"
    "    __shared__ uint4 ring[64];\n"
    "    __shared__ int done;\n"
    "    u32 sb = ((u32)__cvta_generic_to_shared(sm) + 1023) & ~1023u;\n"
    "    u32 wg = threadIdx.x / 128, nwg = blockDim.x / 128 - (copy ? 1 : 0);\n"
    "    if (threadIdx.x == 0) {\n"
    "        done = 0;\n"
    "        for (int b = 0; b < 8; b++) asm volatile(\"mbarrier.init.shared::cta.b64 [%0], 1;\" ::\"r\"((u32)__cvta_generic_to_shared(&bars[b])));\n"
    "        asm volatile(\"fence.mbarrier_init.release.cluster;\" ::: \"memory\");\n"
    "    }\n"
    "    if (fill) {\n"
    "        const unsigned short v5[5] = {0xC000, 0xBF80, 0x0000, 0x3F80, 0x4000};\n"
    "        unsigned short *op = (unsigned short *)(sm + (sb - (u32)__cvta_generic_to_shared(sm)));\n"
    "        for (u32 i = threadIdx.x; i < 32768; i += blockDim.x)\n"
    "            op[i] = v5[((i * 2654435761u + blockIdx.x * 40503u) >> 13) % 5];\n"
    "        asm volatile(\"fence.proxy.async.shared::cta;\" ::: \"memory\");\n"
    "    }\n"
    "    __syncthreads();\n"
    "    u64 g0, t0, g1, t1, bytes = 0;\n"
    "    asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(g0));\n"
    "    asm volatile(\"mov.u64 %0, %%clock64;\" : \"=l\"(t0));\n"
    "    if (wg < nwg) {\n"
    "        float acc[NACC];\n"
    "        for (int i = 0; i < NACC; i++) acc[i] = 0.f;\n"
    "        u32 a = sb + (distinct ? 8192u * wg : 0u);\n"
    "        for (int i = 0; i < n; i++) {\n"
    "            asm volatile(\"wgmma.fence.sync.aligned;\" ::: \"memory\");\n"
    "#pragma unroll\n"
    "            for (u32 k = 0; k < 4; k++)\n"
    "                gm_wgmma(acc, 0x4000004000010000ull | ((a + 32 * k) >> 4), 0x4000004000010000ull | ((sb + 16384 + 32 * k) >> 4));\n"
    "            asm volatile(\"wgmma.commit_group.sync.aligned;\" ::: \"memory\");\n"
    "            asm volatile(\"wgmma.wait_group.sync.aligned 1;\" ::: \"memory\");\n"
    "        }\n"
    "        asm volatile(\"wgmma.wait_group.sync.aligned 0;\" ::: \"memory\");\n"
    "        float r = 0.f;\n"
    "        for (int i = 0; i < NACC; i++) r += acc[i];\n"
    "        if (r == 1234.5f) out[0] = 0;\n"
    "        if (threadIdx.x % 128 == 0) atomicAdd(&done, 1);\n"
    "    } else if (threadIdx.x == nwg * 128 && inflight == 0) {\n"
    "        while (*(volatile int *)&done < (int)nwg)\n"
    "            ;\n"
    "    } else if (threadIdx.x == nwg * 128) {\n"
    "        u32 ph[8] = {0, 0, 0, 0, 0, 0, 0, 0};\n"
    "        u32 base = foot > 64 ? blockIdx.x * (foot / gridDim.x) : 0;\n"
    "        int j = 0;\n"
    "        for (; j < inflight; j++) {\n"
    "            u32 bar = (u32)__cvta_generic_to_shared(&bars[j]);\n"
    "            asm volatile(\"mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\" ::\"r\"(bar), \"r\"(12288u) : \"memory\");\n"
    "            asm volatile(\"cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\"\n"
    "                         ::\"r\"(sb + 65536u + 12288u * j), \"l\"(src + 12288ull * ((base + j) % foot)), \"r\"(12288u), \"r\"(bar) : \"memory\");\n"
    "        }\n"
    "        for (; ; j++) {\n"
    "            int b = j % inflight;\n"
    "            u32 bar = (u32)__cvta_generic_to_shared(&bars[b]), ok = 0;\n"
    "            while (!ok)\n"
    "                asm volatile(\"{\\n\\t.reg .pred p;\\n\\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\\n\\tselp.u32 %0, 1, 0, p;\\n\\t}\"\n"
    "                             : \"=r\"(ok) : \"r\"(bar), \"r\"(ph[b]) : \"memory\");\n"
    "            ph[b] ^= 1u;\n"
    "            bytes += 12288u;\n"
    "            if (*(volatile int *)&done >= (int)nwg) break;\n"
    "            asm volatile(\"mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\" ::\"r\"(bar), \"r\"(12288u) : \"memory\");\n"
    "            asm volatile(\"cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\"\n"
    "                         ::\"r\"(sb + 65536u + 12288u * b), \"l\"(src + 12288ull * ((base + j) % foot)), \"r\"(12288u), \"r\"(bar) : \"memory\");\n"
    "            if (rec == 1) recbuf[blockIdx.x * 4096u + ((u32)j & 4095u)] = make_uint4((u32)j, (u32)bytes, b, 0u);\n"
    "            if (rec == 2) asm volatile(\"st.shared.v4.u32 [%0], {%1, %2, %3, %4};\" ::\"r\"((u32)__cvta_generic_to_shared(&ring[j & 63])),\n"
    "                                       \"r\"((u32)j), \"r\"((u32)bytes), \"r\"((u32)b), \"r\"(0u) : \"memory\");\n"
    "        }\n"
    "        for (int k = 1; k < inflight; k++) {\n"
    "            int b = (j + k) % inflight; u32 bar = (u32)__cvta_generic_to_shared(&bars[b]), ok = 0;\n"
    "            while (!ok)\n"
    "                asm volatile(\"{\\n\\t.reg .pred p;\\n\\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\\n\\tselp.u32 %0, 1, 0, p;\\n\\t}\"\n"
    "                             : \"=r\"(ok) : \"r\"(bar), \"r\"(ph[b]) : \"memory\");\n"
    "        }\n"
    "    } else {\n"
    "        return;\n"
    "    }\n"
    "    asm volatile(\"mov.u64 %0, %%clock64;\" : \"=l\"(t1));\n"
    "    asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(g1));\n"
    "    if (threadIdx.x % 128 == 0) {\n"
    "        u64 *o = out + (blockIdx.x * 4 + wg) * 4;\n"
    "        o[0] = t1 - t0; o[1] = g1 - g0; o[2] = bytes; o[3] = 1;\n"
    "    }\n"
    "}\n";

/* One launch of ck_wgmma_load on every SM: the median over CTAs of the consumers' cycles per
 * instruction on the SM, of the clock (clock64 over globaltimer) and of the copier's B/ns. */
struct wl_result {
    double cyc, ghz, copy_bpns;
};

/* the conditions of one run besides the two warpgroups' wgmma */
struct wl_cond {
    int fill = 0;        /* operands: 0 what shared memory held, 1 integers -2..2 in bf16 */
    int inflight = 4;    /* the copy thread's bulk copies of 12 KiB in flight */
    unsigned foot = 64;  /* 12 KiB blocks the copies cycle through (64: one 768 KiB stretch in L2) */
    unsigned smem = 1024 + 65536 + 8 * 12288;   /* dynamic shared memory of the launch */
    int rec = 0;         /* per copy reissued, the copy thread also stores 16 bytes: 1 to global, 2 to shared memory */
};
const unsigned WL_SMEM = 1024 + 65536 + 8 * 12288;

int wl_run(ctx &c, CUfunction fn, int n, int distinct, int copy, void *src, wl_result *r, wl_cond w = wl_cond())
{
    int nwg = 2, threads = 128 * (nwg + (copy ? 1 : 0));
    CK(cudaMemset(c.dout, 0, (size_t)c.sms * 16 * 8));
    void *recbuf = (char *)src + (960ull << 20);   /* past every footprint the copies read */
    void *args[] = {&n, &distinct, &copy, &src, &c.dout, &w.fill, &w.inflight, &w.foot, &w.rec, &recbuf};
    if (cuLaunchKernel(fn, c.sms, 1, 1, threads, 1, 1, w.smem, 0, args, NULL) != CUDA_SUCCESS ||
        fetch(c, 16 * (size_t)c.sms)) {
        c.err = "ck_wgmma_load launch failed";
        return -1;
    }
    std::vector<double> cyc, ghz, bw;
    for (int b = 0; b < c.sms; b++) {
        const u64 *o = &c.hout[(size_t)b * 16];
        if (o[3] != 1 || o[7] != 1)
            continue;
        double t = (double)std::max(o[0], o[4]);
        cyc.push_back(t / (4.0 * n * nwg));
        ghz.push_back(t / (double)std::max(o[1], o[5]));
        if (copy && o[11] == 1)
            bw.push_back((double)o[10] / (double)o[9]);
    }
    if (cyc.empty()) {
        c.err = "ck_wgmma_load: no CTA reported";
        return -1;
    }
    r->cyc = quantile(cyc, 0.5);
    r->ghz = quantile(ghz, 0.5);
    r->copy_bpns = bw.empty() ? 0 : quantile(bw, 0.5);
    return 0;
}

/* The tensor pipe's rate beside the copy thread, by what it does: only spinning on a
 * shared flag (0 copies), 1-8 bulk copies of 12 KiB in flight from L2 (all SMs the same
 * 768 KiB) or from DRAM (each SM its own stretch of 768 MiB), with the launch's dynamic
 * shared memory at 113 KiB (4 copies' room) or 161 KiB; operands integers -2..2. One
 * comment line per shape: cycles per instruction and the copies' B/ns per SM. */
int wl_copies(ctx &c, CUfunction fn, uint32_t n, int iters, void *big)
{
    const int infl[5] = {0, 1, 2, 4, 8};
    const unsigned foots[2] = {64, 65536}, smems[2] = {1024 + 65536 + 4 * 12288, WL_SMEM};
    std::string pts;
    std::vector<double> all;
    for (int si = 0; si < 2; si++)
        for (int fi = 0; fi < 2; fi++)
            for (int k = 0; k < 5; k++) {
                if ((fi && !k) || (si == 0 && infl[k] > 4))
                    continue;
                wl_cond w;
                w.fill = 1, w.inflight = infl[k], w.foot = foots[fi], w.smem = smems[si];
                wl_result r;
                if (wl_run(c, fn, iters, 1, 1, big, &r, w))
                    return -1;
                all.push_back(r.cyc);
                pts += fmt("%s%s %s %d: %.1f (%.0f B/ns)", pts.empty() ? "" : ", ", si ? "161K" : "113K",
                           fi ? "dram" : "l2", infl[k], r.cyc, r.copy_bpns);
            }
    add(c, "wgmma_load", fmt("wgmma_n%u_copies_cycles", n).c_str(), "cycles", false, all,
        fmt("every SM, 2 warpgroups m64n%uk16 bf16 (operands integers -2..2) beside the copy thread, by dynamic shared "
            "memory, source and copies in flight: cycles per instruction on the SM (copies' B/ns per SM): %s",
            n, pts.c_str()));
    return 0;
}

/* The SM clock while every SM's two warpgroups issue m64n256k16 for ~40 ms, by what else
 * draws power: the operands' values and the producer's copies from L2 or DRAM. The
 * parameter is the run with the GEMM's operands (integers -2..2) beside copies of 8 x 12
 * KiB in flight from DRAM (the GEMM's producer keeps up to 96 KiB in flight, and part of
 * its operands come from DRAM). */
int wl_clocks(ctx &c, CUfunction fn, void *big)
{
    struct {
        const char *name, *what;
        int copy;
        wl_cond w;
    } runs[] = {
        {"clock_tensor_zero_ghz", "operands as shared memory held (zeros), no copies", 0, {0, 4, 64}},
        {"clock_tensor_ints_ghz", "operands integers -2..2, no copies", 0, {1, 4, 64}},
        {"clock_tensor_ints_l2_ghz", "operands integers -2..2, copies of 8 x 12 KiB in flight from L2", 1, {1, 8, 64}},
        {"clock_tensor_ghz", "operands integers -2..2, copies of 8 x 12 KiB in flight from DRAM (768 MiB)", 1,
         {1, 8, 65536}},
    };
    for (auto &run : runs) {
        std::vector<double> g, cyc, bw;
        for (int rep = 0; rep < 3; rep++) {
            wl_result l;
            if (wl_run(c, fn, 40000, 1, run.copy, big, &l, run.w))
                return -1;
            g.push_back(l.ghz);
            cyc.push_back(l.cyc);
            bw.push_back(l.copy_bpns);
        }
        add(c, "wgmma_load", run.name, "GHz", false, g,
            fmt("clock64 over globaltimer of %d CTAs, each 2 warpgroups issuing m64n256k16 bf16 from shared memory "
                "for ~40 ms, 3 runs; %s: the SM clock while every tensor pipe is busy (cycles per instruction %.1f; "
                "copies %.0f B/ns per SM)",
                c.sms, run.what, quantile(cyc, 0.5), quantile(bw, 0.5)));
    }
    return 0;
}

/* What one 16-byte store per bulk copy costs the copy thread beside the two warpgroups'
 * wgmma (the GEMM recording's producer store): the copies' B/ns per SM and the tensor
 * pipe's cycles per instruction without a store, with one to global memory and with one to
 * shared memory, 2 and 4 copies in flight from L2. */
int wl_stores(ctx &c, CUfunction fn, uint32_t n, int iters, void *big)
{
    std::string pts;
    for (int infl = 2; infl <= 4; infl += 2)
        for (int rec = 0; rec <= 2; rec++) {
            std::vector<double> bw, cyc;
            for (int rep = 0; rep < 3; rep++) {
                wl_cond w;
                w.fill = 1, w.inflight = infl, w.rec = rec;
                wl_result r;
                if (wl_run(c, fn, iters, 1, 1, big, &r, w))
                    return -1;
                bw.push_back(r.copy_bpns);
                cyc.push_back(r.cyc);
            }
            const double b = quantile(bw, 0.5);
            pts += fmt("%s%d in flight, %s: %.1f B/ns (%.0f ns per copy), %.1f cycles", pts.empty() ? "" : "; ", infl,
                       rec == 0 ? "no store" : rec == 1 ? "global store" : "shared store", b, b > 0 ? 12288.0 / b : 0.0,
                       quantile(cyc, 0.5));
        }
    add1(c, "wgmma_load", fmt("wgmma_n%u_copy_store", n).c_str(), "-", false, 0,
         fmt("every SM, 2 warpgroups m64n%uk16 bf16 (operands -2..2) beside the copy thread reissuing 12 KiB bulk "
             "copies from L2, with one 16-byte store per copy reissued or not: the copies' bytes per ns per SM and the "
             "tensor pipe's cycles per instruction (3 launches, medians): %s",
             n, pts.c_str()));
    return 0;
}

int b_wgmma_load(ctx &c, void *big)
{
    const uint32_t ns[2] = {64, 256};
    for (int ni = 0; ni < 2; ni++) {
        static pipe_desc d;
        memset(&d, 0, sizeof d);
        d.wgmma.n = ns[ni];
        d.wgmma.dtype = WG_BF16;
        d.wgmma.k = wg_k(WG_BF16);
        char *head = NULL;
        err_info e = {};
        if (gemm_gen_wgmma_source(&d, &head, &e) != ERR_OK) {
            c.err = e.detail;
            return -1;
        }
        std::string src = fmt("#define NACC %u\n", ns[ni] / 2) + head + WGMMA_LOAD_BENCH;
        free(head);
        char msg[600];
        CUfunction fn;
        CUmodule mod;
        if (hw_nvrtc_load(src.c_str(), "ck_wgmma_load.cu", NULL, 0, "ck_wgmma_load", &mod, &fn, msg, sizeof msg)) {
            c.err = msg;
            return -1;
        }
        cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, WL_SMEM);
        const int iters = ns[ni] == 64 ? 8192 : 2048;
        wl_result same, dist, cp;
        if (wl_run(c, fn, iters, 0, 0, big, &same) || wl_run(c, fn, iters, 1, 0, big, &dist) ||
            wl_run(c, fn, iters, 1, 1, big, &cp))
            return -1;
        add1(c, "wgmma_load", fmt("wgmma_n%u_2wg_distinct_cycles", ns[ni]).c_str(), "cycles", false, dist.cyc,
             fmt("every SM, 2 warpgroups each reading its own 64 rows of A and the same B (as the GEMM's consumers), "
                 "m64n%uk16 bf16, 4 per group, wait_group(1): cycles per instruction on the SM (the same A: %.1f)",
                 ns[ni], same.cyc));
        add1(c, "wgmma_load", fmt("wgmma_n%u_2wg_copy_cycles", ns[ni]).c_str(), "cycles", false, cp.cyc,
             fmt("the same beside a thread keeping 4 bulk copies of 12 KiB in flight into other shared memory "
                 "(%.0f B/ns per SM written): cycles per instruction on the SM",
                 cp.copy_bpns));
        add1(c, "wgmma_load", fmt("wgmma_n%u_copy_bytes_per_ns_sm", ns[ni]).c_str(), "B/ns", false, cp.copy_bpns,
             "the copy thread's bulk copies beside the two warpgroups: bytes per ns per SM");
        if (wl_copies(c, fn, ns[ni], iters, big) || (ns[ni] == 256 && wl_clocks(c, fn, big)) ||
            wl_stores(c, fn, ns[ni], iters, big))
            return -1;
        cuModuleUnload(mod);
    }
    /* the GPU's TMA read rate from L2 with 4 issuing warps per SM rather than one thread */
    CUtensorMap m;
    if (encode(c, big, 1u << 21, 64, &m))
        return -1;
    CK(cudaFuncSetAttribute(ck_tma_fill<0>, cudaFuncAttributeMaxDynamicSharedMemorySize, 4 * 3 * 16384 + 1024));
    std::vector<double> agg;
    for (int rep = 0; rep < 3; rep++) {
        double a;
        if (fill_run(c, m, c.sms, 500, 3, 512, &a, NULL, 16384, 64, 0, NULL, 4))
            return -1;
        agg.push_back(a);
    }
    add(c, "wgmma_load", "l2_bytes_per_ns_4warps", "B/ns", false, agg,
        fmt("%d CTAs, lane 0 of 4 warps each keeping 3 TMA loads of 16 KiB in flight through an 8 MiB footprint: "
            "bytes per ns of the whole GPU",
            c.sms));
    return 0;
}

/* ---- l2share: L2 reads shared by several SMs (ck_l2_share) ---- */

struct share_res {
    double agg, lat_ns;   /* the GPU's bytes per ns; a step's issue to seen complete, median over CTAs */
};

int share_run(ctx &c, const CUtensorMap &ma, const CUtensorMap &mb, int warps, int stages, ck_share a, ck_share b,
              share_res *r)
{
    const u32 step = a.bytes + b.bytes;
    const int n = (int)std::max(8u, (16u << 20) / ((u32)warps * step));   /* 16 MiB per SM */
    ck_l2_share<<<c.sms, 32 * warps, (size_t)warps * stages * step + 1024>>>(ma, mb, n, stages, a, b, c.dout);
    if (fetch(c, 4 * (size_t)c.sms))
        return -1;
    u64 g0 = ~0ull, g1 = 0;
    std::vector<double> lat;
    for (int k = 0; k < c.sms; k++) {
        g0 = std::min(g0, c.hout[4 * k]);
        g1 = std::max(g1, c.hout[4 * k + 1]);
        lat.push_back((double)c.hout[4 * k + 3] / n / c.ghz);
    }
    r->agg = (double)c.sms * warps * n * step / (double)(g1 - g0);
    r->lat_ns = quantile(lat, 0.5);
    return 0;
}

/* `reps` runs of one configuration: the medians of the rate and of the latency */
int share_point(ctx &c, const CUtensorMap &ma, const CUtensorMap &mb, int warps, int stages, ck_share a, ck_share b,
                int reps, std::vector<double> *rates, double *lat_ns)
{
    std::vector<double> lat;
    for (int rep = 0; rep < reps; rep++) {
        share_res r;
        if (share_run(c, ma, mb, warps, stages, a, b, &r))
            return -1;
        rates->push_back(r.agg);
        lat.push_back(r.lat_ns);
    }
    *lat_ns = quantile(lat, 0.5);
    return 0;
}

/* Operand boxes of `rows` 128-byte rows (128B swizzle, as the GEMM's), a footprint of
 * `foot` bytes, read alike by the CTAs of groups of `share` consecutive CTAs. */
ck_share share_of(const ctx &c, u32 rows, u32 share, size_t foot)
{
    ck_share s = {rows * 128, rows, share, (u32)((c.sms + share - 1) / share), (long long)(foot / (rows * 128))};
    return s;
}

/* The GPU's L2 read rate when groups of G SMs read the same boxes at about the same time
 * (the GEMM's operand tiles: 8 to 16 SMs load each A and B tile of a wave), all data in L2:
 * by G, box bytes and bytes in flight per SM; then the GEMM's own pattern of loads without
 * its math. */
int b_l2share(ctx &c, void *big)
{
    const u32 gs[] = {1, 2, 4, 8, 16, 32, 132}, rows[] = {64, 128, 256};
    const size_t foot = 8u << 20;
    CUtensorMap m[3], mb;
    for (int k = 0; k < 3; k++)
        if (encode_rows(c, big, 32, (512ull << 20) / 128, rows[k], &m[k], CU_TENSOR_MAP_SWIZZLE_128B))
            return -1;
    if (encode_rows(c, (char *)big + (512ull << 20), 32, (512ull << 20) / 128, 256, &mb, CU_TENSOR_MAP_SWIZZLE_128B))
        return -1;
    CK(cudaFuncSetAttribute(ck_l2_share, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024 + 1024));
    const ck_share none = {0, 1, 1, 1, 1};
    share_res warm;
    if (share_run(c, m[1], m[1], 4, 2, share_of(c, 128, 1, foot), none, &warm))
        return -1;
    /* 1: G x box bytes, 4 issuing warps per SM with 128 KiB in flight */
    for (int gi = 0; gi < 7; gi++) {
        std::vector<double> best;
        std::string pts;
        for (int k = 0; k < 3; k++) {
            std::vector<double> r;
            double lat;
            const int stages = (int)std::max(1u, 32u * 1024u / (rows[k] * 128));
            if (share_point(c, m[k], m[k], 4, stages, share_of(c, rows[k], gs[gi], foot), none, 5, &r, &lat))
                return -1;
            pts += fmt("%s%u KiB %.0f (%.0f ns)", k ? ", " : "", rows[k] / 8, quantile(r, 0.5), lat);
            if (best.empty() || quantile(r, 0.5) > quantile(best, 0.5))
                best = r;
        }
        const bool param = gs[gi] <= 32;
        add(c, "l2share", param ? fmt("l2_share_g%u_bytes_per_ns", gs[gi]).c_str() : "l2_share_all_bytes_per_ns", "B/ns",
            param, best,
            fmt("%d CTAs (one per SM), lane 0 of 4 warps each keeping 128 KiB / 4 of TMA loads in flight from an 8 MiB "
                "footprint in L2 (128-byte rows, 128B swizzle), groups of %u consecutive CTAs reading the same boxes in "
                "the same order: bytes per ns of the whole GPU, the most over the box sizes (box: B/ns (a load's issue "
                "to seen complete): %s), 5 launches each",
                c.sms, gs[gi], pts.c_str()));
    }
    /* 2: bytes in flight per SM, 16 KiB boxes, one issuing thread (the GEMM producer's) or 4 warps */
    const u32 gin[] = {1, 8, 16};
    for (int gi = 0; gi < 3; gi++)
        for (int w = 1; w <= 4; w += 3) {
            std::string pts;
            for (int st = 1; st <= (w == 1 ? 12 : 3); st += (st < 4 ? 1 : st < 8 ? 2 : 4)) {
                std::vector<double> r;
                double lat;
                if (share_point(c, m[1], m[1], w, st, share_of(c, 128, gin[gi], foot), none, 3, &r, &lat))
                    return -1;
                pts += fmt("%s%d KiB %.0f (%.0f ns)", pts.empty() ? "" : ", ", 16 * w * st, quantile(r, 0.5), lat);
            }
            add1(c, "l2share", fmt("l2_share_inflight_g%u_w%d", gin[gi], w).c_str(), "-", false, 0,
                 fmt("groups of %u CTAs reading the same 16 KiB boxes, lane 0 of %d warp%s per SM: bytes per ns of the "
                     "whole GPU by bytes in flight per SM (a load's issue to seen complete): %s",
                     gin[gi], w, w > 1 ? "s" : "", pts.c_str()));
        }
    /* 3: the GEMM's loads without its math: one thread, stages of an A box (16 KiB, shared by
     * the CTAs of one M row of a group of 8: every 8th CTA) and a B box (32 KiB, shared by 8
     * consecutive CTAs); the same with no CTA sharing a box */
    for (int shared = 1; shared >= 0; shared--) {
        std::string pts;
        std::vector<double> per_stage;
        for (int st = 2; st <= 4; st++) {   /* 4 x 48 KiB: the most shared memory takes */
            ck_share a = {16384, 128, 1, shared ? 8u : (u32)c.sms, (long long)((8u << 20) / 16384)};
            ck_share b = {32768, 256, shared ? 8u : 1u, shared ? (u32)((c.sms + 7) / 8) : (u32)c.sms,
                          (long long)((16u << 20) / 32768)};
            std::vector<double> r;
            double lat;
            if (share_point(c, m[1], mb, 1, st, a, b, 3, &r, &lat))
                return -1;
            pts += fmt("%s%d stages %.0f (%.0f ns)", pts.empty() ? "" : ", ", st, quantile(r, 0.5), lat);
            per_stage.push_back(c.sms * 49152.0 / quantile(r, 0.5));
        }
        if (shared && c.tma_sm > 0)
            add1(c, "l2share", "gemm_step_ns", "ns", true, quantile(per_stage, 0.5) - 49152.0 / c.tma_sm,
                 fmt("the GEMM's loads below with 2-4 stages in flight: %.1f ns per stage (median), whatever is in "
                     "flight: one thread's stages complete one after another; less the stage's 48 KiB at "
                     "tma_bytes_per_ns_sm (%.1f B/ns, tma_fill)",
                     quantile(per_stage, 0.5), c.tma_sm));
        add1(c, "l2share", shared ? "l2_share_gemm_pattern" : "l2_share_gemm_unshared", "-", false, 0,
             fmt("one thread per SM loading stages of an A box of 16 KiB and a B box of 32 KiB on one barrier from "
                 "24 MiB in L2, %s: bytes per ns of the whole GPU by stages in flight (a stage's issue to seen "
                 "complete): %s",
                 shared ? "A shared by every 8th CTA, B by 8 consecutive CTAs (the 8192^3 GEMM's group_m 8 walk)"
                        : "no two CTAs reading the same box",
                 pts.c_str()));
    }
    return 0;
}

/* The GEMM producer's chain of stages by the stage's size: one thread per SM loading stages
 * of an A box (64 or 128 rows of 128 bytes, shared by every 8th CTA) and a B box (32 to 256
 * rows, shared by 8 consecutive CTAs) on one barrier from L2, as the persistent GEMM's
 * group_m 8 walk loads them, with 1 to 4 stages in flight. Per stage: the time per stage of
 * one SM (the GPU's bytes per ns over the SMs) and a stage's issue to seen complete. The
 * least-squares line of the time per stage over the stage's bytes (2-4 in flight) and of a
 * lone stage's issue to complete (1 in flight). */
int b_gemm_chain(ctx &c, void *big)
{
    const u32 pairs[][2] = {{64, 32}, {64, 64}, {128, 64}, {64, 128}, {128, 128}, {64, 256}, {128, 256}};
    const u32 brows[] = {32, 64, 128, 256};
    CUtensorMap ma[2], mb[4];
    for (int k = 0; k < 2; k++)
        if (encode_rows(c, big, 32, (512ull << 20) / 128, 64u << k, &ma[k], CU_TENSOR_MAP_SWIZZLE_128B))
            return -1;
    for (int k = 0; k < 4; k++)
        if (encode_rows(c, (char *)big + (512ull << 20), 32, (512ull << 20) / 128, brows[k], &mb[k],
                        CU_TENSOR_MAP_SWIZZLE_128B))
            return -1;
    CK(cudaFuncSetAttribute(ck_l2_share, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024 + 1024));
    double sx = 0, sy = 0, sxx = 0, sxy = 0, n = 0, lx = 0, ly = 0, lxx = 0, lxy = 0, ln = 0;
    for (const auto &pr : pairs) {
        const u32 arows = pr[0], b_rows = pr[1], bytes = 128 * (arows + b_rows);
        const int ai = arows == 64 ? 0 : 1, bi = b_rows == 32 ? 0 : b_rows == 64 ? 1 : b_rows == 128 ? 2 : 3;
        std::string pts;
        for (int st = 1; st <= 4; st++) {
            ck_share a = {arows * 128, arows, 1, 8u, (long long)((8u << 20) / (arows * 128))};
            ck_share b = {b_rows * 128, b_rows, 8u, (u32)((c.sms + 7) / 8), (long long)((16u << 20) / (b_rows * 128))};
            std::vector<double> r;
            double lat;
            if (share_point(c, ma[ai], mb[bi], 1, st, a, b, 3, &r, &lat))
                return -1;
            const double per = c.sms * (double)bytes / quantile(r, 0.5);
            pts += fmt("%s%d: %.0f ns/stage, %.0f ns issue to complete", pts.empty() ? "" : "; ", st, per, lat);
            if (st == 1) {
                lx += bytes, ly += lat, lxx += (double)bytes * bytes, lxy += bytes * lat, ln++;
            } else {
                sx += bytes, sy += per, sxx += (double)bytes * bytes, sxy += bytes * per, n++;
            }
        }
        add1(c, "gemm_chain", fmt("gemm_chain_a%u_b%u", arows, b_rows).c_str(), "-", false, 0,
             fmt("stages of %u KiB (A %u rows, B %u rows), by stages in flight: %s", bytes / 1024, arows, b_rows,
                 pts.c_str()));
    }
    const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx), icpt = (sy - slope * sx) / n;
    const double lslope = (ln * lxy - lx * ly) / (ln * lxx - lx * lx), licpt = (ly - lslope * lx) / ln;
    add1(c, "gemm_chain", "gemm_chain_step_ns", "ns", false, icpt,
         fmt("time per stage of one SM with 2-4 stages in flight over the stage's bytes (7 sizes, 12-48 KiB): "
             "intercept; slope %.3f ns per KiB (%.1f B/ns)", slope * 1024, 1 / slope));
    add1(c, "gemm_chain", "gemm_chain_bytes_per_ns", "B/ns", false, 1 / slope, "the same line's bytes per ns");
    add1(c, "gemm_chain", "gemm_chain_lone_ns", "ns", false, licpt,
         fmt("a lone stage's issue to complete (1 in flight, every SM) over its bytes: intercept; slope %.3f ns per KiB "
             "(%.1f B/ns)", lslope * 1024, 1 / lslope));
    /* the same loads split as the GEMM kernel splits them (ck_gemm_loads: a producer thread
     * waiting on empty barriers, a consumer thread on full ones), maps with the GEMM's 256-byte
     * L2 promotion: time per stage of one SM by stages in the ring */
    CUtensorMap pa[2], pb[4];
    for (int k = 0; k < 2; k++)
        if (encode_rows(c, big, 32, (512ull << 20) / 128, 64u << k, &pa[k], CU_TENSOR_MAP_SWIZZLE_128B,
                        CU_TENSOR_MAP_L2_PROMOTION_L2_256B))
            return -1;
    for (int k = 0; k < 4; k++)
        if (encode_rows(c, (char *)big + (512ull << 20), 32, (512ull << 20) / 128, brows[k], &pb[k],
                        CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B))
            return -1;
    CK(cudaFuncSetAttribute(ck_gemm_loads<0>, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024 + 1024));
    CK(cudaFuncSetAttribute(ck_gemm_loads<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024 + 1024));
    for (int pre = 0; pre < 2; pre++)
    for (const auto &pr : pairs) {
        const u32 arows = pr[0], b_rows = pr[1], bytes = 128 * (arows + b_rows);
        const int ai = arows == 64 ? 0 : 1, bi = b_rows == 32 ? 0 : b_rows == 64 ? 1 : b_rows == 128 ? 2 : 3;
        ck_share a = {arows * 128, arows, 1, 8u, (long long)((8u << 20) / (arows * 128))};
        ck_share b = {b_rows * 128, b_rows, 8u, (u32)((c.sms + 7) / 8), (long long)((16u << 20) / (b_rows * 128))};
        const int n = (int)std::max(64u, (16u << 20) / bytes);
        std::string pts;
        for (int st = 1; st <= 8; st *= 2) {
            if ((size_t)st * bytes > 200u * 1024u)
                break;
            std::vector<double> per;
            for (int rep = 0; rep < 3; rep++) {
                if (pre)
                    ck_gemm_loads<1><<<c.sms, 64, (size_t)st * bytes + 1024>>>(pa[ai], pb[bi], n, st, a, b, c.dout);
                else
                    ck_gemm_loads<0><<<c.sms, 64, (size_t)st * bytes + 1024>>>(pa[ai], pb[bi], n, st, a, b, c.dout);
                if (fetch(c, 2 * (size_t)c.sms))
                    return -1;
                u64 g0 = ~0ull, g1 = 0;
                for (int k = 0; k < c.sms; k++) {
                    g0 = std::min(g0, c.hout[2 * k]);
                    g1 = std::max(g1, c.hout[2 * k + 1]);
                }
                per.push_back((double)(g1 - g0) / n);
            }
            pts += fmt("%s%d: %.0f", pts.empty() ? "" : ", ", st, quantile(per, 0.5));
        }
        add1(c, "gemm_chain", fmt("gemm_loads%s_a%u_b%u", pre ? "_prefetch" : "", arows, b_rows).c_str(), "-", false, 0,
             fmt("stages of %u KiB loaded as the GEMM kernel loads them (producer and consumer threads, 256-byte L2 "
                 "promotion%s): ns per stage of one SM by stages in the ring: %s", bytes / 1024,
                 pre ? ", tensor maps prefetched" : "", pts.c_str()));
    }
    return 0;
}

/* A K-major operand as the GEMM's maps lay it out (rows of k_bytes, a box of 128 bytes of K
 * by `rows` rows, 128B swizzle, 256-byte L2 promotion), or contiguous: rows of 128 bytes
 * one after another (each box its own run, the layout of l2share and gemm_chain). */
static int walk_map(ctx &c, void *g, uint32_t k_bytes, uint64_t rows, uint32_t box_rows, bool contig, CUtensorMap *m)
{
    if (contig)
        return encode_pitched(c, g, 32, rows * (k_bytes / 128u), 128, 32, box_rows, m, CU_TENSOR_MAP_SWIZZLE_128B,
                              CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
    return encode_pitched(c, g, k_bytes / 4u, rows, k_bytes, 32, box_rows, m, CU_TENSOR_MAP_SWIZZLE_128B,
                          CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
}

struct walk_cfg {
    const char *name;
    uint32_t k_bytes, m, n, arows, brows;
    int stages, grid;
    bool contig;
    int rec;
    uint32_t lag;
};

/* One configuration, 3 launches: the median over CTAs of a CTA's ns per stage (its first
 * load to its last stage seen complete over its stages), the median over launches. */
static int walk_point(ctx &c, void *big, uint4 *rec, const walk_cfg &k, double *ns_stage, double *gpu_bytes_ns,
                      int *working)
{
    CUtensorMap ma, mb;
    if (walk_map(c, big, k.k_bytes, k.m, k.arows, k.contig, &ma) ||
        walk_map(c, (char *)big + (512ull << 20), k.k_bytes, k.n, k.brows, k.contig, &mb))
        return -1;
    ck_walk w = {0, k.n / k.brows, k.k_bytes / 128u, 32, k.arows, k.brows, k.arows * 128u, k.brows * 128u,
                 k.contig ? 1u : 0u, k.lag};
    w.tiles = std::min((k.m / k.arows) * w.ntiles, 2u * (u32)k.grid);
    const size_t smem = (size_t)k.stages * (w.a_bytes + w.b_bytes) + 1024;
    std::vector<double> per, agg;
    for (int rep = 0; rep < 3; rep++) {
        switch (k.rec) {
        case 1: ck_gemm_walk<1><<<k.grid, 64, smem>>>(ma, mb, w, k.stages, c.dout, rec); break;
        case 2: ck_gemm_walk<2><<<k.grid, 64, smem>>>(ma, mb, w, k.stages, c.dout, rec); break;
        case 3: ck_gemm_walk<3><<<k.grid, 64, smem>>>(ma, mb, w, k.stages, c.dout, rec); break;
        case 4: ck_gemm_walk<4><<<k.grid, 64, smem>>>(ma, mb, w, k.stages, c.dout, rec); break;
        default: ck_gemm_walk<0><<<k.grid, 64, smem>>>(ma, mb, w, k.stages, c.dout, rec);
        }
        if (fetch(c, 3 * (size_t)k.grid))
            return -1;
        std::vector<double> cta;
        u64 g0 = ~0ull, g1 = 0, stages = 0;
        *working = 0;
        for (int b = 0; b < k.grid; b++) {
            const u64 *o = &c.hout[3 * (size_t)b];
            g0 = std::min(g0, o[0]);
            g1 = std::max(g1, o[1]);
            stages += o[2];
            if (o[2]) {
                cta.push_back((double)(o[1] - o[0]) / (double)o[2]);
                (*working)++;
            }
        }
        per.push_back(quantile(cta, 0.5));
        agg.push_back((double)stages * (w.a_bytes + w.b_bytes) / (double)(g1 - g0));
    }
    *ns_stage = quantile(per, 0.5);
    *gpu_bytes_ns = quantile(agg, 0.5);
    return 0;
}

/* The generated GEMM's producer with its loads only (ck_gemm_walk): the time per stage of one
 * SM by the stage's bytes, the SMs loading, the operands' layout (the GEMM's K-major rows or
 * contiguous boxes, as l2share and gemm_chain load them) and a 16-byte record per stage. */
int b_gemm_walk(ctx &c, void *big)
{
    CK(cudaFuncSetAttribute(ck_gemm_walk<0>, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024 + 1024));
    CK(cudaFuncSetAttribute(ck_gemm_walk<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024 + 1024));
    CK(cudaFuncSetAttribute(ck_gemm_walk<2>, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024 + 1024));
    CK(cudaFuncSetAttribute(ck_gemm_walk<3>, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024 + 1024));
    CK(cudaFuncSetAttribute(ck_gemm_walk<4>, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024 + 1024));
    uint4 *rec = NULL;
    CK(cudaMalloc(&rec, (size_t)c.sms * 4096 * sizeof(uint4)));
    std::vector<walk_cfg> cfgs = {
        {"corpus_0038", 25728, 1024, 288, 128, 32, 8, c.sms, false, 0, 0},
        {"corpus_0038_contig", 25728, 1024, 288, 128, 32, 8, c.sms, true, 0, 0},
        {"corpus_0038_rec", 25728, 1024, 288, 128, 32, 8, c.sms, false, 1, 0},
        {"corpus_0038_clocks", 25728, 1024, 288, 128, 32, 8, c.sms, false, 2, 0},
        {"corpus_0038_store", 25728, 1024, 288, 128, 32, 8, c.sms, false, 3, 0},
        {"corpus_0038_smem_rec", 25728, 1024, 288, 128, 32, 8, c.sms, false, 4, 0},
        {"corpus_0038_lag3", 25728, 1024, 288, 128, 32, 8, c.sms, false, 0, 3},
        {"corpus_0035", 1920, 2048, 800, 64, 32, 8, c.sms, false, 0, 0},
        {"corpus_0035_lag2", 1920, 2048, 800, 64, 32, 8, c.sms, false, 0, 2},
        {"corpus_0014", 16384, 512, 6336, 128, 32, 6, c.sms, false, 0, 0},
        {"corpus_0014_lag1", 16384, 512, 6336, 128, 32, 6, c.sms, false, 0, 1},
    };
    /* the stage's bytes by the SMs loading, then the ring's depth (a lone stage: its latency
     * under the others' loads) */
    const uint32_t pairs[][2] = {{64, 32}, {128, 32}, {128, 64}, {128, 128}, {128, 256}};
    const int grids[] = {c.sms, c.sms / 2, 16, 1};
    for (const auto &pr : pairs)
        for (int g : grids)
            for (int contig = 0; contig < (g == c.sms ? 2 : 1); contig++) {
                const int stages = (int)std::min(8u, 196608u / (128u * (pr[0] + pr[1])));
                cfgs.push_back({"sweep", 16384, 8192, 8192, pr[0], pr[1], stages, g, contig != 0, 0, 0});
            }
    for (const auto &pr : pairs)
        for (int g : {c.sms, 16})
            for (int st = 1; st <= 8 && st * 128u * (pr[0] + pr[1]) <= 196608u; st++)
                cfgs.push_back({"ring", 16384, 8192, 8192, pr[0], pr[1], st, g, false, 0, 0});
    for (const auto &k : cfgs) {
        double ns = 0, agg = 0;
        int working = 0;
        if (walk_point(c, big, rec, k, &ns, &agg, &working)) {
            cudaFree(rec);
            return -1;
        }
        const u32 bytes = 128u * (k.arows + k.brows);
        add1(c, "gemm_walk",
             fmt("gemm_walk_%s_a%u_b%u_g%d_s%d%s%s", k.name, k.arows, k.brows, k.grid, k.stages,
                 k.contig ? "_contig" : "", "")
                 .c_str(),
             "ns", false, ns,
             fmt("%d CTAs (%d loading), %u KiB stages (A %u rows, B %u rows of %s), %d in the ring, released %u "
                 "stages late, K %u bytes, %s: ns per stage of one SM (median CTA, 3 launches); the GPU's %.0f B/ns "
                 "(%.1f per loading SM)",
                 k.grid, working, bytes / 1024, k.arows, k.brows,
                 k.contig ? "128 B one after another" : "128 B of K-major rows", k.stages, k.lag, k.k_bytes,
                 k.rec == 1   ? "a clocked 16-byte record per stage to global memory"
                 : k.rec == 2 ? "the record's two clock reads alone"
                 : k.rec == 3 ? "a 16-byte record without clocks to global memory"
                 : k.rec == 4 ? "a clocked 16-byte record per stage to shared memory"
                              : "no record", agg, working ? agg / working : 0.0));
    }
    cudaFree(rec);
    return 0;
}

/* How far apart the warps one phase wakes return: per round, (last return - first) / (waiters
 * - 1), at 2, 4, 8, 16 and 31 waiting warps; the parameter pools every round. */
static int b_wake_spread(ctx &c)
{
    const int rounds = 64, waiters[5] = {2, 4, 8, 16, 31};
    std::vector<double> all;
    std::string pts;
    for (int wi = 0; wi < 5; wi++) {
        const int n = waiters[wi];
        std::vector<double> sp, first;
        size_t pairs = 0, lower = 0;
        for (int rep = 0; rep < 3; rep++) {
            ck_wake_spread<<<1, (n + 1) * 32>>>(c.dout, rounds);
            if (fetch(c, (size_t)rounds * 32))
                return -1;
            for (int r = 1; r < rounds; r++) {
                const u64 *t = &c.hout[(size_t)r * 32];
                u64 lo = ~0ull, hi = 0;
                for (int w = 1; w <= n; w++) {
                    lo = std::min(lo, t[w]);
                    hi = std::max(hi, t[w]);
                    for (int v = w + 1; v <= n; v++)
                        if (t[w] != t[v]) {
                            pairs++;
                            lower += t[w] < t[v];
                        }
                }
                sp.push_back((double)(hi - lo) / (n - 1) / c.ghz);
                first.push_back((double)(lo - t[0]) / c.ghz);
            }
        }
        all.insert(all.end(), sp.begin(), sp.end());
        pts += fmt("%s%d: %.1f [%.1f..%.1f] (first %.0f ns after the arrive, lower warp first in %.0f%% of pairs)",
                   pts.empty() ? "" : "; ", n, quantile(sp, 0.5), quantile(sp, 0.1), quantile(sp, 0.9),
                   quantile(first, 0.5), pairs ? 100.0 * (double)lower / (double)pairs : 0.0);
    }
    add(c, "mbarrier", "wake_stagger_ns", "ns", true, all,
        fmt("warps 1..N of one CTA waiting with all lanes (try_wait) on one barrier that warp 0 completes, "
            "(last return - first) / (N - 1) per round, 63 rounds x 3 launches per N; by N: %s",
            pts.c_str()));
    return 0;
}

/* mbarrier arrive, expect_tx, the warp-to-warp hand-off, then the spacing of the waiters one
 * phase wakes (b_wake_spread). */
int b_mbar(ctx &c)
{
    std::vector<double> st, plain, ex, hand;
    for (int rep = 0; rep < 9; rep++) {
        ck_mbar<<<1, 64>>>(c.dout, c.dsink);
        if (fetch(c, 4))
            return -1;
        st.push_back((double)c.hout[0] / 256 / c.ghz);
        plain.push_back((double)c.hout[1] / 256 / c.ghz);
        ex.push_back((double)c.hout[2] / 256 / c.ghz);
        hand.push_back((double)c.hout[3] / 256 / c.ghz);
    }
    add(c, "mbarrier", "arrive_ns", "ns", true, st,
        "lane 0, 256 local mbarrier.arrive reading the returned state (pending_count: the generated kernel's "
        "over-arrival check), 9 launches");
    add(c, "mbarrier", "arrive_plain_ns", "ns", false, plain, "the same arrives without a result");
    add(c, "mbarrier", "expect_tx_alone_ns", "ns", false, ex,
        "lane 0, 256 mbarrier.arrive.expect_tx (16 B), 9 launches (the simulator's expect_tx_ns is the generated "
        "producer's time from its expect_tx to its first copy, which the traces give)");
    add(c, "mbarrier", "handoff_ns", "ns", false, hand,
        "two warps' lanes 0 in ping-pong, arrive on the other's barrier then try_wait on one's own: one hand-off");
    std::vector<double> wake;
    for (size_t i = 0; i < hand.size(); i++)
        wake.push_back(hand[i] - plain[i]);
    add(c, "mbarrier", "wake_ns", "ns", true, wake,
        "the ping-pong's hand-off less an arrive without a result: phase completion to the waiting warp running");
    return b_wake_spread(c);
}

int b_cpasync(ctx &c, void *big, size_t big_bytes)
{
    const int warps[6] = {1, 2, 4, 8, 16, 24};
    CK(cudaFuncSetAttribute(ck_cpasync, cudaFuncAttributeMaxDynamicSharedMemorySize, 24 * 8192));
    for (int src = 0; src < 2; src++) {
        const unsigned long long foot = src ? big_bytes : 16ull << 20;
        double best = 0, issue1 = 0;
        std::string pts;
        for (int k = 0; k < 6; k++) {
            ck_cpasync<<<c.sms, 32 * warps[k], warps[k] * 8192>>>((const unsigned char *)big, 256, foot, c.dout);
            if (fetch(c, (size_t)c.sms * 64 + 2 * (size_t)c.sms))
                return -1;
            std::vector<double> per, iss;
            u64 g0 = ~0ull, g1 = 0;
            for (int b = 0; b < c.sms; b++) {
                u64 a = c.hout[c.sms * 64 + 2 * b], e = c.hout[c.sms * 64 + 2 * b + 1];
                g0 = std::min(g0, a), g1 = std::max(g1, e);
                per.push_back((double)warps[k] * 256 * 4096 / (double)(e - a));
                for (int w = 0; w < warps[k]; w++)
                    iss.push_back((double)c.hout[(b * 32 + w) * 2] / 8);
            }
            double r = quantile(per, 0.5), agg = (double)c.sms * warps[k] * 256 * 4096 / (double)(g1 - g0);
            if (k == 0)
                issue1 = quantile(iss, 0.5);
            best = std::max(best, r);
            pts += fmt("%s%d warps %.0f (GPU %.0f)", k ? ", " : "", warps[k], r, agg);
        }
        add1(c, "cpasync", src ? "ldgsts_dram_bytes_per_ns_sm" : "ldgsts_bytes_per_ns_sm", "B/ns", !src, best,
             fmt("cp.async.cg 16 B per lane, batches of 8 per warp with commit / wait_group 1, one CTA per SM, data "
                 "%s: the most bytes per ns per SM over warps per SM (per SM, B/ns: %s)",
                 src ? "from DRAM (1 GiB footprint)" : "in L2 (16 MiB footprint)", pts.c_str()));
        if (!src)
            add1(c, "cpasync", "ldgsts_issue_clean_cycles", "cycles", false, issue1,
                 "one warp per SM: cycles per cp.async of the first batch, addresses in registers");
    }
    return 0;
}

int b_store(ctx &c, void *big)
{
    CUtensorMap m;
    if (encode(c, big, 1u << 21, 16, &m))
        return -1;
    for (int op = 0; op < 2; op++) {
        std::vector<double> rd, full;
        for (int rep = 0; rep < 3; rep++) {
            ck_store<<<1, 32, 4096 + 1024>>>(m, 32, op, 16, c.dout);
            if (fetch(c, 64))
                return -1;
            for (int i = 2; i < 64; i++)
                (i & 1 ? full : rd).push_back((double)c.hout[i] / c.ghz);
        }
        const char *what = op ? "cp.reduce.async.bulk.tensor .add (f32)" : "cp.async.bulk.tensor store";
        add(c, "store", op ? "reduce_latency_ns" : "store_latency_ns", "ns", true, full,
            fmt("one thread, a 4 KiB box (64 f32 x 16 rows) by %s: issue, commit, wait_group 0 (writes done)", what));
        add(c, "store", op ? "reduce_read_ns" : "store_read_ns", "ns", false, rd,
            fmt("the same with wait_group.read 0 (shared memory read out: the generated kernel's wait)"));
    }
    return 0;
}

int b_barsync(ctx &c)
{
    const int warps[4] = {4, 8, 16, 32};
    std::vector<double> all;
    std::string pts;
    for (int k = 0; k < 4; k++) {
        ck_barsync<<<c.sms, 32 * warps[k]>>>(c.dout);
        if (fetch(c, (size_t)c.sms))
            return -1;
        std::vector<double> s;
        for (int b = 0; b < c.sms; b++)
            s.push_back((double)c.hout[b] / 256 / c.ghz);
        double v = quantile(s, 0.5);
        all.push_back(v);
        pts += fmt("%s%d warps %.1f", k ? ", " : "", warps[k], v);
    }
    add(c, "barsync", "barsync_ns", "ns", true, all,
        fmt("256 bar.sync of every warp of a CTA, one CTA per SM: ns per barrier, median over CTA sizes (%s)",
            pts.c_str()));
    return 0;
}

int b_cluster(ctx &c)
{
    std::vector<double> ra, hand;
    for (int rep = 0; rep < 9; rep++) {
        cudaLaunchConfig_t cfg = {};
        cudaLaunchAttribute at[1];
        at[0].id = cudaLaunchAttributeClusterDimension;
        at[0].val.clusterDim.x = 2, at[0].val.clusterDim.y = 1, at[0].val.clusterDim.z = 1;
        cfg.gridDim = dim3(2), cfg.blockDim = dim3(32), cfg.attrs = at, cfg.numAttrs = 1;
        CK(cudaLaunchKernelEx(&cfg, ck_cluster, c.dout));
        if (fetch(c, 2))
            return -1;
        ra.push_back((double)c.hout[0] / 64 / c.ghz);
        hand.push_back((double)c.hout[1] / 256 / c.ghz);
    }
    add(c, "cluster", "remote_arrive_alone_ns", "ns", true, ra,
        "cluster of 2, lane 0: 64 mbarrier.arrive.release.cluster on the peer CTA's barrier, warp time each, 9 "
        "launches (the st.async producer's expect_tx after a wait for its stage; its remote_arrive_ns right after "
        "its st.async stores is the generated producer's, which the traces give)");
    double wake = 0;
    for (const entry &e : c.out)
        if (e.param == "wake_ns")
            wake = e.value;
    std::vector<double> d;
    for (double h : hand)
        d.push_back(h - wake);
    add(c, "cluster", "dsmem_latency_ns", "ns", true, d,
        fmt("ping-pong of remote arrives between the two CTAs' lanes 0 (hand-off p50 %.0f ns) less wake_ns "
            "(%.0f): a remote arrive's issue to its phase completing on the peer",
            quantile(hand, 0.5), wake));
    return 0;
}

/* A release on every rank of a cluster after a cluster barrier, three ways: all ranks at once
 * in the generated kernel's order (every rank arrives on rank 0 first, then 1, ...), all at
 * once rotated (rank r on r, r + 1, ...), and the kernel's order with rank r starting r x 4000
 * cycles after the barrier (one rank at a time). Per rank, the median of each arrive's warp
 * time by its place in the sequence and of the whole sequence. Measurements, not parameters. */
static int b_remote_order(ctx &c)
{
    const int sizes[] = {2, 4, 8};
    const u32 rounds = 64, apart_cycles = 4000;
    for (int ci = 0; ci < 3; ci++)
        for (int rot = 0; rot < 3; rot++) {
            const int cs = sizes[ci];
            const u32 apart = rot == 2 ? apart_cycles : 0;
            std::vector<std::vector<double>> step((size_t)cs * cs), total((size_t)cs);
            for (int rep = 0; rep < 3; rep++) {
                cudaLaunchConfig_t cfg = {};
                cudaLaunchAttribute at[1];
                at[0].id = cudaLaunchAttributeClusterDimension;
                at[0].val.clusterDim.x = (unsigned)cs, at[0].val.clusterDim.y = 1, at[0].val.clusterDim.z = 1;
                cfg.gridDim = dim3((unsigned)cs), cfg.blockDim = dim3(32u), cfg.attrs = at, cfg.numAttrs = 1;
                CK(cudaLaunchKernelEx(&cfg, ck_remote_order, c.dout, rounds, rot == 1, apart));
                if (fetch(c, (size_t)rounds * cs * 9))
                    return -1;
                for (u32 i = 1; i < rounds; i++)
                    for (int r = 0; r < cs; r++) {
                        const u64 *o = &c.hout[((size_t)i * cs + r) * 9];
                        for (int k = 0; k < cs; k++)
                            step[(size_t)r * cs + k].push_back((double)(o[k + 1] - o[k]) / c.ghz);
                        total[(size_t)r].push_back((double)(o[cs] - o[0]) / c.ghz);
                    }
            }
            std::string pts;
            std::vector<double> all;
            for (int r = 0; r < cs; r++) {
                pts += fmt("%srank %d: %.0f (", r ? "; " : "", r, quantile(total[(size_t)r], 0.5));
                for (int k = 0; k < cs; k++)
                    pts += fmt("%s%.0f", k ? " " : "", quantile(step[(size_t)r * cs + k], 0.5));
                pts += ")";
                all.insert(all.end(), total[(size_t)r].begin(), total[(size_t)r].end());
            }
            const char *name[3] = {"in_order", "rotated", "in_order_apart"};
            const char *how[3] = {"on rank 0 first, then 1, ... as the generated kernel", "starting at its own rank",
                                  "on rank 0 first, then 1, ..., rank r starting r x 4000 cycles after the barrier"};
            add(c, "remote", fmt("remote_order_%s_c%d_ns", name[rot], cs).c_str(), "ns", false, all,
                fmt("one cluster of %d, one CTA per SM, lane 0 of each rank after a cluster barrier: an arrive on every "
                    "rank's barrier (its own local, the others mbarrier.arrive.release.cluster) %s, %u rounds x 3; "
                    "the whole sequence's warp time per rank (each arrive's in order): %s",
                    cs, how[rot], rounds - 1, pts.c_str()));
        }
    return 0;
}

/* Remote arrives of several warps of one SM at once (clusters of 2, 4 and 8 CTAs, one CTA
 * per SM, 1-16 warps each): a warp's time per arrive, and from the most warps the SM's time
 * per arrive when its warps keep it busy; then the releases on every rank (b_remote_order). */
int b_remote_many(ctx &c)
{
    const int sizes[] = {2, 4, 8}, warps[] = {1, 2, 4, 8, 16};
    const u32 rounds = 32;
    std::vector<double> alone, sm_time;
    std::string pts;
    for (int ci = 0; ci < 3; ci++)
        for (int wi = 0; wi < 5; wi++) {
            const int cs = sizes[ci], w = warps[wi];
            std::vector<double> per;
            for (int rep = 0; rep < 3; rep++) {
                cudaLaunchConfig_t cfg = {};
                cudaLaunchAttribute at[1];
                at[0].id = cudaLaunchAttributeClusterDimension;
                at[0].val.clusterDim.x = (unsigned)cs, at[0].val.clusterDim.y = 1, at[0].val.clusterDim.z = 1;
                cfg.gridDim = dim3((unsigned)cs), cfg.blockDim = dim3(32u * (unsigned)w), cfg.attrs = at, cfg.numAttrs = 1;
                CK(cudaLaunchKernelEx(&cfg, ck_remote_many, c.dout, rounds));
                if (fetch(c, (size_t)cs * 32))
                    return -1;
                for (int b = 0; b < cs; b++)
                    for (int k = 0; k < w; k++)
                        per.push_back((double)c.hout[(size_t)b * 32 + (size_t)k] / c.ghz);
            }
            const double v = quantile(per, 0.5);
            if (w == 1)
                alone.insert(alone.end(), per.begin(), per.end());
            if (w == 16)
                sm_time.push_back(v / w);
            pts += fmt("%s%d/%d %.0f", pts.empty() ? "" : ", ", cs, w, v);
        }
    add(c, "remote", "remote_arrive_ranks_ns", "ns", false, alone,
        fmt("clusters of 2, 4, 8 CTAs, one CTA per SM, lane 0 of one warp per CTA: %u rounds of "
            "mbarrier.arrive.release.cluster on every other rank's barrier, warp time per arrive (cluster size/warps "
            "per CTA: ns per arrive per warp: %s)",
            rounds, pts.c_str()));
    add(c, "remote", "remote_arrive_sm_busy_ns", "ns", false, sm_time,
        "the same with 16 warps per CTA arriving at once: warp time per arrive / 16, the SM's time per remote "
        "arrive while its warps keep it busy (one value per cluster size). Measurements, not parameters: the "
        "simulator's remote_arrive_ns is what a release costs inside the generated kernels");
    return b_remote_order(c);
}

/* What the SMs receive from cluster peers (ck_cluster_rx): clusters of 2, 4 and 8 at 1, 2, 4
 * and 8 CTAs per SM (the CTA's shared memory sized so that no more fit), as many whole
 * clusters as are resident at once; every rank each round sends every rank one remote arrive,
 * or one multicast slice of 256 bytes, and waits for the round's own. Per configuration the
 * median CTA's ns per round, and that over the messages an SM receives per round (CTAs per
 * SM x cluster size). Measurements, not parameters. */
static int b_cluster_rx(ctx &c, void *big)
{
    const int sizes[] = {2, 4, 8}, pers[] = {1, 2, 4, 8};
    const u32 rounds = 512, slice = 256;
    CK(cudaFuncSetAttribute(ck_cluster_rx<0>, cudaFuncAttributeMaxDynamicSharedMemorySize, 220 * 1024));
    CK(cudaFuncSetAttribute(ck_cluster_rx<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, 220 * 1024));
    CK(cudaFuncSetAttribute(ck_cluster_rx<0>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    CK(cudaFuncSetAttribute(ck_cluster_rx<1>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    for (int kind = 0; kind < 2; kind++)
        for (int cs : sizes) {
            std::string pts;
            for (int per : pers) {
                const size_t smem = (size_t)(220 * 1024) / (size_t)per - 2048;
                cudaLaunchConfig_t cfg = {};
                cudaLaunchAttribute at[1];
                at[0].id = cudaLaunchAttributeClusterDimension;
                at[0].val.clusterDim.x = (unsigned)cs, at[0].val.clusterDim.y = 1, at[0].val.clusterDim.z = 1;
                cfg.blockDim = dim3(32u), cfg.dynamicSmemBytes = smem, cfg.attrs = at, cfg.numAttrs = 1;
                cfg.gridDim = dim3((unsigned)cs);
                int clusters = 0;
                CK(cudaOccupancyMaxActiveClusters(&clusters, kind ? (void *)ck_cluster_rx<1> : (void *)ck_cluster_rx<0>,
                                                  &cfg));
                if (clusters < 1)
                    continue;
                cfg.gridDim = dim3((unsigned)(clusters * cs));
                std::vector<double> round;
                for (int rep = 0; rep < 3; rep++) {
                    if (kind)
                        CK(cudaLaunchKernelEx(&cfg, ck_cluster_rx<1>, c.dout, rounds, slice, (const unsigned char *)big));
                    else
                        CK(cudaLaunchKernelEx(&cfg, ck_cluster_rx<0>, c.dout, rounds, slice, (const unsigned char *)big));
                    if (fetch(c, 2 * (size_t)clusters * cs))
                        return -1;
                    std::vector<double> cta;
                    for (int b = 0; b < clusters * cs; b++)
                        cta.push_back((double)(c.hout[2 * (size_t)b + 1] - c.hout[2 * (size_t)b]) / rounds / c.ghz);
                    round.push_back(quantile(cta, 0.5));
                }
                const double r = quantile(round, 0.5), per_sm = (double)clusters * cs / c.sms;
                pts += fmt("%s%d per SM (%d CTAs, %.1f per SM): %.0f ns per round, %.1f ns per message received",
                           pts.empty() ? "" : "; ", per, clusters * cs, per_sm, r, r / (per_sm * cs));
            }
            add1(c, "remote", fmt("cluster_rx_%s_c%d", kind ? "multicast" : "arrive", cs).c_str(), "-", false, 0,
                 fmt("clusters of %d, one wave, every rank each round sending every rank %s and waiting for the "
                     "round's own, %u rounds x 3 launches; by CTAs per SM (the CTAs' shared memory sized for it): %s",
                     cs, kind ? "one multicast bulk copy of 256 bytes" : "one mbarrier.arrive.release.cluster", rounds,
                     pts.c_str()));
        }
    return 0;
}

/* The generated pipeline's round trip without its work by CTAs per SM (ck_local_rt): 1, 2, 4,
 * 8, 12 and 16 CTAs per SM (the CTAs' shared memory sized so that no more fit), 132 x that
 * many CTAs; the two lanes pass one stage back and forth by local mbarrier arrives, or by a
 * 2 KiB TMA load from L2 and an arrive. Per configuration the median CTA's ns per round.
 * Measurements, not parameters. */
static int b_local_rt(ctx &c, void *big)
{
    const int pers[] = {1, 2, 4, 8, 12, 16};
    const u32 rounds = 1024;
    CUtensorMap m;
    if (encode_rows(c, big, 32, 16384, 16, &m))   /* rows of 128 B, boxes of 16 rows = 2 KiB */
        return -1;
    CK(cudaFuncSetAttribute(ck_local_rt<0>, cudaFuncAttributeMaxDynamicSharedMemorySize, 220 * 1024));
    CK(cudaFuncSetAttribute(ck_local_rt<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, 220 * 1024));
    for (int tma = 0; tma < 2; tma++) {
        std::string pts;
        for (int per : pers) {
            const size_t smem = (size_t)(220 * 1024) / (size_t)per - 2048;
            const int grid = c.sms * per;
            std::vector<double> round;
            for (int rep = 0; rep < 3; rep++) {
                if (tma)
                    ck_local_rt<1><<<grid, 64, smem>>>(m, rounds, c.dout);
                else
                    ck_local_rt<0><<<grid, 64, smem>>>(m, rounds, c.dout);
                if (fetch(c, 2 * (size_t)grid))
                    return -1;
                std::vector<double> cta;
                for (int b = 0; b < grid; b++)
                    cta.push_back((double)(c.hout[2 * (size_t)b + 1] - c.hout[2 * (size_t)b]) / rounds / c.ghz);
                round.push_back(quantile(cta, 0.5));
            }
            pts += fmt("%s%d per SM: %.1f", pts.empty() ? "" : ", ", per, quantile(round, 0.5));
        }
        add1(c, "mbarrier", tma ? "local_rt_tma" : "local_rt_arrive", "-", false, 0,
             fmt("132 x k CTAs, k per SM (shared memory sized for it), lane 0 of warp 0 and of warp 1 passing one "
                 "stage back and forth %u times, %s, then an arrive back: ns per round (median CTA, 3 launches) by "
                 "CTAs per SM: %s",
                 rounds, tma ? "by a 2 KiB TMA load from L2 that completes the full barrier" : "by a local arrive",
                 pts.c_str()));
    }
    return 0;
}

/* Hot L2 lines: 132 x k CTAs (about k per SM), one thread each keeping 4 TMA loads of 2 KiB
 * boxes in flight, CTA c's copy j reading box (c + j x grid) mod B of a tensor of B boxes
 * (ck_tma_fill's walk), for footprints of 2 KiB to 8 MiB: the GPU's bytes per ns. Where the
 * footprint is a few boxes every SM reads the same L2 lines. Measurements, not parameters. */
static int b_l2_hot(ctx &c, void *big)
{
    const long long boxes[] = {1, 4, 32, 256, 4096};
    const int pers[] = {1, 4, 8};
    CUtensorMap m;
    if (encode_rows(c, big, 32, 4096ull * 16, 16, &m))   /* rows of 128 B, boxes of 16 rows: 2 KiB */
        return -1;
    for (long long b : boxes) {
        std::string pts;
        for (int per : pers) {
            std::vector<double> agg;
            for (int rep = 0; rep < 3; rep++) {
                double a = 0;
                if (fill_run(c, m, c.sms * per, 256, 4, b, &a, NULL, 2048, 16))
                    return -1;
                agg.push_back(a);
            }
            pts += fmt("%s%d per SM: %.0f", pts.empty() ? "" : ", ", per, quantile(agg, 0.5));
        }
        add1(c, "tma_fill", fmt("l2_hot_%lldkib_bytes_per_ns", b * 2).c_str(), "-", false, 0,
             fmt("a footprint of %lld boxes of 2 KiB (%lld KiB) read by 132 x k CTAs, one thread each with 4 loads in "
                 "flight, 256 each: the GPU's B/ns (median of 3 launches) by CTAs per SM: %s",
                 b, b * 2, pts.c_str()));
    }
    return 0;
}

/* One point of remote_load: the arrives' median ns per arrive over the CTAs of the ranks that
 * load (own) and of those that do not (idle), and the GPU's load rate in B/ns. */
struct rl_point {
    double own, idle, rate;
};
int remote_load_run(ctx &c, const CUtensorMap &m, int clusters, int stages, u32 ranks, long long boxes, rl_point *pt)
{
    const u32 rounds = 1500;
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeClusterDimension;
    at[0].val.clusterDim.x = 2, at[0].val.clusterDim.y = 1, at[0].val.clusterDim.z = 1;
    cfg.gridDim = dim3(2u * (unsigned)clusters), cfg.blockDim = dim3(64), cfg.attrs = at, cfg.numAttrs = 1;
    /* one CTA per SM: more than half an SM's shared memory */
    cfg.dynamicSmemBytes = 13 * 16384 + 1024;
    CK(cudaLaunchKernelEx(&cfg, ck_remote_load, m, rounds, stages, ranks, boxes, c.dout));
    if (fetch(c, 8 * (size_t)clusters))
        return -1;
    std::vector<double> own, idle;
    u64 g0 = ~0ull, g1 = 0, loads = 0;
    for (int b = 0; b < 2 * clusters; b++) {
        const u64 *o = &c.hout[4 * (size_t)b];
        ((ranks >> (b & 1)) & 1u ? own : idle).push_back((double)o[0] / rounds / c.ghz);
        loads += o[1];
        if (o[1]) {
            g0 = std::min(g0, o[2]);
            g1 = std::max(g1, o[3]);
        }
    }
    pt->own = own.empty() ? -1 : quantile(own, 0.5);
    pt->idle = idle.empty() ? -1 : quantile(idle, 0.5);
    pt->rate = loads && g1 > g0 ? (double)loads * 16384 / (double)(g1 - g0) : 0;
    return 0;
}

/* How long a consumer's release (mbarrier.arrive.release.cluster on a cluster peer) takes while
 * TMA loads stream in: by the bytes each loading SM keeps in flight, from L2 (8 MiB footprint)
 * and from DRAM (512 MiB), on the SM that loads and on an idle one beside it, and with one
 * cluster alone (the GPU otherwise idle). */
int b_remote_load(ctx &c, void *big)
{
    CUtensorMap m;
    if (encode(c, big, 1u << 21, 64, &m))
        return -1;
    CK(cudaFuncSetAttribute(ck_remote_load, cudaFuncAttributeMaxDynamicSharedMemorySize, 13 * 16384 + 1024));
    const int cl = c.sms / 2;
    struct {
        int clusters, stages;
        u32 ranks;
        long long boxes;
        const char *what;
    } runs[] = {{cl, 1, 0, 512, "no loads"},          {cl, 1, 3, 512, "L2 1"},      {cl, 2, 3, 512, "L2 2"},
                {cl, 4, 3, 512, "L2 4"},              {cl, 8, 3, 512, "L2 8"},      {cl, 12, 3, 512, "L2 12"},
                {cl, 2, 3, 32768, "DRAM 2"},          {cl, 4, 3, 32768, "DRAM 4"},  {cl, 8, 3, 32768, "DRAM 8"},
                {cl, 12, 3, 32768, "DRAM 12"},        {cl, 12, 2, 512, "L2 12, rank 1 loads"},
                {cl, 12, 2, 32768, "DRAM 12, rank 1 loads"}, {1, 12, 3, 512, "one cluster, L2 12"},
                {1, 12, 3, 32768, "one cluster, DRAM 12"}};
    std::string pts;
    std::vector<double> base;
    for (auto &r : runs) {
        std::vector<double> own, idle, rate;
        for (int rep = 0; rep < 3; rep++) {
            rl_point pt;
            if (remote_load_run(c, m, r.clusters, r.stages, r.ranks, r.boxes, &pt))
                return -1;
            own.push_back(pt.own), idle.push_back(pt.idle), rate.push_back(pt.rate);
        }
        if (!r.ranks)
            base = idle;
        pts += fmt("%s%s: %.0f", pts.empty() ? "" : "; ", r.what, quantile(r.ranks ? own : idle, 0.5));
        if (r.ranks && r.ranks != 3)
            pts += fmt(" (idle SM %.0f)", quantile(idle, 0.5));
        if (r.ranks)
            pts += fmt(" at %.0f B/ns", quantile(rate, 0.5));
    }
    add(c, "remote_load", "remote_arrive_loaded_ns", "ns", false, base,
        fmt("clusters of 2 on %d SMs, one CTA per SM: lane 0 of warp 1 times 1500 mbarrier.arrive.release.cluster on "
            "the peer's barrier (200 ns apart) while lane 0 of warp 0 keeps N loads of 16 KiB in flight; value: no "
            "loads; ns per arrive by source and N: %s",
            2 * cl, pts.c_str()));
    return 0;
}

/* The SM's TMA time per box by its rows: one CTA of 12 warps on one SM (then one on every
 * SM), lane 0 of each keeping 2 boxes in flight from a footprint L2 holds, boxes of 2 or
 * 8 KiB whose rows are 16-256 bytes wide at twice that pitch (as a box narrower than its
 * tensor's rows), and contiguous rows for comparison. Enough threads that one thread's
 * serial box time (tma_box_ns) does not bind: what is left is the unit's own time. */
int b_tma_rows(ctx &c, void *big)
{
    const uint32_t shp[][3] = {{16, 32, 128}, {32, 64, 64}, {32, 64, 256}, {64, 128, 32}, {64, 128, 128},
                               {128, 256, 16}, {128, 256, 64}, {256, 512, 8}, {256, 512, 32}, {32, 32, 256},
                               {128, 128, 64}};
    const int warps = 12;
    CK(cudaFuncSetAttribute(ck_tma_fill<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, warps * 2 * 8192 + 1024));
    std::string one, all;
    std::vector<double> rows_x, ns_y;
    for (const auto &sh : shp) {
        const uint32_t row = sh[0], pitch = sh[1], rows = sh[2], bytes = row * rows;
        CUtensorMap m;
        cuuint64_t dims[2] = {pitch / 4, (64ull << 20) / pitch}, strides[1] = {pitch};
        cuuint32_t box[2] = {row / 4, rows}, es[2] = {1, 1};
        CUresult r = cuTensorMapEncodeTiled(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, big, dims, strides, box, es,
                                            CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                            CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
        if (r != CUDA_SUCCESS) {
            c.err = fmt("cuTensorMapEncodeTiled (rows of %u B at %u B): %s", row, pitch, hw_cu_name(r));
            return -1;
        }
        std::vector<double> r1, ra;
        double a;
        for (int rep = 0; rep < 3; rep++) {
            std::vector<double> p1, pa;
            if (fill_run(c, m, 1, 300, 2, 64, &a, &p1, bytes, (int)rows, 1, NULL, warps) ||
                fill_run(c, m, c.sms, 300, 2, 64, &a, &pa, bytes, (int)rows, 1, NULL, warps))
                return -1;
            r1.push_back(p1[0]);
            ra.push_back(quantile(pa, 0.5));
        }
        const double ns1 = bytes / quantile(r1, 0.5), nsa = bytes / quantile(ra, 0.5);
        one += fmt("%s%u B x %u at %u: %.1f ns (%.2f per row)", one.empty() ? "" : ", ", row, rows, pitch, ns1,
                   ns1 / rows);
        all += fmt("%s%u B x %u at %u: %.1f ns", all.empty() ? "" : ", ", row, rows, pitch, nsa);
        if (pitch > row)
            rows_x.push_back(rows), ns_y.push_back(nsa);
    }
    /* the same, every SM at once, from fewer distinct boxes of 2 KiB: 1-256 boxes of 32-byte
     * rows (64 at a 64-byte pitch, 4 KiB of lines each) and of 128-byte rows (16 at 256), then
     * rows that fill their lines (16-128 bytes at their own pitch: the box's bytes are its
     * lines), 64-byte rows at a 128-byte pitch and 32-byte rows at 128 and 256 */
    const uint32_t geo[][2] = {{32, 64}, {128, 256}, {16, 16}, {32, 32}, {64, 64}, {128, 128}, {64, 128}, {32, 128}, {32, 256}};
    std::string hot;
    for (const auto &g : geo) {
        const uint32_t row = g[0], pitch = g[1], rows = 2048 / row;
        CUtensorMap m;
        cuuint64_t dims[2] = {pitch / 4, (64ull << 20) / pitch}, strides[1] = {pitch};
        cuuint32_t box[2] = {row / 4, rows}, es[2] = {1, 1};
        if (cuTensorMapEncodeTiled(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, big, dims, strides, box, es,
                                   CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                   CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
            c.err = fmt("cuTensorMapEncodeTiled (hot boxes of %u-byte rows at %u)", row, pitch);
            return -1;
        }
        for (long long nb : {1ll, 2ll, 4ll, 8ll, 16ll, 32ll, 64ll, 256ll}) {
            std::vector<double> ra;
            double a;
            for (int rep = 0; rep < 3; rep++) {
                std::vector<double> pa;
                if (fill_run(c, m, c.sms, 300, 2, nb, &a, &pa, 2048, (int)rows, 1, NULL, warps))
                    return -1;
                ra.push_back(quantile(pa, 0.5));
            }
            const double nsa = 2048 / quantile(ra, 0.5);
            const long long lines_kib = nb * rows * pitch / 1024;
            if (pitch == 2 * row)
                hot += fmt("%s%u-byte rows, %lld boxes (%lld KiB of lines): %.1f ns per box, %.0f requests per ns",
                           hot.empty() ? "" : "; ", row, nb, lines_kib, nsa, c.sms * rows / nsa);
            else
                hot += fmt("; %u-byte rows at a %u-byte pitch, %lld boxes (%lld KiB of lines): %.1f ns per box, "
                           "%.0f requests per ns",
                           row, pitch, nb, lines_kib, nsa, c.sms * rows / nsa);
        }
    }
    add1(c, "tma_rows", "tma_hot", "-", false, 0,
         fmt("as tma_row_ns, every SM at once reading boxes of 2 KiB from only N distinct boxes (the lines L2 "
             "serves them from): %s",
             hot.c_str()));
    double sx = 0, sy = 0, sxx = 0, sxy = 0, n = (double)rows_x.size();
    for (size_t k = 0; k < rows_x.size(); k++)
        sx += rows_x[k], sy += ns_y[k], sxx += rows_x[k] * rows_x[k], sxy += rows_x[k] * ns_y[k];
    const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    add1(c, "tma_rows", "tma_row_ns", "ns", false, slope,
         fmt("one CTA per SM, lane 0 of %d warps each keeping 2 boxes in flight from L2, every SM at once: the "
             "SM's ns per box over the box's rows, least squares over the strided shapes (ns per box: %s; one SM "
             "alone: %s)",
             warps, all.c_str(), one.c_str()));
    return 0;
}

int b_launch(ctx &c)
{
    char msg[256];
    if (gt_cupti_on(msg, sizeof msg)) {
        c.err = msg;
        return -1;
    }
    std::vector<double> over, spread, empty;
    for (int rep = 0; rep < 12; rep++) {
        const u64 spin = rep & 1 ? 0 : 20000;
        ck_span<<<c.sms, 128>>>(spin, c.dout);
        if (fetch(c, 2 * (size_t)c.sms))
            return -1;
        gt_kernel_time t;
        if (gt_cupti_last(&t)) {
            c.err = "no CUPTI kernel record";
            return -1;
        }
        u64 s0 = ~0ull, s1 = 0, e1 = 0;
        for (int b = 0; b < c.sms; b++) {
            s0 = std::min(s0, c.hout[2 * b]), s1 = std::max(s1, c.hout[2 * b]);
            e1 = std::max(e1, c.hout[2 * b + 1]);
        }
        if (rep < 2)
            continue;
        if (spin) {
            over.push_back((double)(t.end - t.start) - (double)(e1 - s0));
            spread.push_back((double)(s1 - s0));
        } else {
            empty.push_back((double)(t.end - t.start));
        }
    }
    add(c, "launch", "launch_overhead_ns", "ns", false, over,
        fmt("%d CTAs spinning 20 us on globaltimer: CUPTI kernel duration less the CTAs' first start to last end, "
            "5 launches (part of the simulator's kernel_overhead_ns, which also holds the generated kernels' own "
            "start and end)",
            c.sms));
    add(c, "launch", "cta_launch_spread_ns", "ns", true, spread, "the same launches: first to last CTA start");
    add(c, "launch", "empty_kernel_ns", "ns", false, empty, "CUPTI duration of the same grid with no spin");
    return 0;
}

/* CTA placement: grids of fewer CTAs than the SMs' slots, k CTAs per SM at most (set by
 * dynamic shared memory), every CTA resident at once. Reports how many CTAs the fullest
 * SM received and how many SMs received any: a round-robin scheduler spreads G CTAs as
 * ceil(G / SMs) per SM, one that fills an SM before the next packs them. */
int b_place(ctx &c)
{
    const int cfg[][2] = {{2, 198}, {4, 264}, {6, 396}, {9, 594}, {10, 660}, {4, 400}, {8, 300}, {3, 200}};
    cudaFuncSetAttribute(ck_place, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024);
    for (const auto &g : cfg) {
        const int k = g[0], grid = g[1];
        int smem = (228 * 1024) / k - 1024 - 64;
        smem = std::min(smem, 227 * 1024);
        int occ = 0;
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, ck_place, 128, smem);
        ck_place<<<grid, 128, smem>>>(50000, c.dout);
        if (fetch(c, 2 * (size_t)grid))
            return -1;
        std::vector<int> per(c.sms + 8, 0);
        for (int b = 0; b < grid; b++)
            per[std::min<u64>(c.hout[2 * b], c.sms + 7)]++;
        int mx = 0, used = 0;
        std::vector<int> hist(64, 0);
        for (int v : per) {
            mx = std::max(mx, v);
            used += v > 0;
            hist[std::min(v, 63)]++;
        }
        std::string h;
        for (int v = 1; v < 64; v++)
            if (hist[v])
                h += fmt("%s%d SMs x %d", h.empty() ? "" : ", ", hist[v], v);
        add1(c, "place", fmt("place_k%d_g%d_max", k, grid).c_str(), "CTAs", false, mx,
             fmt("%d CTAs of 128 threads, %d per SM at most (occupancy %d): CTAs on the fullest SM; %d SMs used (%s)",
                 grid, k, occ, used, h.c_str()));
    }
    return 0;
}

/* The st.async copy trip (kernel ck_stas), swept one variable at a time: where the data comes
 * from (L1: each CTA walks its 8 stages once untimed, then again; L2: a launch walks every
 * CTA's stages untimed, then the timed launches walk them again, the SMs' L1 holding none of
 * it at the start of a kernel, every SM's CTAs sharing 132 regions; DRAM: every CTA its own
 * stages, a launch walks them untimed (the address translations are then cached, as they are
 * for a kernel's tensors after its first tiles), then before each timed launch a 256 MiB
 * memset evicts them from L2), how many 128-byte lines a trip's 512 bytes touch (rows of 128,
 * 64, 32, 16 bytes at a 256-byte pitch: 4, 8, 16, 32 lines and 16, 16, 16, 32 sectors; beside
 * them contiguous 512-byte rows, 256-byte rows at a 512-byte pitch, and 16-byte rows at a
 * 32-byte pitch: 8 lines, 32 sectors), and how many producer warps each SM runs at once (1-16
 * CTAs of one warp per SM); last the st.async alone (a constant stored, no load). The
 * simulator takes the row series and the CTAs-per-SM series of each source and the st.async
 * alone; the other points are written as measurements. */
struct stas_shape {
    u32 row, pitch;
    const char *what;
};

enum { STAS_L1, STAS_L2, STAS_DRAM, STAS_ALONE };

int stas_point(ctx &c, const unsigned char *buf, size_t buf_bytes, void *flush, size_t flush_bytes, uint4 *dtab,
               const stas_shape &sh, int src, int per_sm, std::vector<double> &ns)
{
    const u32 stages = 8, chunks = 256;
    std::vector<uint4> tab(chunks);
    for (u32 q = 0; q < chunks; q++) {
        const u32 b = q * 16;
        tab[q] = make_uint4(0u, b, (b / sh.row) * sh.pitch + b % sh.row, 0u);
    }
    CK(cudaMemcpy(dtab, tab.data(), chunks * sizeof(uint4), cudaMemcpyHostToDevice));
    const unsigned long long stride = (unsigned long long)(chunks * 16 / sh.row) * sh.pitch;
    const unsigned long long region = stride * stages;
    const int grid = c.sms * per_sm;
    const u32 regions = src == STAS_DRAM ? (u32)grid : (u32)c.sms;
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeClusterDimension;
    at[0].val.clusterDim.x = 2, at[0].val.clusterDim.y = 1, at[0].val.clusterDim.z = 1;
    cfg.gridDim = dim3((unsigned)grid), cfg.blockDim = dim3(32u), cfg.attrs = at, cfg.numAttrs = 1;
    if ((size_t)(region * regions) > buf_bytes) {
        c.err = fmt("stas: %llu bytes of stages do not fit the %zu-byte buffer", region * regions, buf_bytes);
        return -1;
    }
    const bool warm_launch = src == STAS_L2 || src == STAS_DRAM;
    for (int rep = warm_launch ? -1 : 0; rep < 3; rep++) {
        if (src == STAS_DRAM && rep >= 0)
            CK(cudaMemset(flush, rep + 1, flush_bytes));
        CK(cudaLaunchKernelEx(&cfg, src == STAS_ALONE ? ck_stas<true> : ck_stas<false>, buf, region, regions,
                              (const uint4 *)dtab, stride, stages, src == STAS_L1 ? 1u : 0u, c.dout));
        if (fetch(c, (size_t)grid))
            return -1;
        for (int b = 0; b < grid && rep >= 0; b++)
            ns.push_back((double)c.hout[b] / (stages * 8.0) / c.ghz);
    }
    return 0;
}

int b_stas(ctx &c, void *flush, size_t flush_bytes)
{
    const stas_shape shapes[] = {{128, 256, "rows of 128 bytes at a 256-byte pitch (4 lines, 16 sectors a trip)"},
                                 {64, 256, "rows of 64 bytes at a 256-byte pitch (8 lines, 16 sectors a trip)"},
                                 {32, 256, "rows of 32 bytes at a 256-byte pitch (16 lines, 16 sectors a trip)"},
                                 {16, 256, "rows of 16 bytes at a 256-byte pitch (32 lines, 32 sectors a trip)"},
                                 {512, 512, "contiguous rows of 512 bytes (4 lines, 16 sectors a trip)"},
                                 {256, 512, "rows of 256 bytes at a 512-byte pitch (4 lines, 16 sectors a trip)"},
                                 {16, 32, "rows of 16 bytes at a 32-byte pitch (8 lines, 32 sectors a trip)"}};
    const int per_sm[] = {1, 2, 4, 8, 16};
    const char *lines_name[4] = {"4lines", "8lines", "16lines", "32lines"};
    const char *src_name[4] = {"l1", "l2", "dram", "alone"};
    const char *src_what[4] = {"its own SM's L1 (the same stages walked once before in the kernel)",
                               "L2 (the same stages walked by a launch before)",
                               "DRAM (walked by a launch before, then evicted from L2 by a 256 MiB memset)",
                               "no load (a constant stored)"};
    const size_t buf_bytes = 1ull << 30;
    unsigned char *buf = NULL;
    uint4 *dtab = NULL;
    CK(cudaMalloc(&buf, buf_bytes));
    cudaError_t ce = cudaMalloc(&dtab, 256 * sizeof(uint4));
    if (ce == cudaSuccess)
        ce = cudaMemset(buf, 0, buf_bytes);
    if (ce != cudaSuccess) {
        c.err = fmt("stas buffers: %s", cudaGetErrorString(ce));
        cudaFree(dtab);
        cudaFree(buf);
        return -1;
    }
    int rc = 0;
    for (int src = 0; src < 4 && !rc; src++)
        for (size_t si = 0; si < sizeof shapes / sizeof shapes[0] && !rc; si++)
            for (int ki = 0; ki < 5 && !rc; ki++) {
                const stas_shape &sh = shapes[si];
                if ((si > 0 && per_sm[ki] != 1 && per_sm[ki] != 8) || (src == STAS_ALONE && si > 0))
                    continue;   /* the CTAs-per-SM series on the 4-line rows; the others at 1 and 8 */
                std::vector<double> ns;
                rc = stas_point(c, buf, buf_bytes, flush, flush_bytes, dtab, sh, src, per_sm[ki], ns);
                if (rc)
                    break;
                const bool param = src == STAS_ALONE || (si < 4 && per_sm[ki] == 1) || (si == 0 && per_sm[ki] > 1);
                std::string name = !param ? fmt("stas_%s_r%u_p%u_k%d_ns", src_name[src], sh.row, sh.pitch, per_sm[ki])
                                   : per_sm[ki] == 1 && src != STAS_ALONE
                                       ? fmt("stas_%s_%s_ns", src_name[src], lines_name[si])
                                       : fmt("stas_%s_k%d_ns", src_name[src], per_sm[ki]);
                add(c, "stas", name.c_str(), "ns", param, ns,
                    fmt("st.async copy loop as generated (chunk table; 4 trips' loads, then their st.async), clusters "
                        "of 2, %d CTA(s) of one producer warp per SM, %s, data from %s: ns per trip of 32 lanes x 16 "
                        "bytes (a load, then st.async to the peer), 8 stages of 8 trips, per CTA, 3 launches",
                        per_sm[ki], sh.what, src_what[src]));
            }
    cudaFree(dtab);
    cudaFree(buf);
    return rc;
}

int b_clusters(ctx &c)
{
    CK(cudaFuncSetAttribute(ck_span, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    CK(cudaFuncSetAttribute(ck_span, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 << 10));
    const int sizes[4] = {2, 4, 8, 16};
    for (int k = 0; k < 4; k++)
        for (int at = 0; at < 2; at++) {
            cudaLaunchConfig_t cfg = {};
            cudaLaunchAttribute a[1];
            a[0].id = cudaLaunchAttributeClusterDimension;
            a[0].val.clusterDim.x = sizes[k], a[0].val.clusterDim.y = 1, a[0].val.clusterDim.z = 1;
            cfg.gridDim = dim3(sizes[k] * 64), cfg.blockDim = dim3(128), cfg.attrs = a, cfg.numAttrs = 1;
            cfg.dynamicSmemBytes = at ? 24 << 10 : 200 << 10;
            int n = 0;
            CK(cudaOccupancyMaxActiveClusters(&n, ck_span, &cfg));
            add1(c, "clusters", fmt("clusters%d_at%d", sizes[k], at ? 8 : 1).c_str(), "clusters", true, n,
                 fmt("cudaOccupancyMaxActiveClusters, clusters of %d CTAs of 128 threads with %s KiB of shared "
                     "memory each (%d CTA%s per SM)",
                     sizes[k], at ? "24" : "200", at ? 8 : 1, at ? "s" : ""));
        }
    return 0;
}

/* ------------------------------------------------------------------ output */

void print_table(const ctx &c, FILE *f)
{
    fprintf(f, "%-12s %-28s %12s %-10s %21s %4s\n", "benchmark", "value", "median", "unit", "p10..p90", "n");
    for (const entry &e : c.out)
        fprintf(f, "%-12s %-28s %12.4g %-10s %10.4g..%-10.4g %4d%s\n", e.bench.c_str(), e.param.c_str(), e.value,
                e.unit.c_str(), e.lo, e.hi, e.n, e.is_param ? "" : "  (not a parameter)");
}

void json_str(FILE *f, const std::string &s)
{
    fputc('"', f);
    for (char ch : s) {
        if (ch == '"' || ch == '\\')
            fputc('\\', f);
        if ((unsigned char)ch >= 0x20)
            fputc(ch, f);
    }
    fputc('"', f);
}

void print_json(const ctx &c, FILE *f)
{
    fprintf(f, "[");
    for (size_t i = 0; i < c.out.size(); i++) {
        const entry &e = c.out[i];
        fprintf(f, "%s\n {\"benchmark\":", i ? "," : "");
        json_str(f, e.bench);
        fprintf(f, ",\"name\":");
        json_str(f, e.param);
        fprintf(f, ",\"parameter\":%s,\"median\":%.6g,\"p10\":%.6g,\"p90\":%.6g,\"n\":%d,\"unit\":",
                e.is_param ? "true" : "false", e.value, e.lo, e.hi, e.n);
        json_str(f, e.unit);
        fprintf(f, ",\"how\":");
        json_str(f, e.how);
        fprintf(f, "}");
    }
    fprintf(f, "\n]\n");
}

void print_csv(const ctx &c, FILE *f)
{
    fprintf(f, "benchmark,name,parameter,median,p10,p90,n,unit\n");
    for (const entry &e : c.out)
        fprintf(f, "%s,%s,%d,%.6g,%.6g,%.6g,%d,%s\n", e.bench.c_str(), e.param.c_str(), e.is_param, e.value, e.lo,
                e.hi, e.n, e.unit.c_str());
}

/* the --params file: "name = value  # provenance"; measurements that are not
 * parameters as comment lines; written to a temporary file, then renamed */
int write_params(const ctx &c, const char *path, const hw_device &dev, std::string &err)
{
    std::string tmp = fmt("%s.tmp.%d", path, (int)getpid());
    FILE *f = fopen(tmp.c_str(), "w");
    if (!f) {
        err = fmt("-o '%s': cannot write", path);
        return -1;
    }
    time_t now = time(NULL);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    fprintf(f, "# tmahw calibrate: %s, CUDA driver API %d.%d, %s\n", dev.name, dev.driver_version / 1000,
            (dev.driver_version % 1000) / 10, date);
    fprintf(f, "# every value: median of its samples, [p10..p90, n samples], and the benchmark it comes from\n");
    for (const entry &e : c.out) {
        std::string how = e.how;
        std::replace(how.begin(), how.end(), '\n', ' ');
        fprintf(f, "%s%s = %.6g   # %s [%.4g..%.4g, n %d] %s: %s\n", e.is_param ? "" : "# ", e.param.c_str(), e.value,
                e.unit.c_str(), e.lo, e.hi, e.n, e.bench.c_str(), how.c_str());
    }
    for (const std::string &s : c.failed)
        fprintf(f, "# not measured: %s\n", s.c_str());
    int bad = ferror(f);
    bad |= fclose(f);
    if (bad || rename(tmp.c_str(), path)) {
        remove(tmp.c_str());
        err = fmt("-o '%s': write failed", path);
        return -1;
    }
    return 0;
}

void usage(FILE *f)
{
    fprintf(f,
            "usage: tmahw calibrate [-o FILE] [--only LIST] [--format table|json|csv]\n\n"
            "Measures the simulator's timing parameters on the GPU present, one mechanism per\n"
            "microbenchmark (about a minute): SM clock; device copy bandwidth; TMA load latency by\n"
            "size from L2 and DRAM; TMA fill rate of one SM and of the GPU, and the L2 footprint\n"
            "past which re-reads miss; ld.shared / ldmatrix by width and warps per sub-partition;\n"
            "the shared-memory port; shared load latency; FFMA and mma.sync rate and latency;\n"
            "mbarrier arrive, expect_tx, hand-off and wake spacing; cp.async rate by warps per SM;\n"
            "TMA store and add reduction; bar.sync; cluster remote arrive, alone and by warps per\n"
            "SM; kernel launch overhead and CTA start\n"
            "spread; resident clusters; L2 reads shared by several SMs (l2share); the GEMM producer's\n"
            "stages by their size (gemm_chain); integer issue\n"
            "rate by warps per sub-partition (issue); which sub-partition the warps of several\n"
            "CTAs run on (smsp); integer work beside mma.sync on one sub-partition (mma_mix); the SM's TMA\n"
            "time per box by its rows (tma_rows); the GEMM producer's loads alone by stage bytes, SMs\n"
            "and operand layout (gemm_walk); remote arrives and multicast slices an SM receives from\n"
            "cluster peers by CTAs per SM (cluster_rx); the pipeline's round trip without its work by\n"
            "CTAs per SM (local_rt); TMA loads from footprints of 8 KiB to 8 MiB by CTAs per SM (l2_hot).\n"
            "  -o FILE        write the parameters ('name = value  # provenance'), for\n"
            "                 `tmasim sim --gpu FILE` and `tmasim accuracy --params FILE`\n"
            "  --only LIST    comma-separated benchmarks: clock d2d tma_latency tma_fill lds\n"
            "                 smem_latency math mbarrier cpasync store barsync cluster remote launch\n"
            "                 clusters ifetch place stas wgmma wgmma_load l2share gemm_chain issue smsp\n"
            "                 mma_mix remote_load tma_rows gemm_walk cluster_rx local_rt l2_hot\n"
            "  --format F     the table (default), json or csv on stdout\n"
            "exit status: 0 ok, 1 a benchmark failed (the others are written), 2 bad input or no GPU\n");
}

const char *const BENCHES[] = {"clock", "d2d",     "tma_latency", "tma_fill", "lds",    "smem_latency", "math",
                               "mbarrier", "cpasync", "store",    "barsync",  "cluster", "remote",      "launch",
                               "clusters", "ifetch", "place", "stas", "wgmma", "wgmma_load", "l2share", "gemm_chain", "issue",
                               "smsp", "mma_mix", "remote_load", "tma_rows", "gemm_walk", "cluster_rx", "local_rt", "l2_hot"};

} // namespace

int hw_cmd_calibrate(int argc, char **argv)
{
    const char *out_path = NULL, *only = NULL, *format = "table";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return EXIT_OK;
        }
        if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--only") || !strcmp(argv[i], "--format")) && i + 1 < argc) {
            const char *v = argv[++i];
            if (!strcmp(argv[i - 1], "-o"))
                out_path = v;
            else if (!strcmp(argv[i - 1], "--only"))
                only = v;
            else
                format = v;
            continue;
        }
        fprintf(stderr, "tmahw calibrate: '%s': unknown flag or missing value (see --help)\n", argv[i]);
        return EXIT_BAD;
    }
    if (strcmp(format, "table") && strcmp(format, "json") && strcmp(format, "csv")) {
        fprintf(stderr, "tmahw calibrate: field '--format' = '%s' (allowed table, json, csv)\n", format);
        return EXIT_BAD;
    }
    std::vector<int> run(sizeof BENCHES / sizeof BENCHES[0], only ? 0 : 1);
    for (const char *p = only; p && *p;) {
        size_t n = strcspn(p, ","), k = 0;
        for (; k < run.size() && (strlen(BENCHES[k]) != n || strncmp(p, BENCHES[k], n)); k++)
            ;
        if (k == run.size()) {
            std::string allowed;
            for (const char *b : BENCHES)
                allowed += std::string(allowed.empty() ? "" : ", ") + b;
            fprintf(stderr, "tmahw calibrate: field '--only' = '%.*s' (allowed %s)\n", (int)n, p, allowed.c_str());
            return EXIT_BAD;
        }
        run[k] = 1;
        p += n + (p[n] == ',');
    }
    if (out_path) {   /* checked before the work: the directory must take a file */
        std::string probe = fmt("%s.tmp.%d", out_path, (int)getpid());
        FILE *f = fopen(probe.c_str(), "w");
        if (!f) {
            fprintf(stderr, "tmahw calibrate: -o '%s': cannot write there\n", out_path);
            return EXIT_BAD;
        }
        fclose(f);
        remove(probe.c_str());
    }
    hw_device dev;
    char msg[256];
    if (hw_open(&dev, msg, sizeof msg)) {
        fprintf(stderr, "tmahw calibrate: no GPU: %s\n", msg);
        return EXIT_BAD;
    }
    ctx c;
    cudaDeviceGetAttribute(&c.sms, cudaDevAttrMultiProcessorCount, 0);
    const size_t big_bytes = 1ull << 30, flush_bytes = 256ull << 20;
    void *big = NULL, *flush = NULL;
    if (c.sms > 132 * 2 || cudaMalloc(&c.dout, OUT_WORDS * 8) != cudaSuccess || cudaMalloc(&c.dsink, 64) != cudaSuccess ||
        cudaMalloc(&big, big_bytes) != cudaSuccess || cudaMalloc(&flush, flush_bytes) != cudaSuccess) {
        fprintf(stderr, "tmahw calibrate: cannot allocate the benchmarks' 1.3 GiB of device memory\n");
        return EXIT_BAD;
    }
    cudaMemset(big, 0, big_bytes);
    c.hout.resize(OUT_WORDS);
    const int tty = isatty(2);
    for (size_t k = 0; k < run.size(); k++) {
        if (!run[k])
            continue;
        if (tty)
            fprintf(stderr, "\rcalibrate: %-14s (%zu of %zu)", BENCHES[k], k + 1, run.size());
        const std::string b = BENCHES[k];
        c.err.clear();
        int rc = b == "clock" ? b_clock(c) : b == "d2d" ? b_d2d(c) : b == "tma_latency" ? b_tma_latency(c, big, flush, flush_bytes)
               : b == "tma_fill" ? b_tma_fill(c, big) : b == "lds" ? b_lds(c) : b == "smem_latency" ? b_smem_latency(c)
               : b == "stas" ? b_stas(c, flush, flush_bytes) : b == "place" ? b_place(c) : b == "math" ? b_math(c) : b == "mbarrier" ? b_mbar(c) : b == "cpasync" ? b_cpasync(c, big, big_bytes)
               : b == "store" ? b_store(c, big) : b == "barsync" ? b_barsync(c) : b == "cluster" ? b_cluster(c)
               : b == "remote" ? b_remote_many(c) : b == "remote_load" ? b_remote_load(c, big) : b == "launch" ? b_launch(c) : b == "tma_rows" ? b_tma_rows(c, big) : b == "ifetch" ? b_ifetch(c)
               : b == "wgmma" ? b_wgmma(c) : b == "wgmma_load" ? b_wgmma_load(c, big) : b == "l2share" ? b_l2share(c, big) : b == "gemm_chain" ? b_gemm_chain(c, big) : b == "gemm_walk" ? b_gemm_walk(c, big) : b == "cluster_rx" ? b_cluster_rx(c, big) : b == "local_rt" ? b_local_rt(c, big) : b == "l2_hot" ? b_l2_hot(c, big)
               : b == "issue" ? b_issue(c) : b == "smsp" ? b_smsp(c) : b == "mma_mix" ? b_mma_mix(c) : b_clusters(c);
        if (rc) {
            c.failed.push_back(b + ": " + c.err);
            cudaGetLastError();
            if (cudaDeviceSynchronize() != cudaSuccess)
                break;   /* the context is gone: the rest cannot run */
        }
    }
    if (tty)
        fprintf(stderr, "\r%60s\r", "");
    cudaFree(big);
    cudaFree(flush);
    cudaFree(c.dout);
    cudaFree(c.dsink);
    if (!strcmp(format, "json"))
        print_json(c, stdout);
    else if (!strcmp(format, "csv"))
        print_csv(c, stdout);
    else
        print_table(c, stdout);
    for (const std::string &s : c.failed)
        fprintf(stderr, "tmahw calibrate: %s\n", s.c_str());
    std::string err;
    if (out_path && write_params(c, out_path, dev, err)) {
        fprintf(stderr, "tmahw calibrate: %s\n", err.c_str());
        return EXIT_BAD;
    }
    hw_close(&dev);
    return c.failed.empty() ? EXIT_OK : EXIT_FINDING;
}
