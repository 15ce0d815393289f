/* Chrome Trace Event JSON as generic loaders (Perfetto's JSON importer and the like)
 * take it: no pid or tid 0 (such events are dropped or merged), metadata events with
 * cat "__metadata", and the import back to the native trace still exact. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_run.h"
#include "trace.h"
#include "trace_chrome_json.h"

Test(chrome, pids_and_tids_from_1_metadata_category_and_exact_import, .timeout = 120)
{
    char dir[] = "/tmp/tmchromeXXXXXX", args[512], cmd[1024];
    cr_assert(mkdtemp(dir));
    /* 2 CTAs of ws4_tma: producer, consumers and the TMA-unit lane (warp 255) */
    snprintf(cmd, sizeof cmd, "sed 's/ctas: 132/ctas: 2/' examples/ws4_tma.yaml > %s/w.yaml", dir);
    cr_assert_eq(system(cmd), 0);
    snprintf(args, sizeof args, "%s/w.yaml -o %s/a.tmt", dir, dir);
    run_result r = cli_run("sim", args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    done(&r);
    snprintf(args, sizeof args, "%s/a.tmt --chrome %s/a.json", dir, dir);
    r = cli_run("export", args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    done(&r);
    char path[128];
    snprintf(path, sizeof path, "%s/a.json", dir);
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    cr_assert(root, "%s: %s", path, je.text);
    json_t *evs = json_object_get(root, "traceEvents");
    size_t i, meta = 0, tma_unit = 0;
    json_t *ev;
    json_array_foreach(evs, i, ev)
    {
        json_int_t pid = json_integer_value(json_object_get(ev, "pid")), tid = json_integer_value(json_object_get(ev, "tid"));
        cr_expect(pid > 0 && tid > 0, "traceEvents[%zu]: pid %lld tid %lld", i, (long long)pid, (long long)tid);
        const char *ph = json_string_value(json_object_get(ev, "ph"));
        if (ph && !strcmp(ph, "M")) {
            meta++;
            const char *cat = json_string_value(json_object_get(ev, "cat"));
            cr_expect(cat && !strcmp(cat, "__metadata"), "traceEvents[%zu]: metadata without cat __metadata", i);
        }
        json_t *a = json_object_get(ev, "args");
        if (json_is_object(a) && json_integer_value(json_object_get(a, "warp")) == 255) {
            tma_unit++;
            cr_expect_eq(tid, 256);
            cr_expect_eq(pid, json_integer_value(json_object_get(a, "cta")) + 1);
        }
    }
    cr_expect_gt(meta, 4);
    cr_expect_gt(tma_unit, 0);
    json_decref(root);
    snprintf(args, sizeof args, "--import %s/a.json -o %s/b.tmt", dir, dir);
    r = cli_run("export", args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    done(&r);
    snprintf(cmd, sizeof cmd, "cmp -s %s/a.tmt %s/b.tmt", dir, dir);
    cr_expect_eq(system(cmd), 0, "the import is not byte for byte the exported trace");
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_expect_eq(system(cmd), 0);
}

/* The export names each (CTA, warp) pair once, in the order of first appearance, and
 * each CTA once, however many pairs there are (here 3000 pairs of 300 CTAs, every pair
 * seen twice); the document imports from memory to the same events. */
Test(chrome, every_cta_and_warp_named_once_and_imported_from_memory)
{
    trace t;
    trace_init(&t, TRACE_SRC_SIM);
    for (int round = 0; round < 2; round++)
        for (unsigned i = 0; i < 3000; i++) {
            trace_event ev = {.t_ns = round * 10000 + (int64_t)i, .cta = (uint16_t)(i % 300 * 211), .warp = (uint8_t)(i / 300),
                              .kind = TRACE_BAR_ARRIVE, .role = TRACE_ROLE_PRODUCER};
            cr_assert_eq(trace_push(&t, &ev, NULL), ERR_OK);
        }
    char *json = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&json, &len);
    cr_assert(f);
    err_info e = {0};
    cr_assert_eq(trace_chrome_write(f, &t, &e), ERR_OK, "%s", e.detail);
    cr_assert_eq(fclose(f), 0);
    json_error_t je;
    json_t *root = json_loadb(json, len, 0, &je);
    cr_assert(root, "%s", je.text);
    size_t i, threads = 0, processes = 0;
    json_t *ev;
    json_array_foreach(json_object_get(root, "traceEvents"), i, ev)
    {
        const char *name = json_string_value(json_object_get(ev, "name"));
        if (name && !strcmp(name, "thread_name")) {
            /* in order of first appearance: pair k is event k of the first round */
            json_int_t pid = json_integer_value(json_object_get(ev, "pid")), tid = json_integer_value(json_object_get(ev, "tid"));
            cr_assert_eq(pid, (json_int_t)(threads % 300 * 211) + 1);
            cr_assert_eq(tid, (json_int_t)(threads / 300) + 1);
            threads++;
        }
        if (name && !strcmp(name, "process_name")) processes++;
    }
    json_decref(root);
    cr_expect_eq(threads, 3000);
    cr_expect_eq(processes, 300);
    trace u;
    cr_assert_eq(trace_chrome_read_mem(json, len, "mem.json", &u, &e), ERR_OK, "%s", e.detail);
    cr_assert_eq(u.count, t.count);
    cr_assert_eq(memcmp(u.events, t.events, t.count * sizeof *t.events), 0);
    trace_free(&u);
    /* an error names the given path and the line of the event */
    const char bad[] = "{\"traceEvents\":[\n{\"ph\":\"M\"},\n{\"ph\":\"X\"}]}";
    cr_assert_eq(trace_chrome_read_mem(bad, sizeof bad - 1, "bad.json", &u, &e), ERR_BAD_INPUT);
    cr_assert(strstr(e.detail, "bad.json:3: traceEvents[1]"), "%s", e.detail);
    free(json);
    trace_free(&t);
}
