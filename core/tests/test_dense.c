/* dgemm through the BLAS against a triple loop on small sizes (every transpose, alpha,
 * beta); the block-cyclic index arithmetic; the element generator. */
#include <math.h>
#include <mpi.h>
#include <stdlib.h>

#include "blas.h"
#include "check.h"
#include "dense.h"

static void test_dgemm(char ta, char tb, int m, int n, int k, double alpha, double beta)
{
    int lda = (ta == 'N' ? m : k) + 1, ldb = (tb == 'N' ? k : n) + 2, ldc = m + 3;
    double *a = malloc((size_t)lda * (ta == 'N' ? k : m) * sizeof *a);
    double *b = malloc((size_t)ldb * (tb == 'N' ? n : k) * sizeof *b);
    double *c = malloc((size_t)ldc * n * sizeof *c), *want = malloc((size_t)ldc * n * 8);
    for (int i = 0; i < lda * (ta == 'N' ? k : m); i++)
        a[i] = dense_element(1, (uint64_t)i, 0);
    for (int i = 0; i < ldb * (tb == 'N' ? n : k); i++)
        b[i] = dense_element(2, (uint64_t)i, 0);
    for (int i = 0; i < ldc * n; i++)
        c[i] = want[i] = dense_element(3, (uint64_t)i, 0);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double s = 0;
            for (int l = 0; l < k; l++)
                s += (ta == 'N' ? a[l * lda + i] : a[i * lda + l]) *
                     (tb == 'N' ? b[j * ldb + l] : b[l * ldb + j]);
            want[j * ldc + i] = alpha * s + beta * want[j * ldc + i];
        }
    blas_dgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    double worst = 0;
    for (int i = 0; i < ldc * n; i++)
        worst = fmax(worst, fabs(c[i] - want[i]));
    CHECK(worst <= 1e-14 * (k + 1) * 4);
    free(a), free(b), free(c), free(want);
}

static void test_grid(long long n, int nb, int np)
{
    long long total = 0;
    for (int me = 0; me < np; me++) {
        long long count = grid_local_count(n, nb, me, np);
        total += count;
        for (long long l = 0; l < count; l++) {
            long long g = grid_global(l, nb, me, np);
            CHECK((g / nb) % np == me);                      /* the owner of g is me */
            CHECK(grid_local_before(g, nb, me, np) == l);    /* and l is its local index */
        }
        CHECK(grid_local_before(n, nb, me, np) == count);
    }
    CHECK(total == n);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char t[] = {'N', 'T'};
    for (int x = 0; x < 2; x++)
        for (int y = 0; y < 2; y++) {
            test_dgemm(t[x], t[y], 7, 5, 3, 1.0, 0.0);
            test_dgemm(t[x], t[y], 33, 17, 65, -0.75, 1.5);
        }
    test_dgemm('N', 'N', 1, 1, 1, 2.0, 3.0);
    int sizes[][3] = {{301, 32, 3}, {64, 64, 1}, {100, 7, 4}, {5, 8, 2}, {1, 1, 3}};
    for (int i = 0; i < 5; i++)
        test_grid(sizes[i][0], sizes[i][1], sizes[i][2]);
    double lo = 1, hi = -1, sum = 0;
    for (uint64_t i = 0; i < 100000; i++) {
        double v = dense_element(42, i, i % 7);
        lo = fmin(lo, v), hi = fmax(hi, v), sum += v;
    }
    CHECK(lo >= -0.5 && hi < 0.5 && hi - lo > 0.99 && fabs(sum / 100000) < 0.01);
    CHECK(dense_element(1, 2, 3) == dense_element(1, 2, 3));
    CHECK(dense_element(1, 2, 3) != dense_element(1, 3, 2));
    int rc = check_summary("test_dense");
    MPI_Finalize();
    return rc;
}
