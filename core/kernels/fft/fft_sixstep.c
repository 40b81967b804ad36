/* The six-step FFT of m = n1 n2 points (x[j1 + n1 j2] -> X[k2 + n2 k1]): FFTs of length n2
 * over j2 for each j1, twiddles w_m^(j1 k2), FFTs of length n1 over j1 for each k2. Every
 * FFT runs along a contiguous row: the data is transposed before each step, and the
 * result once more into natural order. Distributed, each transpose is one MPI_Alltoallv
 * whose receiver transposes the blocks as it unpacks them; on one rank they are
 * cache-blocked local transposes between the caller's two vectors. */
#include <stdlib.h>
#include <string.h>

#include "hpcprobe/dense.h"
#include "fft.h"

#define TILE 32

void fft_part(uint64_t n, int p, int r, uint64_t *first, uint64_t *count)
{
    *first = n * (uint64_t)r / (uint64_t)p;
    *count = n * (uint64_t)(r + 1) / (uint64_t)p - *first;
}

static double complex *alloc_vec(uint64_t n)
{
    return dense_alloc((n ? n : 1) * sizeof(double complex));
}

/* dst[c][r] = src[r][c] for a rows x cols block; row strides ld (dst) and ls (src). */
static void transpose(double complex *dst, uint64_t ld, const double complex *src, uint64_t ls,
                      uint64_t rows, uint64_t cols)
{
    for (uint64_t r0 = 0; r0 < rows; r0 += TILE)
        for (uint64_t c0 = 0; c0 < cols; c0 += TILE)
            for (uint64_t c = c0; c < c0 + TILE && c < cols; c++)
                for (uint64_t r = r0; r < r0 + TILE && r < rows; r++)
                    dst[c * ld + r] = src[r * ls + c];
}

int fft_sixstep_init(struct fft_sixstep *s, MPI_Comm comm, uint64_t n1, uint64_t n2, int sign,
                     int use_fftw)
{
    memset(s, 0, sizeof *s);
    s->comm = comm, s->n1 = n1, s->n2 = n2, s->m = n1 * n2, s->sign = sign;
    s->use_fftw = use_fftw;
    MPI_Comm_rank(comm, &s->rank);
    MPI_Comm_size(comm, &s->ranks);
    uint64_t c1, w1, r2, h2, r1, h1;
    fft_part(n1, s->ranks, s->rank, &c1, &w1);
    fft_part(n2, s->ranks, s->rank, &r2, &h2);
    fft_part(n1, s->ranks, s->rank, &r1, &h1);
    uint64_t most = w1 * n2 > h2 * n1 ? w1 * n2 : h2 * n1;
    /* On one rank the steps run in the caller's vectors; FFTW still needs arrays of their
     * shape to plan on. */
    int local = s->ranks == 1;
    if (!local || use_fftw)
        s->t1 = alloc_vec(w1 * n2), s->t2 = alloc_vec(h2 * n1);
    if (!local)
        s->send = alloc_vec(most), s->recv = alloc_vec(most);
    s->counts = malloc(4 * (size_t)s->ranks * sizeof(int));
    int bad = !s->counts || ((!local || use_fftw) && (!s->t1 || !s->t2)) ||
              (!local && (!s->send || !s->recv));
    bad = bad || fft_roots_init(&s->roots, s->m, sign);
    /* FFTW_MEASURE overwrites the arrays it plans on: plan before any data is there. */
    bad = bad || fft_rows_plan(&s->step1, use_fftw, (int)n2, (int)w1, (int)n2, sign, s->t1);
    bad = bad || fft_rows_plan(&s->step2, use_fftw, (int)n1, (int)h2, (int)n1, sign, s->t2);
    if (local) {
        free(s->t1), free(s->t2);
        s->t1 = s->t2 = NULL;
    }
    /* Touch the work buffers now: page faults are not the transform's time. */
    if (!bad && !local) {
        memset(s->t1, 0, w1 * n2 * sizeof *s->t1), memset(s->t2, 0, h2 * n1 * sizeof *s->t2);
        memset(s->send, 0, most * sizeof *s->send), memset(s->recv, 0, most * sizeof *s->recv);
    }
    return bad ? -1 : 0;
}

void fft_sixstep_free(struct fft_sixstep *s)
{
    fft_rows_free(&s->step1);
    fft_rows_free(&s->step2);
    fft_roots_free(&s->roots);
    free(s->t1), free(s->t2), free(s->send), free(s->recv), free(s->counts);
    memset(s, 0, sizeof *s);
}

/* Block sizes of an exchange: to rank q a x b elements, from it c x d (each a part of a
 * dimension: that of q when the flag is set, else this rank's). */
static void set_counts(struct fft_sixstep *s, uint64_t a_n, int a_q, uint64_t b_n, int b_q,
                       uint64_t c_n, int c_q, uint64_t d_n, int d_q)
{
    int *sc = s->counts, *rc = sc + 2 * s->ranks;
    for (int q = 0; q < s->ranks; q++) {
        uint64_t f, a, b, c, d;
        fft_part(a_n, s->ranks, a_q ? q : s->rank, &f, &a);
        fft_part(b_n, s->ranks, b_q ? q : s->rank, &f, &b);
        fft_part(c_n, s->ranks, c_q ? q : s->rank, &f, &c);
        fft_part(d_n, s->ranks, d_q ? q : s->rank, &f, &d);
        sc[q] = (int)(a * b), rc[q] = (int)(c * d);
    }
}

static void exchange(struct fft_sixstep *s)
{
    int *sc = s->counts, *sd = sc + s->ranks, *rc = sd + s->ranks, *rd = rc + s->ranks;
    for (int q = 0, so = 0, ro = 0; q < s->ranks; q++) {
        sd[q] = so, rd[q] = ro;
        so += sc[q], ro += rc[q];
    }
    MPI_Alltoallv(s->send, sc, sd, MPI_C_DOUBLE_COMPLEX, s->recv, rc, rd, MPI_C_DOUBLE_COMPLEX,
                  s->comm);
}

/* Send to each rank q the columns [first_q, first_q + count_q) of my rows x cols matrix
 * (partition of `cols_n` = cols), packed row by row; then the exchange; then each
 * received block (rows_q x width, row-major) transposed into dst at column offset first_q
 * of the partition of `rows_n` (dst row stride ld). */
static void transpose_exchange(struct fft_sixstep *s, const double complex *src, uint64_t rows,
                               uint64_t cols, uint64_t rows_n, double complex *dst, uint64_t ld,
                               uint64_t width)
{
    double complex *out = s->send;
    for (int q = 0; q < s->ranks; q++) {
        uint64_t qf, qc;
        fft_part(cols, s->ranks, q, &qf, &qc);
        for (uint64_t i = 0; i < rows; i++, out += qc)
            memcpy(out, src + i * cols + qf, qc * sizeof *out);
    }
    exchange(s);
    const double complex *from = s->recv;
    for (int q = 0; q < s->ranks; q++) {
        uint64_t qf, qc;
        fft_part(rows_n, s->ranks, q, &qf, &qc);
        transpose(dst + qf, ld, from, width, qc, width);
        from += qc * width;
    }
}

static void run_distributed(struct fft_sixstep *s, const double complex *in, double complex *out,
                            double *t)
{
    uint64_t c1, w1, r2, h2, r1, h1;
    fft_part(s->n1, s->ranks, s->rank, &c1, &w1);
    fft_part(s->n2, s->ranks, s->rank, &r2, &h2);
    fft_part(s->n1, s->ranks, s->rank, &r1, &h1);
    /* [my j2][n1] -> t1 = [my j1][n2] */
    set_counts(s, s->n2, 0, s->n1, 1, s->n2, 1, s->n1, 0);
    transpose_exchange(s, in, h2, s->n1, s->n2, s->t1, s->n2, w1);
    t[0] = MPI_Wtime();
    struct fft_twiddle tw = {&s->roots, c1, 0};
    fft_rows_run(&s->step1, s->t1, &tw);
    t[1] = MPI_Wtime();
    /* [my j1][n2] -> t2 = [my k2][n1] */
    set_counts(s, s->n1, 0, s->n2, 1, s->n1, 1, s->n2, 0);
    transpose_exchange(s, s->t1, w1, s->n2, s->n1, s->t2, s->n1, h2);
    t[2] = MPI_Wtime();
    fft_rows_run(&s->step2, s->t2, NULL);
    t[3] = MPI_Wtime();
    /* [my k2][n1] -> out = [my k1][n2] */
    set_counts(s, s->n2, 0, s->n1, 1, s->n2, 1, s->n1, 0);
    transpose_exchange(s, s->t2, h2, s->n1, s->n2, out, s->n2, h1);
}

/* One rank, internal FFT: two passes over memory. The columns j1 of the [n2][n1] input
 * are transformed in place (with the twiddles), then its rows k2, each stored as a column
 * of the [n1][n2] output: the transposes ride on the panels' loads and stores. */
static void run_local_internal(struct fft_sixstep *s, double complex *in, double complex *out,
                               double *t)
{
    struct fft_twiddle tw = {&s->roots, 0, 0};
    t[0] = MPI_Wtime();
    if (s->n2 > 1) /* else a transform of length 1, and every twiddle is 1 */
        fft_internal_run(&s->step1, in, s->n1, 1, in, s->n1, 1, (int)s->n1, &tw);
    t[1] = t[2] = MPI_Wtime();
    if (s->n1 > 1)
        fft_internal_run(&s->step2, in, s->n1, 0, out, s->n2, 1, (int)s->n2, NULL);
    else /* n1 = 1: the second step is a copy */
        transpose(out, s->n2, in, s->n1, s->n2, s->n1);
    t[3] = MPI_Wtime();
}

void fft_sixstep_run(struct fft_sixstep *s, double complex *in, double complex *out)
{
    double t[5], t0 = MPI_Wtime();
    if (s->ranks > 1) {
        run_distributed(s, in, out, t);
    } else if (!s->use_fftw) {
        run_local_internal(s, in, out, t);
    } else {
        transpose(out, s->n2, in, s->n1, s->n2, s->n1); /* [n2][n1] -> [n1][n2] */
        t[0] = MPI_Wtime();
        struct fft_twiddle tw = {&s->roots, 0, 0};
        fft_rows_run(&s->step1, out, &tw);
        t[1] = MPI_Wtime();
        transpose(in, s->n1, out, s->n2, s->n1, s->n2); /* -> [k2][j1] */
        t[2] = MPI_Wtime();
        fft_rows_run(&s->step2, in, NULL);
        t[3] = MPI_Wtime();
        transpose(out, s->n2, in, s->n1, s->n2, s->n1); /* -> [k1][k2]: natural order */
    }
    t[4] = MPI_Wtime();
    double phases[5] = {t[0] - t0, t[1] - t[0], t[2] - t[1], t[3] - t[2], t[4] - t[3]};
    for (int i = 0; i < 5; i++)
        s->phase_seconds[i] += phases[i];
}
