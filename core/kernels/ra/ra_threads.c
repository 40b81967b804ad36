/* Thread team, pinning and rings for the multi-core RandomAccess algorithms. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hpcprobe/memory.h"
#include "hpcprobe/util.h"
#include "ra_threads.h"

void ra_team_plan(struct ra_team *team, int n, MPI_Comm node_comm)
{
    team->n = n;
    hpcp_rank_cpus(node_comm, n, team->cpu);
}

/* Threads wait at a gate until all have been created, so a failed
 * pthread_create leaves nothing half-run: the gate then says "go home". */
struct gate {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int state; /* 0 wait, 1 run, -1 abandon */
};

struct start {
    const struct ra_team *team;
    ra_thread_fn fn;
    void *arg;
    int tid;
    struct gate *gate;
};

static int gate_wait(struct gate *g)
{
    pthread_mutex_lock(&g->mu);
    while (g->state == 0)
        pthread_cond_wait(&g->cv, &g->mu);
    int state = g->state;
    pthread_mutex_unlock(&g->mu);
    return state;
}

static void gate_open(struct gate *g, int state)
{
    pthread_mutex_lock(&g->mu);
    g->state = state;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

static void pin(int cpu)
{
    if (cpu < 0)
        return;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    pthread_setaffinity_np(pthread_self(), sizeof one, &one); /* best effort, recorded */
}

static void *thread_main(void *p)
{
    struct start *s = p;
    if (gate_wait(s->gate) < 0)
        return NULL;
    pin(s->team->cpu[s->tid]);
    s->fn(s->tid, s->arg);
    return NULL;
}

int ra_team_run(const struct ra_team *team, ra_thread_fn fn, void *arg)
{
    pthread_t th[RA_MAX_THREADS];
    struct start st[RA_MAX_THREADS];
    cpu_set_t saved;
    int have_saved = pthread_getaffinity_np(pthread_self(), sizeof saved, &saved) == 0;
    struct gate gate = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
    int started = 1, failed = 0;
    for (int t = 1; t < team->n && !failed; t++) {
        st[t] = (struct start){team, fn, arg, t, &gate};
        failed = pthread_create(&th[t], NULL, thread_main, &st[t]) != 0;
        started += !failed;
    }
    gate_open(&gate, failed ? -1 : 1);
    if (failed) {
        for (int t = 1; t < started; t++)
            pthread_join(th[t], NULL);
        return -1;
    }
    pin(team->cpu[0]);
    fn(0, arg);
    for (int t = 1; t < team->n; t++)
        pthread_join(th[t], NULL);
    if (have_saved)
        pthread_setaffinity_np(pthread_self(), sizeof saved, &saved);
    return 0;
}

int ra_ticks_are_tsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
    return 1;
#else
    return 0;
#endif
}

double ra_ticks_per_ns(uint64_t ticks, double seconds)
{
    if (!ra_ticks_are_tsc() || seconds <= 0 || ticks == 0)
        return 1.0;
    return (double)ticks / (seconds * 1e9);
}

void ra_backoff(unsigned *spins)
{
    if (++*spins < 64) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
        return;
    }
    *spins = 0;
    sched_yield();
}

int ra_ring_init(struct ra_ring *r, uint64_t capacity)
{
    memset(r, 0, sizeof *r);
    r->slot = malloc(capacity * sizeof *r->slot);
    r->mask = capacity - 1;
    return r->slot ? 0 : -1;
}

void ra_ring_free(struct ra_ring *r)
{
    free(r->slot);
    r->slot = NULL;
}

void ra_ring_reset(struct ra_ring *r)
{
    r->head = r->tail = r->tail_seen = r->head_seen = 0;
    r->closed = 0;
}

/* Per-thread arrays of the record (ra_state), and the executed ranges. */
int ra_thread_state_alloc(struct ra_state *s, int T)
{
    s->nthreads = T;
    s->nranges = T;
    s->ranges = calloc((size_t)T, sizeof *s->ranges);
    s->thread_updates = calloc(4 * (size_t)T, sizeof *s->thread_updates);
    if (s->thread_updates) {
        s->thread_busy_ns = s->thread_updates + T;
        s->thread_busy_ticks = s->thread_busy_ns + T;
        s->thread_cpu = s->thread_busy_ticks + T;
    }
    return s->ranges && s->thread_updates ? 0 : -1;
}

void ra_thread_state_free(struct ra_state *s)
{
    free(s->ranges);
    free(s->thread_updates);
    s->ranges = NULL;
    s->thread_updates = s->thread_busy_ns = s->thread_busy_ticks = s->thread_cpu = NULL;
    s->nranges = s->nthreads = 0;
}


/* Section 5.1's load balance: each thread's busy time per update it
 * handled, and how far the busiest is above the mean. */
void ra_print_thread_balance(const struct ra_state *s, const char *what)
{
    if (!s->nthreads || !s->thread_updates)
        return;
    double most = 0, sum = 0;
    for (int t = 0; t < s->nthreads; t++) {
        most = (double)s->thread_busy_ns[t] > most ? (double)s->thread_busy_ns[t] : most;
        sum += (double)s->thread_busy_ns[t];
    }
    printf("%s: threads of rank 0 (last repetition; busy time over updates handled)\n", what);
    const char *role = s->thread_roles;
    for (int t = 0; t < s->nthreads; t++) {
        size_t n = strcspn(role, ";");
        double updates = (double)s->thread_updates[t];
        double per = updates > 0 ? (double)s->thread_busy_ns[t] / updates : 0;
        printf("  thread %d cpu %lld  %-34.*s %12lld updates  %7.2f ns/update", t, s->thread_cpu[t],
               (int)n, role, s->thread_updates[t], per);
        if (ra_ticks_are_tsc() && updates > 0)
            printf(" (%.1f TSC ticks)", (double)s->thread_busy_ticks[t] / updates);
        printf("  busy %.3f s\n", (double)s->thread_busy_ns[t] * 1e-9);
        role += n + (role[n] == ';');
        if (!*role)
            role = s->thread_roles; /* shared: one role for all */
    }
    if (sum > 0)
        printf("  load balance: busiest / mean busy time = %.2f\n", most / (sum / s->nthreads));
    fflush(stdout);
}

double ra_team_run_timed(const struct ra_team *team, ra_thread_fn fn, void *arg, MPI_Comm comm,
                         double *t0, double *seconds)
{
    MPI_Barrier(comm);
    *t0 = MPI_Wtime();
    uint64_t ticks0 = ra_ticks();
    if (ra_team_run(team, fn, arg)) { /* the other ranks' threads would wait for ours */
        fprintf(stderr,
                "hpcprobe-bench: cannot start %d threads (pthread_create failed); "
                "aborting the run\n",
                team->n);
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, HPCP_EXIT_RUNTIME);
    }
    uint64_t ticks = ra_ticks() - ticks0;
    double mine = MPI_Wtime() - *t0;
    MPI_Barrier(comm);
    *seconds = MPI_Wtime() - *t0;
    return ra_ticks_per_ns(ticks, mine);
}
