/* bank_pattern: op names and the pattern-file format shared by tmasim and tmahw.
 * One instruction per line, "op a0 ... a31"; "#" starts a comment; blank lines are
 * ignored; addresses are decimal or 0x hex. Matrix ops may give 8*matrices row
 * addresses (the lanes the op uses) or all 32. */
#include "bank.h"
#include "rfile.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    uint32_t access_bytes;
    uint32_t matrices;
    int store;
} op_table[BANK_OP_COUNT] = {
    [BANK_OP_LDS32] = {"lds32", 4, 0, 0},     [BANK_OP_LDS64] = {"lds64", 8, 0, 0},
    [BANK_OP_LDS128] = {"lds128", 16, 0, 0},  [BANK_OP_STS32] = {"sts32", 4, 0, 1},
    [BANK_OP_STS64] = {"sts64", 8, 0, 1},     [BANK_OP_STS128] = {"sts128", 16, 0, 1},
    [BANK_OP_LDSM_X1] = {"ldsm.x1", 16, 1, 0}, [BANK_OP_LDSM_X2] = {"ldsm.x2", 16, 2, 0},
    [BANK_OP_LDSM_X4] = {"ldsm.x4", 16, 4, 0}, [BANK_OP_STSM_X1] = {"stsm.x1", 16, 1, 1},
    [BANK_OP_STSM_X2] = {"stsm.x2", 16, 2, 1}, [BANK_OP_STSM_X4] = {"stsm.x4", 16, 4, 1},
};

#define OP_SPELLINGS "lds32 lds64 lds128 sts32 sts64 sts128 ldsm.x1 ldsm.x2 ldsm.x4 stsm.x1 stsm.x2 stsm.x4 (matrix ops may end in .trans)"

const char *bank_op_name(bank_op op)
{
    return (unsigned)op < BANK_OP_COUNT ? op_table[op].name : "?";
}

uint32_t bank_op_access_bytes(bank_op op)
{
    return (unsigned)op < BANK_OP_COUNT ? op_table[op].access_bytes : 0;
}

uint32_t bank_op_matrices(bank_op op)
{
    return (unsigned)op < BANK_OP_COUNT ? op_table[op].matrices : 0;
}

int bank_op_is_store(bank_op op)
{
    return (unsigned)op < BANK_OP_COUNT ? op_table[op].store : 0;
}

int bank_op_parse(const char *s, bank_op *op, int *trans, err_info *e)
{
    if (!s)
        return err_set(e, ERR_BAD_INPUT, "op", "missing; allowed: %s", OP_SPELLINGS);
    size_t n = strlen(s);
    int with_trans = 0;
    static const char suffix[] = ".trans";
    if (n > sizeof suffix - 1 && !strcmp(s + n - (sizeof suffix - 1), suffix)) {
        with_trans = 1;
        n -= sizeof suffix - 1;
    }
    for (int i = 0; i < BANK_OP_COUNT; i++) {
        if (strlen(op_table[i].name) == n && !strncmp(s, op_table[i].name, n)) {
            if (with_trans && op_table[i].matrices == 0)
                return err_set(e, ERR_BAD_INPUT, "op", "'%s': .trans only applies to ldsm/stsm ops", s);
            if (op)
                *op = (bank_op)i;
            if (trans)
                *trans = with_trans;
            return ERR_OK;
        }
    }
    return err_set(e, ERR_BAD_INPUT, "op", "'%s' is not one of: %s", s, OP_SPELLINGS);
}

/* ---- pattern files ---------------------------------------------------------------- */

static int parse_address(const char *tok, uint32_t *out)
{
    if (!*tok || *tok == '-' || *tok == '+' || isspace((unsigned char)*tok))
        return -1;
    errno = 0;
    char *end = NULL;
    unsigned long long v = strtoull(tok, &end, 0);
    /* strtoull with base 0 reads a leading 0 as octal; the format says decimal or 0x hex. */
    if (tok[0] == '0' && tok[1] && tok[1] != 'x' && tok[1] != 'X')
        v = strtoull(tok, &end, 10);
    if (errno || *end || v > UINT32_MAX)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

static const char *base_name(const char *path)
{
    return path ? path : "<pattern>";
}

static int parse_line(char *line, const char *file, uint32_t lineno, bank_instr *in, int *empty, err_info *e)
{
    char *hash = strchr(line, '#');
    if (hash)
        *hash = '\0';
    const char *seps = " \t\r\v\f,";
    char *save = NULL;
    char *tok = strtok_r(line, seps, &save);
    if (!tok) {
        *empty = 1;
        return ERR_OK;
    }
    *empty = 0;
    memset(in, 0, sizeof *in);
    err_info sub = {0};
    if (bank_op_parse(tok, &in->op, &in->trans, &sub))
        return err_set(e, ERR_BAD_INPUT, "pattern_op", "%s:%u: field op: %s", base_name(file), lineno, sub.detail);
    uint32_t n = 0;
    while ((tok = strtok_r(NULL, seps, &save)) != NULL) {
        if (n >= BANK_LANES)
            return err_set(e, ERR_BAD_INPUT, "pattern_address_count",
                           "%s:%u: field a%u: more than %u addresses", base_name(file), lineno, n, BANK_LANES);
        if (parse_address(tok, &in->addr[n]))
            return err_set(e, ERR_BAD_INPUT, "pattern_address",
                           "%s:%u: field a%u: '%s' is not a decimal or 0x hex byte address below 2^32",
                           base_name(file), lineno, n, tok);
        n++;
    }
    uint32_t rows = 8 * bank_op_matrices(in->op);
    if (n == BANK_LANES) {
        in->active_mask = 0;
    } else if (rows && n == rows) {
        in->active_mask = (uint32_t)((1ull << rows) - 1);
    } else if (rows && rows != BANK_LANES) {
        return err_set(e, ERR_BAD_INPUT, "pattern_address_count",
                       "%s:%u: field a%u: %s takes %u or %u addresses, got %u", base_name(file), lineno, n,
                       bank_op_name(in->op), rows, BANK_LANES, n);
    } else {
        return err_set(e, ERR_BAD_INPUT, "pattern_address_count",
                       "%s:%u: field a%u: %s takes %u addresses, got %u", base_name(file), lineno, n,
                       bank_op_name(in->op), BANK_LANES, n);
    }
    return ERR_OK;
}

int bank_pattern_parse(const char *text, const char *filename, bank_pattern *out, err_info *e)
{
    if (!out)
        return err_set(e, ERR_BAD_INPUT, "pattern", "no output");
    memset(out, 0, sizeof *out);
    if (!text)
        return err_set(e, ERR_BAD_INPUT, "pattern", "%s: no text", base_name(filename));
    uint32_t cap = 0;
    uint32_t lineno = 0;
    const char *p = text;
    char buf[4096];
    while (*p) {
        lineno++;
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len >= sizeof buf) {
            bank_pattern_free(out);
            return err_set(e, ERR_BAD_INPUT, "pattern_line_length", "%s:%u: line longer than %zu characters",
                           base_name(filename), lineno, sizeof buf - 1);
        }
        memcpy(buf, p, len);
        buf[len] = '\0';
        p = nl ? nl + 1 : p + len;
        bank_instr in;
        int empty = 0;
        int rc = parse_line(buf, filename, lineno, &in, &empty, e);
        if (rc) {
            bank_pattern_free(out);
            return rc;
        }
        if (empty)
            continue;
        if (out->count == cap) {
            uint32_t ncap = cap ? cap * 2 : 64;
            bank_instr *ni = realloc(out->instrs, (size_t)ncap * sizeof *ni);
            if (!ni) {
                bank_pattern_free(out);
                return err_set(e, ERR_IO, "pattern_memory", "%s:%u: out of memory", base_name(filename), lineno);
            }
            out->instrs = ni;
            uint32_t *nlines = realloc(out->lines, (size_t)ncap * sizeof *nlines);
            if (!nlines) {
                bank_pattern_free(out);
                return err_set(e, ERR_IO, "pattern_memory", "%s:%u: out of memory", base_name(filename), lineno);
            }
            out->lines = nlines;
            cap = ncap;
        }
        out->instrs[out->count] = in;
        out->lines[out->count] = lineno;
        out->count++;
    }
    if (out->count == 0)
        return err_set(e, ERR_BAD_INPUT, "pattern_empty", "%s: no instructions", base_name(filename));
    return ERR_OK;
}

int bank_pattern_load(const char *path, bank_pattern *out, err_info *e)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!path)
        return err_set(e, ERR_BAD_INPUT, "pattern_file", "no path");
    size_t len = 0;
    int err = 0;
    char *text = rfile_load(path, BANK_PATTERN_MAX_FILE_BYTES, &len, &err);
    if (!text)
        return err_set(e, err == ENOMEM ? ERR_IO : ERR_BAD_INPUT, "pattern_file", "%s: %s%s", path, strerror(err),
                       err == EFBIG ? " (a pattern file holds at most 64 MiB)" : "");
    if (memchr(text, '\0', len)) {
        free(text);
        return err_set(e, ERR_BAD_INPUT, "pattern_file", "%s: binary file (NUL byte)", path);
    }
    int rc = bank_pattern_parse(text, path, out, e);
    free(text);
    return rc;
}

void bank_pattern_free(bank_pattern *p)
{
    if (!p)
        return;
    free(p->instrs);
    free(p->lines);
    p->instrs = NULL;
    p->lines = NULL;
    p->count = 0;
}
