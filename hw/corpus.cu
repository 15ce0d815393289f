/* corpus: the validation cases, generated deterministically (fixed seed), so a
 * recording can be repeated on another GPU and compared line by line. Groups aim at
 * the rules the model must get right: every data type, ranks 1-5, every swizzle mode,
 * destinations at every 128-byte offset and at 16-byte offsets, rows narrower than
 * the swizzle span, boxes partly or wholly out of bounds (negative coordinates too),
 * element strides, interleave, stores; bank instructions of every op with structured,
 * random, duplicate and broadcast addresses; encoder accept/reject probes. */
#include <string.h>

#include "hw.h"

static uint64_t rng_state = 0x7A5C09E5ull;
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static uint32_t rn(uint32_t n) { return n ? (uint32_t)(rnd() % n) : 0; }

static const uint32_t dtype_bits[TM_DTYPE_COUNT] = {8, 16, 32, 32, 64, 64, 16, 32, 64, 16, 32, 32, 32, 4, 4, 6};
static const uint32_t swz_span[] = {0, 32, 64, 128, 128, 128, 128};

/* A tensor of the given dims, rows padded to pad bytes beyond the dense size (kept a
 * multiple of 16), box and element strides as given. */
static tm_desc mkdesc(tm_dtype t, uint32_t rank, const uint64_t *dims, const uint32_t *box, const uint32_t *es,
                      tm_swizzle sw, tm_interleave il, uint32_t pad)
{
    tm_desc d;
    memset(&d, 0, sizeof d);
    d.dtype = t;
    d.rank = rank;
    d.swizzle = sw;
    d.interleave = il;
    d.sm_version = 90;
    for (uint32_t i = 0; i < rank; i++) {
        d.dims[i] = dims[i];
        d.box[i] = box[i];
        d.elem_strides[i] = es ? es[i] : 1;
    }
    if (rank > 1) {
        uint64_t row = (dims[0] * dtype_bits[t] + 7) / 8;
        uint32_t align = il == TM_INTERLEAVE_32B ? 32 : 16;
        row = (row + align - 1) / align * align + pad;
        d.strides[0] = row;
        for (uint32_t i = 1; i + 1 < rank; i++)
            d.strides[i] = d.strides[i - 1] * dims[i];
    }
    return d;
}

typedef struct gen {
    hw_layout_case *out;
    uint32_t n, max;
} gen;

static void add(gen *g, const char *group, int store, const tm_desc *d, const int32_t *coords, uint32_t smem_offset,
                uint32_t misalign)
{
    if (g->n >= g->max)
        return;
    hw_layout_case *c = &g->out[g->n];
    memset(c, 0, sizeof *c);
    c->id = g->n;
    c->group = group;
    c->store = store;
    c->desc = *d;
    if (coords)
        for (uint32_t i = 0; i < d->rank && i < TM_MAX_RANK; i++)
            c->coords[i] = coords[i];
    c->smem_offset = smem_offset;
    c->global_misalign = misalign;
    g->n++;
}

/* coords[0] rounded down to a multiple of 16 bytes of type t. */
static int32_t align_c0(int32_t c0, tm_dtype t)
{
    int32_t per16 = (int32_t)(128 / dtype_bits[t]);
    int32_t q = c0 >= 0 ? c0 / per16 : -((-c0 + per16 - 1) / per16);
    return q * per16;
}

/* Inner box elements for a row of `bytes` bytes of type t. */
static uint32_t elems(tm_dtype t, uint32_t bytes) { return bytes * 8 / dtype_bits[t]; }

/* One interleaved case with explicit strides (bytes, rank-1 of them). */
static void il_add(gen *g, int store, tm_dtype dt, tm_interleave il, tm_swizzle sw, uint32_t rank, const uint64_t *dims,
                   const uint64_t *strides, const uint32_t *box, const uint32_t *es, const int32_t *c, uint32_t off,
                   tm_oob_fill oob)
{
    tm_desc d = mkdesc(dt, rank, dims, box, es, sw, il, 0);
    for (uint32_t i = 0; i + 1 < rank; i++)
        d.strides[i] = strides[i];
    d.oob_fill = oob;
    add(g, "interleave_probe", store, &d, c, off, 0);
}

static void il_cases(gen *g)
{
    const tm_interleave I16 = TM_INTERLEAVE_16B, I32 = TM_INTERLEAVE_32B;
    const tm_swizzle S0 = TM_SWIZZLE_NONE, S32 = TM_SWIZZLE_32B, S64 = TM_SWIZZLE_64B, S128 = TM_SWIZZLE_128B;
    const tm_oob_fill Z = TM_OOB_FILL_NONE, NAN_ = TM_OOB_FILL_NAN;
    const tm_dtype U8 = TM_DTYPE_U8, F16 = TM_DTYPE_F16, F32 = TM_DTYPE_F32, F64 = TM_DTYPE_F64;
    const uint32_t es1[5] = {1, 1, 1, 1, 1};
#define IL(store, dt, il, sw, rank, oob, off, DIMS, STRIDES, BOX, ES, C)                                                   \
    do {                                                                                                               \
        const uint64_t dims_[5] = DIMS, strides_[4] = STRIDES;                                                         \
        const uint32_t box_[5] = BOX, es_[5] = ES;                                                                     \
        const int32_t c_[5] = C;                                                                                       \
        il_add(g, store, dt, il, sw, rank, dims_, strides_, box_, es_, c_, off, oob);                                  \
    } while (0)
#define A(...) {__VA_ARGS__}
    (void)es1;
    /* granules per row and their distance: box[0], dims[0] and strides[0] apart from the granule */
    IL(0, U8, I16, S0, 3, Z, 1024, A(16, 8, 4), A(16, 128), A(16, 1, 1), A(1, 1, 1), A(0, 0, 0));
    IL(0, U8, I16, S0, 3, Z, 2048, A(16, 8, 4), A(64, 512), A(16, 1, 1), A(1, 1, 1), A(0, 0, 0));
    IL(0, U8, I16, S0, 3, Z, 3072, A(32, 8, 4), A(32, 256), A(32, 1, 1), A(1, 1, 1), A(0, 0, 0));
    IL(0, F16, I16, S0, 3, Z, 4096, A(16, 8, 4), A(32, 256), A(16, 1, 1), A(1, 1, 1), A(0, 0, 0));
    IL(0, F16, I16, S0, 3, Z, 5120, A(8, 8, 4), A(16, 128), A(8, 1, 1), A(1, 1, 1), A(0, 0, 0));
    IL(0, U8, I16, S0, 3, Z, 6144, A(64, 4, 4), A(64, 256), A(48, 1, 1), A(1, 1, 1), A(0, 0, 0));
    IL(0, F32, I16, S0, 3, Z, 8192, A(4, 8, 4), A(16, 128), A(4, 1, 1), A(1, 1, 1), A(0, 0, 0));
    IL(0, F64, I16, S0, 3, Z, 9216, A(2, 8, 4), A(16, 128), A(2, 1, 1), A(1, 1, 1), A(0, 0, 0));
    IL(0, U8, I32, S32, 3, Z, 10240, A(32, 8, 4), A(32, 256), A(32, 1, 1), A(1, 1, 1), A(0, 0, 0));
    IL(0, U8, I32, S32, 3, Z, 12288, A(64, 8, 4), A(64, 512), A(64, 1, 1), A(1, 1, 1), A(0, 0, 0));
    IL(0, F16, I32, S32, 3, Z, 16384, A(16, 8, 4), A(64, 512), A(16, 1, 1), A(1, 1, 1), A(0, 0, 0));
    /* bounds of dimension 0, coords[0], elementStrides[0] */
    IL(0, U8, I16, S0, 3, Z, 1024, A(8, 8, 4), A(16, 128), A(16, 1, 1), A(1, 1, 1), A(0, 0, 0));
    IL(0, U8, I16, S0, 3, Z, 2048, A(20, 8, 4), A(32, 256), A(16, 1, 1), A(1, 1, 1), A(16, 0, 0));
    IL(0, U8, I16, S0, 3, Z, 3072, A(64, 8, 4), A(64, 512), A(16, 1, 1), A(1, 1, 1), A(-16, 1, 0));
    IL(0, U8, I16, S0, 3, Z, 4096, A(16, 8, 4), A(16, 128), A(16, 1, 1), A(1, 1, 1), A(8, 1, 1));
    IL(0, U8, I16, S0, 3, Z, 5120, A(16, 8, 4), A(16, 128), A(16, 1, 1), A(2, 1, 1), A(0, 1, 1));
    IL(0, F16, I16, S0, 3, Z, 6144, A(8, 8, 4), A(16, 128), A(8, 1, 1), A(4, 1, 1), A(0, 1, 1));
    IL(0, U8, I16, S0, 3, Z, 7168, A(48, 8, 4), A(48, 384), A(16, 1, 1), A(1, 1, 1), A(32, 2, 1));
    /* the dimension rank-2: traversed or not, its coordinate, its bounds */
    IL(0, U8, I16, S0, 3, Z, 1024, A(16, 8, 6), A(16, 128), A(16, 4, 1), A(1, 1, 1), A(0, 1, 1));
    IL(0, U8, I16, S0, 3, Z, 2048, A(16, 8, 6), A(16, 128), A(16, 4, 1), A(1, 2, 1), A(0, 1, 1));
    IL(0, F16, I16, S0, 3, Z, 3072, A(16, 8, 6), A(32, 256), A(16, 1, 3), A(1, 1, 1), A(0, 2, 1));
    IL(0, U8, I16, S0, 4, Z, 5120, A(16, 8, 6, 3), A(16, 128, 768), A(16, 1, 3, 1), A(1, 1, 1, 1), A(0, 2, 1, 1));
    IL(0, U8, I16, S0, 4, Z, 6144, A(16, 8, 6, 3), A(16, 128, 768), A(16, 2, 1, 3), A(1, 1, 1, 1), A(0, 2, 1, 0));
    IL(0, U8, I16, S0, 5, Z, 8192, A(16, 4, 4, 4, 2), A(16, 64, 256, 1024), A(16, 1, 1, 3, 1), A(1, 1, 1, 1, 1),
       A(0, 1, 1, 1, 0));
    IL(0, U8, I16, S0, 5, Z, 10240, A(16, 4, 4, 4, 2), A(16, 64, 256, 1024), A(16, 2, 2, 1, 2), A(1, 1, 1, 1, 1),
       A(0, 1, 1, 2, 0));
    IL(0, U8, I16, S0, 3, Z, 14336, A(16, 8, 6), A(16, 128), A(16, 1, 2), A(1, 1, 1), A(0, 8, 1));
    IL(0, U8, I16, S0, 3, Z, 15360, A(16, 8, 6), A(16, 128), A(16, 1, 2), A(1, 1, 1), A(0, -1, 1));
    IL(0, U8, I16, S0, 3, Z, 16384, A(16, 8, 6), A(16, 128), A(16, 1, 2), A(1, 1, 1), A(0, 3, 5));
    IL(0, U8, I16, S0, 3, Z, 17408, A(16, 8, 6), A(16, 128), A(16, 2, 3), A(1, 1, 2), A(0, 1, 1));
    IL(0, U8, I16, S0, 3, Z, 18432, A(16, 8, 6), A(16, 128), A(16, 1, 1), A(1, 1, 1), A(0, 7, 5));
    IL(0, U8, I16, S0, 4, Z, 19456, A(16, 8, 6, 3), A(16, 128, 768), A(16, 2, 2, 2), A(1, 1, 1, 1), A(0, 7, 6, 2));
    /* swizzles on top, destinations 128-aligned inside a 1024-byte block */
    IL(0, U8, I16, S32, 3, Z, 1024 + 128, A(16, 8, 4), A(16, 128), A(16, 2, 2), A(1, 1, 1), A(0, 1, 1));
    IL(0, U8, I16, S64, 3, Z, 4096 + 384, A(16, 8, 4), A(16, 128), A(16, 2, 2), A(1, 1, 1), A(0, 1, 1));
    IL(0, U8, I16, S128, 3, Z, 8192 + 640, A(16, 8, 4), A(16, 128), A(16, 2, 2), A(1, 1, 1), A(0, 1, 1));
    IL(0, F16, I16, S128, 3, Z, 12288 + 384, A(8, 8, 4), A(16, 128), A(8, 3, 2), A(1, 1, 1), A(0, 1, 1));
    IL(0, U8, I32, S0, 3, Z, 16384, A(32, 8, 4), A(32, 256), A(32, 2, 2), A(1, 1, 1), A(0, 1, 1));
    IL(0, U8, I32, S64, 3, Z, 24576 + 256, A(32, 8, 4), A(32, 256), A(32, 2, 2), A(1, 1, 1), A(0, 1, 1));
    IL(0, U8, I32, S128, 3, Z, 32768 + 128, A(32, 8, 4), A(32, 256), A(32, 2, 2), A(1, 1, 1), A(0, 1, 1));
    IL(0, F64, I16, S128, 3, Z, 40960 + 256, A(2, 8, 4), A(16, 128), A(2, 3, 2), A(1, 1, 1), A(0, 1, 1));
    IL(0, F64, I16, S32, 3, Z, 41984, A(2, 8, 4), A(16, 128), A(2, 3, 2), A(1, 1, 1), A(0, 1, 1));
    /* out-of-bounds fill */
    IL(0, F16, I16, S0, 3, NAN_, 1024, A(8, 8, 4), A(16, 128), A(8, 2, 2), A(1, 1, 1), A(0, 7, 3));
    IL(0, F32, I16, S32, 3, NAN_, 2048, A(4, 8, 4), A(16, 128), A(4, 2, 2), A(1, 1, 1), A(0, -1, 3));
    IL(0, F16, I16, S0, 3, NAN_, 3072, A(8, 8, 4), A(16, 128), A(16, 1, 1), A(1, 1, 1), A(0, 1, 1));
    /* stores */
    IL(1, F16, I16, S0, 3, Z, 1024, A(8, 8, 4), A(16, 128), A(8, 2, 2), A(1, 1, 1), A(0, 1, 1));
    IL(1, U8, I16, S0, 3, Z, 2048, A(16, 8, 6), A(16, 128), A(16, 2, 2), A(1, 1, 1), A(0, 7, 5));
    IL(1, U8, I16, S0, 3, Z, 3072, A(16, 8, 4), A(64, 512), A(16, 1, 2), A(1, 1, 1), A(0, 1, 1));
    IL(1, U8, I32, S32, 3, Z, 4096, A(32, 8, 4), A(32, 256), A(32, 2, 2), A(1, 1, 1), A(0, 1, 1));
    IL(1, F16, I16, S0, 3, Z, 6144, A(16, 8, 4), A(32, 256), A(16, 1, 2), A(1, 1, 1), A(0, 1, 1));
    IL(1, U8, I16, S0, 3, Z, 8192, A(8, 8, 4), A(16, 128), A(16, 1, 1), A(1, 1, 1), A(0, 1, 1));
    IL(1, U8, I16, S0, 4, Z, 10240, A(16, 8, 6, 3), A(16, 128, 768), A(16, 2, 3, 2), A(1, 1, 1, 1), A(0, 1, 1, 0));
    IL(1, U8, I16, S64, 3, Z, 12288 + 256, A(16, 8, 4), A(16, 128), A(16, 2, 2), A(1, 1, 1), A(0, 1, 1));
    /* second batch (ids 651-): the encoder's inner-box rule with interleave (24 bytes;
     * a box narrower than the 32-byte granule), the widest box, tf32 inside a granule,
     * a partly negative coords[0], 32B with elementStrides[0], the run-time faults
     * (16-aligned destination, negative store coordinate) */
    IL(0, F16, I16, S0, 3, Z, 1024, A(16, 8, 4), A(32, 256), A(12, 1, 1), A(1, 1, 1), A(0, 1, 1));
    IL(0, U8, I16, S0, 3, Z, 2048, A(32, 8, 4), A(32, 256), A(24, 1, 1), A(1, 1, 1), A(0, 1, 1));
    IL(0, U8, I16, S0, 3, Z, 3072, A(16, 8, 4), A(16, 128), A(8, 1, 1), A(1, 1, 1), A(0, 1, 1));
    IL(0, U8, I32, S32, 3, Z, 4096, A(32, 8, 4), A(32, 256), A(16, 1, 1), A(1, 1, 1), A(0, 1, 1));
    IL(0, U8, I16, S0, 3, Z, 8192, A(256, 4, 4), A(256, 1024), A(256, 1, 1), A(1, 1, 1), A(0, 1, 1));
    IL(0, TM_DTYPE_TF32, I16, S0, 3, Z, 16384, A(4, 8, 4), A(16, 128), A(4, 2, 2), A(1, 1, 1), A(0, 1, 1));
    IL(0, TM_DTYPE_TF32, I32, S32, 3, Z, 17408, A(8, 8, 4), A(32, 256), A(8, 2, 2), A(1, 1, 1), A(0, 1, 1));
    IL(0, U8, I16, S0, 3, Z, 18432, A(16, 8, 4), A(16, 128), A(16, 1, 1), A(1, 1, 1), A(-4, 1, 1));
    IL(0, U8, I32, S32, 3, Z, 19456, A(32, 8, 4), A(32, 256), A(32, 1, 1), A(2, 1, 1), A(0, 1, 1));
    IL(0, U8, I16, S0, 3, Z, 20480, A(16, 8, 6), A(16, 128), A(16, 3, 5), A(1, 8, 3), A(0, 5, 2));
    IL(0, U8, I16, S0, 3, Z, 22528 + 16, A(16, 8, 4), A(16, 128), A(16, 1, 1), A(1, 1, 1), A(0, 1, 1));
    IL(1, U8, I16, S0, 3, Z, 23552, A(16, 8, 4), A(16, 128), A(16, 1, 1), A(1, 1, 1), A(-4, 1, 1));
    IL(1, U8, I16, S0, 3, Z, 24576, A(16, 8, 4), A(16, 128), A(16, 1, 2), A(1, 1, 1), A(0, -1, 1));
    IL(1, F16, I16, S0, 3, Z, 25600, A(16, 8, 4), A(32, 256), A(16, 1, 2), A(2, 1, 1), A(4, 1, 1));
    IL(1, U8, I32, S0, 4, Z, 26624, A(32, 8, 4, 2), A(32, 256, 1024), A(32, 2, 2, 2), A(1, 1, 1, 1), A(0, 1, 3, 1));
#undef A
#undef IL
}

uint32_t hw_corpus_layout(hw_layout_case *out, uint32_t max)
{
    gen g = {out, 0, max};
    rng_state = 0x7A5C09E5ull;

    /* every data type: plain, 128B swizzle, and a box hanging over the edge */
    for (int t = 0; t < TM_DTYPE_COUNT; t++) {
        tm_dtype dt = (tm_dtype)t;
        int packed16 = dt == TM_DTYPE_16U4_ALIGN16B || dt == TM_DTYPE_16U6_ALIGN16B;
        uint32_t inner = packed16 ? 128 : elems(dt, 64);
        uint64_t dims[2] = {packed16 ? 256u : (uint64_t)elems(dt, 256), 40};
        uint32_t box[2] = {inner, 8};
        tm_desc d = mkdesc(dt, 2, dims, box, NULL, TM_SWIZZLE_NONE, TM_INTERLEAVE_NONE, 0);
        int32_t c0[2] = {(int32_t)inner, 3};
        add(&g, "dtype", 0, &d, c0, 0, 0);
        uint32_t box128[2] = {packed16 ? 128u : elems(dt, 128), 8};
        d = mkdesc(dt, 2, dims, box128, NULL, TM_SWIZZLE_128B, TM_INTERLEAVE_NONE, 0);
        add(&g, "dtype", 0, &d, c0, 1024, packed16 ? 32 : 0);
        int32_t c1[2] = {(int32_t)(dims[0] - inner / 2), 36};
        d = mkdesc(dt, 2, dims, box, NULL, TM_SWIZZLE_NONE, TM_INTERLEAVE_NONE, 0);
        add(&g, "dtype_oob", 0, &d, c1, 2048, 0);
        d.oob_fill = TM_OOB_FILL_NAN;
        add(&g, "dtype_oob_nan", 0, &d, c1, 4096, 0);
        d.oob_fill = TM_OOB_FILL_NONE;
        d.swizzle = TM_SWIZZLE_64B;
        d.box[0] = packed16 ? 128 : elems(dt, 64);
        add(&g, "dtype_store", 1, &d, c0, 0, 0);
    }

    /* ranks 1..5 under every non-atom swizzle */
    for (uint32_t rank = 1; rank <= 5; rank++)
        for (int sw = 0; sw <= 3; sw++)
            for (int k = 0; k < 2; k++) {
                tm_dtype dt = k ? TM_DTYPE_F32 : TM_DTYPE_F16;
                uint32_t span = sw ? swz_span[sw] : 64;
                uint64_t dims[5] = {(uint64_t)elems(dt, span) * 3, 9, 5, 4, 3};
                uint32_t box[5] = {elems(dt, span), 4, 3, 2, 2};
                tm_desc d = mkdesc(dt, rank, dims, box, NULL, (tm_swizzle)sw, TM_INTERLEAVE_NONE, k ? 16 : 0);
                int32_t c[5] = {(int32_t)(k ? elems(dt, span) : 0), 1, 1, 1, 0};
                add(&g, "rank", 0, &d, c, k ? 1024 : 0, 0);
                if (k)
                    add(&g, "rank_store", 1, &d, c, 2048, 0);
            }

    /* destination at every 128-byte offset of a 1024-byte block, every swizzle */
    for (int sw = 1; sw <= 3; sw++)
        for (uint32_t off = 0; off < 1024; off += 128)
            for (int k = 0; k < 3; k++) {
                tm_dtype dt = k == 1 ? TM_DTYPE_F32 : TM_DTYPE_F16;
                uint32_t row = k == 2 ? 16 : swz_span[sw];
                uint64_t dims[2] = {(uint64_t)elems(dt, 256), 64};
                uint32_t box[2] = {elems(dt, row), 16};
                tm_desc d = mkdesc(dt, 2, dims, box, NULL, (tm_swizzle)sw, TM_INTERLEAVE_NONE, 0);
                int32_t c[2] = {(int32_t)elems(dt, row), 5};
                add(&g, k == 2 ? "offset_narrow" : "offset128", 0, &d, c, 8192 + off, 0);
            }
    /* 16-byte aligned destinations that are not 128-aligned */
    for (int i = 0; i < 12; i++) {
        uint64_t dims[2] = {256, 64};
        uint32_t box[2] = {(1 + rn(8)) * 8, 1 + rn(16)};
        tm_desc d = mkdesc(TM_DTYPE_F16, 2, dims, box, NULL, TM_SWIZZLE_NONE, TM_INTERLEAVE_NONE, 0);
        int32_t c[2] = {(int32_t)(8 * rn(25)), (int32_t)rn(60)};
        add(&g, "offset16", i % 4 == 3, &d, c, 16384 + 16 * (1 + rn(63)) + (rn(2) ? 0 : 8 * 16), 0);
    }
    for (int sw = 1; sw <= 3; sw++)
        for (uint32_t off = 16; off < 128; off += 48) {
            uint64_t dims[2] = {256, 64};
            uint32_t box[2] = {swz_span[sw] / 2, 8};
            tm_desc d = mkdesc(TM_DTYPE_F16, 2, dims, box, NULL, (tm_swizzle)sw, TM_INTERLEAVE_NONE, 0);
            int32_t c[2] = {8, 2};
            add(&g, "offset16_swizzled", 0, &d, c, 20480 + off, 0);
        }

    /* rows narrower than the swizzle span */
    for (int sw = 1; sw <= 3; sw++)
        for (uint32_t row = 16; row < swz_span[sw]; row *= 2)
            for (int k = 0; k < 3; k++) {
                tm_dtype dt = k == 0 ? TM_DTYPE_U8 : k == 1 ? TM_DTYPE_BF16 : TM_DTYPE_F64;
                uint64_t dims[3] = {(uint64_t)elems(dt, 512), 33, 3};
                uint32_t box[3] = {elems(dt, row), 9 + (uint32_t)k * 4, 2};
                tm_desc d = mkdesc(dt, 3, dims, box, NULL, (tm_swizzle)sw, TM_INTERLEAVE_NONE, 0);
                int32_t c[3] = {(int32_t)elems(dt, row) * 3, 2, 1};
                add(&g, "narrow", 0, &d, c, 1024 * (1 + (uint32_t)k), 0);
                if (k == 1)
                    add(&g, "narrow_store", 1, &d, c, 4096, 0);
            }

    /* out of bounds: negative, beyond the end, wholly outside, every swizzle */
    for (int i = 0; i < 72; i++) {
        int sw = i % 4;
        tm_dtype dt = (i / 4) % 3 == 0 ? TM_DTYPE_F32 : (i / 4) % 3 == 1 ? TM_DTYPE_F16 : TM_DTYPE_S32;
        uint32_t rank = 2 + (uint32_t)(i % 3);
        uint32_t row = sw ? swz_span[sw] : 16 * (1 + rn(6));
        uint64_t dims[5] = {(uint64_t)elems(dt, row) + rn(3) * 4 + 4, 5 + rn(20), 2 + rn(4), 2, 2};
        uint32_t box[5] = {elems(dt, row), 1 + rn(12), 1 + rn(3), 2, 2};
        tm_desc d = mkdesc(dt, rank, dims, box, NULL, (tm_swizzle)sw, TM_INTERLEAVE_NONE, 16 * rn(2));
        if (dt != TM_DTYPE_S32 && i % 5 == 0)
            d.oob_fill = TM_OOB_FILL_NAN;
        int32_t c[5];
        for (uint32_t k = 0; k < rank; k++) {
            int32_t lo = -(int32_t)box[k] - 2, hi = (int32_t)dims[k] + 2;
            c[k] = lo + (int32_t)rn((uint32_t)(hi - lo));
        }
        if (i % 9 == 0)
            c[0] = -70000 - (int32_t)rn(1000); /* far outside */
        /* the hardware faults (illegal instruction) unless coords[0] * element size
         * is a multiple of 16 bytes: keep every 8th case unaligned to record the rule */
        if (i % 8 != 7)
            c[0] = align_c0(c[0], dt);
        add(&g, "oob", i % 6 == 5, &d, c, 1024 * (1 + rn(8)), 0);
    }

    /* element strides (dimension 0's is documented as ignored without interleave) */
    for (int i = 0; i < 44; i++) {
        tm_dtype dt = i % 2 ? TM_DTYPE_F16 : TM_DTYPE_U32;
        uint32_t rank = 2 + (uint32_t)(i % 3);
        uint64_t dims[4] = {(uint64_t)elems(dt, 128), 40, 17, 6};
        uint32_t box[4] = {elems(dt, 32 * (1 + rn(2))), 1 + rn(24), 1 + rn(9), 1 + rn(4)};
        uint32_t es[4] = {i % 7 == 0 ? 2u : 1u, 1 + rn(8), 1 + rn(8), 1 + rn(3)};
        int sw = i % 4 == 1 ? 2 : 0;
        if (sw)
            box[0] = elems(dt, 64);
        tm_desc d = mkdesc(dt, rank, dims, box, es, (tm_swizzle)sw, TM_INTERLEAVE_NONE, 0);
        int32_t c[4] = {0, (int32_t)rn(30) - 4, (int32_t)rn(10), 0};
        add(&g, "elem_strides", i % 11 == 10, &d, c, 1024 * rn(16), 0);
    }

    /* interleave 16B (any swizzle) and 32B (swizzle 32B), ranks 3..5 */
    for (int i = 0; i < 30; i++) {
        tm_interleave il = i % 3 == 2 ? TM_INTERLEAVE_32B : TM_INTERLEAVE_16B;
        int sw = il == TM_INTERLEAVE_32B ? 1 : i % 4;
        uint32_t rank = 3 + (uint32_t)(i % 3);
        tm_dtype dt = i % 2 ? TM_DTYPE_F16 : TM_DTYPE_U8;
        uint32_t chunk = il == TM_INTERLEAVE_32B ? 32 : 16;
        uint64_t dims[5] = {(uint64_t)elems(dt, chunk), 12 + rn(8), 6 + rn(4), 3, 2};
        uint32_t box[5] = {elems(dt, chunk), 2 + rn(10), 1 + rn(5), 2, 2};
        uint32_t es[5] = {1, 1 + rn(2), 1, 1, 1};
        tm_desc d = mkdesc(dt, rank, dims, box, es, (tm_swizzle)sw, il, 0);
        int32_t c[5] = {0, (int32_t)rn(14) - 2, (int32_t)rn(6), 0, 0};
        add(&g, "interleave", i % 10 == 9, &d, c, 1024 * (1 + rn(8)), il == TM_INTERLEAVE_32B ? 0 : 16 * rn(2));
    }

    /* the 128B atom swizzle modes: sm_100 and later only */
    for (int sw = 4; sw <= 6; sw++)
        for (int k = 0; k < 2; k++) {
            uint64_t dims[2] = {256, 32};
            uint32_t box[2] = {64, 8};
            tm_desc d = mkdesc(TM_DTYPE_F16, 2, dims, box, NULL, (tm_swizzle)sw, TM_INTERLEAVE_NONE, 0);
            int32_t c[2] = {0, 0};
            add(&g, "atom_swizzle", k, &d, c, 0, 0);
        }

    /* l2 promotion values (no effect on placement expected) */
    for (int l2 = 0; l2 < TM_L2_COUNT; l2++) {
        uint64_t dims[2] = {128, 32};
        uint32_t box[2] = {64, 8};
        tm_desc d = mkdesc(TM_DTYPE_F16, 2, dims, box, NULL, TM_SWIZZLE_128B, TM_INTERLEAVE_NONE, 0);
        d.l2_promotion = (tm_l2_promotion)l2;
        int32_t c[2] = {64, 3};
        add(&g, "l2_promotion", 0, &d, c, 3072, 0);
    }

    /* probes of rules found on the H100 (hw/README.md) */
    {
        static const uint64_t d0[] = {57, 59, 61, 100, 13};
        static const tm_dtype dt0[] = {TM_DTYPE_F16, TM_DTYPE_F16, TM_DTYPE_BF16, TM_DTYPE_U8, TM_DTYPE_F32};
        for (int i = 0; i < 5; i++) { /* store clipping in dimension 0 */
            uint64_t dims[2] = {d0[i], 4};
            uint32_t box[2] = {elems(dt0[i], 64), 2};
            tm_desc d = mkdesc(dt0[i], 2, dims, box, NULL, TM_SWIZZLE_NONE, TM_INTERLEAVE_NONE, 16);
            int32_t c[2] = {(int32_t)elems(dt0[i], 64), 1};
            add(&g, "rule_store_clip", 1, &d, c, 2048, 16 * (uint32_t)(i % 2));
            add(&g, "rule_store_clip_load", 0, &d, c, 2048, 16 * (uint32_t)(i % 2));
        }
        for (int i = 0; i < 6; i++) { /* stores: negative coordinate in one dimension */
            uint64_t dims[3] = {64, 16, 4};
            uint32_t box[3] = {16, 4, 2};
            tm_desc d = mkdesc(TM_DTYPE_F32, 3, dims, box, NULL, TM_SWIZZLE_NONE, TM_INTERLEAVE_NONE, 0);
            int32_t c[3] = {i == 0 ? -4 : i == 1 ? -16 : 4, i == 2 ? -1 : i == 3 ? -4 : 2, i == 4 ? -1 : 1};
            if (i == 5)
                c[0] = 60; /* past the upper end only */
            add(&g, "rule_store_negative", 1, &d, c, 4096, 0);
        }
        for (int i = 0; i < 10; i++) { /* elementStrides[0] without interleave */
            tm_dtype dt = i % 2 ? TM_DTYPE_F16 : TM_DTYPE_U32;
            uint64_t dims[2] = {(uint64_t)elems(dt, 256), 32};
            uint32_t es0 = 2u << (i % 3);
            uint32_t box[2] = {elems(dt, 16u << (i % 3)), 1 + (uint32_t)i};
            uint32_t es[2] = {es0, 1};
            tm_desc d = mkdesc(dt, 2, dims, box, es, TM_SWIZZLE_NONE, TM_INTERLEAVE_NONE, 0);
            int32_t c[2] = {0, (int32_t)i};
            add(&g, "rule_elem_stride0", 0, &d, c, 1024, 0);
        }
    }

    /* random mix to the end: valid-looking parameters, some out of bounds */
    static const tm_dtype mix[] = {TM_DTYPE_U8, TM_DTYPE_U16, TM_DTYPE_F16, TM_DTYPE_BF16, TM_DTYPE_F32, TM_DTYPE_U64, TM_DTYPE_F64};
    while (g.n < 600 && g.n < max) {
        tm_dtype dt = mix[rn(sizeof mix / sizeof mix[0])];
        int sw = (int)rn(4);
        uint32_t rank = 1 + rn(5);
        uint32_t eb = dtype_bits[dt] / 8;
        uint32_t row = sw ? 16u * (1 + rn(swz_span[sw] / 16)) : 16u * (1 + rn(12));
        uint64_t dims[5];
        uint32_t box[5], es[5];
        dims[0] = row / eb + rn(64);
        box[0] = row / eb;
        es[0] = 1;
        for (uint32_t k = 1; k < 5; k++) {
            dims[k] = 1 + rn(12);
            box[k] = 1 + rn(k == 1 ? 16 : 3);
            es[k] = rn(4) == 0 ? 1 + rn(4) : 1;
        }
        tm_desc d = mkdesc(dt, rank, dims, box, es, (tm_swizzle)sw, TM_INTERLEAVE_NONE, 16 * rn(3));
        if (hw_dense_box_bytes(&d) * 4 > 32768)
            continue;
        int32_t c[5];
        for (uint32_t k = 0; k < 5; k++)
            c[k] = (int32_t)rn((uint32_t)dims[k] + 4) - 2;
        if (g.n % 8 != 7)
            c[0] = align_c0(c[0], dt);
        /* destinations must be 128-byte aligned (16-aligned ones fault): a few stay 16-aligned */
        uint32_t off = sw ? 1024 * rn(32) + 128 * rn(8) : (g.n % 10 == 9 ? 16 * rn(2048) : 128 * rn(256));
        add(&g, "random", rn(5) == 0, &d, c, off, 16 * rn(4));
    }

    /* Interleave probes, appended after the 600 cases above so that their ids stay put.
     * The first recording (loads 373-401, stores 382 392 402) always had
     * boxDim[0] * element size = dims[0] * element size = globalStrides[0] = the
     * interleave granule and coords[0] = 0, which leaves open: how many granules a row
     * holds and how far apart they are in global memory, what coords[0] counts, the
     * bounds of dimension 0, elementStrides[0], the dimension rank-2 that no recorded
     * copy traversed, OOB and NaN fill, swizzles on top, 32B interleave with other
     * swizzles, and stores. One case per question (hw/README.md, rule 8). */
    il_cases(&g);
    return g.n;
}

/* ------------------------------------------------------------------ encoder */

uint32_t hw_corpus_encode(hw_encode_case *out, uint32_t max)
{
    uint32_t n = 0;
    tm_desc base;
    {
        uint64_t dims[3] = {128, 64, 4};
        uint32_t box[3] = {64, 8, 2};
        base = mkdesc(TM_DTYPE_F16, 3, dims, box, NULL, TM_SWIZZLE_128B, TM_INTERLEAVE_NONE, 0);
    }
#define PROBE(rule_, accept_, misalign_, ...)                                  \
    do {                                                                      \
        if (n < max) {                                                        \
            hw_encode_case *c_ = &out[n];                                     \
            memset(c_, 0, sizeof *c_);                                        \
            c_->id = n;                                                       \
            c_->rule = rule_;                                                 \
            c_->expect_accept = accept_;                                      \
            c_->global_misalign = misalign_;                                  \
            tm_desc d = base;                                                 \
            __VA_ARGS__;                                                      \
            c_->desc = d;                                                     \
            n++;                                                              \
        }                                                                     \
    } while (0)

    PROBE("baseline", 1, 0, (void)0);
    /* rank */
    PROBE("rank", 0, 0, d.rank = 0);
    PROBE("rank", 1, 0, d.rank = 1; d.box[0] = 64);
    PROBE("rank", 1, 0, d.rank = 5; d.dims[3] = 2; d.dims[4] = 2; d.box[3] = 1; d.box[4] = 2; d.elem_strides[3] = 1;
          d.elem_strides[4] = 1; d.strides[2] = d.strides[1] * 4; d.strides[3] = d.strides[2] * 2);
    PROBE("rank", 0, 0, d.rank = 6);
    /* global address */
    PROBE("global_address_16", 1, 16, (void)0);
    PROBE("global_address_16", 0, 8, (void)0);
    PROBE("global_address_16", 0, 4, (void)0);
    PROBE("global_address_32_interleave32", 0, 16, d.interleave = TM_INTERLEAVE_32B; d.swizzle = TM_SWIZZLE_32B;
          d.box[0] = 16);
    PROBE("global_address_32_interleave32", 1, 32, d.interleave = TM_INTERLEAVE_32B; d.swizzle = TM_SWIZZLE_32B;
          d.box[0] = 16);
    PROBE("global_address_128_swizzle", 1, 48, (void)0);
    /* global dims */
    PROBE("dims_nonzero", 0, 0, d.dims[1] = 0);
    PROBE("dims_max", 1, 0, d.dims[2] = 1ull << 32; d.strides[1] = 256);
    PROBE("dims_max", 0, 0, d.dims[2] = (1ull << 32) + 1; d.strides[1] = 256);
    PROBE("dims_max", 1, 0, d.dims[0] = 1ull << 32; d.strides[0] = 1ull << 33; d.strides[1] = 1ull << 36);
    /* strides */
    PROBE("stride_multiple_16", 0, 0, d.strides[0] = 264);
    PROBE("stride_multiple_16", 0, 0, d.strides[1] = 8 * 256 + 8);
    PROBE("stride_multiple_16", 1, 0, d.strides[0] = 272);
    PROBE("stride_max", 1, 0, d.strides[1] = (1ull << 40) - 16);
    PROBE("stride_max", 0, 0, d.strides[1] = 1ull << 40);
    PROBE("stride_smaller_than_row", 1, 0, d.strides[0] = 16);
    PROBE("stride_zero", 0, 0, d.strides[0] = 0);
    PROBE("stride_interleave32_multiple_32", 0, 0, d.interleave = TM_INTERLEAVE_32B; d.swizzle = TM_SWIZZLE_32B;
          d.box[0] = 16; d.strides[0] = 272);
    PROBE("stride_interleave32_multiple_32", 1, 0, d.interleave = TM_INTERLEAVE_32B; d.swizzle = TM_SWIZZLE_32B;
          d.box[0] = 16; d.strides[0] = 288);
    /* box */
    PROBE("box_nonzero", 0, 0, d.box[1] = 0);
    PROBE("box_max", 1, 0, d.box[1] = 256; d.dims[1] = 300);
    PROBE("box_max", 0, 0, d.box[1] = 257; d.dims[1] = 300);
    PROBE("box_max", 0, 0, d.box[0] = 512; d.swizzle = TM_SWIZZLE_NONE; d.dims[0] = 1024; d.strides[0] = 2048;
          d.strides[1] = 2048 * 64);
    PROBE("box_max", 1, 0, d.box[0] = 256; d.swizzle = TM_SWIZZLE_NONE; d.dims[0] = 1024; d.strides[0] = 2048;
          d.strides[1] = 2048 * 64);
    PROBE("box_inner_multiple_16", 0, 0, d.box[0] = 12);
    PROBE("box_inner_multiple_16", 1, 0, d.box[0] = 8);
    PROBE("box_inner_multiple_16", 0, 0, d.box[0] = 4; d.swizzle = TM_SWIZZLE_NONE);
    PROBE("box_inner_multiple_16", 0, 0, d.dtype = TM_DTYPE_U8; d.box[0] = 24; d.swizzle = TM_SWIZZLE_NONE);
    PROBE("box_inner_multiple_16_interleave_exempt", 1, 0, d.interleave = TM_INTERLEAVE_16B; d.swizzle = TM_SWIZZLE_NONE;
          d.box[0] = 4);
    PROBE("box_inner_le_span", 0, 0, d.box[0] = 72);
    PROBE("box_inner_le_span", 1, 0, d.box[0] = 64);
    PROBE("box_inner_le_span", 0, 0, d.swizzle = TM_SWIZZLE_64B; d.box[0] = 40);
    PROBE("box_inner_le_span", 1, 0, d.swizzle = TM_SWIZZLE_64B; d.box[0] = 32);
    PROBE("box_inner_le_span", 0, 0, d.swizzle = TM_SWIZZLE_32B; d.box[0] = 24);
    PROBE("box_inner_le_span", 1, 0, d.swizzle = TM_SWIZZLE_32B; d.box[0] = 16);
    PROBE("box_inner_le_span_interleave", 1, 0, d.interleave = TM_INTERLEAVE_16B; d.swizzle = TM_SWIZZLE_32B;
          d.box[0] = 8);
    PROBE("box_inner_le_span_interleave", 1, 0, d.interleave = TM_INTERLEAVE_16B; d.swizzle = TM_SWIZZLE_32B;
          d.box[0] = 64);
    PROBE("box_larger_than_dims", 1, 0, d.dims[1] = 4; d.box[1] = 8);
    /* element strides */
    PROBE("elem_strides_range", 0, 0, d.elem_strides[1] = 0);
    PROBE("elem_strides_range", 1, 0, d.elem_strides[1] = 8);
    PROBE("elem_strides_range", 0, 0, d.elem_strides[1] = 9);
    PROBE("elem_strides_range", 0, 0, d.elem_strides[0] = 0);
    PROBE("elem_strides_dim0", 1, 0, d.elem_strides[0] = 2);
    PROBE("elem_strides_dim0", 0, 0, d.elem_strides[0] = 9);
    /* interleave */
    PROBE("interleave_rank_ge_3", 0, 0, d.rank = 2; d.interleave = TM_INTERLEAVE_16B; d.swizzle = TM_SWIZZLE_NONE;
          d.box[0] = 8);
    PROBE("interleave_rank_ge_3", 1, 0, d.interleave = TM_INTERLEAVE_16B; d.swizzle = TM_SWIZZLE_NONE; d.box[0] = 8);
    PROBE("interleave32_needs_swizzle32", 0, 0, d.interleave = TM_INTERLEAVE_32B; d.swizzle = TM_SWIZZLE_NONE;
          d.box[0] = 16);
    PROBE("interleave32_needs_swizzle32", 0, 0, d.interleave = TM_INTERLEAVE_32B; d.swizzle = TM_SWIZZLE_128B;
          d.box[0] = 16);
    PROBE("interleave32_needs_swizzle32", 1, 0, d.interleave = TM_INTERLEAVE_32B; d.swizzle = TM_SWIZZLE_32B;
          d.box[0] = 16);
    PROBE("interleave16_any_swizzle", 1, 0, d.interleave = TM_INTERLEAVE_16B; d.swizzle = TM_SWIZZLE_128B; d.box[0] = 8);
    PROBE("interleave_enum", 0, 0, d.interleave = (tm_interleave)3);
    /* swizzle */
    PROBE("swizzle_enum", 0, 0, d.swizzle = (tm_swizzle)7);
    PROBE("swizzle_atom_sm100", 0, 0, d.swizzle = TM_SWIZZLE_128B_ATOM_32B);
    PROBE("swizzle_atom_sm100", 0, 0, d.swizzle = TM_SWIZZLE_128B_ATOM_32B_FLIP_8B);
    PROBE("swizzle_atom_sm100", 0, 0, d.swizzle = TM_SWIZZLE_128B_ATOM_64B);
    /* dtype / oob fill / l2 */
    PROBE("dtype_enum", 0, 0, d.dtype = (tm_dtype)16);
    PROBE("oob_nan_float_only", 1, 0, d.oob_fill = TM_OOB_FILL_NAN);
    PROBE("oob_nan_float_only", 0, 0, d.dtype = TM_DTYPE_S32; d.box[0] = 32; d.oob_fill = TM_OOB_FILL_NAN);
    PROBE("oob_nan_float_only", 0, 0, d.dtype = TM_DTYPE_U8; d.box[0] = 128; d.oob_fill = TM_OOB_FILL_NAN);
    PROBE("oob_nan_float_only", 1, 0, d.dtype = TM_DTYPE_TF32; d.box[0] = 32; d.oob_fill = TM_OOB_FILL_NAN);
    PROBE("oob_enum", 0, 0, d.oob_fill = (tm_oob_fill)2);
    PROBE("l2_enum", 1, 0, d.l2_promotion = TM_L2_256B);
    PROBE("l2_enum", 0, 0, d.l2_promotion = (tm_l2_promotion)4);
    /* packed types */
    PROBE("packed_u4a8_dim0_even", 1, 0, d.dtype = TM_DTYPE_16U4_ALIGN8B; d.dims[0] = 256; d.box[0] = 128;
          d.swizzle = TM_SWIZZLE_NONE);
    PROBE("packed_u4a8_dim0_even", 0, 0, d.dtype = TM_DTYPE_16U4_ALIGN8B; d.dims[0] = 255; d.box[0] = 128;
          d.swizzle = TM_SWIZZLE_NONE);
    PROBE("packed_a16_dim0_128", 1, 32, d.dtype = TM_DTYPE_16U4_ALIGN16B; d.dims[0] = 256; d.box[0] = 128;
          d.swizzle = TM_SWIZZLE_NONE);
    PROBE("packed_a16_dim0_128", 0, 32, d.dtype = TM_DTYPE_16U4_ALIGN16B; d.dims[0] = 192; d.box[0] = 128;
          d.swizzle = TM_SWIZZLE_NONE);
    PROBE("packed_a16_box0_128", 0, 32, d.dtype = TM_DTYPE_16U6_ALIGN16B; d.dims[0] = 256; d.box[0] = 64;
          d.swizzle = TM_SWIZZLE_NONE);
    PROBE("packed_a16_global_32", 0, 16, d.dtype = TM_DTYPE_16U6_ALIGN16B; d.dims[0] = 256; d.box[0] = 128;
          d.swizzle = TM_SWIZZLE_NONE);
    PROBE("packed_a16_stride_32", 0, 32, d.dtype = TM_DTYPE_16U6_ALIGN16B; d.dims[0] = 256; d.box[0] = 128;
          d.swizzle = TM_SWIZZLE_NONE; d.strides[0] = 272);
    PROBE("packed_u6_swizzle", 0, 32, d.dtype = TM_DTYPE_16U6_ALIGN16B; d.dims[0] = 256; d.box[0] = 128;
          d.swizzle = TM_SWIZZLE_64B);
    PROBE("packed_u6_swizzle", 1, 32, d.dtype = TM_DTYPE_16U6_ALIGN16B; d.dims[0] = 256; d.box[0] = 128;
          d.swizzle = TM_SWIZZLE_128B);
    PROBE("packed_u6_interleave", 0, 32, d.dtype = TM_DTYPE_16U6_ALIGN16B; d.dims[0] = 256; d.box[0] = 128;
          d.swizzle = TM_SWIZZLE_NONE; d.interleave = TM_INTERLEAVE_16B);
    PROBE("packed_u4a16_swizzle", 0, 32, d.dtype = TM_DTYPE_16U4_ALIGN16B; d.dims[0] = 256; d.box[0] = 128;
          d.swizzle = TM_SWIZZLE_32B);
    PROBE("packed_nan", 0, 0, d.dtype = TM_DTYPE_16U4_ALIGN8B; d.dims[0] = 256; d.box[0] = 128;
          d.swizzle = TM_SWIZZLE_NONE; d.oob_fill = TM_OOB_FILL_NAN);
    /* each data type at its own 16-byte inner box */
    for (int t = 0; t < 13; t++) {
        PROBE("dtype_each", 1, 0, d.dtype = (tm_dtype)t; d.box[0] = 128 / (dtype_bits[t] / 8); d.dims[0] = 256;
              d.strides[0] = 256 * (dtype_bits[t] / 8); d.strides[1] = d.strides[0] * 64);
    }
#undef PROBE
    return n;
}

/* ------------------------------------------------------------------ bank */

static void bi_set(bank_instr *b, bank_op op, int trans)
{
    memset(b, 0, sizeof *b);
    b->op = op;
    b->trans = trans;
}

uint32_t hw_corpus_bank(bank_instr *out, uint32_t max)
{
    uint32_t n = 0;
    rng_state = 0xBA4Cull;
#define EMIT() do { if (n < max) n++; } while (0)
    static const bank_op ldst[] = {BANK_OP_LDS32, BANK_OP_LDS64, BANK_OP_LDS128,
                                   BANK_OP_STS32, BANK_OP_STS64, BANK_OP_STS128};
    /* ld/st: stride-k in units of the access width, broadcast, duplicates, random */
    for (int oi = 0; oi < 6; oi++) {
        bank_op op = ldst[oi];
        uint32_t w = bank_op_access_bytes(op);
        static const uint32_t strides[] = {0, 1, 2, 3, 4, 8, 16, 17, 32, 33};
        for (size_t s = 0; s < sizeof strides / sizeof strides[0]; s++) {
            if (n >= max) break;
            bank_instr *b = &out[n];
            bi_set(b, op, 0);
            for (int l = 0; l < 32; l++)
                b->addr[l] = (uint32_t)l * strides[s] * w;
            EMIT();
        }
        /* stride in 4-byte words for wide accesses (e.g. 64-bit at 4-word stride) */
        for (uint32_t k = 2; k <= 8 && n < max; k *= 2) {
            bank_instr *b = &out[n];
            bi_set(b, op, 0);
            for (int l = 0; l < 32; l++)
                b->addr[l] = (uint32_t)l * k * 4 / w * w + 1024;
            EMIT();
        }
        /* duplicate patterns: pairs, quads, halves, every lane of a group on one address */
        static const uint32_t groups[] = {2, 4, 8, 16};
        for (size_t gi = 0; gi < 4; gi++) {
            for (int variant = 0; variant < (w > 4 ? 4 : 2) && n < max; variant++) {
                bank_instr *b = &out[n];
                bi_set(b, op, 0);
                for (int l = 0; l < 32; l++) {
                    uint32_t grp = (uint32_t)l / groups[gi];
                    uint32_t a;
                    switch (variant) {
                    case 0: a = grp * w; break;                          /* consecutive distinct */
                    case 1: a = grp * 128; break;                        /* groups collide in bank 0 */
                    case 2: a = ((uint32_t)l % groups[gi]) * w; break;   /* interleaved duplicates */
                    default: a = (grp * 3 % 8) * w + (grp / 8) * 256; break;
                    }
                    b->addr[l] = a;
                }
                EMIT();
            }
        }
        /* random addresses within a small range (many duplicates) and a large one */
        int nrand = w > 4 ? 24 : 10;
        for (int r = 0; r < nrand && n < max; r++) {
            bank_instr *b = &out[n];
            bi_set(b, op, 0);
            uint32_t range = r % 3 == 0 ? 8 : r % 3 == 1 ? 64 : 2048;
            for (int l = 0; l < 32; l++)
                b->addr[l] = rn(range) * w;
            EMIT();
        }
        /* half the warp broadcast, half strided */
        if (n < max) {
            bank_instr *b = &out[n];
            bi_set(b, op, 0);
            for (int l = 0; l < 32; l++)
                b->addr[l] = l < 16 ? 512 : (uint32_t)l * w * 2;
            EMIT();
        }
    }
    /* matrix ops: rows of a 128B-swizzled tile, padded tile, unpadded tile, duplicates */
    static const bank_op mops[] = {BANK_OP_LDSM_X1, BANK_OP_LDSM_X2, BANK_OP_LDSM_X4,
                                   BANK_OP_STSM_X1, BANK_OP_STSM_X2, BANK_OP_STSM_X4};
    for (int oi = 0; oi < 6; oi++)
        for (int trans = 0; trans < 2; trans++) {
            bank_op op = mops[oi];
            for (int pat = 0; pat < 9 && n < max; pat++) {
                bank_instr *b = &out[n];
                bi_set(b, op, trans);
                for (int l = 0; l < 32; l++) {
                    uint32_t m = (uint32_t)l / 8, r = (uint32_t)l % 8, a;
                    switch (pat) {
                    case 0: a = (m * 8 + r) * 128; break;                               /* 64 f16 per row, unpadded */
                    case 1: a = (m * 8 + r) * 144; break;                               /* padded by 16 B */
                    case 2: { uint32_t x = (m * 8 + r) * 128 + (m % 2) * 16;            /* 128B swizzle */
                              a = x ^ (((x >> 7) & 7) << 4); } break;
                    case 3: a = (m * 8 + r) * 16; break;                                /* contiguous */
                    case 4: a = r * 16; break;                                          /* all matrices the same */
                    case 5: a = m * 128; break;                                         /* rows of a matrix identical */
                    case 6: a = (m * 8 + r) * 64; break;                                /* 2-way */
                    case 7: a = ((m * 8 + r) * 128) ^ ((r & 3) << 4); break;            /* partial swizzle */
                    default: a = rn(128) * 16; break;                                   /* random rows */
                    }
                    b->addr[l] = a;
                }
                EMIT();
            }
        }
    /* more random wide accesses with duplicates (where phase rules mispredict) */
    while (n < 420 && n < max) {
        bank_op op = ldst[rn(6)];
        uint32_t w = bank_op_access_bytes(op);
        if (w == 4 && rn(2))
            continue;
        bank_instr *b = &out[n];
        bi_set(b, op, 0);
        uint32_t distinct = 1 + rn(12);
        uint32_t pool[12];
        for (uint32_t i = 0; i < distinct; i++)
            pool[i] = rn(64) * w;
        for (int l = 0; l < 32; l++)
            b->addr[l] = pool[rn(distinct)];
        EMIT();
    }
#undef EMIT
    return n;
}
