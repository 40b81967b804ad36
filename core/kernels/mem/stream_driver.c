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

static void run_phase(struct hpcp_bench *b, int copies, struct stream_phase_rates *R)
{
    struct stream_state *s = b->state;
    struct mem_phase ph;
    double *rates = calloc((size_t)copies, sizeof *rates);
    R->ran = 1, R->copies = copies;
    mem_phase_begin(&ph, b->comm, copies);
    for (int it = 0; ph.active && it < s->p.run.repeat; it++) {
        for (int k = 0; k < STREAM_KERNELS; k++) {
            s->kernel = k;
            double t = mem_overlapped(&ph, timed_pass, b, 1, 1);
            double rate = (double)stream_bytes_per_element[k] * (double)s->n / t;
            MPI_Gather(&rate, 1, MPI_DOUBLE, rates, 1, MPI_DOUBLE, 0, ph.comm);
            if (ph.rank == 0 && rates)
                fold_rates(R, k, it, rates);
        }
        s->iterations++;
    }
    mem_phase_end(&ph);
    free(rates);
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

static void add_parameters(struct hpcp_record *r, const struct stream_state *s)
{
    const struct mem_params *p = &s->p;
    hpcp_record_param_int(r, "array_bytes", (long long)p->array_bytes);
    hpcp_record_param_int(r, "array_elements", (long long)s->n);
    hpcp_record_param_string(r, "array_size_rule", p->array_from_option ? "option" : "4x_llc");
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
    if (s->p.run.verify)
        printf("stream %s: validation %s (max relative error %.2e, tolerance 1e-13)\n", k->variant,
               error <= 1e-13 ? "passed" : "FAILED", error);
    fflush(stdout);
}

static int write_record(const struct hpcp_kernel *k, struct hpcp_bench *b,
                        const struct stream_phase_rates *one, const struct stream_phase_rates *many,
                        double error)
{
    struct stream_state *s = b->state;
    long long *cpus = mem_gather_cpus(b->comm, s->cpu);
    struct hpcp_record r;
    memset(&r, 0, sizeof r);
    if (b->rank == 0) {
        build_record(&r, k, b, one, many, error, cpus);
        if (!s->p.run.quiet)
            print_summary(k, s, one, many, error);
    }
    free(cpus);
    return hpcp_harness_commit(b->comm, &r, b->si, s->p.run.out);
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
    struct stream_phase_rates one, many;
    memset(&one, 0, sizeof one);
    memset(&many, 0, sizeof many);
    int bad = b.rank == 0 && (alloc_best(&one, 1) || alloc_best(&many, s.p.copies));
    if (hpcp_any(b.comm, bad) || (rc = k->setup(&b))) {
        char size[32];
        hpcp_error(b.comm, "cannot allocate three arrays of %s",
                   hpcp_format_bytes((double)s.p.array_bytes, size, sizeof size));
        rc = HPCP_EXIT_RUNTIME;
    } else {
        hpcp_fault_point(b.rank);
        run_phase(&b, 1, &one);
        if (many_copies)
            run_phase(&b, many_copies, &many);
        if (b.rank == 0 && s.active && hpcp_fault_corrupt_words())
            s.a[s.n / 2] *= 1.0 + 1e-9; /* test hook: one wrong element must fail validation */
        if (b.rank == 0 && s.active && hpcp_fault_nan_words())
            s.a[s.n / 2] = NAN; /* test hook: a NaN must fail validation too */
        double error = 0, worst = 0;
        if (s.p.run.verify)
            k->verify(&b, &error);
        MPI_Reduce(&error, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, b.comm);
        rc = write_record(k, &b, &one, &many, worst);
    }
    k->teardown(&b);
    free_best(&one);
    free_best(&many);
    return rc;
}
