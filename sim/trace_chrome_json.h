/* trace_chrome_json: Chrome Trace Event JSON (opens in Perfetto UI and chrome://tracing)
 * from a native trace, and back. Lives in libtmadesc (jansson).
 *
 * Export: microseconds with 3 decimals, rebased to the first event; one process per CTA
 * ("SM s / CTA c"), one thread per warp ("warp w (role)"), spans as X events, instants as
 * i events, flows (s/f) from each TMA issue to every wait on the full barrier it ended.
 * Every native field is kept in args, so import restores the trace exactly. */
#ifndef TMASCOPE_TRACE_CHROME_JSON_H
#define TMASCOPE_TRACE_CHROME_JSON_H

#include <stdio.h>

#include "err.h"
#include "trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes the JSON document to fp (the caller makes it atomic, e.g. cli_outfile). */
int trace_chrome_write(FILE *fp, const trace *t, err_info *e);
/* Reads a document written by trace_chrome_write (or any Chrome trace whose X/i events
 * carry the tmascope args); ERR_BAD_INPUT names the file, the event index and the field. */
/* Files past this size (or directories) are refused before they are read. */
#define TRACE_CHROME_MAX_FILE_BYTES (1ull << 30)
int trace_chrome_read(const char *path, trace *t, err_info *e);
/* trace_chrome_read of a document held in memory (len bytes, no NUL needed); path only
 * names it in messages. */
int trace_chrome_read_mem(const char *text, size_t len, const char *path, trace *t, err_info *e);

#ifdef __cplusplus
}
#endif

#endif
