/* rfile: a whole open file into memory, however long. */
#ifndef TMASCOPE_RFILE_H
#define TMASCOPE_RFILE_H

#include <stddef.h>
#include <stdio.h>

/* Reads fp to its end into a NUL-terminated buffer (caller frees); *len gets the byte
 * count. NULL when memory runs out. Does not close fp. */
char *rfile_read(FILE *fp, size_t *len);

#endif
