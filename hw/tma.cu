/* tma: one TMA tiled copy on the GPU, recorded raw.
 *
 * A load fills a 1024-aligned dynamic shared buffer with a sentinel, copies the box
 * to base + smem_offset with cp.async.bulk.tensor, waits on an mbarrier armed with
 * arrive.expect_tx(dense box bytes) under a globaltimer deadline, and dumps the
 * whole buffer. It runs twice, with the sentinel and with its complement: a byte
 * that reads the same in both runs was written by the copy, so the written set is
 * observed without asking any model. Stores do the same on the global side. */
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "hw.h"
#include "replay.h"

struct tma_params {
    int store;
    int rank;
    int c[TM_MAX_RANK];
    uint32_t smem_offset;
    uint32_t expect_tx;
    const uint8_t *init;          /* HW_SMEM_BUF bytes copied into the buffer first */
    uint8_t *dump;                /* HW_SMEM_BUF bytes of the buffer afterwards */
    unsigned long long timeout_ns;
    unsigned long long *status;   /* completed, elapsed_ns, mbar raw, buffer base, dst address */
};

__device__ static inline unsigned long long globaltimer(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__device__ static inline uint32_t mbar_try_wait(uint32_t mbar, uint32_t parity)
{
    uint32_t done;
    asm volatile("{\n\t.reg .pred p;\n\t"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                 "selp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(done) : "r"(mbar), "r"(parity) : "memory");
    return done;
}

__device__ static void tma_load(const CUtensorMap *map, int rank, const int *c, uint32_t dst, uint32_t mbar)
{
    uint64_t m = reinterpret_cast<uint64_t>(map);
    switch (rank) {
    case 1:
        asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2}], [%3];" :: "r"(dst), "l"(m), "r"(c[0]), "r"(mbar) : "memory");
        break;
    case 2:
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3}], [%4];" :: "r"(dst), "l"(m), "r"(c[0]), "r"(c[1]), "r"(mbar) : "memory");
        break;
    case 3:
        asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3, %4}], [%5];"
                     :: "r"(dst), "l"(m), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(mbar) : "memory");
        break;
    case 4:
        asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3, %4, %5}], [%6];"
                     :: "r"(dst), "l"(m), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(mbar) : "memory");
        break;
    default:
        asm volatile("cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3, %4, %5, %6}], [%7];"
                     :: "r"(dst), "l"(m), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(c[4]), "r"(mbar)
                     : "memory");
        break;
    }
}

__device__ static void tma_store(const CUtensorMap *map, int rank, const int *c, uint32_t src)
{
    uint64_t m = reinterpret_cast<uint64_t>(map);
    switch (rank) {
    case 1:
        asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group [%0, {%1}], [%2];"
                     :: "l"(m), "r"(c[0]), "r"(src) : "memory");
        break;
    case 2:
        asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];"
                     :: "l"(m), "r"(c[0]), "r"(c[1]), "r"(src) : "memory");
        break;
    case 3:
        asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [%0, {%1, %2, %3}], [%4];"
                     :: "l"(m), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(src) : "memory");
        break;
    case 4:
        asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group [%0, {%1, %2, %3, %4}], [%5];"
                     :: "l"(m), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(src) : "memory");
        break;
    default:
        asm volatile("cp.async.bulk.tensor.5d.global.shared::cta.tile.bulk_group [%0, {%1, %2, %3, %4, %5}], [%6];"
                     :: "l"(m), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(c[4]), "r"(src) : "memory");
        break;
    }
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

__global__ void __launch_bounds__(128) tma_kernel(const __grid_constant__ CUtensorMap map, const tma_params p)
{
    extern __shared__ __align__(16) uint8_t dyn[];
    __shared__ __align__(8) unsigned long long mbar_word;
    const uint32_t raw = static_cast<uint32_t>(__cvta_generic_to_shared(dyn));
    const uint32_t pad = (1024u - (raw & 1023u)) & 1023u;
    uint8_t *buf = dyn + pad;
    const uint32_t base = raw + pad;
    const uint32_t mbar = static_cast<uint32_t>(__cvta_generic_to_shared(&mbar_word));

    for (uint32_t i = threadIdx.x * 16u; i < HW_SMEM_BUF; i += blockDim.x * 16u)
        *reinterpret_cast<uint4 *>(buf + i) = *reinterpret_cast<const uint4 *>(p.init + i);
    /* The copy engine is the async proxy: make the generic-proxy sentinel writes
     * visible to it before the copy is issued. */
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();

    if (threadIdx.x == 0) {
        const uint32_t dst = base + p.smem_offset;
        unsigned long long done = 1, t0 = globaltimer(), t1 = t0;
        if (p.store) {
            tma_store(&map, p.rank, p.c, dst);
            t1 = globaltimer();
        } else {
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(mbar) : "memory");
            asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
            asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
            asm volatile("{\n\t.reg .b64 state;\n\t"
                         "mbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1;\n\t}"
                         :: "r"(mbar), "r"(p.expect_tx) : "memory");
            tma_load(&map, p.rank, p.c, dst, mbar);
            done = 0;
            while (!(done = mbar_try_wait(mbar, 0))) {
                if (globaltimer() - t0 > p.timeout_ns)
                    break;
            }
            t1 = globaltimer();
            if (!done) {
                /* A hang is an mbarrier that never completes; the copy itself ends.
                 * Give late bytes time to land before the buffer is dumped. */
                unsigned long long t2 = globaltimer();
                while (globaltimer() - t2 < 2000000ull) { }
            }
        }
        p.status[0] = done;
        p.status[1] = t1 - t0;
        p.status[2] = p.store ? 0ull : *(volatile unsigned long long *)&mbar_word;
        p.status[3] = base;
        p.status[4] = dst;
    }
    __syncthreads();
    for (uint32_t i = threadIdx.x * 16u; i < HW_SMEM_BUF; i += blockDim.x * 16u)
        *reinterpret_cast<uint4 *>(p.dump + i) = *reinterpret_cast<const uint4 *>(buf + i);
}

/* ------------------------------------------------------------------ host side */

CUresult hw_encode(const tm_desc *d, CUtensorMap *map)
{
    cuuint64_t dims[8] = {0}, strides[8] = {0};
    cuuint32_t box[8] = {0}, es[8] = {0};
    uint32_t n = d->rank < TM_MAX_RANK ? d->rank : TM_MAX_RANK;
    for (uint32_t i = 0; i < n; i++) {
        dims[i] = d->dims[i];
        box[i] = d->box[i];
        es[i] = d->elem_strides[i];
        if (i + 1 < n)
            strides[i] = d->strides[i];
    }
    memset(map, 0, sizeof *map);
    return cuTensorMapEncodeTiled(map, (CUtensorMapDataType)d->dtype, d->rank,
                                  reinterpret_cast<void *>(d->global_address), dims, strides, box, es,
                                  (CUtensorMapInterleave)d->interleave, (CUtensorMapSwizzle)d->swizzle,
                                  (CUtensorMapL2promotion)d->l2_promotion, (CUtensorMapFloatOOBfill)d->oob_fill);
}

static uint32_t bits_of(tm_dtype t)
{
    static const uint32_t bits[TM_DTYPE_COUNT] = {8, 16, 32, 32, 64, 64, 16, 32, 64, 16, 32, 32, 32, 4, 4, 6};
    return (unsigned)t < TM_DTYPE_COUNT ? bits[t] : 8;
}

uint64_t hw_tensor_extent(const tm_desc *d)
{
    uint64_t last = (d->dims[0] * bits_of(d->dtype) + 7) / 8;
    for (uint32_t i = 1; i < d->rank && i < TM_MAX_RANK; i++)
        last += (d->dims[i] ? d->dims[i] - 1 : 0) * d->strides[i - 1];
    return last;
}

uint32_t hw_dense_box_bytes(const tm_desc *d)
{
    uint64_t n = 1;
    for (uint32_t i = 0; i < d->rank && i < TM_MAX_RANK; i++) {
        uint32_t es = d->elem_strides[i] ? d->elem_strides[i] : 1;
        n *= (d->box[i] + es - 1) / es;
    }
    return (uint32_t)((n * bits_of(d->dtype) + 7) / 8);
}

static void json_ranges(FILE *f, const uint8_t *a, const uint8_t *b, size_t n, int64_t origin)
{
    fputc('[', f);
    int first = 1;
    for (size_t i = 0; i < n;) {
        if (a[i] != b[i]) {
            i++;
            continue;
        }
        size_t j = i;
        while (j < n && a[j] == b[j])
            j++;
        fprintf(f, "%s[%lld,%lld]", first ? "" : ",", (long long)((int64_t)i + origin), (long long)((int64_t)j + origin));
        first = 0;
        i = j;
    }
    fputc(']', f);
}

static void written_extent(const uint8_t *a, const uint8_t *b, size_t n, size_t *lo, size_t *hi)
{
    *lo = n;
    *hi = 0;
    for (size_t i = 0; i < n; i++)
        if (a[i] == b[i]) {
            if (i < *lo)
                *lo = i;
            *hi = i + 1;
        }
}

void hw_case_head(FILE *f, const hw_layout_case *c, const tm_desc *d)
{
    fprintf(f, "{\"id\":%u,\"group\":\"%s\",\"kind\":\"%s\",\"smem_offset\":%u,", c->id, c->group,
            c->store ? "store" : "load", c->smem_offset);
    hw_json_desc(f, d);
    fprintf(f, ",\"coords\":[");
    for (uint32_t i = 0; i < d->rank && i < TM_MAX_RANK; i++)
        fprintf(f, "%s%d", i ? "," : "", c->coords[i]);
    fprintf(f, "]");
}

#define CK(x)                                                                                 \
    do {                                                                                      \
        cudaError_t e_ = (x);                                                                 \
        if (e_ != cudaSuccess) {                                                              \
            fprintf(out, ",\"fault\":\"%s at %s\"}\n", cudaGetErrorName(e_), #x);             \
            fflush(out);                                                                      \
            obs.fault = 1;                                                                    \
            verdict(vf, c, &obs);                                                             \
            rc = (int)e_;                                                                     \
            goto done;                                                                        \
        }                                                                                     \
    } while (0)

static size_t collect_ranges(const uint8_t *a, const uint8_t *b, size_t n, int64_t origin, replay_range **out)
{
    size_t cap = 16, k = 0;
    replay_range *r = (replay_range *)malloc(cap * sizeof *r);
    for (size_t i = 0; r && i < n;) {
        if (a[i] != b[i]) {
            i++;
            continue;
        }
        size_t j = i;
        while (j < n && a[j] == b[j])
            j++;
        if (k == cap) {
            cap *= 2;
            r = (replay_range *)realloc(r, cap * sizeof *r);
            if (!r)
                break;
        }
        r[k].begin = (int64_t)i + origin;
        r[k].end = (int64_t)j + origin;
        k++;
        i = j;
    }
    *out = r;
    return r ? k : 0;
}

static void verdict(FILE *vf, const hw_layout_case *c, const replay_layout_obs *o)
{
    char detail[400] = "", params[512];
    int v = replay_check_layout(o, detail, sizeof detail);
    replay_describe_desc(&o->desc, o->coords, o->smem_address, params, sizeof params);
    fprintf(vf, "%s\t%u\t%d\t%s\t%s\n", c->store ? "store" : "load", c->id, v, params, detail);
    fflush(vf);
}

int hw_run_layout_case(const hw_layout_case *c, FILE *out, FILE *vf)
{
    replay_layout_obs obs;
    replay_range *ranges = NULL;
    memset(&obs, 0, sizeof obs);
    obs.store = c->store;
    memcpy(obs.coords, c->coords, sizeof obs.coords);
    /* until the kernel reports the real address: same alignment (the buffer is 1024-aligned) */
    obs.smem_address = 1024 + c->smem_offset;
    int rc = 0;
    tm_desc d = c->desc;
    const uint64_t extent = hw_tensor_extent(&d);
    const uint64_t margin = 4096;
    const uint64_t alloc = extent + 2 * margin + 2048;
    uint8_t *dev = NULL, *dinit = NULL, *ddump = NULL;
    unsigned long long *dstatus = NULL;
    uint8_t *himg = NULL, *hA = NULL, *hB = NULL, *gA = NULL, *gB = NULL;
    unsigned long long st[2][5] = {{0}};
    CUtensorMap map;
    CUresult er;
    uint32_t expect_tx = hw_dense_box_bytes(&d);
    uint32_t probe_tx[2] = {0, 0};
    int probe_done[2] = {0, 0}, nprobe = 0;
    uint64_t ga_off;

    if (extent > (256ull << 20)) {
        hw_case_head(out, c, &d);
        fprintf(out, ",\"runner_error\":\"tensor extent %llu too large for the runner\"}\n", (unsigned long long)extent);
        fprintf(vf, "%s\t%u\t%d\t-\trunner: tensor too large\n", c->store ? "store" : "load", c->id, REPLAY_UNUSABLE);
        return 0;
    }
    if (cudaMalloc(&dev, alloc) != cudaSuccess) {
        hw_case_head(out, c, &d);
        fprintf(out, ",\"runner_error\":\"cudaMalloc %llu\"}\n", (unsigned long long)alloc);
        fprintf(vf, "%s\t%u\t%d\t-\trunner: cudaMalloc failed\n", c->store ? "store" : "load", c->id, REPLAY_UNUSABLE);
        return 0;
    }
    {
        uint64_t raw = reinterpret_cast<uint64_t>(dev);
        uint64_t ga = ((raw + margin + 1023) & ~1023ull) + c->global_misalign;
        d.global_address = ga;
        ga_off = ga - raw;
    }
    er = hw_encode(&d, &map);
    hw_case_head(out, c, &d);
    fprintf(out, ",\"encode\":{\"accepted\":%s,\"cu_result\":%d,\"cu_name\":\"%s\"}", er == CUDA_SUCCESS ? "true" : "false",
            (int)er, hw_cu_name(er));
    obs.desc = d;
    obs.encode_accepted = er == CUDA_SUCCESS;
    obs.cu_result = (int)er;
    if (er != CUDA_SUCCESS) {
        fprintf(out, "}\n");
        verdict(vf, c, &obs);
        cudaFree(dev);
        return 0;
    }
    himg = (uint8_t *)malloc(alloc > HW_SMEM_BUF ? alloc : HW_SMEM_BUF);
    hA = (uint8_t *)malloc(HW_SMEM_BUF);
    hB = (uint8_t *)malloc(HW_SMEM_BUF);
    gA = (uint8_t *)malloc(alloc);
    gB = (uint8_t *)malloc(alloc);
    CK(cudaMalloc(&dinit, HW_SMEM_BUF));
    CK(cudaMalloc(&ddump, HW_SMEM_BUF));
    CK(cudaMalloc(&dstatus, sizeof st[0]));
    CK(cudaFuncSetAttribute(tma_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)(HW_SMEM_BUF + 1024)));

    for (int run = 0; run < 2; run++) {
        const uint8_t flip = run ? 0xFF : 0x00;
        /* global side */
        for (uint64_t i = 0; i < alloc; i++) {
            uint64_t off = i - ga_off; /* two's complement before the tensor */
            himg[i] = c->store ? (uint8_t)(replay_fill_byte(REPLAY_SEED_STORE_PREFILL, off) ^ flip)
                               : replay_fill_byte(REPLAY_SEED_GLOBAL, off);
        }
        CK(cudaMemcpy(dev, himg, alloc, cudaMemcpyHostToDevice));
        /* shared side */
        for (uint32_t i = 0; i < HW_SMEM_BUF; i++)
            himg[i] = c->store ? replay_fill_byte(REPLAY_SEED_STORE_SRC, i)
                               : (uint8_t)(replay_fill_byte(REPLAY_SEED_SMEM_SENTINEL, i) ^ flip);
        CK(cudaMemcpy(dinit, himg, HW_SMEM_BUF, cudaMemcpyHostToDevice));
        CK(cudaMemset(dstatus, 0, sizeof st[0]));
        tma_params p;
        memset(&p, 0, sizeof p);
        p.store = c->store;
        p.rank = (int)d.rank;
        for (int i = 0; i < TM_MAX_RANK; i++)
            p.c[i] = c->coords[i];
        p.smem_offset = c->smem_offset;
        p.expect_tx = expect_tx;
        p.init = dinit;
        p.dump = ddump;
        p.timeout_ns = HW_TIMEOUT_NS;
        p.status = dstatus;
        tma_kernel<<<1, 128, HW_SMEM_BUF + 1024>>>(map, p);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(st[run], dstatus, sizeof st[0], cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(run ? hB : hA, ddump, HW_SMEM_BUF, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(run ? gB : gA, dev, alloc, cudaMemcpyDeviceToHost));
    }
    /* Completion at expect_tx only says it is a prefix sum of the pieces the copy
     * delivers (see sim/replay.c): probe the written byte count as well. */
    if (!c->store) {
        size_t nw = 0;
        for (size_t i = 0; i < HW_SMEM_BUF; i++)
            nw += hA[i] == hB[i];
        const uint32_t cands[2] = {(uint32_t)nw, (uint32_t)(nw / 2)};
        /* always the written byte count; half of it too after a hang */
        const int ncand = st[0][0] ? 1 : 2;
        for (int k = 0; k < ncand; k++) {
            tma_params p;
            memset(&p, 0, sizeof p);
            p.store = 0;
            p.rank = (int)d.rank;
            for (int i = 0; i < TM_MAX_RANK; i++)
                p.c[i] = c->coords[i];
            p.smem_offset = c->smem_offset;
            p.expect_tx = cands[k];
            p.init = dinit;
            p.dump = ddump;
            p.timeout_ns = HW_TIMEOUT_NS;
            p.status = dstatus;
            CK(cudaMemset(dstatus, 0, sizeof st[0]));
            tma_kernel<<<1, 128, HW_SMEM_BUF + 1024>>>(map, p);
            CK(cudaGetLastError());
            CK(cudaDeviceSynchronize());
            unsigned long long pst[5];
            CK(cudaMemcpy(pst, dstatus, sizeof pst, cudaMemcpyDeviceToHost));
            probe_tx[k] = cands[k];
            probe_done[k] = (int)pst[0];
        }
        nprobe = ncand;
    }
    {
        const uint32_t base = (uint32_t)st[0][3];
        const uint32_t dst = (uint32_t)st[0][4];
        fprintf(out, ",\"expect_tx\":%u,\"completed\":%s,\"completed_b\":%s,\"elapsed_ns\":%llu,\"mbar_raw\":\"0x%016llx\"",
                expect_tx, st[0][0] ? "true" : "false", st[1][0] ? "true" : "false", st[0][1], st[0][2]);
        fprintf(out, ",\"smem_base\":%u,\"smem_address\":%u,\"smem_size\":%u", base, dst, HW_SMEM_BUF);
        if (nprobe) {
            fprintf(out, ",\"tx_probe\":[");
            for (int k = 0; k < nprobe; k++)
                fprintf(out, "%s{\"expect_tx\":%u,\"completed\":%s}", k ? "," : "", probe_tx[k],
                        probe_done[k] ? "true" : "false");
            fprintf(out, "]");
        }
        if (!c->store) {
            size_t lo, hi;
            written_extent(hA, hB, HW_SMEM_BUF, &lo, &hi);
            size_t ws = c->smem_offset >= 128 ? c->smem_offset - 128 : 0;
            size_t we = c->smem_offset + expect_tx;
            if (hi > we)
                we = hi;
            we += 128;
            if (we > HW_SMEM_BUF)
                we = HW_SMEM_BUF;
            if (lo < ws)
                ws = lo;
            fprintf(out, ",\"written\":");
            json_ranges(out, hA, hB, HW_SMEM_BUF, (int64_t)base);
            fprintf(out, ",\"window_start\":%llu,\"hex\":\"", (unsigned long long)(base + ws));
            hw_json_hex(out, hA + ws, we - ws);
            fprintf(out, "\"");
            obs.window_start = base + ws;
            obs.window = hA + ws;
            obs.window_len = we - ws;
            obs.nwritten = collect_ranges(hA, hB, HW_SMEM_BUF, (int64_t)base, &ranges);
        } else {
            size_t lo, hi;
            written_extent(gA, gB, alloc, &lo, &hi);
            /* shared source must be untouched by a store: compare dumps with the image */
            int src_changed = memcmp(hA, himg, HW_SMEM_BUF) != 0;
            size_t ws = lo < hi ? (lo > 64 ? lo - 64 : 0) : ga_off;
            size_t we = lo < hi ? hi + 64 : ga_off + 64;
            if (we > alloc)
                we = alloc;
            fprintf(out, ",\"smem_source_changed\":%s,\"global_written\":", src_changed ? "true" : "false");
            json_ranges(out, gA, gB, alloc, -(int64_t)ga_off);
            fprintf(out, ",\"global_window_start\":%lld,\"global_hex\":\"", (long long)((int64_t)ws - (int64_t)ga_off));
            hw_json_hex(out, gA + ws, we - ws);
            fprintf(out, "\"");
            obs.window_start = (int64_t)ws - (int64_t)ga_off;
            obs.window = gA + ws;
            obs.window_len = we - ws;
            obs.nwritten = collect_ranges(gA, gB, alloc, -(int64_t)ga_off, &ranges);
        }
        obs.written = ranges;
        obs.nprobe = nprobe;
        for (int k = 0; k < nprobe; k++) {
            obs.probe_tx[k] = probe_tx[k];
            obs.probe_completed[k] = probe_done[k];
        }
        obs.expect_tx = expect_tx;
        obs.completed = (int)st[0][0];
        obs.smem_base = base;
        obs.smem_address = dst;
        obs.smem_size = HW_SMEM_BUF;
        fprintf(out, "}\n");
        verdict(vf, c, &obs);
    }
    fflush(out);
done:
    free(ranges);
    cudaFree(dev);
    cudaFree(dinit);
    cudaFree(ddump);
    cudaFree(dstatus);
    free(himg);
    free(hA);
    free(hB);
    free(gA);
    free(gB);
    return rc;
}
