/* The harnesses without libFuzzer: feeds every file named on the command line, or every
 * file of every directory named, to LLVMFuzzerTestOneInput once. `make test` runs it
 * under the project's ASan/UBSan build over the committed seeds and regression inputs;
 * a sanitizer report aborts it, a clean pass prints how many inputs it ran. */
#define _DEFAULT_SOURCE
#include "fuzz.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "fuzz replay: cannot open %s\n", path);
        return 1;
    }
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap);
    for (size_t r; buf && (r = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += r;
        if (n == cap) buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    if (!buf) {
        fprintf(stderr, "fuzz replay: out of memory reading %s\n", path);
        return 1;
    }
    if (getenv("FUZZ_REPLAY_VERBOSE")) fprintf(stderr, "fuzz replay: %s\n", path);
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 0;
}

static int cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    unsigned ran = 0;
    int bad = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "fuzz replay: no such file or directory: %s\n", argv[i]);
            return 1;
        }
        if (!S_ISDIR(st.st_mode)) {
            bad |= run_file(argv[i]);
            ran++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        if (!d) return 1;
        char **names = NULL;
        size_t n = 0;
        for (struct dirent *de; (de = readdir(d));) {
            if (de->d_name[0] == '.') continue;
            names = realloc(names, (n + 1) * sizeof *names);
            names[n] = malloc(strlen(argv[i]) + strlen(de->d_name) + 2);
            sprintf(names[n++], "%s/%s", argv[i], de->d_name);
        }
        closedir(d);
        if (n) qsort(names, n, sizeof *names, cmp);
        for (size_t k = 0; k < n; k++) {
            bad |= run_file(names[k]);
            ran++;
            free(names[k]);
        }
        free(names);
    }
    printf("%s: %u inputs, no sanitizer report\n", argv[0], ran);
    return bad;
}
