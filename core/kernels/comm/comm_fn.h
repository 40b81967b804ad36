/* The IMB-style functions of `comm`: one descriptor each (comm_p2p.c,
 * comm_coll.c, comm_gather.c), listed in comm_functions[]. */
#ifndef HPCPROBE_COMM_FN_H
#define HPCPROBE_COMM_FN_H
#include "comm.h"

/* One call of a function by one rank of its group. */
struct comm_call {
    MPI_Comm comm;
    int rank, ranks;
    size_t bytes;        /* the message size as IMB counts it for the function */
    long iteration;      /* which call: rotates roots, seeds the check patterns */
    char *sbuf, *rbuf;   /* this call's buffers (rotated with --off-cache) */
    int *counts, *displs; /* `ranks` entries: v-functions (bytes), reduce_scatter (floats) */
    /* --buffers device, staged: the device slots whose data sbuf and rbuf
     * (pinned host memory) carry. */
    char *dsbuf, *drbuf;
};

struct comm_function {
    const char *name;      /* "pingpong": the record's variant */
    const char *imb_name;  /* "PingPong" */
    int min_ranks;
    int pair;              /* ranks 0 and 1 only (IMB's single transfer); the others wait */
    int elem_bytes;        /* 4: float sums, sizes in whole floats; else 1 */
    int sizeless;          /* Barrier: no data, one point */
    double time_divisor;   /* PingPong: 2, a call is a round trip and t is half of it */
    double bw_factor;      /* IMB's bytes per message byte for the bandwidth; 0: none */
    /* Before the calls of each size: fill counts/displs (NULL: not used). */
    void (*layout)(const struct comm_call *c);
    /* Bytes of the send and receive buffers one call at `bytes` needs. */
    void (*extent)(size_t bytes, int ranks, size_t *send, size_t *recv);
    void (*call)(const struct comm_call *c);
    /* Stamp what this rank sends; NULL: nothing to check (Barrier). */
    void (*fill)(const struct comm_call *c);
    /* Index of the first wrong byte this rank received, or -1. */
    long (*check)(const struct comm_call *c);
    int device; /* takes --buffers device */
    /* --buffers device, staged, when the generic order (send data to the host,
     * call, received data to the device) is not what one call would do
     * (PingPong's answer); NULL: the generic order. */
    void (*staged)(const struct comm_call *c);
};

extern const struct comm_function *const comm_functions[];
extern const int comm_nfunctions;
const struct comm_function *comm_function_named(const char *name);

/* The root of a rooted call: IMB rotates it over the ranks. */
static inline int comm_root(const struct comm_call *c)
{
    return (int)(c->iteration % c->ranks);
}

/* 1 for the point-to-point functions (PingPong, PingPing, Sendrecv,
 * Exchange): each message goes to one peer, `bytes` per call, so bytes over
 * the time of a call is at most the rate of one message stream, which any
 * link the stream crosses bounds. */
int comm_fn_one_stream(const struct comm_function *fn);

/* Extents shared by several functions. */
void comm_extent_one(size_t bytes, int ranks, size_t *send, size_t *recv);
void comm_extent_gather(size_t bytes, int ranks, size_t *send, size_t *recv);
/* counts[i] = bytes, displs[i] = i * bytes (the v-functions). */
void comm_equal_counts(const struct comm_call *c);

/* The phases of every comm kernel (comm_run.c), b->state a function's
 * sweep over its sizes on one group: the buffers; one size's calibration
 * and timed calls; the stamped and compared call after them; freeing. */
int comm_kernel_setup(struct hpcp_bench *b);
int comm_kernel_run(struct hpcp_bench *b, double *seconds);
int comm_kernel_verify(struct hpcp_bench *b, double *error);
void comm_kernel_teardown(struct hpcp_bench *b);

#define COMM_KERNEL(sym, fname, summary)                  \
    const struct hpcp_kernel sym = {"comm",               \
                                    fname,                \
                                    "imb",                \
                                    summary,              \
                                    hpcp_comm_driver,     \
                                    comm_kernel_setup,    \
                                    comm_kernel_run,      \
                                    comm_kernel_verify,   \
                                    comm_kernel_teardown, \
                                    NULL,                 \
                                    &comm_options_desc,   \
                                    &comm_records}

#endif
