/* The committed H100 recording (traces/h100/validation) replayed through the current
 * models: every kind must agree 100%. A model change that breaks agreement with the
 * hardware fails here. The replay machinery itself is checked on hand-made
 * recordings whose expected bytes follow from the definition of a 1-D TMA copy. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay_json.h"

#define RECORDING "traces/h100/validation"

static replay_report *load_recording(void)
{
    static replay_report r;
    static int loaded;
    if (!loaded) {
        err_info e;
        err_clear(&e);
        int rc = replay_dir(RECORDING, &r, &e);
        cr_assert_eq(rc, ERR_OK, "%s: %s", e.rule, e.detail);
        loaded = 1;
    }
    return &r;
}

static void assert_kind(replay_kind k, uint32_t min_cases)
{
    replay_report *r = load_recording();
    const replay_counts *c = &r->counts[k];
    cr_assert_geq(c->cases, min_cases, "%s: only %u recorded cases", replay_kind_name(k), c->cases);
    for (uint32_t i = 0; i < r->ndetails; i++)
        if (r->details[i].kind == k)
            cr_log_error("%s case %u: %s\n    %s", replay_kind_name(k), r->details[i].id, r->details[i].params,
                         r->details[i].detail);
    cr_assert_eq(c->disagree, 0, "%s: %u of %u recorded H100 cases disagree with the model (see the log above)",
                 replay_kind_name(k), c->disagree, c->cases);
    cr_assert_eq(c->agree + c->unusable, c->cases);
}

Test(replay_h100, encoder_verdicts_agree) { assert_kind(REPLAY_ENCODE, 60); }
Test(replay_h100, tma_loads_agree_byte_for_byte) { assert_kind(REPLAY_LOAD, 400); }
Test(replay_h100, tma_stores_agree_byte_for_byte) { assert_kind(REPLAY_STORE, 80); }
Test(replay_h100, bank_counts_agree_exactly) { assert_kind(REPLAY_BANK, 300); }

Test(replay_h100, recording_says_where_it_ran)
{
    replay_report *r = load_recording();
    cr_assert(strstr(r->gpu, "H100") != NULL, "gpu: %s", r->gpu);
    cr_assert(strlen(r->date) >= 10);
}

/* ---------------------------------------------------------------- hand-made recordings */

static char tmpdir[256];

static void write_file(const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

static void make_dir(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/test_replay.%d", (int)getpid());
    mkdir(tmpdir, 0700);
    write_file("meta.json", "{\"gpu\":\"hand-made\",\"driver\":\"-\",\"date\":\"2026-01-01\",\"cuda_runtime\":13000,"
                            "\"bank\":{\"baseline\":{\"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum\":0}}}\n");
    write_file("encode.jsonl", "");
    write_file("bank.jsonl", "");
}

static void remove_dir(void)
{
    const char *names[] = {"meta.json", "encode.jsonl", "layout.jsonl", "bank.jsonl"};
    char path[512];
    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", tmpdir, names[i]);
        remove(path);
    }
    rmdir(tmpdir);
}

/* A 1-D u8 load of 16 bytes from coordinate 16 to shared address 1024: by definition
 * of the copy, shared bytes [1024, 1040) are tensor bytes [16, 32); the rest keeps the
 * sentinel. flip_at >= 0 corrupts that window byte. */
static void write_1d_load(int flip_at)
{
    uint8_t w[16 + 128];
    for (int i = 0; i < 16; i++)
        w[i] = replay_fill_byte(REPLAY_SEED_GLOBAL, 16 + (uint64_t)i);
    for (int i = 16; i < 144; i++)
        w[i] = replay_fill_byte(REPLAY_SEED_SMEM_SENTINEL, (uint64_t)i); /* buffer offset = address - 1024 */
    if (flip_at >= 0)
        w[flip_at] ^= 0x01;
    char hex[2 * sizeof w + 1];
    for (size_t i = 0; i < sizeof w; i++)
        sprintf(hex + 2 * i, "%02x", w[i]);
    char line[2048];
    snprintf(line, sizeof line,
             "{\"id\":0,\"kind\":\"load\",\"smem_offset\":0,\"dtype_id\":0,\"rank\":1,\"dims\":[64],\"strides\":[],"
             "\"box\":[16],\"elem_strides\":[1],\"interleave_id\":0,\"swizzle_id\":0,\"l2_promotion_id\":0,"
             "\"oob_fill_id\":0,\"global_address\":268435456,\"coords\":[16],"
             "\"encode\":{\"accepted\":true,\"cu_result\":0},\"expect_tx\":16,\"completed\":true,"
             "\"smem_base\":1024,\"smem_address\":1024,\"smem_size\":4096,\"written\":[[1024,1040]],"
             "\"window_start\":1024,\"hex\":\"%s\"}\n",
             hex);
    write_file("layout.jsonl", line);
}

Test(replay_machinery, hand_derived_1d_load_agrees)
{
    make_dir();
    write_1d_load(-1);
    replay_report r;
    err_info e;
    err_clear(&e);
    cr_assert_eq(replay_dir(tmpdir, &r, &e), ERR_OK, "%s", e.detail);
    cr_expect_eq(r.counts[REPLAY_LOAD].cases, 1);
    cr_expect_eq(r.counts[REPLAY_LOAD].agree, 1, "%s", r.ndetails ? r.details[0].detail : "");
    remove_dir();
}

Test(replay_machinery, changed_byte_is_reported_with_its_address)
{
    make_dir();
    write_1d_load(5);
    replay_report r;
    err_info e;
    err_clear(&e);
    cr_assert_eq(replay_dir(tmpdir, &r, &e), ERR_OK, "%s", e.detail);
    cr_assert_eq(r.counts[REPLAY_LOAD].disagree, 1);
    cr_assert_eq(r.ndetails, 1);
    cr_expect(strstr(r.details[0].detail, "0x405") != NULL, "detail: %s", r.details[0].detail);
    cr_expect(strstr(r.details[0].params, "--coords 16") != NULL, "params: %s", r.details[0].params);
    remove_dir();
}

Test(replay_machinery, wrong_transaction_count_is_a_disagreement)
{
    make_dir();
    write_1d_load(-1);
    /* the same case, but the barrier armed with 32 bytes "completed": impossible for a 16-byte box */
    char path[512];
    snprintf(path, sizeof path, "%s/layout.jsonl", tmpdir);
    char *text = NULL;
    size_t n = 0;
    FILE *f = fopen(path, "r");
    cr_assert_eq(getline(&text, &n, f) > 0, 1);
    fclose(f);
    char *p = strstr(text, "\"expect_tx\":16");
    cr_assert_not_null(p);
    memcpy(p, "\"expect_tx\":32", 14);
    write_file("layout.jsonl", text);
    free(text);
    replay_report r;
    err_info e;
    err_clear(&e);
    cr_assert_eq(replay_dir(tmpdir, &r, &e), ERR_OK);
    cr_expect_eq(r.counts[REPLAY_LOAD].disagree, 1);
    remove_dir();
}

/* 32 lanes reading 32 consecutive words: one wavefront, no conflict (CUDA guide). */
Test(replay_machinery, bank_counts_compared_exactly)
{
    make_dir();
    write_file("layout.jsonl", "");
    char line[4096], addr[400];
    size_t at = 0;
    for (int l = 0; l < 32; l++)
        at += (size_t)snprintf(addr + at, sizeof addr - at, "%s%d", l ? "," : "", 4 * l);
    const char *tmpl = "{\"id\":%d,\"op\":\"lds32\",\"addr\":[%s],\"counters\":{"
                       "\"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum\":%d,"
                       "\"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum\":%d,"
                       "\"smsp__sass_inst_executed_op_shared_ld.sum\":1}}\n";
    char two[8192];
    snprintf(line, sizeof line, tmpl, 0, addr, 1, 0);
    snprintf(two, sizeof two, "%s", line);
    snprintf(line, sizeof line, tmpl, 1, addr, 2, 1);
    strncat(two, line, sizeof two - strlen(two) - 1);
    write_file("bank.jsonl", two);
    replay_report r;
    err_info e;
    err_clear(&e);
    cr_assert_eq(replay_dir(tmpdir, &r, &e), ERR_OK, "%s", e.detail);
    cr_expect_eq(r.counts[REPLAY_BANK].cases, 2);
    cr_expect_eq(r.counts[REPLAY_BANK].agree, 1);
    cr_expect_eq(r.counts[REPLAY_BANK].disagree, 1);
    cr_expect_eq(r.ndetails, 1);
    cr_expect_eq(r.details[0].id, 1);
    remove_dir();
}

Test(replay_machinery, malformed_line_names_file_and_line)
{
    make_dir();
    write_file("layout.jsonl", "{\"id\":0}\nnot json\n");
    replay_report r;
    err_info e;
    err_clear(&e);
    cr_assert_eq(replay_dir(tmpdir, &r, &e), ERR_BAD_INPUT);
    cr_expect(strstr(e.detail, "layout.jsonl:2") != NULL, "detail: %s", e.detail);
    remove_dir();
}

Test(replay_machinery, missing_recording_is_an_io_error)
{
    replay_report r;
    err_info e;
    err_clear(&e);
    cr_assert_eq(replay_dir("/nonexistent/recording", &r, &e), ERR_IO);
}
