/* STREAM Copy, Scale, Add, Triad loops (McCalpin), OpenMP threads per rank. Built once
 * per table (CMakeLists.txt): STREAM_LOOPS_TABLE names it, STREAM_LOOPS_NAME is its
 * name; which table runs is chosen in stream.c. */
#include "stream_loops.h"

#ifdef _OPENMP
#define STREAM_LOOP _Pragma("omp parallel for schedule(static)")
#else
#define STREAM_LOOP
#endif

/* Stores that bypass the cache (x86 AVX): the arrays are far larger than
 * the caches, so a store that first reads its line (write-allocate) only
 * moves bytes STREAM does not count. STREAM's rules allow it; the record
 * says which stores ran (nontemporal_stores). Arrays start on 64-byte
 * lines; each thread streams whole 8-double blocks, the tail is plain. */
#if defined(__AVX__)
#include <immintrin.h>
#define STREAM_NONTEMPORAL 1
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
#define STREAM_NONTEMPORAL 0
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

const struct stream_loops STREAM_LOOPS_TABLE = {
    STREAM_LOOPS_NAME, STREAM_NONTEMPORAL, stream_copy, stream_scale, stream_add, stream_triad};
