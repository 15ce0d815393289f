/* Native traces: read (a truncated file loads its intact events), sort, write and read
 * back, Chrome JSON export and import back. What loads must survive both round trips
 * unchanged: an export that succeeds must import again. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "trace.h"
#include "trace_chrome_json.h"

static void same(const trace *a, const trace *b, const char *what)
{
    if (a->count != b->count || (a->count && memcmp(a->events, b->events, a->count * sizeof *a->events))) {
        fprintf(stderr, "fuzz_trace: %s changed the events (%zu -> %zu)\n", what, a->count, b->count);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_write("in.tmt", data, size);
    if (!path) return 0;
    trace t;
    trace_init(&t, TRACE_SRC_SIM);
    err_info e = {0};
    if (trace_read(path, &t, &e) == ERR_OK) {
        trace_sort(&t);
        char out[4200];
        snprintf(out, sizeof out, "%s/%s", fuzz_dir(), fuzz_file_name(".tmt"));
        trace back;
        trace_init(&back, TRACE_SRC_SIM);
        if (trace_write(out, &t, &e) != ERR_OK) {
            fprintf(stderr, "fuzz_trace: a trace that loaded does not write: %s: %s\n", e.rule, e.detail);
            abort();
        } else {
            if (trace_read(out, &back, &e) != ERR_OK) {
                fprintf(stderr, "fuzz_trace: a written trace does not read back: %s: %s\n", e.rule, e.detail);
                abort();
            }
            same(&t, &back, "write and read");
        }
        trace_free(&back);
        snprintf(out, sizeof out, "%s/%s", fuzz_dir(), fuzz_file_name(".json"));
        FILE *f = fopen(out, "wb");
        if (f) {
            int rc = trace_chrome_write(f, &t, &e);
            if (fclose(f) != 0) rc = ERR_IO;
            trace_init(&back, TRACE_SRC_SIM);
            if (rc != ERR_OK) {
                fprintf(stderr, "fuzz_trace: a trace that loaded does not export: %s: %s\n", e.rule, e.detail);
                abort();
            } else {
                if (trace_chrome_read(out, &back, &e) != ERR_OK) {
                    fprintf(stderr, "fuzz_trace: an exported trace does not import: %s: %s\n", e.rule, e.detail);
                    abort();
                }
                trace_sort(&back);
                same(&t, &back, "export and import");
            }
            trace_free(&back);
        }
    }
    trace_free(&t);
    return 0;
}
