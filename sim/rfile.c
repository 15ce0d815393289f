#include "rfile.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>

char *rfile_read(FILE *fp, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - 1 - n, fp);
        if (n < cap - 1)
            break;
        char *grown = realloc(buf, cap * 2);
        if (!grown) {
            free(buf);
            return NULL;
        }
        buf = grown;
        cap *= 2;
    }
    if (buf) {
        buf[n] = 0;
        *len = n;
    }
    return buf;
}

char *rfile_load(const char *path, size_t max_bytes, size_t *len, int *err)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        *err = errno;
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(fp), &st) == 0 && (S_ISDIR(st.st_mode) || (S_ISREG(st.st_mode) && (uint64_t)st.st_size > max_bytes))) {
        *err = S_ISDIR(st.st_mode) ? EISDIR : EFBIG;
        fclose(fp);
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - 1 - n, fp);
        if (n < cap - 1 || n > max_bytes)
            break;
        char *grown = realloc(buf, cap * 2);   /* n <= max_bytes here: cap stays below 2 * max_bytes + 2 */
        if (!grown) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = grown;
        cap *= 2;
    }
    int bad = ferror(fp) ? (errno ? errno : EIO) : 0;
    fclose(fp);
    if (!buf) {
        *err = ENOMEM;
        return NULL;
    }
    if (bad || n > max_bytes) {
        free(buf);
        *err = bad ? bad : EFBIG;
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}
