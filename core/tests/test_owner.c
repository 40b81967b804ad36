/* The division-free owner rule (Garg & Sabharwal, Theorem 4.1) against
 * HPCC's division, and the guard that keeps it inside the theorem. */
#include <mpi.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "hpcprobe/rng.h"
#include "ra.h"

/* The theorem's condition, as the guard reads it: n < floor(words / n). */
static int theorem_holds(uint64_t words, int ranks)
{
    return (uint64_t)ranks < words / (uint64_t)ranks;
}

/* A distribution switched to prediction; the switch must be accepted. */
static struct ra_dist predicting(uint64_t words, int ranks)
{
    struct ra_dist d;
    char err[256];
    ra_dist_init(&d, words, ranks);
    CHECK(ra_dist_set_rule(&d, RA_OWNER_PREDICT, err, sizeof err) == 0);
    return d;
}

/* Both rules and the dispatcher agree at g; 1 when they do. */
static int agree(const struct ra_dist *d, uint64_t g)
{
    int p = ra_owner_division(d, g);
    return ra_owner_predict(d, g) == p && ra_dist_owner(d, g) == p;
}

/* (a) Every index of every small table, for every rank count up to 64
 * that the theorem covers. */
static void exhaustive_small_tables(void)
{
    int tables = 0;
    for (int k = 4; k <= 16; k++) {
        uint64_t words = 1ULL << k;
        for (int n = 1; n <= 64 && theorem_holds(words, n); n++) {
            struct ra_dist d = predicting(words, n);
            int ok = 1;
            for (uint64_t g = 0; g < words; g++)
                ok &= agree(&d, g);
            CHECK(ok);
            tables++;
        }
    }
    CHECK(tables > 13 * 2); /* even 2^4 words admits n = 1..3 */
}

/* Outside the theorem the prediction can be off by more than one rank, so
 * the guard is not a formality: a few distributions where it does go wrong. */
static void prediction_fails_outside_theorem(void)
{
    static const struct {
        uint64_t words;
        int ranks;
    } cases[] = {{16, 12}, {1024, 76}, {4096, 144}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct ra_dist d;
        ra_dist_init(&d, cases[i].words, cases[i].ranks);
        CHECK(!theorem_holds(cases[i].words, cases[i].ranks));
        uint64_t wrong = 0;
        for (uint64_t g = 0; g < cases[i].words; g++)
            wrong += ra_owner_predict(&d, g) != ra_owner_division(&d, g);
        CHECK(wrong > 0);
    }
}

/* Rank counts for the large tables: small primes and composites, HPCC-like
 * counts, the primes just below 2^16 and 2^20, and powers of two. */
static const int large_ranks[] = {2,     3,      5,      6,       7,       12,
                                  100,   1000,   4096,   10007,   32767,   65521,
                                  65536, 100003, 999983, 1048573, 1048575, 1048576};
#define LARGE_RANKS_N (sizeof large_ranks / sizeof large_ranks[0])

/* A random index, half of them within two words of a random rank boundary,
 * where a wrong prediction would show. */
static uint64_t random_index(const struct ra_dist *d, uint64_t *seed)
{
    uint64_t r = hpcp_splitmix64(seed);
    if (r & 1)
        return r >> (64 - d->log2_words);
    uint64_t b = ra_dist_start(d, (int)((r >> 1) % (uint64_t)d->ranks));
    uint64_t g = b + (r >> 40) % 5 - 2;
    return g < d->words ? g : b;
}

/* (b) 10^6 random indices per large table and rank count. */
static void random_large_tables(void)
{
    enum { SAMPLES = 1000000 };
    static const int logs[] = {30, 40, 50};
    uint64_t seed = 2024;
    for (size_t t = 0; t < sizeof logs / sizeof logs[0]; t++) {
        for (size_t i = 0; i < LARGE_RANKS_N; i++) {
            uint64_t words = 1ULL << logs[t];
            if (!theorem_holds(words, large_ranks[i]))
                continue;
            struct ra_dist d = predicting(words, large_ranks[i]);
            int ok = 1;
            for (int s = 0; s < SAMPLES; s++)
                ok &= agree(&d, random_index(&d, &seed));
            CHECK(ok);
        }
    }
}

/* (c) The guard accepts prediction exactly where the theorem holds, names
 * the option when it refuses, and then leaves the rule as it was. */
static void guard(uint64_t words, int ranks)
{
    struct ra_dist d;
    char err[256] = "";
    ra_dist_init(&d, words, ranks);
    CHECK(ra_dist_set_rule(&d, RA_OWNER_DIVISION, err, sizeof err) == 0);
    int rc = ra_dist_set_rule(&d, RA_OWNER_PREDICT, err, sizeof err);
    if (theorem_holds(words, ranks)) {
        CHECK(rc == 0 && d.rule == RA_OWNER_PREDICT);
        return;
    }
    CHECK(rc == -1 && d.rule == RA_OWNER_DIVISION);
    CHECK(strstr(err, "--owner") != NULL && strstr(err, "predict") != NULL);
}

static void guard_everywhere(void)
{
    for (int k = 4; k <= 16; k++)
        for (int n = 1; n <= 300; n++)
            guard(1ULL << k, n);
    for (int k = 30; k <= 50; k += 10)
        for (size_t i = 0; i < LARGE_RANKS_N; i++)
            guard(1ULL << k, large_ranks[i]);
    /* Both sides of the bound: 2^15 - 1 < 2^30 / (2^15 - 1) but 2^15 is not. */
    guard(1ULL << 30, 32767);
    guard(1ULL << 30, 32768);
}

/* (d) The first and last index of every rank belong to it under both
 * rules, and the ranks' slices tile the table. */
static void boundaries(uint64_t words, int ranks)
{
    struct ra_dist d = predicting(words, ranks);
    uint64_t next = 0;
    int ok = 1;
    for (int r = 0; r < ranks; r++) {
        uint64_t first = ra_dist_start(&d, r), last = first + ra_dist_count(&d, r) - 1;
        ok &= first == next && ra_dist_count(&d, r) > 0;
        ok &= agree(&d, first) && ra_owner_division(&d, first) == r;
        ok &= agree(&d, last) && ra_owner_division(&d, last) == r;
        next = last + 1;
    }
    CHECK(ok && next == words);
}

static void boundaries_everywhere(void)
{
    for (int k = 4; k <= 16; k++)
        for (int n = 1; n <= 64 && theorem_holds(1ULL << k, n); n++)
            boundaries(1ULL << k, n);
    for (int k = 30; k <= 50; k += 10)
        for (size_t i = 0; i < LARGE_RANKS_N; i++)
            if (theorem_holds(1ULL << k, large_ranks[i]))
                boundaries(1ULL << k, large_ranks[i]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    exhaustive_small_tables();
    prediction_fails_outside_theorem();
    random_large_tables();
    guard_everywhere();
    boundaries_everywhere();
    MPI_Finalize();
    return check_summary("test_owner");
}
