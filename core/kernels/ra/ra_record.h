/* RandomAccess record building (ra_record.c). */
#ifndef HPCPROBE_RA_RECORD_H
#define HPCPROBE_RA_RECORD_H
#include "hpcprobe/harness.h"
#include "hpcprobe/record.h"
#include "ra.h"

/* Per-repetition figures, reduced over ranks (valid on rank 0). */
struct ra_samples {
    double *rate, *time, *updates;
    double *rate_min, *rate_mean, *rate_max, *rate_sum; /* star: per-rank rates */
    double *warm_rate, *warm_time;
    double best_rate; /* star: this rank's best rate over the timed repetitions */
};

/* Collective (gathers per-rank counters); the record is complete on rank 0.
 * v: the harness's verification of every repetition. */
void ra_build_record(struct hpcp_record *r, const struct hpcp_kernel *k, struct hpcp_bench *b,
                     const struct ra_samples *S, const struct hpcp_checks *v);

#endif
