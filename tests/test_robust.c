/* What coverage-guided fuzzing found at the command level, each as a user would meet it:
 * runs of hours refused up front, a clock that cannot overflow, output files that are
 * never half-written (signals, full disks, device nodes), bounded and checked inputs,
 * messages that survive long file names, JSON that stays JSON. The library-level inputs
 * live in tests/fuzz/regress and are replayed by `make fuzz-replay`. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "afile.h"
#include "cli_run.h"

#ifndef TMAVIEW_BIN
#define TMAVIEW_BIN "build/san/tmaview"
#endif

static char dir[] = "/tmp/tmrobustXXXXXX";
static char cwd[4096];

static void setup(void)
{
    cr_assert_not_null(mkdtemp(dir));
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    char p[256];
    snprintf(p, sizeof p, "%s/lsan.supp", dir);
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f);
    fputs("leak:libfontconfig.so\nleak:libdbus-1.so\nleak:libpixman-1.so\nleak:libcairo.so\n", f);
    fclose(f);
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_expect_eq(system(cmd), 0);
}

TestSuite(robust, .init = setup, .fini = teardown, .timeout = 120);

static void put(const char *name, const char *text)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f, "cannot write %s", p);
    fputs(text, f);
    fclose(f);
}

/* Runs a shell command in the scratch directory; the exit status, and stderr in err. */
static int sh(char *err, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int sh(char *err, size_t cap, const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    int k = snprintf(cmd, sizeof cmd, "cd %s && export LSAN_OPTIONS=suppressions=lsan.supp:print_suppressions=0 && ", dir);
    vsnprintf(cmd + k, sizeof cmd - (size_t)k, fmt, ap);
    va_end(ap);
    k = (int)strlen(cmd);
    snprintf(cmd + k, sizeof cmd - (size_t)k, " </dev/null >/dev/null 2>%s/stderr.txt", dir);
    int st = system(cmd);
    char p[256];
    snprintf(p, sizeof p, "%s/stderr.txt", dir);
    char *text = slurp(p);
    snprintf(err, cap, "%s", text);
    free(text);
    unlink(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Entries of the scratch directory whose name contains part. */
static int entries_with(const char *part)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    int n = 0;
    for (struct dirent *de; (de = readdir(d));)
        n += strstr(de->d_name, part) != NULL;
    closedir(d);
    return n;
}

static int is_symlink(const char *name)
{
    char p[512];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return lstat(p, &st) == 0 && S_ISLNK(st.st_mode);
}

Test(robust, a_run_of_hours_is_refused_before_it_starts_unless_forced)
{
    /* 65535 CTAs x 10000 iterations x 2 warps: about 8e9 simulated events */
    put("hours.yaml", "name: hours\nmode: warp_specialized\ngrid: {ctas: 65535}\nstages: 2\niterations: 10000\n"
                      "tensors:\n  - {name: A, dtype: f16, dims: [64, 64], box: [64, 16]}\n");
    char err[8192];
    for (int k = 0; k < 2; k++) {
        int rc = sh(err, sizeof err, "%s/%s %s hours.yaml", cwd, TMASIM_BIN, k ? "check" : "sim");
        cr_expect_eq(rc, 2, "%s", err);
        cr_expect_eq(count_lines(err), 1, "%s", err);
        cr_expect_not_null(strstr(err, "work_limit"), "%s", err);
        cr_expect_not_null(strstr(err, "--force"), "%s", err);
    }
    /* a trace past 2^26 events needs --force too, the run itself would be allowed */
    put("trace.yaml", "name: tr\nmode: warp_specialized\ngrid: {ctas: 4096}\nstages: 2\niterations: 4096\n"
                      "tensors:\n  - {name: A, dtype: f16, dims: [64, 64], box: [64, 16]}\n");
    int rc = sh(err, sizeof err, "%s/%s sim trace.yaml -o t.tmt", cwd, TMASIM_BIN);
    cr_expect_eq(rc, 2, "%s", err);
    cr_expect_not_null(strstr(err, "the trace would hold"), "%s", err);
    cr_expect_not_null(strstr(err, "--force"), "%s", err);
    cr_expect_eq(entries_with("t.tmt"), 0);
}

Test(robust, a_kernel_time_past_the_clock_is_refused_even_when_forced)
{
    /* math.amount at its documented maximum and 20000 iterations: 1.3e19 ps of math alone */
    put("mathmax.yaml", "name: math_max\nmode: warp_specialized\nstages: 2\niterations: 20000\n"
                        "tensors:\n  - {name: A, dtype: f16, dims: [64, 64], box: [64, 16]}\n"
                        "consumer:\n  math: {kind: fma, amount: 1099511627776}\n");
    char err[8192];
    const char *runs[] = {"check mathmax.yaml", "sim mathmax.yaml", "sim mathmax.yaml --force"};
    for (int k = 0; k < 3; k++) {
        int rc = sh(err, sizeof err, "%s/%s %s", cwd, TMASIM_BIN, runs[k]);
        cr_expect_eq(rc, 2, "%s: %s", runs[k], err);
        cr_expect_not_null(strstr(err, "clock_limit"), "%s: %s", runs[k], err);
    }
    /* the same description with a representable amount still runs */
    put("mathok.yaml", "name: math_ok\nmode: warp_specialized\nstages: 2\niterations: 20000\n"
                       "tensors:\n  - {name: A, dtype: f16, dims: [64, 64], box: [64, 16]}\n"
                       "consumer:\n  math: {kind: fma, amount: 1000}\n");
    cr_expect_eq(sh(err, sizeof err, "%s/%s check mathok.yaml", cwd, TMASIM_BIN), 0, "%s", err);
}

static void die_while_writing(int sig)
{
    char p[512];
    snprintf(p, sizeof p, "%s/out.tmt", dir);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        afile f;
        err_info e = {0};
        if (afile_open(&f, p, "test", &e) != ERR_OK)
            _exit(3);
        afile_write(&f, "partial", 7);
        fflush(f.fp);
        raise(sig);
        _exit(4);   /* not reached: the handler re-raises with the default action */
    }
    int st = 0;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_expect(WIFSIGNALED(st) && WTERMSIG(st) == sig, "child status %d", st);
    cr_expect_eq(entries_with("out.tmt"), 0, "a temporary file survived signal %d", sig);
}

Test(robust, a_signal_while_writing_leaves_no_temporary_file)
{
    die_while_writing(SIGINT);
    die_while_writing(SIGTERM);
}

Test(robust, a_device_behind_a_symlink_is_written_in_place_and_stays)
{
    char err[8192], p[512], q[512];
    snprintf(p, sizeof p, "%s/null.json", dir);
    snprintf(q, sizeof q, "%s/full.json", dir);
    cr_assert_eq(symlink("/dev/null", p), 0);
    cr_assert_eq(symlink("/dev/full", q), 0);
    const char *tr = "traces/h100/corpus/corpus_0001_0090.tmt";
    cr_expect_eq(sh(err, sizeof err, "%s/%s export %s/%s --chrome null.json", cwd, TMASIM_BIN, cwd, tr), 0, "%s", err);
    cr_expect(is_symlink("null.json"), "the symlink to /dev/null was replaced");
    int rc = sh(err, sizeof err, "%s/%s export %s/%s --chrome full.json", cwd, TMASIM_BIN, cwd, tr);
    cr_expect_eq(rc, 2, "%s", err);
    cr_expect_eq(count_lines(err), 1, "%s", err);
    cr_expect(is_symlink("full.json"), "the symlink to /dev/full was replaced");
    snprintf(p, sizeof p, "%s/null.pdf", dir);
    cr_assert_eq(symlink("/dev/null", p), 0);
    cr_expect_eq(sh(err, sizeof err, "%s/%s --render null.pdf %s/%s", cwd, TMAVIEW_BIN, cwd, tr), 0, "%s", err);
    cr_expect(is_symlink("null.pdf"));
    cr_expect_eq(entries_with(".tmp."), 0);
}

Test(robust, a_full_disk_is_exit_2_and_leaves_no_file)
{
    char err[8192];
    const char *tr = "traces/h100/corpus/corpus_0001_0060.tmt";
    /* RLIMIT_FSIZE stands in for a full disk: writes past it fail (SIGXFSZ ignored) */
    const char *lim = "trap '' XFSZ; ulimit -f 4;";
    int rc = sh(err, sizeof err, "%s %s/%s export %s/%s --chrome out.json", lim, cwd, TMASIM_BIN, cwd, tr);
    cr_expect_eq(rc, 2, "export: %s", err);
    rc = sh(err, sizeof err, "%s %s/%s --render out.pdf %s/%s", lim, cwd, TMAVIEW_BIN, cwd, tr);
    cr_expect_eq(rc, 2, "render: %s", err);
    rc = sh(err, sizeof err, "%s %s/%s sim %s/examples/full_grid.yaml -o out.tmt", lim, cwd, TMASIM_BIN, cwd);
    cr_expect_eq(rc, 2, "sim -o: %s", err);
    cr_expect_eq(entries_with("out."), 0, "a partial or empty output was left");
    /* tables and JSON on a full stdout */
    int st = system(TMASIM_BIN " sim examples/double_buffer.yaml --format json >/dev/full 2>/dev/null");
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 2, "sim > /dev/full: status %d", st);
}

Test(robust, parameter_files_directories_ranges_and_length)
{
    char err[8192];
    int rc = sh(err, sizeof err, "%s/%s sim %s/examples/double_buffer.yaml --params .", cwd, TMASIM_BIN, cwd);
    cr_expect_eq(rc, 2, "%s", err);
    cr_expect_not_null(strstr(err, "directory"), "%s", err);
    put("tiny.params", "clock_ghz = 1e-300\n");
    rc = sh(err, sizeof err, "%s/%s sim %s/examples/double_buffer.yaml --params tiny.params", cwd, TMASIM_BIN, cwd);
    cr_expect_eq(rc, 2, "%s", err);
    cr_expect_not_null(strstr(err, "clock_ghz"), "%s", err);
    cr_expect_not_null(strstr(err, "0.1..10"), "the range is named: %s", err);
    /* a setting after 64 KiB of comments is read (and here refused, naming its line) */
    char *big = malloc(128 * 1024);
    cr_assert_not_null(big);
    size_t n = 0;
    for (int i = 0; i < 1500; i++)
        n += (size_t)sprintf(big + n, "# comment line %04d of a long calibration file\n", i);
    sprintf(big + n, "wake_ns = -1\n");
    put("long.params", big);
    free(big);
    rc = sh(err, sizeof err, "%s/%s sim %s/examples/double_buffer.yaml --params long.params", cwd, TMASIM_BIN, cwd);
    cr_expect_eq(rc, 2, "%s", err);
    cr_expect_not_null(strstr(err, "long.params:1501: field 'wake_ns'"), "%s", err);
}

Test(robust, json_output_escapes_the_description_name)
{
    put("q.yaml", "name: \"a\\\"b\\\\c\\td\"\nmode: warp_specialized\nstages: 2\niterations: 4\n"
                  "tensors:\n  - {name: A, dtype: f16, dims: [64, 64], box: [64, 16]}\n");
    const char *cmds[] = {"sim", "check"};
    for (int k = 0; k < 2; k++) {
        char cmd[8192];
        snprintf(cmd, sizeof cmd, "cd %s && %s/%s %s q.yaml --format json > out.json", dir, cwd, TMASIM_BIN, cmds[k]);
        cr_assert_eq(system(cmd), 0, "%s", cmd);
        char p[512];
        snprintf(p, sizeof p, "%s/out.json", dir);
        json_error_t je;
        json_t *j = json_load_file(p, 0, &je);
        cr_assert_not_null(j, "%s: not JSON: %s", cmds[k], je.text);
        cr_expect_str_eq(json_string_value(json_object_get(j, "name")), "a\"b\\c\td");
        json_decref(j);
    }
}

Test(robust, a_padded_tile_past_the_shared_window_is_refused_before_generating)
{
    char err[8192];
    int rc = sh(err, sizeof err, "%s/%s bank --padded 16384,4096,16,65536 --access rows", cwd, TMASIM_BIN);
    cr_expect_eq(rc, 2, "%s", err);
    cr_expect_not_null(strstr(err, "layout_size"), "%s", err);
    cr_expect_not_null(strstr(err, "233472-byte shared window"), "%s", err);
}

Test(robust, an_error_on_a_later_line_behind_a_long_file_name_keeps_name_line_and_text)
{
    char name[300];
    memset(name, 'n', 245);
    strcpy(name + 245, ".yaml");
    put(name, "name: big_stage\nmode: warp_specialized\nstages: 8\niterations: 4\ntensors:\n  - name: A\n"
              "    dtype: f32\n    dims: [4096, 4096]\n    box: [256, 256]\n");
    char err[8192];
    int rc = sh(err, sizeof err, "%s/%s check %s", cwd, TMASIM_BIN, name);
    cr_expect_eq(rc, 2, "%s", err);
    char want[400];
    snprintf(want, sizeof want, "%s:6: field 'tensors[0]'", name);
    cr_expect_not_null(strstr(err, want), "%s", err);
    cr_expect_not_null(strstr(err, "past 228 KB"), "the message's end survives: %s", err);

    strcpy(name + 245, ".json");
    put(name, "{\"traceEvents\": [\n"
              "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0},\n"
              "{\"ph\":\"X\",\"name\":\"wait\",\"args\":{\"t_ns\":0}}\n]}\n");
    rc = sh(err, sizeof err, "%s/%s export --import %s -o o.tmt", cwd, TMASIM_BIN, name);
    cr_expect_eq(rc, 2, "%s", err);
    snprintf(want, sizeof want, "%s:3: traceEvents[1]: field 'args.dur_ns'", name);
    cr_expect_not_null(strstr(err, want), "%s", err);
}

Test(robust, trace_times_beyond_2_to_the_53_are_refused_naming_the_field)
{
    char err[8192];
    const char *tr = "tests/fuzz/regress/fuzz_trace/times_at_int64_limits.tmt";
    int rc = sh(err, sizeof err, "%s/%s export %s/%s --chrome o.json", cwd, TMASIM_BIN, cwd, tr);
    cr_expect_eq(rc, 2, "%s", err);
    cr_expect_not_null(strstr(err, "'t_ns'"), "%s", err);
    rc = sh(err, sizeof err, "%s/%s diff %s/%s %s/%s", cwd, TMASIM_BIN, cwd, tr, cwd, tr);
    cr_expect_eq(rc, 2, "%s", err);
    cr_expect_not_null(strstr(err, "'t_ns'"), "%s", err);
    rc = sh(err, sizeof err, "%s/%s --render o.png %s/%s", cwd, TMAVIEW_BIN, cwd, tr);
    cr_expect_eq(rc, 2, "%s", err);
    rc = sh(err, sizeof err, "%s/%s export --import %s/tests/fuzz/regress/fuzz_chrome/t_ns_2pow62.json -o o.tmt", cwd,
            TMASIM_BIN, cwd);
    cr_expect_eq(rc, 2, "%s", err);
    cr_expect_not_null(strstr(err, "args.t_ns"), "%s", err);
    cr_expect_eq(entries_with("o."), 0);
    /* the viewer's own time flags stay within the same range */
    const char *spans[] = {"--range -8.9e18:8.9e18", "--stats -8.9e18:8.9e18", "--range 0:9.1e15"};
    for (int k = 0; k < 3; k++) {
        rc = sh(err, sizeof err, "%s/%s --render o.png %s %s/traces/h100/corpus/corpus_0001_0090.tmt", cwd, TMAVIEW_BIN,
                spans[k], cwd);
        cr_expect_eq(rc, 2, "%s: %s", spans[k], err);
        cr_expect_not_null(strstr(err, "2^53"), "%s: %s", spans[k], err);
    }
    /* the extremes that are allowed load, render (the 2-event axis ends) and export */
    const char *ok = "tests/fuzz/regress/fuzz_view/two_events_at_trace_max_ns.tmt";
    cr_expect_eq(sh(err, sizeof err, "timeout 60 %s/%s --render o.png %s/%s", cwd, TMAVIEW_BIN, cwd, ok), 0, "%s", err);
    cr_expect_eq(sh(err, sizeof err, "%s/%s export %s/%s --chrome o.json && %s/%s export --import o.json -o o.tmt", cwd,
                    TMASIM_BIN, cwd, ok, cwd, TMASIM_BIN),
                 0, "%s", err);
}

/* A run estimated past a second draws a progress line on a terminal (script(1) gives it
 * one) and nothing when stderr is not one; stdout holds the table alone either way. The
 * optimised build: the sanitizer one would take a minute for the same run. */
#ifndef TMASIM_REL_BIN
#define TMASIM_REL_BIN "build/rel/tmasim"
#endif
Test(robust, a_long_sim_shows_progress_on_a_terminal_only)
{
    if (system("command -v script >/dev/null 2>&1") != 0)
        cr_skip_test("script(1) is not installed: no terminal to run under");
    char err[4096];
    cr_assert_eq(sh(err, sizeof err, "(sed 's/^iterations: .*/iterations: 3000/' %s/examples/full_grid.yaml > long.yaml)",
                    cwd), 0, "%s", err);
    cr_assert_eq(sh(err, sizeof err, "script -qec '%s/%s sim long.yaml' tty.txt > /dev/null", cwd, TMASIM_REL_BIN), 0,
                 "%s", err);
    char p[512];
    snprintf(p, sizeof p, "%s/tty.txt", dir);
    char *tty = slurp(p);
    cr_expect(strstr(tty, "\rsim [") != NULL && strstr(tty, "%") != NULL, "no progress line on the terminal: %.400s", tty);
    cr_expect(strstr(tty, "predicted kernel time") != NULL, "%.400s", tty);
    free(tty);
    cr_assert_eq(sh(err, sizeof err, "(%s/%s sim long.yaml > plain.txt)", cwd, TMASIM_REL_BIN), 0, "%s", err);
    cr_expect(strstr(err, "sim [") == NULL, "progress drawn on a stderr that is no terminal: %s", err);
    snprintf(p, sizeof p, "%s/plain.txt", dir);
    char *out = slurp(p);
    cr_expect(strstr(out, "\r") == NULL && strstr(out, "predicted kernel time") != NULL, "%s", out);
    free(out);
}
