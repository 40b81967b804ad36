/* IMB's Barrier, Bcast and reductions (Allreduce, Reduce, Reduce_scatter:
 * MPI_FLOAT sums, as IMB runs them). Rooted calls rotate the root. */
#include <string.h>

#include "comm_fn.h"

static void barrier(const struct comm_call *c)
{
    MPI_Barrier(c->comm);
}

static void extent_none(size_t bytes, int ranks, size_t *send, size_t *recv)
{
    *send = *recv = 0;
}

/* The root sends from its send buffer; the others receive into theirs. */
static void bcast(const struct comm_call *c)
{
    int root = comm_root(c);
    MPI_Bcast(c->rank == root ? c->sbuf : c->rbuf, (int)c->bytes, MPI_BYTE, root, c->comm);
}

static void fill_root(const struct comm_call *c)
{
    if (c->rank == comm_root(c))
        comm_fill(c->sbuf, c->bytes, c->rank, -1, c->iteration);
}

static long check_bcast(const struct comm_call *c)
{
    int root = comm_root(c);
    return c->rank == root ? -1 : comm_check(c->rbuf, c->bytes, root, -1, c->iteration);
}

static int floats(const struct comm_call *c)
{
    return (int)(c->bytes / sizeof(float));
}

static void fill_floats(const struct comm_call *c)
{
    float *v = (float *)c->sbuf;
    for (int j = 0; j < floats(c); j++)
        v[j] = comm_reduce_value(c->rank, (size_t)j, c->iteration);
}

/* First wrong byte of n sums held at v, whose first element is element
 * `first` of the whole vector. */
static long check_sums(const struct comm_call *c, const char *at, int n, int first)
{
    for (int k = 0; k < n; k++) {
        float got;
        memcpy(&got, at + (size_t)k * sizeof got, sizeof got);
        if (got != comm_reduce_sum(c->ranks, (size_t)(first + k), c->iteration))
            return (long)(k * (int)sizeof got);
    }
    return -1;
}

static void allreduce(const struct comm_call *c)
{
    MPI_Allreduce(c->sbuf, c->rbuf, floats(c), MPI_FLOAT, MPI_SUM, c->comm);
}

static long check_allreduce(const struct comm_call *c)
{
    return check_sums(c, c->rbuf, floats(c), 0);
}

static void reduce(const struct comm_call *c)
{
    MPI_Reduce(c->sbuf, c->rbuf, floats(c), MPI_FLOAT, MPI_SUM, comm_root(c), c->comm);
}

static long check_reduce(const struct comm_call *c)
{
    return c->rank == comm_root(c) ? check_sums(c, c->rbuf, floats(c), 0) : -1;
}

/* The vector's floats split as evenly as they go, the first ranks taking
 * one more (IMB's split); counts and displs in floats. */
static void split_floats(const struct comm_call *c)
{
    int n = floats(c), base = n / c->ranks, extra = n % c->ranks, at = 0;
    for (int i = 0; i < c->ranks; i++) {
        c->counts[i] = base + (i < extra);
        c->displs[i] = at;
        at += c->counts[i];
    }
}

static void reduce_scatter(const struct comm_call *c)
{
    MPI_Reduce_scatter(c->sbuf, c->rbuf, c->counts, MPI_FLOAT, MPI_SUM, c->comm);
}

static long check_reduce_scatter(const struct comm_call *c)
{
    return check_sums(c, c->rbuf, c->counts[c->rank], c->displs[c->rank]);
}

const struct comm_function comm_fn_barrier = {
    "barrier", "Barrier", 1, 0, 1, 1, 1.0, 0.0, NULL, extent_none, barrier, NULL, NULL, 0, NULL};
const struct comm_function comm_fn_bcast = {"bcast", "Bcast",   1,           0,    1,
                                            0,       1.0,       0.0,         NULL, comm_extent_one,
                                            bcast,   fill_root, check_bcast, 0,    NULL};
const struct comm_function comm_fn_allreduce = {
    "allreduce", "Allreduce",     1, 0,   4, 0, 1.0, 0.0, NULL, comm_extent_one, allreduce,
    fill_floats, check_allreduce, 1, NULL};
const struct comm_function comm_fn_reduce = {
    "reduce",    "Reduce",     1, 0,   4, 0, 1.0, 0.0, NULL, comm_extent_one, reduce,
    fill_floats, check_reduce, 0, NULL};
const struct comm_function comm_fn_reduce_scatter = {"reduce_scatter",
                                                     "Reduce_scatter",
                                                     1,
                                                     0,
                                                     4,
                                                     0,
                                                     1.0,
                                                     0.0,
                                                     split_floats,
                                                     comm_extent_one,
                                                     reduce_scatter,
                                                     fill_floats,
                                                     check_reduce_scatter,
                                                     0,
                                                     NULL};

COMM_KERNEL(hpcp_comm_barrier, "barrier", "IMB Barrier");
COMM_KERNEL(hpcp_comm_bcast, "bcast", "IMB Bcast, the root rotating");
COMM_KERNEL(hpcp_comm_allreduce, "allreduce", "IMB Allreduce: MPI_FLOAT sum");
COMM_KERNEL(hpcp_comm_reduce, "reduce", "IMB Reduce: MPI_FLOAT sum, the root rotating");
COMM_KERNEL(hpcp_comm_reduce_scatter, "reduce_scatter", "IMB Reduce_scatter: MPI_FLOAT sum");
