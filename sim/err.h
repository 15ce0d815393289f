/* err: the one error type of the tmascope libraries.
 * Library functions never print and never exit: they fill an err_info that names
 * the rule that failed and the offending value, and return a code. */
#ifndef TMASCOPE_ERR_H
#define TMASCOPE_ERR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    ERR_OK = 0,
    ERR_FINDING = 1,   /* the input is well formed but the answer is "no" (rejected map, hang, mismatch) */
    ERR_BAD_INPUT = 2, /* malformed input: wrong flag, value out of the allowed set, unreadable file */
    ERR_IO = 3,        /* file system or resource failure */
};

/* Room for the longest message the libraries write (a deadlock's wait chain, whole) and
 * for a long path with its message: messages name the file first. Hot paths must not keep
 * an err_info on the stack per call (the sanitizer build pays for every such frame; the
 * simulator keeps one for its barrier operations). */
#define ERR_DETAIL_BYTES 4096

typedef struct err_info {
    int code;
    char rule[64];     /* short machine-readable rule name, e.g. "box_inner_bytes_multiple_of_16" */
    char detail[ERR_DETAIL_BYTES]; /* the value and what was allowed, e.g. "boxDim[0]*4 = 24 bytes" */
} err_info;

/* The rule as a user reads it in "rule: detail": the names of loading and writing
 * steps (desc_open, trace_header, params_open, param_name, ...) become the thing they
 * are about ("description", "trace", "parameters file", "parameter"); rules that are
 * the user's own terms (field names, validation rules) come back unchanged. */
const char *err_rule_label(const char *rule);

/* Sets *e (if e is not NULL) and returns code. detail is printf-formatted; a detail
 * longer than the buffer (none the libraries write) ends with a note saying how many
 * characters are missing rather than stopping mid-word unannounced. */
int err_set(err_info *e, int code, const char *rule, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void err_clear(err_info *e);
/* Inserts text into e->detail at byte offset at (nothing when at is past the end); when
 * the result does not fit, the end of the old text is dropped, never the inserted text. */
void err_insert(err_info *e, size_t at, const char *text);

#ifdef __cplusplus
}
#endif

#endif
