/* STREAM Copy, Scale, Add, Triad (McCalpin), with OpenMP threads per rank.
 * `single` and `star` are one kernel with different default --copies and
 * headline; stream_driver.c runs the phases and writes the record, and
 * stream_loops.c holds the timed loops. */
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "hpcprobe/util.h"
#include "stream.h"

#ifdef _OPENMP
#include <omp.h>
#define STREAM_LOOP _Pragma("omp parallel for schedule(static)")
#else
#define STREAM_LOOP
#endif

const char *const stream_kernel_names[STREAM_KERNELS] = {"copy", "scale", "add", "triad"};
/* Bytes per element as STREAM counts them: what is read and written, once. */
const int stream_bytes_per_element[STREAM_KERNELS] = {16, 16, 24, 24};

/* The loops (stream_loops.c): the build's own, or AVX's non-temporal stores when the
 * build's are plain and this CPU has AVX (a portable build on a current x86 CPU). */
const struct stream_loops *stream_loops_current(void)
{
    static const struct stream_loops *chosen;
    if (!chosen) {
        chosen = &stream_loops_build;
#if defined(HPCP_STREAM_AVX) && defined(__GNUC__) && defined(__x86_64__)
        if (!stream_loops_build.nontemporal && __builtin_cpu_supports("avx"))
            chosen = &stream_loops_avx;
#endif
    }
    return chosen;
}

/* Every kernel reads only arrays it does not write, so running one again
 * (the overlap filler) leaves the arrays as one run left them. */
void stream_run_kernel(struct stream_state *s, int kernel)
{
    const struct stream_loops *loops = stream_loops_current();
    size_t n = s->n;
    switch (kernel) {
    case 0: loops->copy(s->c, s->a, n); break;
    case 1: loops->scale(s->b, s->c, STREAM_SCALAR, n); break;
    case 2: loops->add(s->c, s->a, s->b, n); break;
    default: loops->triad(s->a, s->b, s->c, STREAM_SCALAR, n); break;
    }
}

/* OpenMP threads made before the rank was pinned keep the mask they were
 * made with; each takes the rank's own, so that the first touch (and every
 * timed loop) runs on the rank's cores and its pages land on its domain. */
static void pin_threads_to_rank(void)
{
#ifdef _OPENMP
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return;
#pragma omp parallel
    sched_setaffinity(0, sizeof set, &set);
#endif
}

static int stream_setup(struct hpcp_bench *b)
{
    struct stream_state *s = b->state;
    if (!s->active)
        return hpcp_any(b->comm, 0) ? HPCP_EXIT_RUNTIME : 0;
#ifdef _OPENMP
    omp_set_num_threads(s->p.threads);
#endif
    s->n = s->p.array_bytes / sizeof(double);
    size_t stride = (s->n + 7) & ~(size_t)7; /* each array on its own 64-byte line */
    int failed = hpcp_region_alloc(&s->region, 3 * stride * sizeof(double), s->p.hugepages) != 0;
    if (!failed) {
        s->a = s->region.base;
        s->b = s->a + stride;
        s->c = s->b + stride;
        /* First touch, after the rank was pinned, by the threads that will use
         * each part: the pages land on the rank's NUMA domain. */
        if (s->cpu >= 0)
            pin_threads_to_rank();
        STREAM_LOOP
        for (size_t i = 0; i < s->n; i++) {
            s->a[i] = 1.0;
            s->b[i] = 2.0;
            s->c[i] = 0.0;
        }
        s->thp_bytes = hpcp_thp_bytes(s->region.base, 3 * s->p.array_bytes);
    }
    return hpcp_any(b->comm, failed) ? HPCP_EXIT_RUNTIME : 0;
}

static double max_rel_error(const double *x, size_t n, double expect)
{
    double worst = 0;
    for (size_t i = 0; i < n; i++) {
        double e = fabs(x[i] - expect) / fabs(expect);
        if (!(e <= worst)) /* NaN counts as the worst error */
            worst = isnan(e) ? INFINITY : e;
    }
    return worst;
}

/* STREAM's check: replay every iteration this rank ran on scalars and
 * compare each array with the result, relative error. */
static int stream_verify(struct hpcp_bench *b, double *error)
{
    struct stream_state *s = b->state;
    *error = 0;
    if (!s->active || s->iterations == 0)
        return 0;
    double a = 1.0, bb = 2.0, c = 0.0;
    for (long k = 0; k < s->iterations; k++) {
        c = a;
        bb = STREAM_SCALAR * c;
        c = a + bb;
        a = bb + STREAM_SCALAR * c;
    }
    double ea = max_rel_error(s->a, s->n, a), eb = max_rel_error(s->b, s->n, bb);
    double ec = max_rel_error(s->c, s->n, c);
    *error = fmax(ea, fmax(eb, ec));
    return 0;
}

static void stream_teardown(struct hpcp_bench *b)
{
    struct stream_state *s = b->state;
    hpcp_region_free(&s->region);
}

const struct hpcp_kernel hpcp_stream_single = {
    "stream",
    "single",
    "openmp",
    "STREAM Copy/Scale/Add/Triad on one rank, the others idle (HPCC SingleSTREAM)",
    hpcp_stream_driver,
    stream_setup,
    stream_iteration,
    stream_verify,
    stream_teardown,
    NULL,
    &stream_options_desc,
    &stream_records};

const struct hpcp_kernel hpcp_stream_star = {
    "stream",
    "star",
    "openmp",
    "STREAM on every rank at once (HPCC StarSTREAM): per-rank min/mean/max and sum",
    hpcp_stream_driver,
    stream_setup,
    stream_iteration,
    stream_verify,
    stream_teardown,
    NULL,
    &stream_options_desc,
    &stream_records};
