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
 * slots that --off-cache rotates through (one slot without it). */
struct comm_buffers {
    char *send, *recv;
    size_t send_region, recv_region;
    size_t send_stride, recv_stride;
    long slots;
    int *counts, *displs;
};

/* Bytes one rank's buffers take for `fn` up to `max_bytes` on `ranks`. */
size_t comm_buffer_bytes(const struct comm_function *fn, size_t max_bytes, int ranks, int off_cache,
                         uint64_t llc);
/* Allocate and touch them; 0 or -1 (this rank only). */
int comm_buffers_alloc(struct comm_buffers *b, const struct comm_function *fn, size_t max_bytes,
                       int ranks, int off_cache, uint64_t llc);
void comm_buffers_free(struct comm_buffers *b);

/* Collective over c->comm: calibrate, time and validate `fn` at c->bytes;
 * c->iteration advances. `corrupt`: flip a received byte before the last
 * validation (the test hook). Rank 0 gets *pt. */
void comm_measure(const struct comm_function *fn, struct comm_call *c, struct comm_buffers *b,
                  double budget, int check_all, int corrupt, struct comm_point *pt);

#endif
