/* RandomAccess `mpi`, algorithm `pipeline`: Garg et al.'s specialised cores
 * (mapping mode 8, section 4.3; mode 7 gives each core the look-ahead). A
 * rank holds a node's table and generates one sequence; its --threads take
 * roles instead of sharing the work:
 *   - routing threads (k' of them, --roles): the first generates and routes
 *     along the first axes of a virtual grid of ranks (as --algo torus:
 *     updates aggregated in buckets, dimension-order routing); each further
 *     routing thread routes along its share of the remaining axes, with its
 *     own communicator;
 *   - updating threads (k - k'): each applies the updates of one disjoint
 *     slice of the table, so no two threads write a word: no locks, no errors.
 * Threads pass updates through lock-free single-producer/single-consumer
 * rings. With --roles 0 the first thread routes and generates and also
 * updates the first slice (on one node there is nothing to route, and a
 * core that only generated would mostly wait).
 *
 * The look-ahead counts every update this rank holds: generated or
 * received, not yet applied or handed on by a completed send. The end of
 * the run goes axis by axis as in the torus algorithm (a "done" carrying the
 * message count per neighbour); a routing thread starts on its first axis
 * when the threads before it have closed their rings to it, and closes its
 * own rings after its last axis. Each thread's busy time (time in passes
 * that did work) over the updates it handled gives the load balance of
 * section 5.1. The roles, the memory, the reset before and the figures
 * after each repetition: ra_mpi_pipeline_setup.c. */
#include <string.h>

#include "hpcprobe/util.h"
#include "ra_mpi_pipeline.h"

static void add_pending(struct pipe *pp, struct router *r, long long n)
{
    long long now = __atomic_add_fetch(&pp->pending, n, __ATOMIC_RELAXED);
    if (r && now > r->max_pending)
        r->max_pending = now;
}

/* ---- routing threads ---------------------------------------------------- */

/* Time spent waiting for room is not busy time (it is the consumer's). */
static void push_all(struct router *r, struct ra_ring *ring, const uint64_t *v, size_t n)
{
    unsigned spins = 0;
    uint64_t t0 = 0;
    while (n) {
        size_t put = ra_ring_push(ring, v, n);
        v += put;
        n -= put;
        if (n && !t0)
            t0 = ra_ticks();
        if (n)
            ra_backoff(&spins);
    }
    if (t0)
        r->stalled += (long long)(ra_ticks() - t0);
}

static void flush_stage(struct router *r, int target)
{
    struct stage *st = &r->out[target];
    if (st->n) {
        push_all(r, ring_of(r->pp, r->id, target), st->v, (size_t)st->n);
        st->n = 0;
    }
}

static void flush_stages(struct router *r)
{
    for (int t = r->id + 1; t < r->pp->R + r->pp->U; t++)
        flush_stage(r, t);
}

static void stage(struct router *r, int target, uint64_t v)
{
    struct stage *st = &r->out[target];
    st->v[st->n++] = v;
    if (st->n == STAGE)
        flush_stage(r, target);
}

static void reap_sends(struct router *r)
{
    long long released = ra_sendpool_reap(&r->pool);
    if (released)
        add_pending(r->pp, NULL, -released);
}

static void send_bucket(struct router *r, int b)
{
    struct pipe *pp = r->pp;
    long long released;
    int i = ra_sendpool_take(&r->pool, &released), n = r->bucket_n[b];
    int dest = pp->rt_plan.bucket_rank[b];
    if (released)
        add_pending(pp, NULL, -released);
    memcpy(r->pool.slot[i], r->bucket + (size_t)b * (size_t)pp->capacity,
           (size_t)n * sizeof(uint64_t));
    MPI_Isend(r->pool.slot[i], n, MPI_UINT64_T, dest, TAG_DATA, r->comm, &r->pool.sreq[i]);
    r->pool.slot_n[i] = n;
    r->bucket_n[b] = 0;
    r->sent_msgs[b]++;
    r->messages++;
    r->bytes += (long long)n * (long long)sizeof(uint64_t);
    r->partners += !r->sent_to[dest];
    r->sent_to[dest] = 1;
}

static int send_largest(struct router *r)
{
    int best = -1;
    for (int b = 0, most = 0; b < r->pp->rt_plan.nbuckets; b++)
        if (r->bucket_n[b] > most) {
            most = r->bucket_n[b];
            best = b;
        }
    if (best >= 0)
        send_bucket(r, best);
    return best >= 0;
}

/* One update one step on: into a bucket of our axes, to the routing thread
 * of a later axis, or, when this rank owns it, to its slice's updater. */
static void route(struct router *r, uint64_t v)
{
    struct pipe *pp = r->pp;
    struct ra_state *s = pp->s;
    uint64_t g = ra_index(s->p.rng, v, s->p.table_log2);
    int b = pp->rt_plan.bucket_of[ra_dist_owner(&s->dist, g)];
    if (b < 0) {
        uint64_t off = g - s->my_start;
        int u = off < pp->first_slice
                    ? 0
                    : 1 + (int)((double)(off - pp->first_slice) * pp->slice_scale);
        u = u < pp->U ? u : pp->U - 1;
        if (u == 0 && pp->fused)
            r->local[r->nlocal++] = v, r->applied++;
        else
            stage(r, pp->R + u, v);
        return;
    }
    int axis = pp->rt_plan.bucket_axis[b];
    if (axis >= r->a1) {
        stage(r, pp->router_of_axis[axis], v);
        return;
    }
    r->bucket[(size_t)b * (size_t)pp->capacity + (size_t)r->bucket_n[b]++] = v;
    if (r->bucket_n[b] == pp->capacity)
        send_bucket(r, b);
}

/* After each batch, message or ring read: hand on what was staged and apply
 * the fused slice, so nothing waits in a stage while others starve. */
static void settle(struct router *r)
{
    flush_stages(r);
    if (r->nlocal) {
        ra_apply_list(r->pp->s, r->local, r->nlocal);
        add_pending(r->pp, NULL, -(long long)r->nlocal);
        r->nlocal = 0;
    }
}

static void route_list(struct router *r, const uint64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        route(r, v[i]);
    r->handled += (long long)n;
    settle(r);
}

static int generate(struct router *r)
{
    struct pipe *pp = r->pp;
    struct ra_state *s = pp->s;
    uint64_t batch[GEN_BATCH];
    long long held = __atomic_load_n(&pp->pending, __ATOMIC_RELAXED), room = pp->lookahead - held;
    if (room <= 0) {
        __atomic_store_n(&pp->starved, 1, __ATOMIC_RELAXED);
        return 0;
    }
    __atomic_store_n(&pp->starved, 0, __ATOMIC_RELAXED);
    uint64_t m = s->my_updates - r->generated;
    m = m < (uint64_t)room ? m : (uint64_t)room;
    m = m < GEN_BATCH ? m : GEN_BATCH;
    ra_generate(s->p.rng, &r->rng_state, batch, m);
    add_pending(pp, r, (long long)m);
    /* This rank's own updates in use are among those held when it looked,
     * and the batch: updates other threads add meanwhile are received ones. */
    if (held + (long long)m > r->max_lookahead)
        r->max_lookahead = held + (long long)m;
    r->generated += m;
    route_list(r, batch, m);
    int time_up = s->p.time_limit_s > 0 && (r->generated & 4095) < m &&
                  MPI_Wtime() - pp->t0 > s->p.time_limit_s;
    r->gen_done = r->generated == s->my_updates || time_up;
    return 1;
}

static void post_recv(struct router *r, int i)
{
    MPI_Irecv(r->recvbuf + (size_t)i * (size_t)r->pp->capacity, r->pp->capacity, MPI_UINT64_T,
              MPI_ANY_SOURCE, MPI_ANY_TAG, r->comm, &r->rreq[i]);
}

/* The receive calls of a data message (the test that found it, its count,
 * the receive posted again) are timed apart from routing its updates:
 * section 5.2's per-packet receive cost. */
static int poll_network(struct router *r)
{
    int any = 0;
    for (;;) {
        int i, arrived = 0, n = 0;
        MPI_Status st;
        if (r->a0 == r->a1)
            return any;
        uint64_t t0 = ra_ticks();
        MPI_Testany(NRECV, r->rreq, &i, &arrived, &st);
        if (!arrived || i == MPI_UNDEFINED)
            return any;
        int b = r->pp->rt_plan.bucket_of[st.MPI_SOURCE];
        const uint64_t *v = r->recvbuf + (size_t)i * (size_t)r->pp->capacity;
        if (st.MPI_TAG == TAG_DONE) {
            r->announced[b] = (int)v[0];
            post_recv(r, i);
        } else {
            MPI_Get_count(&st, MPI_UINT64_T, &n);
            uint64_t spent = ra_ticks() - t0;
            r->got_msgs[b]++;
            add_pending(r->pp, r, n);
            route_list(r, v, (size_t)n);
            t0 = ra_ticks();
            post_recv(r, i);
            r->recv_ticks += (long long)(spent + (ra_ticks() - t0));
            r->received++;
        }
        any = 1;
    }
}

/* Updates handed on by earlier routing threads. */
static int read_rings(struct router *r)
{
    int any = 0;
    for (int from = 0; from < r->id; from++) {
        struct ra_ring *ring = ring_of(r->pp, from, r->id);
        const uint64_t *v;
        size_t n = ra_ring_peek(ring, &v);
        if (n) {
            route_list(r, v, n);
            ra_ring_release(ring, n);
            any = 1;
        }
    }
    return any;
}

static int upstream_done(struct router *r)
{
    if (r->id == 0)
        return r->gen_done;
    for (int from = 0; from < r->id; from++)
        if (!ra_ring_finished(ring_of(r->pp, from, r->id)))
            return 0;
    return 1;
}

static int axis_complete(const struct router *r, int k)
{
    for (int b = 0; b < r->pp->rt_plan.nbuckets; b++)
        if (r->pp->rt_plan.bucket_axis[b] == k &&
            (r->announced[b] < 0 || r->got_msgs[b] < r->announced[b]))
            return 0;
    return 1;
}

static void start_axis(struct router *r, int k)
{
    while (send_largest(r))
        ;
    for (int b = 0; b < r->pp->rt_plan.nbuckets; b++) {
        uint64_t count = (uint64_t)r->sent_msgs[b];
        if (r->pp->rt_plan.bucket_axis[b] == k)
            MPI_Send(&count, 1, MPI_UINT64_T, r->pp->rt_plan.bucket_rank[b], TAG_DONE, r->comm);
    }
}

/* The end, axis by axis; 1 once every axis is complete. */
static int advance_end(struct router *r)
{
    if (r->phase == r->a0 - 1) {
        if (!upstream_done(r))
            return 0;
        r->phase = r->a0;
        if (r->phase < r->a1)
            start_axis(r, r->phase);
    }
    while (r->phase < r->a1 && axis_complete(r, r->phase))
        if (++r->phase < r->a1)
            start_axis(r, r->phase);
    return r->phase == r->a1;
}

static void router_finish(struct router *r)
{
    long long released = ra_sendpool_wait(&r->pool);
    if (released)
        add_pending(r->pp, NULL, -released);
    for (int i = 0; i < NRECV && r->a0 < r->a1; i++) { /* nothing can match them any more */
        MPI_Cancel(&r->rreq[i]);
        MPI_Wait(&r->rreq[i], MPI_STATUS_IGNORE);
    }
    settle(r);
    for (int t = r->id + 1; t < r->pp->R + r->pp->U; t++)
        ra_ring_close(ring_of(r->pp, r->id, t));
}

static void router_loop(struct router *r)
{
    unsigned spins = 0;
    for (int i = 0; i < NRECV && r->a0 < r->a1; i++)
        post_recv(r, i);
    for (;;) {
        uint64_t t0 = ra_ticks();
        int work = 0;
        if (r->id == 0 && !r->gen_done)
            work |= generate(r);
        work |= read_rings(r);
        work |= poll_network(r);
        reap_sends(r);
        if (!work && __atomic_load_n(&r->pp->starved, __ATOMIC_RELAXED))
            work = send_largest(r); /* room for the generator */
        if (advance_end(r))
            break;
        if (work) {
            r->busy += (long long)(ra_ticks() - t0);
            spins = 0;
        } else {
            ra_backoff(&spins);
        }
    }
    router_finish(r);
    r->busy -= r->stalled;
}

/* ---- updating threads ---------------------------------------------------- */

static void updater_loop(struct pipe *pp, int u)
{
    struct updater *up = &pp->up[u];
    unsigned spins = 0;
    for (;;) {
        uint64_t t0 = ra_ticks();
        int work = 0, finished = 1;
        for (int from = 0; from < pp->R; from++) {
            struct ra_ring *ring = ring_of(pp, from, pp->R + u);
            const uint64_t *v;
            size_t n = ra_ring_peek(ring, &v);
            if (n) {
                ra_apply_list(pp->s, v, n);
                ra_ring_release(ring, n);
                add_pending(pp, NULL, -(long long)n);
                up->handled += (long long)n;
                work = 1;
            }
            finished &= ra_ring_finished(ring);
        }
        if (work) {
            up->busy += (long long)(ra_ticks() - t0);
            spins = 0;
        } else if (finished) {
            return;
        } else {
            ra_backoff(&spins);
        }
    }
}

static void thread_main(int tid, void *arg)
{
    struct pipe *pp = arg;
    if (tid < pp->R)
        router_loop(&pp->rt[tid]);
    else /* fused: thread 0 is also updater 0, so thread t updates slice t */
        updater_loop(pp, pp->fused ? tid : tid - pp->R);
}

static int pipeline_run(struct hpcp_bench *b, double *seconds)
{
    struct ra_state *s = b->state;
    struct pipe *pp = s->algo;
    ra_table_init(&s->table, s->my_start);
    for (int r = 0; r < pp->R; r++)
        ra_pipeline_reset_router(&pp->rt[r], s);
    memset(pp->up, 0, (size_t)pp->U * sizeof *pp->up);
    pp->pending = 0;
    pp->starved = 0;
    ra_pipeline_collect(pp,
                        ra_team_run_timed(&pp->team, thread_main, pp, b->comm, &pp->t0, seconds));
    ra_pipeline_rebalance(pp);
    return 0;
}

static const struct ra_algorithm pipeline = {
    .scope = RA_SCOPE_MPI,
    .takes =
        RA_TAKES_MULTICORE | RA_TAKES_OWNER | RA_TAKES_GRID | RA_TAKES_ROLES | RA_TAKES_OVERLAP,
    .overlap_default = 1, /* bench/ra_ceiling: 1.22x off, 2 ranks */
    .modes = RA_MODE(7) | RA_MODE(8),
    .default_mode = 8,
    .threaded = 1,
    .sync_refusal = ": the pipeline's updaters own disjoint slices of the table and need none",
    .record_params = ra_grid_record_params,
    .record_threads = ra_pipeline_record_threads};

const struct hpcp_kernel hpcp_ra_mpi_pipeline = {
    .family = "ra",
    .variant = "mpi",
    .algorithm = "pipeline",
    .summary = "RandomAccess with specialised threads: one generator, routing threads per "
               "axis of a virtual grid, updaters on disjoint table slices, joined by lock-free "
               "rings (mapping modes 7 and 8 of Garg et al.)",
    .driver = hpcp_ra_driver,
    .setup = ra_pipeline_setup,
    .run = pipeline_run,
    .verify = ra_mpi_verify,
    .teardown = ra_pipeline_teardown,
    .family_data = &pipeline,
    .options = &ra_options_desc,
    .records = &ra_records,
};
