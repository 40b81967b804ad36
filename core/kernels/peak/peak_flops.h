/* `peak flops`'s run state and phases (peak_flops.c), shared with its driver
 * (peak_flops_driver.c). */
#ifndef HPCP_PEAK_FLOPS_H
#define HPCP_PEAK_FLOPS_H
#include "peak.h"

struct flops_run {
    struct peak_flops_state f;
    const struct hpcp_common *c;
    double min_time;
    int ranks, active_ranks;
    struct hpcp_cpu_isa cpu;
    double last_seconds, last_clock; /* this rank's latest repetition */
    /* rank 0: per timed repetition and per warm-up, the rate (the sum over
     * the ranks that ran), the slowest rank's rate and rank 0's clock */
    double *rate, *per_rank, *clock;
    double *wrate, *wper_rank, *wclock;
    int reps, warms;
    /* rank 0: each rank's best rate, and its clock per repetition */
    double *rank_best, *rank_clocks;
    double *gather; /* 2 x ranks: seconds, clock */
};

int flops_setup(struct hpcp_bench *b);
int flops_run(struct hpcp_bench *b, double *seconds);
void flops_keep(struct hpcp_bench *b, int rep, int warm, double seconds);
int flops_verify(struct hpcp_bench *b, double *error);
void flops_teardown(struct hpcp_bench *b);
void flops_corrupt(struct hpcp_bench *b, uint64_t words);
void flops_poison(struct hpcp_bench *b);

#endif
