/* `hpcprobe-bench gpu ra`: HPCC's RandomAccess on each rank's device table, its 4 x words
 * updates split over generator streams of one device thread each, XORed atomically
 * (atomic) or plainly (plain, whose lost updates HPCC's 1% budget absorbs). Checked by
 * HPCC's replay after the last repetition. docs/kernels/gpu.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_drv.h"
#include "hpcprobe/util.h"

enum { OPT_DEVICE, OPT_LOG2, OPT_FRACTION, OPT_STREAMS, OPT_COUNT };

static const struct hpcp_optspec ra_spec[OPT_COUNT] = {
    [OPT_DEVICE] = {"--device", HPCP_OPT_INT, 0, 1023, 0, 0, 0, NULL, 0,
                    "the device every rank drives (default node-local rank mod devices)", NULL},
    [OPT_LOG2] = {"--table-log2", HPCP_OPT_INT, 10, 40, 0, 0, 0, NULL, 0,
                  "a table of 2^L 64-bit words (default the largest in --memory-fraction)", NULL},
    [OPT_FRACTION] = {"--memory-fraction", HPCP_OPT_DOUBLE, 0, 0, 0.0, 0.9, 1, NULL, 0,
                      "share of free device memory", "0.5"},
    [OPT_STREAMS] = {"--streams", HPCP_OPT_INT, 1, 1LL << 40, 0, 0, 0, NULL, 0,
                     "generator streams, one device thread each (default fills the device)", NULL},
};

static const struct hpcp_cli ra_cli = {
    ra_spec,
    OPT_COUNT,
    HPCP_TAKES(HPCP_COMMON_REPEAT) | HPCP_TAKES(HPCP_COMMON_WARMUP) |
        HPCP_TAKES(HPCP_COMMON_NO_VERIFY) | HPCP_TAKES(HPCP_COMMON_OUT) |
        HPCP_TAKES(HPCP_COMMON_QUIET),
    0,
    1,
    0,
    0,
    NULL};

#define DEFAULT_FRACTION 0.5   /* HPCC: the table takes half of memory */
/* Streams (one device thread each) per multiprocessor: twice the 2048 threads one can
 * hold, so that a multiprocessor whose streams finish early has more to start; 540,672 on
 * a 132-SM H200, the count the reference run used. */
#define THREADS_PER_SM 4096

/* What each kernel is to the driver (hpcp_kernel.family_data). */
struct gra_kind {
    int atomic;
};

struct gra {
    struct hpcp_common run;
    struct gpu_device_use dev;
    int requested, log2, atomic;
    uint64_t streams;      /* --streams, or 0 */
    double fraction;
    char rule[256];
    struct gpu_ra_plan plan;
    struct gpu_ra_table *table;
    double *rates, *warm;  /* this rank's updates/s per repetition */
    uint64_t wrong;        /* the last verification's wrong words */
};

static int parse(struct gra *s, int argc, char **argv)
{
    struct hpcp_optval v[OPT_COUNT];
    int rc = gpu_parse(&ra_cli, "gpu ra", argc, argv, v, &s->run);
    if (rc)
        return rc;
    s->requested = v[OPT_DEVICE].set ? (int)v[OPT_DEVICE].i : -1;
    s->log2 = v[OPT_LOG2].set ? (int)v[OPT_LOG2].i : 0;
    s->fraction = v[OPT_FRACTION].set ? v[OPT_FRACTION].d : DEFAULT_FRACTION;
    s->streams = v[OPT_STREAMS].set ? (uint64_t)v[OPT_STREAMS].i : 0;
    return 0;
}

/* This rank's table: --table-log2 checked against the fraction of its share of the
 * device's free memory, or the sizing rule. 0 with one line in why. */
static int size_here(struct gra *s, char *why, size_t len)
{
    uint64_t free_bytes = s->dev.info.memory_free_bytes / (uint64_t)s->dev.sharers;
    char a[32], b[32];
    int log2 = gpu_ra_log2_words(free_bytes, s->fraction, s->rule, sizeof s->rule);
    if (s->log2) {
        snprintf(s->rule, sizeof s->rule, "--table-log2");
        if (8.0 * ldexp(1.0, s->log2) <= s->fraction * (double)free_bytes)
            return s->log2;
        snprintf(why, len,
                 "gpu ra: --table-log2 %d needs %s, more than %g of the free memory of device "
                 "%d (%s for this rank); allowed: at most %d, or none (sized from "
                 "--memory-fraction)",
                 s->log2, hpcp_format_bytes(8.0 * ldexp(1.0, s->log2), a, sizeof a), s->fraction,
                 s->dev.device, hpcp_format_bytes((double)free_bytes, b, sizeof b), log2);
        return 0;
    }
    if (!log2)
        snprintf(why, len,
                 "gpu ra: device %d has %s free for this rank: not even a 2^10-word table "
                 "fits in %g of it",
                 s->dev.device, hpcp_format_bytes((double)free_bytes, a, sizeof a), s->fraction);
    return log2;
}

/* Collective: one table size and one stream count for every rank (the smallest), so
 * that the record has one plan. 0, or HPCP_EXIT_USAGE after one line. */
static int plan_table(struct gra *s)
{
    char why[512] = "";
    int log2 = size_here(s, why, sizeof why);
    if (gpu_agree(MPI_COMM_WORLD, log2 == 0, why))
        return HPCP_EXIT_USAGE;
    uint64_t streams =
        s->streams ? s->streams : (uint64_t)s->dev.info.multiprocessors * THREADS_PER_SM;
    MPI_Allreduce(&log2, &s->log2, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &streams, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    gpu_ra_plan_init(&s->plan, s->log2, streams); /* clipped to 1..updates */
    return 0;
}

static int ra_setup(struct hpcp_bench *b)
{
    struct gra *s = b->state;
    char why[512] = "", size[32];
    s->table = gpu_ra_create(&s->plan);
    if (!s->table)
        snprintf(why, sizeof why, "gpu ra: cannot set up a table of %s on device %d: %s",
                 hpcp_format_bytes(8.0 * (double)s->plan.words, size, sizeof size), s->dev.device,
                 gpu_last_error());
    return gpu_agree(b->comm, !s->table, why) ? HPCP_EXIT_RUNTIME : 0;
}

/* One repetition: the table back to table[i] = i (untimed: the update times itself
 * with device events), then every update. */
static int ra_run(struct hpcp_bench *b, double *seconds)
{
    struct gra *s = b->state;
    char why[512] = "";
    *seconds = 0;
    int bad = gpu_ra_reset(s->table) || gpu_ra_update(s->table, s->atomic, seconds);
    if (bad)
        snprintf(why, sizeof why, "gpu ra: updating the table on device %d: %s", s->dev.device,
                 gpu_last_error());
    return gpu_agree(b->comm, bad, why) ? HPCP_EXIT_RUNTIME : 0;
}

static int ra_verify(struct hpcp_bench *b, double *error)
{
    struct gra *s = b->state;
    char why[512] = "";
    int bad = gpu_ra_verify(s->table, &s->wrong) != 0;
    if (bad)
        snprintf(why, sizeof why, "gpu ra: checking the table on device %d: %s", s->dev.device,
                 gpu_last_error());
    if (gpu_agree(b->comm, bad, why))
        return HPCP_EXIT_RUNTIME;
    *error = (double)s->wrong / (double)s->plan.words;
    return 0;
}

static void ra_teardown(struct hpcp_bench *b)
{
    struct gra *s = b->state;
    if (s->table)
        gpu_ra_destroy(s->table);
    s->table = NULL;
}

static void keep(struct hpcp_bench *b, int rep, int warm, double seconds)
{
    struct gra *s = b->state;
    (warm ? s->warm : s->rates)[rep] = (double)s->plan.updates / seconds;
}

static void start_together(struct hpcp_bench *b)
{
    MPI_Barrier(b->comm); /* the ranks' rates add up only when they run at once */
}

/* Test hook (corrupt:N): N wrong words in rank 0's table. */
static void corrupt(struct hpcp_bench *b, uint64_t words)
{
    struct gra *s = b->state;
    if (b->rank == 0)
        gpu_ra_spoil(s->table, words < s->plan.words ? words : s->plan.words);
}

static void plan_line(struct hpcp_bench *b)
{
    struct gra *s = b->state;
    char dev[192], size[32];
    if (b->rank != 0 || s->run.quiet)
        return;
    printf("gpu ra %s: %d rank(s) on %d device(s), rank 0 on %s; table of 2^%d words (%s), "
           "%llu updates in %llu streams, %d repetition(s)\n",
           b->kernel->algorithm, b->ranks, s->dev.devices,
           gpu_device_text(&s->dev, dev, sizeof dev), s->log2,
           hpcp_format_bytes(8.0 * (double)s->plan.words, size, sizeof size),
           (unsigned long long)s->plan.updates, (unsigned long long)s->plan.streams, s->run.repeat);
    fflush(stdout);
}

static void add_parameters(struct hpcp_record *r, const struct gra *s, int ranks)
{
    const struct gpu_ra_plan *p = &s->plan;
    hpcp_record_param_int(r, "table_log2", s->log2);
    hpcp_record_param_int(r, "table_words", (long long)p->words);
    hpcp_record_param_int(r, "table_bytes", (long long)(8 * p->words));
    hpcp_record_param_int(r, "updates", (long long)p->updates);
    hpcp_record_param_int(r, "streams", (long long)p->streams);
    hpcp_record_param_int(r, "updates_per_stream", (long long)p->per_stream);
    hpcp_record_param_int(r, "streams_with_one_more", (long long)p->extra);
    hpcp_record_param_int(r, "lookahead_per_stream", 1);
    hpcp_record_param_string(r, "size_rule", s->rule);
    hpcp_record_param_double(r, "memory_fraction", s->fraction);
    gpu_record_device(r, &s->dev, ranks);
}

static void build_record(struct hpcp_record *r, struct hpcp_bench *b, const double *rates,
                         uint64_t wrong, const struct hpcp_checks *v)
{
    struct gra *s = b->state;
    hpcp_record_init(r, "gpu", "ra", b->kernel->algorithm, b->si);
    add_parameters(r, s, b->ranks);
    if (rates) {
        struct hpcp_metric *m =
            hpcp_record_metric(r, "update_rate", "updates/s", rates, s->run.repeat, 1);
        if (m && s->run.warmup)
            hpcp_record_metric_warmup(m, rates + s->run.repeat, s->run.warmup);
    }
    r->headline_metric = "update_rate";
    if (!s->run.verify) {
        hpcp_record_validation_skipped(r, "--no-verify");
        return;
    }
    double error = v->n ? v->error[0] : NAN;
    hpcp_record_counter_int(r, "wrong_words", (long long)wrong);
    hpcp_record_validation(r,
                           "HPCC's check: the same updates again with atomic XOR, then the "
                           "words that are not their index over the table's words, worst rank",
                           "1", &error, 1, GPU_RA_ERROR_FRACTION);
}

/* Collective: the ranks' rates summed per repetition (timed, then warm-ups), and
 * their wrong words; rank 0 builds the record. */
static void record(struct hpcp_record *r, struct hpcp_bench *b, const struct hpcp_checks *v)
{
    struct gra *s = b->state;
    int n = s->run.repeat + s->run.warmup;
    double *sum = b->rank == 0 ? malloc((size_t)n * sizeof *sum) : NULL;
    uint64_t wrong = 0;
    int bad = hpcp_any(b->comm, b->rank == 0 && !sum);
    if (!bad)
        MPI_Reduce(s->rates, sum, n, MPI_DOUBLE, MPI_SUM, 0, b->comm);
    MPI_Reduce(&s->wrong, &wrong, 1, MPI_UINT64_T, MPI_SUM, 0, b->comm);
    if (b->rank == 0)
        build_record(r, b, bad ? NULL : sum, wrong, v);
    free(sum);
}

static void print_summary(const struct hpcp_record *r, struct hpcp_bench *b)
{
    const struct gra *s = b->state;
    double best = 0;
    for (int i = 0; r->nmetrics && i < r->metrics[0].nsamples; i++)
        best = fmax(best, r->metrics[0].samples[i]);
    printf("gpu ra %s: 2^%d words, %llu streams: %.4f GUP/s (best of %d, summed over %d "
           "rank(s)), validation %s",
           b->kernel->algorithm, s->log2, (unsigned long long)s->plan.streams, best * 1e-9,
           s->run.repeat, b->ranks, hpcp_verdict_word(r->validation.verdict));
    if (s->run.verify)
        printf(" (%g of the words wrong, tolerance %g)", r->validation.error,
               GPU_RA_ERROR_FRACTION);
    printf("\n");
    fflush(stdout);
}

static const struct hpcp_family_hooks ra_hooks = {
    .plan = plan_line,
    .before_run = start_together,
    .keep = keep,
    .corrupt = corrupt,
    .record = record,
    .print = print_summary,
};

static int ra_driver(const struct hpcp_kernel *k, const struct hpcp_sysinfo *si, int argc,
                     char **argv)
{
    struct gra s;
    memset(&s, 0, sizeof s);
    s.atomic = ((const struct gra_kind *)k->family_data)->atomic;
    int rc = parse(&s, argc, argv);
    if (rc || (rc = gpu_device_prepare(si, "gpu ra", s.requested, &s.dev)) || (rc = plan_table(&s)))
        return rc;
    struct hpcp_bench b = {MPI_COMM_WORLD, si->rank, si->ranks, si, &s, k};
    s.rates = calloc((size_t)s.run.repeat + (size_t)s.run.warmup, sizeof *s.rates);
    s.warm = s.rates ? s.rates + s.run.repeat : NULL;
    if (gpu_agree(b.comm, !s.rates, "gpu ra: out of memory for the timings"))
        rc = HPCP_EXIT_RUNTIME;
    else
        rc = hpcp_harness_run(k, &b, &s.run, &ra_hooks);
    free(s.rates);
    return rc;
}

static const struct gra_kind atomic_kind = {1}, plain_kind = {0};

static const struct hpcp_options_desc ra_options = {&ra_cli, NULL};
static const struct hpcp_metric_desc ra_metrics[] = {
    {"update_rate", "updates/s", "table updates per second, per repetition"}, {NULL, NULL, NULL}};
static const struct hpcp_records_desc ra_records = {ra_metrics, "update_rate"};

const struct hpcp_kernel hpcp_gpu_ra_atomic = {
    "gpu",       "ra",
    "atomic",    "HPCC RandomAccess on each rank's device table: one thread per stream, atomic XOR",
    ra_driver,   ra_setup,
    ra_run,      ra_verify,
    ra_teardown, &atomic_kind,
    &ra_options, &ra_records};

const struct hpcp_kernel hpcp_gpu_ra_plain = {
    "gpu",       "ra",
    "plain",     "HPCC RandomAccess on each rank's device table: plain XOR, races within HPCC's 1%",
    ra_driver,   ra_setup,
    ra_run,      ra_verify,
    ra_teardown, &plain_kind,
    &ra_options, &ra_records};
