/* tmaview as a user meets it: the window under Xvfb, driven by injected input events
 * (--script pushes them into SDL's event queue), photographed, and the photographs
 * checked pixel by pixel; plus the headless renderer and bad input.
 *
 * The trace is memory-bound by construction (tests/viz_synth.h: 1 CTA, 2 consumers,
 * 2 stages, flight 2000 ns, read 100 ns, math 100 ns), so by hand: the consumers wait
 * 0..2000 ns for iteration 0, and in steady state wait ~90% of their time.
 * Layout at 1000x600 (view_session.c): panes start below a 24-px axis and an 18-px
 * title, 20-px rows: producer row 42..62, consumer warp 1 row 62..82; in a row the copy
 * track is rows 1..6, the work track 6..15; the timeline spans x = 120..700 and the panel
 * x = 700..1000. */
#include <cairo.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "viz_synth.h"

static char dir[64];
static char cwd[1024];
static void write_supp(void);

static void setup(void)
{
    cr_assert(getcwd(cwd, sizeof cwd));
    snprintf(dir, sizeof dir, "/tmp/test_tmaview.XXXXXX");
    cr_assert(mkdtemp(dir));
    synth_opts o = {.ctas = 1, .consumers = 2, .stages = 2, .iterations = 64, .flight_ns = 2000, .read_ns = 100,
                    .math_ns = 100, .issue_gap_ns = 10, .bytes = 16384, .source = TRACE_SRC_SIM};
    trace t;
    trace_init(&t, TRACE_SRC_SIM);
    synth_fill(&t, &o);
    char p[256];
    snprintf(p, sizeof p, "%s/sim.tmt", dir);
    cr_assert_eq(trace_write(p, &t, NULL), ERR_OK);
    /* a truncated copy: the header announces all events, the file ends 100.5 events early */
    FILE *f = fopen(p, "rb");
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n);
    cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    snprintf(p, sizeof p, "%s/cut.tmt", dir);
    f = fopen(p, "wb");
    fwrite(buf, 1, (size_t)n - 32 * 100 - 16, f);
    fclose(f);
    snprintf(p, sizeof p, "%s/junk.tmt", dir);
    f = fopen(p, "wb");
    fwrite(buf + 8, 1, 400, f);   /* no magic */
    fclose(f);
    free(buf);
    trace_free(&t);
    write_supp();
    /* descriptions that fit the trace (1 producer, 2 consumers, 2 stages, 16384 bytes
     * per read = one 64x128 f16 box): each consumer lane reads 16 bytes down a column */
    const char *swz[2] = {"none", "128b"};
    for (int k = 0; k < 2; k++) {
        snprintf(p, sizeof p, "%s/%s.yaml", dir, swz[k]);
        f = fopen(p, "w");
        fprintf(f, "name: t\nmode: warp_specialized\nwarps: {producer: 1, consumer: 2}\nstages: 2\niterations: 64\n"
                   "tensors:\n  - name: A\n    dtype: f16\n    dims: [4096, 4096]\n    box: [64, 128]\n    swizzle: %s\n"
                   "consumer:\n  reads: {tensor: 0, pattern: cols, bytes_per_lane: 16, warps: 1}\n", swz[k]);
        fclose(f);
    }
}

/* Leak reports of the libraries below us (fontconfig's caches, dbus, the X11 modules
 * SDL loads and unloads) are not ours; ASan still checks everything else. The window
 * runs skip leak checking entirely: SDL unloads its X11 modules before LSan looks, so
 * their allocations have no module name to suppress by. */
#define LIB_LSAN "LSAN_OPTIONS=suppressions=lsan.supp "
#define NO_LSAN "ASAN_OPTIONS=detect_leaks=0 "

static void write_supp(void)
{
    char p[256];
    snprintf(p, sizeof p, "%s/lsan.supp", dir);
    FILE *f = fopen(p, "w");
    fputs("leak:libfontconfig.so\nleak:libdbus-1.so\nleak:libpixman-1.so\nleak:libcairo.so\n", f);
    fclose(f);
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_expect_eq(system(cmd), 0);
}

TestSuite(tmaview, .init = setup, .fini = teardown, .timeout = 60);

static int sh(char *out, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int sh(char *out, size_t cap, const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    int k = snprintf(cmd, sizeof cmd, "cd %s && ", dir);
    vsnprintf(cmd + k, sizeof cmd - (size_t)k, fmt, ap);
    va_end(ap);
    strncat(cmd, " 2>&1", sizeof cmd - strlen(cmd) - 1);
    FILE *p = popen(cmd, "r");
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

typedef struct img { cairo_surface_t *s; unsigned char *d; int w, h, stride; } img;

static img load_png(const char *name)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    img m = {cairo_image_surface_create_from_png(p), 0, 0, 0, 0};
    cr_assert_eq(cairo_surface_status(m.s), CAIRO_STATUS_SUCCESS, "cannot read %s", p);
    m.d = cairo_image_surface_get_data(m.s);
    m.w = cairo_image_surface_get_width(m.s);
    m.h = cairo_image_surface_get_height(m.s);
    m.stride = cairo_image_surface_get_stride(m.s);
    return m;
}

static void px(const img *m, int x, int y, int *r, int *g, int *b)
{
    uint32_t v = *(const uint32_t *)(m->d + (size_t)y * m->stride + (size_t)x * 4);
    *r = (v >> 16) & 255;
    *g = (v >> 8) & 255;
    *b = v & 255;
}

/* Share of pixels on row y, x in [x0, x1), that have exactly this colour. */
static double share(const img *m, int y, int x0, int x1, int r0, int g0, int b0)
{
    int hit = 0;
    for (int x = x0; x < x1; x++) {
        int r, g, b;
        px(m, x, y, &r, &g, &b);
        hit += r == r0 && g == g0 && b == b0;
    }
    return (double)hit / (x1 - x0);
}

static int reddish_pixels(const img *m, int x0, int y0, int x1, int y1)
{
    int n = 0;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            int r, g, b;
            px(m, x, y, &r, &g, &b);
            n += r > 200 && g < 120 && b < 120;
        }
    return n;
}

/* The stall colour of the contract (draw_timeline.h): (236, 28, 36). */
enum { SR = 236, SG = 28, SB = 36 };

static int have_xvfb(void) { return system("command -v xvfb-run >/dev/null 2>&1") == 0; }

Test(tmaview, window_zoom_select_range_under_xvfb)
{
    if (!have_xvfb()) cr_skip_test("xvfb-run is not installed");
    char path[256];
    snprintf(path, sizeof path, "%s/script.txt", dir);
    FILE *f = fopen(path, "w");
    fprintf(f,
            "# before anything: the full run; the panel has no histogram yet\n"
            "screenshot full.png\n"
            "# find the consumer's first wait and fit it: the wait fills the view\n"
            "search kind=wait role=consumer iter=0\n"
            "key f\n"
            "move 5 5\n"
            "screenshot fit.png\n"
            "# zoom far out with the mouse wheel at the consumer row, then drag a range\n"
            "wheel 400 72 -12\n"
            "screenshot out.png\n"
            "drag 130 72 690 72 3\n"
            "move 5 5\n"
            "screenshot range.png\n"
            "quit\n");
    fclose(f);
    static char out[8192];
    int rc = sh(out, sizeof out,
                NO_LSAN "SDL_VIDEODRIVER=x11 xvfb-run -a -s '-screen 0 1280x1024x24' %s/%s --size 1000x600 --script script.txt sim.tmt",
                cwd, TMAVIEW_BIN);
    cr_assert_eq(rc, 0, "tmaview failed: %s", out);

    /* fit on the 2000-ns wait (10% margins): the consumer's work track is stall red
     * across the middle of the timeline; the producer's copy track shows the flight */
    img fit = load_png("fit.png");
    cr_assert_eq(fit.w, 1000);
    cr_expect_geq(share(&fit, 72, 200, 620, SR, SG, SB), 0.95, "consumer row not red after fit");
    int r, g, b;
    px(&fit, 400, 45, &r, &g, &b);
    cr_expect(b > 180 && r < 120, "producer copy track at the flight is (%d,%d,%d), not blue", r, g, b);
    /* the same pixels are not red above the lanes (title bar) */
    cr_expect_eq(share(&fit, 30, 200, 620, SR, SG, SB), 0.0);

    /* zoomed out: 64 iterations in a few hundred pixels; the spans merge into blocks,
     * and a consumer that waits ~90% of the time still reads as a stall */
    img o = load_png("out.png");
    int x0 = 121, x1 = 699;
    double red = share(&o, 72, x0, x1, SR, SG, SB);
    cr_expect_gt(red, 0.0, "no stall colour in the consumer row when zoomed out");
    img full = load_png("full.png");
    cr_expect_eq(reddish_pixels(&full, 700, 300, 1000, 560), 0, "histogram before any range");

    /* the range: statistics and a histogram of wait durations appear in the panel */
    img rg = load_png("range.png");
    cr_expect_gt(reddish_pixels(&rg, 700, 100, 1000, 560), 20, "no histogram bars after a range drag");
    cairo_surface_destroy(fit.s);
    cairo_surface_destroy(o.s);
    cairo_surface_destroy(full.s);
    cairo_surface_destroy(rg.s);
}

Test(tmaview, headless_render_is_the_window_picture)
{
    if (!have_xvfb()) cr_skip_test("xvfb-run is not installed");
    static char out[8192];
    int rc = sh(out, sizeof out,
                NO_LSAN "SDL_VIDEODRIVER=x11 xvfb-run -a -s '-screen 0 1280x1024x24' %s/%s --size 1000x600 --screenshot win.png "
                "sim.tmt && " LIB_LSAN "%s/%s --size 1000x600 --render head.png sim.tmt",
                cwd, TMAVIEW_BIN, cwd, TMAVIEW_BIN);
    cr_assert_eq(rc, 0, "%s", out);
    img w = load_png("win.png"), h = load_png("head.png");
    cr_assert(w.w == h.w && w.h == h.h);
    long differ = 0;
    for (int y = 0; y < w.h; y++)
        for (int x = 0; x < w.w; x++) {
            int r1, g1, b1, r2, g2, b2;
            px(&w, x, y, &r1, &g1, &b1);
            px(&h, x, y, &r2, &g2, &b2);
            differ += r1 != r2 || g1 != g2 || b1 != b2;
        }
    cr_expect_eq(differ, 0, "%ld pixels differ between window and --render", differ);
    cairo_surface_destroy(w.s);
    cairo_surface_destroy(h.s);
}

Test(tmaview, render_formats_and_range)
{
    static char out[8192];
    cr_assert_eq(sh(out, sizeof out, LIB_LSAN "%s/%s --render a.svg sim.tmt sim.tmt && " LIB_LSAN "%s/%s --render a.pdf --range 0:2us sim.tmt",
                    cwd, TMAVIEW_BIN, cwd, TMAVIEW_BIN), 0, "%s", out);
    cr_expect_eq(sh(out, sizeof out, "head -c 5 a.pdf"), 0);
    cr_expect(!strncmp(out, "%PDF-", 5), "%s", out);
    cr_expect_eq(sh(out, sizeof out, "grep -c '<svg' a.svg"), 0);
    /* --range 0:2000 on a 1400-px-wide canvas: the first consumer wait covers the view */
    cr_assert_eq(sh(out, sizeof out, LIB_LSAN "%s/%s --render r.png --range 200:1800 sim.tmt", cwd, TMAVIEW_BIN), 0, "%s", out);
    /* --stats: the range statistics and the wait histogram, headless */
    cr_assert_eq(sh(out, sizeof out, LIB_LSAN "%s/%s --render st.png --stats 0:20us sim.tmt", cwd, TMAVIEW_BIN), 0, "%s", out);
    img st = load_png("st.png");
    cr_expect_gt(reddish_pixels(&st, 1100, 100, 1400, 700), 20, "no histogram bars with --stats");
    cairo_surface_destroy(st.s);
    img m = load_png("r.png");
    cr_expect_geq(share(&m, 72, 130, 1090, SR, SG, SB), 0.95);
    cairo_surface_destroy(m.s);
}

Test(tmaview, bad_and_truncated_traces)
{
    static char out[8192];
    cr_expect_eq(sh(out, sizeof out, LIB_LSAN "%s/%s --render x.png junk.tmt", cwd, TMAVIEW_BIN), 2);
    cr_expect(strstr(out, "junk.tmt"), "%s", out);
    cr_expect_eq(strchr(out, '\n'), out + strlen(out) - 1, "not one line: %s", out);
    cr_expect_eq(sh(out, sizeof out, LIB_LSAN "%s/%s --render x.png missing.tmt", cwd, TMAVIEW_BIN), 2);
    cr_expect_eq(sh(out, sizeof out, LIB_LSAN "%s/%s --render x.bmp sim.tmt", cwd, TMAVIEW_BIN), 2);
    cr_expect_eq(sh(out, sizeof out, LIB_LSAN "%s/%s --render x.png --range 5:1 sim.tmt", cwd, TMAVIEW_BIN), 2);
    cr_expect_eq(sh(out, sizeof out, "test -e x.png"), 1, "a failed run left x.png behind");
    cr_expect_eq(sh(out, sizeof out, LIB_LSAN "%s/%s --render cut.png cut.tmt", cwd, TMAVIEW_BIN), 0, "%s", out);
    cr_expect(strstr(out, "truncated"), "%s", out);
}

Test(tmaview, bad_script_line_is_reported)
{
    if (!have_xvfb()) cr_skip_test("xvfb-run is not installed");
    char path[256];
    snprintf(path, sizeof path, "%s/bad.txt", dir);
    FILE *f = fopen(path, "w");
    fprintf(f, "key f\njump 3 4\n");
    fclose(f);
    static char out[8192];
    /* tmaview's own exit status, printed inside the X session: xvfb-run's status is its own
     * when it fails to clean up its temporary directory after a quick exit (seen under load) */
    sh(out, sizeof out, NO_LSAN "SDL_VIDEODRIVER=x11 xvfb-run -a sh -c '%s/%s --script bad.txt sim.tmt; echo status=$?'",
       cwd, TMAVIEW_BIN);
    cr_expect(strstr(out, "status=2"), "%s", out);
    cr_expect(strstr(out, "line 2"), "%s", out);
}

Test(tmaview, play_mode_moves_the_cursor_under_xvfb)
{
    if (!have_xvfb()) cr_skip_test("xvfb-run is not installed");
    char path[256];
    snprintf(path, sizeof path, "%s/play.txt", dir);
    FILE *f = fopen(path, "w");
    /* scripted runs advance 1/60 s per frame; the default speed plays the whole run in
     * 10 s, so 60 frames put the cursor at 1/10 of the run. The view is the run with 2%
     * margins: x = 120 + 580 * (0.10 + 0.02) / 1.04 = 186.9 */
    fprintf(f, "key space\nwait 60\nkey space\nscreenshot play.png\nquit\n");
    fclose(f);
    static char out[8192];
    int rc = sh(out, sizeof out,
                NO_LSAN "SDL_VIDEODRIVER=x11 xvfb-run -a -s '-screen 0 1280x1024x24' %s/%s --size 1000x600 --script play.txt sim.tmt",
                cwd, TMAVIEW_BIN);
    cr_assert_eq(rc, 0, "%s", out);
    img m = load_png("play.png");
    int found = -1;
    for (int x = 121; x < 700; x++) {
        int r, g, b;
        px(&m, x, 400, &r, &g, &b);   /* below the lanes: only the cursor line is there */
        if (r == 255 && g == 140 && b == 0) found = x;
    }
    cr_expect(found >= 184 && found <= 190, "cursor line at x=%d, expected ~187", found);
    cairo_surface_destroy(m.s);
}

/* ---- the bank picture of a selected shared-memory read ---------------------------- */
/* Contract colours (draw_bank.h): a bank serving one word per wavefront, a conflicted bank. */
enum { OKR = 40, OKG = 150, OKB = 90, CFR = 200, CFG = 30, CFB = 110 };

static int near(const img *m, int x, int y, int r0, int g0, int b0)
{
    int r, g, b;
    px(m, x, y, &r, &g, &b);
    return abs(r - r0) + abs(g - g0) + abs(b - b0) < 30;
}

typedef struct box { int x0, y0, x1, y1, n; } box;

static box bbox(const img *m, int x0, int y0, int x1, int y1, int r0, int g0, int b0)
{
    box bx = {x1, y1, -1, -1, 0};
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++)
            if (near(m, x, y, r0, g0, b0)) {
                bx.n++;
                if (x < bx.x0) bx.x0 = x;
                if (y < bx.y0) bx.y0 = y;
                if (x > bx.x1) bx.x1 = x;
                if (y > bx.y1) bx.y1 = y;
            }
    return bx;
}

/* Separate runs of the colour down column x: the grid rows (wavefronts). */
static int runs(const img *m, int x, int y0, int y1, int r0, int g0, int b0)
{
    int n = 0, in = 0;
    for (int y = y0; y <= y1; y++) {
        int c = near(m, x, y, r0, g0, b0);
        n += c && !in;
        in = c;
    }
    return n;
}

/* Hand-derived (see tests/test_view_bank.c): without a swizzle lane l of the first
 * column read sits at row l, bytes 0-15: all 32 lanes on banks 0-3, one wavefront
 * each (32 rows in banks 0-3 of 32, all conflicted). With SWIZZLE_128B each quarter
 * warp covers all 32 banks once: 4 conflict-free rows across the whole grid. The grid
 * is 32 banks across the panel less 8-px margins (284 px at 1000 px: panel 300 px). */
Test(tmaview, bank_picture_of_a_selected_read_under_xvfb)
{
    if (!have_xvfb()) cr_skip_test("xvfb-run is not installed");
    char path[256];
    snprintf(path, sizeof path, "%s/bank.txt", dir);
    FILE *f = fopen(path, "w");
    fprintf(f, "screenshot nosel.png\nsearch kind=smem_read iter=3 role=consumer\nmove 5 5\nscreenshot bank.png\nquit\n");
    fclose(f);
    static char out[8192];
    int rc = sh(out, sizeof out,
                NO_LSAN "SDL_VIDEODRIVER=x11 xvfb-run -a -s '-screen 0 1280x1024x24' %s/%s --size 1000x800 --desc none.yaml "
                "--script bank.txt sim.tmt",
                cwd, TMAVIEW_BIN);
    cr_assert_eq(rc, 0, "tmaview failed: %s", out);
    img no = load_png("nosel.png");
    cr_expect_eq(bbox(&no, 700, 24, 1000, 756, CFR, CFG, CFB).n, 0, "bank grid without a selected read");
    img m = load_png("bank.png");
    box cf = bbox(&m, 700, 24, 1000, 756, CFR, CFG, CFB), ok = bbox(&m, 700, 24, 1000, 756, OKR, OKG, OKB);
    cr_assert_gt(cf.n, 0, "no conflicted bank drawn");
    cr_expect_eq(ok.n, 0, "conflict-free banks drawn for a fully conflicted read");
    /* four banks of 284/32 px: 35.5 px wide, starting at the grid's left edge (x = 708) */
    cr_expect(cf.x0 >= 707 && cf.x0 <= 710, "conflict cells start at x=%d", cf.x0);
    cr_expect(cf.x1 - cf.x0 + 1 >= 33 && cf.x1 - cf.x0 + 1 <= 37, "conflict cells %d px wide, want ~35", cf.x1 - cf.x0 + 1);
    cr_expect_eq(runs(&m, cf.x0 + 1, cf.y0, cf.y1, CFR, CFG, CFB), 32, "wavefront rows");
    cairo_surface_destroy(no.s);
    cairo_surface_destroy(m.s);

    /* the same read over the swizzled description, drawn headless */
    rc = sh(out, sizeof out, LIB_LSAN "%s/%s --size 1000x800 --desc 128b.yaml --select 'kind=smem_read iter=3 role=consumer' "
            "--render swz.png sim.tmt", cwd, TMAVIEW_BIN);
    cr_assert_eq(rc, 0, "%s", out);
    m = load_png("swz.png");
    cf = bbox(&m, 700, 24, 1000, 756, CFR, CFG, CFB);
    ok = bbox(&m, 700, 24, 1000, 756, OKR, OKG, OKB);
    cr_expect_eq(cf.n, 0, "conflicts drawn for a conflict-free read");
    cr_assert_gt(ok.n, 0, "no bank cells drawn");
    cr_expect(ok.x1 - ok.x0 + 1 >= 280 && ok.x1 - ok.x0 + 1 <= 286, "grid %d px wide, want ~284", ok.x1 - ok.x0 + 1);
    cr_expect_eq(runs(&m, ok.x0 + 1, ok.y0, ok.y1, OKR, OKG, OKB), 4, "wavefront rows");
    cairo_surface_destroy(m.s);

    /* the same picture from the description the trace carries, with no --desc and no
     * examples/NAME.yaml to fall back on */
    char yaml[512];
    snprintf(path, sizeof path, "%s/128b.yaml", dir);
    f = fopen(path, "r");
    size_t ylen = fread(yaml, 1, sizeof yaml - 1, f);
    fclose(f);
    trace t;
    snprintf(path, sizeof path, "%s/sim.tmt", dir);
    cr_assert_eq(trace_read(path, &t, NULL), ERR_OK);
    cr_assert_null(t.desc_text, "the synthetic trace carries no description");
    cr_assert_eq(trace_set_desc(&t, yaml, ylen, 1, NULL), ERR_OK);
    snprintf(path, sizeof path, "%s/carried.tmt", dir);
    cr_assert_eq(trace_write(path, &t, NULL), ERR_OK);
    trace_free(&t);
    rc = sh(out, sizeof out, LIB_LSAN "%s/%s --size 1000x800 --select 'kind=smem_read iter=3 role=consumer' "
            "--render carried.png carried.tmt", cwd, TMAVIEW_BIN);
    cr_assert_eq(rc, 0, "%s", out);
    m = load_png("carried.png");
    cf = bbox(&m, 700, 24, 1000, 756, CFR, CFG, CFB);
    ok = bbox(&m, 700, 24, 1000, 756, OKR, OKG, OKB);
    cr_expect_eq(cf.n, 0, "conflicts drawn for a conflict-free read");
    cr_assert_gt(ok.n, 0, "no bank cells drawn from the carried description");
    cr_expect_eq(runs(&m, ok.x0 + 1, ok.y0, ok.y1, OKR, OKG, OKB), 4, "wavefront rows");
    cairo_surface_destroy(m.s);

    /* a description that does not fit says so instead of drawing */
    rc = sh(out, sizeof out, LIB_LSAN "%s/%s --desc missing.yaml --render x.png sim.tmt", cwd, TMAVIEW_BIN);
    cr_expect_eq(rc, 2, "%s", out);
    cr_expect(strstr(out, "missing.yaml"), "%s", out);
}

/* make demo's pipeline part (scripts/demo.sh): without the H100 trace it says so and
 * draws the simulated run; with a trace of the same kernel in the H100 directory it
 * prints the diff summary and draws the comparison. The "measured" trace here is a
 * second simulation of the same description: every event matches, error 0.0%. */
Test(tmaview, demo_script_with_and_without_the_h100_trace)
{
    static char out[16384];
    static char env[4096 + 512];
    snprintf(env, sizeof env, "LSAN_OPTIONS=suppressions=%s/lsan.supp TMASIM=%s/%s TMAVIEW=%s/%s DEMO_OUT=%s/demo "
             "DEMO_HW_DIR=%s/hw", dir, cwd, TMASIM_BIN, cwd, TMAVIEW_BIN, dir, dir);
    /* a small pipeline of the demo's shape keeps the sanitizer build quick */
    char path[256];
    snprintf(path, sizeof path, "%s/examples", dir);
    cr_assert_eq(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/examples/tiny.yaml", dir);
    FILE *f = fopen(path, "w");
    fprintf(f, "name: tiny\nmode: warp_specialized\ngrid: {ctas: 4, ctas_per_sm: 1}\nwarps: {producer: 1, consumer: 2}\n"
               "stages: 4\niterations: 16\ntensors:\n  - name: A\n    dtype: f16\n    dims: [4096, 4096]\n"
               "    box: [64, 128]\n    swizzle: 128b\nconsumer:\n"
               "  reads: {tensor: 0, pattern: rows, bytes_per_lane: 16, warps: 1}\n  math: {kind: mma, amount: 1048576}\n");
    fclose(f);
    int rc = sh(out, sizeof out, "mkdir -p hw && env %s DEMO_PIPELINE=tiny %s/scripts/demo.sh", env, cwd);
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "is missing"), "%s", out);
    cr_expect(!strstr(out, "$ tmasim diff"), "a diff without a measured trace: %s", out);
    cr_expect_eq(sh(out, sizeof out, "test -s demo/tiny.png && test -s demo/tiny_start.png"), 0);
    rc = sh(out, sizeof out, "%s/%s sim examples/tiny.yaml -o hw/tiny.tmt >/dev/null && env %s DEMO_PIPELINE=tiny %s/scripts/demo.sh",
            cwd, TMASIM_BIN, env, cwd);
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(!strstr(out, "is missing"), "%s", out);
    cr_expect(strstr(out, "$ tmasim diff") && strstr(out, "error +0.0%"), "%s", out);
    img m = load_png("demo/compare.png");
    cr_expect_eq(m.w, 1400);
    /* two panes: the stall colour appears in the top and in the bottom half of the lanes */
    cr_expect_gt(reddish_pixels(&m, 121, 60, 1099, 380), 100);
    cr_expect_gt(reddish_pixels(&m, 121, 420, 1099, 740), 100);
    cairo_surface_destroy(m.s);
    cr_expect_eq(sh(out, sizeof out, "test -s demo/compare_start.png"), 0);
}

/* Without a display the window would never open and the event loop would wait forever:
 * tmaview says so, names --render, and exits 2 (bounded by timeout in case it does not). */
Test(tmaview, no_display_is_one_line_exit_2_not_a_hang)
{
    static char out[4096];
    int rc = sh(out, sizeof out,
                NO_LSAN "env -u DISPLAY -u WAYLAND_DISPLAY -u SDL_VIDEODRIVER timeout 20 %s/%s sim.tmt 2>&1; echo status=$?",
                cwd, TMAVIEW_BIN);
    (void)rc;
    cr_expect(strstr(out, "status=2"), "%s", out);
    cr_expect(strstr(out, "no display") && strstr(out, "--render"), "%s", out);
}

/* Dark (text) pixels in a box: the ink of the lane labels grows with the square of the
 * presentation scale. */
static int ink(const img *m, int x0, int y0, int x1, int y1)
{
    int n = 0;
    for (int y = y0; y < y1 && y < m->h; y++)
        for (int x = x0; x < x1 && x < m->w; x++) {
            int r, g, b;
            px(m, x, y, &r, &g, &b);
            n += r < 110 && g < 110 && b < 140;
        }
    return n;
}

/* Presentation scale: a 1920x1080 window draws at 1.5x by default (the logical canvas
 * stays 1280x720), ctrl - twice brings it to 1x, ctrl 0 back to the default. At scale k
 * the consumer's work track (logical rows 68..77, stall red after `f` on its first
 * wait) sits at k times those rows, and the lane labels carry about k^2 the ink. */
Test(tmaview, presentation_scale_and_ctrl_plus_minus_under_xvfb)
{
    if (!have_xvfb()) cr_skip_test("xvfb-run is not installed");
    char path[256];
    snprintf(path, sizeof path, "%s/scale.txt", dir);
    FILE *f = fopen(path, "w");
    fprintf(f, "search kind=wait role=consumer iter=0\nkey f\nmove 5 5\nscreenshot big.png\n"
               "key ctrl+minus\nkey ctrl+minus\nmove 5 5\nscreenshot small.png\n"
               "key ctrl+0\nmove 5 5\nscreenshot back.png\nkey ctrl+plus\nmove 5 5\nscreenshot bigger.png\nquit\n");
    fclose(f);
    static char out[8192];
    int rc = sh(out, sizeof out,
                NO_LSAN "SDL_VIDEODRIVER=x11 xvfb-run -a -s '-screen 0 2048x1200x24' %s/%s --size 1920x1080 --script scale.txt sim.tmt",
                cwd, TMAVIEW_BIN);
    cr_assert_eq(rc, 0, "tmaview failed: %s", out);
    img big = load_png("big.png"), small = load_png("small.png"), back = load_png("back.png"), bigger = load_png("bigger.png");
    cr_assert_eq(big.w, 1920);
    cr_assert_eq(small.w, 1920);
    /* scale 1.5: work track at rows 102..115, timeline from x = 180 */
    cr_expect_geq(share(&big, 108, 400, 1200, SR, SG, SB), 0.95, "consumer row not red at 1.5x, row 108");
    /* scale 1 (the time span kept, over a wider logical timeline): work track at rows
     * 68..77; nothing at 1.5x's row 108, below the last lane */
    cr_expect_geq(share(&small, 72, 300, 900, SR, SG, SB), 0.95, "consumer row not red at 1x, row 72");
    cr_expect_eq(share(&small, 108, 300, 900, SR, SG, SB), 0.0, "1x: row 108 is red");
    int ink_big = ink(&big, 0, 30, 180, 130), ink_small = ink(&small, 0, 20, 120, 87);
    cr_expect_gt(ink_small, 50, "no label ink at 1x");
    cr_expect_gt(ink_big, ink_small * 18 / 10, "labels at 1.5x have %d ink pixels vs %d at 1x", ink_big, ink_small);
    /* ctrl 0: the default again; ctrl +: 1.75x, work track at 119..134 */
    cr_expect_geq(share(&back, 108, 400, 1200, SR, SG, SB), 0.95, "ctrl 0 did not restore 1.5x");
    cr_expect_geq(share(&bigger, 126, 400, 1100, SR, SG, SB), 0.95, "ctrl + did not give 1.75x");
    cairo_surface_destroy(big.s);
    cairo_surface_destroy(small.s);
    cairo_surface_destroy(back.s);
    cairo_surface_destroy(bigger.s);
}

Test(tmaview, render_scale_flag)
{
    static char out[8192];
    int rc = sh(out, sizeof out, LIB_LSAN "%s/%s --render s1.png --size 1920x1080 --scale 1 sim.tmt && "
                LIB_LSAN "%s/%s --render s2.png --size 1920x1080 --scale 2 sim.tmt", cwd, TMAVIEW_BIN, cwd, TMAVIEW_BIN);
    cr_assert_eq(rc, 0, "%s", out);
    img a = load_png("s1.png"), b = load_png("s2.png");
    cr_expect_eq(a.w, 1920);
    cr_expect_eq(b.h, 1080);
    int ia = ink(&a, 0, 20, 120, 87), ib = ink(&b, 0, 40, 240, 174);
    cr_expect_gt(ib, ia * 3, "labels at --scale 2 have %d ink pixels vs %d at 1", ib, ia);
    cairo_surface_destroy(a.s);
    cairo_surface_destroy(b.s);
    rc = sh(out, sizeof out, "%s/%s --render x.png --scale 9 sim.tmt", cwd, TMAVIEW_BIN);
    cr_expect_eq(rc, 2);
    cr_expect(strstr(out, "--scale: '9' is not a number from 0.5 to 4"), "%s", out);
}

static int tooltip_pixels(const img *m)
{
    int n = 0;
    for (int y = 0; y < m->h; y++)
        for (int x = 0; x < m->w; x++) {
            int r, g, b;
            px(m, x, y, &r, &g, &b);
            n += r >= 250 && g >= 250 && b >= 215 && b <= 235;
        }
    return n;
}

/* The tooltip belongs to what is under the mouse: hovering the consumer's first wait
 * shows it; panning the view to before the run (nothing under the mouse) takes it away
 * without the mouse moving. */
Test(tmaview, tooltip_follows_the_content_under_xvfb)
{
    if (!have_xvfb()) cr_skip_test("xvfb-run is not installed");
    char path[256];
    snprintf(path, sizeof path, "%s/tip.txt", dir);
    FILE *f = fopen(path, "w");
    fprintf(f, "search kind=wait role=consumer iter=0\nkey f\nkey escape\nmove 400 72\nscreenshot tip.png\n"
               "key a\nkey a\nkey a\nkey a\nkey a\nkey a\nscreenshot gone.png\nquit\n");
    fclose(f);
    static char out[8192];
    int rc = sh(out, sizeof out,
                NO_LSAN "SDL_VIDEODRIVER=x11 xvfb-run -a -s '-screen 0 1280x1024x24' %s/%s --size 1000x600 --script tip.txt sim.tmt",
                cwd, TMAVIEW_BIN);
    cr_assert_eq(rc, 0, "tmaview failed: %s", out);
    img tip = load_png("tip.png"), gone = load_png("gone.png");
    cr_expect_gt(tooltip_pixels(&tip), 5000, "no tooltip over the wait");
    cr_expect_lt(tooltip_pixels(&gone), 200, "the tooltip stayed after the view moved away");
    cairo_surface_destroy(tip.s);
    cairo_surface_destroy(gone.s);
}

/* SVG text is text: the timeline's labels and a tile picture's captions are <text>
 * elements a reader can select and search, not glyph outlines. */
Test(tmaview, svg_text_is_text)
{
    static char out[8192];
    int rc = sh(out, sizeof out, LIB_LSAN "%s/%s --render t.svg sim.tmt && " LIB_LSAN
                "%s/%s layout --dtype f16 --dims 64,64 --box 64,64 --swizzle 128B --svg l.svg >/dev/null",
                cwd, TMAVIEW_BIN, cwd, TMASIM_BIN);
    cr_assert_eq(rc, 0, "%s", out);
    const char *names[2] = {"t.svg", "l.svg"};
    const char *want[2] = {">SM 0 CTA 0</text>", "</text>"};
    for (int i = 0; i < 2; i++) {
        char p[256];
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        FILE *f = fopen(p, "rb");
        cr_assert(f, "%s missing", p);
        static char svg[1 << 22];
        size_t n = fread(svg, 1, sizeof svg - 1, f);
        svg[n] = 0;
        fclose(f);
        cr_expect(strstr(svg, want[i]), "%s: no '%s'", names[i], want[i]);
        cr_expect_null(strstr(svg, "glyph"), "%s: text drawn as glyph outlines", names[i]);
        cr_expect(strstr(svg, "</svg>") && strstr(svg, "<text x="), "%s", names[i]);
    }
}

/* --range wins over --select: selecting the first wait (at 0 ns) does not pull the
 * axis away from 20..40 us (it used to be recentred on the selection, with negative
 * times); the axis labels, SVG text now, say which times are shown. */
Test(tmaview, range_wins_over_select)
{
    static char out[8192];
    int rc = sh(out, sizeof out, LIB_LSAN "%s/%s --render r.svg --range 20us:40us --select 'kind=wait role=consumer iter=0' sim.tmt",
                cwd, TMAVIEW_BIN);
    cr_assert_eq(rc, 0, "%s", out);
    char p[256];
    snprintf(p, sizeof p, "%s/r.svg", dir);
    FILE *f = fopen(p, "rb");
    cr_assert(f);
    static char svg[1 << 22];
    size_t n = fread(svg, 1, sizeof svg - 1, f);
    svg[n] = 0;
    fclose(f);
    cr_expect(strstr(svg, ">view 20.000 us</text>"), "the view is not 20 us wide");
    cr_expect(strstr(svg, ">20.000 us</text>") && strstr(svg, ">40.000 us</text>"), "axis not 20..40 us");
    cr_expect_null(strstr(svg, ">-"), "a negative time on the axis");
    cr_expect(strstr(svg, ">wait  (consumer)</text>"), "the selection is not shown in the panel");
    /* an output directory that does not exist: one line, exit 2, before loading anything */
    rc = sh(out, sizeof out, "%s/%s --render no/such/dir/r.png sim.tmt", cwd, TMAVIEW_BIN);
    cr_expect_eq(rc, 2);
    cr_expect(strstr(out, "--render: 'no/such/dir/r.png': directory 'no/such/dir' does not exist"), "%s", out);
}

/* Single-curve paths in an SVG: d="M x y C x y x y x y " (the flows; the dots are arcs
 * of four segments and the rest has no curves). */
static int svg_curves(const char *name)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "rb");
    cr_assert(f, "%s missing", p);
    static char svg[1 << 23];
    size_t n = fread(svg, 1, sizeof svg - 1, f);
    svg[n] = 0;
    fclose(f);
    int k = 0;
    for (const char *s = svg; (s = strstr(s, "d=\"M ")); s++) {
        const char *end = strchr(s + 3, '"'), *c = strstr(s + 3, " C ");
        if (c && c < end && !memchr(c + 3, 'C', (size_t)(end - c - 3)) && !memchr(c + 3, 'L', (size_t)(end - c - 3))) k++;
    }
    return k;
}

/* Flow curves are thinned with many consumer warps: one curve per copy to its first
 * waiting warp (and a comb through the others), so 8 consumers draw as many curves as 1
 * does, not 8 times as many. */
Test(tmaview, flow_curves_thinned_for_many_consumers)
{
    /* one CTA of ws4_tma with 1 and with 8 consumer warps: only the first copy of each
     * stage finds its consumers waiting in the first 8 us */
    for (unsigned c = 1; c <= 8; c += 7) {
        static char out[4096];
        int rc = sh(out, sizeof out,
                    "sed 's/ctas: 132/ctas: 1/; s/consumer: 2}/consumer: %u}/' %s/examples/ws4_tma.yaml > w%u.yaml && "
                    LIB_LSAN "%s/%s sim w%u.yaml -o w%u.tmt >/dev/null && "
                    LIB_LSAN "%s/%s --render w%u.svg --size 1400x900 --range 0:8us w%u.tmt",
                    c, cwd, c, cwd, TMASIM_BIN, c, c, cwd, TMAVIEW_BIN, c, c);
        cr_assert_eq(rc, 0, "%s", out);
    }
    int one = svg_curves("w1.svg"), eight = svg_curves("w8.svg");
    cr_expect_gt(one, 0, "no flow curves with one consumer");
    cr_expect_leq(eight, one, "8 consumers draw %d curves, 1 consumer %d", eight, one);
}

/* PgDn scrolls both panes by whole CTA rows in lockstep: after one PgDn in the window
 * (12 simulated CTAs with 3 consumers beside 5 measured ones with 2: two CTA rows fit
 * at 1000x600) both panes' lanes are pixel for pixel those of a render that starts at
 * CTA 2 (--ctas 2-11); the titles, which count the CTAs, are left out. */
Test(tmaview, pagedown_scrolls_both_panes_by_cta_rows_under_xvfb)
{
    if (!have_xvfb()) cr_skip_test("xvfb-run is not installed");
    for (int p = 0; p < 2; p++) {
        synth_opts o = {.ctas = p ? 5 : 12, .consumers = p ? 2 : 3, .stages = 2, .iterations = 8, .flight_ns = 2000,
                        .read_ns = 100, .math_ns = 100 + 20 * p, .issue_gap_ns = 10, .bytes = 16384,
                        .source = (uint8_t)(p ? TRACE_SRC_HW : TRACE_SRC_SIM)};
        trace t;
        trace_init(&t, p ? TRACE_SRC_HW : TRACE_SRC_SIM);
        synth_fill(&t, &o);
        char path[256];
        snprintf(path, sizeof path, "%s/%s.tmt", dir, p ? "hw12" : "sim12");
        cr_assert_eq(trace_write(path, &t, NULL), ERR_OK);
        trace_free(&t);
    }
    char path[256];
    snprintf(path, sizeof path, "%s/pg.txt", dir);
    FILE *f = fopen(path, "w");
    fprintf(f, "key pagedown\nmove 5 5\nscreenshot pg.png\nquit\n");
    fclose(f);
    static char out[8192];
    int rc = sh(out, sizeof out,
                NO_LSAN "SDL_VIDEODRIVER=x11 xvfb-run -a -s '-screen 0 1280x1024x24' %s/%s --size 1000x600 --script pg.txt "
                "sim12.tmt hw12.tmt && " LIB_LSAN "%s/%s --render from2.png --size 1000x600 --ctas 2-11 sim12.tmt hw12.tmt",
                cwd, TMAVIEW_BIN, cwd, TMAVIEW_BIN);
    cr_assert_eq(rc, 0, "%s", out);
    img a = load_png("pg.png"), b = load_png("from2.png");
    cr_assert_eq(a.w, b.w);
    /* lanes of pane 1 (y 42..290) and pane 2 (y 308..556), timeline and labels (x < 700) */
    int differ = 0, ink_a = 0;
    for (int y = 42; y < 556; y++) {
        if (y >= 288 && y < 310) continue;
        for (int x = 0; x < 700; x++) {
            int r1, g1, b1, r2, g2, b2;
            px(&a, x, y, &r1, &g1, &b1);
            px(&b, x, y, &r2, &g2, &b2);
            differ += r1 != r2 || g1 != g2 || b1 != b2;
            ink_a += r1 == SR && g1 == SG && b1 == SB;
        }
    }
    cr_expect_gt(ink_a, 1000, "no stalls drawn after PgDn");
    cr_expect_eq(differ, 0, "%d pixels differ from the render starting at CTA 2", differ);
    cairo_surface_destroy(a.s);
    cairo_surface_destroy(b.s);
}
