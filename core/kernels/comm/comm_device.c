/* --buffers device (docs/kernels/comm.md): the device each rank uses, how MPI
 * reaches device memory (CUDA-aware, or staged through pinned host memory),
 * the buffers, the staged calls, the checked call, and what the record says. */
#include <stdio.h>
#include <string.h>

#include "comm_measure.h"
#include "hpcprobe/device.h"
#include "hpcprobe/util.h"

static const char *const transfer_names[] = {"none", "cuda-aware", "staged"};

const char *comm_transfer_name(int transfer)
{
    return transfer_names[transfer];
}

/* Collective: 1 when some rank failed, with the lowest such rank's `why` on
 * every rank (each rank knows only its own reason, and rank 0 says it). */
static int first_failure(MPI_Comm comm, int failed, char *why, int len)
{
    int rank, ranks;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    int mine = failed ? rank : ranks, first;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
    if (first == ranks)
        return 0;
    MPI_Bcast(why, len, MPI_CHAR, first, comm);
    why[len - 1] = '\0';
    return 1;
}

int comm_device_open(struct comm_device *d, const char *bench, const struct hpcp_sysinfo *si)
{
    char why[256] = "";
    int count = 0, node_rank = 0;
    d->transfer = COMM_TRANSFER_NONE;
    if (!d->on)
        return 0;
    int none = hpcp_device_count(&count, why, sizeof why) != 0;
    if (first_failure(MPI_COMM_WORLD, none, why, (int)sizeof why)) {
        hpcp_error(MPI_COMM_WORLD, "%s: --buffers device: %s", bench, why);
        return HPCP_EXIT_USAGE;
    }
    /* Ranks of a node share its devices in turn. */
    MPI_Comm_rank(si->node_comm, &node_rank);
    d->index = node_rank % count;
    int failed = hpcp_device_select(d->index) != 0;
    if (failed)
        snprintf(why, sizeof why, "cannot use device %d (%s)", d->index, hpcp_device_last_error());
    if (first_failure(MPI_COMM_WORLD, failed, why, (int)sizeof why)) {
        hpcp_error(MPI_COMM_WORLD, "%s: --buffers device: %s", bench, why);
        return HPCP_EXIT_RUNTIME;
    }
    struct hpcp_device_info info;
    if (hpcp_device_info(d->index, &info, why, sizeof why) == 0)
        hpcp_copy_truncated(d->name, sizeof d->name, info.name);
    /* Asked of the library at run time; one rank that cannot tell makes every rank stage,
     * so that no rank hands MPI a device pointer another rank's MPI could not take. */
    d->aware = hpcp_mpi_device_aware(d->query, sizeof d->query);
    MPI_Allreduce(MPI_IN_PLACE, &d->aware, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    d->transfer = d->aware == 1 ? COMM_TRANSFER_CUDA_AWARE : COMM_TRANSFER_STAGED;
    return 0;
}

void comm_device_record(struct hpcp_record *r, const struct comm_device *d)
{
    hpcp_record_param_string(r, "buffers", d->on ? "device" : "host");
    hpcp_record_param_string(r, "device_transfer", comm_transfer_name(d->transfer));
    if (!d->on) {
        hpcp_record_param_null(r, "mpi_device_aware");
        hpcp_record_param_null(r, "mpi_device_query");
        hpcp_record_param_null(r, "device");
        hpcp_record_param_null(r, "device_name");
        return;
    }
    if (d->aware < 0)
        hpcp_record_param_null(r, "mpi_device_aware");
    else
        hpcp_record_param_bool(r, "mpi_device_aware", d->aware);
    hpcp_record_param_string(r, "mpi_device_query", d->query);
    hpcp_record_param_int(r, "device", d->index);
    hpcp_record_param_string(r, "device_name", d->name);
    if (d->transfer == COMM_TRANSFER_STAGED)
        hpcp_record_note(r,
                         "device buffers staged through pinned host memory (%s: %s): each "
                         "timed call includes the copies device to host and host to device "
                         "around the MPI call, so the times are not the MPI's own",
                         d->query, d->aware == 0 ? "not CUDA-aware" : "cannot tell");
}

void comm_stage_copy(void *dst, const void *src, size_t bytes)
{
    if (bytes > 0)
        (void)hpcp_device_copy(dst, src, bytes);
}

int comm_device_buffers_alloc(struct comm_buffers *b, size_t send, size_t recv)
{
    send = send ? send : 1, recv = recv ? recv : 1;
    b->send = hpcp_device_alloc(b->send_region);
    b->recv = hpcp_device_alloc(b->recv_region);
    b->host_send = hpcp_host_pinned_alloc(send);
    b->host_recv = hpcp_host_pinned_alloc(recv);
    if (!b->send || !b->recv || !b->host_send || !b->host_recv)
        return -1;
    memset(b->host_send, 0, send);
    memset(b->host_recv, 0, recv);
    /* Written once, as the host regions are touched: no first use lands in a timed call. */
    if (hpcp_device_memset(b->send, 0, b->send_region) != 0 ||
        hpcp_device_memset(b->recv, 0, b->recv_region) != 0)
        return -1;
    return 0;
}

void comm_device_buffers_free(struct comm_buffers *b)
{
    hpcp_device_free(b->send);
    hpcp_device_free(b->recv);
    hpcp_host_pinned_free(b->host_send);
    hpcp_host_pinned_free(b->host_recv);
}

/* This call's device slots (rotated as host slots are). */
static void device_slots(const struct comm_buffers *b, long iteration, char **send, char **recv)
{
    long slot = b->slots > 1 ? iteration % b->slots : 0;
    *send = b->send + (size_t)slot * b->send_stride;
    *recv = b->recv + (size_t)slot * b->recv_stride;
}

/* One staged call: the function's own order, or the generic one. */
static void staged_call(const struct comm_function *fn, const struct comm_call *c,
                        const struct comm_buffers *b)
{
    if (fn->staged) {
        fn->staged(c);
        return;
    }
    comm_stage_copy(c->sbuf, c->dsbuf, b->send_bytes);
    fn->call(c);
    comm_stage_copy(c->drbuf, c->rbuf, b->recv_bytes);
}

void comm_staged_calls(const struct comm_function *fn, struct comm_call *c,
                       const struct comm_buffers *b, long n)
{
    c->sbuf = b->host_send, c->rbuf = b->host_recv;
    for (long i = 0; i < n; i++, c->iteration++) {
        device_slots(b, c->iteration, &c->dsbuf, &c->drbuf);
        staged_call(fn, c, b);
    }
}

double comm_device_checked_call(const struct comm_function *fn, struct comm_call *c,
                                const struct comm_buffers *b, int corrupt, int *wrong, long *bad)
{
    char *dsend, *drecv;
    device_slots(b, c->iteration, &dsend, &drecv);
    c->sbuf = b->host_send, c->rbuf = b->host_recv;
    fn->fill(c);
    int failed = b->send_bytes > 0 && hpcp_device_copy(dsend, b->host_send, b->send_bytes) != 0;
    if (b->transfer == COMM_TRANSFER_CUDA_AWARE)
        c->sbuf = dsend, c->rbuf = drecv;
    c->dsbuf = dsend, c->drbuf = drecv;
    double t0 = MPI_Wtime();
    if (b->transfer == COMM_TRANSFER_STAGED)
        staged_call(fn, c, b);
    else
        fn->call(c);
    double t = MPI_Wtime() - t0;
    /* What is checked is what reached the device, not a staged copy of it. */
    memset(b->host_recv, 0, b->recv_bytes);
    failed |= b->recv_bytes > 0 && hpcp_device_copy(b->host_recv, drecv, b->recv_bytes) != 0;
    c->sbuf = b->host_send, c->rbuf = b->host_recv;
    if (corrupt && b->recv_bytes > 0)
        c->rbuf[0] ^= 0x5a; /* HPCPROBE_INJECT_FAULT=corrupt:N: validation must see it */
    long at = failed ? 0 : fn->check(c);
    *wrong = at >= 0;
    if (at >= 0 && *bad < 0)
        *bad = at;
    c->iteration++;
    return t;
}
