/* The gpu family's host side (gpu.h), without a device: BabelStream's counting and gold
 * values, the RandomAccess stream plan and the arithmetic its verification rests on
 * (streams applied one by one give HPCC's table), the sizing rules, and a build without
 * a device saying why. */
#include <math.h>
#include <mpi.h>
#include <string.h>

#include "check.h"
#include "gpu.h"
#include "hpcprobe/device.h"
#include "hpcprobe/gups_rng.h"

static void counts_bytes_and_flops(void)
{
    const uint64_t n = 1000;
    static const double bytes[GPU_STREAM_OPS] = {16, 16, 24, 24, 16};
    static const double flops[GPU_STREAM_OPS] = {0, 1, 1, 2, 2};
    static const char *const names[GPU_STREAM_OPS] = {"copy", "mul", "add", "triad", "dot"};
    for (int op = 0; op < GPU_STREAM_OPS; op++) {
        CHECK(gpu_stream_bytes((enum gpu_stream_op)op, n) == bytes[op] * n);
        CHECK(gpu_stream_flops((enum gpu_stream_op)op, n) == flops[op] * n);
        CHECK(strcmp(gpu_stream_op_name((enum gpu_stream_op)op), names[op]) == 0);
    }
    CHECK(gpu_copy_counted_bytes(GPU_COPY_H2D, 4096) == 4096);
    CHECK(gpu_copy_counted_bytes(GPU_COPY_D2H, 4096) == 4096);
    CHECK(gpu_copy_counted_bytes(GPU_COPY_D2D, 4096) == 8192);
    CHECK(gpu_copy_counted_bytes(GPU_COPY_P2P, 4096) == 4096);
    CHECK(strcmp(gpu_copy_kind_name(GPU_COPY_H2D), "h2d") == 0);
    CHECK(strcmp(gpu_copy_kind_name(GPU_COPY_P2P), "p2p") == 0);
}

/* The five kernels on small arrays, as a device runs them element by element. */
static void replay(int reps, int n, double *a, double *b, double *c, double *dot)
{
    const double scalar = GPU_STREAM_SCALAR;
    for (int i = 0; i < n; i++)
        a[i] = GPU_STREAM_A0, b[i] = GPU_STREAM_B0, c[i] = GPU_STREAM_C0;
    for (int r = 0; r < reps; r++) {
        for (int i = 0; i < n; i++)
            c[i] = a[i];
        for (int i = 0; i < n; i++)
            b[i] = scalar * c[i];
        for (int i = 0; i < n; i++)
            c[i] = a[i] + b[i];
        for (int i = 0; i < n; i++)
            a[i] = b[i] + scalar * c[i];
        *dot = 0;
        for (int i = 0; i < n; i++)
            *dot += a[i] * b[i];
    }
}

/* Within a few ulps: the compiler may fuse a multiply-add in one loop and not the other. */
static int close_to(double x, double want)
{
    return fabs(x - want) <= 4 * 2.220446049250313e-16 * fabs(want);
}

static void gold_matches_a_replay(void)
{
    enum { N = 64 };
    double a[N], b[N], c[N], dot = 0;
    for (int reps = 1; reps <= 3; reps++) {
        struct gpu_stream_gold g;
        replay(reps, N, a, b, c, &dot);
        gpu_stream_gold(reps, N, &g);
        CHECK(close_to(g.a, a[N - 1]) && close_to(g.b, b[N - 1]) && close_to(g.c, c[N - 1]));
        CHECK(fabs(g.dot - dot) <= 1e-14 * fabs(dot));
        double mad[3] = {0, 0, 0}, err[4];
        for (int i = 0; i < N; i++)
            mad[0] += fabs(a[i] - g.a) / N, mad[1] += fabs(b[i] - g.b) / N,
                mad[2] += fabs(c[i] - g.c) / N;
        gpu_stream_errors(&g, mad, dot, err);
        CHECK(err[0] <= GPU_STREAM_TOLERANCE && err[1] <= GPU_STREAM_TOLERANCE &&
              err[2] <= GPU_STREAM_TOLERANCE && err[3] <= GPU_STREAM_DOT_TOLERANCE);
    }
    struct gpu_stream_gold g0;
    gpu_stream_gold(0, N, &g0); /* no round: the start values, c = 0 */
    CHECK(g0.a == GPU_STREAM_A0 && g0.b == GPU_STREAM_B0 && g0.c == 0);
    double mad0[3] = {0, 0, 0}, err0[4];
    gpu_stream_errors(&g0, mad0, g0.dot, err0);
    CHECK(err0[0] == 0 && err0[1] == 0 && err0[2] == 0 && err0[3] == 0);
}

static void errors_fail_what_is_off(void)
{
    struct gpu_stream_gold g;
    double err[4];
    gpu_stream_gold(10, 1 << 20, &g);
    double none[3] = {0, 0, 0};
    gpu_stream_errors(&g, none, g.dot, err);
    CHECK(err[0] == 0 && err[1] == 0 && err[2] == 0 && err[3] == 0);
    double off[3] = {1e-10 * fabs(g.a), 0, 0};
    gpu_stream_errors(&g, off, g.dot, err);
    CHECK(err[0] > GPU_STREAM_TOLERANCE && err[1] == 0);
    double off_c[3] = {0, 0, 1e-10 * fabs(g.c)};
    gpu_stream_errors(&g, off_c, g.dot, err);
    CHECK(err[2] > GPU_STREAM_TOLERANCE);
    /* The dot's budget is wider (a sum over many elements): 1e-10 passes, 1e-7 not. */
    gpu_stream_errors(&g, none, g.dot * (1 + 1e-10), err);
    CHECK(err[3] > 0 && err[3] <= GPU_STREAM_DOT_TOLERANCE);
    gpu_stream_errors(&g, none, g.dot * (1 + 1e-7), err);
    CHECK(err[3] > GPU_STREAM_DOT_TOLERANCE);
    double nan3[3] = {NAN, 0, 0};
    gpu_stream_errors(&g, nan3, g.dot, err);
    CHECK(!(err[0] <= GPU_STREAM_TOLERANCE));
}

static void plan_covers_every_update(void)
{
    static const uint64_t streams[] = {1, 3, 7, 540672};
    for (size_t t = 0; t < sizeof streams / sizeof streams[0]; t++) {
        struct gpu_ra_plan p;
        gpu_ra_plan_init(&p, 20, streams[t]);
        CHECK(p.words == 1u << 20 && p.updates == 4u << 20 && p.streams == streams[t]);
        CHECK(gpu_ra_stream_first(&p, 0) == 0);
        CHECK(gpu_ra_stream_first(&p, p.streams) == p.updates);
        uint64_t sum = 0, bad = 0;
        for (uint64_t s = 0; s < p.streams; s++) {
            uint64_t n = gpu_ra_stream_first(&p, s + 1) - gpu_ra_stream_first(&p, s);
            bad += n != p.per_stream + (s < p.extra);
            sum += n;
        }
        CHECK(sum == p.updates && bad == 0);
    }
    struct gpu_ra_plan p;
    gpu_ra_plan_init(&p, 10, 0);
    CHECK(p.streams == 1 && p.per_stream == 4096 && p.extra == 0);
    gpu_ra_plan_init(&p, 10, 1u << 20);
    CHECK(p.streams == p.updates && p.per_stream == 1);
}

static void starts_jumps_ahead(void)
{
    static const uint64_t ns[] = {0, 1, 2, 63, 64, 1000};
    for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
        uint64_t r = 1;
        for (uint64_t i = 0; i < ns[t]; i++)
            r = hpcp_gups_next(r);
        CHECK(gpu_ra_starts(ns[t]) == r);
    }
}

/* What each device thread does: its stream from starts(first), one XOR per update. */
static void apply_streams(uint64_t *table, const struct gpu_ra_plan *p)
{
    for (uint64_t s = 0; s < p->streams; s++) {
        uint64_t r = gpu_ra_starts(gpu_ra_stream_first(p, s));
        uint64_t n = gpu_ra_stream_first(p, s + 1) - gpu_ra_stream_first(p, s);
        for (uint64_t i = 0; i < n; i++) {
            r = hpcp_gups_next(r);
            table[r & (p->words - 1)] ^= r;
        }
    }
}

static void streams_make_hpccs_table(void)
{
    enum { LOG2 = 12, WORDS = 1 << LOG2 };
    static uint64_t hpcc[WORDS], mine[WORDS];
    for (uint64_t i = 0; i < WORDS; i++)
        hpcc[i] = i;
    uint64_t r = gpu_ra_starts(0); /* HPCC's one serial sequence */
    for (uint64_t i = 0; i < 4 * (uint64_t)WORDS; i++) {
        r = hpcp_gups_next(r);
        hpcc[r & (WORDS - 1)] ^= r;
    }
    static const uint64_t streams[] = {1, 3, 7, 1000, 540672};
    for (size_t t = 0; t < sizeof streams / sizeof streams[0]; t++) {
        struct gpu_ra_plan p;
        gpu_ra_plan_init(&p, LOG2, streams[t]);
        for (uint64_t i = 0; i < WORDS; i++)
            mine[i] = i;
        apply_streams(mine, &p);
        CHECK(memcmp(mine, hpcc, sizeof mine) == 0);
        apply_streams(mine, &p); /* the verification's replay */
        uint64_t wrong = 0;
        for (uint64_t i = 0; i < WORDS; i++)
            wrong += mine[i] != i;
        CHECK(wrong == 0);
    }
}

static void sizes_from_memory(void)
{
    char rule[256] = "";
    const uint64_t l2 = 60ull << 20, free_bytes = 140ull << 30;
    uint64_t n = gpu_stream_elements(l2, free_bytes, 0.6, rule, sizeof rule);
    CHECK(n > 0 && (n & (n - 1)) == 0);
    CHECK(8.0 * n >= 4.0 * l2);
    CHECK(3.0 * 8.0 * n <= 0.6 * free_bytes && 3.0 * 16.0 * n > 0.6 * free_bytes);
    CHECK(strlen(rule) > 0);
    CHECK(gpu_stream_elements(l2, 4ull << 20, 0.6, NULL, 0) == 0);
    n = gpu_stream_elements(0, 4ull << 20, 0.6, NULL, 0); /* no L2 known: at least 1 KiB */
    CHECK(n >= 128 && 24.0 * n <= 0.6 * (4 << 20));
    CHECK(gpu_stream_elements(0, 2048, 0.6, NULL, 0) == 0);

    rule[0] = 0;
    CHECK(gpu_ra_log2_words(141000000000ull, 0.5, rule, sizeof rule) == 33);
    CHECK(strlen(rule) > 0);
    CHECK(gpu_ra_log2_words(140ull << 30, 0.5, NULL, 0) == 33);
    CHECK(gpu_ra_log2_words(80ull << 30, 0.9, NULL, 0) == 33);
    CHECK(gpu_ra_log2_words(16384, 0.5, NULL, 0) == 10);
    CHECK(gpu_ra_log2_words(16383, 0.5, NULL, 0) == 0);
    CHECK(gpu_ra_log2_words(1ull << 62, 0.5, NULL, 0) == 40);
}

static void no_device_says_why(void)
{
    char why[256] = "";
    int count = -1;
    int rc = hpcp_device_count(&count, why, sizeof why);
    if (strcmp(hpcp_device_build(), "none") == 0)
        CHECK(rc != 0);
    if (rc) {
        CHECK(count == 0 && strlen(why) > 0);
        CHECK(strchr(why, '\n') == NULL);
    } else {
        CHECK(count >= 1);
    }
    if (strcmp(hpcp_device_build(), "none") == 0) { /* gpu_none.c: every call fails */
        int intact = 1;
        double t[1];
        CHECK(gpu_stream_create(1024) == NULL);
        CHECK(gpu_copy_time(GPU_COPY_H2D, 1, 0, -1, 8, 1, t, &intact, why, sizeof why) != 0);
        CHECK(intact == 0 && strlen(why) > 0);
        CHECK(gpu_peer_access(0, 1) == 0);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    counts_bytes_and_flops();
    gold_matches_a_replay();
    errors_fail_what_is_off();
    plan_covers_every_update();
    starts_jumps_ahead();
    streams_make_hpccs_table();
    sizes_from_memory();
    no_device_says_why();
    MPI_Finalize();
    return check_summary("test_gpu");
}
