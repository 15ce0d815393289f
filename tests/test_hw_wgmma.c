/* GPU test: tmahw wgmma-record on the first cases of the wgmma corpus, replayed through
 * the model (every address, verdict and proposed descriptor must agree). Runs where an
 * NVIDIA GPU and the tmahw binary are present; skipped with the reason elsewhere
 * (hw/wgmma-record.sh records the whole corpus on the GPU machine). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "wgmma_rec.h"

#ifndef TMAHW_BIN
#define TMAHW_BIN "build/rel/tmahw"
#endif

Test(hw_wgmma, first_cases_agree_with_the_model, .timeout = 300)
{
    if (access("/dev/nvidia0", F_OK) != 0)
        cr_skip_test("no NVIDIA GPU: /dev/nvidia0 is absent");
    if (access(TMAHW_BIN, X_OK) != 0)
        cr_skip_test("no NVIDIA GPU tooling: %s is not built (needs nvcc)", TMAHW_BIN);
    char dir[] = "/tmp/tmwgXXXXXX", path[64], cmd[256];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/wgmma.txt", dir);
    snprintf(cmd, sizeof cmd, "%s wgmma-record --limit 60 --out %s 2>/dev/null", TMAHW_BIN, path);
    cr_assert_eq(system(cmd), 0, "%s failed", cmd);
    static wg_replay_report r;
    err_info e = {0};
    int rc = wg_replay_file(path, &r, &e);
    for (uint32_t i = 0; i < r.n_details; i++)
        cr_log_error("%s", r.details[i]);
    unlink(path);
    rmdir(dir);
    cr_assert_eq(rc, ERR_OK, "%s: %s", e.rule, e.detail);
    cr_assert_eq(r.cases, 60u);
}
