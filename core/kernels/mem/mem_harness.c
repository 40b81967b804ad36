/* One copy, then many copies at once: phases, overlapped timing,
 * calibration and pinning shared by every memory kernel. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hpcprobe/util.h"
#include "mem.h"

void mem_phase_begin(struct mem_phase *ph, MPI_Comm world, int copies)
{
    MPI_Comm_rank(world, &ph->rank);
    ph->world = world;
    ph->copies = copies;
    ph->active = ph->rank < copies;
    MPI_Comm_split(world, ph->active ? 0 : MPI_UNDEFINED, ph->rank, &ph->comm);
}

void mem_phase_end(struct mem_phase *ph)
{
    /* The waiting ranks sleep here, so they never take a core from a copy. */
    hpcp_idle_barrier(ph->world);
    if (ph->comm != MPI_COMM_NULL)
        MPI_Comm_free(&ph->comm);
}

double mem_overlapped(const struct mem_phase *ph, mem_pass_fn fn, void *ctx, long passes,
                      long filler)
{
    MPI_Barrier(ph->comm);
    double t = fn(ctx, passes);
    if (ph->copies == 1)
        return t;
    MPI_Request req;
    int done = 0;
    MPI_Ibarrier(ph->comm, &req);
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    while (!done) {
        fn(ctx, filler);
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    }
    return t;
}

long mem_calibrate(const struct mem_phase *ph, mem_pass_fn fn, void *ctx, double min_time)
{
    long passes = 1;
    int rank = 0;
    MPI_Comm_rank(ph->comm, &rank);
    if (rank == 0) {
        fn(ctx, 1); /* first touch and cold caches stay out of the estimate */
        double t;
        while ((t = fn(ctx, passes)) < min_time && passes < (1L << 40)) {
            double grow = t > 0 ? 1.2 * min_time / t : 16;
            passes = (long)((double)passes * (grow > 16 ? 16 : grow < 2 ? 2 : grow));
        }
    }
    MPI_Bcast(&passes, 1, MPI_LONG, 0, ph->comm);
    return passes;
}

int mem_pin_rank(const struct hpcp_sysinfo *si, int threads)
{
    int cpus[MEM_MAX_THREADS];
    hpcp_rank_cpus(si->node_comm, threads, cpus);
    if (hpcp_pin_process(cpus, threads) != 0)
        return -1;
    return cpus[0];
}

long long *mem_gather_cpus(MPI_Comm comm, int cpu)
{
    int rank, ranks;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    long long mine = cpu, *all = rank == 0 ? malloc((size_t)ranks * sizeof *all) : NULL;
    MPI_Gather(&mine, 1, MPI_LONG_LONG, all, 1, MPI_LONG_LONG, 0, comm);
    return all;
}
