/* STREAM driver: the one-copy phase (HPCC SingleSTREAM), then all copies
 * at once (StarSTREAM), best rates, validation and the record. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcprobe/harness.h"
#include "hpcprobe/record.h"
#include "hpcprobe/util.h"
#include "stream.h"

/* Rates of one phase, on rank 0: per kernel and iteration, and each copy's best. */
struct stream_phase_rates {
    int ran, copies;
    double rate[STREAM_KERNELS][STREAM_MAX_ITERATIONS]; /* mean over the copies, B/s */
    double *best[STREAM_KERNELS];                       /* per copy, iterations after the first */
};

static double timed_pass(void *ctx, long passes)
{
    struct hpcp_bench *b = ctx;
    struct stream_state *s = b->state;
    double t0 = MPI_Wtime();
    for (long i = 0; i < passes; i++)
        stream_run_kernel(s, s->kernel);
    return MPI_Wtime() - t0;
}

/* Rank 0 of the phase: fold this iteration's per-copy rates in. */
static void fold_rates(struct stream_phase_rates *R, int k, int it, const double *rates)
{
    double sum = 0;
    for (int c = 0; c < R->copies; c++) {
        sum += rates[c];
        if (it > 0 && rates[c] > R->best[k][c])
            R->best[k][c] = rates[c];
    }
    R->rate[k][it] = sum / R->copies;
}

int stream_iteration(struct hpcp_bench *b, double *seconds)
{
    struct stream_state *s = b->state;
    struct stream_phase_rates *R = &s->phases[s->phase];
    int it = s->phase_it++;
    *seconds = 0;
    if (!s->ph.active)
        return 0; /* not a copy of this phase: it waits asleep at the phase's end */
    for (int k = 0; k < STREAM_KERNELS; k++) {
        s->kernel = k;
        double t = mem_overlapped(&s->ph, timed_pass, b, 1, 1);
        double rate = (double)stream_bytes_per_element[k] * (double)s->n / t;
        MPI_Gather(&rate, 1, MPI_DOUBLE, s->gathered, 1, MPI_DOUBLE, 0, s->ph.comm);
        if (s->ph.rank == 0 && s->gathered)
            fold_rates(R, k, it, s->gathered);
        *seconds += t;
    }
    s->iterations++;
    return 0;
}

static void add_phase_metrics(struct hpcp_record *r, const char *phase,
                              const struct stream_phase_rates *R, int repeat)
{
    for (int k = 0; R->ran && k < STREAM_KERNELS; k++) {
        char name[64];
        snprintf(name, sizeof name, "%s_%s_bandwidth", phase, stream_kernel_names[k]);
        struct hpcp_metric *m = hpcp_record_metric(r, name, "B/s", R->rate[k] + 1, repeat - 1, 1);
        hpcp_record_metric_warmup(m, R->rate[k], 1);
    }
}

static void add_best_series(struct hpcp_record *r, const struct stream_phase_rates *R)
{
    double *x = malloc((size_t)R->copies * sizeof *x);
    for (int c = 0; x && c < R->copies; c++)
        x[c] = c;
    for (int k = 0; x && k < STREAM_KERNELS; k++) {
        char name[64];
        snprintf(name, sizeof name, "star_%s_best_bandwidth", stream_kernel_names[k]);
        hpcp_record_series(r, name, "rank", "1", "B/s", "max", x, R->best[k], R->copies);
    }
    free(x);
}

/* Where the node has more than one NUMA domain: each domain's copies' mean
 * best rate per kernel (the domain's sum is that times copies_by_numa). */
static void add_numa_series(struct hpcp_record *r, const struct stream_state *s,
                            const struct stream_phase_rates *R)
{
    const struct mem_numa *n = &s->numa;
    double x[MEM_NUMA_MAX_GROUPS], y[MEM_NUMA_MAX_GROUPS], count[MEM_NUMA_MAX_GROUPS];
    for (int k = 0; k < STREAM_KERNELS && n->groups > 0; k++) {
        for (int g = 0; g < n->groups; g++)
            x[g] = n->group_node[g], y[g] = 0, count[g] = 0;
        for (int c = 0; c < R->copies; c++) {
            int g = mem_numa_group(n, c);
            if (g >= 0)
                y[g] += R->best[k][c], count[g] += 1;
        }
        for (int g = 0; g < n->groups; g++)
            y[g] = count[g] > 0 ? y[g] / count[g] : NAN;
        char name[64];
        snprintf(name, sizeof name, "star_%s_best_bandwidth_by_numa", stream_kernel_names[k]);
        hpcp_record_series(r, name, "numa_domain", "1", "B/s", "mean", x, y, n->groups);
    }
}

static void add_parameters(struct hpcp_record *r, const struct stream_state *s)
{
    const struct mem_params *p = &s->p;
    hpcp_record_param_int(r, "array_bytes", (long long)p->array_bytes);
    hpcp_record_param_int(r, "array_elements", (long long)s->n);
    hpcp_record_param_string(r, "size_rule", p->size_rule);
    hpcp_record_param_double(r, "memory_cap", p->run.memory_cap);
    hpcp_record_param_int(r, "llc_bytes", (long long)p->caches.llc_per_node);
    hpcp_record_param_int(r, "iterations", p->run.repeat);
    hpcp_record_param_double(r, "scalar", STREAM_SCALAR);
    hpcp_record_param_int(r, "copies", p->copies);
    hpcp_record_param_string(r, "copies_requested", p->copies_text);
    hpcp_record_param_int(r, "threads_per_rank", p->threads);
    hpcp_record_param_string(r, "hugepages", p->hugepages ? "on" : "off");
    hpcp_record_param_bool(r, "nontemporal_stores", stream_loops_current()->nontemporal);
}

static void build_record(struct hpcp_record *r, const struct hpcp_kernel *k, struct hpcp_bench *b,
                         const struct stream_phase_rates *one,
                         const struct stream_phase_rates *many, double error, const long long *cpus)
{
    struct stream_state *s = b->state;
    hpcp_record_init(r, "stream", k->variant, k->algorithm, b->si);
    r->threads_per_rank = s->p.threads;
    add_parameters(r, s);
    add_phase_metrics(r, "single", one, s->p.run.repeat);
    add_phase_metrics(r, "star", many, s->p.run.repeat);
    if (many->ran)
        add_best_series(r, many);
    mem_numa_record(r, &s->numa, b->ranks, many->ran ? many->copies : 1);
    if (many->ran)
        add_numa_series(r, s, many);
    int star = strcmp(k->variant, "star") == 0;
    r->headline_metric = star ? "star_triad_bandwidth" : "single_triad_bandwidth";
    r->headline_statistic = "max";
    if (s->p.run.verify)
        hpcp_record_validation(r,
                               "final a, b, c against STREAM's scalar replay of every "
                               "iteration each copy ran; max relative error",
                               "1", &error, 1, 1e-13);
    else
        hpcp_record_validation_skipped(r, "--no-verify");
    hpcp_record_counter_array(r, "cpus", cpus, b->ranks);
    hpcp_record_counter_int(r, "hugepage_bytes_rank0", (long long)s->thp_bytes);
    if (s->p.hugepages && s->thp_bytes == 0)
        hpcp_record_note(r, "transparent huge pages were asked for but not given; the "
                            "arrays use base pages");
}

/* Triad per NUMA domain, where the node has more than one. */
static void print_numa(const struct stream_state *s, const struct stream_phase_rates *many)
{
    for (int g = 0; many->ran && g < s->numa.groups; g++) {
        double sum = 0;
        int copies = 0;
        for (int c = 0; c < many->copies; c++)
            if (mem_numa_group(&s->numa, c) == g)
                sum += many->best[3][c], copies++;
        printf("  NUMA domain %d: triad %d x %.2f = %.2f GB/s\n", s->numa.group_node[g], copies,
               copies ? sum / copies * 1e-9 : 0, sum * 1e-9);
    }
}

static void print_summary(const struct hpcp_kernel *k, const struct stream_state *s,
                          const struct stream_phase_rates *one,
                          const struct stream_phase_rates *many, double error)
{
    char size[32];
    printf("stream %s: arrays of %s (%zu doubles), %d iteration(s), %d thread(s) per rank\n",
           k->variant, hpcp_format_bytes((double)s->p.array_bytes, size, sizeof size), s->n,
           s->p.run.repeat, s->p.threads);
    printf("%-8s %14s %24s\n", "Function", "single GB/s",
           many->ran ? "copies: mean GB/s, sum" : "");
    for (int kk = 0; kk < STREAM_KERNELS; kk++) {
        double best1 = 0, mean = 0, sum = 0;
        for (int it = 1; it < s->p.run.repeat; it++)
            best1 = one->rate[kk][it] > best1 ? one->rate[kk][it] : best1;
        for (int c = 0; many->ran && c < many->copies; c++)
            sum += many->best[kk][c];
        mean = many->ran ? sum / many->copies : 0;
        printf("%-8s %14.2f", stream_kernel_names[kk], best1 * 1e-9);
        if (many->ran)
            printf("   %d x %.2f = %.2f (%.2f of single)", many->copies, mean * 1e-9, sum * 1e-9,
                   best1 > 0 ? mean / best1 : 0);
        printf("\n");
    }
    print_numa(s, many);
    if (s->p.run.verify)
        printf("stream %s: validation %s (max relative error %.2e, tolerance 1e-13)\n", k->variant,
               error <= 1e-13 ? "passed" : "FAILED", error);
    fflush(stdout);
}

static int alloc_best(struct stream_phase_rates *R, int copies)
{
    int bad = 0;
    for (int k = 0; k < STREAM_KERNELS; k++)
        bad |= !(R->best[k] = calloc((size_t)copies, sizeof(double)));
    return bad ? -1 : 0;
}

static void free_best(struct stream_phase_rates *R)
{
    for (int k = 0; k < STREAM_KERNELS; k++)
        free(R->best[k]);
}

/* The phases are the sweep's points: one copy, then (star, or --copies)
 * the copies at once; the ranks outside a phase pass through it and sleep
 * at its end. */
static int stream_points(struct hpcp_bench *b)
{
    struct stream_state *s = b->state;
    return s->phase_copies[1] ? 2 : 1;
}

static void end_phase(struct stream_state *s)
{
    mem_phase_end(&s->ph);
    free(s->gathered);
    s->gathered = NULL;
}

static int stream_point(struct hpcp_bench *b, int i)
{
    struct stream_state *s = b->state;
    int copies = s->phase_copies[i];
    if (i > 0)
        end_phase(s);
    s->phase = i, s->phase_it = 0;
    s->phases[i].ran = 1, s->phases[i].copies = copies;
    s->gathered = calloc((size_t)copies, sizeof *s->gathered);
    mem_phase_begin(&s->ph, b->comm, copies);
    return 0;
}

static int stream_after_last(struct hpcp_bench *b)
{
    end_phase(b->state);
    return 0;
}

/* Test hooks: one wrong element, or a NaN, must fail validation. */
static void stream_corrupt(struct hpcp_bench *b, uint64_t words)
{
    struct stream_state *s = b->state;
    (void)words;
    if (b->rank == 0 && s->active)
        s->a[s->n / 2] *= 1.0 + 1e-9;
}

static void stream_poison(struct hpcp_bench *b)
{
    struct stream_state *s = b->state;
    if (b->rank == 0 && s->active)
        s->a[s->n / 2] = NAN;
}

static void stream_record(struct hpcp_record *r, struct hpcp_bench *b, const struct hpcp_checks *v)
{
    struct stream_state *s = b->state;
    long long *cpus = mem_gather_cpus(b->comm, s->cpu);
    mem_numa_check_pages(&s->numa, b->comm, s->region.base, s->region.bytes);
    double error = v->n ? v->error[v->n - 1] : 0; /* the worst rank's */
    if (b->rank == 0)
        build_record(r, b->kernel, b, &s->phases[0], &s->phases[1], error, cpus);
    free(cpus);
}

static void stream_print(const struct hpcp_record *r, struct hpcp_bench *b)
{
    struct stream_state *s = b->state;
    print_summary(b->kernel, s, &s->phases[0], &s->phases[1], r->validation.error);
}

static void stream_setup_failed(struct hpcp_bench *b)
{
    struct stream_state *s = b->state;
    char size[32];
    hpcp_error(b->comm, "cannot allocate three arrays of %s",
               hpcp_format_bytes((double)s->p.array_bytes, size, sizeof size));
}

static const struct hpcp_family_hooks stream_hooks = {.verify_at_end = 1,
                                                      .setup_failed = stream_setup_failed,
                                                      .after_last = stream_after_last,
                                                      .corrupt = stream_corrupt,
                                                      .poison = stream_poison,
                                                      .points = stream_points,
                                                      .point = stream_point,
                                                      .record = stream_record,
                                                      .print = stream_print};

/* --repeat iterations per phase (the first of each the warm-up the record
 * keeps apart); verified once, after the last phase. */
int hpcp_stream_driver(const struct hpcp_kernel *k, const struct hpcp_sysinfo *si, int argc,
                       char **argv)
{
    struct stream_state s;
    memset(&s, 0, sizeof s);
    int rc = mem_params_prepare(&s.p, k->variant, argc, argv, si);
    if (rc)
        return rc;
    struct hpcp_bench b = {MPI_COMM_WORLD, si->rank, si->ranks, si, &s, k};
    int star = strcmp(k->variant, "star") == 0;
    int many_copies = star || s.p.copies > 1 ? s.p.copies : 0;
    s.active = si->rank < (many_copies ? many_copies : 1);
    s.cpu = mem_pin_rank(si, s.p.threads);
    int numa_bad = mem_numa_gather(&s.numa, b.comm, s.cpu, many_copies);
    struct stream_phase_rates phases[2];
    memset(phases, 0, sizeof phases);
    s.phases = phases, s.phase_copies[0] = 1, s.phase_copies[1] = many_copies;
    int bad = numa_bad ||
              (b.rank == 0 && (alloc_best(&phases[0], 1) || alloc_best(&phases[1], s.p.copies)));
    if (hpcp_any(b.comm, bad)) {
        stream_setup_failed(&b);
        rc = HPCP_EXIT_RUNTIME;
    } else {
        struct hpcp_common c = s.p.run;
        c.warmup = 0;
        rc = hpcp_harness_run(k, &b, &c, &stream_hooks);
    }
    free_best(&phases[0]);
    free_best(&phases[1]);
    mem_numa_free(&s.numa);
    return rc;
}
