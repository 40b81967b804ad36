/* RandomAccess `mpi`, algorithm `staged`: Plimpton et al.'s synchronous
 * all2all done in d stages over a d-dimensional logical grid of the ranks
 * (their Figure 1). Every step each rank generates `lookahead` updates;
 * then, axis by axis, it exchanges with the ranks of its line along that
 * axis (those whose coordinates differ from its own on that axis only),
 * sending each update to the line member whose coordinate on the axis is
 * the owner's. After the last axis every update it holds is its own, and it
 * applies them. d = 1 is the 1-D all2all (`alltoall`); a grid of 2s
 * (P = 2^d) is the hypercube; in between, 2-D and 3-D grids. A rank sends
 * to sum(D_k - 1) ranks per step instead of P - 1, and each update crosses
 * up to d lines instead of one.
 *
 * The grid is --dims d factorised by MPI_Dims_create into near-equal sizes
 * (any P; d from 1 to log2 P), or --grid as given. An axis of one rank has
 * no exchange and is no stage.
 *
 * Each stage is an MPI_Alltoallv on the line's communicator, after an
 * MPI_Alltoall of the counts (the receiver cannot know them). Why not
 * pairwise sends: a stage is an all-to-all among the D_k ranks of the line,
 * the very operation Figure 1 stages, and MPI_Alltoallv is what `alltoall`
 * uses, so d = 1 runs exactly alltoall's exchange and what changes across d
 * is the staging alone, not how each exchange is scheduled. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcprobe/record.h"
#include "hpcprobe/util.h"
#include "ra_mpi.h"

struct staged {
    MPI_Comm comm;                 /* private: ours alone */
    int nd;                        /* axes of more than one rank: the stages */
    int size[RA_MAX_DIMS];         /* ranks on this rank's line along each */
    int stride[RA_MAX_DIMS];       /* global-rank distance of neighbours on it */
    int mine[RA_MAX_DIMS];         /* this rank's coordinate: its rank in line[k] */
    MPI_Comm line[RA_MAX_DIMS];
    uint64_t *held, *grouped;      /* the list in hand; it grouped by coordinate */
    size_t held_cap, grouped_cap;
    int *coord;                    /* of grouped[i]'s update, before grouping */
    size_t coord_cap;
    int *scount, *sdispl, *rcount, *rdispl; /* the longest line's size each */
    unsigned char *sent_to;        /* per global rank: sent to in this repetition */
};

/* The axes of the grid that hold more than one rank, in order (row-major
 * coordinates, as the torus numbers ranks). */
static void plan_axes(struct staged *g, const struct ra_params *p, int me)
{
    int stride = 1;
    g->nd = 0;
    for (int k = p->ndims - 1; k >= 0; k--) {
        if (p->grid[k] > 1) {
            for (int j = g->nd; j > 0; j--) { /* keep axis 0 first */
                g->size[j] = g->size[j - 1];
                g->stride[j] = g->stride[j - 1];
                g->mine[j] = g->mine[j - 1];
            }
            g->size[0] = p->grid[k];
            g->stride[0] = stride;
            g->mine[0] = me / stride % p->grid[k];
            g->nd++;
        }
        stride *= p->grid[k];
    }
}

/* Grow an int array (never shrinks); -1 when out of memory. */
static int reserve_ints(int **buf, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t grown = *cap ? *cap : 64;
    while (grown < need)
        grown *= 2;
    int *bigger = realloc(*buf, grown * sizeof **buf);
    if (!bigger)
        return -1;
    *buf = bigger;
    *cap = grown;
    return 0;
}

/* Group the n held updates by their owner's coordinate on axis k. */
static void group_by_coordinate(struct ra_state *s, struct staged *g, int k, size_t n)
{
    int D = g->size[k], stride = g->stride[k];
    if (ra_reserve(&g->grouped, &g->grouped_cap, n) || reserve_ints(&g->coord, &g->coord_cap, n))
        ra_mpi_out_of_memory("the staged exchange's lists");
    for (int j = 0; j < D; j++)
        g->scount[j] = 0;
    for (size_t i = 0; i < n; i++) {
        g->coord[i] = ra_owner_of(s, g->held[i]) / stride % D;
        g->scount[g->coord[i]]++;
    }
    for (int j = 0, at = 0; j < D; j++) {
        g->sdispl[j] = at;
        at += g->scount[j];
    }
    for (size_t i = 0; i < n; i++)
        g->grouped[g->sdispl[g->coord[i]]++] = g->held[i];
    for (int j = 0; j < D; j++)
        g->sdispl[j] -= g->scount[j];
}

/* Messages are the non-empty lists sent to other ranks, as `alltoall`
 * counts them: the count exchange is not one. */
static void count_sends(struct ra_state *s, struct staged *g, int k, int me)
{
    for (int j = 0; j < g->size[k]; j++) {
        if (j == g->mine[k] || g->scount[j] == 0)
            continue;
        int to = me + (j - g->mine[k]) * g->stride[k];
        s->messages_sent++;
        s->bytes_sent += (long long)g->scount[j] * (long long)sizeof(uint64_t);
        s->partners += !g->sent_to[to];
        g->sent_to[to] = 1;
    }
}

/* Stage k: the n held updates out along axis k; returns how many arrived,
 * now held. The list kept here travels through MPI's own copy to self. */
static size_t stage(struct ra_state *s, struct staged *g, int k, size_t n, int me)
{
    int D = g->size[k];
    group_by_coordinate(s, g, k, n);
    MPI_Alltoall(g->scount, 1, MPI_INT, g->rcount, 1, MPI_INT, g->line[k]);
    size_t total = 0;
    for (int j = 0; j < D; j++) {
        g->rdispl[j] = (int)total;
        total += (size_t)g->rcount[j];
    }
    if (ra_reserve(&g->held, &g->held_cap, total))
        ra_mpi_out_of_memory("the staged exchange's receive buffer");
    MPI_Alltoallv(g->grouped, g->scount, g->sdispl, MPI_UINT64_T, g->held, g->rcount, g->rdispl,
                  MPI_UINT64_T, g->line[k]);
    count_sends(s, g, k, me);
    long long holds = (long long)(total > n ? total : n);
    s->max_pending = holds > s->max_pending ? holds : s->max_pending;
    return total;
}

static void step(struct ra_state *s, struct staged *g, uint64_t *rng_state, uint64_t n, int me)
{
    ra_generate(s->p.rng, rng_state, g->held, n);
    double t0 = MPI_Wtime();
    size_t held = (size_t)n;
    s->max_pending = (long long)n > s->max_pending ? (long long)n : s->max_pending;
    for (int k = 0; k < g->nd; k++)
        held = stage(s, g, k, held, me);
    s->route_ns += ra_elapsed_ns(t0);
    ra_apply_list(s, g->held, held);
}

static int staged_run(struct hpcp_bench *b, double *seconds)
{
    struct ra_state *s = b->state;
    struct staged *g = s->algo;
    uint64_t q = (uint64_t)s->p.lookahead, steps = ra_mpi_steps(s), done = 0, k;
    uint64_t rng_state = ra_rng_jump(s->p.rng, s->seq_start);
    ra_table_init(&s->table, s->my_start);
    memset(g->sent_to, 0, (size_t)b->ranks);
    s->stages = g->nd;
    MPI_Barrier(b->comm);
    double t0 = MPI_Wtime();
    for (k = 0; k < steps;) {
        uint64_t n = s->my_updates - done < q ? s->my_updates - done : q;
        step(s, g, &rng_state, n, b->rank);
        done += n;
        if (ra_mpi_time_up(s, g->comm, t0, k++))
            break;
    }
    MPI_Barrier(b->comm);
    *seconds = MPI_Wtime() - t0;
    s->steps = (long long)k;
    s->executed = done;
    return 0;
}

/* One communicator per stage: the ranks that differ from this one on that
 * axis only, ranked by their coordinate on it. Collective. */
static void split_lines(struct staged *g, int me)
{
    for (int k = 0; k < g->nd; k++)
        MPI_Comm_split(g->comm, me - g->mine[k] * g->stride[k], g->mine[k], &g->line[k]);
}

static int staged_setup(struct hpcp_bench *b)
{
    struct ra_state *s = b->state;
    struct staged *g = calloc(1, sizeof *g);
    s->algo = g;
    int failed = !g, longest = 1;
    if (g) {
        g->comm = MPI_COMM_NULL;
        for (int k = 0; k < RA_MAX_DIMS; k++)
            g->line[k] = MPI_COMM_NULL;
        plan_axes(g, &s->p, b->rank);
        for (int k = 0; k < g->nd; k++)
            longest = g->size[k] > longest ? g->size[k] : longest;
        size_t q = (size_t)s->p.lookahead;
        g->scount = malloc(4 * (size_t)longest * sizeof *g->scount);
        g->sent_to = calloc((size_t)b->ranks, 1);
        failed = !g->scount || !g->sent_to || ra_reserve(&g->held, &g->held_cap, 2 * q) ||
                 ra_reserve(&g->grouped, &g->grouped_cap, 2 * q) ||
                 reserve_ints(&g->coord, &g->coord_cap, 2 * q);
        if (g->scount) {
            g->sdispl = g->scount + longest;
            g->rcount = g->scount + 2 * longest;
            g->rdispl = g->scount + 3 * longest;
        }
    }
    if (ra_mpi_setup(b, g ? &g->comm : NULL, failed))
        return HPCP_EXIT_RUNTIME;
    split_lines(g, b->rank); /* every rank got here with its state: none failed */
    return 0;
}

static void staged_teardown(struct hpcp_bench *b)
{
    struct ra_state *s = b->state;
    struct staged *g = s->algo;
    if (g) {
        for (int k = 0; k < RA_MAX_DIMS; k++)
            if (g->line[k] != MPI_COMM_NULL)
                MPI_Comm_free(&g->line[k]);
        free(g->held);
        free(g->grouped);
        free(g->coord);
        free(g->scount);
        free(g->sent_to);
        ra_mpi_teardown(b, &g->comm);
        free(g);
    }
    s->algo = NULL;
}

/* The record names the grid ("4x2") and its dimensions d as resolved. */
static void staged_record_params(struct hpcp_record *r, const struct ra_params *p)
{
    char text[128] = "";
    for (int i = 0; i < p->ndims; i++) {
        size_t u = strlen(text);
        snprintf(text + u, sizeof text - u, "%s%d", i ? "x" : "", p->grid[i]);
    }
    hpcp_record_param_string(r, "grid", text);
    hpcp_record_param_int(r, "dims", p->ndims);
}

static const struct ra_algorithm staged = {
    .scope = RA_SCOPE_MPI,
    .takes = RA_TAKES_MULTICORE | RA_TAKES_OWNER | RA_TAKES_GRID,
    .modes = RA_MODE_RANK_PER_CORE,
    .default_mode = 1,
    .sync_refusal = "",
    .record_params = staged_record_params,
};

const struct hpcp_kernel hpcp_ra_mpi_staged = {
    .family = "ra",
    .variant = "mpi",
    .algorithm = "staged",
    .summary = "RandomAccess on one table over all ranks, a synchronous all-to-all in d stages "
               "over a d-dimensional grid of the ranks, one per axis (Plimpton et al., Fig. 1)",
    .driver = hpcp_ra_driver,
    .setup = staged_setup,
    .run = staged_run,
    .verify = ra_mpi_verify,
    .teardown = staged_teardown,
    .family_data = &staged,
    .options = &ra_options_desc,
    .records = &ra_records,
};
