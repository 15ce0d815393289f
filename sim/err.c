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
    vsnprintf(e->detail, sizeof e->detail, fmt, ap);
    va_end(ap);
    return code;
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
