/* The one RandomAccess verifier: a race-free XOR replay. XOR is its own
 * inverse and commutes, so re-applying every executed update exactly once
 * returns each word to its index, whatever order the timed run used; a
 * word that still differs is an error (lost, doubled or misplaced update). */
#include <stdlib.h>
#include <string.h>

#include "hpcprobe/util.h"
#include "ra.h"

#define VERIFY_CHUNK \
    (1 << 17) /* updates generated per rank per exchange round: enough that a round
                                  * costs more than its two collectives (8192 took 13x the run) */

/* The executed updates of this rank, in sequence order: one range, or one
 * per generating thread. */
struct cursor {
    const struct ra_state *s;
    int k, n;
    uint64_t r, left, total;
};

static void cursor_open(struct cursor *c, const struct ra_state *s, int k)
{
    c->s = s;
    c->k = k;
    c->n = s->nranges ? s->nranges : 1;
    uint64_t start = s->nranges ? s->ranges[k][0] : s->seq_start;
    c->left = s->nranges ? s->ranges[k][1] : s->executed;
    c->r = ra_rng_jump(s->p.rng, start);
}

static void cursor_init(struct cursor *c, const struct ra_state *s)
{
    c->total = 0;
    for (int k = 0; k < (s->nranges ? s->nranges : 1); k++)
        c->total += s->nranges ? s->ranges[k][1] : s->executed;
    cursor_open(c, s, 0);
}

/* The next executed update; call only while c->total > 0. */
static uint64_t cursor_next(struct cursor *c)
{
    while (c->left == 0)
        cursor_open(c, c->s, c->k + 1);
    c->left--;
    c->total--;
    c->r = ra_next(c->s->p.rng, c->r);
    return c->r;
}

static void apply(struct ra_state *s, const uint64_t *v, size_t n)
{
    int log2 = s->p.table_log2;
    enum ra_rng rng = s->p.rng;
    for (size_t i = 0; i < n; i++)
        s->table.words[ra_index(rng, v[i], log2) - s->my_start] ^= v[i];
}

/* Generate up to VERIFY_CHUNK updates into tmp, then sort them by owner into
 * send (a counting sort: each owner is computed once, kept in `owner`). */
static int gen_chunk(struct ra_state *s, struct cursor *c, uint64_t *send, int *scount, int *sdispl,
                     uint64_t *tmp, int *owner)
{
    int P = s->dist.ranks, n = c->total < VERIFY_CHUNK ? (int)c->total : VERIFY_CHUNK;
    memset(scount, 0, (size_t)P * sizeof *scount);
    for (int i = 0; i < n; i++) {
        tmp[i] = cursor_next(c);
        owner[i] = ra_dist_owner(&s->dist, ra_index(s->p.rng, tmp[i], s->p.table_log2));
        scount[owner[i]]++;
    }
    sdispl[0] = 0;
    for (int p = 1; p < P; p++)
        sdispl[p] = sdispl[p - 1] + scount[p - 1];
    for (int i = 0; i < n; i++)
        send[sdispl[owner[i]]++] = tmp[i];
    for (int p = 0; p < P; p++)
        sdispl[p] -= scount[p];
    return n;
}

/* Rounds of generate / all-to-all / apply until every rank has replayed. */
static int replay_distributed(struct ra_state *s, MPI_Comm comm)
{
    int P = s->dist.ranks;
    struct cursor c;
    cursor_init(&c, s);
    uint64_t rounds = (c.total + VERIFY_CHUNK - 1) / VERIFY_CHUNK, max_rounds;
    MPI_Allreduce(&rounds, &max_rounds, 1, MPI_UINT64_T, MPI_MAX, comm);
    int *cnt = malloc(4 * (size_t)P * sizeof *cnt);
    uint64_t *send = malloc(2 * VERIFY_CHUNK * sizeof *send), *recv = NULL;
    int *owner = malloc(VERIFY_CHUNK * sizeof *owner);
    size_t recv_cap = 0;
    /* Agreed by all: a rank that skipped the exchanges would leave the others waiting. */
    int bad = hpcp_any(comm, !cnt || !send || !owner);
    for (uint64_t k = 0; k < max_rounds && !bad; k++) {
        int *scount = cnt, *sdispl = cnt + P, *rcount = cnt + 2 * P, *rdispl = cnt + 3 * P;
        gen_chunk(s, &c, send, scount, sdispl, send + VERIFY_CHUNK, owner);
        MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, comm);
        size_t total = 0;
        for (int p = 0; p < P; p++) {
            rdispl[p] = (int)total;
            total += (size_t)rcount[p];
        }
        if (total > recv_cap) {
            uint64_t *nr = realloc(recv, total * sizeof *recv);
            if (nr) {
                recv = nr;
                recv_cap = total;
            }
            bad = !nr;
        }
        /* Out of memory on any rank fails the replay on every rank, alike. */
        bad = hpcp_any(comm, bad);
        if (bad)
            break;
        MPI_Alltoallv(send, scount, sdispl, MPI_UINT64_T, recv, rcount, rdispl, MPI_UINT64_T, comm);
        apply(s, recv, total);
    }
    free(cnt);
    free(send);
    free(owner);
    free(recv);
    return bad;
}

/* Same replay without communication for a table held by one rank. */
static void replay_local(struct ra_state *s)
{
    struct cursor c;
    uint64_t *t = s->table.words;
    for (cursor_init(&c, s); c.total > 0;) {
        uint64_t r = cursor_next(&c);
        t[ra_index(s->p.rng, r, s->p.table_log2) - s->my_start] ^= r;
    }
}

uint64_t ra_verify_table(struct ra_state *s, MPI_Comm comm)
{
    uint64_t wrong = 0, total = 0;
    int failed = 0;
    if (s->dist.ranks == 1)
        replay_local(s);
    else
        failed = replay_distributed(s, comm);
    for (uint64_t i = 0; i < s->table.n; i++)
        wrong += s->table.words[i] != s->my_start + i;
    MPI_Allreduce(&wrong, &total, 1, MPI_UINT64_T, MPI_SUM, comm);
    /* A replay that could not finish verifies nothing: count every word. */
    return failed ? s->dist.words : total;
}
