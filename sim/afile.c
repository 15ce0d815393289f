#include "afile.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Temporary files open now, for the signal handler. A slot holds a pointer set before
 * the file is created and cleared before it is freed; more files open at once than
 * slots are still written, only not removed on a signal. */
enum { SLOTS = 16 };
static char *volatile live[SLOTS];
static volatile sig_atomic_t handlers_installed;

static void on_signal(int sig)
{
    for (int i = 0; i < SLOTS; i++) {
        char *p = live[i];
        if (p)
            unlink(p);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_handlers(void)
{
    if (handlers_installed)
        return;
    handlers_installed = 1;
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL)
            continue;   /* the program handles it itself */
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
}

static void track(char *tmp)
{
    for (int i = 0; i < SLOTS; i++)
        if (!live[i]) {
            live[i] = tmp;
            return;
        }
}

static void untrack(const char *tmp)
{
    for (int i = 0; i < SLOTS; i++)
        if (live[i] == tmp)
            live[i] = NULL;
}

static void release(afile *f)
{
    if (f->tmp)
        untrack(f->tmp);
    free(f->tmp);
    free(f->path);
    f->tmp = f->path = NULL;
    f->fp = NULL;
}

int afile_open(afile *f, const char *path, const char *what, err_info *e)
{
    memset(f, 0, sizeof *f);
    if (!path[0])
        return err_set(e, ERR_BAD_INPUT, what, "empty output path");
    struct stat st;
    int in_place = stat(path, &st) == 0 && !S_ISREG(st.st_mode);
    if (in_place && S_ISDIR(st.st_mode))
        return err_set(e, ERR_BAD_INPUT, what, "%s is a directory", path);
    size_t n = strlen(path);
    f->path = malloc(n + 1);
    if (!f->path)
        return err_set(e, ERR_IO, what, "out of memory");
    memcpy(f->path, path, n + 1);
    if (in_place) {
        f->fp = fopen(path, "wb");
        if (!f->fp) {
            int err = errno;
            release(f);
            return err_set(e, ERR_IO, what, "cannot write %s: %s", path, strerror(err));
        }
        return ERR_OK;
    }
    size_t cap = n + 32;
    f->tmp = malloc(cap);
    if (!f->tmp) {
        release(f);
        return err_set(e, ERR_IO, what, "out of memory");
    }
    snprintf(f->tmp, cap, "%s.tmp.%ld", path, (long)getpid());
    install_handlers();
    track(f->tmp);
    f->fp = fopen(f->tmp, "wb");
    if (!f->fp) {
        int err = errno;
        release(f);
        return err_set(e, ERR_IO, what, "cannot write %s: %s", path, strerror(err));
    }
    return ERR_OK;
}

int afile_write(afile *f, const void *data, size_t n)
{
    if (f->failed)
        return -1;
    if (n && fwrite(data, 1, n, f->fp) != n) {
        f->failed = errno ? errno : EIO;
        return -1;
    }
    return 0;
}

int afile_commit(afile *f, const char *what, err_info *e)
{
    errno = 0;
    int err = f->failed;
    if (fflush(f->fp) != 0 && !err)
        err = errno ? errno : EIO;
    if (ferror(f->fp) && !err)
        err = errno ? errno : EIO;
    if (fclose(f->fp) != 0 && !err)
        err = errno ? errno : EIO;
    f->fp = NULL;
    if (!err && f->tmp && rename(f->tmp, f->path) != 0)
        err = errno ? errno : EIO;
    int rc = ERR_OK;
    if (err) {
        if (f->tmp)
            unlink(f->tmp);
        rc = err_set(e, ERR_IO, what, "cannot write %s: %s", f->path, strerror(err));
    }
    release(f);
    return rc;
}

void afile_abort(afile *f)
{
    if (f->fp)
        fclose(f->fp);
    if (f->tmp)
        unlink(f->tmp);
    release(f);
}
