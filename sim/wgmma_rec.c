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
