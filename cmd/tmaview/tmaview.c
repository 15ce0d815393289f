/* tmaview: timeline of one trace, or of a simulated and a measured trace side by side.
 *   tmaview TRACE [TRACE2]                         window (SDL2)
 *   tmaview --render out.png|svg|pdf [--range a:b] TRACE [TRACE2]   no window
 * The window can be driven by a script of input events (--script) and photographed
 * (--screenshot): that is how the tests exercise it under Xvfb. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "desc.h"
#include "draw_timeline.h"
#include "tmaview_app.h"

/* the toolkit's version (cmd/tmasim/cli.h TMASCOPE_VERSION; the viewer does not include
 * the command layer of tmasim) */
#define TMASCOPE_VIEW_VERSION "0.1.0"

static void usage(FILE *to)
{
    fprintf(to,
            "usage: tmaview [options] TRACE [TRACE2]\n"
            "  --render FILE     draw to FILE (.png, .svg or .pdf) without a window\n"
            "  --range A:B       show display time A..B (ns; suffix us/ms allowed)\n"
            "  --stats A:B       range statistics and the wait histogram of display time A..B\n"
            "  --size WxH        canvas size (default 1400x800)\n"
            "  --scale K         presentation scale 0.5..4: labels, pills, panel and rows K times larger\n"
            "                    (default: the size over 1280x720 in quarter steps, at least 1;\n"
            "                    1.5 at 1920x1080, 3 at 3840x2160; ctrl +/- and ctrl 0 in the window)\n"
            "  --ctas LIST       show and compare only these CTAs (0-7, 0,3,9-11); by default every CTA is\n"
            "                    shown and range statistics count the CTAs both traces hold\n"
            "  --select QUERY    select the first event matching QUERY (kind=wait stage=1 iter=3 role=consumer)\n"
            "  --desc FILE       the pipeline description (YAML) behind the traces: a selected smem_read\n"
            "                    shows its bank picture (default: the description the trace carries,\n"
            "                    else examples/NAME.yaml, NAME from the trace)\n"
            "  --script FILE     feed the window input events from FILE (one per line:\n"
            "                    key [ctrl+]K | move X Y | click X Y [B] | drag X0 Y0 X1 Y1 [B] | wheel X Y DY |\n"
            "                    search QUERY | wait FRAMES | screenshot PATH | quit)\n"
            "  --version         print the version and exit\n"
            "  --screenshot FILE write the window's pixels to FILE (PNG) after the script, then exit\n"
            "keys: wheel/w/s zoom at the cursor, drag or a/d pan, f fit selection, click select,\n"
            "      right-drag or shift-drag range statistics, / search, n/N next/previous hit,\n"
            "      o snap the other trace's match onto the selection, 0 reset offsets,\n"
            "      space play, +/- play speed, up/down/pgup/pgdn scroll, [ ] previous/next read\n"
            "      instruction in the bank picture, esc clear, q quit\n"
            "exit status: 0 ok, 2 bad input\n");
}

static int parse_time(const char *s, int64_t *out)
{
    char *end = NULL;
    double v = strtod(s, &end);
    if (end == s) return -1;
    double mul = 1;
    if (!strcmp(end, "us")) mul = 1e3;
    else if (!strcmp(end, "ms")) mul = 1e6;
    else if (*end && strcmp(end, "ns")) return -1;
    v *= mul;
    /* display times are trace times (within TRACE_MAX_NS) plus an offset of at most one trace */
    if (!(v >= -(double)TRACE_MAX_NS && v <= (double)TRACE_MAX_NS)) return -1;
    *out = (int64_t)v;
    return 0;
}

/* examples/NAME.yaml for a trace whose header names the description NAME; the name
 * comes from a file, so only plain names are tried. Returns 1 when the file exists. */
static int default_desc(const char *name, char *buf, size_t cap)
{
    if (!name[0] || strstr(name, "..")) return 0;
    for (const char *c = name; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' ||
              *c == '-' || *c == '.'))
            return 0;
    snprintf(buf, cap, "examples/%s.yaml", name);
    return access(buf, R_OK) == 0;
}

/* The description a trace carries in its header (the first pane's, else the second's);
 * warns when the two panes carry different ones. Returns 1 when one was parsed. */
static int trace_desc(const trace *t, int n, const char *const *paths, pipe_desc *out)
{
    if (n > 1 && t[0].desc_text && t[1].desc_text && t[0].desc_hash != t[1].desc_hash)
        fprintf(stderr, "tmaview: %s and %s come from different descriptions (hash %016llx vs %016llx)\n", paths[0],
                paths[1], (unsigned long long)t[0].desc_hash, (unsigned long long)t[1].desc_hash);
    for (int p = 0; p < n; p++) {
        if (!t[p].desc_text) continue;
        err_info e = {0};
        if (desc_parse_yaml(t[p].desc_text, strlen(t[p].desc_text), paths[p], out, &e) == ERR_OK) return 1;
        fprintf(stderr, "tmaview: %s: its description: %s (no bank pictures; pass --desc FILE)\n", paths[p],
                e.detail[0] ? e.detail : e.rule);
    }
    return 0;
}

/* The directory of an output path exists and is writable (checked before any work). */
static int writable_dir(const char *flag, const char *path)
{
    const char *slash = strrchr(path, '/');
    char dir[4096];
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == path) snprintf(dir, sizeof dir, "/");
    else if ((size_t)(slash - path) < sizeof dir) snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    else {
        fprintf(stderr, "tmaview: %s: '%s': the path is longer than %zu bytes\n", flag, path, sizeof dir);
        return 0;
    }
    if (access(dir, W_OK | X_OK) == 0) return 1;
    fprintf(stderr, "tmaview: %s: '%s': directory '%s' does not exist or is not writable\n", flag, path, dir);
    return 0;
}

static int parse_span(const char *v, int64_t *a, int64_t *b)
{
    const char *colon = strchr(v, ':');
    char left[64];
    if (!colon || (size_t)(colon - v) >= sizeof left) return -1;
    memcpy(left, v, (size_t)(colon - v));
    left[colon - v] = 0;
    return parse_time(left, a) || parse_time(colon + 1, b) || *b <= *a ? -1 : 0;
}

int main(int argc, char **argv)
{
    tmaview_opts o = {.width = 1400, .height = 800};
    const char *paths[2] = {NULL, NULL};
    const char *desc_path = NULL;
    int has_stats = 0;
    double scale = 0;
    const char *ctas = NULL;   /* 0: view_default_scale of the size */
    int64_t stats_a = 0, stats_b = 0;
    int npaths = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(a, "--version")) {
            printf("tmaview %s (trace format %d)\n", TMASCOPE_VIEW_VERSION, TRACE_FORMAT_VERSION);
            return 0;
        }
        int takes = !strcmp(a, "--render") || !strcmp(a, "--range") || !strcmp(a, "--size") ||
                    !strcmp(a, "--script") || !strcmp(a, "--screenshot") || !strcmp(a, "--select") ||
                    !strcmp(a, "--desc") || !strcmp(a, "--stats") || !strcmp(a, "--scale") ||
                    !strcmp(a, "--ctas");
        if (takes && i + 1 >= argc) {
            fprintf(stderr, "tmaview: %s: missing value\n", a);
            return 2;
        }
        if (!strcmp(a, "--render") || !strcmp(a, "--screenshot")) {
            if (!writable_dir(a, argv[i + 1])) return 2;
            if (a[2] == 'r') o.render = argv[++i];
            else o.screenshot = argv[++i];
        } else if (!strcmp(a, "--script")) o.script = argv[++i];
        else if (!strcmp(a, "--select")) o.select = argv[++i];
        else if (!strcmp(a, "--desc")) desc_path = argv[++i];
        else if (!strcmp(a, "--ctas")) ctas = argv[++i];
        else if (!strcmp(a, "--scale")) {
            const char *v = argv[++i];
            char *end = NULL;
            scale = strtod(v, &end);
            if (end == v || *end || !(scale >= VIEW_SCALE_MIN && scale <= VIEW_SCALE_MAX)) {
                fprintf(stderr, "tmaview: --scale: '%s' is not a number from %g to %g\n", v, VIEW_SCALE_MIN, VIEW_SCALE_MAX);
                return 2;
            }
        }
        else if (!strcmp(a, "--size")) {
            const char *v = argv[++i];
            if (sscanf(v, "%dx%d", &o.width, &o.height) != 2 || o.width < 320 || o.height < 240 || o.width > 16384 ||
                o.height > 16384) {
                fprintf(stderr, "tmaview: --size: '%s' is not WxH with 320<=W<=16384, 240<=H<=16384\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--range") || !strcmp(a, "--stats")) {
            const char *v = argv[++i];
            int stats = !strcmp(a, "--stats");
            int64_t lo, hi;
            if (parse_span(v, &lo, &hi)) {
                fprintf(stderr, "tmaview: %s: '%s' is not A:B with A < B within +-2^53 ns (ns, or with a us/ms suffix)\n",
                        a, v);
                return 2;
            }
            if (stats) stats_a = lo, stats_b = hi, has_stats = 1;
            else o.range_a = lo, o.range_b = hi, o.has_range = 1;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "tmaview: option: '%s' is not one of: --render --range --stats --size --scale --ctas --select --desc --script --screenshot --version --help\n", a);
            return 2;
        } else if (npaths < 2) {
            paths[npaths++] = a;
        } else {
            fprintf(stderr, "tmaview: arguments: at most two traces, got '%s' too\n", a);
            return 2;
        }
    }
    if (!npaths) {
        usage(stderr);
        return 2;
    }
    trace t[2];
    const trace *tp[2] = {&t[0], &t[1]};
    for (int p = 0; p < npaths; p++) {
        err_info e = {0};
        trace_init(&t[p], TRACE_SRC_SIM);
        if (trace_read(paths[p], &t[p], &e)) {
            /* the trace reader names the file in its detail already */
            int named = !strncmp(e.detail, paths[p], strlen(paths[p]));
            fprintf(stderr, "tmaview: %s%s%s: %s\n", named ? "" : paths[p], named ? "" : ": ", err_rule_label(e.rule),
                    e.detail);
            for (int q = 0; q <= p; q++) trace_free(&t[q]);
            return 2;
        }
        if (t[p].truncated)
            fprintf(stderr, "tmaview: %s: truncated file, showing the %zu intact events\n", paths[p], t[p].count);
    }
    static pipe_desc desc;
    int have_desc = 0;
    if (desc_path) {
        err_info e = {0};
        if (desc_load(desc_path, &desc, &e)) {
            fprintf(stderr, "tmaview: --desc: %s\n", e.detail[0] ? e.detail : e.rule);
            for (int q = 0; q < npaths; q++) trace_free(&t[q]);
            return 2;
        }
        have_desc = 1;
    } else if (trace_desc(t, npaths, paths, &desc)) {
        have_desc = 1;
    } else {
        char guess[160];
        if (default_desc(t[0].name, guess, sizeof guess)) {
            err_info e = {0};
            if (desc_load(guess, &desc, &e))
                fprintf(stderr, "tmaview: %s: %s (no bank pictures; pass --desc FILE)\n", guess, e.detail[0] ? e.detail : e.rule);
            else
                have_desc = 1;
        }
    }
    view_session *s = calloc(1, sizeof *s);
    err_info e = {0};
    int rc = 0;
    if (!s || view_session_init(s, tp, npaths, o.width, o.height, &e)) {
        fprintf(stderr, "tmaview: %s: %s\n", s ? err_rule_label(e.rule) : "memory", s ? e.detail : "out of memory");
        rc = 2;
    } else {
        if (scale > 0) view_session_set_scale(s, scale);
        if (ctas && view_session_set_ctas(s, ctas, &e)) {
            fprintf(stderr, "tmaview: %s: %s\n", err_rule_label(e.rule), e.detail);
            rc = 2;
            goto done;
        }
        if (have_desc) view_session_set_desc(s, &desc);
        if (has_stats) s->has_range = 1, s->range_a = stats_a, s->range_b = stats_b;
        int bad_select = o.select && view_session_search(s, o.select, &e);
        /* --range wins over --select: the selection stays selected (panel, outline when
         * in view) but does not move the time axis away from the range asked for */
        if (o.has_range) view_fit(&s->port, o.range_a, o.range_b);
        if (bad_select) {
            fprintf(stderr, "tmaview: --select: %s: %s\n", err_rule_label(e.rule), e.detail);
            rc = 2;
        } else if (o.render) {
            if (draw_timeline_file(s, o.render, &e)) {
                fprintf(stderr, "tmaview: %s: %s\n", err_rule_label(e.rule), e.detail);
                rc = 2;
            }
        } else {
            rc = tmaview_window(s, &o);
        }
    done:
        view_session_free(s);
    }
    free(s);
    for (int p = 0; p < npaths; p++) trace_free(&t[p]);
    return rc;
}
