/* HPCC DGEMM: C <- beta C + alpha A B through the BLAS, on rank 0 alone (single) or every
 * rank at once (star); 2 n^3 flops; checked against A (B x) for a random x (HPCC's scaled
 * residual). docs/kernels/dgemm.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blas.h"
#include "dense.h"
#include "hpcprobe/harness.h"
#include "hpcprobe/util.h"

#define DGEMM_TOLERANCE 16.0

struct dgemm_state {
    struct dense_params p;
    int star, active;             /* star: every rank multiplies; else rank 0 alone */
    int n;
    double *a, *b, *c, *c_before; /* c_before: C as the last product found it */
    double alpha, beta;
    double *seconds;              /* per repetition, this rank */
};

static double *alloc_matrix(size_t n)
{
    return dense_alloc(n * n * sizeof(double) + 64);
}

static void generate(double *m, int n, uint64_t seed)
{
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            m[(size_t)j * n + i] = dense_element(seed, (uint64_t)i, (uint64_t)j);
}

static int dgemm_setup(struct hpcp_bench *bench)
{
    struct dgemm_state *s = bench->state;
    int failed = 0;
    if (s->active) {
        size_t n = (size_t)s->n;
        s->a = alloc_matrix(n), s->b = alloc_matrix(n), s->c = alloc_matrix(n);
        s->c_before = alloc_matrix(n);
        failed = !s->a || !s->b || !s->c || !s->c_before;
        uint64_t seed = s->p.run.seed + 3 * (uint64_t)bench->rank;
        if (!failed) {
            generate(s->a, s->n, seed);
            generate(s->b, s->n, seed + 1);
            generate(s->c, s->n, seed + 2);
            /* As HPCC: alpha and beta are elements of the data, not 1 and 0 */
            s->alpha = 1.0 + s->a[n / 2];
            s->beta = 1.0 + s->b[n / 2];
        }
    }
    return hpcp_any(bench->comm, failed) ? HPCP_EXIT_RUNTIME : 0;
}

static int dgemm_run(struct hpcp_bench *bench, double *seconds)
{
    struct dgemm_state *s = bench->state;
    *seconds = 0;
    if (!s->active)
        return 0;
    memcpy(s->c_before, s->c, (size_t)s->n * s->n * sizeof(double));
    double t0 = MPI_Wtime();
    blas_dgemm('N', 'N', s->n, s->n, s->n, s->alpha, s->a, s->n, s->b, s->n, s->beta, s->c, s->n);
    *seconds = MPI_Wtime() - t0;
    return 0;
}

/* fmax drops a NaN operand; this keeps it, so a NaN anywhere fails the check. */
static double worst_of(double a, double b)
{
    return isnan(a) || isnan(b) ? NAN : fmax(a, b);
}

static double norm_inf(const double *m, int rows, int cols, int ld)
{
    double worst = 0;
    double *sums = calloc((size_t)rows, sizeof *sums);
    if (!sums)
        return NAN;
    for (int j = 0; j < cols; j++)
        for (int i = 0; i < rows; i++)
            sums[i] += fabs(m[(size_t)j * ld + i]);
    for (int i = 0; i < rows; i++)
        worst = worst_of(worst, sums[i]);
    free(sums);
    return worst;
}

/* HPCC's check: y = C x - (beta C_before x + alpha A (B x)), error
 * ||y||_inf / (||C||_inf ||x||_inf n eps). */
static int dgemm_verify(struct hpcp_bench *bench, double *error)
{
    struct dgemm_state *s = bench->state;
    *error = 0;
    if (!s->active)
        return 0;
    int n = s->n;
    double *x = malloc(4 * (size_t)n * sizeof *x);
    if (!x) {
        *error = INFINITY;
        return 0;
    }
    double *y = x + n, *z = y + n, *w = z + n, xmax = 0;
    for (int i = 0; i < n; i++) {
        x[i] = dense_element(s->p.run.seed + 99, (uint64_t)i, 0);
        xmax = worst_of(xmax, fabs(x[i]));
    }
    blas_dgemv(n, n, 1.0, s->c, n, x, 0.0, y);        /* y = C x */
    blas_dgemv(n, n, 1.0, s->b, n, x, 0.0, z);        /* z = B x */
    blas_dgemv(n, n, s->alpha, s->a, n, z, 0.0, w);   /* w = alpha A z */
    blas_dgemv(n, n, s->beta, s->c_before, n, x, 1.0, w);
    double ymax = 0;
    for (int i = 0; i < n; i++)
        ymax = worst_of(ymax, fabs(y[i] - w[i]));
    *error = ymax / (norm_inf(s->c, n, n, n) * xmax * n * 0x1p-53);
    if (isnan(*error))
        *error = INFINITY;
    free(x);
    return 0;
}

static void dgemm_teardown(struct hpcp_bench *bench)
{
    struct dgemm_state *s = bench->state;
    free(s->a), free(s->b), free(s->c), free(s->c_before);
}

/* Rank 0: per repetition, the mean rate over the ranks that ran (HPCC's StarDGEMM is
 * the average), and each rank's best. */
static void build_record(struct hpcp_record *r, const struct hpcp_kernel *k,
                         struct hpcp_bench *bench, const double *all, int copies, double error)
{
    struct dgemm_state *s = bench->state;
    int reps = s->p.run.repeat;
    double flops = 2.0 * (double)s->n * s->n * s->n;
    double *mean = calloc((size_t)reps, sizeof *mean), *best = calloc((size_t)copies, 8);
    double *x = calloc((size_t)copies, sizeof *x);
    for (int c = 0; mean && best && x && c < copies; c++) {
        x[c] = c;
        for (int i = 0; i < reps; i++) {
            double rate = flops / all[(size_t)c * reps + i];
            mean[i] += rate / copies;
            best[c] = fmax(best[c], rate);
        }
    }
    hpcp_record_init(r, "dgemm", k->variant, k->algorithm, bench->si);
    r->threads_per_rank = s->p.threads;
    hpcp_record_param_int(r, "n", s->n);
    hpcp_record_param_double(r, "alpha", s->alpha);
    hpcp_record_param_double(r, "beta", s->beta);
    hpcp_record_param_int(r, "copies", copies);
    hpcp_record_param_double(r, "flop_per_product", flops);
    dense_record_common(r, &s->p);
    dense_blas_setup(r, s->p.threads, blas_set_threads(s->p.threads));
    if (mean)
        hpcp_record_metric(r, "flop_rate", "flop/s", mean, reps, 1);
    if (best && x)
        hpcp_record_series(r, "best_flop_rate", "rank", "1", "flop/s", "max", x, best, copies);
    r->headline_metric = "flop_rate";
    if (s->p.run.verify)
        hpcp_record_validation(r,
                               "HPCC's residual of C x against beta C0 x + alpha A (B x), "
                               "random x: ||.||_inf / (||C||_inf ||x||_inf n eps), worst rank",
                               "1", &error, 1, DGEMM_TOLERANCE);
    else
        hpcp_record_validation_skipped(r, "--no-verify");
    free(mean), free(best), free(x);
}

static void print_summary(const struct hpcp_record *r, struct hpcp_bench *bench)
{
    const struct dgemm_state *s = bench->state;
    const struct hpcp_metric *m = &r->metrics[0];
    double best = 0;
    for (int i = 0; r->nmetrics && i < m->nsamples; i++)
        best = fmax(best, m->samples[i]);
    printf("dgemm %s: n = %d, %s: %.2f Gflop/s per rank (best of %d), validation %s\n",
           bench->kernel->variant, s->n, blas_build_name(), best * 1e-9,
           r->nmetrics ? m->nsamples : 0, hpcp_verdict_word(r->validation.verdict));
    fflush(stdout);
}

/* Collective: every rank's times to rank 0, which builds the record. */
static void record(struct hpcp_record *r, struct hpcp_bench *bench, const struct hpcp_checks *v)
{
    struct dgemm_state *s = bench->state;
    int copies = s->star ? bench->ranks : 1, reps = s->p.run.repeat;
    double *all = bench->rank == 0 ? malloc((size_t)bench->ranks * reps * sizeof *all) : NULL;
    MPI_Gather(s->seconds, reps, MPI_DOUBLE, all, reps, MPI_DOUBLE, 0, bench->comm);
    if (bench->rank == 0)
        build_record(r, bench->kernel, bench, all, copies, v->n ? v->error[0] : 0);
    free(all);
}

static void start_together(struct hpcp_bench *bench)
{
    struct dgemm_state *s = bench->state;
    if (s->star)
        MPI_Barrier(bench->comm); /* every rank's product starts together */
}

static void keep(struct hpcp_bench *bench, int rep, int warm, double seconds)
{
    struct dgemm_state *s = bench->state;
    if (!warm)
        s->seconds[rep] = seconds;
}

static int after_last(struct hpcp_bench *bench)
{
    struct dgemm_state *s = bench->state;
    if (!s->star)
        hpcp_idle_barrier(bench->comm); /* single: the others wait without spinning */
    return 0;
}

/* Test hook: one wrong element of rank 0's product. */
static void corrupt(struct hpcp_bench *bench, uint64_t words)
{
    struct dgemm_state *s = bench->state;
    (void)words;
    if (bench->rank != 0)
        return;
    s->c[(size_t)s->n * (s->n / 2) + s->n / 3] += 1.0;
}

/* Test hook: a NaN in rank 0's product (fmax-style checks would drop it). */
static void poison(struct hpcp_bench *bench)
{
    struct dgemm_state *s = bench->state;
    if (bench->rank == 0)
        s->c[(size_t)s->n * (s->n / 2) + s->n / 3] = NAN;
}

static void setup_failed(struct hpcp_bench *bench)
{
    struct dgemm_state *s = bench->state;
    hpcp_error(bench->comm, "cannot allocate four %d x %d matrices", s->n, s->n);
}

static const struct hpcp_family_hooks dgemm_hooks = {
    .setup_failed = setup_failed,
    .before_run = start_together,
    .keep = keep,
    .after_last = after_last,
    .corrupt = corrupt,
    .poison = poison,
    .record = record,
    .print = print_summary,
};

static int dgemm_driver(const struct hpcp_kernel *k, const struct hpcp_sysinfo *si, int argc,
                        char **argv)
{
    struct dgemm_state s;
    memset(&s, 0, sizeof s);
    int rc = dense_params_prepare(&s.p, "dgemm", k->variant, argc, argv, si);
    if (rc)
        return rc;
    struct hpcp_bench bench = {MPI_COMM_WORLD, si->rank, si->ranks, si, &s, k};
    blas_set_threads(s.p.threads);
    s.n = (int)s.p.n;
    s.star = strcmp(k->variant, "star") == 0;
    s.active = s.star || si->rank == 0;
    s.seconds = calloc((size_t)s.p.run.repeat, sizeof *s.seconds);
    if (hpcp_any(bench.comm, !s.seconds)) {
        setup_failed(&bench);
        rc = HPCP_EXIT_RUNTIME;
    } else {
        rc = hpcp_harness_run(k, &bench, &s.p.run, &dgemm_hooks);
    }
    free(s.seconds);
    return rc;
}

const struct hpcp_kernel hpcp_dgemm_single = {
    "dgemm",
    "single",
    "blas",
    "HPCC SingleDGEMM: C <- beta C + alpha A B through the BLAS on one rank, the others idle",
    dgemm_driver,
    dgemm_setup,
    dgemm_run,
    dgemm_verify,
    dgemm_teardown,
    NULL,
    &dense_options_desc,
    &dense_flop_records};

const struct hpcp_kernel hpcp_dgemm_star = {
    "dgemm",
    "star",
    "blas",
    "HPCC StarDGEMM: every rank multiplies its own matrices at once; mean rate over ranks",
    dgemm_driver,
    dgemm_setup,
    dgemm_run,
    dgemm_verify,
    dgemm_teardown,
    NULL,
    &dense_options_desc,
    &dense_flop_records};
