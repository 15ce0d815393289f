#include "draw_cache.h"

#include <cairo.h>
#include <fontconfig/fontconfig.h>

void draw_release_caches(void)
{
    /* cairo first: its font faces hold fontconfig patterns that FcFini would free under it */
    cairo_debug_reset_static_data();
    FcFini();
}
