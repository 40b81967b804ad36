/* peak bandwidth: the arrays, their checks and the phases. One buffer per
 * active rank holds the largest working set, touched first by that rank once
 * it is pinned; each point (a level and a kernel) carves its arrays from it,
 * fills them, runs a warm-up sweep and calibrates the sweeps a repetition
 * runs. */
#include <math.h>
#include <string.h>

#include "hpcprobe/util.h"
#include "peak_bw.h"

const char *const peak_bw_kernel_names[PEAK_BW_KERNELS] = {"load", "copy", "triad"};
const char *const peak_bw_level_names[PEAK_BW_LEVELS] = {"l1", "l2", "l3", "memory", "custom"};
const int peak_bw_bytes_per_element[PEAK_BW_KERNELS] = {8, 16, 24};

#define PAGE 4096

size_t peak_bw_elements(int kernel, uint64_t bytes)
{
    size_t n = (size_t)(bytes / (uint64_t)peak_bw_bytes_per_element[kernel]);
    return n - n % 8;
}

double peak_bw_bytes(int kernel, size_t n, long sweeps)
{
    return (double)peak_bw_bytes_per_element[kernel] * (double)n * (double)sweeps;
}

/* The inputs: small integers, so that sums and s*c + b are exact in any order. */
static double input(int which, size_t i)
{
    return which == 0   ? (double)(i % 16 + 1)
           : which == 1 ? (double)(i % 8 + 1)
                        : (double)(i % 4 + 1);
}

void peak_bw_fill(int kernel, double *x[3], size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (kernel == PEAK_BW_LOAD) {
            x[0][i] = input(1, i);
        } else if (kernel == PEAK_BW_COPY) {
            x[0][i] = input(0, i);
            x[1][i] = 0.0;
        } else {
            x[0][i] = 0.0;
            x[1][i] = input(1, i);
            x[2][i] = input(2, i);
        }
    }
}

/* Against the values the fill gave, not the arrays: a spoilt input counts too. */
double peak_bw_check(int kernel, double *const x[3], size_t n, double sum)
{
    if (kernel == PEAK_BW_LOAD) {
        uint64_t exact = 0;
        for (size_t i = 0; i < n; i++)
            exact += i % 8 + 1;
        return sum == (double)exact ? 0.0 : 1.0; /* one result: the sum */
    }
    double wrong = 0;
    for (size_t i = 0; i < n; i++) {
        double want =
            kernel == PEAK_BW_COPY ? input(0, i) : input(1, i) + PEAK_BW_SCALAR * input(2, i);
        double got = kernel == PEAK_BW_COPY ? x[1][i] : x[0][i];
        wrong += !(got == want); /* NaN is wrong */
    }
    return wrong;
}

static uint64_t largest_ws(const struct peak_bw_params *p)
{
    uint64_t most = 0;
    for (int i = 0; i < p->nlevels; i++)
        most = p->ws[p->levels[i]] > most ? p->ws[p->levels[i]] : most;
    return most;
}

int peak_bw_setup(struct hpcp_bench *b)
{
    struct peak_bw_state *s = b->state;
    int failed = 0;
    if (s->active) {
        size_t bytes = (size_t)largest_ws(&s->p) + 4 * PAGE + 3 * PEAK_BW_ARRAY_GAP;
        failed = hpcp_region_alloc(&s->region, bytes, s->p.hugepages) != 0;
        if (!failed) /* first touch: the pages land near the core that uses them */
            memset(s->region.base, 0, s->region.bytes);
    }
    return hpcp_any(b->comm, failed) ? HPCP_EXIT_RUNTIME : 0;
}

void peak_bw_sweep(struct peak_bw_state *s, long sweeps)
{
    const struct peak_bw_isa *isa = s->p.isa;
    int nt = peak_bw_uses_nt(isa, s->p.stores, s->level, s->kernel);
    if (s->kernel == PEAK_BW_LOAD)
        s->sum = isa->load(s->x[0], s->n, sweeps);
    else if (s->kernel == PEAK_BW_COPY)
        (nt ? isa->copy_nt : isa->copy)(s->x[1], s->x[0], s->n, sweeps);
    else
        (nt ? isa->triad_nt : isa->triad)(s->x[0], s->x[1], s->x[2], PEAK_BW_SCALAR, s->n, sweeps);
}

static double timed(struct peak_bw_state *s, long sweeps)
{
    double t0 = MPI_Wtime();
    peak_bw_sweep(s, sweeps);
    return MPI_Wtime() - t0;
}

/* Sweeps that last about --min-time: doubled until an eighth of it, then
 * scaled up (rounded up, and 5% more, so that a repetition is not shorter). */
static long calibrate(struct peak_bw_state *s)
{
    double goal = s->p.min_time, t;
    long sweeps = 1;
    peak_bw_sweep(s, 1); /* the warm-up sweep: the arrays into the level measured */
    while ((t = timed(s, sweeps)) < goal / 8 && sweeps < (1L << 40))
        sweeps *= 2;
    double scaled = ceil((double)sweeps * goal / (t > 0 ? t : goal) * 1.05);
    return scaled > (double)sweeps ? (long)scaled : sweeps;
}

int peak_bw_point(struct hpcp_bench *b, int i)
{
    struct peak_bw_state *s = b->state;
    struct peak_bw_params *p = &s->p;
    s->point = i;
    s->level = p->levels[i / p->nkernels];
    s->kernel = p->kernels[i % p->nkernels];
    s->n = peak_bw_elements(s->kernel, p->ws[s->level]);
    size_t apart = (s->n * sizeof(double) + PAGE - 1) / PAGE * PAGE + PEAK_BW_ARRAY_GAP;
    /* The array written first (copy's b, triad's a): every later array sits a
     * gap further into its page, so a store aliases only loads done before it. */
    static const int slot[PEAK_BW_KERNELS][3] = {{0, 1, 2}, {1, 0, 2}, {0, 1, 2}};
    char *base = s->region.base;
    for (int a = 0; a < 3; a++)
        s->x[a] = base ? (double *)(void *)(base + (size_t)slot[s->kernel][a] * apart) : NULL;
    long sweeps = 0;
    if (s->active) {
        peak_bw_fill(s->kernel, s->x, s->n);
        sweeps = calibrate(s);
    }
    /* every active rank runs as many sweeps: star's ranks each move as many bytes */
    peak_bw_barrier(b);
    MPI_Allreduce(&sweeps, &s->sweeps, 1, MPI_LONG, MPI_MAX, b->comm);
    return 0;
}

void peak_bw_barrier(struct hpcp_bench *b)
{
    struct peak_bw_state *s = b->state;
    if (s->p.star)
        MPI_Barrier(b->comm);
    else
        hpcp_idle_barrier(b->comm);
}

/* One repetition: the ranks start together (the driver's barrier before),
 * and the slowest one's end is the repetition's end (this barrier). */
int peak_bw_run(struct hpcp_bench *b, double *seconds)
{
    struct peak_bw_state *s = b->state;
    *seconds = s->active ? timed(s, s->sweeps) : 0.0;
    peak_bw_barrier(b);
    return 0;
}

int peak_bw_verify(struct hpcp_bench *b, double *error)
{
    struct peak_bw_state *s = b->state;
    *error = s->active ? peak_bw_check(s->kernel, s->x, s->n, s->sum) : 0.0;
    return 0;
}

void peak_bw_teardown(struct hpcp_bench *b)
{
    struct peak_bw_state *s = b->state;
    hpcp_region_free(&s->region);
}

const struct hpcp_kernel hpcp_peak_bandwidth_single = {
    "peak",
    "bandwidth-single",
    "auto",
    "load, copy and triad bandwidth of each cache level and memory on one rank, the others idle",
    hpcp_peak_bw_driver,
    peak_bw_setup,
    peak_bw_run,
    peak_bw_verify,
    peak_bw_teardown,
    NULL,
    &peak_bw_options_desc,
    &peak_bw_records};

const struct hpcp_kernel hpcp_peak_bandwidth_star = {
    "peak",
    "bandwidth-star",
    "auto",
    "load, copy and triad bandwidth of each level on every rank at once: the sum over ranks",
    hpcp_peak_bw_driver,
    peak_bw_setup,
    peak_bw_run,
    peak_bw_verify,
    peak_bw_teardown,
    NULL,
    &peak_bw_options_desc,
    &peak_bw_records};
