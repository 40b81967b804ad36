/* Environment metadata collected automatically for every record. */
#ifndef HPCPROBE_SYSINFO_H
#define HPCPROBE_SYSINFO_H
#include <mpi.h>
#include <stdint.h>
#include "hpcprobe/json.h"
#include "hpcprobe/link.h"

struct hpcp_sysinfo {
    int rank, ranks;
    int nodes;              /* distinct shared-memory nodes */
    int ranks_on_my_node;
    int ranks_per_node_max;
    MPI_Comm node_comm;     /* ranks sharing this node's memory */
    char *hosts_json;       /* JSON array of distinct host names (rank 0 only) */
    char *rank_hosts_json;  /* JSON array: each rank's index into hosts (rank 0 only) */
    /* JSON arrays (rank 0 only; NULL when out of memory), null where unknown:
     * each rank's CPU and NUMA domain at start-up, each host's NUMA domains. */
    char *rank_cores_json, *rank_numa_json, *host_numa_json;
    int numa_domains;       /* this rank's node: NUMA domains with CPUs, -1 unknown */
    char cpu_model[128];
    int cores_per_node;
    uint64_t memory_bytes_per_node;      /* MemTotal */
    uint64_t memory_available_min_node;  /* MemAvailable, smallest over nodes */
    uint64_t memory_total_min_node;      /* MemTotal, smallest over nodes */
    char thp_enabled[32], thp_defrag[32];
    uint64_t hugepage_size_bytes;
    char mpi_library[256];
    double mpi_wtick_s;
    char os[128];
    char affinity[128];
    int argc;
    char **argv;
    char started_at[32];    /* when the benchmark started (records' started_at) */
    struct hpcp_link_limit link_limit; /* HPCPROBE_LINK_LIMIT; bytes_per_s 0: none */
};

/* Collective over `comm`: gather hosts and node layout; read /proc and /sys;
 * HPCPROBE_LINK_LIMIT (a malformed value: one warning line on rank 0). */
void hpcp_sysinfo_collect(struct hpcp_sysinfo *si, MPI_Comm comm, int argc, char **argv);
void hpcp_sysinfo_free(struct hpcp_sysinfo *si);

/* A rank's name (its host's, or a placement file's) and the rank. */
struct hpcp_named_rank {
    const char *name;
    int rank;
};

/* The ranks' names (`stride` bytes apart) sorted by name, then by rank; the
 * caller frees it. NULL when out of memory. */
struct hpcp_named_rank *hpcp_sort_names(const char *names, size_t stride, int ranks);

/* index[i]: the place of names[i] (rank i's host, `stride` bytes apart)
 * among the sorted distinct names, as metadata.hosts lists them. 0, or -1
 * (out of memory: every index 0). */
int hpcp_host_indices(const char *names, size_t stride, int ranks, int *index);

/* Collective over `comm` (hpcp_sysinfo_collect calls it, placement.c): each
 * rank's CPU and NUMA domain, and its node's domains, to rank 0's JSON arrays;
 * host_index (rank 0; NULL when unknown) is each rank's index into hosts. */
void hpcp_placement_gather(struct hpcp_sysinfo *si, MPI_Comm comm, const int *host_index);

/* Write the "metadata" object members (the caller opened the object). */
void hpcp_sysinfo_to_json(const struct hpcp_sysinfo *si, struct hpcp_json *j);

/* "0.1.0 (git abc123)" */
const char *hpcp_version_string(void);

#endif
