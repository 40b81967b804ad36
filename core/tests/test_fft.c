/* The FFT against a naive DFT for m = 2..4096 and the round trip, through both engines
 * (the internal FFT with each instruction set this CPU runs, and FFTW3 when built with
 * it): one row, batches of rows that are and are not a multiple of the panel width, the
 * two-level panels (n >= 1024) and the six-step, forward and inverse, and one six-step of
 * 2^21 points (streaming stores; checked at sampled outputs). Run on 1-4 ranks: the
 * six-step is then distributed over all of them. */
#include <complex.h>
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hpcprobe/dense.h"
#include "fft.h"

#define TWO_PI 6.283185307179586476925286766559

static double complex input(uint64_t i, int salt)
{
    return dense_element(7 + (uint64_t)salt, i, 0) + I * dense_element(7 + (uint64_t)salt, i, 1);
}

/* w[t] = exp(sign 2 pi i t / m), t < m: the naive DFT's roots. */
static double complex *roots(uint64_t m, int sign)
{
    double complex *w = malloc(m * sizeof *w);
    for (uint64_t t = 0; t < m; t++)
        w[t] = cos(TWO_PI * (double)t / (double)m) + I * sign * sin(TWO_PI * (double)t / (double)m);
    return w;
}

/* X[k] = sum_j x[j] w^(jk); (j k) mod m keeps the angle exact. */
static double complex dft(const double complex *x, uint64_t m, uint64_t k, const double complex *w)
{
    double complex s = 0;
    for (uint64_t j = 0; j < m; j++)
        s += x[j] * w[(j * k) & (m - 1)];
    return s;
}

static double complex *vec(uint64_t n)
{
    return aligned_alloc(64, ((n ? n : 1) * sizeof(double complex) + 63) & ~(size_t)63);
}

/* A batch of `rows` rows of length m in a matrix with row stride ld > m. */
static void test_rows(int use_fftw, int log2m, int rows, int sign)
{
    uint64_t m = (uint64_t)1 << log2m;
    uint64_t ld = m + 3;
    double complex *a = vec(ld * (uint64_t)rows), *row = vec(m), *w = roots(m, sign);
    struct fft_rows p;
    CHECK(fft_rows_plan(&p, use_fftw, (int)m, rows, (int)ld, sign, a) == 0);
    for (int r = 0; r < rows; r++)
        for (uint64_t t = 0; t < ld; t++)
            a[(uint64_t)r * ld + t] = input(t * 31 + (uint64_t)r, log2m);
    fft_rows_run(&p, a, NULL);
    double worst = 0, scale = 0;
    for (int r = 0; r < rows; r++) {
        for (uint64_t t = 0; t < m; t++)
            row[t] = input(t * 31 + (uint64_t)r, log2m);
        for (uint64_t k = 0; k < m; k++) {
            double complex want = dft(row, m, k, w);
            worst = fmax(worst, cabs(a[(uint64_t)r * ld + k] - want));
            scale = fmax(scale, cabs(want));
        }
        for (uint64_t t = m; t < ld; t++) /* the padding is never touched */
            CHECK(a[(uint64_t)r * ld + t] == input(t * 31 + (uint64_t)r, log2m));
    }
    CHECK(worst <= 1e-13 * scale * (log2m + 1));
    fft_rows_free(&p);
    free(a), free(row), free(w);
}

/* The six-step over comm against the DFT of the whole vector (every `every`-th output of
 * each rank), then the inverse. */
static void test_sixstep(int use_fftw, int log2m, MPI_Comm comm, uint64_t every)
{
    int rank, ranks;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    uint64_t m = (uint64_t)1 << log2m, n1 = (uint64_t)1 << (log2m / 2), n2 = m / n1;
    uint64_t f2, h2, f1, h1;
    fft_part(n2, ranks, rank, &f2, &h2);
    fft_part(n1, ranks, rank, &f1, &h1);
    double complex *all = vec(m), *x = vec(h2 * n1), *y = vec(h1 * n2), *w = roots(m, -1);
    for (uint64_t i = 0; i < m; i++)
        all[i] = input(i, 100 + log2m);
    struct fft_sixstep fwd, inv;
    CHECK(fft_sixstep_init(&fwd, comm, n1, n2, -1, use_fftw) == 0);
    memcpy(x, all + f2 * n1, h2 * n1 * sizeof *x);
    fft_sixstep_run(&fwd, x, y);
    double worst = 0, scale = 0;
    for (uint64_t i = 0; i < h1 * n2; i += every) {
        double complex want = dft(all, m, f1 * n2 + i, w);
        worst = fmax(worst, cabs(y[i] - want));
        scale = fmax(scale, cabs(want));
    }
    CHECK(worst <= 1e-13 * (scale + 1) * (log2m + 1));
    fft_sixstep_free(&fwd);
    CHECK(fft_sixstep_init(&inv, comm, n2, n1, +1, use_fftw) == 0);
    fft_sixstep_run(&inv, y, x);
    double trip = 0;
    for (uint64_t i = 0; i < h2 * n1; i++)
        trip = fmax(trip, cabs(x[i] / (double)m - all[f2 * n1 + i]));
    CHECK(trip <= 1e-15 * (log2m + 1) * 4);
    fft_sixstep_free(&inv);
    free(all), free(x), free(y), free(w);
}

/* One engine (and for the internal one, the instruction set preferred now). */
static void test_engine(int use_fftw, int rank)
{
    for (int log2m = 1; log2m <= 12 && rank == 0; log2m++) {
        test_rows(use_fftw, log2m, 1, -1);
        test_sixstep(use_fftw, log2m, MPI_COMM_SELF, 1);
    }
    if (rank == 0) {
        test_rows(use_fftw, 5, 13, -1);  /* a partial panel of rows */
        test_rows(use_fftw, 7, 9, +1);   /* the inverse direction */
        test_rows(use_fftw, 11, 9, -1);  /* two-level panels, full and partial */
        test_rows(use_fftw, 10, 8, +1);
    }
    for (int log2m = 2; log2m <= 10; log2m += 4)
        test_sixstep(use_fftw, log2m, MPI_COMM_WORLD, 1);
    test_sixstep(use_fftw, 21, MPI_COMM_WORLD, 65521); /* a prime stride of samples */
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    static const char *const isas[] = {"portable", "avx2", "avx512"};
    for (size_t i = 0; i < sizeof isas / sizeof *isas; i++) {
        const struct fft_isa *isa = fft_isa_select(isas[i]);
        if (!isa)
            continue; /* not built, or this CPU does not run it */
        fft_isa_prefer(isa);
        if (rank == 0)
            printf("internal FFT: %s\n", isa->name);
        test_engine(0, rank);
    }
    fft_isa_prefer(NULL);
    if (dense_have_fftw())
        test_engine(1, rank);
    int failed = check_failed, any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    int rc = rank == 0 ? check_summary(dense_have_fftw() ? "test_fft (internal, fftw)"
                                                         : "test_fft (internal only)")
                       : (failed != 0);
    MPI_Finalize();
    return rc || any;
}
