/* Threads inside a rank for the multi-core RandomAccess algorithms: a team
 * pinned to cores, busy-time clocks, and a lock-free single-producer /
 * single-consumer ring of updates. */
#ifndef HPCPROBE_RA_THREADS_H
#define HPCPROBE_RA_THREADS_H
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "ra.h"

/* The CPU each thread is pinned to (-1: not pinned). */
struct ra_team {
    int n;
    int cpu[RA_MAX_THREADS];
};

/* Pin thread t of this rank to the t-th CPU this rank may use, offset by
 * (this rank's index in node_comm) * n when the rank may use the whole node (no launcher binding),
 * so ranks sharing a node use different cores; wrap when oversubscribed. */
void ra_team_plan(struct ra_team *team, int n, MPI_Comm node_comm);

typedef void (*ra_thread_fn)(int tid, void *arg);

/* Run fn(tid, arg) on every thread of the team (tid 0 on the caller, which
 * is pinned for the call and then given back its CPU set) and return when
 * all have returned. -1 when a thread could not be started; nothing ran. */
int ra_team_run(const struct ra_team *team, ra_thread_fn fn, void *arg);

/* Collective over comm: a barrier, *t0 = MPI_Wtime(), the team's run, a
 * barrier; *seconds from *t0 to the last barrier. Returns this rank's TSC
 * ticks per nanosecond over its run. A thread that cannot start aborts the
 * job: the other ranks' threads would wait for this rank's forever. */
double ra_team_run_timed(const struct ra_team *team, ra_thread_fn fn, void *arg, MPI_Comm comm,
                         double *t0, double *seconds);

/* A time stamp for busy-time accounting: the TSC where there is one (cheap,
 * constant rate on current x86), else CLOCK_MONOTONIC nanoseconds. */
static inline uint64_t ra_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_ia32_rdtsc();
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

/* 1 when ra_ticks counts the TSC, 0 when it counts nanoseconds. */
int ra_ticks_are_tsc(void);
/* Ticks per nanosecond, from `ticks` counted over `seconds` of wall time. */
double ra_ticks_per_ns(uint64_t ticks, double seconds);

/* Spin a little, then give the core away: with more threads than cores a
 * waiting thread must not hold the CPU its producer needs. */
void ra_backoff(unsigned *spins);

/* Single producer, single consumer; capacity a power of two. The producer
 * and consumer indices live on their own cache lines, and each side keeps
 * a copy of the other's index so it touches the shared line only when its
 * copy says the ring is full (or empty). */
struct ra_ring {
    uint64_t *slot;
    uint64_t mask;
    _Alignas(64) uint64_t head;      /* written by the producer */
    uint64_t tail_seen;              /* producer's copy of tail */
    int closed;                      /* producer: nothing more will come */
    _Alignas(64) uint64_t tail;      /* written by the consumer */
    uint64_t head_seen;              /* consumer's copy of head */
    _Alignas(64) char end;
};

int ra_ring_init(struct ra_ring *r, uint64_t capacity);
void ra_ring_free(struct ra_ring *r);
void ra_ring_reset(struct ra_ring *r);

/* Producer: append up to n values; returns how many fitted. */
static inline size_t ra_ring_push(struct ra_ring *r, const uint64_t *v, size_t n)
{
    uint64_t cap = r->mask + 1;
    if (r->head + n - r->tail_seen > cap)
        r->tail_seen = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
    uint64_t room = cap - (r->head - r->tail_seen);
    n = n < room ? n : (size_t)room;
    for (size_t i = 0; i < n; i++)
        r->slot[(r->head + i) & r->mask] = v[i];
    __atomic_store_n(&r->head, r->head + n, __ATOMIC_RELEASE);
    return n;
}

static inline void ra_ring_close(struct ra_ring *r)
{
    __atomic_store_n(&r->closed, 1, __ATOMIC_RELEASE);
}

/* Consumer: the values available without wrapping (*v, count); 0 when empty. */
static inline size_t ra_ring_peek(struct ra_ring *r, const uint64_t **v)
{
    if (r->head_seen == r->tail)
        r->head_seen = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
    uint64_t at = r->tail & r->mask, n = r->head_seen - r->tail;
    *v = r->slot + at;
    return (size_t)(n < r->mask + 1 - at ? n : r->mask + 1 - at);
}

static inline void ra_ring_release(struct ra_ring *r, size_t n)
{
    __atomic_store_n(&r->tail, r->tail + n, __ATOMIC_RELEASE);
}

/* Consumer: closed and drained. Closed is read before head, so a value
 * pushed before the close is never missed. */
static inline int ra_ring_finished(struct ra_ring *r)
{
    if (!__atomic_load_n(&r->closed, __ATOMIC_ACQUIRE))
        return 0;
    return __atomic_load_n(&r->head, __ATOMIC_ACQUIRE) == r->tail;
}

/* Rank 0's threads: role, updates, ns (and TSC ticks) per update, busy
 * time and the load balance (section 5.1 of Garg et al.). */
void ra_print_thread_balance(const struct ra_state *s, const char *what);

#endif
