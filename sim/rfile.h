/* rfile: a whole file into memory, bounded. */
#ifndef TMASCOPE_RFILE_H
#define TMASCOPE_RFILE_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Reads fp to its end into a NUL-terminated buffer (caller frees); *len gets the byte
 * count. NULL when memory runs out. Does not close fp. */
char *rfile_read(FILE *fp, size_t *len);

/* Reads the file at path into a NUL-terminated buffer (caller frees), refusing what is
 * not a file's text before allocating for it: NULL with *err = EISDIR for a directory,
 * EFBIG when it holds more than max_bytes (a regular file's size is checked up front,
 * a stream's as it arrives), the system's errno when it cannot be opened or read, or
 * ENOMEM. */
char *rfile_load(const char *path, size_t max_bytes, size_t *len, int *err);

#ifdef __cplusplus
}
#endif

#endif
