/* Who talks to whom in each benchmark (contention.h): deterministic, so
 * every rank plans the same pairs without messages. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contention.h"
#include "hpcprobe/rng.h"

/* A Fisher-Yates shuffle of the ranks, paired in order: a uniformly random
 * perfect matching; with an odd count the shuffle's last rank is left out.
 * Each pair is (smaller, larger): the smaller rank sends first. */
void cont_random_matching(int ranks, uint64_t seed, int *a, int *b)
{
    int *order = malloc((size_t)ranks * sizeof *order);
    if (!order)
        return;
    hpcp_shuffle(order, ranks, seed);
    for (int k = 0; 2 * k + 1 < ranks; k++) {
        int x = order[2 * k], y = order[2 * k + 1];
        a[k] = x < y ? x : y;
        b[k] = x < y ? y : x;
    }
    free(order);
}

static int add_pair(struct cont_plan *pl, int a, int b, int group)
{
    if (pl->npairs == pl->cap) {
        int cap = pl->cap ? 2 * pl->cap : 64;
        int *na = realloc(pl->a, (size_t)cap * sizeof *na);
        if (na)
            pl->a = na;
        int *nb = na ? realloc(pl->b, (size_t)cap * sizeof *nb) : NULL;
        if (nb)
            pl->b = nb;
        int *ng = nb ? realloc(pl->group, (size_t)cap * sizeof *ng) : NULL;
        if (!ng)
            return -1;
        pl->group = ng;
        pl->cap = cap;
    }
    pl->a[pl->npairs] = a;
    pl->b[pl->npairs] = b;
    pl->group[pl->npairs++] = group;
    return 0;
}

static void add_idle(struct cont_plan *pl, int rank)
{
    int *idle = realloc(pl->idle, (size_t)(pl->nidle + 1) * sizeof *idle);
    if (idle) {
        pl->idle = idle;
        pl->idle[pl->nidle++] = rank;
    }
}

void cont_plan_free(struct cont_plan *pl)
{
    free(pl->a), free(pl->b), free(pl->group), free(pl->hops), free(pl->idle);
    memset(pl, 0, sizeof *pl);
}

int cont_plan_wocon(struct cont_plan *pl, const struct cont_topo *t, const struct cont_params *p,
                    char *err, size_t errlen)
{
    if (t->nodes < 2) {
        snprintf(err, errlen,
                 "wocon measures between nodes, and this run has 1 node (%d "
                 "ranks on it); allowed: 2 or more nodes, or emulated ones with "
                 "--ranks-per-node N",
                 t->ranks);
        return -1;
    }
    pl->ngroups = 1;
    for (int n = 1; n < t->nodes; n++)  /* rank 0 is on node 0: nodes go by lowest rank */
        if (add_pair(pl, 0, t->node_rank[t->node_start[n]], 0))
            return -1;
    return 0;
}

int cont_pick_axis(const struct cont_topo *t, int asked, const char *what, char *err, size_t errlen)
{
    if (t->kind != CONT_GRID) {
        snprintf(err, errlen,
                 "%s works along one axis of a torus or mesh, and this run's "
                 "topology is %s; allowed: --torus DIMS, --mesh DIMS or --coords FILE",
                 what, cont_topo_kind_name(t));
        return -1;
    }
    if (asked >= t->ndims) {
        snprintf(err, errlen,
                 "--axis %d is not a dimension of this %d-dimensional grid "
                 "(allowed: 0..%d)",
                 asked, t->ndims, t->ndims - 1);
        return -1;
    }
    if (asked >= 0)
        return asked;
    int axis = 0;
    for (int k = 0; k < t->ndims; k++)
        if (t->dims[k] >= t->dims[axis])
            axis = k;
    return axis;
}

int cont_max_distance(const struct cont_topo *t, int axis)
{
    int d = t->dims[axis];
    return t->wrap[axis] && d > 2 ? d / 2 : d - 1;
}

static long long position_of(const struct cont_topo *t, const int *c)
{
    long long at = 0;
    for (int k = 0; k < t->ndims; k++)
        at = at * t->dims[k] + c[k];
    return at;
}

/* Nodes c and c + distance along `axis` with (c mod 2 distance) < distance
 * (paper 004's Figure 12), every line; rank i of one with rank i of the other. */
static int line_pairs(struct cont_plan *pl, const struct cont_topo *t, int axis, int distance,
                      int group)
{
    long long stride = 1;
    for (int k = axis + 1; k < t->ndims; k++)
        stride *= t->dims[k];
    int before = pl->npairs;
    for (int n = 0; n < t->nodes; n++) {
        const int *c = t->node_coord + (size_t)n * t->ndims;
        if (c[axis] % (2 * distance) >= distance || c[axis] + distance >= t->dims[axis])
            continue;
        int m = t->position_node[position_of(t, c) + distance * stride];
        if (m < 0)
            continue;
        int na = t->node_start[n + 1] - t->node_start[n];
        int nb = t->node_start[m + 1] - t->node_start[m];
        for (int i = 0; i < na && i < nb; i++)
            if (add_pair(pl, t->node_rank[t->node_start[n] + i], t->node_rank[t->node_start[m] + i],
                         group))
                return -1;
    }
    return pl->npairs - before;
}

/* Every rank in no pair of phase g goes to the idle list. */
static void note_idle(struct cont_plan *pl, int ranks, int from)
{
    char *paired = calloc((size_t)ranks, 1);
    for (int i = from; paired && i < pl->npairs; i++)
        paired[pl->a[i]] = paired[pl->b[i]] = 1;
    for (int r = 0; paired && r < ranks; r++)
        if (!paired[r])
            add_idle(pl, r);
    free(paired);
}

int cont_plan_wicon(struct cont_plan *pl, const struct cont_topo *t, const struct cont_params *p,
                    char *err, size_t errlen)
{
    int P = t->ranks;
    pl->ngroups = 1;
    if (p->pairing == CONT_PAIRS_NN_TORUS) {
        if ((pl->axis = cont_pick_axis(t, p->axis, "wicon --pairs nn-torus", err, errlen)) < 0 ||
            line_pairs(pl, t, pl->axis, 1, 0) < 0)
            return -1;
    } else if (p->pairing == CONT_PAIRS_RND) {
        int *a = malloc((size_t)(P / 2 + 1) * sizeof *a);
        int *b = malloc((size_t)(P / 2 + 1) * sizeof *b);
        int bad = !a || !b;
        if (!bad)
            cont_random_matching(P, p->run.seed, a, b);
        for (int k = 0; !bad && k < P / 2; k++)
            bad = add_pair(pl, a[k], b[k], 0);
        free(a), free(b);
        if (bad)
            return -1; /* out of memory: the caller's line says so */
    } else {
        for (int r = 0; r + 1 < P; r += 2)
            if (add_pair(pl, r, r + 1, 0))
                return -1;
    }
    note_idle(pl, P, 0);
    if (pl->npairs == 0) {
        snprintf(err, errlen,
                 "wicon pairs ranks, and this run's %d rank%s and topology give "
                 "no pair (allowed: 2 or more ranks; nn-torus: 2 or more nodes along the axis)",
                 P, P == 1 ? "" : "s");
        return -1;
    }
    return 0;
}

int cont_plan_stress(struct cont_plan *pl, const struct cont_topo *t, const struct cont_params *p,
                     char *err, size_t errlen)
{
    if ((pl->axis = cont_pick_axis(t, p->axis, "stress-link", err, errlen)) < 0)
        return -1;
    int D = t->dims[pl->axis], mid = D / 2, c[CONT_MAX_DIMS] = {0};
    int most = mid < D - mid ? mid : D - mid;
    if (p->max_pairs > 0 && p->max_pairs < most)
        most = p->max_pairs;
    pl->cumulative = 1;
    for (int k = 0; k < most && k < CONT_MAX_GROUPS; k++) {
        c[pl->axis] = mid - 1 - k;
        int lo = t->position_node[position_of(t, c)];
        c[pl->axis] = mid + k;
        int hi = t->position_node[position_of(t, c)];
        if (lo < 0 || hi < 0)
            break; /* the allocation ends here: the pairs so far are the experiment */
        if (add_pair(pl, t->node_rank[t->node_start[lo]], t->node_rank[t->node_start[hi]], k + 1))
            return -1;
        pl->group_value[pl->ngroups++] = k + 1;
    }
    if (pl->npairs == 0) {
        snprintf(err, errlen,
                 "stress-link needs the two nodes around the middle of axis %d "
                 "(positions %d and %d of the line through the origin), and this run %s",
                 pl->axis, mid - 1, mid, D < 2 ? "has one node along it" : "lacks one");
        return -1;
    }
    return 0;
}

int cont_plan_equidistant(struct cont_plan *pl, const struct cont_topo *t,
                          const struct cont_params *p, char *err, size_t errlen)
{
    if ((pl->axis = cont_pick_axis(t, p->axis, "equidistant", err, errlen)) < 0)
        return -1;
    int most = cont_max_distance(t, pl->axis), n = p->ndistances;
    int all[CONT_MAX_GROUPS];
    if (most == 0) {
        snprintf(err, errlen,
                 "equidistant pairs nodes along axis %d, which has one node "
                 "(allowed: an axis with 2 or more; see --axis)",
                 pl->axis);
        return -1;
    }
    for (int i = 0; i < (n ? n : most) && i < CONT_MAX_GROUPS; i++)
        all[i] = n ? p->distances[i] : i + 1;
    n = n ? n : (most < CONT_MAX_GROUPS ? most : CONT_MAX_GROUPS);
    for (int i = 0; i < n; i++) {
        if (all[i] > most) {
            snprintf(err, errlen,
                     "--distance %d is beyond axis %d: no two nodes are more than "
                     "%d hops apart along it (allowed: 1..%d)",
                     all[i], pl->axis, most, most);
            return -1;
        }
        int found = line_pairs(pl, t, pl->axis, all[i], all[i]);
        if (found < 0 || (found == 0 && p->ndistances)) {
            snprintf(err, errlen,
                     "--distance %d: no two nodes of this run are %d apart along "
                     "axis %d",
                     all[i], all[i], pl->axis);
            return -1;
        }
        if (found) /* by default, the distances this allocation has pairs at */
            pl->group_value[pl->ngroups++] = all[i];
    }
    if (pl->ngroups == 0) {
        snprintf(err, errlen,
                 "equidistant: no two nodes of this run are paired along axis %d "
                 "(allowed: 2 or more nodes on one line of it)",
                 pl->axis);
        return -1;
    }
    return 0;
}
