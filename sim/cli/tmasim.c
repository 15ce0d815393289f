/* tmasim: the command-line front of the model library. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"
#include "draw_cache.h"

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
    {"export", cmd_export, "convert a trace to or from Chrome Trace Event JSON"},
    {"diff", cmd_diff, "compare a simulated trace with a measured one"},
    {"demo", cmd_demo, "the bundled example: 128B-swizzled 64x64 f16 tile"},
    {"corpus", cmd_corpus, "a seeded random corpus of pipeline descriptions (for recording on GPUs)"},
    {"accuracy", cmd_accuracy, "the simulator against a corpus recorded on GPUs (error table, verdicts)"},
};

static void usage(FILE *to)
{
    fprintf(to, "usage: tmasim <command> [options]   (tmasim <command> --help for its flags)\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(to, "  %-8s %s\n", commands[i].name, commands[i].what);
    fprintf(to, "\nexit status: 0 ok, 1 finding (conflict, rejection, hang, mismatch), 2 bad input\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_BAD_INPUT;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) {
            int rc = commands[i].fn(argc - 1, argv + 1);
            draw_release_caches();
            /* what went to stdout (tables, JSON) is output too: a failed write is exit 2 */
            errno = 0;
            if (fflush(stdout) != 0 || ferror(stdout)) {
                fprintf(stderr, "tmasim %s: stdout: write failed: %s\n", argv[1], strerror(errno ? errno : EIO));
                return EXIT_BAD_INPUT;
            }
            return rc;
        }
    fprintf(stderr, "tmasim: command: '%s' is not one of: layout bank replay check sim export diff demo\n", argv[1]);
    return EXIT_BAD_INPUT;
}
