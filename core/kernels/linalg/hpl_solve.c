/* HPL after the factorization: back substitution U x = y on the grid, and the residual
 * check against a regenerated [A | b]. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blas.h"
#include "hpl.h"

/* Block k of x: the owner of U_kk gets y_k minus what the columns right of it contributed
 * (a sum over the process row), solves, and sends x_k up its process column, whose ranks
 * fold U_ik x_k into the partial sums of the rows above. */
static void solve_block(struct hpl *h, long long k, double *partial, double *v, double *x)
{
    long long j = k * h->nb;
    int jb = hpl_panel_width(h, k), pr = (int)(k % h->P), pc = (int)(k % h->Q);
    int bcol = (int)((h->N / h->nb) % h->Q);
    if (h->myrow == pr) {
        long long li = grid_local_before(j, h->nb, h->myrow, h->P);
        const double *y = h->a + (size_t)grid_local_before(h->N, h->nb, h->mycol, h->Q) * h->lda;
        for (int i = 0; i < jb; i++)
            v[i] = (h->mycol == bcol ? y[li + i] : 0.0) - partial[li + i];
        if (h->Q > 1)
            MPI_Reduce(h->mycol == pc ? MPI_IN_PLACE : v, v, jb, MPI_DOUBLE, MPI_SUM, pc, h->row);
        if (h->mycol == pc) {
            long long lj = grid_local_before(j, h->nb, h->mycol, h->Q);
            blas_dtrsv_un(jb, h->a + (size_t)lj * h->lda + li, h->lda, v);
            memcpy(x + j, v, (size_t)jb * sizeof *v);
        }
    }
    if (h->mycol != pc)
        return;
    if (h->P > 1)
        MPI_Bcast(v, jb, MPI_DOUBLE, pr, h->col);
    long long above = grid_local_before(j, h->nb, h->myrow, h->P);
    long long lj = grid_local_before(j, h->nb, h->mycol, h->Q);
    blas_dgemv((int)above, jb, 1.0, h->a + (size_t)lj * h->lda, h->lda, v, 1.0, partial);
}

void hpl_solve(struct hpl *h, double *x)
{
    double *partial = calloc((size_t)h->mp + 1, sizeof *partial);
    double *v = malloc((size_t)h->nb * sizeof *v);
    memset(x, 0, (size_t)h->N * sizeof *x);
    long long panels = (h->N + h->nb - 1) / h->nb;
    for (long long k = panels - 1; partial && v && k >= 0; k--)
        solve_block(h, k, partial, v, x);
    /* Each block of x is on one rank: a sum gives every rank all of x. */
    MPI_Allreduce(MPI_IN_PLACE, x, (int)h->N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    free(partial);
    free(v);
}

/* r = A x (local rows), row sums |A| and column sums |A| of the local part. */
static void local_products(const struct hpl *h, const double *x, double *r, double *rowsum,
                           double *colmax)
{
    long long cols = grid_local_count(h->N, h->nb, h->mycol, h->Q);
    *colmax = 0;
    double *colsum = calloc((size_t)cols + 1, sizeof *colsum);
    for (long long c = 0; c < cols; c++) {
        long long gj = grid_global(c, h->nb, h->mycol, h->Q);
        double s = 0;
        for (long long i = 0; i < h->mp; i++) {
            long long gi = grid_global(i, h->nb, h->myrow, h->P);
            double a = dense_element(h->seed, (uint64_t)gi, (uint64_t)gj);
            r[i] += a * x[gj];
            rowsum[i] += fabs(a);
            s += fabs(a);
        }
        if (colsum)
            colsum[c] = s;
    }
    if (h->P > 1 && colsum)
        MPI_Allreduce(MPI_IN_PLACE, colsum, (int)cols, MPI_DOUBLE, MPI_SUM, h->col);
    for (long long c = 0; colsum && c < cols; c++)
        *colmax = fmax(*colmax, colsum[c]);
    free(colsum);
}

void hpl_residual(struct hpl *h, const double *x, struct hpl_check *c)
{
    double *r = calloc(2 * (size_t)h->mp + 2, sizeof *r), *rowsum = r + h->mp + 1;
    memset(c, 0, sizeof *c);
    double colmax = 0, local[3] = {0, 0, 0};
    local_products(h, x, r, rowsum, &colmax);
    if (h->Q > 1) {
        MPI_Allreduce(MPI_IN_PLACE, r, h->mp, MPI_DOUBLE, MPI_SUM, h->row);
        MPI_Allreduce(MPI_IN_PLACE, rowsum, h->mp, MPI_DOUBLE, MPI_SUM, h->row);
    }
    for (long long i = 0; i < h->mp; i++) {
        long long gi = grid_global(i, h->nb, h->myrow, h->P);
        double b = dense_element(h->seed, (uint64_t)gi, (uint64_t)h->N);
        double e = fabs(r[i] - b);
        local[0] = isnan(e) || isnan(local[0]) ? NAN : fmax(local[0], e);
        local[1] = fmax(local[1], rowsum[i]);
        local[2] = fmax(local[2], fabs(b));
    }
    double global[3];
    MPI_Allreduce(local, global, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &colmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    c->rnorm_inf = global[0], c->anorm_inf = global[1], c->bnorm_inf = global[2];
    c->anorm_1 = colmax;
    for (long long i = 0; i < h->N; i++) {
        c->xnorm_1 += fabs(x[i]);
        c->xnorm_inf = fmax(c->xnorm_inf, fabs(x[i]));
    }
    double eps = 0x1p-53; /* HPL's dlamch('e') */
    c->scaled = c->rnorm_inf / (eps * (c->anorm_inf * c->xnorm_inf + c->bnorm_inf) * h->N);
    if (isnan(c->scaled) || isnan(c->xnorm_inf))
        c->scaled = INFINITY;
    free(r);
}
