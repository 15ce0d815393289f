#define _GNU_SOURCE   /* mkdtemp, memmem, flock */
#include "fuzz.h"

#include <cairo.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char dir[64];
static char path[4096];

/* Removes the files of directory d, then d (the private directories hold files only). */
static void remove_tree(const char *d)
{
    DIR *dd = opendir(d);
    if (!dd) return;
    struct dirent *de;
    while ((de = readdir(dd))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", d, de->d_name);
        unlink(p);
    }
    closedir(dd);
    rmdir(d);
}

static void remove_dir(void)
{
    remove_tree(dir);
}

/* A process that ends without its exit handlers (killed by a signal or by libFuzzer's own
 * _Exit after a timeout, a crash or SIGTERM) leaves its directory behind. Every process
 * holds a lock on its directory while it lives, so a directory of the same kind whose lock
 * is free and that is older than a few seconds (past the moment between mkdtemp and flock
 * of a process starting now) belongs to no running harness: removed. */
static void remove_abandoned(const char *parent, const char *prefix)
{
    DIR *d = opendir(parent);
    if (!d) return;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (strncmp(de->d_name, prefix, strlen(prefix)) != 0) continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", parent, de->d_name);
        struct stat st;
        int fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) continue;
        if (fstat(fd, &st) == 0 && st.st_uid == geteuid() && time(NULL) - st.st_ctime > 10 &&
            flock(fd, LOCK_EX | LOCK_NB) == 0)
            remove_tree(p);
        close(fd);
    }
    closedir(d);
}

const char *fuzz_dir(void)
{
    if (!dir[0]) {
        /* in memory where possible (every input is a few file writes); both names have
         * the same length, so the regression inputs whose effect depends on the length
         * of a path in a message reproduce anywhere */
        remove_abandoned("/dev/shm", "tmafuzz.");
        remove_abandoned("/tmp", "tmafuzz-tmp.");
        snprintf(dir, sizeof dir, "/dev/shm/tmafuzz.XXXXXX");
        if (!mkdtemp(dir))
            snprintf(dir, sizeof dir, "/tmp/tmafuzz-tmp.XXXXXX");
        if (dir[1] == 't' && !mkdtemp(dir)) {
            perror("fuzz: mkdtemp");
            abort();
        }
        /* held until the process ends, however it ends (the descriptor is never closed) */
        int lock = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (lock < 0 || flock(lock, LOCK_EX | LOCK_NB) != 0) {
            perror("fuzz: lock of the private directory");
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

/* The length of the flag of list that line is ("--flag" or "--flag=VALUE"), 0 if none;
 * *value: the text after '=', NULL without one. */
static size_t listed(const char *line, const char *const *list, const char **value)
{
    for (; list && *list; list++) {
        size_t k = strlen(*list);
        if (!strncmp(line, *list, k) && (line[k] == 0 || line[k] == '=')) {
            *value = line[k] ? line + k + 1 : NULL;
            return k;
        }
    }
    return 0;
}

/* Writes at o the private directory's stand-in for the output path value: DIR/out and the
 * value's last four characters ('/' made '_'), so the command's check of the extension
 * sees what it would have seen. Returns the end (after the NUL). */
static char *put_path(char *o, const char *value)
{
    size_t n = strlen(value), from = n > 4 ? n - 4 : 0;
    o += sprintf(o, "%s/out", fuzz_dir());
    for (size_t i = from; i < n; i++) *o++ = value[i] == '/' ? '_' : value[i];
    *o++ = 0;
    return o;
}

static char *put_line(char *o, const char *line)
{
    size_t n = strlen(line) + 1;
    memcpy(o, line, n);
    return o + n;
}

int fuzz_argv(const uint8_t *data, size_t size, const char *cmd, const char *const *drop,
              const char *const *redirect, char **argv, int max, char **store)
{
    char *text = fuzz_strndup(data, size);
    /* every entry is a line, or a flag and a stand-in path no longer than the directory
     * and 16 characters */
    char *out = malloc(size + 1 + (size_t)max * (strlen(fuzz_dir()) + 32)), *o = out;
    if (!out) abort();
    *store = out;
    int argc = 0;
    argv[argc++] = (char *)cmd;
    char *line = text;
    while (line && argc < max) {
        char *nl = memchr(line, '\n', (size_t)(text + size - line));
        if (nl) *nl = 0;
        char *next = nl ? nl + 1 : NULL;
        const char *value;
        size_t k;
        if (listed(line, drop, &value)) {
            if (!value && next) {   /* its value is the next line: left out too */
                nl = memchr(next, '\n', (size_t)(text + size - next));
                next = nl ? nl + 1 : NULL;
            }
        } else if ((k = listed(line, redirect, &value)) != 0) {
            argv[argc++] = o;
            memcpy(o, line, k);
            o += k;
            if (value) {
                *o++ = '=';
                o = put_path(o, value);
            } else {
                *o++ = 0;
                if (next && argc < max) {   /* its value is the next line */
                    nl = memchr(next, '\n', (size_t)(text + size - next));
                    if (nl) *nl = 0;
                    argv[argc++] = o;
                    o = put_path(o, next);
                    next = nl ? nl + 1 : NULL;
                }
            }
        } else {
            argv[argc++] = o;
            o = put_line(o, line);
        }
        line = next;
    }
    argv[argc] = NULL;
    free(text);
    return argc;
}

size_t fuzz_second_trace(const uint8_t *data, size_t size)
{
    const uint8_t *hit = size > 1 ? memmem(data + 1, size - 1, "TMATRACE", 8) : NULL;
    return hit ? (size_t)(hit - data) : size;
}

/* cairo's PNG encoder, replaced in every harness: the pictures of the flag harnesses are
 * drawn (the drawing code and cairo's rasteriser run as in the commands), but compressing
 * each into a PNG (libpng and zlib, no code of ours) took two thirds of an input's time.
 * What the commands' stream callback sees: the surface's error, or the 8-byte PNG
 * signature written through it (so its write and error paths still run). The commands'
 * own tests write real PNGs. */
cairo_status_t cairo_surface_write_to_png_stream(cairo_surface_t *surface, cairo_write_func_t write_func,
                                                 void *closure)
{
    static const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    cairo_surface_flush(surface);
    cairo_status_t st = cairo_surface_status(surface);
    return st != CAIRO_STATUS_SUCCESS ? st : write_func(closure, signature, sizeof signature);
}
