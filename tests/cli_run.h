/* Running `tmasim SUBCOMMAND ARGS` from a test as a user would, capturing exit status,
 * stdout and stderr (shared by the CLI suites; header-only like viz_synth.h). */
#ifndef TMASCOPE_TESTS_CLI_RUN_H
#define TMASCOPE_TESTS_CLI_RUN_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef TMASIM_BIN
#define TMASIM_BIN "build/san/tmasim"
#endif

typedef struct run_result {
    int status;
    char *out;
    char *err;
} run_result;

/* The whole file as a string ("" when it cannot be read); free() it. */
static inline char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return strdup("");
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = 0;
    fclose(f);
    return s;
}

/* The number after "KEY": in a recorded JSON file (a `tmahw run --format json` report). */
static inline double recorded_number(const char *path, const char *key)
{
    char *s = slurp(path), pat[64];
    cr_assert(s[0], "%s: cannot be read", path);
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *v = strstr(s, pat);
    cr_assert_not_null(v, "%s: no %s", path, key);
    double x = strtod(v + strlen(pat), NULL);
    free(s);
    return x;
}

/* `BIN SUBCOMMAND ARGS`: cli_run with another build of tmasim */
static inline run_result cli_run_bin(const char *bin, const char *subcommand, const char *args)
{
    char dir[] = "/tmp/tmcliXXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char cmd[4096], out[64], err[64];
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(err, sizeof err, "%s/err", dir);
    snprintf(cmd, sizeof cmd, "%s %s %s >%s 2>%s", bin, subcommand, args, out, err);
    int st = system(cmd);
    run_result r = {WIFEXITED(st) ? WEXITSTATUS(st) : -1, slurp(out), slurp(err)};
    unlink(out), unlink(err), rmdir(dir);
    return r;
}

static inline run_result cli_run(const char *subcommand, const char *args)
{
    return cli_run_bin(TMASIM_BIN, subcommand, args);
}

static inline void done(run_result *r) { free(r->out), free(r->err); }

static inline int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

#endif
