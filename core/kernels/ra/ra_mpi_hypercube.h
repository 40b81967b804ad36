/* What the files of RandomAccess `mpi --algo hypercube` share: the stages'
 * plan, the lists, a tick's exchange and the algorithm's state. The ticks
 * (the timed path) are in ra_mpi_hypercube.c with the split loops of
 * ra_mpi_hypercube_split.h; the plan, the memory and the teardown in
 * ra_mpi_hypercube_setup.c. */
#ifndef HPCPROBE_RA_MPI_HYPERCUBE_H
#define HPCPROBE_RA_MPI_HYPERCUBE_H
#include <stddef.h>
#include <stdint.h>

#include "ra_mpi.h"

/* Tags: stage j sends with tag j, the overflow of a long list with
 * OVERFLOW_TAG more. Messages of one pair and tag arrive in the order sent,
 * which is tick order. */
enum { MAX_STAGES = 40, OVERFLOW_TAG = 64, PIPELINED_LAG = 2, EXCHANGES = PIPELINED_LAG + 1 };

struct stage {
    int mid;            /* first rank of the partition's upper half */
    int upper;          /* this rank is in the upper half */
    int alone;          /* that half is this rank alone: nothing is kept */
    int nsend, to[2];
    long long share_num, share_den; /* fraction of the send list for to[0] */
    int nrecv, from[2];
};

struct list {
    uint64_t *v;
    size_t n, cap;
};

/* What one tick sends and receives; EXCHANGES of them in turn, because in
 * the pipelined form a tick's messages are read PIPELINED_LAG ticks on. */
struct exchange {
    uint64_t *recvbuf;                  /* nstages x 2 x msg_cap words */
    int recvd[MAX_STAGES][2];           /* words that arrived in each receive */
    MPI_Request rreq[MAX_STAGES][2], sreq[MAX_STAGES][2][2];
    struct list send[MAX_STAGES], extra[MAX_STAGES][2];
    /* Pipelined, a last stage with one sender: its message lands here, and
     * the list then becomes mine (the applier's queue) without a copy. */
    struct list queue;
};

struct hc {
    MPI_Comm comm;
    int me, nstages, msg_cap, partners;
    int drain;          /* ticks after the last batch: lag x the most stages any rank has */
    int lag;            /* ticks between a stage's send and its use: 0 lock-step, 2 pipelined */
    size_t batch;       /* updates generated per tick */
    uint64_t ticks;
    struct stage stage[MAX_STAGES];
    struct exchange ex[EXCHANGES];
    struct list keep[2];
    struct list mine;   /* updates owned here, in the order they join the applier */
    size_t fed;         /* pipelined: mine's first `fed` have joined it */
    struct ra_applier apply;
    /* Time stamps (ra_ticks) inside the exchange's MPI calls, and the calls. */
    uint64_t exchange_ticks, exchange_calls;
};

/* Words every list keeps beyond its count: the splits write past it (one
 * word, or a whole vector of 8). */
enum { SPARE = 8 };

/* The applier's depth: lock-step drains it each step, so it can be full
 * depth; pipelined, it holds look-ahead across ticks, at most half (Q = 1:
 * none), and a batch is the rest. */
static inline unsigned applier_depth(const struct ra_params *p)
{
    return p->overlap ? ra_prefetch_depth(p->lookahead / 2) : RA_PREFETCH_AHEAD;
}

static inline size_t batch_size(const struct ra_params *p)
{
    return (size_t)p->lookahead - (p->overlap ? applier_depth(p) : 0);
}

/* The kernel's set-up and teardown phases (struct hpcp_kernel). */
int ra_hypercube_setup(struct hpcp_bench *b);
void ra_hypercube_teardown(struct hpcp_bench *b);

#endif
