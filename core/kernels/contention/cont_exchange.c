/* Message contents, the WICON burst (paper 004's Figure 8) and its check.
 * WICON, stress-link and equidistant all time this burst; they differ in
 * the pairs (cont_pairs.c). */
#include <stdint.h>
#include <string.h>

#include "contention.h"
#include "hpcprobe/util.h"

#define TAG_DATA 41
/* An idle rank polls this often for the message that wakes it. */
#define IDLE_POLL_NS 50000L

void cont_fill_payload(unsigned char *buf, size_t bytes, int sender)
{
    for (size_t i = 0; i < bytes; i++)
        buf[i] = (unsigned char)((unsigned)sender * 29u + (unsigned)i * 7u + 3u);
}

static uint64_t stamp_value(int sender, int rep, int seq)
{
    return ((uint64_t)(uint32_t)sender << 32) ^ ((uint64_t)(uint32_t)rep << 20) ^
           (uint64_t)(uint32_t)seq ^ 0x5bd1e995u;
}

void cont_stamp(unsigned char *buf, size_t bytes, int sender, int rep, int seq)
{
    uint64_t v = stamp_value(sender, rep, seq);
    memcpy(buf, &v, bytes < sizeof v ? bytes : sizeof v);
}

int cont_message_ok(const unsigned char *buf, size_t bytes, int sender, int rep, int seq, int full)
{
    uint64_t v = stamp_value(sender, rep, seq);
    size_t head = bytes < sizeof v ? bytes : sizeof v;
    if (memcmp(buf, &v, head) != 0)
        return 0;
    for (size_t i = head; full && i < bytes; i++)
        if (buf[i] != (unsigned char)((unsigned)sender * 29u + (unsigned)i * 7u + 3u))
            return 0;
    return 1;
}

void cont_idle_recv(void *buf, int count, int source, int tag, MPI_Comm comm)
{
    MPI_Request req;
    MPI_Irecv(buf, count, MPI_BYTE, source, tag, comm, &req);
    hpcp_wait_asleep(1, &req, IDLE_POLL_NS);
}

static void send_burst(struct cont_state *s, int me, size_t bytes)
{
    int last = s->p.messages - 1;
    for (int j = 0; j < s->p.messages; j++) {
        cont_stamp(s->send, bytes, me, s->rep, j);
        /* Test hook (HPCPROBE_INJECT_FAULT=corrupt:N): one wrong byte in the
         * last message, which the receiver's check must see. */
        if (s->corrupt_now && j == last)
            s->send[bytes - 1] ^= 0xff;
        MPI_Send(s->send, (int)bytes, MPI_BYTE, s->partner, TAG_DATA, MPI_COMM_WORLD);
    }
}

/* Receives the burst; stamps are checked as they come (a load and a compare). */
static long long recv_burst(struct cont_state *s, size_t bytes)
{
    long long wrong = 0;
    for (int j = 0; j < s->p.messages; j++) {
        MPI_Recv(s->recv, (int)bytes, MPI_BYTE, s->partner, TAG_DATA, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        wrong += s->p.run.verify && !cont_message_ok(s->recv, bytes, s->partner, s->rep, j, 0);
    }
    return wrong;
}

int cont_exchange_run(struct hpcp_bench *b, double *seconds)
{
    struct cont_state *s = b->state;
    size_t bytes = s->p.sizes[s->size_index];
    long long wrong;
    if (s->active == MPI_COMM_NULL)
        return 0; /* not in this phase: it waits asleep at the phase's end */
    cont_fill_payload(s->send, bytes, b->rank);
    MPI_Barrier(s->active);
    double t0 = MPI_Wtime();
    if (s->initiator) {
        send_burst(s, b->rank, bytes);
        wrong = recv_burst(s, bytes);
    } else {
        wrong = recv_burst(s, bytes);
        send_burst(s, b->rank, bytes);
    }
    double t1 = MPI_Wtime();
    /* The whole payload of the last message, outside the timed region (a
     * wrong stamp was counted already). */
    int last = s->p.messages - 1;
    if (s->p.run.verify && cont_message_ok(s->recv, bytes, s->partner, s->rep, last, 0) &&
        !cont_message_ok(s->recv, bytes, s->partner, s->rep, last, 1))
        wrong++;
    s->wrong += wrong;
    s->seconds = (t1 - t0) / s->p.messages;
    *seconds = t1 - t0;
    return 0;
}

int cont_verify(struct hpcp_bench *b, double *error)
{
    struct cont_state *s = b->state;
    long long wrong = s->wrong;
    MPI_Reduce(b->rank == 0 ? MPI_IN_PLACE : &wrong, &wrong, 1, MPI_LONG_LONG, MPI_SUM, 0, b->comm);
    *error = (double)wrong;
    return 0;
}
