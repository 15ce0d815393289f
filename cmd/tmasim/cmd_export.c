/* tmasim export: native trace -> Chrome Trace Event JSON (Perfetto), and back. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"
#include "trace.h"
#include "trace_chrome_json.h"

static void usage(FILE *to)
{
    fprintf(to,
            "usage: tmasim export TRACE --chrome OUT.json\n"
            "       tmasim export --import IN.json -o TRACE\n"
            "\n"
            "Chrome Trace Event JSON opens in Perfetto UI (ui.perfetto.dev) and chrome://tracing:\n"
            "microseconds with 3 decimals rebased to the first event, one process per CTA\n"
            "(\"SM s / CTA c\"), one thread per warp, flows from each TMA issue to the waits it ends.\n"
            "Every native field travels in args, so --import restores the trace exactly.\n"
            "exit status: 0 ok, 2 bad input\n");
}

int cmd_export(int argc, char **argv)
{
    const char *in = NULL, *chrome = NULL, *import = NULL, *out = NULL;
    err_info e = {0};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return EXIT_OK;
        } else if (i + 1 < argc && !strcmp(argv[i], "--chrome")) {
            chrome = argv[++i];
            if (cli_check_outpath("--chrome", chrome, &e)) return cli_report("export", &e);
        } else if (i + 1 < argc && !strcmp(argv[i], "--import")) {
            import = argv[++i];
        } else if (i + 1 < argc && !strcmp(argv[i], "-o")) {
            out = argv[++i];
            if (cli_check_outpath("-o", out, &e)) return cli_report("export", &e);
        } else if (!strcmp(argv[i], "--chrome") || !strcmp(argv[i], "--import") || !strcmp(argv[i], "-o")) {
            fprintf(stderr, "tmasim export: %s: needs a value (a file name)\n", argv[i]);
            return EXIT_BAD_INPUT;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "tmasim export: unknown option '%s' (allowed --chrome, --import, -o, --help)\n", argv[i]);
            return EXIT_BAD_INPUT;
        } else if (!in) {
            in = argv[i];
        } else {
            fprintf(stderr, "tmasim export: more than one trace ('%s')\n", argv[i]);
            return EXIT_BAD_INPUT;
        }
    }
    if (import) {
        if (!out || in || chrome) {
            fprintf(stderr, "tmasim export: --import IN.json needs -o TRACE and nothing else\n");
            return EXIT_BAD_INPUT;
        }
        trace t;
        if (trace_chrome_read(import, &t, &e))
            return cli_report("export", &e);
        int rc = trace_write(out, &t, &e);
        size_t n = t.count;
        trace_free(&t);
        if (rc)
            return cli_report("export", &e);
        printf("%s: %zu events imported from %s\n", out, n, import);
        return EXIT_OK;
    }
    if (!in || !chrome) {
        fprintf(stderr, "tmasim export: %s: missing (usage: tmasim export TRACE --chrome OUT.json, or "
                        "tmasim export --import IN.json -o TRACE)\n", !in ? "TRACE" : "--chrome");
        return EXIT_BAD_INPUT;
    }
    trace t;
    if (trace_read(in, &t, &e))
        return cli_report("export", &e);
    if (t.truncated)
        fprintf(stderr, "tmasim export: %s: truncated file, exporting the %zu intact events\n", in, t.count);
    cli_outfile o;
    if (cli_outfile_open(&o, chrome, &e)) {
        trace_free(&t);
        return cli_report("export", &e);
    }
    if (trace_chrome_write(o.fp, &t, &e)) {
        cli_outfile_abort(&o);
        trace_free(&t);
        return cli_report("export", &e);
    }
    size_t n = t.count;
    trace_free(&t);
    if (cli_outfile_commit(&o, &e))
        return cli_report("export", &e);
    printf("%s: %zu events (Chrome Trace Event JSON; open in ui.perfetto.dev)\n", chrome, n);
    return EXIT_OK;
}
