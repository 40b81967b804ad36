/* The hypercube's split loops, where every update of a tick passes: its
 * batch generated and sorted into the stage's lists and, pipelined, each
 * update fed on to the prefetching applier. Static, and included by
 * ra_mpi_hypercube.c alone: the loops are compiled in one translation unit
 * with the tick that calls them, so they inline into it as they were
 * measured (a file of their own would put a call in every tick's path). */
#ifndef HPCPROBE_RA_MPI_HYPERCUBE_SPLIT_H
#define HPCPROBE_RA_MPI_HYPERCUBE_SPLIT_H
#include <string.h>

#include "ra_mpi_hypercube.h"

/* Room in every output for all of `n` more words, and SPARE beyond. -1 when
 * out of memory. */
static int reserve_outputs(struct list *a, struct list *b, struct list *c, size_t n)
{
    return ra_reserve(&a->v, &a->cap, a->n + n + SPARE) |
           ra_reserve(&b->v, &b->cap, b->n + n + SPARE) |
           ra_reserve(&c->v, &c->cap, c->n + n + SPARE);
}

/* Sort n updates into mine (owned here; only when `apart`), keep (owned in
 * this half) and send (owned in the other half): those of `in`, or when it
 * is NULL the next n of the stream at *rng_state, generated here rather
 * than in a pass of their own. Branch-free: each value is written to all
 * three and only one count advances, because which list a random update
 * joins cannot be predicted. */
static inline __attribute__((always_inline)) void
split_lists(const struct ra_state *s, int keeps, const struct stage *st, int me, int apart,
            const uint64_t *in, uint64_t *rng_state, size_t n, struct list *mine, struct list *keep,
            struct list *send)
{
    uint64_t *pm = mine->v + mine->n, *pk = keep->v + keep->n, *ps = send->v + send->n;
    uint64_t r = rng_state ? *rng_state : 0;
    enum ra_rng rng = s->p.rng;
    int log2 = s->p.table_log2;
    for (size_t i = 0; i < n; i++) {
        uint64_t v = in ? in[i] : (r = ra_next(rng, r));
        uint64_t g = ra_index(rng, v, log2);
        int o = ra_dist_owner(&s->dist, g);
        int m = apart & (o == me);
        int k = keeps && !m && ((o >= st->mid) == st->upper);
        *pm = v;
        if (keeps)
            *pk = v;
        *ps = v;
        pm += m;
        pk += k;
        ps += !m & !k;
    }
    if (rng_state)
        *rng_state = r;
    mine->n = (size_t)(pm - mine->v);
    keep->n = (size_t)(pk - keep->v);
    send->n = (size_t)(ps - send->v);
}

/* Without a keep-list where nothing can be kept (this rank alone in its
 * half, and what it owns apart): a store fewer per update, which measured
 * a fifth of the 2-rank rate. */
static void split(const struct ra_state *s, const struct stage *st, int me, int apart,
                  const uint64_t *in, uint64_t *rng_state, size_t n, struct list *mine,
                  struct list *keep, struct list *send)
{
    if (apart && st->alone)
        split_lists(s, 0, st, me, apart, in, rng_state, n, mine, keep, send);
    else
        split_lists(s, 1, st, me, apart, in, rng_state, n, mine, keep, send);
}

/* The applier's ring and its cursors, as locals of the loop that feeds it.
 * `mask` gives a value's index in the table; `part_mask`, where the owner
 * is a shift, its word in this rank's part: the part is a power of two of
 * words starting at a multiple of it, so one AND instead of AND, subtract. */
struct feed {
    uint64_t *queue, *t, *ring, joined, slot, mask, part_mask, first;
    size_t next;
    enum ra_rng rng;
    int log2;
};

static inline __attribute__((always_inline)) uint64_t *fed_word(const struct feed *f, int fast,
                                                                uint64_t v)
{
    return fast ? &f->t[v & f->part_mask] : ra_part_word(f->t, f->first, f->rng, f->log2, v);
}

/* Pass the next queued update to the applier: prefetch its word, and XOR
 * the one that joined `depth` updates ago. The caller knows one is queued. */
static inline __attribute__((always_inline)) void feed_next(struct feed *f, int fast)
{
    uint64_t x = f->queue[f->next++], *cell = &f->ring[f->joined++ & f->slot], due = *cell;
    *cell = x;
    __builtin_prefetch(fed_word(f, fast, x), 1, 0);
    *fed_word(f, fast, due) ^= due;
}

/* feed_next, if an update is queued before queued_end. */
static inline __attribute__((always_inline)) void feed_one(struct feed *f, int fast,
                                                           const uint64_t *queued_end)
{
    if (f->next < (size_t)(queued_end - f->queue))
        feed_next(f, fast);
}

#if defined(__AVX512F__)
#include <immintrin.h>
/* Eight consecutive values of HPCC's shift register, each moved on eight
 * steps: v x^8 mod x^64 + x^2 + x + 1, i.e. v << 8 with the top byte t
 * folded back as t (x^2 + x + 1) (degree < 10: no further reduction). */
static inline __m512i poly_step8(__m512i v)
{
    __m512i top = _mm512_srli_epi64(v, 56);
    __m512i fold = _mm512_xor_si512(
        top, _mm512_xor_si512(_mm512_slli_epi64(top, 1), _mm512_slli_epi64(top, 2)));
    return _mm512_xor_si512(_mm512_slli_epi64(v, 8), fold);
}

/* split_feeding's loop eight updates at a time, where nothing is kept and
 * the owner is a shift: generation and the split into mine and send in
 * vector registers (compressed, then stored whole: the lists have 8 words
 * to spare), the eight feeds scalar. Returns the updates done (a multiple
 * of 8); *r is then the last value generated. */
static size_t split_feeding8(struct feed *f, uint64_t *r, size_t n, int me, int shift,
                             uint64_t **pm, uint64_t **ps)
{
    uint64_t first[8], last[8];
    if (n < 8)
        return 0;
    for (int l = 0; l < 8; l++)
        first[l] = *r = ra_next_poly(*r);
    __m512i v = _mm512_loadu_si512(first);
    const __m512i mask = _mm512_set1_epi64((long long)f->mask), mine = _mm512_set1_epi64(me);
    const __m512i by = _mm512_set1_epi64(shift);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        if (i)
            v = poly_step8(v);
        __m512i owner = _mm512_srlv_epi64(_mm512_and_si512(v, mask), by);
        __mmask8 m = _mm512_cmpeq_epi64_mask(owner, mine);
        _mm512_storeu_si512(*pm, _mm512_maskz_compress_epi64(m, v));
        _mm512_storeu_si512(*ps, _mm512_maskz_compress_epi64((__mmask8)~m, v));
        *pm += __builtin_popcount(m);
        *ps += 8 - __builtin_popcount(m);
        if (f->next + 8 <= (size_t)(*pm - f->queue)) /* the usual case: one test for eight */
            for (int l = 0; l < 8; l++)
                feed_next(f, 1);
        else
            for (int l = 0; l < 8; l++)
                feed_one(f, 1, *pm);
    }
    _mm512_storeu_si512(last, v);
    *r = last[7];
    return i;
}
#endif

/* The pipelined form's stage 0: generate n updates and split them as
 * split() does, and with each one pass the next of mine (from *fed on: the
 * arrivals queued at the tick's start, then this batch's own) to the
 * applier, whose ring is full. The table's misses then overlap the split's
 * work instead of waiting for it. Everything the loop reads is a local: a
 * store through a uint64_t pointer could otherwise change a struct's
 * uint64_t field, and the compiler would read it again after every store.
 * `fast` (HPCC's shift register on a power-of-two distribution: the owner a
 * shift) and `keeps` (as in split) are fixed at compile time. Together
 * these measured 1.5x. */
static inline __attribute__((always_inline)) void
split_feeding(const struct ra_state *s, int fast, int keeps, const struct stage *st, int me,
              uint64_t *rng_state, size_t n, struct list *mine, struct list *keep,
              struct list *send, struct ra_applier *a, size_t *fed)
{
    uint64_t ring[RA_PREFETCH_AHEAD];
    memcpy(ring, a->ring, sizeof ring);
    struct feed f = {.queue = mine->v,
                     .t = a->t,
                     .first = a->first,
                     .ring = ring,
                     .joined = a->joined,
                     .slot = a->depth - 1,
                     .mask = s->dist.words - 1,
                     .part_mask = fast ? ((uint64_t)1 << s->dist.shift) - 1 : 0,
                     .next = *fed,
                     .rng = s->p.rng,
                     .log2 = s->p.table_log2};
    uint64_t *pm = mine->v + mine->n, *pk = keep->v + keep->n, *ps = send->v + send->n;
    uint64_t r = *rng_state;
    const struct ra_dist dist = s->dist;
    const int shift = dist.shift, mid = st->mid, upper = st->upper;
    size_t i = 0;
#if defined(__AVX512F__)
    if (fast && !keeps)
        i = split_feeding8(&f, &r, n, me, shift, &pm, &ps);
#endif
    for (; i < n; i++) {
        uint64_t v = r = fast ? ra_next_poly(r) : ra_next(f.rng, r);
        uint64_t g = fast ? v & f.mask : ra_index(f.rng, v, f.log2);
        int o = fast ? (int)(g >> shift) : ra_dist_owner(&dist, g);
        int m = o == me;
        int k = keeps && !m && ((o >= mid) == upper);
        *pm = v;
        if (keeps)
            *pk = v;
        *ps = v;
        pm += m;
        pk += k;
        ps += !m & !k;
        feed_one(&f, fast, pm);
    }
    *rng_state = r;
    memcpy(a->ring, ring, sizeof ring);
    a->joined = f.joined;
    *fed = f.next;
    mine->n = (size_t)(pm - mine->v);
    keep->n = (size_t)(pk - keep->v);
    send->n = (size_t)(ps - send->v);
}

static void split_feeding_any(const struct ra_state *s, const struct stage *st, int me,
                              uint64_t *rng_state, size_t n, struct list *mine, struct list *keep,
                              struct list *send, struct ra_applier *a, size_t *fed)
{
    int fast = s->p.rng == RA_RNG_POLY && s->dist.shift >= 0;
    if (fast && st->alone)
        split_feeding(s, 1, 0, st, me, rng_state, n, mine, keep, send, a, fed);
    else if (fast)
        split_feeding(s, 1, 1, st, me, rng_state, n, mine, keep, send, a, fed);
    else if (st->alone)
        split_feeding(s, 0, 0, st, me, rng_state, n, mine, keep, send, a, fed);
    else
        split_feeding(s, 0, 1, st, me, rng_state, n, mine, keep, send, a, fed);
}

#endif
