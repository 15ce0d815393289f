/* Replay corpus directories (`tmasim replay DIR`). The input holds the four files of a
 * recording one after the other, separated by lines "@@@": meta.json, encode.jsonl,
 * layout.jsonl, bank.jsonl (missing parts are empty files). */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "replay_json.h"

/* Writes part i of the recording unless the file already holds exactly these bytes (a
 * mutation mostly changes one part: the other files stay as the last input left them,
 * and replay_dir reads the same four files either way). */
static int put_part(int i, const char *name, const uint8_t *data, size_t size)
{
    static uint8_t *held[4];
    static size_t held_size[4];
    static int valid[4];
    if (valid[i] && held_size[i] == size && (size == 0 || !memcmp(held[i], data, size)))
        return 1;
    valid[i] = 0;
    if (!fuzz_write(name, data, size))
        return 0;
    uint8_t *copy = realloc(held[i], size ? size : 1);
    if (!copy)
        return 1;   /* written; the next input writes it again */
    if (size)
        memcpy(copy, data, size);
    held[i] = copy, held_size[i] = size, valid[i] = 1;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[4] = {"meta.json", "encode.jsonl", "layout.jsonl", "bank.jsonl"};
    const uint8_t *part[4];
    size_t len[4];
    size_t n = fuzz_split(data, size, "\n@@@\n", part, len, 4);
    for (int i = 0; i < 4; i++)
        if (!put_part(i, names[i], i < (int)n ? part[i] : data, i < (int)n ? len[i] : 0)) return 0;
    static replay_report r;
    err_info e = {0};
    replay_dir(fuzz_dir(), &r, &e);
    return 0;
}
