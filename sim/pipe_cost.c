/* pipe_cost: the simulator's cost model. What each step of a warp's program costs it and
 * the shared units it occupies: the sub-partitions' issue slots, the cp.async copy loop's
 * trips, a copy's transfer through the SM's TMA unit or intake and the GPU's L2 and DRAM,
 * the L2 reuse of the tensors' tiles, the math pipes, the shared-memory port, the stores.
 * Formulas and parameters (params.h) live here and nowhere else in the simulator. */
#include <math.h>
#include <stdint.h>

#include "pipe_gemm.h"
#include "pipe_sim.h"

/* A stretch of a warp's program that lasts dur_ps on its own and needs `cycles` of its
 * sub-partition's issue: the cycles are served in turn among the sub-partition's warps,
 * so with many warps on it the stretch ends when its last instruction could issue.
 * Returns the end time. */
static int64_t issue_cycles_end(sim *s, warp *w, int64_t dur_ps, double cycles)
{
    uint32_t at = s->cta[w->cta].sm * 4 + w->smsp;
    int64_t *free_at = &s->issue_free[at], taken = (int64_t)(cycles * s->ps_per_cycle);
    int64_t served = (s->now > *free_at ? s->now : *free_at) + taken;
    *free_at = served;
    s->issued[at] += taken;
    w->issued_ps += taken;
    return served > s->now + dur_ps ? served : s->now + dur_ps;
}

/* The same for `slots` instructions of the generated code outside its math block: each
 * holds a busy sub-partition for int_issue_cycles. */
int64_t issue_end(sim *s, warp *w, int64_t dur_ps, double slots)
{
    return issue_cycles_end(s, w, dur_ps, slots * s->p->int_issue_cycles);
}

/* The share of cycles the other warps of w's sub-partition took its issue slots since w's
 * marks (at most 1); `move` moves the marks on to now. */
static double smsp_others_share(sim *s, warp *w, int move)
{
    uint32_t at = s->cta[w->cta].sm * 4 + w->smsp;
    int64_t span = s->now - w->mark_at, others = s->issued[at] - w->mark_smsp - (w->issued_ps - w->mark_own);
    double rate = span > 0 && w->mark_at > 0 ? (double)others / (double)span : 0.0;
    if (move) {
        w->mark_at = s->now;
        w->mark_smsp = s->issued[at];
        w->mark_own = w->issued_ps;
    }
    return rate < 0 ? 0 : rate > 1 ? 1 : rate;
}

/* How much longer than measured a chain of w's dependent instructions, timed in ns at the
 * calibration clock, takes now: it counts cycles, so it stretches with a lower clock, and
 * it loses turns to the other warps of its sub-partition in proportion to the share of
 * cycles they take its issue slots (produce_share_factor, measured on the producer). */
double chain_scale(sim *s, warp *w, int move)
{
    double stretch = 1.0 + s->p->produce_share_factor * smsp_others_share(s, w, move);
    return s->p->clock_ghz * s->ps_per_cycle / 1000.0 * stretch;
}

/* The producer's own time to its first copy, between its copies and after its last (ns).
 * The GEMM producer (hw/gemm_kernel.cuh) is one thread's tight loop: its expect_tx and its
 * copies cost their issue. The generated pipeline producer's steps are its loop's, measured
 * alone (a multicast producer's in its own kernels). They are chains of dependent
 * instructions: they take cycles, so they stretch with a lower clock (mma.sync kernels); a
 * chain loses turns to the other warps of its sub-partition, in proportion to the share of
 * cycles they take its issue slots; and consumers that read shared memory or run FFMA add
 * produce_neighbour_ns to its tail wherever they run. */
void produce_steps_ns(sim *s, warp *w, double *to_first, double *between, double *tail)
{
    const pipe_desc *d = s->d;
    const pipe_params *p = s->p;
    if (s->gemm) {
        *to_first = p->expect_tx_alone_ns;
        *between = *tail = 0;
        return;
    }
    int busy = d->reads_enabled || d->math == PIPE_MATH_FMA;
    double scale = chain_scale(s, w, 1);
    *to_first = scale * (d->multicast ? p->mcast_expect_tx_ns : p->expect_tx_ns);
    *between = scale * (d->multicast ? p->mcast_tma_issue_ns : p->tma_issue_ns);
    *tail = scale * (p->produce_tail_ns + (busy ? p->produce_neighbour_ns : 0));
}

/* The trips of consumer warp `rank`'s cp.async copy loop over its share of a stage, as the
 * generated kernel makes them (hw/run_gen.c: the stage's 16-byte chunks, split evenly over
 * the warps, 32 lanes a trip). */
static uint32_t copy_trips(const pipe_desc *d, uint32_t rank)
{
    uint32_t n = d->copy_bytes / 16, c0 = (uint32_t)((uint64_t)rank * n / d->consumer_warps);
    uint32_t c1 = (uint32_t)((uint64_t)(rank + 1) * n / d->consumer_warps);
    return c1 > c0 ? (c1 - c0 + 31) / 32 : 0;
}

/* A copy loop's step (hw/run_kernel.cuh copy_share, MODE 3): each tensor's tile address,
 * then the trips (trips_ns together), on the warp's own and in its sub-partition's issue
 * slots. Returns its end. */
static int64_t copy_loop_end(sim *s, warp *w, double step_ns, uint32_t trips, double trips_ns, double trip_slots)
{
    const pipe_params *p = s->p;
    double own_ns = step_ns + s->d->ntensors * p->tile_address_ns + trips_ns;
    double slots = s->d->ntensors * p->produce_issue_cycles + trips * trip_slots;
    return issue_end(s, w, (int64_t)(own_ns * 1000), slots);
}

/* The wait of a copy loop's `trips` on their chunk table where it misses L1. The generated
 * loop (hw/run_kernel.cuh copy_share) reads each lane's 16-byte entry of a table as large as
 * the stage (all CTAs of an SM read the same one) before its cp.async; nvcc unrolls the loop
 * by 4 after the trips left over, and the probe's steps fit one L2 round trip per unrolled
 * group whose 16 lines (4 for a lone trip) are not all in L1. A line is there with chance
 * room / table once the table outgrows the room L1 keeps for it. */
static double copy_table_wait_ns(const sim *s, uint32_t trips)
{
    const pipe_params *p = s->p;
    double table = s->d->copy_bytes, room = p->copy_table_room_bytes;
    if (table <= room || trips == 0)
        return 0;
    double keep = room / table;
    double group = 1.0 - pow(keep, 16), lone = 1.0 - pow(keep, 4);
    return p->l2_latency_ns * ((trips / 4) * group + (trips % 4) * lone);
}

/* A warp's cp.async copy step (the commit-group step has no mbarrier arrives). All the
 * CTA's warps copy at once: where they are more than the 4 sub-partitions, a warp's
 * step also waits for the issue of the other warp on its sub-partition. */
int64_t copy_step_end(sim *s, warp *w)
{
    const pipe_params *p = s->p;
    double step_ns = s->d->cpasync_groups ? p->ldgsts_group_step_ns : p->ldgsts_step_ns;
    if (s->d->consumer_warps > 4)
        step_ns += p->ldgsts_smsp_share_ns;
    double trip_ns = p->ldgsts_issue_cycles * s->ps_per_cycle / 1000.0;
    uint32_t trips = copy_trips(s->d, w->consumer_rank);
    step_ns += copy_table_wait_ns(s, trips);
    return copy_loop_end(s, w, step_ns, trips, trips * trip_ns, p->ldgsts_slot_cycles);
}

/* A measured series at x = 1, 2, 4, ... (n points), linear in log2(x) between them, held
 * at its ends. */
static double log2_series(const double *v, uint32_t n, double x)
{
    double l = x > 1 ? log2(x) : 0;
    if (l >= n - 1)
        return v[n - 1];
    uint32_t k = (uint32_t)l;
    return v[k] + (v[k + 1] - v[k]) * (l - k);
}

/* The tiles of tensor t (whole boxes, dimension 0 fastest); the bytes of the tiles all
 * tensors' loads cycle through. */
static double tiles_of(const desc_tensor *ten);
static double tiles_footprint(const pipe_desc *d);
static double tiles_reuse_bytes(const pipe_desc *d, double loads);
static double tensor_reuse_bytes(const pipe_desc *d, uint32_t t);

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t r = a % b;
        a = b, b = r;
    }
    return a;
}

/* The share of a CTA's st.async loads of tensor t that its SM's L1 serves: CTA c loads tile
 * (c + j x CTAs) mod tiles in iteration j (hw/run_gen.c), so it comes back to the tiles it
 * loaded once it has gone round its tiles / gcd(CTAs, tiles) distinct ones. A re-read hits
 * where its line survived the lines loaded since, those of the distinct tiles of every
 * tensor in that round (a tensor of fewer distinct tiles repeats its own within it) for every
 * CTA of the SM and a stage's chunk table, with the probability the table's
 * lines show (exp(-D / stas_table_l1_bytes), stas_table_miss), and none where they do not
 * fit in what the SM's shared memory leaves of L1. line_bytes[t]: the lines of one tile. */
static double stas_l1_share(const pipe_desc *d, const pipe_params *p, const double *line_bytes, uint32_t t)
{
    double distinct[DESC_MAX_TENSORS], held = 0;
    for (uint32_t k = 0; k < d->ntensors; k++) {
        uint64_t tiles = (uint64_t)tiles_of(&d->tensors[k]);
        uint64_t round = tiles ? tiles / gcd_u64(d->ctas % tiles, tiles) : 1;
        distinct[k] = round < d->iterations ? (double)round : (double)d->iterations;
    }
    for (uint32_t k = 0; k < d->ntensors; k++)
        held += (distinct[k] < distinct[t] ? distinct[k] : distinct[t]) * line_bytes[k];
    double per_sm = d->ctas_per_sm ? d->ctas_per_sm : 1;
    double l1 = p->l1_smem_bytes - per_sm * (double)d->stages * pipe_plan_stage_stride(d);
    if (held * per_sm > l1 || !d->iterations || p->stas_table_l1_bytes <= 0)
        return 0;
    double survive = exp(-(held * per_sm + d->copy_bytes) / p->stas_table_l1_bytes);
    return (1.0 - distinct[t] / d->iterations) * survive;
}

/* The share of a footprint cycled through, launch after launch, that L2 serves: all of it up
 * to 24 MiB, the measured shares at 32-96 MiB, none at 512 MiB; linear between them. */
static double stas_l2_resident(const pipe_params *p, double footprint)
{
    const double mib[PARAMS_L2_RESIDENT_POINTS + 2] = {24, 32, 40, 48, 64, 96, 512};
    double share[PARAMS_L2_RESIDENT_POINTS + 2] = {1};
    for (uint32_t i = 0; i < PARAMS_L2_RESIDENT_POINTS; i++)
        share[i + 1] = p->l2_resident_share[i];
    double x = footprint / (1024.0 * 1024.0);
    if (x <= mib[0])
        return 1;
    for (uint32_t i = 1; i < PARAMS_L2_RESIDENT_POINTS + 2; i++)
        if (x <= mib[i])
            return share[i - 1] + (share[i] - share[i - 1]) * (x - mib[i - 1]) / (mib[i] - mib[i - 1]);
    return 0;
}

/* A trip touching `lines` 128-byte lines from source src, one producer warp per SM. */
static double stas_lines_cost(const pipe_params *p, uint32_t src, double lines)
{
    return log2_series(p->stas_lines_ns[src], PARAMS_STAS_LINES, lines / 4.0);
}

/* The share of the st.async loop's chunk-table entries that miss L1. The producer reads a
 * 16-byte entry per chunk (ld.global.nc), then the chunk (ld.global): both allocate in L1, so
 * between two uses of a table line the stage's table and the lines of its data that L1 does
 * not already hold pass through it; a line survives them with probability
 * exp(-D / stas_table_l1_bytes). The SM's other producers read the same table, so their data
 * does not lengthen a line's reuse distance beyond one stage's. */
static double stas_table_miss(const pipe_desc *d, const pipe_params *p, const pipe_plan_trip *trips, uint32_t n,
                              const double (*share)[PARAMS_STAS_SOURCES])
{
    double dist = d->copy_bytes;
    for (uint32_t i = 0; i < n; i++)
        dist += 128.0 * trips[i].lines * (1.0 - share[i][0]);
    return p->stas_table_l1_bytes > 0 ? 1.0 - exp(-dist / p->stas_table_l1_bytes) : 0;
}

/* The st.async loop's trips (pipe_plan_copy_trips) and each one's cost by source: the share
 * of its chunks each source serves times the measured trip of its lines. L1: stas_l1_share;
 * L2: the rest of the tensor's L2 hits (pipe_l2_hit), or where more, the share L2 holds
 * (stas_l2_resident) of what passes through it between two reads of one of the tensor's tiles
 * (tensor_reuse_bytes), as the kernel runs launch after launch (tmahw run times repeated
 * launches) and a launch finds what the one before it left there, first tiles included;
 * DRAM: the rest. Per tensor, not the footprint of all: beside a 64 MiB tensor a 4-16 KiB
 * one reads no DRAM (Range Profiler dram__bytes_read over the data loaded is the large
 * tensor's share alone, corpus_0004_0045 0.63, _0058 0.55, _0009 0.53), and its L1 hits are
 * what keeps L2 reads below the data loaded (0045: 0.98 of the data, none of the 64 MiB
 * tensor's tiles coming round to a CTA again). */
int stas_prepare(sim *s, err_info *e)
{
    const pipe_desc *d = s->d;
    pipe_plan_trip *trips = NULL;
    uint32_t n = 0;
    int rc = pipe_plan_copy_trips(d, &trips, &n, e);
    if (rc)
        return rc;
    double line_bytes[DESC_MAX_TENSORS] = {0}, share[DESC_MAX_TENSORS][PARAMS_STAS_SOURCES];
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t t = 0; t < d->ntensors; t++)
            line_bytes[t] += trips[i].chunks[t] ? 128.0 * trips[i].lines * trips[i].chunks[t] / 32.0 : 0;
    for (uint32_t t = 0; t < d->ntensors; t++) {
        double resident = stas_l2_resident(s->p, tensor_reuse_bytes(d, t));
        double hit = resident > s->l2_hit[t] ? resident : s->l2_hit[t];
        double l1 = stas_l1_share(d, s->p, line_bytes, t), l2 = hit - l1;
        share[t][0] = l1;
        share[t][1] = l2 > 0 ? l2 : 0;
        share[t][2] = 1.0 - share[t][0] - share[t][1];
    }
    s->stas_trip = calloc(n ? n : 1, sizeof *s->stas_trip);
    s->stas_share = calloc(n ? n : 1, sizeof *s->stas_share);
    if (!s->stas_trip || !s->stas_share) {
        free(trips);
        return err_set(e, ERR_IO, "out_of_memory", "st.async trips");
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t chunks = 0;
        for (uint32_t t = 0; t < d->ntensors; t++)
            chunks += trips[i].chunks[t];
        for (uint32_t src = 0; src < PARAMS_STAS_SOURCES; src++) {
            double f = 0;
            for (uint32_t t = 0; t < d->ntensors && chunks; t++)
                f += share[t][src] * trips[i].chunks[t] / chunks;
            s->stas_share[i][src] = f;
            s->stas_trip[i][src] = f > 0 ? f * stas_lines_cost(s->p, src, trips[i].lines) : 0;
        }
    }
    s->stas_ntrips = n;
    s->stas_table_miss = stas_table_miss(d, s->p, trips, n, s->stas_share);
    s->stas_l1 = 0;
    for (uint32_t i = 0; i < n; i++)
        s->stas_l1 += s->stas_share[i][0] / n;
    free(trips);
    return ERR_OK;
}

/* The st.async loop (hw/run_kernel.cuh MODE 3) as its code runs: the loads of 4 trips, then
 * their 4 st.async, batch after batch. A trip's measured cost (in such batches) is its share
 * of the batch's load latency plus the st.async alone; a batch waits for its slowest trip's
 * loads. With k producer warps in their loops on the SM at once, each source's trip costs
 * what the CTAs-per-SM series adds at 4 lines over one warp (added to its lines' cost, not
 * scaled with it: at 16 lines and 8 CTAs per SM the calibration's L1 and L2 trips take
 * 200 and 199 ns, where a scaled cost gives 408 and 131, an added one 163 and 128), and the
 * st.async alone what that series measured. The kernel's first loop takes stas_first_ns more. */
int64_t stas_loop_end(sim *s, warp *w)
{
    const pipe_params *p = s->p;
    double k = ++s->stas_active[s->cta[w->cta].sm];
    double more[PARAMS_STAS_SOURCES];
    for (uint32_t src = 0; src < PARAMS_STAS_SOURCES; src++) {
        double series[PARAMS_STAS_CTAS + 1] = {p->stas_lines_ns[src][0]};
        for (uint32_t i = 0; i < PARAMS_STAS_CTAS; i++)
            series[i + 1] = p->stas_ctas_ns[src][i];
        more[src] = log2_series(series, PARAMS_STAS_CTAS + 1, k) - p->stas_lines_ns[src][0];
    }
    double alone = log2_series(p->stas_alone_ns, PARAMS_STAS_CTAS + 1, k), ns = 0;
    /* a batch whose table entries miss L1 waits for them from L2 before its loads: the
     * calibration's batch from L2 less its batch from L1 */
    double miss = s->stas_table_miss * 4 * (p->stas_lines_ns[1][0] - p->stas_lines_ns[0][0]);
    for (uint32_t b = 0; b < s->stas_ntrips; b += 4) {
        double wait = 0;
        uint32_t end = b + 4 < s->stas_ntrips ? b + 4 : s->stas_ntrips;
        for (uint32_t i = b; i < end; i++) {
            double trip = 0;
            for (uint32_t src = 0; src < PARAMS_STAS_SOURCES; src++)
                trip += s->stas_trip[i][src] + s->stas_share[i][src] * more[src];
            wait = trip - alone > wait ? trip - alone : wait;
        }
        ns += 4 * wait + (end - b) * alone + miss;
    }
    if (w->prod_j == 0)   /* the kernel's first loop: its table, addresses and data not cached yet */
        ns += p->stas_first_ns;
    return copy_loop_end(s, w, 0, s->stas_ntrips, ns, p->stas_slot_cycles);
}

/* The warp's st.async loop is over: one producer fewer in its loop on the SM. */
void stas_loop_done(sim *s, const warp *w)
{
    uint32_t *n = &s->stas_active[s->cta[w->cta].sm];
    if (*n)
        (*n)--;
}

double pipe_l2_share_rate(const pipe_params *p, double readers)
{
    /* between the measured group sizes 1, 2, 4, ... 32: linear in log2 of the readers */
    double x = readers > 1 ? log2(readers) : 0;
    const double last = PARAMS_L2_SHARE_POINTS - 1;
    if (x >= last)
        return p->l2_share_bytes_per_ns[PARAMS_L2_SHARE_POINTS - 1];
    int k = (int)x;
    double f = x - k;
    return p->l2_share_bytes_per_ns[k] * (1 - f) + p->l2_share_bytes_per_ns[k + 1] * f;
}

/* The L2 requests of one box of tensor ten: one per row (the box's innermost dimension),
 * or per 128 bytes of a wider row (tmahw calibrate --only tma_rows). */
double pipe_box_requests(const desc_tensor *ten)
{
    double row = (double)ten->map.box[0] * tm_dtype_get(ten->map.dtype)->bits / 8.0;
    if (row <= 0)
        return 0;
    return (double)ten->tx_bytes / row * ceil(row / 128.0);
}

/* One copy's transfer: the SM's TMA unit (use_tma) or its cp.async / ld.global intake, the
 * L2 and DRAM shares of the whole GPU, then the latency. l2_readers: for the GEMM's copies,
 * how many SMs read the same bytes at about the same time (1 for stores). request_ns: the
 * GPU's time for a tensor box's L2 requests (pipe_box_requests over its tensor's
 * s->l2_req_rate, whatever their bytes; 0 where not a box load). */
int64_t mem_transfer(sim *s, uint32_t sm, int64_t start, uint32_t bytes, double l2_hit, int use_tma, double l2_readers,
                     double request_ns)
{
    const pipe_params *p = s->p;
    int64_t t = start;
    if (use_tma) {
        if (s->tma_free[sm] > t)
            t = s->tma_free[sm];
        int64_t busy = (int64_t)(bytes * 1000.0 / p->tma_bytes_per_ns_sm);
        s->tma_free[sm] = t + busy;
        s->tma_busy += (double)busy;
    } else {
        /* cp.async and ld.global: the SM takes in at most ldgsts_bytes_per_ns_sm */
        if (s->ldg_free[sm] > t)
            t = s->ldg_free[sm];
        s->ldg_free[sm] = t + (int64_t)(bytes * 1000.0 / p->ldgsts_bytes_per_ns_sm);
    }
    int64_t g = t > s->mem_free ? t : s->mem_free;
    double hbm_ps = bytes * (1.0 - l2_hit) * 1000.0 / p->hbm_bytes_per_ns;
    double l2_ps = bytes * l2_hit * 1000.0 / p->l2_bytes_per_ns;
    int64_t served;
    if (s->gemm) {
        /* the GEMM's copies: every byte crosses L2 to the SM at the L2's rate for bytes that
         * many SMs read at once, the misses come from DRAM at the same time (two queues,
         * the slower decides) */
        int64_t l2 = t > s->l2_free ? t : s->l2_free;
        l2_ps = bytes * 1000.0 / pipe_l2_share_rate(p, l2_readers);
        s->l2_free = l2 + (int64_t)l2_ps;
        s->l2_busy += l2_ps;
        s->mem_free = g + (int64_t)hbm_ps;
        s->hbm_busy += hbm_ps;
        served = s->mem_free > s->l2_free ? s->mem_free : s->l2_free;
    } else {
        double req_ps = request_ns * 1000.0;
        s->mem_free = g + (int64_t)(hbm_ps + l2_ps > req_ps ? hbm_ps + l2_ps : req_ps);
        s->hbm_busy += hbm_ps + l2_ps;
        served = s->mem_free;
    }
    s->last_dram_served = l2_hit < 1.0 ? (s->gemm ? s->mem_free : t + (int64_t)((double)(served - t) * (1.0 - l2_hit))) : 0;
    s->dram_bytes += bytes * (1.0 - l2_hit);
    s->l2_bytes += bytes;
    /* a GEMM's copies: every SM loads its stages at once (gemm_load_latency_ns), a miss adds
     * DRAM's latency over L2's */
    double l2_lat = s->gemm ? p->gemm_load_latency_ns : p->l2_latency_ns;
    double hbm_lat = s->gemm ? p->gemm_load_latency_ns + p->hbm_latency_ns - p->l2_latency_ns : p->hbm_latency_ns;
    int64_t lat = (int64_t)((hbm_lat * (1.0 - l2_hit) + l2_lat * l2_hit) * 1000.0);
    int64_t done = served + lat;
    int64_t unit = use_tma ? s->tma_free[sm] : s->ldg_free[sm];
    if (unit + lat > done)
        done = unit + lat;
    return done;
}

void note_loads(sim *s, uint32_t sm)
{
    if (s->last_dram_served > s->loads_dram_served[sm])
        s->loads_dram_served[sm] = s->last_dram_served;
}

/* What a consumer's .release.cluster arrive on a peer from SM sm at time t waits beyond
 * remote_arrive_ns: a share of the time until the SM's loads that miss L2 have been served
 * by DRAM (tmahw calibrate --only remote_load: the arrive waits for its own SM's loads from
 * DRAM, the more the more are in flight; an idle SM's arrive is not delayed by the GPU's
 * load). */
int64_t release_dram_wait_ps(const sim *s, uint32_t sm, int64_t t)
{
    int64_t ahead = s->loads_dram_served[sm] - t;
    return ahead > 0 ? (int64_t)(s->p->release_fence_dram_share * (double)ahead) : 0;
}

/* The CTAs an SM holds (the description's CTAs per SM). */
static double sm_ctas(const sim *s) { return s->d->ctas_per_sm ? (double)s->d->ctas_per_sm : 1.0; }

/* What a release's first arrive on a multicast peer costs beyond remote_arrive_ns with the
 * CTAs an SM holds (tmahw calibrate --only cluster_rx, clusters of 2: none at one CTA per
 * SM). */
double remote_arrive_first_extra_ns(const sim *s)
{
    double series[PARAMS_REMOTE_CTAS] = {0};
    for (int k = 1; k < PARAMS_REMOTE_CTAS; k++)
        series[k] = s->p->remote_arrive_first_cta_extra_ns[k - 1];
    return log2_series(series, PARAMS_REMOTE_CTAS, sm_ctas(s));
}

/* A release's arrive on a second or later multicast peer: tmahw calibrate's arrives on
 * every rank take the longer the more warps of the SM arrive at once (one CTA, remote), and
 * the more CTAs of the SM do (one warp each, cluster_rx); here the consumer warps of the
 * CTAs an SM holds, and those CTAs, whichever costs more. */
double remote_arrive_next_ns(const sim *s)
{
    double per = sm_ctas(s);
    double by_warps = log2_series(s->p->remote_arrive_next_ns, PARAMS_REMOTE_WARPS, (double)s->d->consumer_warps * per);
    double by_ctas = log2_series(s->p->remote_arrive_next_cta_ns, PARAMS_REMOTE_CTAS, per);
    return by_warps > by_ctas ? by_warps : by_ctas;
}

/* Tiles of tensor t the CTAs walk: whole boxes inside the tensor, dimension 0 fastest. */
static double tiles_of(const desc_tensor *ten)
{
    double n = 1;
    for (uint32_t k = 0; k < ten->map.rank; k++) {
        uint64_t per = ten->map.box[k] ? ten->map.dims[k] / ten->map.box[k] : 0;
        n *= per ? (double)per : 1;
    }
    return n;
}

/* The loads of one tensor's tiles in a launch: one per iteration of every CTA, or of every
 * cluster where a multicast load serves the cluster. */
static double launch_loads(const pipe_desc *d)
{
    double groups = d->multicast ? (double)d->ctas / d->cluster : (double)d->ctas;
    return groups * d->iterations;
}

/* The bytes of the tiles the loads of every tensor cycle through. */
static double tiles_footprint(const pipe_desc *d)
{
    return tiles_reuse_bytes(d, launch_loads(d));
}

/* The bytes of the distinct tiles of every tensor among `loads` successive loads (each
 * tensor's loads walk its tiles in order, one tile of every tensor a load). */
static double tiles_reuse_bytes(const pipe_desc *d, double loads)
{
    double bytes = 0;
    for (uint32_t k = 0; k < d->ntensors; k++) {
        double tiles_k = tiles_of(&d->tensors[k]);
        bytes += (loads < tiles_k ? loads : tiles_k) * d->tensors[k].tx_bytes;
    }
    return bytes;
}

/* The bytes the GPU's loads pass through L2 between two reads of one tile of tensor t: the
 * window of its tile count's loads (the launch's loads where fewer, the next launch coming
 * round to the tile again), in which a tensor of fewer tiles repeats its own. A tensor of
 * few tiles beside a large one is read again long before the large one's cycle evicts it. */
static double tensor_reuse_bytes(const pipe_desc *d, uint32_t t)
{
    double loads = launch_loads(d), tiles = tiles_of(&d->tensors[t]);
    return tiles_reuse_bytes(d, loads < tiles ? loads : tiles);
}

/* The bytes of address one box of the tensor spans: its rows at the tensor's pitch (its own
 * bytes where the rows follow each other). */
static double box_span(const desc_tensor *ten, double row, double pitch)
{
    return (double)ten->tx_bytes / row * (pitch > row ? pitch : row);
}

/* The bytes of address the whole tensor spans: the most its boxes can. */
static double tensor_span(const desc_tensor *ten, double pitch)
{
    double rows = 1;
    for (uint32_t k = 1; k < ten->map.rank; k++)
        rows *= (double)ten->map.dims[k];
    return rows * pitch;
}

/* A measured table over 4 KiB << k of span (k = 0..6, then 1024 KiB) read at kib, linear in
 * log2 of the bytes between points. */
static double req_table(const double *v, double kib)
{
    const double at[PARAMS_L2_REQ_POINTS] = {4, 8, 16, 32, 64, 128, 256, 1024};
    if (kib <= at[0])
        return v[0];
    for (int k = 1; k < PARAMS_L2_REQ_POINTS; k++)
        if (kib < at[k]) {
            double f = log2(kib / at[k - 1]) / log2(at[k] / at[k - 1]);
            return v[k - 1] + f * (v[k] - v[k - 1]);
        }
    return v[PARAMS_L2_REQ_POINTS - 1];
}

/* The GPU's L2 request rate for tensor t's boxes (tmahw calibrate --only tma_rows, tma_hot):
 * the less address the grid's boxes of it span, the fewer L2 slices serve them. Rows that
 * share their lines (a pitch under 128 bytes) follow one table whatever their width (16-64
 * bytes measured); rows with lines of their own are served about twice as fast, 128-byte
 * rows slower per request than 64-byte ones (rows between by their bytes). Rows under 64
 * bytes take the shared table at any pitch: the benchmark serves 32-byte rows at a 128- or
 * 256-byte pitch as fast as 64-byte ones, but two of the three such kernels recorded (the fit
 * half's corpus_0001_0048, seed 3's 0003_0023) run as the shared table says or slower. */
double pipe_l2_request_rate(const pipe_desc *d, const pipe_params *p, uint32_t t)
{
    const desc_tensor *ten = &d->tensors[t];
    double row = (double)ten->map.box[0] * tm_dtype_get(ten->map.dtype)->bits / 8.0;
    if (row <= 0)
        return p->l2_requests_shared_per_ns[PARAMS_L2_REQ_POINTS - 1];
    double pitch = ten->map.rank > 1 ? (double)ten->map.strides[0] : row;
    double boxes = launch_loads(d), tiles = tiles_of(ten);
    double span = (boxes < tiles ? boxes : tiles) * box_span(ten, row, pitch), all = tensor_span(ten, pitch);
    double kib = (span < all ? span : all) / 1024.0;
    if (pitch < 128 || row < 64)
        return req_table(p->l2_requests_shared_per_ns, kib);
    double f = row <= 64 ? 0 : row >= 128 ? 1 : (row - 64) / 64.0;
    return (1 - f) * req_table(p->l2_requests_own_per_ns, kib) + f * req_table(p->l2_requests_r128_per_ns, kib);
}

double pipe_l2_hit(const pipe_desc *d, uint32_t t, const pipe_params *p)
{
    const desc_tensor *ten = &d->tensors[t];
    if (ten->l2_hit >= 0)
        return ten->l2_hit;
    if (d->math == PIPE_MATH_WGMMA)
        return pipe_gemm_l2_hit(d, t ? WG_B : WG_A);
    /* The loads walk the tensor's tiles in order (load j of CTA group g takes tile
     * g + j x groups, modulo the tile count, as tmahw's kernel does): every tile after the
     * first pass is a re-read, which L2 serves while the tiles all tensors cycle through fit
     * in it; a cycle larger than L2 evicts each tile before it comes round again. */
    if (tiles_footprint(d) > p->l2_reuse_bytes)
        return 0;
    double loads = launch_loads(d), tiles = tiles_of(ten);
    return loads > tiles ? 1.0 - tiles / loads : 0;
}

double tensors_l2_hit(const sim *s)
{
    const pipe_desc *d = s->d;
    double bytes = 0, hit = 0;
    for (uint32_t t = 0; t < d->ntensors; t++) {
        bytes += d->tensors[t].tx_bytes;
        hit += d->tensors[t].tx_bytes * s->l2_hit[t];
    }
    return bytes > 0 ? hit / bytes : 0;
}

/* The MMA work as the kernel issues it (hw/run_kernel.cuh, MATH 2): mma.sync.m16n8k16
 * (2 x 16 x 8 x 16 flops) into pipe_plan_mma_chains independent accumulators per warp. One
 * warp on a sub-partition cannot pass the tensor-core rate, nor its chains' latency: each
 * mma waits for the previous one on its accumulator, so an instruction costs
 * max(rate, latency / chains). */
#define MMA_FLOPS_PER_INSTR ((double)PIPE_MMA_FLOPS_PER_INSTR)

/* Cycles per FFMA of the generated block: a loop at the looped rate; unrolled, one warp's
 * own rate (own = 1) or the sub-partition's, in the instruction cache, or past it the
 * fetch-bound rate of the sub-partition with the math warps it holds (interpolated over
 * 1, 2, 4, 8 warps in log2; more warps as 8). */
static double ffma_rate(const pipe_desc *d, const pipe_params *p, int own)
{
    if (d->math_amount > PIPE_FFMA_UNROLLED_MAX)
        return p->ffma_cycles;
    if (16.0 * d->math_amount <= p->icache_bytes)
        return own ? p->ffma_unrolled_cycles : p->ffma_unrolled_smsp_cycles;
    const double f[4] = {p->ffma_fetch_1w_cycles, p->ffma_fetch_2w_cycles, p->ffma_fetch_4w_cycles,
                         p->ffma_fetch_8w_cycles};
    double w = ceil((double)d->consumer_warps * (d->ctas_per_sm ? d->ctas_per_sm : 1) / 4.0);
    double x = log2(w < 1 ? 1 : w > 8 ? 8 : w);
    int i = x >= 3 ? 2 : (int)x;
    return f[i] + (f[i + 1] - f[i]) * (x - i);
}

static double math_cycles(const pipe_desc *d, const pipe_params *p)
{
    if (d->math == PIPE_MATH_FMA)
        return (double)d->math_amount * ffma_rate(d, p, 1) + p->math_tail_cycles;
    double instr = (double)pipe_plan_mma_instructions(d);
    double rate = MMA_FLOPS_PER_INSTR / p->mma_flops_per_cycle_smsp, dep = p->mma_latency_cycles / pipe_plan_mma_chains(d);
    return instr * (rate > dep ? rate : dep) + p->math_tail_cycles;
}

double pipe_math_pipe_cycles(const pipe_desc *d, const pipe_params *p)
{
    if (d->math == PIPE_MATH_FMA)
        return (double)d->math_amount * ffma_rate(d, p, 0);
    if (d->math == PIPE_MATH_MMA) {
        double instr = (double)pipe_plan_mma_instructions(d);
        return instr * MMA_FLOPS_PER_INSTR / p->mma_flops_per_cycle_smsp;
    }
    return 0;
}

/* A unit shared by the warps on it (share_set), in two levels: the unit's rate is split
 * equally among the groups with a warp on it, a group's share equally among its warps, or
 * (in_order) whole to the warp of the group that came first. The SM's port takes the
 * sub-partitions as its groups: it serves the loads of the four in turn, so a warp alone
 * on its sub-partition reads faster than two that share one (the fit half's traces at one
 * CTA per SM: corpus_0001_0037 328 ns against 431, scripts/read-share.py), and the warps
 * of one sub-partition that read at once end together (0123's 8 warps 1049-1078 ns). A
 * sub-partition's tensor pipe is one group taken in order: its mma.sync warps come out of
 * their math one after the other (0084, two warps per sub-partition: the second of each
 * pair starts its math 730-820 ns after the first, spans 1000-1214 ns); its FFMA warps
 * share the pipe equally (0118, 0222: eight warps start their math within 30 ns and
 * all spans 1086-1112 ns). The n warps' rates into rate[] (group in the order they came). */
static void share_rates(const uint32_t *group, uint32_t n, int in_order, double *rate)
{
    uint32_t groups = 0;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t same = 0, first = 1;
        for (uint32_t o = 0; o < n; o++) {
            same += group[o] == group[k];
            first &= !(o < k && group[o] == group[k]);
        }
        groups += first;
        rate[k] = in_order ? first : 1.0 / same;
    }
    for (uint32_t k = 0; k < n; k++)
        rate[k] /= groups;
}

/* Runs unit q's sharers forward by up to `span` ps of work-sharing (or until the last
 * leaves when span < 0), letting go of each whose work is done; done[k] gets the ps after
 * the start at which the k-th of the original order finished (left unset if it did not).
 * Returns the ps it ran. */
static double share_run(uint32_t *ws, uint32_t *group, double *left, uint8_t *n, int in_order, double span,
                        double *done)
{
    uint32_t idx[PIPE_SHARERS];
    for (uint32_t k = 0; k < *n; k++)
        idx[k] = k;
    double t = 0, rate[PIPE_SHARERS];
    while (*n && (span < 0 || t < span)) {
        share_rates(group, *n, in_order, rate);
        double step = -1;
        for (uint32_t k = 0; k < *n; k++)
            if (rate[k] > 0 && (step < 0 || left[k] / rate[k] < step))
                step = left[k] / rate[k];
        if (span >= 0 && t + step > span)
            step = span - t;
        t += step;
        uint32_t kept = 0;
        for (uint32_t k = 0; k < *n; k++) {
            left[k] -= step * rate[k];
            if (left[k] > 0.5) {
                ws[kept] = ws[k];
                group[kept] = group[k];
                idx[kept] = idx[k];
                left[kept++] = left[k];
            } else if (done) {
                done[idx[k]] = t;
            }
        }
        *n = (uint8_t)kept;
    }
    return t;
}

/* Brings the remaining work of unit q's warps up to time t. */
static void share_advance(share_set *sh, uint32_t q, int64_t t)
{
    size_t at = (size_t)q * PIPE_SHARERS;
    if (sh->t[q] < t)
        share_run(&sh->warps[at], &sh->group[at], &sh->left[at], &sh->n[q], sh->in_order, (double)(t - sh->t[q]),
                  NULL);
    sh->t[q] = t;
}

/* Warp w comes to unit q in `group` with `work` ps of it to do (its share_floor and
 * share_tail set): when each sharer's work ends if nobody else comes; the warps already
 * on it end later now, their events are moved. A warp's stretch ends at that point plus
 * its tail, or at its floor. Returns w's end. */
static int64_t share_join(sim *s, share_set *sh, uint32_t q, warp *w, double work, uint32_t group)
{
    share_advance(sh, q, s->now);
    if (work < 1 || sh->n[q] >= PIPE_SHARERS) {
        int64_t alone = s->now + (int64_t)work + w->share_tail;
        return alone > w->share_floor ? alone : w->share_floor;
    }
    size_t at = (size_t)q * PIPE_SHARERS;
    uint32_t n = sh->n[q]++;
    sh->warps[at + n] = (uint32_t)(w - s->w);
    sh->group[at + n] = group;
    sh->left[at + n] = work;
    uint32_t ws[PIPE_SHARERS], gs[PIPE_SHARERS];
    double left[PIPE_SHARERS], done[PIPE_SHARERS];
    uint8_t m = sh->n[q];
    for (uint32_t k = 0; k < m; k++) {
        ws[k] = sh->warps[at + k];
        gs[k] = sh->group[at + k];
        left[k] = sh->left[at + k];
    }
    share_run(ws, gs, left, &m, sh->in_order, -1, done);
    int64_t mine = 0;
    for (uint32_t k = 0; k <= n; k++) {
        warp *o = &s->w[sh->warps[at + k]];
        int64_t end = s->now + (int64_t)done[k] + o->share_tail;
        if (end < o->share_floor)
            end = o->share_floor;
        if (k == n) {
            mine = end;
            break;
        }
        o->gen++;
        schedule_warp(s, sh->warps[at + k], end);
    }
    return mine;
}

/* A consumer's read of its stage: the warp issues its loads at its own pace while the SM's
 * port serves the wavefronts of every reading warp in turn (share_set: warps that read at
 * once end their reads together, as the fit half's traces show them; a queue that served
 * each read whole in turn would let the first readers go on to their math early). The
 * last load's data comes smem_latency_cycles after it, the read's fold read_tail_cycles
 * after that. Returns the read's end as it stands now. */
int64_t read_step_end(sim *s, warp *w)
{
    const pipe_desc *d = s->d;
    const pipe_params *p = s->p;
    double port = d->read_wavefronts * p->smem_cycles_per_wavefront * s->ps_per_cycle;
    /* a warp's load costs it at least lsu_issue_cycles, a wide one its bytes at the
     * sub-partition's rate */
    double per_instr = (double)d->read_bytes / d->read_instructions / p->lsu_bytes_per_cycle_smsp;
    if (per_instr < p->lsu_issue_cycles)
        per_instr = p->lsu_issue_cycles;
    int64_t issue = (int64_t)(d->read_instructions * per_instr * s->ps_per_cycle);
    s->port_busy += port;
    /* the checksum fold of the loaded words takes issue slots besides the loads */
    double words = (double)d->read_bytes / 128.0;
    int64_t own = issue_end(s, w, issue, d->read_instructions * p->read_issue_cycles + words * p->read_word_issue_cycles);
    w->share_tail = (int64_t)((p->smem_latency_cycles + p->read_tail_cycles) * s->ps_per_cycle);
    w->share_floor = own + w->share_tail;
    return share_join(s, &s->port, s->cta[w->cta].sm, w, port, w->smsp);
}

/* A consumer's math on its stage: the pipe time of its instructions on the sub-partition's
 * shared pipe, no sooner than its own dependent chain and its issue slots allow; the
 * block's tail (the accumulators' sum) follows. Returns the math's end as it stands now. */
int64_t math_step_end(sim *s, warp *w)
{
    const pipe_desc *d = s->d;
    const pipe_params *p = s->p;
    double pipe = pipe_math_pipe_cycles(d, p) * s->ps_per_cycle;
    int64_t own = (int64_t)(math_cycles(d, p) * s->ps_per_cycle);
    s->smsp_busy += pipe;
    w->share_tail = (int64_t)(p->math_tail_cycles * s->ps_per_cycle);
    /* an FFMA holds a busy sub-partition for ffma_cycles; an mma.sync holds it for its
     * tensor-pipe time: on busy sub-partitions the cycles are the sum of the tensor pipe's
     * active cycles and the other instructions' issue, not the larger of the two
     * (scripts/mma-issue.py on the corpus's counters; tmahw calibrate --only mma_mix:
     * integer work of the generated code's mix beside mma.sync takes 0.97 of the sum) */
    double cycles = d->math == PIPE_MATH_FMA ? (double)d->math_amount * p->ffma_cycles
                                             : pipe_math_pipe_cycles(d, p);
    int64_t slots = issue_cycles_end(s, w, 0, cycles) + w->share_tail;
    w->share_floor = s->now + own > slots ? s->now + own : slots;
    return share_join(s, &s->pipe, s->cta[w->cta].sm * 4 + w->smsp, w, pipe, 0);
}

/* The consumer's TMA store (or reduction) of iteration i's tile, with its trace span.
 * Returns what it costs the warp: the issue, then the wait until the box has been read
 * out of shared memory. */
int64_t store_step(sim *s, warp *w, uint32_t i)
{
    const pipe_desc *d = s->d;
    const pipe_params *p = s->p;
    /* A reduction combines the tile with global memory in the L2: the old value is read
     * and the result written, twice the bytes of a store, with its own latency. */
    int reduce = d->store_reduce != PIPE_REDUCE_NONE;
    double latency_ns = reduce ? p->reduce_latency_ns : p->store_latency_ns;
    int64_t c = (int64_t)(p->tma_issue_ns * 1000);
    int64_t done = mem_transfer(s, s->cta[w->cta].sm, s->now + c, d->store_bytes * (reduce ? 2u : 1u), 0, 1, 1, 0) +
                   (int64_t)((latency_ns - p->hbm_latency_ns) * 1000);
    if (done < s->now + c)
        done = s->now + c;
    pipe_emit(s, s->now + c, done - s->now - c, w, w->cta, TRACE_TMA_STORE, i % d->stages, i, 0, 0, d->store_bytes,
              reduce ? TRACE_FLAG_REDUCE : 0);
    if (done > w->store_done)
        w->store_done = done;
    /* the generated consumer waits until the box has been read out of shared
     * memory (bulk wait_group.read) before it releases the stage: the store's
     * latency to that point, measured for one box alone */
    return c + (int64_t)(latency_ns * 1000);
}

/* A consumer warpgroup's wgmma group of iteration i (its lead warp issues it): the consumer
 * warp's instructions of the stage (gemm_consume_slots) take its sub-partition's issue slots;
 * the SM's tensor pipe
 * runs the instructions after those of the groups before it (both warpgroups share it) at
 * the pipe's measured cycles per instruction, at the clock the SM keeps under tensor load;
 * the group completes wgmma_latency_cycles after its last instruction. While TMA loads land
 * in the SM's shared memory the pipe runs at its slower measured rate beside copies
 * (wgmma_copy_cycles_per_col: the copies' writes slow the operands' reads): for the whole
 * group while the CTA's producer has stages left to load (its loads keep landing between
 * the groups), else for the part of the group that the loads in flight overlap. Returns the
 * warp's time after the issue; records the group's completion in its slot. */
int64_t wgmma_issue(sim *s, warp *w, uint32_t i)
{
    const pipe_desc *d = s->d;
    const pipe_params *p = s->p;
    uint32_t sm = s->cta[w->cta].sm, k = pipe_gemm_instrs_per_stage(d);
    int64_t issued = issue_end(s, w, 0, p->gemm_consume_slots);
    int64_t start = issued > s->tensor_free[sm] ? issued : s->tensor_free[sm];
    double alone = k * pipe_gemm_instr_cycles(d, p->wgmma_cycles_per_col) * s->ps_per_cycle;
    double slow = p->wgmma_copy_cycles_per_col > p->wgmma_cycles_per_col
                      ? p->wgmma_copy_cycles_per_col / p->wgmma_cycles_per_col : 1.0;
    uint32_t per = d->producer_warps + d->consumer_warps;
    const warp *prod = &s->w[w->cta * per];
    double beside = (double)(s->copies_until[sm] - start);   /* ps of the group with copies in flight */
    if (beside < 0)
        beside = 0;
    if (prod->role == TRACE_ROLE_PRODUCER && prod->prod_j < d->iterations)
        beside = alone * slow;
    int64_t busy = (int64_t)(beside >= alone * slow ? alone * slow : beside + (alone - beside / slow));
    s->tensor_free[sm] = start + busy;
    s->tensor_busy += (double)busy;
    *wg_done_slot(s, w, i) = start + busy + (int64_t)(p->wgmma_latency_cycles * s->ps_per_cycle);
    return issued;
}

/* The CTAs of the persistent grid that work on a tile in the same round as a CTA's tile
 * number `tile` (its own count: every CTA's k-th tile falls in round k). */
static double gemm_round_ctas(const pipe_desc *d, uint32_t tile)
{
    double left = (double)d->gemm.tiles - (double)tile * d->ctas;
    return left < 1 ? 1 : left < d->ctas ? left : d->ctas;
}

/* The tile's epilogue of one consumer warpgroup after its wait_group(0) (hw/gemm_kernel.cuh
 * gm_epilogue). tma: wait until the previous tile's store has read the staging buffer, each
 * warp converts and writes its 16 rows with BN/4 st.shared.b32 (one wavefront each, the
 * staging is swizzled) at a shared load's issue cost (lsu_issue_cycles; stores are not
 * measured apart), the port serving the warpgroup's BN wavefronts; two named barriers; one
 * thread stores the 64 x BN bf16 with TMA (through the
 * SM's TMA unit, L2 and DRAM), which has read the staging buffer store_latency_ns after its
 * issue. direct: BN/4 st.global.b32 per warp, each writing 16 bytes to each of 8 rows: a CTA
 * stores gemm_store_queue_bytes before its warps wait (lg_throttle), the rest drains at
 * gemm_store_bytes_per_ns, the GPU's, shared by the CTAs storing a tile of the same round;
 * the bytes then through the SM's intake and memory.
 * Returns the end of the warpgroup's epilogue. */
int64_t gemm_epilogue_end(sim *s, warp *w, uint32_t tile)
{
    const pipe_desc *d = s->d;
    const pipe_params *p = s->p;
    uint32_t sm = s->cta[w->cta].sm, bn = d->gemm.bn, bytes = PIPE_WGMMA_M * bn * 2;
    int64_t t = s->now;
    int tma = d->gemm.epilogue == PIPE_EPI_TMA;
    if (tma && w->store_read_done > t)
        t = w->store_read_done;
    int64_t own = (int64_t)(bn / 4.0 * p->lsu_issue_cycles * s->ps_per_cycle);
    int64_t saved = s->now;
    s->now = t;
    int64_t end = issue_cycles_end(s, w, own, bn / 4.0 * 3.0);   /* a cvt, its address and the store per pair of columns */
    s->now = saved;
    if (tma) {
        int64_t port = (int64_t)(bn * p->smem_cycles_per_wavefront * s->ps_per_cycle);
        int64_t served = (t > s->port_free[sm] ? t : s->port_free[sm]) + port;
        s->port_free[sm] = served;
        s->port_busy += (double)port;
        if (served > end)
            end = served;
        end += (int64_t)(2 * p->barsync_ns * 1000);
    }
    double excess = bytes - p->gemm_store_queue_bytes / d->gemm.consumer_groups;
    if (!tma && excess > 0) {
        /* the stores beyond the CTA's queue (its share per warpgroup) drain at the GPU's
         * rate shared by the CTAs that store a tile of the same round; the warps wait
         * until theirs have drained */
        int64_t *drained = &s->stores_drained[sm];
        int64_t from = t > *drained ? t : *drained;
        *drained = from + (int64_t)(excess * gemm_round_ctas(d, tile) * 1000.0 / p->gemm_store_bytes_per_ns);
        if (*drained > end)
            end = *drained;
    }
    int64_t issue = end;
    int64_t done = mem_transfer(s, sm, issue, bytes, 0, tma, 1, 0);
    pipe_emit(s, issue, done - issue, w, w->cta, TRACE_TMA_STORE, 0, tile, 0, 0, bytes, 0);
    if (done > w->store_done)
        w->store_done = done;
    w->store_read_done = issue + (int64_t)(p->store_latency_ns * 1000);
    return end;
}
