/* `tmasim layout` flags, one argument per line of the input. The pictures (--png/--svg
 * FILE, --png=FILE) are drawn into the private directory: the harness writes no file where
 * the input says. */
#include <stdlib.h>

#include "cmds.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const out[] = {"--png", "--svg", NULL};
    char *argv[64], *store;
    int argc = fuzz_argv(data, size, "layout", NULL, out, argv, 63, &store);
    cmd_layout(argc, argv);
    free(store);
    return 0;
}
