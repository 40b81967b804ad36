/* STREAM kernels and their state (stream.c, stream_driver.c). */
#ifndef HPCPROBE_STREAM_H
#define HPCPROBE_STREAM_H
#include "mem.h"
#include "stream_loops.h"

#define STREAM_KERNELS 4
#define STREAM_SCALAR 3.0
#define STREAM_MAX_ITERATIONS MEM_STREAM_MAX_REPEAT

extern const char *const stream_kernel_names[STREAM_KERNELS];
extern const int stream_bytes_per_element[STREAM_KERNELS];

struct stream_state {
    struct mem_params p;
    struct hpcp_region region;
    double *a, *b, *c;
    size_t n;
    int active;           /* this rank holds arrays: it is one of the copies */
    int kernel;           /* what a timed pass runs: 0 copy .. 3 triad */
    long iterations;      /* complete iterations run here (timed and filler) */
    uint64_t thp_bytes;
    int cpu;              /* first CPU this rank is pinned to, -1 if not */
    struct mem_numa numa; /* the ranks' NUMA domains (mem.h) */
    /* The driver's (stream_driver.c): each phase's rates (one copy, then
     * the copies at once), the phase running, its ranks. */
    struct stream_phase_rates *phases;
    int phase, phase_it, phase_copies[2]; /* phase_it: its next iteration */
    struct mem_phase ph;
    double *gathered;     /* the phase's rank 0: each copy's rate of one kernel */
};

void stream_run_kernel(struct stream_state *s, int kernel);
/* The kernels' run (stream_driver.c): one iteration of the four kernels,
 * each timed overlapped with the phase's other copies. */
int stream_iteration(struct hpcp_bench *b, double *seconds);

int hpcp_stream_driver(const struct hpcp_kernel *k, const struct hpcp_sysinfo *si, int argc,
                       char **argv);

#endif
