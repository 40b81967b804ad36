/* RandomAccess `mpi --algo pipeline` outside its timed threads: the axes
 * each routing thread takes and the roles named in the record, the memory,
 * the reset before a repetition, the figures collected after it and the
 * slices rebalanced from them, and the teardown. The threads' loops:
 * ra_mpi_pipeline.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcprobe/record.h"
#include "hpcprobe/util.h"
#include "ra_mpi_pipeline.h"

/* Routing thread r takes a contiguous share of the axes that cross ranks;
 * the first also takes the axes before its share, the last those after. */
static void assign_axes(struct pipe *pp)
{
    int net[RA_MAX_DIMS], na = 0;
    for (int k = 0; k < pp->rt_plan.nd; k++)
        if (pp->rt_plan.dims[k] > 1)
            net[na++] = k;
    for (int r = 0; r < pp->R; r++) {
        struct router *rt = &pp->rt[r];
        rt->a0 = r == 0 || na == 0 ? 0 : net[r * na / pp->R];
        rt->a1 = r == pp->R - 1 || na == 0 ? (na ? pp->rt_plan.nd : 0) : net[(r + 1) * na / pp->R];
        for (int k = rt->a0; k < rt->a1; k++)
            pp->router_of_axis[k] = r;
    }
}

static void describe_roles(struct pipe *pp)
{
    char *out = pp->s->thread_roles;
    size_t len = sizeof pp->s->thread_roles, used = 0;
    for (int t = 0; t < pp->team.n && used < len; t++) {
        const char *sep = t ? ";" : "";
        if (t < pp->R) {
            struct router *r = &pp->rt[t];
            used += (size_t)snprintf(out + used, len - used, "%s%s", sep,
                                     t == 0 ? "generate" : "route");
            if (r->a0 < r->a1 && used < len)
                used += (size_t)snprintf(out + used, len - used, "%sroute axes %d-%d",
                                         t == 0 ? "+" : " ", r->a0, r->a1 - 1);
            if (t == 0 && pp->fused && used < len)
                used += (size_t)snprintf(out + used, len - used, "+update slice 0");
        } else if (used < len) {
            used += (size_t)snprintf(out + used, len - used, "%supdate slice %d", sep,
                                     pp->fused ? t : t - pp->R);
        }
    }
}

/* Section 4.3.1's buckets, for the record: each routing thread with axes of
 * its own posts NRECV receives of a bucket each; every routing thread has a
 * ring to each later thread. */
static void note_buckets(struct pipe *pp, int send_buckets)
{
    struct ra_state *s = pp->s;
    s->bucket_size = pp->capacity;
    s->send_buckets = send_buckets;
    s->receive_buckets = 0;
    s->intercore_buckets = 0;
    for (int r = 0; r < pp->R; r++) {
        s->receive_buckets += pp->rt[r].a0 < pp->rt[r].a1 ? NRECV : 0;
        s->intercore_buckets += pp->R + pp->U - r - 1;
    }
    s->intercore_bucket_size = RING_WORDS;
}

static int alloc_router(struct pipe *pp, struct router *r, int ranks)
{
    size_t cap = (size_t)pp->capacity, nb = (size_t)pp->rt_plan.nbuckets + 1;
    r->pp = pp;
    r->comm = MPI_COMM_NULL;
    r->pool.capacity = pp->capacity;
    r->bucket = malloc(nb * cap * sizeof *r->bucket);
    r->bucket_n = calloc(nb, sizeof *r->bucket_n);
    r->recvbuf = malloc(NRECV * cap * sizeof *r->recvbuf);
    r->local = malloc((cap + GEN_BATCH) * sizeof *r->local);
    r->sent_msgs = malloc(3 * nb * sizeof *r->sent_msgs);
    r->sent_to = calloc((size_t)ranks, 1);
    r->out = calloc((size_t)(pp->R + pp->U), sizeof *r->out);
    if (r->sent_msgs) {
        r->got_msgs = r->sent_msgs + nb;
        r->announced = r->got_msgs + nb;
    }
    return r->bucket && r->bucket_n && r->recvbuf && r->local && r->sent_msgs && r->sent_to &&
                   r->out
               ? 0
               : -1;
}

static int alloc_pipe(struct pipe *pp, int ranks)
{
    int T = pp->team.n, n = pp->R + pp->U;
    pp->rt = calloc((size_t)pp->R, sizeof *pp->rt);
    pp->up = calloc((size_t)pp->U, sizeof *pp->up);
    pp->ring = calloc((size_t)(pp->R * n), sizeof *pp->ring);
    if (!pp->rt || !pp->up || !pp->ring || T < 1)
        return -1;
    for (int r = 0; r < pp->R; r++) {
        pp->rt[r].id = r;
        if (alloc_router(pp, &pp->rt[r], ranks))
            return -1;
        for (int t = r + 1; t < n; t++)
            if (ra_ring_init(ring_of(pp, r, t), RING_WORDS))
                return -1;
    }
    return 0;
}

void ra_pipeline_reset_router(struct router *r, const struct ra_state *s)
{
    struct pipe *pp = r->pp;
    for (int b = 0; b <= pp->rt_plan.nbuckets; b++) {
        r->sent_msgs[b] = r->got_msgs[b] = 0;
        r->announced[b] = -1;
        r->bucket_n[b] = 0;
    }
    memset(r->sent_to, 0, (size_t)s->dist.ranks);
    for (int t = 0; t < pp->R + pp->U; t++) {
        r->out[t].n = 0;
        if (t > r->id)
            ra_ring_reset(ring_of(pp, r->id, t));
    }
    r->phase = r->a0 - 1;
    r->nlocal = 0;
    r->generated = 0;
    r->gen_done = r->id != 0;
    r->rng_state = ra_rng_jump(s->p.rng, s->seq_start);
    r->messages = r->bytes = r->partners = r->max_pending = r->busy = r->handled = 0;
    r->max_lookahead = 0;
    r->applied = r->stalled = 0;
    r->recv_ticks = r->received = 0;
}

/* Slice 0 is [0, share * n); slices 1 .. U-1 split the rest equally. */
static void set_slices(struct pipe *pp, double share)
{
    uint64_t n = pp->s->table.n;
    pp->first_slice = pp->U == 1 ? n : (uint64_t)(share * (double)n);
    pp->slice_scale = pp->U > 1 && n > pp->first_slice
                          ? (double)(pp->U - 1) / (double)(n - pp->first_slice)
                          : 0.0;
}

/* The fused thread routes every update and applies its slice; the others
 * only apply. From the last repetition's busy times, per update applied
 * (c_u, the updaters) and per update routed (c_r, the rest of the fused
 * thread's time), the share f that gives every thread the same work:
 * c_r + f c_u = (1 - f) c_u / (U - 1), so f = (c_u - (U - 1) c_r) / (U c_u). */
void ra_pipeline_rebalance(struct pipe *pp)
{
    long long bu = 0, au = 0;
    for (int u = 1; u < pp->U; u++)
        bu += pp->up[u].busy, au += pp->up[u].handled;
    const struct router *r = &pp->rt[0];
    if (!pp->fused || pp->U < 2 || au == 0 || r->handled == 0)
        return;
    double cu = (double)bu / (double)au;
    double cr = ((double)r->busy - (double)r->applied * cu) / (double)r->handled;
    double f = (cu - (pp->U - 1) * (cr > 0 ? cr : 0)) / (pp->U * cu);
    set_slices(pp, f < 0 ? 0 : f > 1.0 / pp->U ? 1.0 / pp->U : f);
}

/* Sum the routing threads' counters into the rank's; per-thread figures.
 * A routing thread's updates are those it routed (the fused one applies
 * its slice's share of them too); an updater's, those it applied. */
void ra_pipeline_collect(struct pipe *pp, double ticks_per_ns)
{
    struct ra_state *s = pp->s;
    long long recv_ticks = 0;
    s->messages_received = 0;
    for (int r = 0; r < pp->R; r++) {
        struct router *rt = &pp->rt[r];
        recv_ticks += rt->recv_ticks;
        s->messages_received += rt->received;
        s->messages_sent += rt->messages;
        s->bytes_sent += rt->bytes;
        s->partners += rt->partners;
        s->max_pending = rt->max_pending > s->max_pending ? rt->max_pending : s->max_pending;
        if (rt->max_lookahead > s->max_lookahead)
            s->max_lookahead = rt->max_lookahead;
    }
    for (int k = 0; k < pp->rt_plan.nd; k++)
        s->stages += pp->rt_plan.dims[k] > 1;
    s->executed = pp->rt[0].generated;
    s->ticks_per_ns = ticks_per_ns;
    s->receive_ns = (long long)((double)recv_ticks / ticks_per_ns);
    for (int t = 0; t < pp->team.n; t++) {
        int u = pp->fused ? t : t - pp->R;
        s->thread_busy_ticks[t] = t < pp->R ? pp->rt[t].busy : pp->up[u].busy;
        s->thread_updates[t] = t < pp->R ? pp->rt[t].handled : pp->up[u].handled;
        s->thread_busy_ns[t] = (long long)((double)s->thread_busy_ticks[t] / ticks_per_ns);
    }
}

int ra_pipeline_setup(struct hpcp_bench *b)
{
    struct ra_state *s = b->state;
    struct pipe *pp = calloc(1, sizeof *pp);
    int T = s->p.threads, failed = !pp;
    s->algo = pp;
    if (pp) {
        pp->s = s;
        pp->fused = s->p.roles == 0;
        pp->R = pp->fused ? 1 : s->p.roles;
        pp->U = pp->fused ? T : T - s->p.roles;
        /* Mode 7: each core has the look-ahead; mode 8: one for the node. */
        pp->lookahead = (long long)s->p.lookahead * (s->p.mapping_mode == 7 ? T : 1);
        ra_team_plan(&pp->team, T, b->si->node_comm);
        failed = ra_routes_plan(&pp->rt_plan, s->p.grid, s->p.ndims, b->rank, b->ranks);
        /* As the torus: overlapped, each bucket gets half its share, so a
         * full one can be in flight while its next half fills. */
        int nb = pp->rt_plan.nbuckets;
        int halves = s->p.overlap && nb && pp->lookahead >= 2 * nb ? 2 : 1;
        int per = nb ? (int)(pp->lookahead / (nb * halves)) : (int)pp->lookahead;
        pp->capacity = per > 0 ? per : 1;
        failed = failed || alloc_pipe(pp, b->ranks) || ra_thread_state_alloc(s, T);
        if (!failed) {
            assign_axes(pp);
            describe_roles(pp);
            note_buckets(pp, nb);
            s->nranges = 0; /* one generator: the verifier replays one range */
            for (int t = 0; t < T; t++)
                s->thread_cpu[t] = pp->team.cpu[t];
        }
    }
    failed = ra_mpi_setup(b, NULL, failed);
    /* A communicator per routing thread (collective, so every rank makes
     * the same number): no thread can match another's messages. */
    int R = pp && !failed ? pp->R : 0, most = 0;
    MPI_Allreduce(&R, &most, 1, MPI_INT, MPI_MAX, b->comm);
    for (int r = 0; r < most; r++) {
        MPI_Comm c;
        MPI_Comm_dup(b->comm, &c);
        if (r < R)
            pp->rt[r].comm = c;
        else
            MPI_Comm_free(&c);
    }
    if (pp && !failed)
        set_slices(pp, 1.0 / pp->U);
    return hpcp_any(b->comm, failed) ? HPCP_EXIT_RUNTIME : 0;
}

void ra_pipeline_teardown(struct hpcp_bench *b)
{
    struct ra_state *s = b->state;
    struct pipe *pp = s->algo;
    if (pp) {
        int n = pp->R + pp->U;
        for (int r = 0; pp->rt && r < pp->R; r++) {
            struct router *rt = &pp->rt[r];
            ra_sendpool_free(&rt->pool);
            free(rt->bucket);
            free(rt->bucket_n);
            free(rt->recvbuf);
            free(rt->local);
            free(rt->sent_msgs);
            free(rt->sent_to);
            free(rt->out);
            if (rt->comm != MPI_COMM_NULL)
                MPI_Comm_free(&rt->comm);
            for (int t = r + 1; pp->ring && t < n; t++)
                ra_ring_free(ring_of(pp, r, t));
        }
        free(pp->rt);
        free(pp->up);
        free(pp->ring);
        ra_routes_free(&pp->rt_plan);
        free(pp);
    }
    MPI_Comm none = MPI_COMM_NULL;
    ra_mpi_teardown(b, &none);
    ra_thread_state_free(s);
    s->algo = NULL;
}

void ra_pipeline_record_threads(struct hpcp_record *r, const struct ra_params *p)
{
    hpcp_record_param_int(r, "roles", p->roles);
}
