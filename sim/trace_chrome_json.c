#include "trace_chrome_json.h"
#include "rfile.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* ns -> "us.nnn" without floating point, so export and import are exact. */
static void put_us(FILE *fp, int64_t ns)
{
    if (ns < 0) {
        fputc('-', fp);
        ns = -ns;
    }
    fprintf(fp, "%" PRId64 ".%03" PRId64, ns / 1000, ns % 1000);
}

static void put_json_string(FILE *fp, const char *s)
{
    json_t *j = json_string(s);
    char *text = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
    fputs(text ? text : "\"\"", fp);
    free(text);
    json_decref(j);
}

static int is_span(uint8_t kind)
{
    return kind == TRACE_TMA_FLIGHT || kind == TRACE_WAIT || kind == TRACE_SMEM_READ || kind == TRACE_MATH ||
           kind == TRACE_TMA_STORE || kind == TRACE_WGMMA || kind == TRACE_WGMMA_WAIT;
}

typedef struct wait_ref {
    uint64_t key;     /* cta, iteration, stage */
    size_t index;
} wait_ref;

static uint64_t flow_key(const trace_event *ev)
{
    return ((uint64_t)ev->cta << 48) | ((uint64_t)ev->iteration << 8) | ev->stage;
}

static int cmp_ref(const void *a, const void *b)
{
    const wait_ref *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* A set of 25-bit keys: (cta, warp) pairs and CTAs already named by the export. Open
 * addressing, grown by doubling at half load, so that its size follows the pairs the
 * trace holds (a few thousand) rather than the 2^24 possible ones. */
typedef struct key_set {
    uint32_t *slot;   /* key + 1; 0 is empty */
    size_t cap, used;
} key_set;

static size_t key_slot(const key_set *s, uint32_t key)
{
    size_t i = (size_t)(key * 2654435761u) & (s->cap - 1);
    while (s->slot[i] && s->slot[i] != key + 1)
        i = (i + 1) & (s->cap - 1);
    return i;
}

/* Adds key; *fresh tells whether it was new. ERR_IO when memory runs out. */
static int key_set_add(key_set *s, uint32_t key, int *fresh, err_info *e)
{
    if (2 * (s->used + 1) > s->cap) {
        key_set g = {calloc(s->cap ? 2 * s->cap : 1024, sizeof *g.slot), s->cap ? 2 * s->cap : 1024, s->used};
        if (!g.slot)
            return err_set(e, ERR_IO, "out_of_memory", "chrome export name table");
        for (size_t i = 0; i < s->cap; i++)
            if (s->slot[i])
                g.slot[key_slot(&g, s->slot[i] - 1)] = s->slot[i];
        free(s->slot);
        *s = g;
    }
    size_t i = key_slot(s, key);
    *fresh = !s->slot[i];
    if (*fresh) {
        s->slot[i] = key + 1;
        s->used++;
    }
    return ERR_OK;
}

/* Process per CTA, thread per warp, numbered from 1: generic loaders drop pid or tid 0
 * (the import reads cta and warp from args, not from these). */
#define CHROME_PID(ev) ((unsigned)(ev)->cta + 1u)
#define CHROME_TID(ev) ((unsigned)(ev)->warp + 1u)

int trace_chrome_write(FILE *fp, const trace *t, err_info *e)
{
    int64_t t0 = t->count ? t->events[0].t_ns : 0;
    for (size_t i = 0; i < t->count; i++)
        if (t->events[i].t_ns < t0)
            t0 = t->events[i].t_ns;
    fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"tmascope_version\":1,\"source\":", fp);
    fprintf(fp, "%u,\"gpu\":", t->source);
    put_json_string(fp, t->gpu);
    fputs(",\"name\":", fp);
    put_json_string(fp, t->name);
    fputs(",\"note\":", fp);
    put_json_string(fp, t->note);
    if (t->desc_text) {   /* the description the run came from, so that an import gives it back */
        fputs(",\"desc\":", fp);
        put_json_string(fp, t->desc_text);
        fprintf(fp, ",\"desc_hash\":\"%016" PRIx64 "\"", t->desc_hash);
    }
    fprintf(fp, ",\"kernel_ns\":%" PRId64 ",\"t0_ns\":%" PRId64 ",\"truncated\":%d},\n\"traceEvents\":[\n", t->kernel_ns,
            t0, t->truncated ? 1 : 0);

    /* names: one process per CTA, one thread per warp seen */
    key_set seen = {0};
    int first = 1, rc = ERR_OK;
    for (size_t i = 0; i < t->count && !ferror(fp); i++) {
        const trace_event *ev = &t->events[i];
        int fresh_warp = 0, fresh_cta = 0;
        if ((rc = key_set_add(&seen, (uint32_t)ev->cta << 8 | ev->warp, &fresh_warp, e)))
            break;
        if (!fresh_warp)
            continue;
        if ((rc = key_set_add(&seen, 1u << 24 | ev->cta, &fresh_cta, e)))   /* one process_name per CTA */
            break;
        if (fresh_cta) {
            fprintf(fp, "%s{\"ph\":\"M\",\"cat\":\"__metadata\",\"name\":\"process_name\",\"pid\":%u,\"tid\":%u,"
                        "\"args\":{\"name\":\"SM %u / CTA %u\"}},\n",
                    first ? "" : ",\n", CHROME_PID(ev), CHROME_TID(ev), ev->sm, ev->cta);
        } else if (!first) {
            fputs(",\n", fp);
        }
        first = 0;
        if (ev->warp == 255)
            fprintf(fp, "{\"ph\":\"M\",\"cat\":\"__metadata\",\"name\":\"thread_name\",\"pid\":%u,\"tid\":%u,"
                        "\"args\":{\"name\":\"TMA unit / barriers\"}}",
                    CHROME_PID(ev), CHROME_TID(ev));
        else
            fprintf(fp, "{\"ph\":\"M\",\"cat\":\"__metadata\",\"name\":\"thread_name\",\"pid\":%u,\"tid\":%u,"
                        "\"args\":{\"name\":\"warp %u (%s)\"}}",
                    CHROME_PID(ev), CHROME_TID(ev), ev->warp, trace_role_name((trace_role)ev->role));
    }
    free(seen.slot);
    if (rc)
        return rc;

    /* waits on full barriers, by (cta, iteration, stage), for the flows */
    size_t nwaits = 0;
    for (size_t i = 0; i < t->count; i++)
        if (t->events[i].kind == TRACE_WAIT && (t->events[i].flags & TRACE_FLAG_FULL_BARRIER))
            nwaits++;
    wait_ref *refs = malloc((nwaits ? nwaits : 1) * sizeof *refs);
    if (!refs)
        return err_set(e, ERR_IO, "out_of_memory", "chrome export flow table");
    nwaits = 0;
    for (size_t i = 0; i < t->count; i++)
        if (t->events[i].kind == TRACE_WAIT && (t->events[i].flags & TRACE_FLAG_FULL_BARRIER))
            refs[nwaits++] = (wait_ref){flow_key(&t->events[i]), i};
    qsort(refs, nwaits, sizeof *refs, cmp_ref);

    uint64_t flow_id = 0;
    for (size_t i = 0; i < t->count && !ferror(fp); i++) {   /* stops at the first failed write */
        const trace_event *ev = &t->events[i];
        int span = is_span(ev->kind);
        fprintf(fp, "%s{\"ph\":\"%s\",\"name\":\"%s\",\"cat\":\"%s\",\"pid\":%u,\"tid\":%u,\"ts\":", first ? "" : ",\n",
                span ? "X" : "i", trace_kind_name((trace_kind)ev->kind), trace_role_name((trace_role)ev->role), CHROME_PID(ev),
                CHROME_TID(ev));
        first = 0;
        put_us(fp, ev->t_ns - t0);
        if (span) {
            fputs(",\"dur\":", fp);
            put_us(fp, ev->dur_ns);
        } else {
            fputs(",\"s\":\"t\"", fp);
        }
        fprintf(fp,
                ",\"args\":{\"t_ns\":%" PRId64 ",\"dur_ns\":%u,\"iteration\":%u,\"bytes\":%u,\"cta\":%u,\"phase\":%u,"
                "\"sm\":%u,\"warp\":%u,\"role\":%u,\"stage\":%u,\"kind\":%u,\"barrier\":%u,\"source\":%u,\"flags\":%u}}",
                ev->t_ns, ev->dur_ns, ev->iteration, ev->bytes, ev->cta, ev->phase, ev->sm, ev->warp, ev->role, ev->stage,
                ev->kind, ev->barrier, ev->source, ev->flags);
        if (ev->kind == TRACE_TMA_ISSUE || ev->kind == TRACE_CPASYNC_ISSUE) {
            wait_ref probe = {flow_key(ev), 0};
            size_t lo = 0, hi = nwaits;
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (refs[mid].key < probe.key)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            for (; lo < nwaits && refs[lo].key == probe.key; lo++) {
                const trace_event *w = &t->events[refs[lo].index];
                flow_id++;
                fprintf(fp, ",\n{\"ph\":\"s\",\"name\":\"copy\",\"cat\":\"flow\",\"id\":%" PRIu64 ",\"pid\":%u,\"tid\":%u,\"ts\":",
                        flow_id, CHROME_PID(ev), CHROME_TID(ev));
                put_us(fp, ev->t_ns - t0);
                fprintf(fp, "},\n{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"copy\",\"cat\":\"flow\",\"id\":%" PRIu64
                            ",\"pid\":%u,\"tid\":%u,\"ts\":",
                        flow_id, CHROME_PID(w), CHROME_TID(w));
                put_us(fp, w->t_ns + w->dur_ns - t0);
                fputs("}", fp);
            }
        }
    }
    free(refs);
    fputs("\n]}\n", fp);
    if (ferror(fp))
        return err_set(e, ERR_IO, "chrome_write", "write failed");
    return ERR_OK;
}

/* The line on which element `index` of the trace's event array starts (the top-level array,
 * or the array under the top-level key "traceEvents"); 0 when not found. jansson keeps no
 * positions for parsed values, so an error about one event re-scans the text for it. */
static unsigned long element_line(const char *text, size_t len, size_t index)
{
    unsigned long line = 1, found = 0;
    int depth = 0, in_str = 0, esc = 0, target = -1, expect = 0, seen_any = 0, key_is_events = 0;
    char str[12];
    size_t slen = 0, count = 0;
    for (size_t at = 0; !found && at < len; at++) {
        int c = (unsigned char)text[at];
        if (in_str) {
            if (c == '\n')
                line++;
            if (esc)
                esc = 0;
            else if (c == '\\')
                esc = 1;
            else if (c == '"') {
                in_str = 0;
                if (depth == 1)
                    key_is_events = slen == 11 && !memcmp(str, "traceEvents", 11);
            } else if (slen < sizeof str)
                str[slen++] = (char)c;
            continue;
        }
        if (c == '\n') {
            line++;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r')
            continue;
        if (expect && c != ']') {
            if (count++ == index)
                found = line;
            expect = 0;
        }
        switch (c) {
        case '"':
            in_str = 1;
            slen = 0;
            break;
        case '[':
        case '{':
            depth++;
            if (c == '[' && ((depth == 1 && !seen_any) || (depth == 2 && key_is_events)) && target < 0) {
                target = depth;
                expect = 1;
            }
            break;
        case ']':
        case '}':
            depth--;
            expect = 0;
            break;
        case ',':
            if (depth == target)
                expect = 1;
            break;
        default:
            break;
        }
        seen_any = 1;
    }
    return found;
}

/* "PATH: traceEvents[i]: ..." -> "PATH:LINE: traceEvents[i]: ..." */
static void add_event_line(const char *text, size_t len, const char *path, size_t index, err_info *e)
{
    unsigned long line = element_line(text, len, index);
    size_t plen = strlen(path);
    if (!e || !line || strncmp(e->detail, path, plen) != 0 || e->detail[plen] != ':')
        return;
    char num[24];
    snprintf(num, sizeof num, ":%lu", line);
    err_insert(e, plen, num);
}

static int get_int(json_t *args, const char *field, int64_t lo, int64_t hi, int64_t *out, const char *path, size_t index,
                   err_info *e)
{
    json_t *v = json_object_get(args, field);
    if (!json_is_integer(v))
        return err_set(e, ERR_BAD_INPUT, "chrome_event", "%s: traceEvents[%zu]: field 'args.%s' missing or not an integer",
                       path, index, field);
    json_int_t x = json_integer_value(v);
    if (x < lo || x > hi)
        return err_set(e, ERR_BAD_INPUT, "chrome_event", "%s: traceEvents[%zu]: field 'args.%s' = %lld (allowed %lld..%lld)",
                       path, index, field, (long long)x, (long long)lo, (long long)hi);
    *out = x;
    return ERR_OK;
}

int trace_chrome_read(const char *path, trace *t, err_info *e)
{
    trace_init(t, TRACE_SRC_SIM);
    size_t len = 0;
    int err = 0;
    char *text = rfile_load(path, TRACE_CHROME_MAX_FILE_BYTES, &len, &err);
    if (!text)
        return err_set(e, err == ENOMEM ? ERR_IO : ERR_BAD_INPUT, "chrome_json", "%s: %s%s", path, strerror(err),
                       err == EFBIG ? " (an imported trace holds at most 1 GiB of JSON)" : "");
    int rc = trace_chrome_read_mem(text, len, path, t, e);
    free(text);
    return rc;
}

int trace_chrome_read_mem(const char *text, size_t len, const char *path, trace *t, err_info *e)
{
    trace_init(t, TRACE_SRC_SIM);
    if (len > TRACE_CHROME_MAX_FILE_BYTES)
        return err_set(e, ERR_BAD_INPUT, "chrome_json", "%s: %s (an imported trace holds at most 1 GiB of JSON)", path,
                       strerror(EFBIG));
    json_error_t je;
    json_t *root = json_loadb(text, len, 0, &je);
    if (!root)
        return err_set(e, ERR_BAD_INPUT, "chrome_json", "%s:%d: %s", path, je.line, je.text);
    int rc = ERR_OK;
    size_t bad = SIZE_MAX;   /* the event an error is about */
    json_t *events = json_is_array(root) ? root : json_object_get(root, "traceEvents");
    if (!json_is_array(events)) {
        rc = err_set(e, ERR_BAD_INPUT, "chrome_json", "%s: field 'traceEvents' missing or not an array", path);
        goto out;
    }
    json_t *other = json_object_get(root, "otherData");
    if (json_is_object(other)) {
        json_t *v;
        if (json_is_string(v = json_object_get(other, "gpu")))
            snprintf(t->gpu, sizeof t->gpu, "%s", json_string_value(v));
        if (json_is_string(v = json_object_get(other, "name")))
            snprintf(t->name, sizeof t->name, "%s", json_string_value(v));
        if (json_is_string(v = json_object_get(other, "note")))
            snprintf(t->note, sizeof t->note, "%s", json_string_value(v));
        if (json_is_string(v = json_object_get(other, "desc"))) {
            json_t *h = json_object_get(other, "desc_hash");
            uint64_t hash = json_is_string(h) ? strtoull(json_string_value(h), NULL, 16) : 0;
            if ((rc = trace_set_desc(t, json_string_value(v), json_string_length(v), hash, e)))
                goto out;
        }
        if (json_is_integer(v = json_object_get(other, "kernel_ns"))) {
            json_int_t k = json_integer_value(v);
            if (k < -TRACE_MAX_NS || k > TRACE_MAX_NS) {
                rc = err_set(e, ERR_BAD_INPUT, "chrome_json", "%s: field 'otherData.kernel_ns' = %lld (allowed %lld..%lld)",
                             path, (long long)k, -(long long)TRACE_MAX_NS, (long long)TRACE_MAX_NS);
                goto out;
            }
            t->kernel_ns = k;
        }
        if (json_is_integer(v = json_object_get(other, "source")) && json_integer_value(v) == 1)
            t->source = TRACE_SRC_HW;
        if (json_is_integer(v = json_object_get(other, "truncated")))
            t->truncated = json_integer_value(v) != 0;
    }
    size_t i;
    json_t *ev;
    json_array_foreach(events, i, ev)
    {
        const char *ph = json_string_value(json_object_get(ev, "ph"));
        bad = i;
        if (!ph) {
            rc = err_set(e, ERR_BAD_INPUT, "chrome_event", "%s: traceEvents[%zu]: field 'ph' missing", path, i);
            goto out;
        }
        if (strcmp(ph, "X") && strcmp(ph, "i") && strcmp(ph, "I"))
            continue;   /* metadata, flows, counters: derived, not stored */
        json_t *args = json_object_get(ev, "args");
        if (!json_is_object(args)) {
            rc = err_set(e, ERR_BAD_INPUT, "chrome_event", "%s: traceEvents[%zu]: field 'args' missing (not a tmascope export)",
                         path, i);
            goto out;
        }
        int64_t v[14];
        static const struct {
            const char *name;
            int64_t lo, hi;
        } f[14] = {{"t_ns", -TRACE_MAX_NS, TRACE_MAX_NS}, {"dur_ns", 0, UINT32_MAX}, {"iteration", 0, UINT32_MAX},
                   {"bytes", 0, UINT32_MAX}, {"cta", 0, 65535}, {"phase", 0, 65535}, {"sm", 0, 255}, {"warp", 0, 255},
                   {"role", 0, TRACE_ROLE_COUNT - 1}, {"stage", 0, 255}, {"kind", 0, TRACE_KIND_COUNT - 1},
                   {"barrier", 0, 255}, {"source", 0, 1}, {"flags", 0, 31}};
        for (int k = 0; k < 14; k++)
            if ((rc = get_int(args, f[k].name, f[k].lo, f[k].hi, &v[k], path, i, e)))
                goto out;
        trace_event te = {.t_ns = v[0], .dur_ns = (uint32_t)v[1], .iteration = (uint32_t)v[2], .bytes = (uint32_t)v[3],
                          .cta = (uint16_t)v[4], .phase = (uint16_t)v[5], .sm = (uint8_t)v[6], .warp = (uint8_t)v[7],
                          .role = (uint8_t)v[8], .stage = (uint8_t)v[9], .kind = (uint8_t)v[10], .barrier = (uint8_t)v[11],
                          .source = (uint8_t)v[12], .flags = (uint8_t)v[13]};
        if ((rc = trace_push(t, &te, e)))
            goto out;
    }
    trace_sort(t);
out:
    json_decref(root);
    if (rc) {
        if (rc == ERR_BAD_INPUT && bad != SIZE_MAX)
            add_event_line(text, len, path, bad, e);
        trace_free(t);
    }
    return rc;
}
