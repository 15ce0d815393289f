/* wgmma: where wgmma.mma_async reads each element of a shared-memory operand, from
 * its 64-bit matrix descriptor, and whether that is what a TMA copy wrote there.
 *
 * Terms (the PTX ISA's): the operand is A (64 x K, rows M) or B (N x K, rows N), each
 * an array of "core matrices" of 8 rows by 16 bytes. K-major: a row of the core matrix
 * runs along K; MN-major (the instruction's imm-trans operand set, f16 and bf16 only):
 * it runs along M or N. The descriptor holds byte quantities in 16-byte units: start
 * address (bits 0-13), leading byte offset LBO (16-29), stride byte offset SBO (32-45),
 * base offset (49-51), swizzle mode (62-63: 0 none, 1 128B, 2 64B, 3 32B).
 * Elements are numbered in operand order: row (m or n) major, k fastest. */
#ifndef TMASCOPE_WGMMA_H
#define TMASCOPE_WGMMA_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "tm.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum wg_dtype { WG_F16 = 0, WG_BF16, WG_TF32, WG_E4M3, WG_E5M2, WG_S8, WG_U8, WG_DTYPE_COUNT } wg_dtype;

/* Values equal the descriptor's bits 62-63 (note: not the tensor map's codes). */
typedef enum wg_swizzle { WG_SWZ_NONE = 0, WG_SWZ_128B = 1, WG_SWZ_64B = 2, WG_SWZ_32B = 3 } wg_swizzle;

typedef enum wg_operand { WG_A = 0, WG_B } wg_operand;
typedef enum wg_major { WG_K_MAJOR = 0, WG_MN_MAJOR } wg_major;

/* The descriptor as fields. start, lbo and sbo are in bytes and must be multiples of
 * 16 below 2^18 (the encoding keeps bits 4-17); base_offset 0..7. */
typedef struct wg_desc {
    uint32_t start, lbo, sbo, base_offset;
    wg_swizzle swizzle;
} wg_desc;

/* The operand one instruction reads. n is the instruction's N (ignored for A). */
typedef struct wg_shape {
    wg_dtype dtype;
    wg_operand operand;
    wg_major major;
    uint32_t n;
} wg_shape;

const char *wg_dtype_name(wg_dtype t);
int wg_dtype_parse(const char *s, wg_dtype *out, err_info *e);
uint32_t wg_dtype_bytes(wg_dtype t);
/* K of one instruction: 32 bytes of each row (k8 tf32, k16 f16/bf16, k32 8-bit). */
uint32_t wg_k(wg_dtype t);
const char *wg_swizzle_name(wg_swizzle s);   /* "none" "128B" "64B" "32B" */
int wg_swizzle_parse(const char *s, wg_swizzle *out, err_info *e);
/* The descriptor mode that matches a tensor map swizzle, or -1 if none does. */
int wg_swizzle_from_tm(tm_swizzle s);
/* Bytes per swizzled row: 16 (none), 32, 64, 128. */
uint32_t wg_swizzle_width(wg_swizzle s);

/* The operand's rows (64 for A, n for B) and elements (rows * K). */
uint32_t wg_rows(const wg_shape *s);
uint32_t wg_elements(const wg_shape *s);

/* ERR_OK, or ERR_BAD_INPUT naming the field: n a multiple of 8 in 8..256 (and, for the
 * 8-bit integer types, 8, 16, 24 or a multiple of 16), MN-major only for f16/bf16. */
int wg_shape_check(const wg_shape *s, err_info *e);
/* ERR_OK, or ERR_BAD_INPUT: fields in range and multiples of 16. */
int wg_desc_check(const wg_desc *d, err_info *e);

uint64_t wg_desc_encode(const wg_desc *d);
void wg_desc_decode(uint64_t raw, wg_desc *d);

/* The absolute shared byte address of element (row, k) of the operand: its first
 * byte. row < wg_rows, k < wg_k. */
uint32_t wg_element_address(const wg_shape *s, const wg_desc *d, uint32_t row, uint32_t k);
/* All of them in operand order (out holds wg_elements(s) entries). */
void wg_addresses(const wg_shape *s, const wg_desc *d, uint32_t *out);

/* The descriptor swizzle on an absolute address, with the descriptor's base offset. */
uint32_t wg_swizzle_address(wg_swizzle s, uint32_t base_offset, uint32_t address);

/* ---- cross-check against the TMA copy that wrote the tile ----------------------- */

/* How the box indices of the TMA copy name operand elements: role[i] says whether box
 * dimension i counts rows (m or n) or k; dimensions of one role combine innermost
 * first (a 3-D box (8, 64, 2) with roles k,row,k holds k = i0 + 8 * i2, row = i1).
 * The k-block kb is the instruction that reads k in [kb*K, kb*K + K); row_origin the
 * first row it reads. */
typedef enum wg_role { WG_ROLE_ROW = 0, WG_ROLE_K } wg_role;

typedef struct wg_tile {
    tm_plan plan;                  /* from tm_plan_copy */
    wg_role role[TM_MAX_RANK];
    uint32_t k_block;
    uint32_t row_origin;
} wg_tile;

/* The default roles for a rank-2 or rank-3 box of the given major-ness:
 * K-major k,row (rank 3: k,row,k); MN-major row,k (rank 3: row,k,row). */
void wg_tile_default_roles(wg_major m, uint32_t rank, wg_role role[TM_MAX_RANK]);

/* Where the tile holds operand element (row, k) of the k-block, as TMA placed it:
 * returns 1 and sets *address, or 0 if the tile does not hold it. */
int wg_tile_address(const wg_tile *t, const wg_shape *s, uint32_t row, uint32_t k, uint32_t *address);

/* The tile element whose first byte is at address: 1 and its row (from row_origin)
 * and its k in the whole tile, or 0 (padding, outside, or not a first byte). */
int wg_tile_element_at(const wg_tile *t, uint32_t address, uint32_t *row, uint32_t *k);

enum { WG_MISMATCH_MAX = 8 };

typedef struct wg_mismatch {
    uint32_t row, k;          /* the operand element */
    uint32_t read_address;    /* where the descriptor reads it from */
    uint32_t want_address;    /* where TMA put it (WG_NOWHERE if the tile lacks it) */
    int has_read_element;     /* the tile element at read_address, if any: */
    uint32_t read_row, read_k;/* its row and its k in the whole tile (not the k-block) */
} wg_mismatch;
#define WG_NOWHERE 0xFFFFFFFFu

typedef struct wg_check {
    uint32_t elements, mismatches;
    wg_mismatch first[WG_MISMATCH_MAX];
    uint32_t n_first;
    int has_fix;              /* a descriptor that reads every element right */
    wg_desc fix;
    char why_none[200];       /* when !has_fix */
} wg_check;

/* Compares the descriptor's reads (its element addresses, or `observed` if not NULL:
 * addresses recorded on hardware, WG_NOWHERE where unknown) with the tile.
 * Returns ERR_OK (agree), ERR_FINDING (mismatch; *out says which and the fix), or
 * ERR_BAD_INPUT. */
int wg_check_tile(const wg_tile *t, const wg_shape *s, const wg_desc *d, const uint32_t *observed, wg_check *out,
                  err_info *e);

/* The descriptor that reads the tile's k-block right, if one exists: ERR_OK and *fix,
 * or ERR_FINDING with why (one line) in why[why_size]. */
int wg_find_desc(const wg_tile *t, const wg_shape *s, wg_desc *fix, char *why, size_t why_size);

#ifdef __cplusplus
}
#endif

#endif
