/* HPCC PTRANS: C <- A^T + C for n x n matrices on the P x Q block-cyclic grid (HPCC takes
 * n = N/2 of HPL's order). Every block of A goes to the owner of its transposed place in C
 * through one MPI_Alltoallv; rate n^2 * 8 / t. Verified element by element against the
 * same additions replayed from the regenerated matrices. docs/kernels/ptrans.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dense.h"
#include "hpcprobe/harness.h"
#include "hpcprobe/util.h"

#define PTRANS_TOLERANCE 16.0

struct ptrans {
    struct dense_params p;
    int rank, ranks, myrow, mycol;
    long long n, mp, nq;
    double *a, *c, *send, *recv;
    int *scount, *sdispl, *rcount, *rdispl;
    int *fill;        /* unpacking: where each source's next block starts */
    double *seconds;  /* per repetition, the slowest rank's */
};

static int block_dim(long long n, int nb, long long b)
{
    long long left = n - b * nb;
    return (int)(left < nb ? left : nb);
}

static long long my_blocks(long long n, int nb, int me, int np)
{
    return (grid_local_count(n, nb, me, np) + nb - 1) / nb;
}

/* Global block index of local block lb. */
static long long gblock(long long lb, int me, int np)
{
    return lb * np + me;
}

static void generate(struct ptrans *t)
{
    int nb = t->p.nb;
    for (long long c = 0; c < t->nq; c++) {
        long long gj = grid_global(c, nb, t->mycol, t->p.q);
        for (long long i = 0; i < t->mp; i++) {
            long long gi = grid_global(i, nb, t->myrow, t->p.p);
            t->a[c * t->mp + i] = dense_element(t->p.run.seed, (uint64_t)gi, (uint64_t)gj);
            t->c[c * t->mp + i] = dense_element(t->p.run.seed + 1, (uint64_t)gi, (uint64_t)gj);
        }
    }
}

/* Send counts and displacements: block (I, J) of A goes to the owner of C's (J, I). */
static void plan_exchange(struct ptrans *t)
{
    int nb = t->p.nb, P = t->p.p, Q = t->p.q;
    memset(t->scount, 0, (size_t)t->ranks * sizeof(int));
    memset(t->rcount, 0, (size_t)t->ranks * sizeof(int));
    long long rb = my_blocks(t->n, nb, t->myrow, P), cb = my_blocks(t->n, nb, t->mycol, Q);
    for (long long i = 0; i < rb; i++)
        for (long long j = 0; j < cb; j++) {
            long long I = gblock(i, t->myrow, P), J = gblock(j, t->mycol, Q);
            /* A's block (I, J) goes to the owner of C's (J, I); C's (I, J) here needs A's
             * (J, I) of the same size from that same rank: one formula for both. */
            int peer = (int)((J % P) * Q + I % Q);
            int size = block_dim(t->n, nb, I) * block_dim(t->n, nb, J);
            if (peer == t->rank)
                continue; /* this rank's own blocks are read from A where they are */
            t->scount[peer] += size;
            t->rcount[peer] += size;
        }
    for (int r = 0, s = 0, q = 0; r < t->ranks; r++) {
        t->sdispl[r] = s, t->rdispl[r] = q;
        s += t->scount[r], q += t->rcount[r];
    }
}

static void pack(struct ptrans *t, int *fill)
{
    int nb = t->p.nb, P = t->p.p, Q = t->p.q;
    memcpy(fill, t->sdispl, (size_t)t->ranks * sizeof(int));
    long long rb = my_blocks(t->n, nb, t->myrow, P), cb = my_blocks(t->n, nb, t->mycol, Q);
    for (long long i = 0; i < rb; i++)
        for (long long j = 0; j < cb; j++) {
            long long I = gblock(i, t->myrow, P), J = gblock(j, t->mycol, Q);
            int to = (int)((J % P) * Q + I % Q), rows = block_dim(t->n, nb, I);
            int cols = block_dim(t->n, nb, J);
            if (to == t->rank)
                continue;
            for (int c = 0; c < cols; c++)
                memcpy(t->send + fill[to] + (size_t)c * rows, t->a + (j * nb + c) * t->mp + i * nb,
                       (size_t)rows * sizeof(double));
            fill[to] += rows * cols;
        }
}

/* dst[c][r] += src[r][c] (column-major, leading dimensions ldd and lds) in tiles that
 * stay in L1, so neither side is walked with a large stride for long. */
static void add_transposed(double *dst, long long ldd, const double *src, int lds, int rows,
                           int cols)
{
    enum { TILE = 32 };
    for (int c0 = 0; c0 < cols; c0 += TILE)
        for (int r0 = 0; r0 < rows; r0 += TILE) {
            int c1 = c0 + TILE < cols ? c0 + TILE : cols, r1 = r0 + TILE < rows ? r0 + TILE : rows;
            for (int c = c0; c < c1; c++)
                for (int r = r0; r < r1; r++)
                    dst[(size_t)c * ldd + r] += src[(size_t)r * lds + c];
        }
}

/* C's blocks in the order each source packed them (its block rows, then columns). */
static void unpack_add(struct ptrans *t, int *fill)
{
    int nb = t->p.nb, P = t->p.p, Q = t->p.q;
    memcpy(fill, t->rdispl, (size_t)t->ranks * sizeof(int));
    long long rb = my_blocks(t->n, nb, t->myrow, P), cb = my_blocks(t->n, nb, t->mycol, Q);
    for (long long j = 0; j < cb; j++)
        for (long long i = 0; i < rb; i++) {
            long long I = gblock(i, t->myrow, P), J = gblock(j, t->mycol, Q);
            int from = (int)((J % P) * Q + I % Q);
            int rows = block_dim(t->n, nb, I), cols = block_dim(t->n, nb, J);
            double *dst = t->c + j * nb * t->mp + i * nb;
            if (from == t->rank) { /* A's (J, I) is here: local block (J / P, I / Q) */
                add_transposed(dst, t->mp, t->a + (I / Q) * nb * t->mp + (J / P) * nb, (int)t->mp,
                               rows, cols);
                continue;
            }
            const double *blk = t->recv + fill[from]; /* A's (J, I): cols x rows */
            add_transposed(dst, t->mp, blk, cols, rows, cols);
            fill[from] += rows * cols;
        }
}

static double transpose_add(struct ptrans *t, int *fill)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    pack(t, fill);
    MPI_Alltoallv(t->send, t->scount, t->sdispl, MPI_DOUBLE, t->recv, t->rcount, t->rdispl,
                  MPI_DOUBLE, MPI_COMM_WORLD);
    unpack_add(t, fill);
    double s = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return s;
}

/* Replay: C0 + A^T added `repeat` times, element by element; relative error in eps. */
static double verify(const struct ptrans *t)
{
    int nb = t->p.nb;
    double worst = 0;
    for (long long c = 0; c < t->nq; c++) {
        long long gj = grid_global(c, nb, t->mycol, t->p.q);
        for (long long i = 0; i < t->mp; i++) {
            long long gi = grid_global(i, nb, t->myrow, t->p.p);
            double want = dense_element(t->p.run.seed + 1, (uint64_t)gi, (uint64_t)gj);
            double a = dense_element(t->p.run.seed, (uint64_t)gj, (uint64_t)gi);
            for (int r = 0; r < t->p.run.repeat; r++)
                want += a;
            double e = fabs(t->c[c * t->mp + i] - want) / (0x1p-53 * fmax(fabs(want), 1e-300));
            worst = isnan(e) ? INFINITY : fmax(worst, e);
        }
    }
    MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

static int alloc_all(struct ptrans *t)
{
    size_t local = (size_t)(t->mp * t->nq) + 1;
    t->a = dense_alloc(local * sizeof(double)), t->c = dense_alloc(local * sizeof(double));
    t->send = dense_alloc(local * sizeof(double)), t->recv = dense_alloc(local * sizeof(double));
    t->scount = malloc(5 * (size_t)t->ranks * sizeof(int));
    t->fill = malloc((size_t)t->ranks * sizeof *t->fill);
    t->seconds = calloc((size_t)t->p.run.repeat, sizeof *t->seconds);
    int bad = !t->a || !t->c || !t->send || !t->recv || !t->scount || !t->fill || !t->seconds;
    if (!bad) {
        t->sdispl = t->scount + t->ranks, t->rcount = t->sdispl + t->ranks;
        t->rdispl = t->rcount + t->ranks;
        /* Touch the buffers now: page faults are not the transpose's time. */
        memset(t->send, 0, local * sizeof(double));
        memset(t->recv, 0, local * sizeof(double));
    }
    return hpcp_any(MPI_COMM_WORLD, bad);
}

static void free_all(struct ptrans *t)
{
    free(t->a), free(t->c), free(t->send), free(t->recv), free(t->scount);
    free(t->fill), free(t->seconds);
}

static void build_record(struct hpcp_record *r, const struct hpcp_kernel *k,
                         const struct hpcp_sysinfo *si, const struct ptrans *t,
                         const double *seconds, double error)
{
    int reps = t->p.run.repeat;
    double *rates = malloc((size_t)reps * sizeof *rates);
    for (int i = 0; rates && i < reps; i++)
        rates[i] = (double)t->n * (double)t->n * 8.0 / seconds[i];
    hpcp_record_init(r, "ptrans", k->variant, k->algorithm, si);
    hpcp_record_param_int(r, "n", t->n);
    hpcp_record_param_int(r, "nb", t->p.nb);
    hpcp_record_param_int(r, "p", t->p.p);
    hpcp_record_param_int(r, "q", t->p.q);
    dense_record_common(r, &t->p);
    if (rates)
        hpcp_record_metric(r, "bandwidth", "B/s", rates, reps, 1);
    hpcp_record_metric(r, "time", "s", seconds, reps, 0);
    r->headline_metric = "bandwidth";
    if (t->p.run.verify)
        hpcp_record_validation(r,
                               "every element of C against C0 + A^T replayed from the "
                               "regenerated matrices: max relative error in units of eps",
                               "1", &error, 1, PTRANS_TOLERANCE);
    else
        hpcp_record_validation_skipped(r, "--no-verify");
    free(rates);
}

static void print_summary(const struct hpcp_record *r, struct hpcp_bench *b)
{
    const struct ptrans *t = b->state;
    const struct hpcp_metric *m = &r->metrics[0];
    int rates = r->nmetrics > 1; /* the bandwidth metric comes first when it was computed */
    printf("ptrans: n = %lld, NB = %d, grid %dx%d: %.3f GB/s (median of %d), validation %s\n", t->n,
           t->p.nb, t->p.p, t->p.q, rates ? hpcp_median(m->samples, m->nsamples) * 1e-9 : 0.0,
           t->p.run.repeat, hpcp_verdict_word(r->validation.verdict));
    fflush(stdout);
}

/* The kernel's phases: the matrices and the exchange plan, one timed
 * transpose-and-add, the element-by-element replay. */
static int ptrans_setup(struct hpcp_bench *b)
{
    struct ptrans *t = b->state;
    if (alloc_all(t))
        return HPCP_EXIT_RUNTIME;
    generate(t);
    plan_exchange(t);
    return 0;
}

static int ptrans_run(struct hpcp_bench *b, double *seconds)
{
    struct ptrans *t = b->state;
    *seconds = transpose_add(t, t->fill);
    return 0;
}

static int ptrans_verify(struct hpcp_bench *b, double *error)
{
    *error = verify(b->state);
    return 0;
}

static void ptrans_teardown(struct hpcp_bench *b)
{
    free_all(b->state);
}

static void keep(struct hpcp_bench *b, int rep, int warm, double seconds)
{
    struct ptrans *t = b->state;
    if (!warm)
        t->seconds[rep] = seconds;
}

/* Test hook: one wrong element of rank 0's C. */
static void corrupt(struct hpcp_bench *b, uint64_t words)
{
    struct ptrans *t = b->state;
    (void)words;
    if (b->rank == 0 && t->mp * t->nq > 0)
        t->c[(t->mp * t->nq) / 2] *= 1.0 + 1e-9;
}

/* Test hook: a NaN in rank 0's C. */
static void poison(struct hpcp_bench *b)
{
    struct ptrans *t = b->state;
    if (b->rank == 0 && t->mp * t->nq > 0)
        t->c[(t->mp * t->nq) / 2] = NAN;
}

static void record(struct hpcp_record *r, struct hpcp_bench *b, const struct hpcp_checks *v)
{
    struct ptrans *t = b->state;
    if (b->rank == 0)
        build_record(r, b->kernel, b->si, t, t->seconds, v->n ? v->error[0] : 0);
}

static void setup_failed(struct hpcp_bench *b)
{
    const struct ptrans *t = b->state;
    hpcp_error(b->comm, "cannot allocate PTRANS's matrices and buffers (n = %lld)", t->n);
}

static const struct hpcp_family_hooks ptrans_hooks = {
    .setup_failed = setup_failed,
    .keep = keep,
    .corrupt = corrupt,
    .poison = poison,
    .record = record,
    .print = print_summary,
};

static int ptrans_driver(const struct hpcp_kernel *k, const struct hpcp_sysinfo *si, int argc,
                         char **argv)
{
    struct ptrans t;
    memset(&t, 0, sizeof t);
    int rc = dense_params_prepare(&t.p, "ptrans", k->variant, argc, argv, si);
    if (rc)
        return rc;
    t.rank = si->rank, t.ranks = si->ranks, t.n = t.p.n;
    t.myrow = t.rank / t.p.q, t.mycol = t.rank % t.p.q;
    t.mp = grid_local_count(t.n, t.p.nb, t.myrow, t.p.p);
    t.nq = grid_local_count(t.n, t.p.nb, t.mycol, t.p.q);
    struct hpcp_bench b = {MPI_COMM_WORLD, si->rank, si->ranks, si, &t, k};
    return hpcp_harness_run(k, &b, &t.p.run, &ptrans_hooks);
}

const struct hpcp_kernel hpcp_ptrans_mpi = {
    "ptrans",
    "mpi",
    "alltoallv",
    "HPCC PTRANS: C <- A^T + C on a PxQ block-cyclic grid, one all-to-all of the blocks",
    ptrans_driver,
    ptrans_setup,
    ptrans_run,
    ptrans_verify,
    ptrans_teardown,
    NULL,
    &dense_options_desc,
    &dense_ptrans_records};
