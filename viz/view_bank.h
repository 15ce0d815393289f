/* view_bank: the bank picture of a selected shared-memory read (tmaview's state panel).
 *
 * A smem_read event only says who read (cta, warp), which stage, which iteration and
 * how many bytes. The instructions themselves come from the plan of the pipeline
 * description that produced the trace (pipe_plan.h: the stage map, the consumers' read
 * instructions and their bank scores); bank_analyse() gives the shown instruction's
 * wavefronts. The grid is the hardware's view of one instruction: 32 columns (banks) by
 * one row per wavefront, each cell naming the lanes that bank serves in that wavefront.
 * GUI-free and tested without a window; draw_timeline.c only turns it into pixels. */
#ifndef TMASCOPE_VIEW_BANK_H
#define TMASCOPE_VIEW_BANK_H

#include <stdint.h>

#include "bank.h"
#include "desc.h"
#include "err.h"
#include "trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Wavefront rows the grid keeps (an instruction may need up to 128; the rest are counted). */
#define VIEW_BANK_MAX_ROWS 32u

typedef struct view_bank {
    uint32_t stage;                /* of the event */
    uint32_t tensor;               /* description's reads.tensor */
    uint32_t tile_address;         /* shared address of the stage's tile (box origin) */
    uint32_t warp_slot, warps;     /* the warp's place in its group of reads.warps warps */
    uint32_t instr;                /* which of the warp's instructions is shown (0-based) */
    uint32_t warp_instrs;          /* instructions the warp issues per stage (before repeat) */
    uint32_t repeat;               /* reads.repeat (>= 1) */
    bank_instr in;                 /* the instruction shown */
    bank_result res;               /* its bank_analyse verdict */
    uint32_t bank_lanes[BANK_COUNT];   /* bit l: lane l's bytes lie in bank b */
    uint32_t bank_words[BANK_COUNT];   /* distinct 4-byte words requested from bank b */
    uint32_t lane_wavefront[BANK_LANES];   /* UINT32_MAX for lanes not taking part */
    uint32_t rows;                 /* grid rows filled: min(res.nwavefronts, VIEW_BANK_MAX_ROWS) */
    uint32_t grid[VIEW_BANK_MAX_ROWS][BANK_COUNT];   /* lanes bank b serves in wavefront w */
    uint64_t warp_wavefronts, warp_ideal;   /* all of the warp's instructions of one stage, x repeat */
    int bytes_mismatch;            /* the event's byte count is not the description's: wrong description? */
    char caption[128];             /* "A rows 16 B/lane, stage 1 @0x9400: warp 1, instr 1 of 32" */
    char summary[128];             /* "lds.128: 4 wavefronts (ideal 4), 0 conflicts; stage: ..." */
} view_bank;

/* Builds the picture of instruction `instr` (0-based, of the warp's per-stage list) of
 * the read `ev`. ERR_BAD_INPUT names the field when ev is not a shared-memory read,
 * the description has no reads, or the event does not fit the description (stage,
 * warp); instr past the warp's count is clamped to its last instruction. */
int view_bank_build(const pipe_desc *d, const trace_event *ev, uint32_t instr, view_bank *out, err_info *e);

#ifdef __cplusplus
}
#endif

#endif
