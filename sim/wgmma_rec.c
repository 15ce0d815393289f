/* wgmma_rec: parsing and replaying the recorded wgmma corpus (see wgmma_rec.h). */
#include "wgmma_rec.h"

#include <stdlib.h>
#include <string.h>

int wg_runs_parse(const char *s, uint32_t *out, uint32_t n, err_info *e)
{
    uint32_t i = 0;
    while (*s) {
        while (*s == ' ')
            s++;
        if (!*s)
            break;
        char *end;
        uint32_t count = 1;
        long long step = 0;
        uint32_t a = WG_NOWHERE;
        if (*s == 'x') {
            end = (char *)s + 1;
        } else {
            a = (uint32_t)strtoul(s, &end, 16);
            if (end == s)
                return err_set(e, ERR_BAD_INPUT, "addresses", "'%.20s' is not a hex address run", s);
            if (*end == '+' || *end == '-')
                step = strtoll(end, &end, 10);
        }
        if (*end == '*')
            count = (uint32_t)strtoul(end + 1, &end, 10);
        if (*end && *end != ' ')
            return err_set(e, ERR_BAD_INPUT, "addresses", "'%.20s' is not a run (addr[+step*count] or x*count)", s);
        if (count > n - i)
            return err_set(e, ERR_BAD_INPUT, "addresses", "more than the %u elements of the operand", n);
        for (uint32_t j = 0; j < count; j++)
            out[i++] = a == WG_NOWHERE ? WG_NOWHERE : (uint32_t)(a + step * (long long)j);
        s = end;
    }
    if (i != n)
        return err_set(e, ERR_BAD_INPUT, "addresses", "%u addresses for an operand of %u elements", i, n);
    return ERR_OK;
}

static char *field(char **p)
{
    char *s = *p, *tab = strchr(s, '\t');
    if (!tab)
        return NULL;
    *tab = 0;
    *p = tab + 1;
    return s;
}

int wg_record_parse(const char *line, wg_record *r, err_info *e)
{
    memset(r, 0, sizeof *r);
    char *copy = strdup(line), *p = copy, *f[8];
    if (!copy)
        return err_set(e, ERR_IO, "memory", "a line of %zu bytes", strlen(line));
    size_t l = strlen(copy);
    while (l && (copy[l - 1] == '\n' || copy[l - 1] == '\r'))
        copy[--l] = 0;
    int rc = ERR_OK;
    for (int i = 0; i < 8 && rc == ERR_OK; i++)
        if (!(f[i] = field(&p)))
            rc = err_set(e, ERR_BAD_INPUT, "fields", "%d tab-separated fields before the addresses, 8 wanted", i);
    if (rc == ERR_OK) {
        snprintf(r->name, sizeof r->name, "%s", f[0]);
        snprintf(r->variant, sizeof r->variant, "%s", f[6]);
        rc = wg_dtype_parse(f[1], &r->shape.dtype, e);
    }
    if (rc == ERR_OK && strcmp(f[2], "a") && strcmp(f[2], "b"))
        rc = err_set(e, ERR_BAD_INPUT, "operand", "'%s' is not one of: a b", f[2]);
    if (rc == ERR_OK && strcmp(f[3], "k") && strcmp(f[3], "mn"))
        rc = err_set(e, ERR_BAD_INPUT, "major", "'%s' is not one of: k mn", f[3]);
    if (rc == ERR_OK) {
        r->shape.operand = f[2][0] == 'a' ? WG_A : WG_B;
        r->shape.major = f[3][0] == 'k' ? WG_K_MAJOR : WG_MN_MAJOR;
        r->shape.n = (uint32_t)strtoul(f[4], NULL, 10);
        r->raw = strtoull(f[5], NULL, 16);
        rc = wg_shape_check(&r->shape, e);
    }
    if (rc == ERR_OK && strcmp(f[7], "-") && !(r->tile = strdup(f[7])))
        rc = err_set(e, ERR_IO, "memory", "tile flags");
    if (rc == ERR_OK) {
        r->n_addr = wg_elements(&r->shape);
        r->addr = malloc(sizeof *r->addr * r->n_addr);
        rc = r->addr ? wg_runs_parse(p, r->addr, r->n_addr, e) : err_set(e, ERR_IO, "memory", "addresses");
    }
    free(copy);
    if (rc != ERR_OK)
        wg_record_free(r);
    return rc;
}

void wg_record_free(wg_record *r)
{
    free(r->tile);
    free(r->addr);
    r->tile = NULL;
    r->addr = NULL;
}

uint32_t wg_record_compare(const wg_record *r, uint32_t *first)
{
    wg_desc d;
    wg_desc_decode(r->raw, &d);
    uint32_t K = wg_k(r->shape.dtype), bad = 0;
    for (uint32_t i = 0; i < r->n_addr; i++)
        if (wg_element_address(&r->shape, &d, i / K, i % K) != r->addr[i]) {
            if (!bad && first)
                *first = i;
            bad++;
        }
    return bad;
}

/* ---- replay ----------------------------------------------------------------- */

#include "wgmma_flags.h"

typedef struct rec_list {
    wg_record *r;
    size_t n, cap;
} rec_list;

static void detail(wg_replay_report *r, const wg_record *rec, const char *what)
{
    if (r->n_details < 16)
        snprintf(r->details[r->n_details++], sizeof r->details[0], "%s (%s %s %s %s-major n%u, desc 0x%016llx): %s",
                 rec->name, rec->variant, wg_dtype_name(rec->shape.dtype), rec->shape.operand == WG_A ? "A" : "B",
                 rec->shape.major == WG_K_MAJOR ? "K" : "MN", rec->shape.n, (unsigned long long)rec->raw, what);
}

static int read_all(const char *path, rec_list *l, err_info *e)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return err_set(e, ERR_IO, "recording", "'%s': cannot open", path);
    char *line = NULL;
    size_t cap = 0, lineno = 0;
    int rc = ERR_OK;
    while (rc == ERR_OK && getline(&line, &cap, f) > 0) {
        lineno++;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (l->n == l->cap) {
            size_t nc = l->cap ? l->cap * 2 : 256;
            wg_record *nr = realloc(l->r, nc * sizeof *nr);
            if (!nr) {
                rc = err_set(e, ERR_IO, "memory", "%zu records", nc);
                break;
            }
            l->r = nr, l->cap = nc;
        }
        err_info le = {0};
        rc = wg_record_parse(line, &l->r[l->n], &le);
        if (rc == ERR_OK)
            l->n++;
        else
            err_set(e, rc, "recording", "%s line %zu: %s: %s", path, lineno, le.rule, le.detail);
    }
    free(line);
    fclose(f);
    return rc;
}

static int record_tile(const wg_record *rec, wg_tile *t)
{
    wg_flags f;
    wg_flags_init(&f);
    f.shape = rec->shape;
    f.has_type = 1;
    wg_desc d;
    int has = 0;
    err_info e = {0};
    return wg_flags_apply_string(&f, rec->tile, &e) == ERR_OK && wg_flags_finish(&f, &d, &has, t, &e) == ERR_OK;
}

/* The recorded correct case for the same tile, operand and k-block, if any. */
static const wg_record *ok_of(const rec_list *l, const wg_record *rec)
{
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->r[i].variant, "ok") && l->r[i].tile && !strcmp(l->r[i].tile, rec->tile) &&
            !memcmp(&l->r[i].shape, &rec->shape, sizeof rec->shape))
            return &l->r[i];
    return NULL;
}

static void replay_tile(const rec_list *l, const wg_record *rec, wg_replay_report *r)
{
    wg_tile t;
    wg_desc d;
    wg_desc_decode(rec->raw, &d);
    if (!record_tile(rec, &t)) {
        detail(r, rec, "its tile flags do not parse");
        return;
    }
    r->tile_cases++;
    wg_check hw, model;
    int vh = wg_check_tile(&t, &rec->shape, &d, rec->addr, &hw, NULL);
    int vm = wg_check_tile(&t, &rec->shape, &d, NULL, &model, NULL);
    if (vh == vm)
        r->verdict_agree++;
    else
        detail(r, rec, vh == ERR_OK ? "the hardware read the tile right, the model says mismatch"
                                    : "the hardware read the tile wrong, the model says agree");
    if (!strcmp(rec->variant, "ok")) {
        r->ok_cases++;
        r->ok_hw_agree += vh == ERR_OK;
    }
    if (vh != ERR_FINDING)
        return;
    r->hw_mismatch++;
    r->fix_cases++;
    const wg_record *ok = ok_of(l, rec);
    if (!hw.has_fix || !ok) {
        detail(r, rec, hw.has_fix ? "no recorded correct case to confirm the proposed descriptor" : hw.why_none);
        return;
    }
    uint32_t K = wg_k(rec->shape.dtype), same = 1;
    for (uint32_t i = 0; i < rec->n_addr && same; i++)
        same = wg_element_address(&rec->shape, &hw.fix, i / K, i % K) == ok->addr[i];
    if (same)
        r->fix_confirmed++;
    else
        detail(r, rec, "the proposed descriptor differs from what the hardware read with the correct one");
}

int wg_replay_file(const char *path, wg_replay_report *r, err_info *e)
{
    memset(r, 0, sizeof *r);
    rec_list l = {0};
    int rc = read_all(path, &l, e);
    for (size_t i = 0; rc == ERR_OK && i < l.n; i++) {
        const wg_record *rec = &l.r[i];
        uint32_t first = 0, bad = wg_record_compare(rec, &first);
        r->cases++;
        r->elements += rec->n_addr;
        if (!bad)
            r->addr_agree++;
        else {
            char what[120];
            snprintf(what, sizeof what, "%u of %u addresses differ, first element %u", bad, rec->n_addr, first);
            detail(r, rec, what);
        }
        if (rec->tile)
            replay_tile(&l, rec, r);
    }
    for (size_t i = 0; i < l.n; i++)
        wg_record_free(&l.r[i]);
    free(l.r);
    if (rc != ERR_OK)
        return rc;
    if (!r->cases)
        return err_set(e, ERR_BAD_INPUT, "recording", "'%s' holds no cases", path);
    int all = r->addr_agree == r->cases && r->verdict_agree == r->tile_cases && r->fix_confirmed == r->fix_cases &&
              r->ok_hw_agree == r->ok_cases;
    return all ? ERR_OK : ERR_FINDING;
}
