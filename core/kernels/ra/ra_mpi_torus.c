/* RandomAccess `mpi`, algorithm `torus`: Garg & Sabharwal's aggregation and
 * software routing on a virtual d-dimensional grid of ranks (--grid, or
 * --dims factorised by MPI_Dims_create). An update travels in dimension
 * order: first along axis 0 to the rank with the owner's axis-0 coordinate,
 * then along axis 1, and so on, so each rank sends only to the
 * sum(D_k - 1) ranks on its own axes. A rank keeps one bucket per such
 * neighbour, of floor(lookahead / buckets) updates, and sends a bucket when
 * it is full; updates in buckets and in unfinished sends count toward the
 * look-ahead, and a rank generates only while that count is below it. When
 * the look-ahead is full the fullest bucket goes early.
 *
 * The end, axis by axis: a rank that has generated everything sends what
 * its buckets hold and a "done" to its axis-0 neighbours, with the number of
 * messages it sent each. Once every axis-0 neighbour's messages have all
 * arrived, nothing more can come along axis 0, so nothing more can enter a
 * bucket of axis 0 or 1 but from axis-1 arrivals, and the same repeats for
 * axis 1, 2, ... Counting matters: with several receives posted, a "done"
 * can complete before a data message that arrived ahead of it. */
#include <stdio.h>
#include <stdlib.h>

#include "hpcprobe/record.h"
#include "hpcprobe/util.h"
#include "ra_grid.h"
#include "ra_mpi.h"

/* GEN_BATCH: updates generated between two polls of the receives; a poll
 * costs about as much as a few dozen updates. */
enum { TAG_DATA = 1, TAG_DONE = 2, NRECV = 4, GEN_BATCH = 256 };

struct torus {
    MPI_Comm comm;
    struct ra_routes rt;
    int capacity;
    uint64_t *bucket;    /* nbuckets x capacity words: bucket b from b * capacity */
    int *bucket_n;       /* updates in each bucket */
    long long pending;   /* sum of bucket_n */
    struct ra_sendpool pool;
    long long inflight;  /* updates in sends not completed */
    uint64_t *recvbuf, batch[GEN_BATCH], *local;
    size_t nlocal;
    MPI_Request rreq[NRECV];
    int *sent_msgs, *got_msgs, *announced; /* per bucket (neighbour); announced: -1 until done */
    unsigned char *sent_to;
};

static void note_pending(struct ra_state *s, struct torus *t)
{
    long long held = t->pending + t->inflight + (long long)t->nlocal;
    s->max_pending = held > s->max_pending ? held : s->max_pending;
}

/* Send bucket b (not empty). */
static void flush(struct ra_state *s, struct torus *t, int b)
{
    note_pending(s, t); /* the peak: just before a bucket leaves */
    long long released;
    int i = ra_sendpool_take(&t->pool, &released), n = t->bucket_n[b];
    int dest = t->rt.bucket_rank[b];
    t->inflight -= released;
    memcpy(t->pool.slot[i], t->bucket + (size_t)b * (size_t)t->capacity,
           (size_t)n * sizeof(uint64_t));
    MPI_Isend(t->pool.slot[i], n, MPI_UINT64_T, dest, TAG_DATA, t->comm, &t->pool.sreq[i]);
    t->pool.slot_n[i] = n;
    t->inflight += n;
    t->pending -= n;
    t->bucket_n[b] = 0;
    t->sent_msgs[b]++;
    s->messages_sent++;
    s->bytes_sent += (long long)n * (long long)sizeof(uint64_t);
    s->partners += !t->sent_to[dest];
    t->sent_to[dest] = 1;
}

/* Send the fullest bucket; 0 when every bucket was empty. A scan: it runs
 * only when the look-ahead is full, and full buckets go out by themselves. */
static int flush_largest(struct ra_state *s, struct torus *t)
{
    int best = -1;
    for (int b = 0, most = 0; b < t->rt.nbuckets; b++)
        if (t->bucket_n[b] > most) {
            most = t->bucket_n[b];
            best = b;
        }
    if (best < 0)
        return 0;
    flush(s, t, best);
    return 1;
}

/* One update here or one hop further; local ones wait in `local` so they
 * are applied as a list (with prefetch). */
static void route(struct ra_state *s, struct torus *t, uint64_t v)
{
    int b = t->rt.bucket_of[ra_owner_of(s, v)];
    if (b < 0) {
        t->local[t->nlocal++] = v;
        return;
    }
    t->bucket[(size_t)b * (size_t)t->capacity + (size_t)t->bucket_n[b]++] = v;
    t->pending++;
    if (t->bucket_n[b] == t->capacity)
        flush(s, t, b);
}

/* Called after each batch or message, and in flush: with those, the
 * pending peak is seen without a check per update. */
static void apply_local(struct ra_state *s, struct torus *t)
{
    note_pending(s, t);
    ra_apply_list(s, t->local, t->nlocal);
    t->nlocal = 0;
}

static void post_recv(struct torus *t, int i)
{
    MPI_Irecv(t->recvbuf + (size_t)i * (size_t)t->capacity, t->capacity, MPI_UINT64_T,
              MPI_ANY_SOURCE, MPI_ANY_TAG, t->comm, &t->rreq[i]);
}

static void handle(struct ra_state *s, struct torus *t, int i, const MPI_Status *st)
{
    int b = t->rt.bucket_of[st->MPI_SOURCE];
    const uint64_t *v = t->recvbuf + (size_t)i * (size_t)t->capacity;
    if (st->MPI_TAG == TAG_DONE) {
        t->announced[b] = (int)v[0];
    } else {
        int n = 0;
        t->got_msgs[b]++;
        MPI_Get_count(st, MPI_UINT64_T, &n);
        for (int j = 0; j < n; j++)
            route(s, t, v[j]);
        apply_local(s, t);
    }
    post_recv(t, i);
}

static void poll(struct ra_state *s, struct torus *t)
{
    for (;;) {
        int i, arrived = 0;
        MPI_Status st;
        MPI_Testany(NRECV, t->rreq, &i, &arrived, &st);
        if (!arrived || i == MPI_UNDEFINED)
            return;
        handle(s, t, i, &st);
    }
}

static void generate(struct ra_state *s, struct torus *t)
{
    uint64_t rng_state = ra_rng_jump(s->p.rng, s->seq_start), done = 0;
    double t0 = MPI_Wtime();
    long long q = s->p.lookahead;
    while (done < s->my_updates) {
        poll(s, t);
        long long room = q - t->pending - t->inflight;
        if (room <= 0) {
            if (!flush_largest(s, t))
                t->inflight -= ra_sendpool_reap(&t->pool); /* all in flight: what completed? */
            continue;
        }
        uint64_t m = s->my_updates - done;
        m = m < (uint64_t)room ? m : (uint64_t)room;
        m = m < GEN_BATCH ? m : GEN_BATCH;
        ra_generate(s->p.rng, &rng_state, t->batch, m);
        for (uint64_t j = 0; j < m; j++)
            route(s, t, t->batch[j]);
        apply_local(s, t);
        done += m;
        if (s->p.time_limit_s > 0 && (done & 1023) < m && MPI_Wtime() - t0 > s->p.time_limit_s)
            break;
    }
    s->executed = done;
}

/* Every neighbour on axis k has said "done" and all it sent has arrived. */
static int axis_complete(const struct torus *t, int k)
{
    for (int b = 0; b < t->rt.nbuckets; b++)
        if (t->rt.bucket_axis[b] == k && (t->announced[b] < 0 || t->got_msgs[b] < t->announced[b]))
            return 0;
    return 1;
}

/* Axis by axis: empty the buckets, say "done" along the axis with the
 * message count, and keep routing until that axis is complete. */
static void finish(struct ra_state *s, struct torus *t)
{
    for (int k = 0; k < t->rt.nd; k++) {
        while (flush_largest(s, t))
            ;
        for (int b = 0; b < t->rt.nbuckets; b++) {
            uint64_t count = (uint64_t)t->sent_msgs[b];
            if (t->rt.bucket_axis[b] == k)
                MPI_Send(&count, 1, MPI_UINT64_T, t->rt.bucket_rank[b], TAG_DONE, t->comm);
        }
        while (!axis_complete(t, k)) {
            int i;
            MPI_Status st;
            MPI_Waitany(NRECV, t->rreq, &i, &st);
            handle(s, t, i, &st);
        }
    }
    t->inflight -= ra_sendpool_wait(&t->pool);
    for (int i = 0; i < NRECV; i++) { /* nothing can match them any more */
        MPI_Cancel(&t->rreq[i]);
        MPI_Wait(&t->rreq[i], MPI_STATUS_IGNORE);
    }
}

static int torus_run(struct hpcp_bench *b, double *seconds)
{
    struct ra_state *s = b->state;
    struct torus *t = s->algo;
    ra_table_init(&s->table, s->my_start);
    for (int k = 0; k < t->rt.nd; k++)
        s->stages += t->rt.dims[k] > 1;
    for (int i = 0; i < t->rt.nbuckets; i++) {
        t->sent_msgs[i] = t->got_msgs[i] = 0;
        t->announced[i] = -1;
    }
    for (int r = 0; r < b->ranks; r++)
        t->sent_to[r] = 0;
    MPI_Barrier(b->comm);
    double t0 = MPI_Wtime();
    for (int i = 0; i < NRECV; i++)
        post_recv(t, i);
    generate(s, t);
    finish(s, t);
    MPI_Barrier(b->comm);
    *seconds = MPI_Wtime() - t0;
    return 0;
}

static int torus_setup(struct hpcp_bench *b)
{
    struct ra_state *s = b->state;
    struct torus *t = calloc(1, sizeof *t);
    s->algo = t;
    int failed = !t;
    if (t) {
        t->comm = MPI_COMM_NULL;
        failed = ra_routes_plan(&t->rt, s->p.grid, s->p.ndims, b->rank, b->ranks);
        /* Garg & Sabharwal: the look-ahead shared equally by the buckets. */
        int nb = t->rt.nbuckets, per = nb ? s->p.lookahead / nb : s->p.lookahead;
        t->capacity = t->pool.capacity = per > 0 ? per : 1;
        t->recvbuf = malloc((size_t)NRECV * (size_t)t->capacity * sizeof *t->recvbuf);
        t->local = malloc(((size_t)t->capacity + GEN_BATCH) * sizeof *t->local);
        t->sent_to = calloc((size_t)b->ranks, 1);
        t->sent_msgs = malloc(3 * ((size_t)t->rt.nbuckets + 1) * sizeof *t->sent_msgs);
        if (t->sent_msgs) {
            t->got_msgs = t->sent_msgs + t->rt.nbuckets + 1;
            t->announced = t->got_msgs + t->rt.nbuckets + 1;
        }
        t->bucket = malloc(((size_t)t->rt.nbuckets + 1) * (size_t)t->capacity * sizeof *t->bucket);
        t->bucket_n = calloc((size_t)t->rt.nbuckets + 1, sizeof *t->bucket_n);
        failed = failed || !t->sent_msgs || !t->recvbuf || !t->local || !t->sent_to || !t->bucket ||
                 !t->bucket_n;
    }
    return ra_mpi_setup(b, t ? &t->comm : NULL, failed) ? HPCP_EXIT_RUNTIME : 0;
}

static void torus_teardown(struct hpcp_bench *b)
{
    struct ra_state *s = b->state;
    struct torus *t = s->algo;
    if (t) {
        ra_sendpool_free(&t->pool);
        ra_routes_free(&t->rt);
        free(t->recvbuf);
        free(t->local);
        free(t->sent_to);
        free(t->sent_msgs);
        free(t->bucket);
        free(t->bucket_n);
        ra_mpi_teardown(b, &t->comm);
        free(t);
    }
    s->algo = NULL;
}

/* The record names the grid the ranks were arranged in ("4x2"). */
static void torus_record_params(struct hpcp_record *r, const struct ra_params *p)
{
    char text[128] = "";
    for (int i = 0; i < p->ndims; i++) {
        size_t u = strlen(text);
        snprintf(text + u, sizeof text - u, "%s%d", i ? "x" : "", p->grid[i]);
    }
    hpcp_record_param_string(r, "grid", text);
}

static const struct ra_algorithm torus = {.scope = RA_SCOPE_MPI,
                                          .takes =
                                              RA_TAKES_MULTICORE | RA_TAKES_OWNER | RA_TAKES_GRID,
                                          .modes = RA_MODE_RANK_PER_CORE,
                                          .default_mode = 1,
                                          .sync_refusal = "",
                                          .record_params = torus_record_params};

const struct hpcp_kernel hpcp_ra_mpi_torus = {
    .family = "ra",
    .variant = "mpi",
    .algorithm = "torus",
    .summary = "RandomAccess on one table over all ranks, updates aggregated in buckets and "
               "routed in dimension order on a virtual grid (Garg & Sabharwal)",
    .driver = hpcp_ra_driver,
    .setup = torus_setup,
    .run = torus_run,
    .verify = ra_mpi_verify,
    .teardown = torus_teardown,
    .family_data = &torus,
};
