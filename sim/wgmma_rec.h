/* wgmma_rec: the recorded wgmma corpus (traces/h200/wgmma/wgmma.txt, written by
 * `tmahw wgmma-record`; format in traces/FORMAT.md) and its comparison with the model.
 * libc only. */
#ifndef TMASCOPE_WGMMA_REC_H
#define TMASCOPE_WGMMA_REC_H

#include <stdint.h>
#include <stdio.h>

#include "err.h"
#include "wgmma.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wg_record {
    char name[64], variant[32];
    wg_shape shape;
    uint64_t raw;            /* the descriptor as the instruction got it (absolute start) */
    char *tile;              /* tile flags, or NULL for "-" */
    uint32_t *addr;          /* wg_elements(&shape) addresses, WG_NOWHERE where not decoded */
    uint32_t n_addr;
} wg_record;

/* Parses one data line (not a '#' line). The record owns tile and addr: free with
 * wg_record_free. ERR_OK or ERR_BAD_INPUT naming the field. */
int wg_record_parse(const char *line, wg_record *r, err_info *e);
void wg_record_free(wg_record *r);

/* Expands address runs ("4400+2*8 x*3 4c00") into out[0..n); ERR_BAD_INPUT if they do
 * not give exactly n addresses. */
int wg_runs_parse(const char *s, uint32_t *out, uint32_t n, err_info *e);

/* The model against one record: the number of elements whose address differs (0 =
 * agree) and the first of them in *first (operand-order index). */
uint32_t wg_record_compare(const wg_record *r, uint32_t *first);

/* The whole corpus against the model. Per record: the addresses (every element); for a
 * record with a tile, the verdict of the cross-check on the recorded addresses against
 * the verdict on the model's; for a mismatching record with a tile, whether the
 * descriptor the cross-check proposes reads, by the model, exactly the addresses that
 * the hardware read for the recorded correct descriptor of the same tile and k-block. */
typedef struct wg_replay_report {
    uint32_t cases, addr_agree;
    uint32_t tile_cases, verdict_agree, hw_mismatch;
    uint32_t fix_cases, fix_confirmed;   /* mismatches with a tile; proposals confirmed */
    uint32_t ok_cases, ok_hw_agree;      /* variant "ok": the hardware read the tile right */
    uint64_t elements;
    uint32_t n_details;
    char details[16][240];               /* the first disagreements, one line each */
} wg_replay_report;

/* Reads and replays a recording. ERR_OK (every check agrees), ERR_FINDING (some
 * disagree: see the report), ERR_BAD_INPUT / ERR_IO (unreadable; e names the line). */
int wg_replay_file(const char *path, wg_replay_report *r, err_info *e);

#ifdef __cplusplus
}
#endif

#endif
