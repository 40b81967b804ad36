/* The internal FFT's inner loops, one table per instruction set (fft_codelets.c, built
 * for AVX-512, AVX2 + FMA and plain C); fft_isa_select() picks the best the CPU runs. */
#ifndef HPCP_FFT_ISA_H
#define HPCP_FFT_ISA_H
#include <stddef.h>

#define FFT_LANES 8        /* transforms run together in a panel, one per vector lane */
#define FFT_PV (2 * FFT_LANES) /* doubles per point vector: the lanes' real, then imaginary parts */

/* Arrays of point vectors (x, y, P, R) are 64-byte aligned; matrices a hold interleaved
 * complex doubles (ld in complex numbers) in any alignment. All transforms are forward;
 * swap exchanges real and imaginary parts on the way in or out (the inverse). */
struct fft_isa {
    const char *name;
    /* One Stockham pass of radix 8, 4 or 2 over L point vectors (docs in fft_codelets.c). */
    void (*pass)(const double *x, size_t xs, double *y, size_t ys, int L, int radix, int ns,
                 const double *tw, const double *wo);
    /* n points of FFT_LANES columns (point t at a + t ld) or rows (lane b at a + b ld). */
    void (*load_cols)(const double *a, size_t ld, int n, double *P, int swap);
    void (*load_rows)(const double *a, size_t ld, int n, double *P, int swap);
    /* Point k = kb + nb ka from R[kb sa + ka sb], times E[kb] F[ka] (lane twiddles, point
     * vectors) when E is given, to the columns or rows of a. nt: non-temporal stores. */
    void (*store_cols)(const double *R, size_t sa, size_t sb, int na, int nb, const double *E,
                       const double *F, double *a, size_t ld, int swap, int nt);
    void (*store_rows)(const double *R, size_t sa, size_t sb, int na, int nb, const double *E,
                       const double *F, double *a, size_t ld, int swap);
};

extern const struct fft_isa fft_isa_portable;
#ifdef HPCP_FFT_AVX2
extern const struct fft_isa fft_isa_avx2;
#endif
#ifdef HPCP_FFT_AVX512
extern const struct fft_isa fft_isa_avx512;
#endif

/* The fastest table this CPU runs, or the one named (NULL if unknown or not runnable):
 * "avx512", "avx2", "portable". */
const struct fft_isa *fft_isa_select(const char *name);
/* The table that plans made from now on use: the one preferred (NULL: the fastest). */
void fft_isa_prefer(const struct fft_isa *isa);
const struct fft_isa *fft_isa_current(void);

#endif
