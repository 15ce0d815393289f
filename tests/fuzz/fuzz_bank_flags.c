/* `tmasim bank` flags, one argument per line of the input. Picture outputs (--png/--svg
 * FILE) and --pattern FILE are dropped: fuzz_bank_pattern covers pattern files, and the
 * harness touches no files the input names. */
#include <stdlib.h>

#include "cmds.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const drop[] = {"--png", "--svg", "--pattern", NULL};
    char *argv[64], *store;
    int argc = fuzz_argv(data, size, "bank", drop, argv, 63, &store);
    cmd_bank(argc, argv);
    free(store);
    return 0;
}
