/* tmahw: the hardware runner. See hw/README.md.
 *
 *   tmahw layout <tmasim layout flags> [--store] [--format table|json]
 *   tmahw bank (--pattern FILE | --op OP --addr a0,...,a31) [--format table|csv|json]
 *   tmahw validate [--out DIR] [--only encode|layout|bank]
 *
 * validate runs the layout cases in child processes (record-layout) so that a copy
 * the hardware faults on (a sticky CUDA error ends the context) is recorded as a
 * fault and the recording goes on in a fresh process. */
#include <cuda.h>
#include <cuda_runtime.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hw.h"
#include "run.h"
#include "calib.h"
#include "hw_record.h"
#include "hw_sweep.h"
int hw_cmd_wgmma_record(int argc, char **argv);
#include "tm_flags.h"

enum { EXIT_OK_ = 0, EXIT_FINDING_ = 1, EXIT_BAD_ = 2 };

static int open_device(hw_device *dev)
{
    char msg[256];
    if (hw_open(dev, msg, sizeof msg)) {
        fprintf(stderr, "tmahw: no usable GPU: %s\n", msg);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------ layout */

static int cmd_layout(int argc, char **argv)
{
    tm_flags f;
    err_info e;
    int store = 0, json = 0;
    tm_flags_init(&f);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help")) {
            printf("usage: tmahw layout <flags> [--store] [--format table|json]\n%s", tm_flags_usage());
            return 0;
        }
        if (!strcmp(argv[i], "--store")) {
            store = 1;
            continue;
        }
        if (!strcmp(argv[i], "--format") && i + 1 < argc) {
            const char *v = argv[++i];
            if (strcmp(v, "json") && strcmp(v, "table")) {
                fprintf(stderr, "tmahw layout: --format: '%s' is not one of: table json\n", v);
                return EXIT_BAD_;
            }
            json = !strcmp(v, "json");
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "tmahw layout: %s: missing value\n", argv[i]);
            return EXIT_BAD_;
        }
        err_clear(&e);
        int r = tm_flags_apply(&f, argv[i], argv[i + 1], &e);
        if (r == TM_FLAGS_NOT_MINE) {
            fprintf(stderr, "tmahw layout: %s: unknown flag (see --help)\n", argv[i]);
            return EXIT_BAD_;
        }
        if (r != ERR_OK) {
            fprintf(stderr, "tmahw layout: %s: %s\n", e.rule, e.detail);
            return EXIT_BAD_;
        }
        i++;
    }
    err_clear(&e);
    if (tm_flags_finish(&f, &e) != ERR_OK) {
        fprintf(stderr, "tmahw layout: %s: %s\n", e.rule, e.detail);
        return EXIT_BAD_;
    }
    hw_device dev;
    if (open_device(&dev))
        return EXIT_BAD_;
    hw_layout_case c;
    memset(&c, 0, sizeof c);
    c.group = "cli";
    c.store = store;
    c.desc = f.desc;
    memcpy(c.coords, f.copy.coords, sizeof c.coords);
    /* the destination keeps its position inside a 1024-byte block (what swizzling
     * sees); the block is placed inside the runner's buffer */
    c.smem_offset = 1024 + (f.copy.smem_address & 1023u);
    c.global_misalign = (uint32_t)(f.desc.global_address & 1023u);
    char *jbuf = NULL, *vbuf = NULL;
    size_t jlen = 0, vlen = 0;
    FILE *jf = open_memstream(&jbuf, &jlen), *vf = open_memstream(&vbuf, &vlen);
    hw_run_layout_case(&c, jf, vf);
    fclose(jf);
    fclose(vf);
    /* verdict line: kind id verdict params detail */
    int verdict = -1;
    char *t = strchr(vbuf, '\t');
    if (t && (t = strchr(t + 1, '\t')))
        verdict = atoi(t + 1);
    char *detail = vbuf ? strrchr(vbuf, '\t') : NULL;
    if (json) {
        fputs(jbuf, stdout);
    } else {
        printf("device: %s\n", dev.name);
        printf("case:   %s", vbuf && strchr(vbuf, '\t') ? "" : "\n");
        if (vbuf) {
            char *p1 = strchr(vbuf, '\t');
            char *p2 = p1 ? strchr(p1 + 1, '\t') : NULL;
            char *p3 = p2 ? strchr(p2 + 1, '\t') : NULL;
            char *p4 = p3 ? strchr(p3 + 1, '\t') : NULL;
            if (p3 && p4)
                printf("%.*s\n", (int)(p4 - p3 - 1), p3 + 1);
        }
        const char *enc = strstr(jbuf, "\"encode\":");
        printf("driver: %s\n", enc && strstr(enc, "\"accepted\":true") ? "accepted" : "rejected");
        const char *fault = strstr(jbuf, "\"fault\":\"");
        if (fault) {
            const char *endq = strchr(fault + 9, '"');
            printf("copy: FAULTED on the device (%.*s)\n", endq ? (int)(endq - fault - 9) : 0, fault + 9);
        }
        const char *comp = strstr(jbuf, "\"completed\":");
        if (comp)
            printf("mbarrier: %s\n", !strncmp(comp + 12, "true", 4) ? "completed" : "HUNG (deadline passed)");
        printf("model vs hardware: %s%s%s\n",
               verdict == REPLAY_AGREE ? "agree" : verdict == REPLAY_DISAGREE ? "DISAGREE" : "unusable",
               detail && detail[1] && detail[1] != '\n' ? ": " : "", detail && detail[1] != '\n' ? detail + 1 : "\n");
    }
    int rejected = !jbuf || !strstr(jbuf, "\"accepted\":true");
    int hung = jbuf && strstr(jbuf, "\"completed\":false");
    int faulted = jbuf && strstr(jbuf, "\"fault\":");
    free(jbuf);
    free(vbuf);
    hw_close(&dev);
    return verdict == REPLAY_AGREE && !rejected && !hung && !faulted ? EXIT_OK_ : EXIT_FINDING_;
}

/* ------------------------------------------------------------------ bank */

static double metric_value(const hw_bank_metrics *m, const double *v, const double *base, const char *name)
{
    for (int i = 0; i < m->n; i++)
        if (!strcmp(m->names[i], name))
            return v[i] - base[i];
    return -1;
}

static int bank_obs(const hw_bank_metrics *m, const double *v, const double *base, const bank_instr *in,
                    replay_bank_obs *o)
{
    o->wavefronts = metric_value(m, v, base, replay_bank_wavefront_metric(in->op));
    o->conflicts = metric_value(m, v, base, replay_bank_conflict_metric(in->op));
    o->instructions = -1;
    for (const char *const *n = replay_bank_inst_metrics(in->op); *n; n++) {
        double x = metric_value(m, v, base, *n);
        if (x >= 0) {
            o->instructions = x;
            break;
        }
    }
    return o->wavefronts >= 0 && o->conflicts >= 0;
}

/* Profiles instrs, writes bank.jsonl lines to out (if not NULL) and verdicts to vf. */
static int bank_run(const bank_instr *instrs, uint32_t n, FILE *out, FILE *vf, FILE *meta, FILE *log)
{
    hw_bank_metrics m;
    double *vals = (double *)calloc((size_t)(n ? n : 1) * HW_MAX_METRICS, sizeof(double));
    double base[HW_MAX_METRICS] = {0};
    char msg[512];
    memset(&m, 0, sizeof m);
    if (hw_bank_profile(instrs, n, &m, vals, base, log, msg, sizeof msg)) {
        fprintf(stderr, "tmahw bank: profiler: %s\n", msg);
        free(vals);
        return -1;
    }
    if (meta) {
        fprintf(meta, "{\"metrics\":[");
        for (int k = 0; k < m.n; k++)
            fprintf(meta, "%s\"%s\"", k ? "," : "", m.names[k]);
        fprintf(meta, "],\"baseline\":{");
        for (int k = 0; k < m.n; k++)
            fprintf(meta, "%s\"%s\":%.17g", k ? "," : "", m.names[k], base[k]);
        fprintf(meta, "}}\n");
    }
    for (uint32_t i = 0; i < n; i++) {
        const double *v = vals + (size_t)i * HW_MAX_METRICS;
        if (out) {
            fprintf(out, "{\"id\":%u,\"op\":\"%s\",\"addr\":[", i, hw_bank_op_str(&instrs[i]));
            for (int l = 0; l < 32; l++)
                fprintf(out, "%s%u", l ? "," : "", instrs[i].addr[l]);
            fprintf(out, "],\"counters\":{");
            for (int k = 0; k < m.n; k++)
                fprintf(out, "%s\"%s\":%.17g", k ? "," : "", m.names[k], v[k]);
            fprintf(out, "}}\n");
        }
        replay_bank_obs o;
        char detail[400] = "", params[512];
        int verdict = REPLAY_UNUSABLE;
        if (bank_obs(&m, v, base, &instrs[i], &o))
            verdict = replay_check_bank(&instrs[i], &o, detail, sizeof detail);
        else
            snprintf(detail, sizeof detail, "wavefront/conflict counters unavailable");
        replay_describe_bank(&instrs[i], params, sizeof params);
        fprintf(vf, "bank\t%u\t%d\t%s\t%s|hw wavefronts %g conflicts %g insts %g\n", i, verdict, params, detail,
                o.wavefronts, o.conflicts, o.instructions);
    }
    free(vals);
    return 0;
}

static int parse_addr_list(const char *s, uint32_t *out, int *count)
{
    int n = 0;
    const char *p = s;
    while (*p && n < 32) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(p, &end, 0);
        if (end == p || errno || v > 0xFFFFFFFFull)
            return -1;
        out[n++] = (uint32_t)v;
        p = end;
        if (*p == ',')
            p++;
        else if (*p)
            return -1;
    }
    *count = n;
    return *p ? -1 : 0;
}

static int cmd_bank(int argc, char **argv)
{
    const char *pattern = NULL, *op = NULL, *addr = NULL, *fmt = "table";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help")) {
            printf("usage: tmahw bank (--pattern FILE | --op OP --addr a0,...,a31) [--format table|csv|json]\n"
                   "Runs each instruction as one warp instruction and reads the shared-memory counters\n"
                   "through the CUPTI Range Profiler; compares with the bank model.\n");
            return 0;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "tmahw bank: %s: missing value\n", argv[i]);
            return EXIT_BAD_;
        }
        if (!strcmp(argv[i], "--pattern"))
            pattern = argv[++i];
        else if (!strcmp(argv[i], "--op"))
            op = argv[++i];
        else if (!strcmp(argv[i], "--addr"))
            addr = argv[++i];
        else if (!strcmp(argv[i], "--format"))
            fmt = argv[++i];
        else {
            fprintf(stderr, "tmahw bank: %s: unknown flag (see --help)\n", argv[i]);
            return EXIT_BAD_;
        }
    }
    if (strcmp(fmt, "table") && strcmp(fmt, "csv") && strcmp(fmt, "json")) {
        fprintf(stderr, "tmahw bank: --format: '%s' is not one of: table csv json\n", fmt);
        return EXIT_BAD_;
    }
    bank_pattern pat;
    bank_instr one;
    memset(&pat, 0, sizeof pat);
    err_info e;
    err_clear(&e);
    if (pattern) {
        if (bank_pattern_load(pattern, &pat, &e) != ERR_OK) {
            fprintf(stderr, "tmahw bank: %s: %s\n", e.rule, e.detail);
            return EXIT_BAD_;
        }
    } else if (op && addr) {
        memset(&one, 0, sizeof one);
        if (bank_op_parse(op, &one.op, &one.trans, &e) != ERR_OK) {
            fprintf(stderr, "tmahw bank: %s: %s\n", e.rule, e.detail);
            return EXIT_BAD_;
        }
        int n = 0;
        if (parse_addr_list(addr, one.addr, &n) || n < 1) {
            fprintf(stderr, "tmahw bank: --addr: '%s' is not a list of up to 32 addresses\n", addr);
            return EXIT_BAD_;
        }
        for (int l = n; l < 32; l++)
            one.addr[l] = one.addr[l % n];
        pat.count = 1;
        pat.instrs = &one;
    } else {
        fprintf(stderr, "tmahw bank: --pattern or --op with --addr is required\n");
        return EXIT_BAD_;
    }
    hw_device dev;
    if (open_device(&dev))
        return EXIT_BAD_;
    char *vbuf = NULL;
    size_t vlen = 0;
    FILE *vf = open_memstream(&vbuf, &vlen);
    FILE *devnull = fopen("/dev/null", "w");
    int rc = bank_run(pat.instrs, pat.count, NULL, vf, NULL, devnull);
    fclose(vf);
    fclose(devnull);
    if (rc) {
        free(vbuf);
        return EXIT_BAD_;
    }
    int disagree = 0;
    if (!strcmp(fmt, "csv"))
        printf("op,hw_wavefronts,hw_conflicts,hw_instructions,verdict,detail\n");
    else if (!strcmp(fmt, "json"))
        printf("[");
    else
        printf("%-4s %-14s %-9s %s\n", "#", "op", "verdict", "hardware / detail");
    uint32_t i = 0;
    for (char *line = strtok(vbuf, "\n"); line; line = strtok(NULL, "\n"), i++) {
        char *fld[5] = {0};
        int k = 0;
        for (char *p = line; k < 5; k++) {
            fld[k] = p;
            char *t = strchr(p, '\t');
            if (!t)
                break;
            *t = 0;
            p = t + 1;
        }
        int v = fld[2] ? atoi(fld[2]) : REPLAY_UNUSABLE;
        disagree |= v != REPLAY_AGREE;
        const char *vs = v == REPLAY_AGREE ? "agree" : v == REPLAY_DISAGREE ? "DISAGREE" : "unusable";
        char *hwpart = fld[4] ? strchr(fld[4], '|') : NULL;
        if (hwpart)
            *hwpart++ = 0;
        double wf = -1, cf = -1, in = -1;
        if (hwpart)
            sscanf(hwpart, "hw wavefronts %lf conflicts %lf insts %lf", &wf, &cf, &in);
        const char *opn = hw_bank_op_str(&pat.instrs[i]);
        if (!strcmp(fmt, "csv"))
            printf("%s,%g,%g,%g,%s,\"%s\"\n", opn, wf, cf, in, vs, fld[4] ? fld[4] : "");
        else if (!strcmp(fmt, "json"))
            printf("%s{\"op\":\"%s\",\"hw_wavefronts\":%g,\"hw_conflicts\":%g,\"hw_instructions\":%g,\"verdict\":\"%s\","
                   "\"detail\":\"%s\"}",
                   i ? "," : "", opn, wf, cf, in, vs, fld[4] ? fld[4] : "");
        else
            printf("%-4u %-14s %-9s wavefronts %g, conflicts %g, instructions %g%s%s\n", i, opn, vs, wf, cf, in,
                   fld[4] && *fld[4] ? "; " : "", fld[4] ? fld[4] : "");
    }
    if (!strcmp(fmt, "json"))
        printf("]\n");
    free(vbuf);
    if (pattern)
        bank_pattern_free(&pat);
    hw_close(&dev);
    return disagree ? EXIT_FINDING_ : EXIT_OK_;
}

/* ------------------------------------------------------------------ recording children */

static int cmd_record_layout(int argc, char **argv)
{
    const char *out = NULL, *verd = NULL;
    uint32_t from = 0, to = 0xFFFFFFFFu;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--out"))
            out = argv[i + 1];
        else if (!strcmp(argv[i], "--verdicts"))
            verd = argv[i + 1];
        else if (!strcmp(argv[i], "--from"))
            from = (uint32_t)strtoul(argv[i + 1], NULL, 0);
        else if (!strcmp(argv[i], "--to"))
            to = (uint32_t)strtoul(argv[i + 1], NULL, 0);
    }
    if (!out || !verd)
        return EXIT_BAD_;
    static hw_layout_case cases[2048];
    uint32_t n = hw_corpus_layout(cases, 2048);
    if (to > n)
        to = n;
    hw_device dev;
    if (open_device(&dev))
        return EXIT_BAD_;
    FILE *f = fopen(out, "a"), *vf = fopen(verd, "a");
    if (!f || !vf)
        return EXIT_BAD_;
    for (uint32_t i = from; i < to; i++) {
        if (hw_run_layout_case(&cases[i], f, vf)) {
            fclose(f);
            fclose(vf);
            return 3; /* the context is gone: the parent restarts after this case */
        }
        if (isatty(2))
            fprintf(stderr, "\rlayout %u/%u", i + 1, n);
    }
    if (isatty(2))
        fprintf(stderr, "\n");
    fclose(f);
    fclose(vf);
    hw_close(&dev);
    return 0;
}

static int count_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int n = 0, ch;
    while ((ch = fgetc(f)) != EOF)
        if (ch == '\n')
            n++;
    fclose(f);
    return n;
}

/* Runs argv as a child with a wall-clock limit; returns its exit status, 128+signal,
 * or 124 on timeout. */
static int run_child(char *const *argv, int limit_s)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    time_t t0 = time(NULL);
    for (;;) {
        int st;
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid)
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        if (time(NULL) - t0 > limit_s) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            return 124;
        }
        usleep(20000);
    }
}

static int cmd_record_encode(int argc, char **argv)
{
    const char *out = NULL, *verd = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--out"))
            out = argv[i + 1];
        else if (!strcmp(argv[i], "--verdicts"))
            verd = argv[i + 1];
    }
    if (!out || !verd)
        return EXIT_BAD_;
    hw_device dev;
    if (open_device(&dev))
        return EXIT_BAD_;
    static hw_encode_case cases[512];
    uint32_t n = hw_corpus_encode(cases, 512);
    FILE *f = fopen(out, "w"), *vf = fopen(verd, "a");
    if (!f || !vf)
        return EXIT_BAD_;
    void *mem = NULL;
    cudaMalloc(&mem, 1 << 20);
    for (uint32_t i = 0; i < n; i++) {
        tm_desc d = cases[i].desc;
        d.global_address = ((reinterpret_cast<uint64_t>(mem) + 1023) & ~1023ull) + cases[i].global_misalign;
        CUtensorMap map;
        CUresult r = hw_encode(&d, &map);
        fprintf(f, "{\"id\":%u,\"rule\":\"%s\",\"doc_expects\":\"%s\",", i, cases[i].rule,
                cases[i].expect_accept ? "accept" : "reject");
        hw_json_desc(f, &d);
        fprintf(f, ",\"sm_version\":%u,\"encode\":{\"accepted\":%s,\"cu_result\":%d,\"cu_name\":\"%s\"}}\n",
                d.sm_version ? d.sm_version : 90, r == CUDA_SUCCESS ? "true" : "false", (int)r, hw_cu_name(r));
        char detail[400] = "", params[512];
        int v = replay_check_encode(&d, r == CUDA_SUCCESS, (int)r, detail, sizeof detail);
        replay_describe_desc(&d, NULL, 0, params, sizeof params);
        fprintf(vf, "encode\t%u\t%d\t[%s] %s\t%s\n", i, v, cases[i].rule, params, detail);
    }
    cudaFree(mem);
    fclose(f);
    fclose(vf);
    hw_close(&dev);
    return 0;
}

static int cmd_record_bank(int argc, char **argv)
{
    const char *out = NULL, *verd = NULL, *meta = NULL, *log = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--out"))
            out = argv[i + 1];
        else if (!strcmp(argv[i], "--verdicts"))
            verd = argv[i + 1];
        else if (!strcmp(argv[i], "--meta"))
            meta = argv[i + 1];
        else if (!strcmp(argv[i], "--log"))
            log = argv[i + 1];
    }
    if (!out || !verd || !meta || !log)
        return EXIT_BAD_;
    hw_device dev;
    if (open_device(&dev))
        return EXIT_BAD_;
    static bank_instr instrs[1024];
    uint32_t n = hw_corpus_bank(instrs, 1024);
    FILE *f = fopen(out, "w"), *vf = fopen(verd, "a"), *mf = fopen(meta, "w"), *lf = fopen(log, "a");
    if (!f || !vf || !mf || !lf)
        return EXIT_BAD_;
    int rc = bank_run(instrs, n, f, vf, mf, lf);
    fclose(f);
    fclose(vf);
    fclose(mf);
    fclose(lf);
    hw_close(&dev);
    return rc ? 3 : 0;
}

/* ------------------------------------------------------------------ validate */

typedef struct tally {
    unsigned cases, agree, disagree, unusable;
} tally;

static void read_text(const char *path, char *buf, size_t size)
{
    buf[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    size_t n = fread(buf, 1, size - 1, f);
    buf[n] = 0;
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
        buf[--n] = 0;
    fclose(f);
}

static int cmd_validate(int argc, char **argv)
{
    const char *dir = "traces/h100/validation", *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help")) {
            printf("usage: tmahw validate [--out DIR] [--only encode|layout|bank]\n"
                   "Records the whole corpus on this GPU into DIR (default traces/h100/validation):\n"
                   "meta.json, encode.jsonl, layout.jsonl, bank.jsonl; prints agreements with the model.\n");
            return 0;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "tmahw validate: %s: missing value\n", argv[i]);
            return EXIT_BAD_;
        }
        if (!strcmp(argv[i], "--out"))
            dir = argv[++i];
        else if (!strcmp(argv[i], "--only")) {
            only = argv[++i];
            if (strcmp(only, "encode") && strcmp(only, "layout") && strcmp(only, "bank")) {
                fprintf(stderr, "tmahw validate: --only: '%s' is not one of: encode layout bank\n", only);
                return EXIT_BAD_;
            }
        } else {
            fprintf(stderr, "tmahw validate: %s: unknown flag (see --help)\n", argv[i]);
            return EXIT_BAD_;
        }
    }
    mkdir(dir, 0755);
    char p_layout[4096], p_encode[4096], p_bank[4096], p_meta[4096], p_bmeta[4096], p_verd[4096], p_log[4096];
    snprintf(p_layout, sizeof p_layout, "%s/layout.jsonl", dir);
    snprintf(p_encode, sizeof p_encode, "%s/encode.jsonl", dir);
    snprintf(p_bank, sizeof p_bank, "%s/bank.jsonl", dir);
    snprintf(p_meta, sizeof p_meta, "%s/meta.json", dir);
    snprintf(p_bmeta, sizeof p_bmeta, "%s/.bank_meta.tmp", dir);
    snprintf(p_verd, sizeof p_verd, "%s/verdicts.tsv", dir);
    snprintf(p_log, sizeof p_log, "%s/runner.log", dir);
    remove(p_verd);
    remove(p_log);
    time_t t_start = time(NULL);

    /* metadata first: a failed run still says where it ran */
    hw_device dev;
    if (open_device(&dev))
        return EXIT_BAD_;
    char nvdrv[256];
    read_text("/proc/driver/nvidia/version", nvdrv, sizeof nvdrv);
    char *nl = strchr(nvdrv, '\n');
    if (nl)
        *nl = 0;
    /* "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release ..." -> 580.159.04 */
    for (char *tok = strtok(nvdrv, " "); tok; tok = strtok(NULL, " ")) {
        const char *d1 = strchr(tok, '.');
        if (tok[0] >= '0' && tok[0] <= '9' && d1 && strchr(d1 + 1, '.')) {
            memmove(nvdrv, tok, strlen(tok) + 1);
            break;
        }
    }
    int rt = 0;
    cudaRuntimeGetVersion(&rt);
    char gpu[128];
    snprintf(gpu, sizeof gpu, "%s", dev.name);
    int drv = dev.driver_version, ccmaj = dev.cc_major, ccmin = dev.cc_minor;
    hw_close(&dev);

    char *self[16];
    int status;
    if (!only || !strcmp(only, "encode")) {
        char *a[] = {(char *)"tmahw", (char *)"record-encode", (char *)"--out", p_encode, (char *)"--verdicts", p_verd, NULL};
        status = run_child(a, 120);
        if (status)
            fprintf(stderr, "tmahw validate: encode recording exited %d\n", status);
    }
    if (!only || !strcmp(only, "layout")) {
        static hw_layout_case cases[2048];
        uint32_t n = hw_corpus_layout(cases, 2048);
        remove(p_layout);
        uint32_t next = 0;
        while (next < n) {
            char from[16], to[16];
            snprintf(from, sizeof from, "%u", next);
            snprintf(to, sizeof to, "%u", n);
            char *a[] = {(char *)"tmahw", (char *)"record-layout", (char *)"--out", p_layout, (char *)"--verdicts", p_verd,
                         (char *)"--from", from, (char *)"--to", to, NULL};
            status = run_child(a, 300);
            uint32_t done = (uint32_t)count_lines(p_layout);
            if (status == 0 && done >= n)
                break;
            if (status == 3 && done > next) {
                next = done; /* the faulting case was written by the child */
                continue;
            }
            /* the child died inside case `done`: record it as a runner fault */
            FILE *f = fopen(p_layout, "a"), *vf = fopen(p_verd, "a");
            if (f && done < n) {
                hw_case_head(f, &cases[done], &cases[done].desc);
                fprintf(f, ",\"runner_error\":\"child exited with status %d\"}\n", status);
                fprintf(vf, "%s\t%u\t%d\t-\trunner: child exited %d\n", cases[done].store ? "store" : "load", done,
                        REPLAY_UNUSABLE, status);
            }
            if (f)
                fclose(f);
            if (vf)
                fclose(vf);
            next = done + 1;
        }
    }
    if (!only || !strcmp(only, "bank")) {
        char *a[] = {(char *)"tmahw", (char *)"record-bank", (char *)"--out", p_bank, (char *)"--verdicts", p_verd,
                     (char *)"--meta", p_bmeta, (char *)"--log", p_log, NULL};
        status = run_child(a, 300);
        if (status)
            fprintf(stderr, "tmahw validate: bank recording exited %d\n", status);
    }
    (void)self;

    /* meta.json */
    char bmeta[8192];
    read_text(p_bmeta, bmeta, sizeof bmeta);
    remove(p_bmeta);
    char date[64];
    struct tm tmv;
    gmtime_r(&t_start, &tmv);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tmv);
    FILE *mf = fopen(p_meta, "w");
    if (mf) {
        char drvline[256];
        size_t k = 0;
        for (const char *s = nvdrv; *s && k + 2 < sizeof drvline; s++) {
            if (*s == '"' || *s == '\\' || (unsigned char)*s < 32)
                continue;
            drvline[k++] = *s;
        }
        drvline[k] = 0;
        fprintf(mf, "{\n  \"gpu\": \"%s\",\n  \"compute_capability\": \"%d.%d\",\n  \"driver_api_version\": %d,\n"
                    "  \"driver\": \"%s\",\n  \"cuda_runtime\": %d,\n  \"cuda_toolkit\": %d,\n  \"date\": \"%s\",\n"
                    "  \"runner\": \"tmahw validate\",\n"
                    "  \"smem_buffer_bytes\": %u,\n  \"mbarrier_timeout_ns\": %llu,\n"
                    "  \"seeds\": {\"global\": %u, \"smem_sentinel\": %u, \"store_src\": %u, \"store_prefill\": %u},\n"
                    "  \"bank\": %s\n}\n",
                gpu, ccmaj, ccmin, drv, drvline, rt, CUDA_VERSION, date, HW_SMEM_BUF, HW_TIMEOUT_NS, REPLAY_SEED_GLOBAL,
                REPLAY_SEED_SMEM_SENTINEL, REPLAY_SEED_STORE_SRC, REPLAY_SEED_STORE_PREFILL, bmeta[0] ? bmeta : "null");
        fclose(mf);
    }

    /* table from the verdicts */
    const char *kinds[4] = {"encode", "load", "store", "bank"};
    tally t[4];
    memset(t, 0, sizeof t);
    FILE *vf = fopen(p_verd, "r");
    char line[8192];
    unsigned shown = 0;
    while (vf && fgets(line, sizeof line, vf)) {
        char kind[16];
        unsigned id;
        int v;
        if (sscanf(line, "%15[^\t]\t%u\t%d", kind, &id, &v) != 3)
            continue;
        for (int k = 0; k < 4; k++)
            if (!strcmp(kind, kinds[k])) {
                t[k].cases++;
                if (v == REPLAY_AGREE)
                    t[k].agree++;
                else if (v == REPLAY_DISAGREE)
                    t[k].disagree++;
                else
                    t[k].unusable++;
            }
        if (v != REPLAY_AGREE && shown < 12) {
            shown++;
            printf("%s %s", v == REPLAY_DISAGREE ? "DISAGREE" : "UNUSABLE", line);
        }
    }
    if (vf)
        fclose(vf);
    printf("\nrecorded on %s (cc %d.%d), %s, CUDA %d, into %s\n", gpu, ccmaj, ccmin, nvdrv[0] ? nvdrv : "driver ?", rt,
           dir);
    printf("%-8s %7s %7s %9s %9s\n", "kind", "cases", "agree", "disagree", "unusable");
    int bad = 0;
    for (int k = 0; k < 4; k++) {
        printf("%-8s %7u %7u %9u %9u\n", kinds[k], t[k].cases, t[k].agree, t[k].disagree, t[k].unusable);
        bad |= t[k].disagree || t[k].unusable;
    }
    printf("(%ld s)\n", (long)(time(NULL) - t_start));
    return bad ? EXIT_FINDING_ : EXIT_OK_;
}

/* ------------------------------------------------------------------ corpus (no GPU) */

/* Prints the corpus sizes and what the model says of them; needs no GPU, so CI and
 * tests can check the corpus itself (sizes, every case fits the runner's buffer). */
static int cmd_corpus(int argc, char **argv)
{
    int list = argc > 1 && !strcmp(argv[1], "--list");
    static hw_layout_case cases[2048];
    uint32_t n = hw_corpus_layout(cases, 2048), loads = 0, stores = 0, model_ok = 0, too_big = 0;
    if (list) {
        for (uint32_t i = 0; i < n; i++)
            printf("%u %s %s smem_offset=%u misalign=%u\n", i, cases[i].group, cases[i].store ? "store" : "load",
                   cases[i].smem_offset, cases[i].global_misalign);
        return 0;
    }
    uint32_t max_end = 0;
    for (uint32_t i = 0; i < n; i++) {
        cases[i].store ? stores++ : loads++;
        tm_desc d = cases[i].desc;
        d.global_address = 0x10000000ull + cases[i].global_misalign;
        err_info e;
        err_clear(&e);
        if (tm_validate(&d, &e) != ERR_OK)
            continue;
        model_ok++;
        tm_copy c;
        memset(&c, 0, sizeof c);
        memcpy(c.coords, cases[i].coords, sizeof c.coords);
        c.smem_address = 0x400 + cases[i].smem_offset;
        c.store = cases[i].store;
        tm_plan p;
        if (tm_plan_copy(&d, &c, &p, &e) == ERR_OK) {
            uint32_t end = cases[i].smem_offset + p.footprint_bytes;
            if (end > max_end)
                max_end = end;
            if (end > HW_SMEM_BUF) {
                too_big++;
                printf("case %u (%s) ends at %u > buffer %u\n", i, cases[i].group, end, HW_SMEM_BUF);
            }
        }
    }
    static hw_encode_case enc[512];
    uint32_t ne = hw_corpus_encode(enc, 512);
    static bank_instr bi[1024];
    uint32_t nb = hw_corpus_bank(bi, 1024);
    uint32_t per_op[BANK_OP_COUNT][2];
    memset(per_op, 0, sizeof per_op);
    for (uint32_t i = 0; i < nb; i++)
        per_op[bi[i].op][bi[i].trans ? 1 : 0]++;
    printf("layout: %u cases (%u loads, %u stores), model accepts %u maps, largest end offset %u, %u too big\n", n,
           loads, stores, model_ok, max_end, too_big);
    printf("encode: %u probes\n", ne);
    printf("bank:   %u instructions:", nb);
    for (int o = 0; o < BANK_OP_COUNT; o++)
        printf(" %s=%u%s", bank_op_name((bank_op)o), per_op[o][0], per_op[o][1] ? "" : "");
    printf("\n        .trans:");
    for (int o = 0; o < BANK_OP_COUNT; o++)
        if (per_op[o][1])
            printf(" %s=%u", bank_op_name((bank_op)o), per_op[o][1]);
    printf("\n");
    return too_big ? EXIT_FINDING_ : EXIT_OK_;
}

/* ------------------------------------------------------------------ smoke */

static int cmd_smoke(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    hw_device dev;
    if (open_device(&dev))
        return EXIT_BAD_;
    printf("device %s cc %d.%d driver %d\n", dev.name, dev.cc_major, dev.cc_minor, dev.driver_version);
    static hw_layout_case cases[2048];
    uint32_t n = hw_corpus_layout(cases, 2048);
    printf("corpus: %u layout cases\n", n);
    hw_run_layout_case(&cases[1], stdout, stdout);
    hw_encode_case enc[512];
    uint32_t ne = hw_corpus_encode(enc, 512);
    printf("corpus: %u encode cases\n", ne);
    bank_instr bi[1024];
    uint32_t nb = hw_corpus_bank(bi, 1024);
    printf("corpus: %u bank instructions\n", nb);
    FILE *vf = stdout;
    bank_run(bi, 4, stdout, vf, stdout, stdout);
    hw_close(&dev);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        fprintf(argc < 2 ? stderr : stdout,
                "usage: tmahw <command> [options]   (tmahw <command> --help)\n\n"
                "commands:\n"
                "  layout    encode with cuTensorMapEncodeTiled, TMA load/store one box, compare bytes with the model\n"
                "  bank      run warp shared-memory instructions under the CUPTI Range Profiler, compare counts\n"
                "  validate  record the whole corpus (traces/h100/validation) and print agreements\n"
                "  corpus    sizes of the validation corpus and the model's view of it (no GPU needed)\n"
                "  smoke     one layout case, four bank instructions (quick check of the device)\n"
                "  run       a pipeline description (examples/*.yaml) as a real kernel: checked, timed, traced\n"
                "  record    -- APP ARGS: traces of APP's kernels built with hw/record.cuh (recorder injected)\n"
                "  calibrate the simulator's timing parameters from microbenchmarks on this GPU (--params file)\n"
                "  sweep     the best predicted points of `tmasim sweep -o FILE.csv` on every GPU of this host (or Slurm)\n"
                "  wgmma-record  the shared address wgmma reads for each operand element, over the descriptor corpus\n\n"
                "exit status: 0 ok, 1 finding (rejection, hang, mismatch), 2 bad input or no GPU\n");
        return argc < 2 ? EXIT_BAD_ : EXIT_OK_;
    }
    const char *c = argv[1];
    if (!strcmp(c, "layout"))
        return cmd_layout(argc - 1, argv + 1);
    if (!strcmp(c, "bank"))
        return cmd_bank(argc - 1, argv + 1);
    if (!strcmp(c, "validate"))
        return cmd_validate(argc - 1, argv + 1);
    if (!strcmp(c, "corpus"))
        return cmd_corpus(argc - 1, argv + 1);
    if (!strcmp(c, "smoke"))
        return cmd_smoke(argc - 1, argv + 1);
    if (!strcmp(c, "run"))
        return hw_cmd_run(argc - 1, argv + 1);
    if (!strcmp(c, "sweep"))
        return hw_cmd_sweep(argc - 1, argv + 1);
    if (!strcmp(c, "record"))
        return hw_cmd_record(argc - 1, argv + 1);
    if (!strcmp(c, "calibrate"))
        return hw_cmd_calibrate(argc - 1, argv + 1);
    if (!strcmp(c, "wgmma-record"))
        return hw_cmd_wgmma_record(argc - 1, argv + 1);
    if (!strcmp(c, "record-layout"))
        return cmd_record_layout(argc - 1, argv + 1);
    if (!strcmp(c, "record-encode"))
        return cmd_record_encode(argc - 1, argv + 1);
    if (!strcmp(c, "record-bank"))
        return cmd_record_bank(argc - 1, argv + 1);
    fprintf(stderr, "tmahw: command: '%s' is not one of: layout bank validate corpus smoke run record sweep calibrate wgmma-record\n", c);
    return EXIT_BAD_;
}
