#include "params.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define P(field) offsetof(pipe_params, field)
#define SHEET "shared/reference/hopper-facts.md"
#define JIA "Jia et al., Dissecting the NVIDIA Volta/Turing GPU Architecture via Microbenchmarking, arXiv:1804.06826"
#define PUB "published microbenchmarks quoted by " SHEET " (arXiv 2402.13499, 2501.12084)"

/* Defaults marked "estimate" are leads for the hardware runner (issue 5) to replace
 * with measurements; the simulator's comparison against recorded traces is what
 * validates them. */
static const params_info table[] = {
    {"sm_count", P(sm_count), 132, "SMs", SHEET ": H100 SXM has 132 SMs"},
    {"clock_ghz", P(clock_ghz), 1.98, "GHz", SHEET ": measured 1.98 GHz under load"},
    {"hbm_bytes_per_ns", P(hbm_bytes_per_ns), 3000, "B/ns", SHEET ": measured ~3.0 TB/s device-to-device copy, bytes read + written (datasheet 3.35)"},
    {"l2_bytes_per_ns", P(l2_bytes_per_ns), 5500, "B/ns",
     "estimate (no measured L2 hit bandwidth in " SHEET "): about 1.8x the DRAM rate; re-measure"},
    {"tma_bytes_per_ns_sm", P(tma_bytes_per_ns_sm), 253, "B/ns",
     "estimate bounded by " PUB ": shared-memory bandwidth ~128 B/cycle/SM, which TMA writes land in, x 1.98 GHz"},
    {"hbm_latency_ns", P(hbm_latency_ns), 333, "ns",
     SHEET ", measured: a 4 KB TMA box completes 320-350 ns after issue on an idle H100; the upper end taken for "
     "DRAM (the sheet does not separate L2 from DRAM), less the 16.2 ns the model spends moving 4 KB at "
     "tma_bytes_per_ns_sm (the model: 349 ns); the first load of a run (~540 ns) is not modelled"},
    {"l2_latency_ns", P(l2_latency_ns), 304, "ns",
     SHEET ", measured: the lower end (320 ns) of the same 4 KB TMA completion, less the model's 16.2 ns transfer"},
    {"dsmem_latency_ns", P(dsmem_latency_ns), 100, "ns", PUB ": distributed shared memory ~180-210 cycles = 91-106 ns at 1.98 GHz"},
    {"tma_issue_ns", P(tma_issue_ns), 360, "ns",
     "measured: traces/h100/pipelines/, the producer's first to second tma_issue of a stage (two tensors): "
     "median 357 ns ws4_tma, 359 splitk_reduce, 366 compute_bound, 377 cluster2_multicast: warp time per "
     "cp.async.bulk.tensor as the generated kernel issues it (tensor map passed as a __grid_constant__ parameter)"},
    {"arrive_ns", P(arrive_ns), 73, "ns",
     "measured: traces/h100/pipelines/cluster2_multicast.tmt, the rank-0 consumers' release of a stage to their own "
     "CTA (local mbarrier.arrive) to their release to the peer: median 73 ns (p10 73, p90 73; 512 steps of CTAs 0-7): warp "
     "time of a local arrive as the generated kernel issues it (hw/run_kernel.cuh release_upto), with its loop"},
    {"wake_ns", P(wake_ns), 40, "ns", "estimate: try_wait loop wake-up after phase completion; re-measure"},
    {"ldgsts_issue_cycles", P(ldgsts_issue_cycles), 673, "cycles",
     "measured: traces/h100/pipelines/cpasync_multistage.tmt, a warp copies its 4 KB share (8 cp.async of 16 B per "
     "lane) in 2.72 us (cpasync_issue of j to the unstalled read of j-1, CTA 0, iterations 20-21): 340 ns = 673 "
     "cycles per cp.async of the generated copy loop (each trip reads its chunk's offsets from a __device__ table, "
     "hw/run_kernel.cuh copy_share), not the LSU issue rate of a loop with its addresses in registers"},
    {"smem_cycles_per_wavefront", P(smem_cycles_per_wavefront), 1, "cycles",
     PUB ": shared-memory bandwidth ~128 B/cycle/SM = one 128-byte wavefront per cycle"},
    {"lsu_issue_cycles", P(lsu_issue_cycles), 19, "cycles",
     "measured: traces/h100/pipelines/, a consumer warp's smem_read spans of conflict-free 16-byte ld.shared.v4 "
     "take 19-21 cycles per instruction whether 2 or 4 warps read (so per warp, not the shared port): "
     "consumer_swizzle_128b 4897 ns / 512 instructions, compute_bound 338 ns / 32, double_buffer 89 ns / 8; "
     "the loads as the generated kernel issues them, each folded into the warp's checksum (hw/run_kernel.cuh "
     "consume). Only 128-bit loads were recorded; the value is used for every width"},
    {"ffma_cycles", P(ffma_cycles), 1, "cycles", "H100 whitepaper: 32 FP32 lanes per sub-partition = one warp FFMA per cycle"},
    {"mma_flops_per_cycle_smsp", P(mma_flops_per_cycle_smsp), 1024, "flop/cycle",
     "H100 whitepaper: 989 dense FP16 TFLOPS / (132 SMs x 4 sub-partitions x 1.83 GHz)"},
    {"store_latency_ns", P(store_latency_ns), 500, "ns", "estimate: TMA store to L2 and bulk wait_group; re-measure"},
    {"reduce_latency_ns", P(reduce_latency_ns), 700, "ns",
     "estimate: a TMA store plus the L2 read-modify-write of the destination; re-measure"},
    {"smem_latency_cycles", P(smem_latency_cycles), 30, "cycles",
     PUB ": shared-memory load latency ~29-30 cycles (added once per stage's reads)"},
    {"barsync_ns", P(barsync_ns), 20, "ns", "estimate: release of a CTA barrier (bar.sync), ~40 cycles; re-measure"},
    {"cta_launch_spread_ns", P(cta_launch_spread_ns), 320, "ns",
     SHEET ", measured: the CTAs of one 132-CTA launch started within about 320 ns (first-wave starts spread evenly)"},
    {"mma_latency_cycles", P(mma_latency_cycles), 27.3, "cycles",
     "measured: traces/h100/pipelines/compute_bound.tmt, math span 14172 ns for 4096 mma.sync.m16n8k16 per warp "
     "in 4 independent accumulator chains (hw/run_kernel.cuh MATH 2), one warp per sub-partition: "
     "(14172 ns - the 40 ns tail) x 1.98 GHz / 4096 = 6.83 cycles per mma = 27.3 / 4 chains; "
     "ws4_tma and cluster2_multicast (256 mma: 905-909 ns) agree within 3%"},
    {"math_tail_cycles", P(math_tail_cycles), 80, "cycles",
     "measured: traces/h100/pipelines/double_buffer.tmt math 170 ns for 256 FFMA (129 ns at 1 per cycle) and "
     "cpasync_multistage.tmt 300 ns for 512 (259 ns): +41 ns = 80 cycles per block, the generated kernel's sum "
     "of its 8 accumulators and __shfl_sync before the release"},
    {"expect_tx_ns", P(expect_tx_ns), 215, "ns",
     "measured: traces/h100/pipelines/, the producer's expect_tx to its first tma_issue of the stage: median "
     "198-232 ns over consumer_swizzle_128b, double_buffer, memory_bound, streaming, ws4_tma, splitk_reduce, "
     "compute_bound (215 memory_bound)"},
    {"remote_arrive_ns", P(remote_arrive_ns), 349, "ns",
     "measured: traces/h100/pipelines/stasync_cluster.tmt, the producer's remote arrive.expect_tx.release.cluster "
     "to the start of its copy loop: median 349 ns (p10 343, p90 358); independent check, the consumers' "
     "release.cluster arrive on the peer's empty barrier in cluster2_multicast.tmt: the rank-1 consumers' remote "
     "release to their local one, median 396 ns (p10 387, p90 405) incl. the loop (~323 ns beyond arrive_ns), and the step from the "
     "math's end to the next read, 719 ns there against 350 ns in ws4_tma.tmt (local release only): +369 ns"},
    {"consume_step_ns", P(consume_step_ns), 277, "ns",
     "measured: traces/h100/pipelines/ws4_tma.tmt, a consumer warp's end of math to its next smem_read when the "
     "stage is already full (no stall): median 350 ns (p10 349, 1008 steps of CTAs 0-7) = arrive_ns (73) + 277: the "
     "generated consume loop (hw/run_kernel.cuh: release, deferred event stores, the non-blocking test_wait "
     "probe of the next full barrier and its __all_sync) outside its reads, math and arrives. Checks (same "
     "measurement, other recordings): splitk_reduce 350, compute_bound 376, full_grid 371, consumer_swizzle_128b "
     "and _none 275, cluster2_multicast 719 = 73 + remote_arrive_ns + 297. The commit-group loop (cpasync_wait_prior: "
     "math end to the next cpasync_issue median 42 ns, p10 41, p90 43) has no mbarrier step and does not get it. Includes the recording's "
     "share (ws4_tma 2.1% of the kernel, ~37 ns per step)"},
    {"stas_trip_ns", P(stas_trip_ns), 571, "ns",
     "measured: traces/h100/pipelines/stasync_cluster.tmt, the producer's copy of a 4 KB stage (tma_flight, "
     "median 4568 ns over 64 stages) is 8 trips of 16 B per lane, each a dependent ld.global from DRAM then "
     "st.async (hw/run_kernel.cuh MODE 3): 571 ns per trip; data from DRAM (l2_hit 0) only"},
    {"l2_reuse_bytes", P(l2_reuse_bytes), 40e6, "bytes",
     "estimate: the H100 SXM datasheet's 50 MB L2 less what other traffic holds; re-measure (sweep of the "
     "bytes a cyclic re-read covers)"},
    {"clusters4_at1", P(clusters4_at1), 30, "clusters", "measured: cuOccupancyMaxActiveClusters of the generated kernel (tmahw run's clusters_resident) in the fit half of traces/h100/corpus, the same in traces/h200/corpus: 30 clusters of 4 with 1 CTA per SM (120 of 132 SMs)"},
    {"clusters4_at8", P(clusters4_at8), 248, "clusters", "measured: cuOccupancyMaxActiveClusters of the generated kernel (tmahw run's clusters_resident) in the fit half of traces/h100/corpus, the same in traces/h200/corpus: 248 with 8 and with 9 CTAs per SM (124 with 4, 154 with 5)"},
    {"clusters8_at1", P(clusters8_at1), 15, "clusters", "measured: cuOccupancyMaxActiveClusters of the generated kernel (tmahw run's clusters_resident) in the fit half of traces/h100/corpus, the same in traces/h200/corpus: 15 clusters of 8 with 1 CTA per SM"},
    {"clusters8_at8", P(clusters8_at8), 120, "clusters",
     "estimate: 8 x clusters8_at1 (no recording with 8 CTAs per SM in clusters of 8); re-measure"},
    {"clusters16_at1", P(clusters16_at1), 7, "clusters", "measured: cuOccupancyMaxActiveClusters of the generated kernel (tmahw run's clusters_resident) in the fit half of traces/h100/corpus, the same in traces/h200/corpus: 7 clusters of 16 with 1 CTA per SM (112 SMs; 14, 21, 35 with 2, 3, 5)"},
    {"clusters16_at8", P(clusters16_at8), 58, "clusters", "measured: cuOccupancyMaxActiveClusters of the generated kernel (tmahw run's clusters_resident) in the fit half of traces/h100/corpus, the same in traces/h200/corpus: 58 with 12 and with 14 CTAs per SM"},
    {"read_issue_cycles", P(read_issue_cycles), 6, "cycles", "estimate: ld.shared plus the checksum fold of its registers; fit on the corpus fit half"},
    {"step_issue_cycles", P(step_issue_cycles), 120, "cycles", "estimate: the consume step's instructions; fit on the corpus fit half"},
    {"kernel_overhead_ns", P(kernel_overhead_ns), 2000, "ns",
     "chosen on the corpus fit half (1000, 2000, 3000 tried; traces/h100/corpus, traces/h200/corpus): the time "
     "CUPTI counts outside the CTAs; of it, the traced CTA 0 starts a median 0.5 us (H100) / 1.0 us (H200) "
     "after the kernel's start in the fit half's traces; re-measure with an empty kernel"},
    {"produce_issue_cycles", P(produce_issue_cycles), 60, "cycles",
     "estimate: the producer's instructions of one stage (wait probe, expect_tx, copies, events); fit on the corpus fit half"},
    {"ldgsts_slot_cycles", P(ldgsts_slot_cycles), 320, "cycles",
     "estimate: one trip of the cp.async copy loop (its chunk table load, tile offset arithmetic and the "
     "cp.async); chosen from 16-640 on the corpus fit half (traces/h100/corpus, traces/h200/corpus): 320"},
};

/* Other built-in sets: the H100 defaults with these values replaced. */
typedef struct params_override {
    const char *gpu, *name;
    double value;
    const char *source;
} params_override;

#define PCIE_SHEET "NVIDIA H100 datasheet, PCIe 80GB"
static const char *const gpu_sets[] = {"h100", "h100-pcie", "h200"};
static const params_override overrides[] = {
    {"h100-pcie", "sm_count", 114, PCIE_SHEET ": 114 SMs"},
    {"h100-pcie", "clock_ghz", 1.755, PCIE_SHEET ": 1755 MHz max boost (not measured under load)"},
    {"h100-pcie", "hbm_bytes_per_ns", 1800,
     "estimate: " PCIE_SHEET " 2.0 TB/s HBM2e x 0.9, the measured/datasheet ratio of the SXM (3.0 of 3.35)"},
    {"h100-pcie", "tma_bytes_per_ns_sm", 225, "estimate: 128 B/cycle/SM as on the SXM, x 1.755 GHz"},
    {"h100-pcie", "cta_launch_spread_ns", 280, "estimate: the SXM's measured 320 ns scaled to 114 CTAs"},
    {"h200", "hbm_bytes_per_ns", 4220,
     "measured: device-to-device cudaMemcpy on the H200, bytes read + written per ns, median of the 221 runs in "
     "traces/h200/corpus (p10 4179, p90 4236); the same measurement gives 2982 on the H100 (its set: 3000). "
     "The other parameters are the H100 SXM's (same SMs and clocks: sm__cycles_elapsed over the kernel time, "
     "median 1.98 GHz on both)"},
};

const char *params_gpus(void)
{
    return "h100, h100-pcie, h200";
}

const char *params_source(const char *gpu, const char *name)
{
    for (size_t i = 0; i < sizeof overrides / sizeof overrides[0]; i++)
        if (gpu && !strcmp(overrides[i].gpu, gpu) && !strcmp(overrides[i].name, name))
            return overrides[i].source;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (!strcmp(table[i].name, name))
            return table[i].source;
    return NULL;
}

const params_info *params_table(size_t *count)
{
    *count = sizeof table / sizeof table[0];
    return table;
}

static double *slot(pipe_params *p, size_t off)
{
    return (double *)((char *)p + off);
}

int params_defaults(const char *gpu, pipe_params *p, err_info *e)
{
    int known = !gpu;
    for (size_t i = 0; i < sizeof gpu_sets / sizeof gpu_sets[0]; i++)
        known |= gpu && !strcmp(gpu, gpu_sets[i]);
    if (!known)
        return err_set(e, ERR_BAD_INPUT, "gpu", "field '--gpu' = '%s' (allowed %s)", gpu, params_gpus());
    memset(p, 0, sizeof *p);
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        *slot(p, table[i].offset) = table[i].h100;
    for (size_t i = 0; i < sizeof overrides / sizeof overrides[0]; i++)
        if (gpu && !strcmp(overrides[i].gpu, gpu))
            params_set(p, overrides[i].name, overrides[i].value, NULL);
    return ERR_OK;
}

int params_for_gpu(const char *gpu, pipe_params *p, err_info *e)
{
    for (size_t i = 0; i < sizeof gpu_sets / sizeof gpu_sets[0]; i++)
        if (gpu && !strcmp(gpu, gpu_sets[i]))
            return params_defaults(gpu, p, e);
    FILE *fp = gpu ? fopen(gpu, "rb") : NULL;
    if (!fp)
        return err_set(e, ERR_BAD_INPUT, "gpu", "field '--gpu' = '%s' (allowed %s, or a parameter file from `tmahw "
                       "calibrate`)", gpu ? gpu : "(none)", params_gpus());
    fclose(fp);
    /* a calibration file holds every parameter it measured; the rest keep the H100 SXM
     * defaults (the same SM design on every Hopper part this tool runs on) */
    params_defaults("h100", p, NULL);
    return params_load(p, gpu, e);
}

int params_set(pipe_params *p, const char *name, double value, err_info *e)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(name, table[i].name) == 0) {
            if (!(value > 0) || !isfinite(value))
                return err_set(e, ERR_BAD_INPUT, "param_value", "field '%s' = %g (allowed: a positive number)", name, value);
            *slot(p, table[i].offset) = value;
            return ERR_OK;
        }
    return err_set(e, ERR_BAD_INPUT, "param_name", "unknown parameter '%s' (see `tmasim sim --params-list`)", name);
}

double params_get(const pipe_params *p, const char *name, int *found)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(name, table[i].name) == 0) {
            if (found)
                *found = 1;
            return *slot((pipe_params *)p, table[i].offset);
        }
    if (found)
        *found = 0;
    return 0;
}

int params_parse(pipe_params *p, const char *text, const char *filename, err_info *e)
{
    int line = 0;
    const char *s = text;
    while (*s) {
        line++;
        const char *eol = strchr(s, '\n');
        size_t n = eol ? (size_t)(eol - s) : strlen(s);
        const char *next = s + n + (eol ? 1 : 0);
        const char *hash_at = memchr(s, '#', n);
        if (hash_at)
            n = (size_t)(hash_at - s);   /* a comment may be as long as it likes */
        char buf[256];
        if (n >= sizeof buf)
            return err_set(e, ERR_BAD_INPUT, "params_line", "%s:%d: setting longer than 255 characters before its comment", filename, line);
        memcpy(buf, s, n);
        buf[n] = 0;
        s = next;
        char name[64];
        char rest[200];
        int got = sscanf(buf, " %63[A-Za-z0-9_] = %199s", name, rest);
        if (got <= 0) {
            char tail[2];
            if (sscanf(buf, " %1s", tail) != 1)
                continue;   /* blank or comment */
        }
        if (got != 2)
            return err_set(e, ERR_BAD_INPUT, "params_line", "%s:%d: expected 'name = value'", filename, line);
        char *end;
        errno = 0;
        double v = strtod(rest, &end);
        if (*end || errno)
            return err_set(e, ERR_BAD_INPUT, "params_value", "%s:%d: field '%s': '%s' is not a number", filename, line, name,
                           rest);
        err_info pe = {0};
        if (params_set(p, name, v, &pe))
            return err_set(e, ERR_BAD_INPUT, pe.rule, "%s:%d: %s", filename, line, pe.detail);
    }
    return ERR_OK;
}

int params_load(pipe_params *p, const char *path, err_info *e)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return err_set(e, ERR_BAD_INPUT, "params_open", "%s: %s", path, strerror(errno));
    char *buf = malloc(1 << 16);
    if (!buf) {
        fclose(fp);
        return err_set(e, ERR_IO, "out_of_memory", "params buffer");
    }
    size_t n = fread(buf, 1, (1 << 16) - 1, fp);
    fclose(fp);
    buf[n] = 0;
    int rc = params_parse(p, buf, path, e);
    free(buf);
    return rc;
}
