/* trace file format: round trip, truncation, malformed headers (traces/FORMAT.md). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace.h"

static char tmpdir[64];

static void setup(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/test_trace.%ld", (long)getpid());
    char cmd[128];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", tmpdir);
    cr_assert(system(cmd) == 0);
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    (void)!system(cmd);
}

static const char *path_in(const char *name)
{
    static char p[128];
    snprintf(p, sizeof p, "%s/%s", tmpdir, name);
    return p;
}

static void fill(trace *t, size_t n)
{
    trace_init(t, TRACE_SRC_SIM);
    snprintf(t->gpu, sizeof t->gpu, "H100 (sim)");
    snprintf(t->name, sizeof t->name, "roundtrip");
    snprintf(t->note, sizeof t->note, "params h100");
    t->kernel_ns = 123456;
    for (size_t i = 0; i < n; i++) {
        trace_event ev = {.t_ns = (int64_t)(i * 7), .dur_ns = (uint32_t)(i % 5), .iteration = (uint32_t)i,
                          .bytes = 16384, .cta = (uint16_t)(i % 132), .phase = (uint16_t)(i / 2),
                          .sm = (uint8_t)(i % 132), .warp = (uint8_t)(i % 12), .role = TRACE_ROLE_CONSUMER,
                          .stage = (uint8_t)(i % 4), .kind = (uint8_t)(i % TRACE_KIND_COUNT), .barrier = 3,
                          .source = TRACE_SRC_SIM, .flags = TRACE_FLAG_FULL_BARRIER};
        cr_assert_eq(trace_push(t, &ev, NULL), ERR_OK);
    }
}

static long file_size(const char *p)
{
    FILE *f = fopen(p, "rb");
    cr_assert(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return n;
}

TestSuite(trace, .init = setup, .fini = teardown);

Test(trace, event_is_32_bytes_and_file_is_header_plus_32_per_event)
{
    cr_assert_eq(sizeof(trace_event), 32);
    trace t;
    fill(&t, 1000);
    cr_assert_eq(trace_write(path_in("a.tmt"), &t, NULL), ERR_OK);
    cr_assert_eq(file_size(path_in("a.tmt")), 320 + 1000 * 32);
    trace_free(&t);
}

Test(trace, round_trip_keeps_every_field_and_metadata)
{
    trace t, u;
    fill(&t, 5000);
    err_info e = {0};
    cr_assert_eq(trace_write(path_in("b.tmt"), &t, &e), ERR_OK);
    cr_assert_eq(trace_read(path_in("b.tmt"), &u, &e), ERR_OK, "%s", e.detail);
    cr_assert_eq(u.count, t.count);
    cr_assert_eq(memcmp(u.events, t.events, t.count * sizeof *t.events), 0);
    cr_assert_str_eq(u.gpu, "H100 (sim)");
    cr_assert_str_eq(u.name, "roundtrip");
    cr_assert_str_eq(u.note, "params h100");
    cr_assert_eq(u.kernel_ns, 123456);
    cr_assert_eq(u.truncated, 0);
    trace_free(&t);
    trace_free(&u);
}

Test(trace, write_leaves_no_temp_file)
{
    trace t;
    fill(&t, 3);
    cr_assert_eq(trace_write(path_in("c.tmt"), &t, NULL), ERR_OK);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "ls %s | grep -q tmp", tmpdir);
    cr_assert_neq(system(cmd), 0, "a .tmp file was left behind");
    trace_free(&t);
}

Test(trace, truncated_file_loads_intact_events)
{
    trace t, u;
    fill(&t, 100);
    cr_assert_eq(trace_write(path_in("d.tmt"), &t, NULL), ERR_OK);
    /* cut in the middle of event 41: 41 intact events remain */
    cr_assert_eq(truncate(path_in("d.tmt"), 320 + 41 * 32 + 17), 0);
    err_info e = {0};
    cr_assert_eq(trace_read(path_in("d.tmt"), &u, &e), ERR_OK, "%s", e.detail);
    cr_assert_eq(u.truncated, 1);
    cr_assert_eq(u.count, 41);
    cr_assert_eq(memcmp(u.events, t.events, 41 * 32), 0);
    trace_free(&t);
    trace_free(&u);
}

static void write_bytes(const char *p, const void *b, size_t n)
{
    FILE *f = fopen(p, "wb");
    cr_assert(f);
    cr_assert_eq(fwrite(b, 1, n, f), n);
    fclose(f);
}

static void patch_and_expect(size_t off, const void *bytes, size_t n, const char *field)
{
    trace t, u;
    fill(&t, 10);
    cr_assert_eq(trace_write(path_in("e.tmt"), &t, NULL), ERR_OK);
    FILE *f = fopen(path_in("e.tmt"), "r+b");
    fseek(f, (long)off, SEEK_SET);
    fwrite(bytes, 1, n, f);
    fclose(f);
    err_info e = {0};
    cr_assert_eq(trace_read(path_in("e.tmt"), &u, &e), ERR_BAD_INPUT);
    cr_assert(strstr(e.detail, field), "detail '%s' does not name '%s'", e.detail, field);
    cr_assert(strstr(e.detail, "e.tmt"), "detail '%s' does not name the file", e.detail);
    trace_free(&t);
}

Test(trace, malformed_files_name_the_field)
{
    patch_and_expect(0, "XXXX", 4, "magic");
    uint8_t v9[4] = {9, 0, 0, 0};
    patch_and_expect(8, v9, 4, "version");
    uint8_t eb[4] = {24, 0, 0, 0};
    patch_and_expect(16, eb, 4, "event_bytes");
    uint8_t kind = 200;
    patch_and_expect(320 + 3 * 32 + 28, &kind, 1, "kind");
    uint8_t role = 9;
    patch_and_expect(320 + 32 + 26, &role, 1, "role");
    uint8_t cnt[8] = {5, 0, 0, 0, 0, 0, 0, 0};   /* 10 events present, 5 announced */
    patch_and_expect(24, cnt, 8, "event_count");
    char nonul[64];
    memset(nonul, 'x', sizeof nonul);
    patch_and_expect(48, nonul, 64, "gpu");
}

Test(trace, short_and_missing_files_are_bad_input)
{
    write_bytes(path_in("f.tmt"), "TMATRACE\1\0", 10);
    trace u;
    err_info e = {0};
    cr_assert_eq(trace_read(path_in("f.tmt"), &u, &e), ERR_BAD_INPUT);
    cr_assert(strstr(e.detail, "header"));
    cr_assert_eq(trace_read(path_in("missing.tmt"), &u, &e), ERR_BAD_INPUT);
}

/* The bytes of a file, read whole (the test files are small). */
static uint8_t *file_bytes(const char *p, size_t *n)
{
    long size = file_size(p);
    uint8_t *b = malloc((size_t)size + 1);
    FILE *f = fopen(p, "rb");
    cr_assert(b && f);
    cr_assert_eq(fread(b, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    *n = (size_t)size;
    return b;
}

Test(trace, read_mem_loads_what_read_loads_and_names_the_buffer)
{
    trace t, u, v;
    fill(&t, 100);
    cr_assert_eq(trace_write(path_in("m.tmt"), &t, NULL), ERR_OK);
    size_t n;
    uint8_t *b = file_bytes(path_in("m.tmt"), &n);
    err_info e = {0};
    cr_assert_eq(trace_read(path_in("m.tmt"), &u, &e), ERR_OK, "%s", e.detail);
    cr_assert_eq(trace_read_mem(b, n, "in memory", &v, &e), ERR_OK, "%s", e.detail);
    cr_assert_eq(v.count, u.count);
    cr_assert_eq(memcmp(v.events, u.events, u.count * sizeof *u.events), 0);
    cr_assert_str_eq(v.name, u.name);
    trace_free(&v);
    /* cut inside event 41: the intact events, as from a file */
    cr_assert_eq(trace_read_mem(b, 320 + 41 * 32 + 17, "cut", &v, &e), ERR_OK, "%s", e.detail);
    cr_assert_eq(v.count, 41);
    cr_assert_eq(v.truncated, 1);
    trace_free(&v);
    b[0] = 'X';   /* a bad magic: the message names the buffer */
    cr_assert_eq(trace_read_mem(b, n, "in memory", &v, &e), ERR_BAD_INPUT);
    cr_assert(strstr(e.detail, "in memory") && strstr(e.detail, "magic"), "%s", e.detail);
    cr_assert_eq(trace_read_mem(b, 0, "empty", &v, &e), ERR_BAD_INPUT);
    cr_assert(strstr(e.detail, "empty"), "%s", e.detail);
    free(b);
    trace_free(&t);
    trace_free(&u);
}

/* A header longer than this reader knows (a later version's fields) is skipped; one
 * that announces more bytes than the file holds is refused. */
Test(trace, longer_header_is_skipped_and_a_short_one_refused)
{
    trace t, u;
    fill(&t, 10);
    cr_assert_eq(trace_write(path_in("h.tmt"), &t, NULL), ERR_OK);
    size_t n;
    uint8_t *b = file_bytes(path_in("h.tmt"), &n);
    size_t extra = 4096;
    uint8_t *g = calloc(n + extra, 1);
    cr_assert(g);
    memcpy(g, b, 320);
    memcpy(g + 320 + extra, b + 320, n - 320);
    uint32_t hb = 320 + (uint32_t)extra;
    for (int i = 0; i < 4; i++) g[12 + i] = (uint8_t)(hb >> (8 * i));
    write_bytes(path_in("g.tmt"), g, n + extra);
    err_info e = {0};
    cr_assert_eq(trace_read(path_in("g.tmt"), &u, &e), ERR_OK, "%s", e.detail);
    cr_assert_eq(u.count, 10);
    cr_assert_eq(memcmp(u.events, t.events, 10 * sizeof *t.events), 0);
    trace_free(&u);
    write_bytes(path_in("g.tmt"), g, 320 + extra - 1);
    cr_assert_eq(trace_read(path_in("g.tmt"), &u, &e), ERR_BAD_INPUT);
    cr_assert(strstr(e.detail, "header_bytes"), "%s", e.detail);
    free(g);
    free(b);
    trace_free(&t);
}

Test(trace, sort_orders_by_time_then_key)
{
    trace t;
    trace_init(&t, TRACE_SRC_HW);
    int64_t times[] = {50, 10, 30, 10, 20};
    for (int i = 0; i < 5; i++) {
        trace_event ev = {.t_ns = times[i], .warp = (uint8_t)(5 - i), .source = TRACE_SRC_HW};
        trace_push(&t, &ev, NULL);
    }
    trace_sort(&t);
    for (size_t i = 1; i < t.count; i++)
        cr_assert_leq(t.events[i - 1].t_ns, t.events[i].t_ns);
    cr_assert_eq(t.events[0].warp, 2); /* two events at 10 ns: warp 2 before warp 4 */
    cr_assert_eq(t.events[1].warp, 4);
    trace_free(&t);
}

Test(trace, names_round_trip)
{
    for (int k = 0; k < TRACE_KIND_COUNT; k++) {
        trace_kind back;
        cr_assert(trace_kind_from_name(trace_kind_name((trace_kind)k), &back));
        cr_assert_eq((int)back, k);
    }
    cr_assert_str_eq(trace_kind_name(TRACE_WAIT), "wait");
    cr_assert_str_eq(trace_role_name(TRACE_ROLE_PRODUCER), "producer");
    cr_assert_str_eq(trace_kind_name((trace_kind)99), "unknown");
}

Test(trace, large_sort_matches_the_comparator_order)
{
    /* above the radix threshold: times with many ties, keys in reverse */
    trace t;
    trace_init(&t, TRACE_SRC_SIM);
    uint32_t x = 12345;
    for (int i = 0; i < 20000; i++) {
        x = x * 1103515245u + 12345u;
        trace_event ev = {.t_ns = (int64_t)((x >> 8) % 3000) - 1000, .warp = (uint8_t)(x % 7),
                          .cta = (uint16_t)(x % 5), .iteration = (uint32_t)i};
        trace_push(&t, &ev, NULL);
    }
    trace_sort(&t);
    cr_assert_eq(t.count, 20000);
    for (size_t i = 1; i < t.count; i++) {
        const trace_event *a = &t.events[i - 1], *b = &t.events[i];
        cr_assert(a->t_ns < b->t_ns || (a->t_ns == b->t_ns && (a->cta < b->cta || (a->cta == b->cta &&
                  (a->warp < b->warp || (a->warp == b->warp && a->iteration < b->iteration))))),
                  "events %zu and %zu out of order", i - 1, i);
    }
    trace_free(&t);
}

Test(trace, sparse_times_take_the_radix_path_and_match_the_comparator)
{
    /* times spread over ~1 s (far wider than 4 x the event count): the LSD radix branch */
    trace t;
    trace_init(&t, TRACE_SRC_HW);
    uint32_t x = 777;
    for (int i = 0; i < 10000; i++) {
        x = x * 1103515245u + 12345u;
        int64_t tt = (int64_t)(x % 1000000007u) - 5000;
        if (i % 3 == 0 && i)
            tt = t.events[i - 1].t_ns;   /* ties, keys out of order */
        trace_event ev = {.t_ns = tt, .warp = (uint8_t)(x % 9), .cta = (uint16_t)(x % 4), .source = TRACE_SRC_HW};
        trace_push(&t, &ev, NULL);
    }
    trace_sort(&t);
    for (size_t i = 1; i < t.count; i++) {
        const trace_event *a = &t.events[i - 1], *b = &t.events[i];
        cr_assert(a->t_ns < b->t_ns || (a->t_ns == b->t_ns && (a->cta < b->cta || (a->cta == b->cta && a->warp <= b->warp))),
                  "events %zu and %zu out of order", i - 1, i);
    }
    trace_free(&t);
}

Test(trace, time_sorted_trace_only_orders_its_ties)
{
    trace t;
    trace_init(&t, TRACE_SRC_SIM);
    /* in time order, but the three events at t = 5 are in reverse key (cta) order */
    int64_t times[] = {1, 5, 5, 5, 9};
    uint16_t ctas[] = {0, 3, 2, 1, 0};
    for (int i = 0; i < 5; i++) {
        trace_event ev = {.t_ns = times[i], .cta = ctas[i]};
        trace_push(&t, &ev, NULL);
    }
    trace_sort(&t);
    uint16_t want[] = {0, 1, 2, 3, 0};
    for (int i = 0; i < 5; i++) {
        cr_assert_eq(t.events[i].t_ns, times[i]);
        cr_assert_eq(t.events[i].cta, want[i], "event %d", i);
    }
    trace_free(&t);
}

Test(trace, the_description_rides_in_the_header_and_older_traces_load_without_one)
{
    trace t, u;
    fill(&t, 100);
    err_info e = {0};
    cr_assert_eq(trace_write(path_in("plain.tmt"), &t, &e), ERR_OK);
    const char *text = "name: x\nmode: warp_specialized\n";   /* 31 bytes: padded to 32 */
    cr_assert_eq(trace_set_desc(&t, text, strlen(text), 0x0123456789abcdefull, &e), ERR_OK);
    cr_assert_eq(trace_write(path_in("desc.tmt"), &t, &e), ERR_OK);
    cr_assert_eq(file_size(path_in("desc.tmt")), file_size(path_in("plain.tmt")) + 32);
    cr_assert_eq(trace_read(path_in("desc.tmt"), &u, &e), ERR_OK, "%s", e.detail);
    cr_assert_str_eq(u.desc_text, text);
    cr_assert_eq(u.desc_hash, 0x0123456789abcdefull);
    cr_assert_eq(u.count, t.count);
    cr_assert_eq(memcmp(u.events, t.events, t.count * sizeof *t.events), 0);
    trace_free(&u);
    /* a trace without the field (every trace written before it existed) */
    cr_assert_eq(trace_read(path_in("plain.tmt"), &u, &e), ERR_OK, "%s", e.detail);
    cr_assert_null(u.desc_text);
    cr_assert_eq(u.desc_hash, 0);
    trace_free(&u);
    trace_free(&t);
}

Test(trace, a_description_longer_than_its_header_is_refused)
{
    trace t, u;
    fill(&t, 3);
    cr_assert_eq(trace_set_desc(&t, "name: x\n", 8, 1, NULL), ERR_OK);
    cr_assert_eq(trace_write(path_in("d.tmt"), &t, NULL), ERR_OK);
    trace_free(&t);
    FILE *f = fopen(path_in("d.tmt"), "r+b");
    cr_assert(f);
    fseek(f, 312, SEEK_SET);
    const unsigned char big[4] = {9, 0, 0, 0};   /* 9 bytes of text in an 8-byte extension */
    fwrite(big, 1, 4, f);
    fclose(f);
    err_info e = {0};
    cr_assert_eq(trace_read(path_in("d.tmt"), &u, &e), ERR_BAD_INPUT);
    cr_assert(strstr(e.detail, "desc_bytes"), "%s", e.detail);
}
