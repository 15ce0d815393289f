/* GPU tests: tmahw on a few cases whose answers are documented facts (CUDA guide,
 * PTX ISA, driver documentation) or measured rules recorded in hw/README.md. They
 * run where an NVIDIA GPU and the tmahw binary are present and are skipped with the
 * reason elsewhere. hw/gpu-check.sh runs the same checks on the GPU machine, where
 * Criterion is not installed. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef TMAHW_BIN
#define TMAHW_BIN "build/rel/tmahw"
#endif

static void need_gpu(void)
{
    if (access("/dev/nvidia0", F_OK) != 0)
        cr_skip_test("no NVIDIA GPU: /dev/nvidia0 is absent");
    if (access(TMAHW_BIN, X_OK) != 0)
        cr_skip_test("no NVIDIA GPU tooling: %s is not built (needs nvcc)", TMAHW_BIN);
}

/* Runs tmahw with args; returns the exit status and the output (caller frees). */
static int tmahw(const char *args, char **out)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s %s 2>&1", TMAHW_BIN, args);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t k;
    while ((k = fread(buf + n, 1, cap - n - 1, p)) > 0)
        n += k;
    buf[n] = 0;
    int st = pclose(p);
    *out = buf;
    int rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
    if (rc == 2 && strstr(buf, "no usable GPU"))
        cr_skip_test("no NVIDIA GPU: %s", buf);
    return rc;
}

static void seq(char *buf, size_t size, unsigned start, unsigned step, unsigned count)
{
    size_t at = 0;
    for (unsigned i = 0; i < count; i++)
        at += (size_t)snprintf(buf + at, size - at, "%s%u", i ? "," : "", start + i * step);
}

static void bank_expect(const char *op, unsigned step, const char *want)
{
    need_gpu();
    char addr[512], args[700], *out;
    seq(addr, sizeof addr, 0, step, 32);
    snprintf(args, sizeof args, "bank --op %s --addr %s", op, addr);
    int rc = tmahw(args, &out);
    cr_expect_eq(rc, 0, "exit %d: %s", rc, out);
    cr_expect(strstr(out, want) != NULL, "wanted '%s' in: %s", want, out);
    free(out);
}

/* CUDA guide: 32 consecutive words, one request, no conflict. */
Test(hw_bank, lds32_consecutive_is_one_wavefront) { bank_expect("lds32", 4, "wavefronts 1, conflicts 0"); }
/* 32 different words of one bank: 32-way conflict. */
Test(hw_bank, lds32_one_bank_is_32_wavefronts) { bank_expect("lds32", 128, "wavefronts 32, conflicts 31"); }
/* 512 contiguous bytes of 128-bit loads: four wavefronts, none a conflict. */
Test(hw_bank, lds128_consecutive_is_four_wavefronts) { bank_expect("lds128", 16, "wavefronts 4, conflicts 0"); }
/* ldmatrix: one wavefront per conflict-free 8x8 matrix. */
Test(hw_bank, ldsm_x4_contiguous_rows) { bank_expect("ldsm.x4", 16, "wavefronts 4, conflicts 0"); }

static void layout_expect(const char *args, int want_rc, const char *want)
{
    need_gpu();
    char *out;
    int rc = tmahw(args, &out);
    cr_expect_eq(rc, want_rc, "exit %d: %s", rc, out);
    cr_expect(strstr(out, want) != NULL, "wanted '%s' in: %s", want, out);
    free(out);
}

Test(hw_layout, swizzle128_tile_matches_model)
{
    layout_expect("layout --dtype f16 --dims 128,128 --box 64,64 --swizzle 128B --coords 64,32", 0, "agree");
}
/* Swizzle is applied on the absolute address: destination 128*3 into a 1024 block. */
Test(hw_layout, swizzle128_at_offset_384_matches_model)
{
    layout_expect("layout --dtype f16 --dims 128,128 --box 64,16 --swizzle 128B --coords 0,8 --smem-address 0x580", 0,
                  "agree");
}
Test(hw_layout, tensor_store_matches_model)
{
    layout_expect("layout --store --dtype f16 --dims 128,64 --box 32,8 --swizzle 64B --coords 32,4", 0, "agree");
}
/* Driver documentation: boxDim at most 256. */
Test(hw_layout, box_257_is_rejected_by_driver)
{
    layout_expect("layout --dtype f16 --dims 512,512 --box 8,257", 1, "driver: rejected");
}
/* Measured (hw/README.md): coords[0] * element size must be a multiple of 16 bytes. */
Test(hw_layout, unaligned_inner_coordinate_faults)
{
    layout_expect("layout --dtype f32 --dims 40,20 --box 16,8 --coords -5,-3", 1, "FAULTED");
}
