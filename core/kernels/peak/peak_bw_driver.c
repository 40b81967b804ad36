/* peak bandwidth's driver: the points (each level's kernels), the rates
 * each repetition gives, and the record. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcprobe/record.h"
#include "hpcprobe/util.h"
#include "peak_bw.h"

static int points(struct hpcp_bench *b)
{
    struct peak_bw_state *s = b->state;
    return s->p.nlevels * s->p.nkernels;
}

/* Every rank starts a repetition together. */
static void before_run(struct hpcp_bench *b)
{
    peak_bw_barrier(b);
}

/* A repetition's rate: the bytes every active rank moved over the slowest
 * one's time (single: rank 0's alone); each rank's own best kept apart. */
static void keep(struct hpcp_bench *b, int rep, int warm, double seconds)
{
    struct peak_bw_state *s = b->state;
    double bytes = s->active ? peak_bw_bytes(s->kernel, s->n, s->sweeps) : 0.0;
    double slowest = 0, all = 0;
    MPI_Reduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, b->comm);
    MPI_Reduce(&bytes, &all, 1, MPI_DOUBLE, MPI_SUM, 0, b->comm);
    if (warm)
        return;
    double *best = &s->rank_best[s->level][s->kernel];
    if (s->active && seconds > 0 && bytes / seconds > *best)
        *best = bytes / seconds;
    int *n = &s->nrate[s->level][s->kernel];
    if (b->rank == 0 && s->rate[s->level][s->kernel] && *n < s->p.run.repeat)
        s->rate[s->level][s->kernel][(*n)++] = slowest > 0 ? all / slowest : 0.0;
    (void)rep;
}

/* Test hooks (HPCPROBE_INJECT_FAULT): the last point's result, spoilt on
 * rank 0 (value NaN: replaced, else added). */
static void spoil(struct hpcp_bench *b, double value)
{
    struct peak_bw_state *s = b->state;
    if (b->rank != 0 || !s->active)
        return;
    double *result = s->kernel == PEAK_BW_LOAD   ? &s->sum
                     : s->kernel == PEAK_BW_COPY ? &s->x[1][s->n / 2]
                                                 : &s->x[0][s->n / 2];
    *result = isnan(value) ? value : *result + value;
}

static void corrupt(struct hpcp_bench *b, uint64_t words)
{
    (void)words;
    spoil(b, 1.0);
}

static void poison(struct hpcp_bench *b)
{
    spoil(b, NAN);
}

static double best_of(const double *v, int n)
{
    double best = 0;
    for (int i = 0; i < n; i++)
        best = v[i] > best ? v[i] : best;
    return best;
}

static void add_parameters(struct hpcp_record *r, const struct peak_bw_state *s)
{
    const struct peak_bw_params *p = &s->p;
    char list[64] = "", name[48], flags[96];
    for (int i = 0; i < p->nkernels; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? "," : "",
                 peak_bw_kernel_names[p->kernels[i]]);
    hpcp_record_param_string(r, "kernels", list);
    list[0] = 0;
    for (int i = 0; i < p->nlevels; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? "," : "",
                 peak_bw_level_names[p->levels[i]]);
    hpcp_record_param_string(r, "levels", list);
    peak_bw_isa_flags(flags, sizeof flags);
    hpcp_record_param_string(r, "isa", flags);
    hpcp_record_param_int(r, "vector_bits", p->isa->vector_bits);
    hpcp_record_param_double(r, "memory_cap", p->run.memory_cap);
    hpcp_record_param_double(r, "min_time", p->min_time);
    hpcp_record_param_string(r, "hugepages", p->hugepages ? "on" : "off");
    hpcp_record_param_int(r, "copies", p->star ? r->ranks : 1);
    for (int l = 0; l < PEAK_BW_LEVELS; l++) {
        int ran = p->rule[l][0] != 0, skipped = p->skipped[l][0] != 0;
        if (!ran && !skipped)
            continue;
        snprintf(name, sizeof name, "working_set_bytes_%s", peak_bw_level_names[l]);
        if (ran)
            hpcp_record_param_int(r, name, (long long)p->ws[l]);
        else
            hpcp_record_param_null(r, name);
        if (ran) { /* copy's and triad's stores at this level */
            snprintf(name, sizeof name, "stores_%s", peak_bw_level_names[l]);
            hpcp_record_param_string(
                r, name,
                peak_bw_uses_nt(p->isa, p->stores, l, PEAK_BW_COPY) ? "nontemporal" : "plain");
        }
        snprintf(name, sizeof name, "size_rule_%s", peak_bw_level_names[l]);
        hpcp_record_param_string(r, name, ran ? p->rule[l] : p->skipped[l]);
        if (skipped)
            hpcp_record_note(r, "%s %s", peak_bw_level_names[l], p->skipped[l]);
    }
}

static void add_metrics(struct hpcp_record *r, const struct peak_bw_state *s)
{
    const struct peak_bw_params *p = &s->p;
    for (int k = 0; k < p->nkernels; k++) {
        int kernel = p->kernels[k];
        double x[PEAK_BW_LEVELS], y[PEAK_BW_LEVELS];
        char name[64];
        for (int l = 0; l < p->nlevels; l++) {
            int level = p->levels[l];
            snprintf(name, sizeof name, "%s_bandwidth_%s", peak_bw_kernel_names[kernel],
                     peak_bw_level_names[level]);
            hpcp_record_metric(r, name, "B/s", s->rate[level][kernel], s->nrate[level][kernel], 1);
            x[l] = (double)p->ws[level];
            y[l] = best_of(s->rate[level][kernel], s->nrate[level][kernel]);
        }
        snprintf(name, sizeof name, "bandwidth_%s", peak_bw_kernel_names[kernel]);
        hpcp_record_series(r, name, "working_set_bytes", "B", "B/s", "max", x, y, p->nlevels);
    }
}

/* Each rank's best rate per level and kernel, as whole B/s (counters). */
static void add_rank_counters(struct hpcp_record *r, struct hpcp_bench *b)
{
    struct peak_bw_state *s = b->state;
    const struct peak_bw_params *p = &s->p;
    long long *all = b->rank == 0 ? malloc((size_t)b->ranks * sizeof *all) : NULL;
    for (int l = 0; l < p->nlevels; l++)
        for (int k = 0; k < p->nkernels; k++) {
            int level = p->levels[l], kernel = p->kernels[k];
            long long mine = llround(s->rank_best[level][kernel]);
            MPI_Gather(&mine, 1, MPI_LONG_LONG, all, 1, MPI_LONG_LONG, 0, b->comm);
            char name[64];
            snprintf(name, sizeof name, "rank_%s_bandwidth_%s", peak_bw_kernel_names[kernel],
                     peak_bw_level_names[level]);
            if (all && p->star)
                hpcp_record_counter_array(r, name, all, b->ranks);
        }
    long long cpu = s->cpu;
    MPI_Gather(&cpu, 1, MPI_LONG_LONG, all, 1, MPI_LONG_LONG, 0, b->comm);
    if (all)
        hpcp_record_counter_array(r, "cpus", all, b->ranks);
    free(all);
}

static void validation(struct hpcp_record *r, const struct peak_bw_state *s,
                       const struct hpcp_checks *v)
{
    if (!s->p.run.verify) {
        hpcp_record_validation_skipped(r, "--no-verify");
        return;
    }
    hpcp_record_validation(r,
                           "after each level's last repetition, on every rank that ran: load's "
                           "sum against the exact sum of the integers filled in, copy's b "
                           "against a, triad's a against b + 3 c, element by element",
                           "wrong elements", v->error, v->n, 0.0);
    for (int i = 0; i < v->n; i++)
        if (v->error[i] != 0) {
            const struct peak_bw_params *p = &s->p;
            hpcp_record_validation_detail(r, "%s at %s: %g wrong (the worst rank)",
                                          peak_bw_kernel_names[p->kernels[i % p->nkernels]],
                                          peak_bw_level_names[p->levels[i / p->nkernels]],
                                          v->error[i]);
            break;
        }
}

static void record(struct hpcp_record *r, struct hpcp_bench *b, const struct hpcp_checks *v)
{
    struct peak_bw_state *s = b->state;
    static char headline[64];
    if (b->rank == 0) {
        hpcp_record_init(r, "peak", b->kernel->variant, s->p.isa->name, b->si);
        add_parameters(r, s);
        add_metrics(r, s);
        snprintf(headline, sizeof headline, "%s_bandwidth_%s",
                 peak_bw_kernel_names[s->p.kernels[0]], peak_bw_level_names[s->p.levels[0]]);
        r->headline_metric = headline;
        r->headline_statistic = "max";
        validation(r, s, v);
    }
    add_rank_counters(r, b); /* collective */
}

static void print(const struct hpcp_record *r, struct hpcp_bench *b)
{
    struct peak_bw_state *s = b->state;
    const struct peak_bw_params *p = &s->p;
    char size[32];
    printf("peak bandwidth %s: %s loops, %d repetition(s) of at least %g s, %s\n",
           p->star ? "star" : "single", p->isa->name, p->run.repeat, p->min_time,
           p->star ? "sum over every rank (GB/s)" : "rank 0 alone (GB/s)");
    printf("%-8s %12s", "level", "working set");
    for (int k = 0; k < p->nkernels; k++)
        printf(" %10s", peak_bw_kernel_names[p->kernels[k]]);
    printf("\n");
    for (int l = 0; l < p->nlevels; l++) {
        int level = p->levels[l];
        printf("%-8s %12s", peak_bw_level_names[level],
               hpcp_format_bytes((double)p->ws[level], size, sizeof size));
        for (int k = 0; k < p->nkernels; k++) {
            int kernel = p->kernels[k];
            printf(" %10.2f", best_of(s->rate[level][kernel], s->nrate[level][kernel]) * 1e-9);
        }
        printf("\n");
    }
    for (int l = 0; l < PEAK_BW_LEVELS; l++)
        if (p->skipped[l][0])
            printf("  %s %s\n", peak_bw_level_names[l], p->skipped[l]);
    if (p->run.verify)
        printf("peak bandwidth: validation %s (%g wrong elements, tolerance 0)\n",
               hpcp_verdict_fails(r->validation.verdict) ? "FAILED" : "passed",
               r->validation.error);
    fflush(stdout);
}

static void setup_failed(struct hpcp_bench *b)
{
    struct peak_bw_state *s = b->state;
    char size[32];
    uint64_t most = 0;
    for (int i = 0; i < s->p.nlevels; i++)
        most = s->p.ws[s->p.levels[i]] > most ? s->p.ws[s->p.levels[i]] : most;
    hpcp_error(b->comm, "peak bandwidth: cannot allocate a buffer of %s",
               hpcp_format_bytes((double)most, size, sizeof size));
}

static const struct hpcp_family_hooks hooks = {.setup_failed = setup_failed,
                                               .before_run = before_run,
                                               .keep = keep,
                                               .corrupt = corrupt,
                                               .poison = poison,
                                               .points = points,
                                               .point = peak_bw_point,
                                               .record = record,
                                               .print = print};

static int alloc_rates(struct peak_bw_state *s, int rank)
{
    int bad = 0;
    for (int l = 0; l < s->p.nlevels; l++)
        for (int k = 0; k < s->p.nkernels && rank == 0; k++) {
            double **rate = &s->rate[s->p.levels[l]][s->p.kernels[k]];
            bad |= !(*rate = calloc((size_t)s->p.run.repeat, sizeof **rate));
        }
    return bad;
}

static void free_rates(struct peak_bw_state *s)
{
    for (int l = 0; l < PEAK_BW_LEVELS; l++)
        for (int k = 0; k < PEAK_BW_KERNELS; k++)
            free(s->rate[l][k]);
}

/* Pinned to one core before the first touch, so that the pages and the
 * caches measured are that core's. */
static int pin_rank(const struct hpcp_sysinfo *si)
{
    int cpu = -1;
    hpcp_rank_cpus(si->node_comm, 1, &cpu);
    return cpu >= 0 && hpcp_pin_process(&cpu, 1) == 0 ? cpu : -1;
}

int hpcp_peak_bw_driver(const struct hpcp_kernel *k, const struct hpcp_sysinfo *si, int argc,
                        char **argv)
{
    struct peak_bw_state *s = calloc(1, sizeof *s);
    int bad = !s;
    if (hpcp_any(MPI_COMM_WORLD, bad)) {
        hpcp_error(MPI_COMM_WORLD, "peak bandwidth: out of memory");
        free(s);
        return HPCP_EXIT_RUNTIME;
    }
    int rc = peak_bw_params_prepare(&s->p, k->variant, argc, argv, si);
    if (!rc) {
        struct hpcp_bench b = {MPI_COMM_WORLD, si->rank, si->ranks, si, s, k};
        s->active = s->p.star || si->rank == 0;
        s->cpu = pin_rank(si);
        if (hpcp_any(b.comm, alloc_rates(s, si->rank))) {
            hpcp_error(b.comm, "peak bandwidth: out of memory");
            rc = HPCP_EXIT_RUNTIME;
        } else {
            rc = hpcp_harness_run(k, &b, &s->p.run, &hooks);
        }
    }
    free_rates(s);
    free(s);
    return rc;
}
