/* `tmasim bank` flags, one argument per line of the input. The pictures (--png/--svg
 * FILE, --png=FILE) are drawn into the private directory; --pattern FILE is left out
 * (fuzz_bank_pattern covers pattern files): the harness touches no file the input names. */
#include <stdlib.h>

#include "cmds.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const drop[] = {"--pattern", NULL};
    static const char *const out[] = {"--png", "--svg", NULL};
    char *argv[64], *store;
    int argc = fuzz_argv(data, size, "bank", drop, out, argv, 63, &store);
    cmd_bank(argc, argv);
    free(store);
    return 0;
}
