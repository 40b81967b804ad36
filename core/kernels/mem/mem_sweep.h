/* The swept memory kernels (mem stride, mem latency) and their driver. */
#ifndef HPCPROBE_MEM_SWEEP_H
#define HPCPROBE_MEM_SWEEP_H
#include "mem.h"

/* What a swept kernel shares with the driver. The kernel's setup fills the
 * points; its run() does `passes` passes at `point` (timed), or, with
 * passes == 0, prepares that point (untimed: resets or builds its buffer),
 * with passes < 0 damages it (the HPCPROBE_INJECT_FAULT corrupt test hook);
 * its verify() counts the wrong words (or chase positions) at the point. */
struct mem_sweep_state {
    struct mem_params p;
    const char *x_name;                   /* "stride_bytes", ... */
    int npoints;
    double x[MEM_MAX_POINTS];             /* bytes */
    double accesses[MEM_MAX_POINTS];      /* per pass */
    int active;                           /* one of the copies: it holds a buffer */
    int point;
    long passes;
    int cpu;                              /* first CPU this rank is pinned to */
    struct mem_numa numa;                 /* the ranks' NUMA domains (mem.h) */
    uint64_t thp_bytes;                   /* huge-page bytes of this rank's buffer */
    const void *buffer;                   /* this rank's buffer (NULL: none), its bytes */
    size_t buffer_bytes;
    const char *build_flags;              /* stride: the kernel's compiler flags */
    void *data;                           /* the kernel's own */
};

int hpcp_mem_driver(const struct hpcp_kernel *k, const struct hpcp_sysinfo *si, int argc,
                    char **argv);

/* The pointer chase (mem_latency.c): link the first n 64-byte lines of
 * `lines` into one random cycle; order[j] is the j-th line visited. */
void mem_chase_build(void *lines, uint32_t *order, size_t n, uint64_t seed);
#define MEM_LINE_BYTES 64

#endif
