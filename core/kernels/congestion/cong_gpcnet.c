/* GPCNeT's three canaries (network_load_test), for --mode gpcnet, on the
 * ring communicator (a node slice of the canaries, cong_driver.c). One sample
 * is one timed step:
 *  - RR Two-sided Lat: 8 B to and from both ring neighbours at once (two
 *    receives, two sends, wait for all four); the step's time over 2, as
 *    GPCNeT counts the two sends.
 *  - RR Two-sided BW+Sync: K (8) messages of B (128 KiB) to and from both
 *    neighbours at once, then a barrier of the canaries; 2 K B over the time.
 *  - Multiple Allreduce: one blocking 8 B MPI_Allreduce (sum of one double).
 * The ring changes every ring_iterations steps: 30 seeded random rings in
 * turn (GPCNeT repeats its 30 rings each measurement), a barrier before each.
 * Every message is checked by its receiver, as in hpcprobe's mode. */
#include <stdlib.h>
#include <string.h>

#include "congestion.h"
#include "hpcprobe/rng.h"
#include "hpcprobe/util.h"

enum { TAG_TO_LEFT = 73, TAG_TO_RIGHT = 74 };
#define GPCNET_RINGS 30
#define LATENCY_BYTES 8

int cong_gpcnet_buffers(struct cong_state *s, int me, int canaries)
{
    size_t B = (size_t)s->p.bandwidth_bytes, n = 2 * (size_t)s->p.in_flight;
    s->send = malloc(n * B), s->recv = malloc(n * B);
    s->expect = malloc(B), s->expect_right = malloc(B);
    s->ring_order = malloc((size_t)canaries * sizeof *s->ring_order);
    if (!s->send || !s->recv || !s->expect || !s->expect_right || !s->ring_order)
        return -1;
    cong_fill_messages(s->send, n, B, me);
    return 0;
}

/* Ring `ring`: the canary ranks in a permutation seeded by --seed + ring. */
static void neighbours(struct cong_state *s, int ring, int me, int n)
{
    int *order = s->ring_order, pos = 0;
    hpcp_shuffle(order, n, s->p.run.seed + (uint64_t)ring);
    for (int i = 0; i < n; i++)
        pos = order[i] == me ? i : pos;
    s->left = order[(pos + n - 1) % n], s->right = order[(pos + 1) % n];
    cong_fill(s->expect, (size_t)s->p.bandwidth_bytes, s->left);
    cong_fill(s->expect_right, (size_t)s->p.bandwidth_bytes, s->right);
}

/* Messages to the left carry k in [0, K), to the right k in [K, 2K); what
 * comes from the left was sent to its right. */
static double latency_step(struct cong_state *s, int me, long long seq)
{
    unsigned char out[2 * LATENCY_BYTES], in[2 * LATENCY_BYTES]; /* not the bandwidth buffers */
    MPI_Request rq[4];
    cong_stamp(out, LATENCY_BYTES, me, seq, 0);
    cong_stamp(out + LATENCY_BYTES, LATENCY_BYTES, me, seq, 1);
    if (s->corrupt_now)
        out[LATENCY_BYTES] ^= 0xff; /* test hook: the right neighbour must see it */
    double t0 = MPI_Wtime();
    MPI_Irecv(in, LATENCY_BYTES, MPI_BYTE, s->left, TAG_TO_RIGHT, s->ring_comm, &rq[0]);
    MPI_Irecv(in + LATENCY_BYTES, LATENCY_BYTES, MPI_BYTE, s->right, TAG_TO_LEFT, s->ring_comm,
              &rq[1]);
    MPI_Isend(out, LATENCY_BYTES, MPI_BYTE, s->left, TAG_TO_LEFT, s->ring_comm, &rq[2]);
    MPI_Isend(out + LATENCY_BYTES, LATENCY_BYTES, MPI_BYTE, s->right, TAG_TO_RIGHT, s->ring_comm,
              &rq[3]);
    MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
    double t = (MPI_Wtime() - t0) / 2;
    if (s->p.run.verify) {
        s->canary_wrong += !cong_stamp_ok(in, LATENCY_BYTES, s->left, seq, 1);
        s->canary_wrong += !cong_stamp_ok(in + LATENCY_BYTES, LATENCY_BYTES, s->right, seq, 0);
    }
    return t;
}

static void check_bandwidth(struct cong_state *s, int K, size_t B, long long seq)
{
    for (int k = 0; k < 2 * K; k++) {
        const unsigned char *m = s->recv + k * B;
        int from = k < K ? s->left : s->right, sent_as = k < K ? K + k : k - K;
        const unsigned char *expect = k < K ? s->expect : s->expect_right;
        s->canary_wrong += !cong_stamp_ok(m, B, from, seq, sent_as) ||
                           (B > 8 && memcmp(m + 8, expect + 8, B - 8) != 0);
    }
}

static double bandwidth_step(struct cong_state *s, int me, long long seq)
{
    int K = s->p.in_flight;
    size_t B = (size_t)s->p.bandwidth_bytes;
    MPI_Request rq[4 * 64];
    for (int k = 0; k < 2 * K; k++)
        cong_stamp(s->send + k * B, B, me, seq, k);
    if (s->corrupt_now)
        s->send[2 * K * B - 1] ^= 0xff;
    double t0 = MPI_Wtime();
    for (int k = 0; k < K; k++) {
        MPI_Irecv(s->recv + k * B, (int)B, MPI_BYTE, s->left, TAG_TO_RIGHT, s->ring_comm, &rq[k]);
        MPI_Irecv(s->recv + (K + k) * B, (int)B, MPI_BYTE, s->right, TAG_TO_LEFT, s->ring_comm,
                  &rq[K + k]);
    }
    for (int k = 0; k < K; k++) {
        MPI_Isend(s->send + k * B, (int)B, MPI_BYTE, s->left, TAG_TO_LEFT, s->ring_comm,
                  &rq[2 * K + k]);
        MPI_Isend(s->send + (K + k) * B, (int)B, MPI_BYTE, s->right, TAG_TO_RIGHT, s->ring_comm,
                  &rq[3 * K + k]);
    }
    /* napping, as hpcprobe's bandwidth canary: congestors may share the core */
    cong_wait(&s->p, 4 * K, rq);
    MPI_Barrier(s->ring_comm); /* the "+Sync": the step ends when the slowest rank's does */
    double t = MPI_Wtime() - t0;
    if (s->corrupt_now)
        s->send[2 * K * B - 1] ^= 0xff;
    if (s->p.run.verify)
        check_bandwidth(s, K, B, seq);
    return 2.0 * K * (double)B / t;
}

/* rank r gives (r + seq) mod 1024, so every sum is exact. */
static double allreduce_step(struct cong_state *s, int me, int n, long long seq)
{
    double in = (double)((me + seq) % 1024) + s->corrupt_now, out = 0;
    double t0 = MPI_Wtime();
    MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, s->ring_comm);
    double t = MPI_Wtime() - t0;
    if (s->p.run.verify) {
        double sum = 0;
        for (int r = 0; r < n; r++)
            sum += (double)((r + seq) % 1024);
        s->canary_wrong += out != sum;
    }
    return t;
}

/* Untimed steps per ring (test) first: as many as timed for latency (GPCNeT:
 * 200 and 200), one for bandwidth and Allreduce (GPCNeT's). */
void cong_gpcnet_canary_run(struct cong_state *s, int canary, double *samples, int n)
{
    int me, size, steps = s->p.ring_iterations[canary], spoil = s->corrupt_now;
    MPI_Comm_rank(s->ring_comm, &me);
    MPI_Comm_size(s->ring_comm, &size);
    int untimed = canary == CONG_LATENCY ? steps : 1;
    long long seq = 0;
    for (int done = 0, ring = 0; done < n; ring++) {
        if (canary != CONG_ALLREDUCE)
            neighbours(s, ring % GPCNET_RINGS, me, size);
        MPI_Barrier(s->ring_comm);
        int take = n - done < steps ? n - done : steps;
        for (int i = -untimed; i < take; i++, seq++) {
            s->corrupt_now = spoil && done + i == n - 1;
            double v = canary == CONG_LATENCY     ? latency_step(s, me, seq)
                       : canary == CONG_BANDWIDTH ? bandwidth_step(s, me, seq)
                                                  : allreduce_step(s, me, size, seq);
            if (i >= 0)
                samples[done + i] = v;
        }
        done += take;
    }
    s->corrupt_now = 0;
}
