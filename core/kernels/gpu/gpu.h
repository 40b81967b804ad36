/* The GPU family (docs/kernels/gpu.md): device memory bandwidth (gpu stream),
 * RandomAccess on a device table (gpu ra) and host/device copies (gpu copy).
 *
 * The device code (gpu_*.cu, built when CMake finds a CUDA compiler) sits
 * behind the C functions declared under "device side"; gpu_none.c gives the
 * same functions in a build without CUDA (each fails, and the driver has
 * already refused through hpcp_device_count). Everything else here is plain
 * host C, unit-tested without a device (core/tests/test_gpu.c). */
#ifndef HPCP_GPU_H
#define HPCP_GPU_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* --- gpu stream: BabelStream's five kernels -------------------------------- */

enum gpu_stream_op { GPU_COPY, GPU_MUL, GPU_ADD, GPU_TRIAD, GPU_DOT, GPU_STREAM_OPS };

/* BabelStream's start values and scalar. */
#define GPU_STREAM_A0 0.1
#define GPU_STREAM_B0 0.2
#define GPU_STREAM_C0 0.0
#define GPU_STREAM_SCALAR 0.4

/* "copy", "mul", "add", "triad", "dot". */
const char *gpu_stream_op_name(enum gpu_stream_op op);
/* Bytes one execution of `op` moves over n doubles per array (BabelStream's
 * counting: copy and mul 2 arrays, add and triad 3, dot 2). */
double gpu_stream_bytes(enum gpu_stream_op op, uint64_t n);
/* Flops of one execution (mul 1, add 1, triad 2, dot 2 per element). */
double gpu_stream_flops(enum gpu_stream_op op, uint64_t n);

/* The values every element must hold after `reps` rounds of copy, mul, add,
 * triad (in that order) from the start values, and the dot of the last
 * round: BabelStream's check_solution, replayed on scalars. */
struct gpu_stream_gold {
    double a, b, c, dot;
};
void gpu_stream_gold(int reps, uint64_t n, struct gpu_stream_gold *g);

/* The relative errors of the arrays' mean absolute deviations (err[0..2]) and
 * of the dot (err[3]) against the gold values; the check passes when the
 * arrays' are <= GPU_STREAM_TOLERANCE and the dot's <= GPU_STREAM_DOT_TOLERANCE
 * (BabelStream's epsilon x 100 and 1e-8). */
#define GPU_STREAM_TOLERANCE (100 * 2.220446049250313e-16)
#define GPU_STREAM_DOT_TOLERANCE 1.0e-8
void gpu_stream_errors(const struct gpu_stream_gold *g, const double mean_abs_dev[3], double dot,
                       double err[4]);

/* --- gpu ra: HPCC's RandomAccess on a device table ------------------------- */

/* The update streams: `streams` generator streams share 4 x words updates,
 * stream s taking [first(s), first(s+1)) of HPCC's one sequence. */
struct gpu_ra_plan {
    uint64_t words;        /* table words, a power of two */
    uint64_t updates;      /* 4 x words (HPCC) */
    uint64_t streams;      /* one device thread each */
    uint64_t per_stream;   /* updates / streams, rounded down */
    uint64_t extra;        /* the first `extra` streams take one more */
};
/* Plan `streams` streams (clipped to 1..updates) over a 2^log2 table. */
void gpu_ra_plan_init(struct gpu_ra_plan *p, int log2_words, uint64_t streams);
/* Index in HPCC's sequence of stream s's first update. */
uint64_t gpu_ra_stream_first(const struct gpu_ra_plan *p, uint64_t s);
/* HPCC's generator (x^64 + x^2 + x + 1 over GF(2)): the value after n steps
 * from 1 (HPCC_starts); the device side uses the same code (gups_rng.h). */
uint64_t gpu_ra_starts(uint64_t n);
/* The largest fraction of wrong words HPCC accepts. */
#define GPU_RA_ERROR_FRACTION 0.01

/* --- gpu copy: copies between host and device ------------------------------ */

enum gpu_copy_kind {
    GPU_COPY_H2D,  /* host to device */
    GPU_COPY_D2H,  /* device to host */
    GPU_COPY_D2D,  /* within one device */
    GPU_COPY_P2P,  /* device to another device (peer access) */
    GPU_COPY_KINDS
};
/* "h2d", "d2h", "d2d", "p2p". */
const char *gpu_copy_kind_name(enum gpu_copy_kind k);
/* Bytes a copy of `bytes` moves over device memory: d2d reads and writes
 * (2x, as cudaMemcpy bandwidth is counted by BabelStream and NVIDIA's
 * samples), the others cross the link once. */
double gpu_copy_counted_bytes(enum gpu_copy_kind k, uint64_t bytes);

/* --- sizing ----------------------------------------------------------------- */

/* STREAM's rule on a device: each array >= 4 x the L2, as large as three
 * arrays in `fraction` of free device memory allow, a power of two number of
 * doubles; 0 when even 4 x L2 does not fit. `rule` (may be NULL) gets the
 * rule in words for the record's size_rule. */
uint64_t gpu_stream_elements(uint64_t l2_bytes, uint64_t free_bytes, double fraction, char *rule,
                             size_t len);
/* RandomAccess: the largest power-of-two table in `fraction` of free device
 * memory (HPCC: half of memory), 0 when none fits. */
int gpu_ra_log2_words(uint64_t free_bytes, double fraction, char *rule, size_t len);

/* --- device side (gpu_*.cu, or gpu_none.c) -------------------------------- */

/* The latest device-side failure, in words (for a one-line error). */
const char *gpu_last_error(void);

/* Arrays of n doubles on the current device. */
struct gpu_stream_arrays;
struct gpu_stream_arrays *gpu_stream_create(uint64_t n);
void gpu_stream_destroy(struct gpu_stream_arrays *s);
/* Fill with the start values: 0 or -1. */
int gpu_stream_init(struct gpu_stream_arrays *s);
/* One execution of op, timed with device events: 0 and *seconds (and *dot
 * for GPU_DOT), or -1. */
int gpu_stream_run(struct gpu_stream_arrays *s, enum gpu_stream_op op, double *seconds,
                   double *dot);
/* Mean absolute deviation of each array from its gold value, on the device. */
int gpu_stream_deviation(struct gpu_stream_arrays *s, const struct gpu_stream_gold *g,
                         double mean_abs_dev[3]);
/* Test hook (corrupt:N): add 1 to element n/2 of array a. */
int gpu_stream_spoil(struct gpu_stream_arrays *s);

/* A device table of p->words words, table[i] = i. */
struct gpu_ra_table;
struct gpu_ra_table *gpu_ra_create(const struct gpu_ra_plan *p);
void gpu_ra_destroy(struct gpu_ra_table *t);
/* Reset to table[i] = i: 0 or -1. */
int gpu_ra_reset(struct gpu_ra_table *t);
/* All updates, one thread per stream, XOR atomic (atomic = 1) or plain:
 * 0 and *seconds, or -1. */
int gpu_ra_update(struct gpu_ra_table *t, int atomic, double *seconds);
/* HPCC's check by replay: the same updates again with atomic XOR, then the
 * words that are not their index: 0 and *wrong, or -1. */
int gpu_ra_verify(struct gpu_ra_table *t, uint64_t *wrong);
/* Test hook (corrupt:N): flip N words. */
int gpu_ra_spoil(struct gpu_ra_table *t, uint64_t words);

/* Time `reps` copies of `bytes` of kind k (pinned: page-locked host memory,
 * else pageable), on `device` (and `peer` for P2P), with device events;
 * seconds[0..reps). Then the data are checked: *intact = 1 when what arrived
 * is what was sent. 0, or -1 with one line in why. */
int gpu_copy_time(enum gpu_copy_kind k, int pinned, int device, int peer, uint64_t bytes, int reps,
                  double *seconds, int *intact, char *why, size_t len);
/* 1 when `device` can access `peer`'s memory directly. */
int gpu_peer_access(int device, int peer);

#ifdef __cplusplus
}
#endif
#endif
