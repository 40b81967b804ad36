/* Driver of the swept memory kernels: for each point, one copy alone
 * (calibrated to --min-time per sample), then --copies copies at once, each
 * phase through the harness loop (harness.h); the ratio curve, validation
 * and the record. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcprobe/harness.h"
#include "hpcprobe/record.h"
#include "hpcprobe/util.h"
#include "mem_sweep.h"

#define MEM_MAX_PLATEAUS 8
/* A plateau: points within 15 % of its first one (a cache level). */
#define MEM_PLATEAU_TOLERANCE 0.15

/* What rank 0 keeps: the one-copy samples and the copies' medians. */
struct sweep_results {
    int npoints, repeat, many;
    double *one;                      /* npoints x repeat, s per access */
    double one_median[MEM_MAX_POINTS];
    double many_mean[MEM_MAX_POINTS], many_max[MEM_MAX_POINTS], ratio[MEM_MAX_POINTS];
    double numa_mean[MEM_NUMA_MAX_GROUPS][MEM_MAX_POINTS]; /* the copies of each domain */
    long passes[MEM_MAX_POINTS];
    int nplateaus;                    /* latency: where the caches end, and their latency */
    double plateau_size[MEM_MAX_PLATEAUS], plateau_level[MEM_MAX_PLATEAUS];
    double wrong;                     /* summed over points, phases and ranks */
    double *largest;                  /* rank 0: each copy's median at the largest point */
};

struct pass_ctx {
    const struct hpcp_kernel *k;
    struct hpcp_bench *b;
};

static double pass_fn(void *ctx, long passes)
{
    struct pass_ctx *c = ctx;
    struct mem_sweep_state *s = c->b->state;
    double seconds = 0;
    s->passes = passes;
    c->k->run(c->b, &seconds);
    return seconds;
}

/* One phase on its ranks, as the harness loop sees it: the bench's state
 * while the loop runs (the kernel's own bench and state are in pass). */
struct phase_run {
    struct mem_phase ph;
    struct pass_ctx pass;
    struct sweep_results *R;
    long filler;           /* untimed passes while the slower copies finish */
    double samples[1000];  /* the point's repetitions (--repeat <= 1000) */
    double *medians;       /* rank 0 of a many-copy phase: one per copy */
};

static struct mem_sweep_state *sweep_of(struct hpcp_bench *b)
{
    struct phase_run *pr = b->state;
    return pr->pass.b->state;
}

/* The harness's run: one overlapped sample, in seconds per access. */
static int sample_run(struct hpcp_bench *b, double *seconds)
{
    struct phase_run *pr = b->state;
    struct mem_sweep_state *s = sweep_of(b);
    long passes = pr->R->passes[s->point];
    double t = mem_overlapped(&pr->ph, pass_fn, &pr->pass, passes, pr->filler);
    *seconds = t / ((double)passes * s->accesses[s->point]);
    return 0;
}

/* The kernel's verification; the record sums the wrong words of every
 * point, phase and rank (the harness keeps the worst rank's per point). */
static int sample_verify(struct hpcp_bench *b, double *error)
{
    struct phase_run *pr = b->state;
    int rc = pr->pass.k->verify(pr->pass.b, error);
    pr->R->wrong += *error;
    return rc;
}

static int phase_points(struct hpcp_bench *b)
{
    return sweep_of(b)->npoints;
}

/* Prepare point i; the copies make as many passes as the single copy did:
 * the same work. */
static int phase_point(struct hpcp_bench *b, int i)
{
    struct phase_run *pr = b->state;
    struct mem_sweep_state *s = sweep_of(b);
    long *passes = &pr->R->passes[i];
    s->point = i;
    pass_fn(&pr->pass, 0);
    if (pr->ph.copies == 1)
        *passes = mem_calibrate(&pr->ph, pass_fn, &pr->pass, s->p.min_time);
    else
        MPI_Bcast(passes, 1, MPI_LONG, 0, pr->ph.comm);
    pr->filler = *passes / 4 > 0 ? *passes / 4 : 1;
    return 0;
}

static void phase_keep(struct hpcp_bench *b, int rep, int warm, double seconds)
{
    struct phase_run *pr = b->state;
    if (!warm)
        pr->samples[rep] = seconds;
}

/* Rank 0, at point i: the mean of each NUMA domain's copies' medians. */
static void numa_means(const struct mem_numa *n, const double *medians, int copies,
                       struct sweep_results *R, int i)
{
    double count[MEM_NUMA_MAX_GROUPS] = {0};
    for (int g = 0; g < n->groups; g++)
        R->numa_mean[g][i] = 0;
    for (int c = 0; c < copies; c++) {
        int g = mem_numa_group(n, c);
        if (g >= 0)
            R->numa_mean[g][i] += medians[c], count[g] += 1;
    }
    for (int g = 0; g < n->groups; g++)
        R->numa_mean[g][i] = count[g] > 0 ? R->numa_mean[g][i] / count[g] : NAN;
}

/* After the point's last sample and its verification: its median, kept
 * (one copy) or gathered and compared with the single copy's. */
static void phase_rep_done(struct hpcp_bench *b, int rep, double error)
{
    struct phase_run *pr = b->state;
    struct mem_sweep_state *s = sweep_of(b);
    struct sweep_results *R = pr->R;
    int i = s->point, copies = pr->ph.copies;
    (void)error;
    if (rep != R->repeat - 1)
        return;
    double median = hpcp_median(pr->samples, R->repeat);
    if (copies == 1) {
        memcpy(R->one + (size_t)i * R->repeat, pr->samples, (size_t)R->repeat * sizeof(double));
        R->one_median[i] = median;
        return;
    }
    MPI_Gather(&median, 1, MPI_DOUBLE, pr->medians, 1, MPI_DOUBLE, 0, pr->ph.comm);
    double sum = 0, worst = 0;
    for (int k = 0; pr->ph.rank == 0 && k < copies; k++)
        sum += pr->medians[k], worst = fmax(worst, pr->medians[k]);
    R->many_mean[i] = sum / copies;
    R->many_max[i] = worst;
    if (pr->ph.rank == 0 && i == s->npoints - 1 && R->largest)
        memcpy(R->largest, pr->medians, (size_t)copies * sizeof *R->largest);
    if (pr->ph.rank == 0)
        numa_means(&s->numa, pr->medians, copies, R, i);
    R->ratio[i] = R->one_median[i] > 0 ? R->many_mean[i] / R->one_median[i] : NAN;
}

/* Test hook: damage the single copy's buffer at the last point; validation
 * must see it. */
static void phase_corrupt(struct hpcp_bench *b, uint64_t words)
{
    struct phase_run *pr = b->state;
    (void)words; /* the kernel reads the count itself */
    if (pr->ph.copies == 1)
        pass_fn(&pr->pass, -1);
}

static const struct hpcp_family_hooks phase_hooks = {.keep = phase_keep,
                                                     .corrupt = phase_corrupt,
                                                     .rep_done = phase_rep_done,
                                                     .points = phase_points,
                                                     .point = phase_point};

/* The phase's ranks run the harness loop over the points with the phase's
 * communicator; the others never enter it: they reach the fault point, then
 * sleep in mem_phase_end so that they take no core from a copy. */
static int run_phase(struct pass_ctx *c, int copies, struct sweep_results *R)
{
    struct hpcp_bench *b = c->b;
    struct mem_sweep_state *s = b->state;
    struct phase_run pr;
    struct hpcp_checks v = {NULL, NULL, 0};
    struct hpcp_kernel sample = *c->k;
    sample.run = sample_run, sample.verify = sample_verify;
    memset(&pr, 0, sizeof pr);
    pr.pass = *c, pr.R = R;
    int rc = 0;
    mem_phase_begin(&pr.ph, b->comm, copies);
    if (pr.ph.active) {
        struct hpcp_bench pb = {pr.ph.comm, pr.ph.rank, copies, b->si, &pr, c->k};
        pr.medians = pr.ph.rank == 0 ? calloc((size_t)copies, sizeof *pr.medians) : NULL;
        if (hpcp_any(pr.ph.comm, pr.ph.rank == 0 && !pr.medians)) {
            hpcp_error(pr.ph.comm, "mem %s: out of memory", c->k->variant);
            rc = HPCP_EXIT_RUNTIME;
        } else {
            rc = hpcp_harness_loop(&sample, &pb, &s->p.run, &phase_hooks, &v);
        }
    } else {
        hpcp_fault_point(b->rank);
    }
    mem_phase_end(&pr.ph);
    MPI_Bcast(&rc, 1, MPI_INT, 0, b->comm); /* world rank 0 is in every phase */
    hpcp_checks_free(&v);
    free(pr.medians);
    return rc;
}

static const char *sweep_name(const struct mem_params *p)
{
    return p->sweep == MEM_SWEEP_STRIDE  ? "stride"
           : p->sweep == MEM_SWEEP_BLOCK ? "block"
                                         : "latency";
}

static void add_parameters(struct hpcp_record *r, const struct mem_sweep_state *s)
{
    const struct mem_params *p = &s->p;
    hpcp_record_param_string(r, "sweep", sweep_name(p));
    if (p->sweep == MEM_SWEEP_STRIDE) {
        hpcp_record_param_int(r, "buffer_bytes", (long long)p->buffer_bytes);
        hpcp_record_param_int(r, "min_stride_bytes", (long long)p->min_stride);
        hpcp_record_param_int(r, "max_stride_bytes", (long long)p->max_stride);
    } else {
        hpcp_record_param_int(r, "min_bytes", (long long)p->min_bytes);
        hpcp_record_param_int(r, "max_bytes", (long long)p->max_bytes);
    }
    if (s->build_flags) {
        hpcp_record_param_string(r, "build_variant", p->build_o0 ? "O0" : "O3");
        hpcp_record_param_string(r, "build_flags", s->build_flags);
    }
    if (p->sweep == MEM_SWEEP_LATENCY) {
        hpcp_record_param_int(r, "points_per_octave", p->points_per_octave);
        hpcp_record_param_int(r, "seed", (long long)p->run.seed);
    }
    hpcp_record_param_string(r, "size_rule", p->size_rule);
    hpcp_record_param_double(r, "memory_cap", p->run.memory_cap);
    hpcp_record_param_int(r, "repeat", p->run.repeat);
    hpcp_record_param_double(r, "min_sample_seconds", p->min_time);
    hpcp_record_param_int(r, "copies", p->copies);
    hpcp_record_param_string(r, "copies_requested", p->copies_text);
    hpcp_record_param_string(r, "hugepages", p->hugepages ? "on" : "off");
    const char *names[] = {"cache_l1d_bytes", "cache_l2_bytes", "cache_l3_bytes"};
    const uint64_t sizes[] = {p->caches.l1d, p->caches.l2, p->caches.l3};
    for (int i = 0; i < 3; i++) {
        if (sizes[i])
            hpcp_record_param_int(r, names[i], (long long)sizes[i]);
        else
            hpcp_record_param_null(r, names[i]);
    }
}

/* The headline: the repetitions at the slowest stride, the largest block,
 * or the largest working set (memory latency). */
static void add_headline(struct hpcp_record *r, const struct mem_sweep_state *s,
                         const struct sweep_results *R)
{
    int at = s->npoints - 1;
    const char *name =
        s->p.sweep == MEM_SWEEP_BLOCK ? "time_per_access_largest_block" : "memory_latency";
    if (s->p.sweep == MEM_SWEEP_STRIDE) {
        name = "peak_time_per_access";
        for (int i = 0; i < s->npoints; i++)
            if (R->one_median[i] > R->one_median[at])
                at = i;
    }
    hpcp_record_metric(r, name, "s", R->one + (size_t)at * R->repeat, R->repeat, 0);
    r->headline_metric = name;
}

static void find_plateaus(const struct mem_sweep_state *s, struct sweep_results *R)
{
    R->nplateaus = mem_find_plateaus(s->x, R->one_median, s->npoints, MEM_PLATEAU_TOLERANCE, 3,
                                     R->plateau_size, R->plateau_level, MEM_MAX_PLATEAUS);
}

/* Latency: each copy's (rank's) median at the largest working set, its DRAM
 * plateau, so a screen can tell which node's memory is slow; one copy: its own. */
static void add_rank_latency(struct hpcp_record *r, const struct mem_sweep_state *s,
                             const struct sweep_results *R)
{
    int copies = R->many ? s->p.copies : 1, last = s->npoints - 1;
    const double *y = R->many ? R->largest : &R->one_median[last];
    double *x = malloc((size_t)copies * sizeof *x);
    for (int c = 0; x && y && c < copies; c++)
        x[c] = c;
    if (x && y && last >= 0)
        hpcp_record_series(r, "memory_latency_per_rank", "rank", "1", "s", "median", x, y, copies);
    free(x);
}

static void add_curves(struct hpcp_record *r, const struct mem_sweep_state *s,
                       const struct sweep_results *R)
{
    struct hpcp_series *one = hpcp_record_series(r, "time_per_access_one", s->x_name, "B", "s",
                                                 "median", s->x, R->one_median, s->npoints);
    hpcp_record_series_samples(one, R->one, R->repeat);
    if (R->many) {
        hpcp_record_series(r, "time_per_access_many", s->x_name, "B", "s", "mean", s->x,
                           R->many_mean, s->npoints);
        hpcp_record_series(r, "time_per_access_many_max", s->x_name, "B", "s", "max", s->x,
                           R->many_max, s->npoints);
        hpcp_record_series(r, "many_over_one_ratio", s->x_name, "B", "1", "ratio", s->x, R->ratio,
                           s->npoints);
    }
    for (int g = 0; R->many && g < s->numa.groups; g++) {
        char name[64];
        snprintf(name, sizeof name, "time_per_access_many_numa%d", s->numa.group_node[g]);
        hpcp_record_series(r, name, s->x_name, "B", "s", "mean", s->x, R->numa_mean[g], s->npoints);
    }
    if (s->p.sweep == MEM_SWEEP_LATENCY)
        add_rank_latency(r, s, R);
    if (s->p.sweep == MEM_SWEEP_LATENCY)
        hpcp_record_series(r, "plateau_latency", "inferred_size_bytes", "B", "s", "median",
                           R->plateau_size, R->plateau_level, R->nplateaus);
}

static void build_record(struct hpcp_record *r, const struct hpcp_kernel *k,
                         const struct hpcp_bench *b, const struct sweep_results *R,
                         const long long *cpus, long long thp0)
{
    const struct mem_sweep_state *s = b->state;
    hpcp_record_init(r, "mem", k->variant, k->algorithm, b->si);
    add_parameters(r, s);
    add_headline(r, s, R);
    add_curves(r, s, R);
    if (s->p.run.verify)
        hpcp_record_validation(
            r,
            s->p.sweep == MEM_SWEEP_LATENCY
                ? "after T dependent loads the chase stands on element T mod n of its cycle, "
                  "at every point, phase and copy; error = points where it does not"
                : "every word holds the number of read+write passes that touched it, at every "
                  "point, phase and copy; error = wrong words",
            "1", &R->wrong, 1, 0);
    else
        hpcp_record_validation_skipped(r, "--no-verify");
    hpcp_record_counter_array(r, "cpus", cpus, b->ranks);
    mem_numa_record(r, &s->numa, b->ranks, s->p.copies);
    hpcp_record_counter_int(r, "hugepage_bytes_rank0", thp0);
    if (s->p.hugepages && thp0 == 0)
        hpcp_record_note(r, "transparent huge pages were asked for but not given");
}

static void print_plateaus(const struct mem_sweep_state *s, const struct sweep_results *R)
{
    const struct hpcp_caches *c = &s->p.caches;
    char a[32], b[32], l3[32];
    if (s->p.sweep != MEM_SWEEP_LATENCY)
        return;
    printf("plateaus (sysfs: L1d %s, L2 %s, L3 %s):\n", hpcp_format_bytes((double)c->l1d, a, 32),
           hpcp_format_bytes((double)c->l2, b, 32), hpcp_format_bytes((double)c->l3, l3, 32));
    for (int i = 0; i < R->nplateaus; i++)
        printf("  %-8s up to %12s  %10.2f ns\n", i + 1 < R->nplateaus ? "cache" : "memory",
               hpcp_format_bytes(R->plateau_size[i], a, sizeof a), R->plateau_level[i] * 1e9);
}

static void print_curve(const struct hpcp_kernel *k, const struct mem_sweep_state *s,
                        const struct sweep_results *R)
{
    char x[32];
    printf("mem %s (%s): %d point(s), %d sample(s) each, copies %s\n", k->variant,
           sweep_name(&s->p), s->npoints, s->p.run.repeat, s->p.copies_text);
    printf("%12s %12s", s->x_name, "one ns");
    if (R->many)
        printf(" %12s %8s", "many ns", "ratio");
    printf("\n");
    for (int i = 0; i < s->npoints; i++) {
        printf("%12s %12.3f", hpcp_format_bytes(s->x[i], x, sizeof x), R->one_median[i] * 1e9);
        if (R->many)
            printf(" %12.3f %8.2f", R->many_mean[i] * 1e9, R->ratio[i]);
        printf("\n");
    }
    print_plateaus(s, R);
    if (s->p.run.verify)
        printf("mem %s: validation %s (%.0f wrong)\n", k->variant,
               R->wrong == 0 ? "passed" : "FAILED", R->wrong);
    fflush(stdout);
}

static int write_record(const struct hpcp_kernel *k, struct hpcp_bench *b, struct sweep_results *R)
{
    struct mem_sweep_state *s = b->state;
    long long *cpus = mem_gather_cpus(b->comm, s->cpu);
    mem_numa_check_pages(&s->numa, b->comm, s->buffer, s->buffer_bytes);
    double wrong = R->wrong;
    MPI_Reduce(&wrong, &R->wrong, 1, MPI_DOUBLE, MPI_SUM, 0, b->comm);
    struct hpcp_record r;
    memset(&r, 0, sizeof r);
    if (b->rank == 0) {
        if (s->p.sweep == MEM_SWEEP_LATENCY)
            find_plateaus(s, R);
        build_record(&r, k, b, R, cpus, (long long)s->thp_bytes);
        if (!s->p.run.quiet)
            print_curve(k, s, R);
    }
    free(cpus);
    return hpcp_harness_commit(b->comm, &r, b->si, s->p.run.out);
}

int hpcp_mem_driver(const struct hpcp_kernel *k, const struct hpcp_sysinfo *si, int argc,
                    char **argv)
{
    struct mem_sweep_state s;
    memset(&s, 0, sizeof s);
    int rc = mem_params_prepare(&s.p, k->variant, argc, argv, si);
    if (rc)
        return rc;
    struct hpcp_bench b = {MPI_COMM_WORLD, si->rank, si->ranks, si, &s, k};
    struct pass_ctx c = {k, &b};
    struct sweep_results R;
    memset(&R, 0, sizeof R);
    s.cpu = mem_pin_rank(si, 1);
    s.active = si->rank < s.p.copies; /* the others only wait: no buffer for them */
    int numa_bad = mem_numa_gather(&s.numa, b.comm, s.cpu, s.p.copies) != 0;
    if (hpcp_any(b.comm, numa_bad))
        rc = HPCP_EXIT_RUNTIME;
    else if ((rc = k->setup(&b)) == 0) {
        R.npoints = s.npoints, R.repeat = s.p.run.repeat, R.many = s.p.copies > 1;
        int bad = !(R.one = calloc((size_t)s.npoints * (size_t)s.p.run.repeat, sizeof *R.one));
        if (R.many && si->rank == 0)
            bad |= !(R.largest = calloc((size_t)s.p.copies, sizeof *R.largest));
        rc = hpcp_any(b.comm, bad) ? HPCP_EXIT_RUNTIME : 0;
    }
    if (rc) {
        hpcp_error(b.comm, "cannot allocate the %s buffers", k->variant);
    } else {
        rc = run_phase(&c, 1, &R);
        if (!rc && R.many)
            rc = run_phase(&c, s.p.copies, &R);
        if (!rc)
            rc = write_record(k, &b, &R);
    }
    k->teardown(&b);
    mem_numa_free(&s.numa);
    free(R.one);
    free(R.largest);
    return rc;
}
