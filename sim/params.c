#include "params.h"
#include "rfile.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define P(field) offsetof(pipe_params, field)
#define H100_CAL "measured: tmahw calibrate on the H100 (traces/h100/calibration, 2026-11-24 00:40 UTC; the file gives the spread and the sweep), "
#define WGMMA_LOAD "measured: tmahw calibrate --only wgmma,wgmma_load on the H200 (traces/h200/gemm/wgmma_load.params, 2026-11-24 22:50 UTC), "
#define GEMM_INSTR "measured: instructions the generated GEMM kernels execute (smsp__inst_executed, Range Profiler) over the fit half of the random wgmma corpus (traces/h200/corpus-wgmma, 30 kernels, 2026-11-25, commit 07495a2), least squares of each kernel's count relative to itself on its stages, its consumer warps' stages, its consumer warps' tiles times N, and its CTAs (relative error p10..p90 of the fit -10..+9%, of the test half -3..+9%; the test half on its own: 61.9 per stage, 82.8 per consumer warp and stage; scripts/gemm-instr.py): "
#define INSTR_COUNT "measured: instructions the generated kernels execute (smsp__inst_executed, Range Profiler) over the H200 corpus's fit half (traces/h200/corpus, seed 1; recorded on 2026-11-25, 119 kernels, commit 6bd87af), least squares of each kernel's count relative to itself on its events (consumer steps, read instructions and the 32-bit words each lane loads with them, FFMA, mma, copy trips, producing steps' tensors, warps; scripts/instr-counts.py; the fit predicts each kernel's count within -16..+11%, p10..p90): one instruction takes one issue slot of its sub-partition. "
#define COPY_STEPS "measured: the H200 corpus's fit half as recorded on 2026-11-25 (traces/h200/corpus, seed 1; commit 6bd87af): the 14 cp_async descriptions at one CTA per SM, a warp's prologue copy steps (cpasync_issue to its next, no wait between; 388 steps) against their cp.async trips and tensors: the steps less tile_address_ns per tensor (a trace's cpasync_issue carries the warp's share of the stage), least squares on trips and on whether warps share sub-partitions, one intercept per kind of step (scripts/copy-steps.py; residuals p10 -51, p90 +85 ns): "
#define GEMM_EPI "measured: the direct epilogue of the generated GEMM kernels (st.global.b32, 16 bytes to each of 8 rows per warp instruction) in the traces of the random wgmma corpus's fit half (traces/h200/corpus-wgmma, 11 descriptions with epilogue: direct, 2026-11-25, commit 07495a2): the traced CTA's span per output tile from its first warpgroup's epilogue to the end of its last, each kernel's median, against the bytes its warpgroups store (64 x N x 2 each, 8-56 KiB) and the CTAs storing at about the same time (the lesser of grid and tiles, 40-132): least squares of span = CTAs x (bytes - queue) / rate, residuals p10..p90 -521..+406 ns (scripts/gemm-epilogue.py; the test half keeps no traces: its check is its kernel times). 16 KiB per CTA: 690 ns with 132 CTAs storing, 204 ns with 40 (wgmma_0001_0049, _0056), a GPU-wide limit, not the SM's. Their warps wait on lg_throttle (Range Profiler, the same kernels): 23-27% of warp cycles at N 192-224 with short K (0001, 0010, 0029), 0 at N 32, 0 in every TMA-epilogue kernel: "
#define GEMM_CLOCK "measured: the generated GEMM kernels' own SM clock (clock64 over globaltimer in their CTAs, the median over the timed launches, NAME.json sm_ghz) in the random wgmma corpus's fit half (traces/h200/corpus-wgmma, 30 kernels, 2026-11-25, commit 07495a2; scripts/gemm-clock.py), below clock_tensor_ghz (the pipe alone: here loads and stores run beside it; the Range Profiler's cycles over the timed ns read 1.819 over the fit half's 14 kernels of 100 us or more, a separate, profiled launch); the simulator runs math kind wgmma at it: "
#define WGMMA_COPY "measured: tmahw calibrate --only clock,wgmma_load on the H200 (traces/h200/gemm/2026-11-25/gemm.params, 03:39 UTC, commit 446831e), wgmma_load: "
#define L2SHARE "measured: tmahw calibrate --only clock,tma_fill,wgmma_load,l2share on the H200 (traces/h200/calibration/l2share.params, 2026-11-25 01:22 UTC), l2share: "
/* the l2share sweep's rates by SMs reading the same boxes: "groups of G SM(s)" */
#define L2SHARE_GROUPS(g) L2SHARE "132 CTAs, lane 0 of 4 warps keeping 128 KiB per SM of TMA loads (128-byte rows, " \
    "128B swizzle) in flight from 8 MiB in L2, groups of " g " reading the same boxes in the same order: the GPU's "    \
    "bytes per ns, the most over the box sizes ("
#define CLUSTER_RX "measured: tmahw calibrate --only cluster_rx on the H200 (traces/h200/calibration/cluster_rx.params, 2026-11-26 00:37 UTC): clusters of 4 and 8, as many as are resident at once, the CTAs' shared memory sized for 1, 2, 4 or 8 per SM; lane 0 of each rank's one warp sends every rank an mbarrier.arrive.release.cluster each round and waits for the round's own: the time per round of clusters of 8 less that of clusters of 4, over the 4 more remote arrives (the clusters of 2 to 4 the same way: 152, 212, 322, 370); the H100: the H200's value (not measured), "
#define CLUSTER_RX_FIRST "measured: tmahw calibrate --only cluster_rx on the H200 (traces/h200/calibration/cluster_rx.params, 2026-11-26 00:37 UTC): clusters of 2, each rank's one remote arrive and one local per round: the time per round with k CTAs per SM less with 1 (329 ns); the H100: the H200's value (not measured), "
#define PRODUCER_SWEEP "measured: scripts/producer-sweep.py on the H200 (traces/h200/probes/producer, 2026-11-25 16:46, 17:00 and 17:30 UTC, driver 580.159.04): producer-bound pipelines (8 stages, boxes of 2 KiB from L2), the kernel time without recording at 100 and 300 iterations, its slope per stage; "
#define ROUND_TRIP "measured: scripts/producer-sweep.py round-trip variants on the H200 (traces/h200/probes/producer r_*, 2026-11-25 17:55 UTC, driver 580.159.04): one stage, so each iteration is the copy, the consumer's wake and release and the producer's wake; 1 CTA per SM, one consumer warp, boxes of 2 KiB from an 8 MiB tensor in L2: "
#define PRODUCER_STEPS "measured: the generated TMA producer's step in the traces of the H200 corpus's fit half as recorded on 2026-11-25 (traces/h200/corpus, seed 1; commit 6bd87af), warp_specialized descriptions at one CTA per SM, each kernel's median, the median over kernels (scripts/producer-steps.py): "
#define L2_RESIDENT "measured: tmahw calibrate --only tma_fill (traces/h100/calibration/calibration.params and traces/h200/calibration/calibration.params, l2_reuse_bytes' line): 132 CTAs cycling TMA loads through a footprint; the share L2 serves is (rate - DRAM rate) / (L2 rate - DRAM rate), the L2 rate that of 8 MiB (H100 7832, H200 7824 B/ns), the DRAM rate that of 512 MiB (H100 2694, H200 4004); at 24 MiB both GPUs read at the L2 rate. "
#define TMA_HOT "measured: tmahw calibrate --only clock,tma_rows on the H200 (traces/h200/probes/waves/tma_rows.params tma_hot, 2026-11-25 13:51 UTC, driver 580.159.04; the 15:40 UTC run, tma_rows_geo.params, within 3%): every SM at once, lane 0 of 12 warps each keeping 2 boxes of 2 KiB in flight, all read from only N distinct boxes: the GPU's L2 requests per ns (132 x rows / the SM's ns per box) by the address the boxes span; "
#define TMA_HOT_GEO "measured: tmahw calibrate --only clock,tma_rows on the H200 (traces/h200/probes/waves/tma_rows_geo.params and tma_rows_geo2.txt, tma_hot, 2026-11-25 15:40 and 15:57 UTC, driver 580.159.04): every SM at once, lane 0 of 12 warps each keeping 2 boxes of 2 KiB in flight, all read from only N distinct boxes: the GPU's L2 requests per ns (132 x rows / the SM's ns per box) by the address the boxes span; "
#define STAS_CAL "measured: tmahw calibrate --only clock,stas on the H200 (traces/h200/calibration/stas.params, 2026-11-25 08:12 UTC, driver 580.159.04, commit 1986c7b; the H100's SMs are the same design, not measured): the generated st.async loop's trips (clusters of 2, 8 stages of 8 trips per CTA, 3 launches; ns per trip in batches of 4 trips' loads then their st.async, as the generated loop's SASS has them), "
#define REMOTE_LOAD_CAL "measured: tmahw calibrate --only remote_load on the H200 (traces/h200/calibration/remote_load.params, 2026-11-25 10:48 UTC): clusters of 2 on 132 SMs, one CTA per SM, lane 0 of warp 1 timing 1500 mbarrier.arrive.release.cluster on the peer's barrier 200 ns apart while lane 0 of warp 0 keeps loads in flight; "
#define STAS_HANDOFFS "measured: the generated st.async pipeline's traces in the H200 corpus's fit half as recorded on 2026-11-25 (traces/h200/corpus, seed 1; commit 6bd87af), every st_async description whose trace is kept (CTAs 0 and 1), each kernel's median, the median over kernels (scripts/stas-handoffs.py): "
#define WAKE_CAL "measured: tmahw calibrate --only clock,mbarrier on the H200 (traces/h200/calibration/wake.params, 2026-11-25 22:04 UTC, driver 580.159.04): warps 1..N of one CTA (N 2, 4, 8, 16, 31) waiting with all lanes in try_wait on one barrier that warp 0 completes, (last return - first) / (N - 1) per round, 189 rounds per N, the same at every N; the order varies (the lower warp first in 100% of pairs at N 2, 18% at N 31), the simulator wakes them in warp order. The recorded traces of the H200 corpus's fit half give 1.8 ns, the recording's clock reads included (scripts/wake-spread.py): "
#define H200_CAL "measured: tmahw calibrate on the H200 (traces/h200/calibration, 2026-11-24 00:41 UTC), "

/* Every source says whether its value is measured by a microbenchmark (tmahw calibrate),
 * measured in the traces of the generated kernels (a cost of their loops as they run), or
 * an estimate; estimates fitted on the corpus fit half say so. */
static const params_info table[] = {
    {"sm_count", P(sm_count), 132, "SMs",
     "cudaDevAttrMultiProcessorCount (tmahw calibrate, traces/h100/calibration): 132 on the H100 SXM and the H200"},
    {"clock_ghz", P(clock_ghz), 1.98, "GHz",
     H100_CAL "clock: clock64 over globaltimer of every SM running FFMA chains, median 1.980 GHz (the H200 1.980)"},
    {"hbm_bytes_per_ns", P(hbm_bytes_per_ns), 2988, "B/ns",
     H100_CAL "d2d: cudaMemcpy device to device of 1 GiB, bytes read + written per ns, median of 10 (the corpus runs' own copies: median 2982)"},
    {"l2_bytes_per_ns", P(l2_bytes_per_ns), 7832, "B/ns",
     H100_CAL "tma_fill: 132 CTAs, one thread each keeping 12 TMA loads of 16 KiB in flight through an 8 MiB footprint: bytes per ns of the whole GPU"},
    {"tma_bytes_per_ns_sm", P(tma_bytes_per_ns_sm), 212, "B/ns",
     H100_CAL "tma_fill: one SM, lane 0 of 8, 16 or 32 warps with one box of 16, 8 or 4 KiB each in flight from L2: 211-213 B/ns whatever the split (one thread alone: one box per 275 ns, see tma_issue_ns)"},
    {"l2_requests_shared_s4k_per_ns", P(l2_requests_shared_per_ns[0]), 26, "1/ns",
     TMA_HOT "rows sharing their lines: 32-byte rows at a 64-byte pitch (the same table within 10% for 16-, 32- and 64-byte rows at their own pitch: 16 / 32 / 64 KiB 49-53 / 52-61 / 102-113 requests per ns); boxes spanning 4 KiB: 26 (every point, 4 / 8 / 16 / 32 / 64 / 128 / 256 / 1024 KiB: 26 / 26 / 52 / 59 / 106 / 108 / 146 / 163). H100: the H200's value (not measured on an H100)"},
    {"l2_requests_shared_s8k_per_ns", P(l2_requests_shared_per_ns[1]), 26, "1/ns",
     TMA_HOT "rows sharing their lines: 32-byte rows at a 64-byte pitch (the same table within 10% for 16-, 32- and 64-byte rows at their own pitch: 16 / 32 / 64 KiB 49-53 / 52-61 / 102-113 requests per ns); boxes spanning 8 KiB: 26 (every point, 4 / 8 / 16 / 32 / 64 / 128 / 256 / 1024 KiB: 26 / 26 / 52 / 59 / 106 / 108 / 146 / 163). H100: the H200's value (not measured on an H100)"},
    {"l2_requests_shared_s16k_per_ns", P(l2_requests_shared_per_ns[2]), 52, "1/ns",
     TMA_HOT "rows sharing their lines: 32-byte rows at a 64-byte pitch (the same table within 10% for 16-, 32- and 64-byte rows at their own pitch: 16 / 32 / 64 KiB 49-53 / 52-61 / 102-113 requests per ns); boxes spanning 16 KiB: 52 (every point, 4 / 8 / 16 / 32 / 64 / 128 / 256 / 1024 KiB: 26 / 26 / 52 / 59 / 106 / 108 / 146 / 163). H100: the H200's value (not measured on an H100)"},
    {"l2_requests_shared_s32k_per_ns", P(l2_requests_shared_per_ns[3]), 59, "1/ns",
     TMA_HOT "rows sharing their lines: 32-byte rows at a 64-byte pitch (the same table within 10% for 16-, 32- and 64-byte rows at their own pitch: 16 / 32 / 64 KiB 49-53 / 52-61 / 102-113 requests per ns); boxes spanning 32 KiB: 59 (every point, 4 / 8 / 16 / 32 / 64 / 128 / 256 / 1024 KiB: 26 / 26 / 52 / 59 / 106 / 108 / 146 / 163). H100: the H200's value (not measured on an H100)"},
    {"l2_requests_shared_s64k_per_ns", P(l2_requests_shared_per_ns[4]), 106, "1/ns",
     TMA_HOT "rows sharing their lines: 32-byte rows at a 64-byte pitch (the same table within 10% for 16-, 32- and 64-byte rows at their own pitch: 16 / 32 / 64 KiB 49-53 / 52-61 / 102-113 requests per ns); boxes spanning 64 KiB: 106 (every point, 4 / 8 / 16 / 32 / 64 / 128 / 256 / 1024 KiB: 26 / 26 / 52 / 59 / 106 / 108 / 146 / 163). H100: the H200's value (not measured on an H100)"},
    {"l2_requests_shared_s128k_per_ns", P(l2_requests_shared_per_ns[5]), 108, "1/ns",
     TMA_HOT "rows sharing their lines: 32-byte rows at a 64-byte pitch (the same table within 10% for 16-, 32- and 64-byte rows at their own pitch: 16 / 32 / 64 KiB 49-53 / 52-61 / 102-113 requests per ns); boxes spanning 128 KiB: 108 (every point, 4 / 8 / 16 / 32 / 64 / 128 / 256 / 1024 KiB: 26 / 26 / 52 / 59 / 106 / 108 / 146 / 163). H100: the H200's value (not measured on an H100)"},
    {"l2_requests_shared_s256k_per_ns", P(l2_requests_shared_per_ns[6]), 146, "1/ns",
     TMA_HOT "rows sharing their lines: 32-byte rows at a 64-byte pitch (the same table within 10% for 16-, 32- and 64-byte rows at their own pitch: 16 / 32 / 64 KiB 49-53 / 52-61 / 102-113 requests per ns); boxes spanning 256 KiB: 146 (every point, 4 / 8 / 16 / 32 / 64 / 128 / 256 / 1024 KiB: 26 / 26 / 52 / 59 / 106 / 108 / 146 / 163). H100: the H200's value (not measured on an H100)"},
    {"l2_requests_shared_s1024k_per_ns", P(l2_requests_shared_per_ns[7]), 163, "1/ns",
     TMA_HOT "rows sharing their lines: 32-byte rows at a 64-byte pitch (the same table within 10% for 16-, 32- and 64-byte rows at their own pitch: 16 / 32 / 64 KiB 49-53 / 52-61 / 102-113 requests per ns); boxes spanning 1024 KiB or more: 163 (every point, 4 / 8 / 16 / 32 / 64 / 128 / 256 / 1024 KiB: 26 / 26 / 52 / 59 / 106 / 108 / 146 / 163). H100: the H200's value (not measured on an H100)"},
    {"l2_requests_own_s4k_per_ns", P(l2_requests_own_per_ns[0]), 54, "1/ns",
     TMA_HOT_GEO "rows under 128 bytes with lines of their own (a pitch of 128 bytes or more): 32-byte rows at a 128- and a 256-byte pitch (within 2% of each other), 4 KiB from 64-byte rows at 128 (54; 64-byte rows agree to 16 KiB, 105, past it the L2 byte rate binds them); boxes spanning 4 KiB: 54 (every point, 4 / 8 / 16 / 32 / 64 / 128 / 256 / 1024 KiB: 54 / 56 / 113 / 113 / 213 / 211 / 260 / 260). H100: the H200's value (not measured on an H100)"},
    {"l2_requests_own_s8k_per_ns", P(l2_requests_own_per_ns[1]), 56, "1/ns",
     TMA_HOT_GEO "rows under 128 bytes with lines of their own (a pitch of 128 bytes or more): 32-byte rows at a 128- and a 256-byte pitch (within 2% of each other), 4 KiB from 64-byte rows at 128 (54; 64-byte rows agree to 16 KiB, 105, past it the L2 byte rate binds them); boxes spanning 8 KiB: 56 (every point, 4 / 8 / 16 / 32 / 64 / 128 / 256 / 1024 KiB: 54 / 56 / 113 / 113 / 213 / 211 / 260 / 260). H100: the H200's value (not measured on an H100)"},
    {"l2_requests_own_s16k_per_ns", P(l2_requests_own_per_ns[2]), 113, "1/ns",
     TMA_HOT_GEO "rows under 128 bytes with lines of their own (a pitch of 128 bytes or more): 32-byte rows at a 128- and a 256-byte pitch (within 2% of each other), 4 KiB from 64-byte rows at 128 (54; 64-byte rows agree to 16 KiB, 105, past it the L2 byte rate binds them); boxes spanning 16 KiB: 113 (every point, 4 / 8 / 16 / 32 / 64 / 128 / 256 / 1024 KiB: 54 / 56 / 113 / 113 / 213 / 211 / 260 / 260). H100: the H200's value (not measured on an H100)"},
    {"l2_requests_own_s32k_per_ns", P(l2_requests_own_per_ns[3]), 113, "1/ns",
     TMA_HOT_GEO "rows under 128 bytes with lines of their own (a pitch of 128 bytes or more): 32-byte rows at a 128- and a 256-byte pitch (within 2% of each other), 4 KiB from 64-byte rows at 128 (54; 64-byte rows agree to 16 KiB, 105, past it the L2 byte rate binds them); boxes spanning 32 KiB: 113 (every point, 4 / 8 / 16 / 32 / 64 / 128 / 256 / 1024 KiB: 54 / 56 / 113 / 113 / 213 / 211 / 260 / 260). H100: the H200's value (not measured on an H100)"},
    {"l2_requests_own_s64k_per_ns", P(l2_requests_own_per_ns[4]), 213, "1/ns",
     TMA_HOT_GEO "rows under 128 bytes with lines of their own (a pitch of 128 bytes or more): 32-byte rows at a 128- and a 256-byte pitch (within 2% of each other), 4 KiB from 64-byte rows at 128 (54; 64-byte rows agree to 16 KiB, 105, past it the L2 byte rate binds them); boxes spanning 64 KiB: 213 (every point, 4 / 8 / 16 / 32 / 64 / 128 / 256 / 1024 KiB: 54 / 56 / 113 / 113 / 213 / 211 / 260 / 260). H100: the H200's value (not measured on an H100)"},
    {"l2_requests_own_s128k_per_ns", P(l2_requests_own_per_ns[5]), 211, "1/ns",
     TMA_HOT_GEO "rows under 128 bytes with lines of their own (a pitch of 128 bytes or more): 32-byte rows at a 128- and a 256-byte pitch (within 2% of each other), 4 KiB from 64-byte rows at 128 (54; 64-byte rows agree to 16 KiB, 105, past it the L2 byte rate binds them); boxes spanning 128 KiB: 211 (every point, 4 / 8 / 16 / 32 / 64 / 128 / 256 / 1024 KiB: 54 / 56 / 113 / 113 / 213 / 211 / 260 / 260). H100: the H200's value (not measured on an H100)"},
    {"l2_requests_own_s256k_per_ns", P(l2_requests_own_per_ns[6]), 260, "1/ns",
     TMA_HOT_GEO "rows under 128 bytes with lines of their own (a pitch of 128 bytes or more): 32-byte rows at a 128- and a 256-byte pitch (within 2% of each other), 4 KiB from 64-byte rows at 128 (54; 64-byte rows agree to 16 KiB, 105, past it the L2 byte rate binds them); boxes spanning 256 KiB: 260 (every point, 4 / 8 / 16 / 32 / 64 / 128 / 256 / 1024 KiB: 54 / 56 / 113 / 113 / 213 / 211 / 260 / 260). H100: the H200's value (not measured on an H100)"},
    {"l2_requests_own_s1024k_per_ns", P(l2_requests_own_per_ns[7]), 260, "1/ns",
     TMA_HOT_GEO "rows under 128 bytes with lines of their own (a pitch of 128 bytes or more): 32-byte rows at a 128- and a 256-byte pitch (within 2% of each other), 4 KiB from 64-byte rows at 128 (54; 64-byte rows agree to 16 KiB, 105, past it the L2 byte rate binds them); boxes spanning 1024 KiB or more: 260 (every point, 4 / 8 / 16 / 32 / 64 / 128 / 256 / 1024 KiB: 54 / 56 / 113 / 113 / 213 / 211 / 260 / 260). H100: the H200's value (not measured on an H100)"},
    {"l2_requests_r128_s4k_per_ns", P(l2_requests_r128_per_ns[0]), 47, "1/ns",
     TMA_HOT "128-byte rows at a 256-byte pitch (at a 128-byte pitch, 8 / 16 / 32 KiB: 30 / 54 / 72; from 64 KiB the GPU's L2 byte rate binds); boxes spanning 4 KiB: 47 (every point, 4 / 8 / 16 / 32 / 64 / 128 / 256 / 1024 KiB: 47 / 37 / 53 / 63 / 72 / 72 / 72 / 72). H100: the H200's value (not measured on an H100)"},
    {"l2_requests_r128_s8k_per_ns", P(l2_requests_r128_per_ns[1]), 37, "1/ns",
     TMA_HOT "128-byte rows at a 256-byte pitch (at a 128-byte pitch, 8 / 16 / 32 KiB: 30 / 54 / 72; from 64 KiB the GPU's L2 byte rate binds); boxes spanning 8 KiB: 37 (every point, 4 / 8 / 16 / 32 / 64 / 128 / 256 / 1024 KiB: 47 / 37 / 53 / 63 / 72 / 72 / 72 / 72). H100: the H200's value (not measured on an H100)"},
    {"l2_requests_r128_s16k_per_ns", P(l2_requests_r128_per_ns[2]), 53, "1/ns",
     TMA_HOT "128-byte rows at a 256-byte pitch (at a 128-byte pitch, 8 / 16 / 32 KiB: 30 / 54 / 72; from 64 KiB the GPU's L2 byte rate binds); boxes spanning 16 KiB: 53 (every point, 4 / 8 / 16 / 32 / 64 / 128 / 256 / 1024 KiB: 47 / 37 / 53 / 63 / 72 / 72 / 72 / 72). H100: the H200's value (not measured on an H100)"},
    {"l2_requests_r128_s32k_per_ns", P(l2_requests_r128_per_ns[3]), 63, "1/ns",
     TMA_HOT "128-byte rows at a 256-byte pitch (at a 128-byte pitch, 8 / 16 / 32 KiB: 30 / 54 / 72; from 64 KiB the GPU's L2 byte rate binds); boxes spanning 32 KiB: 63 (every point, 4 / 8 / 16 / 32 / 64 / 128 / 256 / 1024 KiB: 47 / 37 / 53 / 63 / 72 / 72 / 72 / 72). H100: the H200's value (not measured on an H100)"},
    {"l2_requests_r128_s64k_per_ns", P(l2_requests_r128_per_ns[4]), 72, "1/ns",
     TMA_HOT "128-byte rows at a 256-byte pitch (at a 128-byte pitch, 8 / 16 / 32 KiB: 30 / 54 / 72; from 64 KiB the GPU's L2 byte rate binds); boxes spanning 64 KiB: 72 (every point, 4 / 8 / 16 / 32 / 64 / 128 / 256 / 1024 KiB: 47 / 37 / 53 / 63 / 72 / 72 / 72 / 72). H100: the H200's value (not measured on an H100)"},
    {"l2_requests_r128_s128k_per_ns", P(l2_requests_r128_per_ns[5]), 72, "1/ns",
     TMA_HOT "128-byte rows at a 256-byte pitch (at a 128-byte pitch, 8 / 16 / 32 KiB: 30 / 54 / 72; from 64 KiB the GPU's L2 byte rate binds); boxes spanning 128 KiB: 72 (every point, 4 / 8 / 16 / 32 / 64 / 128 / 256 / 1024 KiB: 47 / 37 / 53 / 63 / 72 / 72 / 72 / 72). H100: the H200's value (not measured on an H100)"},
    {"l2_requests_r128_s256k_per_ns", P(l2_requests_r128_per_ns[6]), 72, "1/ns",
     TMA_HOT "128-byte rows at a 256-byte pitch (at a 128-byte pitch, 8 / 16 / 32 KiB: 30 / 54 / 72; from 64 KiB the GPU's L2 byte rate binds); boxes spanning 256 KiB: 72 (every point, 4 / 8 / 16 / 32 / 64 / 128 / 256 / 1024 KiB: 47 / 37 / 53 / 63 / 72 / 72 / 72 / 72). H100: the H200's value (not measured on an H100)"},
    {"l2_requests_r128_s1024k_per_ns", P(l2_requests_r128_per_ns[7]), 72, "1/ns",
     TMA_HOT "128-byte rows at a 256-byte pitch (at a 128-byte pitch, 8 / 16 / 32 KiB: 30 / 54 / 72; from 64 KiB the GPU's L2 byte rate binds); boxes spanning 1024 KiB or more: 72 (every point, 4 / 8 / 16 / 32 / 64 / 128 / 256 / 1024 KiB: 47 / 37 / 53 / 63 / 72 / 72 / 72 / 72). H100: the H200's value (not measured on an H100)"},
    {"hbm_latency_ns", P(hbm_latency_ns), 435, "ns",
     H100_CAL "tma_latency: one TMA load at a time of 1-32 KiB from DRAM (256 MiB written between sizes): intercept of issue-to-full-barrier time over bytes"},
    {"l2_latency_ns", P(l2_latency_ns), 167, "ns",
     H100_CAL "tma_latency: one TMA load at a time of 1-32 KiB re-reading a box in L2: intercept of issue-to-full-barrier time over bytes (4 KiB: 185 ns)"},
    {"dsmem_latency_ns", P(dsmem_latency_ns), 419, "ns",
     H100_CAL "cluster: ping-pong of mbarrier.arrive.release.cluster between the lanes 0 of a cluster of 2 (one hand-off 444 ns) less wake_ns: a remote arrive reaching the peer"},
    {"tma_issue_ns", P(tma_issue_ns), 328, "ns",
     PRODUCER_SWEEP "one copy to the next copy of the stage (cp.async.bulk.tensor and the next tensor's "
     "coordinates), the producer alone (one consumer warp without reads or math): the slope of 2 tensors less "
     "that of 1, 329, and of 3 less 2, 326; 328. Beside 4 FFMA warps 338 (the stretches below)"},
    {"arrive_ns", P(arrive_ns), 6.73, "ns",
     H100_CAL "mbarrier: 256 local mbarrier.arrive reading the returned state (pending_count, the generated kernel's over-arrival check), warp time each"},
    {"wake_ns", P(wake_ns), 29.85, "ns",
     H100_CAL "mbarrier: ping-pong between two warps' lanes 0 (arrive on the other's barrier, try_wait on one's own): one hand-off 32.8 ns less an arrive without a result (2.9)"},
    {"wake_stagger_ns", P(wake_stagger_ns), 1.08, "ns",
     WAKE_CAL "1.08 ns [1.01..1.18 p10..p90, n 945], about 2 cycles. The H100 was not lent since; its SMs are the "
     "same design, and its corpus traces (scripts/wake-spread.py fit traces/h100/corpus, recorded) give 4.0 ns over 199 "
     "wakes in 5 kernels"},
    {"ldgsts_issue_cycles", P(ldgsts_issue_cycles), 26, "cycles",
     COPY_STEPS "per trip of 32 cp.async (each lane: its chunk's 16-byte table entry, a select of the "
     "tensor's tile base, the cp.async): 13.3 ns = 26 cycles (test half on its own: 9.2 ns)"},
    {"ldgsts_step_ns", P(ldgsts_step_ns), 347, "ns",
     COPY_STEPS "the intercept of the mbarrier steps, a step's time besides its trips and tile addresses "
     "(the cp.async.mbarrier.arrive of every lane, the counted .noinc arrive after a warp barrier, the events; "
     "test half on its own: 345)"},
    {"ldgsts_group_step_ns", P(ldgsts_group_step_ns), 160, "ns",
     COPY_STEPS "the intercept of the commit-group steps (cp.async.commit_group, no arrive; test half on its own: 139)"},
    {"group_record_ns", P(group_record_ns), 86.4, "ns",
     "measured: the H200 corpus's fit half as recorded on 2026-11-25 (traces/h200/corpus, seed 1; commit 6bd87af), "
     "the 6 cp_async descriptions with commit groups at one CTA per SM whose traces show no blocked wait (a CTA's time is "
     "the sum of its steps): the recorded launch's kernel time less the unrecorded one (NAME.json kernel_rec_ns, "
     "kernel_ns) per step of a CTA, median 86.4 ns (p25 84.0, p75 102.8; test half 84.0, n 3; scripts/record-cost.py): "
     "the clocks and records of the step and its consume (hw/run_kernel.cuh). ldgsts_group_step_ns comes from "
     "recorded traces; the simulator predicts the unrecorded kernel and takes this off each commit-group copy step after the prologue"},
    {"ldgsts_smsp_share_ns", P(ldgsts_smsp_share_ns), 149, "ns",
     COPY_STEPS "added to the step of a CTA whose 5-8 copying warps share the 4 sub-partitions, two warps on some "
     "(test half on its own: 150): all of a CTA's warps copy at the same time, and a warp's copy step, mostly a chain "
     "of dependent integer instructions, waits for the issue slots of the other warp on its sub-partition (about 300 "
     "instructions a step); without this term the fit's residuals are p10 -128, p90 +133 ns"},
    {"tile_address_ns", P(tile_address_ns), 211, "ns",
     COPY_STEPS "per tensor of the stage: the copy loop's tile base in global memory (hw/run_kernel.cuh "
     "tile_bases: the tile's coordinates by division from its id, then their strides), once per step of the "
     "cp.async and the st.async loops"},
    {"copy_table_room_bytes", P(copy_table_room_bytes), 18432, "bytes",
     "measured: the copy-table probe on the H200 (traces/h200/probes/cptab, 2026-11-25 12:06 UTC: one CTA per SM, 4 "
     "warps copying 4 stages of one f32 box of 4-48 KiB with cp.async, nothing else): the copy path's L2 reads over the "
     "tile bytes are 1.00 up to 16 KiB stages, 1.22 / 1.50 / 1.65 / 1.65 at 24 / 32 / 40 / 48 KiB. The generated "
     "kernel reads a table of 16 bytes per 16-byte chunk (hw/run_gen.c), so a share 1 - C / T of a table of T bytes "
     "misses L1: least squares over the four tables that miss gives C = 17.0 KiB, but the fit half's corpus_0001_0022 "
     "reads its 18 KiB table without misses (L2 reads 1.007x its tiles), so C is 18 KiB (scripts/copy-table.py). "
     "Every generated CTA requests its whole share of the SM's shared memory, which leaves L1 the same 28 KiB "
     "whatever the description"},
    {"smem_cycles_per_wavefront", P(smem_cycles_per_wavefront), 1.014, "cycles",
     H100_CAL "lds: 32 warps per SM issuing conflict-free ld.shared.v4 (4 wavefronts): 129.8 cycles per instruction per warp / 128 wavefronts; 16 warps of 32-way conflicting loads: 1.003"},
    {"lsu_issue_cycles", P(lsu_issue_cycles), 7.07, "cycles",
     H100_CAL "lds: one warp per sub-partition issuing conflict-free ld.shared.u32 (128 B per instruction): 7.1 cycles per instruction (v2 9.9, ldmatrix x2 9.3): the least a shared load costs its warp; wider loads cost their bytes at lsu_bytes_per_cycle_smsp"},
    {"ffma_cycles", P(ffma_cycles), 1.193, "cycles",
     H100_CAL "ffma: 8 independent FFMA chains per warp as the generated math block issues them, 4 warps per sub-partition: cycles per warp instruction on the sub-partition (1 warp 1.66, 2: 1.31, 8: 1.20)"},
    {"mma_flops_per_cycle_smsp", P(mma_flops_per_cycle_smsp), 675, "flop/cycle",
     H100_CAL "mma: mma.sync.m16n8k16 f32+=f16 in 4 chains per warp, 1-4 warps per sub-partition: the most flops per cycle per sub-partition (1 warp 620)"},
    {"store_latency_ns", P(store_latency_ns), 92.4, "ns",
     H100_CAL "store: one thread, a 4 KiB box by cp.async.bulk.tensor store: issue, commit, wait_group 0"},
    {"reduce_latency_ns", P(reduce_latency_ns), 115.7, "ns",
     H100_CAL "store: one thread, a 4 KiB box by cp.reduce.async.bulk.tensor .add (f32): issue, commit, wait_group 0"},
    {"smem_latency_cycles", P(smem_latency_cycles), 28.6, "cycles",
     H100_CAL "smem_latency: one lane following 4096 dependent ld.shared.u32"},
    {"barsync_ns", P(barsync_ns), 18.1, "ns",
     H100_CAL "barsync: bar.sync of every warp of a CTA, one CTA per SM: the median over 4, 8, 16, 32 warps (10.1, 14.1, 22.2, 38.4 ns)"},
    {"cta_launch_spread_ns", P(cta_launch_spread_ns), 96, "ns",
     H100_CAL "launch: a 132-CTA launch of CTAs spinning 20 us: first to last CTA start on globaltimer"},
    {"cta_overhead_ns", P(cta_overhead_ns), 1560, "ns",
     "measured: the H200 corpus's fit half as recorded on 2026-11-25 (traces/h200/corpus, seed 1; commit "
     "6bd87af), the 70 kernels whose traced CTA spans less than 100 us: the median CTA's time (globaltimer at "
     "each CTA's start and end, NAME.json cta_ns_p50) less the traced CTA's span from its first to its last "
     "event: median 1560 ns (p25 1057, p75 2500; test half 1643): the generated kernel's barrier and table "
     "set-up before its pipeline and its final waits after it (scripts/cta-overhead.py)"},
    {"mma_latency_cycles", P(mma_latency_cycles), 27.3, "cycles",
     "measured: traces/h100/pipelines/compute_bound.tmt, math span 14172 ns for 4096 mma.sync.m16n8k16 per warp "
     "in 4 independent accumulator chains (hw/run_kernel.cuh MATH 2), one warp per sub-partition: "
     "(14172 ns - the 40 ns tail) x 1.98 GHz / 4096 = 6.83 cycles per mma = 27.3 / 4 chains; "
     "ws4_tma and cluster2_multicast (256 mma: 905-909 ns) agree within 3%. tmahw calibrate's mma benchmark "
     "(traces/h100/calibration) gives 26.4 for the same 4 chains of one warp outside the generated kernel "
     "(6.6 cycles per mma) and 24.4 cycles per mma for one dependent chain"},
    {"math_tail_cycles", P(math_tail_cycles), 80, "cycles",
     "measured: traces/h100/pipelines/double_buffer.tmt math 170 ns for 256 FFMA (129 ns at 1 per cycle) and "
     "cpasync_multistage.tmt 300 ns for 512 (259 ns): +41 ns = 80 cycles per block, the generated kernel's sum "
     "of its 8 accumulators and __shfl_sync before the release"},
    {"read_tail_cycles", P(read_tail_cycles), 47, "cycles",
     "measured: the traces of the H200 corpus's fit half as recorded on 2026-11-25 (traces/h200/corpus, seed 1; "
     "commit 6bd87af), the 20 descriptions at one CTA per SM and one warp per sub-partition whose consumers read: "
     "each kernel's median smem_read span less the modelled span of its loads (issue, port, smem_latency_cycles), "
     "median 23.5 ns = 47 cycles (test half 26 ns, n 14), whatever the repeat (1-4): the generated read's end "
     "after its last load (hw/run_kernel.cuh: the fold of the loaded words, __shfl_sync and the branch on it "
     "that keeps the math after the read)"},
    {"expect_tx_ns", P(expect_tx_ns), 204, "ns",
     PRODUCER_SWEEP "the expect_tx to the first copy (the instruction alone: 4.0 ns in tmahw calibrate's "
     "mbarrier benchmark; the rest is the first tensor's coordinates), the producer alone: the traced CTA of "
     "the 300-iteration runs of 1, 2 and 3 tensors, median 203, 204 and 207 ns"},
    {"produce_tail_ns", P(produce_tail_ns), 236, "ns",
     PRODUCER_SWEEP "the last copy to the next stage's expect_tx (the copy, the event's record, the loop, the "
     "probe of the free empty barrier), the producer alone: its stage with one tensor, 439.5 ns, less "
     "expect_tx_ns (the traced CTA: 221)"},
    {"produce_resume_ns", P(produce_resume_ns), 62, "ns",
     ROUND_TRIP "the consumer's release to the producer's next expect_tx, the traced CTA's median: 90 (no "
     "read) and 93 (reading), less the hand-off itself (wake_ns, 29.85): the end of its wait and its loop before "
     "the expect_tx. The corpus's traced kernels, with neighbours, show 123-251 (scripts/producer-steps.py). It is a "
     "chain of the producer's instructions: it stretches as its steps do (produce_share_factor, the clock); at 4, 8, "
     "12 CTAs per SM the traced release-to-expect_tx grows 94, 100, 108 ns"},
    {"produce_neighbour_ns", P(produce_neighbour_ns), 48.4, "ns",
     PRODUCER_SWEEP "what consumer warps that read shared memory or run FFMA add to the producer's stage "
     "when none of them shares its sub-partition: 2 warps reading 16-byte rows twice +60.7, 3 FFMA warps "
     "(64 each) +36.2 over the producer alone (439.5); 2 mma.sync warps add nothing at the same cycles "
     "(477.4 ns at 1.82 GHz against 439.5 at 1.99: the clock's part, which the producer's steps follow)"},
    {"consume_resume_ns", P(consume_resume_ns), 66, "ns",
     ROUND_TRIP "the copy's issue to the consumer's wait returning, the traced CTA's median: 287 (no read) and "
     "286 (reading), less the modelled flight of its 2 KiB box from L2 (191) and wake_ns (29.85): the consumer's "
     "suspended try_wait returns this much later than the warp-to-warp hand-off when a copy completes its phase "
     "(the unrecorded slopes put it at 82 and 58). A chain of the consumer's instructions: it stretches as the "
     "producer's steps do (produce_share_factor, the clock); at 4, 8, 12 CTAs per SM the traced issue-to-return "
     "grows 291, 302, 322 ns"},
    {"produce_share_factor", P(produce_share_factor), 0.40, "",
     PRODUCER_SWEEP "the producer's steps stretch by this share of the cycles the other warps of its "
     "sub-partition take its issue slots: 3, 4, 8 and 15 idle consumer warps (0-3 on its sub-partition) 442, "
     "462, 470, 485 ns; 8 and 15 FFMA warps 559, 601; 1, 2, 4 and 8 CTAs per SM on an 8 MiB tensor 440, 441, "
     "486, 600. The least squares of log(sim / GPU) over the seven that share it, in steps of 0.05 "
     "(scripts/producer-sweep.py share)"},
    {"mcast_expect_tx_ns", P(mcast_expect_tx_ns), 142, "ns",
     PRODUCER_STEPS "expect_tx_ns of the producers whose copies are .multicast::cluster (their rank's slice): "
     "142 [139..178, n 5 kernels] (test half 152; the H200's cluster2_multicast example: 153)"},
    {"mcast_tma_issue_ns", P(mcast_tma_issue_ns), 233, "ns",
     PRODUCER_STEPS "tma_issue_ns of the same: 233 [220..259, n 3 kernels] (test half 236; the H200's "
     "cluster2_multicast example: 238)"},
    {"remote_arrive_ns", P(remote_arrive_ns), 348, "ns",
     H100_CAL "cluster: cluster of 2, lane 0: 64 mbarrier.arrive.release.cluster on the peer CTA's barrier, warp time each (the producer's remote arrive in traces/h100/pipelines/stasync_cluster.tmt: median 349)"},
    {"remote_arrive_next_w1_ns", P(remote_arrive_next_ns[0]), 348, "ns",
     H100_CAL "cluster: cluster of 2, lane 0: 64 mbarrier.arrive.release.cluster on the peer CTA's barrier one after "
     "another, warp time each (348.7 ns); the H100 has no run of the remote benchmark (arrives on every other rank by warps "
     "per SM): the same at every count"},
    {"remote_arrive_next_w2_ns", P(remote_arrive_next_ns[1]), 348, "ns",
     H100_CAL "cluster: as remote_arrive_next_w1_ns (one peer's arrives in a row; not by warps)"},
    {"remote_arrive_next_w4_ns", P(remote_arrive_next_ns[2]), 348, "ns",
     H100_CAL "cluster: as remote_arrive_next_w1_ns (one peer's arrives in a row; not by warps)"},
    {"remote_arrive_next_w8_ns", P(remote_arrive_next_ns[3]), 348, "ns",
     H100_CAL "cluster: as remote_arrive_next_w1_ns (one peer's arrives in a row; not by warps)"},
    {"remote_arrive_next_w16_ns", P(remote_arrive_next_ns[4]), 348, "ns",
     H100_CAL "cluster: as remote_arrive_next_w1_ns (one peer's arrives in a row; not by warps)"},
    {"remote_arrive_next_c1_ns", P(remote_arrive_next_cta_ns[0]), 165, "ns", CLUSTER_RX "1 CTA per SM: 165"},
    {"remote_arrive_next_c2_ns", P(remote_arrive_next_cta_ns[1]), 206, "ns", CLUSTER_RX "2 CTAs per SM: 206"},
    {"remote_arrive_next_c4_ns", P(remote_arrive_next_cta_ns[2]), 343, "ns", CLUSTER_RX "4 CTAs per SM: 343"},
    {"remote_arrive_next_c8_ns", P(remote_arrive_next_cta_ns[3]), 355, "ns", CLUSTER_RX "8 CTAs per SM: 355"},
    {"remote_arrive_first_c2_extra_ns", P(remote_arrive_first_cta_extra_ns[0]), 17, "ns", CLUSTER_RX_FIRST "2 CTAs per SM: 346 - 329 = 17"},
    {"remote_arrive_first_c4_extra_ns", P(remote_arrive_first_cta_extra_ns[1]), 102, "ns", CLUSTER_RX_FIRST "4 CTAs per SM: 431 - 329 = 102"},
    {"remote_arrive_first_c8_extra_ns", P(remote_arrive_first_cta_extra_ns[2]), 140, "ns", CLUSTER_RX_FIRST "8 CTAs per SM: 469 - 329 = 140"},
    {"release_fence_dram_share", P(release_fence_dram_share), 0.59, "",
     REMOTE_LOAD_CAL "an arrive alone 137 ns; while 1, 2, 4, 8, 12 loads of 16 KiB stream from L2 (8 MiB footprint) into "
     "the arriving SM 377, 475, 477, 477, 481 ns; from DRAM (512 MiB) with 2, 4, 8, 12 in flight 923, 1706, 2557, "
     "3456 ns at 3819-4706 B/ns; an idle SM beside a loading one 137 (its own SM's loads delay it, not the GPU's). "
     "The DRAM figures less the L2 case (477) over the newest load's wait for DRAM (loads in flight x 16 KiB over "
     "the SM's share of the GPU's rate, less half a copy's interval): 0.65, 0.76, 0.60, 0.56, least squares 0.59. "
     "The L2 case is not modelled: the generated kernels' releases (remote_arrive_ns, from their traces) already "
     "include the loop around them, and the lone arrive's 137 ns is below what they take while loads stream. "
     "An H200 figure; the H100 not measured"},
    {"consume_step_ns", P(consume_step_ns), 343, "ns",
     "measured: traces/h100/pipelines/ws4_tma.tmt, a consumer warp's end of math to its next smem_read when the stage is already full (no stall): median 350 ns (p10 349, 1008 steps of CTAs 0-7), less arrive_ns (6.7, tmahw calibrate): the generated consume loop (hw/run_kernel.cuh: release, deferred event stores, the non-blocking test_wait probe of the next full barrier and its __all_sync) outside its reads, math and arrives. Checks (same measurement, other recordings): splitk_reduce 350, compute_bound 376, full_grid 371, consumer_swizzle_128b and _none 275, cluster2_multicast 719. The commit-group loop (math end to the next cpasync_issue median 42 ns) has no mbarrier step and does not get it. Includes the recording's share (ws4_tma 2.1% of the kernel, ~37 ns per step)"},
    {"stas_l1_4lines_ns", P(stas_lines_ns[0][0]), 20.03, "ns",
     STAS_CAL "one producer warp per SM, rows of 128 bytes at a 256-byte pitch: 4 lines, data in its own SM's L1 (the stages walked once before in the kernel): 20.03 ns [20.03..20.03] (contiguous 512-byte rows 20.03, 256-byte rows 20.04)"},
    {"stas_l1_8lines_ns", P(stas_lines_ns[0][1]), 22.69, "ns",
     STAS_CAL "one producer warp per SM, rows of 64 bytes: 8 lines, data in its own SM's L1 (the stages walked once before in the kernel): 22.69 ns [22.69..30.21] (16-byte rows at a 32-byte pitch, 8 lines and 32 sectors: 22.82)"},
    {"stas_l1_16lines_ns", P(stas_lines_ns[0][2]), 76.9, "ns",
     STAS_CAL "one producer warp per SM, rows of 32 bytes: 16 lines, data in its own SM's L1 (the stages walked once before in the kernel): 76.9 ns [74.43..83.6]"},
    {"stas_l1_32lines_ns", P(stas_lines_ns[0][3]), 86.43, "ns",
     STAS_CAL "one producer warp per SM, rows of 16 bytes: 32 lines, data in its own SM's L1 (the stages walked once before in the kernel): 86.43 ns [83.8..111.6]"},
    {"stas_l1_k2_ns", P(stas_ctas_ns[0][0]), 24.33, "ns",
     STAS_CAL "2 producer warps per SM, 4-line trips, data in its own SM's L1 (the stages walked once before in the kernel): 24.33 ns [23.83..24.74]"},
    {"stas_l1_k4_ns", P(stas_ctas_ns[0][1]), 50.53, "ns",
     STAS_CAL "4 producer warps per SM, 4-line trips, data in its own SM's L1 (the stages walked once before in the kernel): 50.53 ns [48.21..52.97]"},
    {"stas_l1_k8_ns", P(stas_ctas_ns[0][2]), 106, "ns",
     STAS_CAL "8 producer warps per SM, 4-line trips, data in its own SM's L1 (the stages walked once before in the kernel): 106 ns [99.96..110.8] (other rows at 8 per SM: 64-byte 106.8, 32-byte 131.3, 16-byte 200.1)"},
    {"stas_l1_k16_ns", P(stas_ctas_ns[0][3]), 110.5, "ns",
     STAS_CAL "16 producer warps per SM, 4-line trips, data in its own SM's L1 (the stages walked once before in the kernel): 110.5 ns [101.1..118.1]"},
    {"stas_l2_4lines_ns", P(stas_lines_ns[1][0]), 73.42, "ns",
     STAS_CAL "one producer warp per SM, rows of 128 bytes at a 256-byte pitch: 4 lines, data in L2 (a launch walked the stages before): 73.42 ns [71.68..75.48] (contiguous 512-byte rows 72.67, 256-byte rows 72.25)"},
    {"stas_l2_8lines_ns", P(stas_lines_ns[1][1]), 75.67, "ns",
     STAS_CAL "one producer warp per SM, rows of 64 bytes: 8 lines, data in L2 (a launch walked the stages before): 75.67 ns [73.4..78.72] (16-byte rows at a 32-byte pitch, 8 lines and 32 sectors: 75.74)"},
    {"stas_l2_16lines_ns", P(stas_lines_ns[1][2]), 78.98, "ns",
     STAS_CAL "one producer warp per SM, rows of 32 bytes: 16 lines, data in L2 (a launch walked the stages before): 78.98 ns [77.26..81.29]"},
    {"stas_l2_32lines_ns", P(stas_lines_ns[1][3]), 88.44, "ns",
     STAS_CAL "one producer warp per SM, rows of 16 bytes: 32 lines, data in L2 (a launch walked the stages before): 88.44 ns [86.18..96.85]"},
    {"stas_l2_k2_ns", P(stas_ctas_ns[1][0]), 80.09, "ns",
     STAS_CAL "2 producer warps per SM, 4-line trips, data in L2 (a launch walked the stages before): 80.09 ns [78.07..82.3]"},
    {"stas_l2_k4_ns", P(stas_ctas_ns[1][1]), 93.37, "ns",
     STAS_CAL "4 producer warps per SM, 4-line trips, data in L2 (a launch walked the stages before): 93.37 ns [85.95..97.46]"},
    {"stas_l2_k8_ns", P(stas_ctas_ns[1][2]), 121.9, "ns",
     STAS_CAL "8 producer warps per SM, 4-line trips, data in L2 (a launch walked the stages before): 121.9 ns [109.9..133.6] (other rows at 8 per SM: 64-byte 117.1, 32-byte 128.5, 16-byte 198.5)"},
    {"stas_l2_k16_ns", P(stas_ctas_ns[1][3]), 115.6, "ns",
     STAS_CAL "16 producer warps per SM, 4-line trips, data in L2 (a launch walked the stages before): 115.6 ns [108.7..129.8]"},
    {"stas_dram_4lines_ns", P(stas_lines_ns[2][0]), 178.7, "ns",
     STAS_CAL "one producer warp per SM, rows of 128 bytes at a 256-byte pitch: 4 lines, data from DRAM (a launch walked the stages before, a 256 MiB memset evicted them from L2): 178.7 ns [171.1..187.4] (contiguous 512-byte rows 187.1, 256-byte rows 171.2)"},
    {"stas_dram_8lines_ns", P(stas_lines_ns[2][1]), 194.6, "ns",
     STAS_CAL "one producer warp per SM, rows of 64 bytes: 8 lines, data from DRAM (a launch walked the stages before, a 256 MiB memset evicted them from L2): 194.6 ns [185.5..202.8] (16-byte rows at a 32-byte pitch, 8 lines and 32 sectors: 191.1)"},
    {"stas_dram_16lines_ns", P(stas_lines_ns[2][2]), 236.8, "ns",
     STAS_CAL "one producer warp per SM, rows of 32 bytes: 16 lines, data from DRAM (a launch walked the stages before, a 256 MiB memset evicted them from L2): 236.8 ns [227.3..244.5]"},
    {"stas_dram_32lines_ns", P(stas_lines_ns[2][3]), 321.6, "ns",
     STAS_CAL "one producer warp per SM, rows of 16 bytes: 32 lines, data from DRAM (a launch walked the stages before, a 256 MiB memset evicted them from L2): 321.6 ns [310.7..330.8]"},
    {"stas_dram_k2_ns", P(stas_ctas_ns[2][0]), 190, "ns",
     STAS_CAL "2 producer warps per SM, 4-line trips, data from DRAM (a launch walked the stages before, a 256 MiB memset evicted them from L2): 190 ns [180.7..198.9]"},
    {"stas_dram_k4_ns", P(stas_ctas_ns[2][1]), 210, "ns",
     STAS_CAL "4 producer warps per SM, 4-line trips, data from DRAM (a launch walked the stages before, a 256 MiB memset evicted them from L2): 210 ns [199.5..220.4]"},
    {"stas_dram_k8_ns", P(stas_ctas_ns[2][2]), 272.2, "ns",
     STAS_CAL "8 producer warps per SM, 4-line trips, data from DRAM (a launch walked the stages before, a 256 MiB memset evicted them from L2): 272.2 ns [256.3..287.9] (other rows at 8 per SM: 64-byte 380.3, 32-byte 510, 16-byte 935.7)"},
    {"stas_dram_k16_ns", P(stas_ctas_ns[2][3]), 262.5, "ns",
     STAS_CAL "16 producer warps per SM, 4-line trips, data from DRAM (a launch walked the stages before, a 256 MiB memset evicted them from L2): 262.5 ns [245.8..286.1]"},
    {"stas_alone_k1_ns", P(stas_alone_ns[0]), 15.27, "ns",
     STAS_CAL "the st.async alone (a constant stored, no load), 1 producer warp(s) per SM: 15.27 ns [15.02..18.91]"},
    {"stas_alone_k2_ns", P(stas_alone_ns[1]), 26.44, "ns",
     STAS_CAL "the st.async alone (a constant stored, no load), 2 producer warp(s) per SM: 26.44 ns [25.13..28.56]"},
    {"stas_alone_k4_ns", P(stas_alone_ns[2]), 46.58, "ns",
     STAS_CAL "the st.async alone (a constant stored, no load), 4 producer warp(s) per SM: 46.58 ns [39.82..52.22]"},
    {"stas_alone_k8_ns", P(stas_alone_ns[3]), 77.64, "ns",
     STAS_CAL "the st.async alone (a constant stored, no load), 8 producer warp(s) per SM: 77.64 ns [49.53..87.2]"},
    {"stas_alone_k16_ns", P(stas_alone_ns[4]), 71.14, "ns",
     STAS_CAL "the st.async alone (a constant stored, no load), 16 producer warp(s) per SM: 71.14 ns [39.56..84.01]"},
    {"stas_tail_ns", P(stas_tail_ns), 184, "ns",
     "measured: the generated st.async producer's step in the traces of the H200 corpus's fit half as recorded on "
     "2026-11-25 (traces/h200/corpus, seed 1; commit 6bd87af), st_async descriptions at one CTA per SM: the end of "
     "a stage's copy loop to the next stage's remote expect_tx (the event's record, the loop, the probe of the "
     "free empty barrier), in steps whose stage the consumers had released before the loop ended; each kernel's "
     "median, the median over kernels (scripts/stas-steps.py): 184 [158..214, n 9 kernels]. H100: the H200's "
     "value (not measured on an H100)"},
    {"stas_first_ns", P(stas_first_ns), 424, "ns",
     STAS_HANDOFFS "a producer's first copy loop (both traced producers' median) less the median of its later "
     "stages' loops: 424 [282..1190, n 10 kernels] (test half 358, n 8; seed 2 370, n 10): the kernel's first "
     "chunk-table, address and data misses. H100: the H200's value (its corpus's fit half keeps 2 such traces, "
     "364 and 1274)"},
    {"stas_land_ns", P(stas_land_ns), 88, "ns",
     STAS_HANDOFFS "the end of a producer's copy loop (the clock after its last st.async) to the end of its peer's "
     "consumers' wait for that stage, in waits that began before the loop ended: 118 [89..138, n 10 kernels] (test "
     "half 114, n 8; seed 2 121, n 9), less the hand-off itself (wake_ns, 29.85): the last "
     "st.async's bytes and complete_tx reaching the peer (the H100 corpus's fit half: 101, n 2 kernels). The "
     "remote arrive's dsmem_latency_ns (H200 211) is the .release.cluster hand-off, which an st.async's "
     "complete_tx does not make"},
    {"stas_resume_ns", P(stas_resume_ns), 266, "ns",
     "measured: the generated st.async pipeline's traces on the H200, the steps where the producer waited for its "
     "stage (the peer's consumers released its previous use after the producer's loop ended): the release record to "
     "the producer's next remote expect_tx, each kernel's median, the median over the fit half's kernels "
     "(scripts/stas-resume.py: traces/h200/corpus seed 1 and the probes traces/h200/probes/stas recorded 2026-11-25 "
     "13:13 UTC, commit c1a2710; corpus_0001_0150 497, stas_r32_k4 506, stas_r32_k8 676: 506; test half 426 [408..488], "
     "n 4), less dsmem_latency_ns (211) and wake_ns (29.85): the end of its wait and its loop before the expect_tx. "
     "H100: the H200's value (not measured)"},
    {"remote_arrive_alone_ns", P(remote_arrive_alone_ns), 348.7, "ns",
     "measured: tmahw calibrate --only cluster (traces/h100/calibration/calibration.params, remote_arrive_alone_ns): "
     "cluster of 2, lane 0: 64 mbarrier.arrive.release.cluster on the peer CTA's barrier, no stores before them, warp "
     "time each: 348.7 ns [348.7..348.8] (the H200's 153.5 in its set). The generated st.async producer's expect_tx "
     "after a wait for its stage costs this: the H200's traces give 149-204 ns at 1-4 CTAs per SM "
     "(scripts/stas-resume.py), 272-438 at 8-12"},
    {"stas_table_l1_bytes", P(stas_table_l1_bytes), 69632, "bytes",
     "measured: the L2 reads of the H200 corpus's fit half as recorded on 2026-11-25 (traces/h200/corpus, seed 1; "
     "commit 6bd87af; Range Profiler lts__t_sectors_srcunit_tex_op_read), the st_async descriptions whose data L2 "
     "serves (9 kernels): the reads beyond the data's sectors over the chunk table's bytes give the share of table "
     "entries that missed L1, 0.03 at 1 KiB of table and data lines per stage to 0.76 at 84 KiB; a line surviving "
     "the stage's table and data lines D with probability exp(-D / C) fits them with C = 68 KiB, residuals "
     "-0.02..+0.03 (scripts/stas-table.py; test half alone 57 KiB, seed 2 76 KiB). H100: the H200's value (same "
     "SM design, not measured)"},
    {"stas_release_ns", P(stas_release_ns), 270, "ns",
     "measured: the same in the H100 corpus's fit half (traces/h100/corpus, seed 1, scripts/stas-handoffs.py fit "
     "build/rel/tmasim traces/h100/corpus): a consumer's end of math (of its reads without math) to its next "
     "full-barrier wait or read, 612 [575..650, n 2 kernels: the H100 keeps few st_async traces], less "
     "consume_step_ns (343) (the H200's: stas_release_ns in its set)"},
    {"l2_resident_32mib", P(l2_resident_share[0]), 0.929, "share",
     L2_RESIDENT "32 MiB: 7468 B/ns on the H100, share 0.929 (the H200: 7836 B/ns, 1.000)"},
    {"l2_resident_40mib", P(l2_resident_share[1]), 0.688, "share",
     L2_RESIDENT "40 MiB: 6048 B/ns on the H100, share 0.688 (the H200: 6188 B/ns, 0.572)"},
    {"l2_resident_48mib", P(l2_resident_share[2]), 0.426, "share",
     L2_RESIDENT "48 MiB: 4885 B/ns on the H100, share 0.426 (the H200: 5877 B/ns, 0.490)"},
    {"l2_resident_64mib", P(l2_resident_share[3]), 0.210, "share",
     L2_RESIDENT "64 MiB: 3774 B/ns on the H100, share 0.210 (the H200: 5094 B/ns, 0.285)"},
    {"l2_resident_96mib", P(l2_resident_share[4]), 0.155, "share",
     L2_RESIDENT "96 MiB: 3492 B/ns on the H100, share 0.155 (the H200: 4728 B/ns, 0.190)"},
    {"l1_smem_bytes", P(l1_smem_bytes), 262144, "bytes",
     "NVIDIA's Hopper architecture documents (H100 whitepaper, tuning guide): each SM has 256 KB of L1 data cache and "
     "shared memory together, the shared-memory carve-out taken from it; not measured here"},
    {"l2_reuse_bytes", P(l2_reuse_bytes), 47.6e6, "bytes",
     H100_CAL "tma_fill: the GPU's TMA read rate by the footprint its 132 CTAs cycle through (8-32 MiB: 7.6-7.7 TB/s, 40: 6.0, 48: 5.0, 64: 3.8, 96: 3.5; DRAM 2.8): where it falls half way to the DRAM rate"},
    {"clusters2_at1", P(clusters2_at1), 66, "clusters",
     "measured: tmahw calibrate --only clusters on the H200 (traces/h200/gemm/2026-11-25/before-release-fix/"
     "gemm.params, 03:35 UTC): cudaOccupancyMaxActiveClusters, clusters of 2, 1 CTA per SM: every SM (the "
     "generated multicast GEMM's grid of 66 clusters: 66 resident). H100: the H200's value"},
    {"clusters2_at8", P(clusters2_at8), 528, "clusters",
     "measured: tmahw calibrate --only clusters on the H200 (traces/h200/gemm/2026-11-25/before-release-fix/"
     "gemm.params, 03:35 UTC): cudaOccupancyMaxActiveClusters, clusters of 2, 8 CTAs per SM. H100: the H200's value"},
    {"clusters4_at1", P(clusters4_at1), 30, "clusters",
     H100_CAL "clusters: cudaOccupancyMaxActiveClusters, clusters of 4, 1 CTA per SM (the generated kernels of the corpora: the same)"},
    {"clusters4_at8", P(clusters4_at8), 248, "clusters",
     H100_CAL "clusters: cudaOccupancyMaxActiveClusters, clusters of 4, 8 CTAs per SM (the generated kernels: the same)"},
    {"clusters8_at1", P(clusters8_at1), 15, "clusters",
     H100_CAL "clusters: cudaOccupancyMaxActiveClusters, clusters of 8, 1 CTA per SM (the generated kernels: the same)"},
    {"clusters8_at8", P(clusters8_at8), 124, "clusters",
     H100_CAL "clusters: cudaOccupancyMaxActiveClusters with clusters of 8 CTAs, 8 CTAs per SM"},
    {"clusters16_at1", P(clusters16_at1), 7, "clusters",
     H100_CAL "clusters: cudaOccupancyMaxActiveClusters, clusters of 16, 1 CTA per SM (the generated kernels: the same)"},
    {"clusters16_at8", P(clusters16_at8), 58, "clusters",
     H100_CAL "clusters: cudaOccupancyMaxActiveClusters, clusters of 16, 8 CTAs per SM (the generated kernels: the same)"},
    {"read_issue_cycles", P(read_issue_cycles), 1.12, "cycles",
     INSTR_COUNT "per shared-memory read instruction besides the words it loads: 1.12 (test half 0.47); "
     "each word adds read_word_issue_cycles"},
    {"read_word_issue_cycles", P(read_word_issue_cycles), 1.29, "cycles",
     INSTR_COUNT "per 32-bit word a lane loads (ld.shared u32/v2/v4: 1/2/4, ldmatrix .x2/.x4: 2/4): the generated "
     "read folds each word into its checksum with an integer multiply-add (IMAD, the FMA pipe's half-rate "
     "instruction; smsp__inst_executed_pipe_fma grows by 1.1-1.4 per word in the same fit): 1.29 (test half 1.69), "
     "an ld.shared.v4 6.3 instructions where one instruction per read had given it 2.96"},
    {"int_issue_cycles", P(int_issue_cycles), 1.438, "cycles",
     "measured: smsp__cycles_active and smsp__inst_executed (Range Profiler) of the H200 corpus's fit half (traces/h200/corpus, seed 1, recorded 2026-11-25, commit 6bd87af), the 13 kernels whose sub-partitions always had another warp ready (not_selected stalls at least 1.5 per issue) and at most 3% mma.sync: least squares of each kernel's active cycles on its FFMA and its other instructions (scripts/issue-rate.py; each kernel within -8..+7%): 1.438 cycles per other instruction (test half 1.478, seed 2 1.359; kernels without FFMA 1.42..1.53) and 1.156 per FFMA (the ffma microbenchmark: 1.193). The issue microbenchmark (tmahw calibrate --only issue, traces/h200/calibration/issue.params, 2026-11-25 04:02 UTC) shows why it is above 1: at 8 warps per sub-partition an IMAD takes 2.00 cycles (the FMA pipe's integer half rate), LOP3 1.20, a mix of IMAD, shifts, LOP3 and adds 1.22; in the generated code's SASS IMAD is the most frequent integer instruction. Not yet measured on an H100, whose SMs are the same design"},
    {"step_issue_cycles", P(step_issue_cycles), 103, "cycles",
     INSTR_COUNT "per mbarrier consumer step outside its reads and math (wait probe, release, events, loop): 103 (test half 103); a commit-group step: group_step_issue_cycles"},
    {"ffma_unrolled_cycles", P(ffma_unrolled_cycles), 1.047, "cycles",
     "measured: tmahw calibrate --only ifetch on the H200 (traces/h200/calibration/ifetch.params, 2026-11-24 20:40 UTC; not yet on an H100, whose SMs are the same design): ifetch: the generated FFMA block fully unrolled (8 KiB of code), one warp per sub-partition: cycles per FFMA (the looped block of ffma_cycles pays its loop's branch besides)"},
    {"ffma_unrolled_smsp_cycles", P(ffma_unrolled_smsp_cycles), 1.010, "cycles",
     "measured: tmahw calibrate --only ifetch on the H200 (traces/h200/calibration/ifetch.params, 2026-11-24 20:40 UTC; not yet on an H100, whose SMs are the same design): ifetch: the same block, 4 warps per sub-partition: cycles per FFMA on the sub-partition (2 warps 1.030, 8 warps 1.008)"},
    {"icache_bytes", P(icache_bytes), 24576, "bytes",
     "measured: tmahw calibrate --only ifetch on the H200 (traces/h200/calibration/ifetch.params, 2026-11-24 20:40 UTC; not yet on an H100, whose SMs are the same design): ifetch: the largest unrolled block one warp runs at the 8 KiB block's rate, within 5% (cycles per FFMA by code size: 8-24 KiB 1.04-1.05, 32 KiB 1.19, 40 KiB 2.43, 48 KiB 2.44, 64 KiB 2.43, 128 KiB 2.74); the generated loop holds the block and its reads, waits and arrives"},
    {"ffma_fetch_1w_cycles", P(ffma_fetch_1w_cycles), 2.426, "cycles",
     "measured: tmahw calibrate --only ifetch on the H200 (traces/h200/calibration/ifetch.params, 2026-11-24 20:40 UTC; not yet on an H100, whose SMs are the same design): ifetch: the unrolled block of 64 KiB, one warp per sub-partition: cycles per FFMA, the warp waiting for its instructions (counters of the corpus's large blocks: stalls on no_instruction)"},
    {"ffma_fetch_2w_cycles", P(ffma_fetch_2w_cycles), 1.126, "cycles",
     "measured: tmahw calibrate --only ifetch on the H200 (traces/h200/calibration/ifetch.params, 2026-11-24 20:40 UTC; not yet on an H100, whose SMs are the same design): ifetch: the same with 2 warps per sub-partition: cycles per FFMA on the sub-partition (the warps share fetched lines)"},
    {"ffma_fetch_4w_cycles", P(ffma_fetch_4w_cycles), 1.502, "cycles",
     "measured: tmahw calibrate --only ifetch on the H200 (traces/h200/calibration/ifetch.params, 2026-11-24 20:40 UTC; not yet on an H100, whose SMs are the same design): ifetch: the same with 4 warps per sub-partition: cycles per FFMA on the sub-partition"},
    {"ffma_fetch_8w_cycles", P(ffma_fetch_8w_cycles), 1.340, "cycles",
     "measured: tmahw calibrate --only ifetch on the H200 (traces/h200/calibration/ifetch.params, 2026-11-24 20:40 UTC; not yet on an H100, whose SMs are the same design): ifetch: the same with 8 warps per sub-partition: cycles per FFMA on the sub-partition"},
    {"kernel_overhead_ns", P(kernel_overhead_ns), 800, "ns",
     H100_CAL "launch: 132 CTAs spinning 20 us on globaltimer: CUPTI kernel duration less the CTAs' first start "
     "to last end, 5 launches: the time CUPTI counts outside the CTAs (the first wave's own start and end outside "
     "its pipeline are cta_overhead_ns)"},
    {"produce_issue_cycles", P(produce_issue_cycles), 170, "cycles",
     INSTR_COUNT "per tensor of a producing step (TMA producer, cp.async and st.async copy loops): the tile's "
     "coordinates by division from its id and its address, 170 (test half 169); the step besides its tensors "
     "adds none that the fit can tell apart (negative when given its own term)"},
    {"ldgsts_slot_cycles", P(ldgsts_slot_cycles), 13.8, "cycles",
     INSTR_COUNT "per trip of the cp.async copy loop (32 lanes' chunks): 13.8 (test half 13.0)"},
    {"group_step_issue_cycles", P(group_step_issue_cycles), 40, "cycles",
     INSTR_COUNT "per commit-group consumer step outside its reads and math (cp.async.wait_group, the next copy's "
     "commit, events, loop): 40 (test half 37)"},
    {"stas_slot_cycles", P(stas_slot_cycles), 12.6, "cycles",
     INSTR_COUNT "per trip of the st.async copy loop (32 lanes' 16-byte load and st.async): 12.6 (test half 10.6)"},
    {"lsu_bytes_per_cycle_smsp", P(lsu_bytes_per_cycle_smsp), 29.3, "B/cycle",
     H100_CAL "lds: one warp per sub-partition issuing conflict-free ld.shared.v4: 512 B per 17.5 cycles"},
    {"ldgsts_bytes_per_ns_sm", P(ldgsts_bytes_per_ns_sm), 64.1, "B/ns",
     H100_CAL "cpasync: cp.async.cg of 16 B per lane, batches of 8 per warp, 1-24 warps per SM: at most 64.5 B/ns per SM, from L2 and DRAM alike (1 warp 27, 2 warps 51)"},
    {"wgmma_cycles_per_col", P(wgmma_cycles_per_col), 0.5004, "cycles",
     WGMMA_LOAD "wgmma_load: every SM, two warpgroups each reading its own 64 rows of A and the same B (as the GEMM's "
     "consumers), 4 instructions per group, wait_group(1): m64n256k16 bf16 128.1 cycles per instruction on the SM = "
     "0.5004 per column of N (m64n64k16 32.0 = 0.5002; beside a copy thread writing 50-58 B/ns into other shared "
     "memory: 128.1 and 32.3, so the operands' shared-memory reads and the copies' writes do not limit it at these "
     "rates); tmahw calibrate --only wgmma, one SM's warpgroups reading the same A (traces/h200/gemm/wgmma.params): "
     "32.4 / 64.4 / 128.6 for n64 / n128 / n256, e4m3 k32 the same cycles. H100: the H200's value (the same SM)"},
    {"wgmma_copy_cycles_per_col", P(wgmma_copy_cycles_per_col), 0.5469, "cycles",
     WGMMA_COPY "every SM, two warpgroups each reading its own 64 rows of A (integers -2..2) and the same B, beside a "
     "thread keeping 1-8 bulk copies of 12 KiB in flight into the SM's other shared memory, from L2 or DRAM: "
     "m64n256k16 140.0 cycles per instruction with 2-8 copies in flight = 0.5469 per column of N (1 copy: 137.9 "
     "from L2, 133.5 from DRAM; m64n64k16 34.7 = 0.5422); the copies reach 26-31 B/ns per SM whatever is in "
     "flight, and a thread only spinning on a shared flag leaves the rate at 128.1: the TMA writes into shared "
     "memory slow the operands' reads. The tensor pipe runs at this rate while copies into its SM are in flight. "
     "H100: the H200's value"},
    {"wgmma_latency_cycles", P(wgmma_latency_cycles), 67.0, "cycles",
     WGMMA_LOAD "wgmma: one warpgroup, a group of 4 instructions, commit, wait_group(0): 196.5 / 326.0 / 581.4 "
     "cycles for n64 / n128 / n256 less 4 x their cycles per instruction (32.6 / 64.4 / 128.6): 66.1 / 68.5 / 67.0, "
     "the median. H100: the H200's value"},
    {"clock_tensor_ghz", P(clock_tensor_ghz), 1.805, "GHz",
     WGMMA_LOAD "wgmma_load: clock64 over globaltimer of 132 CTAs, each two warpgroups issuing m64n256k16 bf16 for "
     "~40 ms, 3 launches: median 1.805 GHz (1.753..1.813) where FFMA chains run at 1.98 (clock_ghz). The generated "
     "GEMMs' own clock (clock64 over globaltimer per CTA, tmahw run, 2026-11-25): 1.73-1.79 GHz for the bf16 ones, "
     "1.69-1.71 for the e4m3 one, 1.68-1.72 for the small-N and multicast ones; the same benchmark with operands "
     "-2..2 or beside copies read 1.59-1.75 and moved between calls (traces/h200/gemm/2026-11-25/gemm.params). "
     "H100: the H200's value (not measured on an H100; the H100 SXM's 989 TFLOP/s dense peak is 4096 flops per "
     "cycle per SM at 1.83 GHz). mma.sync kernels too: scripts/kernel-clock.py over the H200 corpus (profiler cycles over the timed launches' ns, kernels of 100 us or more) gives a median 1.807 GHz for the fit half's 21 mma kernels (test half 1.806, seed 2 1.825) against 1.98-1.99 for FFMA and no math; the simulator runs every tensor-pipe kernel at this clock (pipe_plan_clock_ghz)"},
    {"clock_gemm_ghz", P(clock_gemm_ghz), 1.773, "GHz",
     GEMM_CLOCK "the 20 kernels of 16-bit operands (bf16, f16): median 1.773 GHz [1.756..1.803 p10..p90]; the test "
     "half's 12: 1.753 [1.721..1.790]. H100: the H200's value (not measured on an H100)"},
    {"clock_gemm_fp8_ghz", P(clock_gemm_fp8_ghz), 1.742, "GHz",
     GEMM_CLOCK "the 10 kernels of 8-bit operands (e4m3, e5m2): median 1.742 GHz [1.725..1.777 p10..p90]; the test "
     "half's 18: 1.746 [1.686..1.789]; the bundled e4m3 GEMM: 1.705 (traces/h200/gemm/2026-11-25). H100: the H200's "
     "value (not measured on an H100)"},
    {"l2_share_g1_bytes_per_ns", P(l2_share_bytes_per_ns[0]), 9678, "B/ns",
     L2SHARE_GROUPS("1 SM") "8 KiB 9186, 16 KiB 9205, 32 KiB 9678; 16 KiB boxes with 64 / 192 KiB in flight per SM: 9226 / 9154, and one issuing thread per SM: 6678 whatever is in flight: L2's own limit). H100: the H200's value (not measured on an H100)"},
    {"l2_share_g2_bytes_per_ns", P(l2_share_bytes_per_ns[1]), 16624, "B/ns",
     L2SHARE_GROUPS("2 SMs") "8 KiB 12987, 16 KiB 16620, 32 KiB 16624). H100: the H200's value (not measured on an H100)"},
    {"l2_share_g4_bytes_per_ns", P(l2_share_bytes_per_ns[2]), 19060, "B/ns",
     L2SHARE_GROUPS("4 SMs") "8 KiB 12984, 16 KiB 19060, 32 KiB 16975). H100: the H200's value (not measured on an H100)"},
    {"l2_share_g8_bytes_per_ns", P(l2_share_bytes_per_ns[3]), 19522, "B/ns",
     L2SHARE_GROUPS("8 SMs") "8 KiB 12977, 16 KiB 19522, 32 KiB 17220; 16 KiB boxes with 64 / 128 / 192 KiB in flight per SM: 12286 / 19773 / 24620, the last the SMs' own TMA rate: from 4 readers on the bytes in flight bind, not L2). H100: the H200's value (not measured on an H100)"},
    {"l2_share_g16_bytes_per_ns", P(l2_share_bytes_per_ns[4]), 19348, "B/ns",
     L2SHARE_GROUPS("16 SMs") "8 KiB 12977, 16 KiB 19348, 32 KiB 17215; 192 KiB in flight: 24403). H100: the H200's value (not measured on an H100)"},
    {"l2_share_g32_bytes_per_ns", P(l2_share_bytes_per_ns[5]), 19478, "B/ns",
     L2SHARE_GROUPS("32 SMs") "8 KiB 12979, 16 KiB 19478, 32 KiB 17164; all 132 SMs reading the same boxes: 20646). H100: the H200's value (not measured on an H100)"},
    {"gemm_step_ns", P(gemm_step_ns), 209, "ns",
     L2SHARE "the GEMM's loads without its math (one thread per SM, stages of a 16 KiB A box shared by every 8th CTA "
     "and a 32 KiB B box shared by 8 consecutive CTAs, 24 MiB in L2): 14670 B/ns with 2, 3 or 4 stages in flight, "
     "442.3 ns per stage whatever is in flight; less the stage's 48 KiB at the same run's tma_bytes_per_ns_sm "
     "(210.6 B/ns): 209.0 ns. One thread's 16 KiB boxes alone: 323 ns per box whatever is in flight. H100: the H200's "
     "value"},
    {"gemm_store_bytes_per_ns", P(gemm_store_bytes_per_ns), 1468, "B/ns",
     GEMM_EPI "the rate: 1468 B/ns for the GPU (the kernels' own: 1488-2241 B/ns from 28 KiB per CTA up, 3134-3213 at 16 "
     "KiB; the same fit per SM, without the CTAs: 11.0 B/ns per SM). H100: the H200's value"},
    {"gemm_store_queue_bytes", P(gemm_store_queue_bytes), 9564, "bytes",
     GEMM_EPI "9564 bytes a CTA stores before its warps wait (8 KiB per CTA: spans of 96-171 ns). H100: the H200's "
     "value"},
    {"gemm_produce_slots", P(gemm_produce_slots), 61.6, "slots",
     GEMM_INSTR "per stage of a CTA (its producer thread's loop), 61.6"},
    {"gemm_consume_slots", P(gemm_consume_slots), 83.9, "slots",
     GEMM_INSTR "per consumer warp and stage, 83.9 (the epilogue: 1.26 per consumer warp, tile and column of N; "
     "per CTA 705)"},
    {"gemm_cta_overhead_ns", P(gemm_cta_overhead_ns), 609, "ns",
     "measured: the H200's wgmma corpus (60 descriptions) recorded again (traces/h200/corpus-wgmma/rerun-2026-11-25) on "
     "2026-11-25 09:38 UTC with tmahw run's GEMM report of commit 29815ef (ctas_span_ns: the first CTA's start "
     "to the last CTA's end on globaltimer over the launches CUPTI timed, no recording), the fit half: kernel_ns "
     "less that span less the launch's own time (kernel_overhead_ns, 639): median 609 ns [318..772 p10..p90, "
     "n 30] (test half 401 [282..705]; scripts/gemm-cta-overhead.py): the GEMM CTA's barrier set-up before its "
     "start mark; the pipeline kernels' cta_overhead_ns does not apply to it"},
    {"gemm_produce_resume_ns", P(gemm_produce_resume_ns), 135, "ns",
     "measured: the generated GEMM producer in the traces of the random wgmma corpus's fit half (traces/h200/corpus-wgmma, "
     "2026-11-25, commit 07495a2), the 21 kept traces without clusters whose producer waited on its empty barrier 4 "
     "times or more: the consumers' last recorded release of the stage's previous use to the producer's next load, in "
     "the steps where it waited, each kernel's median: median 165 ns [156..207 p10..p90] over kernels of 2-8 stages and "
     "12-48 KiB alike (scripts/gemm-producer.py; the test half keeps no traces), less the hand-off itself (wake_ns, "
     "29.85): the end of its suspended try_wait, the record of its wait (one 16-byte store) and its loop to the "
     "expect_tx. The generated pipeline producer's (produce_resume_ns) is 131 the same way. H100: the H200's value"},
    {"gemm_load_latency_ns", P(gemm_load_latency_ns), 381.6, "ns",
     "measured: tmahw calibrate --only clock,gemm_chain on the H200 (traces/h200/calibration/gemm_chain.params, "
     "2026-11-25 06:34 UTC, commit ae2fb45): every SM's thread loading one stage at a time of an A box (64 or 128 "
     "rows) and a B box (32-256 rows) from L2, shared as the GEMM's group_m 8 walk shares them: issue to seen "
     "complete 443 ns (12 KiB) to 608 ns (48 KiB), least squares over 7 sizes: 381.6 ns plus 211.6 B/ns (the "
     "idle machine's one load: l2_latency_ns). H100: the H200's value"},
    {"expect_tx_alone_ns", P(expect_tx_alone_ns), 3.99, "ns",
     H100_CAL "mbarrier: lane 0, 256 mbarrier.arrive.expect_tx, warp time each (the H200: 3.99 as well): the GEMM "
     "producer's per-stage arrive (expect_tx_ns is the generated pipeline producer's time to its first copy)"},
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
    {"h100-pcie", "tma_bytes_per_ns_sm", 187, "estimate: the SXM's measured 211 B/ns scaled by the clocks (1.755 / 1.98 GHz)"},
    {"h100-pcie", "cta_launch_spread_ns", 83, "estimate: the SXM's measured 96 ns scaled to 114 CTAs"},
    {"h200", "hbm_bytes_per_ns", 4231, H200_CAL "d2d: cudaMemcpy device to device of 1 GiB, bytes read + written per ns, median of 10 "
     "(the corpus runs' own copies: median 4220). Parameters the H200 set does not replace measured the same as the H100's "
     "within their spread (the same SMs and clock)"},
    {"h200", "kernel_overhead_ns", 639, H200_CAL "launch: the same on the H200, 639 ns [589..640, n 5]"},
    {"h200", "l2_latency_ns", 152, H200_CAL "tma_latency: one TMA load at a time of 1-32 KiB re-reading a box in L2: the intercept"},
    {"h200", "hbm_latency_ns", 415, H200_CAL "tma_latency: one TMA load at a time of 1-32 KiB from DRAM: the intercept"},
    {"h200", "tma_bytes_per_ns_sm", 189, H200_CAL "tma_fill: one SM, lane 0 of 8-32 warps with one box each in flight from L2 "
     "(an H200 of an earlier run the same night: 212)"},
    {"h200", "l2_bytes_per_ns", 7824, H200_CAL "tma_fill: 132 CTAs keeping 12 loads of 16 KiB in flight through an 8 MiB footprint"},
    {"h200", "l2_reuse_bytes", 49.3e6, H200_CAL "tma_fill: the footprint where the GPU's TMA read rate falls half way from the L2 "
     "rate to the DRAM rate (earlier runs the same night: 58.5 and 68.0 MB; the H100's five runs: 46.7-48.5)"},
    {"h200", "ldgsts_bytes_per_ns_sm", 71.2, H200_CAL "cpasync: cp.async.cg, 1-24 warps per SM: at most 74.6 B/ns per SM"},
    {"h200", "remote_arrive_ns", 318,
     "measured: traces/h200/pipelines/stasync_cluster.tmt, the producer's remote arrive.expect_tx.release.cluster to the "
     "start of its copy loop, median 318 ns over 512 stages (the H100's trace: 349); tmahw calibrate's lone remote "
     "arrive on the H200 takes 159 ns (traces/h200/calibration), without the st.async stores the generated "
     "producer's .release.cluster orders"},
    {"h200", "remote_arrive_next_w1_ns", 188,
     "measured: tmahw calibrate --only remote on the H200 (traces/h200/calibration/remote.params, 2026-11-25 02:52 UTC): "
     "clusters of 2, 4 and 8 CTAs, one CTA per SM, lane 0 of 1-16 warps per CTA: 32 rounds of "
     "mbarrier.arrive.release.cluster on every other rank's barrier, warp time per arrive; the mean of the clusters of 4 "
     "and 8 (the clusters of 2 arrive on one peer only): 1, 2, 4 warps 188 ns (192 / 184), 8 warps 234 (232 / 236), "
     "16 warps 382 (389 / 374). The fit half's multicast consumers of clusters of 4 at 3-5 warps per SM "
     "(corpus_0001_0060, 0088, 0198; scripts/release-steps.py) take 95-354 ns (medians) after a second or third remote arrive, "
     "124-160 after the first (remote_arrive_ns: 318, from the st.async producer)"},
    {"h200", "remote_arrive_next_w2_ns", 188,
     "measured: traces/h200/calibration/remote.params, as remote_arrive_next_w1_ns, 2 warps per SM"},
    {"h200", "remote_arrive_next_w4_ns", 188,
     "measured: traces/h200/calibration/remote.params, as remote_arrive_next_w1_ns, 4 warps per SM"},
    {"h200", "remote_arrive_next_w8_ns", 234,
     "measured: traces/h200/calibration/remote.params, as remote_arrive_next_w1_ns, 8 warps per SM"},
    {"h200", "remote_arrive_next_w16_ns", 382,
     "measured: traces/h200/calibration/remote.params, as remote_arrive_next_w1_ns, 16 warps per SM"},
    {"h200", "l2_resident_32mib", 1.000, L2_RESIDENT "the H200's share at 32 MiB"},
    {"h200", "l2_resident_40mib", 0.572, L2_RESIDENT "the H200's share at 40 MiB"},
    {"h200", "l2_resident_48mib", 0.490, L2_RESIDENT "the H200's share at 48 MiB"},
    {"h200", "l2_resident_64mib", 0.285, L2_RESIDENT "the H200's share at 64 MiB"},
    {"h200", "l2_resident_96mib", 0.190, L2_RESIDENT "the H200's share at 96 MiB"},
    {"h200", "remote_arrive_alone_ns", 153.5, H200_CAL "cluster: cluster of 2, lane 0: 64 mbarrier.arrive.release.cluster on the peer CTA's barrier, warp time each: 153.5 ns [153.5..153.5, n 9]"},
    {"h200", "stas_release_ns", 72,
     STAS_HANDOFFS "a consumer's end of math (of its reads without math) to its next full-barrier wait or read, "
     "its release an mbarrier.arrive.release.cluster on the peer's empty barrier: 415 [314..585, n 9 kernels] (test "
     "half 478, n 8; seed 2 411, n 10), less consume_step_ns (343): what the release and its own record add to the "
     "consume step. The arrive reaches the peer dsmem_latency_ns later (the calibrated hand-off; the one fit "
     "kernel whose producer waited, corpus_0001_0150 at 4 CTAs per SM, saw the last release to the producer's "
     "wake take 452 ns)"},
    {"h200", "dsmem_latency_ns", 211, H200_CAL "cluster: ping-pong of remote arrives in a cluster of 2, one hand-off less wake_ns"},
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

/* What a parameter may be, by its unit: wide enough for any GPU and for calibration's
 * what-if runs, narrow enough that the simulator's picosecond arithmetic cannot overflow
 * (pipe_budget bounds a run's clock from these). */
static void unit_range(const char *unit, double *lo, double *hi)
{
    static const struct { const char *unit; double lo, hi; } ranges[] = {
        {"GHz", 0.1, 10},        {"SMs", 1, 1024},           {"B/ns", 1e-3, 1e7}, {"B/cycle", 1e-3, 1e7},
        {"flop/cycle", 1e-3, 1e7}, {"ns", 1e-6, 1e9},        {"cycles", 1e-6, 1e6}, {"bytes", 1, 1e15},
        {"clusters", 1e-6, 1e6},
    };
    *lo = 1e-6, *hi = 1e9;
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++)
        if (!strcmp(unit, ranges[i].unit))
            *lo = ranges[i].lo, *hi = ranges[i].hi;
}

int params_set(pipe_params *p, const char *name, double value, err_info *e)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(name, table[i].name) == 0) {
            double lo, hi;
            unit_range(table[i].unit, &lo, &hi);
            if (!(value >= lo && value <= hi))
                return err_set(e, ERR_BAD_INPUT, "param_value", "field '%s' = %g (allowed %g..%g %s)", name, value, lo,
                               hi, table[i].unit);
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
    size_t n = 0;
    int err = 0;
    char *buf = rfile_load(path, PARAMS_MAX_FILE_BYTES, &n, &err);
    if (!buf)
        return err_set(e, err == ENOMEM ? ERR_IO : ERR_BAD_INPUT, "params_open", "%s: %s%s", path, strerror(err),
                       err == EFBIG ? " (a parameter file holds at most 1 MiB)" : "");
    int rc = params_parse(p, buf, path, e);
    free(buf);
    return rc;
}
