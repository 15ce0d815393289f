/* bench_wgmma: operand element placements per second on one core (target >= 50M/s):
 * the shared address of every element of a descriptor-addressed operand
 * (wg_addresses), over a mix of types, operands, major-ness and swizzles. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "wgmma.h"

#define TARGET_PER_S 50e6
#define MIN_SECONDS 0.5

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const struct { wg_shape s; wg_desc d; } mix[] = {
    {{WG_F16, WG_A, WG_K_MAJOR, 16}, {0x4400, 16, 1024, 0, WG_SWZ_128B}},
    {{WG_BF16, WG_B, WG_K_MAJOR, 256}, {0x8000, 16, 1024, 0, WG_SWZ_128B}},
    {{WG_F16, WG_B, WG_MN_MAJOR, 128}, {0x4000, 8192, 1024, 0, WG_SWZ_128B}},
    {{WG_E4M3, WG_A, WG_K_MAJOR, 32}, {0x2000, 16, 512, 0, WG_SWZ_64B}},
    {{WG_TF32, WG_B, WG_K_MAJOR, 64}, {0x1000, 16, 256, 0, WG_SWZ_32B}},
    {{WG_F16, WG_A, WG_K_MAJOR, 16}, {0x4400, 1024, 128, 0, WG_SWZ_NONE}},
    {{WG_S8, WG_B, WG_K_MAJOR, 128}, {0x6000, 2048, 128, 0, WG_SWZ_NONE}},
};
#define MIX (sizeof mix / sizeof mix[0])

int main(void)
{
    uint32_t *out = malloc(sizeof *out * 256 * 32);
    if (!out)
        return 1;
    uint64_t count = 0, acc = 0;
    double t0 = now(), elapsed = 0;
    for (uint32_t round = 0; elapsed < MIN_SECONDS; round++) {
        for (uint32_t rep = 0; rep < 256; rep++)
            for (size_t i = 0; i < MIX; i++) {
                wg_desc d = mix[i].d;
                d.start += 16 * ((rep + round) % 64);
                wg_addresses(&mix[i].s, &d, out);
                uint32_t n = wg_elements(&mix[i].s);
                acc += out[n - 1] ^ out[rep % n];
                count += n;
            }
        elapsed = now() - t0;
    }
    double per_s = (double)count / elapsed;
    printf("bench_wgmma: operand element placements per second (wg_addresses, %zu forms, %.2f s): %.1f M/s  "
           "target >= %.0f M/s  %s  (checksum %llu)\n",
           MIX, elapsed, per_s / 1e6, TARGET_PER_S / 1e6, per_s >= TARGET_PER_S ? "PASS" : "MISS",
           (unsigned long long)(acc & 0xFFFF));
    free(out);
    return 0;
}
