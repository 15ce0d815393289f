/* pipe_rules: what a description needs, beyond a sound protocol, to run as the kernel
 * `tmahw run` generates, checked in one place: `tmasim check` and `tmasim sim` refuse
 * (through pipe_desc_derive) exactly what the GPU runner cannot run, with the same rule
 * names and messages. Each message names the field and the limit. */
#ifndef TMASCOPE_PIPE_RULES_H
#define TMASCOPE_PIPE_RULES_H

#include <stdint.h>

#include "desc.h"
#include "err.h"
#include "pipe_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Shared memory of one SM (bytes) and what the system keeps per resident block: Hopper
 * (H100, H200); the most one block may have is PIPE_SMEM_PER_BLOCK (pipe_plan.h). */
#define PIPE_SMEM_PER_SM (228u * 1024u)
#define PIPE_SMEM_RESERVED_PER_BLOCK 1024u
#define PIPE_THREADS_PER_SM 2048u
/* The runner's kernel: static shared memory (barriers, start clock, abort flag) is
 * counted as this much; each warp keeps at least this many 16-byte events in its
 * shared-memory ring; a consumer warp keeps at most this many read instructions of a
 * stage in registers. */
#define PIPE_STATIC_SMEM_BYTES 1024u
#define PIPE_RING_MIN_EVENTS 32u
#define PIPE_READS_MAX_PER_WARP 64u

/* Checks a derived description (pipe_desc_derive calls it last). ERR_BAD_INPUT with
 * rule and "FILE: field 'x': ..." detail. */
int pipe_rules_check(const pipe_desc *d, err_info *e);

/* Dynamic shared memory of one CTA: stages at 1024-byte alignment and the smem_base
 * offset, without the recording ring. */
uint32_t pipe_rules_stage_smem(const pipe_desc *d);
/* The most dynamic shared memory one CTA may take so that ctas_per_sm CTAs fit on an
 * SM (and no more than PIPE_SMEM_PER_BLOCK). */
uint32_t pipe_rules_cta_smem_budget(const pipe_desc *d);
/* A consumer without described reads loads one 16-byte chunk per lane for its checksum:
 * the first 32 chunks of tensor 0's stage area that hold box data only (offsets from the
 * tensor's stage address). Returns how many were found (the rules ask for 32). */
uint32_t pipe_rules_probe_chunks(const pipe_desc *d, uint32_t offsets[32]);

#ifdef __cplusplus
}
#endif

#endif
