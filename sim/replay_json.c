/* replay_json: reads a recording directory and replays every case (sim/replay.c
 * compares; this file only turns JSON lines into observations). */
#include "replay_json.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rfile.h"

/* One record (a line of a .jsonl file) being read: the first field out of range makes
 * the record, and the replay, ERR_BAD_INPUT naming the file, the line and the field. */
typedef struct rec {
    const char *path;
    unsigned line;
    err_info *e;
    int bad;
} rec;

static void rec_fail(rec *c, const char *key, const char *what, long long lo, long long hi)
{
    if (c->bad++)
        return;
    err_set(c->e, ERR_BAD_INPUT, "recording", "%s:%u: field '%s' %s (allowed whole numbers %lld..%lld)", c->path, c->line,
            key, what, lo, hi);
}

/* A whole number within [lo, hi] (an integer, or a real with no fraction: the recorder
 * writes addresses through doubles); dflt when absent. */
static int64_t jval(rec *c, const json_t *v, const char *key, int64_t lo, int64_t hi, int64_t dflt)
{
    if (!v || json_is_null(v))
        return dflt;
    if (json_is_integer(v)) {
        json_int_t x = json_integer_value(v);
        if (x >= lo && x <= hi)
            return x;
        char what[64];
        snprintf(what, sizeof what, "= %lld", (long long)x);
        rec_fail(c, key, what, lo, hi);
        return dflt;
    }
    if (json_is_real(v)) {
        double x = json_real_value(v);
        if (x >= (double)lo && x <= (double)hi && x == floor(x))
            return (int64_t)x;
        char what[64];
        snprintf(what, sizeof what, "= %.17g", x);
        rec_fail(c, key, what, lo, hi);
        return dflt;
    }
    rec_fail(c, key, "is not a number", lo, hi);
    return dflt;
}

static int64_t jint(rec *c, const json_t *o, const char *key, int64_t lo, int64_t hi, int64_t dflt)
{
    return jval(c, json_object_get(o, key), key, lo, hi, dflt);
}

static int jbool(const json_t *o, const char *key)
{
    return json_is_true(json_object_get(o, key));
}

static void jstr(const json_t *o, const char *key, char *out, size_t size)
{
    const json_t *v = json_object_get(o, key);
    snprintf(out, size, "%s", json_is_string(v) ? json_string_value(v) : "?");
}

/* The bounds of a record's numbers: the hardware's own (a 5-D map of 2^32-element
 * dimensions, 2^40-byte strides, 256-element boxes, 32-bit shared addresses) with room
 * for the recorder's crafted invalid cases around them. */
#define REPLAY_MAX_DIM (1ll << 40)
#define REPLAY_MAX_ADDRESS (1ll << 57)

/* The tensor-map parameters as the recorder wrote them (raw enum numbers). */
static void read_desc(rec *c, const json_t *o, tm_desc *d, int32_t *coords)
{
    memset(d, 0, sizeof *d);
    d->dtype = (tm_dtype)jint(c, o, "dtype_id", 0, 255, 0);
    d->rank = (uint32_t)jint(c, o, "rank", 0, 255, 0);
    d->interleave = (tm_interleave)jint(c, o, "interleave_id", 0, 255, 0);
    d->swizzle = (tm_swizzle)jint(c, o, "swizzle_id", 0, 255, 0);
    d->l2_promotion = (tm_l2_promotion)jint(c, o, "l2_promotion_id", 0, 255, 0);
    d->oob_fill = (tm_oob_fill)jint(c, o, "oob_fill_id", 0, 255, 0);
    d->global_address = (uint64_t)jint(c, o, "global_address", 0, REPLAY_MAX_ADDRESS, 0);
    d->sm_version = (uint32_t)jint(c, o, "sm_version", 0, 1000, 90);
    const json_t *a;
    size_t i;
    json_t *v;
    if ((a = json_object_get(o, "dims")))
        json_array_foreach(a, i, v) if (i < TM_MAX_RANK) d->dims[i] = (uint64_t)jval(c, v, "dims", 0, REPLAY_MAX_DIM, 0);
    if ((a = json_object_get(o, "strides")))
        json_array_foreach(a, i, v) if (i < TM_MAX_RANK - 1) d->strides[i] =
            (uint64_t)jval(c, v, "strides", 0, REPLAY_MAX_DIM, 0);
    if ((a = json_object_get(o, "box")))
        json_array_foreach(a, i, v) if (i < TM_MAX_RANK) d->box[i] = (uint32_t)jval(c, v, "box", 0, 65535, 0);
    if ((a = json_object_get(o, "elem_strides")))
        json_array_foreach(a, i, v) if (i < TM_MAX_RANK) d->elem_strides[i] =
            (uint32_t)jval(c, v, "elem_strides", 0, 65535, 0);
    if (coords && (a = json_object_get(o, "coords")))
        json_array_foreach(a, i, v) if (i < TM_MAX_RANK) coords[i] = (int32_t)jval(c, v, "coords", INT32_MIN, INT32_MAX, 0);
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static uint8_t *read_hex(const json_t *o, const char *key, size_t *len)
{
    const json_t *v = json_object_get(o, key);
    *len = 0;
    if (!json_is_string(v))
        return NULL;
    const char *s = json_string_value(v);
    size_t n = strlen(s) / 2;
    uint8_t *b = malloc(n ? n : 1);
    if (!b)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            free(b);
            return NULL;
        }
        b[i] = (uint8_t)(hi * 16 + lo);
    }
    *len = n;
    return b;
}

static replay_range *read_ranges(rec *c, const json_t *o, const char *key, size_t *n)
{
    const json_t *a = json_object_get(o, key);
    *n = 0;
    if (!json_is_array(a))
        return NULL;
    size_t cnt = json_array_size(a);
    replay_range *r = malloc((cnt ? cnt : 1) * sizeof *r);
    if (!r)
        return NULL;
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v)
    {
        r[i].begin = jval(c, json_array_get(v, 0), key, -REPLAY_MAX_DIM, REPLAY_MAX_DIM, 0);
        r[i].end = jval(c, json_array_get(v, 1), key, r[i].begin, REPLAY_MAX_DIM, r[i].begin);
    }
    *n = cnt;
    return r;
}

static void note(replay_report *r, replay_kind k, uint32_t id, const char *params, const char *detail)
{
    if (r->ndetails >= REPLAY_MAX_DETAILS)
        return;
    replay_disagreement *d = &r->details[r->ndetails++];
    d->kind = k;
    d->id = id;
    snprintf(d->params, sizeof d->params, "%s", params);
    snprintf(d->detail, sizeof d->detail, "%s", detail);
}

static void count(replay_report *r, replay_kind k, int verdict, uint32_t id, const char *params, const char *detail)
{
    replay_counts *c = &r->counts[k];
    c->cases++;
    if (verdict == REPLAY_AGREE) {
        c->agree++;
    } else if (verdict == REPLAY_DISAGREE) {
        c->disagree++;
        note(r, k, id, params, detail);
    } else {
        c->unusable++;
    }
}

static int one_encode(rec *c, replay_report *r, const json_t *o)
{
    tm_desc d;
    char detail[400] = "", params[440], rule[64];
    read_desc(c, o, &d, NULL);
    const json_t *enc = json_object_get(o, "encode");
    int cu = (int)jint(c, enc, "cu_result", INT32_MIN, INT32_MAX, -1);
    uint32_t id = (uint32_t)jint(c, o, "id", -1, UINT32_MAX, -1);
    if (c->bad)
        return ERR_BAD_INPUT;
    int v = replay_check_encode(&d, jbool(enc, "accepted"), cu, detail, sizeof detail);
    char p[360];
    replay_describe_desc(&d, NULL, 0, p, sizeof p);
    jstr(o, "rule", rule, sizeof rule);
    snprintf(params, sizeof params, "[%s] %s", rule, p);
    count(r, REPLAY_ENCODE, v, id, params, detail);
    return 0;
}

static int one_layout(rec *c, replay_report *r, const json_t *o)
{
    replay_layout_obs obs;
    char detail[400] = "", params[400], kind[16];
    uint8_t *bytes = NULL;
    replay_range *rng = NULL;
    memset(&obs, 0, sizeof obs);
    read_desc(c, o, &obs.desc, obs.coords);
    jstr(o, "kind", kind, sizeof kind);
    obs.store = !strcmp(kind, "store");
    const json_t *enc = json_object_get(o, "encode");
    obs.encode_accepted = jbool(enc, "accepted");
    obs.cu_result = (int)jint(c, enc, "cu_result", INT32_MIN, INT32_MAX, -1);
    obs.fault = json_object_get(o, "fault") != NULL;
    obs.expect_tx = (uint32_t)jint(c, o, "expect_tx", 0, UINT32_MAX, 0);
    obs.completed = jbool(o, "completed");
    obs.smem_base = (uint32_t)jint(c, o, "smem_base", 0, UINT32_MAX, 0);
    const json_t *probes = json_object_get(o, "tx_probe");
    for (size_t pi = 0; json_is_array(probes) && pi < json_array_size(probes) && pi < 2; pi++) {
        const json_t *pr = json_array_get(probes, pi);
        obs.probe_tx[pi] = (uint32_t)jint(c, pr, "tx_probe.expect_tx", 0, UINT32_MAX, 0);
        obs.probe_completed[pi] = jbool(pr, "completed");
        obs.nprobe = (int)pi + 1;
    }
    obs.smem_size = (uint32_t)jint(c, o, "smem_size", 0, REPLAY_MAX_SMEM_BYTES, 0);
    /* a faulted copy has no observed address: the destination offset inside the
     * runner's 1024-aligned buffer has the same alignment */
    obs.smem_address =
        (uint32_t)jint(c, o, "smem_address", 0, UINT32_MAX, 1024 + jint(c, o, "smem_offset", 0, UINT32_MAX - 1024, 0));
    replay_kind k = obs.store ? REPLAY_STORE : REPLAY_LOAD;
    uint32_t id = (uint32_t)jint(c, o, "id", -1, UINT32_MAX, -1);
    int v;
    if (c->bad) {
        return ERR_BAD_INPUT;
    } else if (json_object_get(o, "runner_error")) {
        v = REPLAY_UNUSABLE;
    } else {
        size_t n;
        if (obs.store) {
            bytes = read_hex(o, "global_hex", &n);
            obs.window_start = jint(c, o, "global_window_start", -REPLAY_MAX_DIM, REPLAY_MAX_DIM, 0);
            rng = read_ranges(c, o, "global_written", &obs.nwritten);
        } else {
            bytes = read_hex(o, "hex", &n);
            obs.window_start = jint(c, o, "window_start", -REPLAY_MAX_DIM, REPLAY_MAX_DIM, 0);
            rng = read_ranges(c, o, "written", &obs.nwritten);
        }
        obs.window = bytes;
        obs.window_len = n;
        obs.written = rng;
        if (c->bad) {
            free(bytes);
            free(rng);
            return ERR_BAD_INPUT;
        }
        v = replay_check_layout(&obs, detail, sizeof detail);
    }
    replay_describe_desc(&obs.desc, obs.coords, obs.smem_address, params, sizeof params);
    char p2[420];
    snprintf(p2, sizeof p2, "%s%s", obs.store ? "--store " : "", params);
    count(r, k, v, id, p2, detail);
    free(bytes);
    free(rng);
    return 0;
}

typedef struct bank_ctx {
    const json_t *baseline;   /* meta.json bank.baseline */
} bank_ctx;

static double counter(const json_t *counters, const bank_ctx *bc, const char *name)
{
    const json_t *v = json_object_get(counters, name);
    if (!json_is_number(v))
        return -1;
    double base = bc->baseline ? json_number_value(json_object_get(bc->baseline, name)) : 0;
    return json_number_value(v) - base;
}

static int one_bank(rec *c, replay_report *r, const json_t *o, const bank_ctx *bc)
{
    bank_instr in;
    char detail[400] = "", params[400], op[32];
    err_info e;
    memset(&in, 0, sizeof in);
    jstr(o, "op", op, sizeof op);
    uint32_t id = (uint32_t)jint(c, o, "id", -1, UINT32_MAX, -1);
    err_clear(&e);
    if (bank_op_parse(op, &in.op, &in.trans, &e) != ERR_OK) {
        count(r, REPLAY_BANK, REPLAY_UNUSABLE, id, op, e.detail);
        return 0;
    }
    const json_t *a = json_object_get(o, "addr");
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v) if (i < BANK_LANES) in.addr[i] = (uint32_t)jval(c, v, "addr", 0, UINT32_MAX, 0);
    if (c->bad)
        return ERR_BAD_INPUT;
    const json_t *cn = json_object_get(o, "counters");
    replay_bank_obs ob;
    ob.wavefronts = counter(cn, bc, replay_bank_wavefront_metric(in.op));
    ob.conflicts = counter(cn, bc, replay_bank_conflict_metric(in.op));
    ob.instructions = -1;
    for (const char *const *n = replay_bank_inst_metrics(in.op); *n; n++)
        if (json_object_get(cn, *n)) {
            ob.instructions = counter(cn, bc, *n);
            break;
        }
    int verdict = REPLAY_UNUSABLE;
    if (ob.wavefronts >= 0 && ob.conflicts >= 0)
        verdict = replay_check_bank(&in, &ob, detail, sizeof detail);
    replay_describe_bank(&in, params, sizeof params);
    count(r, REPLAY_BANK, verdict, id, params, detail);
    return 0;
}

typedef enum { FILE_ENCODE, FILE_LAYOUT, FILE_BANK } file_kind;

static int replay_file(const char *dir, const char *name, file_kind fk, replay_report *r, const bank_ctx *bc,
                       err_info *e)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f)
        return err_set(e, ERR_IO, "recording", "%s: cannot open", path);
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && (S_ISDIR(st.st_mode) || (uint64_t)st.st_size > REPLAY_MAX_FILE_BYTES)) {
        fclose(f);
        return err_set(e, ERR_BAD_INPUT, "recording", "%s: %s", path,
                       S_ISDIR(st.st_mode) ? "is a directory" : "longer than 256 MiB (the limit of a recording file)");
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    unsigned lineno = 0;
    int rc = ERR_OK;
    while ((len = getline(&line, &cap, f)) > 0) {
        lineno++;
        if (len <= 1)
            continue;
        json_error_t je;
        json_t *o = json_loads(line, 0, &je);
        if (!json_is_object(o)) {
            rc = err_set(e, ERR_BAD_INPUT, "recording", "%s:%u: not a JSON object: %s", path, lineno, je.text);
            json_decref(o);
            break;
        }
        rec c = {path, lineno, e, 0};
        if (fk == FILE_ENCODE)
            rc = one_encode(&c, r, o);
        else if (fk == FILE_LAYOUT)
            rc = one_layout(&c, r, o);
        else
            rc = one_bank(&c, r, o, bc);
        json_decref(o);
        if (rc)
            break;
    }
    free(line);
    fclose(f);
    return rc;
}

int replay_dir(const char *dir, replay_report *r, err_info *e)
{
    char path[4096];
    memset(r, 0, sizeof *r);
    snprintf(path, sizeof path, "%s/meta.json", dir);
    size_t mlen = 0;
    int merr = 0;
    char *mtext = rfile_load(path, REPLAY_MAX_FILE_BYTES, &mlen, &merr);
    if (!mtext)
        return err_set(e, ERR_IO, "recording", "%s: %s", path, strerror(merr));
    json_error_t je;
    json_t *meta = json_loadb(mtext, mlen, 0, &je);
    free(mtext);
    if (!json_is_object(meta)) {
        json_decref(meta);
        return err_set(e, ERR_IO, "recording", "%s: %s", path, je.text);
    }
    jstr(meta, "gpu", r->gpu, sizeof r->gpu);
    jstr(meta, "driver", r->driver, sizeof r->driver);
    jstr(meta, "date", r->date, sizeof r->date);
    rec c = {path, 0, e, 0};
    snprintf(r->cuda, sizeof r->cuda, "%lld", (long long)jint(&c, meta, "cuda_runtime", 0, INT32_MAX, 0));
    if (c.bad) {
        json_decref(meta);
        return ERR_BAD_INPUT;
    }
    bank_ctx bc = {json_object_get(json_object_get(meta, "bank"), "baseline")};
    int rc = replay_file(dir, "encode.jsonl", FILE_ENCODE, r, &bc, e);
    if (rc == ERR_OK)
        rc = replay_file(dir, "layout.jsonl", FILE_LAYOUT, r, &bc, e);
    if (rc == ERR_OK)
        rc = replay_file(dir, "bank.jsonl", FILE_BANK, r, &bc, e);
    json_decref(meta);
    return rc;
}
