/* The six-step FFT of m = n1 n2 points (x[j1 + n1 j2] -> X[k2 + n2 k1]): FFTs of length n2
 * down the columns j1, twiddles w_m^(j1 k2), a transpose, FFTs of length n1 down the
 * columns k2. Distributed, every transpose is one MPI_Alltoallv; on one rank the two
 * outer exchanges vanish and the middle one is a cache-blocked local transpose. */
#include <stdlib.h>
#include <string.h>

#include "fft.h"

#define TILE 32

void fft_part(uint64_t n, int p, int r, uint64_t *first, uint64_t *count)
{
    *first = n * (uint64_t)r / (uint64_t)p;
    *count = n * (uint64_t)(r + 1) / (uint64_t)p - *first;
}

static double complex *alloc_vec(uint64_t n)
{
    return aligned_alloc(64, ((n ? n : 1) * sizeof(double complex) + 63) & ~(size_t)63);
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
    uint64_t most = n2 * w1 > n1 * h2 ? n2 * w1 : n1 * h2;
    most = most > h1 * n2 ? most : h1 * n2;
    most = most > h2 * n1 ? most : h2 * n1;
    /* On one rank the columns are transformed in the caller's vectors; FFTW still needs
     * arrays of their shape to plan on. */
    int local = s->ranks == 1;
    if (!local || use_fftw)
        s->t1 = alloc_vec(n2 * w1), s->t2 = alloc_vec(n1 * h2);
    if (!local)
        s->send = alloc_vec(most), s->recv = alloc_vec(most);
    s->counts = malloc(4 * (size_t)s->ranks * sizeof(int));
    int bad = !s->counts || ((!local || use_fftw) && (!s->t1 || !s->t2)) ||
              (!local && (!s->send || !s->recv));
    bad = bad || fft_roots_init(&s->roots, s->m, sign);
    /* FFTW_MEASURE overwrites the arrays it plans on: plan before any data is there. */
    bad = bad || fft_cols_plan(&s->step1, use_fftw, (int)n2, (int)w1, (int)w1, sign, s->t1);
    bad = bad || fft_cols_plan(&s->step2, use_fftw, (int)n1, (int)h2, (int)h2, sign, s->t2);
    if (local) {
        free(s->t1), free(s->t2);
        s->t1 = s->t2 = NULL;
    }
    return bad ? -1 : 0;
}

void fft_sixstep_free(struct fft_sixstep *s)
{
    fft_cols_free(&s->step1);
    fft_cols_free(&s->step2);
    fft_roots_free(&s->roots);
    free(s->t1), free(s->t2), free(s->send), free(s->recv), free(s->counts);
    memset(s, 0, sizeof *s);
}

/* The displacements of counts already in sc and rc, then the exchange. */
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

/* Block sizes of an exchange: to rank q a x b, from it c x d (parts of the four dims). */
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

/* Step 1: my rows j2 of [n2][n1] -> t1 = [n2][my columns j1]. */
static void redistribute_in(struct fft_sixstep *s, const double complex *in)
{
    uint64_t r2, h2, w1, c1;
    fft_part(s->n2, s->ranks, s->rank, &r2, &h2);
    fft_part(s->n1, s->ranks, s->rank, &c1, &w1);
    double complex *out = s->send;
    for (int q = 0; q < s->ranks; q++) {
        uint64_t qc, qw;
        fft_part(s->n1, s->ranks, q, &qc, &qw);
        for (uint64_t i = 0; i < h2; i++, out += qw)
            memcpy(out, in + i * s->n1 + qc, qw * sizeof *out);
    }
    set_counts(s, s->n2, 0, s->n1, 1, s->n2, 1, s->n1, 0);
    exchange(s);
    const double complex *from = s->recv;
    for (int q = 0; q < s->ranks; q++) {
        uint64_t qr, qh;
        fft_part(s->n2, s->ranks, q, &qr, &qh);
        for (uint64_t i = 0; i < qh; i++, from += w1)
            memcpy(s->t1 + (qr + i) * w1, from, w1 * sizeof *from);
    }
}

/* dst[c][r] = src[r][c] for a rows x cols block; row strides ls, ld. */
static void transpose(double complex *dst, uint64_t ld, const double complex *src, uint64_t ls,
                      uint64_t rows, uint64_t cols)
{
    for (uint64_t r0 = 0; r0 < rows; r0 += TILE)
        for (uint64_t c0 = 0; c0 < cols; c0 += TILE)
            for (uint64_t c = c0; c < c0 + TILE && c < cols; c++)
                for (uint64_t r = r0; r < r0 + TILE && r < rows; r++)
                    dst[c * ld + r] = src[r * ls + c];
}

/* Step 2: t1 = [n2 rows k2][my j1] -> t2 = [n1 rows j1][my k2]. */
static void redistribute_middle(struct fft_sixstep *s)
{
    uint64_t c1, w1, r2, h2;
    fft_part(s->n1, s->ranks, s->rank, &c1, &w1);
    fft_part(s->n2, s->ranks, s->rank, &r2, &h2);
    double complex *out = s->send;
    for (int q = 0; q < s->ranks; q++) {
        uint64_t qr, qh;
        fft_part(s->n2, s->ranks, q, &qr, &qh);
        memcpy(out, s->t1 + qr * w1, qh * w1 * sizeof *out);
        out += qh * w1;
    }
    set_counts(s, s->n2, 1, s->n1, 0, s->n2, 0, s->n1, 1);
    exchange(s);
    const double complex *from = s->recv;
    for (int q = 0; q < s->ranks; q++) {
        uint64_t qc, qw;
        fft_part(s->n1, s->ranks, q, &qc, &qw);
        transpose(s->t2 + qc * h2, h2, from, qw, h2, qw);
        from += h2 * qw;
    }
}

/* Step 3: t2 = [n1 rows k1][my k2] -> out = [my k1][n2]. */
static void redistribute_out(struct fft_sixstep *s, double complex *out)
{
    uint64_t r2, h2, r1, h1;
    fft_part(s->n2, s->ranks, s->rank, &r2, &h2);
    fft_part(s->n1, s->ranks, s->rank, &r1, &h1);
    double complex *to = s->send;
    for (int q = 0; q < s->ranks; q++) {
        uint64_t qr, qh;
        fft_part(s->n1, s->ranks, q, &qr, &qh);
        memcpy(to, s->t2 + qr * h2, qh * h2 * sizeof *to);
        to += qh * h2;
    }
    set_counts(s, s->n1, 1, s->n2, 0, s->n1, 0, s->n2, 1);
    exchange(s);
    const double complex *from = s->recv;
    for (int q = 0; q < s->ranks; q++) {
        uint64_t qr, qh;
        fft_part(s->n2, s->ranks, q, &qr, &qh);
        for (uint64_t i = 0; i < h1; i++)
            memcpy(out + i * s->n2 + qr, from + i * qh, qh * sizeof *out);
        from += h1 * qh;
    }
}

void fft_sixstep_run(struct fft_sixstep *s, double complex *in, double complex *out)
{
    uint64_t c1, w1;
    fft_part(s->n1, s->ranks, s->rank, &c1, &w1);
    int local = s->ranks == 1;
    double complex *t1 = local ? in : s->t1, *t2 = local ? out : s->t2;
    double t0 = MPI_Wtime();
    if (!local)
        redistribute_in(s, in);
    double t1s = MPI_Wtime();
    struct fft_twiddle tw = {&s->roots, 0, c1};
    fft_cols_run(&s->step1, t1, &tw);
    double t2s = MPI_Wtime();
    if (local)
        transpose(t2, s->n2, t1, s->n1, s->n2, s->n1);
    else
        redistribute_middle(s);
    double t3s = MPI_Wtime();
    fft_cols_run(&s->step2, t2, NULL);
    double t4s = MPI_Wtime();
    if (!local)
        redistribute_out(s, out);
    double t5s = MPI_Wtime();
    double phases[5] = {t1s - t0, t2s - t1s, t3s - t2s, t4s - t3s, t5s - t4s};
    for (int i = 0; i < 5; i++)
        s->phase_seconds[i] += phases[i];
}
