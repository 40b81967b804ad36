/* Shared by the algorithms of RandomAccess `mpi` (one table over all ranks):
 * set-up, the synchronous step count, the collective time limit and the
 * table update from a list. Rules: docs/kernels/randomaccess.md. */
#ifndef HPCPROBE_RA_MPI_H
#define HPCPROBE_RA_MPI_H
#include "ra.h"

/* The distribution with the chosen owner rule, this rank's share of the
 * sequence, its part of the table and a private communicator in *comm (so
 * our tags never meet anyone else's; NULL: made and freed, for the collective). Collective; `failed` is this rank's earlier
 * failure. Nonzero when any rank failed. */
int ra_mpi_setup(struct hpcp_bench *b, MPI_Comm *comm, int failed);
void ra_mpi_teardown(struct hpcp_bench *b, MPI_Comm *comm);
/* The family's verifier over the whole communicator. */
int ra_mpi_verify(struct hpcp_bench *b, double *error);

/* Synchronous steps of `lookahead` updates that every rank takes: enough
 * for the rank with the most updates (the first N mod P ranks issue 4 more). */
uint64_t ra_mpi_steps(const struct ra_state *s);

/* Collective: whether --time-limit has run out, asked every 64 steps so the
 * agreement costs little; every rank stops after the same step. */
int ra_mpi_time_up(const struct ra_state *s, MPI_Comm comm, double t0, uint64_t step);

/* Generate the next n updates of this rank's stream into out. */
static inline void ra_generate(enum ra_rng rng, uint64_t *state, uint64_t *out, uint64_t n)
{
    uint64_t r = *state;
    for (uint64_t i = 0; i < n; i++) {
        r = ra_next(rng, r);
        out[i] = r;
    }
    *state = r;
}

/* Updates owned here on their way into the table, across lists, messages
 * and batches: a value's word is prefetched when the value joins and XORed
 * `depth` joins later, so the misses of one list overlap those of the next
 * instead of starting again from none. XORs happen in the order the values
 * joined; ra_applier_drain XORs what is still held. Held values are
 * pending updates: they count toward the look-ahead of their generator. */
struct ra_applier {
    uint64_t *t;     /* this rank's part of the table */
    uint64_t first;  /* the global index of t[0] */
    int log2;
    enum ra_rng rng;
    unsigned depth;  /* a power of two <= RA_PREFETCH_AHEAD; 0: XOR at once */
    unsigned held;   /* values joined and not yet XORed, <= depth */
    uint64_t joined; /* values ever joined: the next goes to ring[joined & (depth - 1)] */
    uint64_t ring[RA_PREFETCH_AHEAD];
};

static inline void ra_applier_init(struct ra_applier *a, const struct ra_state *s, unsigned depth)
{
    a->t = s->table.words;
    a->first = s->my_start;
    a->log2 = s->p.table_log2;
    a->rng = s->p.rng;
    a->depth = depth;
    a->held = 0;
    a->joined = 0;
}

/* The word of part t (global indices from `first` on) that update v XORs. */
static inline uint64_t *ra_part_word(uint64_t *t, uint64_t first, enum ra_rng rng, int log2,
                                     uint64_t v)
{
    return &t[ra_index(rng, v, log2) - first];
}

static inline uint64_t *ra_applier_word(const struct ra_applier *a, uint64_t v)
{
    return ra_part_word(a->t, a->first, a->rng, a->log2, v);
}

/* The loops keep the applier's scalars in locals: a store through a
 * uint64_t pointer could otherwise change its uint64_t fields (t, first,
 * joined), and the compiler would read them again after every XOR. */
static inline void ra_applier_add(struct ra_applier *a, const uint64_t *v, size_t n)
{
    uint64_t *t = a->t, *ring = a->ring, first = a->first, joined = a->joined;
    const enum ra_rng rng = a->rng;
    const int log2 = a->log2;
    size_t i = 0;
    if (!a->depth) {
        for (; i < n; i++)
            *ra_part_word(t, first, rng, log2, v[i]) ^= v[i];
        return;
    }
    const uint64_t slot = a->depth - 1;
    unsigned held = a->held;
    for (; i < n && held < a->depth; i++, held++) {
        ring[joined++ & slot] = v[i];
        __builtin_prefetch(ra_part_word(t, first, rng, log2, v[i]), 1, 0);
    }
    for (; i < n; i++) {
        uint64_t *cell = &ring[joined++ & slot], due = *cell;
        *cell = v[i];
        __builtin_prefetch(ra_part_word(t, first, rng, log2, v[i]), 1, 0);
        *ra_part_word(t, first, rng, log2, due) ^= due;
    }
    a->held = held;
    a->joined = joined;
}

static inline void ra_applier_drain(struct ra_applier *a)
{
    for (; a->held; a->held--) {
        uint64_t due = a->ring[(a->joined - a->held) & (a->depth - 1)];
        *ra_applier_word(a, due) ^= due;
    }
}

/* XOR a whole list of updates this rank owns into its table, with each word
 * prefetched RA_PREFETCH_AHEAD updates before its XOR: that many misses are
 * in flight instead of the few the core's window finds. */
static inline void ra_apply_list(struct ra_state *s, const uint64_t *v, size_t n)
{
    struct ra_applier a;
    ra_applier_init(&a, s, RA_PREFETCH_AHEAD);
    ra_applier_add(&a, v, n);
    ra_applier_drain(&a);
}

/* Wait for n requests, testing a few times before the blocking wait: a
 * blocking wait in MPICH yields the core (a system call and a reschedule)
 * on its first empty poll, even when the message is a microsecond away,
 * which cost the 2-rank hypercube a third of its rate. The tests are few,
 * so an oversubscribed rank still gives its core up soon. */
#define RA_TESTS_BEFORE_WAIT 64
static inline void ra_mpi_waitall(int n, MPI_Request *requests, MPI_Status *statuses)
{
    for (int i = 0; i < RA_TESTS_BEFORE_WAIT; i++) {
        int done = 0;
        MPI_Testall(n, requests, &done, statuses);
        if (done)
            return;
    }
    MPI_Waitall(n, requests, statuses);
}

static inline int ra_owner_of(const struct ra_state *s, uint64_t v)
{
    return ra_dist_owner(&s->dist, ra_index(s->p.rng, v, s->p.table_log2));
}

/* A buffer could not grow in the middle of a timed step, where the ranks
 * cannot agree without a collective per step: one line, then MPI_Abort,
 * so no rank waits for this one. */
void ra_mpi_out_of_memory(const char *what);

/* Grow *buf to hold at least `need` words (never shrinks). -1 when out of memory. */
int ra_reserve(uint64_t **buf, size_t *cap, size_t need);

static inline long long ra_elapsed_ns(double t0)
{
    return (long long)((MPI_Wtime() - t0) * 1e9);
}

#endif
