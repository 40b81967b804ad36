/* The BLAS calls of dgemm and hpl, through the Fortran interface that every BLAS has
 * (OpenBLAS, BLIS, MKL, Netlib). PyPI's scipy-openblas32 prefixes its symbols with
 * "scipy_": this is the one place that maps them (HPCP_BLAS_SCIPY, set by the build).
 * Column-major; character arguments carry their hidden Fortran lengths. */
#ifndef HPCP_BLAS_H
#define HPCP_BLAS_H
#include <stddef.h>

#ifdef HPCP_BLAS_SCIPY
#define HPCP_F77(name) scipy_##name##_
#else
#define HPCP_F77(name) name##_
#endif

typedef size_t hpcp_flen; /* gfortran's hidden length of a CHARACTER argument */

void HPCP_F77(dgemm)(const char *ta, const char *tb, const int *m, const int *n, const int *k,
                     const double *alpha, const double *a, const int *lda, const double *b,
                     const int *ldb, const double *beta, double *c, const int *ldc, hpcp_flen,
                     hpcp_flen);
void HPCP_F77(dtrsm)(const char *side, const char *uplo, const char *ta, const char *diag,
                     const int *m, const int *n, const double *alpha, const double *a,
                     const int *lda, double *b, const int *ldb, hpcp_flen, hpcp_flen, hpcp_flen,
                     hpcp_flen);
void HPCP_F77(dgemv)(const char *ta, const int *m, const int *n, const double *alpha,
                     const double *a, const int *lda, const double *x, const int *incx,
                     const double *beta, double *y, const int *incy, hpcp_flen);
void HPCP_F77(dger)(const int *m, const int *n, const double *alpha, const double *x,
                    const int *incx, const double *y, const int *incy, double *a, const int *lda);
void HPCP_F77(dtrsv)(const char *uplo, const char *ta, const char *diag, const int *n,
                     const double *a, const int *lda, double *x, const int *incx, hpcp_flen,
                     hpcp_flen, hpcp_flen);

/* C <- alpha op(A) op(B) + beta C */
static inline void blas_dgemm(char ta, char tb, int m, int n, int k, double alpha, const double *a,
                              int lda, const double *b, int ldb, double beta, double *c, int ldc)
{
    if (m > 0 && n > 0)
        HPCP_F77(dgemm)(&ta, &tb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1);
}

/* B <- inv(L) B, L unit lower triangular m x m (the left-side solve of LU) */
static inline void blas_dtrsm_llnu(int m, int n, const double *l, int ldl, double *b, int ldb)
{
    double one = 1.0;
    if (m > 0 && n > 0)
        HPCP_F77(dtrsm)("L", "L", "N", "U", &m, &n, &one, l, &ldl, b, &ldb, 1, 1, 1, 1);
}

/* y <- alpha A x + beta y (A m x n) */
static inline void blas_dgemv(int m, int n, double alpha, const double *a, int lda, const double *x,
                              double beta, double *y)
{
    int one = 1;
    if (m > 0 && n > 0)
        HPCP_F77(dgemv)("N", &m, &n, &alpha, a, &lda, x, &one, &beta, y, &one, 1);
}

/* A <- A + alpha x y^T; y with stride incy */
static inline void blas_dger(int m, int n, double alpha, const double *x, const double *y, int incy,
                             double *a, int lda)
{
    int one = 1;
    if (m > 0 && n > 0)
        HPCP_F77(dger)(&m, &n, &alpha, x, &one, y, &incy, a, &lda);
}

/* x <- inv(U) x, U upper triangular with its diagonal */
static inline void blas_dtrsv_un(int n, const double *u, int ldu, double *x)
{
    int one = 1;
    if (n > 0)
        HPCP_F77(dtrsv)("U", "N", "N", &n, u, &ldu, x, &one, 1, 1, 1);
}

/* Make the BLAS run `threads` threads per rank where it can be told (OpenBLAS, BLIS,
 * MKL); returns how it was told ("openblas_set_num_threads", ... or "not settable"). */
const char *blas_set_threads(int threads);
/* The shared library that holds dgemm (dladdr), or the BLAS's own configuration line
 * when it has one; never NULL. */
const char *blas_library(void);
/* The build's choice: "scipy-openblas32", "OpenBLAS", "generic", ... */
const char *blas_build_name(void);

#endif
