/* WOCON (paper 004, Figures 1-2): rank 0 ping-pongs B-byte messages with
 * the first rank of every other node in turn, one destination at a time,
 * so no message shares a link with another; one-way time per destination
 * = the ping-pongs' time / 2M. A destination sleeps until its turn. */
#include "contention.h"
#include "hpcprobe/util.h"

enum { TAG_GO = 42, TAG_READY = 43, TAG_PING = 44 };

/* Rank 0's side with destination `dest`; returns wrong messages. */
static long long ping(struct cont_state *s, int dest, size_t bytes, double *seconds)
{
    char token = 0;
    long long wrong = 0;
    int M = s->p.messages, last = M - 1;
    MPI_Send(&token, 0, MPI_BYTE, dest, TAG_GO, MPI_COMM_WORLD);
    MPI_Recv(&token, 0, MPI_BYTE, dest, TAG_READY, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double t0 = MPI_Wtime();
    for (int j = 0; j < M; j++) {
        cont_stamp(s->send, bytes, 0, s->rep, j);
        if (s->corrupt_now && j == last)
            s->send[bytes - 1] ^= 0xff; /* test hook: the destination must see it */
        MPI_Send(s->send, (int)bytes, MPI_BYTE, dest, TAG_PING, MPI_COMM_WORLD);
        MPI_Recv(s->recv, (int)bytes, MPI_BYTE, dest, TAG_PING, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        wrong += s->p.run.verify && !cont_message_ok(s->recv, bytes, dest, s->rep, j, 0);
    }
    *seconds = (MPI_Wtime() - t0) / (2.0 * M);
    if (s->corrupt_now)
        cont_fill_payload(s->send, bytes, 0);
    if (s->p.run.verify && cont_message_ok(s->recv, bytes, dest, s->rep, last, 0) &&
        !cont_message_ok(s->recv, bytes, dest, s->rep, last, 1))
        wrong++;
    return wrong;
}

/* A destination's side: wait asleep for the go, then answer M pings. */
static long long pong(struct cont_state *s, int me, size_t bytes)
{
    char token = 0;
    long long wrong = 0;
    int M = s->p.messages, last = M - 1;
    cont_idle_recv(&token, 0, 0, TAG_GO, MPI_COMM_WORLD);
    MPI_Send(&token, 0, MPI_BYTE, 0, TAG_READY, MPI_COMM_WORLD);
    for (int j = 0; j < M; j++) {
        MPI_Recv(s->recv, (int)bytes, MPI_BYTE, 0, TAG_PING, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        wrong += s->p.run.verify && !cont_message_ok(s->recv, bytes, 0, s->rep, j, 0);
        cont_stamp(s->send, bytes, me, s->rep, j);
        MPI_Send(s->send, (int)bytes, MPI_BYTE, 0, TAG_PING, MPI_COMM_WORLD);
    }
    if (s->p.run.verify && cont_message_ok(s->recv, bytes, 0, s->rep, last, 0) &&
        !cont_message_ok(s->recv, bytes, 0, s->rep, last, 1))
        wrong++;
    return wrong;
}

static int wocon_run(struct hpcp_bench *b, double *seconds)
{
    struct cont_state *s = b->state;
    size_t bytes = s->p.sizes[s->size_index];
    if (s->active == MPI_COMM_NULL)
        return 0; /* not in this phase: it waits asleep at the phase's end */
    double start = MPI_Wtime();
    cont_fill_payload(s->send, bytes, b->rank);
    if (b->rank == 0) {
        int spoil = s->corrupt_now;
        for (int i = 0; i < s->plan.npairs; i++) {
            s->corrupt_now = spoil && i == s->plan.npairs - 1; /* the last destination */
            s->wrong += ping(s, s->plan.b[i], bytes, &s->dest_seconds[i]);
        }
    } else {
        s->wrong += pong(s, b->rank, bytes);
    }
    *seconds = MPI_Wtime() - start;
    return 0;
}

static int wocon_setup(struct hpcp_bench *b)
{
    return cont_setup(b, cont_plan_wocon);
}

const struct hpcp_kernel hpcp_contention_wocon = {
    "contention",       "wocon",
    "pingpong",         "paper 004 WOCON: rank 0 to every other node in turn, latency against hops",
    cont_driver,        wocon_setup,
    wocon_run,          cont_verify,
    cont_teardown,      NULL,
    &cont_options_desc, &cont_wocon_records};
