/* `peak flops single|star`'s driver: options, the ISA, the record and the
 * summary (docs/kernels/peak.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcprobe/util.h"
#include "peak_flops.h"

#define CLOCK_SOURCE                                                                \
    "measured: a chain of 64 dependent register adds per pass (1 cycle each), the " \
    "fastest of 10 slices of 2 ms, on each rank just before each repetition"

/* What the record says beyond the samples, from rank 0's gathered figures. */
struct flops_facts {
    double clock0, peak, peak_node;
    int fpi, units;
    double *rank_clock; /* fastest per rank */
};

static double largest(const double *v, int n)
{
    double m = 0;
    for (int i = 0; i < n; i++)
        m = v[i] > m ? v[i] : m;
    return m;
}

/* fma_units from each rank's best rate at its fastest clock: a process that
 * took the core during a clock slice only lowers the clock, and a lowered
 * clock would round the units up. The peaks use the fastest clocks too: the
 * clock measured before the first repetition can be a core still climbing
 * from idle (2.62 GHz, then 3.69 under the FMA chains, on this VM), and a
 * theoretical peak must not sit under what the chains then reach. */
static void facts(const struct flops_run *s, const struct hpcp_sysinfo *si, struct flops_facts *x)
{
    memset(x, 0, sizeof *x);
    x->fpi = peak_flops_per_instruction(s->f.isa, s->f.precision);
    x->clock0 = largest(s->clock, s->reps);
    x->rank_clock = calloc((size_t)s->ranks, sizeof(double));
    int known = x->rank_clock && x->clock0 > 0;
    for (int r = 0; known && r < s->active_ranks; r++) {
        const double *clocks = s->rank_clocks + (size_t)r * (size_t)s->c->repeat;
        x->rank_clock[r] = largest(clocks, s->reps);
        int units = peak_fma_units(s->rank_best[r], largest(clocks, s->reps), x->fpi);
        known = x->rank_clock[r] > 0;
        x->units = units > x->units ? units : x->units;
    }
    if (!known || x->units == 0) {
        x->units = 0;
        return;
    }
    for (int r = 0; r < s->active_ranks; r++)
        x->peak += x->rank_clock[r] * x->fpi * x->units;
    x->peak_node = si->cores_per_node * x->clock0 * x->fpi * x->units;
}

static void param_or_null(struct hpcp_record *r, const char *key, int known, double v)
{
    if (known)
        hpcp_record_param_double(r, key, v);
    else
        hpcp_record_param_null(r, key);
}

static void add_parameters(struct hpcp_record *r, const struct flops_run *s,
                           const struct flops_facts *x, const struct hpcp_sysinfo *si)
{
    char isa[96];
    int known = x->units > 0;
    hpcp_record_param_string(r, "precision", peak_precision_name(s->f.precision));
    hpcp_record_param_string(r, "isa", hpcp_cpu_isa_text(&s->cpu, isa, sizeof isa));
    hpcp_record_param_int(r, "vector_bits", peak_vector_bits(s->f.isa, s->f.precision));
    hpcp_record_param_int(r, "lanes", s->f.lanes);
    hpcp_record_param_int(r, "chains", s->f.chains);
    hpcp_record_param_int(r, "chain_steps", (long long)(s->f.loops * PEAK_ROUNDS));
    hpcp_record_param_double(r, "min_time", s->min_time);
    hpcp_record_param_int(r, "flops_per_instruction", x->fpi);
    param_or_null(r, "clock_hz", x->clock0 > 0, x->clock0);
    hpcp_record_param_string(r, "clock_source",
                             x->clock0 > 0 ? CLOCK_SOURCE
                                           : "unknown: no add chain for this architecture");
    if (known) {
        hpcp_record_param_int(r, "fma_units", x->units);
        hpcp_record_param_int(r, "flops_per_cycle", (long long)x->fpi * x->units);
    } else {
        hpcp_record_param_null(r, "fma_units");
        hpcp_record_param_null(r, "flops_per_cycle");
    }
    hpcp_record_param_string(r, "fma_units_source", "measured throughput");
    param_or_null(r, "peak_theoretical", known, x->peak);
    hpcp_record_param_int(r, "cores_per_node", si->cores_per_node);
    param_or_null(r, "peak_theoretical_node", known && si->cores_per_node > 0, x->peak_node);
}

static void add_counters(struct hpcp_record *r, const struct flops_run *s,
                         const struct flops_facts *x)
{
    long long *v = calloc((size_t)s->active_ranks, sizeof *v);
    for (int i = 0; v && i < s->active_ranks; i++)
        v[i] = (long long)s->rank_best[i];
    if (v)
        hpcp_record_counter_array(r, "rank_flop_rate", v, s->active_ranks);
    for (int i = 0; v && x->rank_clock && i < s->active_ranks; i++)
        v[i] = (long long)x->rank_clock[i];
    if (v && x->rank_clock)
        hpcp_record_counter_array(r, "rank_clock_rate", v, s->active_ranks);
    free(v);
}

static void add_metrics(struct hpcp_record *r, const struct flops_run *s)
{
    struct hpcp_metric *m = hpcp_record_metric(r, "flop_rate", "flop/s", s->rate, s->reps, 1);
    hpcp_record_metric_warmup(m, s->wrate, s->warms);
    m = hpcp_record_metric(r, "flop_rate_per_rank", "flop/s", s->per_rank, s->reps, 1);
    hpcp_record_metric_warmup(m, s->wper_rank, s->warms);
    if (hpcp_median(s->clock, s->reps) > 0) {
        m = hpcp_record_metric(r, "clock_rate", "Hz", s->clock, s->reps, 1);
        hpcp_record_metric_warmup(m, s->wclock, s->warms);
    }
}

static void flops_record(struct hpcp_record *r, struct hpcp_bench *b, const struct hpcp_checks *v)
{
    struct flops_run *s = b->state;
    if (b->rank != 0)
        return;
    struct flops_facts x;
    facts(s, b->si, &x);
    hpcp_record_init(r, "peak", b->kernel->variant, peak_isa_name(s->f.isa), b->si);
    add_parameters(r, s, &x, b->si);
    add_metrics(r, s);
    add_counters(r, s, &x);
    r->headline_metric = "flop_rate";
    r->headline_statistic = "max";
    if (x.clock0 <= 0)
        hpcp_record_note(r, "the clock is unknown here: no theoretical peak");
    if (s->c->verify)
        hpcp_record_validation(r,
                               "each chain's final lanes against a scalar replay of the same "
                               "steps (fma/fmaf, or a rounded mul then add); lanes that differ",
                               "lanes", v->error, v->n, 0);
    else
        hpcp_record_validation_skipped(r, "--no-verify");
    free(x.rank_clock);
}

static void flops_print(const struct hpcp_record *r, struct hpcp_bench *b)
{
    struct flops_run *s = b->state;
    double best = 0;
    for (int i = 0; i < s->reps; i++)
        best = s->rate[i] > best ? s->rate[i] : best;
    double clock = largest(s->clock, s->reps);
    printf("peak %s: %s %s, %d chain(s) x %d lane(s), %d rank(s), %d repetition(s)\n",
           b->kernel->variant, peak_isa_name(s->f.isa), peak_precision_name(s->f.precision),
           s->f.chains, s->f.lanes, s->active_ranks, s->reps);
    printf("  best %.2f GFLOP/s; rank 0: clock %.3f GHz, %.2f flop/cycle\n", best * 1e-9,
           clock * 1e-9, clock > 0 ? s->rank_best[0] / clock : 0);
    if (s->c->verify)
        printf("  validation %s (%g lane(s) differ, tolerance 0)\n",
               hpcp_verdict_word(r->validation.verdict), r->validation.error);
    fflush(stdout);
}

static void flops_setup_failed(struct hpcp_bench *b)
{
    hpcp_error(b->comm, "peak flops: out of memory");
}

static const struct hpcp_family_hooks flops_hooks = {.setup_failed = flops_setup_failed,
                                                     .keep = flops_keep,
                                                     .corrupt = flops_corrupt,
                                                     .poison = flops_poison,
                                                     .record = flops_record,
                                                     .print = flops_print};

/* The ISA asked for (or the widest), refused with one line when the CPU or
 * this build lacks it. */
static int choose_isa(struct flops_run *s, const struct hpcp_optval *v, char *why, size_t len)
{
    hpcp_cpu_isa_get(&s->cpu);
    const char *asked = v[PEAK_OPT_ISA].set ? v[PEAK_OPT_ISA].s : "auto";
    if (strcmp(asked, "auto") == 0) {
        s->f.isa = peak_isa_widest(&s->cpu);
        return 0;
    }
    for (int i = 0; i < PEAK_ISAS; i++)
        if (strcmp(asked, peak_isa_name((enum peak_isa)i)) == 0)
            s->f.isa = (enum peak_isa)i;
    if (peak_isa_usable(s->f.isa, &s->cpu))
        return 0;
    char have[96] = "scalar";
    for (int i = PEAK_ISAS - 2; i >= 0; i--)
        if (peak_isa_usable((enum peak_isa)i, &s->cpu))
            snprintf(have + strlen(have), sizeof have - strlen(have), ", %s",
                     peak_isa_name((enum peak_isa)i));
    snprintf(
        why, len,
        "peak flops: --isa %s is not allowed: this CPU (or build) lacks it (allowed: auto, %s)",
        asked, have);
    return -1;
}

static int prepare(struct flops_run *s, const struct hpcp_kernel *k, const struct hpcp_optval *v,
                   const struct hpcp_sysinfo *si)
{
    char why[256] = "";
    int bad = choose_isa(s, v, why, sizeof why);
    /* ranks on different CPUs may disagree: the first that refuses says why */
    int first = bad ? si->rank : si->ranks, worst;
    MPI_Allreduce(&first, &worst, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (worst < si->ranks) {
        MPI_Bcast(why, (int)sizeof why, MPI_CHAR, worst, MPI_COMM_WORLD);
        hpcp_error(MPI_COMM_WORLD, "%s", why);
        return HPCP_EXIT_USAGE;
    }
    /* auto on unlike CPUs: the widest every rank has, so each rank counts the same flops */
    int isa = (int)s->f.isa, narrowest;
    MPI_Allreduce(&isa, &narrowest, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    s->f.isa = (enum peak_isa)narrowest;
    s->f.precision = v[PEAK_OPT_PRECISION].set && strcmp(v[PEAK_OPT_PRECISION].s, "single") == 0
                         ? PEAK_SINGLE
                         : PEAK_DOUBLE;
    s->f.chains =
        v[PEAK_OPT_CHAINS].set ? (int)v[PEAK_OPT_CHAINS].i : peak_default_chains(s->f.isa);
    s->f.lanes = peak_lanes(s->f.isa, s->f.precision);
    s->f.loop = peak_loop(s->f.isa, s->f.precision, s->f.chains);
    s->min_time = v[PEAK_OPT_MIN_TIME].set ? v[PEAK_OPT_MIN_TIME].d : 0.2;
    int star = strcmp(k->variant, "flops-star") == 0;
    s->ranks = si->ranks, s->active_ranks = star ? si->ranks : 1;
    s->f.active = si->rank < s->active_ranks;
    return 0;
}

int peak_flops_driver(const struct hpcp_kernel *k, const struct hpcp_sysinfo *si, int argc,
                      char **argv)
{
    struct hpcp_optval v[PEAK_FLOPS_OPTIONS];
    struct hpcp_common c;
    struct flops_run s;
    memset(&s, 0, sizeof s);
    char context[32];
    snprintf(context, sizeof context, "peak flops %s", k->variant);
    int rc = peak_parse(&peak_flops_cli, context, argc, argv, v, &c);
    if (!rc)
        rc = prepare(&s, k, v, si);
    if (rc)
        return rc;
    s.c = &c;
    struct hpcp_bench b = {MPI_COMM_WORLD, si->rank, si->ranks, si, &s, k};
    return hpcp_harness_run(k, &b, &c, &flops_hooks);
}

static const struct hpcp_options_desc flops_options = {&peak_flops_cli, NULL};
static const struct hpcp_metric_desc flops_metrics[] = {
    {"flop_rate", "flop/s",
     "flops of every rank that ran / the slowest rank's time, per repetition (headline: max)"},
    {"flop_rate_per_rank", "flop/s", "the slowest rank's flop rate, per repetition"},
    {"clock_rate", "Hz", "rank 0's core clock, measured just before each repetition"},
    {NULL, NULL, NULL}};
static const struct hpcp_records_desc flops_records = {flops_metrics, "flop_rate"};

const struct hpcp_kernel hpcp_peak_flops_single = {
    "peak",
    "flops-single",
    "fma",
    "FMA throughput of independent register chains on rank 0, the others idle",
    peak_flops_driver,
    flops_setup,
    flops_run,
    flops_verify,
    flops_teardown,
    NULL,
    &flops_options,
    &flops_records};

const struct hpcp_kernel hpcp_peak_flops_star = {
    "peak",
    "flops-star",
    "fma",
    "FMA throughput of independent register chains on every rank at once",
    peak_flops_driver,
    flops_setup,
    flops_run,
    flops_verify,
    flops_teardown,
    NULL,
    &flops_options,
    &flops_records};
