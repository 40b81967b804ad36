/* Driver of the contention family, through the harness: plan the pairs,
 * then phase by phase, size by size (a sweep point each), warm-up and timed
 * repetitions of the kernel's run on the ranks of the phase (the others pass
 * through and wait asleep at the phase's end), and rank 0's results. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contention.h"
#include "hpcprobe/harness.h"
#include "hpcprobe/util.h"

/* The timing tables: this rank's, and rank 0's results. */
static int alloc_tables(struct hpcp_bench *b)
{
    struct cont_state *s = b->state;
    struct cont_results *R = s->results;
    const char *v = b->kernel->variant;
    int pairs = !strcmp(v, "wocon") || !strcmp(v, "wicon") || s->plan.cumulative;
    R->G = s->plan.ngroups, R->S = s->p.nsizes, R->R = s->p.run.repeat;
    size_t n = (size_t)R->G * R->S * R->R;
    int bad = !(s->mine = malloc(n * sizeof *s->mine));
    if (b->rank == 0) {
        R->mean = malloc(n * sizeof *R->mean), R->min = malloc(n * sizeof *R->min);
        R->max = malloc(n * sizeof *R->max);
        if (pairs) /* every pair's times kept */
            R->pair = malloc((n * s->plan.npairs + 1) * sizeof *R->pair);
        bad |= !R->mean || !R->min || !R->max || (pairs && !R->pair);
    }
    if (hpcp_any(b->comm, bad)) {
        hpcp_error(b->comm, "cannot allocate the timing tables");
        return HPCP_EXIT_RUNTIME;
    }
    for (size_t i = 0; i < n; i++)
        s->mine[i] = NAN;
    return 0;
}

int cont_setup(struct hpcp_bench *b, cont_planner plan)
{
    struct cont_state *s = b->state;
    static const char oom[] = "out of memory planning the pairs";
    char err[512];
    hpcp_copy_truncated(err, sizeof err, oom);
    s->plan.axis = -1;
    /* Bad input fails on every rank alike; running out of memory may fail on one. */
    if (hpcp_any(b->comm, plan(&s->plan, &s->topo, &s->p, err, sizeof err) != 0)) {
        hpcp_error(b->comm, "%s", err);
        return strcmp(err, oom) ? HPCP_EXIT_USAGE : HPCP_EXIT_RUNTIME;
    }
    size_t most = (size_t)s->p.sizes[s->p.nsizes - 1];
    s->plan.hops = malloc(((size_t)s->plan.npairs + 1) * sizeof *s->plan.hops);
    for (int i = 0; s->plan.hops && i < s->plan.npairs; i++)
        s->plan.hops[i] = cont_hops(&s->topo, s->plan.a[i], s->plan.b[i]);
    s->send = malloc(most);
    s->recv = malloc(most);
    s->dest_seconds = malloc(((size_t)s->plan.npairs + 1) * sizeof *s->dest_seconds);
    if (hpcp_any(b->comm, !s->plan.hops || !s->send || !s->recv || !s->dest_seconds)) {
        hpcp_error(b->comm, "cannot allocate the message buffers (%zu bytes each)", most);
        return HPCP_EXIT_RUNTIME;
    }
    return alloc_tables(b);
}

void cont_teardown(struct hpcp_bench *b)
{
    struct cont_state *s = b->state;
    struct cont_results *R = s->results;
    free(s->send), free(s->recv), free(s->dest_seconds), free(s->mine);
    s->send = s->recv = NULL, s->dest_seconds = s->mine = NULL;
    free(R->mean), free(R->min), free(R->max), free(R->pair);
    R->mean = R->min = R->max = R->pair = NULL;
}

static int in_phase(const struct cont_plan *pl, int i, int g)
{
    return pl->cumulative ? pl->group[i] <= pl->group_value[g] : pl->group[i] == pl->group_value[g];
}

/* This rank's partner in phase g (-1: idle) and the phase's first initiator. */
static int find_partner(struct cont_state *s, int me, int g, int *first)
{
    const struct cont_plan *pl = &s->plan;
    s->partner = -1, s->initiator = 0, *first = -1;
    for (int i = 0; i < pl->npairs; i++) {
        if (!in_phase(pl, i, g))
            continue;
        if (*first < 0)
            *first = pl->a[i];
        if (pl->a[i] == me || pl->b[i] == me) {
            s->initiator = pl->a[i] == me;
            s->partner = s->initiator ? pl->b[i] : pl->a[i];
        }
    }
    return s->partner;
}

/* Phase g: this rank's partner, the test hook's rank (the last phase's
 * first initiator), the communicator of the phase's ranks. */
static void begin_phase(struct hpcp_bench *b, int g)
{
    struct cont_state *s = b->state;
    int first, active = find_partner(s, b->rank, g, &first) >= 0;
    s->spoil = hpcp_fault_corrupt_words() > 0 && g == s->plan.ngroups - 1 && b->rank == first;
    MPI_Comm_split(b->comm, active ? 0 : MPI_UNDEFINED, b->rank, &s->active);
    s->group = g;
}

static void end_phase(struct hpcp_bench *b)
{
    struct cont_state *s = b->state;
    if (s->active != MPI_COMM_NULL)
        MPI_Comm_free(&s->active);
    hpcp_idle_barrier(b->comm); /* the ranks not in this phase waited here, asleep */
}

static int cont_points(struct hpcp_bench *b)
{
    struct cont_state *s = b->state;
    return s->plan.ngroups * s->p.nsizes;
}

/* Point i: phase i / S (the previous one ended first), size i % S. */
static int cont_point(struct hpcp_bench *b, int i)
{
    struct cont_state *s = b->state;
    int S = s->p.nsizes;
    if (i % S == 0) {
        if (i > 0)
            end_phase(b);
        begin_phase(b, i / S);
    }
    s->size_index = i % S;
    s->next_rep = -s->p.run.warmup;
    return 0;
}

/* The repetition's number (warm-ups negative), and the test hook's. */
static void cont_before_run(struct hpcp_bench *b)
{
    struct cont_state *s = b->state;
    s->rep = s->next_rep++;
    s->corrupt_now = s->spoil && s->size_index == s->p.nsizes - 1 && s->rep == s->p.run.repeat - 1;
}

/* mine[(g * S + size) * R + rep]: this rank's time per message where it
 * started a pair; wocon's rank 0 keeps every destination in R->pair. */
static void cont_keep(struct hpcp_bench *b, int rep, int warm, double seconds)
{
    struct cont_state *s = b->state;
    struct cont_results *R = s->results;
    int S = s->p.nsizes, reps = s->p.run.repeat, npairs = s->plan.npairs, z = s->size_index;
    (void)seconds;
    if (warm || s->active == MPI_COMM_NULL)
        return;
    if (s->initiator)
        s->mine[((size_t)s->group * S + z) * reps + rep] = s->seconds;
    if (R->pair && b->rank == 0 && !strcmp(b->kernel->variant, "wocon"))
        memcpy(R->pair + ((size_t)z * reps + rep) * npairs, s->dest_seconds,
               (size_t)npairs * sizeof *R->pair);
}

/* Mean, min and max over the pairs of each phase, size and repetition. */
static void reduce_phases(struct hpcp_bench *b, const double *mine, struct cont_results *R)
{
    size_t n = (size_t)R->G * R->S * R->R;
    double *sum = calloc(n, sizeof *sum), *count = calloc(n, sizeof *count);
    double *lo = malloc(n * sizeof *lo), *hi = malloc(n * sizeof *hi);
    for (size_t i = 0; i < n; i++) {
        int have = !isnan(mine[i]);
        sum[i] = have ? mine[i] : 0, count[i] = have;
        lo[i] = have ? mine[i] : INFINITY, hi[i] = have ? mine[i] : -INFINITY;
    }
    int root = b->rank == 0;
    MPI_Reduce(root ? MPI_IN_PLACE : sum, sum, (int)n, MPI_DOUBLE, MPI_SUM, 0, b->comm);
    MPI_Reduce(root ? MPI_IN_PLACE : count, count, (int)n, MPI_DOUBLE, MPI_SUM, 0, b->comm);
    MPI_Reduce(root ? MPI_IN_PLACE : lo, lo, (int)n, MPI_DOUBLE, MPI_MIN, 0, b->comm);
    MPI_Reduce(root ? MPI_IN_PLACE : hi, hi, (int)n, MPI_DOUBLE, MPI_MAX, 0, b->comm);
    for (size_t i = 0; root && i < n; i++) {
        R->mean[i] = count[i] ? sum[i] / count[i] : NAN;
        R->min[i] = count[i] ? lo[i] : NAN;
        R->max[i] = count[i] ? hi[i] : NAN;
    }
    free(sum), free(count), free(lo), free(hi);
}

/* Every pair's own times on rank 0. wicon: gathered from each pair's first
 * rank; stress-link (a few pairs, many phases): each pair's slot, reduced. */
static void gather_pairs(struct hpcp_bench *b, const double *mine, struct cont_results *R)
{
    struct cont_state *s = b->state;
    size_t per = (size_t)R->G * R->S * R->R;
    int npairs = s->plan.npairs;
    if (s->plan.cumulative) {
        double *slot = malloc(per * (size_t)npairs * sizeof *slot);
        for (size_t i = 0; slot && i < per * (size_t)npairs; i++)
            slot[i] = -INFINITY;
        for (int p = 0; slot && p < npairs; p++)
            for (size_t i = 0; s->plan.a[p] == b->rank && i < per; i++)
                slot[i * npairs + p] = isnan(mine[i]) ? -INFINITY : mine[i];
        MPI_Reduce(slot, R->pair, (int)(per * npairs), MPI_DOUBLE, MPI_MAX, 0, b->comm);
        for (size_t i = 0; b->rank == 0 && i < per * (size_t)npairs; i++)
            R->pair[i] = isinf(R->pair[i]) ? NAN : R->pair[i];
        free(slot);
        return;
    }
    double *all = b->rank == 0 ? malloc(per * (size_t)b->ranks * sizeof *all) : NULL;
    MPI_Gather(mine, (int)per, MPI_DOUBLE, all, (int)per, MPI_DOUBLE, 0, b->comm);
    for (size_t i = 0; all && i < per; i++)
        for (int p = 0; p < npairs; p++)
            R->pair[i * npairs + p] = all[(size_t)s->plan.a[p] * per + i];
    free(all);
}

/* After the last point: the last phase ends; the statistics over the pairs
 * and every pair's own times go to rank 0. */
static int cont_after_last(struct hpcp_bench *b)
{
    struct cont_state *s = b->state;
    struct cont_results *R = s->results;
    int wocon = !strcmp(b->kernel->variant, "wocon");
    size_t n = (size_t)R->G * R->S * R->R;
    end_phase(b);
    if (wocon && b->rank == 0) { /* rank 0 timed every destination itself */
        for (size_t i = 0; i < n; i++) {
            const double *row = R->pair + i * s->plan.npairs;
            double sum = 0, lo = INFINITY, hi = -INFINITY;
            for (int p = 0; p < s->plan.npairs; p++)
                sum += row[p], lo = fmin(lo, row[p]), hi = fmax(hi, row[p]);
            R->mean[i] = sum / s->plan.npairs, R->min[i] = lo, R->max[i] = hi;
        }
    } else if (!wocon) {
        reduce_phases(b, s->mine, R);
    }
    if (!wocon && (s->plan.cumulative || !strcmp(b->kernel->variant, "wicon")))
        gather_pairs(b, s->mine, R); /* collective: R->pair is rank 0's only */
    return 0;
}

static void cont_record(struct hpcp_record *r, struct hpcp_bench *b, const struct hpcp_checks *v)
{
    struct cont_state *s = b->state;
    /* cont_verify's error: the wrong messages of every rank, summed on rank 0 */
    s->results->wrong = v->n ? (long long)v->error[v->n - 1] : 0;
    if (b->rank == 0)
        cont_build_record(r, b->kernel, b, s->results);
}

static void cont_print_hook(const struct hpcp_record *r, struct hpcp_bench *b)
{
    (void)r;
    cont_print(b->kernel, b->state, ((struct cont_state *)b->state)->results);
}

static const struct hpcp_family_hooks cont_hooks = {.verify_at_end = 1,
                                                    .before_run = cont_before_run,
                                                    .keep = cont_keep,
                                                    .after_last = cont_after_last,
                                                    .points = cont_points,
                                                    .point = cont_point,
                                                    .record = cont_record,
                                                    .print = cont_print_hook};

int cont_driver(const struct hpcp_kernel *k, const struct hpcp_sysinfo *si, int argc, char **argv)
{
    struct cont_state s;
    struct cont_results R;
    memset(&s, 0, sizeof s);
    memset(&R, 0, sizeof R);
    s.results = &R;
    s.active = MPI_COMM_NULL;
    int rc = cont_params_prepare(&s.p, &s.topo, k->variant, argc, argv, si);
    struct hpcp_bench b = {MPI_COMM_WORLD, si->rank, si->ranks, si, &s, k};
    if (rc == 0)
        rc = hpcp_harness_run(k, &b, &s.p.run, &cont_hooks);
    cont_plan_free(&s.plan);
    cont_topo_free(&s.topo);
    return rc;
}
