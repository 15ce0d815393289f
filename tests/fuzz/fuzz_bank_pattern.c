/* Bank pattern files (`tmasim bank --pattern FILE`): parse, then the bank model on every
 * instruction. */
#include <stdlib.h>

#include "bank.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_strndup(data, size);
    bank_pattern p = {0};
    err_info e = {0};
    if (bank_pattern_parse(text, fuzz_long_name(".pattern", size), &p, &e) == ERR_OK) {
        for (uint32_t i = 0; i < p.count; i++) {
            bank_result r;
            bank_analyse(&p.instrs[i], &r, &e);
        }
        bank_pattern_free(&p);
    }
    free(text);
    return 0;
}
