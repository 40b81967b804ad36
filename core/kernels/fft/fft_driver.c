/* fft single|star|mpi: sizes, the timed forward transforms, HPCC's check by the inverse
 * transform (max error / (eps ln m) < 16) and the record. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcprobe/dense.h"
#include "fft.h"
#include "hpcprobe/harness.h"
#include "hpcprobe/util.h"
#ifdef HPCP_HAVE_FFTW
#include <fftw3.h>
#endif

#define FFT_THRESHOLD 16.0

/* The transform of one direction: FFTW's own 1-D plan (single, star), or the six-step. */
struct fft_exec {
    struct fft_sixstep six;
    void *plan;
    int use_six;
};

struct fft_run {
    struct dense_params p;
    int active, mpi, star;
    uint64_t m, n1, n2, first, count; /* count: my points; first: global index of the first */
    uint64_t out_count;               /* my points of the transform */
    double complex *x, *y;
    double *seconds;
    double phases[5];
    struct fft_exec fwd;              /* the timed forward transform */
    int planned;                      /* fwd is set up (until the last repetition) */
    double best_rate, error;          /* rank 0, for the summary line */
};

static double complex *vec(uint64_t n)
{
    return dense_alloc((n ? n : 1) * sizeof(double complex));
}

static void generate(struct fft_run *f, double complex *x)
{
    for (uint64_t i = 0; i < f->count; i++)
        x[i] = dense_element(f->p.run.seed, f->first + i, 0) +
               I * dense_element(f->p.run.seed, f->first + i, 1);
}

static int exec_init(struct fft_exec *e, struct fft_run *f, int sign, int flags_measure)
{
    memset(e, 0, sizeof *e);
    e->use_six = f->mpi || !f->p.use_fftw;
    if (e->use_six) {
        uint64_t n1 = sign < 0 ? f->n1 : f->n2, n2 = sign < 0 ? f->n2 : f->n1;
        return fft_sixstep_init(&e->six, f->mpi ? MPI_COMM_WORLD : MPI_COMM_SELF, n1, n2, sign,
                                f->p.use_fftw);
    }
#ifdef HPCP_HAVE_FFTW
    e->plan = fftw_plan_dft_1d((int)f->m, (fftw_complex *)f->x, (fftw_complex *)f->y,
                               sign < 0 ? FFTW_FORWARD : FFTW_BACKWARD,
                               flags_measure ? FFTW_MEASURE : FFTW_ESTIMATE);
    return e->plan ? 0 : -1;
#else
    (void)flags_measure;
    return -1;
#endif
}

/* in -> out (in may be destroyed). */
static void exec_run(struct fft_exec *e, double complex *in, double complex *out)
{
    if (e->use_six) {
        fft_sixstep_run(&e->six, in, out);
        return;
    }
#ifdef HPCP_HAVE_FFTW
    fftw_execute_dft((fftw_plan)e->plan, (fftw_complex *)in, (fftw_complex *)out);
#endif
}

static void exec_free(struct fft_exec *e)
{
    if (e->use_six)
        fft_sixstep_free(&e->six);
#ifdef HPCP_HAVE_FFTW
    else if (e->plan)
        fftw_destroy_plan((fftw_plan)e->plan);
#endif
}

static double timed_forward(struct fft_run *f, struct fft_exec *e)
{
    generate(f, f->x);
    if (f->mpi)
        MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    exec_run(e, f->x, f->y);
    double t = MPI_Wtime() - t0;
    if (f->mpi)
        MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return t;
}

/* HPCC's check: the inverse of the last forward transform against the input; the worst
 * |x - ifft(fft(x)) / m| / (eps ln m), over every rank. */
static double check(struct fft_run *f, struct fft_exec *inverse)
{
    exec_run(inverse, f->y, f->x);
    double worst = 0;
    for (uint64_t i = 0; i < f->count; i++) {
        double complex want = dense_element(f->p.run.seed, f->first + i, 0) +
                              I * dense_element(f->p.run.seed, f->first + i, 1);
        double e = cabs(f->x[i] / (double)f->m - want);
        worst = isnan(e) ? INFINITY : fmax(worst, e);
    }
    return worst / (0x1p-53 * log((double)f->m));
}

static void sizes(struct fft_run *f, int rank, int ranks)
{
    f->m = (uint64_t)1 << f->p.log2;
    f->n1 = (uint64_t)1 << (f->p.log2 / 2);
    f->n2 = f->m / f->n1;
    f->first = 0, f->count = f->out_count = f->m;
    if (f->mpi) {
        uint64_t r2, h2, r1, h1;
        fft_part(f->n2, ranks, rank, &r2, &h2);
        fft_part(f->n1, ranks, rank, &r1, &h1);
        f->first = r2 * f->n1, f->count = h2 * f->n1, f->out_count = h1 * f->n2;
    }
}

/* The kernel's phases: the vectors and the forward plan, one timed forward
 * transform, HPCC's check by the inverse. */
static int fft_setup(struct hpcp_bench *b)
{
    struct fft_run *f = b->state;
    int bad = 0;
    if (f->active) {
        f->x = vec(f->count);
        f->y = vec(f->out_count);
        bad = !f->x || !f->y || exec_init(&f->fwd, f, -1, 1);
        f->planned = !bad;
        if (!bad) /* the output's pages exist before the timed transform writes it */
            memset(f->y, 0, f->out_count * sizeof *f->y);
    }
    return hpcp_any(MPI_COMM_WORLD, bad) ? HPCP_EXIT_RUNTIME : 0;
}

static int fft_run_once(struct hpcp_bench *b, double *seconds)
{
    struct fft_run *f = b->state;
    *seconds = f->active ? timed_forward(f, &f->fwd) : 0;
    return 0;
}

static int fft_verify(struct hpcp_bench *b, double *error)
{
    struct fft_run *f = b->state;
    struct fft_exec inv;
    *error = 0;
    if (!f->active)
        return 0;
    int bad = exec_init(&inv, f, +1, 0);
    *error = bad ? INFINITY : check(f, &inv);
    if (!bad)
        exec_free(&inv);
    return 0;
}

static void fft_teardown(struct hpcp_bench *b)
{
    struct fft_run *f = b->state;
    if (f->planned)
        exec_free(&f->fwd);
    f->planned = 0;
    free(f->x), free(f->y);
    f->x = f->y = NULL;
}

static const char *engine(const struct fft_run *f)
{
    return f->p.use_fftw ? "fftw" : "internal";
}

static void add_parameters(struct hpcp_record *r, const struct fft_run *f, int copies)
{
    hpcp_record_param_int(r, "m", (long long)f->m);
    hpcp_record_param_int(r, "log2_m", f->p.log2);
    hpcp_record_param_string(r, "fft_engine", engine(f));
    if (f->mpi || !f->p.use_fftw) {
        hpcp_record_param_int(r, "n1", (long long)f->n1);
        hpcp_record_param_int(r, "n2", (long long)f->n2);
    }
    if (f->p.use_fftw)
        hpcp_record_param_string(r, "fftw_planner", "FFTW_MEASURE");
    else {
        hpcp_record_param_string(r, "internal_radices", "Stockham radix 8, 4, 2");
        hpcp_record_param_string(r, "internal_isa", fft_isa_current()->name);
    }
    hpcp_record_param_double(r, "flop_per_transform", 5.0 * (double)f->m * f->p.log2);
    hpcp_record_param_int(r, "copies", copies);
    dense_record_common(r, &f->p);
}

static void add_phases(struct hpcp_record *r, const struct fft_run *f)
{
    static const char *names[5] = {"transpose1_time", "fft1_twiddle_time", "transpose2_time",
                                   "fft2_time", "transpose3_time"};
    for (int i = 0; i < 5; i++) {
        double per = f->phases[i] / f->p.run.repeat;
        hpcp_record_metric(r, names[i], "s", &per, 1, 0);
    }
}

static void build_record(struct hpcp_record *r, const struct hpcp_kernel *k,
                         const struct hpcp_sysinfo *si, struct fft_run *f, const double *all,
                         int copies, double error)
{
    int reps = f->p.run.repeat;
    double flops = 5.0 * (double)f->m * f->p.log2;
    double *mean = calloc((size_t)reps, sizeof *mean);
    for (int c = 0; mean && c < copies; c++)
        for (int i = 0; i < reps; i++)
            mean[i] += flops / all[(size_t)c * reps + i] / copies;
    hpcp_record_init(r, "fft", k->variant, k->algorithm, si);
    add_parameters(r, f, copies);
    if (mean)
        hpcp_record_metric(r, "flop_rate", "flop/s", mean, reps, 1);
    r->headline_metric = "flop_rate";
    if (f->mpi)
        add_phases(r, f);
    if (f->p.run.verify)
        hpcp_record_validation(r,
                               "HPCC's check: the inverse transform of the result against "
                               "the input, max |x - ifft(fft(x))/m| / (eps ln m), worst rank",
                               "1", &error, 1, FFT_THRESHOLD);
    else
        hpcp_record_validation_skipped(r, "--no-verify");
    f->best_rate = 0, f->error = error;
    for (int i = 0; mean && i < reps; i++)
        f->best_rate = fmax(f->best_rate, mean[i]);
    free(mean);
}

static void print_summary(const struct hpcp_record *r, struct hpcp_bench *b)
{
    const struct fft_run *f = b->state;
    printf("fft %s: m = 2^%d, %s: %.3f Gflop/s (best of %d), validation %s (%.3g)\n",
           b->kernel->variant, f->p.log2, engine(f), f->best_rate * 1e-9, f->p.run.repeat,
           hpcp_verdict_word(r->validation.verdict), f->error);
    fflush(stdout);
}

/* Collective: every rank's times to rank 0, which builds the record. */
static void record(struct hpcp_record *r, struct hpcp_bench *b, const struct hpcp_checks *v)
{
    struct fft_run *f = b->state;
    int copies = f->star ? b->ranks : 1, reps = f->p.run.repeat;
    double *all = b->rank == 0 ? malloc((size_t)b->ranks * reps * sizeof *all) : NULL;
    MPI_Gather(f->seconds, reps, MPI_DOUBLE, all, reps, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (b->rank == 0)
        build_record(r, b->kernel, b->si, f, all, copies, v->n ? v->error[0] : 0);
    free(all);
}

static void start_together(struct hpcp_bench *b)
{
    struct fft_run *f = b->state;
    if (f->star)
        MPI_Barrier(MPI_COMM_WORLD);
}

static void keep(struct hpcp_bench *b, int rep, int warm, double seconds)
{
    struct fft_run *f = b->state;
    if (!warm)
        f->seconds[rep] = seconds;
}

/* The six-step's phase times, then the forward plan goes before the
 * inverse one is made; single's idle ranks wait without spinning. */
static int after_last(struct hpcp_bench *b)
{
    struct fft_run *f = b->state;
    if (f->active && f->mpi)
        memcpy(f->phases, f->fwd.six.phase_seconds, sizeof f->phases);
    if (f->planned)
        exec_free(&f->fwd);
    f->planned = 0;
    if (!f->mpi && !f->star)
        hpcp_idle_barrier(MPI_COMM_WORLD);
    return 0;
}

/* Test hook: one wrong point of rank 0's transform. */
static void corrupt(struct hpcp_bench *b, uint64_t words)
{
    struct fft_run *f = b->state;
    (void)words;
    if (b->rank == 0 && f->active)
        f->y[f->count / 3] += 1e-6;
}

/* Test hook: a NaN point in rank 0's transform. */
static void poison(struct hpcp_bench *b)
{
    struct fft_run *f = b->state;
    if (b->rank == 0 && f->active)
        f->y[f->count / 3] = NAN;
}

static void setup_failed(struct hpcp_bench *b)
{
    const struct fft_run *f = b->state;
    hpcp_error(MPI_COMM_WORLD, "cannot allocate or plan the transform of 2^%d points", f->p.log2);
}

static const struct hpcp_family_hooks fft_hooks = {
    .setup_failed = setup_failed,
    .before_run = start_together,
    .keep = keep,
    .after_last = after_last,
    .corrupt = corrupt,
    .poison = poison,
    .record = record,
    .print = print_summary,
};

/* HPCP_FFT_ISA (avx512, avx2, portable) forces the internal FFT's instruction set, to
 * compare them; unset, the fastest this CPU runs. */
static int choose_isa(void)
{
    const char *want = getenv("HPCP_FFT_ISA");
    if (!want || !*want)
        return 0;
    const struct fft_isa *isa = fft_isa_select(want);
    if (!isa) {
        hpcp_error(MPI_COMM_WORLD,
                   "HPCP_FFT_ISA=%s: not built, or not run by this CPU "
                   "(avx512, avx2, portable)",
                   want);
        return HPCP_EXIT_USAGE;
    }
    fft_isa_prefer(isa);
    return 0;
}

int hpcp_fft_driver(const struct hpcp_kernel *k, const struct hpcp_sysinfo *si, int argc,
                    char **argv)
{
    struct fft_run f;
    memset(&f, 0, sizeof f);
    int rc = dense_params_prepare(&f.p, "fft", k->variant, argc, argv, si);
    if (!rc)
        rc = choose_isa();
    if (rc)
        return rc;
    f.mpi = !strcmp(k->variant, "mpi");
    f.star = !strcmp(k->variant, "star");
    f.active = f.mpi || f.star || si->rank == 0;
    sizes(&f, si->rank, si->ranks);
    f.seconds = calloc((size_t)f.p.run.repeat, sizeof *f.seconds);
    struct hpcp_bench b = {MPI_COMM_WORLD, si->rank, si->ranks, si, &f, k};
    if (hpcp_any(MPI_COMM_WORLD, !f.seconds)) {
        setup_failed(&b);
        rc = HPCP_EXIT_RUNTIME;
    } else {
        rc = hpcp_harness_run(k, &b, &f.p.run, &fft_hooks);
    }
    free(f.seconds);
    return rc;
}

const struct hpcp_kernel hpcp_fft_single = {
    "fft",
    "single",
    "local",
    "HPCC SingleFFT: 1-D complex FFT of 2^k points on one rank (FFTW3 or internal Stockham)",
    hpcp_fft_driver,
    fft_setup,
    fft_run_once,
    fft_verify,
    fft_teardown,
    NULL,
    &dense_options_desc,
    &dense_flop_records};

const struct hpcp_kernel hpcp_fft_star = {
    "fft",
    "star",
    "local",
    "HPCC StarFFT: every rank transforms its own vector at once; mean rate over ranks",
    hpcp_fft_driver,
    fft_setup,
    fft_run_once,
    fft_verify,
    fft_teardown,
    NULL,
    &dense_options_desc,
    &dense_flop_records};

const struct hpcp_kernel hpcp_fft_mpi = {
    "fft",
    "mpi",
    "sixstep",
    "HPCC MPIFFT: one distributed 1-D FFT, six-step with three MPI_Alltoallv transposes",
    hpcp_fft_driver,
    fft_setup,
    fft_run_once,
    fft_verify,
    fft_teardown,
    NULL,
    &dense_options_desc,
    &dense_flop_records};
