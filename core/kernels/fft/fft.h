/* HPCC FFT: 1-D complex double transforms of m = 2^k points. Local transforms run through
 * FFTW3 when the build has it, or the internal FFT (hand-vectorised Stockham radix-8/4/2
 * passes over panels of FFT_LANES transforms); large and distributed transforms use the
 * six-step (transpose) algorithm. docs/kernels/fft.md. */
#ifndef HPCP_FFT_H
#define HPCP_FFT_H
#include <complex.h>
#include <mpi.h>
#include <stdint.h>

#include "fft_isa.h"
#include "hpcprobe/kernel.h"

/* omega_m^t = exp(sign 2 pi i t / m) from two tables of about sqrt(m) entries each:
 * lo[t mod S] * hi[t / S], S = 2^shift. */
struct fft_roots {
    double *lo, *hi;       /* interleaved re, im */
    uint64_t m;
    int shift, sign;
};
int fft_roots_init(struct fft_roots *r, uint64_t m, int sign);
void fft_roots_free(struct fft_roots *r);

/* Multiply by omega_m^((row0 + r) (col0 + c)) at row r, column c. */
struct fft_twiddle {
    const struct fft_roots *roots;
    uint64_t row0, col0;
};

/* The internal FFT of length L on point vectors: its Stockham passes (radix, and the
 * forward roots of each: ns (radix - 1) per pass, interleaved re, im). */
struct fft_sub {
    int L, npasses, radix[24];
    double *tw[24];
};

/* In-place FFTs of length n along `rows` contiguous rows (row stride ld) of a matrix. */
struct fft_rows {
    int n, rows, ld, sign, use_fftw, log2n;
    void *fftw_plan;       /* FFTW: one plan over all the rows */
    /* internal: n = na nb. A panel is one FFT of n points (two_level 0), or FFTs of nb
     * points over its na strided subsequences, twiddles w1[ja][kb] = w_n^(ja kb), and FFTs
     * of na points (two_level 1); each short FFT runs in the work buffers, in L1. */
    const struct fft_isa *isa;
    int na, nb, two_level;
    struct fft_sub whole, sub_a, sub_b;
    double *w1;            /* two_level: [na][nb] roots, interleaved */
    double *panel;         /* n point vectors */
    double *work;          /* two buffers of max(n or na, nb) point vectors */
    double *ef;            /* lane twiddles: nb point vectors E, then na F */
};
/* Plan; FFTW plans with FFTW_MEASURE on `scratch` (same shape, overwritten). 0 or -1. */
int fft_rows_plan(struct fft_rows *p, int use_fftw, int n, int rows, int ld, int sign,
                  double complex *scratch);
/* Transform, then (tw not NULL) multiply by the twiddles. */
void fft_rows_run(const struct fft_rows *p, double complex *a, const struct fft_twiddle *tw);
void fft_rows_free(struct fft_rows *p);

/* The internal FFT of `count` lanes of src, each a row (src_cols 0) or a column (1) of n
 * points, into the same lanes of dst as rows or columns (dst may be src), times the
 * twiddles when tw is given (row and column indices are dst's). */
void fft_internal_run(const struct fft_rows *p, const double complex *src, size_t lds, int src_cols,
                      double complex *dst, size_t ldd, int dst_cols, int count,
                      const struct fft_twiddle *tw);


/* The distributed six-step FFT of m = n1 * n2 points over `comm` (block distribution of
 * the [n2][n1] row-major input; the output in natural order, blocks of n2-point rows).
 * Every FFT runs along contiguous rows; the three transposes are folded into the
 * unpacking of the exchanges. */
struct fft_sixstep {
    MPI_Comm comm;
    int rank, ranks, use_fftw, sign;
    uint64_t m, n1, n2;
    struct fft_roots roots;
    struct fft_rows step1, step2;   /* length n2 along my rows j1; n1 along my rows k2 */
    double complex *t1, *t2, *send, *recv;
    int *counts;                     /* 4 * ranks: send/recv counts and displacements */
    double phase_seconds[5];         /* last run: transposes and FFTs, summed */
};
int fft_sixstep_init(struct fft_sixstep *s, MPI_Comm comm, uint64_t n1, uint64_t n2, int sign,
                     int use_fftw);
void fft_sixstep_free(struct fft_sixstep *s);
/* in: this rank's rows of the [n2][n1] input (on one rank: transformed in place, so
 * overwritten); out: its rows of the [n1][n2] output. */
void fft_sixstep_run(struct fft_sixstep *s, double complex *in, double complex *out);
/* Rows [first, first + count) of `n` that rank r of p holds. */
void fft_part(uint64_t n, int p, int r, uint64_t *first, uint64_t *count);

int hpcp_fft_driver(const struct hpcp_kernel *k, const struct hpcp_sysinfo *si, int argc,
                    char **argv);

#endif
