/* tmaview_app: the parts of the viewer that need SDL2 (cmd/tmaview only). */
#ifndef TMASCOPE_TMAVIEW_APP_H
#define TMASCOPE_TMAVIEW_APP_H

#include <stdint.h>

#include "view_session.h"

typedef struct tmaview_opts {
    const char *render, *script, *screenshot, *select;
    int width, height;
    int has_range;
    int64_t range_a, range_b;
} tmaview_opts;

/* Opens the window and runs until it is closed (or the script ends). Returns the exit
 * status: 0, or 2 when the window or a script line cannot be honoured. */
int tmaview_window(view_session *s, const tmaview_opts *o);

#endif
