/* trace: in-memory event list and the binary file format of traces/FORMAT.md.
 * The on-disk event is the in-memory trace_event in little-endian byte order, so a
 * little-endian host reads and writes events without conversion (10M events load in
 * one fread). */
#define _DEFAULT_SOURCE   /* madvise, MADV_HUGEPAGE (glibc hides them under strict POSIX) */
#include "trace.h"

#include "afile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define TRACE_MAGIC "TMATRACE"
#define TRACE_HEADER_BYTES 320u
#define TRACE_COUNT_STREAMED UINT64_MAX

static const char *const kind_names[TRACE_KIND_COUNT] = {
    [TRACE_TMA_ISSUE] = "tma_issue",         [TRACE_TMA_FLIGHT] = "tma_flight",
    [TRACE_BAR_ARRIVE] = "bar_arrive",       [TRACE_BAR_EXPECT_TX] = "bar_expect_tx",
    [TRACE_BAR_COMPLETE_TX] = "bar_complete_tx", [TRACE_PHASE_COMPLETE] = "phase_complete",
    [TRACE_WAIT] = "wait",                   [TRACE_SMEM_READ] = "smem_read",
    [TRACE_MATH] = "math",                   [TRACE_RELEASE] = "release",
    [TRACE_CPASYNC_ISSUE] = "cpasync_issue", [TRACE_TMA_STORE] = "tma_store",
    [TRACE_WGMMA] = "wgmma",                 [TRACE_WGMMA_WAIT] = "wgmma_wait",
};
static const char *const role_names[TRACE_ROLE_COUNT] = {
    [TRACE_ROLE_PRODUCER] = "producer", [TRACE_ROLE_CONSUMER] = "consumer",
    [TRACE_ROLE_MIXED] = "mixed",       [TRACE_ROLE_TMA_UNIT] = "tma_unit",
};

const char *trace_kind_name(trace_kind k)
{
    return (unsigned)k < TRACE_KIND_COUNT ? kind_names[k] : "unknown";
}

const char *trace_role_name(trace_role r)
{
    return (unsigned)r < TRACE_ROLE_COUNT ? role_names[r] : "unknown";
}

int trace_kind_from_name(const char *s, trace_kind *out)
{
    for (unsigned i = 0; i < TRACE_KIND_COUNT; i++)
        if (s && strcmp(s, kind_names[i]) == 0) {
            *out = (trace_kind)i;
            return 1;
        }
    return 0;
}

int trace_role_from_name(const char *s, trace_role *out)
{
    for (unsigned i = 0; i < TRACE_ROLE_COUNT; i++)
        if (s && strcmp(s, role_names[i]) == 0) {
            *out = (trace_role)i;
            return 1;
        }
    return 0;
}

void trace_init(trace *t, trace_source src)
{
    memset(t, 0, sizeof *t);
    t->source = (uint8_t)src;
}

/* A simulated trace is hundreds of MB written once: with 4 KB pages the first touch of
 * every page costs a fault (a quarter of the traced full-grid run). Asking for
 * transparent huge pages cuts the faults 512-fold where the kernel allows it
 * (THP "madvise" mode); elsewhere it is a no-op. */
static void advise_huge(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    enum { HUGE = 2u << 20 };
    if (bytes < 2 * (size_t)HUGE)
        return;
    uintptr_t lo = ((uintptr_t)p + HUGE - 1) & ~(uintptr_t)(HUGE - 1);
    uintptr_t hi = ((uintptr_t)p + bytes) & ~(uintptr_t)(HUGE - 1);
    if (hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

int trace_reserve(trace *t, size_t capacity, err_info *e)
{
    if (capacity <= t->capacity)
        return ERR_OK;
    if (capacity > SIZE_MAX / sizeof(trace_event))
        return err_set(e, ERR_IO, "trace_capacity", "%zu events do not fit in memory", capacity);
    trace_event *grown = realloc(t->events, capacity * sizeof *grown);
    if (!grown)
        return err_set(e, ERR_IO, "out_of_memory", "cannot hold %zu trace events", capacity);
    advise_huge(grown, capacity * sizeof *grown);
    t->events = grown;
    t->capacity = capacity;
    return ERR_OK;
}

int trace_push(trace *t, const trace_event *ev, err_info *e)
{
    if (t->count == t->capacity) {
        int rc = trace_reserve(t, t->capacity ? t->capacity * 2 : 1024, e);
        if (rc)
            return rc;
    }
    t->events[t->count++] = *ev;
    return ERR_OK;
}

/* Ties on time are broken by the event key so that sorting is deterministic and a
 * simulated and a measured trace list simultaneous events in the same order. The key
 * (cta, warp, iteration, kind, then stage, barrier, dur_ns) is packed into two words,
 * most significant field first, so that it compares in two steps instead of seven;
 * the bytes of the whole event settle what the key leaves equal. */
static inline uint64_t key_hi(const trace_event *ev)
{
    return (uint64_t)ev->cta << 48 | (uint64_t)ev->warp << 40 | (uint64_t)ev->iteration << 8 | ev->kind;
}
static inline uint64_t key_lo(const trace_event *ev)
{
    return (uint64_t)ev->stage << 40 | (uint64_t)ev->barrier << 32 | ev->dur_ns;
}

static inline int event_order(const trace_event *a, const trace_event *b)
{
    if (a->t_ns != b->t_ns)
        return a->t_ns < b->t_ns ? -1 : 1;
    uint64_t x = key_hi(a), y = key_hi(b);
    if (x != y)
        return x < y ? -1 : 1;
    x = key_lo(a);
    y = key_lo(b);
    if (x != y)
        return x < y ? -1 : 1;
    return memcmp(a, b, sizeof *a);
}

static int event_cmp(const void *pa, const void *pb)
{
    return event_order(pa, pb);
}

static void sort_by_qsort(trace *t)
{
    qsort(t->events, t->count, sizeof *t->events, event_cmp);
}

/* Distribution sort of the events themselves on their time, then the event key orders
 * each group of equal times. A simulation emits events close to its clock (a span starts
 * at most a few microseconds before it is emitted), so the time range is dense: one
 * counting pass over (t_ns - min) writes every event once, to nearly sequential
 * addresses. Sparse ranges (measured traces with gaps) take an LSD radix sort, 11-bit
 * digits, stable. Both are O(n); qsort with the full comparator took a second on 3.6M
 * events and an index permutation thrashed the cache. */
/* Puts each run of equal times in key order while the events are in time order; returns
 * the index where time first goes backwards (n when it never does). One pass: checking
 * the order and ordering the ties read the events once. */
static size_t sort_groups_by_key(trace_event *ev, size_t n)
{
    size_t a = 0;
    while (a < n) {
        size_t b = a + 1;
        int sorted = 1;
        while (b < n && ev[b].t_ns == ev[a].t_ns) {
            if (sorted && event_order(&ev[b - 1], &ev[b]) > 0)
                sorted = 0;
            b++;
        }
        if (!sorted) {
            if (b - a > 24) {
                qsort(ev + a, b - a, sizeof *ev, event_cmp);
            } else {
                for (size_t i = a + 1; i < b; i++) {
                    trace_event v = ev[i];
                    size_t j = i;
                    while (j > a && event_order(&ev[j - 1], &v) > 0) {
                        ev[j] = ev[j - 1];
                        j--;
                    }
                    ev[j] = v;
                }
            }
        }
        if (b < n && ev[b].t_ns < ev[a].t_ns)
            return b;
        a = b;
    }
    return n;
}

void trace_sort(trace *t)
{
    size_t n = t->count, i;
    if (sort_groups_by_key(t->events, n) >= n)   /* in time order already (a simulation): only ties to order */
        return;
    int64_t lo = t->events[0].t_ns, hi = lo;
    for (i = 0; i < n; i++) {
        int64_t x = t->events[i].t_ns;
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
    }
    trace_event *tmp = n >= 4096 ? malloc(n * sizeof *tmp) : NULL;
    if (!tmp) {
        sort_by_qsort(t);
        return;
    }
    advise_huge(tmp, n * sizeof *tmp);
    trace_event *src = t->events, *dst = tmp;
    uint64_t span = (uint64_t)(hi - lo);
    size_t *count = span <= (uint64_t)n * 4 + 65536 ? calloc((size_t)span + 1, sizeof *count) : NULL;
    if (count) {
        for (i = 0; i < n; i++)
            count[src[i].t_ns - lo]++;
        size_t sum = 0;
        for (uint64_t k = 0; k <= span; k++) {
            size_t c = count[k];
            count[k] = sum;
            sum += c;
        }
        for (i = 0; i < n; i++)
            dst[count[src[i].t_ns - lo]++] = src[i];
        free(count);
        src = dst;
    } else {
        for (unsigned shift = 0; shift < 64 && (span >> shift) != 0; shift += 11) {
            size_t digit[2048] = {0};
            for (i = 0; i < n; i++)
                digit[((uint64_t)(src[i].t_ns - lo) >> shift) & 2047u]++;
            size_t sum = 0;
            for (unsigned k = 0; k < 2048; k++) {
                size_t c = digit[k];
                digit[k] = sum;
                sum += c;
            }
            for (i = 0; i < n; i++)
                dst[digit[((uint64_t)(src[i].t_ns - lo) >> shift) & 2047u]++] = src[i];
            trace_event *swap = src;
            src = dst;
            dst = swap;
        }
    }
    if (src != t->events) {   /* the sorted copy is the temporary buffer: adopt it */
        free(t->events);
        t->events = src;
        t->capacity = n;
    } else {
        free(tmp);
    }
    sort_groups_by_key(t->events, n);
}

void trace_free(trace *t)
{
    free(t->events);
    t->events = NULL;
    t->count = t->capacity = 0;
    free(t->desc_text);
    t->desc_text = NULL;
    t->desc_hash = 0;
}

int trace_set_desc(trace *t, const char *text, size_t len, uint64_t hash, err_info *e)
{
    if (len > TRACE_MAX_DESC_BYTES - 8u)
        return err_set(e, ERR_BAD_INPUT, "trace_desc", "description of %zu bytes (allowed %u)", len,
                       TRACE_MAX_DESC_BYTES - 8u);
    char *copy = malloc(len + 1);
    if (!copy)
        return err_set(e, ERR_IO, "out_of_memory", "description of %zu bytes", len);
    memcpy(copy, text, len);
    copy[len] = 0;
    free(t->desc_text);
    t->desc_text = copy;
    t->desc_hash = hash;
    return ERR_OK;
}

/* ---------------------------------------------------------------- byte order */
static int host_is_little_endian(void)
{
    const uint16_t one = 1;
    uint8_t b;
    memcpy(&b, &one, 1);
    return b == 1;
}

static void put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static void put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static uint32_t get_u32(const uint8_t *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}
static uint64_t get_u64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

/* Converts one event between host order and little-endian (an involution). */
static void swap_event(trace_event *ev)
{
    uint8_t b[32];
    memcpy(b, ev, 32);
    const int spans[][2] = {{0, 8}, {8, 4}, {12, 4}, {16, 4}, {20, 2}, {22, 2}};
    for (unsigned s = 0; s < sizeof spans / sizeof spans[0]; s++)
        for (int i = 0; i < spans[s][1] / 2; i++) {
            uint8_t tmp = b[spans[s][0] + i];
            b[spans[s][0] + i] = b[spans[s][0] + spans[s][1] - 1 - i];
            b[spans[s][0] + spans[s][1] - 1 - i] = tmp;
        }
    memcpy(ev, b, 32);
}

/* ---------------------------------------------------------------- write */
static void copy_text(uint8_t *dst, size_t cap, const char *src)
{
    memset(dst, 0, cap);
    size_t n = strnlen(src, cap - 1);
    memcpy(dst, src, n);
}

int trace_write(const char *path, const trace *t, err_info *e)
{
    uint8_t h[TRACE_HEADER_BYTES];
    memset(h, 0, sizeof h);
    /* the description text follows the fixed header, padded to 8 bytes */
    size_t desc_len = t->desc_text ? strlen(t->desc_text) : 0;
    size_t desc_pad = (desc_len + 7u) & ~(size_t)7u;
    if (desc_pad > TRACE_MAX_DESC_BYTES)
        return err_set(e, ERR_BAD_INPUT, "trace_header", "%s: description of %zu bytes (allowed %u)", path, desc_len,
                       TRACE_MAX_DESC_BYTES);
    memcpy(h, TRACE_MAGIC, 8);
    put_u32(h + 8, TRACE_FORMAT_VERSION);
    put_u32(h + 12, TRACE_HEADER_BYTES + (uint32_t)desc_pad);
    put_u32(h + 16, (uint32_t)sizeof(trace_event));
    put_u32(h + 20, t->truncated ? 1u : 0u);
    put_u64(h + 24, (uint64_t)t->count);
    put_u64(h + 32, (uint64_t)t->kernel_ns);
    h[40] = t->source;
    copy_text(h + 48, 64, t->gpu);
    copy_text(h + 112, 64, t->name);
    copy_text(h + 176, 128, t->note);
    if (desc_len) {
        put_u64(h + 304, t->desc_hash);
        put_u32(h + 312, (uint32_t)desc_len);
    }

    if (t->kernel_ns < -TRACE_MAX_NS || t->kernel_ns > TRACE_MAX_NS)
        return err_set(e, ERR_BAD_INPUT, "trace_header", "%s: field 'kernel_ns' = %lld (allowed %lld..%lld)", path,
                       (long long)t->kernel_ns, -(long long)TRACE_MAX_NS, (long long)TRACE_MAX_NS);
    for (size_t i = 0; i < t->count; i++) {
        int rc = trace_validate_event(&t->events[i], i, path, e);
        if (rc)
            return rc;
    }
    afile f;
    int rc = afile_open(&f, path, "trace_write", e);
    if (rc)
        return rc;
    afile_write(&f, h, sizeof h);
    if (desc_len) {
        static const uint8_t zeros[8];
        afile_write(&f, t->desc_text, desc_len);
        afile_write(&f, zeros, desc_pad - desc_len);
    }
    if (host_is_little_endian()) {
        afile_write(&f, t->events, t->count * sizeof(trace_event));
    } else {
        for (size_t i = 0; !f.failed && i < t->count; i++) {
            trace_event ev = t->events[i];
            swap_event(&ev);
            afile_write(&f, &ev, sizeof ev);
        }
    }
    return afile_commit(&f, "trace_write", e);
}

/* ---------------------------------------------------------------- read */
static int text_field(const uint8_t *src, size_t cap, char *dst, const char *path,
                      const char *field, err_info *e)
{
    if (!memchr(src, 0, cap))
        return err_set(e, ERR_BAD_INPUT, "trace_header", "%s: header field '%s' is not NUL-terminated within %zu bytes",
                       path, field, cap);
    memcpy(dst, src, cap);
    return ERR_OK;
}

int trace_validate_event(const trace_event *ev, size_t index, const char *path, err_info *e)
{
    if (ev->t_ns < -TRACE_MAX_NS || ev->t_ns > TRACE_MAX_NS)
        return err_set(e, ERR_BAD_INPUT, "trace_event", "%s: event %zu: field 't_ns' = %lld (allowed %lld..%lld)", path,
                       index, (long long)ev->t_ns, -(long long)TRACE_MAX_NS, (long long)TRACE_MAX_NS);
    if (ev->kind >= TRACE_KIND_COUNT)
        return err_set(e, ERR_BAD_INPUT, "trace_event", "%s: event %zu: field 'kind' = %u (allowed 0..%d)",
                       path, index, ev->kind, TRACE_KIND_COUNT - 1);
    if (ev->role >= TRACE_ROLE_COUNT)
        return err_set(e, ERR_BAD_INPUT, "trace_event", "%s: event %zu: field 'role' = %u (allowed 0..%d)",
                       path, index, ev->role, TRACE_ROLE_COUNT - 1);
    if (ev->source > TRACE_SRC_HW)
        return err_set(e, ERR_BAD_INPUT, "trace_event", "%s: event %zu: field 'source' = %u (allowed 0 sim, 1 hw)",
                       path, index, ev->source);
    if (ev->flags & ~0x1fu)
        return err_set(e, ERR_BAD_INPUT, "trace_event", "%s: event %zu: field 'flags' = 0x%02x (allowed bits 0x1f)",
                       path, index, ev->flags);
    return ERR_OK;
}

/* Reads a trace from the start of a seekable stream; path only names it in messages. */
static int read_stream(FILE *fp, const char *path, trace *t, err_info *e)
{
    int rc = ERR_OK;
    uint8_t h[TRACE_HEADER_BYTES];
    size_t got = fread(h, 1, 24, fp);
    if (got < 8 || memcmp(h, TRACE_MAGIC, 8) != 0) {
        rc = err_set(e, ERR_BAD_INPUT, "trace_header", "%s: field 'magic' is not \"TMATRACE\" (not a tmascope trace)", path);
        goto out;
    }
    if (got < 24) {
        rc = err_set(e, ERR_BAD_INPUT, "trace_header", "%s: header ends after %zu bytes (needs %u)", path, got,
                     TRACE_HEADER_BYTES);
        goto out;
    }
    uint32_t version = get_u32(h + 8), header_bytes = get_u32(h + 12), event_bytes = get_u32(h + 16);
    if (version != TRACE_FORMAT_VERSION) {
        rc = err_set(e, ERR_BAD_INPUT, "trace_header", "%s: field 'version' = %u (this build reads %d)", path, version,
                     TRACE_FORMAT_VERSION);
        goto out;
    }
    if (header_bytes < TRACE_HEADER_BYTES || header_bytes > (1u << 20)) {
        rc = err_set(e, ERR_BAD_INPUT, "trace_header", "%s: field 'header_bytes' = %u (allowed %u..1048576)", path,
                     header_bytes, TRACE_HEADER_BYTES);
        goto out;
    }
    if (event_bytes != sizeof(trace_event)) {
        rc = err_set(e, ERR_BAD_INPUT, "trace_header", "%s: field 'event_bytes' = %u (allowed 32)", path, event_bytes);
        goto out;
    }
    if (fread(h + 24, 1, TRACE_HEADER_BYTES - 24, fp) != TRACE_HEADER_BYTES - 24) {
        rc = err_set(e, ERR_BAD_INPUT, "trace_header", "%s: header is shorter than %u bytes", path, TRACE_HEADER_BYTES);
        goto out;
    }
    /* Later versions may grow the header; skip what this reader does not know. The
     * bytes present after the header decide how many events are intact. */
    long end;
    if (fseek(fp, 0, SEEK_END) != 0 || (end = ftell(fp)) < 0) {
        rc = err_set(e, ERR_IO, "trace_seek", "%s: %s", path, strerror(errno));
        goto out;
    }
    if ((uint64_t)end < header_bytes) {
        rc = err_set(e, ERR_BAD_INPUT, "trace_header", "%s: header is shorter than 'header_bytes' = %u", path,
                     header_bytes);
        goto out;
    }
    /* The description text, when the header carries one, comes first after the fixed
     * header. */
    uint32_t desc_len = get_u32(h + 312), extra = header_bytes - TRACE_HEADER_BYTES;
    if (desc_len > extra) {
        rc = err_set(e, ERR_BAD_INPUT, "trace_header", "%s: field 'desc_bytes' = %u (allowed 0..%u: header_bytes - 320)",
                     path, desc_len, extra);
        goto out;
    }
    if (desc_len) {
        t->desc_text = malloc((size_t)desc_len + 1);
        if (!t->desc_text) {
            rc = err_set(e, ERR_IO, "out_of_memory", "%s: description of %u bytes", path, desc_len);
            goto out;
        }
        if (fseek(fp, (long)TRACE_HEADER_BYTES, SEEK_SET) != 0 || fread(t->desc_text, 1, desc_len, fp) != desc_len) {
            rc = err_set(e, ERR_BAD_INPUT, "trace_header", "%s: header is shorter than 'header_bytes' = %u", path,
                         header_bytes);
            goto out;
        }
        t->desc_text[desc_len] = 0;
        if (memchr(t->desc_text, 0, desc_len)) {
            rc = err_set(e, ERR_BAD_INPUT, "trace_header", "%s: the description text holds a NUL byte", path);
            goto out;
        }
        t->desc_hash = get_u64(h + 304);
    }
    if (fseek(fp, (long)header_bytes, SEEK_SET) != 0) {
        rc = err_set(e, ERR_IO, "trace_seek", "%s: %s", path, strerror(errno));
        goto out;
    }
    uint32_t hflags = get_u32(h + 20);
    uint64_t count = get_u64(h + 24);
    t->kernel_ns = (int64_t)get_u64(h + 32);
    if (t->kernel_ns < -TRACE_MAX_NS || t->kernel_ns > TRACE_MAX_NS) {
        rc = err_set(e, ERR_BAD_INPUT, "trace_header", "%s: field 'kernel_ns' = %lld (allowed %lld..%lld)", path,
                     (long long)t->kernel_ns, -(long long)TRACE_MAX_NS, (long long)TRACE_MAX_NS);
        goto out;
    }
    t->source = h[40];
    if (t->source > TRACE_SRC_HW) {
        rc = err_set(e, ERR_BAD_INPUT, "trace_header", "%s: field 'source' = %u (allowed 0 sim, 1 hw)", path, t->source);
        goto out;
    }
    if ((rc = text_field(h + 48, 64, t->gpu, path, "gpu", e)) || (rc = text_field(h + 112, 64, t->name, path, "name", e)) ||
        (rc = text_field(h + 176, 128, t->note, path, "note", e)))
        goto out;
    t->truncated = (hflags & 1u) != 0;

    uint64_t present = ((uint64_t)end - header_bytes) / sizeof(trace_event);
    int partial_tail = ((uint64_t)end - header_bytes) % sizeof(trace_event) != 0;
    uint64_t want = count;
    if (count == TRACE_COUNT_STREAMED) {
        want = present;
        if (partial_tail)
            t->truncated = 1;
    } else if (present < count) {
        want = present;
        t->truncated = 1;
    } else if (present > count || partial_tail) {
        rc = err_set(e, ERR_BAD_INPUT, "trace_header", "%s: field 'event_count' = %llu but the file holds %llu%s events",
                     path, (unsigned long long)count, (unsigned long long)present, partial_tail ? "+" : "");
        goto out;
    }
    if ((rc = trace_reserve(t, want ? (size_t)want : 1, e)))
        goto out;
    if (fread(t->events, sizeof(trace_event), (size_t)want, fp) != want) {
        rc = err_set(e, ERR_IO, "trace_read", "%s: read failed", path);
        goto out;
    }
    t->count = (size_t)want;
    int little = host_is_little_endian();
    for (size_t i = 0; i < t->count; i++) {
        if (!little)
            swap_event(&t->events[i]);
        if ((rc = trace_validate_event(&t->events[i], i, path, e)))
            goto out;
    }
out:
    if (rc)
        trace_free(t);
    return rc;
}

int trace_read(const char *path, trace *t, err_info *e)
{
    trace_init(t, TRACE_SRC_SIM);
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return err_set(e, ERR_BAD_INPUT, "trace_open", "%s: %s", path, strerror(errno));
    int rc = read_stream(fp, path, t, e);
    fclose(fp);
    return rc;
}

int trace_read_mem(const void *data, size_t size, const char *name, trace *t, err_info *e)
{
    trace_init(t, TRACE_SRC_SIM);
    /* opened for reading only: the buffer is never written through the stream */
    FILE *fp = fmemopen((void *)(uintptr_t)data, size, "rb");
    if (!fp)
        return err_set(e, ERR_IO, "trace_open", "%s: %s", name, strerror(errno));
    int rc = read_stream(fp, name, t, e);
    fclose(fp);
    return rc;
}
