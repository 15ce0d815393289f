/* bench_bank: warp instructions analysed per second on one core (target >= 20M/s).
 * The mix covers every op (ld/st 32/64/128-bit, ldmatrix/stmatrix x1/x2/x4) over
 * conflict-free, strided (worst case), broadcast, duplicate-heavy and random
 * addresses, so the figure is not the best case alone. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bank.h"

#define TARGET_PER_S 20e6
#define MIN_SECONDS 0.5
#define PATTERNS 6
#define MIX (BANK_OP_COUNT * PATTERNS * 4)

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double now(void) { return clock_s(CLOCK_MONOTONIC); }

/* Time this process spent on a core: the "one core" figure, which wall-clock time
 * understates when other work shares the machine. */
static double cpu_now(void) { return clock_s(CLOCK_PROCESS_CPUTIME_ID); }

static const char *const pattern_names[PATTERNS] = {"contiguous", "one bank column", "broadcast",
                                                     "duplicates", "128B-swizzled rows", "random"};

static uint32_t xorshift(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

int main(void)
{
    static bank_instr mix[MIX];
    uint32_t rng = 2463534242u;
    uint32_t per_pattern[PATTERNS] = {0};
    for (uint32_t i = 0; i < MIX; i++) {
        bank_instr *in = &mix[i];
        memset(in, 0, sizeof *in);
        in->op = (bank_op)(i % BANK_OP_COUNT);
        uint32_t pattern = (i / BANK_OP_COUNT) % PATTERNS;
        per_pattern[pattern]++;
        uint32_t w = bank_op_access_bytes(in->op);
        for (uint32_t l = 0; l < BANK_LANES; l++) {
            uint32_t r = xorshift(&rng);
            switch (pattern) {
            case 0: in->addr[l] = l * w; break;                          /* contiguous: conflict-free */
            case 1: in->addr[l] = l * 128; break;                        /* one bank column: worst case */
            case 2: in->addr[l] = 64; break;                             /* broadcast */
            case 3: in->addr[l] = (l % 4) * w * 8; break;                /* duplicates */
            case 4: in->addr[l] = ((l * 128) ^ ((l % 8) << 4)) & ~(w - 1); break; /* 128B-swizzled rows */
            default: in->addr[l] = (r % (16384 / w)) * w; break;         /* random */
            }
        }
        bank_result check;
        err_info e;
        if (bank_analyse(in, &check, &e) != ERR_OK) {
            fprintf(stderr, "bench_bank: mix entry %u (%s): %s: %s\n", i, bank_op_name(in->op), e.rule, e.detail);
            return 1;
        }
    }

    bank_result r;
    uint64_t sink = 0, done = 0;
    double t0 = now(), c0 = cpu_now(), elapsed = 0;
    while (elapsed < MIN_SECONDS) {
        for (uint32_t rep = 0; rep < 4096; rep++)
            for (uint32_t i = 0; i < MIX; i++) {
                bank_analyse(&mix[i], &r, NULL);
                sink += r.wavefronts ^ r.colliding_lanes;
            }
        done += 4096ull * MIX;
        elapsed = now() - t0;
    }
    double per_s = (double)done / (cpu_now() - c0), wall_per_s = (double)done / elapsed;
    printf("bench_bank: warp instructions analysed per second (%d ops x %d address patterns, %.2f s): "
           "%.1f M/s per CPU-second (wall clock %.1f M/s)  target >= %.0f M/s  %s\n",
           BANK_OP_COUNT, PATTERNS, elapsed, per_s / 1e6, wall_per_s / 1e6, TARGET_PER_S / 1e6,
           per_s >= TARGET_PER_S ? "PASS" : "MISS");

    /* For comparison (the target is bank_analyse's): the same mix through
     * bank_analyse_counts, which leaves out the per-wavefront lane sets. */
    {
        uint64_t n = 0;
        double p0 = cpu_now();
        for (uint32_t rep = 0; rep < 4096; rep++)
            for (uint32_t i = 0; i < MIX; i++) {
                bank_analyse_counts(&mix[i], &r, NULL);
                sink += r.wavefronts ^ r.colliding_lanes;
                n++;
            }
        printf("bench_bank:   bank_analyse_counts (no wf[] lane sets) %.1f M/s\n", (double)n / (cpu_now() - p0) / 1e6);
    }

    /* Where the time goes: each address pattern alone (all ops), per CPU-second. */
    for (uint32_t pattern = 0; pattern < PATTERNS; pattern++) {
        uint64_t n = 0;
        double p0 = cpu_now();
        for (uint32_t rep = 0; rep < 2048; rep++)
            for (uint32_t i = 0; i < MIX; i++) {
                if ((i / BANK_OP_COUNT) % PATTERNS != pattern)
                    continue;
                bank_analyse(&mix[i], &r, NULL);
                sink += r.wavefronts ^ r.colliding_lanes;
                n++;
            }
        printf("bench_bank:   %-19s %6.1f M/s\n", pattern_names[pattern], (double)n / (cpu_now() - p0) / 1e6);
    }
    /* The checksum keeps the work observable (no dead-code elimination). */
    printf("bench_bank: checksum %llx\n", (unsigned long long)sink);
    return 0;
}
