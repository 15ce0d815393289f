/* Two native traces compared as `tmasim diff` and the viewer compare them. The input is
 * two trace files one after the other: the second starts at the second "TMATRACE". */
#include <stdlib.h>

#include "fuzz.h"
#include "tdiff.h"
#include "trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t cut = fuzz_second_trace(data, size);
    trace a, b;
    trace_init(&a, TRACE_SRC_SIM);
    trace_init(&b, TRACE_SRC_HW);
    err_info e = {0};
    if (trace_read_mem(data, cut, "a.tmt", &a, &e) == ERR_OK &&
        trace_read_mem(data + cut, size - cut, "b.tmt", &b, &e) == ERR_OK) {
        trace_sort(&a);
        trace_sort(&b);
        tdiff_match m;
        if (tdiff_match_traces(&a, &b, &m, &e) == ERR_OK) {
            static tdiff_report r;
            tdiff_compare(&a, &b, &m, &r, &e);
            tdiff_match_free(&m);
        }
    }
    trace_free(&a);
    trace_free(&b);
    return 0;
}
