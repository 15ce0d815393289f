/* Pipeline descriptions (YAML): parse and derive, the protocol rules (which the parser
 * runs: a description that parses has passed them), and the simulator on what its work
 * estimate admits for a fuzzing run. */
#include <stdlib.h>

#include "desc.h"
#include "fuzz.h"
#include "params.h"
#include "pipe.h"
#include "pipe_budget.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_strndup(data, size);
    static pipe_desc d;
    err_info e = {0};
    if (desc_parse_yaml(text, size, fuzz_long_name(".yaml", size), &d, &e) == ERR_OK) {
        err_info r = {0};
        pipe_budget b;
        static pipe_params params;
        params_defaults("h100", &params, NULL);
        /* a fuzzing run affords about twenty thousand simulated events */
        if (pipe_budget_estimate(&d, 0, &params, &b) == ERR_OK && pipe_budget_check(&b, 1, &r) == ERR_OK &&
            b.sim_events < 2e4) {
            static pipe_result res;
            pipe_opts o = {.params = &params};
            if (pipe_run(&d, &o, &res, &e) == ERR_OK) pipe_verdict(&res, &r);
        }
    }
    free(text);
    return 0;
}
