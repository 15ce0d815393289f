/* A sweep result file as `tmasim sweep --merge` and `tmahw sweep` read it (CSV: the sweep's
 * spec in '# ' lines, the grid among them, then one row per point), through the path
 * reader's own parser on the input in memory. A file that loads must write and read back
 * to the same spec and rows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "sweep.h"

static int same_rows(const sweep_row *a, const sweep_row *b, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        if (a[i].index != b[i].index || a[i].status != b[i].status || strcmp(a[i].rule, b[i].rule) ||
            strcmp(a[i].detail ? a[i].detail : "", b[i].detail ? b[i].detail : "") ||
            (a[i].status != SWEEP_INVALID && (a[i].kernel_ns != b[i].kernel_ns || a[i].sim_events != b[i].sim_events ||
                                              strcmp(a[i].bottleneck, b[i].bottleneck))))
            return 0;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sweep_spec s;
    sweep_row *rows = NULL;
    uint64_t n = 0;
    uint32_t k, ns;
    err_info e = {0};
    if (sweep_read_csv_mem((const char *)data, size, fuzz_long_name(".csv", size), &s, &rows, &n, &k, &ns, &e) != ERR_OK)
        return 0;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) abort();
    sweep_write_csv(f, &s, rows, n, k, ns);
    if (fclose(f) != 0) abort();
    sweep_spec s2;
    sweep_row *rows2 = NULL;
    uint64_t n2 = 0;
    uint32_t k2, ns2;
    if (sweep_read_csv_mem(text, len, "again.csv", &s2, &rows2, &n2, &k2, &ns2, &e) != ERR_OK || n2 != n || k2 != k ||
        ns2 != ns || !sweep_spec_same(&s, &s2) || !same_rows(rows, rows2, n)) {
        fprintf(stderr, "fuzz_sweep: the file written back does not read back the same: %s\n", e.detail);
        abort();
    }
    free(text);
    sweep_rows_free(rows, n);
    sweep_rows_free(rows2, n2);
    sweep_spec_free(&s);
    sweep_spec_free(&s2);
    return 0;
}
