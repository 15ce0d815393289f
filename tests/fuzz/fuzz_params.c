/* Timing parameter files (`tmasim sim --params FILE`, `--gpu FILE`). */
#include <stdlib.h>

#include "fuzz.h"
#include "params.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_strndup(data, size);
    pipe_params p;
    err_info e = {0};
    if (params_defaults("h100", &p, &e) == ERR_OK) params_parse(&p, text, fuzz_long_name(".params", size), &e);
    free(text);
    return 0;
}
