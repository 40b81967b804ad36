/* HPL: LU with partial pivoting of a random N x N system on a P x Q block-cyclic grid,
 * right-looking, panel broadcast along process rows, DGEMM trailing update, look-ahead of
 * depth 1, then back substitution; HPL's scaled residual. docs/kernels/hpl.md. */
#ifndef HPCP_HPL_H
#define HPCP_HPL_H
#include <mpi.h>
#include <stdint.h>

#include "dense.h"

struct hpl {
    MPI_Comm row, col;     /* my process row (Q ranks, rank = pcol), column (P, rank = prow) */
    int P, Q, myrow, mycol;
    long long N;
    int nb, lookahead;
    int mp, nq, lda;       /* local rows, local columns of [A | b], leading dimension */
    double *a;             /* local part of [A | b], column-major */
    double *panel[2];      /* panel k in panel[k % 2]: L rows, then the pivots */
    double *ubuf;          /* P > 1: rows of U broadcast down the column */
    double *rowbuf;        /* P > 1: one row being exchanged */
    uint64_t seed;
    long long swaps_remote;/* pivots exchanged with another process row */
    double seconds_panel, seconds_update, seconds_wait; /* this rank, last factorization */
};

/* Allocate (collectively agreed) and free the local storage. 0 or -1. */
int hpl_alloc(struct hpl *h);
void hpl_free(struct hpl *h);
/* Fill the local part of [A | b] from dense_element(seed, i, j). */
void hpl_generate(struct hpl *h);

/* Factor [A | b] = L U in place (b becomes L^-1 P b). Collective; 0, or -1 when a pivot is
 * zero (singular). */
int hpl_factor(struct hpl *h);
/* Factor panel k (the ranks of its process column), leaving its pivots in ipiv. */
int hpl_panel_factor(struct hpl *h, long long k, int *ipiv);
/* Panel width and the count of doubles of a packed panel on this process row. */
int hpl_panel_width(const struct hpl *h, long long k);
long long hpl_panel_doubles(const struct hpl *h, long long k);

/* Back substitution: x (N, replicated on every rank) from the factored [U | y]. */
void hpl_solve(struct hpl *h, double *x);

/* HPL's check against a regenerated [A | b]: norms and the scaled residual. */
struct hpl_check {
    double rnorm_inf, anorm_1, anorm_inf, xnorm_1, xnorm_inf, bnorm_inf, scaled;
};
void hpl_residual(struct hpl *h, const double *x, struct hpl_check *c);

#endif
