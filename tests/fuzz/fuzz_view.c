/* The viewer's load-and-draw path as `tmaview --render` takes it, without a window: one
 * or two native traces (the second starts at the second "TMATRACE"), the view session,
 * the timeline drawn into an image, the range statistics and the state panel. */
#include <cairo.h>
#include <stdlib.h>
#include <string.h>

#include "draw_timeline.h"
#include "fuzz.h"
#include "trace.h"
#include "view_session.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t cut = size;
    for (size_t i = 1; i + 8 <= size; i++)
        if (!memcmp(data + i, "TMATRACE", 8)) {
            cut = i;
            break;
        }
    trace t[2];
    const trace *tp[2] = {&t[0], &t[1]};
    int n = 0;
    err_info e = {0};
    const uint8_t *src[2] = {data, data + cut};
    size_t len[2] = {cut, size - cut};
    for (int k = 0; k < (cut < size ? 2 : 1); k++) {
        const char *p = fuzz_write(k ? "b.tmt" : "a.tmt", src[k], len[k]);
        trace_init(&t[k], TRACE_SRC_SIM);
        if (!p || trace_read(p, &t[k], &e) != ERR_OK) {
            trace_free(&t[k]);
            break;
        }
        n++;
    }
    if (n == (cut < size ? 2 : 1)) {
        view_session *s = calloc(1, sizeof *s);
        if (s && view_session_init(s, tp, n, 480, 320, &e) == ERR_OK) {
            cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 480, 320);
            cairo_t *cr = cairo_create(surf);
            draw_timeline(cr, s);
            int64_t a, b;
            view_session_extent(s, &a, &b);
            s->has_range = 1, s->range_a = a, s->range_b = b;
            view_session_key(s, 'w', 0);
            view_session_search(s, "kind=wait", &e);
            draw_timeline(cr, s);
            cairo_destroy(cr);
            cairo_surface_destroy(surf);
            view_session_free(s);
        }
        free(s);
    }
    for (int k = 0; k < n; k++) trace_free(&t[k]);
    return 0;
}
