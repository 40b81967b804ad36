/* The single-process update loop of single, star and ceiling, in two forms.
 *
 * plain: HPCC's definition, one generator, the index from its bits, one XOR;
 * the out-of-order core overlaps as many misses as its window holds.
 *
 * prefetch: software-pipelined. Each update's word is prefetched when the
 * update is generated and XORed `ahead` updates later, so `ahead` misses are
 * always in flight, far more than the core's window finds in the plain loop
 * (bench/ra_ceiling: 2.3x on 2 ranks of a Zen 5). The `ahead` updates
 * between generation and XOR are the loop's look-ahead, so `ahead` never
 * exceeds --lookahead, and the order of XORs within the stream is the
 * generation order: the table ends bit for bit as the plain loop leaves it. */
#include "hpcprobe/record.h"
#include "ra.h"

/* Where a value lands: a power-of-two table (HPCC's low bits of the shift
 * register, high bits of the LCG), or a part of `count` words scaled with a
 * multiply (the ceiling's parts when P is not a power of two). */
enum index_kind { INDEX_MASK, INDEX_SHIFT, INDEX_SCALE };

struct place {
    enum index_kind kind;
    uint64_t mask, count;
    int shift;
};

static inline __attribute__((always_inline)) uint64_t word_of(const struct place *w, uint64_t r)
{
    __extension__ typedef unsigned __int128 u128;
    if (w->kind == INDEX_MASK)
        return r & w->mask;
    if (w->kind == INDEX_SHIFT)
        return r >> w->shift;
    return (uint64_t)(((u128)r * w->count) >> 64);
}

static inline __attribute__((always_inline)) void plain_loop(uint64_t *restrict t,
                                                             const struct place *w, enum ra_rng rng,
                                                             uint64_t *state, uint64_t n)
{
    uint64_t r = *state;
    for (uint64_t i = 0; i < n; i++) {
        r = ra_next(rng, r);
        t[word_of(w, r)] ^= r;
    }
    *state = r;
}

/* The ring holds the values generated but not yet applied; `ahead` is a
 * power of two <= RA_PREFETCH_AHEAD, so slot i & (ahead - 1) is free again
 * once update i - ahead is applied. */
static inline __attribute__((always_inline)) void prefetch_loop(uint64_t *restrict t,
                                                                const struct place *w,
                                                                enum ra_rng rng, uint64_t *state,
                                                                uint64_t n, unsigned ahead)
{
    uint64_t ring[RA_PREFETCH_AHEAD];
    const uint64_t slot = ahead - 1, head = n < ahead ? n : ahead;
    uint64_t r = *state;
    for (uint64_t i = 0; i < head; i++) {
        r = ra_next(rng, r);
        ring[i] = r;
        __builtin_prefetch(&t[word_of(w, r)], 1, 0);
    }
    for (uint64_t i = head; i < n; i++) {
        uint64_t due = ring[i & slot];
        r = ra_next(rng, r);
        ring[i & slot] = r;
        __builtin_prefetch(&t[word_of(w, r)], 1, 0);
        t[word_of(w, due)] ^= due;
    }
    for (uint64_t i = n - head; i < n; i++) {
        uint64_t due = ring[i & slot];
        t[word_of(w, due)] ^= due;
    }
    *state = r;
}

static inline __attribute__((always_inline)) void fixed_chunk(uint64_t *t, struct place w,
                                                              enum index_kind kind, enum ra_rng rng,
                                                              uint64_t *state, uint64_t n,
                                                              unsigned ahead)
{
    w.kind = kind;
    if (ahead)
        prefetch_loop(t, &w, rng, state, n, ahead);
    else
        plain_loop(t, &w, rng, state, n);
}

/* One chunk with the generator and the index kind fixed, so that each
 * specialisation compiles to a loop without branches on either. */
static void chunk(uint64_t *t, const struct place *w, enum ra_rng rng, uint64_t *state, uint64_t n,
                  unsigned ahead)
{
    if (rng == RA_RNG_POLY && w->kind == INDEX_MASK)
        fixed_chunk(t, *w, INDEX_MASK, RA_RNG_POLY, state, n, ahead);
    else if (rng == RA_RNG_LCG && w->kind == INDEX_SHIFT)
        fixed_chunk(t, *w, INDEX_SHIFT, RA_RNG_LCG, state, n, ahead);
    else if (rng == RA_RNG_POLY)
        fixed_chunk(t, *w, INDEX_SCALE, RA_RNG_POLY, state, n, ahead);
    else
        fixed_chunk(t, *w, INDEX_SCALE, RA_RNG_LCG, state, n, ahead);
}

unsigned ra_serial_ahead(enum ra_loop loop, int lookahead)
{
    return loop == RA_LOOP_PLAIN ? 0 : ra_prefetch_depth(lookahead);
}

uint64_t ra_update_serial(uint64_t *table, uint64_t words, enum ra_rng rng, unsigned ahead,
                          uint64_t pos, uint64_t n, double time_limit_s)
{
    struct place w = {.kind = INDEX_SCALE, .count = words};
    if ((words & (words - 1)) == 0) {
        int log2 = __builtin_ctzll(words);
        w.kind = rng == RA_RNG_POLY ? INDEX_MASK : INDEX_SHIFT;
        w.mask = words - 1;
        w.shift = 64 - log2; /* log2 >= 4: the driver checks */
    }
    /* With a time limit, check the clock between chunks, never per update. */
    const uint64_t step = time_limit_s > 0 ? (1u << 20) : n;
    uint64_t state = ra_rng_jump(rng, pos), done = 0;
    double t0 = MPI_Wtime();
    while (done < n) {
        uint64_t m = n - done < step ? n - done : step;
        chunk(table, &w, rng, &state, m, ahead);
        done += m;
        if (time_limit_s > 0 && MPI_Wtime() - t0 > time_limit_s)
            break;
    }
    return done;
}

void ra_serial_record_params(struct hpcp_record *r, const struct ra_params *p)
{
    hpcp_record_param_string(r, "update_loop", ra_loop_name(p->loop));
    hpcp_record_param_int(r, "prefetch_ahead", ra_serial_ahead(p->loop, p->lookahead));
}
