/* b_eff's rings: every rank exchanges a message with both neighbours at
 * once, around the naturally ordered ring and random orderings of the ranks;
 * each loop both with two MPI_Sendrecv and with MPI_Isend/Irecv, the
 * faster counting, as HPCC does. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "beff.h"
#include "hpcprobe/rng.h"
#include "hpcprobe/util.h"

enum { TO_RIGHT = 200, TO_LEFT };

void beff_random_ring(int ranks, uint64_t seed, int pattern, int *order)
{
    /* pattern p of a seed has its own stream */
    uint64_t state = seed * 0x2545F4914F6CDD1DULL + (uint64_t)pattern;
    for (int i = 0; i < ranks; i++)
        order[i] = i;
    for (int i = ranks - 1; i > 0; i--) { /* Fisher-Yates: every ordering equally likely */
        int j = (int)(hpcp_splitmix64(&state) % (uint64_t)(i + 1));
        int t = order[i];
        order[i] = order[j], order[j] = t;
    }
}

struct ring_io {
    MPI_Comm comm;
    int me, left, right, msg;
    unsigned char *to_left, *to_right, *from_left, *from_right;
    long wrong;
};

static void stamp(struct ring_io *r, int i)
{
    beff_stamp(r->to_right, r->msg, r->me, i, 0);
    beff_stamp(r->to_left, r->msg, r->me, i, 1);
}

static void check(struct ring_io *r, int i)
{
    r->wrong += !beff_stamped(r->from_left, r->msg, r->left, i, 0);
    r->wrong += !beff_stamped(r->from_right, r->msg, r->right, i, 1);
}

static double sendrecv_loop(struct ring_io *r, int loop)
{
    double t0 = 0;
    for (int i = -1; i < loop; i++) {
        if (i == 0)
            t0 = MPI_Wtime();
        stamp(r, i);
        MPI_Sendrecv(r->to_right, r->msg, MPI_BYTE, r->right, TO_RIGHT, r->from_left, r->msg,
                     MPI_BYTE, r->left, TO_RIGHT, r->comm, MPI_STATUS_IGNORE);
        MPI_Sendrecv(r->to_left, r->msg, MPI_BYTE, r->left, TO_LEFT, r->from_right, r->msg,
                     MPI_BYTE, r->right, TO_LEFT, r->comm, MPI_STATUS_IGNORE);
        check(r, i);
    }
    return MPI_Wtime() - t0;
}

static double nonblocking_loop(struct ring_io *r, int loop)
{
    double t0 = 0;
    for (int i = -1; i < loop; i++) {
        if (i == 0)
            t0 = MPI_Wtime();
        stamp(r, i);
        MPI_Request req[4];
        MPI_Irecv(r->from_left, r->msg, MPI_BYTE, r->left, TO_RIGHT, r->comm, &req[0]);
        MPI_Irecv(r->from_right, r->msg, MPI_BYTE, r->right, TO_LEFT, r->comm, &req[1]);
        MPI_Isend(r->to_right, r->msg, MPI_BYTE, r->right, TO_RIGHT, r->comm, &req[2]);
        MPI_Isend(r->to_left, r->msg, MPI_BYTE, r->left, TO_LEFT, r->comm, &req[3]);
        MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
        check(r, i);
    }
    return MPI_Wtime() - t0;
}

/* One ordering: the time per exchange (loop time / 2 messages each way),
 * the faster of the two implementations. The loop grows (on every rank)
 * until the Sendrecv loop lasts 10 clock ticks somewhere. */
static double one_ring(struct ring_io *r, int *loop_proposal, double wtick)
{
    int loop = *loop_proposal;
    double t = 0;
    for (int ok = 0; !ok;) {
        MPI_Allreduce(loop_proposal, &loop, 1, MPI_INT, MPI_MAX, r->comm);
        *loop_proposal = loop;
        t = sendrecv_loop(r, loop);
        int mine = t >= BEFF_WTICK_FACTOR * wtick;
        if (!mine)
            *loop_proposal = loop == 1 ? 2 : (int)(loop * 1.5);
        MPI_Allreduce(&mine, &ok, 1, MPI_INT, MPI_MAX, r->comm);
    }
    double blocking = t / (2.0 * loop);
    double t_nb = nonblocking_loop(r, loop);
    double nonblocking = (t_nb > 0 ? t_nb : wtick) / (2.0 * loop);
    return blocking < nonblocking ? blocking : nonblocking;
}

static void neighbours(struct ring_io *r, const int *order, int ranks)
{
    for (int i = 0; i < ranks; i++)
        if (order[i] == r->me) {
            r->left = order[(i + ranks - 1) % ranks];
            r->right = order[(i + 1) % ranks];
        }
}

/* Rank 0: per ordering the best measurement of the slowest rank. */
static void best_of(const double *worst, int meas, int patterns, struct beff_rings *out)
{
    out->nmeas = meas, out->nrandom = patterns - 1;
    double logs = 0;
    for (int p = 0; p < patterns; p++) {
        double best = worst[p];
        for (int m = 0; m < meas; m++) {
            if (p == 0)
                out->natural[m] = worst[(size_t)m * patterns];
            best = fmin(best, worst[(size_t)m * patterns + p]);
        }
        if (p > 0) {
            out->random[p - 1] = best;
            logs += log(best);
        }
    }
    /* HPCC averages the random orderings geometrically. */
    out->random_geomean = patterns > 1 ? exp(logs / (patterns - 1)) : NAN;
}

int beff_rings_run(MPI_Comm comm, int msg, int loop, int meas, int nrandom, uint64_t seed,
                   double wtick, struct beff_rings *out)
{
    struct ring_io r = {comm, 0, 0, 0, msg, NULL, NULL, NULL, NULL, 0};
    int ranks, patterns = nrandom + 1;
    MPI_Comm_rank(comm, &r.me);
    MPI_Comm_size(comm, &ranks);
    memset(out, 0, sizeof *out);
    unsigned char *bufs = calloc(4, (size_t)msg);
    int *order = malloc((size_t)ranks * sizeof *order);
    double *lat = malloc((size_t)meas * patterns * sizeof *lat);
    double *worst = malloc((size_t)meas * patterns * sizeof *worst);
    if (hpcp_any(comm, !bufs || !order || !lat || !worst)) {
        free(bufs), free(order), free(lat), free(worst);
        return HPCP_EXIT_RUNTIME;
    }
    r.to_left = bufs, r.to_right = bufs + msg, r.from_left = bufs + 2 * (size_t)msg;
    r.from_right = bufs + 3 * (size_t)msg;
    /* Real data in every page: untouched memory reads as the kernel's shared
     * zero page, and copying that one cached page is not moving 2 MB. */
    comm_fill(bufs, 4 * (size_t)msg, r.me, -1, 0);
    for (int m = 0; m < meas; m++)
        for (int p = 0; p < patterns; p++) {
            if (p == 0)
                for (int i = 0; i < ranks; i++)
                    order[i] = i;
            else
                beff_random_ring(ranks, seed, p, order);
            neighbours(&r, order, ranks);
            lat[(size_t)m * patterns + p] = one_ring(&r, &loop, wtick);
        }
    MPI_Reduce(lat, worst, meas * patterns, MPI_DOUBLE, MPI_MAX, 0, comm);
    if (r.me == 0)
        best_of(worst, meas, patterns, out);
    MPI_Allreduce(&r.wrong, &out->wrong, 1, MPI_LONG, MPI_SUM, comm);
    free(bufs), free(order), free(lat), free(worst);
    return 0;
}
