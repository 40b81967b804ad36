/* `hpcprobe-bench pairs` (docs/kernels/comm.md): the rank-pair bandwidth
 * matrix, measured in rounds of disjoint pairs. Shared by its measurement
 * (pairs.c), its schedule (pairs_schedule.c) and its record (pairs_record.c). */
#ifndef HPCPROBE_PAIRS_H
#define HPCPROBE_PAIRS_H
#include <stdint.h>

#include "comm.h"

/* --- the schedule (pairs_schedule.c) ---------------------------------------- */

/* What the first `rounds` rounds of an order cover: ordered pairs (both
 * directions of each pair of a round), ranks in at least one pair, and node
 * pairs (unordered pairs of nodes, a node with itself where it has two ranks). */
struct pairs_cover {
    int rounds, rounds_total;
    long long pairs, pairs_total;           /* measured, and P(P-1) */
    int ranks_covered, ranks;
    long long node_pairs, node_pairs_total; /* covered, and those that exist */
};

/* The order in which the rounds are measured: order[0..pairs_rounds(ranks))
 * holds every round once. node[i]: rank i's node (any int; equal = same
 * node). The rounds are taken in a seeded random order; the first ones are
 * those that, in that order, cover a rank or node pair not yet covered, so
 * that every rank and node pair is covered before any other round. Returns
 * how many rounds that takes (0 for fewer than 2 ranks, -1 out of memory). */
int pairs_order(int ranks, const int *node, uint64_t seed, int *order);

/* The coverage of order[0..rounds) (0, or -1 out of memory). */
int pairs_coverage(int ranks, const int *node, const int *order, int rounds, struct pairs_cover *c);

/* Timed messages for a sample of `want` seconds after a batch of `k` took
 * `s` s: *done and the count (at least `least`) when the batch was long
 * enough to judge (want/8), else the next, larger batch. want <= 0: `least`. */
int pairs_next_count(int k, double s, double want, int least, int *done);
#define PAIRS_MAX_MESSAGES 1000000

/* --- the result and its record (pairs_record.c) ----------------------------- */

/* Rank 0's view of a run: P x P matrices, row = source, NaN where the pair
 * was not measured. */
struct pairs_result {
    double *bw, *lo, *hi; /* per pair: median, least and greatest sample (B/s) */
    double *msgs;         /* timed messages per sample */
    double *same;         /* 1 where the two ranks share a node (symmetric) */
    int *node;            /* each rank's host (index into metadata.hosts) */
    int *order, covering, measured; /* rounds in order, those covering, those measured */
    struct pairs_cover cover;
    long wrong, missing;  /* samples with wrong data; measured pairs with no figure */
    int bad_rank, bad_from; /* the lowest rank that received wrong data, and from whom */
    double seconds;       /* the measurement, calibration included */
};

/* The record of a run (rank 0). */
void pairs_build_record(struct hpcp_record *r, const struct hpcp_kernel *k,
                        const struct comm_params *p, const struct hpcp_sysinfo *si,
                        const struct pairs_result *R, int ranks, const char *note);
/* The summary lines (rank 0 unless --quiet). */
void pairs_print_results(const struct hpcp_record *r, const struct pairs_result *R);

#endif
