/* Memory family: the pointer chase is one cycle over every line; plateau
 * detection finds the cache sizes of a synthetic latency curve; sizes parse;
 * both builds of the read+write kernel exist and do the same work. */
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mem_rw.h"
#include "mem_sweep.h"

static void test_chase_is_one_cycle(size_t n, uint64_t seed)
{
    char *lines = aligned_alloc(MEM_LINE_BYTES, n * MEM_LINE_BYTES);
    uint32_t *order = malloc(n * sizeof *order);
    unsigned char *seen = calloc(n, 1);
    mem_chase_build(lines, order, n, seed);
    void **p = (void **)lines, **start = p;
    size_t visits = 0, twice = 0;
    do {
        size_t line = (size_t)((char *)p - lines) / MEM_LINE_BYTES;
        twice += seen[line]++ != 0;
        p = (void **)*p;
        visits++;
    } while (p != start && visits <= n);
    CHECK(visits == n);  /* back at the start after exactly n loads */
    CHECK(twice == 0);   /* ... having seen every line once */
    /* The verifier's rule: T loads from order[0] end on order[T mod n]. */
    p = (void **)(lines + (size_t)order[0] * MEM_LINE_BYTES);
    for (size_t t = 0; t < 3 * n + 1; t++)
        p = (void **)*p;
    CHECK((char *)p == lines + (size_t)order[(3 * n + 1) % n] * MEM_LINE_BYTES);
    free(lines), free(order), free(seen);
}

/* Latency of a chase over S bytes: beyond a cache of C bytes it hits
 * (C/S)^4 of the time, a transition about an octave wide, as measured
 * curves show (an ideal random-replacement cache would give C/S). */
static double model_latency(double s, const double *caches, const double *levels, int n)
{
    double lat = levels[n];
    for (int i = n - 1; i >= 0; i--) {
        double hit = s <= caches[i] ? 1.0 : pow(caches[i] / s, 4);
        lat = hit * levels[i] + (1 - hit) * lat;
    }
    return lat;
}

static void test_plateaus(double noise)
{
    const double caches[] = {32768, 524288, 8388608}, levels[] = {1e-9, 4e-9, 15e-9, 90e-9};
    double x[64], y[64], size[8], level[8];
    uint64_t state = 7;
    int n = 0;
    for (double s = 1024; s <= 2.0 * (1 << 30); s *= sqrt(2.0), n++) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        double jitter = ((double)(state >> 11) / 9007199254740992.0 - 0.5) * 2 * noise;
        x[n] = floor(s / 64) * 64;
        y[n] = model_latency(x[n], caches, levels, 3) * (1 + jitter);
    }
    int found = mem_find_plateaus(x, y, n, 0.15, 3, size, level, 8);
    CHECK(found == 4);
    for (int i = 0; i < 3 && found == 4; i++) {
        CHECK(size[i] > 0.9 * caches[i] && size[i] < 1.3 * caches[i]);
        CHECK(fabs(level[i] - levels[i]) < 0.1 * levels[i]);
    }
    if (found == 4)
        CHECK(size[3] == x[n - 1]);
}

static void test_sizes(void)
{
    uint64_t b = 0;
    CHECK(hpcp_parse_bytes("4096", &b) == 0 && b == 4096);
    CHECK(hpcp_parse_bytes("64K", &b) == 0 && b == 65536);
    CHECK(hpcp_parse_bytes("2G", &b) == 0 && b == (uint64_t)2 << 30);
    CHECK(hpcp_parse_bytes("512MiB", &b) == 0 && b == (uint64_t)512 << 20);
    CHECK(hpcp_parse_bytes("0", &b) != 0);
    CHECK(hpcp_parse_bytes("-5M", &b) != 0);
    CHECK(hpcp_parse_bytes("12Q", &b) != 0);
    CHECK(hpcp_parse_bytes("", &b) != 0);
}

static void test_both_builds(void)
{
    uint64_t a[64] = {0}, c[64] = {0};
    mem_rw_pass_O0(a, 64, 4);
    mem_rw_pass_O3(c, 64, 4);
    mem_rw_pass_O3(c, 64, 1);
    CHECK(memcmp(a, c, sizeof a) != 0);
    mem_rw_pass_O0(a, 64, 1);
    CHECK(memcmp(a, c, sizeof a) == 0);
    CHECK(a[0] == 2 && a[1] == 1 && a[4] == 2);
    CHECK(strstr(mem_rw_flags_O0, "-O0") != NULL);
    CHECK(strstr(mem_rw_flags_O3, "-O3") != NULL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    test_chase_is_one_cycle(1, 1);
    test_chase_is_one_cycle(2, 3);
    test_chase_is_one_cycle(1000, 42);
    test_chase_is_one_cycle(65536, 9);
    test_plateaus(0.0);
    test_plateaus(0.05);
    test_sizes();
    test_both_builds();
    int rc = check_summary("test_mem");
    MPI_Finalize();
    return rc;
}
