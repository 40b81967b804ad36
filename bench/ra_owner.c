/* Owners per second of the two RandomAccess owner rules: HPCC's division
 * and Garg & Sabharwal's prediction (Theorem 4.1), on the same indices, in
 * the same process, interleaved run by run. Each rule's owners feed a
 * checksum, and the two checksums must be equal, so the work cannot be
 * optimised away; with a check at every rank boundary, a wrong owner fails
 * the bench.
 *
 * usage: ra_owner [--table-log2 K] [--runs R] [--owners-log2 M] [RANKS...] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ra.h"

enum { BUF_LOG2 = 14 }; /* 128 KiB of indices: in cache, so the rule is what is timed */

struct config {
    int table_log2, runs, owners_log2;
    int nranks;
    long ranks[64];
};

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Weighting each owner by its (odd) index makes a wrong owner visible in
 * the sum, and the multiply stays off the sum's dependency chain. */
__attribute__((noinline)) static uint64_t sum_division(const struct ra_dist *d, const uint64_t *g,
                                                       uint64_t n)
{
    uint64_t sum = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t x = g[i & ((1u << BUF_LOG2) - 1)];
        sum += (uint64_t)ra_owner_division(d, x) * (x | 1);
    }
    return sum;
}

__attribute__((noinline)) static uint64_t sum_predict(const struct ra_dist *d, const uint64_t *g,
                                                      uint64_t n)
{
    uint64_t sum = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t x = g[i & ((1u << BUF_LOG2) - 1)];
        sum += (uint64_t)ra_owner_predict(d, x) * (x | 1);
    }
    return sum;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct result {
    double division, predict; /* median owners per second */
    double ratio;             /* median over runs of predict / division within the run */
    int same;                 /* every run's checksums agreed */
};

/* One timed pass of one rule; returns owners per second. */
static double timed(int predict, const struct ra_dist *d, const uint64_t *g, uint64_t n,
                    uint64_t *sum)
{
    double t0 = now();
    *sum = predict ? sum_predict(d, g, n) : sum_division(d, g, n);
    return (double)n / (now() - t0);
}

/* Odd runs time division first, even runs prediction first, so that a
 * change of clock speed during the bench lands on both rules; the ratio is
 * taken within each run, where both rules saw the same machine. */
static struct result measure(const struct config *c, const struct ra_dist *d, const uint64_t *g)
{
    double by_division[101], by_prediction[101], ratio[101]; /* --runs is at most 101 */
    uint64_t n = 1ULL << c->owners_log2, sd, sp;
    struct result r = {0, 0, 0, 1};
    timed(0, d, g, 1u << BUF_LOG2, &sd); /* warm the caches and the branch predictor */
    for (int i = 0; i < c->runs; i++) {
        int first = i % 2;
        double a = timed(first, d, g, n, first ? &sp : &sd);
        double b = timed(!first, d, g, n, first ? &sd : &sp);
        by_prediction[i] = first ? a : b;
        by_division[i] = first ? b : a;
        ratio[i] = by_prediction[i] / by_division[i];
        r.same &= sd == sp;
    }
    r.division = median(by_division, c->runs);
    r.predict = median(by_prediction, c->runs);
    r.ratio = median(ratio, c->runs);
    return r;
}

/* Uniform indices over the whole table, as RandomAccess draws them. */
static void fill_indices(uint64_t *g, int table_log2)
{
    uint64_t seed = 12345;
    for (uint64_t i = 0; i < (1u << BUF_LOG2); i++)
        g[i] = splitmix(&seed) >> (64 - table_log2);
}

static int parse_int(const char *text, long lo, long hi, long *out)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (end == text || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int parse_args(int argc, char **argv, struct config *c)
{
    static const long defaults[] = {3, 5, 6, 7, 12, 100, 1000, 10007};
    long v;
    for (int i = 1; i < argc; i++) {
        int has_value = i + 1 < argc;
        if (!strcmp(argv[i], "--table-log2") && has_value && !parse_int(argv[++i], 8, 50, &v))
            c->table_log2 = (int)v;
        else if (!strcmp(argv[i], "--runs") && has_value && !parse_int(argv[++i], 1, 101, &v))
            c->runs = (int)v;
        else if (!strcmp(argv[i], "--owners-log2") && has_value &&
                 !parse_int(argv[++i], BUF_LOG2, 34, &v))
            c->owners_log2 = (int)v;
        else if (c->nranks < 64 && !parse_int(argv[i], 1, 1 << 24, &v))
            c->ranks[c->nranks++] = v;
        else
            return -1;
    }
    if (c->nranks == 0)
        for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++)
            c->ranks[c->nranks++] = defaults[i];
    return 0;
}

/* Uniform indices almost never land where the prediction needs its
 * correction, so the checksums alone would miss a wrong one: the rules must
 * also agree around every rank's first index (not timed). */
static int edges_agree(const struct ra_dist *d)
{
    int ok = 1;
    for (int r = 1; r < d->ranks; r++) {
        uint64_t b = ra_dist_start(d, r);
        for (uint64_t g = b - 1; g <= b + 1; g++)
            ok &= ra_owner_predict(d, g) == ra_owner_division(d, g);
    }
    return ok;
}

static int bench_one(const struct config *c, int ranks, const uint64_t *g)
{
    struct ra_dist d;
    char err[256];
    ra_dist_init(&d, 1ULL << c->table_log2, ranks);
    if (ra_dist_set_rule(&d, RA_OWNER_PREDICT, err, sizeof err)) {
        printf("%8d  skipped: %s\n", ranks, err);
        return 0;
    }
    struct result r = measure(c, &d, g);
    r.same &= edges_agree(&d);
    printf("%8d %14.1f %14.1f %10.2f  %s\n", ranks, r.division / 1e6, r.predict / 1e6, r.ratio,
           r.same ? "agree" : "DIFFER");
    return r.same ? 0 : 1;
}

int main(int argc, char **argv)
{
    struct config c = {.table_log2 = 40, .runs = 11, .owners_log2 = 24};
    static uint64_t g[1u << BUF_LOG2];
    if (parse_args(argc, argv, &c)) {
        fprintf(stderr,
                "usage: %s [--table-log2 8..50] [--runs 1..101] [--owners-log2 %d..34] "
                "[RANKS (1..2^24)...]\n",
                argv[0], BUF_LOG2);
        return 2;
    }
    fill_indices(g, c.table_log2);
    printf("table 2^%d words; 2^%d owners per rule per run; median of %d runs\n", c.table_log2,
           c.owners_log2, c.runs);
    printf("%8s %14s %14s %10s  %s\n", "ranks", "division M/s", "predict M/s", "ratio", "owners");
    int bad = 0;
    for (int i = 0; i < c.nranks; i++)
        bad |= bench_one(&c, (int)c.ranks[i], g);
    printf("ratio: predict / division owners per second, measured back to back within each run "
           "of this same invocation (same process, same indices), median over the runs\n");
    return bad;
}
