/* RandomAccess `mpi --algo hypercube` outside its timed ticks: the plan of
 * stages (the recursive halving as one rank sees it: partners and shares),
 * the lists' and exchanges' memory, and the teardown. The algorithm
 * itself: ra_mpi_hypercube.c. */
#include <stdlib.h>

#include "hpcprobe/util.h"
#include "ra_mpi_hypercube.h"

/* Lower rank i of an odd partition (N below, N+1 above). */
static void plan_odd_lower(struct stage *st, int i, int n)
{
    st->nsend = st->nrecv = 2;
    st->to[0] = st->from[0] = st->mid + i;
    st->to[1] = st->from[1] = st->mid + i + 1;
    st->share_num = n - i;
    st->share_den = n + 1;
}

/* Upper rank j of an odd partition: the ends send and receive once. */
static void plan_odd_upper(struct stage *st, int j, int n, int lo)
{
    st->nsend = st->nrecv = 0;
    st->share_num = j;
    st->share_den = n;
    if (j > 0) {
        st->to[st->nsend++] = lo + j - 1;
        st->from[st->nrecv++] = lo + j - 1;
    }
    if (j < n) {
        st->to[st->nsend++] = lo + j;
        st->from[st->nrecv++] = lo + j;
    }
    if (st->nsend == 1)
        st->share_num = st->share_den = 1;
}

/* The recursive halving, as seen by rank `me`. Returns the stage count. */
static int plan_stages(struct stage *stages, int me, int ranks)
{
    int lo = 0, hi = ranks, n = 0;
    while (hi - lo > 1) {
        struct stage *st = &stages[n++];
        int half = (hi - lo) / 2;
        st->mid = lo + half;
        st->upper = me >= st->mid;
        st->alone = (st->upper ? hi - st->mid : st->mid - lo) == 1;
        if ((hi - lo) % 2 == 0) {
            st->nsend = st->nrecv = 1;
            st->to[0] = st->from[0] = st->upper ? me - half : me + half;
            st->share_num = st->share_den = 1;
        } else if (!st->upper) {
            plan_odd_lower(st, me - lo, half);
        } else {
            plan_odd_upper(st, me - st->mid, half, lo);
        }
        if (st->upper)
            lo = st->mid;
        else
            hi = st->mid;
    }
    return n;
}

static int count_partners(const struct hc *h)
{
    int n = 0;
    for (int j = 0; j < h->nstages; j++)
        for (int t = 0; t < h->stage[j].nsend; t++) {
            int seen = 0;
            for (int i = 0; i < j && !seen; i++)
                for (int u = 0; u < h->stage[i].nsend; u++)
                    seen |= h->stage[i].to[u] == h->stage[j].to[t];
            for (int u = 0; u < t; u++)
                seen |= h->stage[j].to[u] == h->stage[j].to[t];
            n += !seen;
        }
    return n;
}

/* What a queue must hold: a whole message (what the receive may write),
 * then a batch's own updates and the splits' spare words. Lists only grow,
 * so every list in the rotation of queue and mine keeps room for it. */
static size_t queue_words(const struct hc *h)
{
    return (size_t)h->msg_cap + h->batch + SPARE;
}

static int exchange_setup(const struct hc *h, struct exchange *x)
{
    for (int j = 0; j < MAX_STAGES; j++)
        for (int f = 0; f < 2; f++) {
            x->rreq[j][f] = MPI_REQUEST_NULL;
            x->sreq[j][f][0] = x->sreq[j][f][1] = MPI_REQUEST_NULL;
        }
    x->recvbuf = malloc(((size_t)h->nstages * 2 + 1) * (size_t)h->msg_cap * sizeof(uint64_t));
    return !x->recvbuf || ra_reserve(&x->queue.v, &x->queue.cap, queue_words(h));
}

int ra_hypercube_setup(struct hpcp_bench *b)
{
    struct ra_state *s = b->state;
    struct hc *h = calloc(1, sizeof *h);
    s->algo = h;
    int failed = !h;
    if (h) {
        h->comm = MPI_COMM_NULL;
        h->me = b->rank;
        h->nstages = plan_stages(h->stage, b->rank, b->ranks);
        h->partners = count_partners(h);
        h->lag = s->p.overlap ? PIPELINED_LAG : 0;
        /* Every rank runs the same ticks, so the drain is the deepest
         * rank's: an odd partition leaves some ranks a stage short. */
        int deepest = 0; /* ceil(log2 P) */
        while ((1 << deepest) < b->ranks)
            deepest++;
        h->drain = h->lag * deepest;
        h->batch = batch_size(&s->p);
        /* Room for the usual list and its random excess; longer ones overflow. */
        h->msg_cap = (int)(h->batch + h->batch / 2 + 64);
        failed = ra_reserve(&h->mine.v, &h->mine.cap, queue_words(h));
        for (int i = 0; i < EXCHANGES && !failed; i++)
            failed = exchange_setup(h, &h->ex[i]);
    }
    return ra_mpi_setup(b, h ? &h->comm : NULL, failed) ? HPCP_EXIT_RUNTIME : 0;
}

static void free_list(struct list *l)
{
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}

static void exchange_free(struct exchange *x)
{
    free(x->recvbuf);
    free_list(&x->queue);
    for (int j = 0; j < MAX_STAGES; j++) {
        free_list(&x->send[j]);
        free_list(&x->extra[j][0]);
        free_list(&x->extra[j][1]);
    }
}

void ra_hypercube_teardown(struct hpcp_bench *b)
{
    struct ra_state *s = b->state;
    struct hc *h = s->algo;
    if (h) {
        for (int i = 0; i < EXCHANGES; i++)
            exchange_free(&h->ex[i]);
        free_list(&h->keep[0]);
        free_list(&h->keep[1]);
        free_list(&h->mine);
        ra_mpi_teardown(b, &h->comm);
        free(h);
    }
    s->algo = NULL;
}
