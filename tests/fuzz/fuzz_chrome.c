/* Chrome Trace Event JSON import (`tmasim export --import`); what imports must export
 * and import again to the same events. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "trace.h"
#include "trace_chrome_json.h"

/* trace_chrome_write into memory and trace_chrome_read_mem back: the same events. */
static void export_and_import(const trace *t)
{
    char *json = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&json, &len);
    if (!f) return;
    err_info e = {0};
    int rc = trace_chrome_write(f, t, &e);
    if (fclose(f) != 0) rc = ERR_IO;
    trace back;
    if (rc == ERR_OK) {
        if (trace_chrome_read_mem(json, len, "again.json", &back, &e) != ERR_OK) {
            fprintf(stderr, "fuzz_chrome: a re-exported trace does not import: %s: %s\n", e.rule, e.detail);
            abort();
        }
        trace_sort(&back);
        if (back.count != t->count || (t->count && memcmp(back.events, t->events, t->count * sizeof *t->events))) {
            fprintf(stderr, "fuzz_chrome: export and import changed the events\n");
            abort();
        }
        trace_free(&back);
    }
    free(json);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* named as the file it used to be written to: the regression inputs whose message
     * depends on the name's length keep their length */
    char name[4200];
    snprintf(name, sizeof name, "%s/%s", fuzz_dir(), fuzz_varied_file_name(".json", size));
    trace t;
    err_info e = {0};
    if (trace_chrome_read_mem((const char *)data, size, name, &t, &e) == ERR_OK) {
        trace_sort(&t);
        export_and_import(&t);
    }
    trace_free(&t);
    return 0;
}
