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
