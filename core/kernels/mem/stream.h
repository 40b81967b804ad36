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
    int kernel;           /* what stream_run runs: 0 copy .. 3 triad */
    long iterations;      /* complete iterations run here (timed and filler) */
    uint64_t thp_bytes;
    int cpu;              /* first CPU this rank is pinned to, -1 if not */
};

void stream_run_kernel(struct stream_state *s, int kernel);

int hpcp_stream_driver(const struct hpcp_kernel *k, const struct hpcp_sysinfo *si, int argc,
                       char **argv);

#endif
