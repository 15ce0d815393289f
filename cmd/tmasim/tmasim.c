/* tmasim: the command-line front of the model library. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"
#include "draw_cache.h"
#include "trace.h"

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *what;
} commands[] = {
    {"layout", cmd_layout, "where a TMA box lands in shared memory (cuTensorMapEncodeTiled flags)"},
    {"bank", cmd_bank, "wavefronts and bank conflicts of warp instructions or of a tile read"},
    {"replay", cmd_replay, "compare the model with recorded H100 results (traces/h100/validation)"},
    {"check", cmd_check, "protocol check of a pipeline description"},
    {"sim", cmd_sim, "simulate a pipeline description and write a trace"},
    {"sweep", cmd_sweep, "predict a grid of configurations on every core, ranked (Slurm job arrays)"},
    {"export", cmd_export, "convert a trace to or from Chrome Trace Event JSON"},
    {"diff", cmd_diff, "compare a simulated trace with a measured one"},
    {"demo", cmd_demo, "the bundled example: 128B-swizzled 64x64 f16 tile"},
    {"corpus", cmd_corpus, "a seeded random corpus of pipeline descriptions (for recording on GPUs)"},
    {"wgmma", cmd_wgmma, "where wgmma reads each operand element from its descriptor; check against the TMA tile"},
    {"accuracy", cmd_accuracy, "the simulator against a corpus recorded on GPUs (error table, verdicts)"},
};

static void usage(FILE *to)
{
    fprintf(to, "usage: tmasim <command> [options]   (tmasim help <command> or tmasim <command> --help for its\n"
                "flags; --version with any command prints the version)\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(to, "  %-8s %s\n", commands[i].name, commands[i].what);
    fprintf(to, "\nexit status: 0 ok, 1 finding (conflict, rejection, hang, mismatch), 2 bad input\n");
}

static void version(const char *cmd)
{
    printf("tmasim%s%s %s (trace format %d)\n", cmd ? " " : "", cmd ? cmd : "", TMASCOPE_VERSION, TRACE_FORMAT_VERSION);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_BAD_INPUT;
    }
    if (!strcmp(argv[1], "--version")) {
        version(NULL);
        return EXIT_OK;
    }
    int help = !strcmp(argv[1], "help");
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || (help && argc == 2)) {
        usage(stdout);
        return EXIT_OK;
    }
    const char *name = help ? argv[2] : argv[1];
    char *help_argv[] = {argv[2], "--help", NULL};
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(name, commands[i].name)) continue;
        /* --version anywhere answers before the command looks at its other flags */
        for (int a = 2; a < argc && !help; a++)
            if (!strcmp(argv[a], "--version")) {
                version(name);
                return EXIT_OK;
            }
        int rc = help ? commands[i].fn(2, help_argv) : commands[i].fn(argc - 1, argv + 1);
        draw_release_caches();
        /* what went to stdout (tables, JSON) is output too: a failed write is exit 2 */
        errno = 0;
        if (fflush(stdout) != 0 || ferror(stdout)) {
            fprintf(stderr, "tmasim %s: stdout: write failed: %s\n", name, strerror(errno ? errno : EIO));
            return EXIT_BAD_INPUT;
        }
        return rc;
    }
    fprintf(stderr, "tmasim: %s: '%s' is not one of:", help ? "help" : "command", name);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) fprintf(stderr, " %s", commands[i].name);
    fprintf(stderr, " help\n");
    return EXIT_BAD_INPUT;
}
