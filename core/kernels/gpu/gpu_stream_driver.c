/* `hpcprobe-bench gpu stream`: BabelStream's five kernels (copy, mul, add, triad, dot) on
 * each rank's device, each timed with device events, checked once after the last round
 * against BabelStream's gold replay. docs/kernels/gpu.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_drv.h"
#include "hpcprobe/util.h"

enum { OPT_DEVICE, OPT_ARRAY_BYTES, OPT_FRACTION, OPT_COUNT };

static const struct hpcp_optspec stream_spec[OPT_COUNT] = {
    [OPT_DEVICE] = {"--device", HPCP_OPT_INT, 0, 1023, 0, 0, 0, NULL, 0,
                    "the device every rank drives (default node-local rank mod devices)", NULL},
    [OPT_ARRAY_BYTES] = {"--array-bytes", HPCP_OPT_BYTES, 1024, 1LL << 50, 0, 0, 0, NULL, 0,
                         "bytes per array, at least 1024 (default >= 4x the L2, three arrays in "
                         "--memory-fraction of free device memory)",
                         NULL},
    [OPT_FRACTION] = {"--memory-fraction", HPCP_OPT_DOUBLE, 0, 0, 0.0, 0.9, 1, NULL, 0,
                      "share of free device memory", "0.6"},
};

/* --repeat >= 2 as for the host's STREAM; BabelStream's best needs more than one. */
static const struct hpcp_cli stream_cli = {
    stream_spec,
    OPT_COUNT,
    HPCP_TAKES(HPCP_COMMON_REPEAT) | HPCP_TAKES(HPCP_COMMON_WARMUP) |
        HPCP_TAKES(HPCP_COMMON_NO_VERIFY) | HPCP_TAKES(HPCP_COMMON_OUT) |
        HPCP_TAKES(HPCP_COMMON_QUIET),
    2,
    10,
    0,
    0,
    NULL};

#define DEFAULT_FRACTION 0.6

struct gstream {
    struct hpcp_common run;
    struct gpu_device_use dev;
    double fraction;
    int requested;         /* --device, or -1 */
    uint64_t option_bytes; /* --array-bytes, 0 when sized by the rule */
    uint64_t n;
    char rule[256];
    struct gpu_stream_arrays *arrays;
    double last[GPU_STREAM_OPS], dot;
    double *times, *warm; /* [op][repetition], this rank's seconds */
    int rounds;           /* rounds run, warm-ups included: the gold replay's */
    double err[4];        /* the last verification's relative errors */
};

static int parse(struct gstream *s, int argc, char **argv)
{
    struct hpcp_optval v[OPT_COUNT];
    int rc = gpu_parse(&stream_cli, "gpu stream", argc, argv, v, &s->run);
    if (rc)
        return rc;
    s->fraction = v[OPT_FRACTION].set ? v[OPT_FRACTION].d : DEFAULT_FRACTION;
    s->option_bytes = v[OPT_ARRAY_BYTES].set ? (uint64_t)v[OPT_ARRAY_BYTES].i : 0;
    s->requested = v[OPT_DEVICE].set ? (int)v[OPT_DEVICE].i : -1;
    return 0;
}

/* This rank's array length: --array-bytes checked against the fraction of its share
 * of the device's free memory, or the sizing rule. 0 with one line in why. */
static uint64_t size_here(struct gstream *s, char *why, size_t len)
{
    const struct hpcp_device_info *d = &s->dev.info;
    uint64_t free_bytes = d->memory_free_bytes / (uint64_t)s->dev.sharers;
    char a[32], b[32], c[32];
    if (!s->option_bytes) {
        uint64_t n =
            gpu_stream_elements(d->l2_bytes, free_bytes, s->fraction, s->rule, sizeof s->rule);
        if (!n)
            snprintf(why, len,
                     "gpu stream: device %d has %s free for this rank: three arrays of at "
                     "least 4 x its L2 (%s) do not fit in %g of it",
                     s->dev.device, hpcp_format_bytes((double)free_bytes, a, sizeof a),
                     hpcp_format_bytes((double)d->l2_bytes, b, sizeof b), s->fraction);
        return n;
    }
    snprintf(s->rule, sizeof s->rule, "--array-bytes");
    if (3.0 * (double)s->option_bytes <= s->fraction * (double)free_bytes)
        return s->option_bytes / 8;
    snprintf(why, len,
             "gpu stream: --array-bytes %s: three arrays need more than %g of the free memory "
             "of device %d (%s for this rank); allowed: at most %s per array, or none (sized "
             "from --memory-fraction)",
             hpcp_format_bytes((double)s->option_bytes, a, sizeof a), s->fraction, s->dev.device,
             hpcp_format_bytes((double)free_bytes, b, sizeof b),
             hpcp_format_bytes(s->fraction * (double)free_bytes / 3.0, c, sizeof c));
    return 0;
}

/* Collective: every rank's arrays as long as the shortest rank's, so that the record
 * has one size. 0, or HPCP_EXIT_USAGE after one line. */
static int size_arrays(struct gstream *s)
{
    char why[512] = "";
    uint64_t n = size_here(s, why, sizeof why);
    if (gpu_agree(MPI_COMM_WORLD, n == 0, why))
        return HPCP_EXIT_USAGE;
    MPI_Allreduce(&n, &s->n, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    return 0;
}

static int stream_setup(struct hpcp_bench *b)
{
    struct gstream *s = b->state;
    char why[512] = "";
    s->arrays = gpu_stream_create(s->n);
    int bad = !s->arrays || gpu_stream_init(s->arrays);
    if (bad) {
        char size[32];
        snprintf(why, sizeof why, "gpu stream: cannot set up three arrays of %s on device %d: %s",
                 hpcp_format_bytes(8.0 * (double)s->n, size, sizeof size), s->dev.device,
                 gpu_last_error());
    }
    return gpu_agree(b->comm, bad, why) ? HPCP_EXIT_RUNTIME : 0;
}

/* One round of the five ops, each timed by the device; a round's seconds are their sum. */
static int stream_run(struct hpcp_bench *b, double *seconds)
{
    struct gstream *s = b->state;
    char why[512] = "";
    int bad = 0;
    *seconds = 0;
    for (int op = 0; op < GPU_STREAM_OPS && !bad; op++) {
        double unused = 0, *dot = op == GPU_DOT ? &s->dot : &unused;
        bad = gpu_stream_run(s->arrays, (enum gpu_stream_op)op, &s->last[op], dot) != 0;
        if (bad)
            snprintf(why, sizeof why, "gpu stream: %s on device %d: %s",
                     gpu_stream_op_name((enum gpu_stream_op)op), s->dev.device, gpu_last_error());
        *seconds += s->last[op];
    }
    s->rounds++;
    return gpu_agree(b->comm, bad, why) ? HPCP_EXIT_RUNTIME : 0;
}

/* A NaN wins, so that a NaN anywhere fails the check. */
static double worst(double a, double b)
{
    return isnan(a) || isnan(b) ? NAN : fmax(a, b);
}

static int stream_verify(struct hpcp_bench *b, double *error)
{
    struct gstream *s = b->state;
    struct gpu_stream_gold g;
    double mad[3] = {0, 0, 0};
    char why[512] = "";
    gpu_stream_gold(s->rounds, s->n, &g);
    int bad = gpu_stream_deviation(s->arrays, &g, mad) != 0;
    if (bad)
        snprintf(why, sizeof why, "gpu stream: checking the arrays on device %d: %s", s->dev.device,
                 gpu_last_error());
    if (gpu_agree(b->comm, bad, why))
        return HPCP_EXIT_RUNTIME;
    gpu_stream_errors(&g, mad, s->dot, s->err);
    *error = worst(worst(s->err[0], s->err[1]), s->err[2]) / GPU_STREAM_TOLERANCE;
    *error = worst(*error, s->err[3] / GPU_STREAM_DOT_TOLERANCE);
    return 0;
}

static void stream_teardown(struct hpcp_bench *b)
{
    struct gstream *s = b->state;
    if (s->arrays)
        gpu_stream_destroy(s->arrays);
    s->arrays = NULL;
}

static void keep(struct hpcp_bench *b, int rep, int warm, double seconds)
{
    struct gstream *s = b->state;
    int reps = warm ? s->run.warmup : s->run.repeat;
    for (int op = 0; op < GPU_STREAM_OPS; op++)
        (warm ? s->warm : s->times)[op * reps + rep] = s->last[op];
}

static void start_together(struct hpcp_bench *b)
{
    MPI_Barrier(b->comm); /* the ranks' rates add up only when they run at once */
}

/* Test hook (corrupt:N): one wrong element on rank 0's device. */
static void corrupt(struct hpcp_bench *b, uint64_t words)
{
    struct gstream *s = b->state;
    if (b->rank == 0)
        gpu_stream_spoil(s->arrays);
}

static void plan(struct hpcp_bench *b)
{
    struct gstream *s = b->state;
    char dev[192], size[32];
    if (b->rank != 0 || s->run.quiet)
        return;
    printf("gpu stream: %d rank(s) on %d device(s), rank 0 on %s; arrays of %s (%llu doubles), "
           "%d repetition(s) after %d warm-up(s)\n",
           b->ranks, s->dev.devices, gpu_device_text(&s->dev, dev, sizeof dev),
           hpcp_format_bytes(8.0 * (double)s->n, size, sizeof size), (unsigned long long)s->n,
           s->run.repeat, s->run.warmup);
    fflush(stdout);
}

/* Collective: per op and repetition, the ranks' rates summed (each rank's bytes over
 * its own time), laid out as times and warm (timed, then warm-ups). NULL off rank 0. */
static double *summed_rates(struct hpcp_bench *b)
{
    struct gstream *s = b->state;
    int reps = s->run.repeat, warm = s->run.warmup;
    size_t n = GPU_STREAM_OPS * ((size_t)reps + (size_t)warm);
    double *mine = malloc(n * sizeof *mine), *sum = b->rank == 0 ? malloc(n * sizeof *sum) : NULL;
    if (hpcp_any(b->comm, !mine || (b->rank == 0 && !sum))) {
        free(mine), free(sum);
        return NULL;
    }
    for (int op = 0; op < GPU_STREAM_OPS; op++) {
        double bytes = gpu_stream_bytes((enum gpu_stream_op)op, s->n);
        for (int i = 0; i < reps; i++)
            mine[op * reps + i] = bytes / s->times[op * reps + i];
        for (int i = 0; i < warm; i++)
            mine[GPU_STREAM_OPS * reps + op * warm + i] = bytes / s->warm[op * warm + i];
    }
    MPI_Reduce(mine, sum, (int)n, MPI_DOUBLE, MPI_SUM, 0, b->comm);
    free(mine);
    return sum;
}

static void add_validation(struct hpcp_record *r, const struct gstream *s,
                           const struct hpcp_checks *v)
{
    if (!s->run.verify) {
        hpcp_record_validation_skipped(r, "--no-verify");
        return;
    }
    double error = v->n ? v->error[0] : NAN;
    hpcp_record_validation(r,
                           "BabelStream's check: a, b, c (mean absolute deviation) and the last "
                           "dot against the gold replay of every round; error = max(array "
                           "error / 100 eps, dot error / 1e-8), worst rank",
                           "1", &error, 1, 1.0);
    hpcp_record_validation_detail(r, "rank 0's relative errors: a %.3g, b %.3g, c %.3g, dot %.3g",
                                  s->err[0], s->err[1], s->err[2], s->err[3]);
}

static void build_record(struct hpcp_record *r, struct hpcp_bench *b, const double *rates,
                         const struct hpcp_checks *v)
{
    struct gstream *s = b->state;
    int reps = s->run.repeat, warm = s->run.warmup;
    hpcp_record_init(r, "gpu", "stream", b->kernel->algorithm, b->si);
    gpu_record_device(r, &s->dev, b->ranks);
    hpcp_record_param_int(r, "array_elements", (long long)s->n);
    hpcp_record_param_int(r, "array_bytes", (long long)(8 * s->n));
    hpcp_record_param_string(r, "size_rule", s->rule);
    hpcp_record_param_double(r, "memory_fraction", s->fraction);
    hpcp_record_param_double(r, "scalar", GPU_STREAM_SCALAR);
    for (int op = 0; rates && op < GPU_STREAM_OPS; op++) {
        char name[64];
        snprintf(name, sizeof name, "%s_bandwidth", gpu_stream_op_name((enum gpu_stream_op)op));
        struct hpcp_metric *m = hpcp_record_metric(r, name, "B/s", rates + op * reps, reps, 1);
        if (m && warm)
            hpcp_record_metric_warmup(m, rates + GPU_STREAM_OPS * reps + op * warm, warm);
    }
    /* BabelStream reports each op's best repetition. */
    r->headline_metric = "triad_bandwidth";
    r->headline_statistic = "max";
    if (8.0 * (double)s->n < 4.0 * (double)s->dev.info.l2_bytes)
        hpcp_record_note(r, "the arrays are smaller than 4 x the L2 cache: part of the data may "
                            "be served from the cache, not device memory");
    add_validation(r, s, v);
}

static void record(struct hpcp_record *r, struct hpcp_bench *b, const struct hpcp_checks *v)
{
    double *rates = summed_rates(b);
    if (b->rank == 0)
        build_record(r, b, rates, v);
    free(rates);
}

static void print_summary(const struct hpcp_record *r, struct hpcp_bench *b)
{
    const struct gstream *s = b->state;
    char size[32];
    printf("gpu stream: %d device(s), arrays of %s; GB/s summed over %d rank(s)\n", s->dev.devices,
           hpcp_format_bytes(8.0 * (double)s->n, size, sizeof size), b->ranks);
    printf("%-8s %12s %12s\n", "Function", "best", "median");
    for (int i = 0; i < r->nmetrics; i++) {
        const struct hpcp_metric *m = &r->metrics[i];
        double best = 0;
        for (int k = 0; k < m->nsamples; k++)
            best = fmax(best, m->samples[k]);
        printf("%-8.*s %12.2f %12.2f\n", (int)(strlen(m->name) - strlen("_bandwidth")), m->name,
               best * 1e-9, hpcp_median(m->samples, m->nsamples) * 1e-9);
    }
    printf("gpu stream: validation %s", hpcp_verdict_word(r->validation.verdict));
    if (s->run.verify)
        printf(" (error %.3g, tolerance 1)", r->validation.error);
    printf("\n");
    fflush(stdout);
}

static const struct hpcp_family_hooks stream_hooks = {
    .plan = plan,
    .before_run = start_together,
    .keep = keep,
    .corrupt = corrupt,
    .record = record,
    .print = print_summary,
};

static int stream_driver(const struct hpcp_kernel *k, const struct hpcp_sysinfo *si, int argc,
                         char **argv)
{
    struct gstream s;
    memset(&s, 0, sizeof s);
    int rc = parse(&s, argc, argv);
    if (rc || (rc = gpu_device_prepare(si, "gpu stream", s.requested, &s.dev)) ||
        (rc = size_arrays(&s)))
        return rc;
    struct hpcp_bench b = {MPI_COMM_WORLD, si->rank, si->ranks, si, &s, k};
    size_t per_op = (size_t)s.run.repeat + (size_t)s.run.warmup;
    s.times = calloc(GPU_STREAM_OPS * per_op, sizeof *s.times);
    s.warm = s.times + GPU_STREAM_OPS * (size_t)s.run.repeat;
    if (gpu_agree(b.comm, !s.times, "gpu stream: out of memory for the timings"))
        rc = HPCP_EXIT_RUNTIME;
    else
        rc = hpcp_harness_run(k, &b, &s.run, &stream_hooks);
    free(s.times);
    return rc;
}

static const struct hpcp_options_desc stream_options = {&stream_cli, NULL};
static const struct hpcp_metric_desc stream_metrics[] = {
    {"<op>_bandwidth", "B/s", "copy, mul, add, triad, dot: bytes per second per repetition"},
    {NULL, NULL, NULL}};
static const struct hpcp_records_desc stream_records = {stream_metrics, "triad_bandwidth"};

const struct hpcp_kernel hpcp_gpu_stream = {
    "gpu",
    "stream",
    "cuda",
    "BabelStream's copy, mul, add, triad and dot on each rank's device (CUDA); best rates",
    stream_driver,
    stream_setup,
    stream_run,
    stream_verify,
    stream_teardown,
    NULL,
    &stream_options,
    &stream_records};
