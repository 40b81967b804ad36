/* STREAM's four loops, one table per instruction set (stream_loops.c, built with the
 * build's own flags and, on x86-64, again with AVX); stream_loops_current() picks the one
 * this CPU runs best, so a portable build still gets AVX's non-temporal stores. */
#ifndef HPCPROBE_STREAM_LOOPS_H
#define HPCPROBE_STREAM_LOOPS_H
#include <stddef.h>

struct stream_loops {
    const char *name; /* "build" (the build's flags) or "avx" */
    int nontemporal;  /* 1 when the stores are non-temporal (bypass the cache) */
    void (*copy)(double *restrict c, const double *restrict a, size_t n);
    void (*scale)(double *restrict b, const double *restrict c, double q, size_t n);
    void (*add)(double *restrict c, const double *restrict a, const double *restrict b, size_t n);
    void (*triad)(double *restrict a, const double *restrict b, const double *restrict c, double q,
                  size_t n);
};

extern const struct stream_loops stream_loops_build;
#ifdef HPCP_STREAM_AVX
extern const struct stream_loops stream_loops_avx;
#endif

/* The build's table when its stores are already non-temporal (a native build on an AVX
 * CPU), else AVX's when this CPU has AVX, else the build's. */
const struct stream_loops *stream_loops_current(void);

#endif
