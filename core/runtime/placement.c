/* Where each rank runs: its CPU and NUMA domain, and each host's number of
 * domains, gathered at start-up for metadata (sysinfo.h, numa.h). */
#include <stdlib.h>

#include "hpcprobe/numa.h"
#include "hpcprobe/sysinfo.h"

/* A JSON array of n ints, null where v[i] < 0 (unknown); NULL out of memory. */
static char *int_array_json(const int *v, int n, int stride)
{
    struct hpcp_json j;
    hpcp_json_init(&j);
    hpcp_json_begin_array(&j, NULL);
    for (int i = 0; i < n; i++) {
        int x = v[(size_t)i * (size_t)stride];
        if (x < 0)
            hpcp_json_null(&j, NULL);
        else
            hpcp_json_int(&j, NULL, x);
    }
    hpcp_json_end_array(&j);
    if (j.failed) {
        hpcp_json_free(&j);
        return NULL;
    }
    return j.buf;
}

/* Rank 0: each host's domains, from the first of its ranks (`all` holds
 * cpu, node, domains per rank; host_index each rank's host). */
static char *host_domains_json(const int *all, const int *host_index, int ranks)
{
    int *per_host = malloc((size_t)ranks * sizeof *per_host);
    if (!per_host)
        return NULL;
    int hosts = 0;
    for (int i = 0; i < ranks; i++) {
        int h = host_index[i];
        for (; hosts <= h; hosts++)
            per_host[hosts] = -2; /* not seen yet */
        if (per_host[h] == -2)
            per_host[h] = all[3 * i + 2];
    }
    char *text = int_array_json(per_host, hosts, 1);
    free(per_host);
    return text;
}

void hpcp_placement_gather(struct hpcp_sysinfo *si, MPI_Comm comm, const int *host_index)
{
    int cpu = hpcp_current_cpu();
    int mine[3] = {cpu, hpcp_numa_node_of_cpu(cpu), hpcp_numa_domains()};
    si->numa_domains = mine[2];
    int *all = si->rank == 0 ? malloc((size_t)si->ranks * sizeof mine) : NULL;
    MPI_Gather(mine, 3, MPI_INT, all, 3, MPI_INT, 0, comm);
    if (all) {
        si->rank_cores_json = int_array_json(all, si->ranks, 3);
        si->rank_numa_json = int_array_json(all + 1, si->ranks, 3);
        if (host_index)
            si->host_numa_json = host_domains_json(all, host_index, si->ranks);
    }
    free(all);
}
