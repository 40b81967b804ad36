/* RandomAccess `mpi`, algorithm `reference`: HPCC's asynchronous MPI
 * algorithm, kept faithful and untuned because every other algorithm is
 * measured against it (docs/kernels/randomaccess.md). Each rank generates
 * its share of the update stream one update at a time; updates for other
 * ranks wait in per-destination buckets (at most `lookahead` in all); when
 * the look-ahead is full the fullest bucket goes out with MPI_Isend once the
 * previous send finished. Receives (one posted, four beyond four ranks, as
 * HPCC posts them) are polled with MPI_Testany between updates. A rank that
 * has sent everything sends a one-word "done" to every other rank and keeps
 * receiving until all have said so. */
#include <stdlib.h>

#include "hpcprobe/util.h"
#include "ra_mpi.h"

enum { TAG_DONE = 1, TAG_UPDATE = 2, MAX_RECV = 4 };

struct mpi_ref {
    MPI_Comm comm;          /* private: our tags never meet anyone else's */
    struct ra_buckets buckets;
    uint64_t *sendbuf, *recvbuf; /* recvbuf: nrecv buffers of `lookahead` words */
    MPI_Request inreq[MAX_RECV], outreq;
    int nrecv;
    int receiving;          /* ranks that have not said "done" */
    unsigned char *sent_to; /* per rank: sent it updates in this repetition */
};

static void apply_update(struct ra_state *s, uint64_t v)
{
    s->table.words[ra_index(s->p.rng, v, s->p.table_log2) - s->my_start] ^= v;
}

static void post_recv(struct ra_state *s, struct mpi_ref *m, int i)
{
    MPI_Irecv(m->recvbuf + (size_t)i * (size_t)s->p.lookahead, s->p.lookahead, MPI_UINT64_T,
              MPI_ANY_SOURCE, MPI_ANY_TAG, m->comm, &m->inreq[i]);
}

/* Handle one completed receive `i` and post it again. */
static void handle(struct ra_state *s, struct mpi_ref *m, int i, const MPI_Status *st)
{
    if (st->MPI_TAG == TAG_UPDATE) {
        int n = 0;
        const uint64_t *buf = m->recvbuf + (size_t)i * (size_t)s->p.lookahead;
        MPI_Get_count(st, MPI_UINT64_T, &n);
        for (int j = 0; j < n; j++)
            apply_update(s, buf[j]);
    } else {
        m->receiving--;
    }
    post_recv(s, m, i);
}

/* Apply every message that has arrived. */
static void poll_receives(struct ra_state *s, struct mpi_ref *m)
{
    while (m->receiving > 0) {
        int i, arrived = 0;
        MPI_Status st;
        MPI_Testany(m->nrecv, m->inreq, &i, &arrived, &st);
        if (!arrived || i == MPI_UNDEFINED)
            return;
        handle(s, m, i, &st);
    }
}

/* Send the fullest bucket if the previous send has completed. */
static void try_send(struct ra_state *s, struct mpi_ref *m)
{
    int done = 0, n = 0;
    MPI_Test(&m->outreq, &done, MPI_STATUS_IGNORE);
    if (!done)
        return;
    int dest = ra_buckets_pop_largest(&m->buckets, m->sendbuf, &n);
    if (dest < 0)
        return;
    MPI_Isend(m->sendbuf, n, MPI_UINT64_T, dest, TAG_UPDATE, m->comm, &m->outreq);
    s->partners += !m->sent_to[dest];
    m->sent_to[dest] = 1;
    s->messages_sent++;
    s->bytes_sent += (long long)n * (long long)sizeof(uint64_t);
}

static void generate(struct ra_state *s, struct mpi_ref *m, int me)
{
    uint64_t r = ra_rng_jump(s->p.rng, s->seq_start);
    double t0 = MPI_Wtime(), limit = s->p.time_limit_s;
    uint64_t i = 0;
    while (i < s->my_updates) {
        poll_receives(s, m);
        if (m->buckets.pending < s->p.lookahead) {
            r = ra_next(s->p.rng, r);
            int owner = ra_dist_owner(&s->dist, ra_index(s->p.rng, r, s->p.table_log2));
            if (owner == me)
                apply_update(s, r);
            else
                ra_buckets_insert(&m->buckets, owner, r);
            if (m->buckets.pending > s->max_pending)
                s->max_pending = m->buckets.pending;
            i++;
            if (limit > 0 && (i & 1023) == 0 && MPI_Wtime() - t0 > limit)
                break;
        } else {
            try_send(s, m);
        }
    }
    s->executed = i;
}

static void finish(struct ra_state *s, struct mpi_ref *m, int me, int ranks)
{
    while (m->buckets.pending > 0) {
        poll_receives(s, m);
        try_send(s, m);
    }
    uint64_t token = 0;
    for (int p = 0; p < ranks; p++)
        if (p != me)
            MPI_Send(&token, 1, MPI_UINT64_T, p, TAG_DONE, m->comm);
    while (m->receiving > 0) {
        int i;
        MPI_Status st;
        MPI_Waitany(m->nrecv, m->inreq, &i, &st);
        handle(s, m, i, &st);
    }
    MPI_Wait(&m->outreq, MPI_STATUS_IGNORE);
    for (int i = 0; i < m->nrecv; i++) {
        if (m->inreq[i] == MPI_REQUEST_NULL)
            continue; /* one rank: nothing was posted */
        MPI_Cancel(&m->inreq[i]);
        MPI_Wait(&m->inreq[i], MPI_STATUS_IGNORE);
    }
}

static int ref_setup(struct hpcp_bench *b)
{
    struct ra_state *s = b->state;
    struct mpi_ref *m = calloc(1, sizeof *m);
    s->algo = m;
    int failed = !m;
    if (m) {
        m->comm = MPI_COMM_NULL;
        m->nrecv = b->ranks > 4 ? MAX_RECV : 1;
        size_t la = (size_t)s->p.lookahead;
        m->sendbuf = malloc(la * sizeof *m->sendbuf);
        m->recvbuf = malloc((size_t)m->nrecv * la * sizeof *m->recvbuf);
        m->sent_to = calloc((size_t)b->ranks, 1);
        failed = !m->sendbuf || !m->recvbuf || !m->sent_to ||
                 ra_buckets_init(&m->buckets, b->ranks, s->p.lookahead);
    }
    return ra_mpi_setup(b, m ? &m->comm : NULL, failed) ? HPCP_EXIT_RUNTIME : 0;
}

static int ref_run(struct hpcp_bench *b, double *seconds)
{
    struct ra_state *s = b->state;
    struct mpi_ref *m = s->algo;
    ra_table_init(&s->table, s->my_start);
    s->stages = 1;
    memset(m->sent_to, 0, (size_t)b->ranks);
    m->receiving = b->ranks - 1;
    m->outreq = MPI_REQUEST_NULL;
    for (int i = 0; i < MAX_RECV; i++)
        m->inreq[i] = MPI_REQUEST_NULL;
    MPI_Barrier(b->comm);
    double t0 = MPI_Wtime();
    for (int i = 0; i < m->nrecv && b->ranks > 1; i++)
        post_recv(s, m, i);
    generate(s, m, b->rank);
    finish(s, m, b->rank, b->ranks);
    MPI_Barrier(b->comm);
    *seconds = MPI_Wtime() - t0;
    return 0;
}

static void ref_teardown(struct hpcp_bench *b)
{
    struct ra_state *s = b->state;
    struct mpi_ref *m = s->algo;
    if (m) {
        ra_buckets_free(&m->buckets);
        free(m->sendbuf);
        free(m->recvbuf);
        free(m->sent_to);
        ra_mpi_teardown(b, &m->comm);
        free(m);
    }
    s->algo = NULL;
}

static const struct ra_algorithm reference = {.scope = RA_SCOPE_MPI,
                                              .takes = RA_TAKES_MULTICORE | RA_TAKES_OWNER,
                                              .modes = RA_MODE_RANK_PER_CORE,
                                              .default_mode = 1,
                                              .sync_refusal = ""};

const struct hpcp_kernel hpcp_ra_mpi_reference = {
    .family = "ra",
    .variant = "mpi",
    .algorithm = "reference",
    .summary = "RandomAccess on one table over all ranks, HPCC's algorithm (HPCC MPIRandomAccess)",
    .driver = hpcp_ra_driver,
    .setup = ref_setup,
    .run = ref_run,
    .verify = ra_mpi_verify,
    .teardown = ref_teardown,
    .family_data = &reference,
    .options = &ra_options_desc,
    .records = &ra_records,
};
