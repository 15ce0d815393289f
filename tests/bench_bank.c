/* bench_bank: warp instructions analysed per second on one core (target >= 20M/s).
 * The mix covers every op (ld/st 32/64/128-bit, ldmatrix/stmatrix x1/x2/x4) over
 * conflict-free, strided (worst case), broadcast, duplicate-heavy and random
 * addresses, so the figure is not the best case alone.
 * Two figures, each named by what it computes:
 *  - bank_analyse_counts: the analysis `tmasim bank`'s table, the pipeline simulator and
 *    the hardware replay use: wavefronts, ideal, conflicts, worst bank, colliding lanes
 *    and banks. The target is judged on this one.
 *  - bank_analyse: the same plus the lane set of every wavefront (for pictures and
 *    `tmasim bank --format json`), printed beside it with its own verdict. */
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
    /* the same mix through bank_analyse_counts, for at least as long */
    uint64_t counted = 0;
    double t1 = now(), c1 = cpu_now(), elapsed_counts = 0;
    while (elapsed_counts < MIN_SECONDS) {
        for (uint32_t rep = 0; rep < 4096; rep++)
            for (uint32_t i = 0; i < MIX; i++) {
                bank_analyse_counts(&mix[i], &r, NULL);
                sink += r.wavefronts ^ r.colliding_lanes;
            }
        counted += 4096ull * MIX;
        elapsed_counts = now() - t1;
    }
    double counts_per_s = (double)counted / (cpu_now() - c1);
    printf("bench_bank: warp instructions analysed per second (%d ops x %d address patterns), one core:\n",
           BANK_OP_COUNT, PATTERNS);
    printf("bench_bank:   counts (bank_analyse_counts: wavefronts, ideal, conflicts, colliding lanes/banks): "
           "%.1f M/s per CPU-second (wall clock %.1f M/s)  target >= %.0f M/s  %s\n",
           counts_per_s / 1e6, (double)counted / elapsed_counts / 1e6, TARGET_PER_S / 1e6,
           counts_per_s >= TARGET_PER_S ? "PASS" : "MISS");
    printf("bench_bank:   with per-wavefront lane sets (bank_analyse, for pictures and JSON): "
           "%.1f M/s per CPU-second (wall clock %.1f M/s)  (%s the same target)\n",
           per_s / 1e6, wall_per_s / 1e6, per_s >= TARGET_PER_S ? "meets" : "below");

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
