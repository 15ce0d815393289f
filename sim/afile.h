/* afile: how every tmascope output file is written. A regular file (or a new one) is
 * written to PATH.tmp.PID and renamed over PATH on commit, so a reader never sees half
 * of it; anything else (a device such as /dev/stdout or /dev/null, a FIFO, a symlink to
 * one) is written in place, since renaming over it would replace the device with a
 * file. Every write, flush and close is checked: a failed one (disk full) makes commit
 * ERR_IO and removes the temporary file, so no empty or partial result is left.
 * Temporary files still open are removed when the process gets SIGINT, SIGTERM or SIGHUP
 * (a handler is installed on the first open, where the signal is at its default). */
#ifndef TMASCOPE_AFILE_H
#define TMASCOPE_AFILE_H

#include <stddef.h>
#include <stdio.h>

#include "err.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct afile {
    FILE *fp;
    char *path;      /* the target */
    char *tmp;       /* the temporary file; NULL when written in place */
    int failed;      /* a write through afile_write failed */
} afile;

/* Opens path for writing ("what" names the output in messages, e.g. "--chrome"). */
int afile_open(afile *f, const char *path, const char *what, err_info *e);
/* fwrite that remembers a failure (for callbacks such as cairo's stream writers). */
int afile_write(afile *f, const void *data, size_t n);
/* Flushes, closes and renames into place; ERR_IO naming the path and the system's
 * reason on any failure (the temporary file is then removed). Frees f's strings. */
int afile_commit(afile *f, const char *what, err_info *e);
/* Closes and removes the temporary file (nothing is left); frees f's strings. */
void afile_abort(afile *f);

#ifdef __cplusplus
}
#endif

#endif
