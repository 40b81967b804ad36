/* Set-up and small pieces shared by the RandomAccess `mpi` algorithms. */
#include <stdio.h>
#include <stdlib.h>

#include "hpcprobe/util.h"
#include "ra_mpi.h"

int ra_mpi_setup(struct hpcp_bench *b, MPI_Comm *comm, int failed)
{
    struct ra_state *s = b->state;
    char err[256];
    s->active = 1;
    ra_dist_init(&s->dist, s->p.table_words, b->ranks);
    /* The driver checked the rule's range already; this cannot fail here. */
    ra_dist_set_rule(&s->dist, s->p.owner, err, sizeof err);
    s->my_start = ra_dist_start(&s->dist, b->rank);
    s->seq_start = (uint64_t)s->p.updates_per_word * s->my_start;
    s->my_updates = (uint64_t)s->p.updates_per_word * ra_dist_count(&s->dist, b->rank);
    MPI_Comm dup; /* collective: every rank, whatever failed */
    MPI_Comm_dup(b->comm, &dup);
    if (comm)
        *comm = dup;
    else
        MPI_Comm_free(&dup);
    if (!failed)
        failed = ra_table_alloc(&s->table, ra_dist_count(&s->dist, b->rank), s->p.hugepages);
    return hpcp_any(b->comm, failed);
}

void ra_mpi_teardown(struct hpcp_bench *b, MPI_Comm *comm)
{
    struct ra_state *s = b->state;
    if (*comm != MPI_COMM_NULL)
        MPI_Comm_free(comm);
    ra_table_free(&s->table);
}

uint64_t ra_mpi_steps(const struct ra_state *s)
{
    uint64_t most = (uint64_t)s->p.updates_per_word * ra_dist_count(&s->dist, 0);
    uint64_t q = (uint64_t)s->p.lookahead;
    return (most + q - 1) / q;
}

int ra_mpi_time_up(const struct ra_state *s, MPI_Comm comm, double t0, uint64_t step)
{
    if (s->p.time_limit_s <= 0 || (step & 63) != 63)
        return 0;
    return hpcp_any(comm, MPI_Wtime() - t0 > s->p.time_limit_s);
}

int ra_reserve(uint64_t **buf, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t grown = *cap ? *cap : 64;
    while (grown < need)
        grown *= 2;
    uint64_t *bigger = realloc(*buf, grown * sizeof **buf);
    if (!bigger)
        return -1;
    *buf = bigger;
    *cap = grown;
    return 0;
}

int ra_mpi_verify(struct hpcp_bench *b, double *error)
{
    *error = (double)ra_verify_table(b->state, b->comm);
    return 0;
}

void ra_mpi_out_of_memory(const char *what)
{
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "hpcprobe-bench: rank %d: out of memory growing %s; aborting the run\n", rank,
            what);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, HPCP_EXIT_RUNTIME);
}
