/* The memory kernels' NUMA view (mem.h): each rank's domain, from the CPU it
 * was pinned to, and the domains the copies of a many-copy phase fall in,
 * for the per-domain figures of records on nodes with more than one. */
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hpcprobe/numa.h"
#include "mem.h"

/* The copies' distinct known domains, in increasing order. */
static void find_groups(struct mem_numa *n, int copies)
{
    n->groups = 0;
    for (int node = 0, seen = 0; seen < copies && n->groups < MEM_NUMA_MAX_GROUPS; node++) {
        int here = 0, left = 0;
        for (int c = 0; c < copies; c++) {
            here += n->rank_node[c] == node;
            left += n->rank_node[c] >= node;
        }
        if (left == 0)
            break;
        if (here)
            n->group_node[n->groups++] = node;
        seen += here;
    }
}

int mem_numa_gather(struct mem_numa *n, MPI_Comm comm, int cpu, int copies)
{
    int rank, ranks;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    memset(n, 0, sizeof *n);
    int mine = hpcp_numa_node_of_cpu(cpu), local[2] = {hpcp_numa_domains(), cpu >= 0};
    int domains_min[2], domains_max[2];
    /* Unknown (-1) anywhere makes the count unknown: a guess is worse. */
    MPI_Allreduce(local, domains_min, 2, MPI_INT, MPI_MIN, comm);
    MPI_Allreduce(local, domains_max, 2, MPI_INT, MPI_MAX, comm);
    n->domains = domains_min[0] < 0 ? -1 : domains_max[0];
    n->my_node = mine;
    n->pages_checked = n->pages_on_domain = -1;
    n->pinned = domains_min[1];
    n->rank_node = rank == 0 ? malloc((size_t)ranks * sizeof *n->rank_node) : NULL;
    MPI_Gather(&mine, 1, MPI_INT, n->rank_node, 1, MPI_INT, 0, comm);
    if (rank == 0 && !n->rank_node)
        return -1;
    if (rank == 0 && n->domains > 1 && copies > 1)
        find_groups(n, copies);
    return 0;
}

int mem_numa_group(const struct mem_numa *n, int rank)
{
    for (int g = 0; n->rank_node && g < n->groups; g++)
        if (n->rank_node[rank] == n->group_node[g])
            return g;
    return -1;
}

/* This rank's sampled pages on `node`: counts[0] checked, counts[1] on it;
 * -1, -1 when the kernel would not say. */
static void pages_on_node(const void *base, size_t bytes, int node, long long *counts)
{
    long page = sysconf(_SC_PAGESIZE);
    size_t pages = bytes / (size_t)(page > 0 ? page : 4096);
    int samples = pages < MEM_NUMA_PAGE_SAMPLES ? (int)pages : MEM_NUMA_PAGE_SAMPLES;
    void *at[MEM_NUMA_PAGE_SAMPLES];
    int status[MEM_NUMA_PAGE_SAMPLES];
    for (int i = 0; i < samples; i++)
        at[i] = (char *)base + (size_t)page * (pages * (size_t)i / (size_t)samples);
    counts[0] = counts[1] = 0;
    /* move_pages with no target nodes only reports each page's node. */
    if (samples && syscall(SYS_move_pages, 0, (unsigned long)samples, at, NULL, status, 0) != 0) {
        counts[0] = counts[1] = -1;
        return;
    }
    for (int i = 0; i < samples; i++) {
        counts[0] += status[i] >= 0;
        counts[1] += status[i] == node;
    }
}

void mem_numa_check_pages(struct mem_numa *n, MPI_Comm comm, const void *base, size_t bytes)
{
    long long counts[2] = {0, 0}, sums[2];
    int able = strcmp(hpcp_sysfs_root(), "/sys") == 0 && (!base || n->my_node >= 0), all_able;
    if (able && base)
        pages_on_node(base, bytes, n->my_node, counts);
    able = able && counts[0] >= 0;
    MPI_Allreduce(&able, &all_able, 1, MPI_INT, MPI_MIN, comm);
    MPI_Reduce(counts, sums, 2, MPI_LONG_LONG, MPI_SUM, 0, comm);
    n->pages_checked = all_able ? sums[0] : -1;
    n->pages_on_domain = all_able ? sums[1] : -1;
}

void mem_numa_free(struct mem_numa *n)
{
    free(n->rank_node);
    n->rank_node = NULL;
}

void mem_numa_record(struct hpcp_record *r, const struct mem_numa *n, int ranks, int copies)
{
    if (n->domains > 0)
        hpcp_record_param_int(r, "numa_domains", n->domains);
    else
        hpcp_record_param_null(r, "numa_domains");
    hpcp_record_param_string(r, "first_touch", n->pinned ? "rank_after_pinning" : "rank_unpinned");
    long long *node = malloc((size_t)ranks * sizeof *node), *count = NULL;
    for (int i = 0; node && n->rank_node && i < ranks; i++)
        node[i] = n->rank_node[i];
    if (node && n->rank_node)
        hpcp_record_counter_array(r, "cpu_numa", node, ranks);
    if (n->groups > 0 && (count = calloc((size_t)n->groups, sizeof *count))) {
        for (int c = 0; c < copies; c++) {
            int g = mem_numa_group(n, c);
            count[g < 0 ? 0 : g] += g >= 0;
        }
        hpcp_record_counter_array(r, "copies_by_numa", count, n->groups);
    }
    if (n->pages_checked >= 0) {
        hpcp_record_counter_int(r, "first_touch_pages_checked", n->pages_checked);
        hpcp_record_counter_int(r, "first_touch_pages_on_rank_domain", n->pages_on_domain);
        if (n->pages_on_domain < n->pages_checked)
            hpcp_record_note(r, "%lld of %lld sampled pages are not on their rank's NUMA domain",
                             n->pages_checked - n->pages_on_domain, n->pages_checked);
    }
    if (n->domains > 1 && copies > 1 && n->groups == 0)
        hpcp_record_note(r,
                         "the node has %d NUMA domains but the copies' domains are unknown "
                         "(not pinned): no per-domain figures",
                         n->domains);
    free(node);
    free(count);
}
