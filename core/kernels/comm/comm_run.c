/* One comm function on each of its groups of ranks: the ranks outside a
 * group sleep in a barrier while it measures; its rank 0 writes the record. */
#include <stdlib.h>

#include "comm_run.h"
#include "hpcprobe/harness.h"
#include "hpcprobe/util.h"

static int measure_group(const struct comm_plan *pl, const struct comm_params *p, MPI_Comm gc,
                         struct comm_point *pts)
{
    int rank, ranks;
    MPI_Comm_rank(gc, &rank);
    MPI_Comm_size(gc, &ranks);
    struct comm_buffers b;
    size_t largest = pl->sizes[pl->nsizes - 1];
    int bad = comm_buffers_alloc(&b, pl->fn, largest, ranks, p->off_cache, p->llc_bytes, p->timing,
                                 p->dev.transfer) != 0;
    if (hpcp_any(gc, bad)) {
        comm_buffers_free(&b);
        hpcp_error(gc, "comm %s: cannot allocate the %sbuffers for %zu B on %d ranks", pl->fn->name,
                   p->dev.on ? "device " : "", largest, ranks);
        return HPCP_EXIT_RUNTIME;
    }
    struct comm_call c = {gc, rank, ranks, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL};
    struct comm_point scratch;
    int corrupt = hpcp_fault_corrupt_words() > 0;
    for (int i = 0; i < pl->nsizes; i++) {
        c.bytes = pl->sizes[i];
        struct comm_measure_how how = {p->timing, p->time_per_size, p->check,
                                       corrupt && i == pl->nsizes - 1};
        comm_measure(pl->fn, &c, &b, &how, rank == 0 ? &pts[i] : &scratch);
    }
    comm_buffers_free(&b);
    return 0;
}

/* The members of one group: measure, then the record (rank 0 writes it). */
static int run_members(const struct comm_plan *pl, const struct comm_params *p, MPI_Comm gc,
                       const struct hpcp_sysinfo *si, const char *note)
{
    int rank, rc;
    MPI_Comm_rank(gc, &rank);
    struct comm_point *pts = rank == 0 ? calloc((size_t)pl->nsizes, sizeof *pts) : NULL;
    if (hpcp_any(gc, rank == 0 && !pts)) {
        hpcp_error(gc, "comm %s: out of memory", pl->fn->name);
        return HPCP_EXIT_RUNTIME;
    }
    if ((rc = measure_group(pl, p, gc, pts)) != 0) {
        free(pts);
        return rc;
    }
    struct comm_group_info g = {0, si->ranks, 0, 0, note, pl, pts};
    MPI_Comm_size(gc, &g.ranks);
    comm_layout(gc, &g.nodes, &g.ranks_per_node_max);
    struct hpcp_record r;
    if (rank == 0)
        comm_build_record(&r, pl, p, si, pts, &g);
    rc = comm_commit(&r, gc, p, si, comm_print, &g);
    free(pts);
    return rc;
}

int comm_run_plan(const struct comm_plan *pl, const struct comm_params *p, MPI_Comm work,
                  const struct hpcp_sysinfo *si, const char *note)
{
    int rank, worst = 0;
    MPI_Comm_rank(work, &rank);
    for (int i = 0; i < pl->ngroups && worst != HPCP_EXIT_RUNTIME; i++) {
        MPI_Comm gc;
        int rc = 0;
        MPI_Comm_split(work, rank < pl->groups[i] ? 0 : MPI_UNDEFINED, rank, &gc);
        if (gc != MPI_COMM_NULL) {
            rc = run_members(pl, p, gc, si, note);
            MPI_Comm_free(&gc);
        }
        hpcp_idle_barrier(work);
        MPI_Bcast(&rc, 1, MPI_INT, 0, work);
        worst = rc > worst ? rc : worst;
    }
    return worst;
}
