/* STREAM Copy, Scale, Add, Triad (McCalpin), with OpenMP threads per rank.
 * `single` and `star` are one kernel with different default --copies and
 * headline; stream_driver.c runs the phases and writes the record. */
#include <math.h>
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

/* Stores that bypass the cache (x86 AVX): the arrays are far larger than
 * the caches, so a store that first reads its line (write-allocate) only
 * moves bytes STREAM does not count. STREAM's rules allow it; the record
 * says which stores ran (stream_nontemporal). Arrays start on 64-byte
 * lines; each thread streams whole 8-double blocks, the tail is plain. */
#if defined(__AVX__)
#include <immintrin.h>
const int stream_nontemporal = 1;
#define STREAM_BLOCKS(n, body_vec, body_scalar)                                     \
    do {                                                                            \
        size_t nb_ = (n) / 8;                                                       \
        _Pragma("omp parallel")                                                     \
        {                                                                           \
            _Pragma("omp for schedule(static)") for (size_t b_ = 0; b_ < nb_; b_++) \
            {                                                                       \
                size_t i = b_ * 8;                                                  \
                body_vec;                                                           \
                i += 4;                                                             \
                body_vec;                                                           \
            }                                                                       \
            _mm_sfence();                                                           \
        }                                                                           \
        for (size_t i = nb_ * 8; i < (n); i++)                                      \
            body_scalar;                                                            \
    } while (0)
#define LD(p) _mm256_load_pd((p) + i)
#define ST(p, v) _mm256_stream_pd((p) + i, (v))
#define Q4 _mm256_set1_pd(q)
#else
const int stream_nontemporal = 0;
#define STREAM_BLOCKS(n, body_vec, body_scalar) \
    do {                                        \
        STREAM_LOOP                             \
        for (size_t i = 0; i < (n); i++)        \
            body_scalar;                        \
    } while (0)
#endif

static void stream_copy(double *restrict c, const double *restrict a, size_t n)
{
    STREAM_BLOCKS(n, ST(c, LD(a)), c[i] = a[i]);
}

static void stream_scale(double *restrict b, const double *restrict c, double q, size_t n)
{
    STREAM_BLOCKS(n, ST(b, _mm256_mul_pd(Q4, LD(c))), b[i] = q * c[i]);
}

static void stream_add(double *restrict c, const double *restrict a, const double *restrict b,
                       size_t n)
{
    STREAM_BLOCKS(n, ST(c, _mm256_add_pd(LD(a), LD(b))), c[i] = a[i] + b[i]);
}

static void stream_triad(double *restrict a, const double *restrict b, const double *restrict c,
                         double q, size_t n)
{
    STREAM_BLOCKS(n, ST(a, _mm256_add_pd(LD(b), _mm256_mul_pd(Q4, LD(c)))), a[i] = b[i] + q * c[i]);
}

/* Every kernel reads only arrays it does not write, so running one again
 * (the overlap filler) leaves the arrays as one run left them. */
void stream_run_kernel(struct stream_state *s, int kernel)
{
    size_t n = s->n;
    switch (kernel) {
    case 0: stream_copy(s->c, s->a, n); break;
    case 1: stream_scale(s->b, s->c, STREAM_SCALAR, n); break;
    case 2: stream_add(s->c, s->a, s->b, n); break;
    default: stream_triad(s->a, s->b, s->c, STREAM_SCALAR, n); break;
    }
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
        /* First touch by the threads that will use each part (NUMA). */
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

static int stream_run(struct hpcp_bench *b, double *seconds)
{
    struct stream_state *s = b->state;
    double t0 = MPI_Wtime();
    stream_run_kernel(s, s->kernel);
    *seconds = MPI_Wtime() - t0;
    return 0;
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
    stream_run,
    stream_verify,
    stream_teardown,
    NULL};

const struct hpcp_kernel hpcp_stream_star = {
    "stream",
    "star",
    "openmp",
    "STREAM on every rank at once (HPCC StarSTREAM): per-rank min/mean/max and sum",
    hpcp_stream_driver,
    stream_setup,
    stream_run,
    stream_verify,
    stream_teardown,
    NULL};
