/* hpl: sizes and grid, generation, the timed factorization and solve, HPL's residual
 * check and the record. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blas.h"
#include "hpl.h"
#include "hpcprobe/harness.h"
#include "hpcprobe/util.h"

#define HPL_THRESHOLD 16.0

int hpl_alloc(struct hpl *h)
{
    h->mp = (int)grid_local_count(h->N, h->nb, h->myrow, h->P);
    h->nq = (int)grid_local_count(h->N + 1, h->nb, h->mycol, h->Q);
    h->lda = (h->mp + 7) & ~7;
    if (h->lda % 512 == 0)
        h->lda += 8; /* a power-of-two stride would map every column to the same cache sets */
    if (h->lda < 8)
        h->lda = 8;
    size_t panel = (size_t)h->mp * h->nb + h->nb + 1;
    size_t wide = (size_t)(h->nq > h->nb ? h->nq : h->nb) + 1;
    h->a = dense_alloc((size_t)h->lda * (h->nq + 1) * sizeof(double));
    int bad = !h->a;
    h->panel[0] = malloc(panel * sizeof(double));
    h->panel[1] = malloc(panel * sizeof(double));
    h->ubuf = malloc((size_t)h->nb * (h->nb > 1024 ? h->nb : 1024) * sizeof(double));
    h->rowbuf = malloc(wide * sizeof(double));
    bad |= !h->panel[0] || !h->panel[1] || !h->ubuf || !h->rowbuf;
    return hpcp_any(MPI_COMM_WORLD, bad) ? -1 : 0;
}

void hpl_free(struct hpl *h)
{
    free(h->a), free(h->panel[0]), free(h->panel[1]), free(h->ubuf), free(h->rowbuf);
    h->a = NULL;
}

void hpl_generate(struct hpl *h)
{
    for (int c = 0; c < h->nq; c++) {
        uint64_t gj = (uint64_t)grid_global(c, h->nb, h->mycol, h->Q);
        double *col = h->a + (size_t)c * h->lda;
        for (int i = 0; i < h->mp; i++)
            col[i] = dense_element(h->seed, (uint64_t)grid_global(i, h->nb, h->myrow, h->P), gj);
    }
}

struct hpl_run {
    double *seconds, *rates;
    struct hpl_check check;
    int singular;
};

/* One run of the family: the distributed matrix, the options, the times and
 * the solution vector (every rank holds all of it). */
struct hpl_state {
    struct hpl h;
    struct dense_params p;
    struct hpl_run run;
    double *x;
};

/* The kernel's phases: the run's vectors, one timed factorization and solve
 * of a freshly generated system, HPL's residual. */
static int hpl_setup(struct hpcp_bench *b)
{
    struct hpl_state *s = b->state;
    s->run.seconds = calloc((size_t)s->p.run.repeat, sizeof(double));
    s->run.rates = calloc((size_t)s->p.run.repeat, sizeof(double));
    s->x = malloc((size_t)s->h.N * sizeof *s->x);
    int bad = !s->run.seconds || !s->run.rates || !s->x;
    return hpcp_any(MPI_COMM_WORLD, bad) ? HPCP_EXIT_RUNTIME : 0;
}

static int hpl_run_once(struct hpcp_bench *b, double *seconds)
{
    struct hpl_state *s = b->state;
    hpl_generate(&s->h);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    s->run.singular |= hpl_factor(&s->h) != 0;
    hpl_solve(&s->h, s->x);
    double t = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    *seconds = t;
    return 0;
}

static int hpl_verify(struct hpcp_bench *b, double *error)
{
    struct hpl_state *s = b->state;
    hpl_residual(&s->h, s->x, &s->run.check);
    *error = s->run.check.scaled;
    return 0;
}

static void hpl_teardown(struct hpcp_bench *b)
{
    struct hpl_state *s = b->state;
    free(s->run.seconds), free(s->run.rates), free(s->x);
}

static void add_check(struct hpcp_record *r, const struct hpl_check *c, int verify)
{
    const char *names[] = {"rnorm_inf", "anorm_1",   "anorm_inf",
                           "xnorm_1",   "xnorm_inf", "bnorm_inf"};
    const double values[] = {c->rnorm_inf, c->anorm_1,   c->anorm_inf,
                             c->xnorm_1,   c->xnorm_inf, c->bnorm_inf};
    for (int i = 0; verify && i < 6; i++)
        hpcp_record_param_double(r, names[i], values[i]);
    if (verify)
        hpcp_record_validation(r,
                               "HPL's scaled residual ||Ax-b||_inf / (eps (||A||_inf "
                               "||x||_inf + ||b||_inf) N) on the regenerated system",
                               "1", &c->scaled, 1, HPL_THRESHOLD);
    else
        hpcp_record_validation_skipped(r, "--no-verify");
}

static void build_record(struct hpcp_record *r, const struct hpcp_kernel *k,
                         const struct hpcp_sysinfo *si, const struct hpl *h,
                         const struct dense_params *p, const struct hpl_run *run)
{
    hpcp_record_init(r, "hpl", k->variant, k->algorithm, si);
    r->threads_per_rank = p->threads;
    hpcp_record_param_int(r, "n", h->N);
    hpcp_record_param_int(r, "nb", h->nb);
    hpcp_record_param_int(r, "p", h->P);
    hpcp_record_param_int(r, "q", h->Q);
    hpcp_record_param_int(r, "lookahead_depth", h->lookahead);
    hpcp_record_param_string(r, "process_mapping", "row-major");
    hpcp_record_param_string(r, "panel_factorization", "recursive, 16-column leaves");
    hpcp_record_param_double(r, "flop_per_solve",
                             2.0 / 3.0 * pow((double)h->N, 3) + 1.5 * (double)h->N * h->N);
    dense_record_common(r, p);
    dense_blas_setup(r, p->threads, blas_set_threads(p->threads));
    hpcp_record_metric(r, "flop_rate", "flop/s", run->rates, p->run.repeat, 1);
    hpcp_record_metric(r, "time", "s", run->seconds, p->run.repeat, 0);
    /* Where rank 0's time went in the last factorization (the rest: the solve). */
    hpcp_record_metric(r, "panel_factorization_time_rank0", "s", &h->seconds_panel, 1, 0);
    hpcp_record_metric(r, "trailing_update_time_rank0", "s", &h->seconds_update, 1, 0);
    hpcp_record_metric(r, "panel_wait_time_rank0", "s", &h->seconds_wait, 1, 0);
    r->headline_metric = "flop_rate";
    hpcp_record_counter_int(r, "pivot_rows_exchanged_rank0", h->swaps_remote);
    if (run->singular)
        hpcp_record_note(r, "a pivot was exactly zero: the matrix is singular to working "
                            "precision");
    add_check(r, &run->check, p->run.verify);
}

static void print_summary(const struct hpcp_record *r, struct hpcp_bench *b)
{
    const struct hpl_state *s = b->state;
    const struct hpl *h = &s->h;
    int reps = s->p.run.repeat;
    double best = 0;
    for (int i = 0; i < reps; i++)
        best = fmax(best, s->run.rates[i]);
    printf("hpl: N = %lld, NB = %d, grid %dx%d, look-ahead %d: %.2f Gflop/s (best of %d), "
           "rank 0: panels %.2f s, update %.2f s, waiting %.2f s; scaled residual %.3g, "
           "validation %s\n",
           h->N, h->nb, h->P, h->Q, h->lookahead, best * 1e-9, reps, h->seconds_panel,
           h->seconds_update, h->seconds_wait, r->validation.error,
           hpcp_verdict_word(r->validation.verdict));
    fflush(stdout);
}

static void keep(struct hpcp_bench *b, int rep, int warm, double seconds)
{
    struct hpl_state *s = b->state;
    double n = (double)s->h.N, flops = 2.0 / 3.0 * n * n * n + 1.5 * n * n;
    if (warm)
        return;
    s->run.seconds[rep] = seconds;
    s->run.rates[rep] = flops / seconds;
}

/* Test hook: a wrong solution, on every rank (each holds all of x). */
static void corrupt(struct hpcp_bench *b, uint64_t words)
{
    struct hpl_state *s = b->state;
    double *x = s->x;
    (void)words;
    x[s->h.N / 2] += 1e-3 * (1.0 + fabs(x[s->h.N / 2]));
}

/* Test hook: a NaN in the solution, on every rank. */
static void poison(struct hpcp_bench *b)
{
    struct hpl_state *s = b->state;
    s->x[s->h.N / 2] = NAN;
}

static void record(struct hpcp_record *r, struct hpcp_bench *b, const struct hpcp_checks *v)
{
    struct hpl_state *s = b->state;
    (void)v; /* the residual's parts are in s->run.check */
    if (b->rank == 0)
        build_record(r, b->kernel, b->si, &s->h, &s->p, &s->run);
}

static void setup_failed(struct hpcp_bench *b)
{
    const struct hpl_state *s = b->state;
    hpcp_error(MPI_COMM_WORLD, "out of memory for the solution vector (N = %lld)", s->h.N);
}

static const struct hpcp_family_hooks hpl_hooks = {
    .setup_failed = setup_failed,
    .keep = keep,
    .corrupt = corrupt,
    .poison = poison,
    .record = record,
    .print = print_summary,
};

static int hpl_driver(const struct hpcp_kernel *k, const struct hpcp_sysinfo *si, int argc,
                      char **argv)
{
    struct hpl_state s;
    memset(&s, 0, sizeof s);
    struct hpl *h = &s.h;
    int rc = dense_params_prepare(&s.p, "hpl", k->variant, argc, argv, si);
    if (rc)
        return rc;
    blas_set_threads(s.p.threads);
    h->P = s.p.p, h->Q = s.p.q, h->N = s.p.n, h->nb = s.p.nb, h->lookahead = s.p.lookahead;
    h->seed = s.p.run.seed;
    h->myrow = si->rank / h->Q, h->mycol = si->rank % h->Q;
    MPI_Comm_split(MPI_COMM_WORLD, h->myrow, h->mycol, &h->row);
    MPI_Comm_split(MPI_COMM_WORLD, h->mycol, h->myrow, &h->col);
    if (hpl_alloc(h)) {
        char size[32];
        hpcp_error(MPI_COMM_WORLD, "cannot allocate the local matrix (%s on a rank)",
                   hpcp_format_bytes(8.0 * h->lda * (h->nq + 1), size, sizeof size));
        rc = HPCP_EXIT_RUNTIME;
    } else {
        struct hpcp_bench b = {MPI_COMM_WORLD, si->rank, si->ranks, si, &s, k};
        rc = hpcp_harness_run(k, &b, &s.p.run, &hpl_hooks);
    }
    hpl_free(h);
    MPI_Comm_free(&h->row);
    MPI_Comm_free(&h->col);
    return rc;
}

const struct hpcp_kernel hpcp_hpl_mpi = {
    "hpl",
    "mpi",
    "right-looking",
    "HPL: LU with partial pivoting on a PxQ block-cyclic grid, look-ahead 1, HPL's residual",
    hpl_driver,
    hpl_setup,
    hpl_run_once,
    hpl_verify,
    hpl_teardown,
    NULL,
    &dense_options_desc,
    &dense_flop_records};
