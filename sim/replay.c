/* replay: one recorded hardware observation against the current models. */
#include "replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *replay_kind_name(replay_kind k)
{
    static const char *names[REPLAY_KIND_COUNT] = {"encode", "load", "store", "bank"};
    return (unsigned)k < REPLAY_KIND_COUNT ? names[k] : "?";
}

static void list_u64(char *out, size_t size, const uint64_t *v, uint32_t n)
{
    size_t at = 0;
    out[0] = 0;
    for (uint32_t i = 0; i < n && at < size; i++)
        at += (size_t)snprintf(out + at, size - at, "%s%llu", i ? "," : "", (unsigned long long)v[i]);
}

static void list_u32(char *out, size_t size, const uint32_t *v, uint32_t n)
{
    size_t at = 0;
    out[0] = 0;
    for (uint32_t i = 0; i < n && at < size; i++)
        at += (size_t)snprintf(out + at, size - at, "%s%u", i ? "," : "", v[i]);
}

void replay_describe_desc(const tm_desc *d, const int32_t *coords, uint32_t smem_address, char *out, size_t size)
{
    char dims[128], strides[128], box[64], es[64], co[96];
    uint32_t r = d->rank <= TM_MAX_RANK ? d->rank : TM_MAX_RANK;
    const tm_dtype_info *ti = tm_dtype_get(d->dtype);
    list_u64(dims, sizeof dims, d->dims, r);
    list_u64(strides, sizeof strides, d->strides, r ? r - 1 : 0);
    list_u32(box, sizeof box, d->box, r);
    list_u32(es, sizeof es, d->elem_strides, r);
    size_t at = 0;
    co[0] = 0;
    for (uint32_t i = 0; coords && i < r; i++)
        at += (size_t)snprintf(co + at, sizeof co - at, "%s%d", i ? "," : "", coords[i]);
    snprintf(out, size,
             "--dtype %s --dims %s --strides %s --box %s --elem-strides %s --interleave %s --swizzle %s "
             "--oob-fill %s --global-address 0x%llx --coords %s --smem-address 0x%x",
             ti ? ti->name : "?", dims, strides, box, es, tm_interleave_name(d->interleave),
             tm_swizzle_name(d->swizzle), tm_oob_name(d->oob_fill), (unsigned long long)d->global_address, co,
             smem_address);
}

void replay_describe_bank(const bank_instr *in, char *out, size_t size)
{
    size_t at = (size_t)snprintf(out, size, "%s%s", bank_op_name(in->op), in->trans ? ".trans" : "");
    for (int l = 0; l < BANK_LANES && at < size; l++)
        at += (size_t)snprintf(out + at, size - at, " %u", in->addr[l]);
}

int replay_check_encode(const tm_desc *d, int driver_accepted, int cu_result, char *detail, size_t detail_size)
{
    err_info e;
    err_clear(&e);
    int model_ok = tm_validate(d, &e) == ERR_OK;
    if (model_ok == !!driver_accepted)
        return REPLAY_AGREE;
    if (model_ok)
        snprintf(detail, detail_size, "driver rejected (CUresult %d), model accepted", cu_result);
    else
        snprintf(detail, detail_size, "driver accepted, model rejected: %s: %s", e.rule, e.detail);
    return REPLAY_DISAGREE;
}

/* Written set as ranges, from two images that differ at every unwritten byte. */
static int ranges_equal(const uint8_t *a, const uint8_t *b, size_t n, int64_t origin, const replay_range *rec,
                        size_t nrec, int64_t *first_diff)
{
    size_t k = 0;
    for (size_t i = 0; i < n;) {
        if (a[i] != b[i]) {
            i++;
            continue;
        }
        size_t j = i;
        while (j < n && a[j] == b[j])
            j++;
        int64_t lo = (int64_t)i + origin, hi = (int64_t)j + origin;
        if (k >= nrec || rec[k].begin != lo || rec[k].end != hi) {
            int64_t d = lo;
            if (k < nrec && rec[k].begin < d)
                d = rec[k].begin;
            if (k < nrec && rec[k].begin == lo)
                d = rec[k].end < hi ? rec[k].end : hi;
            *first_diff = d;
            return 0;
        }
        k++;
        i = j;
    }
    if (k != nrec) {
        *first_diff = rec[k].begin;
        return 0;
    }
    return 1;
}

static void element_note(const tm_plan *p, uint32_t addr, char *out, size_t size)
{
    tm_element el;
    uint32_t byte = 0;
    if (!tm_plan_element_at(p, addr, &el, &byte)) {
        snprintf(out, size, "model: no element there");
        return;
    }
    char co[96];
    size_t at = 0;
    co[0] = 0;
    for (uint32_t i = 0; i < p->desc.rank && i < TM_MAX_RANK; i++)
        at += (size_t)snprintf(co + at, sizeof co - at, "%s%lld", i ? "," : "", (long long)el.coord[i]);
    snprintf(out, size, "model: byte %u of element (%s)%s", byte, co, el.oob ? " oob" : "");
}

/* Bytes from the tensor's first element to past its last one (an interleaved map's
 * dimension-0 element is a whole granule: elem_bits); 0 with *over set when the sum
 * passes REPLAY_MAX_IMAGE_BYTES. */
static uint64_t tensor_extent(const tm_plan *p, int *over)
{
    uint64_t extent = 0, term = 0;
    *over = 0;
    if (__builtin_mul_overflow(p->desc.dims[0], (uint64_t)p->elem_bits, &term))
        *over = 1;
    extent = (term + 7) / 8;
    for (uint32_t i = 1; !*over && i < p->desc.rank && i < TM_MAX_RANK; i++) {
        uint64_t d = p->desc.dims[i] ? p->desc.dims[i] - 1 : 0;
        if (__builtin_mul_overflow(d, p->desc.strides[i - 1], &term) || __builtin_add_overflow(extent, term, &extent))
            *over = 1;
    }
    if (extent > REPLAY_MAX_IMAGE_BYTES)
        *over = 1;
    return *over ? 0 : extent;
}

static int check_load(const replay_layout_obs *o, const tm_plan *p, char *detail, size_t ds)
{
    const size_t n = o->smem_size;
    const uint32_t off = o->smem_address - o->smem_base;
    uint64_t extent = 0;
    int rc = REPLAY_AGREE;
    err_info e;
    /* global tensor content: bytes up to the last element the map can address (an
     * interleaved map's dimension-0 element is a whole granule: p->elem_bits) */
    int over = 0;
    extent = tensor_extent(p, &over);
    if (over) {
        snprintf(detail, ds, "the tensor spans more than the replay's limit of %llu bytes",
                 (unsigned long long)REPLAY_MAX_IMAGE_BYTES);
        return REPLAY_UNUSABLE;
    }
    uint8_t *g = malloc(extent ? extent : 1);
    uint8_t *a = malloc(n), *b = malloc(n);
    if (!g || !a || !b) {
        free(g), free(a), free(b);
        snprintf(detail, ds, "out of memory (tensor %llu bytes)", (unsigned long long)extent);
        return REPLAY_UNUSABLE;
    }
    for (uint64_t i = 0; i < extent; i++)
        g[i] = replay_fill_byte(REPLAY_SEED_GLOBAL, i);
    for (size_t i = 0; i < n; i++) {
        a[i] = replay_fill_byte(REPLAY_SEED_SMEM_SENTINEL, i);
        b[i] = (uint8_t)~a[i];
    }
    err_clear(&e);
    if (tm_plan_apply_load(p, g, extent, a + off, n - off, &e) != ERR_OK ||
        tm_plan_apply_load(p, g, extent, b + off, n - off, &e) != ERR_OK) {
        snprintf(detail, ds, "model apply_load failed: %s: %s", e.rule, e.detail);
        rc = REPLAY_DISAGREE;
        goto out;
    }
    {
        int64_t ws = o->window_start - (int64_t)o->smem_base;
        for (size_t i = 0; i < o->window_len; i++) {
            int64_t at = ws + (int64_t)i;
            if (at < 0 || (size_t)at >= n)
                continue;
            if (a[at] != o->window[i]) {
                char note[160];
                element_note(p, o->smem_base + (uint32_t)at, note, sizeof note);
                snprintf(detail, ds, "shared byte 0x%x (dst%+lld): hardware 0x%02x, model 0x%02x (sentinel 0x%02x); %s",
                         o->smem_base + (uint32_t)at, (long long)(at - off), o->window[i], a[at],
                         replay_fill_byte(REPLAY_SEED_SMEM_SENTINEL, (uint64_t)at), note);
                rc = REPLAY_DISAGREE;
                goto out;
            }
        }
        int64_t first = 0;
        if (!ranges_equal(a, b, n, (int64_t)o->smem_base, o->written, o->nwritten, &first)) {
            snprintf(detail, ds, "written set differs near shared byte 0x%llx (dst%+lld); model footprint %u bytes",
                     (unsigned long long)first, (long long)(first - (int64_t)o->smem_address), p->footprint_bytes);
            rc = REPLAY_DISAGREE;
            goto out;
        }
    }
out:
    free(g), free(a), free(b);
    return rc;
}

static int check_store(const replay_layout_obs *o, const tm_plan *p, char *detail, size_t ds)
{
    const size_t n = o->smem_size;
    const uint32_t off = o->smem_address - o->smem_base;
    int rc = REPLAY_AGREE;
    err_info e;
    int over = 0;
    uint64_t extent = tensor_extent(p, &over);
    if (over) {
        snprintf(detail, ds, "the tensor spans more than the replay's limit of %llu bytes",
                 (unsigned long long)REPLAY_MAX_IMAGE_BYTES);
        return REPLAY_UNUSABLE;
    }
    /* model global image over [lo, hi) relative to the tensor */
    int64_t lo = o->window_start < 0 ? o->window_start : 0;
    int64_t hi = (int64_t)extent;
    if (o->window_start + (int64_t)o->window_len > hi)
        hi = o->window_start + (int64_t)o->window_len;
    for (size_t k = 0; k < o->nwritten; k++) {
        if (o->written[k].begin < lo)
            lo = o->written[k].begin;
        if (o->written[k].end > hi)
            hi = o->written[k].end;
    }
    /* window and written ranges are bounded by the reader (replay_json.c): hi - lo fits */
    if ((uint64_t)(hi - lo) > REPLAY_MAX_IMAGE_BYTES) {
        snprintf(detail, ds, "the store's global image spans %lld bytes, past the replay's limit of %llu",
                 (long long)(hi - lo), (unsigned long long)REPLAY_MAX_IMAGE_BYTES);
        return REPLAY_UNUSABLE;
    }
    size_t gn = (size_t)(hi - lo);
    uint8_t *ga = malloc(gn ? gn : 1), *gb = malloc(gn ? gn : 1), *src = malloc(n);
    if (!ga || !gb || !src) {
        free(ga), free(gb), free(src);
        snprintf(detail, ds, "out of memory");
        return REPLAY_UNUSABLE;
    }
    for (size_t i = 0; i < gn; i++) {
        ga[i] = replay_fill_byte(REPLAY_SEED_STORE_PREFILL, (uint64_t)((int64_t)i + lo));
        gb[i] = (uint8_t)~ga[i];
    }
    for (size_t i = 0; i < n; i++)
        src[i] = replay_fill_byte(REPLAY_SEED_STORE_SRC, i);
    err_clear(&e);
    /* the model may write past the tensor's last byte (stores clip dimension 0 at 16
     * bytes on the H100): give it everything up to the recorded window's end */
    if (tm_plan_apply_store(p, src + off, n - off, ga - lo, (uint64_t)hi, &e) != ERR_OK ||
        tm_plan_apply_store(p, src + off, n - off, gb - lo, (uint64_t)hi, &e) != ERR_OK) {
        snprintf(detail, ds, "model apply_store failed: %s: %s", e.rule, e.detail);
        rc = REPLAY_DISAGREE;
        goto out;
    }
    for (size_t i = 0; i < o->window_len; i++) {
        int64_t at = o->window_start + (int64_t)i - lo;
        if (at < 0 || (size_t)at >= gn)
            continue;
        if (ga[at] != o->window[i]) {
            snprintf(detail, ds, "global byte %+lld: hardware 0x%02x, model 0x%02x (prefill 0x%02x)",
                     (long long)(at + lo), o->window[i], ga[at],
                     replay_fill_byte(REPLAY_SEED_STORE_PREFILL, (uint64_t)(at + lo)));
            rc = REPLAY_DISAGREE;
            goto out;
        }
    }
    {
        int64_t first = 0;
        if (!ranges_equal(ga, gb, gn, lo, o->written, o->nwritten, &first)) {
            snprintf(detail, ds, "global written set differs near offset %+lld", (long long)first);
            rc = REPLAY_DISAGREE;
        }
    }
out:
    free(ga), free(gb), free(src);
    return rc;
}

int replay_check_layout(const replay_layout_obs *o, char *detail, size_t ds)
{
    err_info e;
    err_clear(&e);
    int model_ok = tm_validate(&o->desc, &e) == ERR_OK;
    if (model_ok != !!o->encode_accepted) {
        if (model_ok)
            snprintf(detail, ds, "driver rejected (CUresult %d), model accepted", o->cu_result);
        else
            snprintf(detail, ds, "driver accepted, model rejected: %s: %s", e.rule, e.detail);
        return REPLAY_DISAGREE;
    }
    if (!o->encode_accepted)
        return REPLAY_AGREE;
    tm_copy c;
    memset(&c, 0, sizeof c);
    memcpy(c.coords, o->coords, sizeof c.coords);
    c.smem_address = o->smem_address;
    c.store = o->store;
    tm_plan *p = malloc(sizeof *p);
    if (!p)
        return REPLAY_UNUSABLE;
    err_clear(&e);
    int planned = tm_plan_copy(&o->desc, &c, p, &e) == ERR_OK;
    int rc;
    if (o->fault) {
        /* the copy faulted on the device: agreement means the model refuses the copy */
        if (planned) {
            snprintf(detail, ds, "hardware faulted on this copy, model planned it (footprint %u)", p->footprint_bytes);
            rc = REPLAY_DISAGREE;
        } else {
            rc = REPLAY_AGREE;
        }
        free(p);
        return rc;
    }
    if (!planned) {
        snprintf(detail, ds, "hardware ran the copy, model refused it: %s: %s", e.rule, e.detail);
        free(p);
        return REPLAY_DISAGREE;
    }
    /* The copy delivers complete_tx in pieces: a phase armed with X bytes completes
     * when the delivered sum passes through exactly X, so completion at X only says X
     * is a prefix sum (<= the total), and the total T always completes. A model count
     * T disagrees when the barrier armed with T did not complete, or when one armed
     * with more than T did. */
    if (!o->store) {
        uint32_t armed[3] = {o->expect_tx, o->probe_tx[0], o->probe_tx[1]};
        int done[3] = {o->completed, o->probe_completed[0], o->probe_completed[1]};
        int n = 1 + (o->nprobe < 2 ? o->nprobe : 2);
        for (int k = 0; k < n; k++)
            if ((armed[k] == p->tx_bytes && !done[k]) || (armed[k] > p->tx_bytes && done[k])) {
                snprintf(detail, ds, "mbarrier armed with %u bytes %s on the device; model tx_bytes %u", armed[k],
                         done[k] ? "completed" : "did not complete", p->tx_bytes);
                free(p);
                return REPLAY_DISAGREE;
            }
    }
    if (o->smem_address < o->smem_base || o->smem_address - o->smem_base >= o->smem_size || !o->window) {
        snprintf(detail, ds, "recording lacks the bytes of this case");
        free(p);
        return REPLAY_UNUSABLE;
    }
    rc = o->store ? check_store(o, p, detail, ds) : check_load(o, p, detail, ds);
    free(p);
    return rc;
}

const char *replay_bank_wavefront_metric(bank_op op)
{
    return bank_op_is_store(op) ? "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
                                : "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
}

const char *replay_bank_conflict_metric(bank_op op)
{
    return bank_op_is_store(op) ? "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
                                : "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum";
}

const char *const *replay_bank_inst_metrics(bank_op op)
{
    static const char *const lds[] = {"smsp__sass_inst_executed_op_shared_ld.sum", NULL};
    static const char *const sts[] = {"smsp__sass_inst_executed_op_shared_st.sum", NULL};
    static const char *const ldsm[] = {"smsp__sass_inst_executed_op_ldsm.sum", "smsp__sass_inst_executed_op_shared_ldsm.sum",
                                       NULL};
    static const char *const stsm[] = {"smsp__sass_inst_executed_op_stsm.sum", "smsp__sass_inst_executed_op_shared_stsm.sum",
                                       NULL};
    if (bank_op_matrices(op))
        return bank_op_is_store(op) ? stsm : ldsm;
    return bank_op_is_store(op) ? sts : lds;
}

int replay_check_bank(const bank_instr *in, const replay_bank_obs *o, char *detail, size_t ds)
{
    if (o->instructions >= 0 && o->instructions != 1.0) {
        snprintf(detail, ds, "the kernel executed %g instructions of this kind, not 1", o->instructions);
        return REPLAY_UNUSABLE;
    }
    bank_result r;
    err_info e;
    err_clear(&e);
    if (bank_analyse_counts(in, &r, &e) != ERR_OK) {
        snprintf(detail, ds, "model refused the instruction: %s: %s", e.rule, e.detail);
        return REPLAY_DISAGREE;
    }
    if ((double)r.wavefronts != o->wavefronts || (double)r.conflicts != o->conflicts) {
        snprintf(detail, ds, "wavefronts hardware %g model %u; conflicts hardware %g model %u (ideal model %u)",
                 o->wavefronts, r.wavefronts, o->conflicts, r.conflicts, r.ideal);
        return REPLAY_DISAGREE;
    }
    return REPLAY_AGREE;
}
