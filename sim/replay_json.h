/* replay_json: reads a recording directory (traces/h100/validation) and replays every
 * case through the current models (sim/replay.h does the comparisons).
 *
 * Files (one JSON object per line in *.jsonl):
 *   meta.json     GPU name, driver/CUDA versions, date, fill seeds, counter baselines
 *   encode.jsonl  cuTensorMapEncodeTiled verdicts (CUresult) for crafted parameter sets
 *   layout.jsonl  TMA loads/stores: parameters, verdict, shared/global bytes observed
 *   bank.jsonl    one warp instruction each: op, 32 addresses, raw counter values */
#ifndef TMASCOPE_REPLAY_JSON_H
#define TMASCOPE_REPLAY_JSON_H

#include <stdint.h>

#include "err.h"
#include "replay.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct replay_counts {
    uint32_t cases;
    uint32_t agree;
    uint32_t disagree;
    uint32_t unusable;      /* recorded case the runner itself flagged (fault, bad counts) */
} replay_counts;

#define REPLAY_MAX_DETAILS 256
/* A recording file (meta.json or a .jsonl) holds at most this many bytes. */
#define REPLAY_MAX_FILE_BYTES (256ull << 20)

typedef struct replay_disagreement {
    replay_kind kind;
    uint32_t id;
    char params[400];       /* the case's parameters, compact */
    char detail[400];       /* first differing byte / counter, or the two verdicts */
} replay_disagreement;

typedef struct replay_report {
    char gpu[128];
    char driver[160];
    char cuda[64];
    char date[64];
    replay_counts counts[REPLAY_KIND_COUNT];
    uint32_t ndetails;      /* stored in details[] (the first REPLAY_MAX_DETAILS) */
    replay_disagreement details[REPLAY_MAX_DETAILS];
} replay_report;

/* Reads dir/meta.json and the .jsonl files and replays every case. ERR_OK when the
 * files were read (disagreements are counted, not errors); ERR_BAD_INPUT / ERR_IO
 * naming the file and line when a file is missing or malformed. */
int replay_dir(const char *dir, replay_report *r, err_info *e);

#ifdef __cplusplus
}
#endif

#endif
