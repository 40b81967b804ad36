/* IMB's point-to-point functions: PingPong and PingPing between ranks 0
 * and 1, Sendrecv and Exchange around the ring of all ranks. */
#include "comm_fn.h"

#define TAG 61

static int left_of(const struct comm_call *c)
{
    return (c->rank + c->ranks - 1) % c->ranks;
}

static int right_of(const struct comm_call *c)
{
    return (c->rank + 1) % c->ranks;
}

void comm_extent_one(size_t bytes, int ranks, size_t *send, size_t *recv)
{
    *send = *recv = bytes;
}

static void extent_exchange(size_t bytes, int ranks, size_t *send, size_t *recv)
{
    *send = bytes;
    *recv = 2 * bytes; /* from the left, then from the right */
}

/* Rank 0 sends, rank 1 answers with a message of the same size. */
static void pingpong(const struct comm_call *c)
{
    int other = 1 - c->rank, n = (int)c->bytes;
    if (c->rank == 0) {
        MPI_Send(c->sbuf, n, MPI_BYTE, other, TAG, c->comm);
        MPI_Recv(c->rbuf, n, MPI_BYTE, other, TAG, c->comm, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(c->rbuf, n, MPI_BYTE, other, TAG, c->comm, MPI_STATUS_IGNORE);
        MPI_Send(c->sbuf, n, MPI_BYTE, other, TAG, c->comm);
    }
}

/* Staged through pinned host memory as a program would: rank 1 moves what it
 * received to the device before it copies its answer out and sends it. */
static void pingpong_staged(const struct comm_call *c)
{
    int other = 1 - c->rank, n = (int)c->bytes;
    if (c->rank == 0) {
        comm_stage_copy(c->sbuf, c->dsbuf, c->bytes);
        MPI_Send(c->sbuf, n, MPI_BYTE, other, TAG, c->comm);
        MPI_Recv(c->rbuf, n, MPI_BYTE, other, TAG, c->comm, MPI_STATUS_IGNORE);
        comm_stage_copy(c->drbuf, c->rbuf, c->bytes);
    } else {
        MPI_Recv(c->rbuf, n, MPI_BYTE, other, TAG, c->comm, MPI_STATUS_IGNORE);
        comm_stage_copy(c->drbuf, c->rbuf, c->bytes);
        comm_stage_copy(c->sbuf, c->dsbuf, c->bytes);
        MPI_Send(c->sbuf, n, MPI_BYTE, other, TAG, c->comm);
    }
}

/* Both send at once: the message meets one coming the other way. */
static void pingping(const struct comm_call *c)
{
    int other = 1 - c->rank, n = (int)c->bytes;
    MPI_Request req;
    MPI_Isend(c->sbuf, n, MPI_BYTE, other, TAG, c->comm, &req);
    MPI_Recv(c->rbuf, n, MPI_BYTE, other, TAG, c->comm, MPI_STATUS_IGNORE);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
}

static void fill_own(const struct comm_call *c)
{
    comm_fill(c->sbuf, c->bytes, c->rank, -1, c->iteration);
}

static long check_other(const struct comm_call *c)
{
    return comm_check(c->rbuf, c->bytes, 1 - c->rank, -1, c->iteration);
}

static void sendrecv(const struct comm_call *c)
{
    int n = (int)c->bytes;
    MPI_Sendrecv(c->sbuf, n, MPI_BYTE, right_of(c), TAG, c->rbuf, n, MPI_BYTE, left_of(c), TAG,
                 c->comm, MPI_STATUS_IGNORE);
}

static long check_left(const struct comm_call *c)
{
    return comm_check(c->rbuf, c->bytes, left_of(c), -1, c->iteration);
}

/* To both neighbours and from both, as in a 1-D halo exchange. */
static void exchange(const struct comm_call *c)
{
    int n = (int)c->bytes;
    MPI_Request req[2];
    MPI_Isend(c->sbuf, n, MPI_BYTE, left_of(c), TAG, c->comm, &req[0]);
    MPI_Isend(c->sbuf, n, MPI_BYTE, right_of(c), TAG, c->comm, &req[1]);
    MPI_Recv(c->rbuf, n, MPI_BYTE, left_of(c), TAG, c->comm, MPI_STATUS_IGNORE);
    MPI_Recv(c->rbuf + c->bytes, n, MPI_BYTE, right_of(c), TAG, c->comm, MPI_STATUS_IGNORE);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
}

static long check_both(const struct comm_call *c)
{
    long bad = comm_check(c->rbuf, c->bytes, left_of(c), -1, c->iteration);
    if (bad >= 0)
        return bad;
    bad = comm_check(c->rbuf + c->bytes, c->bytes, right_of(c), -1, c->iteration);
    return bad >= 0 ? (long)c->bytes + bad : -1;
}

const struct comm_function comm_fn_pingpong = {
    "pingpong", "PingPong", 2,           1,    1,
    0,          2.0,        1.0,         NULL, comm_extent_one,
    pingpong,   fill_own,   check_other, 1,    pingpong_staged};
const struct comm_function comm_fn_pingping = {
    "pingping", "PingPing",      2,        1,        1,           0, 1.0, 1.0,
    NULL,       comm_extent_one, pingping, fill_own, check_other, 0, NULL};
const struct comm_function comm_fn_sendrecv = {
    "sendrecv", "Sendrecv",      1,        0,        1,          0, 1.0, 2.0,
    NULL,       comm_extent_one, sendrecv, fill_own, check_left, 0, NULL};
const struct comm_function comm_fn_exchange = {
    "exchange", "Exchange",      1,        0,        1,          0, 1.0, 4.0,
    NULL,       extent_exchange, exchange, fill_own, check_both, 0, NULL};

int comm_fn_one_stream(const struct comm_function *fn)
{
    return fn == &comm_fn_pingpong || fn == &comm_fn_pingping || fn == &comm_fn_sendrecv ||
           fn == &comm_fn_exchange;
}

COMM_KERNEL(hpcp_comm_pingpong, "pingpong",
            "IMB PingPong: half the round trip between ranks 0 and 1");
COMM_KERNEL(hpcp_comm_pingping, "pingping",
            "IMB PingPing: ranks 0 and 1 send to each other at once");
COMM_KERNEL(hpcp_comm_sendrecv, "sendrecv",
            "IMB Sendrecv: every rank sends right, receives from the left");
COMM_KERNEL(hpcp_comm_exchange, "exchange",
            "IMB Exchange: every rank sends to and receives from both neighbours");
