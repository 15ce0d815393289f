/* Replay corpus directories (`tmasim replay DIR`). The input holds the four files of a
 * recording one after the other, separated by lines "@@@": meta.json, encode.jsonl,
 * layout.jsonl, bank.jsonl (missing parts are empty files). */
#include <stdlib.h>

#include "fuzz.h"
#include "replay_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[4] = {"meta.json", "encode.jsonl", "layout.jsonl", "bank.jsonl"};
    const uint8_t *part[4];
    size_t len[4];
    size_t n = fuzz_split(data, size, "\n@@@\n", part, len, 4);
    for (size_t i = 0; i < 4; i++)
        if (!fuzz_write(names[i], i < n ? part[i] : data, i < n ? len[i] : 0)) return 0;
    static replay_report r;
    err_info e = {0};
    replay_dir(fuzz_dir(), &r, &e);
    return 0;
}
