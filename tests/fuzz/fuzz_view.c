/* The viewer's load-and-draw path as `tmaview --render` takes it, without a window: one
 * or two native traces (the second starts at the second "TMATRACE"), the view session,
 * the timeline drawn into an image, the range statistics and the state panel. */
#include <cairo.h>
#include <stdlib.h>

#include "draw_timeline.h"
#include "fuzz.h"
#include "trace.h"
#include "view_session.h"

enum { WIDTH = 480, HEIGHT = 320 };

/* One image for every input (made once: creating it is most of a small input's cost),
 * cleared before each drawing; made again when a drawing left the context in an error
 * state (which would make every later drawing a no-op). */
static cairo_t *canvas(void)
{
    static cairo_t *cr;
    if (cr && cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
        cairo_destroy(cr);
        cr = NULL;
    }
    if (!cr) {
        cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, WIDTH, HEIGHT);
        cr = cairo_create(surf);
        cairo_surface_destroy(surf);   /* cr holds it */
    }
    cairo_save(cr);
    cairo_set_operator(cr, CAIRO_OPERATOR_CLEAR);
    cairo_paint(cr);
    cairo_restore(cr);
    return cr;
}

static void view(const trace *const *tp, int n)
{
    err_info e = {0};
    view_session *s = calloc(1, sizeof *s);
    if (s && view_session_init(s, tp, n, WIDTH, HEIGHT, &e) == ERR_OK) {
        cairo_t *cr = canvas();
        cairo_save(cr);
        draw_timeline(cr, s);
        cairo_restore(cr);
        int64_t a, b;
        view_session_extent(s, &a, &b);
        s->has_range = 1, s->range_a = a, s->range_b = b;
        view_session_key(s, 'w', 0);
        view_session_search(s, "kind=wait", &e);
        cairo_save(cr);
        draw_timeline(cr, s);
        cairo_restore(cr);
        view_session_free(s);
    }
    free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t cut = fuzz_second_trace(data, size);
    int want = cut < size ? 2 : 1, n = 0;
    trace t[2];
    const trace *tp[2] = {&t[0], &t[1]};
    const uint8_t *src[2] = {data, data + cut};
    size_t len[2] = {cut, size - cut};
    for (int k = 0; k < want; k++) {
        err_info e = {0};
        if (trace_read_mem(src[k], len[k], k ? "b.tmt" : "a.tmt", &t[k], &e) != ERR_OK) break;
        n++;
    }
    if (n == want) view(tp, n);
    for (int k = 0; k < n; k++) trace_free(&t[k]);
    return 0;
}
