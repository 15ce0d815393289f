/* `tmasim layout` flags, one argument per line of the input. Picture outputs
 * (--png/--svg FILE) are dropped: the harness writes no files where the input says. */
#include <stdlib.h>

#include "cmds.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const drop[] = {"--png", "--svg", NULL};
    char *argv[64], *store;
    int argc = fuzz_argv(data, size, "layout", drop, argv, 63, &store);
    cmd_layout(argc, argv);
    free(store);
    return 0;
}
