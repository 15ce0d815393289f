/* run_exec: `tmahw run DESC -o TRACE` (see run.h).
 *
 * 1. The description is parsed and derived (desc_load), the simulator gives its
 *    verdict and prediction (pipe_run), the generator writes the kernel (run_gen).
 * 2. NVRTC compiles it twice for sm_90a: with per-warp event recording and without.
 * 3. Tensors are filled on the host (run_ref_fill) and uploaded; maps are encoded with
 *    cuTensorMapEncodeTiled (multicast: one slice of the box per cluster rank).
 * 4. A globaltimer/CUPTI calibration kernel estimates the offset between the GPU's
 *    %globaltimer and CUPTI's activity timestamps (record_cuda.h); the recorded variant's
 *    event buffers are bound to its tmascope_rec (hw/record.cuh, one recording
 *    implementation for these kernels and hand-written ones).
 * 5. Warm-up, then reps of both variants alternately, timed by CUPTI activity records
 *    (CONCURRENT_KERNEL); every launch's checksums are compared with the host reference.
 *    A hang (watchdog) stops after the first launch: the hang record and the simulator's
 *    verdict are printed, the recorded variant is launched once for its trace.
 * 6. The trace of the last recorded launch is converted (run_ref_trace) and written.
 * 7. A separate, untimed launch under the Range Profiler gives counters (side-car JSON).
 * 8. A device-to-device cudaMemcpy gives the copy bandwidth of this device, now. */
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <nvrtc.h>

#include "gemm_exec.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "hw.h"
#include "pipe.h"
#include "pipe_plan.h"
#include "prof.h"
#include "record_cuda.h"
#include "rfile.h"
#include "run.h"
#include "run_gen.h"
#include "run_ref.h"
#include "sweep.h"
#include "gpu_time.h"

namespace {

enum { EXIT_OK = 0, EXIT_FINDING = 1, EXIT_BAD = 2 };

/* host mirror of the kernel's Params (hw/run_kernel.cuh): same order and sizes */
struct kparams {
    uint64_t sums, sink, hang, arrivals;
    uint64_t g[4];
    uint64_t timeout_ns;
};

/* rec_cuda_calibrate's view of the CUPTI records gpu_time collects */
int cupti_last(void *, uint64_t *start, uint64_t *end)
{
    gt_kernel_time r;
    if (gt_cupti_last(&r))
        return -1;
    *start = r.start;
    *end = r.end;
    return 0;
}

struct compiled {
    CUmodule mod = NULL;
    CUfunction fn = NULL;
};
int nvrtc_compile_def(const char *src, const char *def, compiled *out, char *msg, size_t msgsz);

int nvrtc_compile(const char *src, int record, compiled *out, char *msg, size_t msgsz)
{
    char def[32];
    snprintf(def, sizeof def, "-DTMAHW_RECORD=%d", record);
    return nvrtc_compile_def(src, def, out, msg, msgsz);
}
int nvrtc_compile_def(const char *src, const char *def, compiled *out, char *msg, size_t msgsz)
{
    const char *opts[] = {def, "-lineinfo"};
    return hw_nvrtc_load(src, "tmahw_pipe.cu", opts, 2, "tmahw_pipe", &out->mod, &out->fn, msg, msgsz);
}

struct runner {
    const pipe_desc *d;
    const run_gen_info *g;
    compiled rec, norec;
    CUtensorMap maps[5];
    kparams kp;
    CUdeviceptr hang, arrivals;
    uint32_t arrivals_bytes;
    CUdeviceptr store_out = 0;     /* zeroed before every launch: reductions add into it */
    size_t store_bytes = 0;
};

int launch(runner *r, int record)
{
    const pipe_desc *d = r->d;
    CUfunction fn = record ? r->rec.fn : r->norec.fn;
    cuMemsetD32(r->hang, 0, 8);
    cuMemsetD32(r->arrivals, 0, r->arrivals_bytes / 4);
    if (r->store_bytes)
        cuMemsetD8(r->store_out, 0, r->store_bytes);
    CUlaunchConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.gridDimX = d->ctas;
    cfg.gridDimY = cfg.gridDimZ = 1;
    cfg.blockDimX = r->g->nwarps * 32;
    cfg.blockDimY = cfg.blockDimZ = 1;
    cfg.sharedMemBytes = r->g->dyn_smem_bytes;
    CUlaunchAttribute attr[1];
    if (d->cluster > 1) {
        attr[0].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        attr[0].value.clusterDim.x = d->cluster;
        attr[0].value.clusterDim.y = 1;
        attr[0].value.clusterDim.z = 1;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
    }
    void *args[6] = {&r->maps[0], &r->maps[1], &r->maps[2], &r->maps[3], &r->maps[4], &r->kp};
    CUresult cr = cuLaunchKernelEx(&cfg, fn, args, NULL);
    if (cr != CUDA_SUCCESS)
        return (int)cr;
    return (int)cuCtxSynchronize();
}

int launch_rec_cb(void *ctx) { return launch((runner *)ctx, 0); }

/* The Range Profiler's log of a pipeline run: the base metric names it lists (comma
 * separated), then its notes. */
struct prof_log {
    char *buf;
    size_t cap;
};

void prof_log_cb(void *user, hw_prof_log_kind kind, const char *text)
{
    prof_log *l = (prof_log *)user;
    size_t n = strlen(l->buf);
    if (kind == HW_PROF_LOG_UNAVAILABLE || n + 1 >= l->cap)
        return;
    if (kind == HW_PROF_LOG_BASE_METRIC)
        snprintf(l->buf + n, l->cap - n, "%s%s", n ? "," : "", text);
    else if (!strncmp(text, "warning", 7))
        snprintf(l->buf + n, l->cap - n, "%s%s", n ? "; " : "", text);
}

/* The counters of one untimed launch: fills up to max metrics of want[] that the device
 * offers; returns their number, or -1 with msg. */
int pipe_counters(const char *const *want, int nwant, hw_prof_launch_fn launch_fn, void *ctx, const char **names,
                  double *values, int max,
                  char *log, size_t logsz, char *msg, size_t msgsz)
{
    static const char *const filters[] = {"stalled", NULL};
    prof_log pl = {log, logsz};
    hw_prof_desc pd = {};
    pd.want = want;
    pd.nwant = nwant;
    pd.max_metrics = max;
    pd.max_ranges = 2;
    pd.list_filters = filters;
    pd.log = prof_log_cb;
    pd.log_user = &pl;
    hw_prof *prof = NULL;
    if (hw_prof_open(&pd, &prof, msg, msgsz))
        return -1;
    int n = hw_prof_nmetrics(prof);
    double v[2 * 64];
    int ranges = hw_prof_collect(prof, launch_fn, ctx, v, 64, msg, msgsz);
    if (ranges == 0)
        snprintf(msg, msgsz, "no range recorded");
    if (ranges > 0) {
        int last = ranges < 2 ? ranges - 1 : 1;
        for (int k = 0; k < n; k++) {
            names[k] = hw_prof_names(prof)[k];
            values[k] = v[last * 64 + k];
        }
    }
    hw_prof_close(prof);
    return ranges > 0 ? n : -1;
}

const char *role_of(const pipe_desc *d, uint32_t warp)
{
    return trace_role_name(pipe_plan_role(d, warp));
}

/* What the GPU makes of the launch: CTAs per SM (each CTA requests its share of the SM's
 * shared memory, so exactly ctas_per_sm fit unless registers or threads allow fewer),
 * clusters resident at once, registers per thread. */
struct occupancy {
    int ctas_per_sm, clusters, regs;
    int local_bytes;   /* local memory per thread of the timed kernel: register spills */
    int regs_rec, local_bytes_rec;   /* the same of the recorded variant */
};

int set_occupancy(const pipe_desc *d, const run_gen_info *g, runner *R, occupancy *o, char *msg, size_t msgsz)
{
    memset(o, 0, sizeof *o);
    int least = 1 << 30;
    for (CUfunction fn : {R->rec.fn, R->norec.fn}) {
        cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)g->dyn_smem_bytes);
        if (d->cluster > 8)
            cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);
        int n = 0, regs = 0;
        cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, fn, (int)g->nwarps * 32, g->dyn_smem_bytes);
        cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, fn);
        least = std::min(least, n);
        o->regs = std::max(o->regs, regs);
    }
    cuFuncGetAttribute(&o->local_bytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, R->norec.fn);
    cuFuncGetAttribute(&o->regs_rec, CU_FUNC_ATTRIBUTE_NUM_REGS, R->rec.fn);
    cuFuncGetAttribute(&o->local_bytes_rec, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, R->rec.fn);
    o->ctas_per_sm = least;
    if ((uint32_t)least != d->ctas_per_sm) {
        snprintf(msg, msgsz, "grid.ctas_per_sm = %u: the kernel fits %d CTA(s) per SM (%d registers per thread, %u "
                 "threads, %u bytes of shared memory per CTA)", d->ctas_per_sm, least, o->regs, g->nwarps * 32,
                 g->dyn_smem_bytes);
        return -1;
    }
    if (d->cluster > 1) {
        CUlaunchConfig cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.gridDimX = d->ctas;
        cfg.gridDimY = cfg.gridDimZ = 1;
        cfg.blockDimX = g->nwarps * 32;
        cfg.blockDimY = cfg.blockDimZ = 1;
        cfg.sharedMemBytes = g->dyn_smem_bytes;
        CUlaunchAttribute attr[1];
        attr[0].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        attr[0].value.clusterDim.x = d->cluster;
        attr[0].value.clusterDim.y = attr[0].value.clusterDim.z = 1;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
        cuOccupancyMaxActiveClusters(&o->clusters, R->norec.fn, &cfg);
        if (o->clusters < 1) {
            snprintf(msg, msgsz, "cluster.size = %u: no cluster of %u CTAs with %u bytes of shared memory each fits the "
                     "GPU", d->cluster, d->cluster, g->dyn_smem_bytes);
            return -1;
        }
    }
    return 0;
}

/* The launch's CTA timeline (globaltimer at each CTA's start and end, as the recording's
 * stamp warp saw them): SMs used, the
 * most CTAs running at once, the median CTA time, the first wave's start spread. */
struct cta_timeline {
    uint32_t sms, resident_max;
    double cta_p50_ns, first_spread_ns;
};

cta_timeline timeline_of(const std::vector<uint64_t> &ctime, const std::vector<uint32_t> &sm, uint32_t ctas)
{
    cta_timeline t = {};
    std::vector<std::pair<uint64_t, int>> edges;
    std::vector<double> dur;
    std::vector<uint32_t> sms(sm.begin(), sm.end());
    std::sort(sms.begin(), sms.end());
    t.sms = (uint32_t)(std::unique(sms.begin(), sms.end()) - sms.begin());
    uint64_t first_end = UINT64_MAX;
    for (uint32_t c = 0; c < ctas; c++) {
        uint64_t a = ctime[4 * (size_t)c], b = ctime[4 * (size_t)c + 2];
        if (!a || b < a)   /* no pairs (--record-level 2 takes none) */
            continue;
        edges.push_back({a, 1});
        edges.push_back({b, -1});
        dur.push_back((double)(b - a));
        first_end = std::min(first_end, b);
    }
    std::sort(edges.begin(), edges.end());   /* an end before a start at the same instant */
    int run = 0;
    for (auto &e : edges)
        t.resident_max = std::max(t.resident_max, (uint32_t)std::max(run += e.second, 0));
    std::sort(dur.begin(), dur.end());
    t.cta_p50_ns = dur.empty() ? 0 : dur[dur.size() / 2];
    uint64_t lo = UINT64_MAX, hi = 0;
    for (uint32_t c = 0; c < ctas; c++)
        if (ctime[4 * (size_t)c] && ctime[4 * (size_t)c] < first_end) {
            lo = std::min(lo, ctime[4 * (size_t)c]);
            hi = std::max(hi, ctime[4 * (size_t)c]);
        }
    t.first_spread_ns = hi >= lo ? (double)(hi - lo) : 0;
    return t;
}


void usage(FILE *f)
{
    fprintf(f,
            "usage: tmahw run DESC.yaml -o TRACE.tmt [--format table|json|csv] [--reps N] [--timeout-ms MS]\n"
            "                 [--no-counters] [--source FILE] [--trace-ctas N] [--gpu-lock FILE] [--set 'KEY=VALUE ...']\n\n"
            "Runs the pipeline description as a real kernel (generated, compiled with NVRTC for sm_90a):\n"
            "TMA/cp.async/st.async copies, the described mbarriers, roles, stages, reads and math. Checks every\n"
            "consumer's checksum against the host reference, bounds every wait by a watchdog (a hang is\n"
            "reported with its CTA, warp, barrier, phase and iteration next to the simulator's verdict),\n"
            "times the kernel with and without event recording (CUPTI), writes the per-warp trace\n"
            "(traces/FORMAT.md, source hw), Range Profiler counters to TRACE minus .tmt plus .counters.json,\n"
            "and compares the bytes loaded per second with a device-to-device cudaMemcpy.\n\n"
            "  -o TRACE         trace file to write (required)\n"
            "  --reps N         timed launches of each variant (default 5)\n"
            "  --timeout-ms MS  watchdog per wait (default 200)\n"
            "  --no-counters    skip the Range Profiler run\n"
            "  --source FILE    also write the generated CUDA source\n"
            "  --trace-ctas N   write the events of the first N CTAs only (all CTAs run and are checked)\n"
            "  --record-level L overhead study: 1 full recording (default), 2 clock reads only, 3 stores only,\n"
            "                   4 the recording's start and end only (hw/record.cuh TMASCOPE_RECORD); a GEMM\n"
            "                   (math kind wgmma) also 5, the producer's records only, and at 2-5 no trace\n"
            "  --gpu-lock FILE  hold an exclusive lock on FILE from the first launch to the end of the counters,\n"
            "                   so that several runs may compile at once while one at a time uses the GPU\n"
            "  --set 'K=V ...'  the description with these keys set (a point of `tmasim sweep`: stages, ctas,\n"
            "                   ctas_per_sm, consumer_warps, release_lag, cluster, iterations, box, swizzle)\n"
            "exit status: 0 ok, 1 finding (hang, checksum or store mismatch, over-arrival), 2 bad input or no GPU\n");
}

/* The simulator's verdict for the same description, in words. */
void sim_verdict(const pipe_desc *d, pipe_result *sim, char *text, size_t cap)
{
    err_info e = {}, sv = {};
    int sim_rc = pipe_run(d, NULL, sim, &e);
    int sim_finding = sim_rc == ERR_OK ? pipe_verdict(sim, &sv) : ERR_IO;
    if (sim_rc != ERR_OK)
        snprintf(text, cap, "simulator failed: %.380s", e.detail);
    else if (sim_finding == ERR_OK)
        snprintf(text, cap, "ok, predicted %.1f us", sim->kernel_ns / 1000.0);
    else
        snprintf(text, cap, "%s: %s", sv.rule, sv.detail);
}

/* The tensors filled with their reference pattern on the device, their tensor maps, and
 * the store's output and map. -1 to go on, else the exit status. */
int upload_tensors(const pipe_desc *d, const run_gen_info *g, runner *R, std::vector<std::vector<uint8_t>> &host,
                   const uint8_t *tens[DESC_MAX_TENSORS], uint64_t tsize[DESC_MAX_TENSORS])
{
    memset(&R->kp, 0, sizeof R->kp);
    memset(R->maps, 0, sizeof R->maps);
    for (uint32_t t = 0; t < d->ntensors; t++) {
        tsize[t] = run_ref_tensor_bytes(&d->tensors[t].map);
        host[t].resize(tsize[t] + 64);
        run_ref_fill(host[t].data(), tsize[t], t);
        tens[t] = host[t].data();
        CUdeviceptr p;
        if (cuMemAlloc(&p, tsize[t] + 64) != CUDA_SUCCESS) {
            fprintf(stderr, "tmahw run: out of device memory for tensors[%u] (%llu bytes)\n", t,
                    (unsigned long long)tsize[t]);
            return EXIT_BAD;
        }
        cuMemcpyHtoD(p, host[t].data(), tsize[t]);
        R->kp.g[t] = p;
        tm_desc m = d->tensors[t].map;
        m.global_address = p;
        if (d->multicast)
            m.box[m.rank - 1] = g->slice_rows[t];
        CUresult er = hw_encode(&m, &R->maps[t]);
        if (er != CUDA_SUCCESS) {
            fprintf(stderr, "tmahw run: cuTensorMapEncodeTiled rejected tensors[%u] (%s): %s\n", t, d->tensors[t].name,
                    hw_cu_name(er));
            return EXIT_BAD;
        }
    }
    CUdeviceptr store_out = 0;
    size_t store_bytes = 0;
    if (g->stores_per_cta) {
        tm_desc m = d->tensors[0].map;
        const tm_dtype_info *inf = tm_dtype_get(m.dtype);
        uint32_t eb = inf->bits / 8;
        m.rank = 2;
        m.dims[0] = m.box[0];
        m.dims[1] = (uint64_t)m.box[1] * g->stores_per_cta * d->ctas;
        m.strides[0] = (uint64_t)m.box[0] * eb;
        store_bytes = m.dims[1] * m.strides[0];
        cuMemAlloc(&store_out, store_bytes);
        cuMemsetD8(store_out, 0, store_bytes);
        m.global_address = store_out;
        R->store_out = store_out;
        R->store_bytes = store_bytes;
        CUresult er = hw_encode(&m, &R->maps[4]);
        if (er != CUDA_SUCCESS) {
            fprintf(stderr, "tmahw run: cuTensorMapEncodeTiled rejected the store map: %s\n", hw_cu_name(er));
            return EXIT_BAD;
        }
    }
    return -1;
}

/* Over-arrival: local arrivals on empty barriers that completed a phase, as the arrive's
 * returned state reports it, against the phases the description implies. Leaves out
 * empty when they agree (or the mode's arrivals are not counted this way). */
void over_arrival(const pipe_desc *d, const runner *R, char *out, size_t cap)
{
    if (!d->multicast && d->mode != PIPE_STASYNC && !d->never_release && !d->cpasync_groups) {
        std::vector<uint32_t> hist(R->arrivals_bytes / 4);
        cuMemcpyDtoH(hist.data(), R->arrivals, R->arrivals_bytes);
        int after = 0;   /* pending count reported after the arrival (bin 0 seen) */
        for (uint32_t c = 0; c < d->ctas; c++)
            for (uint32_t s = 0; s < d->stages; s++)
                if (hist[((size_t)c * 2 * d->stages + d->stages + s) * 4 + 0])
                    after = 1;
        for (uint32_t c = 0; c < d->ctas && !out[0]; c++)
            for (uint32_t s = 0; s < d->stages; s++) {
                const uint32_t *h = &hist[((size_t)c * 2 * d->stages + d->stages + s) * 4];
                uint32_t phases = d->iterations / d->stages + (s < d->iterations % d->stages ? 1u : 0u);
                uint32_t completed = after ? h[0] : h[1];
                if (completed != phases) {
                    snprintf(out, cap,
                             "CTA %u empty[%u]: consumer arrivals completed %u phases for %u iterations "
                             "(arrivals seeing pending 0/1/2/3+: %u/%u/%u/%u, init count %u)",
                             c, s, completed, phases, h[0], h[1], h[2], h[3], d->empty_count);
                    break;
                }
            }
    }
}

/* The kernel driver's version (what nvidia-smi shows); empty when it cannot be read. */
void driver_version(char drv[32])
{
    FILE *vf = fopen("/proc/driver/nvidia/version", "r");
    if (!vf)
        return;
    char line[256];
    if (fgets(line, sizeof line, vf)) {
        /* "NVRM version: NVIDIA UNIX [Open ]Kernel Module [for x86_64]  580.159.04  ...":
         * the first word after "Kernel Module" that starts with a digit */
        const char *k = strstr(line, "Kernel Module");
        for (const char *q = k ? k + strlen("Kernel Module") : NULL; q && *q && !drv[0]; q++)
            if (q[-1] == ' ' && *q >= '0' && *q <= '9' && sscanf(q, "%31s", drv) != 1)
                drv[0] = 0;
    }
    fclose(vf);
}

} // namespace

int run_gpu_lock(const char *path)
{
    if (!path)
        return -1;
    int fd = open(path, O_RDWR | O_CREAT, 0644);
    if (fd >= 0 && flock(fd, LOCK_EX) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

void run_write_counters(const pipe_desc *d, const char *gpu, const char *date, hw_prof_launch_fn launch_fn, void *ctx,
                        const char *out_path, char *path, size_t pathcap)
{
    char msg[600];
    static const char *const want_m[] = {
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
        "smsp__sass_inst_executed_op_shared_ld.sum",
        "smsp__sass_inst_executed_op_ldsm.sum",
        "l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum",
        "l1tex__m_xbar2l1tex_read_bytes.sum",
        "smsp__inst_executed_op_tma_ld.sum",
        "lts__t_bytes.sum",
        "lts__t_sectors_srcunit_tex_op_read.sum",
        "dram__bytes_read.sum",
        "dram__bytes_write.sum",
        "sm__cycles_elapsed.max",
        /* where the SM's issue goes: instructions by pipe, issue-active cycles, resident
         * warps, and the warp-state counters that say what the warps waited for */
        "smsp__inst_executed.sum",
        "smsp__issue_active.sum",
        "smsp__cycles_active.sum",
        "smsp__warps_active.sum",
        "smsp__inst_executed_pipe_lsu.sum",
        "smsp__inst_executed_pipe_alu.sum",
        "smsp__inst_executed_pipe_fma.sum",
        "smsp__inst_executed_pipe_uniform.sum",
        "smsp__inst_executed_pipe_adu.sum",
        "smsp__inst_executed_pipe_cbu.sum",
        "smsp__inst_executed_op_branch.sum",
        "sm__pipe_tensor_op_hmma_cycles_active.sum",
        "smsp__warps_issue_stalled_barrier.sum",
        "smsp__warps_issue_stalled_branch_resolving.sum",
        "smsp__warps_issue_stalled_dispatch_stall.sum",
        "smsp__warps_issue_stalled_drain.sum",
        "smsp__warps_issue_stalled_lg_throttle.sum",
        "smsp__warps_issue_stalled_long_scoreboard.sum",
        "smsp__warps_issue_stalled_math_pipe_throttle.sum",
        "smsp__warps_issue_stalled_membar.sum",
        "smsp__warps_issue_stalled_mio_throttle.sum",
        "smsp__warps_issue_stalled_misc.sum",
        "smsp__warps_issue_stalled_no_instruction.sum",
        "smsp__warps_issue_stalled_not_selected.sum",
        "smsp__warps_issue_stalled_selected.sum",
        "smsp__warps_issue_stalled_short_scoreboard.sum",
        "smsp__warps_issue_stalled_sleeping.sum",
        "smsp__warps_issue_stalled_wait.sum",
        "smsp__warps_issue_stalled_tex_throttle.sum",
        "smsp__warps_issue_stalled_imc_miss.sum",
    };
    const char *names[48];
    double vals[48];
    static char plog[16384];
    plog[0] = 0;
    int n = pipe_counters(want_m, (int)(sizeof want_m / sizeof want_m[0]), launch_fn, ctx, names, vals, 48, plog, sizeof plog,
                          msg, sizeof msg);
    snprintf(path, pathcap, "%.*s.counters.json",
             (int)(strlen(out_path) > 4 && !strcmp(out_path + strlen(out_path) - 4, ".tmt") ? strlen(out_path) - 4
                                                                                             : strlen(out_path)),
             out_path);
    FILE *f = fopen(path, "w");
    if (f) {
        fprintf(f, "{\"name\":\"%s\",\"gpu\":\"%s\",\"date\":\"%s\",\"launch\":\"one untimed launch without "
                   "recording, Range Profiler (auto range, kernel replay)\",",
                d->name, gpu, date);
        if (n < 0)
            fprintf(f, "\"error\":\"%s\",", msg);
        fprintf(f, "\"metrics\":{");
        for (int k = 0; k < n; k++)
            fprintf(f, "%s\"%s\":%.17g", k ? "," : "", names[k], vals[k]);
        fprintf(f, "},\"model\":{\"read_wavefronts_per_warp_stage\":%llu,\"read_instructions_per_warp_stage\":%u,"
                   "\"copy_bytes_per_stage\":%u},\"tma_base_metrics\":\"%s\"}\n",
                (unsigned long long)d->read_wavefronts, d->read_instructions, d->copy_bytes, plog);
        fclose(f);
    }
    if (n < 0)
        fprintf(stderr, "tmahw run: warning: counters: %s\n", msg);
}

namespace {

/* What `tmahw run` found, for its report. */
struct run_report {
    const pipe_desc *d;
    const run_gen_info *g;
    const hw_device *dev;
    const occupancy *occ;
    const cta_timeline *tl;
    const char *fmt, *out_path, *counters_path, *correct, *arrival_finding, *sim_text;
    const uint32_t *hang_rec;
    double k_norec, k_rec, overhead, ov_q1, ov_q3, kbw, d2d, timeout_ms;
    size_t n_norec, n_rec, events;
    uint32_t overflowed;
    int hung, correct_ok;
    long long sim_kernel_ns;
};

/* The report on stdout: a table, one JSON object or CSV. */
void print_report(const run_report *r)
{
    char hang_text[400] = "";
    if (r->hung) {
        uint32_t b = r->hang_rec[3];
        snprintf(hang_text, sizeof hang_text,
                 "CTA %u warp %u (%s) waits %s[%u] phase %u (iteration %u, parity %u): no completion within %.0f ms",
                 r->hang_rec[1], r->hang_rec[2], role_of(r->d, r->hang_rec[2]), b < r->d->stages ? "full" : "empty", b % r->d->stages,
                 r->hang_rec[4], r->hang_rec[5], r->hang_rec[6], r->timeout_ms);
    }
    if (!strcmp(r->fmt, "json")) {
        printf("{\"example\":\"%s\",\"mode\":\"%s\",\"gpu\":\"%s\",\"kernel_ns\":%.0f,\"kernel_rec_ns\":%.0f,"
               "\"overhead_pct\":%.2f,\"overhead_q1_pct\":%.2f,\"overhead_q3_pct\":%.2f,\"reps\":%zu,\"loaded_gbs\":%.1f,\"d2d_gbs\":%.1f,\"bandwidth_pct\":%.1f,\"correct\":%s,"
               "\"correctness\":\"%s\",\"events\":%zu,\"overflowed_warps\":%u,\"hang\":%s%s%s,\"over_arrival\":\"%s\","
               "\"sim\":\"%s\",\"sim_kernel_ns\":%lld,\"trace\":\"%s\",\"counters\":\"%s\","
               "\"ctas_per_sm_achieved\":%d,\"clusters_resident\":%d,\"regs\":%d,\"local_bytes\":%d,\"regs_rec\":%d,"
               "\"local_bytes_rec\":%d,\"sms_used\":%u,"
               "\"ctas_resident_max\":%u,\"cta_ns_p50\":%.0f,\"first_wave_spread_ns\":%.0f}\n",
               r->d->name, pipe_mode_name(r->d->mode), r->dev->name, r->k_norec, r->k_rec, r->overhead, r->ov_q1, r->ov_q3, r->n_norec, r->kbw, r->d2d,
               r->d2d > 0 ? 100 * r->kbw / r->d2d : 0, r->correct_ok ? "true" : "false", r->correct, r->events, r->overflowed,
               r->hung ? "\"" : "", r->hung ? hang_text : "null", r->hung ? "\"" : "", r->arrival_finding, r->sim_text,
               r->sim_kernel_ns, r->out_path, r->counters_path, r->occ->ctas_per_sm, r->occ->clusters, r->occ->regs, r->occ->local_bytes, r->occ->regs_rec,
               r->occ->local_bytes_rec, r->tl->sms,
               r->tl->resident_max, r->tl->cta_p50_ns, r->tl->first_spread_ns);
    } else if (!strcmp(r->fmt, "csv")) {
        printf("example,mode,kernel_ns,kernel_rec_ns,overhead_pct,loaded_gbs,d2d_gbs,bandwidth_pct,correct,events,"
               "overflowed_warps,hang,sim\n");
        printf("%s,%s,%.0f,%.0f,%.2f,%.1f,%.1f,%.1f,%s,%zu,%u,\"%s\",\"%s\"\n", r->d->name, pipe_mode_name(r->d->mode), r->k_norec,
               r->k_rec, r->overhead, r->kbw, r->d2d, r->d2d > 0 ? 100 * r->kbw / r->d2d : 0,
               r->hung ? "hang" : r->correct_ok ? (r->arrival_finding[0] ? "over-arrival" : "ok") : "MISMATCH", r->events,
               r->overflowed, hang_text, r->sim_text);
    } else {
        printf("example       %s (%s, %u CTAs x %u warps, %u stages, %u iterations)\n", r->d->name, pipe_mode_name(r->d->mode),
               r->d->ctas, r->g->nwarps, r->d->stages, r->d->iterations);
        printf("device        %s, CUDA driver API %d.%d\n", r->dev->name, r->dev->driver_version / 1000,
               (r->dev->driver_version % 1000) / 10);
        printf("kernel        %.1f us (CUPTI, median of %zu, recording compiled out)\n", r->k_norec / 1000, r->n_norec);
        printf("recorded      %.1f us (median of %zu): overhead %+.2f%% (alternating pairs: quartiles %+.2f%% .. %+.2f%%)\n",
               r->k_rec / 1000, r->n_rec, r->overhead, r->ov_q1, r->ov_q3);
        printf("bandwidth     %.1f GB/s loaded = %.1f%% of a device-to-device copy (%.1f GB/s read+written)\n", r->kbw,
               r->d2d > 0 ? 100 * r->kbw / r->d2d : 0, r->d2d);
        printf("occupancy     %d CTA(s) per SM (%d registers per thread); CTAs ran on %u SMs, at most %u at once, "
               "median %.1f us each\n", r->occ->ctas_per_sm, r->occ->regs, r->tl->sms, r->tl->resident_max, r->tl->cta_p50_ns / 1000);
        if (r->occ->local_bytes)
            printf("spills        %d bytes of local memory per thread: the generated kernel does more than the "
                   "description (its register limit for %u CTAs per SM)\n", r->occ->local_bytes, r->d->ctas_per_sm);
        if (r->d->cluster > 1)
            printf("clusters      %d of %u CTAs resident at once\n", r->occ->clusters, r->d->cluster);
        printf("correctness   %s\n", r->correct);
        if (r->arrival_finding[0])
            printf("over-arrival  %s\n", r->arrival_finding);
        if (r->hung)
            printf("HANG          %s\n", hang_text);
        printf("simulator     %s\n", r->sim_text);
        printf("events        %zu%s\n", r->events, r->overflowed ? " (OVERFLOW: trace flagged incomplete)" : "");
        printf("trace         %s\n", r->out_path);
        if (r->counters_path[0])
            printf("counters      %s\n", r->counters_path);
    }
}

/* Kernel times of the launches without and with recording: medians, the recording's
 * overhead, and the quartiles of the overhead of each alternating pair of launches
 * (without, then with recording): the run-to-run spread. */
struct launch_times {
    double k_norec, k_rec, overhead, ov_q1, ov_q3;
};

double median_of(std::vector<double> v)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

launch_times launch_stats(const std::vector<double> &t_norec, const std::vector<double> &t_rec)
{
    launch_times r = {median_of(t_norec), median_of(t_rec), 0, 0, 0};
    r.overhead = r.k_norec > 0 && r.k_rec > 0 ? 100.0 * (r.k_rec - r.k_norec) / r.k_norec : 0;
    std::vector<double> pair;
    for (size_t k = 0; k < std::min(t_norec.size(), t_rec.size()); k++)
        if (t_norec[k] > 0)
            pair.push_back(100.0 * (t_rec[k] - t_norec[k]) / t_norec[k]);
    std::sort(pair.begin(), pair.end());
    if (!pair.empty()) {
        r.ov_q1 = pair[(pair.size() - 1) / 4];
        r.ov_q3 = pair[(3 * (pair.size() - 1) + 3) / 4];
    }
    return r;
}

/* The trace's header: GPU, description name, driver and date, kernel time, and the
 * description itself with its hash. */
void label_trace(trace *tr, const pipe_desc *d, const hw_device *dev, const char *desc_path, const char *date,
                 double k_norec, size_t n_norec, uint32_t traced, gt_kernel_time last_rec)
{
    err_info e = {};
    snprintf(tr->gpu, sizeof tr->gpu, "%.63s", dev->name);
    snprintf(tr->name, sizeof tr->name, "%s", d->name);
    {
        char drv[32] = "";
        driver_version(drv);
        char note[400];
        snprintf(note, sizeof note, "tmahw run; driver %s (CUDA %d.%d); %s; no-rec kernel %.0f ns (median %zu); "
                 "CTAs traced %u/%u",
                 drv[0] ? drv : "?", dev->driver_version / 1000, (dev->driver_version % 1000) / 10, date, k_norec,
                 n_norec, traced, d->ctas);
        snprintf(tr->note, sizeof tr->note, "%.127s", note);
    }
    tr->kernel_ns = last_rec.end > last_rec.start ? (int64_t)(last_rec.end - last_rec.start) : (int64_t)k_norec;
    {
        /* the trace carries its description, so that a viewer rebuilds the plan from it */
        size_t len = 0;
        int rerr = 0;
        char *text = rfile_load(desc_path, DESC_MAX_FILE_BYTES, &len, &rerr);
        if (text)
            trace_set_desc(tr, text, len, pipe_plan_hash(d), &e);
        free(text);
    }
}

/* The flags of `tmahw run`, checked before any work. */
struct run_opts {
    const char *desc_path, *out_path, *fmt, *src_path, *lock_path, *set_text;
    int reps, counters, record_level;
    uint32_t trace_ctas;
    double timeout_ms;
};

/* -1 to go on, else the exit status (--help, a bad flag). */
int parse_flags(int argc, char **argv, run_opts *o)
{
    *o = run_opts{NULL, NULL, "table", NULL, NULL, NULL, 5, 1, 1, 0, 200};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return EXIT_OK;
        }
        if (!strcmp(argv[i], "--no-counters")) {
            o->counters = 0;
            continue;
        }
        if (argv[i][0] == '-') {
            if (i + 1 >= argc) {
                fprintf(stderr, "tmahw run: %s: missing value\n", argv[i]);
                return EXIT_BAD;
            }
            const char *v = argv[++i];
            char *end = NULL;
            if (!strcmp(argv[i - 1], "-o"))
                o->out_path = v;
            else if (!strcmp(argv[i - 1], "--source"))
                o->src_path = v;
            else if (!strcmp(argv[i - 1], "--format")) {
                if (strcmp(v, "table") && strcmp(v, "json") && strcmp(v, "csv")) {
                    fprintf(stderr, "tmahw run: --format: '%s' (allowed table, json, csv)\n", v);
                    return EXIT_BAD;
                }
                o->fmt = v;
            } else if (!strcmp(argv[i - 1], "--reps")) {
                o->reps = (int)strtol(v, &end, 10);
                if (!end || *end || o->reps < 1 || o->reps > 100) {
                    fprintf(stderr, "tmahw run: --reps: '%s' (allowed 1..100)\n", v);
                    return EXIT_BAD;
                }
            } else if (!strcmp(argv[i - 1], "--trace-ctas")) {
                long n = strtol(v, &end, 10);
                if (!end || *end || n < 1 || n > 65535) {
                    fprintf(stderr, "tmahw run: --trace-ctas: '%s' (allowed 1..65535)\n", v);
                    return EXIT_BAD;
                }
                o->trace_ctas = (uint32_t)n;
            } else if (!strcmp(argv[i - 1], "--record-level")) {
                o->record_level = (int)strtol(v, &end, 10);
                if (!end || *end || o->record_level < 1 || o->record_level > 5) {
                    fprintf(stderr, "tmahw run: --record-level: '%s' (allowed 1 full, 2 clock reads only, 3 stores only, 4 "
                            "start and end only, 5 a GEMM's producer records only)\n", v);
                    return EXIT_BAD;
                }
            } else if (!strcmp(argv[i - 1], "--gpu-lock")) {
                o->lock_path = v;
            } else if (!strcmp(argv[i - 1], "--set")) {
                o->set_text = v;
            } else if (!strcmp(argv[i - 1], "--timeout-ms")) {
                o->timeout_ms = strtod(v, &end);
                if (!end || *end || o->timeout_ms < 1 || o->timeout_ms > 10000) {
                    fprintf(stderr, "tmahw run: --timeout-ms: '%s' (allowed 1..10000)\n", v);
                    return EXIT_BAD;
                }
            } else {
                fprintf(stderr, "tmahw run: %s: unknown flag (see --help)\n", argv[i - 1]);
                return EXIT_BAD;
            }
            continue;
        }
        if (o->desc_path) {
            fprintf(stderr, "tmahw run: '%s': one description only (see --help)\n", argv[i]);
            return EXIT_BAD;
        }
        o->desc_path = argv[i];
    }
    if (!o->desc_path || !o->out_path) {
        fprintf(stderr, "tmahw run: %s is required (tmahw run DESC.yaml -o TRACE.tmt)\n", o->desc_path ? "-o TRACE" : "DESC");
        return EXIT_BAD;
    }
    return -1;
}

} // namespace

int hw_cmd_run(int argc, char **argv)
{
    run_opts o;
    int flags_rc = parse_flags(argc, argv, &o);
    if (flags_rc >= 0)
        return flags_rc;
    const char *desc_path = o.desc_path, *out_path = o.out_path, *fmt = o.fmt, *src_path = o.src_path,
               *lock_path = o.lock_path;
    const int reps = o.reps, counters = o.counters, record_level = o.record_level;
    const uint32_t trace_ctas = o.trace_ctas;
    const double timeout_ms = o.timeout_ms;

    static pipe_desc d;
    err_info e = {};
    if (desc_load(desc_path, &d, &e) != ERR_OK) {
        fprintf(stderr, "tmahw run: %s\n", e.detail);
        return EXIT_BAD;
    }
    if (o.set_text && sweep_apply_text(&d, NULL, o.set_text, &e) != ERR_OK) {
        fprintf(stderr, "tmahw run: --set: %s: %s\n", e.rule, e.detail);
        return EXIT_BAD;
    }
    if (record_level == 5 && d.math != PIPE_MATH_WGMMA) {
        fprintf(stderr, "tmahw run: --record-level: 5 (the producer's records only) needs a GEMM description (math kind "
                        "wgmma); allowed here 1-4\n");
        return EXIT_BAD;
    }
    if (d.math == PIPE_MATH_WGMMA) {
        gemm_run_opts go = {desc_path, out_path, fmt, src_path, reps, trace_ctas, lock_path, counters, record_level};
        return gemm_cmd_run(&d, &go);
    }
    run_gen_info g;
    if (run_gen_prepare(&d, &g, &e) != ERR_OK) {
        fprintf(stderr, "tmahw run: %s\n", e.detail);
        return e.code == ERR_BAD_INPUT ? EXIT_BAD : EXIT_FINDING;
    }
    char *src = NULL;
    if (run_gen_source(&d, &g, &src, &e) != ERR_OK) {
        fprintf(stderr, "tmahw run: %s\n", e.detail);
        return EXIT_BAD;
    }
    if (src_path) {
        FILE *f = fopen(src_path, "w");
        if (!f) {
            fprintf(stderr, "tmahw run: --source: cannot write '%s'\n", src_path);
            return EXIT_BAD;
        }
        fputs(src, f);
        fclose(f);
    }
    pipe_result sim;
    static char sim_text[sizeof(err_info::rule) + sizeof(err_info::detail) + 64];   /* the whole verdict */
    sim_verdict(&d, &sim, sim_text, sizeof sim_text);

    hw_device dev;
    char msg[600];
    if (hw_open(&dev, msg, sizeof msg)) {
        fprintf(stderr, "tmahw run: no usable GPU: %s\n", msg);
        return EXIT_BAD;
    }
    if (dev.cc_major != 9) {
        fprintf(stderr, "tmahw run: no usable GPU: %s is sm_%d%d (needs sm_90)\n", dev.name, dev.cc_major, dev.cc_minor);
        return EXIT_BAD;
    }
    /* Under another profiler (ncu, nsys) CUPTI has a subscriber already: kernels are then
     * timed with CUDA events around the launch instead (launch overhead included). */
    const int have_cupti = gt_cupti_on(msg, sizeof msg) == 0;
    if (!have_cupti)
        fprintf(stderr, "tmahw run: warning: %s: timing with CUDA events instead\n", msg);
    runner R = {};
    R.d = &d;
    R.g = &g;
    if (nvrtc_compile(src, record_level, &R.rec, msg, sizeof msg) || nvrtc_compile(src, 0, &R.norec, msg, sizeof msg)) {
        fprintf(stderr, "tmahw run: %s\n", msg);
        return EXIT_BAD;
    }
    free(src);
    occupancy occ;
    if (set_occupancy(&d, &g, &R, &occ, msg, sizeof msg)) {
        fprintf(stderr, "tmahw run: %s\n", msg);
        return EXIT_BAD;
    }

    /* tensors */
    std::vector<std::vector<uint8_t>> host(d.ntensors);
    const uint8_t *tens[DESC_MAX_TENSORS] = {};
    uint64_t tsize[DESC_MAX_TENSORS] = {};
    int up_rc = upload_tensors(&d, &g, &R, host, tens, tsize);
    if (up_rc >= 0)
        return up_rc;
    CUdeviceptr store_out = R.store_out;
    size_t store_bytes = R.store_bytes;
    const uint32_t nw = d.ctas * g.nwarps;
    CUdeviceptr p_sums, p_sink;
    R.arrivals_bytes = d.ctas * 2 * d.stages * 4 * 4;
    if (cuMemAlloc(&p_sums, (size_t)nw * 4) || cuMemAlloc(&p_sink, (size_t)nw * 4) ||
        cuMemAlloc(&R.hang, 32) || cuMemAlloc(&R.arrivals, R.arrivals_bytes)) {
        fprintf(stderr, "tmahw run: out of device memory for the kernel's buffers\n");
        return EXIT_BAD;
    }
    /* the recorded variant's event buffers (hw/record.cuh's tmascope_rec) */
    rec_cuda recbuf = {};
    {
        CUdeviceptr sym = 0;
        int src = rec_cuda_symbol(R.rec.mod, &sym, msg, sizeof msg);
        if (src == 0 && rec_cuda_bind(&recbuf, sym, d.ctas, g.nwarps, g.ev_cap, msg, sizeof msg))
            src = -1;
        if (src == 1 && record_level != 2)
            snprintf(msg, sizeof msg, "the recorded kernel has no tmascope_rec");
        if (src < 0 || (src == 1 && record_level != 2)) {
            fprintf(stderr, "tmahw run: %s\n", msg);
            return EXIT_BAD;
        }
    }
    R.kp.sums = p_sums;
    R.kp.sink = p_sink;
    R.kp.hang = R.hang;
    R.kp.arrivals = R.arrivals;
    R.kp.timeout_ns = (uint64_t)(timeout_ms * 1e6);

    std::vector<uint32_t> want(nw), got(nw);
    if (run_ref_sums(&d, &g, tens, tsize, want.data(), &e) != ERR_OK) {
        fprintf(stderr, "tmahw run: reference: %s: %s\n", e.rule, e.detail);
        return EXIT_BAD;
    }
    const int lock_fd = run_gpu_lock(lock_path);
    if (lock_path && lock_fd < 0) {
        fprintf(stderr, "tmahw run: --gpu-lock: cannot lock '%s'\n", lock_path);
        return EXIT_BAD;
    }
    int64_t gt_off = 0, gt_spread = -1;
    int calib_ok = have_cupti && rec_cuda_calibrate(cupti_last, NULL, &gt_off, &gt_spread, msg, sizeof msg) == 0;

    /* ---- launches ---- */
    uint32_t hang_rec[8] = {0};
    int hung = 0, launch_err = 0;
    uint64_t mismatched_launches = 0, first_bad_warp = UINT64_MAX;
    std::vector<double> t_rec, t_norec;
    gt_kernel_time last_rec = {0, 0};
    CUevent ev0 = NULL, ev1 = NULL;
    cuEventCreate(&ev0, CU_EVENT_DEFAULT);
    cuEventCreate(&ev1, CU_EVENT_DEFAULT);
    auto check = [&](int record) -> int {
        cuEventRecord(ev0, 0);
        int rc = launch(&R, record);
        cuEventRecord(ev1, 0);
        if (rc) {
            launch_err = rc;
            return -1;
        }
        gt_kernel_time a = {0, 0};
        int have = have_cupti && gt_cupti_last(&a) == 0;
        if (!have_cupti) {
            float ms = 0;
            cuEventSynchronize(ev1);
            cuEventElapsedTime(&ms, ev0, ev1);
            a.end = (uint64_t)(ms * 1e6);
            have = 1;
        }
        cuMemcpyDtoH(hang_rec, R.hang, 32);
        if (hang_rec[0]) {
            hung = 1;
            return -1;
        }
        cuMemcpyDtoH(got.data(), p_sums, (size_t)nw * 4);
        for (uint32_t k = 0; k < nw; k++)
            if (got[k] != want[k]) {
                if (mismatched_launches == 0)
                    first_bad_warp = k;
                mismatched_launches++;
                break;
            }
        if (have) {
            (record ? t_rec : t_norec).push_back((double)(a.end - a.start));
            if (record)
                last_rec = a;
        }
        return 0;
    };
    if (check(0) == 0) {   /* warm-up (module load, caches), checked but not timed */
        t_norec.clear();
        for (int k = 0; k < reps && !hung && !launch_err; k++)
            if (check(0) || check(1))
                break;
    }
    if (launch_err) {
        fprintf(stderr, "tmahw run: kernel failed: %s\n", hw_cu_name((CUresult)launch_err));
        return EXIT_FINDING;
    }
    if (hung) {
        /* one recorded launch for the trace of the hang */
        hung = 0;
        int rc = launch(&R, 1);
        if (rc) {
            fprintf(stderr, "tmahw run: kernel failed: %s\n", hw_cu_name((CUresult)rc));
            return EXIT_FINDING;
        }
        if (have_cupti)
            gt_cupti_last(&last_rec);
        cuMemcpyDtoH(hang_rec, R.hang, 32);
        hung = 1;
    }

    char arrival_finding[300] = "";
    if (!hung)
        over_arrival(&d, &R, arrival_finding, sizeof arrival_finding);

    /* ---- trace ---- */
    rec_launch rl;
    memset(&rl, 0, sizeof rl);
    if (rec_cuda_fetch(&recbuf, &rl, msg, sizeof msg)) {
        fprintf(stderr, "tmahw run: %s\n", msg);
        return EXIT_BAD;
    }
    /* the recording's clock pairs and SMs (hw/record.cuh's stamp warp): the trace's time axis
     * and the CTA timeline of the last recorded launch */
    const std::vector<uint64_t> ctime(rl.cta_time, rl.cta_time + (size_t)d.ctas * 4);
    const std::vector<uint32_t> sm(rl.cta_sm, rl.cta_sm + d.ctas);
    run_raw raw = {rl.ev, rl.evn, rl.cta_time, rl.cta_sm, 0, 0, rl.cap, g.nwarps, rl.stride};
    if (trace_ctas && trace_ctas < d.ctas)
        raw.trace_ctas = (trace_ctas + d.cluster - 1) / d.cluster * d.cluster;
    if (calib_ok && last_rec.start)
        raw.gt_to_kernel_ns = (int64_t)last_rec.start - gt_off;
    else {   /* no calibration: the first CTA start is time 0 */
        uint64_t m = UINT64_MAX;
        for (uint32_t c = 0; c < d.ctas; c++)
            m = std::min(m, ctime[4 * (size_t)c]);
        raw.gt_to_kernel_ns = (int64_t)m;
    }
    trace tr;
    trace_init(&tr, TRACE_SRC_HW);
    uint32_t overflowed = 0;
    int trc = run_ref_trace(&d, &raw, &tr, &overflowed, &e);
    rec_launch_free(&rl);
    rec_cuda_free(&recbuf);
    if (trc != ERR_OK) {
        fprintf(stderr, "tmahw run: trace: %s\n", e.detail);
        return EXIT_FINDING;
    }
    if (overflowed)
        fprintf(stderr, "tmahw run: warning: %u warp(s) overflowed their event buffer (%u events): trace flagged incomplete\n",
                overflowed, g.ev_cap);
    launch_times lt = launch_stats(t_norec, t_rec);
    const double k_norec = lt.k_norec, k_rec = lt.k_rec, overhead = lt.overhead, ov_q1 = lt.ov_q1, ov_q3 = lt.ov_q3;
    time_t now = time(NULL);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    label_trace(&tr, &d, &dev, desc_path, date, k_norec, t_norec.size(), raw.trace_ctas ? raw.trace_ctas : d.ctas,
                last_rec);
    if (trace_write(out_path, &tr, &e) != ERR_OK) {
        fprintf(stderr, "tmahw run: %s\n", e.detail);
        return EXIT_BAD;
    }

    /* ---- correctness ---- */
    char correct[300];
    int correct_ok = 0;
    uint64_t bad_stores = 0;
    if (hung)
        snprintf(correct, sizeof correct, "n/a (hang)");
    else {
        err_info se = {};
        if (g.stores_per_cta) {
            std::vector<uint8_t> out(store_bytes);
            cuMemcpyDtoH(out.data(), store_out, store_bytes);
            bad_stores = run_ref_check_stores(&d, &g, tens[0], out.data(), &se);
        }
        if (mismatched_launches) {
            uint32_t k = (uint32_t)first_bad_warp;
            snprintf(correct, sizeof correct, "MISMATCH in %llu of %zu launches (first: CTA %u warp %u checksum 0x%08x, "
                     "reference 0x%08x)", (unsigned long long)mismatched_launches, t_rec.size() + t_norec.size() + 1,
                     k / g.nwarps, k % g.nwarps, got[k], want[k]);
        } else if (bad_stores)
            snprintf(correct, sizeof correct, "STORE MISMATCH: %llu stores differ (%.200s)", (unsigned long long)bad_stores,
                     se.detail);
        else {
            correct_ok = 1;
            snprintf(correct, sizeof correct, "ok (%u warps x %zu launches%s%s)", nw, t_rec.size() + t_norec.size() + 1,
                     g.rd_probe ? ", probe reads" : "", g.stores_per_cta ? ", stores match" : "");
        }
    }

    /* ---- bandwidth ---- */
    double d2d_ms = 0, d2d = gt_d2d_bandwidth(&d2d_ms);
    double loaded = (double)d.iterations * d.copy_bytes * (d.multicast ? d.ctas / d.cluster : d.ctas);
    double kbw = k_norec > 0 ? loaded / k_norec : 0;   /* bytes/ns = GB/s */

    /* ---- counters (separate, untimed launch) ---- */
    char counters_path[600] = "";
    if (counters && !hung)
        run_write_counters(&d, dev.name, date, launch_rec_cb, &R, out_path, counters_path, sizeof counters_path);

    if (lock_fd >= 0)
        close(lock_fd);   /* releases the lock */
    const cta_timeline tl = timeline_of(ctime, sm, d.ctas);

    /* ---- report ---- */
    int finding = hung || !correct_ok || arrival_finding[0];
    run_report rep = {&d, &g, &dev, &occ, &tl, fmt, out_path, counters_path, correct, arrival_finding, sim_text,
                      hang_rec, k_norec, k_rec, overhead, ov_q1, ov_q3, kbw, d2d, timeout_ms, t_norec.size(),
                      t_rec.size(), tr.count, overflowed, hung, correct_ok, (long long)sim.kernel_ns};
    print_report(&rep);
    trace_free(&tr);
    run_gen_free(&g);
    hw_close(&dev);
    return finding ? EXIT_FINDING : EXIT_OK;
}
