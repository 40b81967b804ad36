/* Measuring one comm function at one message size in one group of ranks
 * (comm_measure.c), and its buffers. */
#ifndef HPCPROBE_COMM_MEASURE_H
#define HPCPROBE_COMM_MEASURE_H
#include "comm_fn.h"

/* Timed samples kept per size: each is the mean of a batch of calls. */
#define COMM_MAX_SAMPLES 200
#define COMM_MAX_REPS 10000000L
/* A batch lasts at least this long, so reading the clock costs < 0.5 %. */
#define COMM_MIN_SAMPLE_S 20e-6

/* What one size gave, on the group's rank 0. Times are seconds per call
 * (PingPong: half a round trip), over the group's ranks. */
struct comm_point {
    size_t bytes;
    double t_min, t_avg, t_max;  /* each rank's mean over the timed calls */
    double median, p99;          /* over the samples, each the slowest rank's */
    double bandwidth;            /* IMB's: bw_factor * bytes / t_max (B/s); NAN if none */
    long reps, batch, warmup;
    int nsamples;
    double samples[COMM_MAX_SAMPLES];
    long checked, wrong;         /* calls whose received data was checked, and wrong */
    int bad_rank;                /* the lowest rank that received wrong data, -1 */
    long bad_byte;
};

/* One rank's buffers for a function: send and receive regions, cut into
 * slots that --off-cache rotates through (one slot without it). With
 * --buffers device the regions are device memory, and one slot of pinned
 * host memory each side stamps and checks the data (and with staged
 * transfers is what MPI sends from and receives into). */
struct comm_buffers {
    char *send, *recv;
    char *host_send, *host_recv; /* device buffers: pinned host, one slot each */
    size_t send_bytes, recv_bytes; /* this size's extents */
    int transfer;  /* enum comm_transfer */
    size_t send_region, recv_region;
    size_t send_stride, recv_stride;
    long slots;
    int *counts, *displs;
    int timing;    /* enum comm_timing: how the regions were allocated, and slots used */
    int off_cache; /* --off-cache: the regions span twice the last-level cache */
};

/* Bytes one rank's buffers take for `fn` up to `max_bytes` on `ranks`. */
size_t comm_buffer_bytes(const struct comm_function *fn, size_t max_bytes, int ranks, int off_cache,
                         uint64_t llc);
/* Allocate them as the timing policy's tool does (on the device when
 * `transfer` is not COMM_TRANSFER_NONE), and touch them; 0 or -1 (this rank
 * only). */
int comm_buffers_alloc(struct comm_buffers *b, const struct comm_function *fn, size_t max_bytes,
                       int ranks, int off_cache, uint64_t llc, int timing, int transfer);
/* The device side of comm_buffers_alloc (comm_device.c): regions of
 * b->send_region and b->recv_region bytes, host slots of `send` and `recv`. */
int comm_device_buffers_alloc(struct comm_buffers *b, size_t send, size_t recv);
void comm_device_buffers_free(struct comm_buffers *b);
void comm_buffers_free(struct comm_buffers *b);

/* How comm_measure times a size: the policy (enum comm_timing), hpcprobe's time
 * budget (s), --check (every timed call checked; hpcprobe's policy only), and
 * `corrupt`: flip a received byte before the last validation (the test hook). */
struct comm_measure_how {
    int timing;
    double budget;
    int check_all, corrupt;
};

/* One rank's timed calls of one size: `reps` calls in `nsamples` batches of `batch`
 * (the last may be shorter), each sample a batch's mean seconds per call; `mean`
 * over all of them. */
struct comm_timed {
    long reps, batch;
    int nsamples;
    double samples[COMM_MAX_SAMPLES], mean;
    long checked, wrong, bad;
};

/* One size in three steps, each collective over c->comm (the harness's run,
 * verify and the keeping of the point): warm up and time `fn` at c->bytes
 * as `how` says into *T (*warmup: the untimed calls); one more call,
 * stamped and compared (nothing for a function without data), `corrupt`
 * spoiling what it received; the statistics over ranks into *pt on rank 0.
 * c->iteration advances. */
void comm_measure_time(const struct comm_function *fn, struct comm_call *c, struct comm_buffers *b,
                       const struct comm_measure_how *how, struct comm_timed *T, long *warmup);
void comm_measure_check(const struct comm_function *fn, struct comm_call *c,
                        const struct comm_buffers *b, int corrupt, struct comm_timed *T);
void comm_measure_reduce(const struct comm_function *fn, const struct comm_call *c,
                         const struct comm_timed *T, long warmup, struct comm_point *pt);

/* n calls back to back, each on its slot. */
void comm_run_calls(const struct comm_function *fn, struct comm_call *c,
                    const struct comm_buffers *b, long n);
/* comm_run_calls with staged device buffers (comm_device.c): each call copies
 * the send data to pinned host memory, calls MPI there and copies the
 * received data to the device. */
void comm_staged_calls(const struct comm_function *fn, struct comm_call *c,
                       const struct comm_buffers *b, long n);
/* One checked call on device buffers: stamped on the host and copied to the
 * device before the clock starts, copied back and compared after it stops.
 * Its seconds; *wrong and *bad as comm_measure.c's checked_call. */
double comm_device_checked_call(const struct comm_function *fn, struct comm_call *c,
                                const struct comm_buffers *b, int corrupt, int *wrong, long *bad);
/* IMB-MPI1's or OSU's repetitions, warm-up and timing of one size (comm_timing.c);
 * *warmup gets the untimed calls made before. Collective over c->comm. */
void comm_time_as_peer(int timing, const struct comm_function *fn, struct comm_call *c,
                       const struct comm_buffers *b, struct comm_timed *T, long *warmup);

#endif
