/* `peak clock`: every rank measures its own core's clock at once, --repeat
 * times, by a chain of dependent adds; rank 0 adds the TSC's rate where it
 * is invariant, and what its node states of its memory and links. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcprobe/numa.h"
#include "hpcprobe/util.h"
#include "peak.h"

#define CLOCK_RUN_SECONDS 0.1
#define TSC_SECONDS 0.02
#define CLOCK_MIN_HZ 1e8 /* a plausible core clock: outside it, the chain is wrong */
#define CLOCK_MAX_HZ 1e10

struct clock_run {
    const struct hpcp_common *c;
    int ranks, tsc_invariant;
    struct hpcp_cpu_clock_run mine; /* this rank's latest */
    double tsc;                     /* rank 0's latest */
    /* rank 0 */
    double *hz;     /* ranks x repeat */
    double *median; /* per repetition, over ranks */
    double *tsc_rates;
    int reps;
};

static int clock_setup(struct hpcp_bench *b)
{
    struct clock_run *s = b->state;
    size_t reps = (size_t)s->c->repeat;
    if (b->rank == 0) {
        s->hz = calloc((size_t)b->ranks * reps, sizeof(double));
        s->median = calloc(reps, sizeof(double));
        s->tsc_rates = calloc(reps, sizeof(double));
    }
    int bad = b->rank == 0 && (!s->hz || !s->median || !s->tsc_rates);
    return hpcp_any(b->comm, bad) ? HPCP_EXIT_RUNTIME : 0;
}

static int clock_run(struct hpcp_bench *b, double *seconds)
{
    struct clock_run *s = b->state;
    MPI_Barrier(b->comm); /* at once: the clock of a busy node, as the flops see it */
    hpcp_cpu_clock_measure(CLOCK_RUN_SECONDS, &s->mine);
    s->tsc = b->rank == 0 && s->tsc_invariant == 1 ? hpcp_cpu_tsc_rate(TSC_SECONDS) : 0;
    *seconds = s->mine.seconds;
    return 0;
}

static void clock_keep(struct hpcp_bench *b, int rep, int warm, double seconds)
{
    struct clock_run *s = b->state;
    double *all = b->rank == 0 ? malloc((size_t)b->ranks * sizeof *all) : NULL;
    MPI_Gather(&s->mine.hz, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, b->comm);
    if (b->rank != 0 || warm || !all) {
        free(all);
        return;
    }
    for (int r = 0; r < b->ranks; r++)
        s->hz[(size_t)r * (size_t)s->c->repeat + (size_t)rep] = all[r];
    s->median[rep] = hpcp_median(all, b->ranks);
    s->tsc_rates[rep] = s->tsc;
    s->reps = rep + 1;
    free(all);
}

/* The chain counted every add it was asked for. */
static int clock_verify(struct hpcp_bench *b, double *error)
{
    struct clock_run *s = b->state;
    double diff = (double)s->mine.count - (double)s->mine.adds;
    *error = fabs(diff);
    return 0;
}

static void clock_corrupt(struct hpcp_bench *b, uint64_t words)
{
    struct clock_run *s = b->state;
    if (b->rank == 0)
        s->mine.count += words;
}

static void clock_teardown(struct hpcp_bench *b)
{
    struct clock_run *s = b->state;
    free(s->hz), free(s->median), free(s->tsc_rates);
    s->hz = s->median = s->tsc_rates = NULL;
}

static void add_memory(struct hpcp_record *r, const char *root)
{
    struct peak_memory m;
    peak_memory_read(root, &m);
    if (m.devices > 0)
        hpcp_record_param_int(r, "memory_devices", m.devices);
    else
        hpcp_record_param_null(r, "memory_devices");
    if (m.transfer_rate > 0)
        hpcp_record_param_double(r, "memory_transfer_rate", m.transfer_rate);
    else
        hpcp_record_param_null(r, "memory_transfer_rate");
    if (m.data_width_bits > 0)
        hpcp_record_param_int(r, "memory_data_width_bits", m.data_width_bits);
    else
        hpcp_record_param_null(r, "memory_data_width_bits");
    if (m.bandwidth > 0)
        hpcp_record_param_double(r, "memory_bandwidth_theoretical", m.bandwidth);
    else
        hpcp_record_param_null(r, "memory_bandwidth_theoretical");
    hpcp_record_param_string(r, "memory_bandwidth_source", m.source);
}

static void add_links(struct hpcp_record *r, const char *root)
{
    struct peak_link links[PEAK_MAX_LINKS];
    int n = peak_links_read(root, links, PEAK_MAX_LINKS);
    hpcp_record_param_int(r, "links", n);
    for (int i = 0; i < n; i++) {
        char key[48] = "link_rate_";
        hpcp_copy_truncated(key + 10, sizeof key - 10, links[i].name);
        hpcp_record_param_double(r, key, links[i].rate);
    }
}

static void add_parameters(struct hpcp_record *r, const struct clock_run *s)
{
    struct hpcp_cpu_isa isa;
    char text[96];
    hpcp_cpu_isa_get(&isa);
    hpcp_record_param_string(r, "isa", hpcp_cpu_isa_text(&isa, text, sizeof text));
    hpcp_record_param_string(r, "isa_source", isa.source);
    if (s->tsc_invariant < 0)
        hpcp_record_param_null(r, "tsc_invariant");
    else
        hpcp_record_param_bool(r, "tsc_invariant", s->tsc_invariant);
    hpcp_record_param_string(
        r, "clock_source",
        hpcp_cpu_has_add_chain()
            ? "measured: a chain of 64 dependent register adds per pass (1 cycle each), the "
              "fastest of 10 slices of 10 ms, on every rank at once"
            : "unknown: no add chain for this architecture");
    add_memory(r, hpcp_sysfs_root());
    add_links(r, hpcp_sysfs_root());
}

/* Validation: the chains' counts (tolerance 0), then every clock plausible. */
static void validate(struct hpcp_record *r, const struct clock_run *s, int ranks,
                     const struct hpcp_checks *v)
{
    hpcp_record_validation(r,
                           "each rank's add chain counted every add it was asked for; every "
                           "clock within 1e8..1e10 Hz",
                           "adds", v->error, v->n, 0);
    for (int i = 0; i < ranks * s->reps; i++) {
        double hz = s->hz[i];
        if (hz >= CLOCK_MIN_HZ && hz <= CLOCK_MAX_HZ)
            continue;
        r->validation.verdict = HPCP_FAILED;
        hpcp_record_validation_detail(r, "rank %d, repetition %d: clock %.4g Hz, outside 1e8..1e10",
                                      i / s->c->repeat, i % s->c->repeat, hz);
        break;
    }
}

static void clock_record(struct hpcp_record *r, struct hpcp_bench *b, const struct hpcp_checks *v)
{
    struct clock_run *s = b->state;
    if (b->rank != 0)
        return;
    hpcp_record_init(r, "peak", b->kernel->variant, b->kernel->algorithm, b->si);
    add_parameters(r, s);
    if (hpcp_cpu_has_add_chain())
        hpcp_record_metric(r, "clock_rate", "Hz", s->median, s->reps, 1);
    if (s->tsc_invariant == 1)
        hpcp_record_metric(r, "tsc_rate", "Hz", s->tsc_rates, s->reps, 1);
    r->headline_metric = "clock_rate";
    r->headline_statistic = "median";
    long long *per_rank = calloc((size_t)b->ranks, sizeof *per_rank);
    for (int i = 0; per_rank && i < b->ranks; i++)
        per_rank[i] = (long long)hpcp_median(s->hz + (size_t)i * (size_t)s->c->repeat, s->reps);
    if (per_rank)
        hpcp_record_counter_array(r, "rank_clock_rate", per_rank, b->ranks);
    free(per_rank);
    if (!s->c->verify)
        hpcp_record_validation_skipped(r, "--no-verify");
    else if (!hpcp_cpu_has_add_chain())
        hpcp_record_validation_skipped(r, "no add chain for this architecture: clock unknown");
    else
        validate(r, s, b->ranks, v);
}

static void clock_print(const struct hpcp_record *r, struct hpcp_bench *b)
{
    struct clock_run *s = b->state;
    double hz = hpcp_median(s->median, s->reps), tsc = hpcp_median(s->tsc_rates, s->reps);
    printf("peak clock: %d rank(s), %d repetition(s): median clock %.3f GHz", b->ranks, s->reps,
           hz * 1e-9);
    if (s->tsc_invariant == 1)
        printf(", invariant TSC %.3f GHz", tsc * 1e-9);
    printf("\n  validation %s%s%s\n", hpcp_verdict_word(r->validation.verdict),
           r->validation.detail[0] ? ": " : "", r->validation.detail);
    fflush(stdout);
}

static void clock_setup_failed(struct hpcp_bench *b)
{
    hpcp_error(b->comm, "peak clock: out of memory");
}

static const struct hpcp_family_hooks clock_hooks = {.setup_failed = clock_setup_failed,
                                                     .keep = clock_keep,
                                                     .corrupt = clock_corrupt,
                                                     .record = clock_record,
                                                     .print = clock_print};

static int clock_driver(const struct hpcp_kernel *k, const struct hpcp_sysinfo *si, int argc,
                        char **argv)
{
    struct hpcp_optval none[1];
    struct hpcp_common c;
    struct clock_run s;
    memset(&s, 0, sizeof s);
    int rc = peak_parse(&peak_clock_cli, "peak clock", argc, argv, none, &c);
    if (rc)
        return rc;
    s.c = &c, s.ranks = si->ranks;
    s.tsc_invariant = hpcp_cpu_tsc_invariant();
    struct hpcp_bench b = {MPI_COMM_WORLD, si->rank, si->ranks, si, &s, k};
    return hpcp_harness_run(k, &b, &c, &clock_hooks);
}

static const struct hpcp_options_desc clock_options = {&peak_clock_cli, NULL};
static const struct hpcp_metric_desc clock_metrics[] = {
    {"clock_rate", "Hz",
     "the median over ranks of each rank's measured core clock, per repetition"},
    {"tsc_rate", "Hz", "rank 0's TSC ticks per second (only where the TSC is invariant)"},
    {NULL, NULL, NULL}};
static const struct hpcp_records_desc clock_records = {clock_metrics, "clock_rate"};

const struct hpcp_kernel hpcp_peak_clock = {
    "peak",
    "clock",
    "add-chain",
    "each rank's core clock by a dependent add chain; the node's stated memory and "
    "link rates",
    clock_driver,
    clock_setup,
    clock_run,
    clock_verify,
    clock_teardown,
    NULL,
    &clock_options,
    &clock_records};
