/* b_eff's ping-pong over pairs of ranks, one pair at a time: clients in
 * turn (a token passes from one to the next), each with every server; the
 * ranks not in the current pair sleep until their turn. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "beff.h"
#include "hpcprobe/util.h"

enum { TAG_PING = 100, TAG_PONG, TAG_TOKEN, TAG_LOOP };

/* Waits shorter than this are spent polling, as a blocking receive would:
 * the next pair (or the next, longer loop of this one) starts at once, on a
 * core that has not gone idle. Longer waits (many ranks) sleep. */
#define BEFF_SPIN_S 2e-3

void beff_sleepy_recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm)
{
    MPI_Request req;
    int done = 0;
    MPI_Irecv(buf, count, type, source, tag, comm, &req);
    double until = MPI_Wtime() + BEFF_SPIN_S;
    for (long polls = 1; !done; polls++) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (done || (polls % 64 != 0) || MPI_Wtime() < until)
            continue;
        struct timespec nap = {0, 20000}; /* 20 us: never inside a timed loop */
        nanosleep(&nap, NULL);
    }
}

struct pp_buffers {
    unsigned char *send, *recv;
    int msg;
    long wrong;
};

/* Client side of one pair: loops until the timed part lasts 10 ticks;
 * returns the one-way time (loop time / 2 calls). */
static double client(MPI_Comm comm, int me, int server, int *loop, double wtick,
                     struct pp_buffers *b)
{
    double t = 0; /* set by the first pass; the compiler cannot see the loop runs */
    for (int ok = 0; !ok;) {
        MPI_Send(loop, 1, MPI_INT, server, TAG_LOOP, comm);
        double t0 = 0;
        for (int i = -1; i < *loop; i++) {
            if (i == 0)
                t0 = MPI_Wtime();
            beff_stamp(b->send, b->msg, me, i, 0);
            MPI_Send(b->send, b->msg, MPI_BYTE, server, TAG_PING, comm);
            MPI_Recv(b->recv, b->msg, MPI_BYTE, server, TAG_PONG, comm, MPI_STATUS_IGNORE);
            b->wrong += !beff_stamped(b->recv, b->msg, server, i, 1);
        }
        t = MPI_Wtime() - t0;
        ok = t >= BEFF_WTICK_FACTOR * wtick;
        if (!ok)
            *loop = *loop == 1 ? 2 : (int)(*loop * 1.5);
        MPI_Send(&ok, 1, MPI_INT, server, TAG_LOOP, comm);
    }
    return (t > 0 ? t : wtick) / (2.0 * *loop);
}

static void server(MPI_Comm comm, int me, int client_rank, struct pp_buffers *b)
{
    for (int ok = 0, loop = 0; !ok;) {
        beff_sleepy_recv(&loop, 1, MPI_INT, client_rank, TAG_LOOP, comm);
        for (int i = -1; i < loop; i++) {
            MPI_Recv(b->recv, b->msg, MPI_BYTE, client_rank, TAG_PING, comm, MPI_STATUS_IGNORE);
            b->wrong += !beff_stamped(b->recv, b->msg, client_rank, i, 0);
            beff_stamp(b->send, b->msg, me, i, 1);
            MPI_Send(b->send, b->msg, MPI_BYTE, client_rank, TAG_PONG, comm);
        }
        MPI_Recv(&ok, 1, MPI_INT, client_rank, TAG_LOOP, comm, MPI_STATUS_IGNORE);
    }
}

/* The ranks of a set: first, first + stride, ... up to last. */
struct rank_set {
    int first, last, stride;
};

/* Every pair (client c of C, server s of S, s != c), `meas` times over:
 * rank `me` keeps lat[m * ranks + k] for its k-th pair as a client. A
 * token goes from each client to the next, and from the last to the first
 * of the next measurement, so that only one pair runs at a time. */
static int pair_set(MPI_Comm comm, struct rank_set C, struct rank_set S, int loop, int meas,
                    double wtick, struct pp_buffers *b, double *lat)
{
    int me, ranks, mine = 0;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &ranks);
    for (int m = 0; m < meas; m++) {
        mine = 0;
        for (int c = C.first; c <= C.last; c += C.stride) {
            int first_turn = m == 0 && c == C.first, last_turn = m == meas - 1 && c == C.last;
            int prev = c == C.first ? C.last : c - C.stride;
            int next = c == C.last ? C.first : c + C.stride;
            if (me == c && !first_turn && prev != c)
                beff_sleepy_recv(NULL, 0, MPI_BYTE, prev, TAG_TOKEN, comm);
            for (int s = S.first; s <= S.last; s += S.stride) {
                if (s == c)
                    continue;
                if (me == c)
                    lat[(size_t)m * (size_t)ranks + (size_t)mine++] =
                        client(comm, me, s, &loop, wtick, b);
                else if (me == s)
                    server(comm, me, c, b);
            }
            if (me == c && !last_turn && next != c)
                MPI_Send(NULL, 0, MPI_BYTE, next, TAG_TOKEN, comm);
        }
    }
    return mine;
}

/* Rank 0: every client's pair latencies, each the best of its measurements. */
static void gather_best(MPI_Comm comm, const double *lat, int mine, int meas,
                        struct beff_pingpong *out)
{
    int me, ranks;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &ranks);
    double *best = malloc((size_t)(mine > 0 ? mine : 1) * sizeof *best);
    for (int k = 0; best && k < mine; k++) {
        best[k] = lat[k];
        for (int m = 1; m < meas; m++)
            best[k] = fmin(best[k], lat[(size_t)m * (size_t)ranks + (size_t)k]);
    }
    int *counts = me == 0 ? calloc((size_t)ranks, sizeof *counts) : NULL;
    int *displs = me == 0 ? calloc((size_t)ranks, sizeof *displs) : NULL;
    MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, comm);
    long long total = 0;
    for (int r = 0; me == 0 && r < ranks; r++)
        displs[r] = (int)total, total += counts[r];
    out->pairs = total;
    out->latency = me == 0 ? malloc((size_t)(total > 0 ? total : 1) * sizeof *out->latency) : NULL;
    MPI_Gatherv(best, mine, MPI_DOUBLE, out->latency, counts, displs, MPI_DOUBLE, 0, comm);
    free(best), free(counts), free(displs);
}

static int is_prime(int n)
{
    for (int d = 2; d * d <= n; d++)
        if (n % d == 0)
            return 0;
    return n >= 2;
}

/* HPCC's rule: about sqrt(pairs the budget allows) clients and servers,
 * every stride-th rank; the stride 2 is avoided (it would pair only even
 * ranks) and a larger stride moves to a prime unless that passes ranks/3. */
static int choose_stride(int ranks, double one_way, int loop, int meas, double max_time,
                         double wtick)
{
    double per_pair = one_way * 2 * (loop + 1) * meas;
    double floor_t = BEFF_WTICK_FACTOR * wtick * meas;
    double max_pairs = max_time / (per_pair >= floor_t ? per_pair : floor_t);
    int pings = (int)sqrt(max_pairs);
    if (pings < 5)
        pings = 5;
    int stride = (int)(1.0 * ranks / pings + 0.9);
    stride = stride < 1 ? 1 : stride == 2 ? 3 : stride;
    while (stride > 3 && !is_prime(stride) && stride <= ranks / 3)
        stride++;
    return stride;
}

int beff_pingpong_run(MPI_Comm comm, int msg, int loop, int meas, double max_time, double wtick,
                      struct beff_pingpong *out)
{
    int me, ranks;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &ranks);
    memset(out, 0, sizeof *out);
    struct pp_buffers b = {malloc((size_t)msg), malloc((size_t)msg), msg, 0};
    double *lat = calloc((size_t)meas * (size_t)ranks, sizeof *lat);
    if (hpcp_any(comm, !b.send || !b.recv || !lat)) {
        free(b.send), free(b.recv), free(lat);
        return HPCP_EXIT_RUNTIME;
    }
    /* Real data in every page (see beff_ring.c: untouched pages all read as
     * the one shared zero page). */
    comm_fill(b.send, (size_t)msg, me, -1, 0);
    comm_fill(b.recv, (size_t)msg, me, -1, 1);
    /* A first pair, rank 0 with the last rank, tells how long a pair takes. */
    struct rank_set first = {0, 0, 1}, last = {ranks - 1, ranks - 1, 1};
    pair_set(comm, first, last, loop, meas, wtick, &b, lat);
    double one_way = me == 0 ? lat[0] : 0; /* rank 0: the best of its measurements */
    for (int m = 1; me == 0 && m < meas; m++)
        one_way = fmin(one_way, lat[(size_t)m * (size_t)ranks]);
    out->stride = me == 0 ? choose_stride(ranks, one_way, loop, meas, max_time, wtick) : 0;
    MPI_Bcast(&out->stride, 1, MPI_INT, 0, comm);
    int s = out->stride, top = (ranks - 1) / s * s;
    struct rank_set clients = {0, top, s}, servers = {ranks - 1 - top, ranks - 1, s};
    b.wrong = 0;
    int mine = pair_set(comm, clients, servers, loop, meas, wtick, &b, lat);
    gather_best(comm, lat, mine, meas, out);
    MPI_Allreduce(&b.wrong, &out->wrong, 1, MPI_LONG, MPI_SUM, comm);
    free(b.send), free(b.recv), free(lat);
    return 0;
}
