/* HPCC's b_eff (the latency-bandwidth benchmark of HPCC 1.5, after
 * Rabenseifner et al.): ping-pong over pairs of ranks, and the naturally and
 * randomly ordered rings. Definitions: docs/kernels/comm.md. */
#ifndef HPCPROBE_BEFF_H
#define HPCPROBE_BEFF_H
#include "comm.h"

/* HPCC's constants (bench_lat_bw): message lengths, and for each pattern
 * the calls per timed loop and the number of timed loops (measurements). */
#define BEFF_LAT_BYTES 8
#define BEFF_BW_BYTES 2000000
#define BEFF_PP_LAT_LOOP 8
#define BEFF_PP_LAT_MEAS 5
#define BEFF_PP_BW_LOOP 1
#define BEFF_PP_BW_MEAS 2
#define BEFF_RING_LAT_LOOP 5
#define BEFF_RING_LAT_MEAS 8
#define BEFF_RING_LAT_RANDOM 30
#define BEFF_RING_BW_LOOP 2
#define BEFF_RING_BW_MEAS 3
#define BEFF_RING_BW_RANDOM 10
/* A timed loop must last 10 clock ticks, else it is run again, longer. */
#define BEFF_WTICK_FACTOR 10

/* Ping-pong over pairs: per pair (client side) the best over measurements
 * of one-way time = loop time / (2 calls per loop); gathered on rank 0. */
struct beff_pingpong {
    double *latency;   /* rank 0: one per pair measured (s) */
    long long pairs;
    int stride;        /* every stride-th rank is a client and a server */
    long wrong;        /* messages whose stamps were wrong (all ranks) */
};

/* Collective: HPCC's cross ping-pong with `msg` bytes, pairs chosen so the
 * whole set takes about `max_time` s. */
int beff_pingpong_run(MPI_Comm comm, int msg, int loop, int meas, double max_time, double wtick,
                      struct beff_pingpong *out);

/* Rings: per measurement, the slowest rank's time per exchange in the
 * natural ring; per random ordering, the best over measurements of the
 * slowest rank's. Rank 0 fills them. */
struct beff_rings {
    double natural[BEFF_RING_LAT_MEAS];  /* per measurement (s) */
    int nmeas;
    double random[BEFF_RING_LAT_RANDOM]; /* per ordering (s) */
    int nrandom;
    double random_geomean;               /* HPCC's randomly ordered ring figure (s) */
    long wrong;
};

int beff_rings_run(MPI_Comm comm, int msg, int loop, int meas, int nrandom, uint64_t seed,
                   double wtick, struct beff_rings *out);

/* The order of ranks around random ring `pattern` (1, 2, ...): a
 * permutation of 0..ranks-1 drawn from `seed`. */
void beff_random_ring(int ranks, uint64_t seed, int pattern, int *order);

/* Wait for a message: polling for up to 2 ms, as a blocking receive would,
 * then sleeping between polls (ranks that wait long must not take the core
 * of ranks that measure). */
void beff_sleepy_recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm);

/* Stamp the first and last byte of a message of `n` bytes from `sender`
 * in loop iteration `i` (what HPCC checks too), and check such a stamp.
 * Inline: they sit in the timed loops, as HPCC's checks do. */
static inline unsigned char beff_stamp_value(int sender, int i, int direction)
{
    return (unsigned char)(sender * 7 + i * 13 + direction * 29 + 1);
}

static inline void beff_stamp(unsigned char *buf, int n, int sender, int i, int direction)
{
    unsigned char v = beff_stamp_value(sender, i, direction);
    buf[0] = v;
    buf[n - 1] = (unsigned char)(v ^ 0xa5);
}

static inline int beff_stamped(const unsigned char *buf, int n, int sender, int i, int direction)
{
    unsigned char v = beff_stamp_value(sender, i, direction);
    return buf[0] == v && buf[n - 1] == (unsigned char)(v ^ 0xa5);
}

#endif
