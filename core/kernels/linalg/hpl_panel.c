/* HPL's panel factorization: recursive LU of the N-j by jb panel with partial pivoting over
 * the whole process column. The recursion turns most of the work into DGEMM; its leaves
 * (PANEL_LEAF columns) go column by column: pivot search (a MAXLOC reduction when P > 1),
 * the row swap across the whole panel, scaling, and a rank-1 update of the leaf. */
#include <math.h>
#include <string.h>

#include "blas.h"
#include "hpl.h"

#define PANEL_LEAF 16

struct panel {
    struct hpl *h;
    long long j;     /* global index of the panel's first column and diagonal row */
    int jb;          /* width */
    int lj;          /* local column of the panel's first column */
    int *ipiv;       /* global pivot row of each column */
    int drow;        /* process row holding the diagonal block */
    double *row;     /* P > 1: the pivot row broadcast down the column */
};

static long long local_rows_before(const struct hpl *h, long long g)
{
    return grid_local_before(g, h->nb, h->myrow, h->P);
}

static double *at(const struct panel *pn, long long lrow, int c)
{
    const struct hpl *h = pn->h;
    return h->a + (size_t)(pn->lj + c) * h->lda + lrow;
}

/* Swap global rows g1 and g2 over the panel's columns [0, jb). */
static void swap_rows(struct panel *pn, long long g1, long long g2)
{
    struct hpl *h = pn->h;
    int o1 = (int)((g1 / h->nb) % h->P), o2 = (int)((g2 / h->nb) % h->P);
    if (o1 != h->myrow && o2 != h->myrow)
        return;
    long long l1 = grid_local_before(g1, h->nb, o1, h->P);
    long long l2 = grid_local_before(g2, h->nb, o2, h->P);
    if (o1 == o2) {
        for (int c = 0; c < pn->jb; c++) {
            double t = *at(pn, l1, c);
            *at(pn, l1, c) = *at(pn, l2, c);
            *at(pn, l2, c) = t;
        }
        return;
    }
    long long mine = o1 == h->myrow ? l1 : l2;
    int other = o1 == h->myrow ? o2 : o1;
    for (int c = 0; c < pn->jb; c++)
        h->rowbuf[c] = *at(pn, mine, c);
    MPI_Sendrecv_replace(h->rowbuf, pn->jb, MPI_DOUBLE, other, 7, other, 7, h->col,
                         MPI_STATUS_IGNORE);
    for (int c = 0; c < pn->jb; c++)
        *at(pn, mine, c) = h->rowbuf[c];
}

/* The pivot of column c: the largest |a| at or below the diagonal over the column. */
static long long find_pivot(struct panel *pn, int c, double *value)
{
    struct hpl *h = pn->h;
    long long g = pn->j + c, first = local_rows_before(h, g);
    const double *col = at(pn, 0, c);
    struct {
        double v;
        int i;
    } best = {-1.0, 0}, all;
    long long where = -1;
    for (long long i = first; i < h->mp; i++)
        if (fabs(col[i]) > best.v)
            best.v = fabs(col[i]), where = i;
    if (where >= 0)
        best.i = (int)grid_global(where, h->nb, h->myrow, h->P);
    if (h->P > 1)
        MPI_Allreduce(&best, &all, 1, MPI_DOUBLE_INT, MPI_MAXLOC, h->col);
    else
        all = best;
    *value = all.v;
    return all.v > 0 ? all.i : -1;
}

/* Column c of leaf [c, end): pivot, swap, scale, rank-1 update of columns c+1..end-1. */
static int leaf_column(struct panel *pn, int c, int end)
{
    struct hpl *h = pn->h;
    long long g = pn->j + c;
    double value;
    long long gp = find_pivot(pn, c, &value);
    if (gp < 0)
        return -1;
    pn->ipiv[c] = (int)gp;
    if (gp != g)
        swap_rows(pn, g, gp);
    /* The pivot row (now row g, on the diagonal process row) over columns c..end-1. */
    const double *pivot_row;
    int width = end - c;
    if (h->P > 1) {
        if (h->myrow == pn->drow)
            for (int k = 0; k < width; k++)
                pn->row[k] = *at(pn, local_rows_before(h, g), c + k);
        MPI_Bcast(pn->row, width, MPI_DOUBLE, pn->drow, h->col);
        pivot_row = pn->row;
    } else {
        pivot_row = NULL;
    }
    long long below = local_rows_before(h, g + 1);
    int m = (int)(h->mp - below);
    double *col = at(pn, below, c);
    double pivot = pivot_row ? pivot_row[0] : *at(pn, local_rows_before(h, g), c);
    double inv = 1.0 / pivot;
    for (int i = 0; i < m; i++)
        col[i] *= inv;
    if (pivot_row)
        blas_dger(m, width - 1, -1.0, col, pivot_row + 1, 1, at(pn, below, c + 1), h->lda);
    else
        blas_dger(m, width - 1, -1.0, col, at(pn, local_rows_before(h, g), c + 1), h->lda,
                  at(pn, below, c + 1), h->lda);
    return 0;
}

static int factor(struct panel *pn, int c0, int c1)
{
    struct hpl *h = pn->h;
    if (c1 - c0 <= PANEL_LEAF) {
        for (int c = c0; c < c1; c++)
            if (leaf_column(pn, c, c1))
                return -1;
        return 0;
    }
    int cm = c0 + (c1 - c0) / 2;
    if (factor(pn, c0, cm))
        return -1;
    /* U12 = L11^-1 A12 on the diagonal rows, then A22 -= L21 U12 below them. */
    int k = cm - c0, n = c1 - cm;
    long long top = local_rows_before(h, pn->j + c0);
    const double *u = at(pn, top, cm);
    int ldu = h->lda;
    if (h->myrow == pn->drow)
        blas_dtrsm_llnu(k, n, at(pn, top, c0), h->lda, at(pn, top, cm), h->lda);
    if (h->P > 1) {
        if (h->myrow == pn->drow)
            for (int c = 0; c < n; c++)
                memcpy(h->ubuf + (size_t)c * k, at(pn, top, cm + c), (size_t)k * sizeof(double));
        MPI_Bcast(h->ubuf, k * n, MPI_DOUBLE, pn->drow, h->col);
        u = h->ubuf, ldu = k;
    }
    long long below = local_rows_before(h, pn->j + cm);
    blas_dgemm('N', 'N', (int)(h->mp - below), n, k, -1.0, at(pn, below, c0), h->lda, u, ldu, 1.0,
               at(pn, below, cm), h->lda);
    return factor(pn, cm, c1);
}

int hpl_panel_width(const struct hpl *h, long long k)
{
    long long left = h->N - k * h->nb;
    return (int)(left < h->nb ? left : h->nb);
}

long long hpl_panel_doubles(const struct hpl *h, long long k)
{
    long long rows = h->mp - local_rows_before(h, k * h->nb);
    return rows * hpl_panel_width(h, k) + hpl_panel_width(h, k);
}

int hpl_panel_factor(struct hpl *h, long long k, int *ipiv)
{
    struct panel pn = {h, k * h->nb, hpl_panel_width(h, k), 0, ipiv, (int)(k % h->P), h->rowbuf};
    pn.lj = (int)grid_local_before(pn.j, h->nb, h->mycol, h->Q);
    return factor(&pn, 0, pn.jb);
}
