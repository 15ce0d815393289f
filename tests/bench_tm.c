/* bench_tm: elements placed per second on one core (target >= 100M/s).
 * Placing = planning a box (tm_plan_copy) and computing the shared-memory address of
 * every element of it, over a mix of swizzles, data types, ranks and box positions
 * (some partly out of bounds). The main figure goes through tm_plan_foreach; the
 * forward query tm_plan_element is timed too, for information. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tm.h"

#define TARGET_PER_S 100e6
#define MIN_SECONDS 0.5

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct shape {
    tm_dtype dtype;
    uint32_t rank;
    uint32_t box[3];
    tm_swizzle swizzle;
} shape;

/* Boxes people actually load: the swizzle span bounds the inner box. */
static const shape mix[] = {
    {TM_DTYPE_F16, 2, {64, 64, 1}, TM_SWIZZLE_128B},
    {TM_DTYPE_BF16, 2, {64, 128, 1}, TM_SWIZZLE_128B},
    {TM_DTYPE_F16, 2, {32, 64, 1}, TM_SWIZZLE_64B},
    {TM_DTYPE_F16, 2, {16, 64, 1}, TM_SWIZZLE_32B},
    {TM_DTYPE_F32, 2, {32, 32, 1}, TM_SWIZZLE_NONE},
    {TM_DTYPE_U8, 2, {128, 64, 1}, TM_SWIZZLE_128B},
    {TM_DTYPE_F32, 3, {32, 16, 4}, TM_SWIZZLE_128B},
    {TM_DTYPE_F16, 2, {16, 64, 1}, TM_SWIZZLE_128B},   /* narrow rows: pitch = span */
};
#define MIX (sizeof mix / sizeof mix[0])

static void make_desc(const shape *s, tm_desc *d)
{
    tm_desc_defaults(d);
    d->dtype = s->dtype;
    d->rank = s->rank;
    uint64_t elem_bytes = tm_dtype_get(s->dtype)->bits / 8;
    uint64_t stride = 1024 * elem_bytes;
    for (uint32_t i = 0; i < s->rank; i++) {
        d->dims[i] = 1024;
        d->box[i] = s->box[i];
        if (i + 1 < s->rank) {
            d->strides[i] = stride;
            stride *= 1024;
        }
    }
    d->swizzle = s->swizzle;
}

typedef struct sink {
    uint64_t acc;
    uint64_t count;
} sink;

static int visit(const tm_element *el, void *user)
{
    sink *k = user;
    k->acc += el->smem_address ^ (uint64_t)el->oob;
    k->count++;
    return 0;
}

int main(void)
{
    tm_desc descs[MIX];
    for (size_t i = 0; i < MIX; i++) {
        make_desc(&mix[i], &descs[i]);
        err_info e;
        if (tm_validate(&descs[i], &e) != ERR_OK) {
            fprintf(stderr, "bench_tm: mix entry %zu rejected: %s: %s\n", i, e.rule, e.detail);
            return 1;
        }
    }

    /* Through tm_plan_foreach. */
    sink k = {0, 0};
    uint64_t boxes = 0;
    double t0 = now(), elapsed = 0;
    for (uint32_t round = 0; elapsed < MIN_SECONDS; round++) {
        for (uint32_t rep = 0; rep < 64; rep++) {
            for (size_t i = 0; i < MIX; i++) {
                /* Positions move, a few boxes hang over the tensor's edges. */
                tm_copy c = {.coords = {16 * (int32_t)(((rep * 37 + round) % 1100) / 16) - 48, (int32_t)((rep * 11) % 1000) - 8, 1},
                             .smem_address = 1024u * ((rep + (uint32_t)i) % 64)};
                tm_plan p;
                err_info e;
                if (tm_plan_copy(&descs[i], &c, &p, &e) != ERR_OK) {
                    fprintf(stderr, "bench_tm: tm_plan_copy: %s: %s\n", e.rule, e.detail);
                    return 1;
                }
                tm_plan_foreach(&p, visit, &k);
                boxes++;
            }
        }
        elapsed = now() - t0;
    }
    double per_s = (double)k.count / elapsed;

    /* Through tm_plan_element, one call per element. */
    sink q = {0, 0};
    t0 = now();
    double elapsed2 = 0;
    for (uint32_t round = 0; elapsed2 < MIN_SECONDS; round++) {
        for (size_t i = 0; i < MIX; i++) {
            tm_copy c = {.coords = {16 * (int32_t)(round % 32), 3, 0}, .smem_address = 2048};
            tm_plan p;
            err_info e;
            if (tm_plan_copy(&descs[i], &c, &p, &e) != ERR_OK)
                return 1;
            uint32_t idx[TM_MAX_RANK] = {0};
            for (uint64_t n = 0; n < p.elements; n++) {
                tm_element el;
                tm_plan_element(&p, idx, &el);
                q.acc += el.smem_address;
                q.count++;
                for (uint32_t d = 0; d < p.desc.rank; d++) {
                    if (++idx[d] < p.loaded[d])
                        break;
                    idx[d] = 0;
                }
            }
        }
        elapsed2 = now() - t0;
    }
    double per_s2 = (double)q.count / elapsed2;

    printf("bench_tm: elements placed per second (tm_plan_foreach, %zu box shapes, %llu boxes, %.2f s): "
           "%.1f M/s  target >= %.0f M/s  %s\n",
           MIX, (unsigned long long)boxes, elapsed, per_s / 1e6, TARGET_PER_S / 1e6,
           per_s >= TARGET_PER_S ? "PASS" : "MISS");
    printf("bench_tm: elements placed per second (tm_plan_element per element, %.2f s): %.1f M/s  (information)\n",
           elapsed2, per_s2 / 1e6);
    /* The checksum keeps the work observable (no dead-code elimination). */
    printf("bench_tm: checksum %llx\n", (unsigned long long)(k.acc ^ q.acc));
    return 0;
}
