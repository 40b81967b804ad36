/* One size of one function: a calibration that is also the warm-up, the
 * timed calls in batches, validation, and the statistics over ranks. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "comm_measure.h"
#include "hpcprobe/util.h"

#define LINE 64
/* --off-cache without a known last-level cache: assume this much. */
#define DEFAULT_LLC ((uint64_t)32 << 20)

static size_t round_up(size_t n, size_t to)
{
    return (n + to - 1) / to * to;
}

/* Region bytes for extents up to `extent`: with --off-cache at least twice
 * the last-level cache, so consecutive calls find their data out of cache. */
static size_t region_bytes(size_t extent, int off_cache, uint64_t llc)
{
    size_t one = round_up(extent > 0 ? extent : 1, LINE);
    size_t cache = 2 * (size_t)(llc ? llc : DEFAULT_LLC);
    return off_cache && one < cache ? round_up(cache, one) : one;
}

size_t comm_buffer_bytes(const struct comm_function *fn, size_t max_bytes, int ranks, int off_cache,
                         uint64_t llc)
{
    size_t send, recv;
    fn->extent(max_bytes, ranks, &send, &recv);
    return region_bytes(send, off_cache, llc) + region_bytes(recv, off_cache, llc);
}

/* One region, allocated as the timing policy's tool allocates it: IMB-MPI1 with
 * MPI_Alloc_mem (which an MPI may serve from memory of its own: PyPI's MPICH moves
 * large messages from it more slowly), OSU page-aligned, hpcprobe with malloc. */
static char *alloc_region(size_t bytes, int timing)
{
    void *p = NULL;
    if (timing == COMM_TIMING_IMB)
        return MPI_Alloc_mem((MPI_Aint)bytes, MPI_INFO_NULL, &p) == MPI_SUCCESS ? p : NULL;
    if (timing == COMM_TIMING_OSU)
        return posix_memalign(&p, 4096, bytes) == 0 ? p : NULL;
    return malloc(bytes);
}

static void free_region(char *p, int timing)
{
    if (p && timing == COMM_TIMING_IMB)
        MPI_Free_mem(p);
    else
        free(p);
}

int comm_buffers_alloc(struct comm_buffers *b, const struct comm_function *fn, size_t max_bytes,
                       int ranks, int off_cache, uint64_t llc, int timing, int transfer)
{
    size_t send, recv;
    memset(b, 0, sizeof *b);
    fn->extent(max_bytes, ranks, &send, &recv);
    b->timing = timing, b->off_cache = off_cache, b->transfer = transfer;
    b->send_region = region_bytes(send, off_cache, llc);
    b->recv_region = region_bytes(recv, off_cache, llc);
    b->counts = malloc((size_t)ranks * sizeof *b->counts);
    b->displs = malloc((size_t)ranks * sizeof *b->displs);
    if (transfer != COMM_TRANSFER_NONE)
        return !b->counts || !b->displs
                   ? -1
                   : comm_device_buffers_alloc(b, round_up(send, LINE), round_up(recv, LINE));
    b->send = alloc_region(b->send_region, timing);
    b->recv = alloc_region(b->recv_region, timing);
    if (!b->send || !b->recv || !b->counts || !b->displs)
        return -1;
    /* Touch every page now: no page fault lands in a timed call. */
    memset(b->send, 0, b->send_region);
    memset(b->recv, 0, b->recv_region);
    return 0;
}

void comm_buffers_free(struct comm_buffers *b)
{
    if (b->transfer != COMM_TRANSFER_NONE) {
        comm_device_buffers_free(b);
    } else {
        free_region(b->send, b->timing);
        free_region(b->recv, b->timing);
    }
    free(b->counts);
    free(b->displs);
    memset(b, 0, sizeof *b);
}

/* Slots of this size's extents: as many as the regions hold. */
static void cut_slots(const struct comm_function *fn, struct comm_call *c, struct comm_buffers *b)
{
    size_t send, recv;
    fn->extent(c->bytes, c->ranks, &send, &recv);
    b->send_bytes = send, b->recv_bytes = recv;
    b->send_stride = round_up(send > 0 ? send : 1, LINE);
    b->recv_stride = round_up(recv > 0 ? recv : 1, LINE);
    long s = (long)(b->send_region / b->send_stride), r = (long)(b->recv_region / b->recv_stride);
    b->slots = s < r ? s : r;
    /* IMB and OSU send every call from the start of their buffers unless told to rotate
     * (IMB's -off_cache): calls below the largest size then reuse the same lines. */
    if (b->timing != COMM_TIMING_HPCPROBE && !b->off_cache)
        b->slots = 1;
    c->counts = b->counts, c->displs = b->displs;
    if (fn->layout)
        fn->layout(c);
}

static void use_slot(struct comm_call *c, const struct comm_buffers *b)
{
    long slot = b->slots > 1 ? c->iteration % b->slots : 0;
    c->sbuf = b->send + (size_t)slot * b->send_stride;
    c->rbuf = b->recv + (size_t)slot * b->recv_stride;
}

void comm_run_calls(const struct comm_function *fn, struct comm_call *c,
                    const struct comm_buffers *b, long n)
{
    /* Chosen once per batch: host and CUDA-aware calls run the same loop. */
    if (b->transfer == COMM_TRANSFER_STAGED) {
        comm_staged_calls(fn, c, b, n);
        return;
    }
    for (long i = 0; i < n; i++, c->iteration++) {
        use_slot(c, b);
        fn->call(c);
    }
}

/* Warm-up calls, more each round, until a round lasts a twentieth of the
 * budget on the slowest rank. Seconds per call: the best round's, so that
 * one interruption does not cut the repetitions short. */
static double calibrate(const struct comm_function *fn, struct comm_call *c,
                        const struct comm_buffers *b, double budget, long *calls)
{
    long k = 1;
    double per_call = INFINITY;
    *calls = 0;
    for (;;) {
        MPI_Barrier(c->comm);
        double t0 = MPI_Wtime();
        comm_run_calls(fn, c, b, k);
        double mine = MPI_Wtime() - t0, worst;
        MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, c->comm);
        *calls += k;
        per_call = fmin(per_call, worst / (double)k);
        if (worst >= budget / 20 || k >= COMM_MAX_REPS / 16)
            return per_call;
        k *= worst > budget / 160 ? 2 : 8;
    }
}

/* One checked call: stamp, call (timed), compare. Returns its seconds;
 * *wrong tells whether the data received was wrong, *bad keeps the first
 * wrong byte seen. */
static double checked_call(const struct comm_function *fn, struct comm_call *c,
                           const struct comm_buffers *b, int corrupt, int *wrong, long *bad)
{
    if (b->transfer != COMM_TRANSFER_NONE)
        return comm_device_checked_call(fn, c, b, corrupt, wrong, bad);
    use_slot(c, b);
    fn->fill(c);
    double t0 = MPI_Wtime();
    fn->call(c);
    double t = MPI_Wtime() - t0;
    size_t send, recv;
    fn->extent(c->bytes, c->ranks, &send, &recv);
    if (corrupt && recv > 0)
        c->rbuf[0] ^= 0x5a; /* HPCPROBE_INJECT_FAULT=corrupt:N: validation must see it */
    long at = fn->check(c);
    *wrong = at >= 0;
    if (at >= 0 && *bad < 0)
        *bad = at;
    c->iteration++;
    return t;
}

static void timed(const struct comm_function *fn, struct comm_call *c, const struct comm_buffers *b,
                  int check_all, struct comm_timed *T)
{
    MPI_Barrier(c->comm);
    double start = MPI_Wtime(), prev = start, sum = 0;
    for (int s = 0; s < T->nsamples; s++) {
        if (!check_all) {
            comm_run_calls(fn, c, b, T->batch);
            double now = MPI_Wtime();
            T->samples[s] = (now - prev) / (double)T->batch;
            prev = now;
            continue;
        }
        double in_calls = 0;
        for (long i = 0; i < T->batch; i++) {
            int wrong;
            in_calls += checked_call(fn, c, b, 0, &wrong, &T->bad);
            T->checked++, T->wrong += wrong;
        }
        T->samples[s] = in_calls / (double)T->batch;
        sum += in_calls;
    }
    T->mean = (check_all ? sum : prev - start) / (double)T->reps;
}

/* Repetitions for the budget, cut into at most COMM_MAX_SAMPLES batches of
 * at least COMM_MIN_SAMPLE_S each (one call per batch with --check). */
static void plan_reps(double per_call, double budget, int check_all, struct comm_timed *T)
{
    double want = per_call > 0 ? budget / per_call : (double)COMM_MAX_REPS;
    T->reps = want < 2 ? 2 : want > COMM_MAX_REPS ? COMM_MAX_REPS : (long)want;
    T->batch = check_all || per_call >= COMM_MIN_SAMPLE_S
                   ? 1
                   : (long)ceil(COMM_MIN_SAMPLE_S / (per_call > 0 ? per_call : 1e-9));
    long fewest = (T->reps + COMM_MAX_SAMPLES - 1) / COMM_MAX_SAMPLES;
    if (T->batch < fewest)
        T->batch = fewest;
    long n = T->reps / T->batch;
    T->nsamples = n < 1 ? 1 : (int)n;
    T->reps = (long)T->nsamples * T->batch;
}

/* Rank 0: t_min/avg/max over ranks, the samples' slowest rank, the first
 * wrong data; everything divided into "per call" as the function defines. */
static void reduce_point(const struct comm_function *fn, const struct comm_call *c,
                         const struct comm_timed *T, struct comm_point *pt)
{
    double mean = T->mean / fn->time_divisor, lo, hi, sum;
    double mine[COMM_MAX_SAMPLES];
    for (int s = 0; s < T->nsamples; s++)
        mine[s] = T->samples[s] / fn->time_divisor;
    MPI_Reduce(&mean, &lo, 1, MPI_DOUBLE, MPI_MIN, 0, c->comm);
    MPI_Reduce(&mean, &hi, 1, MPI_DOUBLE, MPI_MAX, 0, c->comm);
    MPI_Reduce(&mean, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, c->comm);
    MPI_Reduce(mine, pt->samples, T->nsamples, MPI_DOUBLE, MPI_MAX, 0, c->comm);
    long counts[2] = {T->checked, T->wrong}, total[2];
    MPI_Reduce(counts, total, 2, MPI_LONG, MPI_SUM, 0, c->comm);
    struct {
        int rank, at;
    } bad = {T->bad >= 0 ? c->rank : INT_MAX, T->bad > INT_MAX ? INT_MAX : (int)T->bad}, first;
    MPI_Reduce(&bad, &first, 1, MPI_2INT, MPI_MINLOC, 0, c->comm);
    if (c->rank != 0)
        return;
    pt->bytes = c->bytes, pt->reps = T->reps, pt->batch = T->batch, pt->nsamples = T->nsamples;
    pt->t_min = lo, pt->t_max = hi, pt->t_avg = sum / c->ranks;
    pt->median = hpcp_percentile(pt->samples, T->nsamples, 0.5);
    pt->p99 = hpcp_percentile(pt->samples, T->nsamples, 0.99);
    pt->bandwidth = fn->bw_factor > 0 && hi > 0 ? fn->bw_factor * (double)c->bytes / hi : NAN;
    pt->checked = total[0], pt->wrong = total[1];
    pt->bad_rank = first.rank == INT_MAX ? -1 : first.rank;
    pt->bad_byte = first.at;
}

void comm_measure_time(const struct comm_function *fn, struct comm_call *c, struct comm_buffers *b,
                       const struct comm_measure_how *how, struct comm_timed *T, long *warmup)
{
    memset(T, 0, sizeof *T);
    T->bad = -1;
    cut_slots(fn, c, b);
    int check_all = how->check_all && fn->fill;
    if (how->timing == COMM_TIMING_HPCPROBE) {
        double per_call = calibrate(fn, c, b, how->budget, warmup);
        plan_reps(per_call, how->budget, check_all, T);
        timed(fn, c, b, check_all, T);
    } else {
        comm_time_as_peer(how->timing, fn, c, b, T, warmup);
    }
}

void comm_measure_check(const struct comm_function *fn, struct comm_call *c,
                        const struct comm_buffers *b, int corrupt, struct comm_timed *T)
{
    if (fn->fill) { /* one more call, stamped and compared, whatever --check says */
        int wrong;
        checked_call(fn, c, b, corrupt, &wrong, &T->bad);
        T->checked++, T->wrong += wrong;
    }
}

void comm_measure_reduce(const struct comm_function *fn, const struct comm_call *c,
                         const struct comm_timed *T, long warmup, struct comm_point *pt)
{
    reduce_point(fn, c, T, pt);
    if (c->rank == 0)
        pt->warmup = warmup;
}
