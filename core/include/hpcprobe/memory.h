/* Large buffers and where a rank runs: 2 MiB-aligned mappings whose page
 * size is asked for (and measured), and pinning ranks to cores. */
#ifndef HPCPROBE_MEMORY_H
#define HPCPROBE_MEMORY_H
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#define HPCP_HUGE_ALIGN ((size_t)2 << 20)

struct hpcp_region {
    void *base;                 /* 2 MiB aligned, `bytes` usable */
    size_t bytes;
    void *map;
    size_t map_bytes;
    int advice_rc, advice_errno; /* madvise result, recorded */
};

/* Map `bytes` (untouched) and advise transparent huge pages on (hugepages
 * != 0) or off before the first touch. -1 when the mapping fails. */
int hpcp_region_alloc(struct hpcp_region *r, size_t bytes, int hugepages);
void hpcp_region_free(struct hpcp_region *r);

/* AnonHugePages of the mapping holding `addr` (from /proc/self/smaps),
 * capped at `bytes`: what the OS actually gave, after the first touch. */
uint64_t hpcp_thp_bytes(const void *addr, size_t bytes);

/* The n CPUs this rank should use: its affinity mask's CPUs, offset by
 * (rank in node_comm) * n when the mask is the whole node (the launcher did
 * not bind), wrapping when oversubscribed; -1 entries when unknown. */
void hpcp_rank_cpus(MPI_Comm node_comm, int n, int *cpus);

/* Restrict the calling process (all its future threads) to cpus[0..n).
 * 0, or -1 when the kernel refused (the run goes on unpinned). */
int hpcp_pin_process(const int *cpus, int n);

#endif
