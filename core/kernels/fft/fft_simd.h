/* The internal FFT's vectors of VW doubles, chosen at compile time by FFT_ISA: 512
 * (AVX-512F, 8 lanes), 256 (AVX2 with FMA, 4 lanes) or 0 (plain C, 4 lanes, any CPU).
 * fft_codelets.c is compiled once per ISA against this header; only the functions here
 * differ between the builds. A point vector (FFT_PV doubles) holds one point of the
 * FFT_LANES transforms of a panel: 8 real parts, then 8 imaginary parts. */
#ifndef HPCP_FFT_SIMD_H
#define HPCP_FFT_SIMD_H
#include <stddef.h>

#if FFT_ISA == 512 || FFT_ISA == 256
#include <immintrin.h>
#endif

#if FFT_ISA == 512
#define VW 8
typedef __m512d V;
static inline V v_ld(const double *p)
{
    return _mm512_load_pd(p);
}
static inline void v_st(double *p, V x)
{
    _mm512_store_pd(p, x);
}
static inline V v_bc(const double *p)
{
    return _mm512_set1_pd(*p);
}
static inline V v_add(V a, V b)
{
    return _mm512_add_pd(a, b);
}
static inline V v_sub(V a, V b)
{
    return _mm512_sub_pd(a, b);
}
static inline V v_mul(V a, V b)
{
    return _mm512_mul_pd(a, b);
}
static inline V v_fmadd(V a, V b, V c)
{
    return _mm512_fmadd_pd(a, b, c);
}   /* ab + c */
static inline V v_fmsub(V a, V b, V c)
{
    return _mm512_fmsub_pd(a, b, c);
}   /* ab - c */
static inline V v_fnmadd(V a, V b, V c)
{
    return _mm512_fnmadd_pd(a, b, c);
} /* c - ab */

/* VW interleaved complex numbers at p (any alignment) -> their real and imaginary parts */
static inline void v_split(const double *p, V *re, V *im)
{
    V a = _mm512_loadu_pd(p), b = _mm512_loadu_pd(p + 8);
    *re = _mm512_permutex2var_pd(a, _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14), b);
    *im = _mm512_permutex2var_pd(a, _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15), b);
}

/* The inverse of v_split; nt: non-temporal stores (p 64-byte aligned). */
static inline void v_join(double *p, V re, V im, int nt)
{
    V a = _mm512_permutex2var_pd(re, _mm512_setr_epi64(0, 8, 1, 9, 2, 10, 3, 11), im);
    V b = _mm512_permutex2var_pd(re, _mm512_setr_epi64(4, 12, 5, 13, 6, 14, 7, 15), im);
    if (nt) {
        _mm512_stream_pd(p, a), _mm512_stream_pd(p + 8, b);
    } else {
        _mm512_storeu_pd(p, a), _mm512_storeu_pd(p + 8, b);
    }
}
static inline void v_fence(void)
{
    _mm_sfence();
}

#elif FFT_ISA == 256
#define VW 4
typedef __m256d V;
static inline V v_ld(const double *p)
{
    return _mm256_load_pd(p);
}
static inline void v_st(double *p, V x)
{
    _mm256_store_pd(p, x);
}
static inline V v_bc(const double *p)
{
    return _mm256_broadcast_sd(p);
}
static inline V v_add(V a, V b)
{
    return _mm256_add_pd(a, b);
}
static inline V v_sub(V a, V b)
{
    return _mm256_sub_pd(a, b);
}
static inline V v_mul(V a, V b)
{
    return _mm256_mul_pd(a, b);
}
static inline V v_fmadd(V a, V b, V c)
{
    return _mm256_fmadd_pd(a, b, c);
}
static inline V v_fmsub(V a, V b, V c)
{
    return _mm256_fmsub_pd(a, b, c);
}
static inline V v_fnmadd(V a, V b, V c)
{
    return _mm256_fnmadd_pd(a, b, c);
}

static inline void v_split(const double *p, V *re, V *im)
{
    V a = _mm256_loadu_pd(p), b = _mm256_loadu_pd(p + 4); /* r0 i0 r1 i1, r2 i2 r3 i3 */
    *re = _mm256_permute4x64_pd(_mm256_unpacklo_pd(a, b), 0xd8); /* r0 r2 r1 r3 -> r0..r3 */
    *im = _mm256_permute4x64_pd(_mm256_unpackhi_pd(a, b), 0xd8);
}

static inline void v_join(double *p, V re, V im, int nt)
{
    V r = _mm256_permute4x64_pd(re, 0xd8), i = _mm256_permute4x64_pd(im, 0xd8);
    V a = _mm256_unpacklo_pd(r, i), b = _mm256_unpackhi_pd(r, i);
    if (nt) {
        _mm256_stream_pd(p, a), _mm256_stream_pd(p + 4, b);
    } else {
        _mm256_storeu_pd(p, a), _mm256_storeu_pd(p + 4, b);
    }
}
static inline void v_fence(void)
{
    _mm_sfence();
}

#else
#define VW 4
typedef struct {
    double v[VW];
} V;
static inline V v_ld(const double *p)
{
    V x;
    for (int i = 0; i < VW; i++)
        x.v[i] = p[i];
    return x;
}
static inline void v_st(double *p, V x)
{
    for (int i = 0; i < VW; i++)
        p[i] = x.v[i];
}
static inline V v_bc(const double *p)
{
    V x;
    for (int i = 0; i < VW; i++)
        x.v[i] = *p;
    return x;
}
#define FFT_V_OP(name, expr)         \
    static inline V name(V a, V b)   \
    {                                \
        V x;                         \
        for (int i = 0; i < VW; i++) \
            x.v[i] = expr;           \
        return x;                    \
    }
FFT_V_OP(v_add, a.v[i] + b.v[i])
FFT_V_OP(v_sub, a.v[i] - b.v[i])
FFT_V_OP(v_mul, a.v[i] * b.v[i])
#undef FFT_V_OP
static inline V v_fmadd(V a, V b, V c)
{
    return v_add(v_mul(a, b), c);
}
static inline V v_fmsub(V a, V b, V c)
{
    return v_sub(v_mul(a, b), c);
}
static inline V v_fnmadd(V a, V b, V c)
{
    return v_sub(c, v_mul(a, b));
}

static inline void v_split(const double *p, V *re, V *im)
{
    for (int i = 0; i < VW; i++)
        re->v[i] = p[2 * i], im->v[i] = p[2 * i + 1];
}
static inline void v_join(double *p, V re, V im, int nt)
{
    (void)nt;
    for (int i = 0; i < VW; i++)
        p[2 * i] = re.v[i], p[2 * i + 1] = im.v[i];
}
static inline void v_fence(void)
{
}
#endif

/* (re, im) *= (c, s) */
static inline void v_cmul(V *re, V *im, V c, V s)
{
    V r = *re;
    *re = v_fmsub(r, c, v_mul(*im, s));
    *im = v_fmadd(r, s, v_mul(*im, c));
}

#endif
