/* RandomAccess `mpi`, algorithm `shared`: mapping modes 5 and 6 of Garg et
 * al. (Table 1). Each rank holds one table (a node's), and its --threads T
 * threads each generate their own part of the rank's sequence and update
 * that table directly: with no synchronisation (the read-modify-write
 * races, and lost updates become a random error count), with an atomic
 * XOR, or under K striped mutexes (--sync none|atomic|locks:K).
 * Mode 5 gives every thread the look-ahead, mode 6 shares it among the
 * rank's threads.
 *
 * With several ranks, every step each thread generates its batch, applies
 * the updates this rank owns and sorts the others by owner; the first
 * thread (the one that called MPI) exchanges all threads' lists with
 * MPI_Alltoallv, and then the threads apply what arrived, each a share. */
#include <stdio.h>
#include <stdlib.h>

#include "hpcprobe/harness.h"
#include "hpcprobe/record.h"
#include "hpcprobe/util.h"
#include "ra_mpi.h"
#include "ra_threads.h"

struct lock {
    pthread_mutex_t mu;
    char pad[64 - sizeof(pthread_mutex_t) % 64]; /* one lock per cache line */
};

struct worker {
    uint64_t start, count, done;
    uint64_t *batch, *remote, *sorted; /* q words each */
    int *owner, *cnt, *off;            /* q; ranks; ranks */
    long long ticks;
    char pad[64];
};

struct shared {
    MPI_Comm comm;
    struct ra_state *s;
    int me;
    struct ra_team team;
    pthread_barrier_t bar;
    struct lock *locks;
    uint64_t lock_mask;  /* K - 1 when K is a power of two, else 0 */
    int q;               /* updates a thread generates per batch (its look-ahead share) */
    struct worker *w;
    uint64_t steps;
    uint64_t *send, *recv;
    size_t recv_cap, nrecv;
    int *scount, *sdispl, *rcount, *rdispl;
    int stop;            /* set by thread 0, read by all */
    int bar_ready;
    uint64_t lose_left, lose_every; /* test hook: updates rank 0's thread 0 drops */
    double t0;
};

/* The word of update v in this rank's table. */
static inline uint64_t *word_of(struct shared *sh, uint64_t v)
{
    struct ra_state *s = sh->s;
    return s->table.words + (ra_index(s->p.rng, v, s->p.table_log2) - s->my_start);
}

static void apply_none(struct shared *sh, const uint64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (i + RA_PREFETCH_AHEAD < n)
            __builtin_prefetch(word_of(sh, v[i + RA_PREFETCH_AHEAD]), 1, 0);
        *word_of(sh, v[i]) ^= v[i];
    }
}

static void apply_atomic(struct shared *sh, const uint64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (i + RA_PREFETCH_AHEAD < n)
            __builtin_prefetch(word_of(sh, v[i + RA_PREFETCH_AHEAD]), 1, 0);
        __atomic_fetch_xor(word_of(sh, v[i]), v[i], __ATOMIC_RELAXED);
    }
}

static void apply_locked(struct shared *sh, const uint64_t *v, size_t n)
{
    uint64_t k = (uint64_t)sh->s->p.locks;
    for (size_t i = 0; i < n; i++) {
        if (i + RA_PREFETCH_AHEAD < n)
            __builtin_prefetch(word_of(sh, v[i + RA_PREFETCH_AHEAD]), 1, 0);
        uint64_t g = ra_index(sh->s->p.rng, v[i], sh->s->p.table_log2);
        pthread_mutex_t *mu = &sh->locks[sh->lock_mask ? g & sh->lock_mask : g % k].mu;
        pthread_mutex_lock(mu);
        *word_of(sh, v[i]) ^= v[i];
        pthread_mutex_unlock(mu);
    }
}

static void apply(struct shared *sh, const uint64_t *v, size_t n)
{
    switch (sh->s->p.sync) {
    case RA_SYNC_NONE: apply_none(sh, v, n); break;
    case RA_SYNC_ATOMIC: apply_atomic(sh, v, n); break;
    case RA_SYNC_LOCKS: apply_locked(sh, v, n); break;
    }
}

/* Test hook (HPCPROBE_INJECT_FAULT=lose:N): thread 0 of rank 0 drops every
 * lose_every-th update of its batch until N are lost; they stay counted as
 * executed, so the verifier finds each one's word wrong. */
static size_t drop_injected(struct shared *sh, int tid, uint64_t *v, size_t n, uint64_t pos)
{
    if (tid != 0 || sh->lose_left == 0)
        return n;
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        if (sh->lose_left > 0 && (pos + i) % sh->lose_every == 0) {
            sh->lose_left--;
            continue;
        }
        v[kept++] = v[i];
    }
    return kept;
}

/* Generate the next batch of thread tid: m updates (0 when done). */
static size_t next_batch(struct shared *sh, int tid, uint64_t *rng_state)
{
    struct worker *w = &sh->w[tid];
    uint64_t left = w->count - w->done;
    size_t m = left < (uint64_t)sh->q ? (size_t)left : (size_t)sh->q;
    ra_generate(sh->s->p.rng, rng_state, w->batch, m);
    w->done += m;
    return m;
}

/* One rank: generate and apply, batch after batch; thread 0 watches the clock. */
static void run_alone(struct shared *sh, int tid)
{
    struct worker *w = &sh->w[tid];
    uint64_t rng_state = ra_rng_jump(sh->s->p.rng, w->start);
    for (size_t m; !__atomic_load_n(&sh->stop, __ATOMIC_RELAXED);) {
        uint64_t pos = w->done;
        if (!(m = next_batch(sh, tid, &rng_state)))
            break;
        apply(sh, w->batch, drop_injected(sh, tid, w->batch, m, pos));
        if (tid == 0 && sh->s->p.time_limit_s > 0 && MPI_Wtime() - sh->t0 > sh->s->p.time_limit_s)
            __atomic_store_n(&sh->stop, 1, __ATOMIC_RELAXED);
    }
}

/* Apply what this rank owns now; sort the rest by owner (counting sort). */
static void split_batch(struct shared *sh, int tid, size_t m)
{
    struct ra_state *s = sh->s;
    struct worker *w = &sh->w[tid];
    int P = s->dist.ranks;
    size_t nlocal = 0, nremote = 0;
    memset(w->cnt, 0, (size_t)P * sizeof *w->cnt);
    for (size_t i = 0; i < m; i++) {
        int o = ra_owner_of(s, w->batch[i]);
        if (o == sh->me) {
            w->batch[nlocal++] = w->batch[i];
        } else {
            w->remote[nremote] = w->batch[i];
            w->owner[nremote++] = o;
            w->cnt[o]++;
        }
    }
    apply(sh, w->batch, nlocal);
    for (int p = 0, at = 0; p < P; p++) {
        w->off[p] = at;
        at += w->cnt[p];
    }
    for (size_t i = 0; i < nremote; i++)
        w->sorted[w->off[w->owner[i]]++] = w->remote[i];
    for (int p = 0; p < P; p++)
        w->off[p] -= w->cnt[p];
}

/* Thread 0, between the barriers: every thread's lists, by owner, in one
 * MPI_Alltoallv; then whether the time limit has run out, agreed by all. */
static void exchange(struct shared *sh, uint64_t step)
{
    struct ra_state *s = sh->s;
    int P = s->dist.ranks, T = sh->team.n;
    size_t at = 0, pending = 0;
    for (int p = 0; p < P; p++) {
        sh->sdispl[p] = (int)at;
        for (int t = 0; t < T; t++) {
            struct worker *w = &sh->w[t];
            memcpy(sh->send + at, w->sorted + w->off[p], (size_t)w->cnt[p] * sizeof *sh->send);
            at += (size_t)w->cnt[p];
        }
        sh->scount[p] = (int)(at - (size_t)sh->sdispl[p]);
        s->messages_sent += sh->scount[p] > 0;
    }
    MPI_Alltoall(sh->scount, 1, MPI_INT, sh->rcount, 1, MPI_INT, sh->comm);
    for (int p = 0; p < P; p++) {
        sh->rdispl[p] = (int)pending;
        pending += (size_t)sh->rcount[p];
    }
    if (ra_reserve(&sh->recv, &sh->recv_cap, pending))
        ra_mpi_out_of_memory("the shared algorithm's receive buffer");
    MPI_Alltoallv(sh->send, sh->scount, sh->sdispl, MPI_UINT64_T, sh->recv, sh->rcount, sh->rdispl,
                  MPI_UINT64_T, sh->comm);
    sh->nrecv = pending;
    s->bytes_sent += (long long)(at * sizeof(uint64_t));
    long long held = (long long)(at + pending);
    s->max_pending = held > s->max_pending ? held : s->max_pending;
    s->steps++;
    sh->stop = ra_mpi_time_up(s, sh->comm, sh->t0, step);
}

/* Several ranks: the same number of steps everywhere (a rank that has
 * generated everything still takes part in the exchanges). */
static void run_distributed(struct shared *sh, int tid)
{
    struct worker *w = &sh->w[tid];
    uint64_t rng_state = ra_rng_jump(sh->s->p.rng, w->start);
    int T = sh->team.n;
    for (uint64_t step = 0; step < sh->steps; step++) {
        uint64_t pos = w->done;
        size_t m = next_batch(sh, tid, &rng_state);
        m = drop_injected(sh, tid, w->batch, m, pos);
        split_batch(sh, tid, m);
        pthread_barrier_wait(&sh->bar);
        if (tid == 0)
            exchange(sh, step);
        pthread_barrier_wait(&sh->bar);
        size_t lo = sh->nrecv * (size_t)tid / (size_t)T;
        size_t hi = sh->nrecv * (size_t)(tid + 1) / (size_t)T;
        apply(sh, sh->recv + lo, hi - lo);
        if (sh->stop) /* written before the second barrier: every thread agrees */
            break;
    }
}

static void thread_main(int tid, void *arg)
{
    struct shared *sh = arg;
    uint64_t t0 = ra_ticks();
    if (sh->s->dist.ranks == 1)
        run_alone(sh, tid);
    else
        run_distributed(sh, tid);
    sh->w[tid].ticks = (long long)(ra_ticks() - t0);
}

/* Each thread a contiguous part of the rank's sequence, the first ones one more. */
static void assign_ranges(struct shared *sh)
{
    struct ra_state *s = sh->s;
    uint64_t T = (uint64_t)sh->team.n, each = s->my_updates / T, extra = s->my_updates % T;
    uint64_t at = s->seq_start;
    for (uint64_t t = 0; t < T; t++) {
        struct worker *w = &sh->w[t];
        w->start = at;
        w->count = each + (t < extra);
        w->done = 0;
        at += w->count;
    }
}

static void record_threads(struct shared *sh, double ticks_per_ns)
{
    struct ra_state *s = sh->s;
    uint64_t total = 0;
    s->ticks_per_ns = ticks_per_ns;
    for (int t = 0; t < sh->team.n; t++) {
        struct worker *w = &sh->w[t];
        s->ranges[t][0] = w->start;
        s->ranges[t][1] = w->done;
        s->thread_updates[t] = (long long)w->done;
        s->thread_busy_ticks[t] = w->ticks;
        s->thread_busy_ns[t] = (long long)((double)w->ticks / ticks_per_ns);
        total += w->done;
    }
    s->executed = total;
}

static int shared_run(struct hpcp_bench *b, double *seconds)
{
    struct ra_state *s = b->state;
    struct shared *sh = s->algo;
    ra_table_init(&s->table, s->my_start);
    assign_ranges(sh);
    uint64_t most = (s->my_updates + (uint64_t)sh->team.n - 1) / (uint64_t)sh->team.n;
    uint64_t steps = (most + (uint64_t)sh->q - 1) / (uint64_t)sh->q;
    MPI_Allreduce(&steps, &sh->steps, 1, MPI_UINT64_T, MPI_MAX, b->comm);
    uint64_t lose = b->rank == 0 ? hpcp_fault_lost_updates() : 0;
    sh->lose_left = lose < sh->w[0].count ? lose : sh->w[0].count;
    sh->lose_every = sh->lose_left ? sh->w[0].count / sh->lose_left : 1;
    sh->stop = 0;
    double ticks_per_ns = ra_team_run_timed(&sh->team, thread_main, sh, b->comm, &sh->t0, seconds);
    record_threads(sh, ticks_per_ns);
    return 0;
}

static int alloc_workers(struct shared *sh, int T, int P)
{
    size_t q = (size_t)sh->q;
    sh->w = calloc((size_t)T, sizeof *sh->w);
    if (!sh->w)
        return -1;
    int bad = 0;
    for (int t = 0; t < T && !bad; t++) {
        struct worker *w = &sh->w[t];
        w->batch = malloc(3 * q * sizeof *w->batch);
        w->owner = malloc((q + 2 * (size_t)P) * sizeof *w->owner);
        bad = !w->batch || !w->owner;
        if (!bad) {
            w->remote = w->batch + q;
            w->sorted = w->batch + 2 * q;
            w->cnt = w->owner + q;
            w->off = w->cnt + P;
        }
    }
    sh->send = malloc((size_t)T * q * sizeof *sh->send);
    sh->scount = malloc(4 * (size_t)P * sizeof *sh->scount);
    if (sh->scount) {
        sh->sdispl = sh->scount + P;
        sh->rcount = sh->sdispl + P;
        sh->rdispl = sh->rcount + P;
    }
    return bad || !sh->send || !sh->scount ? -1 : 0;
}

static int alloc_locks(struct shared *sh, int k)
{
    sh->locks = aligned_alloc(64, (size_t)k * sizeof *sh->locks);
    if (!sh->locks)
        return -1;
    for (int i = 0; i < k; i++)
        pthread_mutex_init(&sh->locks[i].mu, NULL);
    sh->lock_mask = (k & (k - 1)) == 0 ? (uint64_t)k - 1 : 0;
    return 0;
}

static int shared_setup(struct hpcp_bench *b)
{
    struct ra_state *s = b->state;
    struct shared *sh = calloc(1, sizeof *sh);
    int T = s->p.threads, failed = !sh;
    s->algo = sh;
    if (sh) {
        sh->comm = MPI_COMM_NULL;
        sh->s = s;
        sh->me = b->rank;
        /* Mode 5: each thread has the look-ahead; mode 6: the rank's threads share it. */
        sh->q = s->p.mapping_mode == 6 ? s->p.lookahead / T : s->p.lookahead;
        sh->q = sh->q > 0 ? sh->q : 1;
        ra_team_plan(&sh->team, T, b->si->node_comm);
        failed = alloc_workers(sh, T, b->ranks) || ra_thread_state_alloc(s, T) ||
                 (s->p.sync == RA_SYNC_LOCKS && alloc_locks(sh, s->p.locks)) ||
                 !(sh->bar_ready = pthread_barrier_init(&sh->bar, NULL, (unsigned)T) == 0);
        for (int t = 0; s->thread_cpu && t < T; t++)
            s->thread_cpu[t] = sh->team.cpu[t];
        snprintf(s->thread_roles, sizeof s->thread_roles, "generate+update");
    }
    return ra_mpi_setup(b, sh ? &sh->comm : NULL, failed) ? HPCP_EXIT_RUNTIME : 0;
}

static void shared_teardown(struct hpcp_bench *b)
{
    struct ra_state *s = b->state;
    struct shared *sh = s->algo;
    if (sh) {
        for (int t = 0; sh->w && t < sh->team.n; t++) {
            free(sh->w[t].batch);
            free(sh->w[t].owner);
        }
        if (sh->bar_ready)
            pthread_barrier_destroy(&sh->bar);
        free(sh->w);
        free(sh->locks);
        free(sh->send);
        free(sh->recv);
        free(sh->scount);
        ra_mpi_teardown(b, &sh->comm);
        free(sh);
    }
    ra_thread_state_free(s);
    s->algo = NULL;
}

/* How the threads keep the shared table right. */
static void shared_record_threads(struct hpcp_record *r, const struct ra_params *p)
{
    static const char *const names[] = {"none", "atomic", "locks"};
    hpcp_record_param_string(r, "sync", names[p->sync]);
    if (p->sync == RA_SYNC_LOCKS)
        hpcp_record_param_int(r, "locks", p->locks);
    else
        hpcp_record_param_null(r, "locks");
}

static const struct ra_algorithm shared = {.scope = RA_SCOPE_MPI,
                                           .takes =
                                               RA_TAKES_MULTICORE | RA_TAKES_OWNER | RA_TAKES_SYNC,
                                           .modes = RA_MODE(5) | RA_MODE(6),
                                           .default_mode = 5,
                                           .threaded = 1,
                                           .sync_refusal = "",
                                           .record_threads = shared_record_threads};

const struct hpcp_kernel hpcp_ra_mpi_shared = {
    .family = "ra",
    .variant = "mpi",
    .algorithm = "shared",
    .summary = "RandomAccess with threads sharing each rank's table, every thread generating "
               "(mapping modes 5 and 6 of Garg et al.; --sync none|atomic|locks:K)",
    .driver = hpcp_ra_driver,
    .setup = shared_setup,
    .run = shared_run,
    .verify = ra_mpi_verify,
    .teardown = shared_teardown,
    .family_data = &shared,
    .options = &ra_options_desc,
    .records = &ra_records,
};
