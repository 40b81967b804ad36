/* IMB's Allgather(v), Alltoall(v), Gather and Scatter: the message size is
 * what one rank contributes (per destination for Alltoall). */
#include "comm_fn.h"

void comm_extent_gather(size_t bytes, int ranks, size_t *send, size_t *recv)
{
    *send = bytes;
    *recv = bytes * (size_t)ranks;
}

static void extent_alltoall(size_t bytes, int ranks, size_t *send, size_t *recv)
{
    *send = *recv = bytes * (size_t)ranks;
}

void comm_equal_counts(const struct comm_call *c)
{
    for (int i = 0; i < c->ranks; i++) {
        c->counts[i] = (int)c->bytes;
        c->displs[i] = i * (int)c->bytes;
    }
}

static void fill_own(const struct comm_call *c)
{
    comm_fill(c->sbuf, c->bytes, c->rank, -1, c->iteration);
}

/* Block j of rbuf came from rank j; `to` is this rank for per-destination data. */
static long check_blocks(const struct comm_call *c, int to)
{
    for (int j = 0; j < c->ranks; j++) {
        long bad = comm_check(c->rbuf + (size_t)j * c->bytes, c->bytes, j, to, c->iteration);
        if (bad >= 0)
            return (long)((size_t)j * c->bytes) + bad;
    }
    return -1;
}

static long check_gathered(const struct comm_call *c)
{
    return check_blocks(c, -1);
}

static void allgather(const struct comm_call *c)
{
    int n = (int)c->bytes;
    MPI_Allgather(c->sbuf, n, MPI_BYTE, c->rbuf, n, MPI_BYTE, c->comm);
}

static void allgatherv(const struct comm_call *c)
{
    MPI_Allgatherv(c->sbuf, (int)c->bytes, MPI_BYTE, c->rbuf, c->counts, c->displs, MPI_BYTE,
                   c->comm);
}

/* Block d of the send buffer goes to rank d. */
static void fill_per_destination(const struct comm_call *c)
{
    for (int d = 0; d < c->ranks; d++)
        comm_fill(c->sbuf + (size_t)d * c->bytes, c->bytes, c->rank, d, c->iteration);
}

static long check_alltoall(const struct comm_call *c)
{
    return check_blocks(c, c->rank);
}

static void alltoall(const struct comm_call *c)
{
    int n = (int)c->bytes;
    MPI_Alltoall(c->sbuf, n, MPI_BYTE, c->rbuf, n, MPI_BYTE, c->comm);
}

static void alltoallv(const struct comm_call *c)
{
    MPI_Alltoallv(c->sbuf, c->counts, c->displs, MPI_BYTE, c->rbuf, c->counts, c->displs, MPI_BYTE,
                  c->comm);
}

static void gather(const struct comm_call *c)
{
    int n = (int)c->bytes;
    MPI_Gather(c->sbuf, n, MPI_BYTE, c->rbuf, n, MPI_BYTE, comm_root(c), c->comm);
}

static long check_gather(const struct comm_call *c)
{
    return c->rank == comm_root(c) ? check_blocks(c, -1) : -1;
}

static void extent_scatter(size_t bytes, int ranks, size_t *send, size_t *recv)
{
    *send = bytes * (size_t)ranks;
    *recv = bytes;
}

static void scatter(const struct comm_call *c)
{
    int n = (int)c->bytes;
    MPI_Scatter(c->sbuf, n, MPI_BYTE, c->rbuf, n, MPI_BYTE, comm_root(c), c->comm);
}

static void fill_scatter(const struct comm_call *c)
{
    if (c->rank == comm_root(c))
        fill_per_destination(c);
}

static long check_scatter(const struct comm_call *c)
{
    return comm_check(c->rbuf, c->bytes, comm_root(c), c->rank, c->iteration);
}

const struct comm_function comm_fn_allgather = {
    "allgather", "Allgather",    1, 0,   1, 0, 1.0, 0.0, NULL, comm_extent_gather, allgather,
    fill_own,    check_gathered, 0, NULL};
const struct comm_function comm_fn_allgatherv = {"allgatherv",
                                                 "Allgatherv",
                                                 1,
                                                 0,
                                                 1,
                                                 0,
                                                 1.0,
                                                 0.0,
                                                 comm_equal_counts,
                                                 comm_extent_gather,
                                                 allgatherv,
                                                 fill_own,
                                                 check_gathered,
                                                 0,
                                                 NULL};
const struct comm_function comm_fn_alltoall = {
    "alltoall",           "Alltoall",     1, 0,   1, 0, 1.0, 0.0, NULL, extent_alltoall, alltoall,
    fill_per_destination, check_alltoall, 1, NULL};
const struct comm_function comm_fn_alltoallv = {"alltoallv",
                                                "Alltoallv",
                                                1,
                                                0,
                                                1,
                                                0,
                                                1.0,
                                                0.0,
                                                comm_equal_counts,
                                                extent_alltoall,
                                                alltoallv,
                                                fill_per_destination,
                                                check_alltoall,
                                                0,
                                                NULL};
const struct comm_function comm_fn_gather = {
    "gather", "Gather",     1, 0,   1, 0, 1.0, 0.0, NULL, comm_extent_gather, gather,
    fill_own, check_gather, 0, NULL};
const struct comm_function comm_fn_scatter = {
    "scatter",    "Scatter",     1, 0,   1, 0, 1.0, 0.0, NULL, extent_scatter, scatter,
    fill_scatter, check_scatter, 0, NULL};

COMM_KERNEL(hpcp_comm_allgather, "allgather", "IMB Allgather");
COMM_KERNEL(hpcp_comm_allgatherv, "allgatherv", "IMB Allgatherv (equal counts)");
COMM_KERNEL(hpcp_comm_alltoall, "alltoall", "IMB Alltoall: the size per rank pair");
COMM_KERNEL(hpcp_comm_alltoallv, "alltoallv", "IMB Alltoallv (equal counts)");
COMM_KERNEL(hpcp_comm_gather, "gather", "IMB Gather, the root rotating");
COMM_KERNEL(hpcp_comm_scatter, "scatter", "IMB Scatter, the root rotating");
