/* Chrome Trace Event JSON import (`tmasim export --import`); what imports must export
 * and import again to the same events. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "trace.h"
#include "trace_chrome_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = fuzz_write(fuzz_varied_file_name(".json", size), data, size);
    if (!p) return 0;
    trace t;
    trace_init(&t, TRACE_SRC_SIM);
    err_info e = {0};
    if (trace_chrome_read(p, &t, &e) == ERR_OK) {
        trace_sort(&t);
        char out[4200];
        snprintf(out, sizeof out, "%s/again.json", fuzz_dir());
        FILE *f = fopen(out, "wb");
        if (f) {
            int rc = trace_chrome_write(f, &t, &e);
            if (fclose(f) != 0) rc = ERR_IO;
            trace back;
            trace_init(&back, TRACE_SRC_SIM);
            if (rc == ERR_OK) {
                if (trace_chrome_read(out, &back, &e) != ERR_OK) {
                    fprintf(stderr, "fuzz_chrome: a re-exported trace does not import: %s: %s\n", e.rule, e.detail);
                    abort();
                }
                trace_sort(&back);
                if (back.count != t.count ||
                    (t.count && memcmp(back.events, t.events, t.count * sizeof *t.events))) {
                    fprintf(stderr, "fuzz_chrome: export and import changed the events\n");
                    abort();
                }
            }
            trace_free(&back);
        }
    }
    trace_free(&t);
    return 0;
}
