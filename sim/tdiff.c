#include "tdiff.h"

#include <stdlib.h>
#include <string.h>

/* One sortable record per event: the key packed so that a single comparison of
 * (hi, lo, idx) orders by key and, inside a key, by time (events are time-sorted). */
typedef struct keyed {
    uint64_t hi;   /* cta:16 warp:8 kind:8 iteration:32 */
    uint32_t lo;   /* stage */
    uint32_t idx;
} keyed;

static int keyed_cmp(const void *pa, const void *pb)
{
    const keyed *a = pa, *b = pb;
    if (a->hi != b->hi) return a->hi < b->hi ? -1 : 1;
    if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static keyed *keyed_build(const trace *t)
{
    keyed *k = malloc((t->count ? t->count : 1) * sizeof *k);
    if (!k) return NULL;
    for (size_t i = 0; i < t->count; i++) {
        const trace_event *ev = &t->events[i];
        k[i].hi = (uint64_t)ev->cta << 48 | (uint64_t)ev->warp << 40 | (uint64_t)ev->kind << 32 | ev->iteration;
        k[i].lo = ev->stage;
        k[i].idx = (uint32_t)i;
    }
    qsort(k, t->count, sizeof *k, keyed_cmp);
    return k;
}

int tdiff_match_traces(const trace *a, const trace *b, tdiff_match *m, err_info *e)
{
    memset(m, 0, sizeof *m);
    if (a->count >= TDIFF_NONE || b->count >= TDIFF_NONE)
        return err_set(e, ERR_BAD_INPUT, "events", "a trace has %zu events; at most %u can be matched",
                       a->count > b->count ? a->count : b->count, TDIFF_NONE - 1);
    m->na = a->count;
    m->nb = b->count;
    m->a_to_b = malloc((a->count ? a->count : 1) * sizeof *m->a_to_b);
    m->b_to_a = malloc((b->count ? b->count : 1) * sizeof *m->b_to_a);
    keyed *ka = keyed_build(a), *kb = keyed_build(b);
    if (!m->a_to_b || !m->b_to_a || !ka || !kb) {
        free(ka); free(kb);
        tdiff_match_free(m);
        return err_set(e, ERR_IO, "memory", "out of memory matching %zu and %zu events", a->count, b->count);
    }
    memset(m->a_to_b, 0xff, a->count * sizeof *m->a_to_b);
    memset(m->b_to_a, 0xff, b->count * sizeof *m->b_to_a);
    /* Merge walk: equal keys pair up in order (n-th with n-th). */
    size_t i = 0, j = 0;
    while (i < a->count && j < b->count) {
        if (ka[i].hi != kb[j].hi || ka[i].lo != kb[j].lo) {
            int a_first = ka[i].hi < kb[j].hi || (ka[i].hi == kb[j].hi && ka[i].lo < kb[j].lo);
            if (a_first) i++; else j++;
            continue;
        }
        m->a_to_b[ka[i].idx] = kb[j].idx;
        m->b_to_a[kb[j].idx] = ka[i].idx;
        m->matched++;
        i++;
        j++;
    }
    free(ka);
    free(kb);
    return ERR_OK;
}

static int same_key(const trace_event *a, const trace_event *b)
{
    return a->cta == b->cta && a->warp == b->warp && a->kind == b->kind && a->stage == b->stage &&
           a->iteration == b->iteration;
}

uint32_t tdiff_key_copy(const trace *t, size_t idx, uint32_t *copies)
{
    uint32_t before = 0, all = 0;
    for (size_t i = 0; i < t->count; i++)
        if (same_key(&t->events[i], &t->events[idx])) {
            all++;
            before += i < idx;
        }
    if (copies) *copies = all;
    return before + 1;
}

void tdiff_match_free(tdiff_match *m)
{
    free(m->a_to_b);
    free(m->b_to_a);
    memset(m, 0, sizeof *m);
}

int tdiff_kind_is_span(trace_kind k)
{
    return k == TRACE_TMA_FLIGHT || k == TRACE_WAIT || k == TRACE_SMEM_READ || k == TRACE_MATH ||
           k == TRACE_TMA_STORE || k == TRACE_WGMMA || k == TRACE_WGMMA_WAIT;
}

int64_t tdiff_trace_start(const trace *t)
{
    return t->count ? t->events[0].t_ns : 0;
}

int64_t tdiff_kernel_ns(const trace *t)
{
    if (t->kernel_ns > 0) return t->kernel_ns;
    if (!t->count) return 0;
    int64_t end = t->events[0].t_ns;
    for (size_t i = 0; i < t->count; i++) {
        int64_t x = t->events[i].t_ns + t->events[i].dur_ns;
        if (x > end) end = x;
    }
    return end - t->events[0].t_ns;
}

int64_t tdiff_delta(const trace *a, size_t ia, const trace *b, size_t ib)
{
    const trace_event *ea = &a->events[ia], *eb = &b->events[ib];
    if (tdiff_kind_is_span((trace_kind)ea->kind))
        return (int64_t)ea->dur_ns - (int64_t)eb->dur_ns;
    return (ea->t_ns - tdiff_trace_start(a)) - (eb->t_ns - tdiff_trace_start(b));
}

int64_t tdiff_percentile(const int64_t *sorted, size_t n, unsigned pct)
{
    if (!n) return 0;
    if (pct > 100) pct = 100;
    size_t rank = ((size_t)pct * n + 99) / 100;   /* ceil(pct/100 * n) */
    if (rank < 1) rank = 1;
    return sorted[rank - 1];
}

static int i64_cmp(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return a < b ? -1 : a > b;
}

void tdiff_sort_i64(int64_t *v, size_t n)
{
    qsort(v, n, sizeof *v, i64_cmp);
}

static int64_t abs64(int64_t x) { return x < 0 ? -x : x; }

/* Keeps the TDIFF_TOP largest |delta| in r->top, largest first (insertion: top is tiny). */
static void top_insert(tdiff_report *r, uint32_t ia, uint32_t ib, int64_t d)
{
    size_t n = r->ntop;
    if (n == TDIFF_TOP && abs64(d) <= abs64(r->top[n - 1].delta)) return;
    size_t pos = n < TDIFF_TOP ? n : TDIFF_TOP - 1;
    while (pos > 0 && abs64(r->top[pos - 1].delta) < abs64(d)) {
        r->top[pos] = r->top[pos - 1];
        pos--;
    }
    r->top[pos] = (tdiff_pair){ia, ib, d};
    if (n < TDIFF_TOP) r->ntop++;
}

static size_t group_of(const trace_event *ev)
{
    return (size_t)ev->kind * TRACE_ROLE_COUNT + ev->role;
}

int tdiff_compare(const trace *a, const trace *b, const tdiff_match *m, tdiff_report *r, err_info *e)
{
    memset(r, 0, sizeof *r);
    if (m->na != a->count || m->nb != b->count)
        return err_set(e, ERR_BAD_INPUT, "match", "match was built for %zu/%zu events, traces have %zu/%zu",
                       m->na, m->nb, a->count, b->count);
    enum { NG = TRACE_KIND_COUNT * TRACE_ROLE_COUNT };
    size_t counts[NG] = {0}, offs[NG + 1] = {0};
    uint32_t only_a[NG] = {0}, only_b[NG] = {0};
    uint8_t *has_a = calloc(1u << 16, 1), *has_b = calloc(1u << 16, 1); /* cta is 16 bits */
    if (!has_a || !has_b) {
        free(has_a); free(has_b);
        return err_set(e, ERR_IO, "memory", "out of memory for the CTA sets");
    }
    for (size_t i = 0; i < a->count; i++) r->ctas_a += !has_a[a->events[i].cta], has_a[a->events[i].cta] = 1;
    for (size_t i = 0; i < b->count; i++) r->ctas_b += !has_b[b->events[i].cta], has_b[b->events[i].cta] = 1;
    for (size_t i = 0; i < a->count; i++) {
        const trace_event *ev = &a->events[i];
        if (ev->kind >= TRACE_KIND_COUNT || ev->role >= TRACE_ROLE_COUNT) continue;
        if (m->a_to_b[i] == TDIFF_NONE && !has_b[ev->cta]) {
            r->untraced_a++;
        } else if (m->a_to_b[i] == TDIFF_NONE && ev->role == TRACE_ROLE_TMA_UNIT && b->source == TRACE_SRC_HW) {
            r->unobservable_a++;
        } else if (m->a_to_b[i] == TDIFF_NONE) {
            only_a[group_of(ev)]++;
            if (r->nfirst_only_a < TDIFF_TOP) r->first_only_a[r->nfirst_only_a++] = (uint32_t)i;
        } else {
            counts[group_of(ev)]++;
        }
    }
    for (size_t i = 0; i < b->count; i++) {
        const trace_event *ev = &b->events[i];
        if (ev->kind >= TRACE_KIND_COUNT || ev->role >= TRACE_ROLE_COUNT) continue;
        if (m->b_to_a[i] == TDIFF_NONE && !has_a[ev->cta]) {
            r->untraced_b++;
        } else if (m->b_to_a[i] == TDIFF_NONE && ev->role == TRACE_ROLE_TMA_UNIT && a->source == TRACE_SRC_HW) {
            r->unobservable_b++;
        } else if (m->b_to_a[i] == TDIFF_NONE) {
            only_b[group_of(ev)]++;
            if (r->nfirst_only_b < TDIFF_TOP) r->first_only_b[r->nfirst_only_b++] = (uint32_t)i;
        }
    }
    free(has_a);
    free(has_b);
    for (size_t g = 0; g < NG; g++) offs[g + 1] = offs[g] + counts[g];
    size_t total = offs[NG];
    int64_t *delta = malloc((total ? total : 1) * sizeof *delta);
    int64_t *base = malloc((total ? total : 1) * sizeof *base);
    if (!delta || !base) {
        free(delta); free(base);
        return err_set(e, ERR_IO, "memory", "out of memory for %zu matched pairs", total);
    }
    size_t fill[NG];
    memcpy(fill, offs, sizeof fill);
    int64_t b_start = tdiff_trace_start(b);
    for (size_t i = 0; i < a->count; i++) {
        uint32_t j = m->a_to_b[i];
        const trace_event *ev = &a->events[i];
        if (j == TDIFF_NONE || ev->kind >= TRACE_KIND_COUNT || ev->role >= TRACE_ROLE_COUNT) continue;
        size_t g = group_of(ev);
        int64_t d = tdiff_delta(a, i, b, j);
        delta[fill[g]] = d;
        base[fill[g]] = tdiff_kind_is_span((trace_kind)ev->kind) ? (int64_t)b->events[j].dur_ns
                                                                 : b->events[j].t_ns - b_start;
        fill[g]++;
        r->matched++;
        top_insert(r, (uint32_t)i, j, d);
    }
    for (size_t g = 0; g < NG; g++) {
        if (!counts[g] && !only_a[g] && !only_b[g]) continue;
        tdiff_group *out = &r->groups[r->ngroups++];
        out->kind = (uint8_t)(g / TRACE_ROLE_COUNT);
        out->role = (uint8_t)(g % TRACE_ROLE_COUNT);
        out->matched = (uint32_t)counts[g];
        out->only_a = only_a[g];
        out->only_b = only_b[g];
        tdiff_sort_i64(delta + offs[g], counts[g]);
        tdiff_sort_i64(base + offs[g], counts[g]);
        out->median = tdiff_percentile(delta + offs[g], counts[g], 50);
        out->p95 = tdiff_percentile(delta + offs[g], counts[g], 95);
        out->b_median = tdiff_percentile(base + offs[g], counts[g], 50);
        /* base is no longer needed: reuse it for |delta| */
        for (size_t k = 0; k < counts[g]; k++) base[offs[g] + k] = abs64(delta[offs[g] + k]);
        tdiff_sort_i64(base + offs[g], counts[g]);
        out->p95_abs = tdiff_percentile(base + offs[g], counts[g], 95);
        r->unmatched_a += only_a[g];
        r->unmatched_b += only_b[g];
    }
    free(delta);
    free(base);
    r->kernel_a = tdiff_kernel_ns(a);
    r->kernel_b = tdiff_kernel_ns(b);
    r->kernel_err = r->kernel_b ? (double)(r->kernel_a - r->kernel_b) / (double)r->kernel_b : 0.0;
    return ERR_OK;
}
