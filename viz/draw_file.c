#include "draw_file.h"

#include <errno.h>
#include <string.h>

cairo_status_t draw_file_stream(void *closure, const unsigned char *data, unsigned int length)
{
    return afile_write(closure, data, length) ? CAIRO_STATUS_WRITE_ERROR : CAIRO_STATUS_SUCCESS;
}

draw_svgtext *draw_file_texts(cairo_t *cr, int png, const afile *f)
{
    return png || !f->tmp ? NULL : draw_svgtext_attach(cr);
}

int draw_file_finish(cairo_surface_t *surface, int png, afile *f, const draw_svgtext *texts, const char *what,
                     err_info *e)
{
    cairo_surface_flush(surface);
    cairo_status_t st = cairo_surface_status(surface);
    if (st == CAIRO_STATUS_SUCCESS && png)
        st = cairo_surface_write_to_png_stream(surface, draw_file_stream, f);
    cairo_surface_finish(surface);
    if (st == CAIRO_STATUS_SUCCESS)
        st = cairo_surface_status(surface);
    cairo_surface_destroy(surface);
    if (st != CAIRO_STATUS_SUCCESS || f->failed) {
        int rc = err_set(e, ERR_IO, what, "cannot write %s: %s", f->path,
                         f->failed ? strerror(f->failed) : cairo_status_to_string(st));
        afile_abort(f);
        return rc;
    }
    if (texts && f->tmp) {
        /* the SVG is whole in the temporary file: flush it, then add the text elements */
        if (fflush(f->fp) != 0) {
            int rc = err_set(e, ERR_IO, what, "cannot write %s: %s", f->path, strerror(errno));
            afile_abort(f);
            return rc;
        }
        int rc = draw_svgtext_write(texts, f->tmp, e);
        if (rc) {
            afile_abort(f);
            return rc;
        }
    }
    return afile_commit(f, what, e);
}
