/* Pending-update buckets: the fullest comes out first and nothing is lost. */
#include <mpi.h>
#include <stdlib.h>

#include "check.h"
#include "ra.h"

static void fullest_first(void)
{
    struct ra_buckets b;
    enum { P = 37, CAP = 1024 };
    CHECK(ra_buckets_init(&b, P, CAP) == 0);
    int count[P] = {0};
    uint64_t sum_in = 0, sum_out = 0, out[CAP], seed = 1;
    for (int round = 0; round < 50; round++) {
        while (b.pending < CAP) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            int dest = (int)((seed >> 33) % (uint64_t)(1 + round % P));
            ra_buckets_insert(&b, dest, seed);
            count[dest]++;
            sum_in ^= seed;
        }
        int n = 0, max = 0;
        for (int p = 0; p < P; p++)
            max = count[p] > max ? count[p] : max;
        int dest = ra_buckets_pop_largest(&b, out, &n);
        CHECK(dest >= 0 && n == max && count[dest] == max);
        count[dest] = 0;
        for (int i = 0; i < n; i++)
            sum_out ^= out[i];
    }
    int n, dest;
    while ((dest = ra_buckets_pop_largest(&b, out, &n)) >= 0) {
        count[dest] -= n;
        for (int i = 0; i < n; i++)
            sum_out ^= out[i];
    }
    CHECK(b.pending == 0 && sum_in == sum_out);
    for (int p = 0; p < P; p++)
        CHECK(count[p] == 0);
    ra_buckets_free(&b);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    fullest_first();
    MPI_Finalize();
    return check_summary("test_buckets");
}
