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

/* XOR a list of updates this rank owns into its table. The values are known
 * ahead, so each word is prefetched RA_PREFETCH_AHEAD updates before its XOR
 * (the first ones before the loop): that many misses are in flight instead
 * of the few the core's window finds. */
static inline void ra_apply_list(struct ra_state *s, const uint64_t *v, size_t n)
{
    uint64_t *t = s->table.words - s->my_start;
    int log2 = s->p.table_log2;
    enum ra_rng rng = s->p.rng;
    size_t head = n < RA_PREFETCH_AHEAD ? n : RA_PREFETCH_AHEAD, i = 0;
    for (size_t k = 0; k < head; k++)
        __builtin_prefetch(&t[ra_index(rng, v[k], log2)], 1, 0);
    for (; i + RA_PREFETCH_AHEAD < n; i++) {
        __builtin_prefetch(&t[ra_index(rng, v[i + RA_PREFETCH_AHEAD], log2)], 1, 0);
        t[ra_index(rng, v[i], log2)] ^= v[i];
    }
    for (; i < n; i++)
        t[ra_index(rng, v[i], log2)] ^= v[i];
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
