/* `comm --timing imb|osu`: one size repeated, warmed up and timed as IMB-MPI1
 * or the OSU micro-benchmarks do, so that the figures printed in their layouts
 * (`--format imb|osu`) are the figures those tools would measure. The policies
 * (docs/kernels/comm.md) are taken from their documentation and defaults:
 *
 * IMB-MPI1 (default -iter_policy dynamic, -sync 1): at most 1000 repetitions
 * and at most 40 MiB moved per size; one call and then about a second of calls
 * probe the time per call, and no size lasts over 10 s; a tenth of the
 * repetitions (at least 10) warm up; after two barriers, the point-to-point
 * functions and Barrier are timed as one stretch of calls, the collectives call
 * by call with an untimed barrier after each.
 *
 * OSU: 10000 iterations after 100 skipped for point-to-point messages up to
 * 8 KiB, 1000 after 10 above; 1000 after 100, and 100 after 10, for the
 * collectives; every iteration timed on its own, the collectives followed by
 * an untimed barrier.
 *
 * Each also allocates and uses its buffers as its tool does (comm_measure.c):
 * IMB from MPI_Alloc_mem, OSU page-aligned, both from the buffers' start. */
#include <string.h>

#include "comm_measure.h"

static const char *const timing_names[] = {"hpcprobe", "imb", "osu"};

int comm_timing_named(const char *name)
{
    for (int t = 0; t < (int)(sizeof timing_names / sizeof *timing_names); t++)
        if (strcmp(name, timing_names[t]) == 0)
            return t;
    return COMM_TIMING_HPCPROBE;
}

const char *comm_timing_name(int timing)
{
    return timing_names[timing];
}

#define IMB_MAX_REPS 1000                      /* MSGSPERSAMPLE */
#define IMB_MAX_BYTES_MOVED ((size_t)40 << 20) /* OVERALL_VOL */
#define IMB_SECONDS_PER_SIZE 10.0              /* SECS_PER_SAMPLE */
#define IMB_BARRIERS 2                         /* N_BARR */
#define OSU_LARGE_BYTES 8192                   /* LARGE_MESSAGE_SIZE */

/* IMB and OSU treat these as transfers between peers, the rest as collectives. */
static int is_transfer(const struct comm_function *fn)
{
    return comm_fn_one_stream(fn) || fn->sizeless;
}

static long calls_in_batch(const struct comm_timed *T, int s)
{
    long left = T->reps - (long)s * T->batch;
    return left < T->batch ? left : T->batch;
}

/* Batches of at most COMM_MAX_SAMPLES samples covering exactly `reps` calls. */
static void cut_batches(long reps, struct comm_timed *T)
{
    T->reps = reps;
    T->batch = (reps + COMM_MAX_SAMPLES - 1) / COMM_MAX_SAMPLES;
    T->nsamples = (int)((reps + T->batch - 1) / T->batch);
}

/* One call, with an untimed barrier after it when `sync`; its seconds. */
static double one_call(const struct comm_function *fn, struct comm_call *c,
                       const struct comm_buffers *b, int sync)
{
    double t0 = MPI_Wtime();
    comm_run_calls(fn, c, b, 1);
    double t = MPI_Wtime() - t0;
    if (sync)
        MPI_Barrier(c->comm);
    return t;
}

/* The calls back to back as one stretch; the clock read at batch ends only. */
static void time_stretch(const struct comm_function *fn, struct comm_call *c,
                         const struct comm_buffers *b, struct comm_timed *T)
{
    double start = MPI_Wtime(), prev = start;
    for (int s = 0; s < T->nsamples; s++) {
        long n = calls_in_batch(T, s);
        comm_run_calls(fn, c, b, n);
        double now = MPI_Wtime();
        T->samples[s] = (now - prev) / (double)n;
        prev = now;
    }
    T->mean = (prev - start) / (double)T->reps;
}

/* Every call timed alone: the sum of the calls' own times, barriers excluded. */
static void time_each(const struct comm_function *fn, struct comm_call *c,
                      const struct comm_buffers *b, int sync, struct comm_timed *T)
{
    double sum = 0;
    for (int s = 0; s < T->nsamples; s++) {
        long n = calls_in_batch(T, s);
        double in_calls = 0;
        for (long i = 0; i < n; i++)
            in_calls += one_call(fn, c, b, sync);
        T->samples[s] = in_calls / (double)n;
        sum += in_calls;
    }
    T->mean = sum / (double)T->reps;
}

/* Seconds per call of n calls between barriers, on the slowest rank. */
static double slowest_per_call(const struct comm_function *fn, struct comm_call *c,
                               const struct comm_buffers *b, long n)
{
    MPI_Barrier(c->comm);
    double t0 = MPI_Wtime();
    comm_run_calls(fn, c, b, n);
    double mine = (MPI_Wtime() - t0) / (double)n, worst;
    MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, c->comm);
    return worst;
}

/* IMB's dynamic repetitions: a one-call probe, then about a second's worth
 * (at most `reps`), and no more calls than fit in IMB_SECONDS_PER_SIZE. Every
 * rank computes the same count from the same reduced times. */
static long imb_dynamic_reps(const struct comm_function *fn, struct comm_call *c,
                             const struct comm_buffers *b, long reps, long *warmup)
{
    double t = slowest_per_call(fn, c, b, 1);
    long probe = t < 1.0 / IMB_MAX_REPS ? IMB_MAX_REPS : t < 1.0 ? (long)(1.0 / t + 0.5) : 1;
    if (probe > reps)
        probe = reps;
    *warmup += 1;
    if (probe > 1) {
        t = slowest_per_call(fn, c, b, probe);
        *warmup += probe;
    }
    double fits = 1.0 + IMB_SECONDS_PER_SIZE / t;
    return t > 1e-8 && fits < (double)reps ? (long)fits : reps;
}

static void time_as_imb(const struct comm_function *fn, struct comm_call *c,
                        const struct comm_buffers *b, struct comm_timed *T, long *warmup)
{
    size_t moved = c->bytes;
    long reps = moved == 0 ? IMB_MAX_REPS : (long)(IMB_MAX_BYTES_MOVED / moved);
    reps = reps < 1 ? 1 : reps > IMB_MAX_REPS ? IMB_MAX_REPS : reps;
    reps = imb_dynamic_reps(fn, c, b, reps, warmup);
    long warm = reps / 10 < 10 ? (reps < 10 ? reps : 10) : reps / 10;
    comm_run_calls(fn, c, b, warm);
    *warmup += warm;
    cut_batches(reps, T);
    for (int i = 0; i < IMB_BARRIERS; i++)
        MPI_Barrier(c->comm);
    if (is_transfer(fn))
        time_stretch(fn, c, b, T);
    else
        time_each(fn, c, b, 1, T);
}

static void time_as_osu(const struct comm_function *fn, struct comm_call *c,
                        const struct comm_buffers *b, struct comm_timed *T, long *warmup)
{
    int large = c->bytes > OSU_LARGE_BYTES, transfer = is_transfer(fn);
    long reps = transfer ? (large ? 1000 : 10000) : (large ? 100 : 1000);
    long skip = transfer && large ? 10 : transfer ? 100 : large ? 10 : 100;
    MPI_Barrier(c->comm);
    for (long i = 0; i < skip; i++)
        one_call(fn, c, b, !transfer);
    *warmup = skip;
    cut_batches(reps, T);
    time_each(fn, c, b, !transfer, T);
}

void comm_time_as_peer(int timing, const struct comm_function *fn, struct comm_call *c,
                       const struct comm_buffers *b, struct comm_timed *T, long *warmup)
{
    *warmup = 0;
    if (timing == COMM_TIMING_IMB)
        time_as_imb(fn, c, b, T, warmup);
    else
        time_as_osu(fn, c, b, T, warmup);
}
