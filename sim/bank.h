/* bank: shared-memory bank model for one warp instruction on an H100.
 * 32 banks of 4 bytes; a warp instruction is served in wavefronts. The model must
 * agree with the hardware counters (l1tex__data_pipe_lsu_wavefronts_mem_shared_*,
 * l1tex__data_bank_conflicts_pipe_lsu_mem_shared_*) recorded under traces/h100. */
#ifndef TMASCOPE_BANK_H
#define TMASCOPE_BANK_H

#include <stdint.h>

#include "err.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BANK_COUNT 32
#define BANK_WIDTH 4
#define BANK_LANES 32

typedef enum bank_op {
    BANK_OP_LDS32 = 0,
    BANK_OP_LDS64,
    BANK_OP_LDS128,
    BANK_OP_STS32,
    BANK_OP_STS64,
    BANK_OP_STS128,
    BANK_OP_LDSM_X1,
    BANK_OP_LDSM_X2,
    BANK_OP_LDSM_X4,
    BANK_OP_STSM_X1,
    BANK_OP_STSM_X2,
    BANK_OP_STSM_X4,
    BANK_OP_COUNT
} bank_op;

/* One warp instruction. For ld/st.shared, addr[l] is lane l's byte address. For the
 * matrix ops, lanes 8i..8i+7 give the 16-byte row addresses of matrix i; lanes of
 * matrices the op does not use are ignored (as the hardware ignores them). */
/* The shared-memory window of an SM (228 KiB on the H100): every lane address lies in it. */
#define BANK_SHARED_WINDOW (228u * 1024u)

typedef struct bank_instr {
    bank_op op;
    int trans;                 /* .trans on ldmatrix/stmatrix (does not change addressing) */
    uint32_t addr[BANK_LANES];
    uint32_t active_mask;      /* lanes taking part; 0 is read as all 32 */
} bank_instr;

/* One wavefront: which lanes it serves. */
typedef struct bank_wavefront {
    uint32_t lanes;            /* bit l set: lane l is (partly) served in this wavefront */
} bank_wavefront;

#define BANK_MAX_WAVEFRONTS 128

typedef struct bank_result {
    uint32_t wavefronts;       /* what the hardware counter counts */
    uint32_t ideal;            /* 1/2/4 for 32/64/128-bit, one per 8x8 matrix */
    uint32_t conflicts;        /* wavefronts - ideal, as the conflict counter reports */
    uint32_t worst_bank;       /* bank with the most distinct words, for the picture */
    uint32_t worst_bank_words; /* distinct 4-byte words requested from it */
    uint32_t colliding_lanes;  /* lanes whose words share a bank with another distinct word */
    uint32_t nwavefronts;      /* entries filled in wf[] (<= BANK_MAX_WAVEFRONTS) */
    bank_wavefront wf[BANK_MAX_WAVEFRONTS];
    uint32_t colliding_banks;  /* bit b set: bank b had more than one distinct word in a phase */
} bank_result;

/* Checks alignment (each lane's address aligned to its access width; matrix rows to
 * 16 bytes) and the shared-window size; then analyses. */
int bank_analyse(const bank_instr *in, bank_result *out, err_info *e);

/* The same checks and counts (wavefronts, ideal, conflicts, worst bank, colliding
 * lanes and banks) without the per-wavefront lane sets: nwavefronts is 0 and wf[] is
 * not written. For callers that only add up wavefronts (simulators, sweeps); about a
 * quarter faster on instructions with conflicts. */
int bank_analyse_counts(const bank_instr *in, bank_result *out, err_info *e);

int bank_op_parse(const char *s, bank_op *op, int *trans, err_info *e);
const char *bank_op_name(bank_op op);
uint32_t bank_op_access_bytes(bank_op op);   /* 4, 8, 16, or 16 for a matrix row */
uint32_t bank_op_matrices(bank_op op);       /* 0 for ld/st, 1/2/4 for x1/x2/x4 */
int bank_op_is_store(bank_op op);
uint32_t bank_op_ideal(bank_op op);          /* 1/2/4 for 32/64/128-bit, matrices for ldsm/stsm */

/* A pattern file: one instruction per line, "op a0 ... a31" ("#" comments, blank
 * lines ignored; addresses decimal or 0x hex). Matrix ops give 8*matrices addresses
 * or 32. On error e names the line and the field. */
typedef struct bank_pattern {
    uint32_t count;
    bank_instr *instrs;
    uint32_t *lines;           /* source line of each instruction */
} bank_pattern;

int bank_pattern_parse(const char *text, const char *filename, bank_pattern *out, err_info *e);
/* A pattern file holds at most this many bytes; a directory or a larger file is refused. */
#define BANK_PATTERN_MAX_FILE_BYTES (64u << 20)
int bank_pattern_load(const char *path, bank_pattern *out, err_info *e);
void bank_pattern_free(bank_pattern *p);

#ifdef __cplusplus
}
#endif

#endif
