/* The canaries (GPCNeT's): two-sided 8 B latency and 8-in-flight bandwidth
 * on a random ring of the canary ranks, and concurrent 8 B Allreduces. One
 * sample is one timed step; every message is checked by its receiver. */
#include <math.h>
#include <string.h>

#include "congestion.h"
#include "hpcprobe/util.h"

enum { TAG_LATENCY = 71, TAG_BANDWIDTH = 72 };
#define LATENCY_BYTES 8
#define ALLREDUCE_MAX 64

/* One 8 B message to the right neighbour while one comes from the left. */
static double latency_sample(struct cong_state *s, int me, long long seq)
{
    MPI_Request rq[2];
    cong_stamp(s->send, LATENCY_BYTES, me, seq, 0);
    if (s->corrupt_now)
        s->send[0] ^= 0xff; /* test hook: the right neighbour must see it */
    double t0 = MPI_Wtime();
    MPI_Irecv(s->recv, LATENCY_BYTES, MPI_BYTE, s->left, TAG_LATENCY, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(s->send, LATENCY_BYTES, MPI_BYTE, s->right, TAG_LATENCY, MPI_COMM_WORLD, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    double t = MPI_Wtime() - t0;
    if (s->p.run.verify && !cong_stamp_ok(s->recv, LATENCY_BYTES, s->left, seq, 0))
        s->canary_wrong++;
    return t;
}

/* After a barrier of the canaries, K messages of B bytes each way in flight
 * at once; the rate at which this rank's K messages left and arrived. */
static double bandwidth_sample(struct cong_state *s, int me, long long seq)
{
    int K = s->p.in_flight;
    size_t B = (size_t)s->p.bandwidth_bytes;
    MPI_Request rq[2 * 64];
    for (int k = 0; k < K; k++)
        cong_stamp(s->send + k * B, B, me, seq, k);
    if (s->corrupt_now)
        s->send[K * B - 1] ^= 0xff;
    MPI_Barrier(s->canaries);
    double t0 = MPI_Wtime();
    for (int k = 0; k < K; k++)
        MPI_Irecv(s->recv + k * B, (int)B, MPI_BYTE, s->left, TAG_BANDWIDTH, MPI_COMM_WORLD,
                  &rq[k]);
    for (int k = 0; k < K; k++)
        MPI_Isend(s->send + k * B, (int)B, MPI_BYTE, s->right, TAG_BANDWIDTH, MPI_COMM_WORLD,
                  &rq[K + k]);
    /* Napping, not spinning: a sample lasts milliseconds on a network, and a spinning
     * canary would take the core of a congestor that shares it (oversubscribed hosts). */
    cong_wait(&s->p, 2 * K, rq);
    double t = MPI_Wtime() - t0;
    if (s->corrupt_now)
        s->send[K * B - 1] ^= 0xff;
    for (int k = 0; s->p.run.verify && k < K; k++) {
        const unsigned char *m = s->recv + k * B;
        s->canary_wrong += !cong_stamp_ok(m, B, s->left, seq, k) ||
                           (B > 8 && memcmp(m + 8, s->expect + 8, B - 8) != 0);
    }
    return (double)K * (double)B / t;
}

/* K concurrent Allreduces of one double each on the canary communicator;
 * rank r gives ((r + seq) mod 1024) + k, so every sum is exact. */
static double allreduce_sample(struct cong_state *s, long long seq)
{
    int K = s->p.in_flight, me, n;
    double in[ALLREDUCE_MAX], out[ALLREDUCE_MAX];
    MPI_Request rq[ALLREDUCE_MAX];
    MPI_Comm_rank(s->canaries, &me);
    MPI_Comm_size(s->canaries, &n);
    for (int k = 0; k < K; k++)
        in[k] = (double)((me + seq) % 1024 + k) + (s->corrupt_now && k == K - 1);
    double t0 = MPI_Wtime();
    for (int k = 0; k < K; k++)
        MPI_Iallreduce(&in[k], &out[k], 1, MPI_DOUBLE, MPI_SUM, s->canaries, &rq[k]);
    MPI_Waitall(K, rq, MPI_STATUSES_IGNORE);
    double t = MPI_Wtime() - t0;
    if (s->p.run.verify) {
        double base = 0;
        for (int r = 0; r < n; r++)
            base += (double)((r + seq) % 1024);
        for (int k = 0; k < K; k++)
            s->canary_wrong += out[k] != base + (double)k * n;
    }
    return t;
}

void cong_canary_run(struct cong_state *s, int canary, double *samples, int n, int warmup)
{
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int spoil = s->corrupt_now;
    for (int i = -warmup; i < n; i++) {
        long long seq = i + warmup;
        s->corrupt_now = spoil && i == n - 1;
        double v = canary == CONG_LATENCY     ? latency_sample(s, me, seq)
                   : canary == CONG_BANDWIDTH ? bandwidth_sample(s, me, seq)
                                              : allreduce_sample(s, seq);
        if (i >= 0)
            samples[i] = v;
    }
    s->corrupt_now = 0;
}
