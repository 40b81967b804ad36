/* The contention record (docs/kernels/contention.md): the topology it
 * assumed, every measured pair with its hops, the curves and validation. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contention.h"
#include "hpcprobe/record.h"
#include "hpcprobe/util.h"

/* Per-pair curves are kept up to this many pairs; past it, per hop count. */
#define CONT_MAX_PAIR_POINTS 4096

static const char *const pairing_names[] = {"nn", "nn-torus", "rnd"};

static size_t at(const struct cont_results *R, int g, int z, int rep)
{
    return ((size_t)g * R->S + z) * R->R + rep;
}

static void add_topology(struct hpcp_record *r, const struct cont_topo *t)
{
    char text[160];
    hpcp_record_param_string(r, "topology_kind", cont_topo_kind_name(t));
    cont_topo_dims_text(t, text, sizeof text);
    hpcp_record_param_string(r, "topology_dims", text);
    cont_topo_wrap_text(t, text, sizeof text);
    hpcp_record_param_string(r, "topology_wrap", text);
    if (t->kind == CONT_TREE)
        hpcp_record_param_int(r, "topology_levels", t->ndims);
    hpcp_record_param_bool(r, "topology_dims_inferred", t->dims_inferred);
    hpcp_record_param_int(r, "topology_nodes", t->nodes);
    hpcp_record_param_int(r, "ranks_per_node", t->ranks_per_node);
    hpcp_record_param_string(r, "ranks_per_node_source",
                             t->nodes_emulated ? "option" : "mpi_comm_split_type_shared");
    hpcp_record_param_string(r, "coordinate_source", t->coord_source);
    if (t->coord_file[0])
        hpcp_record_param_string(r, "coordinate_file", t->coord_file);
}

static void add_parameters(struct hpcp_record *r, const struct hpcp_kernel *k,
                           const struct cont_state *s)
{
    const struct cont_params *p = &s->p;
    add_topology(r, &s->topo);
    hpcp_record_param_int(r, "min_message_bytes", (long long)p->sizes[0]);
    hpcp_record_param_int(r, "max_message_bytes", (long long)p->sizes[p->nsizes - 1]);
    hpcp_record_param_int(r, "message_sizes", p->nsizes);
    hpcp_record_param_int(r, "messages_per_burst", p->messages);
    hpcp_record_param_int(r, "repeat", p->run.repeat);
    hpcp_record_param_int(r, "warmup", p->run.warmup);
    hpcp_record_param_bool(r, "verify", p->run.verify);
    if (!strcmp(k->variant, "wicon")) {
        hpcp_record_param_string(r, "pairs", pairing_names[p->pairing]);
        if (p->pairing == CONT_PAIRS_RND)
            hpcp_record_param_int(r, "seed", (long long)p->run.seed);
    }
    if (s->plan.axis >= 0 && (strcmp(k->variant, "wicon") || p->pairing == CONT_PAIRS_NN_TORUS))
        hpcp_record_param_int(r, "axis", s->plan.axis);
    if (!strcmp(k->variant, "stress-link"))
        hpcp_record_param_int(r, "max_pairs", p->max_pairs);
    if (!strcmp(k->variant, "equidistant")) {
        char text[160] = "";
        for (int g = 0; g < s->plan.ngroups; g++)
            snprintf(text + strlen(text), sizeof text - strlen(text), "%s%d", g ? "," : "",
                     s->plan.group_value[g]);
        hpcp_record_param_string(r, "distances", text);
    }
}

static void add_int_counter(struct hpcp_record *r, const char *key, const int *v, long long n)
{
    long long *c = malloc((size_t)(n > 0 ? n : 1) * sizeof *c);
    for (long long i = 0; c && i < n; i++)
        c[i] = v[i];
    if (c)
        hpcp_record_counter_array(r, key, c, (int)n);
    free(c);
}

static void add_counters(struct hpcp_record *r, const struct cont_state *s)
{
    const struct cont_topo *t = &s->topo;
    const struct cont_plan *pl = &s->plan;
    add_int_counter(r, "rank_node", t->rank_node, t->ranks);
    if (t->kind != CONT_FLAT)
        add_int_counter(r, "node_coords", t->node_coord, (long long)t->nodes * t->ndims);
    add_int_counter(r, "pair_rank_a", pl->a, pl->npairs);
    add_int_counter(r, "pair_rank_b", pl->b, pl->npairs);
    add_int_counter(r, "pair_hops", pl->hops, pl->npairs);
    if (pl->npairs && pl->group[0] != 0) /* stress-link's steps, equidistant's distances */
        add_int_counter(r, "pair_phase", pl->group, pl->npairs);
    if (pl->nidle)
        add_int_counter(r, "idle_ranks", pl->idle, pl->nidle);
}

/* A curve over the message sizes: y = median of the repetitions of `v`. */
static void size_series(struct hpcp_record *r, const char *name, const struct cont_state *s,
                        const struct cont_results *R, const double *v, int g, const char *unit)
{
    int S = R->S, reps = R->R;
    double x[CONT_MAX_SIZES] = {0}, y[CONT_MAX_SIZES] = {0};
    double *samples = malloc((size_t)S * reps * sizeof *samples);
    for (int z = 0; z < S; z++) {
        x[z] = (double)s->p.sizes[z];
        for (int rep = 0; samples && rep < reps; rep++)
            samples[z * reps + rep] = v[at(R, g, z, rep)];
        y[z] = samples ? hpcp_median(samples + z * reps, reps) : NAN;
    }
    struct hpcp_series *c =
        hpcp_record_series(r, name, "message_bytes", "B", unit, "median", x, y, S);
    if (samples)
        hpcp_record_series_samples(c, samples, reps);
    free(samples);
}

/* Per size: each pair's median time against its hops (or, for many pairs,
 * the mean of the pairs at each hop count). */
static void pair_series(struct hpcp_record *r, const struct cont_state *s,
                        const struct cont_results *R)
{
    int n = s->plan.npairs, reps = R->R, most = 0;
    for (int i = 0; i < n; i++)
        most = s->plan.hops[i] > most ? s->plan.hops[i] : most;
    double *x = malloc((size_t)(n + most + 1) * sizeof *x),
           *y = malloc((size_t)(n + most + 1) * sizeof *y);
    double *samples = malloc((size_t)n * reps * sizeof *samples);
    for (int z = 0; x && y && samples && z < R->S; z++) {
        char name[64];
        for (int i = 0; i < n; i++) {
            for (int rep = 0; rep < reps; rep++)
                samples[i * reps + rep] = R->pair[at(R, 0, z, rep) * n + i];
            x[i] = s->plan.hops[i];
            y[i] = hpcp_median(samples + (size_t)i * reps, reps);
        }
        if (n <= CONT_MAX_PAIR_POINTS) {
            snprintf(name, sizeof name, "pair_time_b%llu", (unsigned long long)s->p.sizes[z]);
            hpcp_record_series_samples(
                hpcp_record_series(r, name, "hops", "1", "s", "median", x, y, n), samples, reps);
            continue;
        }
        double *sum = x + n, count[256] = {0}; /* hop counts above 255 are folded in */
        int bins = most < 256 ? most + 1 : 256, used = 0;
        for (int h = 0; h < bins; h++)
            sum[h] = 0;
        for (int i = 0; i < n; i++) {
            int h = s->plan.hops[i] < bins ? s->plan.hops[i] : bins - 1;
            sum[h] += y[i], count[h]++;
        }
        for (int h = 0; h < bins; h++)
            if (count[h])
                x[used] = h, y[used++] = sum[h] / count[h];
        snprintf(name, sizeof name, "time_by_hops_b%llu", (unsigned long long)s->p.sizes[z]);
        hpcp_record_series(r, name, "hops", "1", "s", "mean", x, y, used);
    }
    free(x), free(y), free(samples);
}

/* A metric with one sample per repetition: v at one phase and size. */
static void metric_at(struct hpcp_record *r, const char *name, const char *unit,
                      const struct cont_results *R, const double *v, size_t cell)
{
    hpcp_record_metric(r, name, unit, v + cell, R->R, 0);
}

/* Per repetition, num / den - shift: a ratio (shift 0) or a relative spread (1). */
static void metric_ratio(struct hpcp_record *r, const char *name, const struct cont_results *R,
                         const double *num, size_t at_num, const double *den, size_t at_den,
                         double shift)
{
    double *v = malloc((size_t)R->R * sizeof *v);
    for (int rep = 0; v && rep < R->R; rep++)
        v[rep] = num[at_num + rep] / den[at_den + rep] - shift;
    if (v)
        hpcp_record_metric(r, name, "1", v, R->R, 0);
    free(v);
}

static void add_wocon_wicon(struct hpcp_record *r, const struct cont_state *s,
                            const struct cont_results *R, int wocon)
{
    int z = wocon ? 0 : R->S - 1; /* hops matter most for small messages, contention for large */
    size_series(r, "message_time_mean", s, R, R->mean, 0, "s");
    size_series(r, "message_time_min", s, R, R->min, 0, "s");
    size_series(r, "message_time_max", s, R, R->max, 0, "s");
    double *spread = malloc((size_t)R->S * R->R * sizeof *spread);
    for (int i = 0; spread && i < R->S * R->R; i++)
        spread[i] = (R->max[i] - R->min[i]) / R->min[i];
    if (spread)
        size_series(r, "spread", s, R, spread, 0, "1");
    free(spread);
    pair_series(r, s, R);
    if (wocon) {
        metric_ratio(r, "hop_spread", R, R->max, at(R, 0, z, 0), R->min, at(R, 0, z, 0), 1);
        r->headline_metric = "hop_spread";
    } else {
        r->headline_metric = "message_time_mean";
    }
    metric_at(r, "message_time_mean", "s", R, R->mean, at(R, 0, z, 0));
    metric_at(r, "message_time_min", "s", R, R->min, at(R, 0, z, 0));
    metric_at(r, "message_time_max", "s", R, R->max, at(R, 0, z, 0));
}

static void add_stress(struct hpcp_record *r, const struct cont_state *s,
                       const struct cont_results *R)
{
    int n = s->plan.npairs, G = R->G, z = R->S - 1;
    double *middle = malloc((size_t)G * R->S * R->R * sizeof *middle);
    for (size_t i = 0; middle && i < (size_t)G * R->S * R->R; i++)
        middle[i] = R->pair[i * n]; /* pair 0: the middle pair */
    for (int g = 0; middle && g < G; g++) {
        char name[64];
        snprintf(name, sizeof name, "middle_pair_time_pairs_%d", s->plan.group_value[g]);
        size_series(r, name, s, R, middle, g, "s");
    }
    if (middle) {
        metric_ratio(r, "middle_pair_slowdown", R, middle, at(R, G - 1, z, 0), middle,
                     at(R, 0, z, 0), 0);
        metric_at(r, "middle_pair_time_alone", "s", R, middle, at(R, 0, z, 0));
        metric_at(r, "middle_pair_time_all", "s", R, middle, at(R, G - 1, z, 0));
        r->headline_metric = "middle_pair_slowdown";
    }
    free(middle);
}

static void add_equidistant(struct hpcp_record *r, const struct cont_state *s,
                            const struct cont_results *R)
{
    int G = R->G, z = R->S - 1;
    for (int g = 0; g < G; g++) {
        char name[64];
        snprintf(name, sizeof name, "message_time_distance_%d", s->plan.group_value[g]);
        size_series(r, name, s, R, R->mean, g, "s");
        snprintf(name, sizeof name, "message_time_max_distance_%d", s->plan.group_value[g]);
        size_series(r, name, s, R, R->max, g, "s");
    }
    if (G > 1) {
        metric_ratio(r, "far_over_near_time", R, R->mean, at(R, G - 1, z, 0), R->mean,
                     at(R, 0, z, 0), 0);
        r->headline_metric = "far_over_near_time";
    }
    metric_at(r, "message_time_mean_nearest", "s", R, R->mean, at(R, 0, z, 0));
    metric_at(r, "message_time_mean_farthest", "s", R, R->mean, at(R, G - 1, z, 0));
    if (G == 1)
        r->headline_metric = "message_time_mean_farthest";
}

static void add_notes(struct hpcp_record *r, const struct cont_state *s)
{
    const struct cont_topo *t = &s->topo;
    if (t->kind == CONT_FLAT)
        hpcp_record_note(r, "no topology given: every node counts as 2 links (one switch) from "
                            "every other; --torus, --mesh or --coords give real hop counts");
    if (t->nodes_emulated)
        hpcp_record_note(r,
                         "nodes are emulated: blocks of %d ranks (--ranks-per-node), which "
                         "may share a real node",
                         s->p.topo.ranks_per_node);
    if (s->plan.axis >= 0 && t->kind == CONT_GRID && s->plan.ngroups == CONT_MAX_GROUPS &&
        cont_max_distance(t, s->plan.axis) > CONT_MAX_GROUPS &&
        (s->plan.cumulative ? s->p.max_pairs == 0 : s->p.ndistances == 0))
        hpcp_record_note(r,
                         "the axis allows more than %d phases; the first %d ran (choose "
                         "others with --distance or --max-pairs)",
                         CONT_MAX_GROUPS, CONT_MAX_GROUPS);
    if (s->plan.nidle && s->plan.nidle < 8)
        hpcp_record_note(r, "%d rank(s) idle, in no pair (counters.idle_ranks), e.g. rank %d",
                         s->plan.nidle, s->plan.idle[0]);
    else if (s->plan.nidle)
        hpcp_record_note(r, "%d ranks idle, in no pair (counters.idle_ranks)", s->plan.nidle);
}

void cont_build_record(struct hpcp_record *r, const struct hpcp_kernel *k,
                       const struct hpcp_bench *b, const struct cont_results *R)
{
    const struct cont_state *s = b->state;
    hpcp_record_init(r, "contention", k->variant, k->algorithm, b->si);
    add_parameters(r, k, s);
    if (!strcmp(k->variant, "stress-link"))
        add_stress(r, s, R);
    else if (!strcmp(k->variant, "equidistant"))
        add_equidistant(r, s, R);
    else
        add_wocon_wicon(r, s, R, !strcmp(k->variant, "wocon"));
    double wrong = (double)R->wrong;
    if (s->p.run.verify)
        hpcp_record_validation(r,
                               "every message's stamp (sender, repetition, number) and the "
                               "whole payload of the last message of each burst, checked by "
                               "its receiver; error = wrong messages",
                               "1", &wrong, 1, 0);
    else
        hpcp_record_validation_skipped(r, "--no-verify");
    add_counters(r, s);
    add_notes(r, s);
}
