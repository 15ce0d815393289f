/* corpus: a seeded random generator of pipeline descriptions over the whole space the
 * description format allows, for recording on GPUs and judging the simulator on
 * pipelines it was not tuned on. Pure (libc): the same seed and index always give the
 * same text. The split into a fit half (the only half calibration may look at) and a
 * test half is a fixed rule on the description's name. */
#ifndef TMASCOPE_CORPUS_H
#define TMASCOPE_CORPUS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { CORPUS_FIT = 0, CORPUS_TEST = 1 };

/* CORPUS_TEST or CORPUS_FIT: the lowest bit of the name's FNV-1a hash (64-bit). Names
 * keep their half however large the corpus grows. */
int corpus_split(const char *name);

/* One candidate description: index `index` of seed `seed`, draw `attempt` (a rejected
 * candidate is redrawn with the next attempt). Writes YAML text into buf (NUL-terminated;
 * returns the length, or the length needed when it is >= cap) and the name
 * ("corpus_SSSS_NNNN") into name. */
size_t corpus_candidate(uint64_t seed, uint32_t index, uint32_t attempt, char *buf, size_t cap, char name[32]);

/* The same for the wgmma family: GEMM pipelines (math kind wgmma, persistent tiles and an
 * epilogue) drawn over the space the generated GEMM kernel covers; names
 * "wgmma_SSSS_NNNN". Draws nothing of corpus_candidate's stream. */
size_t corpus_wgmma_candidate(uint64_t seed, uint32_t index, uint32_t attempt, char *buf, size_t cap, char name[32]);

#ifdef __cplusplus
}
#endif

#endif
