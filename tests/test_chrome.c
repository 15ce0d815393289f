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
