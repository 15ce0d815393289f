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

/* trace_write to a file (the atomic writer of the commands) and trace_read back. */
static void write_and_read(const trace *t)
{
    char out[4200];
    snprintf(out, sizeof out, "%s/%s", fuzz_dir(), fuzz_file_name(".tmt"));
    trace back;
    trace_init(&back, TRACE_SRC_SIM);
    err_info e = {0};
    if (trace_write(out, t, &e) != ERR_OK) {
        fprintf(stderr, "fuzz_trace: a trace that loaded does not write: %s: %s\n", e.rule, e.detail);
        abort();
    }
    if (trace_read(out, &back, &e) != ERR_OK) {
        fprintf(stderr, "fuzz_trace: a written trace does not read back: %s: %s\n", e.rule, e.detail);
        abort();
    }
    same(t, &back, "write and read");
    trace_free(&back);
}

/* trace_chrome_write into memory and trace_chrome_read_mem back. */
static void export_and_import(const trace *t)
{
    char *json = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&json, &len);
    if (!f) return;
    err_info e = {0};
    int rc = trace_chrome_write(f, t, &e);
    if (fclose(f) != 0 && rc == ERR_OK) rc = ERR_IO;
    if (rc != ERR_OK) {
        fprintf(stderr, "fuzz_trace: a trace that loaded does not export: %s: %s\n", e.rule, e.detail);
        abort();
    }
    trace back;
    if (trace_chrome_read_mem(json, len, fuzz_file_name(".json"), &back, &e) != ERR_OK) {
        fprintf(stderr, "fuzz_trace: an exported trace does not import: %s: %s\n", e.rule, e.detail);
        abort();
    }
    trace_sort(&back);
    same(t, &back, "export and import");
    trace_free(&back);
    free(json);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    trace t;
    err_info e = {0};
    if (trace_read_mem(data, size, fuzz_long_name(".tmt", size), &t, &e) == ERR_OK) {
        trace_sort(&t);
        write_and_read(&t);
        export_and_import(&t);
    }
    trace_free(&t);
    return 0;
}
