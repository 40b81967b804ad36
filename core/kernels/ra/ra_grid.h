/* Pieces of the aggregating algorithms on a virtual grid of ranks (`torus`
 * and `pipeline`): the dimension-order routing table and a pool of send
 * buffers reused once their sends complete. */
#ifndef HPCPROBE_RA_GRID_H
#define HPCPROBE_RA_GRID_H
#include <mpi.h>
#include <stdint.h>

#include "ra.h"

/* For every owner rank, the bucket of its first hop: the neighbour on the
 * first axis where the owner's coordinate differs from ours (row-major
 * coordinates). Buckets are numbered axis by axis, D_k - 1 per axis. */
struct ra_routes {
    int nd, dims[RA_MAX_DIMS], nbuckets;
    int *bucket_of;      /* per owner rank; -1 for this rank */
    int *bucket_rank;    /* per bucket: the neighbour it is sent to */
    int *bucket_axis;    /* per bucket: the axis that neighbour is on */
};
/* -1 when out of memory (free with ra_routes_free either way). */
int ra_routes_plan(struct ra_routes *rt, const int *dims, int nd, int me, int ranks);
void ra_routes_free(struct ra_routes *rt);
/* struct ra_algorithm's record_params of torus and pipeline: the grid the
 * ranks were arranged in ("4x2"). */
struct hpcp_record;
void ra_grid_record_params(struct hpcp_record *r, const struct ra_params *p);

/* Send buffers of `capacity` words, each with its request and the updates
 * it carries until the send completes. */
struct ra_sendpool {
    uint64_t **slot;
    int *slot_n;
    int *slot_own;           /* of slot_n, the updates this rank generated (torus) */
    long long own_released;  /* slot_own of the sends reaped, summed for the caller */
    MPI_Request *sreq;
    int nslots, capacity;
};
/* Take back the buffers whose sends completed; returns the updates they held. */
long long ra_sendpool_reap(struct ra_sendpool *sp);
/* A buffer with no send in flight, a new one when none (MPI_Abort when out
 * of memory, see ra_mpi_out_of_memory). *released: as ra_sendpool_reap. */
int ra_sendpool_take(struct ra_sendpool *sp, long long *released);
/* Wait for every send; returns the updates they held. */
long long ra_sendpool_wait(struct ra_sendpool *sp);
void ra_sendpool_free(struct ra_sendpool *sp);

#endif
