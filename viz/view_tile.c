/* view_tile: GUI-free model of a shared-memory tile picture (see view_tile.h). */
#include "view_tile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int view_lane_used(const bank_instr *in, uint32_t lane)
{
    uint32_t mask = in->active_mask ? in->active_mask : 0xffffffffu;
    if (lane >= BANK_LANES || !(mask >> lane & 1u))
        return 0;
    uint32_t matrices = bank_op_matrices(in->op);
    /* ldmatrix/stmatrix read row addresses only from lanes 8i..8i+7 of matrix i. */
    return matrices == 0 || lane < 8u * matrices;
}

uint32_t view_lane_bytes(const bank_instr *in)
{
    return bank_op_access_bytes(in->op);
}

static uint32_t clamp_rows(const view_tile_opts *o)
{
    uint32_t max_rows = (o && o->max_rows) ? o->max_rows : VIEW_DEFAULT_MAX_ROWS;
    return max_rows > VIEW_MAX_ROWS ? VIEW_MAX_ROWS : max_rows;
}

/* The box-relative label of a chunk: "r3 c0-7", with higher dimensions first. */
static void chunk_label(view_chunk *c, uint32_t rank)
{
    char buf[sizeof c->label];
    size_t n = 0;
    static const char higher[] = {'z', 'w', 'v'};
    for (uint32_t d = rank; d-- > 2;)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%c%u ", higher[d - 2], c->first[d]);
    if (rank >= 2) {
        if (c->first[1] == c->last[1])
            n += (size_t)snprintf(buf + n, sizeof buf - n, "r%u ", c->first[1]);
        else
            n += (size_t)snprintf(buf + n, sizeof buf - n, "r%u-%u ", c->first[1], c->last[1]);
    }
    if (n >= sizeof buf)
        n = sizeof buf - 1;
    if (c->first[0] == c->last[0])
        snprintf(buf + n, sizeof buf - n, "c%u", c->first[0]);
    else
        snprintf(buf + n, sizeof buf - n, "c%u-%u", c->first[0], c->last[0]);
    memcpy(c->label, buf, sizeof c->label);
}

static void fill_chunk(const view_tile *v, uint32_t address, view_chunk *c)
{
    const tm_plan *p = &v->plan;
    uint32_t begin = p->copy.smem_address, end = begin + p->footprint_bytes;
    memset(c, 0, sizeof *c);
    if (address + VIEW_CHUNK_BYTES <= begin || address >= end)
        return;
    c->kind = VIEW_CHUNK_PADDING;

    uint32_t data_bytes = 0, distinct = 0, oob = 0;
    tm_element prev;
    int have_prev = 0;
    for (uint32_t b = 0; b < VIEW_CHUNK_BYTES; b++) {
        tm_element el;
        uint32_t byte_in_element = 0;
        if (!tm_plan_element_at(p, address + b, &el, &byte_in_element))
            continue;
        data_bytes++;
        if (!have_prev || memcmp(prev.idx, el.idx, sizeof el.idx)) {
            distinct++;
            oob += el.oob ? 1u : 0u;
            if (!have_prev)
                memcpy(c->first, el.idx, sizeof c->first);
        }
        memcpy(c->last, el.idx, sizeof c->last);
        prev = el;
        have_prev = 1;
    }
    if (!data_bytes)
        return;
    c->kind = VIEW_CHUNK_DATA;
    /* Sub-byte types share bytes between elements; the byte walk sees one of them. */
    c->elements = v->elem_bits >= 8 ? distinct : data_bytes * 8u / v->elem_bits;
    c->oob_elements = v->elem_bits >= 8 ? oob : (oob ? c->elements : 0);
    uint32_t group = (uint32_t)(((uint64_t)c->first[0] * v->elem_bits) / (VIEW_CHUNK_BYTES * 8u));
    c->colour = group % VIEW_PALETTE;
    c->shade = (group / VIEW_PALETTE) % 3u;
    chunk_label(c, p->desc.rank);
}

static int alloc_rows(view_tile *v, err_info *e)
{
    v->row = calloc(v->nrows ? v->nrows : 1, sizeof *v->row);
    if (!v->row)
        return err_set(e, ERR_IO, "out_of_memory", "%u picture rows", v->nrows);
    return ERR_OK;
}

/* Lanes, wavefronts and collisions of the highlighted instruction. */
static int attach_instr(view_tile *v, const bank_instr *instr, const bank_result *result, err_info *e)
{
    v->has_instr = 1;
    v->instr = *instr;
    if (result) {
        v->result = *result;
    } else {
        int rc = bank_analyse(instr, &v->result, e);
        if (rc != ERR_OK)
            return rc;
    }
    uint32_t bytes = view_lane_bytes(instr);
    for (uint32_t l = 0; l < BANK_LANES; l++) {
        view_lane *ln = &v->lane[l];
        memset(ln, 0, sizeof *ln);
        ln->row = VIEW_LANE_OFF_PICTURE;
        if (!view_lane_used(instr, l))
            continue;
        ln->used = 1;
        ln->address = instr->addr[l];
        ln->bytes = bytes;
        ln->byte_in_row = ln->address % VIEW_ROW_BYTES;
        ln->first_bank = (ln->address / BANK_WIDTH) % BANK_COUNT;
        ln->banks = (bytes + BANK_WIDTH - 1) / BANK_WIDTH;
        ln->collides = (int)(v->result.colliding_lanes >> l & 1u);
        ln->wavefront = 0;
        for (uint32_t w = 0; w < v->result.nwavefronts && w < BANK_MAX_WAVEFRONTS; w++)
            if (v->result.wf[w].lanes >> l & 1u) {
                ln->wavefront = w;
                break;
            }
        uint32_t row_address = ln->address - ln->byte_in_row;
        for (uint32_t r = 0; r < v->nrows; r++)
            if (v->row[r].address == row_address) {
                ln->row = r;
                break;
            }
        if (ln->row == VIEW_LANE_OFF_PICTURE)
            v->lanes_off_picture++;
    }
    snprintf(v->summary, sizeof v->summary, "%u wavefronts, ideal %u, %u conflicts",
             v->result.wavefronts, v->result.ideal, v->result.conflicts);
    return ERR_OK;
}

int view_tile_build_plan(view_tile *v, const tm_plan *plan, const bank_instr *instr,
                         const bank_result *result, const view_tile_opts *o, err_info *e)
{
    memset(v, 0, sizeof *v);
    if (!plan)
        return err_set(e, ERR_BAD_INPUT, "plan", "no tensor-map placement given");
    const tm_dtype_info *info = tm_dtype_get(plan->desc.dtype);
    if (!info)
        return err_set(e, ERR_BAD_INPUT, "dtype", "unknown data type %d", (int)plan->desc.dtype);
    v->has_plan = 1;
    v->plan = *plan;
    v->elem_bits = info->bits;

    uint32_t base = plan->copy.smem_address & ~(VIEW_ROW_BYTES - 1u);
    uint64_t end = (uint64_t)plan->copy.smem_address + plan->footprint_bytes;
    v->total_rows = (uint32_t)((end - base + VIEW_ROW_BYTES - 1) / VIEW_ROW_BYTES);
    uint32_t max_rows = clamp_rows(o);
    uint32_t first = o ? o->first_row : 0;
    if (instr && first == 0 && v->total_rows > max_rows) {
        /* Start the window at the instruction's lowest row so its lanes are seen. */
        uint32_t lowest = UINT32_MAX;
        for (uint32_t l = 0; l < BANK_LANES; l++)
            if (view_lane_used(instr, l) && instr->addr[l] >= base && instr->addr[l] < lowest)
                lowest = instr->addr[l];
        if (lowest != UINT32_MAX && (uint64_t)lowest < end)
            first = (lowest - base) / VIEW_ROW_BYTES;
    }
    if (first >= v->total_rows)
        return err_set(e, ERR_BAD_INPUT, "first_row", "%u, the footprint has %u rows of 128 bytes", first,
                       v->total_rows);
    v->first_row = first;
    v->nrows = v->total_rows - first < max_rows ? v->total_rows - first : max_rows;
    int rc = alloc_rows(v, e);
    if (rc != ERR_OK)
        return rc;

    uint32_t used_groups = 0;
    for (uint32_t r = 0; r < v->nrows; r++) {
        view_row *row = &v->row[r];
        row->address = base + (first + r) * VIEW_ROW_BYTES;
        for (uint32_t k = 0; k < VIEW_CHUNKS_PER_ROW; k++) {
            fill_chunk(v, row->address + k * VIEW_CHUNK_BYTES, &row->chunk[k]);
            if (row->chunk[k].kind == VIEW_CHUNK_DATA)
                used_groups |= 1u << row->chunk[k].colour;
        }
    }
    for (uint32_t g = 0; g < VIEW_PALETTE; g++)
        v->colour_groups += used_groups >> g & 1u;
    v->colour_mask = used_groups;

    if (instr) {
        rc = attach_instr(v, instr, result, e);
        if (rc != ERR_OK) {
            view_tile_free(v);
            return rc;
        }
    }
    return ERR_OK;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

int view_tile_build_instr(view_tile *v, const bank_instr *instr, const bank_result *result,
                          const view_tile_opts *o, err_info *e)
{
    memset(v, 0, sizeof *v);
    if (!instr)
        return err_set(e, ERR_BAD_INPUT, "instr", "no instruction given");
    uint32_t rows[2 * BANK_LANES], n = 0;
    uint32_t bytes = view_lane_bytes(instr);
    for (uint32_t l = 0; l < BANK_LANES; l++) {
        if (!view_lane_used(instr, l))
            continue;
        rows[n++] = instr->addr[l] & ~(VIEW_ROW_BYTES - 1u);
        uint32_t last = instr->addr[l] + (bytes ? bytes - 1 : 0);
        if ((last & ~(VIEW_ROW_BYTES - 1u)) != rows[n - 1])
            rows[n++] = last & ~(VIEW_ROW_BYTES - 1u);
    }
    if (!n)
        return err_set(e, ERR_BAD_INPUT, "active_mask", "no lane takes part in the instruction");
    qsort(rows, n, sizeof rows[0], cmp_u32);
    uint32_t distinct = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!distinct || rows[i] != rows[distinct - 1])
            rows[distinct++] = rows[i];

    v->total_rows = distinct;
    uint32_t first = o ? o->first_row : 0;
    if (first >= distinct)
        return err_set(e, ERR_BAD_INPUT, "first_row", "%u, the instruction touches %u rows of 128 bytes", first,
                       distinct);
    uint32_t max_rows = clamp_rows(o);
    v->first_row = first;
    v->nrows = distinct - first < max_rows ? distinct - first : max_rows;
    int rc = alloc_rows(v, e);
    if (rc != ERR_OK)
        return rc;
    for (uint32_t r = 0; r < v->nrows; r++) {
        v->row[r].address = rows[first + r];
        v->row[r].gap_before = r > 0 && rows[first + r] != rows[first + r - 1] + VIEW_ROW_BYTES;
    }
    rc = attach_instr(v, instr, result, e);
    if (rc != ERR_OK)
        view_tile_free(v);
    return rc;
}

void view_tile_free(view_tile *v)
{
    if (!v)
        return;
    free(v->row);
    v->row = NULL;
    v->nrows = 0;
}
