/* HPL's right-looking factorization: for each panel, the row swaps, U = L11^-1 A12 and the
 * DGEMM update A22 -= L21 U of every column right of it, with a look-ahead of depth 1: the
 * process column that owns the next panel updates and factors it first and starts its
 * broadcast along the process row, then updates the rest, polling the broadcast between
 * chunks so that it moves while the DGEMMs run. */
#include <stdlib.h>
#include <string.h>

#include "blas.h"
#include "hpl.h"

/* Columns per chunk of the trailing update: large enough for DGEMM to run at its rate,
 * small enough that a pending broadcast is polled often. */
#define UPDATE_CHUNK 768

struct update {
    struct hpl *h;
    long long k, j;
    int jb;
    const double *l;      /* the packed panel: rows of this process row from global j */
    int ldl;
    long long first_row;  /* local index of global row j */
    const int *ipiv;
    MPI_Request *poll;    /* a broadcast to keep moving, or NULL */
    int nswaps;           /* P = 1: the interchanges as pairs of local rows */
    int *swap_from, *swap_to;
};

static long long local_row(const struct hpl *h, long long g, int *owner)
{
    *owner = (int)((g / h->nb) % h->P);
    return grid_local_before(g, h->nb, *owner, h->P);
}

/* The panel's row interchanges over local columns [c0, c1). */
static void apply_swaps(const struct update *u, int c0, int c1)
{
    struct hpl *h = u->h;
    if (h->P == 1) {
        for (int c = c0; c < c1; c++) {
            double *col = h->a + (size_t)c * h->lda;
            for (int i = 0; i < u->nswaps; i++) {
                double t = col[u->swap_from[i]];
                col[u->swap_from[i]] = col[u->swap_to[i]];
                col[u->swap_to[i]] = t;
            }
        }
        return;
    }
    for (int i = 0; i < u->jb; i++) {
        long long g1 = u->j + i, g2 = u->ipiv[i];
        int o1, o2;
        long long l1 = local_row(h, g1, &o1), l2 = local_row(h, g2, &o2);
        if (g1 == g2 || (o1 != h->myrow && o2 != h->myrow))
            continue;
        if (o1 == o2) {
            for (int c = c0; c < c1; c++) {
                double *col = h->a + (size_t)c * h->lda, t = col[l1];
                col[l1] = col[l2];
                col[l2] = t;
            }
            continue;
        }
        long long mine = o1 == h->myrow ? l1 : l2;
        int other = o1 == h->myrow ? o2 : o1;
        for (int c = c0; c < c1; c++)
            h->rowbuf[c - c0] = h->a[(size_t)c * h->lda + mine];
        MPI_Sendrecv_replace(h->rowbuf, c1 - c0, MPI_DOUBLE, other, 8, other, 8, h->col,
                             MPI_STATUS_IGNORE);
        for (int c = c0; c < c1; c++)
            h->a[(size_t)c * h->lda + mine] = h->rowbuf[c - c0];
        h->swaps_remote++;
    }
}

/* Swaps, U rows and the DGEMM update of local columns [c0, c1) with the panel. */
static void update_columns(const struct update *u, int c0, int c1)
{
    struct hpl *h = u->h;
    int n = c1 - c0, drow = (int)(u->k % h->P);
    if (n <= 0)
        return;
    apply_swaps(u, c0, c1);
    double *top = h->a + (size_t)c0 * h->lda + u->first_row;
    const double *uu = top;
    int ldu = h->lda;
    if (h->myrow == drow)
        blas_dtrsm_llnu(u->jb, n, u->l, u->ldl, top, h->lda);
    if (h->P > 1) {
        if (h->myrow == drow)
            for (int c = 0; c < n; c++)
                memcpy(h->ubuf + (size_t)c * u->jb, top + (size_t)c * h->lda,
                       (size_t)u->jb * sizeof(double));
        MPI_Bcast(h->ubuf, u->jb * n, MPI_DOUBLE, drow, h->col);
        uu = h->ubuf, ldu = u->jb;
    }
    long long below = grid_local_before(u->j + u->jb, h->nb, h->myrow, h->P);
    long long skip = below - u->first_row;
    blas_dgemm('N', 'N', (int)(h->mp - below), n, u->jb, -1.0, u->l + skip, u->ldl, uu, ldu, 1.0,
               h->a + (size_t)c0 * h->lda + below, h->lda);
}

static void update_chunked(const struct update *u, int c0, int c1)
{
    double t0 = MPI_Wtime();
    for (int c = c0; c < c1; c += UPDATE_CHUNK) {
        int end = c + UPDATE_CHUNK < c1 ? c + UPDATE_CHUNK : c1;
        update_columns(u, c, end);
        if (u->poll && *u->poll != MPI_REQUEST_NULL) {
            int done;
            MPI_Test(u->poll, &done, MPI_STATUS_IGNORE);
        }
    }
    u->h->seconds_update += MPI_Wtime() - t0;
}

/* Factor panel k on its process column and pack it (L rows, then pivots as doubles). */
static int factor_and_pack(struct hpl *h, long long k, int *ipiv)
{
    int bad = 0;
    if (h->mycol != (int)(k % h->Q))
        return 0;
    double t0 = MPI_Wtime();
    bad = hpl_panel_factor(h, k, ipiv);
    int jb = hpl_panel_width(h, k);
    long long first = grid_local_before(k * h->nb, h->nb, h->myrow, h->P);
    long long rows = h->mp - first;
    int lj = (int)grid_local_before(k * h->nb, h->nb, h->mycol, h->Q);
    double *buf = h->panel[k % 2];
    for (int c = 0; c < jb; c++)
        memcpy(buf + (size_t)c * rows, h->a + (size_t)(lj + c) * h->lda + first,
               (size_t)rows * sizeof(double));
    for (int c = 0; c < jb; c++)
        buf[rows * jb + c] = ipiv[c];
    h->seconds_panel += MPI_Wtime() - t0;
    return bad;
}

static void post_panel(struct hpl *h, long long k, MPI_Request *req)
{
    MPI_Ibcast(h->panel[k % 2], (int)hpl_panel_doubles(h, k), MPI_DOUBLE, (int)(k % h->Q), h->row,
               req);
}

static void unpack_panel(struct hpl *h, long long k, struct update *u, int *ipiv)
{
    u->h = h, u->k = k, u->j = k * h->nb, u->jb = hpl_panel_width(h, k);
    u->first_row = grid_local_before(u->j, h->nb, h->myrow, h->P);
    u->ldl = (int)(h->mp - u->first_row);
    u->l = h->panel[k % 2];
    const double *piv = u->l + (size_t)u->ldl * u->jb;
    for (int c = 0; c < u->jb; c++)
        ipiv[c] = (int)piv[c];
    u->ipiv = ipiv;
    if (u->ldl == 0)
        u->ldl = 1;
    /* One process row: every row is here, and the local index is the global one. */
    u->nswaps = 0;
    u->swap_from = ipiv + h->nb, u->swap_to = ipiv + 2 * h->nb;
    for (int c = 0; h->P == 1 && c < u->jb; c++)
        if (ipiv[c] != u->j + c) {
            u->swap_from[u->nswaps] = (int)(u->j + c);
            u->swap_to[u->nswaps++] = ipiv[c];
        }
}

int hpl_factor(struct hpl *h)
{
    long long panels = (h->N + h->nb - 1) / h->nb;
    /* mine: panel k's pivots and its swaps as local pairs; next: panel k + 1's pivots */
    int *mine = malloc(4 * (size_t)h->nb * sizeof *mine), *next = mine + 3 * h->nb, bad = 0;
    MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    h->seconds_panel = h->seconds_update = h->seconds_wait = 0;
    bad |= factor_and_pack(h, 0, next);
    post_panel(h, 0, &req[0]);
    for (long long k = 0; k < panels; k++) {
        double t0 = MPI_Wtime();
        MPI_Wait(&req[k % 2], MPI_STATUS_IGNORE);
        h->seconds_wait += MPI_Wtime() - t0;
        struct update u;
        unpack_panel(h, k, &u, mine);
        int c0 = (int)grid_local_before(u.j + u.jb, h->nb, h->mycol, h->Q);
        int owns_next = k + 1 < panels && h->mycol == (int)((k + 1) % h->Q);
        if (k + 1 < panels && h->lookahead) {
            if (owns_next) {
                int jb1 = hpl_panel_width(h, k + 1);
                double t1 = MPI_Wtime();
                update_columns(&u, c0, c0 + jb1);
                h->seconds_update += MPI_Wtime() - t1;
                bad |= factor_and_pack(h, k + 1, next);
                c0 += jb1;
            }
            post_panel(h, k + 1, &req[(k + 1) % 2]);
            u.poll = &req[(k + 1) % 2];
        } else {
            u.poll = NULL;
        }
        update_chunked(&u, c0, h->nq);
        if (k + 1 < panels && !h->lookahead) {
            bad |= factor_and_pack(h, k + 1, next);
            post_panel(h, k + 1, &req[(k + 1) % 2]);
        }
    }
    free(mine);
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any ? -1 : 0;
}
