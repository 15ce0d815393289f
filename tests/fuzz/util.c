#define _GNU_SOURCE   /* mkdtemp, memmem */
#include "fuzz.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[64];
static char path[4096];

static void remove_dir(void)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

const char *fuzz_dir(void)
{
    if (!dir[0]) {
        /* in memory where possible (every input is a few file writes); both names have
         * the same length, so the regression inputs whose effect depends on the length
         * of a path in a message reproduce anywhere */
        snprintf(dir, sizeof dir, "/dev/shm/tmafuzz.XXXXXX");
        if (!mkdtemp(dir))
            snprintf(dir, sizeof dir, "/tmp/tmafuzz-tmp.XXXXXX");
        if (dir[1] == 't' && !mkdtemp(dir)) {
            perror("fuzz: mkdtemp");
            abort();
        }
        atexit(remove_dir);
    }
    return dir;
}

static const char *name_of(char *name, size_t cap, size_t len, const char *suffix)
{
    size_t n = len - strlen(suffix);
    memset(name, 'n', n);
    snprintf(name + n, cap - n, "%s", suffix);
    return name;
}

const char *fuzz_long_name(const char *suffix, size_t size)
{
    static char name[320];
    return name_of(name, sizeof name, 240 + size % 60, suffix);
}

const char *fuzz_varied_file_name(const char *suffix, size_t size)
{
    static char name[260];
    return name_of(name, sizeof name, 200 + size % 50, suffix);
}

const char *fuzz_file_name(const char *suffix)
{
    static char name[260];
    return name_of(name, sizeof name, 230, suffix);
}

const char *fuzz_write(const char *name, const void *data, size_t size)
{
    snprintf(path, sizeof path, "%s/%s", fuzz_dir(), name);
    FILE *f = fopen(path, "wb");
    if (!f) return NULL;
    size_t w = size ? fwrite(data, 1, size, f) : 0;
    if (fclose(f) != 0 || w != size) return NULL;
    return path;
}

char *fuzz_strndup(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s) abort();
    if (size) memcpy(s, data, size);
    s[size] = 0;
    return s;
}

size_t fuzz_split(const uint8_t *data, size_t size, const char *sep, const uint8_t **part, size_t *len, size_t max)
{
    size_t n = 0, start = 0, k = strlen(sep);
    const uint8_t *hit;
    while (n + 1 < max && k && (hit = memmem(data + start, size - start, sep, k))) {
        part[n] = data + start;
        len[n++] = (size_t)(hit - data) - start;
        start = (size_t)(hit - data) + k;
    }
    part[n] = data + start;
    len[n++] = size - start;
    return n;
}

int fuzz_argv(const uint8_t *data, size_t size, const char *cmd, const char *const *drop, char **argv, int max,
              char **store)
{
    char *s = fuzz_strndup(data, size);
    *store = s;
    int argc = 0;
    argv[argc++] = (char *)cmd;
    char *line = s;
    while (line && argc < max) {
        char *nl = memchr(line, '\n', (size_t)(s + size - line));
        if (nl) *nl = 0;
        int dropped = 0;
        for (const char *const *d = drop; *d; d++)
            if (!strcmp(line, *d)) dropped = 1;
        if (dropped) {
            /* skip the flag's value too */
            line = nl ? nl + 1 : NULL;
            if (line) {
                char *nl2 = memchr(line, '\n', (size_t)(s + size - line));
                line = nl2 ? nl2 + 1 : NULL;
            }
            continue;
        }
        argv[argc++] = line;
        line = nl ? nl + 1 : NULL;
    }
    argv[argc] = NULL;
    return argc;
}

size_t fuzz_second_trace(const uint8_t *data, size_t size)
{
    const uint8_t *hit = size > 1 ? memmem(data + 1, size - 1, "TMATRACE", 8) : NULL;
    return hit ? (size_t)(hit - data) : size;
}
