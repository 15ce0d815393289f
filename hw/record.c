/* record: a launch's raw recording on the host and as a file (see record.h). libc only:
 * the injected recorder (hw/record_inject.c) links it too. */
#include "record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

uint32_t rec_cap_for(uint32_t ctas, uint32_t nwarps, uint32_t want)
{
    uint64_t warps = (uint64_t)ctas * nwarps;
    if (warps == 0)
        return want ? want : 1;
    uint64_t most = REC_MAX_BUFFER_BYTES / (warps * REC_EVENT_BYTES);
    uint64_t cap = want < most ? want : most;
    return cap ? (uint32_t)cap : 1u;
}

int rec_launch_alloc(rec_launch *l, err_info *e)
{
    const size_t warps = (size_t)l->ctas * l->nwarps;
    l->ev = calloc(warps * l->stride + 1, sizeof *l->ev);
    l->evn = calloc(warps + 1, sizeof *l->evn);
    l->cta_time = calloc((size_t)l->ctas * 4 + 1, sizeof *l->cta_time);
    l->cta_sm = calloc((size_t)l->ctas + 1, sizeof *l->cta_sm);
    if (!l->ev || !l->evn || !l->cta_time || !l->cta_sm) {
        rec_launch_free(l);
        return err_set(e, ERR_IO, "out_of_memory", "recording of %u CTAs x %u warps x %u records", l->ctas, l->nwarps,
                       l->stride);
    }
    return ERR_OK;
}

void rec_launch_free(rec_launch *l)
{
    free(l->ev);
    free(l->evn);
    free(l->cta_time);
    free(l->cta_sm);
    l->ev = NULL;
    l->evn = NULL;
    l->cta_time = NULL;
    l->cta_sm = NULL;
}

/* ---------------------------------------------------------------- raw files */
/* Little-endian on the hosts CUDA runs on (x86-64, aarch64): the structs' bytes.
 *   "TMASRAW1", u32 version 1, the fixed part (raw_head: the device's name and driver
 *   version, grid, block, sizes, CUPTI times, calibration), the kernel name (name_len
 *   bytes), cta_time (ctas x 4 u64), cta_sm (ctas u32), evn (warps u32), then per warp
 *   min(evn, cap) records of 16 bytes. */
typedef struct raw_head {
    char gpu[64];
    int32_t driver_version;
    uint32_t grid[3], block[3];
    uint32_t ctas, nwarps, cap, name_len;
    uint64_t cupti_start, cupti_end, seq;
    int64_t gt_offset;
} raw_head;
#define RAW_MAGIC "TMASRAW1"

/* records a warp's count n leaves in a buffer of cap */
static uint32_t kept(uint32_t n, uint32_t cap)
{
    if (n == RUN_EVN_UNRECORDED)
        return 0;
    return n < cap ? n : cap;
}

int rec_raw_write(const char *path, const rec_launch *l, err_info *e)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof tmp)
        return err_set(e, ERR_BAD_INPUT, "raw_path", "'%s': path too long", path);
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return err_set(e, ERR_IO, "raw_open", "cannot write '%s'", tmp);
    raw_head h;
    memset(&h, 0, sizeof h);
    snprintf(h.gpu, sizeof h.gpu, "%s", l->gpu);
    h.driver_version = l->driver_version;
    memcpy(h.grid, l->grid, sizeof h.grid);
    memcpy(h.block, l->block, sizeof h.block);
    h.ctas = l->ctas;
    h.nwarps = l->nwarps;
    h.cap = l->cap;
    h.name_len = (uint32_t)strnlen(l->kernel, sizeof l->kernel);
    h.cupti_start = l->cupti_start;
    h.cupti_end = l->cupti_end;
    h.seq = l->seq;
    h.gt_offset = l->gt_offset;
    const uint32_t version = 1;
    const size_t warps = (size_t)l->ctas * l->nwarps;
    int ok = fwrite(RAW_MAGIC, 8, 1, f) == 1 && fwrite(&version, 4, 1, f) == 1 && fwrite(&h, sizeof h, 1, f) == 1 &&
             fwrite(l->kernel, 1, h.name_len, f) == h.name_len &&
             fwrite(l->cta_time, 8, (size_t)l->ctas * 4, f) == (size_t)l->ctas * 4 &&
             fwrite(l->cta_sm, 4, l->ctas, f) == l->ctas && fwrite(l->evn, 4, warps, f) == warps;
    for (size_t w = 0; w < warps && ok; w++) {
        uint32_t n = kept(l->evn[w], l->cap);
        ok = fwrite(l->ev + w * l->stride, sizeof *l->ev, n, f) == n;
    }
    if (fclose(f) != 0 || !ok) {
        remove(tmp);
        return err_set(e, ERR_IO, "raw_write", "writing '%s' failed", tmp);
    }
    if (rename(tmp, path) != 0) {
        remove(tmp);
        return err_set(e, ERR_IO, "raw_write", "cannot rename '%s' to '%s'", tmp, path);
    }
    return ERR_OK;
}

static int short_file(const char *path, const char *what, err_info *e)
{
    return err_set(e, ERR_BAD_INPUT, "raw_file", "'%s': ends inside the %s", path, what);
}

int rec_raw_read(const char *path, rec_launch *l, err_info *e)
{
    memset(l, 0, sizeof *l);
    FILE *f = fopen(path, "rb");
    if (!f)
        return err_set(e, ERR_IO, "raw_open", "cannot read '%s'", path);
    char magic[8];
    uint32_t version = 0;
    raw_head h;
    int rc = ERR_OK;
    if (fread(magic, 8, 1, f) != 1 || memcmp(magic, RAW_MAGIC, 8) || fread(&version, 4, 1, f) != 1 || version != 1) {
        rc = err_set(e, ERR_BAD_INPUT, "raw_file", "'%s': not a tmascope raw launch file (version 1)", path);
        goto out;
    }
    if (fread(&h, sizeof h, 1, f) != 1) {
        rc = short_file(path, "header", e);
        goto out;
    }
    const uint64_t warps = (uint64_t)h.ctas * h.nwarps;
    if (h.ctas == 0 || h.nwarps == 0 || h.nwarps > 32 || warps > (1u << 26) || h.name_len >= sizeof l->kernel ||
        h.cap == 0) {
        rc = err_set(e, ERR_BAD_INPUT, "raw_file", "'%s': ctas %u, warps %u, cap %u, name of %u bytes: out of range",
                     path, h.ctas, h.nwarps, h.cap, h.name_len);
        goto out;
    }
    memcpy(l->gpu, h.gpu, sizeof l->gpu);
    l->gpu[sizeof l->gpu - 1] = 0;
    l->driver_version = h.driver_version;
    memcpy(l->grid, h.grid, sizeof h.grid);
    memcpy(l->block, h.block, sizeof h.block);
    l->ctas = h.ctas;
    l->nwarps = h.nwarps;
    l->cap = h.cap;
    l->cupti_start = h.cupti_start;
    l->cupti_end = h.cupti_end;
    l->seq = h.seq;
    l->gt_offset = h.gt_offset;
    if (fread(l->kernel, 1, h.name_len, f) != h.name_len) {
        rc = short_file(path, "kernel name", e);
        goto out;
    }
    l->kernel[h.name_len] = 0;
    /* the stride: the most records any warp kept */
    uint32_t *evn = malloc(sizeof *evn * (warps + 1));
    uint64_t *ct = malloc(sizeof *ct * ((size_t)h.ctas * 4 + 1));
    uint32_t *sm = malloc(sizeof *sm * ((size_t)h.ctas + 1));
    if (!evn || !ct || !sm) {
        free(evn);
        free(ct);
        free(sm);
        rc = err_set(e, ERR_IO, "out_of_memory", "'%s': %llu warps", path, (unsigned long long)warps);
        goto out;
    }
    int ok = fread(ct, 8, (size_t)h.ctas * 4, f) == (size_t)h.ctas * 4 && fread(sm, 4, h.ctas, f) == h.ctas &&
             fread(evn, 4, warps, f) == warps;
    uint32_t stride = 1;
    for (uint64_t w = 0; w < warps && ok; w++) {
        uint32_t n = kept(evn[w], h.cap);
        stride = n > stride ? n : stride;
    }
    l->stride = stride;
    if (ok)
        rc = rec_launch_alloc(l, e);
    if (ok && rc == ERR_OK) {
        memcpy(l->evn, evn, 4 * warps);
        memcpy(l->cta_time, ct, 8 * (size_t)h.ctas * 4);
        memcpy(l->cta_sm, sm, 4 * (size_t)h.ctas);
        for (uint64_t w = 0; w < warps && ok; w++) {
            uint32_t n = kept(l->evn[w], l->cap);
            ok = fread(l->ev + w * stride, sizeof *l->ev, n, f) == n;
        }
    }
    free(evn);
    free(ct);
    free(sm);
    if (!ok && rc == ERR_OK)
        rc = short_file(path, "records", e);
    if (rc)
        rec_launch_free(l);
out:
    fclose(f);
    return rc;
}
