/* fuzz: what the libFuzzer harnesses share. Each harness (fuzz_*.c) defines
 * LLVMFuzzerTestOneInput; with clang it links libFuzzer (`make fuzz`), with gcc it links
 * replay_main.c, which feeds it every committed seed and regression input (`make test`).
 *
 * Loaders with a from-memory entry point (trace_read_mem, trace_chrome_read_mem: the
 * same code their path versions run) get the input as it is; loaders that take only a
 * path get it written into a private temporary directory (made once per process,
 * removed at exit; one that a killed or crashed process left is removed by the next
 * harness that starts). Harnesses write nowhere else. Names are long on purpose: error messages name the file, and a
 * long name is what cuts a message short. */
#ifndef TMASCOPE_FUZZ_H
#define TMASCOPE_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A name of 240..299 characters ending in suffix (".yaml", ...), for parsers that only
 * put the name in their messages; the length follows the input's size, so the fuzzer
 * tries every length around the 255 where fixed fields used to cut names. */
const char *fuzz_long_name(const char *suffix, size_t size);
/* The same for names in the private directory: 200..249 characters (a path of 224..273). */
const char *fuzz_varied_file_name(const char *suffix, size_t size);
/* A name of 230 characters ending in suffix, for files the harness creates (with a
 * ".tmp.PID" added it still fits the file system's 255). */
const char *fuzz_file_name(const char *suffix);
/* Writes data to name inside the private directory; returns the full path (valid until
 * the next call with the same name) or NULL when the file could not be written. */
const char *fuzz_write(const char *name, const void *data, size_t size);
/* The private directory. */
const char *fuzz_dir(void);
/* A NUL-terminated copy (caller frees). */
char *fuzz_strndup(const uint8_t *data, size_t size);
/* Splits data at each occurrence of sep (not included) into at most max parts; returns
 * how many. Parts point into data. */
size_t fuzz_split(const uint8_t *data, size_t size, const char *sep, const uint8_t **part, size_t *len, size_t max);
/* Where the second of two native traces given back to back starts: the first
 * "TMATRACE" after offset 0 (size when there is none). */
size_t fuzz_second_trace(const uint8_t *data, size_t size);
/* Turns lines of data into an argv (argv[0] = cmd), at most max entries. Every flag of
 * drop is left out with its value ("--flag VALUE" and "--flag=VALUE"); the value of every
 * flag of redirect (output files) becomes a path in the private directory ending in the
 * value's last four characters, so the command writes there and nowhere else, and its
 * check of the extension sees what the input gave. Strings are owned by *store (caller
 * frees). */
int fuzz_argv(const uint8_t *data, size_t size, const char *cmd, const char *const *drop,
              const char *const *redirect, char **argv, int max, char **store);

#endif
