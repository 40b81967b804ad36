/* `peak flops single|star`: the FMA chains' phases. single: rank 0 runs the
 * timed part while the others sleep at the barrier (as `stream single`);
 * star: every rank at once, each its own chains. The clock is measured just
 * before each repetition, outside its time. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hpcprobe/util.h"
#include "peak_flops.h"

static double timed_loop(struct peak_flops_state *f, uint64_t loops)
{
    uint64_t saved = f->loops;
    f->loops = loops;
    peak_flops_reset(f);
    double t0 = hpcp_cpu_now();
    f->loop(f->x, loops);
    double t = hpcp_cpu_now() - t0;
    f->loops = saved;
    return t;
}

/* Passes for min_time: double until one run takes an eighth of it, then
 * scale (the clock may still be rising: a little more than asked). */
static uint64_t calibrate(struct peak_flops_state *f, double min_time)
{
    uint64_t loops = 16;
    double t;
    while ((t = timed_loop(f, loops)) < min_time / 8 && loops < (1ULL << 40))
        loops *= 2;
    double scaled = t > 0 ? (double)loops * min_time / t * 1.05 : (double)loops;
    return scaled > (double)loops ? (uint64_t)scaled : loops;
}

static int alloc_rank0(struct flops_run *s)
{
    size_t reps = (size_t)s->c->repeat, warms = (size_t)(s->c->warmup > 0 ? s->c->warmup : 1);
    size_t ranks = (size_t)s->ranks;
    s->rate = calloc(3 * reps, sizeof(double));
    s->wrate = calloc(3 * warms, sizeof(double));
    s->rank_best = calloc(ranks * (reps + 1), sizeof(double));
    s->gather = calloc(2 * ranks, sizeof(double));
    if (!s->rate || !s->wrate || !s->rank_best || !s->gather)
        return -1;
    s->per_rank = s->rate + reps, s->clock = s->rate + 2 * reps;
    s->wper_rank = s->wrate + warms, s->wclock = s->wrate + 2 * warms;
    s->rank_clocks = s->rank_best + ranks;
    return 0;
}

int flops_setup(struct hpcp_bench *b)
{
    struct flops_run *s = b->state;
    struct peak_flops_state *f = &s->f;
    size_t bytes = (size_t)f->chains * (size_t)f->lanes * sizeof(double);
    f->x = malloc(bytes);
    int bad = !f->x || (b->rank == 0 && alloc_rank0(s));
    if (hpcp_any(b->comm, bad))
        return HPCP_EXIT_RUNTIME;
    uint64_t loops = f->active ? calibrate(f, s->min_time) : 0;
    /* star: the slowest rank's count for all, so every rank runs min_time */
    MPI_Allreduce(&loops, &f->loops, 1, MPI_UINT64_T, MPI_MAX, b->comm);
    return 0;
}

int flops_run(struct hpcp_bench *b, double *seconds)
{
    struct flops_run *s = b->state;
    struct peak_flops_state *f = &s->f;
    s->last_clock = f->active ? hpcp_cpu_clock(PEAK_CLOCK_SECONDS) : 0;
    peak_flops_reset(f);
    /* star: every rank starts together; single: the others sleep, not spin */
    if (s->active_ranks > 1)
        MPI_Barrier(b->comm);
    else
        hpcp_idle_barrier(b->comm);
    double t = 0;
    if (f->active) {
        double t0 = hpcp_cpu_now();
        f->loop(f->x, f->loops);
        t = hpcp_cpu_now() - t0;
    }
    *seconds = s->last_seconds = t;
    return 0;
}

/* Rank 0: this repetition's figures from every rank's time and clock. */
static void fold(struct flops_run *s, int rep, int warm)
{
    double flops = peak_flops_per_rep(&s->f), slowest = 0;
    for (int r = 0; r < s->active_ranks; r++)
        slowest = s->gather[2 * r] > slowest ? s->gather[2 * r] : slowest;
    double per_rank = slowest > 0 ? flops / slowest : 0;
    if (warm) {
        s->wrate[rep] = per_rank * s->active_ranks, s->wper_rank[rep] = per_rank;
        s->wclock[rep] = s->gather[1];
        s->warms = rep + 1;
        return;
    }
    s->rate[rep] = per_rank * s->active_ranks, s->per_rank[rep] = per_rank;
    s->clock[rep] = s->gather[1];
    s->reps = rep + 1;
    for (int r = 0; r < s->active_ranks; r++) {
        double t = s->gather[2 * r], rate = t > 0 ? flops / t : 0;
        if (rate > s->rank_best[r])
            s->rank_best[r] = rate;
        s->rank_clocks[(size_t)r * (size_t)s->c->repeat + (size_t)rep] = s->gather[2 * r + 1];
    }
}

void flops_keep(struct hpcp_bench *b, int rep, int warm, double seconds)
{
    struct flops_run *s = b->state;
    double mine[2] = {seconds, s->last_clock};
    MPI_Gather(mine, 2, MPI_DOUBLE, s->gather, 2, MPI_DOUBLE, 0, b->comm);
    if (b->rank == 0)
        fold(s, rep, warm);
}

int flops_verify(struct hpcp_bench *b, double *error)
{
    struct flops_run *s = b->state;
    *error = s->f.active ? (double)peak_flops_wrong(&s->f) : 0;
    return 0;
}

void flops_teardown(struct hpcp_bench *b)
{
    struct flops_run *s = b->state;
    free(s->f.x), free(s->rate), free(s->wrate), free(s->rank_best), free(s->gather);
    s->f.x = NULL, s->rate = s->wrate = s->rank_best = s->gather = NULL;
}

/* Test hooks: rank 0's first lane one ulp off, or a NaN. */
void flops_corrupt(struct hpcp_bench *b, uint64_t words)
{
    struct flops_run *s = b->state;
    (void)words;
    if (b->rank != 0 || !s->f.active)
        return;
    if (s->f.precision == PEAK_DOUBLE)
        ((double *)s->f.x)[0] = nextafter(((double *)s->f.x)[0], 2.0);
    else
        ((float *)s->f.x)[0] = nextafterf(((float *)s->f.x)[0], 2.0f);
}

void flops_poison(struct hpcp_bench *b)
{
    struct flops_run *s = b->state;
    if (b->rank != 0 || !s->f.active)
        return;
    if (s->f.precision == PEAK_DOUBLE)
        ((double *)s->f.x)[0] = NAN;
    else
        ((float *)s->f.x)[0] = NAN;
}
