/* The internal FFT's inner loops on point vectors (fft_simd.h): Stockham radix-8/4/2
 * passes, and the panel loads and stores that convert between a matrix of interleaved
 * complex numbers and the split point vectors. Compiled once per instruction set
 * (FFT_ISA 512, 256, 0: CMakeLists.txt); each build exports one struct fft_isa.
 * Every transform here is forward (exp(-2 pi i jk / n)): the inverse is obtained by
 * swapping real and imaginary parts on load and store (fft_stockham.c). */
#include "fft_isa.h"
#include "fft_simd.h"

#define PV FFT_PV
#define H 0.70710678118654752440084436210485

/* Length-8 forward DFT of (r, i)[0..8) in place: the evens' and odds' length-4 DFTs
 * (E, O), then y_k = E_k + w^k O_k, y_(k+4) = E_k - w^k O_k with w = (1 - i)/sqrt 2. */
static inline void dft8(V *r, V *i)
{
    V s04r = v_add(r[0], r[4]), s04i = v_add(i[0], i[4]), d04r = v_sub(r[0], r[4]);
    V d04i = v_sub(i[0], i[4]), s26r = v_add(r[2], r[6]), s26i = v_add(i[2], i[6]);
    V d26r = v_sub(r[2], r[6]), d26i = v_sub(i[2], i[6]), s15r = v_add(r[1], r[5]);
    V s15i = v_add(i[1], i[5]), d15r = v_sub(r[1], r[5]), d15i = v_sub(i[1], i[5]);
    V s37r = v_add(r[3], r[7]), s37i = v_add(i[3], i[7]), d37r = v_sub(r[3], r[7]);
    V d37i = v_sub(i[3], i[7]);
    V e0r = v_add(s04r, s26r), e0i = v_add(s04i, s26i), e2r = v_sub(s04r, s26r);
    V e2i = v_sub(s04i, s26i), e1r = v_add(d04r, d26i), e1i = v_sub(d04i, d26r);
    V e3r = v_sub(d04r, d26i), e3i = v_add(d04i, d26r);
    V o0r = v_add(s15r, s37r), o0i = v_add(s15i, s37i), o2r = v_sub(s15r, s37r);
    V o2i = v_sub(s15i, s37i), o1r = v_add(d15r, d37i), o1i = v_sub(d15i, d37r);
    V o3r = v_sub(d15r, d37i), o3i = v_add(d15i, d37r);
    const double h = H;
    V hv = v_bc(&h);
    V p = v_add(o1r, o1i), q = v_sub(o1i, o1r); /* w O1 = h (p + i q) */
    V u = v_sub(o3i, o3r), w = v_add(o3r, o3i); /* w^3 O3 = h (u - i w) */
    r[0] = v_add(e0r, o0r), i[0] = v_add(e0i, o0i);
    r[4] = v_sub(e0r, o0r), i[4] = v_sub(e0i, o0i);
    r[2] = v_add(e2r, o2i), i[2] = v_sub(e2i, o2r);
    r[6] = v_sub(e2r, o2i), i[6] = v_add(e2i, o2r);
    r[1] = v_fmadd(hv, p, e1r), i[1] = v_fmadd(hv, q, e1i);
    r[5] = v_fnmadd(hv, p, e1r), i[5] = v_fnmadd(hv, q, e1i);
    r[3] = v_fmadd(hv, u, e3r), i[3] = v_fnmadd(hv, w, e3i);
    r[7] = v_fnmadd(hv, u, e3r), i[7] = v_fmadd(hv, w, e3i);
}

/* Length-4 forward DFT of (r, i)[0..4) in place. */
static inline void dft4(V *r, V *i)
{
    V t0r = v_add(r[0], r[2]), t0i = v_add(i[0], i[2]), t1r = v_sub(r[0], r[2]);
    V t1i = v_sub(i[0], i[2]), t2r = v_add(r[1], r[3]), t2i = v_add(i[1], i[3]);
    V dr = v_sub(r[1], r[3]), di = v_sub(i[1], i[3]);
    r[0] = v_add(t0r, t2r), i[0] = v_add(t0i, t2i);
    r[2] = v_sub(t0r, t2r), i[2] = v_sub(t0i, t2i);
    r[1] = v_add(t1r, di), i[1] = v_sub(t1i, dr);
    r[3] = v_sub(t1r, di), i[3] = v_add(t1i, dr);
}

static inline void dft2(V *r, V *i)
{
    V ar = r[0], ai = i[0];
    r[0] = v_add(ar, r[1]), i[0] = v_add(ai, i[1]);
    r[1] = v_sub(ar, r[1]), i[1] = v_sub(ai, i[1]);
}

/* One Stockham pass of radix R over L point vectors: for j < L/R, k = j mod ns, the
 * inputs x[j + q L/R] times w_(ns R)^(qk) (tw: R - 1 roots per k), a DFT of length R,
 * the outputs to y[(j - k) R + k + q ns], times wo[that index] when wo is given. x and y
 * are strided by xs and ys point vectors. RADIX is a constant, so each use unrolls. */
#define STOCKHAM_PASS(NAME, RADIX, DFT)                                                         \
    static void NAME(const double *x, size_t xs, double *y, size_t ys, int L, int ns,           \
                     const double *tw, const double *wo)                                        \
    {                                                                                           \
        const size_t step = (size_t)(L / RADIX) * xs * PV;                                      \
        for (int g = 0; g < L / RADIX; g += ns)                                                 \
            for (int k = 0; k < ns; k++) {                                                      \
                const double *in = x + (size_t)(g + k) * xs * PV;                               \
                const double *t = k ? tw + 2 * (RADIX - 1) * k : NULL;                          \
                size_t o = (size_t)g * RADIX + k;                                               \
                for (int h = 0; h < FFT_LANES; h += VW) {                                       \
                    V r[RADIX], i[RADIX];                                                       \
                    for (int q = 0; q < RADIX; q++)                                             \
                        r[q] = v_ld(in + q * step + h), i[q] = v_ld(in + q * step + 8 + h);     \
                    for (int q = 1; k && q < RADIX; q++)                                        \
                        v_cmul(&r[q], &i[q], v_bc(t + 2 * q - 2), v_bc(t + 2 * q - 1));         \
                    DFT(r, i);                                                                  \
                    for (int q = 0; q < RADIX; q++) {                                           \
                        size_t oq = o + (size_t)q * ns;                                         \
                        if (wo)                                                                 \
                            v_cmul(&r[q], &i[q], v_bc(wo + 2 * oq), v_bc(wo + 2 * oq + 1));     \
                        v_st(y + oq * ys * PV + h, r[q]), v_st(y + oq * ys * PV + 8 + h, i[q]); \
                    }                                                                           \
                }                                                                               \
            }                                                                                   \
    }
STOCKHAM_PASS(pass8, 8, dft8)
STOCKHAM_PASS(pass4, 4, dft4)
STOCKHAM_PASS(pass2, 2, dft2)

static void pass(const double *x, size_t xs, double *y, size_t ys, int L, int radix, int ns,
                 const double *tw, const double *wo)
{
    if (radix == 8)
        pass8(x, xs, y, ys, L, ns, tw, wo);
    else if (radix == 4)
        pass4(x, xs, y, ys, L, ns, tw, wo);
    else
        pass2(x, xs, y, ys, L, ns, tw, wo);
}

#define PREFETCH_ROWS 16 /* rows ahead: the column loads are far apart, one miss each */

/* Point t of the panel from FFT_LANES consecutive complex numbers at a + t ld (a column
 * panel of a matrix with row stride ld complex numbers). swap: real and imaginary
 * parts exchanged. */
static void load_cols(const double *a, size_t ld, int n, double *P, int swap)
{
    const int ro = swap ? 8 : 0, io = 8 - ro;
    for (int t = 0; t < n; t++) {
        const double *src = a + 2 * (size_t)t * ld;
#ifdef __GNUC__
        if (t + PREFETCH_ROWS < n) {
            __builtin_prefetch(src + 2 * PREFETCH_ROWS * ld);
            __builtin_prefetch(src + 2 * PREFETCH_ROWS * ld + 8);
        }
#endif
        for (int h = 0; h < FFT_LANES; h += VW) {
            V re, im;
            v_split(src + 2 * h, &re, &im);
            v_st(P + (size_t)t * PV + ro + h, re), v_st(P + (size_t)t * PV + io + h, im);
        }
    }
}

/* Point t of lane b from a[b ld + t] (a row panel). */
static void load_rows(const double *a, size_t ld, int n, double *P, int swap)
{
    const int ro = swap ? 8 : 0, io = 8 - ro;
    for (int b = 0; b < FFT_LANES; b++) {
        const double *row = a + 2 * (size_t)b * ld;
        for (int t = 0; t < n; t++)
            P[(size_t)t * PV + ro + b] = row[2 * t], P[(size_t)t * PV + io + b] = row[2 * t + 1];
    }
}

/* Output point k = kb + nb ka of the transform is R[kb sa + ka sb], times E[kb] F[ka]
 * lane by lane when E is given: into re, im (halves of VW lanes) with swap undone. */
static inline void point_out(const double *R, size_t idx, const double *e, const double *f,
                             int swap, V *re, V *im)
{
    const int ro = swap ? 8 : 0;
    for (int h = 0, j = 0; h < FFT_LANES; h += VW, j++) {
        V r = v_ld(R + idx * PV + h), i = v_ld(R + idx * PV + 8 + h);
        if (e) {
            V c = v_ld(e + h), s = v_ld(e + 8 + h);
            v_cmul(&c, &s, v_ld(f + h), v_ld(f + 8 + h));
            v_cmul(&r, &i, c, s);
        }
        /* swapped: the stored imaginary part is r, the real part i */
        re[j] = ro ? i : r, im[j] = ro ? r : i;
    }
}

/* The transform's points into a column panel: point k to the FFT_LANES complex numbers
 * at a + k ld. nt: non-temporal stores (a and ld allow 64-byte aligned rows). */
static void store_cols(const double *R, size_t sa, size_t sb, int na, int nb, const double *E,
                       const double *F, double *a, size_t ld, int swap, int nt)
{
    for (int ka = 0; ka < na; ka++)
        for (int kb = 0; kb < nb; kb++) {
            V re[FFT_LANES / VW], im[FFT_LANES / VW];
            point_out(R, (size_t)kb * sa + (size_t)ka * sb, E ? E + (size_t)kb * PV : NULL,
                      E ? F + (size_t)ka * PV : NULL, swap, re, im);
            double *dst = a + 2 * ((size_t)kb + (size_t)nb * ka) * ld;
            for (int h = 0, j = 0; h < FFT_LANES; h += VW, j++)
                v_join(dst + 2 * h, re[j], im[j], nt);
        }
    v_fence();
}

/* Into a row panel: point k of lane b to a[b ld + k]. */
static void store_rows(const double *R, size_t sa, size_t sb, int na, int nb, const double *E,
                       const double *F, double *a, size_t ld, int swap)
{
    _Alignas(64) double tmp[PV];
    for (int ka = 0; ka < na; ka++)
        for (int kb = 0; kb < nb; kb++) {
            V re[FFT_LANES / VW], im[FFT_LANES / VW];
            point_out(R, (size_t)kb * sa + (size_t)ka * sb, E ? E + (size_t)kb * PV : NULL,
                      E ? F + (size_t)ka * PV : NULL, swap, re, im);
            for (int h = 0, j = 0; h < FFT_LANES; h += VW, j++)
                v_st(tmp + h, re[j]), v_st(tmp + 8 + h, im[j]);
            size_t k = (size_t)kb + (size_t)nb * ka;
            for (int b = 0; b < FFT_LANES; b++)
                a[2 * ((size_t)b * ld + k)] = tmp[b], a[2 * ((size_t)b * ld + k) + 1] = tmp[8 + b];
        }
}

#if FFT_ISA == 512
#define ISA_NAME "avx512"
#define ISA_TABLE fft_isa_avx512
#elif FFT_ISA == 256
#define ISA_NAME "avx2"
#define ISA_TABLE fft_isa_avx2
#else
#define ISA_NAME "portable"
#define ISA_TABLE fft_isa_portable
#endif

const struct fft_isa ISA_TABLE = {ISA_NAME, pass, load_cols, load_rows, store_cols, store_rows};
