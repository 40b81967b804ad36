/* The congestors (GPCNeT's four patterns) on the congestor ranks, rooted at
 * the first of them: two-sided incast, one-sided Put incast, one-sided Get
 * broadcast, and Alltoall. A round is K messages of B bytes per rank (the
 * Alltoall: one block to every other rank). Every byte moved is counted, so
 * a congestor that did not run cannot pass for a network without congestion. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "congestion.h"
#include "hpcprobe/util.h"

/* A round's own tag: a sender may be rounds ahead of the root (up to
 * CONG_CHECK_EVERY - 1), and its messages must not count for an earlier round. */
#define INCAST_TAG(round) (81 + (int)((round) % CONG_CHECK_EVERY))
#define CONG_BURST 32       /* messages per rank and round */
#define CONG_RECV_SLOTS 64  /* incast receives the root keeps posted */
/* ALLTOALL_FLIGHT Alltoalls at once, each on its own slice of the buffers: one
 * at a time, the exchange waits on its slowest pair and leaves the links idle. */
#define ALLTOALL_FLIGHT 8

/* Messages per rank and round: GPCNeT's congestors move one message (one
 * Alltoall) per rank and step, hpcprobe's a burst (docs/kernels/congestion.md). */
static int burst(const struct cong_state *s)
{
    return s->p.mode == CONG_MODE_GPCNET ? 1 : CONG_BURST;
}

static int flight(const struct cong_state *s)
{
    return s->p.mode == CONG_MODE_GPCNET ? 1 : ALLTOALL_FLIGHT;
}

static void sizes(const struct cong_state *s, int *me, int *m, size_t *B)
{
    MPI_Comm_rank(s->congestors, me);
    MPI_Comm_size(s->congestors, m);
    *B = (size_t)s->p.congestor_bytes;
}

static int asked(const struct cong_state *s, int pattern)
{
    for (int i = 0; i < s->p.ncongestors; i++)
        if (s->p.congestor[i] == pattern)
            return 1;
    return 0;
}

int cong_congestor_setup(struct cong_state *s, char *err, size_t errlen)
{
    int me, m;
    size_t B;
    s->win = MPI_WIN_NULL;
    int one_sided = asked(s, CONG_PUT_INCAST) || asked(s, CONG_GET_BCAST);
    if (s->congestors == MPI_COMM_NULL || s->p.ncongestors == 0) {
        /* the window is collective over the congestors only; canaries skip it */
        return 0;
    }
    sizes(s, &me, &m, &B);
    size_t slots = (size_t)m * (CONG_BURST > CONG_RECV_SLOTS ? CONG_BURST : CONG_RECV_SLOTS);
    s->cbuf_bytes = B * slots;
    s->csend = malloc(s->cbuf_bytes);
    s->crecv = malloc(s->cbuf_bytes);
    s->root_pattern = malloc(B);
    int bad = !s->csend || !s->crecv || !s->root_pattern;
    if (!bad) {
        cong_fill_messages(s->csend, slots, B, me);
        cong_fill(s->root_pattern, B, 0);
        cong_stamp(s->root_pattern, B, 0, 0, 0);
    }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_LOR, s->congestors);
    if (bad) {
        snprintf(err, errlen, "cannot allocate the congestor buffers (%zu bytes)", s->cbuf_bytes);
        return -1;
    }
    if (!one_sided)
        return 0;
    /* Root: one slot per (origin, message) for the Puts; slot 0 is its own,
     * which nobody Puts to, and is what the Gets read. */
    MPI_Aint bytes = me == 0 ? (MPI_Aint)((size_t)m * CONG_BURST * B) : 0;
    MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, s->congestors, &s->win_base, &s->win);
    if (me == 0)
        memcpy(s->win_base, s->root_pattern, B);
    MPI_Barrier(s->congestors);
    MPI_Win_lock_all(0, s->win);
    return 0;
}

/* Root: (m - 1) * K messages from anyone, CONG_RECV_SLOTS posted at a time. */
static void incast_root(struct cong_state *s, int m, size_t B, long long round)
{
    int total = (m - 1) * burst(s), posted = 0, done = 0;
    int slots = total < CONG_RECV_SLOTS ? total : CONG_RECV_SLOTS;
    MPI_Request rq[CONG_RECV_SLOTS];
    for (; posted < slots; posted++)
        MPI_Irecv(s->crecv + posted * B, (int)B, MPI_BYTE, MPI_ANY_SOURCE, INCAST_TAG(round),
                  s->congestors, &rq[posted]);
    while (done < total) {
        int i, flag = 0;
        MPI_Status st;
        MPI_Testany(slots, rq, &i, &flag, &st);
        if (!flag || i == MPI_UNDEFINED) {
            struct timespec nap = {0, CONG_NAP_NS};
            nanosleep(&nap, NULL);
            continue;
        }
        done++;
        if (s->p.run.verify && !cong_stamp_ok(s->crecv + i * B, B, st.MPI_SOURCE, round, 0))
            s->congestor_wrong++;
        if (posted++ < total)
            MPI_Irecv(s->crecv + i * B, (int)B, MPI_BYTE, MPI_ANY_SOURCE, INCAST_TAG(round),
                      s->congestors, &rq[i]);
    }
}

static void incast(struct cong_state *s, long long round)
{
    int me, m;
    size_t B;
    sizes(s, &me, &m, &B);
    if (me == 0) {
        incast_root(s, m, B, round);
        return;
    }
    MPI_Request rq[CONG_BURST];
    int K = burst(s);
    for (int k = 0; k < K; k++) {
        cong_stamp(s->csend + k * B, B, me, round, 0);
        MPI_Isend(s->csend + k * B, (int)B, MPI_BYTE, 0, INCAST_TAG(round), s->congestors, &rq[k]);
    }
    cong_wait(&s->p, K, rq);
    s->bytes[CONG_INCAST] += (long long)((size_t)K * B);
}

/* Put: message k of origin j into the root's slot j * K + k. Get: K copies
 * of the root's slot 0. Local completion first (napping), then the flush. */
static void one_sided(struct cong_state *s, int pattern)
{
    int me, m;
    size_t B;
    sizes(s, &me, &m, &B);
    if (me == 0)
        return;
    MPI_Request rq[CONG_BURST];
    int K = burst(s);
    for (int k = 0; k < K; k++) {
        unsigned char *local = (pattern == CONG_PUT_INCAST ? s->csend : s->crecv) + k * B;
        if (pattern == CONG_PUT_INCAST) {
            cong_stamp(local, B, me, 0, k);
            MPI_Rput(local, (int)B, MPI_BYTE, 0, (MPI_Aint)(((size_t)me * CONG_BURST + k) * B),
                     (int)B, MPI_BYTE, s->win, &rq[k]);
        } else {
            MPI_Rget(local, (int)B, MPI_BYTE, 0, 0, (int)B, MPI_BYTE, s->win, &rq[k]);
        }
    }
    cong_wait(&s->p, K, rq);
    MPI_Win_flush(0, s->win);
    s->bytes[pattern] += (long long)((size_t)K * B);
    if (pattern == CONG_GET_BCAST && s->p.run.verify)
        s->congestor_wrong += memcmp(s->crecv + (K - 1) * B, s->root_pattern, B) != 0;
}

static void alltoall(struct cong_state *s, long long round)
{
    int me, m;
    size_t B;
    sizes(s, &me, &m, &B);
    MPI_Request rq[ALLTOALL_FLIGHT];
    size_t slice = (size_t)m * B;
    int F = flight(s);
    for (int a = 0; a < F; a++) {
        for (int j = 0; j < m; j++)
            cong_stamp(s->csend + a * slice + j * B, B, me, round, a);
        MPI_Ialltoall(s->csend + a * slice, (int)B, MPI_BYTE, s->crecv + a * slice, (int)B,
                      MPI_BYTE, s->congestors, &rq[a]);
    }
    cong_wait(&s->p, F, rq);
    s->bytes[CONG_ALLTOALL] += (long long)((size_t)F * (size_t)(m - 1) * B);
    for (int a = 0; s->p.run.verify && a < F; a++)
        for (int j = 0; j < m; j++)
            s->congestor_wrong += !cong_stamp_ok(s->crecv + a * slice + j * B, B, j, round, a);
}

void cong_congestor_round(struct cong_state *s, int pattern, long long round)
{
    if (s->mute)
        return; /* test hook: a congestor that loops and moves nothing */
    if (pattern == CONG_INCAST)
        incast(s, round);
    else if (pattern == CONG_ALLTOALL)
        alltoall(s, round);
    else
        one_sided(s, pattern); /* its slots carry no round: the root checks them at the end */
    s->rounds[pattern]++;
}

/* The root checks what the Puts left in its slots: each origin's stamp and
 * pattern. Collective over the congestors. */
static void check_puts(struct cong_state *s)
{
    int me, m;
    size_t B;
    sizes(s, &me, &m, &B);
    MPI_Win_sync(s->win);
    MPI_Barrier(s->congestors);
    long long moved = s->bytes[CONG_PUT_INCAST], any = 0;
    MPI_Allreduce(&moved, &any, 1, MPI_LONG_LONG, MPI_SUM, s->congestors);
    if (me != 0 || !any || !s->p.run.verify)
        return;
    unsigned char *expect = malloc(B);
    for (int j = 1; expect && j < m; j++) {
        cong_fill(expect, B, j);
        for (int k = 0; k < burst(s); k++) {
            const unsigned char *slot = s->win_base + ((size_t)j * CONG_BURST + k) * B;
            s->congestor_wrong += !cong_stamp_ok(slot, B, j, 0, k) ||
                                  (B > 8 && memcmp(slot + 8, expect + 8, B - 8) != 0);
        }
    }
    free(expect);
}

void cong_congestor_teardown(struct cong_state *s)
{
    if (s->win != MPI_WIN_NULL) {
        if (asked(s, CONG_PUT_INCAST) && !s->mute)
            check_puts(s);
        MPI_Win_unlock_all(s->win);
        MPI_Win_free(&s->win);
    }
    free(s->csend), free(s->crecv), free(s->root_pattern);
    s->csend = s->crecv = s->root_pattern = NULL;
}
