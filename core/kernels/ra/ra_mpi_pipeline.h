/* What the files of RandomAccess `mpi --algo pipeline` share: the threads'
 * state and the rings between them. The threads' loops (the timed path)
 * are in ra_mpi_pipeline.c; the roles, the memory, the reset before and the
 * figures after each repetition in ra_mpi_pipeline_setup.c. */
#ifndef HPCPROBE_RA_MPI_PIPELINE_H
#define HPCPROBE_RA_MPI_PIPELINE_H
#include <stdint.h>

#include "hpcprobe/record.h"
#include "ra_grid.h"
#include "ra_mpi.h"
#include "ra_threads.h"

enum { TAG_DATA = 1, TAG_DONE = 2, NRECV = 4, GEN_BATCH = 256, STAGE = 64, RING_WORDS = 8192 };

struct pipe;

struct stage {
    uint64_t v[STAGE];
    int n;
};

struct router {
    struct pipe *pp;
    int id, a0, a1;              /* routes along axes [a0, a1) */
    MPI_Comm comm;
    uint64_t *bucket;            /* nbuckets x capacity; only its axes' buckets are used */
    int *bucket_n;
    struct ra_sendpool pool;
    MPI_Request rreq[NRECV];
    uint64_t *recvbuf, *local;   /* local: the first slice's updates when fused */
    size_t nlocal;
    int *sent_msgs, *got_msgs, *announced;
    unsigned char *sent_to;
    struct stage *out;           /* per target: routers then updaters */
    int phase;                   /* axis being finished; a0 - 1 before, a1 when done */
    uint64_t rng_state, generated;
    int gen_done;
    long long messages, bytes, partners, max_pending, busy, handled, applied, stalled;
    long long max_lookahead;     /* the generator's: held before a batch plus the batch */
    long long recv_ticks, received; /* receive calls that delivered data, and how many */
    char pad[64];
};

struct updater {
    long long busy, handled;
    char pad[64];
};

struct pipe {
    struct ra_state *s;
    struct ra_team team;
    int R, U, fused, capacity;
    struct ra_routes rt_plan;
    int router_of_axis[RA_MAX_DIMS];
    struct router *rt;
    struct updater *up;
    struct ra_ring *ring;        /* ring[r * (R + U) + target] */
    /* Slices: the fused thread's is [0, first_slice) (it also routes, so it
     * gets less), the other updaters share the rest equally. */
    uint64_t first_slice;
    double slice_scale;          /* offset o >= first_slice: 1 + (o - first_slice) * scale */
    long long lookahead;         /* for the whole rank */
    long long pending;           /* updates held by the rank (atomic) */
    int starved;                 /* the generator waits for room (atomic) */
    double t0;
};

static inline struct ra_ring *ring_of(struct pipe *pp, int from, int target)
{
    return &pp->ring[from * (pp->R + pp->U) + target];
}

/* The kernel's set-up and teardown phases (struct hpcp_kernel). */
int ra_pipeline_setup(struct hpcp_bench *b);
void ra_pipeline_teardown(struct hpcp_bench *b);
/* struct ra_algorithm's record_threads: the routing threads the pipeline ran with. */
void ra_pipeline_record_threads(struct hpcp_record *r, const struct ra_params *p);

/* A routing thread as at the start of a repetition. */
void ra_pipeline_reset_router(struct router *r, const struct ra_state *s);
/* After a repetition: the threads' figures into the rank's (ticks_per_ns converts busy
 * time), and the first slice resized from their busy times for the next repetition. */
void ra_pipeline_collect(struct pipe *pp, double ticks_per_ns);
void ra_pipeline_rebalance(struct pipe *pp);

#endif
