/* The timed loops of peak bandwidth, one set per instruction set, chosen at
 * run time: each x86 set is compiled for its own target (a portable build
 * still gets AVX-512 on a CPU that has it), as STREAM's AVX loops are.
 * Plain loads; plain stores at the cache levels (which level holds the
 * arrays is what is measured) and, for the memory level, copy and triad
 * with non-temporal stores too (peak_bw_uses_nt). Between sweeps a compiler barrier
 * keeps every sweep (the arrays could otherwise be seen as unchanged); in
 * the copy loops an empty asm keeps the compiler from turning them into a
 * call to memcpy, whose stores it does not choose. */
#include <stdio.h>
#include <string.h>

#include "hpcprobe/cpu.h"
#include "peak_bw.h"

#define SWEEP_DONE() __asm__ __volatile__("" ::: "memory")
#define KEEP_LOOP() __asm__ __volatile__("")

/* --- scalar: plain C, one element at a time ----------------------------- */

#if defined(__clang__)
#define NO_VECTOR_FN
#define NO_VECTOR_LOOP _Pragma("clang loop vectorize(disable) interleave(disable)")
#elif defined(__GNUC__)
#define NO_VECTOR_FN __attribute__((optimize("no-tree-vectorize")))
#define NO_VECTOR_LOOP
#else
#define NO_VECTOR_FN
#define NO_VECTOR_LOOP
#endif

static int always(void)
{
    return 1;
}

/* Four sums, so that the adds' latency does not bound the loads. */
NO_VECTOR_FN static double load_scalar(const double *a, size_t n, long sweeps)
{
    double sum = 0;
    for (long s = 0; s < sweeps; s++) {
        double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        NO_VECTOR_LOOP
        for (size_t i = 0; i < n; i += 4) {
            s0 += a[i];
            s1 += a[i + 1];
            s2 += a[i + 2];
            s3 += a[i + 3];
        }
        sum = (s0 + s1) + (s2 + s3);
        SWEEP_DONE();
    }
    return sum;
}

NO_VECTOR_FN static void copy_scalar(double *b, const double *a, size_t n, long sweeps)
{
    for (long s = 0; s < sweeps; s++) {
        NO_VECTOR_LOOP
        for (size_t i = 0; i < n; i++) {
            b[i] = a[i];
            KEEP_LOOP();
        }
        SWEEP_DONE();
    }
}

NO_VECTOR_FN static void triad_scalar(double *a, const double *b, const double *c, double q,
                                      size_t n, long sweeps)
{
    for (long s = 0; s < sweeps; s++) {
        NO_VECTOR_LOOP
        for (size_t i = 0; i < n; i++)
            a[i] = b[i] + q * c[i];
        SWEEP_DONE();
    }
}

/* The vector sets: V the vector type, W its doubles, and the intrinsics. Each
 * load sweep keeps 8 sums (an add's latency times the adds a core starts
 * per cycle); copy and triad move 4 vectors a step. n is a multiple of 8, so
 * the steps of one vector finish what the unrolled loop leaves. */
#define LOAD_BODY(V, W, ZERO, LD, ADD, REDUCE)                                  \
    double sum = 0;                                                             \
    for (long s = 0; s < sweeps; s++) {                                         \
        V s0 = ZERO(), s1 = ZERO(), s2 = ZERO(), s3 = ZERO();                   \
        V s4 = ZERO(), s5 = ZERO(), s6 = ZERO(), s7 = ZERO();                   \
        size_t i = 0;                                                           \
        for (; i + 8 * (W) <= n; i += 8 * (W)) {                                \
            s0 = ADD(s0, LD(a + i));                                            \
            s1 = ADD(s1, LD(a + i + (W)));                                      \
            s2 = ADD(s2, LD(a + i + 2 * (W)));                                  \
            s3 = ADD(s3, LD(a + i + 3 * (W)));                                  \
            s4 = ADD(s4, LD(a + i + 4 * (W)));                                  \
            s5 = ADD(s5, LD(a + i + 5 * (W)));                                  \
            s6 = ADD(s6, LD(a + i + 6 * (W)));                                  \
            s7 = ADD(s7, LD(a + i + 7 * (W)));                                  \
        }                                                                       \
        for (; i < n; i += (W))                                                 \
            s0 = ADD(s0, LD(a + i));                                            \
        s0 = ADD(ADD(ADD(s0, s1), ADD(s2, s3)), ADD(ADD(s4, s5), ADD(s6, s7))); \
        sum = REDUCE(s0);                                                       \
        SWEEP_DONE();                                                           \
    }                                                                           \
    return sum

#define COPY_BODY(V, W, LD, ST)                                               \
    for (long s = 0; s < sweeps; s++) {                                       \
        size_t i = 0;                                                         \
        for (; i + 4 * (W) <= n; i += 4 * (W)) {                              \
            V v0 = LD(a + i), v1 = LD(a + i + (W)), v2 = LD(a + i + 2 * (W)); \
            V v3 = LD(a + i + 3 * (W));                                       \
            ST(b + i, v0), ST(b + i + (W), v1), ST(b + i + 2 * (W), v2);      \
            ST(b + i + 3 * (W), v3);                                          \
            KEEP_LOOP();                                                      \
        }                                                                     \
        for (; i < n; i += (W))                                               \
            ST(b + i, LD(a + i));                                             \
        SWEEP_DONE();                                                         \
    }

#define TRIAD_STEP(V, LD, ST, MAC, j) ST(a + (j), MAC(LD(c + (j)), qv, LD(b + (j))))
#define TRIAD_BODY(V, W, SET1, LD, ST, MAC)          \
    V qv = SET1(q);                                  \
    for (long s = 0; s < sweeps; s++) {              \
        size_t i = 0;                                \
        for (; i + 4 * (W) <= n; i += 4 * (W)) {     \
            TRIAD_STEP(V, LD, ST, MAC, i);           \
            TRIAD_STEP(V, LD, ST, MAC, i + (W));     \
            TRIAD_STEP(V, LD, ST, MAC, i + 2 * (W)); \
            TRIAD_STEP(V, LD, ST, MAC, i + 3 * (W)); \
        }                                            \
        for (; i < n; i += (W))                      \
            TRIAD_STEP(V, LD, ST, MAC, i);           \
        SWEEP_DONE();                                \
    }

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* AVX-512F: 8 doubles a vector; triad's multiply-add fused (exact on the
 * small integers the arrays hold). */
#define T512 __attribute__((target("avx512f")))
T512 static __m512d mac512(__m512d c, __m512d q, __m512d b)
{
    return _mm512_fmadd_pd(c, q, b);
}
T512 static double reduce512(__m512d v)
{
    return _mm512_reduce_add_pd(v);
}
T512 static double load_avx512(const double *a, size_t n, long sweeps)
{
    LOAD_BODY(__m512d, 8, _mm512_setzero_pd, _mm512_load_pd, _mm512_add_pd, reduce512);
}
T512 static void copy_avx512(double *b, const double *a, size_t n, long sweeps)
{
    COPY_BODY(__m512d, 8, _mm512_load_pd, _mm512_store_pd);
}
T512 static void triad_avx512(double *a, const double *b, const double *c, double q, size_t n,
                              long sweeps)
{
    TRIAD_BODY(__m512d, 8, _mm512_set1_pd, _mm512_load_pd, _mm512_store_pd, mac512);
}
T512 static void st_nt512(double *p, __m512d v)
{
    _mm512_stream_pd(p, v);
}
T512 static void copy_nt_avx512(double *b, const double *a, size_t n, long sweeps)
{
    COPY_BODY(__m512d, 8, _mm512_load_pd, st_nt512);
    _mm_sfence();
}
T512 static void triad_nt_avx512(double *a, const double *b, const double *c, double q, size_t n,
                                 long sweeps)
{
    TRIAD_BODY(__m512d, 8, _mm512_set1_pd, _mm512_load_pd, st_nt512, mac512);
    _mm_sfence();
}
static int has_avx512(void)
{
    struct hpcp_cpu_isa c;
    hpcp_cpu_isa_get(&c);
    return c.avx512f;
}

/* AVX2: 4 doubles a vector; triad multiplies then adds (no FMA needed). */
#define T256 __attribute__((target("avx2")))
T256 static __m256d mac256(__m256d c, __m256d q, __m256d b)
{
    return _mm256_add_pd(b, _mm256_mul_pd(c, q));
}
T256 static double reduce256(__m256d v)
{
    __m128d h = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
    return _mm_cvtsd_f64(_mm_add_sd(h, _mm_unpackhi_pd(h, h)));
}
T256 static double load_avx2(const double *a, size_t n, long sweeps)
{
    LOAD_BODY(__m256d, 4, _mm256_setzero_pd, _mm256_load_pd, _mm256_add_pd, reduce256);
}
T256 static void copy_avx2(double *b, const double *a, size_t n, long sweeps)
{
    COPY_BODY(__m256d, 4, _mm256_load_pd, _mm256_store_pd);
}
T256 static void triad_avx2(double *a, const double *b, const double *c, double q, size_t n,
                            long sweeps)
{
    TRIAD_BODY(__m256d, 4, _mm256_set1_pd, _mm256_load_pd, _mm256_store_pd, mac256);
}
T256 static void st_nt256(double *p, __m256d v)
{
    _mm256_stream_pd(p, v);
}
T256 static void copy_nt_avx2(double *b, const double *a, size_t n, long sweeps)
{
    COPY_BODY(__m256d, 4, _mm256_load_pd, st_nt256);
    _mm_sfence();
}
T256 static void triad_nt_avx2(double *a, const double *b, const double *c, double q, size_t n,
                               long sweeps)
{
    TRIAD_BODY(__m256d, 4, _mm256_set1_pd, _mm256_load_pd, st_nt256, mac256);
    _mm_sfence();
}
static int has_avx2(void)
{
    struct hpcp_cpu_isa c;
    hpcp_cpu_isa_get(&c);
    return c.avx2;
}

/* SSE2: 2 doubles a vector, every x86-64 CPU has it. */
static __m128d mac128(__m128d c, __m128d q, __m128d b)
{
    return _mm_add_pd(b, _mm_mul_pd(c, q));
}
static double reduce128(__m128d v)
{
    return _mm_cvtsd_f64(_mm_add_sd(v, _mm_unpackhi_pd(v, v)));
}
static double load_sse2(const double *a, size_t n, long sweeps)
{
    LOAD_BODY(__m128d, 2, _mm_setzero_pd, _mm_load_pd, _mm_add_pd, reduce128);
}
static void copy_sse2(double *b, const double *a, size_t n, long sweeps)
{
    COPY_BODY(__m128d, 2, _mm_load_pd, _mm_store_pd);
}
static void triad_sse2(double *a, const double *b, const double *c, double q, size_t n, long sweeps)
{
    TRIAD_BODY(__m128d, 2, _mm_set1_pd, _mm_load_pd, _mm_store_pd, mac128);
}
static void copy_nt_sse2(double *b, const double *a, size_t n, long sweeps)
{
    COPY_BODY(__m128d, 2, _mm_load_pd, _mm_stream_pd);
    _mm_sfence();
}
static void triad_nt_sse2(double *a, const double *b, const double *c, double q, size_t n,
                          long sweeps)
{
    TRIAD_BODY(__m128d, 2, _mm_set1_pd, _mm_load_pd, _mm_stream_pd, mac128);
    _mm_sfence();
}
static int has_sse2(void)
{
    struct hpcp_cpu_isa c;
    hpcp_cpu_isa_get(&c);
    return c.sse2;
}
#endif /* x86-64 */

#if defined(__aarch64__)
#include <arm_neon.h>

/* NEON (Advanced SIMD, part of every AArch64 core): 2 doubles a vector. */
static float64x2_t zero_neon(void)
{
    return vdupq_n_f64(0.0);
}
static float64x2_t mac_neon(float64x2_t c, float64x2_t q, float64x2_t b)
{
    return vfmaq_f64(b, c, q);
}
static double reduce_neon(float64x2_t v)
{
    return vaddvq_f64(v);
}
static void st_neon(double *p, float64x2_t v)
{
    vst1q_f64(p, v);
}
static double load_neon(const double *a, size_t n, long sweeps)
{
    LOAD_BODY(float64x2_t, 2, zero_neon, vld1q_f64, vaddq_f64, reduce_neon);
}
static void copy_neon(double *b, const double *a, size_t n, long sweeps)
{
    COPY_BODY(float64x2_t, 2, vld1q_f64, st_neon);
}
static void triad_neon(double *a, const double *b, const double *c, double q, size_t n, long sweeps)
{
    TRIAD_BODY(float64x2_t, 2, vdupq_n_f64, vld1q_f64, st_neon, mac_neon);
}
#endif /* aarch64 */

const struct peak_bw_isa peak_bw_isas[] = {
#if defined(__x86_64__) && defined(__GNUC__)
    {"avx512", 512, has_avx512, load_avx512, copy_avx512, triad_avx512, copy_nt_avx512,
     triad_nt_avx512},
    {"avx2", 256, has_avx2, load_avx2, copy_avx2, triad_avx2, copy_nt_avx2, triad_nt_avx2},
    {"sse2", 128, has_sse2, load_sse2, copy_sse2, triad_sse2, copy_nt_sse2, triad_nt_sse2},
#endif
#if defined(__aarch64__)
    {"neon", 128, always, load_neon, copy_neon, triad_neon, NULL, NULL},
#endif
    {"scalar", 64, always, load_scalar, copy_scalar, triad_scalar, NULL, NULL},
};
const int peak_bw_nisas = (int)(sizeof peak_bw_isas / sizeof peak_bw_isas[0]);

/* Every name --isa takes: those this build has no kernels for are refused
 * as lacking, like those the CPU lacks. */
static const char *const isa_names = "auto, avx512, avx2, sse2, neon, scalar";

const struct peak_bw_isa *peak_bw_isa_pick(const char *name, char *err, size_t errlen)
{
    char here[128] = "auto";
    for (int i = 0; i < peak_bw_nisas; i++)
        if (peak_bw_isas[i].available())
            snprintf(here + strlen(here), sizeof here - strlen(here), ", %s", peak_bw_isas[i].name);
    for (int i = 0; i < peak_bw_nisas; i++) {
        const struct peak_bw_isa *isa = &peak_bw_isas[i];
        if ((!strcmp(name, "auto") || !strcmp(name, isa->name)) && isa->available())
            return isa;
    }
    if (strstr(isa_names, name) && strcmp(name, "auto") != 0)
        snprintf(err, errlen, "--isa %s: this CPU (or this build) lacks it (allowed here: %s)",
                 name, here);
    else
        snprintf(err, errlen, "--isa %s: unknown instruction set (allowed: %s; here: %s)", name,
                 isa_names, here);
    return NULL;
}

int peak_bw_uses_nt(const struct peak_bw_isa *isa, int stores, int level, int kernel)
{
    int wanted =
        stores == PEAK_BW_STORES_NT || (stores == PEAK_BW_STORES_AUTO && level == PEAK_BW_MEMORY);
    return wanted && kernel != PEAK_BW_LOAD && isa->copy_nt && isa->triad_nt;
}

void peak_bw_isa_flags(char *buf, size_t len)
{
    struct hpcp_cpu_isa c;
    hpcp_cpu_isa_get(&c);
    hpcp_cpu_isa_text(&c, buf, len);
}
