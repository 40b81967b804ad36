/* One comm function on each of its groups of ranks, through the harness:
 * a message size is a sweep point, its timed calls the repetition, the
 * stamped and compared call after them the verification. The ranks
 * outside a group sleep in a barrier while it measures; its rank 0 writes
 * the record. */
#include <stdlib.h>
#include <string.h>

#include "comm_run.h"
#include "hpcprobe/harness.h"
#include "hpcprobe/util.h"

/* One function on one group: what the phases share (b->state). */
struct comm_sweep {
    const struct comm_plan *pl;
    const struct comm_params *p;
    struct comm_buffers buf;
    struct comm_call call;
    struct comm_point *pts, scratch;
    struct comm_timed T;
    struct comm_group_info g;
    long warmup;
    int point, corrupt;
    int no_points; /* setup: rank 0 could not have the points' memory */
};

int comm_kernel_setup(struct hpcp_bench *b)
{
    struct comm_sweep *s = b->state;
    const struct comm_plan *pl = s->pl;
    const struct comm_params *p = s->p;
    s->pts = b->rank == 0 ? calloc((size_t)pl->nsizes, sizeof *s->pts) : NULL;
    if ((s->no_points = hpcp_any(b->comm, b->rank == 0 && !s->pts)))
        return HPCP_EXIT_RUNTIME;
    int bad = comm_buffers_alloc(&s->buf, pl->fn, pl->sizes[pl->nsizes - 1], b->ranks, p->off_cache,
                                 p->llc_bytes, p->timing, p->dev.transfer) != 0;
    s->call =
        (struct comm_call){b->comm, b->rank, b->ranks, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL};
    return hpcp_any(b->comm, bad) ? HPCP_EXIT_RUNTIME : 0;
}

static void sweep_setup_failed(struct hpcp_bench *b)
{
    struct comm_sweep *s = b->state;
    if (s->no_points)
        hpcp_error(b->comm, "comm %s: out of memory", s->pl->fn->name);
    else
        hpcp_error(b->comm, "comm %s: cannot allocate the %sbuffers for %zu B on %d ranks",
                   s->pl->fn->name, s->p->dev.on ? "device " : "", s->pl->sizes[s->pl->nsizes - 1],
                   b->ranks);
}

static int sweep_points(struct hpcp_bench *b)
{
    return ((struct comm_sweep *)b->state)->pl->nsizes;
}

static int sweep_point(struct hpcp_bench *b, int i)
{
    struct comm_sweep *s = b->state;
    s->point = i;
    s->call.bytes = s->pl->sizes[i];
    return 0;
}

/* The calibration (its warm-up) and the timed calls of this size. */
int comm_kernel_run(struct hpcp_bench *b, double *seconds)
{
    struct comm_sweep *s = b->state;
    const struct comm_params *p = s->p;
    struct comm_measure_how how = {p->timing, p->time_per_size, p->check, 0};
    comm_measure_time(s->pl->fn, &s->call, &s->buf, &how, &s->T, &s->warmup);
    *seconds = s->T.mean;
    return 0;
}

/* The stamped call after the timed ones: the calls this rank received
 * wrong data in (those of --check included). */
int comm_kernel_verify(struct hpcp_bench *b, double *error)
{
    struct comm_sweep *s = b->state;
    comm_measure_check(s->pl->fn, &s->call, &s->buf, s->corrupt, &s->T);
    *error = (double)s->T.wrong;
    return 0;
}

void comm_kernel_teardown(struct hpcp_bench *b)
{
    struct comm_sweep *s = b->state;
    comm_buffers_free(&s->buf);
    free(s->pts);
    s->pts = NULL;
}

/* "corrupt:N": the last size's checked call flips a byte it received. */
static void sweep_corrupt(struct hpcp_bench *b, uint64_t words)
{
    (void)words;
    ((struct comm_sweep *)b->state)->corrupt = 1;
}

/* The size's statistics over the group, on rank 0. */
static void sweep_rep_done(struct hpcp_bench *b, int rep, double error)
{
    struct comm_sweep *s = b->state;
    (void)rep, (void)error;
    comm_measure_reduce(s->pl->fn, &s->call, &s->T, s->warmup,
                        b->rank == 0 ? &s->pts[s->point] : &s->scratch);
}

static void sweep_record(struct hpcp_record *r, struct hpcp_bench *b, const struct hpcp_checks *v)
{
    struct comm_sweep *s = b->state;
    (void)v; /* the points hold what every check found, per size */
    s->g.points = s->pts;
    comm_layout(b->comm, &s->g.nodes, &s->g.ranks_per_node_max);
    if (b->rank == 0)
        comm_build_record(r, s->pl, s->p, b->si, s->pts, &s->g);
    comm_record_done(r, b->comm, s->p);
}

static void sweep_print(const struct hpcp_record *r, struct hpcp_bench *b)
{
    comm_print(r, &((struct comm_sweep *)b->state)->g);
}

static const struct hpcp_family_hooks sweep_hooks = {.setup_failed = sweep_setup_failed,
                                                     .corrupt = sweep_corrupt,
                                                     .rep_done = sweep_rep_done,
                                                     .points = sweep_points,
                                                     .point = sweep_point,
                                                     .record = sweep_record,
                                                     .print = sweep_print};

/* The members of one group: the harness measures every size, then the
 * record. comm takes neither --repeat nor --warmup: one timed repetition
 * per size, whose calibration is its warm-up. */
static int run_members(const struct hpcp_kernel *k, const struct comm_plan *pl,
                       const struct comm_params *p, MPI_Comm gc, const struct hpcp_sysinfo *si,
                       const char *note)
{
    struct comm_sweep s;
    memset(&s, 0, sizeof s);
    s.pl = pl, s.p = p;
    s.g = (struct comm_group_info){0, si->ranks, 0, 0, note, pl, NULL};
    struct hpcp_bench b = {gc, 0, 0, si, &s, k};
    MPI_Comm_rank(gc, &b.rank);
    MPI_Comm_size(gc, &b.ranks);
    s.g.ranks = b.ranks;
    struct hpcp_common c = p->run;
    c.repeat = 1, c.warmup = 0, c.verify = 1;
    return hpcp_harness_run(k, &b, &c, &sweep_hooks);
}

int comm_run_plan(const struct hpcp_kernel *k, const struct comm_plan *pl,
                  const struct comm_params *p, MPI_Comm work, const struct hpcp_sysinfo *si,
                  const char *note)
{
    int rank, worst = 0;
    MPI_Comm_rank(work, &rank);
    for (int i = 0; i < pl->ngroups && worst != HPCP_EXIT_RUNTIME; i++) {
        MPI_Comm gc;
        int rc = 0;
        MPI_Comm_split(work, rank < pl->groups[i] ? 0 : MPI_UNDEFINED, rank, &gc);
        if (gc != MPI_COMM_NULL) {
            rc = run_members(k, pl, p, gc, si, note);
            MPI_Comm_free(&gc);
        }
        hpcp_idle_barrier(work);
        MPI_Bcast(&rc, 1, MPI_INT, 0, work);
        worst = rc > worst ? rc : worst;
    }
    return worst;
}
