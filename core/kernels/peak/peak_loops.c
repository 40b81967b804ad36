/* The timed loops of `peak flops`: `chains` independent register chains of
 * x = x * a + b, PEAK_ROUNDS steps per loop pass, no memory in the loop.
 * One function per ISA, precision and chain count (the chains must be
 * registers, so their number is a constant of each function). Built with
 * -ffp-contract=off and without auto-vectorisation (CMakeLists.txt): the
 * sse2 and scalar loops stay a mul and an add, the scalar loop scalar. The
 * wide ISAs are functions with target attributes, so a portable build has
 * them and the CPU chooses at run time (peak_isa_usable). */
#include <stdint.h>

#include "peak.h"

#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

/* Whole unrolling, so the chains are registers (the constant trip counts allow it). */
#if defined(__clang__)
#define UNROLL_CHAINS _Pragma("clang loop unroll(full)")
#define UNROLL_ROUNDS _Pragma("clang loop unroll(full)")
#else
#define UNROLL_CHAINS _Pragma("GCC unroll 32")
#define UNROLL_ROUNDS _Pragma("GCC unroll 8")
#endif

/* The body of one loop over a constant number of chains: load, steps, store. */
#define PEAK_BODY(NAME, TGT, T, V, W, LOAD, STORE, SET1, STEP)                                 \
    static inline __attribute__((always_inline)) TGT void NAME##_body(void *p, uint64_t loops, \
                                                                      const int ch)            \
    {                                                                                          \
        T *x = p;                                                                              \
        V r[PEAK_MAX_CHAINS];                                                                  \
        const V a = SET1((T)PEAK_A), b = SET1((T)PEAK_B);                                      \
        UNROLL_CHAINS for (int c = 0; c < ch; c++) r[c] = LOAD(x + c * (W));                   \
        for (uint64_t i = 0; i < loops; i++) {                                                 \
            UNROLL_ROUNDS for (int k = 0; k < PEAK_ROUNDS; k++)                                \
                UNROLL_CHAINS for (int c = 0; c < ch; c++) r[c] = STEP(r[c], a, b);            \
        }                                                                                      \
        UNROLL_CHAINS for (int c = 0; c < ch; c++) STORE(x + c * (W), r[c]);                   \
    }

/* The chain counts, in rows of eight. */
// clang-format off
#define PEAK_CHAIN_LIST(X, A) \
    X(A, 1)  X(A, 2)  X(A, 3)  X(A, 4)  X(A, 5)  X(A, 6)  X(A, 7)  X(A, 8)  \
    X(A, 9)  X(A, 10) X(A, 11) X(A, 12) X(A, 13) X(A, 14) X(A, 15) X(A, 16) \
    X(A, 17) X(A, 18) X(A, 19) X(A, 20) X(A, 21) X(A, 22) X(A, 23) X(A, 24) \
    X(A, 25) X(A, 26) X(A, 27) X(A, 28) X(A, 29) X(A, 30) X(A, 31) X(A, 32)
// clang-format on
#define PEAK_DEFINE(A, CH)                                \
    static A##_TGT void A##_##CH(void *x, uint64_t loops) \
    {                                                     \
        A##_body(x, loops, CH);                           \
    }
#define PEAK_ENTRY(A, CH) A##_##CH,
/* Every chain count's function of loop family A, and their table A_table. */
#define PEAK_TABLE(A)               \
    PEAK_CHAIN_LIST(PEAK_DEFINE, A) \
    static const peak_loop_fn A##_table[PEAK_MAX_CHAINS] = {PEAK_CHAIN_LIST(PEAK_ENTRY, A)};

/* Scalar: plain C, a rounded mul and a rounded add (no contraction here). */
#define NO_TGT
#define SCALAR_LOAD(p) (*(p))
#define SCALAR_STORE(p, v) (*(p) = (v))
#define SCALAR_SET1(v) (v)
#define SCALAR_STEP(x, a, b) ((x) * (a) + (b))
#define scalard_TGT NO_TGT
#define scalars_TGT NO_TGT
PEAK_BODY(scalard, NO_TGT, double, double, 1, SCALAR_LOAD, SCALAR_STORE, SCALAR_SET1, SCALAR_STEP)
PEAK_BODY(scalars, NO_TGT, float, float, 1, SCALAR_LOAD, SCALAR_STORE, SCALAR_SET1, SCALAR_STEP)
PEAK_TABLE(scalard)
PEAK_TABLE(scalars)

#if defined(__x86_64__)
#define AVX512_TGT __attribute__((target("avx512f")))
#define AVX2_TGT __attribute__((target("avx2,fma")))
#define avx512d_TGT AVX512_TGT
#define avx512s_TGT AVX512_TGT
#define avx2d_TGT AVX2_TGT
#define avx2s_TGT AVX2_TGT
#define sse2d_TGT NO_TGT
#define sse2s_TGT NO_TGT
#define SSE2D_STEP(x, a, b) _mm_add_pd(_mm_mul_pd((x), (a)), (b))
#define SSE2S_STEP(x, a, b) _mm_add_ps(_mm_mul_ps((x), (a)), (b))
PEAK_BODY(avx512d, AVX512_TGT, double, __m512d, 8, _mm512_loadu_pd, _mm512_storeu_pd,
          _mm512_set1_pd, _mm512_fmadd_pd)
PEAK_BODY(avx512s, AVX512_TGT, float, __m512, 16, _mm512_loadu_ps, _mm512_storeu_ps, _mm512_set1_ps,
          _mm512_fmadd_ps)
PEAK_BODY(avx2d, AVX2_TGT, double, __m256d, 4, _mm256_loadu_pd, _mm256_storeu_pd, _mm256_set1_pd,
          _mm256_fmadd_pd)
PEAK_BODY(avx2s, AVX2_TGT, float, __m256, 8, _mm256_loadu_ps, _mm256_storeu_ps, _mm256_set1_ps,
          _mm256_fmadd_ps)
PEAK_BODY(sse2d, NO_TGT, double, __m128d, 2, _mm_loadu_pd, _mm_storeu_pd, _mm_set1_pd, SSE2D_STEP)
PEAK_BODY(sse2s, NO_TGT, float, __m128, 4, _mm_loadu_ps, _mm_storeu_ps, _mm_set1_ps, SSE2S_STEP)
PEAK_TABLE(avx512d)
PEAK_TABLE(avx512s)
PEAK_TABLE(avx2d)
PEAK_TABLE(avx2s)
PEAK_TABLE(sse2d)
PEAK_TABLE(sse2s)
#endif

#if defined(__aarch64__)
#define neond_TGT NO_TGT
#define neons_TGT NO_TGT
/* vfmaq(acc, x, y) = acc + x * y, one fused rounding. */
#define NEOND_STEP(x, a, b) vfmaq_f64((b), (x), (a))
#define NEONS_STEP(x, a, b) vfmaq_f32((b), (x), (a))
PEAK_BODY(neond, NO_TGT, double, float64x2_t, 2, vld1q_f64, vst1q_f64, vdupq_n_f64, NEOND_STEP)
PEAK_BODY(neons, NO_TGT, float, float32x4_t, 4, vld1q_f32, vst1q_f32, vdupq_n_f32, NEONS_STEP)
PEAK_TABLE(neond)
PEAK_TABLE(neons)
#endif

static const peak_loop_fn *table(enum peak_isa isa, enum peak_precision p)
{
    int d = p == PEAK_DOUBLE;
    switch (isa) {
#if defined(__x86_64__)
    case PEAK_AVX512: return d ? avx512d_table : avx512s_table;
    case PEAK_AVX2: return d ? avx2d_table : avx2s_table;
    case PEAK_SSE2: return d ? sse2d_table : sse2s_table;
#endif
#if defined(__aarch64__)
    case PEAK_NEON: return d ? neond_table : neons_table;
#endif
    case PEAK_SCALAR: return d ? scalard_table : scalars_table;
    default: return NULL;
    }
}

peak_loop_fn peak_loop(enum peak_isa isa, enum peak_precision p, int chains)
{
    const peak_loop_fn *t = table(isa, p);
    return t && chains >= 1 && chains <= PEAK_MAX_CHAINS ? t[chains - 1] : NULL;
}
