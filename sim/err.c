#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int err_set(err_info *e, int code, const char *rule, const char *fmt, ...)
{
    if (!e)
        return code;
    e->code = code;
    snprintf(e->rule, sizeof e->rule, "%s", rule ? rule : "");
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(e->detail, sizeof e->detail, fmt, ap);
    va_end(ap);
    if (n >= (int)sizeof e->detail) {
        char note[64];
        int k = snprintf(note, sizeof note, " [%d more characters]", n - (int)sizeof e->detail + 1);
        memcpy(e->detail + sizeof e->detail - 1 - (size_t)k, note, (size_t)k + 1);
    }
    return code;
}

const char *err_rule_label(const char *rule)
{
    static const struct { const char *prefix, *label; } internal[] = {
        {"desc_open", "description"}, {"desc_not_derived", "description"}, {"yaml_syntax", "YAML"},
        {"trace_", "trace"}, {"params_", "parameters file"}, {"param_name", "parameter"},
        {"param_value", "parameter"}, {"chrome_", "Chrome JSON"}, {"picture_", "picture"},
        {"pattern_file", "pattern file"}, {"out_of_memory", "memory"}, {"bank_analyse", "bank model"},
    };
    if (!rule) return "";
    for (size_t i = 0; i < sizeof internal / sizeof internal[0]; i++)
        if (!strncmp(rule, internal[i].prefix, strlen(internal[i].prefix))) return internal[i].label;
    return rule;
}

void err_clear(err_info *e)
{
    if (e)
        memset(e, 0, sizeof *e);
}

void err_insert(err_info *e, size_t at, const char *text)
{
    if (!e)
        return;
    size_t cap = sizeof e->detail, len = strnlen(e->detail, cap - 1), n = strlen(text);
    if (at > len || n >= cap - at)
        return;
    size_t keep = len - at;                /* bytes after the insertion point */
    if (at + n + keep > cap - 1)
        keep = cap - 1 - at - n;
    memmove(e->detail + at + n, e->detail + at, keep);
    memcpy(e->detail + at, text, n);
    e->detail[at + n + keep] = 0;
}
