/* verdict: what limits a pipeline, decided from measurable quantities, so that the
 * simulator's prediction and a hardware recording are judged by the same rule.
 * The simulator fills the evidence from its own accounting; a recording fills it from
 * its counters (DRAM and L2 bytes, shared-memory wavefronts, SM cycles), the
 * description's math work priced at the calibrated pipe rates, and the trace's waits. */
#ifndef TMASCOPE_VERDICT_H
#define TMASCOPE_VERDICT_H

#include "desc.h"
#include "params.h"
#include "trace.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum verdict_kind {
    VERDICT_MEMORY = 0,    /* DRAM or L2 moves bytes near its peak */
    VERDICT_SMEM,          /* the shared-memory port serves wavefronts near one per cycle */
    VERDICT_COMPUTE,       /* the math pipes, or the consumers' own instruction stream, are the limit */
    VERDICT_LATENCY,       /* consumers wait for data while memory is not saturated */
    VERDICT_SYNC,          /* neither busy nor waiting for data: barrier hand-offs and arrives */
    VERDICT_HANG,
    VERDICT_COUNT
} verdict_kind;

/* Shares are fractions of the kernel time (0..1, may exceed 1 by rounding). A share
 * that is not known is negative and takes no part in the decision. */
typedef struct verdict_evidence {
    double dram_util;      /* DRAM bytes / (kernel time x DRAM bandwidth) */
    double l2_util;        /* L2 bytes / (kernel time x L2 bandwidth) */
    double smem_util;      /* shared-memory wavefronts / (port cycles of the SMs in use) */
    double math_util;      /* math pipe busy time / (pipe time of the sub-partitions in use) */
    double wait_data;      /* consumers' (mixed warps') time blocked waiting for their data */
    double busy;           /* consumers' time reading, computing and issuing */
    double chain_util;     /* GEMM: the producer threads' chains of stages, one after another (gemm_step_ns plus
                              the stage's bytes at the SM's TMA rate each), share of the kernel per CTA */
    int hang;
} verdict_evidence;

/* Thresholds: a unit at >= 70% of its peak is the limit; otherwise consumers that wait
 * for data >= 30% of their time are latency bound, consumers busy >= 60% compute bound. */
#define VERDICT_SATURATED 0.70
#define VERDICT_WAIT_DATA 0.30
#define VERDICT_BUSY 0.60

verdict_kind verdict_decide(const verdict_evidence *ev);
/* A GEMM's verdict (math kind wgmma): the busiest of its three limits names it: latency
 * when the producers' chains of stages exceed both memory and the tensor pipes, compute
 * when the tensor pipes are at least as busy as memory, else memory. */
verdict_kind verdict_decide_gemm(const verdict_evidence *ev);
const char *verdict_name(verdict_kind k);   /* "memory", "smem", "compute", "latency", "synchronization", "hang" */

/* Consumer (or mixed) warps' shares of their lifetime in a trace: waits on full
 * barriers and cp.async groups (wait_data) and reads + math (busy), each warp's
 * lifetime from its first event to its last event's end. Both -1 when the trace has
 * no such warp. */
void verdict_trace_shares(const trace *t, double *wait_data, double *busy);

/* The counters a recording carries (Range Profiler, one untimed launch); negative when
 * absent. */
typedef struct verdict_counters {
    double dram_bytes;        /* dram__bytes_read.sum + dram__bytes_write.sum */
    double l2_bytes;          /* lts__t_bytes.sum */
    double smem_wavefronts;   /* l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum */
    double sm_cycles;         /* sm__cycles_elapsed.max */
    double tensor_cycles;     /* sm__pipe_tensor_op_hmma_cycles_active.sum: the tensor pipes' active cycles summed
                                 over the SMs' four sub-partitions (wgmma included) */
    double l2_read_bytes;     /* lts__t_sectors_srcunit_tex_op_read.sum x 32: what the SMs (TMA included) read */
} verdict_counters;

/* Evidence of a recorded run: kernel_ns measured, counters as recorded, the math the
 * description does priced at the pipe rates of p (pipe_math_pipe_cycles), the waits
 * from its trace (verdict_trace_shares; pass -1 when there is none). */
void verdict_hw_evidence(const pipe_desc *d, const pipe_params *p, double kernel_ns, const verdict_counters *c,
                         double wait_data, double busy, verdict_evidence *out);

/* The producer threads' chains of a GEMM (the simulator's gemm_step_floor): every CTA's
 * stages at gemm_step_ns plus the stage's bytes at the SM's TMA rate, over kernel_ns per
 * CTA. */
double verdict_gemm_chain_util(const pipe_desc *d, const pipe_params *p, double kernel_ns);

/* Evidence of a recorded GEMM, the quantities the simulator's GEMM verdict weighs: the
 * tensor pipes' share of the SMs' cycles from the tensor counter (its four sub-partitions'
 * cycles over four times the SM cycles; priced from the description's instructions at the
 * calibrated cycles when the counter is absent), L2 as the bytes the SMs read at L2's rate
 * for as many readers as the simulator derives per operand (pipe_gemm_readers), DRAM as
 * verdict_hw_evidence, the chains priced (verdict_gemm_chain_util), the consumers' waits
 * from the trace. */
void verdict_gemm_hw_evidence(const pipe_desc *d, const pipe_params *p, double kernel_ns, const verdict_counters *c,
                              double wait_data, verdict_evidence *out);

#ifdef __cplusplus
}
#endif

#endif
