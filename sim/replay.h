/* replay: the comparison of one recorded hardware observation with the current
 * models (tm_, bank_). libc only: the GPU runner (hw/, tmahw) calls it on fresh
 * measurements and sim/replay_json.c on the committed recording
 * (traces/h100/validation), so both print the same verdicts.
 *
 * Byte fills shared by the recorder and the replay (seeds also in meta.json):
 * tensor content for loads: byte at global offset o = replay_fill_byte(REPLAY_SEED_GLOBAL, o).
 * Shared memory before a load: sentinel at buffer offset o =
 * replay_fill_byte(REPLAY_SEED_SMEM_SENTINEL, o) (run A) and its complement (run B); a byte
 * equal in both runs was written by the copy. Stores: shared source byte at buffer offset
 * o = replay_fill_byte(REPLAY_SEED_STORE_SRC, o); the global buffer is prefilled with
 * replay_fill_byte(REPLAY_SEED_STORE_PREFILL, o) (o relative to the tensor's global address,
 * two's complement before it) and, in run B, its complement. */
#ifndef TMASCOPE_REPLAY_H
#define TMASCOPE_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "bank.h"
#include "tm.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    REPLAY_SEED_GLOBAL = 0x7E45u,
    REPLAY_SEED_SMEM_SENTINEL = 0x5E47u,
    REPLAY_SEED_STORE_SRC = 0x570Eu,
    REPLAY_SEED_STORE_PREFILL = 0x6A0Bu,
};

/* splitmix64 of (seed, offset): every byte of a buffer distinguishable in practice. */
static inline uint8_t replay_fill_byte(uint32_t seed, uint64_t offset)
{
    uint64_t x = offset * 0x9E3779B97F4A7C15ull + (((uint64_t)seed << 32) | seed);
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 33;
    return (uint8_t)x;
}

typedef enum replay_kind {
    REPLAY_ENCODE = 0,     /* driver verdict vs tm_validate */
    REPLAY_LOAD,           /* shared-memory bytes after a TMA load vs tm_plan_apply_load */
    REPLAY_STORE,          /* global bytes after a TMA store vs tm_plan_apply_store */
    REPLAY_BANK,           /* wavefronts / conflicts vs bank_analyse */
    REPLAY_KIND_COUNT
} replay_kind;

const char *replay_kind_name(replay_kind k);

enum { REPLAY_DISAGREE = 0, REPLAY_AGREE = 1, REPLAY_UNUSABLE = 2 };

/* Limits of what a replay rebuilds: a case's shared buffer (the H100 has 228 KiB per SM)
 * and the global bytes its tensor spans (the recorded cases span at most 2.8 MB). A case
 * past them is UNUSABLE, with the size and the limit in its detail. */
#define REPLAY_MAX_SMEM_BYTES (256u * 1024u)
#define REPLAY_MAX_IMAGE_BYTES (64ull << 20)

/* A half-open byte range [begin, end). */
typedef struct replay_range {
    int64_t begin, end;
} replay_range;

/* What the hardware did with one TMA copy. */
typedef struct replay_layout_obs {
    int store;
    tm_desc desc;                  /* global_address as used on the device */
    int32_t coords[TM_MAX_RANK];
    int encode_accepted;
    int cu_result;
    int fault;                     /* the runner could not complete the case (kernel error) */
    uint32_t expect_tx;            /* the runner's arrive.expect_tx */
    int completed;                 /* mbarrier phase completed before the deadline */
    uint32_t smem_base;            /* absolute address of the dynamic buffer (1024-aligned) */
    uint32_t smem_address;         /* absolute destination / source address */
    uint32_t smem_size;            /* bytes of the buffer */
    /* load: bytes of run A from window_start (absolute shared address) and the
     * written set (absolute addresses). store: bytes of the global buffer (run A)
     * from window_start (offset from global_address) and the written set (offsets). */
    int64_t window_start;
    const uint8_t *window;
    size_t window_len;
    const replay_range *written;
    size_t nwritten;
    /* after a hang, the runner re-armed the barrier with other counts (loads only) */
    int nprobe;
    uint32_t probe_tx[2];
    int probe_completed[2];
} replay_layout_obs;

/* Driver verdict vs model. detail gets the two verdicts and the model's rule. */
int replay_check_encode(const tm_desc *d, int driver_accepted, int cu_result, char *detail, size_t detail_size);

/* One copy. Returns REPLAY_AGREE / REPLAY_DISAGREE (detail: first difference) /
 * REPLAY_UNUSABLE (the observation is incomplete). */
int replay_check_layout(const replay_layout_obs *o, char *detail, size_t detail_size);

/* What the counters said of one warp instruction (baseline already subtracted);
 * instructions < 0 when no instruction-count metric was available. */
typedef struct replay_bank_obs {
    double wavefronts;
    double conflicts;
    double instructions;
} replay_bank_obs;

/* The counter names the bank comparison reads for an op (wavefronts, conflicts, and
 * the instruction counters in order of preference, NULL-terminated). */
const char *replay_bank_wavefront_metric(bank_op op);
const char *replay_bank_conflict_metric(bank_op op);
const char *const *replay_bank_inst_metrics(bank_op op);

int replay_check_bank(const bank_instr *in, const replay_bank_obs *o, char *detail, size_t detail_size);

/* Compact one-line parameters of a case for reports. */
void replay_describe_desc(const tm_desc *d, const int32_t *coords, uint32_t smem_address, char *out, size_t size);
void replay_describe_bank(const bank_instr *in, char *out, size_t size);

#ifdef __cplusplus
}
#endif

#endif
