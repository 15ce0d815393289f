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

#ifdef __cplusplus
}
#endif

#endif
