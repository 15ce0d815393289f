/* params: the named timing parameters of the pipeline simulator, with H100 defaults and
 * where each default comes from. A parameter file overrides them:
 *     # comment
 *     hbm_bytes_per_ns = 2900      # any name of params_table, one per line
 * `--gpu NAME` selects a built-in set: "h100" (H100 SXM, the table's defaults) or
 * "h100-pcie" (the same chip in the PCIe card: its SM count, clock and bandwidth) or "h200"
 * (the same SMs with HBM3e). */
#ifndef TMASCOPE_PARAMS_H
#define TMASCOPE_PARAMS_H

#include <stddef.h>

#include "err.h"

#ifdef __cplusplus
extern "C" {
#endif

/* l2_share_bytes_per_ns[k] is the rate with 1 << k SMs reading each box */
#define PARAMS_L2_SHARE_POINTS 6
/* l2_requests_*_per_ns[k]: the GPU's L2 requests per ns when the boxes every SM loads span
 * 4 KiB << k of address (k = 7: 1024 KiB or more): rows that share their lines, rows under
 * 128 bytes with lines of their own, 128-byte rows */
#define PARAMS_L2_REQ_POINTS 8
#define PARAMS_L2_RESIDENT_POINTS 5
/* the st.async trip by source: L1, L2, DRAM */
#define PARAMS_STAS_SOURCES 3
/* stas_lines_ns[src][k]: a trip touching 4 << k lines of 128 bytes, one producer warp per SM */
#define PARAMS_STAS_LINES 4
/* stas_ctas_ns[src][k]: 4-line trips with 2 << k producer warps per SM; stas_alone_ns[k]: 1 << k */
#define PARAMS_STAS_CTAS 4
#define PARAMS_REMOTE_WARPS 5
#define PARAMS_REMOTE_CTAS 4

typedef struct pipe_params {
    double sm_count;               /* SMs */
    double clock_ghz;              /* SM clock under load */
    double hbm_bytes_per_ns;       /* DRAM bandwidth, bytes read */
    double l2_bytes_per_ns;        /* L2 hit bandwidth, all SMs together */
    double tma_bytes_per_ns_sm;    /* one SM's TMA unit: bytes per ns it can move */
    double hbm_latency_ns;         /* TMA load issue -> complete_tx, data from DRAM, idle machine */
    double l2_latency_ns;          /* same, data in L2 */
    double dsmem_latency_ns;       /* st.async / remote arrive into a cluster peer */
    double tma_issue_ns;           /* generated TMA producer: one copy to the next of its stage */
    double arrive_ns;              /* warp time of an mbarrier arrive (local) */
    double wake_ns;                /* phase completion -> a blocked try_wait returns */
    double wake_stagger_ns;        /* between the returns of the waiters one phase wakes */
    double ldgsts_issue_cycles;    /* warp cycles per cp.async (LDGSTS) instruction */
    double ldgsts_step_ns;         /* warp time of an mbarrier copy step besides its cp.async trips */
    double ldgsts_group_step_ns;   /* the same for a commit-group copy step */
    double group_record_ns;        /* what recording adds to a commit-group step (traces are of recorded launches) */
    double ldgsts_smsp_share_ns;   /* a copy step's time added where the CTA's copying warps share sub-partitions */
    double tile_address_ns;        /* a copy loop's step: per tensor, the tile's global address */
    double copy_table_room_bytes;  /* the L1 that the generated copy loop's chunk table keeps */
    double smem_cycles_per_wavefront; /* shared-memory port cycles per wavefront */
    double lsu_issue_cycles;       /* warp cycles per shared-memory instruction issue */
    double ffma_cycles;            /* cycles per warp FFMA instruction on one SM sub-partition */
    double mma_flops_per_cycle_smsp; /* dense FP16 tensor-core flops per cycle per sub-partition */
    double store_latency_ns;       /* TMA store issue -> bulk wait_group returns */
    double reduce_latency_ns;      /* TMA reduction (cp.reduce.async.bulk.tensor) issue -> wait_group returns */
    double smem_latency_cycles;    /* shared-memory load latency: the last read's data after its issue */
    double cta_launch_spread_ns;   /* the first wave's CTAs start spread over this window */
    double cta_overhead_ns;        /* a CTA's start and end outside its pipeline's events */
    double gemm_cta_overhead_ns;   /* the same for the generated GEMM kernel's CTAs */
    double barsync_ns;             /* bar.sync (__syncthreads): last arrival -> the waiting warps run */
    /* calibrated against traces/h100/pipelines */
    double mma_latency_cycles;     /* mma.sync m16n8k16 issue -> its result usable by the next mma on it */
    double math_tail_cycles;       /* per math block: the accumulators' sum and shuffle before the release */
    double read_tail_cycles;       /* per stage's read: the loads' fold, shuffle and branch after the last load */
    /* the st.async copy loop (tmahw calibrate --only stas): ns per trip of 32 lanes' 16-byte
     * loads and st.async in the generated loop's batches of 4 trips, by where the data comes
     * from, how many lines a trip touches and how many producer warps the SM runs at once;
     * stas_alone_ns: the st.async alone (no load) by producer warps per SM */
    double stas_lines_ns[PARAMS_STAS_SOURCES][PARAMS_STAS_LINES];
    double stas_ctas_ns[PARAMS_STAS_SOURCES][PARAMS_STAS_CTAS];
    double stas_alone_ns[PARAMS_STAS_CTAS + 1];
    double stas_tail_ns;           /* generated st.async producer: its loop's end to the next stage's expect_tx */
    double stas_first_ns;          /* generated st.async producer: what its first stage's loop adds */
    double stas_land_ns;           /* generated st.async producer: its loop's end (last st.async) to the peer's full barrier's complete_tx */
    double stas_resume_ns;         /* generated st.async producer: a blocked wait for a free stage's return to its expect_tx */
    double remote_arrive_alone_ns; /* a lone mbarrier.arrive.release.cluster on a cluster peer's barrier, no stores before it */
    double stas_table_l1_bytes;    /* generated st.async loop: the L1 bytes its chunk table's lines survive against (exp(-D / this)) */
    double stas_release_ns;        /* generated st.async consumer: warp time of its release (a remote arrive) besides consume_step_ns */
    double l1_smem_bytes;          /* an SM's L1 data cache and shared memory together */
    /* the share of a footprint cycled through that L2 serves, at 32, 40, 48, 64, 96 MiB (all of
     * it up to 24 MiB, none from 512 MiB on) */
    double l2_resident_share[PARAMS_L2_RESIDENT_POINTS];
    double expect_tx_ns;           /* generated TMA producer: its arrive.expect_tx to its stage's first copy */
    double produce_tail_ns;        /* generated TMA producer: its last copy to the next stage's expect_tx */
    double produce_resume_ns;      /* generated TMA producer: its blocked wait's return to its expect_tx */
    double produce_neighbour_ns;   /* generated TMA producer: added to its tail when the consumers read or run FFMA */
    double consume_resume_ns;      /* generated consumer: its try_wait returns this much after the wake when a copy completes the phase */
    double produce_share_factor;   /* generated TMA producer: its steps stretch by this share of its sub-partition's other issue */
    double mcast_expect_tx_ns;     /* expect_tx_ns of a producer whose copies are .multicast::cluster */
    double mcast_tma_issue_ns;     /* tma_issue_ns of the same */
    double remote_arrive_ns;       /* warp time of an arrive(.expect_tx).release.cluster on a peer's barrier */
    /* the same for each further peer of a release that arrives on several, by the warps of
     * an SM that release on peers: 1, 2, 4, 8, 16 (PARAMS_REMOTE_WARPS points) */
    double remote_arrive_next_ns[PARAMS_REMOTE_WARPS];
    /* the same by the CTAs of an SM whose one warp each releases on every rank: 1, 2, 4, 8
     * (PARAMS_REMOTE_CTAS points); a release costs the more of the two */
    double remote_arrive_next_cta_ns[PARAMS_REMOTE_CTAS];
    /* what the first remote arrive of a release costs more with 2, 4 and 8 CTAs per SM than
     * with 1 (cluster_rx, clusters of 2) */
    double remote_arrive_first_cta_extra_ns[PARAMS_REMOTE_CTAS - 1];
    /* the share of its SM's loads' wait for DRAM that a consumer's release on a cluster peer
     * (.release.cluster) waits besides remote_arrive_ns */
    double release_fence_dram_share;
    /* the consumer step, measured in traces/h100/pipelines */
    double consume_step_ns;        /* mbarrier consume step outside read, math and arrives: loop + next full probe */
    double l2_reuse_bytes;         /* bytes of tiles re-read in a cycle that L2 still serves (reuse capacity) */
    /* clusters of N CTAs resident at once, with 1 and with 8 CTAs per SM (a cluster sits in
     * one GPC, so fewer than SMs / N fit; past 8 CTAs per SM no more clusters fit) */
    double clusters2_at1, clusters2_at8, clusters4_at1, clusters4_at8, clusters8_at1, clusters8_at8, clusters16_at1, clusters16_at8;
    /* issue slots a warp takes from its sub-partition (one instruction per cycle shared by
     * every warp on it): per shared-memory read instruction with its checksum fold, per
     * consume step outside reads and math, per trip of the cp.async and st.async copy
     * loops, per tensor of a producing step */
    double read_issue_cycles, read_word_issue_cycles, step_issue_cycles, group_step_issue_cycles, ldgsts_slot_cycles, stas_slot_cycles;
    double produce_issue_cycles;
    /* cycles of a busy sub-partition per slot of those (the generated code's integer,
     * branch and memory instructions); an FFMA's slot costs ffma_cycles */
    double int_issue_cycles;
    double kernel_overhead_ns;     /* a launch's time outside its CTAs: start and drain, as the kernel's timer sees it */
    double lsu_bytes_per_cycle_smsp; /* bytes a sub-partition's shared loads return to one warp per cycle */
    double ldgsts_bytes_per_ns_sm; /* cp.async and ld.global bytes one SM takes in per ns */
    /* the generated FFMA block when the compiler unrolls it: one warp's cycles per FFMA and
     * the sub-partition's with several warps, while the code fits the instruction cache
     * (icache_bytes); past it, the sub-partition's cycles per FFMA with 1, 2, 4, 8 warps */
    double ffma_unrolled_cycles, ffma_unrolled_smsp_cycles, icache_bytes;
    double ffma_fetch_1w_cycles, ffma_fetch_2w_cycles, ffma_fetch_4w_cycles, ffma_fetch_8w_cycles;
    /* wgmma.mma_async from shared memory (math kind wgmma): the SM's tensor pipe time per
     * instruction per column of N (an instruction reads 32 bytes of K per row: k16 bf16, k32
     * e4m3), the time from the pipe's end of a group's last instruction to its wait_group's
     * return, and the SM clock while every SM's tensor pipe is busy (the pipe's cycles run at
     * it) */
    double wgmma_cycles_per_col, wgmma_copy_cycles_per_col, wgmma_latency_cycles, clock_tensor_ghz;
    /* the SM clock the generated GEMM kernels keep (their tensor pipes, loads and stores
     * together draw more power than the pipe alone), with 16-bit and with 8-bit operands */
    double clock_gemm_ghz, clock_gemm_fp8_ghz;
    /* one mbarrier.arrive.expect_tx alone (the GEMM producer's per-stage instruction) */
    double expect_tx_alone_ns;
    /* the generated GEMM kernel's instructions (hw/gemm_kernel.cuh), each an issue slot of
     * its sub-partition: the producer thread's per stage (empty wait, expect_tx, the loads,
     * the loop) and a consumer warp's per stage (full wait, fence, the wgmma with their
     * descriptors, commit, wait_group, release, the loop) */
    double gemm_produce_slots, gemm_consume_slots;
    /* the GEMM producer thread's time from the end of a blocked wait on its empty barrier
     * (wake_ns after the consumers' last release) to its next expect_tx */
    double gemm_produce_resume_ns;
    /* a GEMM stage's copies from L2 while every SM loads its own: issue to complete_tx
     * beyond the bytes at the TMA rate (the idle machine's is l2_latency_ns) */
    double gemm_load_latency_ns;
    /* the GEMM producer thread's time per stage beyond its bytes at tma_bytes_per_ns_sm: one
     * thread's stages of copies complete one after another */
    double gemm_step_ns;
    /* the generated GEMM's direct epilogue (st.global.b32 of the accumulators, 16 bytes to
     * each of 8 rows per warp instruction): the GPU's rate for those stores and the bytes a
     * CTA stores before its warps wait for them to drain */
    double gemm_store_bytes_per_ns, gemm_store_queue_bytes;
    /* the GPU's L2 read rate for TMA loads of data in L2 when each box is read by a group of
     * 1, 2, 4, 8, 16 or 32 SMs at about the same time: the GEMM
     * operands' copies, each tile of which 8-16 SMs load */
    double l2_share_bytes_per_ns[PARAMS_L2_SHARE_POINTS];
    double l2_requests_shared_per_ns[PARAMS_L2_REQ_POINTS];
    double l2_requests_own_per_ns[PARAMS_L2_REQ_POINTS];
    double l2_requests_r128_per_ns[PARAMS_L2_REQ_POINTS];
} pipe_params;

typedef struct params_info {
    const char *name;
    size_t offset;                 /* into pipe_params */
    double h100;                   /* default */
    const char *unit;
    const char *source;
} params_info;

const params_info *params_table(size_t *count);
/* Fills *p with the named set ("h100"); ERR_BAD_INPUT names the allowed sets. */
int params_defaults(const char *gpu, pipe_params *p, err_info *e);
/* Sets one parameter by name (for overrides and --sweep). */
int params_set(pipe_params *p, const char *name, double value, err_info *e);
double params_get(const pipe_params *p, const char *name, int *found);
/* Parses "name = value" lines; errors name FILE:LINE and the field. */
int params_parse(pipe_params *p, const char *text, const char *filename, err_info *e);
/* A parameter file holds at most this many bytes; a directory or a larger file is refused. */
#define PARAMS_MAX_FILE_BYTES (1u << 20)
int params_load(pipe_params *p, const char *path, err_info *e);
/* A built-in set by name, or else a parameter file (`tmahw calibrate`) over the H100 SXM
 * defaults: what `--gpu h100|h200|FILE` selects. */
int params_for_gpu(const char *gpu, pipe_params *p, err_info *e);
const char *params_gpus(void);   /* the built-in sets, for messages: "h100, h100-pcie, h200" */
/* Where a parameter's value in set `gpu` comes from (the table's source unless the set
 * replaces the value); NULL for an unknown name. */
const char *params_source(const char *gpu, const char *name);

#ifdef __cplusplus
}
#endif

#endif
