/* Large buffers and rank placement (memory.h). */
#include "hpcprobe/memory.h"

#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int hpcp_region_alloc(struct hpcp_region *r, size_t bytes, int hugepages)
{
    memset(r, 0, sizeof *r);
    size_t padded = (bytes + HPCP_HUGE_ALIGN - 1) & ~(HPCP_HUGE_ALIGN - 1);
    r->map_bytes = padded + HPCP_HUGE_ALIGN;
    r->map = mmap(NULL, r->map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (r->map == MAP_FAILED) {
        r->map = NULL;
        return -1;
    }
    uintptr_t p = ((uintptr_t)r->map + HPCP_HUGE_ALIGN - 1) & ~(uintptr_t)(HPCP_HUGE_ALIGN - 1);
    r->base = (void *)p;
    r->bytes = bytes;
    /* The page size is decided at the first touch: ask before it, for
     * either answer, since THP "always" would otherwise choose for us. */
    r->advice_rc = madvise(r->base, padded, hugepages ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    r->advice_errno = r->advice_rc ? errno : 0;
    return 0;
}

void hpcp_region_free(struct hpcp_region *r)
{
    if (r->map)
        munmap(r->map, r->map_bytes);
    memset(r, 0, sizeof *r);
}

uint64_t hpcp_thp_bytes(const void *addr, size_t bytes)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return 0;
    char line[512];
    int inside = 0;
    uint64_t kib = 0;
    uintptr_t a = (uintptr_t)addr;
    while (fgets(line, sizeof line, f)) {
        uintptr_t lo, hi;
        /* Mapping headers start "lo-hi "; field lines start with a name. */
        if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " ", &lo, &hi) == 2) {
            inside = a >= lo && a < hi;
            continue;
        }
        unsigned long long v;
        if (inside && sscanf(line, "AnonHugePages: %llu kB", &v) == 1) {
            kib = v;
            break;
        }
    }
    fclose(f);
    return kib * 1024u < bytes ? kib * 1024u : bytes;
}

void hpcp_rank_cpus(MPI_Comm node_comm, int n, int *cpus)
{
    int local_rank = 0;
    MPI_Comm_rank(node_comm, &local_rank);
    cpu_set_t set;
    int mine[CPU_SETSIZE], ncpu = 0;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &set))
                mine[ncpu++] = c;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    int offset = ncpu >= online ? local_rank * n : 0;
    for (int t = 0; t < n; t++)
        cpus[t] = ncpu ? mine[(offset + t) % ncpu] : -1;
}

int hpcp_pin_process(const int *cpus, int n)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int i = 0; i < n; i++) {
        if (cpus[i] < 0)
            return -1;
        CPU_SET(cpus[i], &set);
    }
    return sched_setaffinity(0, sizeof set, &set);
}
